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
import fcntl  # noqa: E402
import functools  # noqa: E402
import shutil  # noqa: E402
import tempfile  # noqa: E402
import uuid  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def _shared_dir(run_id: str) -> Path:
    return Path(tempfile.gettempdir()) / f"ceplab-notebooks-{run_id}"


def pytest_configure(config):
    # the xdist controller fixes the test run's id, so that it can remove the workers' shared notebook folder
    if not hasattr(config, "workerinput") and getattr(config.option, "testrunuid", "") is None:
        config.option.testrunuid = uuid.uuid4().hex


def pytest_unconfigure(config):
    if not hasattr(config, "workerinput") and getattr(config.option, "testrunuid", None):
        shutil.rmtree(_shared_dir(config.option.testrunuid), ignore_errors=True)


@functools.lru_cache(maxsize=None)
def _execute_notebook(name: str):
    """notebooks/NAME executed and normalised by :func:`ceplab.workbench.notebooks.execute`, once per test run:
    under pytest-xdist the first worker that asks executes it and stores it in a folder shared by the run's
    workers (keyed by ``PYTEST_XDIST_TESTRUNUID``, removed at the end of the run), the others read it there."""
    import nbformat

    from ceplab.workbench import notebooks

    run_id = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    if not run_id:
        return notebooks.execute(ROOT / "notebooks" / name)
    shared = _shared_dir(run_id)
    shared.mkdir(exist_ok=True)
    target = shared / name
    with open(shared / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not target.exists():
            tmp = shared / f"{name}.partial"
            notebooks.write(notebooks.execute(ROOT / "notebooks" / name), tmp)
            os.replace(tmp, target)
    return nbformat.read(target, as_version=4)


@pytest.fixture(scope="session")
def run_notebook():
    """``run_notebook("cel.ipynb")``: the notebook executed and normalised once per test run (see
    :func:`_execute_notebook`)."""
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
