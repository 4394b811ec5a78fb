"""Demo users: travellers, an approver and an admin, with the passwords the README and the run script print.

Seeding fills what is absent (by username) and never changes an existing user: not the password, not a field.
The "approvers" and "support" groups get their permissions (re)applied on every run; adding a permission twice is a
no-op. The demo approver also answers hand-overs (the "support" group).
"""

from datetime import date, timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.core.exceptions import ImproperlyConfigured
from django.db import transaction
from django.utils import timezone
from django_otp.plugins.otp_totp.models import TOTPDevice

from itinerary.models import InterestProfile

APPROVERS_GROUP = "approvers"

# (app_label, codename) of what an approver may see and do in the admin.
APPROVER_PERMISSIONS: tuple[tuple[str, str], ...] = (
    ("aftersale", "decide_ticket"),
    ("aftersale", "view_hitlticket"),
    ("aftersale", "change_hitlticket"),
    ("aftersale", "view_bizorder"),
    ("aftersale", "view_policy"),
    ("aftersale", "view_ticketevent"),
    ("bookings", "view_bookingrecord"),
)

SUPPORT_GROUP = "support"

# (app_label, codename) of what support staff may see and do: the hand-over queue, and the traveller's bookings,
# orders and requests it links to (read only).
SUPPORT_PERMISSIONS: tuple[tuple[str, str], ...] = (
    ("assistant", "answer_handover"),
    ("bookings", "view_bookingrecord"),
    ("aftersale", "view_bizorder"),
    ("aftersale", "view_hitlticket"),
)

# Demo credentials, shown on purpose: these accounts exist only in demo databases.
DEMO_LOGINS: list[dict[str, str]] = [
    {
        "username": "alice",
        "password": "alice-2026",
        "role": "traveller",
        "description": "Traveller, 23, female, likes hiking and photography; owns ORD-001, ORD-002, ORD-004, "
        "ORD-005 and ORD-007.",
    },
    {
        "username": "bob",
        "password": "bob-2026",
        "role": "traveller",
        "description": "Traveller, 41, male, likes culture and food; owns ORD-006 and ORD-008.",
    },
    {
        "username": "carol",
        "password": "carol-2026",
        "role": "traveller",
        "description": "Traveller who owns ORD-003 (someone else's order when alice asks about it).",
    },
    {
        "username": "approver",
        "password": "approve-2026",
        "role": "approver",
        "description": "Staff in the 'approvers' and 'support' groups: decides after-sale tickets and answers "
        "hand-overs in the admin; not a superuser.",
    },
    {
        "username": "admin",
        "password": "admin-2026",
        "role": "admin",
        "description": "Superuser: everything in the admin.",
    },
]

# The demo staff's second factor (config/staff.py): a TOTP device of known key each, so a first run can sign in to
# the console (`manage.py demo_code approver` prints the code now; or add the base32 secret `run.sh` prints to an
# authenticator app). Demo databases only, like the passwords.
DEMO_DEVICE_NAME = "demo authenticator"
DEMO_TOTP_KEYS: dict[str, str] = {
    "approver": "3132333435363738393031323334353637383930",
    "admin": "4142434445464748494a4b4c4d4e4f5051525354",
}

# Extra fields per username, used only when the user is created.
_USER_FIELDS: dict[str, dict[str, Any]] = {
    "alice": {"first_name": "Alice", "last_name": "Li", "email": "alice@example.com"},
    "bob": {"first_name": "Bob", "last_name": "Wang", "email": "bob@example.com"},
    "carol": {"first_name": "Carol", "last_name": "Zhang", "email": "carol@example.com"},
    "approver": {"first_name": "Ada", "last_name": "Approver", "email": "approver@example.com", "is_staff": True},
    "admin": {"first_name": "Admin", "email": "admin@example.com"},
}

# Interest profiles: (scores, age in years today, gender).
_PROFILES: dict[str, tuple[dict[str, float], int, str]] = {
    "alice": ({"hiking": 0.9, "photography": 0.7, "lake": 0.6, "food": 0.3}, 23, InterestProfile.Gender.FEMALE),
    "bob": ({"culture": 0.8, "food": 0.6, "ancient_town": 0.5, "hiking": 0.2}, 41, InterestProfile.Gender.MALE),
}


def birth_date_for_age(age: int, *, today: date) -> date:
    """A birth date that makes someone `age` years old today: their birthday was 60 days ago."""
    anchor = today - timedelta(days=60)
    try:
        return anchor.replace(year=anchor.year - age)
    except ValueError:  # 29 February in a year that has none
        return anchor.replace(year=anchor.year - age, day=28)


def _approver_permissions(wanted=APPROVER_PERMISSIONS) -> list[Permission]:
    permissions = []
    for app_label, codename in wanted:
        try:
            permissions.append(Permission.objects.get(content_type__app_label=app_label, codename=codename))
        except Permission.DoesNotExist:
            raise ImproperlyConfigured(f"Permission {app_label}.{codename} is missing: run `manage.py migrate` first")
    return permissions


@transaction.atomic
def seed_demo_users(*, today: date | None = None) -> dict[str, tuple[int, int]]:
    """Create the missing demo users, their group and profiles; return {label: (created, already present)}."""
    today = today or timezone.localdate()
    user_model = get_user_model()

    group, group_created = Group.objects.get_or_create(name=APPROVERS_GROUP)
    group.permissions.add(*_approver_permissions())
    support, support_created = Group.objects.get_or_create(name=SUPPORT_GROUP)
    support.permissions.add(*_approver_permissions(SUPPORT_PERMISSIONS))

    users_created = 0
    for login in DEMO_LOGINS:
        username = login["username"]
        user = user_model.objects.filter(username=username).first()
        created = user is None
        if created:
            fields = dict(_USER_FIELDS.get(username, {}))
            if login["role"] == "admin":
                user = user_model.objects.create_superuser(username=username, password=login["password"], **fields)
            else:
                user = user_model.objects.create_user(username=username, password=login["password"], **fields)
            users_created += 1
        # A new approver joins the group; an existing one keeps whatever groups someone gave it since,
        # unless the group itself is new (it was deleted, or this is the first run).
        if login["role"] == "approver" and (created or group_created):
            user.groups.add(group)
        if login["role"] == "approver" and (created or support_created):
            user.groups.add(support)
        if username in DEMO_TOTP_KEYS:
            TOTPDevice.objects.get_or_create(
                user=user, name=DEMO_DEVICE_NAME, defaults={"key": DEMO_TOTP_KEYS[username], "confirmed": True}
            )

    profiles_created = 0
    for username, (scores, age, gender) in _PROFILES.items():
        user = user_model.objects.get(username=username)
        _, created = InterestProfile.objects.get_or_create(
            user=user,
            defaults={"scores": scores, "birth_date": birth_date_for_age(age, today=today), "gender": gender},
        )
        profiles_created += created

    return {
        "users": (users_created, len(DEMO_LOGINS) - users_created),
        "groups": (int(group_created) + int(support_created), 2 - int(group_created) - int(support_created)),
        "interest profiles": (profiles_created, len(_PROFILES) - profiles_created),
    }
