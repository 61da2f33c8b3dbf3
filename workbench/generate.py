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
parameters for the whole run.  :class:`DatasetStream` reads one stream back piece by piece (what ``ceplab check``
does, so a stream is never in memory whole), :func:`read_stream` whole, and :func:`write_dataset` writes streams
you already have in the same layout.  The tasks write to the driver's file system (local masters and clusters on one
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
                path, n = _write_chunk(lang, lang.stream_chunk(self.seed, k, start, count), Path(self.out), k, start,
                                       self.params)
                rows.append((k, start, n, str(path), time.perf_counter() - t0))
            yield pd.DataFrame(rows, columns=["stream", "start", "count", "path", "seconds"])


def _write_chunk(lang: Any, stream: Any, out: Path, k: int, start: int, params: dict) -> tuple[Path, int]:
    """Write the events of ``stream`` (positions ``start ..``) as ``OUT/stream=<k>/part-<start>.parquet``."""
    evs = list(stream)
    return _write_rows(lang, evs, lang.stream_to_json(stream), out, k, start, params)


def _write_rows(lang: Any, evs: list, rows_ev: list[dict], out: Path, k: int, start: int,
                params: dict) -> tuple[Path, int]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    tr = [lang.event_row(e) for e in evs]
    table = pa.table({"position": pa.array(range(start, start + len(evs)), pa.int64()),
                      "time": pa.array([int(r[0]) for r in tr], pa.int64()),
                      "type": pa.array([str(r[1]) for r in tr], pa.string()),
                      "event": pa.array([json.dumps(x, sort_keys=True) for x in rows_ev], pa.string())})
    meta = dict(params, schema_version=SCHEMA_VERSION, stream=k, start=start, count=len(evs))
    table = table.replace_schema_metadata({"ceplab": json.dumps(meta, sort_keys=True)})
    folder = out / f"stream={k}"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"part-{start:012d}.parquet"
    pq.write_table(table, path)
    return path, len(evs)


def _fresh(out: Path) -> Path:
    """``out`` resolved and created, without the streams of an earlier dataset in it."""
    import shutil

    out = Path(out).resolve()
    for old in out.glob("stream=*"):
        shutil.rmtree(old)
    out.mkdir(parents=True, exist_ok=True)
    return out


def _begin(lang: Any, events: int, streams: int, seed: int, out: Path, chunk: int) -> tuple[Path, dict]:
    """Check a drawing's sizes, prepare ``out`` (:func:`_fresh`); the folder and the run's parameters."""
    if lang.stream_chunk is None:
        raise ValueError(f"the {lang.name} plugin has no stream generator for long streams (Language.stream_chunk)")
    if events < 1 or streams < 1 or chunk < 1:
        raise ValueError("events, streams and chunk must be >= 1")
    return _fresh(out), {"lang": lang.name, "seed": seed, "events": events, "streams": streams, "chunk": chunk}


def _finish(out: Path, manifest: dict) -> dict:
    (out / MANIFEST).write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return manifest


def generate_here(lang: Any, events: int, streams: int, seed: int, out: Path, chunk: int = 100_000) -> dict:
    """:func:`generate` in this process, without Spark: the same files, chunk after chunk (benchmarks and tests
    that must not start a Spark session of their own); returns the manifest.

    Raises:
        ValueError: bad sizes, or a language without ``stream_chunk``.
    """
    out, params = _begin(lang, events, streams, seed, out, chunk)
    t0 = time.perf_counter()
    files = written = 0
    for k in range(streams):
        for start in range(0, events, chunk):
            count = min(chunk, events - start)
            written += _write_chunk(lang, lang.stream_chunk(seed, k, start, count), out, k, start, params)[1]
            files += 1
    return _finish(out, dict(params, schema_version=SCHEMA_VERSION, files=files, written=written,
                             seconds=time.perf_counter() - t0))


def write_dataset(lang: Any, streams: list, out: Path, chunk: int = 100_000) -> dict:
    """Write streams you already have (in this process, no Spark) as a dataset in :func:`generate`'s layout, so
    ``ceplab check`` reads them piece by piece; returns the manifest.  Each stream is cut into files of
    ``chunk`` events; its positions must be ``0 .. n-1`` in order.

    Raises:
        ValueError: ``chunk < 1`` or no stream.
    """
    if chunk < 1 or not streams:
        raise ValueError("write_dataset needs chunk >= 1 and at least one stream")
    out = _fresh(out)
    params = {"lang": lang.name, "seed": None, "events": max(len(s) for s in streams), "streams": len(streams),
              "chunk": chunk}
    files = written = 0
    for k, stream in enumerate(streams):
        evs, items = list(stream), lang.stream_to_json(stream)
        for start in range(0, max(1, len(evs)), chunk):
            stop = start + chunk
            written += _write_rows(lang, evs[start:stop], items[start:stop], out, k, start, params)[1]
            files += 1
    return _finish(out, dict(params, schema_version=SCHEMA_VERSION, files=files, written=written))


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
    out, params = _begin(lang, events, streams, seed, out, chunk)
    per_stream = -(-events // chunk)
    n_chunks = per_stream * streams
    from ceplab.workbench.spark import _parallelism

    parts = partitions or max(1, min(n_chunks, 4 * _parallelism(spark)))
    t0 = time.perf_counter()
    df = spark.range(n_chunks, numPartitions=parts).mapInPandas(
        _ChunkWriter(lang.name, seed, events, chunk, str(out), params),
        schema="stream long, start long, count long, path string, seconds double")
    rows = df.collect()
    return _finish(out, dict(params, schema_version=SCHEMA_VERSION, files=len(rows),
                             written=sum(int(r["count"]) for r in rows), seconds=time.perf_counter() - t0,
                             task_seconds=sum(float(r["seconds"]) for r in rows)))


def is_dataset(path: Path) -> bool:
    """True if ``path`` is a folder written by :func:`generate`."""
    return Path(path).is_dir() and (Path(path) / MANIFEST).exists()


#: events per piece :class:`DatasetStream` rebuilds at a time (a Parquet record batch)
PIECE_EVENTS = 8192


class DatasetStream:
    """One stream of a dataset written by :func:`generate`, read piece by piece: the events are never all in
    memory at once (``ceplab check`` runs the engine over it and executors read their own segments from it).

    Iterating gives the events in position order: each file is read one record batch of :data:`PIECE_EVENTS`
    events at a time, rebuilt with ``Language.stream_from_json`` and moved to its place with
    ``Language.offset_positions``, so the events are those of :func:`read_stream` (tested).  The files must be
    on a file system the readers (driver and executors) share, as :func:`generate` writes them.

    Args:
        lang: the :class:`ceplab.workbench.language.Language` the dataset was written for.
        path: the dataset folder; stream: which of its streams (0-based).
        piece: events per piece (default :data:`PIECE_EVENTS`).

    Raises:
        ceplab.semantics.errors.StreamError: not such a dataset, another language's, another schema version, a
            stream that is not there, or files whose positions are not contiguous (file named).
    """

    def __init__(self, lang: Any, path: Path, stream: int = 0, piece: int = PIECE_EVENTS) -> None:
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
        self.lang, self.path, self.stream, self.piece = lang, path, stream, max(1, int(piece))
        self.name = f"{path}/stream={stream}"
        #: ``(first position, event count, file)`` per file, in position order
        self.files: list[tuple[int, int, str]] = []
        at = 0
        for f in files:
            rows = pq.ParquetFile(f).metadata.num_rows
            first = int(f.stem.split("-", 1)[1])
            if first != at:
                raise StreamError(f"the file starts at position {first}, expected {at} (a file is missing)",
                                  str(f), 1, 1)
            self.files.append((first, rows, str(f)))
            at += rows
        self._n = at
        self._cache: tuple[str, list[str]] | None = None

    def __len__(self) -> int:
        return self._n

    def pieces(self) -> Iterator[tuple[int, Any]]:
        """``(first position, stream)`` per piece, in order; each piece's events carry their positions in the
        whole stream.

        Raises:
            StreamError: a piece that ``stream_from_json`` rejects, or that does not rebuild one event per row.
        """
        import pyarrow.parquet as pq

        from ceplab.semantics.errors import StreamError

        lang = self.lang
        if lang.offset_positions is None:
            raise StreamError(f"the {lang.name} plugin cannot read a dataset piece by piece "
                              f"(no Language.offset_positions)", self.name, 1, 1)
        for first, _rows, f in self.files:
            at = first
            for batch in pq.ParquetFile(f).iter_batches(batch_size=self.piece, columns=["event"]):
                items = [json.loads(x) for x in batch.column(0).to_pylist()]
                piece = lang.stream_from_json(items, f"{f} (positions {at}..{at + len(items) - 1})")
                if len(piece) != len(items):
                    raise StreamError(f"the events at positions {at}..{at + len(items) - 1} rebuild as "
                                      f"{len(piece)} events, not {len(items)}", f, 1, 1)
                yield at, lang.offset_positions(piece, at) if at else piece
                at += len(items)

    def __iter__(self) -> Iterator[Any]:
        for _, piece in self.pieces():
            yield from piece

    def items(self, first: int, stop: int) -> list[dict]:
        """The JSON objects of the events at positions ``first .. stop-1`` (only the files holding them are
        read; the last file read is kept, so consecutive segments read each file once)."""
        import pyarrow.parquet as pq

        out: list[dict] = []
        for start, rows, f in self.files:
            lo, hi = max(first, start), min(stop, start + rows)
            if lo >= hi:
                continue
            if self._cache is None or self._cache[0] != f:
                self._cache = (f, pq.read_table(f, columns=["event"]).column(0).to_pylist())
            out.extend(json.loads(x) for x in self._cache[1][lo - start:hi - start])
        return out

    def slice(self, first: int, stop: int) -> Any:
        """The events at positions ``first .. stop-1`` as a stream of their own (positions from 0)."""
        return self.lang.stream_from_json(self.items(first, stop), f"{self.name} (positions {first}..{stop - 1})")

    def descriptor(self) -> dict:
        """What an executor needs to read the stream again (:meth:`from_descriptor`): JSON."""
        return {"path": str(self.path.resolve()), "stream": self.stream, "piece": self.piece}

    @classmethod
    def from_descriptor(cls, lang: Any, d: dict) -> "DatasetStream":
        """The stream of :meth:`descriptor` (on an executor)."""
        return cls(lang, Path(d["path"]), int(d["stream"]), int(d["piece"]))


def read_stream(lang: Any, path: Path, stream: int = 0) -> Any:
    """Stream ``stream`` of a dataset written by :func:`generate`, whole, as the language's stream (events in
    position order, rebuilt with ``Language.stream_from_json``); :class:`DatasetStream` reads it piece by piece.

    Raises:
        ceplab.semantics.errors.StreamError: as :class:`DatasetStream`.
    """
    ds = DatasetStream(lang, path, stream)
    return lang.stream_from_json(ds.items(0, len(ds)), ds.name)


__all__ = ["DatasetStream", "MANIFEST", "PIECE_EVENTS", "SCHEMA_VERSION", "generate", "generate_here", "is_dataset",
           "read_stream", "write_dataset"]
