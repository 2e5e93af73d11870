"""How deeply an MLIR input nests blocks, bounded before the parser and the passes see it.

xDSL's parser and printer, the decoupling passes and the interpreters recurse once (several
Python frames) per nested block: at Python's default recursion limit the parser fails first,
at 136 nested blocks (measured). Ember accepts :data:`MAX_DEPTH` nested blocks, which leaves
room for the frames of a caller (a test runner, ``sam-sim reproduce``) and is far beyond the
two to four nested loops of an embedding operation. A deeper input is refused by a lexical scan
(strings and comments skipped) that names the operation opening the first block too deep.
"""

from __future__ import annotations

import re

from custard.ember.errors import EmberError

#: Deepest nesting of blocks (``{``) accepted, counting the module's and the function's.
MAX_DEPTH = 64

_TOKENS = re.compile(r'"(?:[^"\\\n]|\\.)*"|//[^\n]*|[{}]')
_OP_NAME = re.compile(r"[A-Za-z_][\w$]*(?:\.[\w$]+)+")


def check_nesting(text: str, path: str = "<input>", limit: int = MAX_DEPTH) -> None:
    """Raise :class:`EmberError` ``FILE:LINE:COL: ...`` at the first block of ``text`` nested
    more than ``limit`` deep."""
    depth = 0
    for m in _TOKENS.finditer(text):
        tok = m.group()
        if tok == "}":
            depth -= 1
        elif tok == "{":
            depth += 1
            if depth > limit:
                _too_deep(text, m.start(), depth, path, limit)


def _too_deep(text: str, brace: int, depth: int, path: str, limit: int) -> None:
    start = text.rfind("\n", 0, brace) + 1
    name = _OP_NAME.search(text, start, brace)  # the line's first dotted name: its operation
    at = name.start() if name else brace
    what = name.group() if name else "a block"
    line = text.count("\n", 0, at) + 1
    col = at - start + 1
    raise EmberError(f"{path}:{line}:{col}: {what} opens a block nested {depth} deep (counting "
                     "the module and the function); the loop nest is too deep for the "
                     f"decoupling, which supports blocks nested up to {limit} deep (the parser "
                     "and the passes recurse once per level; embedding operations nest 2-4 "
                     "loops)")
