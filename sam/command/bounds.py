"""Bounds of size-like options (:mod:`sam.command`): lanes, vector lengths, widths, tile sizes,
split factors, iteration counts.

An option that multiplies what a command builds (``parallelize(i,100000)`` copies a sub-graph
100,000 times; ``--vlen 100000000`` makes vectors of 10^8 values) is checked before any work:
against its range, and against the memory it implies (:func:`formats.memory.too_large`), so
that an absurd value is one line, not minutes of work and gigabytes of memory.
"""

from __future__ import annotations

from formats.errors import ToolkitError
from formats.memory import too_large


class BoundError(ToolkitError):
    """A size-like option out of its range or asking for more memory than there is."""


def check_size(option: str, value: int | float | None, *, low: int | float = 1,
               high: int | float | None = None, why: str = "", bytes_each: float = 0,
               fixed_bytes: float = 0, what: str = "", advice: str = "",
               error: type[ToolkitError] = BoundError) -> None:
    """Refuse ``value`` of ``option`` (``--lanes``, ``parallelize(i,N)``) when it is below
    ``low``, above ``high`` (``why`` says what the limit is) or when ``fixed_bytes +
    bytes_each * value`` (the memory ``what`` needs) does not fit, raising ``error``;
    ``advice`` replaces "give a smaller value" (a tile size needs a larger one). ``None`` is
    unset: fine."""
    if value is None:
        return
    # a schedule command's text (``parallelize(i,8)``) names its value itself
    subject = option if option.endswith(")") else f"{option} {_number(value)}"
    if value < low:
        raise error(f"{subject}: give {_number(low)} or more")
    if high is not None and value > high:
        reason = f" ({why})" if why else ""
        raise error(f"{subject}: at most {_number(high)}{reason}")
    if bytes_each or fixed_bytes:
        need = int(fixed_bytes + bytes_each * value)
        problem = too_large(need)
        if problem:
            raise error(f"{subject}: {what or 'the run'}: {problem}; "
                        f"{advice or 'give a smaller value'}")


def _number(value: float) -> str:
    """``100,000,000`` for whole numbers, ``0.5`` otherwise."""
    return f"{int(value):,}" if float(value).is_integer() else f"{value:g}"
