"""Fixtures of the cel tests: its executed notebook and a local Spark session."""
from __future__ import annotations

import nbformat
import pytest


@pytest.fixture(scope="module")
def cel_nb(run_notebook) -> nbformat.NotebookNode:
    """notebooks/cel.ipynb, executed once per session."""
    return run_notebook("cel.ipynb")


@pytest.fixture(scope="module")
def spark():
    """A local Spark session (2 threads) for the CEL campaign tests; stopped after the module."""
    from ceplab.workbench.spark import spark_session

    s = spark_session("local[2]", app="ceplab-tests")
    yield s
    s.stop()
