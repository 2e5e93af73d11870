"""Read tensor index notation (SAM paper Sec. 2.1) as the TACO/Custard command line writes it.

* ``X(i,j)=B(i,k)*C(k,j)``, with ``+``, ``-`` (binary and unary), ``*``, ``/`` (iterated like a
  product, as TACO does), parentheses and numeric constants (``2*B(i,j)``, ``1.5e-3``); a scalar
  is a bare name (``x = b*c``); the result may appear on the right (``y(i)=A(i,j)*x(j)+y(i)``:
  there it is the result's value before the assignment, an input) and may have index variables
  no operand has (``A(i,j)=b(i)``: the value repeats along ``j``, whose size the caller gives);
* numpy-style einsum strings ``"ik,kj->ij"`` with operand names.

Every error is a :class:`~sam.errors.CompileError` naming the column or the offending part.
"""

from __future__ import annotations

import re

from sam.errors import CompileError
from sam.notation.expr import (
    Access,
    Add,
    Assignment,
    Div,
    Literal,
    Mul,
    Neg,
    Node,
    deep_recursion,
)

_NUMBER = r"(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?"
_TOKEN = re.compile(rf"\s*(?:([A-Za-z_][A-Za-z_0-9]*)|({_NUMBER})|(.))")


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens: list[tuple[str, str, int]] = []  # (kind, value, column)
        for m in _TOKEN.finditer(text):
            if m.group(0).strip() == "":
                continue
            col = m.start(m.lastindex or 0) + 1
            if m.group(1):
                self.tokens.append(("name", m.group(1), col))
            elif m.group(2):
                self.tokens.append(("number", m.group(2), col))
            else:
                self.tokens.append(("op", m.group(3), col))
        self.pos = 0

    # -- helpers
    def peek(self) -> tuple[str, str, int]:
        if self.pos < len(self.tokens):
            return self.tokens[self.pos]
        return ("end", "", len(self.text) + 1)

    def error(self, what: str, col: int | None = None) -> CompileError:
        col = self.peek()[2] if col is None else col
        return CompileError(f"column {col}: {what} in {self.text.strip()!r}")

    def expect(self, value: str, context: str) -> int:
        kind, tok, col = self.peek()
        if tok != value or kind != "op":
            found = "the end" if kind == "end" else repr(tok)
            raise self.error(f"expected {value!r} {context}, found {found}")
        self.pos += 1
        return col

    # -- grammar
    def assignment(self) -> Assignment:
        lhs = self.access()
        self.expect("=", "after the left-hand side")
        rhs = self.expr()
        kind, tok, col = self.peek()
        if kind != "end":
            raise self.error(f"unexpected {tok!r} (expected an operator: + - * /)")
        return Assignment(lhs, rhs, self.text)

    def expr(self) -> Node:
        node = self.term()
        while self.peek()[1] in ("+", "-") and self.peek()[0] == "op":
            _, op, col = self.peek()
            self.pos += 1
            node = Add(node, self.term(), op == "-", col=col)
        return node

    def term(self) -> Node:
        node = self.factor()
        while self.peek()[1] in ("*", "/") and self.peek()[0] == "op":
            _, op, col = self.peek()
            self.pos += 1
            node = (Mul if op == "*" else Div)(node, self.factor(), col=col)
        return node

    def factor(self) -> Node:
        kind, tok, col = self.peek()
        if kind == "op" and tok == "-":
            self.pos += 1
            return Neg(self.factor(), col=col)
        if kind == "op" and tok == "(":
            self.pos += 1
            node = self.expr()
            self.expect(")", "to close the parenthesis")
            return node
        if kind == "name":
            return self.access()
        if kind == "number":
            self.pos += 1
            value = float(tok)
            if value != value or value in (float("inf"), float("-inf")):
                raise self.error(f"constant {tok} is not a finite number", col)
            return Literal(tok, col=col)
        found = "the end of the expression" if kind == "end" else repr(tok)
        raise self.error(f"expected a tensor access such as B(i,j), found {found}")

    def access(self) -> Access:
        kind, name, col = self.peek()
        if kind != "name":
            found = "the end" if kind == "end" else repr(name)
            raise self.error(f"expected a tensor name, found {found}")
        self.pos += 1
        indices: list[str] = []
        if self.peek()[1] == "(" and self.peek()[0] == "op":
            self.pos += 1
            if self.peek()[1] == ")":
                self.pos += 1
                return Access(name, (), col=col)
            while True:
                k, var, c = self.peek()
                if k != "name":
                    found = "the end" if k == "end" else repr(var)
                    raise self.error(f"expected an index variable in {name}(...), found {found}")
                if var in indices:
                    raise self.error(
                        f"index {var} appears twice in {name}; diagonal accesses like "
                        f"{name}({var},{var}) are not supported", c)
                indices.append(var)
                self.pos += 1
                if self.peek()[1] == ",":
                    self.pos += 1
                    continue
                self.expect(")", f"after index {var!r} of {name}")
                break
        return Access(name, tuple(indices), col=col)


def parse_expression(text: str) -> Assignment:
    """Parse ``X(i,j) = B(i,k) * C(k,j)`` and check its tensors are used consistently.

    The result may appear on the right-hand side (there it is its old value, an input) and may
    have index variables that no operand has (:func:`broadcast_indices`)."""
    if not text or not text.strip():
        raise CompileError("empty expression; write e.g. \"X(i,j)=B(i,k)*C(k,j)\"")
    try:
        with deep_recursion():
            assign = _Parser(text).assignment()
            accesses = assign.rhs.accesses()
    except RecursionError:
        raise CompileError(
            "the expression is nested too deeply to parse; split it into smaller ones"
        ) from None
    lhs = assign.lhs
    orders: dict[str, tuple[int, int]] = {lhs.name: (len(lhs.indices), lhs.col)}
    for acc in accesses:
        seen = orders.setdefault(acc.name, (len(acc.indices), acc.col))
        if seen[0] != len(acc.indices):
            raise CompileError(
                f"column {acc.col}: {acc.name} is used with {len(acc.indices)} indices here but "
                f"{seen[0]} at column {seen[1]}; a tensor has one order"
            )
    return assign


def parse_rhs(text: str) -> Node:
    """Parse a bare expression (a right-hand side): ``B(i,k)*C(k,j)``."""
    if not text or not text.strip():
        raise CompileError("empty expression")
    parser = _Parser(text)
    try:
        with deep_recursion():
            node = parser.expr()
    except RecursionError:
        raise CompileError("the expression is nested too deeply to parse") from None
    kind, tok, _ = parser.peek()
    if kind != "end":
        raise parser.error(f"unexpected {tok!r} (expected an operator: + - * /)")
    return node


def broadcast_indices(assign: Assignment) -> list[str]:
    """Index variables of the result that no operand has (``j`` in ``A(i,j)=b(i)``): the value
    repeats along them, and their sizes come from outside the expression."""
    used = {v for acc in assign.rhs.accesses() for v in acc.indices}
    return [v for v in assign.lhs.indices if v not in used]


def einsum_expression(spec: str, operands: list[str], output: str = "X") -> str:
    """``"ik,kj->ij"`` with operands ``["B", "C"]`` -> ``"X(i,j)=B(i,k)*C(k,j)"``."""
    if "->" not in spec:
        raise CompileError(f"einsum {spec!r} needs an explicit output, e.g. 'ik,kj->ij'")
    ins, out = spec.replace(" ", "").split("->", 1)
    terms = ins.split(",")
    if len(terms) != len(operands):
        raise CompileError(
            f"einsum {spec!r} has {len(terms)} operand(s) but {len(operands)} name(s) were given"
        )
    for term in [*terms, out]:
        if not re.fullmatch(r"[a-zA-Z]*", term):
            raise CompileError(f"einsum {spec!r}: {term!r} must be index letters only")
    lost = [v for v in out if v not in "".join(terms)]
    if lost:
        raise CompileError(f"einsum {spec!r}: output index {lost[0]} is in no operand")

    def acc(name: str, idx: str) -> str:
        return f"{name}({','.join(idx)})" if idx else name

    factors = [acc(n, t) for n, t in zip(operands, terms, strict=True)]
    return f"{acc(output, out)}=" + "*".join(factors)
