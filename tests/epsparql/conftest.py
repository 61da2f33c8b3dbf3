"""Fixtures of the epsparql tests: its executed notebook."""
from __future__ import annotations

import nbformat
import pytest


@pytest.fixture(scope="module")
def epsparql_nb(run_notebook) -> nbformat.NotebookNode:
    """notebooks/epsparql.ipynb, executed once per session."""
    return run_notebook("epsparql.ipynb")
