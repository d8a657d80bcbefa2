"""CONTRIBUTING.md's Layout section names every module of the package and the engine, every script and every doc, so that a newcomer's map stays true."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def layout_section() -> str:
    readme = (REPO / "CONTRIBUTING.md").read_text()
    return re.search(r"^## Layout\n(.*?)(?=^## |\Z)", readme, re.S | re.M).group(1)


def test_the_readme_layout_names_every_module_script_and_doc():
    layout = layout_section()
    named = set(re.findall(r"`([^`]+)`", layout))
    files = [
        *(REPO / "fcanalyze").rglob("*.py"),
        *(REPO / "fcanalyze").glob("*.pyi"),
        *(REPO / "engine" / "src").rglob("*.rs"),
        *(REPO / "engine" / "examples").glob("*.rs"),
        *(REPO / "scripts").glob("*.py"),
        *(REPO / "docs").glob("*.md"),
    ]
    missing = []
    for path in files:
        if path.name == "__init__.py":
            continue
        # A file is named by its name, its folder's files by the folder ("spill/").
        if not any(path.name == n or n.endswith("/" + path.name) for n in named):
            missing.append(str(path.relative_to(REPO)))
        folder = path.parent
        if folder.name not in ("fcanalyze", "src", "examples", "scripts", "docs") and not any(
            n.startswith(f"{folder.name}/") for n in named
        ):
            missing.append(str(folder.relative_to(REPO)) + "/")
    assert not missing, f"CONTRIBUTING.md's Layout does not name: {', '.join(sorted(set(missing)))}"


def test_every_source_file_opens_with_its_purpose_and_stays_readable():
    sources = [
        *(REPO / "fcanalyze").rglob("*.py"),
        *(REPO / "engine" / "src").rglob("*.rs"),
        *(REPO / "engine" / "examples").glob("*.rs"),
        *(REPO / "scripts").glob("*.py"),
        *(REPO / "tests").rglob("*.py"),
    ]
    unexplained, long = [], []
    for path in sources:
        text = path.read_text()
        first = text.lstrip().splitlines()[0] if text.strip() else ""
        if not (first.startswith(('"""', "//!")) and len(first.strip('"/! ')) > 10):
            unexplained.append(str(path.relative_to(REPO)))
        if text.count("\n") > 800:
            long.append(f"{path.relative_to(REPO)} ({text.count(chr(10))} lines)")
    assert not unexplained, f"no one-line purpose at the top of: {', '.join(unexplained)}"
    assert not long, f"over 800 lines: {', '.join(long)}"
