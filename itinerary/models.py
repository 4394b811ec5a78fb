"""The activity catalogue and the travellers' interest profiles."""

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils.translation import gettext_lazy as _

from core.indexes import OrderedIndex
from itinerary.covers import cover_url, validate_cover_url


class GenderRestriction(models.TextChoices):
    NONE = "NONE", "No restriction"
    FEMALE = "FEMALE", "Women only"
    MALE = "MALE", "Men only"


class Activity(models.Model):
    """One bookable activity of the catalogue: a tour, a hike, a ticket."""

    title = models.CharField(_("title"), max_length=200)
    city = models.CharField(max_length=64, db_index=True)
    province = models.CharField(max_length=64, db_index=True)
    description = models.TextField(_("description"), blank=True)
    price = models.DecimalField(max_digits=10, decimal_places=2)
    start_date = models.DateField()
    end_date = models.DateField()
    tags = models.JSONField(default=list, blank=True)
    system_tags = models.JSONField(default=list, blank=True)
    min_age = models.PositiveSmallIntegerField(null=True, blank=True)
    max_age = models.PositiveSmallIntegerField(null=True, blank=True)
    gender_restriction = models.CharField(
        max_length=8, choices=GenderRestriction.choices, default=GenderRestriction.NONE
    )
    # An absolute URL of a picture hosted elsewhere, or a shipped picture (img/covers/lake.svg), checked where it is
    # entered: see itinerary.covers. Blank: the illustration of the activity's kind of place.
    cover_image_url = models.CharField(
        max_length=300,
        blank=True,
        validators=[validate_cover_url],
        help_text=_(
            "An absolute address (https://…) of a picture hosted elsewhere, or a picture shipped with the site "
            "such as img/covers/lake.svg; blank for the illustration of its kind of place."
        ),
    )
    is_published = models.BooleanField(default=True)
    popularity = models.PositiveIntegerField(default=0, help_text="Bookings in the last season; orders RECOMMEND.")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = _("activity")
        verbose_name_plural = _("activities")
        ordering = ["start_date", "id"]
        # For the catalogue query (`itinerary.selectors.activity_search`, measured by bench/catalogue.py): every
        # search has a date window; a keyword also uses the bigram GIN index of migration 0002 (PostgreSQL only);
        # a province search the second index, whose columns answer its window and budget before the table is read.
        indexes = [
            models.Index(
                fields=["start_date", "end_date"], condition=Q(is_published=True), name="activity_published_window"
            ),
            models.Index(
                fields=["province", "start_date", "end_date", "price"],
                condition=Q(is_published=True),
                name="activity_province_window",
            ),
            # A recommendation (no place) reads the catalogue in its order and needs no count: with these the
            # database walks the order and stops at the rows it shows, instead of reading and sorting the whole
            # 30-day window (23k rows of 100k: 17 ms, now ~1 ms). Their NULLS placement is the one the
            # recommendation's ORDER BY spells (`activity_search(counted=False)`; the columns hold no NULL, so the
            # order is the same) and a counted search's does not: a search reads every match for its count anyway,
            # and walking an order index to filter it read the whole catalogue (10 ms → 54 ms for a province).
            OrderedIndex(
                F("popularity").desc(nulls_last=True),
                F("price"),
                F("id"),
                condition=Q(is_published=True),
                name="activity_popular",
            ),
            OrderedIndex(
                F("price").asc(nulls_first=True),
                F("popularity").desc(nulls_last=True),
                F("id"),
                condition=Q(is_published=True),
                name="activity_cheapest",
            ),
        ]
        constraints = [
            models.CheckConstraint(condition=Q(price__gte=0), name="activity_price_not_negative"),
            models.CheckConstraint(condition=Q(end_date__gte=F("start_date")), name="activity_ends_after_start"),
            models.CheckConstraint(
                condition=Q(min_age__isnull=True) | Q(max_age__isnull=True) | Q(max_age__gte=F("min_age")),
                name="activity_age_range_ordered",
            ),
            models.CheckConstraint(
                condition=Q(gender_restriction__in=GenderRestriction.values), name="activity_gender_known"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.title} ({self.city}, {self.start_date:%Y-%m-%d}, ¥{self.price})"

    @property
    def cover_url(self) -> str:
        """What a page shows as its picture (see itinerary.covers)."""
        return cover_url(self)


class InterestProfile(models.Model):
    """What a traveller likes (category → score 0..1) and the facts that restrict what they may join."""

    class Gender(models.TextChoices):
        UNKNOWN = "", "Not given"
        FEMALE = "FEMALE", "Female"
        MALE = "MALE", "Male"

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="interest_profile")
    scores = models.JSONField(default=dict, blank=True)
    birth_date = models.DateField(null=True, blank=True)
    gender = models.CharField(max_length=8, choices=Gender.choices, blank=True, default=Gender.UNKNOWN)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = _("interest profile")
        verbose_name_plural = _("interest profiles")

    def __str__(self) -> str:
        top = sorted(self.scores.items(), key=lambda kv: -kv[1])[:3]
        return f"{self.user} likes " + (", ".join(k for k, _ in top) or "nothing yet")
