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

Resources: the text is read token by token as the grammar asks for them (no token list), and
every token is one regular-expression step that cannot backtrack or one ``str.find``, so time
and memory are linear in the text (about 0.4 kB per node or edge; 100,000 chained blocks in a
21 MB file take well under 1 GB with everything after parsing). Short IDs are stored once; the
nodes given the same ``node [..]`` defaults share one dict, as do the edges of one statement
(treat the returned dicts as read-only). Limits, each refused with one line naming it:
``MAX_TEXT`` (characters; :func:`sam.graph.dot.load` checks a file's bytes before reading),
``MAX_NODES``, ``MAX_EDGES``, ``MAX_ATTRS`` (of one node, edge, default list or the graph),
``MAX_VALUES`` and ``MAX_VALUE_TEXT`` (all attribute values held, and their characters: these
bound what ``{a b} -> {c d} [...]`` or defaults given to many nodes make of a short text),
``MAX_ID`` (characters of one ID) and ``MAX_DEPTH``. A graph at every limit stays under 1 GB.
The first problem in reading order is reported (a syntax error before a later bad character).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from sam.errors import GraphError

#: Deepest nesting of subgraphs.
MAX_DEPTH = 64
#: Longest DOT text parsed, in characters (:func:`sam.graph.dot.load` checks a file's size in
#: bytes before reading it). The Custard graphs of real kernels are a few kilobytes.
MAX_TEXT = 64 * 2**20
#: Most nodes in one graph (the Custard graphs of real kernels have tens to hundreds).
MAX_NODES = 250_000
#: Most edges in one graph (``{a b} -> {c d}`` counts four).
MAX_EDGES = 500_000
#: Most attributes of one node, one edge, the defaults or the graph.
MAX_ATTRS = 1_000
#: Most attribute values held in all, counting every attribute list written and, for each node
#: and each edge, the defaults it takes (``node [..]``, ``edge [..]``) and, for the edges of one
#: statement (``{a b} -> {c d} [..]``), the statement's attributes once per edge. Later stages
#: handle every node's and edge's attributes, so this bounds their work too.
MAX_VALUES = 2_000_000
#: Most characters of attribute values held in all, counted as for ``MAX_VALUES``.
MAX_VALUE_TEXT = 256 * 2**20
#: Longest ID (name, numeral, quoted or HTML string, after ``+`` joins), in characters.
MAX_ID = 1_000_000
#: IDs up to this length are stored once however often they occur (attribute names and values
#: repeat on every node; node ids repeat on every edge).
_SHARE_BELOW = 128

_WS = re.compile(r"[ \t\r\f\v\n]*")
_TOKEN = re.compile(
    r"""
    [ \t\r\f\v\n]*
    (?:
      (?P<comment>//|\#|/\*)
    | (?P<qstring>")
    | (?P<num>-?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?))
    | (?P<id>[^\x00-\x40\x5b-\x5e\x60\x7b-\x7f][^\x00-\x2f\x3a-\x40\x5b-\x5e\x60\x7b-\x7f]*)
    | (?P<arrow>->|--)
    | (?P<html><)
    | (?P<punct>[{}\[\]=;,:+])
    )
    """,
    re.VERBOSE,
)
_KEYWORDS = {"strict", "graph", "digraph", "node", "edge", "subgraph"}
#: ``[A-Za-z_\u0080-\U0010ffff]`` (and ``[A-Za-z_0-9...]`` in ``_TOKEN``) written as the
#: complement of the excluded ASCII: the same characters, compiled in a tenth of the time.
_ID_CHAR = re.compile(r"[^\x00-\x40\x5b-\x5e\x60\x7b-\x7f]")
_QUOTE_STOP = re.compile(r'["\\]')
_ANGLE = re.compile(r"[<>]")


@dataclass(slots=True)
class Tok:
    kind: str  # "id" (any ID: name, numeral, quoted or HTML string), a keyword, or punctuation
    text: str
    line: int
    col: int
    quoted: bool = False


@dataclass(slots=True)
class DotNode:
    id: str
    attrs: dict[str, str] = field(default_factory=dict)
    statements: list[dict[str, str]] = field(default_factory=list)
    line: int = 0


@dataclass(slots=True)
class DotEdge:
    """One (tail, head) pair; the edges of one edge statement share one ``attrs`` dict."""

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
    if "\\" not in body:
        return body
    # Scanning left to right, each backslash pairs with the next character; so the pieces
    # between escaped backslashes hold no escaped backslash, and there every backslash starts a
    # pair: plain replacements undo the other escapes (no per-escape objects for long strings).
    parts = body.split("\\\\")
    for k, part in enumerate(parts):
        if "\\" in part:
            parts[k] = part.replace('\\"', '"').replace("\\\r\n", "").replace("\\\n", "")
    return "\\".join(parts)


def _too_long(line: int, col: int, what: str) -> GraphError:
    return GraphError(f"line {line}, column {col}: {what} is longer than {MAX_ID:,} characters "
                      "(the reader's limit, sam.graph.dotparse.MAX_ID); shorten it")


class _Lexer:
    """DOT text -> tokens, one at a time (comments ``//``, ``/* */``, ``#`` and white space
    dropped). Long tokens are scanned by repeated single character classes or ``str.find``,
    never by a repeated alternation (whose backtracking stack grows with the match), so time
    and memory are linear in the text."""

    def __init__(self, text: str) -> None:
        if len(text) > MAX_TEXT:
            raise GraphError(f"the text has {len(text):,} characters, more than the reader's "
                             f"limit of {MAX_TEXT:,} (sam.graph.dotparse.MAX_TEXT); SAM graphs "
                             "of real kernels are a few kilobytes")
        self.text = text
        self.pos = 0
        self.line = 1
        self.line_start = 0
        self.shared: dict[str, str] = {}

    def _advance(self, end: int) -> None:
        """Move to ``end``, counting the line breaks passed."""
        last = self.text.rfind("\n", self.pos, end)
        if last >= 0:
            self.line += self.text.count("\n", self.pos, last + 1)
            self.line_start = last + 1
        self.pos = end

    def share(self, text: str) -> str:
        """``text``, stored once if short (see ``_SHARE_BELOW``)."""
        return self.shared.setdefault(text, text) if len(text) < _SHARE_BELOW else text

    def next(self) -> Tok | None:
        """The next token, or None at the end of the text."""
        text, n = self.text, len(self.text)
        while True:
            m = _TOKEN.match(text, self.pos)
            if m is None:  # white space up to the end of the text, or a bad character
                self._advance(_WS.match(text, self.pos).end())
                if self.pos == n:
                    return None
                raise GraphError(f"line {self.line}, column {self.pos - self.line_start + 1}: "
                                 f"unexpected character {text[self.pos]!r}")
            kind = m.lastgroup
            pos, end = m.span(kind)
            if pos != self.pos:
                self._advance(pos)
            line, col = self.line, pos - self.line_start + 1
            if kind == "comment":
                if text[pos] == "/" and text[pos + 1] == "*":
                    end = text.find("*/", end)
                    if end < 0:
                        raise GraphError(f"line {line}, column {col}: comment /* is never "
                                         "closed")
                    end += 2
                else:
                    end = text.find("\n", end)
                    end = n if end < 0 else end
                self._advance(end)
                continue
            if kind == "qstring":
                end = self._quoted_end(pos, line, col)
                tok = Tok("id", self.share(_unescape(text[pos + 1:end - 1])), line, col, True)
            elif kind == "html":
                end = self._html_end(pos, line, col)
                tok = Tok("id", self.share(text[pos:end]), line, col)
            elif kind == "id" or kind == "num":
                if end - pos > MAX_ID:
                    raise _too_long(line, col, "an ID")
                value = text[pos:end]
                if kind == "num" and end < n and _ID_CHAR.match(text, end):
                    raise GraphError(
                        f"line {line}, column {col}: badly delimited number "
                        f"{text[pos:end + 1]!r}; quote IDs that mix digits and letters"
                    )
                low = value.lower() if kind == "id" else ""
                tok = Tok(low if low in _KEYWORDS else "id", self.share(value), line, col)
            else:  # arrow, punct
                value = text[pos:end]
                tok = Tok(value, value, line, col)
            self._advance(end)
            return tok

    def _quoted_end(self, pos: int, line: int, col: int) -> int:
        """End of the quoted string opening at ``pos`` (a backslash escapes the next
        character)."""
        text, i = self.text, pos + 1
        while True:
            m = _QUOTE_STOP.search(text, i)
            if m is None:
                raise GraphError(f"line {line}, column {col}: quoted string is never closed")
            j = m.start()
            if j - pos > MAX_ID + 1:
                raise _too_long(line, col, "a quoted string")
            if text[j] == '"':
                return j + 1
            i = j + 2

    def _html_end(self, pos: int, line: int, col: int) -> int:
        """End of the HTML string ``<...>`` opening at ``pos`` (brackets nest)."""
        text, i, depth = self.text, pos, 0
        while True:
            m = _ANGLE.search(text, i)
            if m is None:
                raise GraphError(f"line {line}, column {col}: HTML string <...> is never closed")
            i = m.start() + 1
            if i - pos > MAX_ID:
                raise _too_long(line, col, "an HTML string")
            depth += 1 if text[i - 1] == "<" else -1
            if depth == 0:
                return i


_UNREAD = "unread"


class _Parser:
    def __init__(self, text: str) -> None:
        self.lexer = _Lexer(text)
        self.cur: Tok | None = self.lexer.next()  # the next token
        self.after: Tok | None | str = _UNREAD  # the one after it, once asked for
        self.last: Tok | None = None  # the last token consumed
        self.graph: DotGraph | None = None
        self.values = 0  # attribute values held so far (MAX_VALUES)
        self.value_text = 0  # and their characters (MAX_VALUE_TEXT)

    # -- token helpers -------------------------------------------------------------------------
    def peek(self, k: int = 0) -> Tok | None:
        """The next token (``k=0``) or the one after it (``k=1``); None past the end."""
        if k == 0:
            return self.cur
        if self.after is _UNREAD:
            self.after = self.lexer.next() if self.cur is not None else None
        return self.after  # type: ignore[return-value]

    def take(self) -> Tok:
        """Consume the next token."""
        self.last = tok = self.cur
        if self.after is _UNREAD:
            self.cur = self.lexer.next()
        else:
            self.cur, self.after = self.after, _UNREAD  # type: ignore[assignment]
        return tok  # type: ignore[return-value]

    def at(self, *kinds: str) -> bool:
        t = self.cur
        return t is not None and t.kind in kinds

    def where(self) -> str:
        t = self.peek()
        if t is None:
            last = self.last
            return (f"line {last.line}" if last else "line 1") + ", at the end of the text"
        return f"line {t.line}, column {t.col}"

    def found(self) -> str:
        t = self.peek()
        return "the end of the text" if t is None else repr(t.text)

    def expect(self, kind: str, what: str | None = None) -> Tok:
        t = self.cur
        if t is None or t.kind != kind:
            raise GraphError(f"{self.where()}: expected {what or repr(kind)}, found {self.found()}")
        return self.take()

    def ident(self, what: str) -> str:
        """An ID, with ``"a" + "b"`` concatenation of quoted strings."""
        first = t = self.expect("id", what)
        if not (t.quoted and self.at("+")):
            return t.text
        parts, length = [t.text], len(t.text)
        while t.quoted and self.at("+"):
            self.take()
            t = self.expect("id", "a quoted string after '+'")
            if not t.quoted:
                raise GraphError(f"line {t.line}, column {t.col}: only quoted strings can be "
                                 "joined with '+'")
            parts.append(t.text)
            length += len(t.text)
            if length > MAX_ID:
                raise _too_long(first.line, first.col, "a joined quoted string")
        return self.lexer.share("".join(parts))

    def store(self, weight: tuple[int, int], times: int = 1) -> None:
        """Count attribute values held and their characters (``MAX_VALUES``,
        ``MAX_VALUE_TEXT``); ``weight`` is :func:`_weight` of the attributes."""
        self.values += weight[0] * times
        self.value_text += weight[1] * times
        if self.values > MAX_VALUES:
            raise GraphError(f"{self.where()}: the graph holds more than {MAX_VALUES:,} "
                             "attribute values, counting each node's and each edge's (the "
                             "reader's limit, sam.graph.dotparse.MAX_VALUES); SAM graphs of "
                             "real kernels hold thousands")
        if self.value_text > MAX_VALUE_TEXT:
            raise GraphError(f"{self.where()}: the graph's attribute values hold more than "
                             f"{MAX_VALUE_TEXT:,} characters, counting each node's and each "
                             "edge's (the reader's limit, sam.graph.dotparse.MAX_VALUE_TEXT); "
                             "shorten the values or the defaults given to many nodes")

    def check_attrs(self, attrs: dict[str, str], what: str, at: Tok | None = None) -> None:
        """Refuse more than ``MAX_ATTRS`` attributes (``at``: the token to name)."""
        if len(attrs) > MAX_ATTRS:
            where = f"line {at.line}, column {at.col}" if at is not None else self.where()
            raise GraphError(f"{where}: {what} has more than {MAX_ATTRS:,} attributes "
                             "(the reader's limit, sam.graph.dotparse.MAX_ATTRS)")

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
            self.take()
            strict = True
        if not self.at("graph", "digraph"):
            raise GraphError(f"{self.where()}: expected 'digraph' (or 'graph'), found "
                             f"{self.found()}")
        kind = self.take().kind
        name = self.ident("a graph name") if self.at("id") else None
        self.graph = DotGraph(kind, strict, name)
        self.expect("{", "'{' to open the graph")
        self.stmt_list(_Scope({}, {}), 0, top=True)
        self.expect("}", "'}' to close the graph")
        return self.graph

    def stmt_list(self, scope: _Scope, depth: int, top: bool) -> list[str]:
        """Statements up to the closing ``}``; returns the nodes they mention (for subgraphs
        used as edge end points; not collected at the top level)."""
        if depth > MAX_DEPTH:
            raise GraphError(f"{self.where()}: subgraphs are nested more than {MAX_DEPTH} deep")
        mentioned: list[str] | None = None if top else []
        while not self.at("}"):
            if self.peek() is None:
                raise GraphError(f"{self.where()}: expected '}}' to close the graph, found the "
                                 "end of the text")
            self.stmt(scope, depth, top, mentioned)
            while self.at(";"):
                self.take()
        return mentioned or []

    def stmt(self, scope: _Scope, depth: int, top: bool, mentioned: list[str] | None) -> None:
        t = self.peek()
        if t.kind in ("graph", "node", "edge"):
            self.take()
            attrs = self.attr_lists(required=True)
            if t.kind == "node":
                scope.node = {**scope.node, **attrs}
                self.check_attrs(scope.node, "the node defaults")
                scope.node_weight = _weight(scope.node)
                self.store(scope.node_weight)
            elif t.kind == "edge":
                scope.edge = {**scope.edge, **attrs}
                self.check_attrs(scope.edge, "the edge defaults")
                scope.edge_weight = _weight(scope.edge)
                self.store(scope.edge_weight)
            elif top:
                self.graph.attrs.update(attrs)
                self.check_attrs(self.graph.attrs, "the graph")
                self.store(_weight(attrs))
            return
        if t.kind == "id" and self.peek(1) is not None and self.peek(1).kind == "=":
            key = self.ident("an attribute name")
            self.take()
            value = self.ident(f"a value for graph attribute {key!r}")
            if top:
                self.graph.attrs[key] = value
                self.check_attrs(self.graph.attrs, "the graph")
                self.store((1, len(value)))
            return
        # node statement, edge statement or subgraph
        group = self.operand(scope, depth, mentioned)
        if self.at("->", "--"):
            chain = [group]
            while self.at("->", "--"):
                op = self.peek()
                want = "->" if self.graph.kind == "digraph" else "--"
                if op.kind != want:
                    raise GraphError(f"line {op.line}, column {op.col}: {op.text!r} in a "
                                     f"{self.graph.kind}; use {want!r}")
                self.take()
                chain.append(self.operand(scope, depth, mentioned))
            own = self.attr_lists(required=False)
            attrs = {**scope.edge, **own} if scope.edge and own else own or scope.edge
            self.check_attrs(attrs, "an edge")
            edges = self.graph.edges
            pairs = list(zip(chain[:-1], chain[1:], strict=True))
            count = sum(len(tails) * len(heads) for tails, heads in pairs)
            if len(edges) + count > MAX_EDGES:
                raise GraphError(f"line {op.line}: the graph has more than {MAX_EDGES:,} edges "
                                 "(the reader's limit, sam.graph.dotparse.MAX_EDGES); SAM "
                                 "graphs of real kernels have hundreds")
            own_weight = _weight(own)
            self.store((own_weight[0] + scope.edge_weight[0],
                        own_weight[1] + scope.edge_weight[1]), count)
            for tails, heads in pairs:
                for a in tails:
                    for b in heads:
                        edges.append(DotEdge(a, b, attrs, op.line))
            return
        if isinstance(group, _Single):
            own = self.attr_lists(required=False)
            if own:
                node = self.graph.nodes[group[0]]
                self.store(_weight(own))
                if node.statements and node.attrs is not node.statements[0]:
                    node.attrs.update(own)  # a dict of its own, made below
                elif node.attrs:  # the defaults, or its first statement's list: copy
                    node.attrs = {**node.attrs, **own}
                    self.store(_weight(node.attrs))
                else:
                    node.attrs = own
                self.check_attrs(node.attrs, f"node {group[0]}")
                node.statements.append(own)

    def operand(self, scope: _Scope, depth: int, mentioned: list[str] | None) -> list[str]:
        """A node id (with optional port) or a subgraph: the nodes it stands for."""
        if self.at("subgraph", "{"):
            if self.at("subgraph"):
                self.take()
                if self.at("id"):
                    self.ident("a subgraph name")
            self.expect("{", "'{' to open the subgraph")
            inner = self.stmt_list(_Scope(scope.node, scope.edge, scope.node_weight,
                                          scope.edge_weight), depth + 1, False)
            self.expect("}", "'}' to close the subgraph")
            if mentioned is not None:
                mentioned += inner
            return inner
        t = self.peek()
        if t is None or t.kind != "id":
            raise GraphError(f"{self.where()}: expected a node id, an edge or an attribute, "
                             f"found {self.found()}")
        name = self.ident("a node id")
        for _ in range(2):  # port and compass point: drawing only
            if self.at(":"):
                self.take()
                self.ident("a port name after ':'")
        nodes = self.graph.nodes
        if name not in nodes:
            if len(nodes) >= MAX_NODES:
                raise GraphError(f"line {t.line}, column {t.col}: the graph has more than "
                                 f"{MAX_NODES:,} nodes "
                                 "(the reader's limit, sam.graph.dotparse.MAX_NODES); SAM "
                                 "graphs of real kernels have hundreds")
            nodes[name] = DotNode(name, scope.node, [], t.line)
            self.store(scope.node_weight)
        if mentioned is not None:
            mentioned.append(name)
        return _Single([name])

    def attr_lists(self, required: bool) -> dict[str, str]:
        attrs: dict[str, str] = {}
        if required and not self.at("["):
            raise GraphError(f"{self.where()}: expected '[' to open an attribute list, found "
                             f"{self.found()}")
        while self.at("["):
            self.take()
            while not self.at("]"):
                start = self.cur
                key = self.ident("an attribute name or ']'")
                self.expect("=", f"'=' after attribute name {key!r}")
                attrs[key] = self.ident(f"a value for attribute {key!r}")
                if len(attrs) > MAX_ATTRS:
                    self.check_attrs(attrs, "an attribute list", start)
                if self.at(",", ";"):
                    self.take()
            self.take()
        return attrs


@dataclass(slots=True)
class _Scope:
    """The node and edge defaults in force (``node [..]``, ``edge [..]``). A new statement
    replaces a dict instead of changing it, so nodes, edges and inner scopes share them."""

    node: dict[str, str]
    edge: dict[str, str]
    node_weight: tuple[int, int] = (0, 0)  # _weight of node
    edge_weight: tuple[int, int] = (0, 0)


def _weight(attrs: dict[str, str]) -> tuple[int, int]:
    """Number of attribute values and their characters."""
    return len(attrs), sum(map(len, attrs.values()))


class _Single(list):
    """A lone node id (as opposed to a subgraph) on one side of an edge or as a statement."""


def parse(text: str) -> DotGraph:
    """Parse one DOT graph; raises :class:`GraphError` with line and column on bad syntax, or
    naming the limit (``MAX_TEXT``, ``MAX_NODES``, ``MAX_EDGES``, ``MAX_ATTRS``, ``MAX_ID``,
    ``MAX_DEPTH``) that the text exceeds."""
    return _Parser(text).parse()


def parse_all(text: str) -> list[DotGraph]:
    """Parse one or more DOT graphs, one after another (a program of graphs); the same errors
    and limits as :func:`parse`."""
    return _Parser(text).parse_all()
