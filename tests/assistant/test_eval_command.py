"""`manage.py assistant_eval`: the figures on the shared dev set and on our own sets, and its errors."""

import json
import os
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

ROOT = Path(__file__).resolve().parents[2]
SHARED_DEV_SET = ROOT.parent / "shared" / "eval" / "intents-dev.jsonl"
DEV_SET = ROOT / "tests" / "assistant" / "eval" / "intents-dev.jsonl"
OWN_SET = ROOT / "tests" / "assistant" / "eval" / "intents-own.jsonl"
HOLDOUT_SET = ROOT / "tests" / "assistant" / "eval" / "intents-holdout.jsonl"
HOLDOUT_SET_2 = ROOT / "tests" / "assistant" / "eval" / "intents-holdout2.jsonl"
TUNING_SET = ROOT / "tests" / "assistant" / "eval" / "intents-tuning.jsonl"
GENERATED_SET = ROOT / "tests" / "assistant" / "eval" / "intents-generated.jsonl"
HELDOUT_14_SET = ROOT / "tests" / "assistant" / "eval" / "intents-heldout-14.jsonl"
CALIBRATION_27_SET = ROOT / "tests" / "assistant" / "eval" / "intents-calibration-27.jsonl"


def run_eval(path: Path) -> dict:
    out = StringIO()
    call_command("assistant_eval", file=str(path), today="2026-12-01", provider="rules", json=True, stdout=out)
    return json.loads(out.getvalue().strip().splitlines()[-1])


def test_the_dev_set_reaches_the_thresholds():
    # The team's dev set is committed, so every clone scores it (nothing CI is meant to check can skip); where the
    # shared copy sits beside the repository, the committed one must be that copy.
    if SHARED_DEV_SET.exists():
        assert DEV_SET.read_bytes() == SHARED_DEV_SET.read_bytes(), "the shared dev set changed: copy it to " + str(
            DEV_SET
        )
    result = run_eval(DEV_SET)
    assert result["total"] == 64
    assert result["intent_accuracy"] >= 0.95
    assert result["slot_accuracy"] >= 0.90


def test_our_own_set_reaches_the_thresholds():
    result = run_eval(OWN_SET)
    assert result["total"] >= 300
    assert result["intent_accuracy"] >= 0.95
    assert result["slot_accuracy"] >= 0.95


@pytest.mark.parametrize(("path", "size"), [(HOLDOUT_SET, 80), (HOLDOUT_SET_2, 40)])
def test_the_holdout_sets_are_scored(path, size):
    # Written after the engine was done, to measure how it generalises; a floor, not a target.
    result = run_eval(path)
    assert result["total"] == size
    assert result["intent_accuracy"] >= 0.90
    assert result["slot_accuracy"] >= 0.90


def test_the_tuning_set_of_issue_14_stays_understood():
    # The kinds of misses issue 14 names, written while the engine was reworked: a regression net, not a measure.
    result = run_eval(TUNING_SET)
    assert result["total"] == 158
    assert result["intent_accuracy"] >= 0.97
    assert result["slot_accuracy"] >= 0.97


def test_the_set_written_after_issue_14_stays_understood():
    # Written by someone who had not seen the engine, after it was frozen; scored once at intent 0.894 and slots
    # 0.965 (docs/understanding.md). The kinds of misses it showed were then fixed: from here it is a floor.
    result = run_eval(HELDOUT_14_SET)
    assert result["total"] == 320
    assert result["intent_accuracy"] >= 0.97
    assert result["slot_accuracy"] >= 0.96


def test_the_generated_corpus_is_the_committed_one_and_stays_understood():
    from tests.assistant.eval.generate_corpus import corpus

    committed = [json.loads(line) for line in GENERATED_SET.read_text(encoding="utf-8").splitlines() if line]
    assert committed == corpus()  # regenerate with tests/assistant/eval/generate_corpus.py after changing it
    result = run_eval(GENERATED_SET)
    assert result["total"] >= 1500
    assert result["intent_accuracy"] >= 0.97
    assert result["slot_accuracy"] >= 0.97


def test_the_report_lists_accuracy_and_the_per_intent_table(tmp_path):
    path = tmp_path / "two.jsonl"
    lines = [
        {"text": "赛里木湖", "intent": "SEARCH_ACTIVITIES", "slots": {"destination": "赛里木湖"}},
        {"text": "给我讲个笑话", "intent": "RECOMMEND", "slots": {}},
    ]
    path.write_text("\n".join(json.dumps(line, ensure_ascii=False) for line in lines), encoding="utf-8")
    out = StringIO()
    call_command("assistant_eval", file=str(path), today="2026-12-01", provider="rules", stdout=out)
    report = out.getvalue()
    assert "intent accuracy 0.5000 (1/2)" in report
    assert "slot accuracy   1.0000 (1/1)" in report
    assert "RECOMMEND" in report and "precision" in report
    assert "给我讲个笑话" in report  # the miss is listed
    # the joke read as out of scope, surely: a wrong reading the desk would act on (refuse) without asking
    assert "wrong and acted on 50.0% (1/2), asked first 0" in report
    assert "reliability (confidence band: right/readings)" in report and "[0.90, 1.00]" in report


def test_the_calibration_set_of_issue_27_is_read_surely_where_it_is_read_right():
    # Written by someone who had not seen the engine; the scorer never learns from it, its confidence is calibrated
    # on it (assistant/llm/rules/build_scorer.py): a floor on what the calibration promised, not a target.
    result = run_eval(CALIBRATION_27_SET)
    assert result["total"] == 220
    assert result["intent_accuracy"] >= 0.93
    assert result["wrong_and_acted_on_rate"] <= 0.03
    assert result["asked"] <= 0.1 * result["total"]


def test_a_malformed_line_is_an_error_naming_its_line(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text(
        '{"text": "赛里木湖", "intent": "SEARCH_ACTIVITIES", "slots": {}}\n{"text": oops}\n', encoding="utf-8"
    )
    with pytest.raises(CommandError, match="line 2"):
        call_command("assistant_eval", file=str(path), provider="rules", stdout=StringIO())


def test_an_unknown_intent_or_slot_is_an_error(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"text": "x", "intent": "DANCE", "slots": {}}\n', encoding="utf-8")
    with pytest.raises(CommandError, match="line 1"):
        call_command("assistant_eval", file=str(path), provider="rules", stdout=StringIO())
    path.write_text('{"text": "x", "intent": "BOOK", "slots": {"colour": "red"}}\n', encoding="utf-8")
    with pytest.raises(CommandError, match="line 1"):
        call_command("assistant_eval", file=str(path), provider="rules", stdout=StringIO())


def test_the_command_exits_with_code_2_on_a_malformed_file(tmp_path):
    import subprocess
    import sys

    path = tmp_path / "bad.jsonl"
    path.write_text("not json\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "manage.py", "assistant_eval", "--file", str(path), "--provider", "rules"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "line 1" in done.stderr


def test_the_report_has_a_confusion_matrix_and_writes_the_misses_to_a_file(tmp_path):
    path = tmp_path / "three.jsonl"
    lines = [
        {"text": "大理天气怎么样", "intent": "QUERY_WEATHER", "slots": {"destination": "大理"}},
        {"text": "大理有什么活动", "intent": "QUERY_WEATHER", "slots": {}},  # labelled wrong on purpose: a miss
        {"text": "帮我写首诗", "intent": "OUT_OF_SCOPE", "slots": {}},
    ]
    path.write_text("\n".join(json.dumps(line, ensure_ascii=False) for line in lines), encoding="utf-8")
    misses = tmp_path / "misses.jsonl"
    out = StringIO()

    call_command("assistant_eval", file=str(path), today="2026-12-01", provider="rules", misses=str(misses), stdout=out)

    report = out.getvalue()
    matrix = report[report.index("confusion") :].splitlines()
    weather_row = next(line for line in matrix if line.startswith("QUERY_WEATHER"))
    assert weather_row.split()[1:] == ["1", "1", "."]  # one understood as a search, one as the weather
    [miss] = [json.loads(line) for line in misses.read_text(encoding="utf-8").splitlines()]
    assert (miss["line"], miss["text"], miss["got"]["intent"]) == (2, "大理有什么活动", "SEARCH_ACTIVITIES")


def test_the_command_fails_when_no_utterance_was_understood_at_all():
    import subprocess
    import sys

    from tests.conftest import free_port

    done = subprocess.run(
        [sys.executable, "manage.py", "assistant_eval", "--file", str(OWN_SET), "--provider", "openai"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={
            **os.environ,
            "ASSISTANT_LLM_BASE_URL": f"http://127.0.0.1:{free_port()}/v1",  # nothing listens there
            "ASSISTANT_LLM_API_KEY": "sk-test-none",
            "ASSISTANT_LLM_TIMEOUT": "2",
        },
    )
    assert done.returncode == 1
    assert "no model answered" in done.stderr
    assert "intent accuracy 0.0000" in done.stdout  # the figures are still printed
