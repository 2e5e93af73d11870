"""A small, fast parser for the Graphviz DOT language (the syntax the Custard schema lives in).

Why not pydot: pydot's pyparsing grammar takes about 0.3 s for one 50-node Custard file (seconds
for a large kernel), loses the order of edges between different node pairs, reports errors by
printing them, and can raise many exception types. This parser reads the whole DOT language
(https://graphviz.org/doc/info/lang.html) in one pass and reports every problem as one
:class:`~sam.blocks.base.GraphError` with its line and column.

What it returns (:class:`DotGraph`) is DOT's meaning, flattened:

* graph attributes of the top-level graph (``comment="..."``, ``graph [k=v]``);
* nodes in order of first appearance, each with its merged attributes (``node [..]`` defaults
  apply as in Graphviz) and the attribute lists of its own node statements;
* edges in file order, one per (tail, head) pair: ``a -> b -> c`` gives two edges and
  ``a -> {b c}`` two, each with the edge defaults in scope plus its own attributes.

Subgraphs (``subgraph x { ... }`` or ``{ ... }``) are flattened; their defaults are scoped.
Quoted strings are unescaped (``\\"`` -> ``"``, ``\\\\`` -> ``\\``, backslash-newline removed)
and may be joined with ``+``; HTML strings ``<...>`` are kept with their brackets; node ports
(``a:p:n``) are dropped (they only matter for drawing).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from sam.errors import GraphError

MAX_DEPTH = 64

_TOKEN = re.compile(
    r"""
    (?P<ws>[ \t\r\f\v\n]+)
  | (?P<comment>//[^\n]*|\#[^\n]*|/\*(?:[^*]|\*(?!/))*\*/)
  | (?P<badcomment>/\*)
  | (?P<qstring>"(?:[^"\\]|\\.|\\\n)*")
  | (?P<badstring>")
  | (?P<num>-?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?))
  | (?P<id>[A-Za-z_\u0080-\U0010ffff][A-Za-z_0-9\u0080-\U0010ffff]*)
  | (?P<arrow>->|--)
  | (?P<html><)
  | (?P<punct>[{}\[\]=;,:+])
    """,
    re.VERBOSE | re.DOTALL,
)
_KEYWORDS = {"strict", "graph", "digraph", "node", "edge", "subgraph"}
_ID_CHAR = re.compile(r"[A-Za-z_\u0080-\U0010ffff]")


@dataclass
class Tok:
    kind: str  # "id" (any ID: name, numeral, quoted or HTML string), a keyword, or punctuation
    text: str
    line: int
    col: int
    quoted: bool = False


@dataclass
class DotNode:
    id: str
    attrs: dict[str, str] = field(default_factory=dict)
    statements: list[dict[str, str]] = field(default_factory=list)
    line: int = 0


@dataclass
class DotEdge:
    src: str
    dst: str
    attrs: dict[str, str]
    line: int


@dataclass
class DotGraph:
    kind: str  # "digraph" or "graph"
    strict: bool
    name: str | None
    attrs: dict[str, str] = field(default_factory=dict)
    nodes: dict[str, DotNode] = field(default_factory=dict)
    edges: list[DotEdge] = field(default_factory=list)


def _unescape(body: str) -> str:
    """Undo DOT quoting in one left-to-right pass: backslash-quote gives a quote,
    two backslashes one, backslash-newline nothing; other backslashes stay (``\\n``)."""
    return re.sub(r'\\(\r?\n|["\\])', lambda m: "" if m.group(1)[-1] == "\n" else m.group(1),
                  body)


def tokenize(text: str) -> list[Tok]:
    """DOT text -> tokens (comments ``//``, ``/* */``, ``#`` and white space dropped)."""
    toks: list[Tok] = []
    pos, line, line_start, n = 0, 1, 0, len(text)
    while pos < n:
        col = pos - line_start + 1
        m = _TOKEN.match(text, pos)
        if m is None:
            raise GraphError(f"line {line}, column {col}: unexpected character "
                             f"{text[pos]!r}")
        kind, value, end = m.lastgroup, m.group(), m.end()
        if kind == "badcomment":
            raise GraphError(f"line {line}, column {col}: comment /* is never closed")
        if kind == "badstring":
            raise GraphError(f"line {line}, column {col}: quoted string is never closed")
        if kind == "html":
            end = _html_end(text, pos, line, col)
            toks.append(Tok("id", text[pos:end], line, col))
        elif kind == "qstring":
            toks.append(Tok("id", _unescape(value[1:-1]), line, col, quoted=True))
        elif kind == "num":
            if end < n and _ID_CHAR.match(text[end]):
                raise GraphError(
                    f"line {line}, column {col}: badly delimited number "
                    f"{text[pos:end + 1]!r}; quote IDs that mix digits and letters"
                )
            toks.append(Tok("id", value, line, col))
        elif kind == "id":
            low = value.lower()
            toks.append(Tok(low if low in _KEYWORDS else "id", value, line, col))
        elif kind in ("arrow", "punct"):
            toks.append(Tok(value, value, line, col))
        newlines = text.count("\n", pos, end)
        if newlines:
            line += newlines
            line_start = text.rfind("\n", pos, end) + 1
        pos = end
    return toks


def _html_end(text: str, pos: int, line: int, col: int) -> int:
    depth = 0
    for i in range(pos, len(text)):
        if text[i] == "<":
            depth += 1
        elif text[i] == ">":
            depth -= 1
            if depth == 0:
                return i + 1
    raise GraphError(f"line {line}, column {col}: HTML string <...> is never closed")


class _Parser:
    def __init__(self, toks: list[Tok]) -> None:
        self.toks = toks
        self.i = 0
        self.graph: DotGraph | None = None

    # -- token helpers -------------------------------------------------------------------------
    def peek(self, k: int = 0) -> Tok | None:
        j = self.i + k
        return self.toks[j] if j < len(self.toks) else None

    def at(self, *kinds: str) -> bool:
        t = self.peek()
        return t is not None and t.kind in kinds

    def where(self) -> str:
        t = self.peek()
        if t is None:
            last = self.toks[-1] if self.toks else None
            return (f"line {last.line}" if last else "line 1") + ", at the end of the text"
        return f"line {t.line}, column {t.col}"

    def found(self) -> str:
        t = self.peek()
        return "the end of the text" if t is None else repr(t.text)

    def expect(self, kind: str, what: str | None = None) -> Tok:
        t = self.peek()
        if t is None or t.kind != kind:
            raise GraphError(f"{self.where()}: expected {what or repr(kind)}, found {self.found()}")
        self.i += 1
        return t

    def ident(self, what: str) -> str:
        """An ID, with ``"a" + "b"`` concatenation of quoted strings."""
        t = self.expect("id", what)
        text = t.text
        while t.quoted and self.at("+"):
            self.i += 1
            t = self.expect("id", "a quoted string after '+'")
            if not t.quoted:
                raise GraphError(f"line {t.line}, column {t.col}: only quoted strings can be "
                                 "joined with '+'")
            text += t.text
        return text

    # -- grammar ---------------------------------------------------------------------------------
    def parse(self) -> DotGraph:
        graph = self.parse_one()
        if self.peek() is not None:
            extra = self.peek()
            if extra.kind in ("graph", "digraph", "strict"):
                raise GraphError(f"line {extra.line}: the text holds more than one graph; give "
                                 "one SAM graph per file")
            raise GraphError(f"line {extra.line}, column {extra.col}: unexpected {extra.text!r} "
                             "after the end of the graph")
        return graph

    def parse_all(self) -> list[DotGraph]:
        graphs = [self.parse_one()]
        while self.peek() is not None:
            graphs.append(self.parse_one())
        return graphs

    def parse_one(self) -> DotGraph:
        strict = False
        if self.at("strict"):
            self.i += 1
            strict = True
        if not self.at("graph", "digraph"):
            raise GraphError(f"{self.where()}: expected 'digraph' (or 'graph'), found "
                             f"{self.found()}")
        kind = self.peek().kind
        self.i += 1
        name = self.ident("a graph name") if self.at("id") else None
        self.graph = DotGraph(kind, strict, name)
        self.expect("{", "'{' to open the graph")
        self.stmt_list({}, {}, 0, top=True)
        self.expect("}", "'}' to close the graph")
        return self.graph

    def stmt_list(self, node_defaults: dict[str, str], edge_defaults: dict[str, str],
                  depth: int, top: bool) -> list[str]:
        """Statements up to the closing ``}``; returns the nodes they mention (for subgraphs
        used as edge end points)."""
        if depth > MAX_DEPTH:
            raise GraphError(f"{self.where()}: subgraphs are nested more than {MAX_DEPTH} deep")
        mentioned: list[str] = []
        while not self.at("}"):
            if self.peek() is None:
                raise GraphError(f"{self.where()}: expected '}}' to close the graph, found the "
                                 "end of the text")
            self.stmt(node_defaults, edge_defaults, depth, top, mentioned)
            while self.at(";"):
                self.i += 1
        return mentioned

    def stmt(self, node_defaults, edge_defaults, depth, top, mentioned) -> None:
        t = self.peek()
        if t.kind in ("graph", "node", "edge"):
            self.i += 1
            attrs = self.attr_lists(required=True)
            if t.kind == "node":
                node_defaults.update(attrs)
            elif t.kind == "edge":
                edge_defaults.update(attrs)
            elif top:
                self.graph.attrs.update(attrs)
            return
        if t.kind == "id" and self.peek(1) is not None and self.peek(1).kind == "=":
            key = self.ident("an attribute name")
            self.i += 1
            value = self.ident(f"a value for graph attribute {key!r}")
            if top:
                self.graph.attrs[key] = value
            return
        # node statement, edge statement or subgraph
        group = self.operand(node_defaults, edge_defaults, depth, mentioned)
        if self.at("->", "--"):
            chain = [group]
            while self.at("->", "--"):
                op = self.peek()
                want = "->" if self.graph.kind == "digraph" else "--"
                if op.kind != want:
                    raise GraphError(f"line {op.line}, column {op.col}: {op.text!r} in a "
                                     f"{self.graph.kind}; use {want!r}")
                self.i += 1
                chain.append(self.operand(node_defaults, edge_defaults, depth, mentioned))
            own = self.attr_lists(required=False)
            attrs = {**edge_defaults, **own}
            for tails, heads in zip(chain[:-1], chain[1:], strict=True):
                for a in tails:
                    for b in heads:
                        self.graph.edges.append(DotEdge(a, b, dict(attrs), op.line))
            return
        if isinstance(group, _Single):
            own = self.attr_lists(required=False)
            node = self.graph.nodes[group[0]]
            node.attrs.update(own)
            if own:
                node.statements.append(own)

    def operand(self, node_defaults, edge_defaults, depth, mentioned) -> list[str]:
        """A node id (with optional port) or a subgraph: the nodes it stands for."""
        if self.at("subgraph", "{"):
            if self.at("subgraph"):
                self.i += 1
                if self.at("id"):
                    self.ident("a subgraph name")
            self.expect("{", "'{' to open the subgraph")
            inner = self.stmt_list(dict(node_defaults), dict(edge_defaults), depth + 1, False)
            self.expect("}", "'}' to close the subgraph")
            mentioned += inner
            return inner
        t = self.peek()
        if t is None or t.kind != "id":
            raise GraphError(f"{self.where()}: expected a node id, an edge or an attribute, "
                             f"found {self.found()}")
        name = self.ident("a node id")
        for _ in range(2):  # port and compass point: drawing only
            if self.at(":"):
                self.i += 1
                self.ident("a port name after ':'")
        if name not in self.graph.nodes:
            self.graph.nodes[name] = DotNode(name, dict(node_defaults), [], t.line)
        mentioned.append(name)
        return _Single([name])

    def attr_lists(self, required: bool) -> dict[str, str]:
        attrs: dict[str, str] = {}
        if required and not self.at("["):
            raise GraphError(f"{self.where()}: expected '[' to open an attribute list, found "
                             f"{self.found()}")
        while self.at("["):
            self.i += 1
            while not self.at("]"):
                key = self.ident("an attribute name or ']'")
                self.expect("=", f"'=' after attribute name {key!r}")
                attrs[key] = self.ident(f"a value for attribute {key!r}")
                if self.at(",", ";"):
                    self.i += 1
            self.i += 1
        return attrs


class _Single(list):
    """A lone node id (as opposed to a subgraph) on one side of an edge or as a statement."""


def parse(text: str) -> DotGraph:
    """Parse one DOT graph; raises :class:`GraphError` with line and column on bad syntax."""
    return _Parser(tokenize(text)).parse()


def parse_all(text: str) -> list[DotGraph]:
    """Parse one or more DOT graphs, one after another (a program of graphs)."""
    return _Parser(tokenize(text)).parse_all()
