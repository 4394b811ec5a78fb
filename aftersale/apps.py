from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AftersaleConfig(AppConfig):
    name = "aftersale"
    verbose_name = _("After-sale and approvals")

    def ready(self) -> None:
        from celery.signals import worker_init

        from aftersale import (
            checks,  # registers the execution lease check
            tasks,  # noqa: F401 - registers the tasks that services enqueue by name, in every process
        )

        # A worker checks its lease against its time limits before it takes any ticket.
        worker_init.connect(checks.refuse_to_start_misconfigured, weak=False, dispatch_uid="aftersale-lease-check")
