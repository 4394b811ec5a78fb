"""System tags: a small fixed English vocabulary derived from an activity's Chinese title and tags.

The catalogue's `tags` are free Chinese words written by people; `system_tags` are what code filters and scores on
(interest profiles, RECOMMEND). `system_tags_for` is pure so the seed, the admin and a future import all agree.
"""

from dataclasses import dataclass

SYSTEM_TAGS: tuple[str, ...] = (
    "hiking",
    "photography",
    "family",
    "food",
    "culture",
    "skiing",
    "cycling",
    "beach",
    "snow",
    "lake",
    "ancient_town",
    "hot_spring",
    "nature",
    "adventure",
    "nightlife",
    "shopping",
)

# A Chinese word found in the title or in a tag → the system tags it implies. Substring matching, so keep words
# specific: "湖" is safe in this catalogue (every title with 湖 is a lake), "海" is not (三亚 is the sea, 洱海 a lake).
WORD_TO_SYSTEM_TAGS: dict[str, tuple[str, ...]] = {
    # hiking
    "徒步": ("hiking",),
    "登山": ("hiking",),
    "夜爬": ("hiking",),
    "古道": ("hiking",),
    # photography
    "摄影": ("photography",),
    "旅拍": ("photography",),
    "日出": ("photography",),
    "星空": ("photography", "nature"),
    # family
    "亲子": ("family",),
    "儿童": ("family",),
    "家庭": ("family",),
    "乐园": ("family",),
    "熊猫": ("family", "nature"),
    # food
    "美食": ("food",),
    "小吃": ("food",),
    "火锅": ("food",),
    "烹饪": ("food",),
    "川菜": ("food",),
    "本帮菜": ("food",),
    "夜市": ("food", "nightlife", "shopping"),
    # culture
    "文化": ("culture",),
    "历史": ("culture",),
    "演出": ("culture",),
    "博物馆": ("culture",),
    "寺": ("culture",),
    "宫": ("culture",),
    "茶": ("culture",),
    "非遗": ("culture",),
    "手工": ("culture",),
    "民俗": ("culture",),
    "长城": ("culture",),
    "兵马俑": ("culture",),
    "莫高窟": ("culture",),
    # snow and skiing
    "滑雪": ("skiing", "snow"),
    "雪山": ("snow",),
    "冰雪": ("snow",),
    "雪乡": ("snow",),
    "雪地": ("snow",),
    "冰川": ("snow",),
    # cycling
    "骑行": ("cycling",),
    "单车": ("cycling",),
    "自行车": ("cycling",),
    "夜骑": ("cycling", "nightlife"),
    # beach
    "海岛": ("beach",),
    "海滩": ("beach",),
    "沙滩": ("beach",),
    "潜水": ("beach", "adventure"),
    "冲浪": ("beach", "adventure"),
    # lakes
    "湖": ("lake",),
    "洱海": ("lake",),
    "天池": ("lake",),
    # ancient towns and villages
    "古城": ("ancient_town",),
    "古镇": ("ancient_town",),
    "古村": ("ancient_town",),
    "水乡": ("ancient_town",),
    "土楼": ("ancient_town", "culture"),
    # hot springs
    "温泉": ("hot_spring",),
    # nature
    "自然": ("nature",),
    "户外": ("nature",),
    "森林": ("nature",),
    "草原": ("nature",),
    "峡谷": ("nature",),
    "雨林": ("nature",),
    "梯田": ("nature",),
    "国家公园": ("nature",),
    # adventure
    "探险": ("adventure",),
    "攀岩": ("adventure",),
    "漂流": ("adventure",),
    "露营": ("adventure", "nature"),
    "越野": ("adventure",),
    "沙漠": ("adventure", "nature"),
    "玻璃栈道": ("adventure",),
    "玻璃桥": ("adventure",),
    # nightlife
    "夜游": ("nightlife",),
    "夜景": ("nightlife",),
    "酒吧": ("nightlife",),
    "派对": ("nightlife",),
    "音乐节": ("nightlife",),
    # shopping
    "购物": ("shopping",),
    "市集": ("shopping",),
    "免税": ("shopping",),
}


def system_tags_for(title: str, tags: list[str]) -> list[str]:
    """The system tags of an activity, in the vocabulary's order, without duplicates.

    A tag that already is a vocabulary word ("hiking", "Beach") is kept as it is, lower-cased.
    """
    texts = [title or "", *(str(tag) for tag in tags or [])]
    found: set[str] = {text.strip().lower() for text in texts if text.strip().lower() in SYSTEM_TAGS}
    for word, implied in WORD_TO_SYSTEM_TAGS.items():
        if any(word in text for text in texts):
            found.update(implied)
    return [tag for tag in SYSTEM_TAGS if tag in found]


# Who comes along, and what suits them: the system tags an activity for them has one of (none: any), the tags it
# has none of, and an age it must admit (its min_age / max_age). "带孩子" wants family activities a child of 8 may
# join, nothing of nightlife or adventure; "带父母" wants nothing strenuous (hiking, adventure, skiing, cycling) nor
# nightlife, open to someone of 65.
@dataclass(frozen=True)
class Suitability:
    wants_one_of: tuple[str, ...] = ()
    avoids: tuple[str, ...] = ()
    age: int | None = None


AUDIENCES: dict[str, Suitability] = {
    "KIDS": Suitability(wants_one_of=("family",), avoids=("nightlife", "adventure"), age=8),
    "ELDERLY": Suitability(avoids=("hiking", "adventure", "skiing", "cycling", "nightlife"), age=65),
}
