"""`manage.py seed_demo`: fill a database with the demo users, catalogue, policies and orders.

Safe to run on every start: it creates what is absent and never overwrites an existing row.
`--traffic` adds 14 days of synthetic, labelled traffic for the operations page (demo/traffic.py).
`--logins` prints the demo accounts instead (the run script shows them once the site is up).
"""

import base64

from django.conf import settings
from django.core.management.base import BaseCommand
from django.db import transaction
from django.utils import timezone

from demo.catalogue import seed_demo_activities
from demo.orders import seed_demo_orders, seed_demo_policies
from demo.traffic import seed_traffic
from demo.users import DEMO_LOGINS, DEMO_TOTP_KEYS, seed_demo_users


class Command(BaseCommand):
    help = "Create the demo users, activities, policies and orders that are missing; never overwrite existing rows."

    def add_arguments(self, parser):
        parser.add_argument("--logins", action="store_true", help="Only print the demo accounts and passwords.")
        parser.add_argument(
            "--traffic",
            action="store_true",
            help="Also add 14 days of synthetic, labelled traffic (turns, model calls, supplier commands, tickets) "
            "for the operations page; days already seeded are left as they are.",
        )

    def handle(self, *args, logins: bool = False, traffic: bool = False, verbosity: int = 1, **options):
        if logins:
            self._print_logins()
            return
        now = timezone.now()
        today = timezone.localdate(now)
        with transaction.atomic():
            counts = {
                **seed_demo_users(today=today),
                **seed_demo_activities(today=today),
                **seed_demo_policies(),
                **seed_demo_orders(now=now),
            }
        if traffic:
            counts.update(seed_traffic(now=now))
        if verbosity < 1:
            return
        self.stdout.write(f"Demo data (seed day {today:%Y-%m-%d}):")
        for label, (created, present) in counts.items():
            self.stdout.write(f"  {label}: {created} created, {present} already present")
        total_created = sum(created for created, _ in counts.values())
        self.stdout.write(self.style.SUCCESS(f"Done: {total_created} rows created."))

    def _print_logins(self) -> None:
        width = max(len(login["username"]) for login in DEMO_LOGINS)
        pw_width = max(len(login["password"]) for login in DEMO_LOGINS)
        for login in DEMO_LOGINS:
            account = f"{login['username']:<{width}}  {login['password']:<{pw_width}}"
            self.stdout.write(f"  {account}  {login['role']}: {login['description']}")
        self.stdout.write(
            "  The console (/admin/) also asks staff for a code: `.venv/bin/python manage.py demo_code approver`"
            " prints it, or add the secret to an authenticator app:"
        )
        for username, key in DEMO_TOTP_KEYS.items():
            secret = base64.b32encode(bytes.fromhex(key)).decode()
            self.stdout.write(f"    {username:<{width}}  {secret}")
        self.stdout.write(
            f"  approver approves up to ¥{settings.AFTERSALE_APPROVAL_LIMIT} alone (admin: no limit); above"
            f" ¥{settings.AFTERSALE_FOUR_EYES_ABOVE} a refund needs two approvers (AFTERSALE_FOUR_EYES_ABOVE)."
        )
