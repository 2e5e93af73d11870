"""Why Table 2's Coordinate Dropper row differs from the paper's (SAM paper Sec. 6.2).

The paper's counts come from its artifact (github weiya711/sam-artifact,
``taco-website/process_expr.py``), which does not compile: it marks an algorithm as needing a
coordinate dropper when, syntactically, one multiplication of the expression co-iterates two or
more non-dense operands over an index variable that is not the alphabetically first index
variable of that multiplication. :func:`artifact_needs_dropper` restates that rule (our own code).

Our count looks at the compiled graph. :func:`dropper_reasons` says why each of its coordinate
droppers is there, from the stream the dropper cleans (its inner input, followed back through
fan-out points and other droppers):

* ``coiteration``: an intersecter merging two or more non-dense streams (an ineffectual
  intersection: the artifact's case, wherever it sits in the loop order);
* ``union``: a unioner (an operand may be absent at a coordinate, e.g. a sum of a sparse and a
  product);
* ``single``: one operand's level (a compressed level below a dense or compressed one, whose
  fibers may be empty; an intersecter of one sparse stream against dense ones);
* ``zeros``: a value dropper (``inner=vals``) removing the zeros that sums over empty fibers
  leave.
"""

from __future__ import annotations

import ast
import shlex
from functools import cache
from typing import Any

from formats.errors import FormatError
from formats.format import Format

REASONS = ("coiteration", "union", "single", "zeros")


def formats_of(words: list[str]) -> dict[str, tuple[str, list[int]]]:
    """``-f=T:ds:1,0`` -> {T: (level letters, mode order)}."""
    out = {}
    for w in words:
        if not w.startswith("-f="):
            continue
        name, _, rest = w[3:].partition(":")
        letters, _, order = rest.partition(":")
        try:
            perm = [int(x) for x in order.split(",")] if order else list(range(len(letters)))
        except ValueError:
            perm = list(range(len(letters)))
        out[name] = (letters, perm)
    return out


@cache
def _letter_sparse(letter: str) -> bool:
    """Is a level spelled ``letter`` in a ``-f`` format not full (dense)? A letter our
    formats do not know counts as sparse, as for the artifact (anything but dense)."""
    try:
        return not Format.parse(letter).level_types[0].full
    except (FormatError, IndexError):
        return True


def mode_sparse(fmts: dict[str, tuple[str, list[int]]], tensor: str, mode: int) -> bool:
    """Is ``mode`` of ``tensor`` stored in a non-dense level (a tensor without -f: dense)?"""
    if tensor not in fmts:
        return False
    letters, perm = fmts[tensor]
    if mode not in perm or perm.index(mode) >= len(letters):
        return False
    return _letter_sparse(letters[perm.index(mode)])


def artifact_needs_dropper(command: str) -> bool | None:
    """The artifact's syntactic rule (module docstring); None when the line does not parse."""
    try:
        words = shlex.split(command)
        rhs = words[0].split("=", 1)[1]
        tree = ast.parse(rhs, mode="eval")
    except (ValueError, IndexError, SyntaxError):
        return None
    fmts = formats_of(words[1:])
    found = False

    def visit(node: ast.AST) -> dict[str, list[bool]]:
        nonlocal found
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            out: dict[str, list[bool]] = {}
            for mode, arg in enumerate(node.args):
                if isinstance(arg, ast.Name):
                    out.setdefault(arg.id, []).append(mode_sparse(fmts, node.func.id, mode))
            return out
        if isinstance(node, ast.BinOp):
            left, right = visit(node.left), visit(node.right)
            merged = {k: left.get(k, []) + right.get(k, []) for k in left.keys() | right.keys()}
            if isinstance(node.op, ast.Mult):
                ordered = sorted(merged)
                for var, fs in merged.items():
                    if len(fs) > 1 and sum(fs) > 1 and ordered.index(var) > 0:
                        found = True
            return merged
        if isinstance(node, ast.UnaryOp):
            return visit(node.operand)
        return {}

    visit(tree.body)
    return found


def _origin(graph: Any, src: str, feeds: dict[str, str], drops_inner: dict[str, str]) -> Any:
    """The block a coordinate stream comes from, through fan-out points and droppers."""
    seen = set()
    while src not in seen:
        seen.add(src)
        b = graph.blocks[src]
        if b.dot_type == "broadcast" and src in feeds:
            src = feeds[src]
        elif b.dot_type == "crddrop" and src in drops_inner:
            src = drops_inner[src]
        else:
            return b
    return graph.blocks[src]


def _sparse_merge_inputs(graph: Any, block_id: str, feeds: dict[str, str]) -> int:
    n = 0
    for e in graph.inputs_of(block_id):
        if e.kind != "crd":
            continue
        src = e.src
        while graph.blocks[src].dot_type == "broadcast" and src in feeds:
            src = feeds[src]
        b = graph.blocks[src]
        n += not (b.dot_type == "fiberlookup" and b.attrs.get("format") == "dense")
    return n


def dropper_reasons(graph: Any) -> set[str]:
    """Why each coordinate dropper of ``graph`` is there (module docstring)."""
    feeds = {e.dst: e.src for e in graph.edges if graph.blocks[e.dst].dot_type == "broadcast"}
    inner_of: dict[str, str] = {}
    for e in graph.edges:
        b = graph.blocks[e.dst]
        if b.dot_type == "crddrop" and e.dst_port.name.startswith(("crd:in-", "val:in-")):
            inner_of[e.dst] = e.src
    reasons = set()
    for bid, b in graph.blocks.items():
        if b.dot_type != "crddrop":
            continue
        if b.attrs.get("inner") == "vals":
            reasons.add("zeros")
            continue
        src = inner_of.get(bid)
        if src is None:
            continue
        origin = _origin(graph, src, feeds, inner_of)
        if origin.dot_type == "intersect" and _sparse_merge_inputs(graph, origin.id, feeds) >= 2:
            reasons.add("coiteration")
        elif origin.dot_type == "union":
            reasons.add("union")
        else:
            reasons.add("single")
    return reasons


def cleans_compressed_output(graph: Any) -> bool:
    """Does a coordinate dropper of ``graph`` clean a level that the output stores compressed
    (its outer variable written by a non-dense level writer)? A dropper above a dense output
    level changes nothing in the result: the writer stores every coordinate anyway."""
    written = {b.attrs.get("index"): b.attrs.get("format", "compressed")
               for b in graph.blocks.values()
               if b.dot_type == "fiberwrite" and b.attrs.get("mode") != "vals"}
    return any(b.dot_type == "crddrop" and written.get(b.attrs.get("outer"), "dense") != "dense"
               for b in graph.blocks.values())
