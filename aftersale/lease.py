"""How long an execution may run, from its lease: the task's time limits, and the shortest lease that fits a
supplier call's timeout. Read by the execution task (`aftersale.tasks`) and by the start-up check that verifies the
two fit (`aftersale.checks`)."""

# What the lease keeps beyond the bounded work: database round trips around the calls, a slow commit, clock skew
# between the machines of the workers.
EXECUTION_LEASE_MARGIN_SECONDS = 30
# The soft limit comes first, so the execution ends FAILED (a human may retry) rather than be killed silently.
SOFT_LIMIT_HEADROOM_SECONDS = 10
# Supplier calls one execution makes one after the other, at most: order queryOrder, then order refund.
SUPPLIER_CALLS_PER_EXECUTION = 2


def execution_time_limits(lease_seconds: float) -> tuple[int, int]:
    """(soft, hard) time limits of the execution task for a lease: killed before the lease ends, with a margin."""
    hard = max(2, int(lease_seconds - EXECUTION_LEASE_MARGIN_SECONDS))
    return max(1, hard - SOFT_LIMIT_HEADROOM_SECONDS), hard


def minimum_lease(timeout: float) -> float:
    """The shortest lease every rule of `aftersale.checks.execution_lease_check` accepts, for its hints."""
    calls = SUPPLIER_CALLS_PER_EXECUTION * timeout + SOFT_LIMIT_HEADROOM_SECONDS + EXECUTION_LEASE_MARGIN_SECONDS
    return max(timeout + EXECUTION_LEASE_MARGIN_SECONDS, calls) + 1
