"""What the browser is told about every page: the CSP, Permissions-Policy, referrer and opener headers.

Every page a traveller, a visitor or an approver opens carries the same strict Content-Security-Policy (scripts,
styles, images and forms from this site only, no inline script, no eval, not framed) and denies camera, microphone,
geolocation, payment, USB and the rest; the pages themselves hold nothing that policy would block (no inline script,
event-handler attribute, hx-on or style attribute), so they work under it (the browser test runs them in Chromium
and finds no violation in the console). The API docs load Swagger UI from this site. `check --deploy` passes with
the production settings, and without HTTPS warns of exactly the HTTPS settings the README explains.
"""

import os
import re
import secrets
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from django.contrib import admin
from django.test import Client
from django.urls import reverse

from itinerary.models import Activity

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]

POLICY = {
    "default-src": {"'self'"},
    "script-src": {"'self'"},
    "style-src": {"'self'"},
    "img-src": {"'self'", "data:"},
    "object-src": {"'none'"},
    "base-uri": {"'self'"},
    "form-action": {"'self'"},
    "frame-ancestors": {"'none'"},
    "connect-src": {"'self'"},  # and the live server's origin when it has its own (TRIPDESK_LIVE_URL)
}
DENIED_FEATURES = ("camera", "microphone", "geolocation", "payment", "usb", "serial", "display-capture")


def csp_of(response) -> dict[str, set[str]]:
    header = response.headers.get("Content-Security-Policy")
    assert header, f"no Content-Security-Policy on {response.request['PATH_INFO']}"
    directives = {}
    for part in header.split(";"):
        name, *sources = part.split()
        directives[name] = set(sources)
    return directives


def assert_protected(response) -> None:
    path = response.request["PATH_INFO"]
    assert csp_of(response) == POLICY, path
    permissions = response.headers.get("Permissions-Policy", "")
    for feature in DENIED_FEATURES:
        assert f"{feature}=()" in permissions, (path, feature, permissions)
    assert response.headers.get("Referrer-Policy") == "same-origin", path
    assert response.headers.get("Cross-Origin-Opener-Policy") == "same-origin", path
    assert response.headers.get("X-Content-Type-Options") == "nosniff", path
    assert response.headers.get("X-Frame-Options") == "DENY", path


class _Markup(HTMLParser):
    """What in a page the policy would block, and every script and stylesheet it loads."""

    def __init__(self) -> None:
        super().__init__()
        self.blocked: list[str] = []
        self.loads: list[str] = []
        self._in_inline_script = False

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        for name, value in attrs:
            if name.startswith("on") or name.startswith("hx-on") or name == "style":
                self.blocked.append(f"<{tag} {name}={value!r}>")
            if name == "href" and (value or "").strip().lower().startswith("javascript:"):
                self.blocked.append(f"<{tag} href={value!r}>")
        if tag == "style":
            self.blocked.append("<style> element")
        if tag == "script":
            if attributes.get("src"):
                self.loads.append(attributes["src"])
            elif attributes.get("type") not in ("application/json", "text/template"):
                self._in_inline_script = True
        if tag == "link" and "stylesheet" in (attributes.get("rel") or "").split():
            self.loads.append(attributes.get("href") or "")

    def handle_data(self, data):
        if self._in_inline_script and data.strip():
            self.blocked.append(f"inline <script>: {data.strip()[:60]!r}")

    def handle_endtag(self, tag):
        if tag == "script":
            self._in_inline_script = False


def markup_of(response) -> _Markup:
    parser = _Markup()
    parser.feed(response.content.decode())
    return parser


def assert_works_under_the_policy(client: Client, response) -> None:
    """Nothing on the page that the CSP blocks; each script and stylesheet is this site's and is served."""
    assert_protected(response)
    markup = markup_of(response)
    path = response.request["PATH_INFO"]
    assert markup.blocked == [], (path, markup.blocked)
    for url in markup.loads:
        parts = urlsplit(url)
        assert not parts.scheme and not parts.netloc and url.startswith("/"), (path, url)
        loaded = client.get(url)
        assert loaded.status_code == 200, (path, url, loaded.status_code)


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def traveller_pages() -> list[str]:
    activity = Activity.objects.order_by("pk").first()
    return ["/", "/bookings/", "/aftersale/", reverse("itinerary:activity-detail", args=[activity.pk]), "/api/v1/docs/"]


def test_every_page_of_a_traveller_carries_the_policy_and_works_under_it(alice):
    client = signed_in(alice)
    client.post("/chat/send", {"message": "大理有什么活动"})  # the chat page then shows a turn with cards
    for path in traveller_pages():
        response = client.get(path)
        assert response.status_code == 200, path
        assert_works_under_the_policy(client, response)


def test_the_chat_partials_htmx_swaps_in_hold_nothing_the_policy_blocks(alice):
    client = signed_in(alice)

    response = client.post("/chat/send", {"message": "大理有什么活动"}, HTTP_HX_REQUEST="true")

    assert response.status_code == 200
    assert "data-card" in response.content.decode()
    assert_protected(response)
    assert markup_of(response).blocked == []


def test_the_login_page_and_errors_carry_the_policy(alice, client):
    login = client.get("/accounts/login/")
    assert login.status_code == 200
    assert_works_under_the_policy(client, login)
    for who in (client, signed_in(alice)):
        missing = who.get("/no-such-page/")
        assert missing.status_code == 404
        assert_protected(missing)
    refused = client.get("/api/v1/bookings/")
    assert refused.status_code == 401
    assert_protected(refused)


def test_every_page_of_the_approval_console_carries_the_policy_and_works_under_it(demo, carols):
    approver = signed_in(demo["approver"])
    ticket = carols["ticket"]
    pages = [
        "/admin/",
        "/admin/aftersale/hitlticket/",
        f"/admin/aftersale/hitlticket/{ticket.pk}/change/",
        f"/admin/aftersale/hitlticket/{ticket.pk}/decide/?decision=approve",
    ]
    for path in pages:
        response = approver.get(path)
        assert response.status_code == 200, path
        assert_works_under_the_policy(approver, response)
    assert 'class="ticket-status ticket-status-pending"' in approver.get(pages[1]).content.decode()

    superuser = signed_in(demo["admin"])
    for model in admin.site._registry:
        opts = model._meta
        for name in ("changelist", "add"):
            response = superuser.get(reverse(f"admin:{opts.app_label}_{opts.model_name}_{name}"))
            if response.status_code == 403:  # a read-only admin (no add)
                continue
            assert response.status_code == 200, (opts.label, name)
            assert_works_under_the_policy(superuser, response)

    login = Client().get("/admin/login/")
    assert_works_under_the_policy(Client(), login)


def test_the_api_docs_load_swagger_ui_and_its_init_script_from_this_site_only(alice):
    client = signed_in(alice)

    page = client.get("/api/v1/docs/")

    scripts = markup_of(page).loads
    assert any(re.search(r"/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle\.js$", s) for s in scripts)
    init = [s for s in scripts if s.startswith("/api/v1/docs/?") and "script" in s]
    assert len(init) == 1, scripts
    script = client.get(init[0])
    assert script.status_code == 200
    assert script.headers["Content-Type"].startswith("application/javascript")
    assert "SwaggerUIBundle(" in script.content.decode()
    assert "cdn" not in page.content.decode().lower()


def _manage(*args: str, **environment: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "DJANGO_SECRET_KEY": secrets.token_urlsafe(64), "DJANGO_DEBUG": "false", **environment}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    env.pop("TRIPDESK_CLOCK_OFFSET", None)  # the suite's clock: a production process refuses it (core/clock.py)
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )


def test_the_deploy_checklist_passes_with_the_production_settings():
    done = _manage("check", "--deploy", "--fail-level", "WARNING", TRIPDESK_PRODUCTION="1", DJANGO_HTTPS="1")

    assert done.returncode == 0, done.stdout + done.stderr
    assert "System check identified no issues" in done.stdout


def test_without_https_the_checklist_warns_of_the_https_settings_alone():
    done = _manage("check", "--deploy", TRIPDESK_PRODUCTION="1", DJANGO_HTTPS="0")

    assert done.returncode == 0, done.stderr
    warned = set(re.findall(r"\(([\w.]+\.[WE]\d+)\)", done.stdout + done.stderr))
    assert warned == {"security.W004", "security.W008", "security.W012", "security.W016"}, done.stdout + done.stderr


def test_the_redoc_page_allows_what_redoc_loads_and_no_other_page_does(alice):
    client = signed_in(alice)

    page = client.get("/api/v1/docs/redoc/")

    policy = csp_of(page)
    assert policy["script-src"] == {"'self'"} and policy["object-src"] == {"'none'"}
    assert policy["img-src"] == {"'self'", "data:", "https://cdn.redoc.ly/redoc/logo-mini.svg"}
    assert policy["worker-src"] == {"'self'", "blob:"}
    assert any(source.startswith("'nonce-") for source in policy["style-src"])
    markup = markup_of(page)
    assert markup.blocked == []
    (bundle,) = [url for url in markup.loads if url.endswith("/redoc.standalone.js")]
    assert all(url.startswith("/") and client.get(url).status_code == 200 for url in markup.loads), markup.loads
    # every image the bundle names outright is one the page's policy lets it show
    code = b"".join(client.get(bundle).streaming_content).decode()
    images = set(re.findall(r'src:"(https?://[^"]+)"', code))
    assert images and images <= policy["img-src"], images
    for path in traveller_pages():
        assert csp_of(client.get(path)) == POLICY, path
