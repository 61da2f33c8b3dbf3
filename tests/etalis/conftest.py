"""Fixtures of the etalis tests: its executed notebook."""
from __future__ import annotations

import nbformat
import pytest


@pytest.fixture(scope="module")
def etalis_nb(run_notebook) -> nbformat.NotebookNode:
    """notebooks/etalis.ipynb, executed once per session."""
    return run_notebook("etalis.ipynb")
