"""TripDesk's own settings: the model, the agent, limits, the supplier platform."""

from config.settings import env

ASSISTANT_LLM_PROVIDER = env.ASSISTANT_LLM_PROVIDER
ASSISTANT_LLM_BASE_URL = env.ASSISTANT_LLM_BASE_URL
ASSISTANT_LLM_API_KEY = env.ASSISTANT_LLM_API_KEY
ASSISTANT_LLM_MODEL = env.ASSISTANT_LLM_MODEL
ASSISTANT_LLM_TIMEOUT = env.ASSISTANT_LLM_TIMEOUT
ASSISTANT_AGENT_ENABLED = env.ASSISTANT_AGENT_ENABLED
ASSISTANT_AGENT_MAX_ITERATIONS = env.ASSISTANT_AGENT_MAX_ITERATIONS
# How many calls that change something (a booking, a cancel, a request) one turn may make; the rest are refused.
ASSISTANT_AGENT_MAX_WRITES_PER_TURN = env.ASSISTANT_AGENT_MAX_WRITES_PER_TURN
ASSISTANT_DAILY_TURN_LIMIT = env.ASSISTANT_DAILY_TURN_LIMIT
ASSISTANT_SESSION_TTL = env.ASSISTANT_SESSION_TTL
ASSISTANT_PENDING_ACTION_TTL = env.ASSISTANT_PENDING_ACTION_TTL
ASSISTANT_CLARIFY_BELOW = env.ASSISTANT_CLARIFY_BELOW
BOOKING_OPTIONS_SHOWN = env.BOOKING_OPTIONS_SHOWN

PLATFORM_CLI = env.PLATFORM_CLI
PLATFORM_TIMEOUT = env.PLATFORM_TIMEOUT
PLATFORM_WARM = env.PLATFORM_WARM
BOOKING_SYNC_SECONDS = env.BOOKING_SYNC_SECONDS
BOOKING_REFRESH_SECONDS = env.BOOKING_REFRESH_SECONDS
BOOKINGS_CANCEL_APPROVAL_ABOVE = env.BOOKINGS_CANCEL_APPROVAL_ABOVE

TRIPDESK_REQUIRE_SERVICES = env.REQUIRE_SERVICES

# After-sale: how long a ticket waits for a human, how long an execution may hold
# a ticket before another worker may take it over, and how often the timeout sweep runs.
AFTERSALE_TICKET_TTL_HOURS = env.AFTERSALE_TICKET_TTL_HOURS
# Who decides calls that need an approver (core.approvals.ApprovalGate): the after-sale checkpoint tickets.
TRIPDESK_APPROVAL_GATE = "aftersale.services.checkpoints.approval_gate"
AFTERSALE_EXECUTION_LEASE_SECONDS = env.AFTERSALE_EXECUTION_LEASE_SECONDS
AFTERSALE_TIMEOUT_SWEEP_SECONDS = env.AFTERSALE_TIMEOUT_SWEEP_SECONDS
AFTERSALE_RETURN_ADDRESS = env.AFTERSALE_RETURN_ADDRESS

# Itinerary: how long a stored plan (plan_itinerary's full result, in the cache) can be fetched again, in seconds.
ITINERARY_PLAN_TTL = env.ITINERARY_PLAN_TTL

# Weather: `normals` (offline climate normals, the default) or `open_meteo` (a real forecast over HTTP, with the
# normals as the fallback when it fails); the forecast API's base URL and its timeout in seconds.
WEATHER_PROVIDER = env.WEATHER_PROVIDER
WEATHER_API_URL = env.WEATHER_API_URL
WEATHER_TIMEOUT = env.WEATHER_TIMEOUT
