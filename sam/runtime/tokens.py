"""Stream tokens (SAM paper Sec. 3.2) and their printed notation.

A SAM stream carries *data tokens* (a coordinate, a reference, a value, or a repeat signal ``R``)
and control tokens: stop tokens ``S0, S1, ...`` marking the end of a fiber at some level (``Sn``
closes n+1 nested fibers), the empty token ``N`` (a missing reference or value, e.g. from a
unioner) and the done token ``D`` ending the stream.

Inside the simulator every token is a (kind, payload) pair of machine numbers, so that block
kernels run the same in plain Python and compiled with numba: ``kind`` is one of :data:`DATA`,
:data:`STOP`, :data:`EMPTY`, :data:`DONE`; the payload is the coordinate/reference (int64), the
value (float64, same 8 bytes), or the stop level. This module converts between that encoding
and readable Python tokens, and prints streams the paper's way, first token first::

    >>> format_stream(parse_stream("1, S0, 2, 3, S0, 4, 5, S1, D"))
    '1, S0, 2, 3, S0, 4, 5, S1, D'
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from formats.errors import ToolkitError

# Token kinds (int8 codes).
DATA = 0
STOP = 1
EMPTY = 2
DONE = 3
KIND_NAMES = ("data", "stop", "empty", "done")
#: Number of token kinds (columns of the per-channel token counts).
N_KINDS = len(KIND_NAMES)

#: Stream kinds (the ``type`` of an edge in the Custard DOT schema).
STREAM_KINDS = ("crd", "ref", "val", "repsig", "bv", "ctrl", "data")
#: ``ctrl`` / ``data``: a TMU's control and data queues (sam/blocks/tmu.py; values are floats).


@dataclass(frozen=True)
class Stop:
    """Stop token ``S<level>``."""

    level: int

    def __repr__(self) -> str:
        return f"S{self.level}"


class _Control:
    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name

    def __reduce__(self) -> str:
        return self.name


#: The empty token.
N = _Control("N")
#: The done token.
D = _Control("D")
#: The repeat signal (a data token of a ``repsig`` stream).
R = _Control("R")

Token = int | float | Stop | _Control


class StreamError(ToolkitError):
    """A stream is malformed."""


def parse_stream(text: str, kind: str = "crd") -> list[Token]:
    """Parse ``"1, S0, N, 2.5, R, D"`` into tokens (integers for crd/ref, floats for val)."""
    tokens: list[Token] = []
    for raw in (p.strip() for p in text.split(",")):
        if not raw:
            continue
        if re.fullmatch(r"S\d+", raw):
            tokens.append(Stop(int(raw[1:])))
        elif raw == "N":
            tokens.append(N)
        elif raw == "D":
            tokens.append(D)
        elif raw == "R":
            tokens.append(R)
        else:
            try:
                tokens.append(float(raw) if kind == "val" else int(raw))
            except ValueError:
                raise StreamError(f"cannot read stream token {raw!r} in {text!r}") from None
    return tokens


def format_stream(tokens: Iterable[Token]) -> str:
    """Print tokens first-to-last in the paper's notation (``1, S0, 2, D``)."""
    out = []
    for tok in tokens:
        if isinstance(tok, float) and tok.is_integer():
            out.append(str(int(tok)))
        else:
            out.append(repr(tok) if not isinstance(tok, (int, float)) else str(tok))
    return ", ".join(out)


def encode(tokens: Sequence[Token], kind: str = "crd") -> tuple[np.ndarray, np.ndarray]:
    """Tokens -> (kind codes int8, payload int64); val payloads hold float64 bits."""
    kinds = np.empty(len(tokens), dtype=np.int8)
    data = np.zeros(len(tokens), dtype=np.int64)
    fdata = data.view(np.float64)
    for i, tok in enumerate(tokens):
        if isinstance(tok, Stop):
            kinds[i], data[i] = STOP, tok.level
        elif tok is N:
            kinds[i] = EMPTY
        elif tok is D:
            kinds[i] = DONE
        elif tok is R:
            kinds[i] = DATA
        elif kind in ("val", "data"):
            kinds[i] = DATA
            fdata[i] = float(tok)
        else:
            kinds[i], data[i] = DATA, int(tok)
    return kinds, data


def decode(kinds: np.ndarray, data: np.ndarray, kind: str = "crd") -> list[Token]:
    """(kind codes, payloads) -> tokens."""
    fdata = np.asarray(data, dtype=np.int64).view(np.float64)
    out: list[Token] = []
    for i, k in enumerate(kinds.tolist()):
        if k == STOP:
            out.append(Stop(int(data[i])))
        elif k == EMPTY:
            out.append(N)
        elif k == DONE:
            out.append(D)
        elif kind == "repsig":
            out.append(R)
        elif kind in ("val", "data"):
            out.append(float(fdata[i]))
        else:
            out.append(int(data[i]))
    return out


def describe_token(kind: int, payload: int, stream_kind: str = "crd") -> str:
    """One encoded token in the paper's notation (for error messages)."""
    return format_stream(decode(np.array([kind], np.int8), np.array([payload], np.int64),
                                stream_kind))
