from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ItineraryConfig(AppConfig):
    name = "itinerary"
    verbose_name = _("Itinerary and catalogue")
