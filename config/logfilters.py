"""Logging filters: configured secrets kept out of every log line, and the trace id put on each one."""

import logging

from django.conf import settings

from core.tracing import current_trace_id

REDACTED = "[redacted]"


class ScrubSecrets(logging.Filter):
    """Replace any configured secret (model API key, platform keys) found in a record's message."""

    def filter(self, record: logging.LogRecord) -> bool:
        secrets = [s for s in _secrets() if s]
        if secrets:
            message = record.getMessage()
            if any(s in message for s in secrets):
                for secret in secrets:
                    message = message.replace(secret, REDACTED)
                record.msg, record.args = message, ()
        return True


class TraceIdFilter(logging.Filter):
    """Give every record the trace id of the work that logged it (`trace_id`, "" outside a trace): the formatters
    print it, so one turn's lines are found across the web, the workers and the supplier calls."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not getattr(record, "trace_id", ""):
            record.trace_id = current_trace_id()
        return True


def _secrets() -> list[str]:
    try:
        return [settings.ASSISTANT_LLM_API_KEY]
    except Exception:  # settings not ready while Django starts
        return []
