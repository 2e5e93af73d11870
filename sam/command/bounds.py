"""Bounds of size-like options (:mod:`sam.command`): lanes, vector lengths, widths, tile sizes,
split factors, iteration counts.

An option that multiplies what a command builds (``parallelize(i,100000)`` copies a sub-graph
100,000 times; ``--vlen 100000000`` makes vectors of 10^8 values) is checked before any work:
against its range, and against the memory it implies (:func:`formats.memory.too_large`), so
that an absurd value is one line, not minutes of work and gigabytes of memory.
"""

from __future__ import annotations

from formats.errors import ToolkitError
from formats.memory import format_bytes, too_large


class BoundError(ToolkitError):
    """A size-like option out of its range or asking for more memory than there is."""


def check_size(option: str, value: int | float | None, *, low: int | float = 1,
               high: int | float | None = None, why: str = "", bytes_each: float = 0,
               fixed_bytes: float = 0, what: str = "", advice: str = "") -> None:
    """Refuse ``value`` of ``option`` (``--lanes``, ``parallelize(i,N)``) when it is below
    ``low``, above ``high`` (``why`` says what the limit is) or when ``fixed_bytes +
    bytes_each * value`` (the memory ``what`` needs) does not fit; ``advice`` replaces "give a
    smaller OPTION" (a tile size needs a larger one). ``None`` is unset: fine."""
    if value is None:
        return
    if value < low:
        raise BoundError(f"{option} {value:g}: give {low:g} or more")
    if high is not None and value > high:
        reason = f" ({why})" if why else ""
        raise BoundError(f"{option} {value:g}: at most {high:g}{reason}")
    if bytes_each or fixed_bytes:
        need = int(fixed_bytes + bytes_each * value)
        problem = too_large(need)
        if problem:
            raise BoundError(f"{option} {value:g}: {what or 'the run'} {problem}; "
                             f"{advice or f'give a smaller {option}'}")


def describe_bytes(nbytes: float) -> str:
    """``2.3 GB`` (for messages that state an estimate)."""
    return format_bytes(nbytes)
