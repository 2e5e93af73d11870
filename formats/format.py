"""Tensor format descriptors: one level format per stored level plus a mode ordering.

A format says, for each fibertree level from the root down, how the level is stored (its
*level format*, one letter: ``d`` dense/uncompressed, ``s`` compressed) and which tensor mode
it stores (the *mode ordering*). This is the data representation language of TACO/Custard
(SAM paper Sec. 3.1, Figure 1c; Sec. 5).

Accepted spellings (all describe the same thing):

* ``"ss01"``  DOT graph comment style: level letters, then one digit per level (DCSR); with
  more than ten levels the modes' numbers run together (``d``*12 + ``01234567891011``), which is
  read when exactly one permutation spells it;
* ``"ss:1,0"`` TACO command-line style: level letters, colon, comma-separated mode order (DCSC);
* ``"ss"``    level letters only: identity mode order;
* ``"none"`` or ``""``: an order-0 (scalar) tensor.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from formats.errors import FormatError
from formats.levels import LEVEL_TYPES, Level, level_type


@dataclass(frozen=True)
class Format:
    """Level formats (root first) and the tensor mode each level stores."""

    levels: tuple[str, ...]
    mode_order: tuple[int, ...]

    def __post_init__(self) -> None:
        if len(self.levels) != len(self.mode_order):
            raise FormatError(
                f"format has {len(self.levels)} level(s) but a mode order of "
                f"{len(self.mode_order)}; give one mode per level"
            )
        for letter in self.levels:
            level_type(letter)
        if sorted(self.mode_order) != list(range(len(self.mode_order))):
            raise FormatError(
                f"mode order {','.join(map(str, self.mode_order))} is not a permutation of "
                f"0..{len(self.mode_order) - 1}"
            )

    @property
    def level_types(self) -> tuple[type[Level], ...]:
        """The level class of each level, root first (ask these for capabilities)."""
        return tuple(level_type(x) for x in self.levels)

    def level_type_of_mode(self, mode: int) -> type[Level]:
        """The level class that stores tensor mode ``mode``."""
        return level_type(self.levels[self.level_of_mode(mode)])

    @property
    def order(self) -> int:
        """Number of levels (the tensor order)."""
        return len(self.levels)

    @classmethod
    def parse(cls, text: str, *, bv_width: int | None = None) -> Format:
        """Parse ``ss01``, ``ss:1,0``, ``ss``, ``none`` (see module docstring). ``bv_width``
        is the word width of a level letter that takes one but is given without it (``b`` with
        ``bv_width=16`` is ``b16``; ``b4`` stays ``b4``; without it ``b`` is ``b64``)."""
        spec = text.strip()
        if spec in ("", "none"):
            return cls((), ())
        m = re.fullmatch(r"([a-z][a-z0-9]*?)(?::([0-9, ]*))?([0-9]*)", spec)
        if m is None:
            raise FormatError(
                f"cannot parse format {text!r}: expected level letters ({', '.join(LEVEL_TYPES)}) "
                "then an optional "
                "mode order, e.g. 'ss', 'ss10' or 'ds:1,0'"
            )
        letters, taco_order, digits = _level_letters(m.group(1)), m.group(2), m.group(3)
        if taco_order is None and digits and _trailing_width(letters, digits):
            letters, digits = [*letters[:-1], letters[-1] + digits], ""
        if bv_width is not None:
            letters = [_with_width(x, bv_width) for x in letters]
        bad = [c[0] for c in letters if c[0] not in LEVEL_TYPES]
        if bad:
            raise FormatError(
                f"format {text!r}: unknown level format {bad[0]!r}; use "
                + ", ".join(f"{k} ({cls.name})" for k, cls in LEVEL_TYPES.items())
            )
        if taco_order is not None and digits:
            raise FormatError(f"format {text!r}: give the mode order once, as ':1,0' or as '10'")
        if taco_order is not None:
            parts = [p.strip() for p in taco_order.split(",") if p.strip()]
            if not all(p.isdigit() for p in parts):
                raise FormatError(f"format {text!r}: mode order must be integers like ':1,0'")
            order = tuple(int(p) for p in parts)
        elif digits:
            order = _digit_order(text, digits, len(letters))
        else:
            order = tuple(range(len(letters)))
        return cls(tuple(level_type(x).letter for x in letters), order)

    @classmethod
    def default(cls, order: int) -> Format:
        """All levels compressed, identity mode order (Custard's default)."""
        return cls(("s",) * order, tuple(range(order)))

    def __str__(self) -> str:
        """The DOT-comment spelling: ``ss01``; ``none`` for a scalar. Past ten levels a mode
        takes two digits, so the order is written as TACO does, ``d...d:0,1,...,12`` (the graph
        comment reader, :func:`sam.graph.dot.parse_formats`, reads its commas back); so is a format
        with a level letter that carries a number (``b4s:0,1``)."""
        if not self.levels:
            return "none"
        if len(self.mode_order) > 10 or any(len(x) > 1 for x in self.levels):
            return self.taco()
        return "".join(self.levels) + "".join(str(m) for m in self.mode_order)

    def taco(self) -> str:
        """The TACO command-line spelling: ``ss:1,0``."""
        if not self.levels:
            return "none"
        return "".join(self.levels) + ":" + ",".join(str(m) for m in self.mode_order)

    def level_of_mode(self, mode: int) -> int:
        """The level that stores tensor mode ``mode``."""
        return self.mode_order.index(mode)


def _level_letters(text: str) -> list[str]:
    """``b4sd`` -> ``["b4", "s", "d"]``: a level letter with the number it takes (the bitvector
    word width)."""
    return re.findall(r"[a-z][0-9]*", text)


def _with_width(letter: str, width: int) -> str:
    """``letter`` given without a width (``b``) as the letter of width ``width`` (``b16``); any
    other letter unchanged."""
    cls = LEVEL_TYPES.get(letter)
    if cls is None or not hasattr(cls, "with_width"):
        return letter
    return cls.with_width(width).letter


def _trailing_width(letters: list[str], digits: str) -> bool:
    """Whether trailing ``digits`` are the last level's parameter (``b64``), not a mode order:
    the last letter takes a number and the digits spell no mode order of the levels."""
    last = LEVEL_TYPES.get(letters[-1])
    if last is None or not hasattr(last, "with_width"):
        return False
    return len(digits) != len(letters) or sorted(digits) != [str(k) for k in range(len(digits))]


def _digit_order(text: str, digits: str, n: int) -> tuple[int, ...]:
    """The mode order ``digits`` spells for ``n`` levels: one digit per mode up to ten levels;
    past ten, the one way of cutting the digits into a permutation of ``0..n-1``."""
    if len(digits) == n or n <= 10:
        return tuple(int(c) for c in digits)
    found: list[tuple[int, ...]] = []

    def cut(rest: str, taken: tuple[int, ...]) -> None:
        if len(found) > 1:
            return
        if not rest:
            if len(taken) == n:
                found.append(taken)
            return
        for width in (1, 2, 3):
            part = rest[:width]
            if len(part) < width or (width > 1 and part[0] == "0"):
                break
            mode = int(part)
            if mode < n and mode not in taken:
                cut(rest[width:], (*taken, mode))

    cut(digits, ())
    if len(found) == 1:
        return found[0]
    why = "no" if not found else "more than one"
    raise FormatError(f"format {text!r}: {why} order of modes 0..{n - 1} is spelled by "
                      f"{digits!r}; write the mode order as ':0,1,...'")


def as_format(fmt: Format | str | None, order: int) -> Format:
    """Coerce a user-supplied format (object, string, or ``None`` for all-compressed)."""
    if fmt is None:
        return Format.default(order)
    result = fmt if isinstance(fmt, Format) else Format.parse(fmt)
    if result.order != order:
        raise FormatError(
            f"format {result} describes an order-{result.order} tensor but the tensor has "
            f"order {order}"
        )
    return result
