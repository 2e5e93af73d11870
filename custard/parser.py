"""Parsers for Custard's format and schedule options (the expression is read by
:mod:`sam.notation.parse`).

* formats ``-f=B:ss:1,0`` (level letters, then an optional TACO mode order);
* one loop order ``-s=reorder(k,i,j)`` (:func:`parse_schedule`; TACO's whole scheduling
  language, which ``custard.compile`` takes, is read by :mod:`custard.schedule`).

Every error is a :class:`CompileError` naming the offending part.
"""

from __future__ import annotations

import re

from formats.errors import FormatError
from formats.format import Format
from sam.errors import CompileError


def parse_format_option(text: str, bv_width: int | None = None) -> tuple[str, Format]:
    """``B:ss:1,0`` (also ``-f=B:ss:1,0``) -> ("B", Format); ``bv_width`` is the word width of
    a bitvector level written ``b`` (``--bv-width``; default 64)."""
    spec = text.strip()
    if spec.startswith("-f="):
        spec = spec[3:]
    name, sep, rest = spec.partition(":")
    if not sep or not re.fullmatch(r"[A-Za-z_][A-Za-z_0-9]*", name):
        raise CompileError(
            f"format {text!r}: expected NAME:LEVELS[:MODEORDER], e.g. B:ss or B:ss:1,0"
        )
    levels, sep2, order = rest.partition(":")
    try:
        if sep2:
            fmt = Format.parse(f"{levels}:{order}", bv_width=bv_width)
        else:
            fmt = Format.parse(levels, bv_width=bv_width)
    except FormatError as err:
        raise CompileError(f"format {text!r}: {err}") from None
    return name, fmt


def parse_schedule(text: str) -> list[str]:
    """``reorder(k,i,j)`` -> ["k", "i", "j"] (one reorder command only)."""
    spec = text.strip()
    if spec.startswith("-s="):
        spec = spec[3:]
    m = re.fullmatch(r"reorder\(\s*([A-Za-z_][A-Za-z_0-9]*(?:\s*,\s*[A-Za-z_][A-Za-z_0-9]*)*)?"
                     r"\s*\)", spec)
    if m is None:
        raise CompileError(
            f"schedule {text!r}: expected one reorder(...) list, e.g. -s=reorder(k,i,j)"
        )
    return [v.strip() for v in (m.group(1) or "").split(",") if v.strip()]
