"""The vendor lexicon: airlines and hotel brands, each named once in `vendors.json`, loaded once per process.

    vendors("FLIGHT")                   # every airline (Vendor: name, kind, iata, the words that name it)
    airline_by_code("MU")               # the Vendor 东方航空, or None
    airline_codes()                     # every code a flight number starts with (MU5101, cx 888)
    vendors_named_in("东航的", "FLIGHT")  # the airlines a vendor's name says, longest word first

An entry is the vendor's name (an airline's as the supplier writes it), its kind (FLIGHT or HOTEL), an airline's
IATA code, and its words by where they name it:
- `zh`, `en`: anywhere in a sentence (the name itself only where listed: 香格里拉 alone is a place, 7天 a stay);
- `zh_with_flight_words`: ordinary words too (春秋, 吉祥), so only in a sentence about flights;
- `in_a_vendor_name`: a place or a plain word in a sentence (东方, Hainan), so only inside a vendor already named.
`codes_of_other_airlines` are the codes of airlines it has no names for: a flight number is read by them all.

Two readers use it: the rules reader (`assistant.llm.rules.booking_prefs`: which vendor a traveller names) and the
ranking (`bookings.options`: which of the supplier's airlines that is). It sits in core, under both, because the
rules reader may not import `bookings` and `bookings` may not import the assistant (.importlinter).
"""

import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

DATA_FILE = Path(__file__).resolve().parent / "vendors.json"
KINDS = ("FLIGHT", "HOTEL")


@dataclass(frozen=True)
class Vendor:
    name: str
    kind: str  # "FLIGHT" or "HOTEL"
    iata: str | None  # an airline's code (MU), None for a hotel brand
    aliases: tuple[str, ...]  # the Chinese then the English words that name it anywhere in a sentence
    with_flight_words: tuple[str, ...]  # words that name it only in a sentence about flights
    in_a_vendor_name: tuple[str, ...]  # words that name it only inside a vendor already named

    @property
    def words(self) -> tuple[str, ...]:
        """Every word that names it somewhere."""
        return self.aliases + self.with_flight_words + self.in_a_vendor_name


@cache
def _lexicon() -> tuple[tuple[Vendor, ...], frozenset[str]]:
    data = json.loads(DATA_FILE.read_text(encoding="utf-8"))
    entries = tuple(
        Vendor(
            name=entry["name"],
            kind=entry["kind"],
            iata=entry.get("iata"),
            aliases=(*entry["zh"], *entry["en"]),
            with_flight_words=tuple(entry.get("zh_with_flight_words", ())),
            in_a_vendor_name=tuple(entry.get("in_a_vendor_name", ())),
        )
        for entry in data["vendors"]
    )
    return entries, frozenset(data["codes_of_other_airlines"])


def vendors(kind: str | None = None) -> tuple[Vendor, ...]:
    """The vendors of a kind (FLIGHT or HOTEL), or all of them, in the lexicon's order."""
    return tuple(vendor for vendor in _lexicon()[0] if kind is None or vendor.kind == kind)


@cache
def _airlines_by_code() -> dict[str, Vendor]:
    return {vendor.iata: vendor for vendor in vendors("FLIGHT") if vendor.iata}


def airline_by_code(code: str) -> Vendor | None:
    """The airline whose IATA code this is (upper case, "MU"); None for a code the lexicon has no name for."""
    return _airlines_by_code().get(code)


@cache
def airline_codes() -> frozenset[str]:
    """Every airline code the lexicon holds, upper case: those of its airlines and of the others."""
    return frozenset(_airlines_by_code()) | _lexicon()[1]


@cache
def _words_of(kind: str) -> tuple[re.Pattern | None, dict[str, Vendor]]:
    by_word = {word.casefold(): vendor for vendor in vendors(kind) for word in vendor.words}
    alternatives = sorted(by_word, key=len, reverse=True)
    return (re.compile("|".join(re.escape(word) for word in alternatives)) if by_word else None), by_word


def vendors_named_in(name: str, kind: str) -> list[Vendor]:
    """The vendors of `kind` whose words a vendor's name holds, each once, in the order said; the longest word wins
    where two overlap, so 海南航空 is 海南航空 and not the 南航 inside it."""
    pattern, by_word = _words_of(kind)
    if pattern is None:  # a kind without vendors (TRAIN)
        return []
    found = [by_word[match.group()] for match in pattern.finditer(name.casefold())]
    return list(dict.fromkeys(found))
