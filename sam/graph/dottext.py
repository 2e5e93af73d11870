"""DOT text pieces shared by the graph writer (:mod:`sam.graph.dot`) and the pictures
(:mod:`sam.graph.draw`): quoting, ids, and the node labels of the original Custard output."""

from __future__ import annotations

import re

from sam.blocks.base import Block

#: ``[A-Za-z_\x80-\uffff][A-Za-z_0-9\x80-\uffff]*|...`` with the classes written as the
#: complement of the excluded characters: the same language, compiled in a tenth of the time.
_ID = re.compile(r"[^\x00-\x40\x5b-\x5e\x60\x7b-\x7f\U00010000-\U0010ffff]"
                 r"[^\x00-\x2f\x3a-\x40\x5b-\x5e\x60\x7b-\x7f\U00010000-\U0010ffff]*"
                 r"|-?(\.[0-9]+|[0-9]+(\.[0-9]*)?)")
_KEYWORDS = {"node", "edge", "graph", "digraph", "subgraph", "strict"}


def escape(value: object) -> str:
    """The text of a DOT quoted string (backslashes and quotes escaped), without the quotes."""
    return str(value).replace("\\", "\\\\").replace('"', '\\"')


def quote(value: object) -> str:
    """A DOT quoted string."""
    return '"' + escape(value) + '"'


def dot_id(name: object) -> str:
    """A node id or attribute name: bare when DOT allows it, else quoted."""
    text = str(name)
    if _ID.fullmatch(text) and text.lower() not in _KEYWORDS:
        return text
    return quote(text)


def custard_label(block: Block) -> str:
    """The display label the original Custard gives a node, escaped for DOT (``\\n`` breaks)."""
    a = {k: escape(v) for k, v in block.attrs.items()}
    t = block.dot_type
    if t in ("fiberlookup", "fiberwrite") and a.get("mode") != "vals":
        name = "FiberLookup" if t == "fiberlookup" else "FiberWrite"
        return (f"{name} {a.get('index', '')}: {a.get('tensor')}{a.get('mode')}\\n"
                f"{a.get('format', 'compressed')}")
    fixed = {
        "fiberwrite": f"FiberWrite Vals: {a.get('tensor')}",
        "repsiggen": f"RepeatSignalGenerator {a.get('index', '')}",
        "repeat": f"Repeat {a.get('index', '')}: {a.get('tensor', '')}",
        "intersect": f"intersect {a.get('index', '')}",
        "union": f"union {a.get('index', '')}",
        "arrayvals": f"Array Vals: {a.get('tensor')}",
        "crddrop": f"CrdDrop {a.get('outer')},{a.get('inner')}",
        "reduce": "Reduce",
        "mul": "Mul",
        "add": "Add",
    }
    if t == "spaccumulator":
        ins = " ".join(f"{k[2:]}={v}" for k, v in a.items() if re.fullmatch(r"in\d", k))
        return f"SparseAccumulator {a.get('order')} \\n{ins} "
    lines = block.picture_lines()  # a macro-block drawn as one node with its parts (TMU)
    if lines:
        return "\\n".join(escape(line) for line in lines)
    return fixed.get(t, escape(block.label()))
