"""The README and the documentation site: the site builds with --strict, every Python example runs as written,
the README stays a short front door, and the commands and flags the docs name exist."""

from __future__ import annotations

import contextlib
import importlib
import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
PAGES = sorted((ROOT / "docs").glob("*.md"))
DOCUMENTS = [README, *PAGES]

FENCE = re.compile(r"^```([\w-]*)([^\n]*)\n(.*?)^```[ \t]*$", re.M | re.S)
LINK = re.compile(r"\[[^\]\n]*\]\(([^)\s]+)\)")


def project_scripts() -> dict[str, str]:
    """pyproject.toml's [project.scripts]: command -> "module:function"."""
    table = re.search(r"^\[project\.scripts\]\n(.*?)(?=^\[|\Z)", (ROOT / "pyproject.toml").read_text(), re.M | re.S)
    return dict(re.findall(r'^([\w-]+)\s*=\s*"([^"]+)"', table.group(1), re.M))


def name(path: Path) -> str:
    return str(path.relative_to(ROOT))


def code_blocks(path: Path, language: str) -> list[tuple[int, str, str]]:
    """(first line number, the fence's words after the language, code) of each ```language block."""
    text = path.read_text()
    return [
        (text.count("\n", 0, m.start(3)) + 1, m.group(2), m.group(3))
        for m in FENCE.finditer(text)
        if m.group(1) == language
    ]


def runnable(path: Path) -> list[tuple[int, str]]:
    """The Python blocks that run; a block whose fence says `title="not run..."` is shown, not run."""
    return [(line, code) for line, info, code in code_blocks(path, "python") if "not run" not in info]


def slug(heading: str) -> str:
    """A heading's anchor, as GitHub and MkDocs make it for plain headings."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return re.sub(r"\s", "-", text)


# ------------------------------------------------------------------------------------------------- the site


def test_site_builds_strict(tmp_path):
    site = tmp_path / "site"
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    run = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-5000:]
    pages = {path.relative_to(site).as_posix(): path.read_text() for path in site.rglob("*.html")}
    for page in ["rules/index.html", "api/index.html", "results/index.html", "changelog/index.html"]:
        assert page in pages, f"{page} was not built"
    leftovers = [page for page, html in pages.items() if "<!-- table:" in html or "<!-- include:" in html]
    assert not leftovers, f"markers the hooks did not replace: {leftovers}"
    # the generated tables are in the pages (one row of each)
    assert re.search(r"<td><code>narwhal_includes_player</code></td>", pages["rules/index.html"])
    assert re.search(r"<td><code>w4_previous_color</code></td>", pages["api/index.html"])
    assert re.search(r"<td><code>challenge</code></td>", pages["api/index.html"])
    # every notebook is a page, rendered with its committed outputs (each draws a plot)
    for notebook in sorted((ROOT / "notebooks").glob("*.ipynb")):
        page = f"notebooks/{notebook.stem}/index.html"
        assert page in pages, f"{notebook.name} is not in the site"
        assert "data:image/png;base64" in pages[page], f"{notebook.name} is rendered without its outputs"
    assert (site / "classic-2p-learning-curve.png").is_file()


# ------------------------------------------------------------------------------------------------ examples


@pytest.mark.parametrize("path", [path for path in DOCUMENTS if runnable(path)], ids=name)
def test_python_examples_run(path, tmp_path, monkeypatch):
    """Every ```python block runs, a page's blocks in order in one namespace, in a scratch folder."""
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": "__docs__"}
    for line, code in runnable(path):
        exec(compile("\n" * (line - 1) + code, str(path), "exec"), namespace)


def test_blocks_not_run_are_few():
    skipped = [
        (name(path), line) for path in DOCUMENTS for line, info, _ in code_blocks(path, "python") if "not run" in info
    ]
    assert len(skipped) <= 1, f"make these examples runnable with small budgets: {skipped}"


# --------------------------------------------------------------------------------------------------- links


@pytest.mark.parametrize("path", DOCUMENTS, ids=name)
def test_relative_links_resolve_on_github(path):
    """A relative link names a file of the repository, and its #anchor a heading of that markdown file."""
    text = FENCE.sub("", path.read_text())
    broken = []
    for target in LINK.findall(text):
        if re.match(r"^[a-z][a-z0-9+.-]*:|^#", target):
            continue
        file, _, anchor = target.partition("#")
        linked = (path.parent / file).resolve()
        if not linked.exists():
            broken.append(target)
        elif anchor and linked.suffix == ".md":
            headings = re.findall(r"^#+ (.+)$", FENCE.sub("", linked.read_text()), re.M)
            if anchor not in {slug(heading) for heading in headings}:
                broken.append(target)
    assert not broken, f"{name(path)}: links to nothing: {broken}"


# ------------------------------------------------------------------------------------------ names and commands


@pytest.mark.parametrize("path", DOCUMENTS, ids=name)
def test_imports_use_the_namespace(path):
    """`agents` and `train` install as uno_env.agents and uno_env.train: no example may import them bare."""
    bare = re.findall(r"^\s*(?:from|import) (?:agents|train)\b.*|python (?:-m )?train[./]\S*", path.read_text(), re.M)
    assert not bare, f"{name(path)}: {bare}"


def documented_commands() -> dict[str, set[str]]:
    """Each `uno-*` command named in a bash block of the README or the docs, with every --flag given to it."""
    commands: dict[str, set[str]] = {}
    for path in DOCUMENTS:
        for _, _, code in code_blocks(path, "bash"):
            for line in code.replace("\\\n", " ").splitlines():
                line = line.split("#")[0]
                for part in re.split(r";|&&|\|", line):
                    words = part.split()
                    if words and words[0].startswith("uno-"):
                        commands.setdefault(words[0], set()).update(
                            w.split("=")[0] for w in words if w.startswith("--")
                        )
    return commands


def help_text(entry_point: str) -> str:
    """What `COMMAND --help` prints, from its entry point "module:function", run in this process."""
    module, function = entry_point.split(":")
    output = io.StringIO()
    with contextlib.redirect_stdout(output), contextlib.redirect_stderr(output):
        try:
            getattr(importlib.import_module(module), function)(["--help"])
        except SystemExit as exit:
            assert exit.code in (0, None), f"{entry_point} --help exited with {exit.code}:\n{output.getvalue()}"
    return output.getvalue()


def test_documented_commands_and_flags_exist(monkeypatch):
    """Every uno-* command the docs run is a [project.scripts] entry, and every flag they give it is in its --help."""
    monkeypatch.setenv("COLUMNS", "200")
    commands = documented_commands()
    assert {"uno-arena", "uno-play", "uno-train", "uno-train-sb3", "uno-train-rllib"} <= set(commands)
    scripts = project_scripts()
    unknown = sorted(set(commands) - set(scripts))
    assert not unknown, f"documented but not in pyproject's [project.scripts]: {unknown}"
    missing = []
    for command, flags in sorted(commands.items()):
        known = set(re.findall(r"--[a-z][a-z0-9-]*", help_text(scripts[command])))
        missing += [f"{command} {flag}" for flag in sorted(flags - known)]
    assert not missing, f"flags the docs use that the commands do not have: {missing}"
