"""MLIR's textual form, read structurally: tokens, ops, regions, blocks and aliases.

The MLIR sparsifier's inputs mix many dialects (``func``, ``arith``, ``math``, ``linalg``,
``sparse_tensor``, ``tensor``, ``bufferization``, ``memref``, ``vector``, ``scf``), each op in its
own custom syntax. Instead of a grammar per op, the file is read the way MLIR's custom syntax is
laid out:

* a **token** is an SSA name (``%x``), a symbol (``@f``), a block label (``^bb0``), an alias or
  dialect attribute (``#CSR``, ``!Filename``), a word, a number, a string or punctuation; a word
  followed by ``<`` (``tensor<?x?xf64, #CSR>``, ``affine_map<(i) -> (i)>``, ``dense<[1, 2]>``,
  ``#sparse_tensor.encoding<{...}>``) is one token holding the whole bracket;
* an **op** is ``[%r, ... =] NAME rest``, where ``rest`` runs to the next op: the next line that
  starts at bracket depth 0 with results (``%r =``), an op name (a dotted word or ``return``), a
  block label or the closing ``}`` of the enclosing region;
* a ``{`` inside ``rest`` opens a **region** (blocks of ops, ``^bb0(%a: f64):`` labels) unless
  it holds an attribute dictionary (``{key = ...}``), which stays a token;
* top-level ``#name = ...`` and ``!name = ...`` lines are **aliases**, substituted when read.

Each op keeps its own tokens (regions cut out), so the front end (:mod:`custard.mlir.lower`,
:mod:`custard.mlir.interp`) reads the few ops it knows from them. Every error is an
:class:`MlirError` ``FILE:LINE:COL: what``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from sam.errors import CompileError


class MlirError(CompileError):
    """Malformed MLIR, or MLIR the front end does not lower (``FILE:LINE:COL: what``)."""


@dataclass(frozen=True)
class Loc:
    """A position in a source file (1-based line and column)."""

    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


def error(loc: Loc, what: str) -> MlirError:
    """The one-line error at ``loc``."""
    return MlirError(f"{loc}: {what}")


@dataclass(frozen=True)
class Token:
    """One token: its kind (``value``, ``symbol``, ``label``, ``hash``, ``bang``, ``word``,
    ``number``, ``string``, ``punct``), its text and where it starts."""

    kind: str
    text: str
    loc: Loc
    first: bool = False  #: the first token of its line

    def __str__(self) -> str:
        return self.text


_WORD = r"[A-Za-z_][A-Za-z0-9_$.]*"
_PATTERNS = [
    ("comment", r"//[^\n]*"),
    ("space", r"[ \t\r]+"),
    ("newline", r"\n"),
    ("string", r'"(?:[^"\\\n]|\\.)*"'),
    ("value", r"%[A-Za-z0-9_$.\-]+(?:#[0-9]+)?"),
    ("symbol", r'@(?:[A-Za-z0-9_$.\-]+|"[^"\n]*")'),
    ("label", r"\^[A-Za-z0-9_$.\-]+"),
    ("hash", r"#" + _WORD),
    ("bang", r"!" + _WORD),
    ("number", r"0x[0-9A-Fa-f]+|[0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?"),
    ("word", r"[A-Za-z_][A-Za-z0-9_$.]*"),
    ("arrow", r"->"),
    ("punct", r"[()\[\]{}<>,:=?*+\-/|]"),
]
_LEXER = re.compile("|".join(f"(?P<{k}>{p})" for k, p in _PATTERNS))
#: words whose ``<...>`` belongs to them (types and attributes)
_ANGLED = ("word", "hash", "bang")


def tokenize(text: str, file: str) -> list[Token]:
    """The tokens of ``text``; a word followed by ``<`` takes its whole bracket."""
    out: list[Token] = []
    pos, line, line_start, first = 0, 1, 0, True
    while pos < len(text):
        m = _LEXER.match(text, pos)
        loc = Loc(file, line, pos - line_start + 1)
        if m is None:
            raise error(loc, f"unexpected character {text[pos]!r}")
        kind, tok = m.lastgroup or "", m.group()
        end = m.end()
        if kind == "newline":
            line, line_start, first = line + 1, end, True
        elif kind in ("comment", "space"):
            pass
        else:
            if kind in _ANGLED and end < len(text) and text[end] == "<":
                end = _angle_end(text, end, loc)
                tok = text[pos:end]
                line += tok.count("\n")
                if "\n" in tok:
                    line_start = pos + tok.rfind("\n") + 1
            out.append(Token("punct" if kind == "arrow" else kind, tok, loc, first))
            first = False
        pos = end
    return out


def _angle_end(text: str, start: int, loc: Loc) -> int:
    """The index just past the ``>`` closing the ``<`` at ``start`` (``->`` and strings
    inside do not count)."""
    depth, k = 0, start
    while k < len(text):
        c = text[k]
        if c == '"':
            close = text.find('"', k + 1)
            while close > 0 and text[close - 1] == "\\":
                close = text.find('"', close + 1)
            if close < 0:
                break
            k = close + 1
            continue
        if c == "<":
            depth += 1
        elif c == ">" and text[k - 1] != "-":
            depth -= 1
            if depth == 0:
                return k + 1
        elif c == "/" and text.startswith("//", k):
            nl = text.find("\n", k)
            k = len(text) if nl < 0 else nl
            continue
        k += 1
    raise error(loc, "unclosed '<': a type or attribute runs to the end of the file")


# ---------------------------------------------------------------------------------- the tree
@dataclass
class Block:
    """A block: its label (``^bb0`` or ``''`` for an entry block without one), its arguments
    (name, type text) and its ops."""

    label: str
    args: list[tuple[str, str]]
    ops: list[Op]
    loc: Loc


@dataclass
class Region:
    """A region: its blocks; ``name`` is the keyword before it (``overlap``) or ``''``."""

    blocks: list[Block]
    loc: Loc
    name: str = ""

    @property
    def ops(self) -> list[Op]:
        """The ops of its first block (the regions the front end reads have one block)."""
        return self.blocks[0].ops if self.blocks else []


@dataclass
class Op:
    """An op: results, name, its own tokens (regions cut out, each marked by a ``{}`` punct
    token) and regions."""

    name: str
    results: list[str]
    tokens: list[Token]
    regions: list[Region]
    loc: Loc

    # -- readers of the custom syntax the front end needs --------------------------------
    def values(self) -> list[str]:
        """The SSA names among its tokens, in order (operands and, for ``scf.for``, the
        induction variable)."""
        return [t.text for t in self.tokens if t.kind == "value"]

    def after(self, word: str) -> list[Token]:
        """The tokens after the first top-level ``word`` (``ins``, ``to``), or []."""
        for k, t in enumerate(self.tokens):
            if t.text == word:
                return self.tokens[k + 1:]
        return []

    def group(self, word: str) -> tuple[list[str], list[str]]:
        """``word(%a, %b : T1, T2)``: the names and the type texts in the parentheses."""
        toks = self.after(word)
        if not toks or toks[0].text != "(":
            return [], []
        inner = _until_close(toks, 0)
        names = [t.text for t in inner if t.kind == "value"]
        colon = next((k for k, t in enumerate(inner) if t.text == ":"), len(inner))
        return names, type_list(inner[colon + 1:])

    def types(self) -> list[str]:
        """The type texts after the last top-level ``:`` (an op's trailing type list)."""
        depth, colon = 0, -1
        for k, t in enumerate(self.tokens):
            if t.text in "([{":
                depth += 1
            elif t.text in ")]}":
                depth -= 1
            elif t.text == ":" and depth == 0:
                colon = k
        return type_list(self.tokens[colon + 1:]) if colon >= 0 else []

    def attr(self, key: str) -> str | None:
        """The text of ``key = VALUE`` among its tokens (also inside attribute dicts)."""
        for k, t in enumerate(self.tokens[:-2]):
            if t.text == key and self.tokens[k + 1].text == "=":
                return self.tokens[k + 2].text
        for t in self.tokens:
            if t.kind == "dict":
                found = dict_entries(t.text).get(key)
                if found is not None:
                    return found
        return None

    def region(self, name: str) -> Region | None:
        return next((r for r in self.regions if r.name == name), None)

    def walk(self) -> Iterator[Op]:
        """This op and every op nested in its regions."""
        yield self
        for r in self.regions:
            for b in r.blocks:
                for op in b.ops:
                    yield from op.walk()


@dataclass
class Func:
    """A ``func.func``: name, arguments (SSA name, type text), result types, body (None for a
    declaration)."""

    name: str
    args: list[tuple[str, str]]
    results: list[str]
    body: Region | None
    loc: Loc
    private: bool = False


@dataclass
class Module:
    """A file: its functions (in order), attribute and type aliases, and top-level ops that
    are not functions (kept for the error message of whoever needs them)."""

    file: str
    funcs: dict[str, Func] = field(default_factory=dict)
    aliases: dict[str, str] = field(default_factory=dict)
    others: list[Op] = field(default_factory=list)

    def resolve(self, text: str) -> str:
        """``text`` with every alias (``#CSR``, ``!Filename``) replaced by what it names."""
        def sub(m: re.Match[str]) -> str:
            name = m.group(0)
            return self.aliases.get(name, name)
        for _ in range(4):  # aliases of aliases
            new = re.sub(r"[#!][A-Za-z_][A-Za-z0-9_$.]*", sub, text)
            if new == text:
                break
            text = new
        return text


def _until_close(toks: list[Token], start: int) -> list[Token]:
    """The tokens inside the bracket opened at ``toks[start]`` (not including it)."""
    depth = 0
    for k in range(start, len(toks)):
        if toks[k].text in "([{":
            depth += 1
        elif toks[k].text in ")]}":
            depth -= 1
            if depth == 0:
                return toks[start + 1:k]
    return toks[start + 1:]


def type_list(toks: list[Token]) -> list[str]:
    """The comma-separated types at the front of ``toks`` (stops at a word such as ``to``)."""
    out: list[str] = []
    for t in toks:
        if t.text == ",":
            continue
        if t.kind in ("word", "bang", "hash") or t.text.startswith(("tensor<", "memref<")):
            if t.kind == "word" and not _is_type(t.text):
                break
            out.append(t.text)
        elif t.text in ("(", ")", "->"):
            continue
        else:
            break
    return out


_TYPE_WORDS = re.compile(r"(tensor|memref|vector|complex|tuple)<.*|[isuf][0-9]+|bf16|index|"
                         r"none|f16|f32|f64|f80|f128|tf32", re.S)


def _is_type(text: str) -> bool:
    return _TYPE_WORDS.fullmatch(text) is not None


def dict_entries(text: str) -> dict[str, str]:
    """``{a = x, b = [y, z]}`` as ``{'a': 'x', 'b': '[y, z]'}`` (values as text)."""
    inner = text.strip()
    if inner.startswith("{") and inner.endswith("}"):
        inner = inner[1:-1]
    out: dict[str, str] = {}
    for part in split_top(inner, ","):
        if "=" in part:
            key, _, value = part.partition("=")
            out[key.strip()] = value.strip()
        elif part.strip():
            out[part.strip()] = "unit"
    return out


def split_top(text: str, sep: str) -> list[str]:
    """``text`` split at ``sep`` outside brackets and strings."""
    out, depth, cur, k = [], 0, [], 0
    while k < len(text):
        c = text[k]
        if c == '"':
            close = text.find('"', k + 1)
            close = len(text) - 1 if close < 0 else close
            cur.append(text[k:close + 1])
            k = close + 1
            continue
        if c in "([{<" :
            depth += 1
        elif c in ")]}" or (c == ">" and text[k - 1:k] != "-"):
            depth -= 1
        if c == sep and depth == 0:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(c)
        k += 1
    out.append("".join(cur))
    return [p for p in (s.strip() for s in out) if p]


# -------------------------------------------------------------------------------- the parser
_REGION_KEYS = {"overlap", "left", "right", "present", "absent", "region", "then", "else"}


class _Parser:
    def __init__(self, toks: list[Token], file: str) -> None:
        self.toks = toks
        self.k = 0
        self.file = file

    def peek(self, ahead: int = 0) -> Token | None:
        j = self.k + ahead
        return self.toks[j] if j < len(self.toks) else None

    def next(self) -> Token:
        t = self.peek()
        if t is None:
            end = self.toks[-1].loc if self.toks else Loc(self.file, 1, 1)
            raise error(end, "unexpected end of file (an unclosed '{' or '('?)")
        self.k += 1
        return t

    def expect(self, text: str) -> Token:
        t = self.next()
        if t.text != text:
            raise error(t.loc, f"expected '{text}', found '{t.text}'")
        return t

    # -- op boundaries --------------------------------------------------------------------
    def starts_op(self) -> bool:
        """Whether the token at the cursor begins a new op (see module docstring)."""
        t = self.peek()
        if t is None or not t.first:
            return False
        if t.text == "}" or t.kind == "label":
            return True
        if t.kind == "value":  # results: %a, %b = ... or %r:2 = ...
            j = self.k + 1
            while j < len(self.toks):
                cur, prev = self.toks[j], self.toks[j - 1]
                if cur.text in (",", ":") or (cur.kind in ("value", "number")
                                              and prev.text in (",", ":")):
                    j += 1
                else:
                    break
            return j < len(self.toks) and self.toks[j].text == "="
        if t.kind == "string":
            nxt = self.peek(1)
            return nxt is not None and nxt.text == "("
        return t.kind == "word" and ("." in t.text
                                     or t.text in ("return", "module", "func", "call"))

    # -- ops ------------------------------------------------------------------------------
    def op(self) -> Op:
        start = self.peek()
        assert start is not None
        results: list[str] = []
        if start.kind == "value":
            while True:
                r = self.next()
                if r.kind != "value":
                    raise error(r.loc, f"expected a result name, found '{r.text}'")
                results.append(r.text)
                if self.peek() is not None and self.peek().text == ":":  # %r:2 =
                    self.next()
                    count = self.next()
                    results[-1:] = [f"{r.text}#{i}" for i in range(int(count.text))]
                if self.peek() is not None and self.peek().text == ",":
                    self.next()
                    continue
                break
            self.expect("=")
        name_tok = self.next()
        if name_tok.kind not in ("word", "string"):
            raise error(name_tok.loc, f"expected an op name, found '{name_tok.text}'")
        name = name_tok.text.strip('"')
        tokens: list[Token] = []
        regions: list[Region] = []
        depth = 0
        while self.peek() is not None:
            t = self.peek()
            assert t is not None
            if depth == 0 and self.starts_op():
                break
            if t.text == "{":
                if self.is_region(tokens):
                    key = tokens[-2].text if len(tokens) > 1 and tokens[-1].text == "=" else ""
                    regions.append(self.region(key))
                    tokens.append(Token("punct", "{}", t.loc))
                    continue
                tokens.append(self.attr_dict())
                continue
            if t.text in "([":
                depth += 1
            elif t.text in ")]":
                depth -= 1
            elif t.text == "}":
                break  # end of the enclosing region
            tokens.append(self.next())
        return Op(name, results, tokens, regions, name_tok.loc)

    def is_region(self, before: list[Token]) -> bool:
        if before and before[-1].text == "=" and len(before) > 1:
            return before[-2].text in _REGION_KEYS
        nxt, after = self.peek(1), self.peek(2)
        if nxt is None:
            return False
        if nxt.text == "}":
            return False
        if nxt.kind in ("label", "value"):
            return True
        if nxt.kind == "word" and after is not None and after.text == "=":
            return False  # {key = value}
        return nxt.kind in ("word", "string") and nxt.first

    def attr_dict(self) -> Token:
        """The ``{...}`` at the cursor as one ``dict`` token (its text re-joined)."""
        start = self.next()
        depth, parts = 1, ["{"]
        while depth:
            if self.peek() is None:
                raise error(start.loc, "this '{' is never closed")
            t = self.next()
            if t.text == "{":
                depth += 1
            elif t.text == "}":
                depth -= 1
            parts.append(t.text)
        return Token("dict", " ".join(parts), start.loc)

    def region(self, name: str = "") -> Region:
        open_tok = self.expect("{")
        blocks: list[Block] = []
        current = Block("", [], [], open_tok.loc)
        while True:
            t = self.peek()
            if t is None:
                raise error(open_tok.loc, "this '{' is never closed")
            if t.text == "}":
                self.next()
                break
            if t.kind == "label":
                if current.ops or current.label:
                    blocks.append(current)
                current = self.block_header()
                continue
            current.ops.append(self.op())
        if current.ops or current.label or not blocks:
            blocks.append(current)
        return Region(blocks, open_tok.loc, name)

    def block_header(self) -> Block:
        label = self.next()
        args: list[tuple[str, str]] = []
        if self.peek() is not None and self.peek().text == "(":
            self.next()
            while self.peek() is not None and self.peek().text != ")":
                v = self.next()
                if v.text == ",":
                    continue
                if v.kind != "value":
                    raise error(v.loc, f"expected a block argument, found '{v.text}'")
                self.expect(":")
                args.append((v.text, self.next().text))
                if self.peek() is not None and self.peek().kind == "word" \
                        and self.peek().text == "loc":
                    self.next()
                    self.skip_group()
            self.expect(")")
        self.expect(":")
        return Block(label.text, args, [], label.loc)

    def skip_group(self) -> None:
        self.expect("(")
        depth = 1
        while depth:
            t = self.next()
            depth += t.text == "("
            depth -= t.text == ")"


def parse_module(text: str, file: str) -> Module:
    """Read an MLIR file into a :class:`Module` (functions found at any depth of
    ``module { ... }``)."""
    module = Module(file)
    toks = tokenize(text, file)
    p = _Parser(toks, file)
    while p.peek() is not None:
        t = p.peek()
        assert t is not None
        if t.kind in ("hash", "bang") and p.peek(1) is not None and p.peek(1).text == "=":
            p.next()
            p.next()
            if p.peek() is not None and p.peek().text == "{":
                value = p.attr_dict().text
            else:
                value = p.next().text
            module.aliases[t.text] = value
            continue
        if t.text == "}":
            p.next()  # the end of a module
            continue
        if t.text == "module" or t.text == "builtin.module":
            p.next()
            while p.peek() is not None and p.peek().text != "{":
                p.next()  # attributes {...}, @name
            p.expect("{")
            continue
        if t.kind == "word" and t.text in ("func.func", "func"):
            _func(p, module)
            continue
        if not p.starts_op() and t.kind != "value":
            raise error(t.loc, f"expected an op, a function or an alias, found '{t.text}'")
        module.others.append(p.op())
    return module


def _func(p: _Parser, module: Module) -> None:
    head = p.next()
    private = False
    while p.peek() is not None and p.peek().kind == "word":
        private |= p.next().text == "private"
    sym = p.next()
    if sym.kind != "symbol":
        raise error(sym.loc, f"expected a function name (@name), found '{sym.text}'")
    p.expect("(")
    args: list[tuple[str, str]] = []
    while p.peek() is not None and p.peek().text != ")":
        t = p.next()
        if t.text == ",":
            continue
        if t.kind == "value":
            p.expect(":")
            args.append((t.text, p.next().text))
        else:
            args.append(("", t.text))  # a declaration's bare type
        if p.peek() is not None and p.peek().kind == "dict":
            p.next()
        if p.peek() is not None and p.peek().text == "{":
            p.attr_dict()  # argument attributes
    p.expect(")")
    results: list[str] = []
    if p.peek() is not None and p.peek().text == "->":
        p.next()
        if p.peek() is not None and p.peek().text == "(":
            p.next()
            while p.peek() is not None and p.peek().text != ")":
                t = p.next()
                if t.text == "{":
                    p.k -= 1
                    p.attr_dict()
                elif t.text != ",":
                    results.append(t.text)
            p.expect(")")
        else:
            results.append(p.next().text)
            if p.peek() is not None and p.peek().text == "{" and not p.is_region([]):
                p.attr_dict()
    if p.peek() is not None and p.peek().text == "attributes":
        p.next()
        p.attr_dict()
    body = p.region() if p.peek() is not None and p.peek().text == "{" else None
    name = sym.text[1:].strip('"')
    if name in module.funcs:
        raise error(sym.loc, f"redefinition of function @{name}")
    module.funcs[name] = Func(name, args, results, body, head.loc, private or body is None)
