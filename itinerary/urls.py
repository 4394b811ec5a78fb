from django.urls import path

from itinerary import views

app_name = "itinerary"

urlpatterns = [
    path("activities/<int:activity_id>/", views.activity_detail, name="activity-detail"),
]
