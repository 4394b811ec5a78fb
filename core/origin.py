"""Where a change came from: the client address of the request that made it, on every event row it writes.

    current_client_address()   # the address of the request in progress, None outside one (a task, a command)

`ClientAddressMiddleware` sets it for each request from the site's one notion of the client's address (the callable
named by AXES_CLIENT_IP_CALLABLE, config.throttling.client_ip: REMOTE_ADDR, or what the trusted proxies put in
X-Forwarded-For), so a staff decision's event row says who, when and from where without any service passing it on.
"""

import contextvars
import ipaddress

from django.conf import settings
from django.utils.module_loading import import_string

_current: contextvars.ContextVar[str | None] = contextvars.ContextVar("tripdesk_client_address", default=None)


def current_client_address() -> str | None:
    """The client address of the request in progress (the default of every event row's `client_address`)."""
    return _current.get()


def _address(value: object) -> str | None:
    """`value` as an IP address, or None when it is not one (a header never lands in the column as sent)."""
    try:
        return str(ipaddress.ip_address(str(value).strip()))
    except ValueError:
        return None


class ClientAddressMiddleware:
    """Every request runs with its client's address in `current_client_address`; it is gone after the request."""

    def __init__(self, get_response) -> None:
        self.get_response = get_response
        self.client_ip = import_string(settings.AXES_CLIENT_IP_CALLABLE)

    def __call__(self, request):
        token = _current.set(_address(self.client_ip(request)))
        try:
            return self.get_response(request)
        finally:
            _current.reset(token)
