"""MkDocs hooks for the documentation site (mkdocs.yml: `hooks: [docs/hooks.py]`).

Five jobs, so that the pages in docs/ read well on GitHub and build into a site with nothing copied by hand:

* Tables generated from the code. A page marks where a table goes with `<!-- table:options -->`,
  `<!-- table:actions -->`, `<!-- table:observation -->`, `<!-- table:recipes -->` or
  `<!-- table:environments -->`; the hook puts there the markdown that `uno_env.rules.options_markdown()`,
  `uno_env.actions.actions_markdown()`, `uno_env.observation.fields_markdown()`,
  `uno_env.train.recipes.recipes_markdown()` and `scripts/env_cards.py`'s `cards_markdown()` return, so the docs
  cannot drift from the code.
* The notebooks. They live in notebooks/ at the repository root, outside docs/; the hook adds each one to
  the site as `notebooks/<name>.ipynb` (mkdocs-jupyter renders it with its committed outputs), and turns a
  page's link `../notebooks/<name>.ipynb` (right on GitHub) into a link to that page of the site.
* The changelog. docs/changelog.md holds `<!-- include:CHANGELOG.md -->` ... `<!-- /include -->`: on GitHub
  the lines between say where the changelog is; on the site they are replaced by CHANGELOG.md itself.
* The results. The shipped policies' figures live in one file, benchmarks/results/shipped_policies.json; a page
  holds their tables between `<!-- results:NAME -->` and `<!-- /results -->` (committed, so that GitHub shows
  them), and the hook fills each block in again from that file with `scripts/results_tables.py`. A README whose
  committed blocks are not what the file makes stops a --strict build (run `python scripts/results_tables.py`).
* The pictures. A page marks where one goes with `<!-- picture:NAME -->` (game, cards, tournament,
  learning-curve); `scripts/make_pictures.py` draws them with the project's own code on every build, the hook
  adds them to the site as `pictures/<file>` and puts the image (or the tabs of several) with its caption
  there. Nothing of it is committed, and on GitHub the marker shows nothing.

Any other link from a page to a file outside docs/ (a source file, say) becomes plain text on the site, which
has no copy of it.
"""

from __future__ import annotations

import importlib
import importlib.util
import logging
import posixpath
import re
import sys
import time
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files

log = logging.getLogger("mkdocs.hooks.uno_env")

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = "notebooks"

# marker name -> (module, function) returning a GitHub-style markdown table
TABLES = {
    "options": ("uno_env.rules", "options_markdown"),
    "actions": ("uno_env.actions", "actions_markdown"),
    "observation": ("uno_env.observation", "fields_markdown"),
    "recipes": ("uno_env.train.recipes", "recipes_markdown"),
}
# marker name -> (script in scripts/, function) for the tables a repository script makes
SCRIPT_TABLES = {"environments": ("env_cards.py", "cards_markdown")}
TABLE_MARKER = re.compile(r"^<!-- table:([a-z_]+) -->[ \t]*$", re.M)
PICTURE_MARKER = re.compile(r"^<!-- picture:([a-z-]+) -->[ \t]*$", re.M)
PICTURES = "pictures"  # the site's folder of drawn pictures
INCLUDE = re.compile(r"^<!-- include:(\S+) -->[ \t]*\n.*?^<!-- /include -->[ \t]*$", re.M | re.S)
LINK = re.compile(r"(!?\[[^\]]*\])\(([^)\s]+)\)")  # link text may span lines
FENCE = re.compile(r"^(```|~~~).*?^\1[ \t]*$", re.M | re.S)

# repository files that the site has under another name
SITE_NAMES = {"README.md": "index.md", "CHANGELOG.md": "changelog.md"}


def table(name: str) -> str:
    """The generated markdown table for a marker name; a missing table or function stops the build."""
    if name in SCRIPT_TABLES:
        file, function_name = SCRIPT_TABLES[name]
        module_name = f"scripts/{file}"
        function = getattr(script_module(f"uno_env_docs_{file[:-3]}", file), function_name, None)
    elif name in TABLES:
        module_name, function_name = TABLES[name]
        function = getattr(importlib.import_module(module_name), function_name, None)
    else:
        raise PluginError(f"unknown table marker <!-- table:{name} -->; the tables are "
                          f"{', '.join([*TABLES, *SCRIPT_TABLES])}")  # fmt: skip
    if function is None:
        raise PluginError(f"<!-- table:{name} --> needs {module_name}.{function_name}(), which does not exist")
    return function().strip()


def script_module(name: str, file: str):
    """A script of the repository (scripts/FILE), loaded once as a module named `name`."""
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / file)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # dataclasses look their module up while the module runs
        spec.loader.exec_module(module)
    return sys.modules[name]


def pictures_module():
    """scripts/make_pictures.py, which draws the pictures (a script of the repository, not an installed module)."""
    return script_module("uno_env_docs_pictures", "make_pictures.py")


def results_module():
    """scripts/results_tables.py, which makes the results tables from the results file."""
    return script_module("uno_env_docs_results", "results_tables.py")


def fill_results(markdown: str, results: Path | None = None) -> str:
    """`markdown` with its results blocks made from the results file (`results`, by default the committed one); a
    broken file or an unknown block stops the build."""
    tables = results_module()
    try:
        return tables.filled(markdown, tables.load(results or tables.RESULTS))
    except tables.ResultsError as error:
        raise PluginError(str(error)) from None


def on_pre_build(config) -> None:
    """The README is not a page of the site, so its committed blocks are checked here: stale ones fail --strict."""
    tables = results_module()
    try:
        stale = tables.stale(tables.load(), [ROOT / "README.md"])
    except tables.ResultsError as error:
        raise PluginError(str(error)) from None
    if stale:
        log.warning("README.md's results tables are not what %s makes: run python scripts/results_tables.py",
                    tables.RESULTS.relative_to(ROOT))


# marker -> why its pictures could not be drawn (shown on its page; the warning fails a --strict build)
UNDRAWN: dict[str, str] = {}


def add_pictures(files: Files, config) -> None:
    """Draw every marker's pictures and add them to the site's files as pictures/<file>."""
    pictures = pictures_module()
    UNDRAWN.clear()
    for marker in pictures.MARKERS:
        started = time.perf_counter()
        try:
            made = pictures.drawn(marker)
        except Exception as error:  # a missing extra (the learning curve needs torch), a failed command
            UNDRAWN[marker] = str(error).strip().splitlines()[-1] if str(error).strip() else type(error).__name__
            log.warning("the picture %r was not drawn: %s", marker, UNDRAWN[marker])
            continue
        for file, content in made.items():
            files.append(File.generated(config, f"{PICTURES}/{file}", content=content))
        log.info("the picture %r: %.1f s", marker, time.perf_counter() - started)


@event_priority(100)  # before mkdocs-jupyter's on_files, which picks the notebooks out of the files
def on_files(files: Files, config) -> Files:
    """Add notebooks/*.ipynb to the site as notebooks/<name>.ipynb, and the drawn pictures.

    Each notebook is a File whose source folder is the repository root rather than docs/ (mkdocs-jupyter's
    wrapper finds a File.generated one's path as None)."""
    for path in sorted((ROOT / NOTEBOOKS).glob("*.ipynb")):
        uri = f"{NOTEBOOKS}/{path.name}"
        files.append(
            File(uri, src_dir=str(ROOT), dest_dir=config.site_dir, use_directory_urls=config.use_directory_urls)
        )
    add_pictures(files, config)
    return files


def picture(name: str, page_dir: str) -> str:
    """The markdown of a picture marker for a page in `page_dir`; an unknown name stops the build."""
    pictures = pictures_module()
    if name not in pictures.MARKERS:
        raise PluginError(
            f"unknown picture marker <!-- picture:{name} -->; the pictures are {', '.join(pictures.MARKERS)}"
        )
    if name in UNDRAWN:
        return f"*The picture `{name}` was not drawn when this site was built: {UNDRAWN[name]}*"
    return pictures.markdown(name, posixpath.relpath(PICTURES, page_dir or ".") + "/")


def site_target(repo_path: str, page_dir: str) -> str | None:
    """Where a link to a repository file points on the site, relative to the page's folder in docs/; None when
    the site has no such page."""
    if repo_path.startswith("docs/"):
        docs_path = repo_path[len("docs/") :]
    elif repo_path.startswith(f"{NOTEBOOKS}/") and repo_path.endswith(".ipynb"):
        docs_path = repo_path  # mounted by on_files
    elif repo_path in SITE_NAMES:
        docs_path = SITE_NAMES[repo_path]
    else:
        return None
    return posixpath.relpath(docs_path, page_dir or ".")


def rebase_links(markdown: str, source_dir: str, page_dir: str) -> str:
    """Rewrite the relative links of markdown read from `source_dir` (a folder of the repository) for a page in
    `page_dir` (a folder of docs/), leaving code blocks and links that stay inside docs/ alone."""

    def rewrite(match: re.Match) -> str:
        text, target = match.groups()
        if re.match(r"^[a-z][a-z0-9+.-]*:|^#|^/", target):
            return match.group(0)  # a URL, an anchor or an absolute path
        path, hash_mark, anchor = target.partition("#")
        repo_path = posixpath.normpath(posixpath.join(source_dir, path))
        if repo_path.startswith("docs/") and source_dir.startswith("docs"):
            return match.group(0)  # a link between pages: MkDocs checks it
        new = site_target(repo_path, page_dir)
        if new is None:
            return text[1:-1] if not text.startswith("!") else match.group(0)
        return f"{text}({new}{hash_mark}{anchor})"

    parts, last = [], 0
    for fence in FENCE.finditer(markdown):
        parts.append(LINK.sub(rewrite, markdown[last : fence.start()]))
        parts.append(fence.group(0))
        last = fence.end()
    parts.append(LINK.sub(rewrite, markdown[last:]))
    return "".join(parts)


def include(match: re.Match, page_dir: str) -> str:
    """A repository file's text in place of an include region, its first heading dropped (the page has its
    own) and its links rebased."""
    name = match.group(1)
    path = ROOT / name
    if not path.is_file():
        log.warning("%s is not in the repository; the page that includes it shows nothing of it", name)
        return f"`{name}` is not in this checkout of the repository."
    text = re.sub(r"\A\s*# [^\n]*\n", "", path.read_text(encoding="utf-8"))
    return rebase_links(text, posixpath.dirname(name), page_dir)


def on_page_markdown(markdown: str, page, config, files) -> str:
    page_dir = posixpath.dirname(page.file.src_uri)
    markdown = rebase_links(markdown, posixpath.join("docs", page_dir), page_dir)
    markdown = INCLUDE.sub(lambda m: include(m, page_dir), markdown)
    markdown = PICTURE_MARKER.sub(lambda m: picture(m.group(1), page_dir), markdown)
    markdown = fill_results(markdown)
    return TABLE_MARKER.sub(lambda m: table(m.group(1)), markdown)
