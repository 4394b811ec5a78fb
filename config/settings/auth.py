"""Slowing attackers down: login lockout (django-axes) and the per-IP limit on anonymous API requests.

Every way in that checks a password — the login page, the admin login — goes through `authenticate()`, whose first
backend (AxesStandaloneBackend, base.py) refuses a locked-out username and IP address before any password is hashed.
The API has no password authentication at all (session + CSRF only), so nothing there can be guessed.
"""

import datetime as dt

from config.settings import env

# Attempts are rows in PostgreSQL (AccessAttempt, AccessFailureLog, AccessLog in the admin): every web process sees
# the same count, and a restart of Redis forgets nothing.
AXES_HANDLER = "axes.handlers.database.AxesDatabaseHandler"
AXES_FAILURE_LIMIT = env.AXES_FAILURE_LIMIT
# None: locked until an admin deletes the attempt (axes' "permanent" lock).
AXES_COOLOFF_TIME = dt.timedelta(minutes=env.AXES_COOLOFF_MINUTES) if env.AXES_COOLOFF_MINUTES > 0 else None
# Username and IP together: by username alone anyone could lock a traveller out by guessing on purpose, by IP alone
# one guesser behind an office or carrier NAT would lock out everyone sharing that address.
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
# A failed attempt while locked out starts the cool-off again: a guesser who keeps going stays locked out.
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = True
AXES_ENABLE_ACCESS_FAILURE_LOG = True
# The client address is the one DRF's throttles use (REMOTE_ADDR, or X-Forwarded-For behind TRIPDESK_NUM_PROXIES).
AXES_CLIENT_IP_CALLABLE = "config.throttling.client_ip"
AXES_LOCKOUT_CALLABLE = "config.lockout.lockout_response"
AXES_HTTP_RESPONSE_CODE = 429

# Anonymous API requests per client IP (config.throttling.AnonymousRateLimit, the last authentication class, with
# DRF's AnonRateThrottle and the default cache: Redis in production).
API_ANON_RATE = env.API_ANON_RATE
