from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ItineraryConfig(AppConfig):
    name = "itinerary"
    verbose_name = _("Itinerary and catalogue")

    def ready(self) -> None:
        from django.db import transaction
        from django.db.models.signals import post_delete, post_save

        from itinerary.matching import profile_forget
        from itinerary.models import InterestProfile

        def forget(sender, instance, **kwargs) -> None:
            # Now, and again once committed: a search in between may have cached the facts being replaced.
            profile_forget(instance.user_id)
            transaction.on_commit(lambda: profile_forget(instance.user_id))

        post_save.connect(forget, sender=InterestProfile, weak=False, dispatch_uid="itinerary.profile_saved")
        post_delete.connect(forget, sender=InterestProfile, weak=False, dispatch_uid="itinerary.profile_deleted")
