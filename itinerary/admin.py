from django.contrib import admin

from itinerary.models import Activity, InterestProfile


@admin.register(Activity)
class ActivityAdmin(admin.ModelAdmin):
    list_display = ("title", "city", "province", "price", "start_date", "end_date", "is_published")
    list_filter = ("is_published", "province", "gender_restriction")
    search_fields = ("title", "city", "province")
    date_hierarchy = "start_date"
    list_per_page = 50
    show_full_result_count = False


@admin.register(InterestProfile)
class InterestProfileAdmin(admin.ModelAdmin):
    list_display = ("user", "gender", "birth_date", "updated_at")
    search_fields = ("user__username",)
    raw_id_fields = ("user",)
