"""Tensor index notation: the expression tree (SAM paper Sec. 2.1; Sec. 5 compiles it).

``X(i,j) = B(i,k) * C(k,j)`` is an :class:`Assignment` of an :class:`Access` on the left to an
expression tree of accesses, numeric constants (:class:`Literal`), ``*`` (:class:`Mul`), ``/``
(:class:`Div`), ``+``/``-`` (:class:`Add`) on the right.
Index variables absent from the left-hand side are summed; :func:`place_reductions` puts each
sum at the smallest subexpression holding every use of its variable, as TACO does, giving
:class:`Sum` nodes (the reductions of concrete index notation).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

#: Python frames allowed while walking an expression tree: a flat sum of n operands is a
#: left-leaning tree of depth n, and every walk (parse, sum placement, lowering, reference) recurses
#: over it. Python 3.11 runs Python-to-Python calls without C recursion, so this is safe.
RECURSION_LIMIT = 12_000


@contextmanager
def deep_recursion(limit: int = RECURSION_LIMIT) -> Iterator[None]:
    """Raise Python's recursion limit to ``limit`` (never lower it) for the block."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, limit))
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


@dataclass(eq=False)
class Node:
    """An expression node; ``col`` is its 1-based column in the source text (for errors)."""

    col: int = field(default=0, kw_only=True)

    def accesses(self) -> list[Access]:
        raise NotImplementedError

    def vars(self) -> set[str]:
        return {v for a in self.accesses() for v in a.indices}


@dataclass(eq=False)
class Access(Node):
    """``B(i,k)``: a tensor indexed by index variables (none for a scalar)."""

    name: str
    indices: tuple[str, ...]
    #: Label telling apart several uses of one tensor (``B``, ``B#2``); set by the lowering.
    label: str = ""

    def accesses(self) -> list[Access]:
        return [self]

    def __str__(self) -> str:
        return f"{self.name}({','.join(self.indices)})" if self.indices else self.name


@dataclass(eq=False)
class Literal(Node):
    """A numeric constant (``2``, ``1.5e-3``) as written; it has no index variables, so its
    value holds at every coordinate (an operand of ``+`` repeats along the other's variables)."""

    text: str

    @property
    def value(self) -> float:
        return float(self.text)

    def accesses(self) -> list[Access]:
        return []

    def __str__(self) -> str:
        return self.text


@dataclass(eq=False)
class Mul(Node):
    left: Node
    right: Node

    def accesses(self) -> list[Access]:
        return self.left.accesses() + self.right.accesses()

    def __str__(self) -> str:
        return f"{_wrap(self.left, self)} * {_wrap(self.right, self)}"


@dataclass(eq=False)
class Div(Mul):
    """``left / right``. As in TACO, a division iterates like a product (an intersection: the
    quotient exists where both operands do) and a sum over a variable of either side covers the
    whole term; it is a :class:`Mul` for everything but its arithmetic."""

    def __str__(self) -> str:
        right = f"({self.right})" if isinstance(self.right, (Add, Mul)) else str(self.right)
        return f"{_wrap(self.left, self)} / {right}"


@dataclass(eq=False)
class Add(Node):
    """``left + right``, or ``left - right`` when ``sub``."""

    left: Node
    right: Node
    sub: bool = False

    def accesses(self) -> list[Access]:
        return self.left.accesses() + self.right.accesses()

    def __str__(self) -> str:
        right = f"({self.right})" if isinstance(self.right, Add) else str(self.right)
        return f"{self.left} {'-' if self.sub else '+'} {right}"


@dataclass(eq=False)
class Neg(Node):
    """Unary minus."""

    child: Node

    def accesses(self) -> list[Access]:
        return self.child.accesses()

    def __str__(self) -> str:
        return f"-{_wrap(self.child, self)}"


@dataclass(eq=False)
class Sum(Node):
    """A reduction over ``vars`` of ``child`` (concrete index notation's ``sum``)."""

    vars_: tuple[str, ...]
    child: Node

    def accesses(self) -> list[Access]:
        return self.child.accesses()

    def __str__(self) -> str:
        return f"sum({','.join(self.vars_)}, {self.child})"


@dataclass(eq=False)
class Assignment:
    lhs: Access
    rhs: Node
    text: str = ""

    def __str__(self) -> str:
        return f"{self.lhs} = {self.rhs}"


def _wrap(child: Node, parent: Node) -> str:
    return f"({child})" if isinstance(child, Add) else str(child)


def children(node: Node) -> list[Node]:
    """The operands of ``node`` (none for an access)."""
    if isinstance(node, (Mul, Add)):
        return [node.left, node.right]
    if isinstance(node, (Neg, Sum)):
        return [node.child]
    return []


def with_children(node: Node, new: Sequence[Node]) -> Node:
    """A copy of ``node`` (same kind, column, ``-``, summed variables) over the operands ``new``,
    one per operand of ``node``; a leaf (access, constant) is returned as it is."""
    if isinstance(node, Mul):
        return type(node)(new[0], new[1], col=node.col)
    if isinstance(node, Add):
        return Add(new[0], new[1], node.sub, col=node.col)
    if isinstance(node, Neg):
        return Neg(new[0], col=node.col)
    if isinstance(node, Sum):
        return Sum(node.vars_, new[0], col=node.col)
    return node


def map_leaves(node: Node, leaf: Callable[[Node], Node]) -> Node:
    """``node`` with every leaf (access, constant) replaced by ``leaf(it)``; the operators above
    are copied (:func:`with_children`)."""
    kids = children(node)
    if not kids:
        return leaf(node)
    return with_children(node, [map_leaves(c, leaf) for c in kids])


def subtrees(node: Node) -> list[Node]:
    """``node`` and every node below it, in pre-order."""
    return [node, *(s for c in children(node) for s in subtrees(c))]


def same_tree(a: Node, b: Node) -> bool:
    """Structural equality: same kinds of nodes, tensor names and index variables, constant
    values, ``+``/``-`` and summed variables (columns and lowering labels are not compared)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, Access):
        return a.name == b.name and a.indices == b.indices  # type: ignore[attr-defined]
    if isinstance(a, Literal):
        return a.value == b.value  # type: ignore[attr-defined]
    if isinstance(a, Add) and a.sub != b.sub:  # type: ignore[attr-defined]
        return False
    if isinstance(a, Sum) and a.vars_ != b.vars_:  # type: ignore[attr-defined]
        return False
    ca, cb = children(a), children(b)
    return len(ca) == len(cb) and all(same_tree(x, y) for x, y in zip(ca, cb, strict=True))


def find_subtree(node: Node, wanted: Node) -> Node | None:
    """The first node of ``node`` (pre-order) structurally equal to ``wanted``
    (:func:`same_tree`), or None."""
    if same_tree(node, wanted):
        return node
    for c in children(node):
        found = find_subtree(c, wanted)
        if found is not None:
            return found
    return None


def add_on_path(node: Node, target: Node) -> bool:
    """Does the path from ``node`` down to ``target`` (inside it) pass an addition (a union,
    SAM paper Sec. 3.4)? ``target`` itself is not counted."""
    while node is not target:
        if isinstance(node, Add):
            return True
        node = next(c for c in children(node) if encloses(c, target))
    return False


def scope_of(assign: Assignment) -> tuple[Node, list[str], dict[str, Node]]:
    """Where each index variable ranges, in an assignment whose sums are placed.

    Returns the body below the root sums, the root-summed variables, and each variable's *scope*:
    the body for the output variables and the root-summed ones, and the child of its
    :class:`Sum` for every other summed variable (the loop nest of concrete index notation).
    """
    body: Node = assign.rhs
    root_sums: list[str] = []
    while isinstance(body, Sum):
        root_sums += list(body.vars_)
        body = body.child
    scope: dict[str, Node] = dict.fromkeys([*assign.lhs.indices, *root_sums], body)

    def visit(node: Node) -> None:
        if isinstance(node, Sum):
            for v in node.vars_:
                scope[v] = node.child
        for c in children(node):
            visit(c)

    visit(body)
    return body, root_sums, scope


def encloses(node: Node, target: Node) -> bool:
    """True when ``target`` is ``node`` or inside it."""
    if node is target:
        return True
    return any(encloses(c, target) for c in children(node))


def reduction_sites(assign: Assignment) -> dict[str, Node]:
    """Where each summed variable is summed: the node of ``assign.rhs`` its sum wraps.

    That is the smallest subexpression holding every use of the variable, widened over the
    products (and negations) above it, since sum_k(a)*b = sum_k(a*b) when b lacks k; never
    across a ``+``, which would change the value."""
    out_vars = set(assign.lhs.indices)
    summed = sorted(assign.rhs.vars() - out_vars)

    def lca(node: Node, var: str) -> Node:
        while True:
            users = [c for c in children(node) if var in c.vars()]
            if len(users) == 1 and not isinstance(node, Neg):
                node = users[0]
                continue
            if isinstance(node, Neg) and users:
                node = users[0]
                continue
            return node

    parents: dict[int, Node] = {}

    def index_parents(node: Node) -> None:
        for c in children(node):
            parents[id(c)] = node
            index_parents(c)

    index_parents(assign.rhs)

    def widen(node: Node) -> Node:
        while id(node) in parents and isinstance(parents[id(node)], (Mul, Neg)):
            node = parents[id(node)]
        return node

    return {var: widen(lca(assign.rhs, var)) for var in summed}


def place_reductions(assign: Assignment) -> Assignment:
    """Wrap the subexpression each summed variable is summed over in a :class:`Sum`
    (:func:`reduction_sites`). ``x(i) = b(i) - C(i,j)*d(j)`` sums j over ``C(i,j)*d(j)`` only;
    ``X(i,j) = B(i,k,l)*C(j,k)*D(j,l)`` sums k and l over the product."""
    targets: dict[int, list[str]] = {}
    for var, node in reduction_sites(assign).items():
        targets.setdefault(id(node), []).append(var)

    def rebuild(node: Node) -> Node:
        if isinstance(node, Mul):
            new: Node = type(node)(rebuild(node.left), rebuild(node.right), col=node.col)
        elif isinstance(node, Add):
            new = Add(rebuild(node.left), rebuild(node.right), node.sub, col=node.col)
        elif isinstance(node, Neg):
            new = Neg(rebuild(node.child), col=node.col)
        else:
            new = node
        if id(node) in targets:
            new = Sum(tuple(targets[id(node)]), new, col=node.col)
        return new

    return Assignment(assign.lhs, rebuild(assign.rhs), assign.text)


def replace(node: Node, target: Node, new: Node) -> Node:
    """``node`` with the subtree ``target`` (by identity) replaced by ``new``; the nodes on the
    way are copied, the rest shared."""
    if node is target:
        return new
    kids = children(node)
    if kids and encloses(node, target):
        return with_children(node, [replace(c, target, new) for c in kids])
    return node


def inner_sums(placed: Assignment) -> list[tuple[Sum, list[str]]]:
    """Each :class:`Sum` below the root sums of ``placed`` (an assignment whose sums are
    placed), in pre-order, with the variables whose loops enclose it (:func:`scope_of`: the
    variables, other than its own, whose scope holds it), in scope order. Such a sum is combined
    with other terms, so its loops nest inside theirs (concrete index notation, Sec. 5)."""
    body, _, scope = scope_of(placed)
    return [(node, [v for v in scope if v not in node.vars_ and encloses(scope[v], node)])
            for node in subtrees(body) if isinstance(node, Sum)]
