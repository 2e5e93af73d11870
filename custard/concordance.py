"""Concordant storage: every tensor a graph reads or writes is stored in the loop order.

SAM's level scanners (Def. 3.1) walk a tensor root level first, so a graph reads a tensor in its
mode order, and level writers (Def. 3.8) build the result level by level in the order its
coordinates arrive. When the loop order visits a tensor's index variables in another order (a
*discordant* access, e.g. ``-f=B:ds:1,0`` read by a row-major loop), TACO transposes the tensor;
here the graph stores it concordantly instead, keeping its level formats level by level (``ds``
stays dense over compressed) and taking the mode order the loop order gives:

* an **operand** read against its storage: the graph's format for it is the concordant one; the
  simulator re-stores the tensor bound to it in that format when binding, as it converts every
  input to the graph's formats (:func:`sam.graph.validate.bind`);
* one tensor read in **two mode orders** (``A(i,j)=B(i,j)+B(j,i)``): the first use keeps its
  name, each other storage is a copy (``B_t``) that the simulator makes from the bound tensor
  (graph attribute ``copies``, :mod:`sam.graph.implicit`);
* the **result** stored against the loop order: the graph writes it in loop order and records the
  format asked for (graph attribute ``output_formats``); the simulator converts the result to it.

Each case is reported by a one-line notice.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from formats.format import Format
from sam.notation.expr import Access, Assignment, replace


def concordant(acc: Access, fmt: Format, pos: dict[str, int]) -> Format:
    """``fmt`` with the mode order in which the loop order (``pos``) visits ``acc``'s index
    variables, the level formats kept level by level (``fmt`` itself when concordant)."""
    want = tuple(sorted(range(len(acc.indices)), key=lambda m: pos[acc.indices[m]]))
    return fmt if want == fmt.mode_order else Format(fmt.levels, want)


def _why(acc: Access, fmt: Format, pos: dict[str, int], order: list[str]) -> str:
    stored = [acc.indices[m] for m in fmt.mode_order]
    first, second = next((stored[k], stored[k + 1]) for k in range(len(stored) - 1)
                         if pos[stored[k]] > pos[stored[k + 1]])
    return (f"{acc} is stored {fmt.taco()} ({' before '.join(stored)}) but the loop order "
            f"{','.join(order)} visits {second} before {first}")


@dataclass
class Storage:
    """How one phase stores its tensors (see module docstring)."""

    #: the graph's format of every tensor whose storage changes, and of every copy
    formats: dict[str, Format] = field(default_factory=dict)
    #: copy name -> the tensor it copies
    copies: dict[str, str] = field(default_factory=dict)
    #: result name -> the format asked for (the graph writes the concordant one)
    output_formats: dict[str, Format] = field(default_factory=dict)
    notices: list[str] = field(default_factory=list)


def concordant_storage(assign: Assignment, formats: dict[str, Format], order: list[str],
                       fresh: Callable[[str], str]) -> tuple[Assignment, Storage]:
    """``assign`` (sums placed) with the uses needing a copy renamed, and the storage that makes
    every access concordant with ``order``. ``fresh(base)`` gives an unused tensor name."""
    pos = {v: k for k, v in enumerate(order)}
    out = Storage()
    lhs = assign.lhs
    fmt = formats[lhs.name]
    chosen: dict[str, Format] = {}
    want = concordant(lhs, fmt, pos)
    chosen[lhs.name] = want
    if want != fmt:
        out.formats[lhs.name] = want
        out.output_formats[lhs.name] = fmt
        out.notices.append(
            f"result {_why(lhs, fmt, pos, order)}: the graph writes it in loop order, as "
            f"{want.taco()}, and the simulator converts the result to {fmt.taco()} (graph "
            "attribute output_formats)")
    wants = [(acc, concordant(acc, formats[acc.name], pos)) for acc in assign.rhs.accesses()]
    for acc, want in wants:  # the format asked for, if a use reads it concordantly
        if want == formats[acc.name]:
            chosen.setdefault(acc.name, want)
    rhs = assign.rhs
    copy_of: dict[tuple[str, Format], str] = {}
    for acc, want in wants:
        fmt = formats[acc.name]
        have = chosen.setdefault(acc.name, want)
        if want == have:
            if want != fmt and acc.name not in out.formats:
                out.formats[acc.name] = want
                out.notices.append(
                    f"operand {_why(acc, fmt, pos, order)}: the graph reads it stored as "
                    f"{want.taco()} (the simulator re-stores the tensor bound to it, as TACO "
                    "transposes it)")
            continue
        key = (acc.name, want)
        if key not in copy_of:
            copy_of[key] = name = fresh(f"{acc.name}_t")
            out.formats[name] = want
            out.copies[name] = acc.name
            stored = f"stored {have.taco()}" if have == fmt else f"read as {have.taco()}"
            out.notices.append(
                f"operand {acc}: {acc.name} is {stored} for another use, but the loop order "
                f"{','.join(order)} reads {acc} in the mode order {want.taco()}: the graph reads "
                f"a copy {name} stored so, made by the simulator from the tensor bound to "
                f"{acc.name} (graph attribute copies)")
        rhs = replace(rhs, acc, Access(copy_of[key], acc.indices, col=acc.col))
    if rhs is assign.rhs:
        return assign, out
    return Assignment(lhs, rhs, assign.text), out
