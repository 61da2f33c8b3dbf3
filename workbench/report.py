"""One errata report for every paper: ``ceplab papers-check --report [--out DIR]``.

It runs every language's papers-check cases (:mod:`ceplab.workbench.papers`, the worked examples of
``papers-check/<lang>/*.json``) through oracle and engine, reads each language's findings index
(``papers-check/<lang>/findings-index.json``, :data:`ceplab.workbench.papers.FINDINGS_INDEX`; the prose is
``FINDINGS.md`` next to it) and writes, into ``DIR`` (default ``papers-check/report``):

* ``REPORT.md`` and ``REPORT.html``: the same content (one block structure, two writers; the HTML writer is
  a small hand-written one, no dependency);
* ``cases/<lang>/<finding>-<n><suffix>`` and ``.jsonl``: the query and stream of every case a finding names,
  so that the ``ceplab compare LANG QUERY STREAM [--set k=v ...]`` command printed beside the finding runs
  from the repository root;
* ``figures/<lang>/<finding>-<n>.svg`` (the name of the case's files): a small figure (6 in wide, 1.6 in high,
  taller only for many lanes or rows, up to 3 in) of the same case, :func:`figure_svg`: the stream's events
  on a time axis (one lane per event type, or per stream for CQELS-QL and SPAseq; dots for points, bars for
  intervals, labelled with the atom text) and below it, in red, the answer oracle and engine computed: CEL
  complex events as the events at their positions, ETALIS and EP-SPARQL results as their intervals,
  CQELS-QL results as their intervals with ticks at the times each is output, SPAseq matches (which carry no
  interval) as the times of their matched events. ``REPORT.md`` shows it with ``![..](figures/...)``,
  ``REPORT.html`` with an ``<img>`` linking to it (relative paths, whatever ``DIR`` is).

The report is deterministic (no time stamps, no timings; languages in registry order, cases in file
order, results sorted; the figures drawn with matplotlib's object API under the ``default`` style, a fixed
``svg.hashsalt``, text as text, no date or creator metadata), so ``tests/shared/test_errata_report.py``
regenerates it and compares it byte for byte, figures included, with the checked-in copy. The figures are
bound to the matplotlib version that drew them: another version may write other bytes (regenerate).

Case verdicts (:data:`VERDICTS`): ``confirmed``, ``erratum``, ``ambiguous`` (a named switch decides; the
report says which value gives the paper's answer when the paper states one) and ``failed`` (oracle and
engine disagree, or do not give the file's expected results: a problem of ceplab, not of the paper).
Finding kinds (:data:`KINDS`): only ``paper erratum`` counts as an erratum of the published paper.

The findings index of a language is one JSON object ``{"findings": [F, ...]}``; each ``F`` has ``"id"``,
``"title"``, ``"kind"`` (one of :data:`KINDS`), ``"where"`` (the place in the paper and the section of
``docs/semantics/<lang>.md``), ``"summary"``, optional ``"switch"`` (the switch that selects a reading),
``"paper_value"`` (which value gives the paper's stated answer, free text), ``"cases"`` (papers-check case
references ``"FILE_STEM/CASE NAME"``: the finding's minimal cases) and ``"no_case"`` (why there is no
replayable case, when ``"cases"`` is empty).
"""
from __future__ import annotations

import dataclasses
import html
import json
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ceplab.workbench.papers import FINDINGS_INDEX, PaperCase, PaperFileError, PaperVerdict

#: The kinds of findings, with what they mean (in this order in the report).
KINDS: dict[str, str] = {
    "paper erratum": "the published paper is wrong: a stated result, a printed definition or two of its "
                     "statements that contradict each other",
    "ambiguity": "the paper leaves the semantics open (a definition lost or never given); a named switch "
                 "chooses the reading",
    "observation": "a consequence of the paper's definitions worth knowing (surprising, or a property "
                   "checked to hold); not an error",
    "reconstruction": "a correction of our own reconstruction (docs/semantics/<lang>.md) or notes, not of "
                      "the paper",
    "implementation": "a real implementation departs from the paper",
}

#: The verdicts of one worked example, with what they mean.
VERDICTS: dict[str, str] = {
    "confirmed": "oracle and engine agree with each other and with what the paper states",
    "erratum": "oracle and engine agree with each other but not with what the paper states",
    "ambiguous": "the result depends on a named switch (the detail names it and the value that gives the "
                 "paper's answer)",
    "failed": "oracle and engine disagree, or do not give the case file's expected results (a ceplab problem)",
}

DEFAULT_OUT = Path("papers-check") / "report"


class ReportError(PaperFileError):
    """A findings index that cannot be read or names a case that does not exist."""


@dataclass(frozen=True)
class Finding:
    """One finding of a language's ``FINDINGS.md``, as indexed by its ``findings-index.json``."""

    lang: str
    id: str
    title: str
    kind: str
    where: str
    summary: str
    switch: str | None = None
    paper_value: str | None = None
    cases: tuple[str, ...] = ()
    no_case: str = ""


@dataclass
class CaseRow:
    """One worked example in the report: its papers-check verdict, the report's verdict and why."""

    verdict: PaperVerdict
    label: str
    detail: str
    findings: list[str] = field(default_factory=list)


@dataclass
class Replay:
    """A finding's minimal case written to files, with the command that replays it and its answer."""

    finding: str
    ref: str
    query_file: Path
    stream_file: Path
    command: str
    options: dict
    head: str | None
    answer: list
    timeline: str
    query: str
    figure: Path | None = None


@dataclass
class PaperSection:
    """The report's part for one language (one paper)."""

    lang: str
    paper: str
    rows: list[CaseRow]
    findings: list[Finding]
    replays: dict[str, list[Replay]]


# ----------------------------------------------------------------------------- reading
def case_ref(case: PaperCase) -> str:
    """``FILE_STEM/CASE NAME``: how a findings index names a papers-check case."""
    return f"{Path(case.file).stem}/{case.name}"


def load_findings(lang: str) -> list[Finding]:
    """The findings of ``lang`` from ``papers-check/<lang>/findings-index.json`` (empty without one).

    Raises:
        ReportError: unreadable or malformed JSON, a missing field, an unknown kind or a repeated id.
    """
    from ceplab.workbench import language

    d = language.get(lang).papers_dir
    if d is None or not (d / FINDINGS_INDEX).is_file():
        return []
    p = d / FINDINGS_INDEX
    file = str(p)
    try:
        doc = json.loads(p.read_text(encoding="utf-8"))
    except OSError as e:
        raise ReportError(f"cannot read: {e}", file) from None
    except json.JSONDecodeError as e:
        raise ReportError(f"malformed JSON: {e.msg}", file, e.lineno, e.colno) from None
    items = doc.get("findings") if isinstance(doc, dict) else None
    if not isinstance(items, list):
        raise ReportError("expected an object with a 'findings' list", file)
    out: list[Finding] = []
    seen: set[str] = set()
    for i, f in enumerate(items):
        if not isinstance(f, dict):
            raise ReportError(f"findings[{i}] is not an object", file)
        for key in ("id", "title", "kind", "where", "summary"):
            if not isinstance(f.get(key), str) or not f[key]:
                raise ReportError(f"findings[{i}] needs a text '{key}'", file)
        if f["kind"] not in KINDS:
            raise ReportError(f"findings[{i}] ({f['id']}): kind {f['kind']!r} is not one of "
                              + ", ".join(KINDS), file)
        if f["id"] in seen:
            raise ReportError(f"findings[{i}]: id {f['id']!r} repeated", file)
        seen.add(f["id"])
        cases = f.get("cases") or []
        if not isinstance(cases, list) or not all(isinstance(c, str) for c in cases):
            raise ReportError(f"findings[{i}] ({f['id']}): 'cases' must be a list of 'FILE_STEM/CASE NAME'", file)
        if not cases and not f.get("no_case"):
            raise ReportError(f"findings[{i}] ({f['id']}): give 'cases' or say why there is none ('no_case')",
                              file)
        out.append(Finding(lang=lang, id=f["id"], title=f["title"], kind=f["kind"], where=f["where"],
                           summary=f["summary"], switch=f.get("switch"), paper_value=f.get("paper_value"),
                           cases=tuple(cases), no_case=str(f.get("no_case") or "")))
    return out


# ----------------------------------------------------------------------------- classifying
def _canon(xs: Any) -> list:
    from ceplab.workbench.compare import sort_json

    return sort_json(json.loads(json.dumps(x)) for x in (xs or []))


def _stream_key(lang: Any, stream: Any) -> str:
    return json.dumps(lang.stream_to_json(stream), sort_keys=True)


def _same_claim(L: Any, a: PaperCase, b: PaperCase) -> bool:
    """Two cases of one claim under different switches: same file, query, stream and head."""
    return (a.file == b.file and a.query == b.query and a.result_head == b.result_head
            and a.options != b.options and _stream_key(L, a.stream) == _stream_key(L, b.stream))


def _default(L: Any, name: str) -> Any:
    for f in dataclasses.fields(L.options):
        if f.name == name:
            return f.default
    raise KeyError(name)


def _kv(options: dict) -> str:
    return ", ".join(f"`{k}={_value(v)}`" for k, v in sorted(options.items())) or "defaults"


def _value(v: Any) -> str:
    return v if isinstance(v, str) else json.dumps(v)


def classify(lang: str, verdicts: list[PaperVerdict], findings: list[Finding]) -> list[CaseRow]:
    """The report's verdict of every case (:data:`VERDICTS`), in the order of ``verdicts``.

    ``failed`` when the papers-check verdict is not ok. With a ``paper_answer`` in the case file: confirmed
    when oracle and engine give it, ``ambiguous`` when they give it on the same claim under other switch
    values (named), ``erratum`` otherwise. Without one, the findings that name the case decide: an ``ambiguity``
    or ``paper erratum`` finding with a ``switch`` makes it ``ambiguous``, a ``paper erratum`` finding without
    one an ``erratum``; all other cases (those of implementation, reconstruction and observation findings
    too) are ``confirmed``.

    Raises:
        ReportError: a finding names a case that no papers-check file of ``lang`` has.
    """
    from ceplab.workbench import language

    L = language.get(lang)
    refs = {case_ref(v.case) for v in verdicts}
    named: dict[str, list[Finding]] = {}
    for f in findings:
        for r in f.cases:
            if r not in refs:
                raise ReportError(f"finding {f.id} names the case {r!r}, which no papers-check file of {lang} "
                                  "has (FILE_STEM/CASE NAME)", str(L.papers_dir / FINDINGS_INDEX))
            named.setdefault(r, []).append(f)
    rows = []
    for v in verdicts:
        c = v.case
        fs = named.get(case_ref(c), [])
        ids = [f.id for f in fs]
        if not v.ok:
            rows.append(CaseRow(v, "failed", v.verdict, ids))
            continue
        if c.paper_answer is not None:
            pa = _canon(c.paper_answer)
            got = _canon(v.oracle)
            if pa == got:
                rows.append(CaseRow(v, "confirmed", "oracle and engine give the answer the paper states", ids))
                continue
            alt = [w for w in verdicts if w is not v and w.ok and _same_claim(L, w.case, c)
                   and _canon(w.oracle) == pa]
            if alt:
                o = alt[0].case.options
                diff = {k: o[k] for k in sorted(o) if c.options.get(k) != o[k]}
                rows.append(CaseRow(v, "ambiguous", f"the paper states {fmt_results(pa)}, which {_kv(diff)} gives "
                                    f"(case '{alt[0].case.name}'); with {_kv(c.options)}: {fmt_results(got)}", ids))
            else:
                rows.append(CaseRow(v, "erratum", f"the paper states {fmt_results(pa)}; oracle and engine give "
                                    f"{fmt_results(got)}", ids))
            continue
        switched = [f for f in fs if f.switch and f.kind in ("ambiguity", "paper erratum")]
        if switched:
            f = switched[0]
            try:
                val = c.options.get(f.switch, _default(L, f.switch))
            except KeyError:
                raise ReportError(f"finding {f.id}: {lang} has no switch {f.switch!r}",
                                  str(L.papers_dir / FINDINGS_INDEX)) from None
            paper = (f"paper: {f.paper_value}" if f.paper_value
                     else "the paper states no answer that tells the readings apart")
            rows.append(CaseRow(v, "ambiguous", f"depends on `{f.switch}` (here `{f.switch}={_value(val)}`); "
                                f"{paper} (finding {f.id})", ids))
        elif any(f.kind == "paper erratum" for f in fs):
            f = next(f for f in fs if f.kind == "paper erratum")
            rows.append(CaseRow(v, "erratum", f"finding {f.id}: {f.title}", ids))
        else:
            rows.append(CaseRow(v, "confirmed", "; ".join(f"finding {f.id} ({f.kind})" for f in fs), ids))
    for r in rows:
        if r.verdict.compare == "oracle only" and r.label != "failed":
            r.detail = "; ".join(x for x in (r.detail, f"oracle only ({r.verdict.engine_note})") if x)
    return rows


# ----------------------------------------------------------------------------- formatting
_IRI = re.compile(r"<?http://example\.org/([^<>\s\"]*)>?")
_TYPED = re.compile(r'"(.*)"\^\^<[^<>]*>')


def _shorten(x: Any) -> Any:
    """A JSON value with every string term in compact form: example.org IRIs as ``:name``, typed literals as
    their lexical form."""
    if isinstance(x, str):
        m = _TYPED.fullmatch(x)
        if m:
            return m.group(1)
        m = _IRI.fullmatch(x)
        return f":{m.group(1)}" if m else x
    if isinstance(x, list):
        return [_shorten(y) for y in x]
    if isinstance(x, dict):
        return {k: _shorten(v) for k, v in x.items()}
    return x


def _short(x: Any) -> str:
    """One term or value as text in compact form (:func:`_shorten`)."""
    x = _shorten(x)
    return x if isinstance(x, str) else json.dumps(x, ensure_ascii=False)


def _event_parts(L: Any, e: Any) -> tuple[int, int, str, str, str]:
    """``(time, end, type, attribute text, graph text)`` of one event from the language's ``event_row``, all
    text in compact form (:func:`_short`); ``end`` is the time for a point event."""
    t, typ, attrs = L.event_row(e)
    attrs = dict(attrs or {})
    end = attrs.pop("end", t)
    inner, graph = [], ""
    for k in sorted(attrs):
        val = attrs[k]
        if isinstance(val, list) and val and all(isinstance(x, list) for x in val):
            graph = " . ".join(" ".join(_short(y) for y in x) for x in val)
        elif isinstance(val, list):
            if val:
                inner.append(",".join(_short(y) for y in val))
        else:
            inner.append(f"{k}={_short(val)}")
    return t, end, _short(typ), (f"({','.join(inner)})" if inner else ""), graph


def timeline(lang: str, stream: Any) -> str:
    """A one-line text timeline of a stream (``a@1 b(1,2)@2-4 :s@3{:x :p :o}``) from the language's
    ``event_row`` (time, type, attributes; an ``end`` attribute other than the time makes an interval)."""
    from ceplab.workbench import language

    L = language.get(lang)
    parts = []
    for e in stream:
        t, end, typ, inner, graph = _event_parts(L, e)
        at = f"@{t}" if end == t else f"@{t}-{end}"
        parts.append(typ + inner + at + ("{" + graph + "}" if graph else ""))
    return " ".join(parts)


def fmt_results(xs: list | None, limit: int = 0) -> str:
    """Results as inline code (``∅`` for none); with ``limit`` > 0, longer lists are given as a count."""
    if xs is None:
        return "-"
    if not xs:
        return "∅"
    s = " ".join(json.dumps(_shorten(r), separators=(",", ":"), ensure_ascii=False) for r in xs)
    if limit and len(s) > limit:
        return f"{len(xs)} results"
    return f"`{s}`"


# ----------------------------------------------------------------------------- figures
#: Figure geometry, in inches (width fixed; the height grows with the rows beyond what 1.6 in holds).
FIG_WIDTH, FIG_MIN_HEIGHT, FIG_MAX_HEIGHT = 6.0, 1.6, 3.0
_ROW_IN, _LEFT_IN, _RIGHT_IN, _TOP_IN, _BOTTOM_IN, _GAP_IN = 0.16, 1.15, 0.12, 0.2, 0.3, 0.22
#: At most this many stream lanes by type (more types share packed lanes) and answer rows (the rest counted).
MAX_LANES, MAX_ANSWER_ROWS = 6, 8
_LABEL_CHARS = 22
_STREAM_COLOUR, _ANSWER_COLOUR = "#33669a", "#c0392b"
_FONT = 5.5


def _clip(text: str, n: int = _LABEL_CHARS) -> str:
    return text if len(text) <= n else text[:n - 1] + "…"


def _mapping_text(m: dict) -> str:
    return " ".join(f"{k}={_short(m[k])}" for k in sorted(m))


@dataclass
class _Row:
    """One answer row of a figure: bars (closed intervals), dots (points joined by a line) and ticks (the
    times at which a result is output)."""

    label: str
    bars: list[tuple[int, int]] = field(default_factory=list)
    dots: list[int] = field(default_factory=list)
    ticks: list[int] = field(default_factory=list)

    def key(self) -> tuple:
        xs = [x for b in self.bars for x in b] + self.dots
        return (min(xs, default=0), max(xs, default=0), self.label)


def _answer_rows(positions: bool, answer: list, times: list[int], head: str | None) -> tuple[list[_Row], int]:
    """The drawable rows of an answer and the number of results with nothing to draw.

    By shape: with ``positions`` (the language's ``PaperFormat.answers_are_positions``, CEL) a result that is a list
    of integers is a complex event's positions, drawn at the times of the events at those positions; a list ending in two integers (ETALIS, ``[atom, start, end]`` or, with a head,
    ``[start, end]``) an interval; an object with ``interval`` (CQELS-QL) one bar per interval and mapping,
    with a tick at every time it is output; an object with ``start`` and ``end`` (EP-SPARQL) an interval;
    an object with ``events`` (SPAseq) the matched events' times."""
    rows: dict[str, _Row] = {}
    order: list[_Row] = []
    skipped = 0
    for r in answer:
        if positions and isinstance(r, list) and r and all(isinstance(x, int) for x in r):
            if all(0 <= x < len(times) for x in r):
                order.append(_Row("{" + ",".join(map(str, r)) + "}", dots=[times[x] for x in r]))
                continue
        elif isinstance(r, list) and len(r) >= 2 and all(isinstance(x, int) for x in r[-2:]):
            label = " ".join(_short(x) for x in r[:-2]) or (head or "")
            order.append(_Row(label, bars=[(r[-2], r[-1])]))
            continue
        elif isinstance(r, dict) and isinstance(r.get("interval"), list) and len(r["interval"]) == 2:
            label = _mapping_text(r.get("mapping") or {})
            k = json.dumps([r["interval"], label])
            if k not in rows:
                rows[k] = _Row(label, bars=[tuple(r["interval"])])
                order.append(rows[k])
            if isinstance(r.get("time"), int):
                rows[k].ticks.append(r["time"])
            continue
        elif isinstance(r, dict) and isinstance(r.get("start"), int) and isinstance(r.get("end"), int):
            label = (_mapping_text(r["mapping"]) if isinstance(r.get("mapping"), dict)
                     else " ".join(_short(x) for x in r.get("triple") or []))
            if isinstance(r.get("count"), int) and r["count"] != 1:
                label = f"{r['count']}× {label}"
            order.append(_Row(label, bars=[(r["start"], r["end"])]))
            continue
        elif isinstance(r, dict) and isinstance(r.get("events"), list):
            ts = [ev[-1] for ev in r["events"] if isinstance(ev, list) and ev and isinstance(ev[-1], int)]
            label = (f"w{r['window']} " if "window" in r else "") + _mapping_text(r.get("mapping") or {})
            order.append(_Row(label, dots=ts, ticks=[r["time"]] if isinstance(r.get("time"), int) else []))
            continue
        skipped += 1
    for row in order:
        row.ticks = sorted(set(row.ticks))
    return sorted(order, key=_Row.key), skipped


def _pack(items: list[tuple[float, float]]) -> list[int]:
    """Greedy interval packing: the sub-lane of every ``(from, to)`` extent (in the given order), so that
    extents in one sub-lane do not overlap."""
    ends: list[float] = []
    out = []
    for a, b in items:
        for i, e in enumerate(ends):
            if a > e:
                ends[i] = b
                out.append(i)
                break
        else:
            ends.append(b)
            out.append(len(ends) - 1)
    return out


def figure_svg(lang: str, stream: Any, answer: list, title: str, head: str | None = None) -> str:
    """A small SVG figure of a case: its stream on a time axis and the case's answer below it.

    Top panel: one lane per event type (ETALIS, CEL, EP-SPARQL: the predicate) or per stream (CQELS-QL,
    SPAseq: the stream IRI), in order of first occurrence; with more than :data:`MAX_LANES` of them all events
    share packed lanes. A point event is a dot, an interval (an ``end`` other than the time) a bar; each is
    labelled with its atom text (type and arguments; for RDF events the triples), clipped; events whose
    labels would overlap go to sub-lanes. Bottom panel, in another colour: the answer oracle and engine both
    computed (:func:`_answer_rows`): CEL complex events as their positions' events joined by a line; ETALIS
    and EP-SPARQL results as their intervals; CQELS-QL results as one bar per (interval, mapping), with a
    tick at every evaluation time that outputs it; SPAseq matches as the times of their matched events, with
    a tick at the match's time (SPAseq results carry no interval). At most :data:`MAX_ANSWER_ROWS` rows; the
    rest are counted in the panel title. Results of another shape are not drawn (counted too).

    Deterministic: matplotlib's object API (no pyplot, no global figure, whatever the backend), the
    ``default`` style under a fixed ``svg.hashsalt``, text kept as text (``svg.fonttype=none``), no date or
    creator in the metadata, fixed sizes.
    """
    import io

    import matplotlib
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator
    import matplotlib.style

    from ceplab.workbench import language

    L = language.get(lang)
    evs = [_event_parts(L, e) for e in stream]
    times = [t for t, *_ in evs]
    from ceplab.workbench import language

    pf = language.get(lang).paper_format
    positions = pf is not None and pf.answers_are_positions
    rows, skipped = _answer_rows(positions, answer, times, head)
    shown_rows = rows[:MAX_ANSWER_ROWS]
    xs = times + [end for _, end, *_ in evs] + \
        [x for r in shown_rows for x in [y for b in r.bars for y in b] + r.dots + r.ticks]
    labels = [_clip(ev[4] if ev[4] else ev[2] + ev[3]) for ev in evs]
    lo, hi = (min(xs), max(xs)) if xs else (0, 1)
    lo, hi = lo - 0.6, hi + 0.6
    ax_w = FIG_WIDTH - _LEFT_IN - _RIGHT_IN
    char = _FONT * 0.56 / 72 / ax_w      # one character of a label, as a fraction of the axis width
    for (t, *_), text in zip(evs, labels):   # room right for every label: hi - t >= (hi - lo) * char * n
        f = char * (len(text) + 1.5)
        hi = max(hi, (t - lo * f) / (1 - f))
    per_char = (hi - lo) * char          # one character, in data units

    # stream lanes: (lane name, [event indices]) then sub-lanes by label extent
    lane_of = {}
    for typ in (ev[2] for ev in evs):
        lane_of.setdefault(typ, len(lane_of))
    packed = len(lane_of) > MAX_LANES
    groups: dict[int, list[int]] = {}
    for i, ev in enumerate(evs):
        groups.setdefault(0 if packed else lane_of[ev[2]], []).append(i)
    ylabels, ypos = [], {}
    row = 0
    for g in sorted(groups):
        idx = sorted(groups[g], key=lambda i: (evs[i][0], evs[i][1], i))
        ext = [(evs[i][0], max(evs[i][1], evs[i][0] + per_char * (len(labels[i]) + 1.5))) for i in idx]
        sub = _pack(ext)
        name = "events" if packed else _clip(next(k for k, v in lane_of.items() if v == g), 16)
        for j in range(max(sub) + 1):
            ylabels.append(name if j == 0 else "")
        for i, j in zip(idx, sub):
            ypos[i] = row + j
        row += max(sub) + 1
    n_stream = max(row, 1)
    n_answer = max(len(shown_rows), 1)
    height = _TOP_IN + _BOTTOM_IN + _GAP_IN + 0.12 + (n_stream + n_answer) * _ROW_IN
    height = round(min(FIG_MAX_HEIGHT, max(FIG_MIN_HEIGHT, height)), 2)
    free = height - _TOP_IN - _BOTTOM_IN - _GAP_IN

    rc = {"svg.hashsalt": "ceplab", "svg.fonttype": "none", "font.family": "DejaVu Sans", "font.size": _FONT,
          "axes.linewidth": 0.5, "xtick.major.width": 0.5, "ytick.major.width": 0.5, "xtick.major.size": 2,
          "ytick.major.size": 0, "xtick.labelsize": _FONT, "ytick.labelsize": _FONT, "axes.titlesize": _FONT,
          "figure.dpi": 72, "savefig.dpi": 72, "path.simplify": False}
    with matplotlib.style.context("default"), matplotlib.rc_context(rc):
        fig = Figure(figsize=(FIG_WIDTH, height))
        gs = fig.add_gridspec(2, 1, height_ratios=[n_stream, n_answer], hspace=_GAP_IN / (free / 2),
                              left=_LEFT_IN / FIG_WIDTH, right=1 - _RIGHT_IN / FIG_WIDTH,
                              top=1 - _TOP_IN / height, bottom=_BOTTOM_IN / height)
        ax, bx = fig.add_subplot(gs[0]), fig.add_subplot(gs[1])
        fig.suptitle(_clip(title, 110), x=0.01, y=1 - 0.03 / height, ha="left", va="top", fontsize=_FONT + 1)
        for a in (ax, bx):
            a.set_xlim(lo, hi)
            a.xaxis.set_major_locator(MaxNLocator(integer=True, nbins=12))
            a.grid(axis="x", linewidth=0.3, color="#dddddd")
            a.set_axisbelow(True)
            for side in ("top", "right"):
                a.spines[side].set_visible(False)
        ax.tick_params(labelbottom=False)
        ax.set_ylim(n_stream - 0.5, -0.6)
        ax.set_yticks(range(len(ylabels)), ylabels)
        ax.set_title("stream", loc="left", pad=1.5, color=_STREAM_COLOUR)
        if not evs:
            ax.set_yticks([])
            ax.text((lo + hi) / 2, 0, "(empty stream)", ha="center", va="center", color="#777777")
        for i, (t, end, *_rest) in enumerate(evs):
            y = ypos[i]
            if end != t:
                ax.plot([t, end], [y, y], color=_STREAM_COLOUR, linewidth=3, solid_capstyle="butt", alpha=0.55)
            ax.plot([t], [y], "o", color=_STREAM_COLOUR, markersize=2.5)
            ax.annotate(labels[i], (t, y), xytext=(2, 1.5), textcoords="offset points", ha="left",
                        va="bottom", color="#222222")
        more = len(rows) - len(shown_rows)
        note = "answer (oracle = engine)"
        if head:
            note += f", head {head}"
        if any(r.ticks for r in shown_rows):
            note += "; ticks: when output"
        if more:
            note += f"; {more} more row(s) not drawn"
        if skipped:
            note += f"; {skipped} result(s) without a time not drawn"
        bx.set_title(note, loc="left", pad=1.5, color=_ANSWER_COLOUR)
        bx.set_ylim(n_answer - 0.5, -0.6)
        bx.set_yticks(range(len(shown_rows)), [_clip(r.label) for r in shown_rows])
        bx.set_xlabel("time" if not positions else "time (results: the events at their positions)",
                      fontsize=_FONT, labelpad=1)
        if not shown_rows:
            bx.set_yticks([])
            bx.text((lo + hi) / 2, 0, "∅ (no result)" if not answer else "(nothing to draw)",
                    ha="center", va="center", color="#777777")
        for y, r in enumerate(shown_rows):
            for a, b in r.bars:
                if a == b:
                    bx.plot([a], [y], "s", color=_ANSWER_COLOUR, markersize=3)
                else:
                    bx.plot([a, b], [y, y], color=_ANSWER_COLOUR, linewidth=3.5, solid_capstyle="butt")
            if r.dots:
                d = sorted(r.dots)
                bx.plot(d, [y] * len(d), "-o", color=_ANSWER_COLOUR, markersize=2.5, linewidth=0.8)
            if r.ticks:
                bx.plot(r.ticks, [y - 0.32] * len(r.ticks), "|", color=_ANSWER_COLOUR, markersize=3,
                        markeredgewidth=0.6, alpha=0.7)
        buf = io.StringIO()
        fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None})
    return buf.getvalue()


# ----------------------------------------------------------------------------- building
def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower() or "x"


def _replays(lang: str, findings: list[Finding], verdicts: list[PaperVerdict], cases_dir: Path,
             shown: str, figures_dir: Path | None = None) -> tuple[dict[str, list[Replay]], dict[Path, str]]:
    """The replay files of every finding's cases, and with ``figures_dir`` their figures
    (:func:`figure_svg`, ``figures_dir/<lang>/<finding>-<n>.svg``): ``({finding id: [Replay]}, {path: text})``."""
    from ceplab.workbench import language

    L = language.get(lang)
    by_ref = {case_ref(v.case): v for v in verdicts}
    out: dict[str, list[Replay]] = {}
    files: dict[Path, str] = {}
    for f in findings:
        for n, ref in enumerate(f.cases, 1):
            v = by_ref[ref]
            c = v.case
            stem = f"{_slug(f.id)}-{n}"
            q = cases_dir / lang / f"{stem}{L.paper_format.query_suffix}"
            s = cases_dir / lang / f"{stem}.jsonl"
            files[q] = c.query if c.query.endswith("\n") else c.query + "\n"
            files[s] = "".join(json.dumps(x, sort_keys=True, ensure_ascii=False) + "\n"
                               for x in L.stream_to_json(c.stream))
            qs, ss = f"{shown}/cases/{lang}/{q.name}", f"{shown}/cases/{lang}/{s.name}"
            cmd = ["ceplab", "compare", lang, qs, ss]
            for k in sorted(c.options):
                cmd += ["--set", f"{k}={_value(c.options[k])}"]
            out.setdefault(f.id, []).append(Replay(
                finding=f.id, ref=ref, query_file=q, stream_file=s, command=" ".join(shlex.quote(x) for x in cmd),
                options=dict(c.options), head=c.result_head, answer=_canon(v.oracle),
                timeline=timeline(lang, c.stream), query=c.query.strip()))
            if figures_dir is not None:
                rp = out[f.id][-1]
                rp.figure = figures_dir / lang / f"{stem}.svg"
                files[rp.figure] = figure_svg(lang, c.stream, rp.answer, f"{lang} finding {f.id}, case {n}: {ref} "
                                              f"({_kv(c.options).replace('`', '')})", c.result_head)
    return out, files


def build(langs: list[str] | None = None, out_dir: Path = DEFAULT_OUT, shown: str | None = None,
          limits: Any = None, progress: bool = False) -> tuple[list[PaperSection], dict[Path, str]]:
    """Run every selected language's cases and return the report's sections and the replay files and figures
    (``{path under out_dir: text}``).

    ``langs``: language names (default: every registered language with a papers-check folder, sorted by name);
    ``shown``: how commands name ``out_dir`` (default: ``out_dir`` as given, POSIX separators).

    Raises:
        PaperFileError / ReportError: an unreadable case file or findings index (file, line, column).
        CeplabError: an oracle failure.
    """
    from ceplab.workbench import language, papers
    from ceplab.workbench.spark import _progress

    shown = shown if shown is not None else Path(out_dir).as_posix()
    names = langs if langs is not None else sorted(n for n in language.names() if language.get(n).papers_dir)
    sections: list[PaperSection] = []
    files: dict[Path, str] = {}
    for lang in names:
        L = language.get(lang)
        cases = papers.load_cases(lang)
        findings = load_findings(lang)
        if not cases and not findings:
            continue
        verdicts = []
        with _progress(progress and bool(cases)) as bar:
            task = bar.add_task(f"report {lang}", total=len(cases), rate="")
            for c in cases:
                verdicts.append(papers.check_case(c, limits))
                bar.update(task, advance=1)
        rows = classify(lang, verdicts, findings)
        replays, fs = _replays(lang, findings, verdicts, Path(out_dir) / "cases", shown, Path(out_dir) / "figures")
        files.update(fs)
        sections.append(PaperSection(lang=lang, paper=L.paper, rows=rows, findings=findings, replays=replays))
    return sections, files


# ----------------------------------------------------------------------------- one structure, two writers
Block = tuple  # ("h", level, text) | ("p", text) | ("table", headers, rows) | ("code", text) | ("ul", items)
#               | ("img", path relative to the report, alt text)


def blocks(sections: list[PaperSection]) -> list[Block]:
    """The report as a list of blocks (headings, paragraphs, tables, code, lists); text uses `code`,
    **bold** only."""
    out: list[Block] = [("h", 1, "ceplab errata report: the five papers' worked examples and findings"),
                        ("p", "Generated by `ceplab papers-check --report` (workbench/report.py) from the papers-check "
                              "cases (`papers-check/<lang>/*.json`) and the findings indexes "
                              "(`papers-check/<lang>/findings-index.json`, prose in `FINDINGS.md`). Do not edit: "
                              "regenerate. Every replay command runs from the repository root; its answer is what "
                              "the oracle and the engine both compute (restricted to the named head where one is "
                              "given).")]
    out.append(("h", 2, "Summary"))
    vkeys = list(VERDICTS)
    head = ["paper", "cases"] + vkeys + list(KINDS)
    rows, tot = [], [0] * (len(head) - 1)
    for s in sections:
        vals = [len(s.rows)] + [sum(r.label == k for r in s.rows) for k in vkeys] + \
               [sum(f.kind == k for f in s.findings) for k in KINDS]
        tot = [a + b for a, b in zip(tot, vals)]
        rows.append([f"`{s.lang}`"] + [str(x) for x in vals])
    rows.append(["**all**"] + [f"**{x}**" for x in tot])
    out.append(("table", head, rows))
    n_err = sum(f.kind == "paper erratum" for s in sections for f in s.findings)
    n_other = sum(f.kind != "paper erratum" for s in sections for f in s.findings)
    out.append(("p", f"**{n_err} paper errata** (findings of kind `paper erratum`); the other {n_other} findings "
                     "are ambiguities, observations, corrections of our own reconstruction and departures of "
                     "implementations, counted apart. Case columns count worked examples by verdict; kind "
                     "columns count findings."))
    out.append(("ul", [f"case verdict `{k}`: {v}" for k, v in VERDICTS.items()]
                + [f"finding kind `{k}`: {v}" for k, v in KINDS.items()]))
    for s in sections:
        out.append(("h", 2, f"{s.lang}: {s.paper}"))
        out.append(("p", f"Worked examples: `ceplab papers-check {s.lang}`; findings: `papers-check/{s.lang}/FINDINGS.md`; "
                         f"semantics: `docs/semantics/{s.lang}.md`."))
        out.append(("h", 3, f"{s.lang}: worked examples ({len(s.rows)})"))
        trows = []
        for r in s.rows:
            c = r.verdict.case
            trows.append([f"`{Path(c.file).stem}`", c.name, c.provenance or "-", _kv(c.options),
                          fmt_results(r.verdict.oracle, 60), f"**{r.label}**", r.detail or "-"])
        out.append(("table", ["file", "case", "prov", "switches", "answer (oracle = engine)", "verdict", "detail"],
                    trows))
        out.append(("h", 3, f"{s.lang}: findings ({len(s.findings)})"))
        if not s.findings:
            out.append(("p", "No findings index."))
        out.append(("table", ["id", "kind", "title", "cases"],
                    [[f.id, f"**{f.kind}**", f.title, str(len(f.cases)) if f.cases else "-"] for f in s.findings]))
        for f in s.findings:
            out.append(("h", 4, f"{s.lang} {f.id}: {f.title}"))
            out.append(("p", f"**Kind**: `{f.kind}`. **Where**: {f.where}."))
            out.append(("p", f.summary))
            if f.switch:
                out.append(("p", f"**Switch**: `{f.switch}`"
                                 + (f"; paper: {f.paper_value}." if f.paper_value else ".")))
            if not f.cases:
                out.append(("p", f"No replayable case: {f.no_case}"))
            for rp in s.replays.get(f.id, []):
                head_note = f" (head `{rp.head}`)" if rp.head else ""
                out.append(("p", f"Case `{rp.ref}`, switches {_kv(rp.options)}. Stream: `{rp.timeline or '(empty)'}`. "
                                 f"Answer{head_note}: {fmt_results(rp.answer)}."))
                if rp.figure is not None:
                    out.append(("img", f"figures/{s.lang}/{rp.figure.name}",
                                f"{s.lang} finding {f.id}, case {rp.ref}: stream and answer"))
                out.append(("code", rp.command))
    return out


def _md_inline(text: str) -> str:
    return text.replace("\n", " ")


def to_markdown(bl: list[Block]) -> str:
    """The blocks as GitHub-flavoured Markdown."""
    out: list[str] = []
    for b in bl:
        if b[0] == "h":
            out.append("#" * b[1] + " " + b[2])
        elif b[0] == "p":
            out.append(_md_inline(b[1]))
        elif b[0] == "code":
            out.append("```\n" + b[1] + "\n```")
        elif b[0] == "img":
            out.append(f"![{b[2]}]({b[1]})")
        elif b[0] == "ul":
            out.append("\n".join("- " + _md_inline(x) for x in b[1]))
        elif b[0] == "table":
            def cell(x: str) -> str:
                return _md_inline(x).replace("|", "\\|")
            lines = ["| " + " | ".join(cell(h) for h in b[1]) + " |", "|" + "---|" * len(b[1])]
            lines += ["| " + " | ".join(cell(x) for x in r) + " |" for r in b[2]]
            out.append("\n".join(lines))
    return "\n\n".join(out) + "\n"


def _html_inline(text: str) -> str:
    parts = re.split(r"(`[^`]*`)", text)
    out = []
    for p in parts:
        if p.startswith("`") and p.endswith("`") and len(p) >= 2:
            out.append("<code>" + html.escape(p[1:-1]) + "</code>")
        else:
            out.append(re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", html.escape(p)))
    return "".join(out)


_CSS = ("body{font-family:sans-serif;max-width:80em;margin:1em auto;padding:0 1em;line-height:1.4}"
        "table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #bbb;padding:2px 6px;"
        "vertical-align:top;font-size:90%}th{background:#eee}code,pre{background:#f4f4f4}"
        "pre{padding:.5em;overflow-x:auto}")


def to_html(bl: list[Block]) -> str:
    """The blocks as one self-contained HTML page (tables, no scripts)."""
    title = next((b[2] for b in bl if b[0] == "h"), "report")
    out = ["<!DOCTYPE html>", "<html lang=\"en\">", "<head>", "<meta charset=\"utf-8\">",
           f"<title>{html.escape(title)}</title>", f"<style>{_CSS}</style>", "</head>", "<body>"]
    for b in bl:
        if b[0] == "h":
            out.append(f"<h{b[1]}>{_html_inline(b[2])}</h{b[1]}>")
        elif b[0] == "p":
            out.append(f"<p>{_html_inline(b[1])}</p>")
        elif b[0] == "code":
            out.append(f"<pre><code>{html.escape(b[1])}</code></pre>")
        elif b[0] == "img":
            out.append(f"<p><a href=\"{html.escape(b[1])}\"><img src=\"{html.escape(b[1])}\" alt=\"{html.escape(b[2])}\" "
                       f"width=\"{int(FIG_WIDTH * 96)}\"></a></p>")
        elif b[0] == "ul":
            out.append("<ul>" + "".join(f"<li>{_html_inline(x)}</li>" for x in b[1]) + "</ul>")
        elif b[0] == "table":
            out.append("<table>")
            out.append("<tr>" + "".join(f"<th>{_html_inline(h)}</th>" for h in b[1]) + "</tr>")
            for r in b[2]:
                out.append("<tr>" + "".join(f"<td>{_html_inline(x)}</td>" for x in r) + "</tr>")
            out.append("</table>")
    out += ["</body>", "</html>"]
    return "\n".join(out) + "\n"


#: The file in ``figures/`` that names the matplotlib version that drew them (other versions write other SVG
#: bytes for the same figure; the report test compares figures byte for byte only under the same version).
MATPLOTLIB_STAMP = "MATPLOTLIB"


def matplotlib_stamp() -> str:
    """The text of :data:`MATPLOTLIB_STAMP`: ``drawn with matplotlib X.Y.Z``."""
    import matplotlib

    return f"drawn with matplotlib {matplotlib.__version__}\n"


def render(out_dir: Path = DEFAULT_OUT, shown: str | None = None, langs: list[str] | None = None,
           limits: Any = None, progress: bool = False) -> tuple[dict[Path, str], list[PaperSection]]:
    """Every file of the report, ``{path: text}`` (``REPORT.md``, ``REPORT.html``, ``cases/...``,
    ``figures/...``, sorted by path), not written, and the sections they were made from.

    Raises: as :func:`build`.
    """
    sections, files = build(langs, Path(out_dir), shown, limits, progress)
    bl = blocks(sections)
    files = dict(files)
    files[Path(out_dir) / "REPORT.md"] = to_markdown(bl)
    files[Path(out_dir) / "REPORT.html"] = to_html(bl)
    files[Path(out_dir) / "figures" / MATPLOTLIB_STAMP] = matplotlib_stamp()
    return dict(sorted(files.items(), key=lambda kv: kv[0].as_posix())), sections


def write(out_dir: Path = DEFAULT_OUT, shown: str | None = None, limits: Any = None,
          progress: bool = False) -> tuple[dict[Path, str], list[PaperSection]]:
    """Render the report and write it into ``out_dir``; the previous ``cases/`` and ``figures/`` folders are
    replaced (so no stale replay file or figure stays). Returns what :func:`render` returns.

    Raises:
        OSError: ``out_dir`` cannot be written; and as :func:`build`.
    """
    import shutil

    files, sections = render(out_dir, shown, None, limits, progress)
    for sub in ("cases", "figures"):
        if (Path(out_dir) / sub).is_dir():
            shutil.rmtree(Path(out_dir) / sub)
    for p, text in files.items():
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    return files, sections
