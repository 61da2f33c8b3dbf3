"""Every researcher notebook in notebooks/ runs from top to bottom without an error output.

The notebooks are executed once per test session (the ``run_notebook`` fixture of tests/conftest.py,
kernel ``python3`` from ipykernel, a dev dependency; the kernel starts in the repository root); the
per-language folders check what each notebook shows.
"""
from __future__ import annotations

from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("*.ipynb"))


def test_there_are_notebooks():
    assert NOTEBOOKS, "notebooks/ holds the researcher notebooks"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs_without_errors(run_notebook, path):
    nb = run_notebook(path.name)
    errors = [o for c in nb.cells for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert not errors, errors
