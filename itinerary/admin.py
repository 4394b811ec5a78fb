from django.contrib import admin
from modeltranslation.admin import TranslationAdmin

from core.admin import BoundedSearchMixin
from itinerary.models import Activity, InterestProfile
from itinerary.services import activity_save


@admin.register(Activity)
class ActivityAdmin(BoundedSearchMixin, TranslationAdmin):
    """The catalogue: its title and description edited in Chinese and English side by side (modeltranslation); the
    Chinese is required, a blank English falls back to it."""

    list_display = ("title", "city", "province", "price", "start_date", "end_date", "is_published")
    list_filter = ("is_published", "province", "gender_restriction")
    search_fields = ("title_zh_hans", "title_en", "city", "province")
    date_hierarchy = "start_date"
    list_per_page = 50
    show_full_result_count = False
    readonly_fields = ("system_tags",)  # computed from the Chinese title and tags on every save

    def save_model(self, request, obj, form, change):
        activity_save(activity=obj)


@admin.register(InterestProfile)
class InterestProfileAdmin(BoundedSearchMixin, admin.ModelAdmin):
    list_display = ("user", "gender", "birth_date", "updated_at")
    search_fields = ("user__username",)
    raw_id_fields = ("user",)
    list_select_related = ("user",)
    list_per_page = 50
    show_full_result_count = False
