"""``run_rows_job`` (workbench/spark.py), the one way campaigns, the matrix and the malformed-input campaigns run
cases on Spark: with a SparkContext one job, without one (Spark Connect) one job per partition run concurrently,
so that progress advances inside a wave.  Both give the same rows in id order."""
from __future__ import annotations

import json
import sys

import pytest
from pyspark import cloudpickle


from ceplab.workbench.spark import context, run_rows_job, spark_session


class _Rows:
    """A ``mapInPandas`` mapper: one JSON row per id; ``fail`` makes the batch holding that id raise."""

    def __init__(self, fail: int | None = None) -> None:
        self.fail = fail

    def __call__(self, batches):
        import time

        import pandas as pd

        for pdf in batches:
            ids = [int(i) for i in pdf["id"]]
            if self.fail in ids:
                raise RuntimeError(f"planted failure at id {self.fail}")
            time.sleep(0.05)
            yield pd.DataFrame({"row": [json.dumps({"id": i, "sq": i * i}) for i in ids]})


# the Python workers cannot import this test module: ship the mapper by value
cloudpickle.register_pickle_by_value(sys.modules[__name__])


@pytest.fixture(scope="module")
def spark():
    return spark_session("local[2]")


def test_without_a_spark_context_the_rows_and_their_order_are_the_same_and_progress_advances(spark):
    seen: list[int] = []
    chunked = run_rows_job(spark, None, "t-chunks", "test", 3, 40, 6, _Rows(), seen.append)
    one_job = run_rows_job(spark, context(spark), "t-one", "test", 3, 40, 6, _Rows(), lambda k: None)
    assert chunked == one_job == [{"id": i, "sq": i * i} for i in range(3, 40)]
    # progress is reported as each of the six jobs ends: it rises through intermediate values to every id
    assert seen == sorted(set(seen)) and seen[0] == 0 and seen[-1] == 37 and len(seen) >= 3


def test_a_failing_job_fails_the_call(spark):
    with pytest.raises(Exception, match="planted failure at id 20"):
        run_rows_job(spark, None, "t-fail", "test", 0, 30, 3, _Rows(fail=20), lambda k: None)
