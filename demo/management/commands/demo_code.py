"""`manage.py demo_code USERNAME`: the code a demo staff account's authenticator would show now (config/staff.py).

Only for the demo's own devices (seeded by `seed_demo` with a published key): a real staff member's device is
never read here."""

from django.core.management.base import BaseCommand, CommandError
from django_otp.oath import TOTP
from django_otp.plugins.otp_totp.models import TOTPDevice

from demo.users import DEMO_DEVICE_NAME


class Command(BaseCommand):
    help = "Print the current sign-in code of a demo staff account (approver, admin) for the approval console."

    def add_arguments(self, parser):
        parser.add_argument("username")

    def handle(self, *args, username: str, **options):
        device = TOTPDevice.objects.filter(user__username=username, name=DEMO_DEVICE_NAME, confirmed=True).first()
        if device is None:
            raise CommandError(f"{username!r} has no demo authenticator: run `manage.py seed_demo` first")
        totp = TOTP(device.bin_key, device.step, device.t0, device.digits, device.drift)
        self.stdout.write(f"{totp.token():0{device.digits}d}")
