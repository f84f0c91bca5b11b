"""The notebooks are committed clean: no progress bars in their outputs; every figure their prose quotes is in their
outputs (computed by the notebook, not typed in); results show as tables; plotting code lives in a module
(`uno_env.arena.plots`), not in long notebook cells. These read the committed notebooks, as the docs site shows them."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("*.ipynb"))
PROGRESS_BAR = re.compile(r"\d+%\|[^\n]*\||\r|\d+(?:\.\d+)?(?:it|s|game|step)/s\]")  # tqdm's bars and rates
# A figure in prose: a decimal (0.66, 63.5%), a number with thousands (20,000), or a percentage; "95%" names an
# interval's level, not a result.
FIGURE = re.compile(r"(?<![\w.])\d{1,3}(?:,\d{3})+(?:\.\d+)?%?|(?<![\w.,])\d+\.\d+%?|(?<![\w.,])\d+%")
LEVELS = {"95%"}
MAX_PLOTTING_LINES = 12  # a cell that draws calls the module's figure functions; it does not build a figure


def output_text(notebook) -> str:
    """Everything the notebook's outputs show as text: streams, plain text and markdown."""
    parts = []
    for cell in notebook.cells:
        for out in cell.get("outputs", []):
            if out.output_type == "stream":
                parts.append(out.text)
            for kind in ("text/plain", "text/markdown", "text/html"):
                parts.append(str(out.get("data", {}).get(kind, "")))
    return "\n".join(parts)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.stem)
def test_no_progress_bars_in_the_outputs(path):
    notebook = nbformat.read(path, as_version=4)
    for index, cell in enumerate(notebook.cells):
        for out in cell.get("outputs", []):
            text = out.get("text", "") if out.output_type == "stream" else ""
            assert not PROGRESS_BAR.search(text), f"{path.name} cell {index} shows a progress bar: {text[:200]!r}"
            assert not (out.output_type == "stream" and out.name == "stderr" and text.strip()), (
                f"{path.name} cell {index} writes to stderr: {text[:200]!r}"
            )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.stem)
def test_the_prose_quotes_only_figures_of_the_outputs(path):
    notebook = nbformat.read(path, as_version=4)
    shown = output_text(notebook)
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type != "markdown":
            continue
        prose = re.sub(r"`[^`]*`", "", cell.source)  # code in backticks (commands, settings) is not a result
        typed = [figure for figure in FIGURE.findall(prose) if figure not in LEVELS and figure not in shown]
        assert not typed, (
            f"{path.name} cell {index} quotes {typed}, which no output shows: compute them in the notebook "
            "(e.g. display(Markdown(f'...'))) rather than typing them into the prose"
        )


@pytest.mark.parametrize("name", ["train_and_benchmark", "variants"])
def test_results_show_as_tables(name):
    notebook = nbformat.read(next(path for path in NOTEBOOKS if path.stem == name), as_version=4)
    tables = [out for cell in notebook.cells for out in cell.get("outputs", [])
              if re.search(r"^\|[ :-]*-{3}", str(out.get("data", {}).get("text/markdown", "")), re.M)]  # fmt: skip
    assert len(tables) >= 2, f"{name} shows {len(tables)} markdown tables"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.stem)
def test_plotting_code_lives_in_a_module(path):
    notebook = nbformat.read(path, as_version=4)
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type == "code" and re.search(r"\b(plt\.|subplots\(|\.imshow\(|errorbar\(|\.bar\()", cell.source):
            lines = [line for line in cell.source.splitlines() if line.strip()]
            assert len(lines) <= MAX_PLOTTING_LINES, (
                f"{path.name} cell {index} draws with {len(lines)} lines: move the figure into uno_env.arena.plots"
            )
