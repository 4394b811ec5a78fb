"""Generate the regression corpus of the rules engine from templates and a small grammar (issue 14).

    .venv/bin/python tests/assistant/eval/generate_corpus.py            # writes intents-generated.jsonl beside it

Every line is {text, intent, slots} for `manage.py assistant_eval`, "today" being 2026-12-01 (a Tuesday). The
templates are written by the team, in both languages and several registers (terse, chatty, polite, typed in lower
case, mixed Chinese and English, with homophone typos of place names); the places, dates, budgets and lengths are
drawn from small tables with a fixed seed, so the file is the same on every run. No public intent or dialogue
benchmark went into it (they are where real held-out sets come from).
"""

import json
import random
from pathlib import Path

OUT = Path(__file__).resolve().parent / "intents-generated.jsonl"
SEED = 20261201

# (Chinese name, English name, province) of places the gazetteer knows.
CITIES = [
    ("大理", "Dali", "云南"), ("丽江", "Lijiang", "云南"), ("三亚", "Sanya", "海南"), ("杭州", "Hangzhou", "浙江"),
    ("成都", "Chengdu", "四川"), ("西安", "Xi'an", "陕西"), ("桂林", "Guilin", "广西"), ("厦门", "Xiamen", "福建"),
    ("青岛", "Qingdao", "山东"), ("黄山", "Huangshan", "安徽"), ("张家界", "Zhangjiajie", "湖南"),
    ("哈尔滨", "Harbin", "黑龙江"), ("拉萨", "Lhasa", "西藏"), ("昆明", "Kunming", "云南"), ("重庆", "Chongqing", "重庆"),
    ("苏州", "Suzhou", "江苏"), ("南京", "Nanjing", "江苏"), ("北京", "Beijing", "北京"), ("上海", "Shanghai", "上海"),
    ("广州", "Guangzhou", "广东"),
]  # fmt: skip
# One character typed wrong, same sound (a pinyin keyboard's slip).
TYPOS = {"杭州": "杭洲", "厦门": "厦们", "成都": "成度", "西安": "西按", "苏州": "苏洲", "桂林": "桂临", "昆明": "昆名"}
# Places abroad: (Chinese name, English spelling).
ABROAD = [("巴黎", "Paris"), ("东京", "Tokyo"), ("曼谷", "Bangkok"), ("伦敦", "London"), ("首尔", "Seoul")]
# Places no list knows, taken from their slot as written.
UNKNOWN_EN = ["Reykjavik", "Lisbon", "Waikiki", "Zermatt", "Queenstown", "Hallstatt"]
DATES = [  # (Chinese, English, date_start, date_end)
    ("明天", "tomorrow", "2026-12-02", None),
    ("后天", "the day after tomorrow", "2026-12-03", None),
    ("本周末", "this weekend", "2026-12-05", "2026-12-06"),
    ("下周末", "next weekend", "2026-12-12", "2026-12-13"),
    ("12月20号", "on Dec 20", "2026-12-20", None),
    ("下周五", "next Friday", "2026-12-11", None),
]
BUDGETS = [("500以内", "under 500", 500), ("两千以内", "under 2000", 2000), ("预算3000", "budget 3k", 3000)]
DAYS = [("三天", "3 days", 3), ("四天", "4 days", 4), ("五天", "5 days", 5), ("两天", "2 days", 2)]
ORDERS = ["ORD-001", "ORD-002", "ORD-004", "ORD-005"]


def _case(text: str, intent: str, **slots) -> dict:
    return {"text": text, "intent": intent, "slots": {k: v for k, v in slots.items() if v is not None}}


def search(r: random.Random) -> list[dict]:
    zh, en, _province = r.choice(CITIES)
    date_zh, date_en, start, end = r.choice(DATES)
    budget_zh, budget_en, price = r.choice(BUDGETS)
    return [
        _case(f"{zh}有什么好玩的", "SEARCH_ACTIVITIES", destination=zh),
        _case(f"{date_zh}{zh}有啥活动", "SEARCH_ACTIVITIES", destination=zh, date_start=start),
        _case(f"想去{zh}玩，{budget_zh}", "SEARCH_ACTIVITIES", destination=zh, max_price=price),
        _case(f"{zh}有没有一日游，{budget_zh}的", "SEARCH_ACTIVITIES", destination=zh, max_price=price),
        _case(f"请问{zh}{date_zh}有什么推荐的项目吗", "SEARCH_ACTIVITIES", destination=zh, date_start=start),
        _case(f"things to do in {en} {date_en}", "SEARCH_ACTIVITIES", destination=zh, date_start=start),
        _case(f"any tours in {en.lower()} {budget_en}", "SEARCH_ACTIVITIES", destination=zh, max_price=price),
        _case(f"What can I do in {en}?", "SEARCH_ACTIVITIES", destination=zh),
        _case(f"{en}有什么activities", "SEARCH_ACTIVITIES", destination=zh),
        _case(f"looking for fun stuff around {en}", "SEARCH_ACTIVITIES", destination=zh),
    ]


def weather(r: random.Random) -> list[dict]:
    zh, en, _province = r.choice(CITIES)
    date_zh, date_en, start, _end = r.choice(DATES)
    return [
        _case(f"{zh}{date_zh}天气怎么样", "QUERY_WEATHER", destination=zh, date_start=start),
        _case(f"{date_zh}{zh}会下雨吗", "QUERY_WEATHER", destination=zh, date_start=start),
        _case(f"{zh}冷不冷", "QUERY_WEATHER", destination=zh),
        _case(f"{zh}{date_zh}要带伞吗", "QUERY_WEATHER", destination=zh, date_start=start),
        _case(f"{zh}湿度大吗", "QUERY_WEATHER", destination=zh),
        _case(f"weather in {en} {date_en}", "QUERY_WEATHER", destination=zh, date_start=start),
        _case(f"will it rain in {en.lower()} {date_en}", "QUERY_WEATHER", destination=zh, date_start=start),
        _case(f"how cold is it in {en}", "QUERY_WEATHER", destination=zh),
        _case(f"is it humid in {en} {date_en}", "QUERY_WEATHER", destination=zh, date_start=start),
        _case(f"{en}明天weather如何", "QUERY_WEATHER", destination=zh, date_start="2026-12-02"),
    ]


def plan(r: random.Random) -> list[dict]:
    zh, en, _province = r.choice(CITIES)
    days_zh, days_en, days = r.choice(DAYS)
    return [
        _case(f"帮我规划{days_zh}{zh}行程", "MAKE_TRAVEL_PLAN", destination=zh, days=days),
        _case(f"{zh}{days_zh}怎么安排比较好", "MAKE_TRAVEL_PLAN", destination=zh, days=days),
        _case(f"做一个{zh}{days_zh}的攻略", "MAKE_TRAVEL_PLAN", destination=zh, days=days),
        _case(f"plan {days_en} in {en} for me", "MAKE_TRAVEL_PLAN", destination=zh, days=days),
        _case(f"make an itinerary for {en}, {days_en}", "MAKE_TRAVEL_PLAN", destination=zh, days=days),
    ]


def compare(r: random.Random) -> list[dict]:
    (a, a_en, _), (b, b_en, _) = r.sample(CITIES, 2)
    return [
        _case(f"{a}往返{b}，12月10号去14号回，交通加酒店有哪些方案", "PLAN_ITINERARY", origin=a, destination=b,
              date_start="2026-12-10", date_end="2026-12-14"),
        _case(f"round trip from {a_en} to {b_en}, Dec 10 to Dec 14, compare options", "PLAN_ITINERARY",
              origin=a, destination=b, date_start="2026-12-10", date_end="2026-12-14"),
        _case(f"roundtrip flights {a_en} to {b_en} leaving Dec 10 returning Dec 14", "PLAN_ITINERARY",
              origin=a, destination=b, date_start="2026-12-10", date_end="2026-12-14"),
    ]  # fmt: skip


def book(r: random.Random) -> list[dict]:
    (a, a_en, _), (b, b_en, _) = r.sample(CITIES, 2)
    date_zh, date_en, start, _end = r.choice(DATES)
    return [
        _case(f"帮我订{date_zh}{a}到{b}的机票", "BOOK", biz_type="FLIGHT", origin=a, destination=b, date_start=start),
        _case(f"订一张{date_zh}{a}去{b}的高铁", "BOOK", biz_type="TRAIN", origin=a, destination=b, date_start=start),
        _case(f"我要订{b}的酒店，{date_zh}入住，住两晚", "BOOK", biz_type="HOTEL", destination=b, date_start=start),
        _case(f"book a flight from {a_en} to {b_en} {date_en}", "BOOK", biz_type="FLIGHT", origin=a, destination=b,
              date_start=start),
        _case(f"i need a train to {b_en.lower()} {date_en}", "BOOK", biz_type="TRAIN", destination=b,
              date_start=start),
        _case(f"reserve a hotel in {b_en} {date_en} for 2 nights", "BOOK", biz_type="HOTEL", destination=b,
              date_start=start),
    ]  # fmt: skip


def cancel(r: random.Random) -> list[dict]:
    return [
        _case("取消我的机票", "CANCEL_BOOKING", biz_type="FLIGHT"),
        _case("把订的酒店退掉", "CANCEL_BOOKING", biz_type="HOTEL"),
        _case("高铁票不要了，帮我取消", "CANCEL_BOOKING", biz_type="TRAIN"),
        _case("cancel my hotel booking please", "CANCEL_BOOKING", biz_type="HOTEL"),
        _case("I don't need the train ticket anymore, cancel it", "CANCEL_BOOKING", biz_type="TRAIN"),
    ]


def aftersale(r: random.Random) -> list[dict]:
    order = r.choice(ORDERS)
    return [
        _case(f"{order}我要退款", "AFTERSALE", order_id=order, aftersale_action="REFUND"),
        _case(f"订单{order}的东西坏了，想退货", "AFTERSALE", order_id=order, aftersale_action="RETURN"),
        _case(f"refund order {order} please", "AFTERSALE", order_id=order, aftersale_action="REFUND"),
        _case("I want to return my last order", "AFTERSALE", aftersale_action="RETURN"),
        _case("I want my money back", "AFTERSALE", aftersale_action="REFUND"),
        _case(f"我的退款到哪一步了，{order}", "QUERY_PROGRESS", order_id=order, aftersale_action="REFUND"),
        _case("where's my refund", "QUERY_PROGRESS", aftersale_action="REFUND"),
        _case("退货申请审核了吗", "QUERY_PROGRESS", aftersale_action="RETURN"),
    ]


def recommend(r: random.Random) -> list[dict]:
    return [
        _case("最近有什么好玩的推荐", "RECOMMEND"),
        _case("周末去哪玩比较好", "RECOMMEND", date_start="2026-12-05", date_end="2026-12-06"),
        _case("any suggestions for a getaway?", "RECOMMEND"),
        _case("where should I go this winter", "RECOMMEND"),
    ]


def out_of_scope(r: random.Random) -> list[dict]:
    return [
        _case(text, "OUT_OF_SCOPE")
        for text in r.sample(
            [
                "帮我写一首诗", "今天股票涨了吗", "cancel my alarm", "cancel the meeting at 3pm",
                "recommend a good novel", "how do I file my taxes", "给我讲个笑话", "取消会员自动续费",
                "what time is it in new york", "play some music", "设置一个十分钟的计时器", "推荐一部电影",
            ],
            6,
        )
    ]  # fmt: skip


def typos_and_abroad(r: random.Random) -> list[dict]:
    right, wrong = r.choice(list(TYPOS.items()))
    abroad_zh, abroad_en = r.choice(ABROAD)
    unknown = r.choice(UNKNOWN_EN)
    date_zh, date_en, start, _end = r.choice(DATES)
    return [
        _case(f"{wrong}有什么好玩的", "SEARCH_ACTIVITIES", destination=right),
        _case(f"{wrong}{date_zh}天气怎么样", "QUERY_WEATHER", destination=right, date_start=start),
        _case(f"things to do in {abroad_en}", "SEARCH_ACTIVITIES", destination=abroad_en),
        _case(f"{abroad_zh}有什么好玩的", "SEARCH_ACTIVITIES", destination=abroad_zh),
        _case(f"weather in {unknown} {date_en}", "QUERY_WEATHER", destination=unknown, date_start=start),
        _case(f"any tours around {unknown.lower()}", "SEARCH_ACTIVITIES", destination=unknown.lower()),
    ]


GENERATORS = (search, weather, plan, compare, book, cancel, aftersale, recommend, out_of_scope, typos_and_abroad)


def corpus(rounds: int = 60) -> list[dict]:
    """The cases of `rounds` draws of every generator, duplicates (same text) dropped, in a stable order."""
    r = random.Random(SEED)
    seen, cases = set(), []
    for _ in range(rounds):
        for make in GENERATORS:
            for case in make(r):
                if case["text"] not in seen:
                    seen.add(case["text"])
                    cases.append(case)
    return cases


def main() -> None:
    cases = corpus()
    OUT.write_text("".join(json.dumps(c, ensure_ascii=False) + "\n" for c in cases), encoding="utf-8")
    print(f"{len(cases)} utterances written to {OUT}")


if __name__ == "__main__":
    main()
