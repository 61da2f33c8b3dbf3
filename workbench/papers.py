"""The papers' worked examples as data (``papers-check/<lang>/*.json``) and their verdicts.

Each case is run through the oracle AND the engine (:func:`ceplab.workbench.compare.compare`, which also
checks the engine's emission positions) and both are checked against the results the file states.
Cases marked ``"check": false`` (formulas that are not strongly well-formed, docs/semantics/cel.md#cel-G2/#cel-G3: the
oracle computes their finite-word semantics, the engine refuses them) and cases the engine refuses
with ``UnsupportedError`` are checked through the oracle alone, and the verdict says so.

Accepted file layouts (one JSON object per file; all keys besides the ones named are free text):

* **formulas x strategies** (``figure1.json``): a shared ``"stream"`` (inline events) or
  ``"stream_file"`` (next to the JSON file), ``"formulas": {name: text}``, ``"expected": {name:
  {STRATEGY: {"ces": [...], "provenance": "P"|"D", "paper_states": "..."} | [...]}}``, optional
  ``"options"`` and ``"per_position": {name: {position: [...]}}`` (the ALL results grouped by the
  position at which they are emitted). One case per (formula, strategy); the query is
  ``STRATEGY(formula)`` (the language's ``PaperFormat.with_strategy``).
* **case lists** (``micro.json``): ``"cases"`` and/or ``"adversarial"``: lists of ``{"name", "query",
  "stream", "expected" | "expected_all", "attrs", "check", "note", "provenance"}``. ``stream`` is
  inline events, a string of one-letter event types (time = position) with optional per-position
  ``attrs``, a ``.jsonl`` file next to the JSON file or a name in a top-level ``"streams"`` object;
  ``expected`` is a list (the query's results) or ``{STRATEGY: list}`` (one case per strategy);
  ``expected_all`` is the ALL result.

* **shared rules x patterns** (e.g. ``figure1.json`` of a rule language): ``"rules"`` (a list of rule texts),
  ``"result_head"``, a shared ``"stream"`` and ``"cases"`` of ``{"name", "pattern", "expected",
  "options"?, "expected_with_options"?, "paper_answer"?}``. The query is the rules plus ``HEAD <- PATTERN.`` (the
  language's ``PaperFormat.pattern_query``); results are compared restricted to ``HEAD``
  (``PaperFormat.project_results``). A case with
  ``"options"`` and ``"expected_with_options"`` gives a second case under those switches; without
  ``"expected_with_options"`` its ``"options"`` are informational (the first case uses the
  defaults). A ``"result_head"`` inside a case of a case list restricts that case the same way.

Streams of languages with a ``PaperFormat.stream(value, file)`` are read by it (inline objects, a
file next to the case file, or a compact notation); the others use the flat-event forms above.

Languages with a ``PaperFormat.expected(items, file)`` may state expected results in a compact
notation that it turns into the canonical form.

Expected results are in the language's canonical JSON form (DESIGN.md section 4).

A case (of a case list or of the shared-rules layout) may also give ``"paper_answer"``: the answer the paper
itself states (draws, prints) when the file records it apart from ``"expected"`` (in the same notation); the
errata report (:mod:`ceplab.workbench.report`) compares it with what oracle and engine compute. A
``"paper_answer"`` of a shared-rules case belongs to its default case, not to the ``"options"`` variant.

The folder's ``findings-index.json`` (:data:`FINDINGS_INDEX`) is not a case file: it indexes the findings of
``FINDINGS.md`` for the errata report.
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ceplab.semantics.errors import InputError



class PaperFileError(InputError):
    """A papers-check file that cannot be read."""


#: The file of a papers-check folder that indexes its ``FINDINGS.md`` (read by :mod:`ceplab.workbench.report`;
#: not a case file).
FINDINGS_INDEX = "findings-index.json"


@dataclass
class PaperCase:
    """One worked example: where it comes from, the query text, the stream, the switches and the
    paper's expected results (canonical JSON forms, or None when the file states none)."""

    lang: str
    file: str
    name: str
    query: str
    stream: Any
    options: dict = field(default_factory=dict)
    expected: list | None = None
    note: str = ""
    provenance: str = ""
    checked: bool = True
    per_position: dict | None = None
    result_head: str | None = None
    paper_answer: list | None = None


@dataclass
class PaperVerdict:
    """The verdict of one :class:`PaperCase`.

    ``compare`` is the oracle-versus-engine verdict (``agree``, ``disagree``, ``undecided``) or
    ``oracle only`` when the engine does not apply (``engine_note`` says why).
    """

    case: PaperCase
    oracle: list | None = None
    engine: list | None = None
    compare: str = "agree"
    engine_note: str = ""
    problems: list[str] = field(default_factory=list)
    oracle_matches: bool | None = None
    engine_matches: bool | None = None
    per_position_ok: bool | None = None
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return (self.compare in ("agree", "oracle only") and self.oracle is not None
                and self.oracle_matches is not False and self.engine_matches is not False
                and self.per_position_ok is not False)

    @property
    def bucket(self) -> str:
        """``agree`` (every applicable check passed), ``undecided``, ``engine_limit`` (the engine
        overran its per-case limit) or ``disagree``."""
        if self.ok:
            return "agree"
        if self.compare == "engine_limit":
            return "engine_limit"
        if self.compare == "undecided" or (self.compare == "oracle only" and self.oracle is None):
            return "undecided"
        return "disagree"

    @property
    def verdict(self) -> str:
        if self.ok:
            s = "ok" if self.case.expected is not None else "ok (no expected results)"
            return s + (f" (oracle only: {self.engine_note})" if self.compare == "oracle only"
                        else "")
        if self.bucket == "undecided":
            return "undecided" + (f": {self.problems[0]}" if self.problems else "")
        what = []
        if self.compare == "engine_limit":
            what.append("engine limit" + (f" ({self.problems[0]})" if self.problems else ""))
        if self.compare == "disagree":
            what.append("oracle != engine")
        if self.oracle_matches is False:
            what.append("oracle != paper")
        if self.engine_matches is False:
            what.append("engine != paper")
        if self.per_position_ok is False:
            what.append("per-position view != paper")
        return "FAIL: " + ", ".join(what)

    def to_json(self) -> dict[str, Any]:
        c = self.case
        return {"lang": c.lang, "file": c.file, "name": c.name, "query": c.query,
                "options": c.options, "result_head": c.result_head, "provenance": c.provenance,
                "expected": c.expected,
                "oracle": self.oracle, "engine": self.engine, "compare": self.compare,
                "engine_note": self.engine_note, "problems": self.problems,
                "oracle_matches": self.oracle_matches, "engine_matches": self.engine_matches,
                "per_position_ok": self.per_position_ok, "ok": self.ok, "verdict": self.verdict,
                "seconds": round(self.seconds, 6)}


# ----------------------------------------------------------------------------- loading
def _lang_hook(lang: str | None, key: str) -> Any:
    """The language's ``PaperFormat`` member ``key`` (None without a language)."""
    if lang is None:
        return None
    from ceplab.workbench import language

    return getattr(language.get(lang).paper_format, key)


def _stream(value: Any, named: dict, file: str, attrs: list | None = None,
            lang: str | None = None) -> Any:
    from ceplab.semantics.events import Event, Stream, parse_jsonl, read_stream

    if isinstance(value, str) and value in named:
        value = named[value]
    hook = _lang_hook(lang, "stream")
    if hook is not None:
        return hook(value, file)
    if isinstance(value, str):
        p = Path(file).parent / value
        if value.endswith((".jsonl", ".csv")):
            return read_stream(p)
        types = list(value.replace(" ", ""))
        if attrs is not None and len(attrs) != len(types):
            raise PaperFileError(f"stream {value!r} has {len(types)} events but {len(attrs)} attrs",
                                 file)
        return Stream([Event(t, i, (attrs[i] if attrs else None), i) for i, t in enumerate(types)],
                      file)
    if isinstance(value, dict) and "events" in value:
        value = value["events"]
    if isinstance(value, list):
        lines = []
        for i, ev in enumerate(value):
            if isinstance(ev, str):
                ev = {"type": ev}
            if not isinstance(ev, dict):
                raise PaperFileError(f"event {i} of a stream must be an object", file)
            ev = dict(ev)
            ev.setdefault("time", i)
            lines.append(json.dumps(ev))
        return parse_jsonl("\n".join(lines) + ("\n" if lines else ""), file)
    raise PaperFileError(f"cannot read a stream from {value!r}", file)


def _with_strategy(lang: str, text: str, strategy: str) -> str:
    hook = _lang_hook(lang, "with_strategy")
    if hook is None:
        raise PaperFileError(f"language {lang} cannot combine formulas with strategies")
    return hook(text, strategy)


def _ces(e: Any) -> Any:
    return e.get("ces", e.get("results")) if isinstance(e, dict) else e


def load_file(path: str | Path, lang: str | None = None) -> list[PaperCase]:
    """The cases of one papers-check JSON file (see the module docstring for the layouts).

    Raises:
        PaperFileError: unreadable file, bad JSON (with line and column) or bad structure.
    """
    p = Path(path)
    lang = lang or p.parent.name
    file = str(p)
    try:
        doc = json.loads(p.read_text(encoding="utf-8"))
    except OSError as e:
        raise PaperFileError(f"cannot read: {e}", file) from None
    except json.JSONDecodeError as e:
        raise PaperFileError(f"malformed JSON: {e.msg}", file, e.lineno, e.colno) from None
    if isinstance(doc, list):
        doc = {"cases": doc}
    if not isinstance(doc, dict):
        raise PaperFileError("expected a JSON object", file)
    named = doc.get("streams") or {}
    shared = doc.get("stream", doc.get("stream_file"))
    shared_opts = dict(doc.get("options") or {})
    out: list[PaperCase] = []
    formulas = doc.get("formulas") or {}
    head = doc.get("result_head")
    if doc.get("rules") is not None and head is not None:
        out.extend(_pattern_cases(doc, lang, file, named, shared, shared_opts, head))
    if formulas:
        if shared is None:
            raise PaperFileError("'formulas' need a shared 'stream' or 'stream_file'", file)
        stream = _stream(shared, named, file, lang=lang)
        per_pos = doc.get("per_position") or {}
        for fname, ftext in formulas.items():
            for strat, e in (doc.get("expected") or {}).get(fname, {}).items():
                note = " ".join(str(e.get(k)) for k in ("paper_states",)
                                if isinstance(e, dict) and e.get(k))
                pp = per_pos.get(fname) if strat == "ALL" else None
                out.append(PaperCase(
                    lang=lang, file=file, name=f"{fname} {strat}",
                    query=_with_strategy(lang, ftext, strat), stream=stream,
                    options=shared_opts, expected=_ces(e), note=note,
                    provenance=str(e.get("provenance", "")) if isinstance(e, dict) else "",
                    per_position=pp))
    for group in ("cases", "examples", "adversarial"):
        if group == "cases" and doc.get("rules") is not None and head is not None:
            continue  # the shared-rules layout (above)
        for i, c in enumerate(doc.get(group) or []):
            if not isinstance(c, dict):
                raise PaperFileError(f"{group}[{i}] is not an object", file)
            query = c.get("query", c.get("formula"))
            if not isinstance(query, str):
                raise PaperFileError(f"{group}[{i}] has no 'query' text", file)
            sv = c.get("stream", shared)
            if sv is None:
                raise PaperFileError(f"{group}[{i}] has no stream", file)
            stream = _stream(sv, named, file, c.get("attrs"), lang)
            name = str(c.get("name", c.get("id", f"{group}[{i}]")))
            opts = {**shared_opts, **(c.get("options") or c.get("set") or {})}
            common = dict(lang=lang, file=file, stream=stream, options=opts,
                          note=str(c.get("note", "")), provenance=str(c.get("provenance", "")),
                          checked=c.get("check", True) is not False,
                          result_head=c.get("result_head"), paper_answer=c.get("paper_answer"))
            exp = c.get("expected", c.get("results"))
            if isinstance(exp, dict):
                for strat, e in exp.items():
                    out.append(PaperCase(name=f"{name} {strat}",
                                         query=_with_strategy(lang, query, strat),
                                         expected=_ces(e), **common))
            else:
                if exp is None and "expected_all" in c:
                    exp = c["expected_all"]
                out.append(PaperCase(name=name, query=query, expected=exp, **common))
    if not out:
        raise PaperFileError("no cases ('formulas' with 'expected', or 'cases')", file)
    expand = _lang_hook(lang, "expected")
    if expand is not None:   # a compact notation for expected results
        for c in out:
            try:
                c.expected = expand(c.expected, file)
                if c.paper_answer is not None:
                    c.paper_answer = expand(c.paper_answer, file)
            except (TypeError, ValueError, KeyError) as e:
                raise PaperFileError(f"{c.name}: bad expected results: {e}", file) from None
    return out


def _pattern_cases(doc: dict, lang: str, file: str, named: dict, shared: Any, shared_opts: dict,
                   head: str) -> list[PaperCase]:
    """The shared-rules x patterns layout (see the module docstring)."""
    make = _lang_hook(lang, "pattern_query")
    if make is None:
        raise PaperFileError(f"language {lang} cannot build queries from 'rules' and 'pattern'", file)
    if shared is None:
        raise PaperFileError("'rules' with 'result_head' need a shared 'stream'", file)
    stream = _stream(shared, named, file, lang=lang)
    out = []
    for i, c in enumerate(doc.get("cases") or []):
        if not isinstance(c, dict) or not isinstance(c.get("pattern"), str):
            raise PaperFileError(f"cases[{i}] needs a 'pattern' text", file)
        name = str(c.get("name", f"cases[{i}]"))
        query = make(doc["rules"], head, c["pattern"])
        common = dict(lang=lang, file=file, stream=stream, query=query,
                      provenance=str(c.get("provenance", "")), result_head=head)
        out.append(PaperCase(name=name, options=dict(shared_opts), expected=c.get("expected"),
                             note=str(c.get("note", "")), paper_answer=c.get("paper_answer"), **common))
        if c.get("options") and "expected_with_options" in c:
            opts = {**shared_opts, **c["options"]}
            tag = ", ".join(f"{k}={v}" for k, v in c["options"].items())
            out.append(PaperCase(name=f"{name} [{tag}]", options=opts,
                                 expected=c["expected_with_options"],
                                 note=str(c.get("note", "")), **common))
    return out


def case_files(lang: str) -> list[Path]:
    """The language's ``papers_dir``/``*.json`` (``papers-check/<lang>``) but :data:`FINDINGS_INDEX`, sorted; empty
    without one."""
    from ceplab.workbench import language

    d = language.get(lang).papers_dir
    return sorted(f for f in d.glob("*.json") if f.name != FINDINGS_INDEX) if d is not None else []


def load_cases(lang: str) -> list[PaperCase]:
    """All paper cases of a language (empty if it has no papers-check folder)."""
    out: list[PaperCase] = []
    for f in case_files(lang):
        out.extend(load_file(f, lang))
    return out


def select(paper: str | None) -> list[PaperCase]:
    """Cases for ``ceplab papers-check [PAPER]``: all, a language name, ``LANG/STEM``, a file stem
    (the first language that has it) or a path.

    Raises:
        LookupError: nothing matches (the message lists what exists).
    """
    from ceplab.workbench import language

    langs = language.names()
    if paper is None:
        return [c for lang in langs for c in load_cases(lang)]
    if paper in langs:
        return load_cases(paper)
    p = Path(paper)
    if p.is_file():
        return load_file(p)
    lang_part, slash, stem = paper.partition("/")
    if slash and lang_part in langs:
        for f in case_files(lang_part):
            if stem in (f.stem, f.name):
                return load_file(f, lang_part)
    for lang in langs:
        for f in case_files(lang):
            if f.stem == paper or f.name == paper:
                return load_file(f, lang)
    known = [f"{lang}/{f.stem}" for lang in langs for f in case_files(lang)]
    raise LookupError(f"no papers-check cases named {paper!r}; known: "
                      + (", ".join(langs + [k.split('/')[1] for k in known]) or "(none)"))


# ----------------------------------------------------------------------------- checking
def _canon(xs: Any) -> list:
    from ceplab.workbench.compare import sort_json

    return sort_json(json.loads(json.dumps(x)) for x in xs)


def _determined_at(L: Any, case: PaperCase, r: Any) -> int:
    """The position at which the result ``r`` (canonical JSON) is determined, for ``per_position``
    checks of cases the engine does not run."""
    if L.result_end is None:
        raise PaperFileError(f"{case.name}: 'per_position' on an oracle-only case needs a language with "
                             "result_end", case.file)
    return L.result_end(L.result_from_json(r))


def check_case(case: PaperCase, limits: Any = None, engine_limits: Any = None) -> PaperVerdict:
    """Run one case through oracle and engine and against the paper's expected results
    (``engine_limits``: the engine's per-case limit, default that of ``compare``)."""
    from ceplab.workbench import language
    from ceplab.workbench.compare import compare, options_from_kv, run_oracle, sort_json

    L = language.get(case.lang)
    t0 = time.perf_counter()
    options = options_from_kv(L.options, [f"{k}={v}" for k, v in case.options.items()])
    where = f"{case.file}[{case.name}]"
    tj = L.result_to_json
    v = PaperVerdict(case=case)
    emissions = None
    if case.checked:
        q = L.parse(case.query, where)
        try:
            rep = compare(L, q, case.stream, options, limits, engine_limits)
        except InputError as e:  # the engine refuses the query (UnsupportedError)
            v.compare, v.engine_note = "oracle only", f"engine: {e.message}"
        else:
            v.compare, v.problems = rep.verdict, list(rep.problems)
            if rep.undecided:
                v.problems.insert(0, rep.undecided)
            if rep.engine_limit:
                v.problems.insert(0, rep.engine_limit)
            v.oracle = (None if rep.oracle_results is None
                        else sort_json(tj(r) for r in rep.oracle_results))
            if rep.engine_limit is None:   # an engine stopped at its limit has no answer
                v.engine = sort_json(tj(r) for r in rep.engine_results)
                emissions = rep.emissions
    else:
        unchecked = L.paper_format.parse_unchecked
        if unchecked is None:
            raise PaperFileError(f"{case.name}: 'check': false needs PaperFormat.parse_unchecked",
                                 case.file)
        q = unchecked(case.query, where)
        v.compare = "oracle only"
        v.engine_note = L.paper_format.unchecked_note or "checked by the oracle only ('check': false)"
    if v.compare == "oracle only":
        results, undecided, _secs, _stats = run_oracle(L, q, case.stream, options, limits)
        v.oracle = None if results is None else sort_json(tj(r) for r in results)
        if undecided:
            v.problems.append(undecided)
    if case.result_head is not None:
        project = L.paper_format.project_results
        if project is None:
            raise PaperFileError(f"{case.name}: 'result_head' needs PaperFormat.project_results",
                                 case.file)
        if v.oracle is not None:
            v.oracle = project(v.oracle, case.result_head)
        if v.engine is not None:
            v.engine = project(v.engine, case.result_head)
    if case.expected is not None:
        exp = _canon(case.expected)
        if v.oracle is not None:
            v.oracle_matches = _canon(v.oracle) == exp
        if v.engine is not None:
            v.engine_matches = _canon(v.engine) == exp
    if case.per_position is not None:
        want = {int(k): _canon(x) for k, x in case.per_position.items()}
        if emissions is not None:
            got: dict[int, list] = {}
            for r, pos in emissions:
                got.setdefault(-1 if pos is None else pos, []).append(tj(r))
        elif v.oracle is not None:
            got = {}
            for r in v.oracle:
                got.setdefault(_determined_at(L, case, r), []).append(r)
        else:
            got = None
        if got is not None:
            v.per_position_ok = {k: _canon(x) for k, x in got.items()} == want
    v.seconds = time.perf_counter() - t0
    return v


def check(paper: str | None = None, limits: Any = None, progress: bool = True,
          engine_limits: Any = None) -> list[PaperVerdict]:
    """Verdicts for the selected cases (see :func:`select`), with a progress bar on stderr."""
    from ceplab.workbench.spark import _progress

    cases = select(paper)
    out = []
    with _progress(progress and bool(cases)) as bar:
        task = bar.add_task("papers-check", total=len(cases), rate="")
        for c in cases:
            out.append(check_case(c, limits, engine_limits))
            bar.update(task, advance=1)
    return out


def table(verdicts: list[PaperVerdict]) -> Any:
    """A rich table of verdicts (long result lists are shown as counts; ∅ is the empty set)."""
    from rich.table import Table

    t = Table(title="ceplab papers-check")
    for col in ("lang", "file", "case", "prov", "paper", "oracle", "engine"):
        t.add_column(col, overflow="fold")
    t.add_column("verdict", no_wrap=True)

    def fmt(x: list | None) -> str:
        if x is None:
            return "-"
        if not x:
            return "∅"
        s = " ".join(json.dumps(r, separators=(",", ":")) for r in x)
        return s if len(s) <= 22 else f"{len(x)} results"

    notes: dict[str, int] = {}
    for v in verdicts:
        c = v.case
        style = "green" if v.ok else ("yellow" if v.bucket == "undecided" else "bold red")
        text = v.verdict
        if v.ok and v.compare == "oracle only":
            n = notes.setdefault(v.engine_note, len(notes) + 1)
            text = f"ok, oracle only [{n}]"
        t.add_row(c.lang, Path(c.file).stem, c.name, c.provenance or "-", fmt(c.expected),
                  fmt(v.oracle), fmt(v.engine), f"[{style}]{text}[/]")
    ok = sum(v.ok for v in verdicts)
    lines = [f"{ok}/{len(verdicts)} ok; prov: P = stated by the paper, D = derived"]
    for lang in dict.fromkeys(v.case.lang for v in verdicts):
        legend = _lang_hook(lang, "provenance_legend")
        if legend:
            lines.append(f"prov ({lang}): {legend}")
    lines += [f"[{n}] {note}" for note, n in notes.items()]
    t.caption = "\n".join(lines)
    return t
