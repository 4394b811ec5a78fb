"""How fast an oversized tool argument is refused, against a normal small call of the same tool, same run.

    .venv/bin/python bench/tool_guard.py [--n 200]

Each case goes the way a model's call does: the argument text is parsed into a `ToolCall`
(`assistant.llm.messages.parse_tool_call`, which refuses an oversized text unparsed) and handed to the default
registry (`Tool.validate` bounds the arguments before anything runs). The baseline is a small `search_activities`
call that validates and runs its catalogue query on the benchmark database (seeded demo data); the refused cases
are a 200,000-character argument as text (refused at parsing) and as an already-parsed object (refused by the size
check of `Tool.validate`). On `main` before issue 11 such an argument held a request for 187 s.
"""

import argparse
import datetime as dt
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import setup_django, summary  # noqa: E402

HUGE = "大理" * 100_000  # 200,000 characters


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=200, help="calls of each kind (default 200)")
    args = parser.parse_args()
    setup_django()

    from django.contrib.auth import get_user_model

    from assistant.agent import default_registry
    from assistant.llm.messages import parse_tool_call
    from core.tools import ToolContext

    user, _ = get_user_model().objects.get_or_create(username="bench-tool-guard")
    context = ToolContext(user=user, today=dt.date.today(), request_text="大理有什么活动")
    registry = default_registry()

    def one(text: str) -> dict:
        call = parse_tool_call("c1", "search_activities", text)
        if call.arguments_error:
            return {"ok": False, "code": "INVALID_PARAM"}
        return registry.call(call.name, call.arguments, context, call_id=call.id)

    small = json.dumps({"keywords": ["大理"]}, ensure_ascii=False)
    huge = json.dumps({"keywords": [HUGE]}, ensure_ascii=False)
    cases = {
        "small call (baseline)": (lambda: one(small), "OK"),
        "200k chars as text": (lambda: one(huge), "INVALID_PARAM"),
        "200k chars parsed": (
            lambda: registry.call("search_activities", {"keywords": [HUGE]}, context),
            "INVALID_PARAM",
        ),
    }
    print(f"tool guard, n={args.n} each (refused = INVALID_PARAM before any query)")
    for name, (run, expected) in cases.items():
        timings = []
        for _ in range(args.n):
            started = time.perf_counter()
            envelope = run()
            timings.append(time.perf_counter() - started)
            assert envelope["code"] == expected, envelope
        print(summary(name, timings))


if __name__ == "__main__":
    main()
