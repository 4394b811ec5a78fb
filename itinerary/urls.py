from django.urls import path

from itinerary import api, views

app_name = "itinerary"

urlpatterns = [
    path("activities/<int:activity_id>/", views.activity_detail, name="activity-detail"),
    path("api/v1/itinerary/plans", api.PlanCreateView.as_view(), name="api-plans"),
    path("api/v1/itinerary/plans/<str:plan_id>", api.PlanDetailView.as_view(), name="api-plan-detail"),
]
