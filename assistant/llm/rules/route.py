"""Where a sentence goes: the origin, the destinations in order (the route's destination first) and the province, a
route to a place no list knows, and the traveller's own spelling of a place."""

import re

from assistant.llm.rules import keywords
from assistant.llm.rules.gazetteer import ABROAD, PROVINCE, PlaceMatch

_ZH_ROUTE_BETWEEN = re.compile(
    r"(?:东|西|南|北|虹桥|浦东|首都|大兴|白云|宝安|双流|天府|萧山|禄口|江北|咸阳|长水|高崎|美兰|凤凰|天河|滨海|地窝堡|太平|贡嘎)?"
    r"(?:火车站|高铁站|站|机场|国际机场)?\s*(?:出发)?\s*(?:坐|乘|搭)?\s*(?:飞机|高铁|火车|动车)?\s*(?:到|去|至|飞|飞往|飞到|前往|开往|往返|来回|往|回|→|->|-|~|—|－)\s*(?:的)?\s*$"
)


_EN_ROUTE_BETWEEN = re.compile(r"\s*(?:to|->|-|→|–|—)\s*$", re.I)


_EN_REVERSE_BETWEEN = re.compile(r"\s*(?:,\s*)?(?:from|leaving from|departing from|out of)\s*$", re.I)


_ORIGIN_BEFORE = re.compile(r"(?:从|由|自|离开)\s*$|\b(?:from|leaving|departing(?: from)?|out of)\s*$", re.I)


_ORIGIN_AFTER = re.compile(r"^\s*(?:出发|起飞|动身|走)")


def _places(
    text: str, matches: list[PlaceMatch], *, travelling: bool = False
) -> tuple[PlaceMatch | None, list[PlaceMatch], str | None]:
    """(origin, destinations in order with the route's destination first, province short name). `travelling`: a
    journey is being arranged, so "上海出发" alone is where it leaves from."""
    origin: PlaceMatch | None = None
    route_destination: PlaceMatch | None = None
    for a, b in zip(matches, matches[1:], strict=False):
        between = text[a.end : b.start]
        if a.place.name == b.place.name:
            continue
        if _ZH_ROUTE_BETWEEN.fullmatch(between) or _EN_ROUTE_BETWEEN.fullmatch(between):
            origin, route_destination = a, b
            break
        if _EN_REVERSE_BETWEEN.fullmatch(between):
            origin, route_destination = b, a
            break
    if origin is None:
        several = len({x.place.name for x in matches}) > 1
        for m in matches:
            marked_before = _ORIGIN_BEFORE.search(text[max(0, m.start - 12) : m.start])
            if marked_before or _ORIGIN_AFTER.match(text[m.end : m.end + 4]):
                # "从成都出发…" alone is an origin; "成都出发的两日游" alone is where the trips are.
                if several or marked_before or travelling:
                    origin = m
                break
    province = None
    destinations: list[PlaceMatch] = []
    seen = set()
    for m in matches:
        if origin is not None and m.place.name == origin.place.name:
            continue
        if m.place.kind == PROVINCE:
            province = province or m.place.name
            continue
        if m.place.name not in seen:
            seen.add(m.place.name)
            destinations.append(m)
    if route_destination is not None and route_destination in destinations:
        destinations.remove(route_destination)
        destinations.insert(0, route_destination)
    return origin, destinations, province


def _route_start(text: str, matches: list[PlaceMatch], phrases: list[keywords.Phrase]) -> PlaceMatch | None:
    """The known place a route to a place no list knows starts from: "上海到Lisbon", "Beijing to Porto"."""
    for phrase in phrases:
        if phrase.role == "to":
            for m in matches:
                between = text[m.end : phrase.start]
                if m.end <= phrase.start and (
                    _ZH_ROUTE_BETWEEN.fullmatch(between) or _EN_ROUTE_BETWEEN.fullmatch(between)
                ):
                    return m
    return None


def _own_spelling(text: str, match: PlaceMatch) -> str | None:
    """The Latin spelling the traveller gave a place abroad, as written (title case when all lower case), or the
    place said with the word for its kind ("平潭岛" for 平潭, "丽江古镇")."""
    if match.place.kind != ABROAD:
        said = keywords.with_ending(text, match.start, match.end)
        return said if said != match.place.name else None
    said = " ".join(text[match.start : match.end].split())
    if not said.isascii() or not re.search(r"[A-Za-z]", said):
        return None
    return said
