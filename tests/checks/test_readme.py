"""The README is the front door: short, the two quickstart commands, three examples, a link to every docs page.
(Its Python examples run in tests/checks/test_docs.py, with the docs pages'.)"""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
MAX_LINES = 200
QUICKSTART_COMMANDS = ["bash scripts/run.sh", "bash scripts/test.sh"]
FENCE = re.compile(r"^```([\w-]*)[^\n]*\n(.*?)^```[ \t]*$", re.M | re.S)
LINK = re.compile(r"\[[^\]\n]*\]\(([^)\s]+)\)")


def section(text: str, heading: str) -> str:
    """The text under a `## heading`, up to the next heading of level 1 or 2."""
    match = re.search(rf"^## {re.escape(heading)}[ \t]*\n(.*?)(?=^#{{1,2}} |\Z)", text, re.M | re.S)
    assert match, f"no '## {heading}' section"
    return match.group(1)


def test_readme_is_short():
    lines = README.read_text().splitlines()
    assert len(lines) <= MAX_LINES, f"README.md has {len(lines)} lines (at most {MAX_LINES}): move detail to docs/"


def test_quickstart_is_the_two_commands():
    quickstart = section(README.read_text(), "Quickstart")
    commands = [
        line.split("#")[0].strip()
        for match in FENCE.finditer(quickstart)
        for line in match.group(2).splitlines()
        if line.split("#")[0].strip()
    ]
    assert commands == QUICKSTART_COMMANDS
    inline = [
        code for code in re.findall(r"`([^`\n]+)`", quickstart) if re.match(r"(bash |pip |python |\.venv/|uno-)", code)
    ]
    assert not inline, f"the Quickstart names other commands: {inline}"
    for command in commands:
        assert (ROOT / command.split()[1]).is_file(), command


def test_three_examples():
    blocks = [code for language, code in FENCE.findall(README.read_text()) if language == "python"]
    assert len(blocks) == 3
    assert any("uno_env.env(" in code for code in blocks), "an example of the PettingZoo env"
    assert any("UnoVectorEnv(" in code for code in blocks), "an example of the vector env"
    assert any("run_tournament(" in code for code in blocks), "an example of a tournament"


def site_url() -> str:
    """mkdocs.yml's site_url: where the site is published (the README links to its pages there)."""
    return re.search(r"^site_url:\s*(\S+)", (ROOT / "mkdocs.yml").read_text(), re.M).group(1)


def linked_file(target: str) -> Path:
    """The repository file a README link shows: a relative link's file, or the docs page of a link to the site
    (`SITE/rules/#options` is docs/rules.md; `SITE/` docs/index.md)."""
    path = target.partition("#")[0]
    if path.startswith(site_url()):
        page = path[len(site_url()) :].strip("/")
        return (ROOT / "docs" / f"{page or 'index'}.md").resolve()
    return (ROOT / path).resolve()


def test_links_to_every_docs_page():
    linked = {linked_file(target) for target in LINK.findall(README.read_text())}
    pages = sorted((ROOT / "docs").glob("*.md"))
    missing = [page.name for page in pages if page.resolve() not in linked and page.name != "changelog.md"]
    assert not missing, f"README.md links to no docs/{missing}"
