"""The paper artifact's syntactic rules for Table 2 (SAM paper Sec. 6.2), restated.

The paper's Table 2 counts come from github weiya711/sam-artifact,
``taco-website/process_expr.py``, which does not compile the logged algorithms: it reads the
expression (a Python AST of its right-hand side) and the ``-f`` formats. :func:`artifact_rows`
says which Table 2 rows that reading marks as lost for one command line (our own code, written
from the artifact's rules), so that ``reproduce table2`` can show, row by row, how much of the
difference to our compiled counts is the rule and how much the graphs:

=====  ======================================================================================
row    lost when (format of an operand's mode: its level letter, ``d`` when it has no ``-f``)
=====  ======================================================================================
1      not every right-hand operand has an explicit all-``d`` format (a scalar or a tensor
       without ``-f`` counts as not dense here)
2      some right-hand operand has an index variable (not scalars only)
3      a broadcast: an operand lacks a variable of the largest access, or the output has a
       variable no operand has
4      a ``+`` (not ``-``) whose two sides share a variable with at least one non-dense mode
5      a ``*`` whose two sides share a variable with two or more non-dense modes
6      a ``*`` whose two sides share a variable with at least one non-dense mode
7, 8   the expression text contains ``+`` / ``*``
9      a reduction: a right-hand variable the output lacks, or fewer output variables
10     :func:`custard.reproduce.dropper_reasons.artifact_needs_dropper`
11     the output has an explicit format with a non-``d`` level
12     the output has an index variable (not a scalar)
=====  ======================================================================================
"""

from __future__ import annotations

import ast
import re
import shlex

from custard.reproduce.dropper_reasons import (
    artifact_needs_dropper,
    formats_of,
    mode_sparse,
)


def _accesses(node: ast.AST) -> list[tuple[str, list[str]]]:
    """Tensor accesses (name, index variables) of an expression, scalars with no variables."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        return [(node.func.id, [a.id for a in node.args if isinstance(a, ast.Name)])]
    if isinstance(node, ast.Name):
        return [(node.id, [])]
    out = []
    for child in ast.iter_child_nodes(node):
        out += _accesses(child)
    return out


def _merge_rows(tree: ast.AST, fmts: dict[str, tuple[str, list[int]]]) -> set[str]:
    """Rows 4-6: per ``+`` / ``*``, the variables both sides (together) iterate."""
    rows: set[str] = set()

    def visit(node: ast.AST) -> dict[str, list[bool]]:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            out: dict[str, list[bool]] = {}
            for mode, arg in enumerate(node.args):
                if isinstance(arg, ast.Name):
                    out.setdefault(arg.id, []).append(mode_sparse(fmts, node.func.id, mode))
            return out
        if isinstance(node, ast.BinOp):
            left, right = visit(node.left), visit(node.right)
            merged = {k: left.get(k, []) + right.get(k, []) for k in left.keys() | right.keys()}
            shared = [fs for fs in merged.values() if len(fs) > 1]
            if isinstance(node.op, ast.Add) and any(sum(fs) >= 1 for fs in shared):
                rows.add("union")
            if isinstance(node.op, ast.Mult):
                if any(sum(fs) >= 1 for fs in shared):
                    rows.add("inter")
                if any(sum(fs) >= 2 for fs in shared):
                    rows.add("inter2")
            return merged
        if isinstance(node, ast.UnaryOp):
            return visit(node.operand)
        return {}

    visit(tree)
    return rows


def artifact_rows(command: str) -> set[str] | None:
    """The Table 2 rows (``table2.ROWS`` flags) the artifact marks as lost for ``command``;
    None when its expression does not parse."""
    try:
        words = shlex.split(command)
        lhs, rhs = words[0].split("=", 1)
        tree = ast.parse(rhs, mode="eval").body
        out_tree = ast.parse(lhs, mode="eval").body
    except (ValueError, IndexError, SyntaxError):
        return None
    fmts = formats_of(words[1:])
    rhs_acc = _accesses(tree)
    (out_name, out_vars), = _accesses(out_tree) or [("", [])]
    rows = _merge_rows(tree, fmts)
    if not all(name in fmts and not any(mode_sparse(fmts, name, m)
                                        for m in range(len(fmts[name][0])))
               for name, _ in rhs_acc):
        rows.add("scan_c")
    if any(ivs for _, ivs in rhs_acc):
        rows.add("scan")
    rhs_vars = {v for _, ivs in rhs_acc for v in ivs}
    largest = max([out_vars, *(ivs for _, ivs in rhs_acc)], key=len)
    if any(v not in ivs for _, ivs in rhs_acc for v in largest) or any(
            v not in rhs_vars for v in out_vars):
        rows.add("repeat")
    if "+" in words[0]:
        rows.add("add")
    if "*" in words[0]:
        rows.add("mul")
    if any(v not in out_vars for v in rhs_vars) or len(out_vars) < len(rhs_vars):
        rows.add("reduce")
    if artifact_needs_dropper(command):
        rows.add("crddrop")
    if out_name in fmts and any(mode_sparse(fmts, out_name, m)
                                for m in range(len(fmts[out_name][0]))):
        rows.add("write_c")
    if out_vars:
        rows.add("write")
    return rows


# ------------------------------------------------------------------ distinct algorithms
def _outer_parens_dropped(text: str) -> str:
    """The artifact's reading of a right-hand side before it splits it into accesses: a ``(``
    closed by the next ``)`` with no ``(`` between (an access's) stays, every other parenthesis
    goes (``(B(i)+C(i))*D(i)`` -> ``B(i)+C(i)*D(i)``)."""
    opens: list[int] = []
    closes: list[int] = []
    fresh = True  # no ")" since the last "("
    for k, ch in enumerate(text):
        if ch == "(":
            opens.append(k)
            fresh = True
        elif ch == ")" and fresh:
            opens.pop()
            fresh = False
        elif ch == ")":
            fresh = False
            closes.append(k)
    drop = set(opens) | set(closes)
    return "".join(ch for k, ch in enumerate(text) if k not in drop)


def _artifact_formats(words: list[str], lhs: str, rhs: str) -> dict[str, str]:
    """Which tensors the artifact's key gives a format (``ds`` levels + ``01`` mode order), by
    name: the result's from the first option, only when the result is not a scalar; then each
    ``-f`` naming a right-hand tensor, where a right-hand tensor is what precedes ``(`` in each
    piece of the right-hand side split at ``* + - /`` (after :func:`_outer_parens_dropped`).
    A result that is a scalar gives no tensor a format."""
    def variables(access: str) -> str:
        return access.split("(")[1][:-1] if "(" in access else ""

    pieces = re.split(r"\*|\+|-|/", _outer_parens_dropped(rhs))
    names = [piece.split("(")[0] for piece in pieces]
    result = lhs.split("(")[0] if "(" in lhs and ")" in lhs else lhs
    # a result also read on the right is the artifact's entry of its first right-hand access
    result_vars = (variables(pieces[names.index(result)]) if result in names
                   else variables(lhs) if "(" in lhs and ")" in lhs else "")
    out: dict[str, str] = {}
    if not result_vars or len(words) < 2:
        return out

    def levels_and_order(word: str) -> str:
        parts = word.split(":")
        return "_" + parts[1] + "_" + "".join(parts[2].split(","))

    out[result] = levels_and_order(words[1])
    for word in words[2:]:
        if "-f=" in word and word.split(":")[0][3:] in names:
            out[word.split(":")[0][3:]] = levels_and_order(word)
    return out


class _Renamer(ast.NodeTransformer):
    """Tensors ``a0, a1, ...`` (with their key format) and index variables ``i0, i1, ...`` in
    order of first appearance: in an access its variables first, then its tensor; the
    right-hand side before the result. One name space for tensors and variables."""

    def __init__(self, formats: dict[str, str]) -> None:
        self.formats = formats
        self.names: dict[str, str] = {}
        self.tensors = self.variables = 0
        self.in_access = False

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.in_access = True
        node.args = [self.visit(arg) for arg in node.args]
        self.in_access = False
        name = node.func.id  # type: ignore[attr-defined]
        if name not in self.names:
            self.names[name] = f"a{self.tensors}{self.formats.get(name, '')}"
            self.tensors += 1
        node.func.id = self.names[name]  # type: ignore[attr-defined]
        return node

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id not in self.names:
            if self.in_access:
                self.names[node.id], self.variables = f"i{self.variables}", self.variables + 1
            else:
                self.names[node.id], self.tensors = f"a{self.tensors}", self.tensors + 1
        node.id = self.names[node.id]
        return node


def artifact_key(command: str, with_formats: bool = True) -> str:
    """The paper artifact's key for distinct algorithms (SAM paper Sec. 6.2: 3,839 distinct
    (expression, formats) pairs, 1,745 distinct expressions): the command split at spaces, its
    first word the quoted expression; both sides parsed as Python (so redundant parentheses and
    spacing vanish) and renamed by :class:`_Renamer`; with formats, a tensor's name carries its
    levels and mode order as :func:`_artifact_formats` assigns them. A line the artifact could
    not read keys as itself."""
    words = command.split(" ")
    try:
        lhs, rhs = words[0].split("=")
        lhs, rhs = lhs[1:], rhs[:-1]  # the quotes
        formats = _artifact_formats(words, lhs, rhs) if with_formats else {}
        renamer = _Renamer(formats)
        right = ast.dump(renamer.visit(ast.parse(rhs)))
        left = ast.dump(renamer.visit(ast.parse(lhs)))
    except (ValueError, IndexError, SyntaxError, AttributeError, TypeError):
        return "unread: " + command
    return left + " = " + right
