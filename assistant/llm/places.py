"""Place names as the LLM port knows them, for the parts of the project that word or widen a place: the one public
way to the offline adapter's place lists (`rules.gazetteer`), which nothing outside `assistant.llm` imports."""

from assistant.llm.rules.gazetteer import PlaceMatch, gazetteer
from assistant.llm.rules.gazetteer import english_name as _english_name


def english_name(place: str) -> str | None:
    """The usual English name of a Chinese place name (杭州 → Hangzhou), None when the lists know none."""
    return _english_name(place)


def places_in(text: str) -> list[PlaceMatch]:
    """The places the lists find in `text` ("泰山日出" → 泰山, in 泰安, 山东), each with where it stands in it."""
    return gazetteer().find(text)
