"""The approval console's door: staff sign in to /admin/ with their password and a one-time code (TOTP, django-otp)
from their authenticator app, or one of their recovery codes; travellers are not asked (they never use the admin).

- `StaffAdminSite` is the admin site (config/admin_app.py): a page of it is open only to staff whose
  session was verified with a second factor (`request.user.is_verified()`, django-otp's middleware); a password
  alone, here or on the site's own sign-in page, leaves the console closed and shows its sign-in form.
- `StaffLoginForm` checks the password first (axes counts a wrong one and refuses a locked-out pair, as before), then
  the code against the user's confirmed devices: TOTP, then recovery codes (each used once). A wrong code counts as
  a failed login for that username and address too (`user_login_failed`), so the lockout counts both factors.
- Enrolment is in the admin: whoever may add devices (an admin) adds a TOTP device for the staff member
  (Admin › TOTP devices: its QR code for the authenticator app) and, for recovery, a static device with a few
  codes. The demo seeds a TOTP device of known key for its two staff accounts (`demo.users`, printed by run.sh).
"""

from django import forms
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.admin.sites import AdminSite
from django.contrib.auth.signals import user_login_failed
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _
from django_otp import devices_for_user, match_token

MAX_CODE_CHARS = 16


class StaffLoginForm(AdminAuthenticationForm):
    code = forms.CharField(
        label=_("Code from your authenticator app"),
        help_text=_("Six digits, or one of your recovery codes."),
        max_length=MAX_CODE_CHARS,
        widget=forms.TextInput(attrs={"autocomplete": "one-time-code", "inputmode": "numeric"}),
    )

    error_messages = {
        **AdminAuthenticationForm.error_messages,
        "invalid_code": _(
            "That code is not right or has expired: enter the code your authenticator app shows now, or one of your "
            "recovery codes."
        ),
        "no_device": _("Your account has no second factor yet: ask an administrator to enrol your authenticator app."),
    }

    def clean(self):
        cleaned = super().clean()  # the password (counted by axes), then: staff and active
        user = self.get_user()
        code = "".join(str(cleaned.get("code") or "").split())
        device = match_token(user, code) if code else None
        if device is None:
            # A wrong second factor is a failed login like a wrong password: axes counts it for this username and
            # address, and the lockout follows after AXES_FAILURE_LIMIT of either.
            user_login_failed.send(
                sender=__name__, credentials={"username": cleaned.get("username")}, request=self.request
            )
            enrolled = any(devices_for_user(user, confirmed=True))
            raise ValidationError(self.error_messages["invalid_code" if enrolled else "no_device"], code="invalid_code")
        user.otp_device = device  # django-otp marks the session verified once the login completes
        return cleaned


class StaffAdminSite(AdminSite):
    login_form = StaffLoginForm
    login_template = "admin/staff_login.html"

    def has_permission(self, request):
        return super().has_permission(request) and request.user.is_verified()
