"""Django's admin, as the approval console: its site is `config.staff.StaffAdminSite` (staff sign in with a second
factor). Its own module: an app's config is imported before the models, and the site's is not."""

from django.contrib.admin.apps import AdminConfig


class StaffAdminConfig(AdminConfig):
    default_site = "config.staff.StaffAdminSite"
