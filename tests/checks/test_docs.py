"""The README and the documentation site: the site builds with --strict, every Python example runs as written,
the README stays a short front door, and the commands and flags the docs name exist."""

from __future__ import annotations

import contextlib
import functools
import importlib
import importlib.util
import io
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml
from PIL import Image

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
PAGES = sorted((ROOT / "docs").glob("*.md"))
DOCUMENTS = [README, *PAGES]

FENCE = re.compile(r"^```([\w-]*)([^\n]*)\n(.*?)^```[ \t]*$", re.M | re.S)
CODE_WIDTH = 96  # the longest line a code block may have (see test_code_blocks_fit_the_page)
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"  # Debian's packages chromium, chromium-driver
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
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


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The site as `mkdocs build --strict` makes it (once for the module's tests): any warning fails it."""
    site = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    run = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-5000:]
    return site


def built_pages(site: Path) -> dict[str, str]:
    return {path.relative_to(site).as_posix(): path.read_text() for path in site.rglob("*.html")}


def test_site_builds_strict(site):
    pages = built_pages(site)
    for page in ["rules/index.html", "api/index.html", "results/index.html", "changelog/index.html"]:
        assert page in pages, f"{page} was not built"
    leftovers = [page for page, html in pages.items() if re.search(r"<!-- (table|include|picture):", html)]
    assert not leftovers, f"markers the hooks did not replace: {leftovers}"
    # the generated tables are in the pages (one row of each)
    assert re.search(r"<td><code>narwhal_includes_player</code></td>", pages["rules/index.html"])
    assert re.search(r"<td><code>w4_previous_color</code></td>", pages["api/index.html"])
    assert re.search(r"<td><code>challenge</code></td>", pages["api/index.html"])
    # the API page opens with the environment cards; the results tables are filled in from their file
    api = pages["api/index.html"]
    assert api.index("<code>UnoVectorEnv</code>") < api.index('id="how-it-is-built"') and "Observation length" in api
    assert "<!-- results:" not in pages["results/index.html"] and "<th>vs counter</th>" in pages["results/index.html"]
    # every notebook is a page, rendered with its committed outputs (each draws a plot)
    for notebook in sorted((ROOT / "notebooks").glob("*.ipynb")):
        page = f"notebooks/{notebook.stem}/index.html"
        assert page in pages, f"{notebook.name} is not in the site"
        assert "data:image/png;base64" in pages[page], f"{notebook.name} is rendered without its outputs"
    assert (site / "classic-2p-learning-curve.png").is_file()


# ----------------------------------------------------------------------------------------------- the pictures


@functools.cache
def pictures_module():
    """scripts/make_pictures.py, the code docs/hooks.py draws the site's pictures with."""
    spec = importlib.util.spec_from_file_location("make_pictures", ROOT / "scripts" / "make_pictures.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look the module up
    spec.loader.exec_module(module)
    return module


def picture_markers() -> dict[str, str]:
    """Each `<!-- picture:NAME -->` of the docs pages: {name: the page's file name}."""
    return {
        name: page.name
        for page in PAGES
        for name in re.findall(r"^<!-- picture:([a-z-]+) -->[ \t]*$", page.read_text(), re.M)
    }


def test_the_build_draws_every_picture(site):
    """Every picture the pages ask for is drawn by the build into pictures/, a real image shown on its page; none
    is committed in docs/."""
    pictures = pictures_module()
    markers = picture_markers()
    assert set(markers) == set(pictures.MARKERS), f"pictures no page shows: {set(pictures.MARKERS) - set(markers)}"
    assert {"index.md", "rules.md", "tournaments.md", "training.md"} <= set(markers.values())
    pages = built_pages(site)
    for name, page in markers.items():
        html = pages["index.html" if page == "index.md" else f"{page[:-3]}/index.html"]
        for item in pictures.MARKERS[name][0]:
            path = site / "pictures" / item.file
            assert path.is_file(), f"the build drew no {item.file}"
            assert not (ROOT / "docs" / item.file).exists(), f"docs/{item.file}: the build draws it, do not commit it"
            with Image.open(path) as image:
                image.verify()
            assert re.search(rf'<img [^>]*src="(\.\./)?pictures/{re.escape(item.file)}"', html), (
                f"{page} does not show {item.file}"
            )
    assert "Made when the site is built by `uno-arena" in pictures.markdown("tournament")


def test_the_gallery_shows_every_preset(site):
    """The rules page has a tab per preset with its deck: every colour row in the preset's colours, and one wild
    card for each kind of wild card in its deck (read off the pixels)."""
    from uno_env.faces import COLOR_FACES, WILD_COLOR
    from uno_env.picture import BACKGROUND
    from uno_env.rules import VARIANTS, make_rules

    pictures = pictures_module()
    html = built_pages(site)["rules/index.html"]
    tabs = re.findall(r'<label for="__tabbed_\d+_\d+">([^<]+)</label>', html)
    assert tabs == list(VARIANTS), tabs
    step = pictures.CARD_H + pictures.LABEL + pictures.GAP
    for variant in VARIANTS:
        rules = make_rules(variant)
        wilds = sum(1 for code in rules.card_counts_by_code() if code.startswith("W"))
        with Image.open(site / "pictures" / f"cards-{variant}.png") as image:
            pixels = np.asarray(image.convert("RGB"))

        def colour(pixels: np.ndarray, row: int, column: int) -> tuple[int, ...]:
            """The colour of the card face at a place of the grid, just under its top edge."""
            x = pictures.MARGIN + column * (pictures.CARD_W + pictures.GAP) + pictures.CARD_W // 2
            y = pictures.HEADER + pictures.MARGIN + row * step + 6
            return tuple(int(v) for v in pixels[y, x])

        for row, name in enumerate(rules.colors):
            row_colours = [colour(pixels, row, c) for c in range(13)]
            assert row_colours == [COLOR_FACES[name].rgb] * 13, f"{variant}: the {name} row"
        last_row = [colour(pixels, 4, c) for c in range(13)]
        assert last_row == [WILD_COLOR.rgb] * wilds + [BACKGROUND] * (13 - wilds), f"{variant}: {wilds} wild cards"


def test_the_game_gif_loops(site):
    """The home page's game: a looping GIF of many pictures, the winner held at the end, and the README's copy
    is exactly what the build draws."""
    pictures = pictures_module()
    gif = site / "pictures" / "unocorns-game.gif"
    with Image.open(gif) as image:
        assert image.format == "GIF" and image.info.get("loop") == 0, "the GIF must loop forever"
        frames = image.n_frames
        assert frames >= 20, f"only {frames} frames"
        first, first_duration = np.asarray(image.convert("RGB")), image.info["duration"]
        image.seek(frames - 1)
        last, last_duration = np.asarray(image.convert("RGB")), image.info["duration"]
    # a GIF counts time in hundredths of a second
    assert abs(first_duration - 1000 / pictures.GAME_FPS) <= 10, first_duration
    assert abs(last_duration - pictures.GAME_HOLD * 1000 / pictures.GAME_FPS) <= 10, last_duration
    assert first.shape == last.shape and (first != last).any()
    assert pictures.README_GIF.read_bytes() == gif.read_bytes(), (
        "the README's GIF is not what the build draws: run python scripts/make_pictures.py"
    )
    assert f"]({pictures.README_GIF.relative_to(ROOT).as_posix()})" in README.read_text()


# ------------------------------------------------------------------------------------- code blocks and tables


def test_code_blocks_fit_the_page():
    """No line of a code block is longer than CODE_WIDTH characters: in a 1400-pixel window the site's code blocks
    hold that many (docs/extra.css; test_pages_fit_a_window checks it in Chromium). Long comments go on their
    own line."""
    long = sorted(
        (name(path), line + k, len(text))
        for path in DOCUMENTS
        for language in {m.group(1) for m in FENCE.finditer(path.read_text())}
        for line, _, code in code_blocks(path, language)
        for k, text in enumerate(code.splitlines())
        if len(text) > CODE_WIDTH
    )
    long = [f"{path}:{line} ({length} characters)" for path, line, length in long]
    assert not long, f"code lines longer than {CODE_WIDTH} characters: {long}"


def test_pages_fit_a_window(site):
    """In headless Chromium, 1400 pixels wide: no code block scrolls sideways, and nothing makes the page wider
    than the window (a wide table scrolls inside its own box)."""
    missing = [path for path in (CHROMIUM, CHROMEDRIVER) if not Path(path).is_file()]
    if missing:
        pytest.fail(f"this test needs Chromium and chromedriver ({', '.join(missing)} missing): run scripts/setup.sh")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        options.add_argument(flag)
    options.add_argument("--window-size=1400,900")
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(30)
    overflowing, wide = [], []
    try:
        for page in sorted(site.rglob("index.html")):
            if page.parent.name in {"404", "search"} or "notebooks" in page.parts:
                continue
            driver.get(page.as_uri())
            width = driver.execute_script("return window.innerWidth")
            assert width >= 1380, f"the window is {width} pixels wide"
            where = page.parent.relative_to(site).as_posix() or "home"
            overflowing += [
                f"{where}: {text}"
                for text in driver.execute_script(
                    "return [...document.querySelectorAll('.md-content pre > code')]"
                    ".filter(code => code.scrollWidth > code.clientWidth + 1)"
                    ".map(code => code.textContent.split('\\n')[0].slice(0, 60))"
                )
            ]
            if driver.execute_script("return document.documentElement.scrollWidth") > width:
                wide.append(where)
    finally:
        driver.quit()
    assert not overflowing, f"code blocks that scroll sideways at 1400 pixels: {overflowing}"
    assert not wide, f"pages wider than a 1400-pixel window: {wide}"


# ------------------------------------------------------------------------------ the menu and the repository


def mkdocs_config() -> dict:
    return yaml.safe_load((ROOT / "mkdocs.yml").read_text())


def test_menu_in_sections_with_the_repository():
    """After Home the menu is a few sections; the header links the repository and each page its neighbours."""
    config = mkdocs_config()
    nav = config["nav"]
    assert nav[0] == {"Home": "index.md"}
    sections = {title: pages for entry in nav[1:] for title, pages in entry.items()}
    assert all(isinstance(pages, list) and pages for pages in sections.values()), f"not sections: {nav[1:]}"
    assert len(sections) <= 6, f"{len(sections)} sections"
    assert re.fullmatch(r"https://github\.com/[\w.-]+/[\w.-]+", config["repo_url"])
    assert config["site_url"].startswith("https://") and config["site_url"].endswith("/")
    assert "navigation.footer" in config["theme"]["features"]


def test_picture_markers_are_checked():
    """A page that asks for a picture the script does not draw stops the build with the names that exist."""
    from mkdocs.exceptions import PluginError

    spec = importlib.util.spec_from_file_location("uno_env_docs_hooks", ROOT / "docs" / "hooks.py")
    hooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hooks)
    with pytest.raises(PluginError, match="the pictures are game, cards"):
        hooks.picture("gmae", "")


def test_readme_links_to_the_site(site):
    """The README's links to the documentation go to the published site (where the generated tables and the
    pictures are), each to a page, and heading, that the build makes."""
    site_url = mkdocs_config()["site_url"]
    targets = LINK.findall(README.read_text())
    to_site = [target for target in targets if target.startswith(site_url)]
    assert len(to_site) >= 15, to_site
    missing = []
    for target in to_site:
        path, _, anchor = target[len(site_url) :].partition("#")
        page = site / path / "index.html"
        if not page.is_file() or (anchor and f'id="{anchor}"' not in page.read_text()):
            missing.append(target)
    assert not missing, f"README links to nothing on the site: {missing}"
    to_markdown = [target for target in targets if re.match(r"docs/.+\.md", target) and target != "docs/index.md"]
    assert not to_markdown, f"link these to the site, where the generated tables show: {to_markdown}"


def test_license_citation_and_badges():
    config = mkdocs_config()
    pyproject = (ROOT / "pyproject.toml").read_text()
    version = re.search(r'^version = "([^"]+)"', pyproject, re.M).group(1)
    assert 'license = { text = "MIT" }' in pyproject
    license = (ROOT / "LICENSE").read_text()
    assert license.startswith("MIT License") and "Copyright (c) 2026 the uno-env authors" in license
    citation = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    assert citation["cff-version"] == "1.2.0" and citation["type"] == "software" and citation["license"] == "MIT"
    assert citation["version"] == version, "CITATION.cff's version is not pyproject.toml's"
    assert (citation["repository-code"], citation["url"]) == (config["repo_url"], config["site_url"])
    badges = re.findall(r"^\[!\[([^\]]+)\]\(([^)\s]+)\)\]\(([^)\s]+)\)$", README.read_text(), re.M)
    assert [label.split(":")[0] for label, _, _ in badges] == ["tests", "docs", "license", "python"], badges
    for label, image, _ in badges:
        workflow = re.search(r"/actions/workflows/([\w-]+\.yml)/badge\.svg$", image)
        if workflow:
            assert image.startswith(config["repo_url"]), image
            assert (ROOT / ".github" / "workflows" / workflow.group(1)).is_file(), f"the {label} badge's workflow"
    python = re.search(r'^requires-python = ">=([\d.]+)"', pyproject, re.M).group(1)
    assert f"python-{python}%2B" in badges[3][1], "the python badge says what pyproject.toml requires"


def test_docs_workflow_builds_strict_and_deploys():
    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "docs.yml").read_text())
    steps = [step for job in workflow["jobs"].values() for step in job.get("steps", [])]
    runs = "\n".join(step.get("run", "") for step in steps)
    assert "mkdocs build --strict" in runs
    assert '".[docs,train]"' in runs, "the learning curve needs the train extra"
    uses = {step.get("uses", "").partition("@")[0] for step in steps}
    assert {"actions/checkout", "actions/upload-pages-artifact", "actions/deploy-pages"} <= uses
    assert workflow["jobs"]["deploy"]["permissions"] == {"pages": "write", "id-token": "write"}


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
