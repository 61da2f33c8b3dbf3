"""Parse-level semantic switches and time constants of EP-SPARQL (docs/semantics/epsparql.md#epsparql-2.3, #epsparql-A8, #epsparql-A15).

* :func:`apply_options` rewrites a parsed :class:`~ceplab.semantics.epsparql.ast.QuerySet` for the switches that act on
  the translation into the algebra.  Today that is ``Options.optional_filter`` (A8):

  - ``"operand"`` (default): identity.  The parser already puts the FILTERs written inside an optional operand's
    own group into the operator's ``F`` and wraps the other FILTERs of a group around the whole group.
  - ``"group"``: a group-level ``Filter(e, X)`` directly over an optional operator ``X`` (``LeftJoin``,
    ``SeqRightJoin``, ``EqLeftJoin``) is moved into ``X``'s ``F`` (conjoined after the operand FILTERs:
    ``And(F, e)``).  This is the reading under which the negation idiom of E5/query (5) never blocks: with
    ``F = !BOUND(?inbetween)`` no joined row passes ``F``, so every mandatory row is emitted unmatched.

* :func:`duration_ticks` / :func:`datetime_ticks` turn ``xsd:duration`` / ``xsd:dateTime`` constants into integer
  ticks of ``Options.tick_seconds`` seconds (A15).  ``xsd:dateTime`` without a time zone is read as UTC; the
  tick count is seconds since 1970-01-01T00:00:00Z divided by ``tick_seconds``.  Durations with a year or month
  component and values that are not a whole number of ticks raise ``ValueError`` with a message naming the
  literal.  The oracle and the engine call these for constants in FILTERs and projections.
"""
from __future__ import annotations

import datetime as _dt
import re
from dataclasses import replace
from fractions import Fraction
from typing import Optional

from rdflib import XSD
from rdflib.term import Literal

from ceplab.semantics.epsparql import ast as A
from ceplab.semantics.epsparql.options import Options
from ceplab.semantics.errors import UnsupportedError

_OPTIONAL_OPS = (A.LeftJoin, A.SeqRightJoin, A.EqLeftJoin)
_DURATION_RE = re.compile(r"(-)?P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?")
_DATETIME_RE = re.compile(r"(-?\d{4,})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|[+-]\d{2}:\d{2})?")
_DATE_RE = re.compile(r"(-?\d{4,})-(\d{2})-(\d{2})(Z|[+-]\d{2}:\d{2})?")
_EPOCH_ORDINAL = _dt.date(1970, 1, 1).toordinal()


# -------------------------------------------------------------------------------------------- optional_filter
def apply_options(qs: A.QuerySet, options: Optional[Options] = None) -> A.QuerySet:
    """``qs`` rewritten for the parse-level switches of ``options`` (module docstring); identity by default."""
    options = options or Options()
    if options.optional_filter == "operand":
        return qs
    queries = []
    for q in qs.queries:
        queries.append(replace(q, where=_group_filters(q.where)))
    return A.QuerySet(tuple(queries), qs.prefixes)


def _group_filters(p: A.Pattern) -> A.Pattern:
    if isinstance(p, A.BGP):
        return p
    if isinstance(p, A.Filter):
        inner = _group_filters(p.pattern)
        if isinstance(inner, _OPTIONAL_OPS):
            f = p.expr if inner.expr is None else A.And(inner.expr, p.expr, pos=inner.expr.pos)
            return replace(inner, expr=f)
        return replace(p, pattern=inner)
    if isinstance(p, A.SeqRightJoin):
        return replace(p, optional=_group_filters(p.optional), mandatory=_group_filters(p.mandatory))
    if isinstance(p, (A.Extend, A.Project)):
        return replace(p, pattern=_group_filters(p.pattern))
    return replace(p, left=_group_filters(p.left), right=_group_filters(p.right))


# -------------------------------------------------------------------------------------------- time constants
def _ticks(seconds: Fraction, lit: Literal, options: Options, what: str) -> int:
    ticks = seconds / options.tick_seconds
    if ticks.denominator != 1:    # a query this tick length cannot express: refused as bad input
        raise UnsupportedError(f"{what} {lit.n3()} is {seconds} s, not a whole number of ticks of "
                         f"{options.tick_seconds} s (Options.tick_seconds, docs/semantics/epsparql.md#epsparql-A15)")
    return int(ticks)


def duration_seconds(lit: Literal) -> Fraction:
    """The length of an ``xsd:duration`` (or ``xsd:dayTimeDuration``) literal in seconds, exactly.

    Raises:
        ValueError: not a duration, malformed, or with a year or month component (A15).
    """
    if not isinstance(lit, Literal) or lit.datatype not in (XSD.duration, XSD.dayTimeDuration):
        raise ValueError(f"{getattr(lit, 'n3', lambda: repr(lit))()} is not an xsd:duration literal")
    s = str(lit).strip()
    m = _DURATION_RE.fullmatch(s)
    if not m or s in ("P", "-P") or s.endswith("T"):
        raise ValueError(f"malformed xsd:duration {lit.n3()} (expected e.g. \"P30D\" or \"PT12H\")")
    sign, years, months, days, hours, minutes, secs = m.groups()
    if years or months:
        raise ValueError(f"xsd:duration {lit.n3()} has a year or month component: years and months have no "
                         "fixed length in ticks (docs/semantics/epsparql.md#epsparql-A15); write days, e.g. \"P30D\"")
    total = (Fraction(int(days or 0)) * 86400 + Fraction(int(hours or 0)) * 3600 + Fraction(int(minutes or 0)) * 60
             + Fraction(secs or "0"))
    return -total if sign else total


def duration_ticks(lit: Literal, options: Optional[Options] = None) -> int:
    """An ``xsd:duration`` constant in ticks (``"P30D"`` = 30 at the default ``tick_seconds`` = 86400).

    Raises:
        ValueError: not a duration, year/month components, or not a whole number of ticks (A15).
    """
    options = options or Options()
    return _ticks(duration_seconds(lit), lit, options, "xsd:duration")


def datetime_seconds(lit: Literal) -> Fraction:
    """Seconds since 1970-01-01T00:00:00Z of an ``xsd:dateTime`` (or ``xsd:date``: midnight) literal, exactly;
    no time zone = UTC.

    Raises:
        ValueError: not a dateTime/date literal, or malformed.
    """
    if not isinstance(lit, Literal) or lit.datatype not in (XSD.dateTime, XSD.date, XSD.dateTimeStamp):
        raise ValueError(f"{getattr(lit, 'n3', lambda: repr(lit))()} is not an xsd:dateTime literal")
    s = str(lit).strip()
    if lit.datatype == XSD.date:
        m = _DATE_RE.fullmatch(s)
        if not m:
            raise ValueError(f"malformed xsd:date {lit.n3()} (expected e.g. \"2011-01-01\")")
        y, mo, d, tz = m.groups()
        hh = mi = ss = "0"
        frac = None
    else:
        m = _DATETIME_RE.fullmatch(s)
        if not m:
            raise ValueError(f"malformed xsd:dateTime {lit.n3()} (expected e.g. \"2011-01-01T00:00:00Z\")")
        y, mo, d, hh, mi, ss, frac, tz = m.groups()
    try:
        day = _dt.date(int(y), int(mo), int(d)).toordinal() - _EPOCH_ORDINAL
    except ValueError as e:
        raise ValueError(f"malformed date in {lit.n3()}: {e}") from None
    h, mi_, se = int(hh), int(mi), int(ss)
    if h > 24 or mi_ > 59 or se > 60 or (h == 24 and (mi_ or se or frac)):
        raise ValueError(f"malformed time of day in {lit.n3()}")
    total = Fraction(day * 86400 + h * 3600 + mi_ * 60 + se) + (Fraction("0" + frac) if frac else 0)
    if tz and tz != "Z":
        sign = 1 if tz[0] == "+" else -1
        th, tm = int(tz[1:3]), int(tz[4:6])
        total -= sign * (th * 3600 + tm * 60)
    return total


def datetime_ticks(lit: Literal, options: Optional[Options] = None) -> int:
    """An ``xsd:dateTime`` constant in ticks since the Unix epoch (UTC).

    Raises:
        ValueError: malformed, or not a whole number of ticks (A15).
    """
    options = options or Options()
    return _ticks(datetime_seconds(lit), lit, options, "xsd:dateTime")
