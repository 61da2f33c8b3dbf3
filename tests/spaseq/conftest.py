"""Fixtures of the spaseq tests: its executed notebook."""
from __future__ import annotations

import nbformat
import pytest


@pytest.fixture(scope="module")
def spaseq_nb(run_notebook) -> nbformat.NotebookNode:
    """notebooks/spaseq.ipynb, executed once per session."""
    return run_notebook("spaseq.ipynb")
