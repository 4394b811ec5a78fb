import datetime as dt

import pytest

# 2026-12-01 is a Tuesday: this weekend is Dec 5–6, next week Dec 7–13.
TODAY = dt.date(2026, 12, 1)


@pytest.fixture
def rules_port():
    from assistant.llm.factory import get_llm_port

    return get_llm_port("rules")
