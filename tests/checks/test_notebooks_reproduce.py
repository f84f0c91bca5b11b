"""The quickstart notebook runs top to bottom (small budgets, UNO_NOTEBOOK_SMOKE=1) and seeds every random draw it
prints: executed twice, it shows the same outputs (text, tables and pictures), so that the "seed 42" over its game
means that game."""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbclient import NotebookClient

QUICKSTART = Path(__file__).resolve().parents[2] / "notebooks" / "quickstart.ipynb"


def executed_outputs(monkeypatch, tmp_path: Path) -> list[list[dict]]:
    """Each code cell's outputs after a fresh run (small budgets), as data that compares exactly."""
    monkeypatch.setenv("UNO_NOTEBOOK_SMOKE", "1")
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    notebook = nbformat.read(QUICKSTART, as_version=4)
    NotebookClient(notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": QUICKSTART.parent}}
                   ).execute()  # fmt: skip
    return [joined_streams(cell.get("outputs", [])) for cell in notebook.cells if cell.cell_type == "code"]


def joined_streams(outputs: list[dict]) -> list[dict]:
    """A cell's outputs without execution counts, each run of printed text to one stream as one output: the kernel
    sends printed text in as many messages as its flushes happen to make, which depends on the machine's load."""
    joined: list[dict] = []
    for out in outputs:
        out = {key: value for key, value in out.items() if key != "execution_count"}
        previous = joined[-1] if joined else {}
        if out.get("output_type") == "stream" and previous.get("output_type") == "stream" \
                and previous.get("name") == out.get("name"):  # fmt: skip
            joined[-1] = {**previous, "text": previous["text"] + out["text"]}
        else:
            joined.append(out)
    return joined


def test_the_quickstart_gives_the_same_outputs_twice(monkeypatch, tmp_path):
    first = executed_outputs(monkeypatch, tmp_path / "first")
    second = executed_outputs(monkeypatch, tmp_path / "second")
    assert any(out.get("output_type") == "stream" for cell in first for out in cell)
    assert any("image/png" in out.get("data", {}) for cell in first for out in cell), "the quickstart draws no plot"
    different = [index for index, (a, b) in enumerate(zip(first, second, strict=True)) if a != b]
    assert not different, f"code cells {different} show other outputs on a second run: seed what they draw"


def test_printed_text_split_across_messages_compares_as_one_output():
    split = [{"output_type": "stream", "name": "stdout", "text": "a\n"},
             {"output_type": "stream", "name": "stdout", "text": "b\n"},
             {"output_type": "stream", "name": "stderr", "text": "c\n"}]  # fmt: skip
    whole = [{"output_type": "stream", "name": "stdout", "text": "a\nb\n"}, split[2]]
    assert joined_streams(split) == joined_streams(whole) == whole
