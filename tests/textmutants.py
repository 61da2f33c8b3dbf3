"""Text mutants for the bad-input tests of every language's CLI (issue 12/13 "Bad input"): one character or token
deleted, inserted or duplicated."""
from __future__ import annotations

import random
from typing import Sequence

DEFAULT_INSERTS = list("{}()[]<>.;,:\"'\\#@?!+*/&|^=_ aZ09\né")


def mutate(text: str, op: int, tokens: bool, rng: random.Random, inserts: Sequence[str] = DEFAULT_INSERTS) -> str:
    """``text`` with one character (``tokens`` false) or whitespace-separated token deleted (``op`` 0), inserted
    (1: a character from ``inserts``, or a copy of another token) or duplicated (2)."""
    if not tokens:
        k = rng.randrange(len(text) + 1)
        if op == 0:
            return text[:k] + text[k + 1:]
        if op == 1:
            return text[:k] + rng.choice(list(inserts)) + text[k:]
        j = min(len(text), k + rng.randrange(1, 10))
        return text[:j] + text[k:j] + text[j:]
    toks = [t for t in text.replace("\n", " \n ").split(" ") if t]
    k = rng.randrange(len(toks))
    if op == 0:
        del toks[k]
    elif op == 1:
        toks.insert(k, rng.choice(toks))
    else:
        toks.insert(k, toks[k])
    return " ".join(toks).replace(" \n ", "\n")
