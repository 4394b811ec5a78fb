"""JSON from outside is read to a depth of 32 and refused at 33, unparsed: by the parser itself and by the API (a
body one level too deep is a 400 INVALID_PARAM that says the limit, and nothing is done)."""

import pytest
from rest_framework.test import APIClient

from assistant.models import LLMCall
from core.bounded_json import JSONTooDeep, bounded_loads

pytestmark = pytest.mark.django_db

UNDERSTAND = "/api/v1/assistant/understand"


def nested(depth: int) -> str:
    """Arrays nested `depth` levels deep: `[[…]]`."""
    return "[" * depth + "]" * depth


def body(depth: int) -> str:
    """An understand request whose whole body nests `depth` levels (the object itself is one of them)."""
    return '{"message": "大理有什么活动", "extra": ' + nested(depth - 1) + "}"


def depth_of(value) -> int:
    """How many arrays and objects are nested in a decoded value, the outermost counted."""
    if isinstance(value, list):
        return 1 + max((depth_of(item) for item in value), default=0)
    if isinstance(value, dict):
        return 1 + max((depth_of(item) for item in value.values()), default=0)
    return 0


def test_json_nested_32_levels_is_read_and_33_levels_is_refused():
    assert depth_of(bounded_loads(nested(32))) == 32
    with pytest.raises(JSONTooDeep, match="32 levels"):
        bounded_loads(nested(33))


def test_objects_count_like_arrays_32_levels_read_and_33_refused():
    deepest = '{"a": ' * 31 + "{}" + "}" * 31

    assert depth_of(bounded_loads(deepest)) == 32
    with pytest.raises(JSONTooDeep, match="32 levels"):
        bounded_loads('{"a": ' + deepest + "}")


@pytest.fixture
def api(alice):
    client = APIClient()
    client.force_authenticate(alice)
    return client


def test_the_api_answers_a_body_nested_32_levels(api):
    response = api.post(UNDERSTAND, body(32), content_type="application/json")

    assert response.status_code == 200
    assert response.json()["intent"] == "SEARCH_ACTIVITIES"


def test_the_api_refuses_a_body_nested_33_levels_with_400_and_does_nothing(api):
    response = api.post(UNDERSTAND, body(33), content_type="application/json")

    assert response.status_code == 400
    answer = response.json()
    assert (answer["ok"], answer["code"]) == (False, "INVALID_PARAM")
    assert answer["message"] == "JSON 解析错误：嵌套超过 32 层"  # the site speaks Chinese by default
    assert not LLMCall.objects.exists()  # the sentence was never read
