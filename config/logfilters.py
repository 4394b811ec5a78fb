"""A logging filter that keeps configured secrets out of every log line."""

import logging

from django.conf import settings

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


def _secrets() -> list[str]:
    try:
        return [settings.ASSISTANT_LLM_API_KEY]
    except Exception:  # settings not ready while Django starts
        return []
