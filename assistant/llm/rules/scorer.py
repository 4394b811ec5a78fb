"""The fitted intent scorer: how likely each intent is, learned from labelled sentences rather than set by hand.

The readers find the slots; the scorer reads the sentence's *shape*: each place, date, number, code and name
replaced by its kind ("帮我订<P>到<P><D>的机票"; an airline or a hotel chain is a kind too), cut into tokens (a Chinese character, an English word, a kind) and
their pairs and triples, beside the evidence the readers found (a route, a date, a product) and which cue lists of
`intents` fired. A multinomial logistic regression (`build_scorer.py`, scikit-learn, by hand after the labelled data
changes) turns them into one probability per intent; its weights are `intent_scorer.json`, read once, so a turn needs
no scikit-learn: a sum of the weights of the features present and a softmax.

A word no labelled sentence held has no weight: a sentence the scorer cannot explain keeps close to the prior of
every intent, so its reading's probability is low. The reading's confidence is that probability calibrated on
sentences the model never learnt from (`Scorer.settle`): how often a reading that sure was right, less where much of
the sentence is pairs of words no weight explains ("shorts or a parka?"). Below ASSISTANT_CLARIFY_BELOW the
traveller gets "did you mean …?" instead of an action.
"""

import hashlib
import json
import math
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy

MODEL = Path(__file__).resolve().parent / "intent_scorer.json"
# A sentence the rules themselves call a guess (a bare route: 0.4) stays one whatever the scorer says.
RULES_GUESS_BELOW = 0.5

# The kinds a span is replaced by in the shape (private-use characters: one token each, never typed by anyone).
PLACE, DATE, NUMBER, CODE, PERSON, VENDOR = "\ue000", "\ue001", "\ue002", "\ue003", "\ue004", "\ue005"
KINDS = (PLACE, DATE, NUMBER, CODE, PERSON, VENDOR)
SLOTS = frozenset((*KINDS, "0"))  # what stands for a slot's value, not a word of the sentence
_TOKEN = re.compile(r"[\u3400-\u9fff\ue000-\ue005]|[a-z][a-z']*|\d+")


@dataclass(frozen=True)
class Scores:
    """The fitted probabilities of one sentence, most likely first, the readers' signals they came from, and the
    share of the sentence's pairs of words that no weight of the model explains."""

    ranked: tuple[tuple[str, float], ...]
    signals: tuple[str, ...] = ()
    unexplained: float = 0.0

    def of(self, intent: str) -> float:
        return next((p for name, p in self.ranked if name == intent), 0.0)


def shape(text: str, kinds: list[tuple[int, int, str]]) -> str:
    """The text with each (start, end, kind) span replaced by its kind's one character (later spans nested in an
    earlier one are dropped), lower-cased in ASCII."""
    out, at = [], 0
    for start, end, kind in sorted(kinds, key=lambda k: (k[0], -k[1])):
        if start < at:
            continue
        out.append(text[at:start])
        out.append(f" {kind} ")
        at = end
    out.append(text[at:])
    return "".join(out).lower()


def tokens(shaped: str) -> list[str]:
    return ["0" if token.isdigit() else token for token in _TOKEN.findall(shaped)]


def features(shaped: str, signals: list[str]) -> list[str]:
    """The sentence's features: its tokens, their pairs and triples, and the readers' signals."""
    return _features(tokens(shaped), signals)


def _features(toks: list[str], signals: list[str]) -> list[str]:
    pairs = [f"{a} {b}" for a, b in zip(toks, toks[1:], strict=False)]
    triples = [f"{a} {b} {c}" for a, b, c in zip(toks, toks[1:], toks[2:], strict=False)]
    found = [f"u:{t}" for t in toks] + [f"b:{p}" for p in pairs] + [f"t:{t}" for t in triples]
    found += [f"s:{s}" for s in signals]
    if not toks:
        found.append("s:empty")
    return list(dict.fromkeys(found))


class Scorer:
    """The fitted weights, loaded once."""

    def __init__(self, data: dict) -> None:
        self.classes: list[str] = data["classes"]
        self.index = {name: row for row, name in enumerate(data["weights"])}
        self.weights = numpy.array(list(data["weights"].values()), dtype=float)
        self.bias = numpy.array(data["bias"], dtype=float)
        self.trained_on: str = data["trained_on"]
        self.calibration: dict | None = data.get("calibration")

    def score(self, shaped: str, signals: list[str]) -> Scores:
        index, toks = self.index, tokens(shaped)
        rows = [index[name] for name in _features(toks, signals) if name in index]
        logits = (self.bias + self.weights.take(rows, axis=0).sum(axis=0)).tolist()
        top = max(logits)
        exps = [math.exp(value - top) for value in logits]
        total = sum(exps)
        ranked = sorted(zip(self.classes, (e / total for e in exps), strict=False), key=lambda pair: -pair[1])
        words = [word for word in toks if word not in SLOTS]
        pairs = [f"b:{a} {b}" for a, b in zip(words, words[1:], strict=False)]
        unexplained = sum(pair not in index for pair in pairs) / len(pairs) if pairs else 0.0
        return Scores(tuple(ranked), tuple(signals), unexplained)

    def settle(self, decision, scores: Scores, text: str, joined: tuple[str, ...] = ()):
        """The reading to act on and how sure it is: the rules' reading, or the scorer's own where the build found
        that reads more sentences right; its confidence is how often such a reading was right on sentences the model
        never learnt from (a logistic map of `calibration_inputs`). The other likely readings become the
        "did you mean …?" alternatives."""
        from assistant.llm.rules.intents import Decision, aftersale_action

        calibration = self.calibration
        chosen = choose(decision.intent, scores, calibration["overrule_above"], joined)
        inputs = calibration_inputs(chosen, decision.intent, scores, joined)
        logit = calibration["intercept"] + sum(w * v for w, v in zip(calibration["coef"], inputs, strict=True))
        confidence = 1 / (1 + math.exp(-logit))
        if decision.confidence < RULES_GUESS_BELOW:
            confidence = min(confidence, decision.confidence)
        others = [name for name, p in scores.ranked if name not in (chosen, *joined) and p >= 0.05]
        alternatives = [*(a for a in decision.alternatives if a != chosen), *others]
        if chosen != decision.intent:
            alternatives.insert(0, decision.intent)
        action = decision.aftersale_action if chosen == decision.intent else None
        if chosen in ("AFTERSALE", "QUERY_PROGRESS") and action is None:
            action = aftersale_action(text)
        return Decision(
            chosen,
            aftersale_action=action,
            explicit=decision.explicit,
            confidence=round(confidence, 3),
            alternatives=tuple(dict.fromkeys(alternatives))[:2],
        )


# What makes the rules' reading firm: a pick of the options shown, a change of mind,
# a want only a booking has ("软卧也行", "first class", "坐南航"): the dialogue's evidence, which no sentence alone
# shows the scorer.
FIRM = ("pick", "change_of_mind", "preferences")


def choose(rules: str, scores: Scores, overrule_above: float, joined: tuple[str, ...] = ()) -> str:
    """The rules' reading, unless it is not firm and the scorer's own is at least `overrule_above` likely (set by
    the build) and not one of the requests the sentence joins."""
    top, top_p = scores.ranked[0]
    firm = any(name in scores.signals for name in FIRM)
    return top if not firm and top != rules and top not in joined and top_p >= overrule_above else rules


def calibration_inputs(chosen: str, rules: str, scores: Scores, joined: tuple[str, ...] = ()) -> list[float]:
    """What a reading's confidence is calibrated from: the log-odds of its fitted probability (of all the requests,
    when the sentence joins several: "规划三天丽江行程，顺便查天气"), whether the rules and the scorer agree, and how
    much of the sentence the model could not explain."""
    p = sum(scores.of(name) for name in dict.fromkeys((chosen, *joined)))
    p = min(max(p, 1e-6), 1 - 1e-6)
    agree = chosen == rules and scores.ranked[0][0] in (chosen, *joined)
    return [math.log(p / (1 - p)), float(agree), scores.unexplained]


@lru_cache(maxsize=1)
def scorer() -> Scorer:
    return Scorer(json.loads(MODEL.read_text(encoding="utf-8")))


def digest(paths: list[Path]) -> str:
    """What the model was trained on: one hash over the labelled files (a test keeps the model in step with them)."""
    h = hashlib.sha256()
    for path in paths:
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()
