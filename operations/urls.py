"""The operators' addresses, included by config/urls.py before the admin's own (which would take /admin/operations/)."""

from django.contrib import admin
from django.urls import path

from operations.views import metrics_endpoint, operations_page

urlpatterns = [
    # Prometheus' text format, for staff or the scrape token (operations/views.py).
    path("metrics", metrics_endpoint, name="metrics"),
    # The operations page, inside the admin for its staff.
    path("admin/operations/", admin.site.admin_view(operations_page), name="admin-operations"),
]
