"""A language is one plugin: a toy language in a temporary package, registered through the
``ceplab.languages`` entry-point group, is listed by ``ceplab languages``, compared by
``ceplab compare`` and fuzzed by ``ceplab fuzz``, with no change to ceplab.

The toy language "select": a query is one event type ``T``; its results are the positions of the
events of type ``T``, each determined by its own event. Its oracle is a one-rule clingo program, its
engine a loop; its extra input ``--offset N`` shifts result positions (to show language inputs reach
both sides through the generic CLI).
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

TOY = '''
"""A toy ceplab language plugin (tests/shared/test_plugin.py)."""
from __future__ import annotations

import dataclasses
import json
import random
from dataclasses import dataclass

import clingo

from ceplab.semantics.errors import ParseError
from ceplab.semantics.events import Stream, parse_jsonl, read_stream
from ceplab.workbench.language import Input, Language
from ceplab.workbench.shrink import drop_events


@dataclass(frozen=True)
class Options:
    """No switches."""


@dataclass(frozen=True)
class Query:
    type: str
    offset: int = 0


@dataclass(frozen=True)
class Result:
    results: frozenset
    stats: object = None


def parse(text, file=None):
    t = text.strip()
    if not t.isalpha():
        raise ParseError(f"expected an event type, got {t!r}", file, 1, 1)
    return Query(t)


def oracle(q, stream, options, limits):
    ctl = clingo.Control(["--warn=none"])
    facts = "".join(f'event({e.position},"{e.type}").' for e in stream)
    ctl.add("base", [], facts + f'result(P+{q.offset}) :- event(P,"{q.type}").')
    ctl.ground([("base", [])])
    out = set()
    ctl.solve(on_model=lambda m: out.update((s.arguments[0].number,) for s in m.symbols(shown=True)
                                            if s.name == "result"))
    return Result(frozenset(out))


class Engine:
    path = "toy loop"

    def __init__(self, q):
        self.q = q

    def push(self, e):
        return [(e.position + self.q.offset,)] if e.type == self.q.type else []

    def close(self):
        return []


def random_case(rng, length):
    types = "AB"
    return rng.choice(types), Stream.of([rng.choice(types) for _ in range(length)]), Options()


LANGUAGE = Language(
    name="toy", paper="none (a test plugin)", parse=parse,
    parse_file=lambda p: parse(open(p).read(), str(p)), render=lambda q: q.type,
    read_stream=read_stream, options=Options, oracle=oracle, evaluator=lambda q, o: Engine(q),
    result_to_json=list, result_from_json=tuple,
    stream_to_json=lambda s: [e.to_json() for e in s],
    stream_from_json=lambda items, name: parse_jsonl("".join(json.dumps(x) + "\\n" for x in items), name),
    drop_events=drop_events, event_row=lambda e: (e.time, e.type, e.attrs),
    result_positions=lambda q, s, o, lim, rs: {r: r[0] - q.offset for r in rs},
    random_case=random_case,
    inputs=(Input("offset", "shift result positions by N", "int",
                  lambda q, n: dataclasses.replace(q, offset=n)),),
)
'''


@pytest.fixture(scope="module")
def toy_env(tmp_path_factory) -> dict:
    """An environment whose PYTHONPATH holds the toy package and its distribution metadata."""
    root = tmp_path_factory.mktemp("toyplugin")
    (root / "ceplab_toy").mkdir()
    (root / "ceplab_toy" / "__init__.py").write_text(textwrap.dedent(TOY), encoding="utf-8")
    dist = root / "ceplab_toy-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: ceplab-toy\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text("[ceplab.languages]\ntoy = ceplab_toy:LANGUAGE\n")
    (root / "q.toy").write_text("B\n")
    (root / "s.jsonl").write_text("".join(json.dumps({"type": t, "time": i}) + "\n"
                                          for i, t in enumerate("ABBAB")))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(root)] + [p for p in [env.get("PYTHONPATH")] if p])
    env["ROOT"] = str(root)
    return env


def _ceplab(env: dict, *args: str, timeout: int = 600) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ceplab.workbench.cli", *args], env=env, capture_output=True,
                          text=True, timeout=timeout, cwd=env["ROOT"])


def test_toy_language_is_listed(toy_env):
    r = _ceplab(toy_env, "languages", "--json")
    assert r.returncode == 0, r.stderr
    langs = {x["name"]: x for x in json.loads(r.stdout)["languages"]}
    assert {"toy", "cel", "etalis", "epsparql"} <= set(langs)
    assert langs["toy"]["inputs"] == [{"name": "offset", "kind": "int", "help": "shift result positions by N"}]
    assert langs["toy"]["fuzz"] is True


def test_toy_language_runs_and_compares(toy_env):
    r = _ceplab(toy_env, "run", "toy", "q.toy", "s.jsonl", "--oracle", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["results"] == [[1], [2], [4]]
    r = _ceplab(toy_env, "compare", "toy", "q.toy", "s.jsonl", "--json")
    assert r.returncode == 0, r.stdout + r.stderr
    assert json.loads(r.stdout)["oracle_count"] == 3
    r = _ceplab(toy_env, "run", "toy", "q.toy", "s.jsonl", "--engine", "--offset", "10", "--json")
    assert json.loads(r.stdout)["results"] == [[11], [12], [14]]
    r = _ceplab(toy_env, "compare", "toy", "q.toy", "s.jsonl", "--offset", "x")
    assert r.returncode == 2 and "--offset expects an integer" in r.stderr
    r = _ceplab(toy_env, "compare", "toy", "q.toy", "s.jsonl", "--background", "g.ttl")
    assert r.returncode == 2 and "toy takes no option '--background'" in r.stderr
    (Path(toy_env["ROOT"]) / "bad.toy").write_text("B C\n")
    r = _ceplab(toy_env, "compare", "toy", "bad.toy", "s.jsonl")
    assert r.returncode == 2 and "bad.toy:1:1: expected an event type" in r.stderr
    assert "Traceback" not in r.stderr


@pytest.mark.skipif(shutil.which("java") is None, reason="PySpark needs Java 17+ and no 'java' is on the PATH")
def test_toy_language_is_fuzzed(toy_env, tmp_path):
    r = _ceplab(toy_env, "fuzz", "toy", "--cases", "12", "--length", "4", "--master", "local[1]",
                "--out", str(tmp_path), "--json", "--coverage")
    assert r.returncode == 0, r.stdout + r.stderr
    (row,) = json.loads(r.stdout)["languages"]
    assert (row["lang"], row["cases"], row["agree"]) == ("toy", 12, 12)
    # --coverage: what the campaign drew, counted per case (also in summary.json)
    assert row["coverage"]["stream:events=1-6"] == 12
    assert any(k.startswith("op:") for k in row["coverage"])
    assert json.loads((tmp_path / "toy" / "summary.json").read_text())["coverage"] == row["coverage"]
    # the campaign catches a wrong engine: the injected fault drops the first result of each case
    r = _ceplab(toy_env, "fuzz", "toy", "--cases", "12", "--length", "4", "--master", "local[1]",
                "--out", str(tmp_path), "--json", "--inject-fault", "drop")
    assert r.returncode == 1, r.stdout + r.stderr
    (row,) = json.loads(r.stdout)["languages"]
    assert row["disagree"] > 0
    # an engine that loops forever is stopped at its limit: the campaign finishes, counts it,
    # writes its summary and a shrunk reproducer (tests/shared/test_engine_limits.py has more)
    r = _ceplab(toy_env, "fuzz", "toy", "--cases", "2", "--length", "2", "--master", "local[1]",
                "--out", str(tmp_path), "--json", "--inject-fault", "loop", "--engine-time", "1",
                "--engine-memory", "256", timeout=300)
    assert r.returncode == 1, r.stdout + r.stderr
    out = json.loads(r.stdout)
    (row,) = out["languages"]
    assert row["engine_limit"] == out["engine_limit"] > 0 and out["engine_refusals"] == 0
    assert row["engine_limits"] == {"time_s": 1.0, "memory_mb": 256}
    summary = json.loads((tmp_path / "toy" / "summary.json").read_text())
    assert summary["complete"] and summary["engine_limit"] == row["engine_limit"]
    assert len(row["reproducers"]) == row["engine_limit"] + row["disagree"] + row["undecided"]
    repro = json.loads(Path(row["reproducers"][0]).read_text())
    assert repro["verdict"] == "engine_limit" and repro["shrunk"]["verdict"] == "engine_limit"
    assert len(repro["shrunk"]["stream"]) == 1
