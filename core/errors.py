"""The one base domain error. Services raise it (or an app's subclass); tools turn it into an envelope, and the one
DRF exception handler (`core.api`) into the one error body."""

from typing import Any

from core.envelope import fail


class ApplicationError(Exception):
    """A request the code refuses: `code` is one of `core.envelope.Code`, `message` says why to a person."""

    default_code = "INVALID_PARAM"

    def __init__(self, code: str | None = None, message: str = "", data: Any = None) -> None:
        self.code = str(code or self.default_code)
        self.message = message or self.code
        self.data = data
        super().__init__(self.message)

    def envelope(self, **facts: Any) -> dict:
        """The fail envelope of this refusal; `facts` (a tool's card kind, the id it was asked about) are added to its
        data and win over the refusal's own keys."""
        if not facts:
            return fail(self.code, self.message, self.data)
        return fail(self.code, self.message, {**(self.data or {}), **facts})
