from django.urls import path

from aftersale import api, views

app_name = "aftersale"

urlpatterns = [
    path("aftersale/", views.requests_page, name="requests"),
    path("aftersale/live", views.requests_live, name="live"),
    path("aftersale/orders/<str:order_id>/request", views.request_submit, name="request"),
    path("api/v1/aftersale/orders/", api.OrderListView.as_view(), name="api-orders"),
    path("api/v1/aftersale/tickets/", api.TicketListView.as_view(), name="api-tickets"),
    path("api/v1/aftersale/requests", api.AftersaleRequestView.as_view(), name="api-request"),
]
