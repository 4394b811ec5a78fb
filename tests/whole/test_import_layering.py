"""The layering contracts of `.importlinter` (run by the test command as `lint-imports`) bite: a lower app that
imports the assistant, or an LLM port that imports an app or DRF, breaks the check."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("config", "demo", "operations", "core", "assistant", "aftersale", "itinerary", "bookings")
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def _copy_project(tmp_path: Path) -> Path:
    copy = tmp_path / "project"
    copy.mkdir()
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "migrations")
    for package in PACKAGES:
        shutil.copytree(ROOT / package, copy / package, ignore=ignore)
    shutil.copy(ROOT / ".importlinter", copy / ".importlinter")
    return copy


def _lint(where: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"], cwd=where, capture_output=True, text=True, timeout=120, check=False
    )


@pytest.mark.parametrize(
    ("module", "source", "broken"),
    [
        (
            "bookings/leak.py",
            "from assistant.services import chat_turn  # noqa\n",
            "bookings is not allowed to import assistant",
        ),
        ("core/leak.py", "import bookings.models  # noqa\n", "core is not allowed to import bookings"),
        (
            "itinerary/leak.py",
            "from aftersale.models import BizOrder  # noqa\n",
            "itinerary is not allowed to import aftersale",
        ),
        ("bookings/leak.py", "from demo.users import DEMO_LOGINS  # noqa\n", "bookings is not allowed to import demo"),
        (
            "assistant/leak.py",
            "from operations.overview import operations_overview  # noqa\n",
            "assistant is not allowed to import operations",
        ),
        ("demo/leak.py", "import operations.views  # noqa\n", "demo is not allowed to import operations"),
        (
            "assistant/llm/leak.py",
            "from itinerary.selectors import activity_search  # noqa\n",
            "assistant.llm is not allowed to import itinerary",
        ),
        (
            "assistant/llm/leak.py",
            "from core.parsers import BoundedJSONParser  # noqa\n",
            "assistant.llm is not allowed to import rest_framework",
        ),
    ],
)
def test_an_import_against_the_layering_breaks_the_contracts(tmp_path, module, source, broken):
    project = _copy_project(tmp_path)
    assert _lint(project).returncode == 0, "the copied project itself keeps the contracts"

    (project / module).write_text(source, encoding="utf-8")
    result = _lint(project)

    assert result.returncode != 0
    assert broken in " ".join(result.stdout.split())


def test_every_part_of_the_assistant_outside_the_port_is_held_to_the_offline_adapter_contract():
    """The contract names its sources one by one (import-linter has no "all but"): a new module of the assistant
    must be added there, or it could import `assistant.llm.rules` unchecked."""
    import configparser

    config = configparser.ConfigParser()
    config.read(ROOT / ".importlinter")
    sources = set(config["importlinter:contract:offline-adapter"]["source_modules"].split())
    parts = {
        f"assistant.{path.stem}"
        for path in (ROOT / "assistant").iterdir()
        if (path.suffix == ".py" and path.stem != "__init__") or (path.is_dir() and (path / "__init__.py").exists())
    }
    parts -= {"assistant.llm", "assistant.migrations"}

    assert parts and parts <= sources, f"not held to the contract: {sorted(parts - sources)}"
