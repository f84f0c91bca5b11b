"""Every notebook in notebooks/ runs top to bottom without an error (small budgets: UNO_NOTEBOOK_SMOKE=1), and is
committed with the outputs of a full run, which the documentation site shows."""

import json
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("*.ipynb"))
MAX_COMMITTED_BYTES = 2_000_000  # committed with their outputs (plots as PNG), which must stay small


def test_there_are_notebooks():
    assert {"quickstart.ipynb", "variants.ipynb", "train_and_benchmark.ipynb"} <= {path.name for path in NOTEBOOKS}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.stem)
def test_notebook_is_committed_with_outputs(path):
    size = path.stat().st_size
    assert size < MAX_COMMITTED_BYTES, f"{path.name} is {size:,} bytes: its outputs are too big (a huge print?)"
    notebook = nbformat.read(path, as_version=4)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    unrun = [i for i, cell in enumerate(code) if cell.get("execution_count") is None]
    assert not unrun, f"{path.name}: code cells {unrun} have not been run; execute it in place before committing"
    outputs = [out for cell in code for out in cell.get("outputs", [])]
    assert not [out for out in outputs if out.output_type == "error"], f"{path.name} was committed with an error"
    assert any("image/png" in out.get("data", {}) for out in outputs), f"{path.name} is committed without its plots"


# the quickstart runs twice in test_notebooks_reproduce.py, which also checks that it draws its plots
@pytest.mark.parametrize("path", [p for p in NOTEBOOKS if p.stem != "quickstart"], ids=lambda path: path.stem)
def test_notebook_runs(path, monkeypatch, tmp_path):
    monkeypatch.setenv("UNO_NOTEBOOK_SMOKE", "1")
    monkeypatch.setenv("TMPDIR", str(tmp_path))  # what a notebook writes with tempfile lands in pytest's tmp_path
    notebook = nbformat.read(path, as_version=4)
    client = NotebookClient(notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": path.parent}})
    client.execute()  # raises CellExecutionError, with the cell and its traceback, on any error
    outputs = [out for cell in notebook.cells for out in cell.get("outputs", [])]
    errors = [out for out in outputs if out.output_type == "error"]
    assert not errors, json.dumps(errors)[:2000]
    assert any("image/png" in out.get("data", {}) for out in outputs), f"{path.name} draws no plot"
