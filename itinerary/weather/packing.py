"""What to wear and pack for the days of a weather report: one rule for both chat channels (the weather tool puts
it in its envelope when asked, "要带什么衣服" / "what should I pack"). From the coldest low, the warmest high, rain
and snow of the days asked (a forecast, or the climate normals of that time of year), a list of keys the reply
words in the traveller's language, warmest clothing first."""

from collections.abc import Sequence

from itinerary.weather.conditions import SNOWY
from itinerary.weather.port import DayWeather

# The lowest temperature (°C) below which each layer is advised; the first that applies is the one said.
LAYERS = ((0, "down_jacket"), (8, "warm_coat"), (15, "light_jacket"), (22, "long_sleeves"))
WARM_C = 26  # a high from which light summer clothes are advised
SUN_C = 28  # and sun protection


def packing_for(days: Sequence[DayWeather], *, rain: bool) -> list[str]:
    """What to wear and bring for these days (`rain`: rain is likely on one of them), as keys."""
    lows = [d.temp_min_c for d in days if d.temp_min_c is not None]
    highs = [d.temp_max_c for d in days if d.temp_max_c is not None]
    items: list[str] = []
    if lows:
        low = min(lows)
        items += [name for limit, name in LAYERS if low < limit][:1]
    if highs and max(highs) >= WARM_C:
        items.append("summer_clothes")
    if lows and highs and max(highs) - min(lows) >= 10:
        items.append("layers")  # a wide swing between night and day
    if highs and max(highs) >= SUN_C:
        items.append("sun_protection")
    if any(d.code in SNOWY for d in days):
        items.append("snow_boots")
    if rain:
        items.append("rain_gear")
    return items or ["light_jacket"]
