"""Score an LLM port adapter on a labelled JSONL file of utterances (it reports; it does not judge).

Each line: {"text": "...", "intent": "SEARCH_ACTIVITIES", "slots": {"destination": "大理", "max_price": 2000}}.
Slot names are those of the intent JSON, plus `destination`, which matches any of `destination_keywords` or `city`.
"""

import json
import time
from collections import Counter
from datetime import date
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from assistant import conf
from assistant.llm.factory import get_llm_port
from assistant.llm.port import LLMError, UnderstandContext
from assistant.llm.schema import SLOT_NAMES, IntentName
from assistant.selectors import catalogue_places

SLOTS = {*SLOT_NAMES, "destination"}
# The confidence bands of the reliability table: how often a reading in each band was right.
BANDS = ((0.0, 0.5), (0.5, 0.6), (0.6, 0.75), (0.75, 0.9), (0.9, 1.01))


def load_cases(path: Path) -> list[dict[str, Any]]:
    """Read and check the labelled file; a malformed line is a CommandError naming its line number."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise CommandError(f"cannot read {path}: {exc}", returncode=2)
    cases = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            case = json.loads(line)
        except json.JSONDecodeError as exc:
            raise CommandError(f"{path}, line {number}: not valid JSON ({exc.msg})", returncode=2)
        if not isinstance(case, dict) or not isinstance(case.get("text"), str):
            raise CommandError(f'{path}, line {number}: expected an object with a string "text"', returncode=2)
        if case.get("intent") not in IntentName.__members__:
            raise CommandError(f"{path}, line {number}: unknown intent {case.get('intent')!r}", returncode=2)
        slots = case.get("slots", {})
        if not isinstance(slots, dict) or not set(slots) <= SLOTS:
            raise CommandError(
                f"{path}, line {number}: slots must be an object with names among {sorted(SLOTS)}", returncode=2
            )
        cases.append({"line": number, "text": case["text"], "intent": case["intent"], "slots": slots})
    return cases


def slot_matches(name: str, expected: Any, got: dict[str, Any]) -> bool:
    """One expected slot against the predicted intent JSON (dates as YYYY-MM-DD, numbers as ints)."""
    if name == "destination":
        return expected in (got.get("destination_keywords") or []) or expected == got.get("city")
    value = got.get(name)
    if name in ("days", "max_price"):
        try:
            return value is not None and int(value) == int(expected)
        except (TypeError, ValueError):
            return False
    if name == "destination_keywords":
        expected_list = expected if isinstance(expected, list) else [expected]
        return all(e in (value or []) for e in expected_list)
    return value is not None and str(value) == str(expected)


def _intent_order(name: str) -> tuple[int, str]:
    members = list(IntentName.__members__)
    return (members.index(name), name) if name in members else (len(members), name)


def _short(name: str) -> str:
    """A column label: SEARCH_ACTIVITIES → SEARCH, QUERY_WEATHER → WEATHER, ERROR:TIMEOUT → ERR:TIM."""
    if name.startswith("ERROR:"):
        return "ERR:" + name[6:9]
    words = [w for w in name.split("_") if w not in ("QUERY", "MAKE")]
    return (words[0] if words else name)[:6]


class Command(BaseCommand):
    help = "Evaluate intent and slot accuracy of an LLM port adapter on a labelled JSONL file."

    def add_arguments(self, parser):
        parser.add_argument("--file", required=True, help="JSONL file: one {text, intent, slots} per line")
        parser.add_argument("--today", default=None, help="the date 'today' is, YYYY-MM-DD (default: the real today)")
        parser.add_argument("--provider", default=None, choices=["rules", "openai"], help="default: the setting")
        parser.add_argument("--json", action="store_true", help="end with one JSON line of the figures")
        parser.add_argument("--misses", default=None, help="write the misses to this file, one JSON object a line")

    def handle(self, *args, **options):
        try:
            today = date.fromisoformat(options["today"]) if options["today"] else date.today()
        except ValueError:
            raise CommandError(f"--today must be YYYY-MM-DD, not {options['today']!r}", returncode=2)
        cases = load_cases(Path(options["file"]))
        port = get_llm_port(options["provider"])
        context = UnderstandContext(today=today, places=catalogue_places())

        intent_correct = slot_total = slot_correct = errors = asked = acted_wrong = 0
        bands = Counter()
        true_pos, predicted, support, confusion = Counter(), Counter(), Counter(), Counter()
        misses = []
        started = time.perf_counter()
        for case in cases:
            try:
                got = port.understand(case["text"], context=context).intent.model_dump(mode="json")
            except LLMError as exc:
                errors += 1
                got = {"intent": f"ERROR:{exc.kind}"}
            support[case["intent"]] += 1
            predicted[got["intent"]] += 1
            confusion[(case["intent"], got["intent"])] += 1
            ok_intent = got["intent"] == case["intent"]
            intent_correct += ok_intent
            # Below the setting the desk asks "did you mean …?" before acting; at or above it, it acts on the reading.
            confidence = got.get("confidence")
            unsure = confidence is not None and confidence < conf.clarify_below()
            asked += unsure
            acted_wrong += not ok_intent and not unsure
            band = next((b for b in BANDS if b[0] <= (1.0 if confidence is None else confidence) < b[1]), BANDS[-1])
            bands[(band, "n")] += 1
            bands[(band, "right")] += ok_intent
            true_pos[case["intent"]] += ok_intent
            wrong_slots = {}
            for name, expected in case["slots"].items():
                slot_total += 1
                if slot_matches(name, expected, got):
                    slot_correct += 1
                else:
                    wrong_slots[name] = expected
            if not ok_intent or wrong_slots:
                brief = {k: v for k, v in got.items() if v not in (None, [], False)}
                misses.append({"line": case["line"], "text": case["text"], "expected": case, "got": brief,
                               "wrong_slots": wrong_slots})  # fmt: skip
        elapsed = time.perf_counter() - started

        total = len(cases)
        result = {
            "provider": getattr(port, "provider", "?"),
            "model": getattr(port, "model", "?"),
            "total": total,
            "intent_correct": intent_correct,
            "intent_accuracy": round(intent_correct / total, 4) if total else 0.0,
            "slot_total": slot_total,
            "slot_correct": slot_correct,
            "slot_accuracy": round(slot_correct / slot_total, 4) if slot_total else 1.0,
            "asked": asked,
            "wrong_and_acted_on": acted_wrong,
            "wrong_and_acted_on_rate": round(acted_wrong / total, 4) if total else 0.0,
            "errors": errors,
            "mean_ms": round(elapsed * 1000 / total, 3) if total else 0.0,
        }
        self._report(result, true_pos, predicted, support, misses)
        self._reliability(bands)
        self._confusion(confusion)
        if options["misses"]:
            self._write_misses(Path(options["misses"]), misses)
        if options["json"]:
            self.stdout.write(json.dumps(result, ensure_ascii=False))
        if total and errors == total:  # nothing was understood at all (no model, a wrong key): no figure to trust
            raise CommandError(
                f"every one of the {total} utterances failed ({result['provider']}): no model answered", returncode=1
            )

    def _reliability(self, bands: Counter) -> None:
        """For each confidence band, how many readings fell in it and how often the intent was right."""
        out = self.stdout.write
        out("")
        out(f"reliability (confidence band: right/readings), asking below {conf.clarify_below()}:")
        for low, high in BANDS:
            n, right = bands[((low, high), "n")], bands[((low, high), "right")]
            label = f"[{low:.2f}, {min(high, 1.0):.2f}{']' if high > 1 else ')'}"
            out(f"  {label:<14}{right:>5}/{n:<5}" + (f"{right / n:>7.1%}" if n else f"{'-':>7}"))

    def _confusion(self, confusion: Counter) -> None:
        """Rows: the expected intent; columns: what was understood (only the intents that occur)."""
        names = sorted({name for pair in confusion for name in pair}, key=_intent_order)
        if not names:
            return
        short = {name: _short(name) for name in names}
        out = self.stdout.write
        out("")
        out("confusion (rows expected, columns understood):")
        out(f"{'':<20}" + "".join(f"{short[n]:>7}" for n in names))
        for expected in names:
            if not any(confusion[(expected, got)] for got in names):
                continue
            cells = "".join(f"{confusion[(expected, got)] or '.':>7}" for got in names)
            out(f"{expected:<20}{cells}")

    def _write_misses(self, path: Path, misses: list[dict]) -> None:
        try:
            with path.open("w", encoding="utf-8") as handle:
                for miss in misses:
                    expected = {"intent": miss["expected"]["intent"], "slots": miss["expected"]["slots"]}
                    row = {"line": miss["line"], "text": miss["text"], "expected": expected, "got": miss["got"]}
                    handle.write(json.dumps(row, ensure_ascii=False) + "\n")
        except OSError as exc:
            raise CommandError(f"cannot write the misses to {path}: {exc}", returncode=2)
        self.stdout.write(f"misses written to {path} ({len(misses)})")

    def _report(self, result, true_pos, predicted, support, misses) -> None:
        out = self.stdout.write
        out(f"provider {result['provider']} ({result['model']}), {result['total']} utterances")
        out(f"intent accuracy {result['intent_accuracy']:.4f} ({result['intent_correct']}/{result['total']})")
        out(f"slot accuracy   {result['slot_accuracy']:.4f} ({result['slot_correct']}/{result['slot_total']})")
        out(
            f"wrong and acted on {result['wrong_and_acted_on_rate']:.1%} ({result['wrong_and_acted_on']}/"
            f"{result['total']}), asked first {result['asked']}"
        )
        out(f"mean latency    {result['mean_ms']} ms per utterance")
        out("")
        out(f"{'intent':<20}{'precision':>10}{'recall':>10}{'support':>9}")
        for name in IntentName.__members__:
            if not support[name] and not predicted[name]:
                continue
            precision = true_pos[name] / predicted[name] if predicted[name] else 0.0
            recall = true_pos[name] / support[name] if support[name] else 0.0
            out(f"{name:<20}{precision:>10.2f}{recall:>10.2f}{support[name]:>9}")
        if misses:
            out("")
            out(f"misses ({len(misses)}):")
            for miss in misses:
                expected = {"intent": miss["expected"]["intent"], **miss["expected"]["slots"]}
                out(f"  line {miss['line']}: {miss['text']}")
                out(f"    expected {json.dumps(expected, ensure_ascii=False)}")
                out(f"    got      {json.dumps(miss['got'], ensure_ascii=False)}")
