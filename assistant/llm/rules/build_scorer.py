"""Fit the intent scorer (`intent_scorer.json`) on the labelled sentences, by hand after they change:

    DJANGO_SETTINGS_MODULE=config.settings python -m assistant.llm.rules.build_scorer

The sentences are the team's labelled sets under tests/assistant/eval (TRAINING below); the sealed measurement set
of issue 27 (intents-new-27.jsonl) is never among them. Each is read by the rules engine, as a turn reads it, into
its shape and signals (`scorer.features`); a multinomial logistic regression (scikit-learn, L2) learns one weight per
feature and intent. The templated corpus weighs a quarter of a sentence a person wrote. Features seen in fewer than
two sentences are left out, and weights too small to matter dropped, so the JSON stays small. The fit is deterministic (lbfgs from zero), so the same data give the
same file.
"""

import json
from datetime import date
from pathlib import Path

from assistant.llm.rules import scorer

EVAL = Path(__file__).resolve().parents[3] / "tests" / "assistant" / "eval"
TRAINING = (
    "intents-dev.jsonl",
    "intents-own.jsonl",
    "intents-heldout-14.jsonl",
    "intents-holdout.jsonl",
    "intents-holdout2.jsonl",
    "intents-tuning.jsonl",
    "intents-generated.jsonl",
    "intents-train-27.jsonl",
    "intents-train-28-refine.jsonl",
    "intents-train-28-flow.jsonl",
    "intents-train-28-two.jsonl",
    "intents-train-28-money.jsonl",
    "intents-train-28-handover.jsonl",
    "intents-train-28-journey.jsonl",
)
# Sentences the model never learns from: its confidence is calibrated on how often it is right on them, and the
# reading's choice between the rules and the scorer is set there.
CALIBRATION = "intents-calibration-27.jsonl"
TEMPLATED = {"intents-generated.jsonl": 0.25}
MIN_SENTENCES = 2
REGULARISATION = 4.0  # scikit-learn's C: chosen by leave-one-file-out accuracy over TRAINING
SMALLEST_WEIGHT = 0.005


def labelled(names=TRAINING) -> list[tuple[str, str, float]]:
    """(text, intent, weight) of every labelled sentence in the files named."""
    rows = []
    for name in names:
        weight = TEMPLATED.get(name, 1.0)
        for line in (EVAL / name).read_text(encoding="utf-8").splitlines():
            if line.strip():
                case = json.loads(line)
                rows.append((case["text"], case["intent"], weight))
    return rows


def shapes(texts: list[str]) -> list[tuple[str, list[str]]]:
    """Each sentence's shape and signals, as the engine reads it (no pending task, no catalogue places)."""
    from assistant.llm.rules.engine import RulesLLM

    llm = RulesLLM()
    found: list[tuple[str, list[str]]] = []
    for text in texts:
        before = len(found)
        llm._understand(text, date(2026, 12, 1), None, llm._gazetteer, shapes=found)
        if len(found) == before:  # read before the intent step (empty, only social words): nothing to learn
            found.append(("", []))
    return found


def fit(rows: list[tuple[str, str, float]], c: float = REGULARISATION) -> dict:
    """The model's JSON for these labelled rows."""
    from sklearn.feature_extraction import DictVectorizer
    from sklearn.linear_model import LogisticRegression

    read = shapes([text for text, _, _ in rows])
    bags = [scorer.features(shaped, signals) for shaped, signals in read]
    counts: dict[str, int] = {}
    for found in bags:
        for name in found:
            counts[name] = counts.get(name, 0) + 1
    kept = [{name: 1 for name in found if counts[name] >= MIN_SENTENCES} for found in bags]
    vectoriser = DictVectorizer()
    x = vectoriser.fit_transform(kept)
    y = [intent for _, intent, _ in rows]
    model = LogisticRegression(C=c, max_iter=5000)
    model.fit(x, y, sample_weight=[weight for _, _, weight in rows])
    weights = {}
    for index, name in enumerate(vectoriser.feature_names_):
        row = [round(float(v), 4) for v in model.coef_[:, index]]
        if max(abs(v) for v in row) >= SMALLEST_WEIGHT:
            weights[name] = row
    return {
        "classes": [str(c) for c in model.classes_],
        "bias": [round(float(v), 4) for v in model.intercept_],
        "weights": weights,
    }


def readings(data: dict, rows: list[tuple[str, str, float]]) -> list[tuple[object, scorer.Scores, str]]:
    """The rules' decision and the fitted scores of each labelled row, with its label."""
    from assistant.llm.rules.engine import RulesLLM
    from assistant.llm.rules.intents import Decision

    llm, model = RulesLLM(), scorer.Scorer({**data, "calibration": None, "trained_on": ""})
    found = []
    for text, intent, _ in rows:
        shaped: list = []
        read = llm._understand(text, date(2026, 12, 1), None, llm._gazetteer, shapes=shaped)
        decision = Decision(read.intent, read.aftersale_action, True, read.confidence or 1.0, tuple(read.alternatives))
        scores = model.score(*shaped[0]) if shaped else scorer.Scores((("OUT_OF_SCOPE", 1.0),))
        found.append((decision, scores, intent))
    return found


def calibrate(data: dict, rows: list[tuple[str, str, float]]) -> dict:
    """When the scorer overrules the rules (the threshold that reads most sentences right), and the logistic map
    from a reading's inputs (`scorer.calibration_inputs`) to how often such a reading is right."""
    from sklearn.linear_model import LogisticRegression

    read = readings(data, rows)
    best = None
    for overrule in (0.6, 0.7, 0.8, 0.9, 0.95, 1.01):
        right = sum(scorer.choose(d.intent, s, overrule) == label for d, s, label in read)
        print(f"overrule above {overrule}: {right}/{len(read)} right")
        if best is None or right > best[1]:
            best = (overrule, right)
    overrule = best[0]
    x, y = [], []
    for decision, scores, label in read:
        chosen = scorer.choose(decision.intent, scores, overrule)
        x.append(scorer.calibration_inputs(chosen, decision.intent, scores))
        y.append(chosen == label)
    model = LogisticRegression(C=1.0).fit(x, y)
    if model.coef_[0][2] > 0:  # more unexplained never makes a reading surer: where the data disagree, it is left out
        x = [[*inputs[:2], 0.0] for inputs in x]
        model = LogisticRegression(C=1.0).fit(x, y)
    return {
        "overrule_above": overrule,
        "coef": [round(float(v), 4) for v in model.coef_[0]],
        "intercept": round(float(model.intercept_[0]), 4),
    }


def main() -> None:
    import django

    django.setup()
    data = fit(labelled())
    data["calibration"] = calibrate(data, labelled((CALIBRATION,)))
    data["trained_on"] = scorer.digest([EVAL / name for name in (*TRAINING, CALIBRATION)])
    scorer.MODEL.write_text(json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"{scorer.MODEL.name}: {len(data['weights'])} features")
    print(f"calibrated on {CALIBRATION}: {data['calibration']}")
    model = scorer.Scorer(data)
    read = readings(data, labelled((CALIBRATION,)))
    for below in (0.5, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85):
        asked = wrong = right = 0
        for decision, scores, label in read:
            settled = model.settle(decision, scores, "")
            right += settled.intent == label
            if settled.confidence < below:
                asked += 1
            elif settled.intent != label:
                wrong += 1
        n = len(read)
        print(f"asking below {below}: right {right / n:.3f}, asked {asked / n:.3f}, wrong and acted on {wrong / n:.3f}")


if __name__ == "__main__":
    main()
