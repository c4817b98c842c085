"""Project-wide checks: types, lint, and the purity of engine/."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from datetime import date
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ENGINE = ROOT / "engine"
FORBIDDEN = {"flask", "sqlmodel", "sqlalchemy", "apscheduler", "pbem"}
# Only the command line (python -m engine) may touch files, the terminal and the clock.
EDGE = {"cli.py", "__main__.py", "files.py"}
IMPURE = {"time", "datetime", "os", "sys", "io", "pathlib", "socket", "subprocess", "threading"}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("path", sorted(ENGINE.rglob("*.py")), ids=lambda p: str(p.relative_to(ENGINE)))
def test_engine_imports_no_framework(path: Path) -> None:
    assert not _imports(path) & FORBIDDEN


@pytest.mark.parametrize(
    "path", sorted(p for p in ENGINE.rglob("*.py") if p.name not in EDGE), ids=lambda p: str(p.relative_to(ENGINE))
)
def test_engine_core_has_no_io_clock_or_global_random(path: Path) -> None:
    assert not _imports(path) & IMPURE
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            assert node.func.id not in {"open", "print", "input"}, f"{path.name}:{node.lineno}"
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "random":
            assert node.attr == "Random", f"{path.name}:{node.lineno} uses the global random.{node.attr}"
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "hash":
            raise AssertionError(f"{path.name}:{node.lineno}: hash() depends on hash randomisation")


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, check=False)


def test_mypy_strict_on_engine() -> None:
    result = _run("mypy", "--strict", "engine")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_on_pbem() -> None:
    result = _run("mypy")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_check_and_format() -> None:
    check = _run("ruff", "check", ".")
    assert check.returncode == 0, check.stdout + check.stderr
    fmt = _run("ruff", "format", "--check", ".")
    assert fmt.returncode == 0, fmt.stdout + fmt.stderr


def test_readme_python_examples_run() -> None:
    text = (ROOT / "README.md").read_text()
    blocks = [b.split("```", 1)[0] for b in text.split("```python\n")[1:]]
    assert blocks, "the README shows how to use the engine"
    for block in blocks:
        exec(compile(block, "README.md", "exec"), {})


def test_documentation_links_resolve() -> None:
    """The README and docs/ link only to files of the project (never to the team's shared notes)."""
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")), *sorted(ENGINE.rglob("*.md"))]
    for page in pages:
        text = re.sub(r"`[^`]*`", "", page.read_text())  # code is not a link
        assert "../shared" not in text, page
        for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text):
            if "://" in target:
                continue
            assert (page.parent / target).exists(), f"{page.name} links to {target}, which is not there"


def test_import_contracts() -> None:
    """import-linter: the server's layers point down only, and the engine imports nothing of the server."""
    linter = Path(sys.executable).with_name("lint-imports")
    result = subprocess.run([str(linter), "--no-cache"], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout[-3000:]


ISO_DATE = re.compile(r"(?<![\d-])(\d{4})-(\d{2})-(\d{2})(?![\d])")


def test_tests_name_no_date_still_ahead() -> None:
    """A date written into a test that lies ahead will pass one day and turn the suite red on that day (as
    ``absent jusqu'au 2026-12-02`` did): freeze the clock (``timing.frozen``) at a past date, or build the date from
    ``timing.now()``."""
    today = date.today()
    ahead = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            for match in ISO_DATE.finditer(line):
                try:
                    day = date(*map(int, match.groups()))
                except ValueError:
                    continue
                if day >= today:
                    ahead.append(f"{path.relative_to(ROOT)}:{number} {match.group(0)}")
    assert not ahead, "dates still ahead in tests: " + ", ".join(ahead)


# What may read the wall clock itself: the clock, and the rate limiter's reset time (the limits library keeps its
# windows on the wall clock, so the seconds left are worked out on the same clock).
CLOCK_READERS = {"pbem/timing.py", "pbem/web/front.py", "pbem/web/admin/login.py", "pbem/scheduler/jobs.py"}


@pytest.mark.parametrize(
    "path",
    sorted(p for p in (ROOT / "pbem").rglob("*.py") if p.relative_to(ROOT).as_posix() not in CLOCK_READERS),
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_the_server_reads_time_from_timing_now_only(path: Path) -> None:
    """Every time in the server comes from ``timing.now()``, so that a test or the simulator can set the clock."""
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            called = f"{node.value.id}.{node.attr}"
            assert called not in {"datetime.now", "datetime.utcnow", "date.today", "time.time"}, (
                f"{path.name}:{node.lineno} reads the wall clock ({called}): use timing.now()"
            )
