"""Whether a short message answers a confirmation card: "YES", "NO" or None.

Deterministic, Chinese and English. The message is cut into tokens (a latin word, a digit run or one Chinese
character); it is an answer only when the whole of it can be read as confirmation words (确认, 好的, 就订这个, yes,
go ahead, book it …), refusal words (不要了, 算了, 取消, no, cancel that, never mind …) and fillers (请, 吧, 啊, 谢谢,
please, thanks …). Anything else, a place, a date, a number, "换个早一点的", "第二个", "改成20号", is new content:
None, and the conversation goes on. A question is no answer. When both kinds of words are there, the refusal wins:
a decline does nothing, a confirmation writes.
"""

import re
import unicodedata
from functools import cache

YES = "YES"
NO = "NO"
FILLER = "FILLER"
UNSURE = "UNSURE"  # words that make the message no answer at all (不确定, not sure, 你好)

MAX_TOKENS = 16
MAX_CHARS = 60

CONFIRMING = """
确认 确定 确认无误 确认预订 确认下单 确认取消 确认改签 确认订 确认了 确定了 确认一下
好 好的 好滴 好嘞 好啊 好呀 好吧 好好 行 行的 行啊 可以 可以的 可 没问题 没毛病 没错 对 对的 对对 是 是的 嗯 嗯嗯 恩 同意
就这个 就它 就这样 就这么办 这个 这班 这趟 这家 这样 它 要 要的 要这个 成交 提交 继续 办吧 就是这个 不用改 不改了 不用改了
订 预订 下单 订了 订它 买 买了 办 改签 就订 订这个 订那个 帮我订 给我订
yes yeah yea yep yup ya y sure ok okay k kk alright all right confirm confirmed i confirm confirm it
go ahead go for it go on book it book that book this book do it do that please do proceed that's right thats right
right correct sounds good looks good good great perfect fine that's fine thats fine agreed agree deal absolutely
definitely of course sure thing yes please let's do it lets do it let's go lets go i'll take it ill take it take it that one
this one works for me no problem no worries
"""
REFUSING = """
不 不要 不要了 不用 不用了 不需要 不需要了 取消 算了 算了吧 不了 先不 先不要 先不用 先别 别 别订 不订 不订了 不行 不好
不对 不是 不可以 否 放弃 等等 等一下 再想想 我再想想 想想 考虑一下 再考虑 暂时不 改天 修改 改一下 我要改 还是算了 不买了
no nope nah n cancel cancel that don't dont do not never mind nevermind not now not yet no thanks no thank you stop
wait hold on forget it change change it not that wrong changed my mind abort decline skip
"""
FILLING = """
请 吧 啊 呢 呀 哈 啦 嘛 哦 噢 喔 了 呗 哟 的 呃 唔 哎 诶 那 那就 就 然后 谢谢 谢啦 多谢 麻烦 麻烦你 麻烦了 帮我 我 你 一下
please pls plz thanks thank you thx ty then just and oh um uh well ah yes i it that this so
"""
UNSURE_WORDS = """
不确定 不知道 不清楚 不一定 看看 再说 吗 么 是吗 对吗 可以吗 行吗 好吗 你好 您好 你好吗
not sure unsure maybe perhaps what how why which hi hello hey
"""

# Emoji that answer on their own; every other emoji or symbol is ignored.
EMOJI = {"👍": "yes", "👌": "yes", "✅": "yes", "🙆": "yes", "✔": "yes", "❌": "no", "🙅": "no", "👎": "no"}

_TOKEN = re.compile(r"[a-z']+|\d+|[\u3400-\u4dbf\u4e00-\u9fff]")


def _tokens(text: str) -> list[str]:
    """Latin words (apostrophes dropped: don't → dont), digit runs, single Chinese characters."""
    tokens = (token.replace("'", "") for token in _TOKEN.findall(text))
    return [token for token in tokens if token]


@cache
def _lexicon() -> dict[tuple[str, ...], str]:
    lexicon: dict[tuple[str, ...], str] = {}
    for kind, words in ((FILLER, FILLING), (YES, CONFIRMING), (NO, REFUSING), (UNSURE, UNSURE_WORDS)):
        for line in words.strip().splitlines():
            for phrase in _phrases(line):
                lexicon[tuple(_tokens(phrase))] = kind  # later kinds win: "yes" is a filler and a confirmation
    return lexicon


@cache
def _longest() -> int:
    """The most tokens a lexicon phrase has."""
    return max(len(phrase) for phrase in _lexicon())


def _phrases(line: str) -> list[str]:
    """The phrases of one lexicon line: Chinese phrases are space-separated; an English phrase is a run of latin
    words between two Chinese/latin boundaries, so multi-word English phrases are listed one per known entry."""
    parts = line.split()
    if not parts or not parts[0].isascii():
        return parts
    return ENGLISH_PHRASES.findall(line)


# English lexicon lines hold multi-word phrases: these are the phrases, longest first where they overlap.
ENGLISH_PHRASES = re.compile(
    r"all right|i confirm|confirm it|go ahead|go for it|go on|book it|book that|book this|do it|do that|please do|"
    r"that's right|thats right|sounds good|looks good|that's fine|thats fine|of course|yes please|let's do it|"
    r"sure thing|lets do it|let's go|lets go|i'll take it|ill take it|take it|that one|this one|works for me|no problem|"
    r"no worries|cancel that|don't|do not|never mind|not now|not yet|no thanks|no thank you|hold on|forget it|"
    r"change it|not that|changed my mind|thank you|not sure|[a-z']+"
)


def _normalised(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).lower().replace("’", "'").replace("‘", "'")
    for emoji, word in EMOJI.items():
        text = text.replace(emoji, f" {word} ")
    return text


def confirmation_answer(text: object) -> str | None:
    """Return "YES" when the message confirms the pending action, "NO" when it declines it, None when it says anything
    else (new content, a question, or nothing)."""
    if not isinstance(text, str) or not text.strip() or len(text) > MAX_CHARS:
        return None
    normalised = _normalised(text)
    if "?" in normalised:  # "可以吗？", "ok?": a question, not an answer
        return None
    leftover = _TOKEN.sub(" ", normalised)
    if any(ch.isalnum() for ch in leftover):  # letters of another script, or symbols the tokens did not take
        return None
    tokens = _tokens(normalised)
    if not tokens or len(tokens) > MAX_TOKENS:
        return None
    read = _read(tuple(tokens))
    if read is None or _names_a_thing(read):
        return None
    kinds = [kind for kind, _ in read]
    if UNSURE in kinds:
        return None
    if NO in kinds:
        return NO
    if YES in kinds:
        return YES
    return None


def _names_a_thing(read: list[tuple[str, tuple[str, ...]]]) -> bool:
    """A confirmation word after a lone "的" is a noun, not an answer: "我的预订", "你的订单确认" name a thing."""
    return any(kind == YES and before == ("的",) for (_, before), (kind, _) in zip(read, read[1:], strict=False))


def _read(tokens: tuple[str, ...]) -> list[tuple[str, tuple[str, ...]]] | None:
    """The fewest lexicon phrases (kind, tokens) that make up all of `tokens`, or None when they cannot."""
    lexicon = _lexicon()
    longest = _longest()
    best: list[list[tuple[str, tuple[str, ...]]] | None] = [None] * (len(tokens) + 1)
    best[0] = []
    for end in range(1, len(tokens) + 1):
        for size in range(1, min(longest, end) + 1):
            start = end - size
            kind = lexicon.get(tokens[start:end])
            if kind is None or best[start] is None:
                continue
            candidate = [*best[start], (kind, tokens[start:end])]
            if best[end] is None or len(candidate) < len(best[end]):
                best[end] = candidate
    return best[len(tokens)]
