"""Who travels, in the traveller's own words: the LLM port's public way to the offline adapter's contact reader
(`rules.contact`), for the flows that book (`assistant.booking_wants`)."""

from collections.abc import Iterable

from assistant.llm.rules.contact import Contact
from assistant.llm.rules.contact import find_contact as _find_contact


def find_contact(user_texts: Iterable[str]) -> Contact:
    """The traveller's name and mobile from the newest user message that gives each."""
    return _find_contact(user_texts)
