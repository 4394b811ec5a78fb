"""Staff sign in to the approval console with a password and a second factor (config/staff.py, django-otp);
travellers sign in with their password alone. Every request here goes through the sign-in forms, as a browser's
would (the suite's `force_login` passes the second factor, so these tests never use it for staff)."""

import re

import pytest
from axes.models import AccessAttempt
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from django_otp.plugins.otp_static.models import StaticDevice
from django_otp.plugins.otp_totp.models import TOTPDevice

from tests.support.staff import staff_code

pytestmark = pytest.mark.django_db

LOGIN = "/admin/login/"
CONSOLE = "/admin/aftersale/hitlticket/"
PASSWORD = "approve-2026"
LIMIT = 10  # AXES_FAILURE_LIMIT with nothing configured


@pytest.fixture
def approver(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    call_command("seed_demo", verbosity=0)
    return get_user_model().objects.get(username="approver")


def sign_in(client: Client, code: str, username: str = "approver", password: str = PASSWORD):
    return client.post(LOGIN, {"username": username, "password": password, "code": code, "next": CONSOLE})


def console_is_open(client: Client) -> bool:
    response = client.get(CONSOLE)
    if response.status_code == 302:
        assert response["Location"].startswith(LOGIN)
        return False
    assert response.status_code == 200 and "changelist" in response.content.decode()
    return True


def test_the_console_opens_with_the_password_and_the_code_of_the_staff_members_authenticator(approver):
    client = Client()
    form = client.get(LOGIN).content.decode()
    assert 'name="code"' in form and 'autocomplete="one-time-code"' in form and 'name="password"' in form

    response = sign_in(client, staff_code(approver))

    assert response.status_code == 302 and response["Location"] == CONSOLE
    assert console_is_open(client)


@pytest.mark.parametrize("code", ["", "000000", "12345x"], ids=["no code", "a wrong code", "garbage"])
def test_a_password_without_the_right_code_leaves_the_console_closed(approver, code):
    client = Client()

    response = sign_in(client, code)

    assert response.status_code == 200 and "_auth_user_id" not in client.session
    assert 'class="errornote"' in response.content.decode()
    assert not console_is_open(client)


def test_signed_in_with_the_password_alone_on_the_site_staff_still_meet_the_consoles_door(approver):
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    site = client.post(reverse("login"), {"username": "approver", "password": PASSWORD})
    assert site.status_code == 302 and "_auth_user_id" in client.session  # the site itself takes a password

    assert not console_is_open(client)
    door = client.get(LOGIN).content.decode()
    assert "authenticator app" in door and 'name="code"' in door


def test_a_wrong_code_counts_as_a_failed_login_and_the_lockout_holds_against_the_right_code(approver):
    client = Client()

    wrong = [sign_in(client, "000000") for _ in range(LIMIT)]
    right = sign_in(client, staff_code(approver))

    assert {r.status_code for r in wrong[: LIMIT - 1]} == {200}
    assert wrong[-1].status_code == 429 and right.status_code == 429  # locked: the right code does not open it
    assert AccessAttempt.objects.get(username="approver").failures_since_start >= LIMIT
    assert not console_is_open(client)
    # From another address axes does not lock, but the device itself waits after failures (django-otp's throttle,
    # 2^(n-1) s after n): a guesser spreading over addresses gains nothing. Once it is over, the code opens.
    elsewhere = Client(REMOTE_ADDR="198.51.100.30")
    assert sign_in(elsewhere, staff_code(approver)).status_code == 200 and not console_is_open(elsewhere)
    TOTPDevice.objects.get(user=approver).throttle_reset()
    assert sign_in(elsewhere, staff_code(approver)).status_code == 302 and console_is_open(elsewhere)


def test_a_code_is_taken_once(approver):
    first, second = Client(), Client(REMOTE_ADDR="198.51.100.31")
    device = TOTPDevice.objects.get(user=approver)
    code = staff_code(approver)

    assert sign_in(first, code).status_code == 302
    assert sign_in(second, code).status_code == 200  # the same code again: refused
    device.refresh_from_db()
    assert device.last_t > -1 and console_is_open(first) and not console_is_open(second)


def test_a_recovery_code_opens_the_console_once(approver):
    recovery = StaticDevice.objects.create(user=approver, name="recovery codes")
    recovery.token_set.create(token="ab12cd34")
    recovery.token_set.create(token="ef56gh78")

    assert sign_in(Client(), "ab12cd34").status_code == 302
    assert sign_in(Client(REMOTE_ADDR="198.51.100.32"), "ab12cd34").status_code == 200  # used up
    assert list(recovery.token_set.values_list("token", flat=True)) == ["ef56gh78"]


def test_staff_without_a_second_factor_are_told_to_have_one_enrolled(approver):
    TOTPDevice.objects.filter(user=approver).delete()

    english, chinese = sign_in(Client(HTTP_ACCEPT_LANGUAGE="en"), "123456"), sign_in(Client(), "123456")

    assert english.status_code == 200 and "no second factor yet" in english.content.decode()
    assert chinese.status_code == 200 and "还没有第二重验证" in chinese.content.decode()


def test_travellers_sign_in_with_their_password_alone(approver):
    client = Client()

    response = client.post(reverse("login"), {"username": "alice", "password": "alice-2026"})

    assert response.status_code == 302 and "_auth_user_id" in client.session
    page = client.get(reverse("assistant:chat")).content.decode()
    assert 'name="code"' not in page and "alice" in page


def test_the_demo_code_command_prints_the_code_that_opens_the_console(approver, capsys):
    call_command("demo_code", "approver")
    code = capsys.readouterr().out.strip()

    assert len(code) == 6 and code.isdigit()
    client = Client()
    assert sign_in(client, code).status_code == 302 and console_is_open(client)


def test_an_admin_enrols_a_staff_members_authenticator_from_the_admin(approver):
    admin = get_user_model().objects.get(username="admin")
    staff = get_user_model().objects.create_user(username="dora", password="dora-2026-long", is_staff=True)
    client = Client()
    assert sign_in(client, staff_code(admin), username="admin", password="admin-2026").status_code == 302

    form = client.get(reverse("admin:otp_totp_totpdevice_add")).content.decode()
    key = re.search(r'name="key" value="([0-9a-f]{40})"', form).group(1)  # the random key the form offers
    added = client.post(
        reverse("admin:otp_totp_totpdevice_add"),
        {
            "user": staff.pk,
            "name": "Dora's phone",
            "confirmed": "on",
            "key": key,
            "step": 30,
            "t0": 0,
            "digits": 6,
            "tolerance": 1,
            "drift": 0,
            "throttling_failure_count": 0,
        },
    )
    device = TOTPDevice.objects.get(user=staff)
    qr = client.get(reverse("admin:otp_totp_totpdevice_qrcode", kwargs={"pk": device.pk}))

    assert added.status_code == 302 and device.confirmed
    assert qr.status_code == 200 and qr["Content-Type"].startswith("image/svg+xml")
    assert sign_in(Client(REMOTE_ADDR="198.51.100.33"), staff_code(staff), "dora", "dora-2026-long").status_code == 302
