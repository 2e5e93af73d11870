"""Read tensor index notation (SAM paper Sec. 2.1) as the TACO/Custard command line writes it.

* ``X(i,j)=B(i,k)*C(k,j)``, with ``+``, ``-`` (binary and unary), ``*`` and parentheses; a scalar
  is a bare name (``x = b*c``);
* numpy-style einsum strings ``"ik,kj->ij"`` with operand names.

Every error is a :class:`~sam.errors.CompileError` naming the column or the offending part.
"""

from __future__ import annotations

import re

from sam.errors import CompileError
from sam.notation.expr import Access, Add, Assignment, Mul, Neg, Node

_TOKEN = re.compile(r"\s*(?:([A-Za-z_][A-Za-z_0-9]*)|(\d+(?:\.\d*)?)|(.))")


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
            raise self.error(f"unexpected {tok!r} (expected an operator: + - *)")
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
        while self.peek()[1] == "*" and self.peek()[0] == "op":
            col = self.peek()[2]
            self.pos += 1
            node = Mul(node, self.factor(), col=col)
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
            raise self.error(
                f"constant {tok} is not supported; bind it as a scalar tensor (e.g. a) instead"
            )
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
    """Parse ``X(i,j) = B(i,k) * C(k,j)`` and check its tensors are used consistently."""
    if not text or not text.strip():
        raise CompileError("empty expression; write e.g. \"X(i,j)=B(i,k)*C(k,j)\"")
    try:
        assign = _Parser(text).assignment()
        assign.rhs.accesses()
    except RecursionError:
        raise CompileError(
            "the expression is nested too deeply to parse; split it into smaller ones"
        ) from None
    lhs = assign.lhs
    orders: dict[str, tuple[int, int]] = {lhs.name: (len(lhs.indices), lhs.col)}
    for acc in assign.rhs.accesses():
        if acc.name == lhs.name:
            raise CompileError(
                f"column {acc.col}: the result {lhs.name} also appears on the right-hand side; "
                "write the result to a new tensor"
            )
        seen = orders.setdefault(acc.name, (len(acc.indices), acc.col))
        if seen[0] != len(acc.indices):
            raise CompileError(
                f"column {acc.col}: {acc.name} is used with {len(acc.indices)} indices here but "
                f"{seen[0]} at column {seen[1]}; a tensor has one order"
            )
    missing = [v for v in lhs.indices if v not in assign.rhs.vars()]
    if missing:
        raise CompileError(
            f"index {missing[0]} of {lhs.name} does not appear on the right-hand side, so its "
            "range is unknown"
        )
    return assign


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

    def acc(name: str, idx: str) -> str:
        return f"{name}({','.join(idx)})" if idx else name

    factors = [acc(n, t) for n, t in zip(operands, terms, strict=True)]
    return f"{acc(output, out)}=" + "*".join(factors)
