"""The sky in words: one vocabulary for both adapters, and the WMO weather codes Open-Meteo answers with."""

# key → (English, Chinese)
CONDITIONS: dict[str, tuple[str, str]] = {
    "clear": ("Clear", "晴"),
    "mostly_clear": ("Mostly clear", "晴间少云"),
    "partly_cloudy": ("Partly cloudy", "多云"),
    "overcast": ("Overcast", "阴"),
    "fog": ("Fog", "雾"),
    "drizzle": ("Drizzle", "毛毛雨"),
    "freezing_rain": ("Freezing rain", "冻雨"),
    "light_rain": ("Light rain", "小雨"),
    "moderate_rain": ("Moderate rain", "中雨"),
    "heavy_rain": ("Heavy rain", "大雨"),
    "rain": ("Rain", "有雨"),
    "showers": ("Showers", "阵雨"),
    "heavy_showers": ("Heavy showers", "强阵雨"),
    "light_snow": ("Light snow", "小雪"),
    "moderate_snow": ("Moderate snow", "中雪"),
    "heavy_snow": ("Heavy snow", "大雪"),
    "snow": ("Snow", "有雪"),
    "snow_showers": ("Snow showers", "阵雪"),
    "thunderstorm": ("Thunderstorms", "雷阵雨"),
    "thunderstorm_hail": ("Thunderstorms with hail", "雷阵雨伴有冰雹"),
    "unknown": ("Not reported", "未报告"),
}

WET = frozenset(
    {
        "drizzle",
        "freezing_rain",
        "light_rain",
        "moderate_rain",
        "heavy_rain",
        "rain",
        "showers",
        "heavy_showers",
        "thunderstorm",
        "thunderstorm_hail",
    }
)
SNOWY = frozenset({"light_snow", "moderate_snow", "heavy_snow", "snow", "snow_showers"})

# WMO weather interpretation codes (the `weather_code` of Open-Meteo).
WMO_CODES: dict[int, str] = {
    0: "clear",
    1: "mostly_clear",
    2: "partly_cloudy",
    3: "overcast",
    45: "fog",
    48: "fog",
    51: "drizzle",
    53: "drizzle",
    55: "drizzle",
    56: "freezing_rain",
    57: "freezing_rain",
    61: "light_rain",
    63: "moderate_rain",
    65: "heavy_rain",
    66: "freezing_rain",
    67: "freezing_rain",
    71: "light_snow",
    73: "moderate_snow",
    75: "heavy_snow",
    77: "light_snow",
    80: "showers",
    81: "showers",
    82: "heavy_showers",
    85: "snow_showers",
    86: "snow_showers",
    95: "thunderstorm",
    96: "thunderstorm_hail",
    99: "thunderstorm_hail",
}


def condition_labels(key: str) -> tuple[str, str]:
    """(English, Chinese) for a condition key."""
    return CONDITIONS.get(key, CONDITIONS["unknown"])


def condition_for_wmo(code: int) -> str:
    """The condition key of a WMO code; a code Open-Meteo does not document is "unknown", never a guess."""
    return WMO_CODES.get(code, "unknown")
