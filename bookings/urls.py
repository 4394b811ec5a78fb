from django.urls import path

from bookings import api, views

app_name = "bookings"

urlpatterns = [
    path("bookings/", views.booking_list, name="list"),
    path("bookings/refresh", views.booking_refresh, name="refresh"),
    path("bookings/<str:booking_id>/pay", views.booking_pay_view, name="pay"),
    path("bookings/<str:booking_id>/cancel", views.booking_cancel_view, name="cancel"),
    path("api/v1/bookings/", api.BookingListView.as_view(), name="api-list"),
    path("api/v1/bookings/<str:booking_id>/pay", api.BookingPayView.as_view(), name="api-pay"),
    path("api/v1/bookings/<str:booking_id>/cancel", api.BookingCancelView.as_view(), name="api-cancel"),
]
