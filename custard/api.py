"""``custard.compile``: tensor index notation + formats + loop order -> SAM graph."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import pairwise

from custard.lower import lower
from custard.parser import parse_schedule
from formats.errors import FormatError
from formats.format import Format
from sam.errors import CompileError
from sam.graph.model import Graph
from sam.notation.expr import (
    Access,
    Assignment,
    Node,
    Sum,
    children,
    encloses,
    place_reductions,
    scope_of,
)
from sam.notation.parse import einsum_expression, parse_expression


def appearance_order(assign: Assignment) -> list[str]:
    """Index variables in order of first appearance (left-hand side first)."""
    order: list[str] = []
    for acc in [assign.lhs, *assign.rhs.accesses()]:
        for v in acc.indices:
            if v not in order:
                order.append(v)
    return order


def default_order(assign: Assignment, formats: Mapping[str, Format] | None = None) -> list[str]:
    """Order of first appearance, adjusted so that every tensor is read (and the result written)
    in its mode order: the earliest-appearing variable whose stored-before variables are all
    placed comes next. ``x(j) = B(i,j)`` with B row-major loops i, j."""
    first = appearance_order(assign)
    before: dict[str, set[str]] = {v: set() for v in first}
    for acc in [assign.lhs, *assign.rhs.accesses()]:
        fmt = (formats or {}).get(acc.name) or Format.default(len(acc.indices))
        stored = [acc.indices[m] for m in fmt.mode_order]
        for a, b in pairwise(stored):
            before[b].add(a)
    order: list[str] = []
    while len(order) < len(first):
        nxt = next((v for v in first if v not in order and before[v] <= set(order)), None)
        if nxt is None:
            stuck = [v for v in first if v not in order]
            raise CompileError(
                "no loop order reads every tensor in its mode order (index variables "
                f"{','.join(stuck)} are stored in conflicting orders); "
                + _format_fix(assign, formats or {}, first)
            )
        order.append(nxt)
    return order


def _format_fix(assign: Assignment, formats: Mapping[str, Format], order: list[str]) -> str:
    """A format change that makes the first discordant tensor follow ``order``."""
    pos = {v: k for k, v in enumerate(order)}
    for acc in [*assign.rhs.accesses(), assign.lhs]:
        fmt = formats.get(acc.name) or Format.default(len(acc.indices))
        stored = [pos[acc.indices[m]] for m in fmt.mode_order]
        if stored != sorted(stored):
            want = sorted(range(len(acc.indices)), key=lambda m: pos[acc.indices[m]])
            fix = Format(fmt.levels, tuple(want))
            return f"store {acc.name} as -f={acc.name}:{fix.taco()} or give a loop order"
    return "give the loop order with -s=reorder(...)"


def _as_order(order: str | Sequence[str] | None, assign: Assignment,
              formats: Mapping[str, Format]) -> list[str]:
    all_vars = appearance_order(assign)
    if order is None:
        return default_order(assign, formats)
    if isinstance(order, str):
        text = order.strip()
        if text.startswith("reorder") or text.startswith("-s="):
            seq = parse_schedule(text)
        elif "," in text:
            seq = [v.strip() for v in text.split(",") if v.strip()]
        elif all(len(v) == 1 for v in all_vars):
            seq = list(text)
        else:
            seq = text.split()
    else:
        seq = list(order)
    unknown = [v for v in seq if v not in all_vars]
    if unknown:
        raise CompileError(
            f"loop order names {unknown[0]!r}, which is not an index variable of the expression "
            f"(its variables: {','.join(all_vars)})"
        )
    if len(set(seq)) != len(seq):
        raise CompileError(f"loop order {','.join(seq)} lists a variable twice")
    missing = [v for v in all_vars if v not in seq]
    if missing:
        raise CompileError(
            f"loop order {','.join(seq)} misses {','.join(missing)}; list every index variable, "
            f"e.g. reorder({','.join(seq + missing)})"
        )
    return seq


def _as_formats(formats: Mapping[str, Format | str] | None, assign: Assignment
                ) -> dict[str, Format]:
    orders = {assign.lhs.name: len(assign.lhs.indices)}
    for acc in assign.rhs.accesses():
        orders[acc.name] = len(acc.indices)
    out: dict[str, Format] = {}
    for name, fmt in (formats or {}).items():
        if name not in orders:
            raise CompileError(
                f"format given for {name}, which is not in the expression (tensors: "
                f"{', '.join(orders)})"
            )
        try:
            f = fmt if isinstance(fmt, Format) else Format.parse(str(fmt))
        except FormatError as err:
            raise CompileError(f"format of {name}: {err}") from None
        if f.order != orders[name]:
            raise CompileError(
                f"format {f.taco()} of {name} has {f.order} level(s) but {name} has order "
                f"{orders[name]}; give one level letter per index"
            )
        out[name] = f
    for name, k in orders.items():
        out.setdefault(name, Format.default(k))
    return out


def _check_concordant(acc: Access, fmt: Format, pos: dict[str, int], order: list[str],
                      role: str) -> None:
    stored = [acc.indices[m] for m in fmt.mode_order]
    visits = [pos[v] for v in stored]
    if visits == sorted(visits):
        return
    want = sorted(range(len(acc.indices)), key=lambda m: pos[acc.indices[m]])
    fix = Format(fmt.levels, tuple(want))
    first, second = next((stored[k], stored[k + 1]) for k in range(len(stored) - 1)
                         if pos[stored[k]] > pos[stored[k + 1]])
    raise CompileError(
        f"{role} {acc} is stored {fmt.taco()} ({' before '.join(stored)}) but the loop order "
        f"{','.join(order)} visits {second} before {first}; store it as "
        f"-f={acc.name}:{fix.taco()} or change the loop order so that {first} comes before "
        f"{second}"
    )


def _check_inner_sums(assign: Assignment, order: list[str]) -> None:
    pos = {v: k for k, v in enumerate(order)}
    body, _, scope = scope_of(assign)

    def visit(node: Node) -> None:
        if isinstance(node, Sum) and node is not assign.rhs:
            outer = [v for v in order if v not in node.vars_ and encloses(scope[v], node)]
            late = [v for v in outer if pos[v] > min(pos[r] for r in node.vars_)]
            if late:
                summed = ",".join(node.vars_)
                raise CompileError(
                    f"the sum over {summed} of ({node.child}) is combined with other terms, so "
                    f"{summed} must come after {','.join(outer)} in the loop order; e.g. "
                    f"reorder({','.join(outer + list(node.vars_))}{_rest(order, outer, node)})"
                )
        for c in children(node):
            visit(c)

    visit(body)


def _rest(order: list[str], outer: list[str], node: Sum) -> str:
    rest = [v for v in order if v not in outer and v not in node.vars_]
    return "," + ",".join(rest) if rest else ""


def compile(  # noqa: A001 - the natural name for a compiler entry point
    expression: str,
    formats: Mapping[str, Format | str] | None = None,
    order: str | Sequence[str] | None = None,
    *,
    name: str | None = None,
) -> Graph:
    """Compile ``expression`` (tensor index notation) to a SAM graph.

    ``formats`` maps tensor names to formats (``"ss"``, ``"ds:1,0"``, :class:`Format`); missing
    ones are all-compressed in mode order. ``order`` is the loop (dataflow) order: ``"ikj"``,
    ``["i","k","j"]`` or ``"reorder(i,k,j)"``; by default, order of first appearance adjusted
    to the formats (:func:`default_order`).
    """
    try:
        return _compile(expression, formats, order, name)
    except RecursionError:
        raise CompileError(
            "the expression is nested too deeply to compile; split it into smaller ones"
        ) from None


def _compile(expression: str, formats: Mapping[str, Format | str] | None,
             order: str | Sequence[str] | None, name: str | None) -> Graph:
    assign = parse_expression(expression)
    fmts = _as_formats(formats, assign)
    seq = _as_order(order, assign, fmts)
    pos = {v: k for k, v in enumerate(seq)}
    placed = place_reductions(assign)
    _check_concordant(assign.lhs, fmts[assign.lhs.name], pos, seq, "result")
    for acc in placed.rhs.accesses():
        _check_concordant(acc, fmts[acc.name], pos, seq, "operand")
    _check_inner_sums(placed, seq)
    graph = lower(placed, seq, fmts)
    graph.attrs["expression"] = expression.replace(" ", "")
    graph.attrs["order"] = ",".join(seq)
    if name:
        graph.name = graph.dot_id = name
    return graph


def compile_einsum(spec: str, operands: Sequence[str], output: str = "X",
                   formats: Mapping[str, Format | str] | None = None,
                   order: str | Sequence[str] | None = None) -> Graph:
    """numpy-style ``"ik,kj->ij"`` with operand names, e.g. ``["B", "C"]``."""
    return compile(einsum_expression(spec, list(operands), output), formats, order)
