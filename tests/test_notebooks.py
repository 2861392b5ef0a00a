"""The notebooks run top to bottom without an error, with small parameters.

Each notebook has one code cell tagged ``parameters``; the test replaces its source with the small
values below (the same names: a notebook parameter without a test value fails the test), then
executes the notebook with nbclient in a fresh ``python3`` kernel whose working folder is a
temporary copy of ``notebooks/`` (outputs such as training runs land there).
"""

from __future__ import annotations

import ast
import os
import shutil
import sys
import time
from pathlib import Path

import nbclient
import nbformat
import pytest

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
CELL_TIMEOUT_S = 240

# Small parameters per notebook: a few seconds of games or training each.
SMALL = {
    "01_quickstart.ipynb": {"SEED": 1, "MAX_DECISIONS": 5000},
    "02_selfplay_training.ipynb": {"BATTLE": "berestechko", "MINUTES": 0.08, "N_ENVS": 2, "EVAL_GAMES": 2,
                                   "GAMES": 1, "PLAY_DECISIONS": 3, "OUT": "runs/test_selfplay", "SEED": 0},
    "03_asymmetric_balance.ipynb": {"BATTLES": None, "GAMES": 2, "MCTS_GAMES": 1, "MCTS_SIMULATIONS": 2,
                                    "WORKERS": 1, "SEED": 0},
}


def parameters_cell(nb) -> int:
    tagged = [i for i, c in enumerate(nb.cells) if "parameters" in c.metadata.get("tags", [])]
    assert len(tagged) == 1, f"expected exactly one cell tagged 'parameters', found {len(tagged)}"
    return tagged[0]


def assigned_names(source: str) -> set[str]:
    return {t.id for node in ast.parse(source).body if isinstance(node, ast.Assign)
            for t in node.targets if isinstance(t, ast.Name)}


def run_notebook(name: str, params: dict, workdir: Path):
    """Execute notebook ``name`` with its parameters cell replaced by ``params``; returns the
    executed notebook. Raises ``nbclient.exceptions.CellExecutionError`` on the first failing cell."""
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    nbformat.validate(nb)
    i = parameters_cell(nb)
    assert assigned_names(nb.cells[i].source) == set(params), "the test's parameters differ from the notebook's"
    nb.cells[i].source = "\n".join(f"{k} = {v!r}" for k, v in params.items())
    client = nbclient.NotebookClient(nb, timeout=CELL_TIMEOUT_S, kernel_name="python3",
                                     resources={"metadata": {"path": str(workdir)}})
    client.execute()
    return nb


@pytest.mark.parametrize("name", sorted(SMALL))
def test_notebook_runs_without_errors(name, tmp_path, monkeypatch):
    # the kernelspec runs "python": make it this interpreter (the project's venv) even when not activated
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    work = tmp_path / "notebooks"
    shutil.copytree(NOTEBOOKS, work)
    t0 = time.perf_counter()
    nb = run_notebook(name, SMALL[name], work)
    elapsed = time.perf_counter() - t0
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []) if o.output_type == "error"]
    assert not errors, errors
    code_cells = [c for c in nb.cells if c.cell_type == "code"]
    assert all(c.execution_count for c in code_cells), "a code cell was not executed"
    print(f"{name}: {elapsed:.1f} s", file=sys.stderr)


def test_every_notebook_has_small_parameters():
    assert sorted(p.name for p in NOTEBOOKS.glob("*.ipynb")) == sorted(SMALL)
