from csp.decorators import csp_update
from django.conf import settings
from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.shortcuts import redirect
from django.templatetags.static import static
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerSplitView

from config.health import healthz

# A request Django refuses (too large, malformed): JSON under /api/, a clear page or chat partial elsewhere. The
# pages are templates/400.html, 404.html and 500.html; Django's own handler403 and CSRF failure view render
# templates/403.html and 403_csrf.html.
handler400 = "config.api_errors.bad_request"
handler404 = "config.api_errors.not_found"
handler500 = "config.api_errors.server_error"

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    # Browsers ask for /favicon.ico whatever a page links (templates/icons.html): the PNG icon, under its static name
    # (content-hashed in production, hence a temporary redirect looked up on each request).
    path("favicon.ico", lambda request: redirect(static("img/icons/favicon-32.png")), name="favicon"),
    # /metrics and the admin's operations page (before admin.site.urls, which would take /admin/operations/).
    path("", include("operations.urls")),
    path("admin/", admin.site.urls),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("i18n/", include("django.conf.urls.i18n")),
    path("api/v1/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # Swagger UI with its init script as a separate same-origin file (?script), not inline: the CSP allows that.
    path(
        "api/v1/docs/",
        SpectacularSwaggerSplitView.as_view(url_name="api-schema", template_name="api/swagger_ui.html"),
        name="api-docs",
    ),
    # ReDoc, started by a separate same-origin file too, with the CSP additions it needs on its page only
    # (settings.REDOC_CSP_UPDATE: its <style> elements, its search worker).
    path(
        "api/v1/docs/redoc/",
        csp_update(settings.REDOC_CSP_UPDATE)(
            SpectacularRedocView.as_view(url_name="api-schema", template_name="api/redoc.html")
        ),
        name="api-redoc",
    ),
    path("", include("itinerary.urls")),
    path("", include("bookings.urls")),
    path("", include("aftersale.urls")),
    path("", include("assistant.urls")),
]
