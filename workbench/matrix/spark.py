"""The matrix's cases on Spark (``ceplab matrix --master URL | --remote sc://H:P``): the DataFrame API only
(``spark.range(..).mapInPandas``, :func:`ceplab.workbench.spark.run_rows_job`), so a classic master and Spark
Connect run the same code.  Each task draws its cases from ``(seed, row, k)`` alone (:func:`draw_case`) and
evaluates every language on them; the driver assembles the cells and shrinks the differences."""
from __future__ import annotations

import json
from typing import Any, Callable, Iterable, Iterator, Optional, Sequence

from ceplab.workbench.matrix.run import Outcome, draw_case, evaluate, outcome_from_json, outcome_to_json


class _MatrixRows:
    """``mapInPandas`` function: case id ``i`` is case ``i % cases`` of row ``i // cases``; one JSON row per id
    with every language's :class:`Outcome`."""

    def __init__(self, names: Sequence[str], rows: Sequence[str], cases: int, seed: int,
                 time_s: Optional[float]) -> None:
        self.names, self.rows, self.cases, self.seed, self.time_s = list(names), list(rows), cases, seed, time_s

    def __call__(self, batches: Iterable[Any]) -> Iterator[Any]:
        import pandas as pd

        from ceplab.asp.oracle import Limits
        from ceplab.workbench import language

        langs = [language.get(n) for n in self.names]
        limits = Limits() if self.time_s is None else Limits(time_s=self.time_s)
        for pdf in batches:
            out = []
            for cid in pdf["id"]:
                r, k = divmod(int(cid), self.cases)
                q, events = draw_case(self.seed, self.rows[r], k)
                out.append(json.dumps({"id": int(cid),
                                       "outcomes": [outcome_to_json(evaluate(L, q, events, limits)) for L in langs]}))
            yield pd.DataFrame({"row": out})


def outcomes_on_spark(names: Sequence[str], rows: Sequence[str], cases: int, seed: int, master: str = "local[*]",
                      remote: Optional[str] = None, time_s: Optional[float] = None,
                      progress: Optional[Callable[[int], None]] = None) -> dict[tuple[str, int], dict[str, Outcome]]:
    """Every language's outcome on every case, computed on Spark: ``{(row, k): {language: Outcome}}``."""
    from ceplab.workbench.spark import _parallelism, context, run_rows_job, spark_session

    spark = spark_session(master, "ceplab matrix", remote)
    sc = context(spark)
    n = len(rows) * cases
    parts = max(1, min(n, 4 * _parallelism(spark)))
    got = run_rows_job(spark, sc, f"ceplab-matrix-{seed}", f"ceplab matrix: {n} cases, seed {seed}", 0, n, parts,
                       _MatrixRows(names, rows, cases, seed, time_s), progress or (lambda k: None))
    table: dict[tuple[str, int], dict[str, Outcome]] = {}
    for row in got:
        r, k = divmod(row["id"], cases)
        table[(rows[r], k)] = {d["lang"]: outcome_from_json(d) for d in row["outcomes"]}
    return table
