"""Random test-case generation shared by hypothesis and the Spark fuzzer (DESIGN.md sections 2, 6).

One generator code path, two sources of randomness. Every language's generators
(``ceplab.workbench.langs.<lang>.generators``) are written against the tiny :class:`Chooser` protocol::

    integer(lo, hi) -> int        # lo <= n <= hi
    choice(seq) -> element
    boolean(p=0.5) -> bool        # True with probability ~p

with two adapters:

* :class:`HypothesisChooser` wraps a hypothesis ``draw``: every decision is one
  ``st.integers`` / ``st.sampled_from`` draw, so failing cases shrink (integers towards ``lo``,
  choices towards the first element, booleans towards False). Generators order their options
  so that these are the *simpler* ones (an atom before an operator, no filter, no window).
* :class:`RandomChooser` wraps a seeded :class:`random.Random` for Spark fuzzing and
  reproducible seeded sampling.

The two draw from (approximately; hypothesis biases some integer draws towards boundaries) the same
distribution, and a case found by either can be replayed: hypothesis from its database / printed
blob, Spark from ``(seed, index)``.

Language-neutral plumbing: :func:`gen_flat_stream` (flat events, small type alphabets, small
attribute ranges, biased towards interleavings such as ``A B A B``).
"""
from __future__ import annotations

import random
from typing import Any, Callable, Mapping, Protocol, Sequence, TypeVar

from hypothesis import strategies as st

T = TypeVar("T")



# ================================================================ the chooser protocol
class Chooser(Protocol):
    """Source of decisions for the generators (see the module docstring)."""

    def integer(self, lo: int, hi: int) -> int: ...

    def choice(self, seq: Sequence[T]) -> T: ...

    def boolean(self, p: float = 0.5) -> bool: ...


class RandomChooser:
    """Chooser backed by a :class:`random.Random` (seeded fuzzing; reproducible)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def integer(self, lo: int, hi: int) -> int:
        return self.rng.randint(lo, hi)

    def choice(self, seq: Sequence[T]) -> T:
        seq = list(seq)
        if not seq:
            raise ValueError("choice from an empty sequence")
        return seq[self.rng.randrange(len(seq))]

    def boolean(self, p: float = 0.5) -> bool:
        return self.rng.random() < p


class HypothesisChooser:
    """Chooser backed by a hypothesis ``draw`` (inside ``@st.composite``), so cases shrink."""

    def __init__(self, draw: Callable[[st.SearchStrategy], Any]) -> None:
        self.draw = draw

    def integer(self, lo: int, hi: int) -> int:
        return self.draw(st.integers(lo, hi))

    def choice(self, seq: Sequence[T]) -> T:
        seq = list(seq)
        if not seq:
            raise ValueError("choice from an empty sequence")
        return seq[0] if len(seq) == 1 else self.draw(st.sampled_from(seq))

    def boolean(self, p: float = 0.5) -> bool:
        if p <= 0:
            return False
        if p >= 1:
            return True
        if p == 0.5:
            return self.draw(st.booleans())
        # shrinks towards 0, i.e. towards False
        return self.draw(st.integers(0, 999)) >= round((1 - p) * 1000)


# ================================================================ language-neutral streams
TYPE_ALPHABETS: tuple[tuple[str, ...], ...] = (("A", "B"), ("A", "B", "C"))


def gen_flat_stream(ch: Chooser, length: int, types: Sequence[str] = ("A", "B", "C"),
                    attrs: Mapping[str, tuple[int, int]] | None = None,
                    p_missing: float = 0.0) -> list[tuple[str, dict[str, int]]]:
    """A list of ``(type, attrs)`` flat events (time = position when fed to ``Stream.of``).

    The type sequence is one of three shapes (chosen first): uniform random; periodic (a pattern
    of 2-3 types such as ``A B`` repeated, each event replaced by a random type with probability
    0.2) -- the interleavings that catch off-by-one ``;``/``+`` implementations (docs/semantics/cel.md#cel-G10);
    or blocks (runs of one type, such as ``A A B B``).

    Args:
        ch: the chooser.
        length: number of events.
        types: the type alphabet.
        attrs: attribute name -> inclusive value range; default ``{"v": (0, 2)}``.
        p_missing: probability that an event lacks an attribute (predicate semantics on missing
            attributes, docs/semantics/cel.md#cel-G6).
    """
    attrs = {"v": (0, 2)} if attrs is None else dict(attrs)
    types = list(types)
    shape = ch.integer(0, 2)
    seq: list[str] = []
    if shape == 1:
        k = ch.integer(2, 3)
        start = ch.integer(0, len(types) - 1)
        pattern = [types[(start + i) % len(types)] for i in range(k)]
        for i in range(length):
            seq.append(ch.choice(types) if ch.boolean(0.2) else pattern[i % k])
    elif shape == 2:
        while len(seq) < length:
            t = ch.choice(types)
            seq.extend([t] * min(ch.integer(1, 3), length - len(seq)))
    else:
        seq = [ch.choice(types) for _ in range(length)]
    out = []
    for t in seq:
        a = {}
        for name, (lo, hi) in attrs.items():
            if p_missing and ch.boolean(p_missing):
                continue
            a[name] = ch.integer(lo, hi)
        out.append((t, a))
    return out
