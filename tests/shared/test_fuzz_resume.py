"""An interrupted fuzz campaign keeps its finished waves, and ``--resume`` completes it: the same verdicts, counts
and results.parquet rows (timings aside) as an uninterrupted run with the same seed; resuming with other
parameters is refused."""
from __future__ import annotations

import pyarrow.parquet as pq
import pytest

from ceplab.workbench.spark import ResumeError, fuzz, spark_session

COLS = ["case_id", "query", "verdict", "oracle_count", "engine_count"]


@pytest.fixture(scope="module")
def spark():
    return spark_session("local[2]")


def _rows(out):
    table = pq.read_table(out / "cel" / "results.parquet")
    return sorted(tuple(r[c] for c in COLS) for r in table.to_pylist())


def test_interrupted_then_resumed_equals_uninterrupted(spark, tmp_path):
    kw = dict(cases=15, length=6, seed=9, spark=spark, progress=False, shrink_s=0, waves=3)
    (full,) = fuzz(["cel"], out=tmp_path / "a", **kw)
    with pytest.raises(KeyboardInterrupt):
        fuzz(["cel"], out=tmp_path / "b", stop_after_waves=1, **kw)
    waves = sorted((tmp_path / "b" / "cel" / "waves").glob("wave-*.json"))
    assert len(waves) == 1 and not (tmp_path / "b" / "cel" / "results.parquet").exists()
    (res,) = fuzz(["cel"], out=tmp_path / "b", resume=True, **kw)
    assert (res.cases, res.agree, res.disagree) == (full.cases, full.agree, full.disagree) == (15, 15, 0)
    assert _rows(tmp_path / "a") == _rows(tmp_path / "b")
    with pytest.raises(ResumeError, match="cannot resume"):
        fuzz(["cel"], out=tmp_path / "b", resume=True, **dict(kw, seed=10))
