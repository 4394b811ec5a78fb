"""The traveller's own words for why they ask for a refund or a return, read from their message by code.

The approver reads these words on the ticket, so they are the traveller's, never a model's: the understanding (a
model, or the offline engine) may say *that* a reason was given (`Intent.aftersale_reason`); the words come from
the text.

A message is cut into clauses (at ，。；！？ , . ; ! ? and line ends). A clause that only asks (the order number,
退款 / 退货, 我要, 申请, please, "I'd like a refund for order …") is no reason and is dropped; the others, with the
order number taken out, are the reason. A request gives a reason only when it says why: the understanding
recognised one (行程有变, it arrived broken), or a word such as 因为 / because says so; "订单ORD-001我要退款" gives
none, and the traveller is asked. An answer to that question is the reason whatever it says (家里有事), as long as
something is left once the asking words are gone.
"""

import re

# Where a clause ends.
_CLAUSE_END = re.compile(r"[，,。;；!！?？\n]+|\.(?=\s|$)")
# An order number with the words that introduce it ("订单号：ORD-001", "for my order ORD-001", "ORD-001的").
_ORDER_REF = re.compile(
    r"(?:(?:for|of|on|about)\s+)?(?:(?:the|my|this)\s+)?(?:order\s*(?:number|no\.?|#)?\s*[:：#]?\s*)?"
    r"(?:订单号?|单号)?\s*(?:是|为|[:：])?\s*(?<![A-Za-z])ORD[-_ ]?\d{3,}(?!\d)\s*(?:的|这单)?",
    re.I,
)
# Words that only ask for the refund or return (or are politeness and particles): what is left is the reason.
_ASKING = re.compile(
    r"订单号?|单号|我(?:想|要|需要)?|想要?|需要|申请|要求|请|麻烦(?:你|您)?|帮(?:我|忙)?|给我|一下|全额|全部|"
    r"退款|退货|退钱|退费|退掉|退回|退|售后|处理|办理|可以|能不能|能否|吗|呢|吧|啊|呀|哦|嗯|了|的|这个|那个|这单|"
    r"您好|你好|谢谢|"
    r"\b(?:i|i'?d|i'?m|would|like|want|wanna|need|needs|to|a|an|the|my|me|for|of|on|about|please|pls|plz|can|"
    r"could|you|get|make|request|requesting|refund|refunds|refunded|return|returns|returning|money|back|order|"
    r"orders|number|no|hi|hello|hey|thanks|thank|this|that|it|do|some|full)\b",
    re.I,
)
# Words that say a reason follows.
_BECAUSE = re.compile(r"因为|由于|原因是|理由是|\b(?:because|since|due to|the reason)\b", re.I)
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
_LATIN_WORD = re.compile(r"[a-z]{2,}|\d", re.I)
_EDGES = "，,。.;；!！?？:：、 \t"


def reason_words(text: str, *, asked: bool, recognised: bool) -> str | None:
    """The reason in the traveller's words, or None when the message gives none.

    `asked`: the message answers the question why (anything left once the asking words are gone is the reason);
    `recognised`: the understanding found a reason in it (then the words are kept even when every clause also
    holds asking words, as in "不想要了"). Otherwise only a message that says "because" gives a reason.
    """
    text = text if isinstance(text, str) else ""
    if not (asked or recognised or _BECAUSE.search(text)):
        return None
    clauses = [_clean(_ORDER_REF.sub(" ", clause)) for clause in _CLAUSE_END.split(text)]
    kept = [clause for clause in clauses if clause and _substantive(_ASKING.sub(" ", clause))]
    if kept:
        separator = "，" if any(_CJK.search(clause) for clause in kept) else ", "
        return separator.join(kept)
    if recognised:
        return _clean(_ORDER_REF.sub(" ", text)) or None
    return None


def _substantive(rest: str) -> bool:
    """Whether what is left of a clause says something: two Chinese characters, or a word, or a number."""
    return len(_CJK.findall(rest)) >= 2 or bool(_LATIN_WORD.search(rest))


def _clean(clause: str) -> str:
    """Without the punctuation at its ends (and the 的 an order number left: "ORD-002的冲锋衣" → "冲锋衣")."""
    return " ".join(clause.split()).strip(_EDGES).lstrip("的").strip(_EDGES)
