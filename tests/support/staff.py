"""Staff sign in to the console with a second factor (config/staff.py): what the tests use to pass it."""

from django_otp import DEVICE_ID_SESSION_KEY
from django_otp.oath import TOTP
from django_otp.plugins.otp_totp.models import TOTPDevice

TEST_DEVICE_NAME = "test authenticator"


def staff_device(user) -> TOTPDevice:
    """The user's confirmed TOTP device (the demo's, or one made for the test)."""
    device = TOTPDevice.objects.filter(user=user, confirmed=True).first()
    return device or TOTPDevice.objects.create(user=user, name=TEST_DEVICE_NAME, confirmed=True)


def staff_code(user) -> str:
    """The code the user's authenticator shows now, or the next one when this one was used already (a device takes
    each code once; it accepts the next step's too)."""
    device = staff_device(user)
    totp = TOTP(device.bin_key, device.step, device.t0, device.digits, device.drift)
    if totp.t() <= device.last_t:
        totp.time = device.t0 + (device.last_t + 1) * device.step
    return f"{totp.token():0{device.digits}d}"


def mark_verified(client, user) -> None:
    """A test client signed in by `force_login` (no password) has passed the second factor too."""
    session = client.session
    session[DEVICE_ID_SESSION_KEY] = staff_device(user).persistent_id
    session.save()
