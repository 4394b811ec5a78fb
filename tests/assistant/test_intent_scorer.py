"""The fitted intent scorer (issue 27): weights learned from the labelled sentences, a confidence calibrated on
sentences it never learnt from, and a "did you mean …?" where that confidence is low."""

import json

import pytest
from django.conf import settings

from assistant.llm.port import UnderstandContext
from assistant.llm.rules import RulesLLM, build_scorer, scorer
from assistant.llm.rules.intents import Decision
from bookings.models import BookingRecord
from tests.assistant.conftest import TODAY, Chat

pytestmark = pytest.mark.django_db
SEALED = "intents-new-27.jsonl"


def read(rules_port, text: str):
    return rules_port.understand(text, context=UnderstandContext(today=TODAY)).intent


def test_the_model_is_fitted_on_the_committed_sentences_and_never_on_the_sealed_set():
    assert SEALED not in (*build_scorer.TRAINING, build_scorer.CALIBRATION)
    assert build_scorer.CALIBRATION not in build_scorer.TRAINING
    committed = scorer.scorer()
    names = (*build_scorer.TRAINING, build_scorer.CALIBRATION)
    # after changing a labelled file: python -m assistant.llm.rules.build_scorer
    assert committed.trained_on == scorer.digest([build_scorer.EVAL / name for name in names])


def test_fitting_again_gives_the_committed_weights():
    committed = json.loads(scorer.MODEL.read_text(encoding="utf-8"))
    fitted = build_scorer.fit(build_scorer.labelled())

    assert fitted["classes"] == committed["classes"]
    assert set(fitted["weights"]) ^ set(committed["weights"]) <= {
        name for name, row in committed["weights"].items() if max(map(abs, row)) < 0.01
    }  # a weight at the pruning edge may fall either side of it on another machine's arithmetic
    shared = set(fitted["weights"]) & set(committed["weights"])
    drift = [
        abs(a - b) for name in shared for a, b in zip(fitted["weights"][name], committed["weights"][name], strict=True)
    ]
    assert max(drift) < 1e-3


def test_the_confidence_grows_with_the_fitted_probability_and_falls_with_what_is_unexplained():
    model = scorer.scorer()
    rules = Decision("QUERY_WEATHER", confidence=0.9)

    def settled(p: float, unexplained: float) -> float:
        rest = (1 - p) / 9
        ranked = (("QUERY_WEATHER", p), *((name, rest) for name in model.classes if name != "QUERY_WEATHER"))
        return model.settle(rules, scorer.Scores(ranked, (), unexplained), "").confidence

    assert settled(0.5, 0.0) < settled(0.7, 0.0) < settled(0.95, 0.0)
    assert settled(0.95, 1.0) <= settled(0.95, 0.0)


def test_a_reading_the_rules_only_guessed_follows_the_scorer(rules_port):
    # no weather word of the rules' lists (秋裤 are long johns), nor of what to pack: the rules guess a search
    sentence = "桂林下礼拜秋裤穿得住吗"
    llm = RulesLLM()
    guessed = llm._understand(sentence, TODAY, None, llm._gazetteer, shapes=[])  # the rules alone

    got = read(rules_port, sentence)

    assert guessed.intent == "SEARCH_ACTIVITIES"
    assert got.intent == "QUERY_WEATHER" and got.confidence >= settings.ASSISTANT_CLARIFY_BELOW
    assert "桂林" in got.destination_keywords and got.date_start is not None


def test_a_sentence_the_scorer_cannot_place_is_asked_back_with_chips_and_nothing_runs(alice, channel, supplier_sandbox):
    chat = Chat(alice)

    asked = chat.say("丽江那个事儿弄得咋样了")

    assert asked["outcome"] == "CLARIFY" and asked["cards"] == []
    assert "不太确定" in asked["reply"]
    # the chips are built from the slots understood; which reading leads is the calibrated confidence's to say
    assert sum("丽江" in s["message"] for s in asked["suggestions"]) >= 2
    assert supplier_sandbox.stats()["orders"]["total"] == 0 and not BookingRecord.objects.exists()
