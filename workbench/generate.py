"""``ceplab generate``: large seeded random streams drawn on Spark and written as Parquet; and their reader.

A run draws ``streams`` streams of ``events`` events each with the language's chunk generator
(``Language.stream_chunk(seed, stream, start, count)``): stream ``k`` is cut into chunks of ``chunk`` events,
chunk ``(k, start)`` is drawn by its own generator seeded by ``(seed, k, start)``, so the output is the same for
any number of executors and any partitioning.  One Spark task per chunk (``spark.range`` + ``mapInPandas``:
DataFrame API only) draws the events and writes them with pyarrow as ``OUT/stream=<k>/part-<start>.parquet``
(a partitioned Parquet dataset), with columns

* ``position`` (int64): the event's index in its stream;
* ``time`` (int64), ``type`` (string): as ``Language.event_row`` gives them (for queries over the table);
* ``event`` (string): the event in the language's JSON form (``Language.stream_to_json``), from which
  :func:`read_stream` rebuilds the stream;

and the key ``ceplab`` in each file's Parquet metadata: a JSON object with :data:`SCHEMA_VERSION`, the
language, seed, stream, start, count and the run's parameters.  ``OUT/_ceplab.json`` holds the same
parameters for the whole run.  The tasks write to the driver's file system (local masters and clusters on one
machine, e.g. the loopback clusters of the tests).  This module names no language.
"""
from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, Iterable, Iterator

#: version of the table layout above
SCHEMA_VERSION = 1
MANIFEST = "_ceplab.json"


class _ChunkWriter:
    """``mapInPandas`` function: for each chunk id, draw and write its events; yields one row per chunk."""

    def __init__(self, lang: str, seed: int, events: int, chunk: int, out: str, params: dict) -> None:
        self.lang, self.seed, self.events, self.chunk, self.out, self.params = lang, seed, events, chunk, out, params

    def __call__(self, batches: Iterable[Any]) -> Iterator[Any]:
        import pandas as pd
        import pyarrow as pa
        import pyarrow.parquet as pq

        from ceplab.workbench import language

        lang = language.get(self.lang)
        per_stream = -(-self.events // self.chunk)
        for pdf in batches:
            rows = []
            for cid in pdf["id"]:
                t0 = time.perf_counter()
                k, j = divmod(int(cid), per_stream)
                start = j * self.chunk
                count = min(self.chunk, self.events - start)
                stream = lang.stream_chunk(self.seed, k, start, count)
                evs = list(stream)
                rows_ev = lang.stream_to_json(stream)
                tr = [lang.event_row(e) for e in evs]
                table = pa.table({"position": pa.array(range(start, start + len(evs)), pa.int64()),
                                  "time": pa.array([int(r[0]) for r in tr], pa.int64()),
                                  "type": pa.array([str(r[1]) for r in tr], pa.string()),
                                  "event": pa.array([json.dumps(x, sort_keys=True) for x in rows_ev], pa.string())})
                meta = dict(self.params, schema_version=SCHEMA_VERSION, stream=k, start=start, count=len(evs))
                table = table.replace_schema_metadata({"ceplab": json.dumps(meta, sort_keys=True)})
                folder = Path(self.out) / f"stream={k}"
                folder.mkdir(parents=True, exist_ok=True)
                path = folder / f"part-{start:012d}.parquet"
                pq.write_table(table, path)
                rows.append((k, start, len(evs), str(path), time.perf_counter() - t0))
            yield pd.DataFrame(rows, columns=["stream", "start", "count", "path", "seconds"])


def generate(spark: Any, lang: Any, events: int, streams: int, seed: int, out: Path, chunk: int = 100_000,
             partitions: int | None = None) -> dict:
    """Draw and write the streams (module docstring); returns the manifest (also written to ``OUT/_ceplab.json``)
    with ``files`` and ``seconds``.

    Args:
        spark: a Spark session; lang: the :class:`ceplab.workbench.language.Language` (with ``stream_chunk``).
        events: events per stream (>= 1); streams: number of streams (>= 1); seed: the seed.
        out: the output folder (created; an existing dataset in it is replaced).
        chunk: events per chunk (one task, one file).
        partitions: Spark partitions (default: one per chunk, at most 4 x the default parallelism).

    Raises:
        ValueError: bad sizes, or a language without ``stream_chunk``.
    """
    if lang.stream_chunk is None:
        raise ValueError(f"the {lang.name} plugin has no stream generator for long streams (Language.stream_chunk)")
    if events < 1 or streams < 1 or chunk < 1:
        raise ValueError("events, streams and chunk must be >= 1")
    import shutil

    out = Path(out).resolve()
    if out.exists():
        for old in out.glob("stream=*"):
            shutil.rmtree(old)
    out.mkdir(parents=True, exist_ok=True)
    per_stream = -(-events // chunk)
    n_chunks = per_stream * streams
    from ceplab.workbench.spark import _parallelism

    parts = partitions or max(1, min(n_chunks, 4 * _parallelism(spark)))
    params = {"lang": lang.name, "seed": seed, "events": events, "streams": streams, "chunk": chunk}
    t0 = time.perf_counter()
    df = spark.range(n_chunks, numPartitions=parts).mapInPandas(
        _ChunkWriter(lang.name, seed, events, chunk, str(out), params),
        schema="stream long, start long, count long, path string, seconds double")
    rows = df.collect()
    manifest = dict(params, schema_version=SCHEMA_VERSION, files=len(rows),
                    written=sum(int(r["count"]) for r in rows), seconds=time.perf_counter() - t0,
                    task_seconds=sum(float(r["seconds"]) for r in rows))
    (out / MANIFEST).write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return manifest


def is_dataset(path: Path) -> bool:
    """True if ``path`` is a folder written by :func:`generate`."""
    return Path(path).is_dir() and (Path(path) / MANIFEST).exists()


def read_stream(lang: Any, path: Path, stream: int = 0) -> Any:
    """Stream ``stream`` of a dataset written by :func:`generate`, as the language's stream (events in position
    order, rebuilt with ``Language.stream_from_json``).

    Raises:
        ceplab.semantics.errors.StreamError: not such a dataset, another language's, another schema version, or a
            stream that is not there (file named).
    """
    import pyarrow.parquet as pq

    from ceplab.semantics.errors import StreamError

    path = Path(path)
    if not is_dataset(path):
        raise StreamError(f"not a dataset written by 'ceplab generate' (no {MANIFEST})", str(path), 1, 1)
    man = json.loads((path / MANIFEST).read_text(encoding="utf-8"))
    if man.get("schema_version") != SCHEMA_VERSION:
        raise StreamError(f"schema version {man.get('schema_version')} (this ceplab reads {SCHEMA_VERSION})",
                          str(path / MANIFEST), 1, 1)
    if man.get("lang") != lang.name:
        raise StreamError(f"a {man.get('lang')} dataset, not {lang.name}", str(path / MANIFEST), 1, 1)
    files = sorted((path / f"stream={stream}").glob("part-*.parquet"))
    if not files:
        raise StreamError(f"no stream {stream} (the dataset has {man.get('streams')})", str(path), 1, 1)
    items: list[dict] = []
    for f in files:
        t = pq.read_table(f, columns=["position", "event"])
        items.extend(json.loads(x) for x in t.column("event").to_pylist())
    return lang.stream_from_json(items, f"{path}/stream={stream}")


__all__ = ["MANIFEST", "SCHEMA_VERSION", "generate", "is_dataset", "read_stream"]
