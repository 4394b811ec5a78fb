"""How long the offline engine takes to read one sentence, against the engine of another revision, same run.

    .venv/bin/python bench/understanding.py [--baseline REV] [--rounds 3]

The sentences are every labelled utterance of the repository (tests/assistant/eval/*.jsonl and the shared dev set),
read as a chat turn reads them: with the catalogue's places in the context (the benchmark database, seeded demo
data). Each engine reads them all once to warm up, then `--rounds` times, one sentence at a time; the figures are
per sentence. The baseline is the engine of `--baseline` (default: the revision before issue 14's rework), checked
out in a temporary git worktree and measured in a child process of the same Python, on the same machine, in the
same run, so the ratio holds however loaded the machine is.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import ROOT, summary  # noqa: E402

BEFORE_ISSUE_14 = "90c21c9"  # "Screenshots retaken by the last browser test run", the commit before the rework


def sentences() -> list[str]:
    files = sorted((ROOT / "tests" / "assistant" / "eval").glob("*.jsonl"))
    dev = ROOT.parent / "shared" / "eval" / "intents-dev.jsonl"
    files += [dev] if dev.exists() else []
    return [json.loads(line)["text"] for path in files for line in path.read_text("utf-8").splitlines() if line]


def measure(texts: list[str], rounds: int) -> list[float]:
    """Seconds per sentence with this checkout's engine (Django set up on the benchmark database)."""
    import datetime as dt

    from assistant.llm.factory import get_llm_port
    from assistant.llm.port import UnderstandContext
    from assistant.selectors import catalogue_places

    port = get_llm_port("rules")
    context = UnderstandContext(today=dt.date(2026, 12, 1), places=catalogue_places())
    for text in texts:  # warm-up: tables, gazetteers, caches
        port.understand(text, context=context)
    times = []
    for _ in range(rounds):
        for text in texts:
            started = time.perf_counter()
            port.understand(text, context=context)
            times.append(time.perf_counter() - started)
    return times


def child(texts_file: str, rounds: int) -> None:
    """Run inside a checkout: set up Django there, measure, print the seconds as JSON."""
    from bench.common import setup_django

    setup_django()
    texts = json.loads(Path(texts_file).read_text("utf-8"))
    print(json.dumps(measure(texts, rounds)))


def baseline(revision: str, texts_file: str, rounds: int) -> list[float]:
    with tempfile.TemporaryDirectory(prefix="tripdesk-bench-") as tree:
        subprocess.run(
            ["git", "worktree", "add", "--detach", tree, revision], cwd=ROOT, check=True, capture_output=True
        )
        try:
            (Path(tree) / "bench" / "understanding.py").write_text(Path(__file__).read_text("utf-8"), "utf-8")
            done = subprocess.run(
                [sys.executable, "bench/understanding.py", "--child", texts_file, "--rounds", str(rounds)],
                cwd=tree,
                check=True,
                capture_output=True,
                text=True,
                env={**os.environ, "PYTHONPATH": tree},
            )
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", tree], cwd=ROOT, check=False, capture_output=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--baseline", default=BEFORE_ISSUE_14, help="the revision to compare with")
    parser.add_argument("--rounds", type=int, default=3, help="readings of every sentence (default 3)")
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.rounds)
        return
    texts = sentences()
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False, encoding="utf-8") as handle:
        json.dump(texts, handle, ensure_ascii=False)
    try:
        before = baseline(args.baseline, handle.name, args.rounds)
        now = json.loads(
            subprocess.run(
                [sys.executable, __file__, "--child", handle.name, "--rounds", str(args.rounds)],
                check=True,
                capture_output=True,
                text=True,
            )
            .stdout.strip()
            .splitlines()[-1]
        )
    finally:
        os.unlink(handle.name)
    print(f"{len(texts)} sentences × {args.rounds} rounds, one at a time, catalogue places in the context")
    print(summary(f"baseline {args.baseline}", before))
    print(summary("this checkout", now))
    print(f"mean ratio (this / baseline): {sum(now) / len(now) / (sum(before) / len(before)):.2f}")


if __name__ == "__main__":
    main()
