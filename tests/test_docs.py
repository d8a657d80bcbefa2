"""The docs as a user meets them: every Python snippet runs, every command line parses with the options it names, every library name resolves."""

from __future__ import annotations

import importlib
import os
import re
import shlex
import subprocess
import sys

import click
import pytest
from conftest import HANG, REPO_ROOT

from fcanalyze.cli.main import cli

DOCS = [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.MULTILINE | re.DOTALL)


def blocks(language: set[str]) -> list[tuple[str, int, str]]:
    """(doc, block number, text) of every fenced block in one of `language`."""
    found = []
    for doc in DOCS:
        for i, m in enumerate(FENCE.finditer(doc.read_text(encoding="utf-8"))):
            if m.group(1) in language:
                found.append((doc.name, i, m.group(2)))
    return found


PYTHON = blocks({"python"})


@pytest.mark.parametrize("doc,number,code", PYTHON, ids=[f"{d}#{n}" for d, n, _ in PYTHON])
def test_every_python_snippet_runs(doc, number, code, tmp_path):
    """As a user runs it: pasted whole into a fresh interpreter, in an empty directory
    outside the clone, so that the installed package answers and no snippet leans on
    files another one (or the test) made."""
    if "scheduler=" in code:
        pytest.importorskip("distributed", reason="the snippet runs a Dask cluster: the dask extra")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=HANG)
    assert done.returncode == 0, f"{doc} block {number}: {done.stderr.strip().splitlines()[-3:]}"


def test_a_sweep_given_a_flag_for_progress_says_it_wants_a_function(tmp_path):
    from fcanalyze.errors import FcanalyzeError
    from fcanalyze.sweep import sweep

    with pytest.raises(FcanalyzeError, match="progress must be a function"):
        sweep("1-2", cells=[4], out=tmp_path / "rows", progress=True)
    assert not (tmp_path / "rows").exists()


def command_lines() -> list[tuple[str, str]]:
    """(doc, command) for every `fcanalyze ...` command in the docs' shell blocks."""
    found = []
    for doc, _, text in blocks({"console", "sh", "shell", "bash"}):
        for line in text.splitlines():
            line = line.strip().removeprefix("$ ")
            # A comment starts at ` #` (a `#` inside a word, as in a URL, is no comment).
            line = re.split(r"\s#", line, maxsplit=1)[0]
            for part in re.split(r"&&|\||;", line):
                part = re.split(r"\s[0-9]?[<>]", part, maxsplit=1)[0]  # a redirection is the shell's
                words = shlex.split(part)
                if words[:1] == ["fcanalyze"]:
                    found.append((doc, part.strip()))
    return found


COMMANDS = command_lines()


@pytest.mark.parametrize("doc,command", COMMANDS, ids=[f"{d}: {c[:60]}" for d, c in COMMANDS])
def test_every_command_in_the_docs_exists_with_its_options(doc, command):
    words = shlex.split(command)[1:]
    name, args = words[0], words[1:]
    assert name in cli.commands, f"{doc}: no command {name!r}"
    # Parsing checks every option's name and value, and runs nothing.
    try:
        cli.commands[name].make_context(name, [os.path.expanduser(a) for a in args])
    except click.exceptions.Exit:  # --help
        pass
    except click.UsageError as e:
        pytest.fail(f"{doc}: {command}: {e.format_message()}")


NAMES = sorted(
    {
        (doc.name, name)
        for doc in DOCS
        for name in re.findall(r"\bfcanalyze(?:\.[A-Za-z_]\w*)+", doc.read_text(encoding="utf-8"))
    }
)


@pytest.mark.parametrize("doc,name", NAMES, ids=[f"{d}: {n}" for d, n in NAMES])
def test_every_library_name_in_the_docs_is_the_librarys(doc, name):
    # As a user types it after a plain `import fcanalyze`: attribute by attribute.
    found = importlib.import_module("fcanalyze")
    for attribute in name.split(".")[1:]:
        assert hasattr(found, attribute), f"{doc} names {name}: fcanalyze has no {attribute} there"
        found = getattr(found, attribute)


IMPORTS = sorted(
    {
        (doc, line.strip())
        for doc, _, code in PYTHON
        for line in code.splitlines()
        if re.match(r"\s*(from fcanalyze\S* import |import fcanalyze)", line)
    }
)


@pytest.mark.parametrize("doc,line", IMPORTS, ids=[f"{d}: {x}" for d, x in IMPORTS])
def test_every_import_in_the_docs_works_in_a_fresh_interpreter(doc, line, tmp_path):
    # Outside the clone, so that it is the installed package that answers.
    done = subprocess.run([sys.executable, "-c", line], capture_output=True, text=True, cwd=tmp_path, timeout=HANG)
    assert done.returncode == 0, f"{doc}: {line}: {done.stderr.strip().splitlines()[-1:]}"


@pytest.mark.parametrize("doc,line", IMPORTS, ids=[f"{d}: {x}" for d, x in IMPORTS])
def test_every_import_in_the_docs_works_without_pyarrow_pandas_or_numpy(doc, line, tmp_path):
    # Importing a documented name costs none of the heavy dependencies: they are needed
    # when it is used, and an installation without them can still import the package.
    blocked = "import sys\nfor m in ('pyarrow', 'pandas', 'numpy'):\n    sys.modules[m] = None\n"
    done = subprocess.run(
        [sys.executable, "-c", blocked + line], capture_output=True, text=True, cwd=tmp_path, timeout=HANG
    )
    assert done.returncode == 0, f"{doc}: {line}: {done.stderr.strip().splitlines()[-1:]}"


def test_the_docs_have_snippets_and_commands_to_check():
    assert len(PYTHON) >= 3 and len(COMMANDS) >= 40 and len(NAMES) >= 5
