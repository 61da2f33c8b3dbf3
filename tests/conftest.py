"""Hypothesis profiles: ``dev`` (default), ``ci`` (used by .ci/run), ``deep`` (opt-in fuzzing).

Choose with ``HYPOTHESIS_PROFILE``. The differential properties use ``max_examples`` from the
profile (``ci``: 200 per test).
"""
import os

from hypothesis import HealthCheck, settings

_common = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                                     HealthCheck.filter_too_much])
settings.register_profile("dev", max_examples=60, **_common)
settings.register_profile("ci", max_examples=200, derandomize=True, print_blob=True, **_common)
settings.register_profile("deep", max_examples=5000, **_common)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))


# ----------------------------------------------------------------------------- notebooks
import functools  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


@functools.lru_cache(maxsize=None)
def _execute_notebook(name: str):
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(ROOT / "notebooks" / name, as_version=4)
    NotebookClient(nb, timeout=180, kernel_name="python3",
                   resources={"metadata": {"path": str(ROOT)}}).execute()
    return nb


@pytest.fixture(scope="session")
def run_notebook():
    """``run_notebook("cel.ipynb")``: the notebook executed once per session (nbclient)."""
    return _execute_notebook


@pytest.fixture(scope="session")
def notebook_text():
    """``notebook_text(nb)``: the stream outputs of an executed notebook (see :func:`_notebook_text`)."""
    return _notebook_text


def _notebook_text(nb) -> str:
    """The stream outputs of an executed notebook, with ``ERROR name: value`` for error outputs."""
    out = []
    for cell in nb.cells:
        for o in cell.get("outputs", []):
            if o.get("output_type") == "stream":
                out.append(o.get("text", ""))
            elif o.get("output_type") == "error":
                out.append("ERROR " + o.get("ename", "") + ": " + o.get("evalue", ""))
    return "".join(out)
