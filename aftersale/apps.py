from django.apps import AppConfig


class AftersaleConfig(AppConfig):
    name = "aftersale"
    verbose_name = "After-sale and approvals"
