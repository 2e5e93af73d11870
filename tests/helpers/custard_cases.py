"""Random Custard cases: an index-notation expression (up to four operands of order 0..4, ``+ - *``
trees, a result of order 0..3), random formats, a loop order drawn one of four ways, and random
sparse integer inputs; drawn through a tiny ``Draw`` interface so hypothesis (``HypDraw``) or a
seeded ``random.Random`` (``RandomDraw``) drives it (tests/test_custard_random.py)."""

from __future__ import annotations

import os
import random
from dataclasses import dataclass
from itertools import pairwise

import numpy as np
from hypothesis import strategies as st

from formats.format import Format
from sam.notation.expr import Access, Node, Sum, children, place_reductions
from sam.notation.parse import parse_expression

VARS = ("i", "j", "k", "l", "m")
NAMES = ("B", "C", "D", "E")
#: Iteration-space budget: the product of all index variables' sizes (keeps runs short).
BUDGET = 400
#: Chance that one index variable has size 0.
ZERO_DIM = float(os.environ.get("CUSTARD_RANDOM_ZERO_DIM", "0.15"))


class Draw:
    """The choices a case is made of (hypothesis or a seeded ``random.Random``)."""

    def int(self, lo: int, hi: int) -> int:  # inclusive
        raise NotImplementedError

    def chance(self, p: float) -> bool:
        return self.int(0, 999) >= 1000 - int(p * 1000)  # shrinks towards False

    def pick(self, seq):
        return seq[self.int(0, len(seq) - 1)]

    def shuffle(self, seq) -> list:
        rest, out = list(seq), []
        while rest:
            out.append(rest.pop(self.int(0, len(rest) - 1)))
        return out


class HypDraw(Draw):
    def __init__(self, data) -> None:
        self.data = data

    def int(self, lo: int, hi: int) -> int:
        return self.data.draw(st.integers(lo, hi))


class RandomDraw(Draw):
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def int(self, lo: int, hi: int) -> int:
        return self.rng.randint(lo, hi)


@dataclass
class Case:
    expr: str
    formats: dict[str, Format]
    order: list[str]
    strategy: str
    product: bool = False  # a single product (Einstein summation)

    def __str__(self) -> str:
        fmts = ", ".join(f"{k}: {f.taco() if f.order else 'none'}"
                         for k, f in self.formats.items())
        return f"{self.expr}  formats {{{fmts}}}  order {','.join(self.order)} ({self.strategy})"


def _operands(d: Draw) -> list[tuple[str, tuple[str, ...]]]:
    """Up to four distinct tensors, each of order 0..4, and sometimes one of them twice."""
    n = d.int(1, 4)
    ops = []
    for name in NAMES[:n]:
        k = d.pick([2, 1, 3, 0, 2, 1, 4, 2, 3])  # (hypothesis favours the first)
        ops.append((name, tuple(d.shuffle(VARS)[:k])))
    if d.chance(0.25):
        name, idx = ops[d.int(0, n - 1)]
        if idx and d.chance(0.6):  # same tensor, other index variables
            idx = tuple(d.shuffle(VARS)[: len(idx)])
        ops.append((name, idx))
        ops = d.shuffle(ops)
    return ops


def _access(name: str, idx: tuple[str, ...]) -> str:
    return f"{name}({','.join(idx)})" if idx else name


def _tree(d: Draw, leaves: list[str], only_mul: bool) -> tuple[str, str]:
    """A random ``+ - *`` tree over ``leaves`` in order: (text, kind of its top node)."""
    if len(leaves) == 1:
        text, kind = leaves[0], "leaf"
    else:
        cut = d.int(1, len(leaves) - 1)
        left, lk = _tree(d, leaves[:cut], only_mul)
        right, rk = _tree(d, leaves[cut:], only_mul)
        op = "*" if only_mul else d.pick(["*", "*", "+", "-"])
        if op == "*":
            if lk == "add" or (lk == "mul" and d.chance(0.3)):
                left = f"({left})"
            if rk in ("add", "mul") and (rk == "add" or d.chance(0.7)):
                right = f"({right})"
        else:
            if lk != "leaf" and d.chance(0.3):
                left = f"({left})"
            if rk == "add" or (rk != "leaf" and d.chance(0.3)):
                right = f"({right})"
        text, kind = f"{left} {op} {right}", ("mul" if op == "*" else "add")
    if d.chance(0.12):
        text, kind = (f"-{text}" if kind == "leaf" else f"-({text})"), "leaf"
    return text, kind


def _expression(d: Draw) -> tuple[str, dict[str, tuple[str, ...]], bool]:
    ops = _operands(d)
    only_mul = d.chance(0.3)
    rhs, _ = _tree(d, [_access(n, i) for n, i in ops], only_mul)
    used = list(dict.fromkeys(v for _, idx in ops for v in idx))
    out = tuple(d.shuffle(used)[: d.int(0, min(3, len(used)))])
    first = {n: i for n, i in reversed(ops)}
    return f"{_access('X', out)} = {rhs}", {"X": out, **first}, only_mul


def _random_format(d: Draw, k: int) -> Format:
    return Format(tuple(d.pick("ds") for _ in range(k)), tuple(d.shuffle(range(k))))


def _concordant_format(d: Draw, idx: tuple[str, ...], order: list[str]) -> Format:
    modes = sorted(range(len(idx)), key=lambda m: order.index(idx[m]))
    return Format(tuple(d.pick("ds") for _ in idx), tuple(modes))


def _format_edges(expr: str, formats: dict[str, Format]) -> set[tuple[str, str]]:
    """(a, b): a must come before b for every tensor to be read in its mode order."""
    assign = parse_expression(expr)
    edges = set()
    for acc in [assign.lhs, *assign.rhs.accesses()]:
        stored = [acc.indices[m] for m in formats[acc.name].mode_order]
        edges |= set(pairwise(stored))
    return edges


def _inner_sum_edges(expr: str) -> set[tuple[str, str]]:
    """(a, b): b is summed by a sum inside the expression that a's loop encloses."""
    assign = place_reductions(parse_expression(expr))
    edges = set()
    body: Node = assign.rhs
    enclosing = list(assign.lhs.indices)
    while isinstance(body, Sum):
        enclosing += list(body.vars_)
        body = body.child

    def visit(node: Node, outer: list[str]) -> None:
        if isinstance(node, Sum):
            edges.update((a, b) for a in outer for b in node.vars_)
            outer = outer + list(node.vars_)
        for c in children(node):
            visit(c, outer)

    visit(body, enclosing)
    return {(a, b) for a, b in edges if a != b}


def _topological(d: Draw, nodes: list[str], edges: set[tuple[str, str]]) -> list[str] | None:
    order: list[str] = []
    while len(order) < len(nodes):
        ready = [v for v in nodes if v not in order
                 and all(a in order for a, b in edges if b == v)]
        if not ready:
            return None
        order.append(d.pick(ready))
    return order


def _violates(order: list[str], edges: set[tuple[str, str]]) -> bool:
    return any(order.index(a) > order.index(b) for a, b in edges)


def draw_case(d: Draw) -> Case:
    expr, idx, only_mul = _expression(d)
    variables = list(dict.fromkeys(
        v for acc in parse_expression(expr).rhs.accesses() for v in acc.indices))
    strategy = d.pick(["order-first", "order-first", "order-first+sums", "order-first+sums",
                       "order-first+sums", "topological", "topological+sums",
                       "topological+sums", "topological+sums", "random"])
    sums = _inner_sum_edges(expr) if strategy.endswith("+sums") else set()
    if strategy.startswith("order-first"):
        order = _topological(d, variables, sums) or d.shuffle(variables)
        formats = {name: _concordant_format(d, i, order) for name, i in idx.items()}
    else:
        formats = {name: _random_format(d, len(i)) for name, i in idx.items()}
        edges = _format_edges(expr, formats) if strategy != "random" else set()
        order = _topological(d, variables, edges | sums) or d.shuffle(variables)
    return Case(expr, formats, order, strategy, only_mul)


def expected_refusal(case: Case) -> str | None:  # noqa: ARG001 - kept for the callers
    """The documented refusal compiling ``case`` must give, or None if it must compile: None
    since discordant storage is stored in loop order by the graph (custard.concordance)."""
    return None


def expects_program(case: Case) -> bool:
    """An inner sum whose variable the order visits too early: a program of graphs."""
    return _violates(case.order, _inner_sum_edges(case.expr))


def _sizes(d: Draw, expr: str) -> dict[str, int]:
    """Index variable sizes 0..6, equal where one tensor is used with different variables,
    shrunk to the iteration-space budget."""
    assign = parse_expression(expr)
    parent = {v: v for v in VARS}

    def find(v: str) -> str:
        while parent[v] != v:
            v = parent[v]
        return v

    first: dict[str, Access] = {}
    for acc in assign.rhs.accesses():
        ref = first.setdefault(acc.name, acc)
        for a, b in zip(ref.indices, acc.indices, strict=True):
            parent[find(a)] = find(b)
    used = sorted(assign.rhs.vars())
    size = {v: d.pick([3, 2, 4, 1, 5, 3, 6, 4]) for v in VARS}
    if used and d.chance(ZERO_DIM):
        size[find(d.pick(used))] = 0
    size = {v: size[find(v)] for v in VARS}
    while np.prod([size[v] for v in used]) > BUDGET:
        big = max(used, key=lambda v: size[v])
        for v in VARS:
            if find(v) == find(big):
                size[v] -= 1
    return size


def draw_arrays(d: Draw, expr: str) -> dict[str, np.ndarray]:
    size = _sizes(d, expr)
    rng = np.random.default_rng(d.int(0, 2**32 - 1))
    arrays: dict[str, np.ndarray] = {}
    for acc in parse_expression(expr).rhs.accesses():
        if acc.name in arrays:
            continue
        shape = tuple(size[v] for v in acc.indices)
        density = d.pick([0.5, 0.2, 0.8, 0.0, 1.0]) if acc.indices else d.pick([1.0] * 9 + [0.0])
        vals = rng.integers(1, 4, shape) * rng.choice([-1, 1], shape)
        arrays[acc.name] = np.where(rng.random(shape) < density, vals, 0).astype(float)
    return arrays
