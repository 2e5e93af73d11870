"""The graph contract: what a graph's DOT graph attributes say, parsed once.

A SAM graph's DOT text carries, besides its blocks and streams, graph attributes that tell the
simulator and its users what the graph computes and how to bind it (``docs/custard-dot.md``,
"What we add"). :class:`Contract` holds them with real types: a graph read from DOT has each
attribute parsed once, as it is read (a malformed one is a one-line :class:`GraphError` then); a
graph Custard builds has the typed fields set directly. Writing DOT formats the typed fields back
(an attribute unchanged since it was read is written as it was read), in the order the
attributes were given. Attributes the contract does not know stay raw text, kept in order.

The typed attributes:

* ``expression`` (``X(i,j)=B(i,k)*C(k,j)``) and ``order`` (the loop order, ``i,k,j``), which
  Custard records;
* ``constants``, ``ranges``, ``copies``, ``output_formats``, ``nonempty_dims`` (the implicit
  inputs and stored forms, :mod:`sam.graph.implicit`), ``dims`` (sizes of index variables no
  tensor shows, e.g. the levels a split makes, SAM Sec. 4.1);
* ``shared`` (groups of tensors read through one scanner, :mod:`sam.graph.ragged`);
* ``width`` (the stream width of every widenable block, SAM Sec. 4.4, :mod:`sam.sim.widths`);
* ``shape_X`` (the shape of output ``X``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator, Mapping, MutableMapping
from types import MappingProxyType

from formats.errors import FormatError
from formats.format import Format
from sam.errors import GraphError

EXPRESSION = "expression"
ORDER = "order"
CONSTANTS = "constants"
RANGES = "ranges"
DIMS = "dims"
COPIES = "copies"
OUTPUT_FORMATS = "output_formats"
#: compiled assuming no dimension has size 0 (Custard's ``nonempty_dims``): the binder refuses
#: an operand with a dimension of size 0
NONEMPTY_DIMS = "nonempty_dims"
#: groups of tensors that share raggedness (``shared="A,B;C,D"``)
SHARED = "shared"
#: the stream width of every widenable block
WIDTH = "width"
#: ``shape_X="3x4"``: the shape of output ``X``
SHAPE_PREFIX = "shape_"
#: Widest stream accepted (a bus of this many lanes).
MAX_WIDTH = 1 << 16

_NAME = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")
_SHAPE = re.compile(r"[0-9]+(x[0-9]+)*")
Formats = Mapping[str, Format]


# --------------------------------------------------------------------------- parsing (once)
def _pairs(attr: str, text: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for part in text.split(","):
        if not part.strip():
            continue
        name, sep, value = (x.strip() for x in part.partition("="))
        if not sep or not _NAME.fullmatch(name) or not value:
            raise GraphError(f"graph attribute {attr}={text!r}: {part.strip()!r} is not "
                             "NAME=VALUE")
        if name in dict(out):
            raise GraphError(f"graph attribute {attr}={text!r} names {name} twice")
        out.append((name, value))
    return out


def _constants(text: str, formats: Formats) -> dict[str, float]:
    out: dict[str, float] = {}
    for name, value_text in _pairs(CONSTANTS, text):
        try:
            value = float(value_text)
        except ValueError:
            value = math.nan
        if not math.isfinite(value):
            raise GraphError(f"graph attribute {CONSTANTS}: {name}={value_text!r} is not a "
                             "finite number")
        out[name] = value
    return out


def _sizes(attr: str, what: str) -> Callable[[str, Formats], dict[str, int]]:
    def parse(text: str, formats: Formats) -> dict[str, int]:
        out: dict[str, int] = {}
        for name, value in _pairs(attr, text):
            if not value.isdigit():
                raise GraphError(f"graph attribute {attr}: {name}={value!r} is not a {what} "
                                 "(a non-negative integer)")
            out[name] = int(value)
        return out
    return parse


def _copies(text: str, formats: Formats) -> dict[str, str]:
    out: dict[str, str] = {}
    for name, source in _pairs(COPIES, text):
        if not _NAME.fullmatch(source) or source == name:
            raise GraphError(f"graph attribute {COPIES}: {name}={source!r} does not name "
                             "another tensor")
        out[name] = source
    _check_copies(out, formats)
    return out


def _output_formats(text: str, formats: Formats) -> dict[str, Format]:
    out: dict[str, Format] = {}
    for part in text.split(";"):
        if not part.strip():
            continue
        name, sep, spec = (x.strip() for x in part.partition("="))
        if not sep or not _NAME.fullmatch(name):
            raise GraphError(f"graph attribute {OUTPUT_FORMATS}={text!r}: {part.strip()!r} is "
                             "not NAME=FORMAT")
        try:
            fmt = Format.parse(spec)
        except FormatError as err:
            raise GraphError(f"graph attribute {OUTPUT_FORMATS}: {name}: {err}") from None
        _check_output_format(name, spec, fmt, formats)
        out[name] = fmt
    return out


def _shared(text: str, formats: Formats) -> tuple[tuple[str, ...], ...]:
    text = text.strip().strip('"')
    return tuple(tuple(n.strip() for n in g.split(",") if n.strip())
                 for g in text.split(";") if g.strip())


def parse_width(text: str, where: str) -> int:
    """A stream width from its DOT text; ``where`` names the attribute's owner in errors."""
    try:
        n = int(str(text).strip())
    except ValueError:
        n = 0
    if not 1 <= n <= MAX_WIDTH:
        raise GraphError(f"{where}: stream width {text!r} is not a whole number from 1 to "
                         f"{MAX_WIDTH}; give e.g. width=\"4\"")
    return n


def _shape(key: str, text: str, formats: Formats) -> tuple[int, ...]:
    if not _SHAPE.fullmatch(text):
        raise GraphError(f"graph attribute {key}={text!r} is not a shape; write sizes joined by "
                         "x (e.g. 3x4)")
    shape = tuple(int(s) for s in text.split("x"))
    _check_shape(key, shape, formats)
    return shape


_PARSE: dict[str, Callable[[str, Formats], object]] = {
    EXPRESSION: lambda text, formats: text,
    ORDER: lambda text, formats: tuple(v for v in text.split(",") if v),
    CONSTANTS: _constants,
    RANGES: _sizes(RANGES, "length"),
    DIMS: _sizes(DIMS, "size"),
    COPIES: _copies,
    OUTPUT_FORMATS: _output_formats,
    NONEMPTY_DIMS: lambda text, formats: text == "true",
    SHARED: _shared,
    WIDTH: lambda text, formats: parse_width(text, f"graph attribute {WIDTH}"),
}


def typed(key: str) -> bool:
    """Whether the contract gives graph attribute ``key`` a type (else it stays text)."""
    return key in _PARSE or key.startswith(SHAPE_PREFIX)


def parse_attr(key: str, text: str, formats: Formats) -> object:
    """The typed value of graph attribute ``key`` from its DOT text (``formats``: the graph
    comment's, which ``copies``, ``output_formats`` and ``shape_X`` must agree with); one-line
    :class:`GraphError` if the text is malformed. The only place attribute text is parsed."""
    if key.startswith(SHAPE_PREFIX):
        return _shape(key, text, formats)
    return _PARSE[key](text, formats)


# --------------------------------------------------------------------------- checks on values
def _check_copies(copies: Mapping[str, str], formats: Formats) -> None:
    for name in copies:
        if name not in formats:
            raise GraphError(f"graph attribute {COPIES}: the copy {name} has no format in the "
                             "graph comment; add it (e.g. comment=\"...,{name}=dd10\")")


def _check_output_format(name: str, spec: str, fmt: Format, formats: Formats) -> None:
    written = formats.get(name)
    if written is None or written.order != fmt.order:
        raise GraphError(f"graph attribute {OUTPUT_FORMATS}: {name}={spec} is not a format "
                         f"of the same order as {name}'s in the graph comment")


def _check_shape(key: str, shape: tuple[int, ...], formats: Formats) -> None:
    name = key[len(SHAPE_PREFIX):]
    fmt = formats.get(name)
    if fmt is not None and len(shape) != fmt.order:
        text = "x".join(map(str, shape))
        raise GraphError(f"graph attribute {key}={text!r} gives {len(shape)} sizes but tensor "
                         f"{name} has order {fmt.order} (format {fmt or 'none'})")


# --------------------------------------------------------------------------- writing
def _pairs_text(values: Mapping[str, object]) -> str:
    return ",".join(f"{name}={value}" for name, value in values.items())


_FORMAT: dict[str, Callable[[object], str]] = {
    EXPRESSION: str,
    ORDER: ",".join,
    CONSTANTS: lambda v: _pairs_text({n: repr(float(x)) for n, x in v.items()}),
    RANGES: _pairs_text,
    DIMS: _pairs_text,
    COPIES: _pairs_text,
    OUTPUT_FORMATS: lambda v: ";".join(f"{n}={f.taco()}" for n, f in v.items()),
    NONEMPTY_DIMS: lambda v: "true" if v else "false",
    SHARED: lambda v: ";".join(",".join(g) for g in v),
    WIDTH: str,
}


def format_attr(key: str, value: object) -> str:
    """The DOT text of graph attribute ``key`` with typed value ``value``."""
    if key.startswith(SHAPE_PREFIX):
        return "x".join(map(str, value))
    return _FORMAT[key](value)


# --------------------------------------------------------------------------- the contract
def _empty(value: object) -> bool:
    return value is None or value is False or (not isinstance(value, (int, float))
                                               and len(value) == 0)


class _Field:
    """A typed attribute of :class:`Contract` (``normal`` turns an assigned value into the
    stored one; maps are handed out read-only, so a change is an assignment)."""

    def __init__(self, key: str, default: object, normal: Callable[[object], object]) -> None:
        self.key, self.default, self.normal = key, default, normal

    def __get__(self, obj: Contract | None, owner: type) -> object:
        if obj is None:
            return self
        value = obj._values.get(self.key, self.default)
        return MappingProxyType(value) if isinstance(value, dict) else value

    def __set__(self, obj: Contract, value: object) -> None:
        obj.set(self.key, None if _empty(value) else self.normal(value))


def _map(kind: Callable[[object], object]) -> Callable[[object], object]:
    return lambda value: {str(k): kind(v) for k, v in value.items()}


def _names(value: object) -> tuple[str, ...]:
    if isinstance(value, str):
        raise TypeError("give the loop order as a sequence of index variables, not text")
    return tuple(str(v) for v in value)  # type: ignore[attr-defined]


_NO_MAP: Mapping = MappingProxyType({})


class Contract:
    """A graph's attributes: typed fields (module docstring) and other attributes as text, in
    the order they were given. Equal contracts say the same; :meth:`signature` is comparable."""

    expression: str | None = _Field(EXPRESSION, None, str)  # type: ignore[assignment]
    order: tuple[str, ...] = _Field(ORDER, (), _names)  # type: ignore[assignment]
    constants: Mapping[str, float] = _Field(CONSTANTS, _NO_MAP, _map(float))  # type: ignore[assignment]
    ranges: Mapping[str, int] = _Field(RANGES, _NO_MAP, _map(int))  # type: ignore[assignment]
    dims: Mapping[str, int] = _Field(DIMS, _NO_MAP, _map(int))  # type: ignore[assignment]
    copies: Mapping[str, str] = _Field(COPIES, _NO_MAP, _map(str))  # type: ignore[assignment]
    output_formats: Mapping[str, Format] = _Field(  # type: ignore[assignment]
        OUTPUT_FORMATS, _NO_MAP, _map(lambda f: f))
    nonempty_dims: bool = _Field(NONEMPTY_DIMS, False, bool)  # type: ignore[assignment]
    shared: tuple[tuple[str, ...], ...] = _Field(  # type: ignore[assignment]
        SHARED, (), lambda groups: tuple(tuple(g) for g in groups))
    width: int | None = _Field(WIDTH, None, int)  # type: ignore[assignment]

    def __init__(self) -> None:
        #: attribute name -> typed value (or text, for one the contract does not type), in order
        self._values: dict[str, object] = {}
        #: attribute name -> (the value read, the text it was read from): written back as read
        self._read: dict[str, tuple[object, str]] = {}

    @classmethod
    def from_attrs(cls, attrs: Mapping[str, str], formats: Formats) -> Contract:
        """The contract of DOT graph attributes ``attrs`` (each parsed once, here)."""
        contract = cls()
        for key, text in attrs.items():
            contract.set_text(key, text, formats)
        return contract

    def set_text(self, key: str, text: str, formats: Formats) -> None:
        """Set attribute ``key`` from its DOT text (parsed now if the contract types it)."""
        text = str(text)
        if not typed(key):
            self._values[key] = text
            return
        value = parse_attr(key, text, formats)
        self._values[key] = value
        self._read[key] = (value, text)

    def set(self, key: str, value: object) -> None:
        """Set attribute ``key`` to ``value`` (typed for a typed attribute, else text; None
        removes it). A new attribute goes last, as in a dict."""
        if value is None:
            self.pop(key)
        else:
            self._values[key] = value

    def pop(self, key: str) -> None:
        """Remove attribute ``key`` (nothing if absent)."""
        self._values.pop(key, None)
        self._read.pop(key, None)

    @property
    def shapes(self) -> Mapping[str, tuple[int, ...]]:
        """``shape_X`` attributes: output name -> shape."""
        return {k[len(SHAPE_PREFIX):]: v for k, v in self._values.items()  # type: ignore[misc]
                if k.startswith(SHAPE_PREFIX)}

    def set_shape(self, name: str, shape: tuple[int, ...]) -> None:
        """Record the shape of output ``name`` (attribute ``shape_NAME``)."""
        self.set(SHAPE_PREFIX + name, tuple(int(s) for s in shape))

    @property
    def extra(self) -> Mapping[str, str]:
        """The attributes the contract does not type, as text, in order."""
        return {k: v for k, v in self._values.items() if not typed(k)}  # type: ignore[misc]

    def keys(self) -> list[str]:
        """The attribute names, in order."""
        return list(self._values)

    def __contains__(self, key: object) -> bool:
        return key in self._values

    def text(self, key: str) -> str:
        """The DOT text of attribute ``key`` (as read, if its value has not changed since)."""
        value = self._values[key]
        if not typed(key):
            return value  # type: ignore[return-value]
        read = self._read.get(key)
        if read is not None and read[0] is value:
            return read[1]
        return format_attr(key, value)

    def items(self) -> Iterator[tuple[str, str]]:
        """(name, DOT text) of every attribute, in order."""
        return ((key, self.text(key)) for key in self._values)

    def check(self, formats: Formats) -> None:
        """``GraphError`` unless the typed values agree with the graph comment's ``formats``
        (needed for a graph built rather than read, or whose formats changed since)."""
        _check_copies(self.copies, formats)
        for name, fmt in self.output_formats.items():
            _check_output_format(name, fmt.taco(), fmt, formats)
        for name, shape in self.shapes.items():
            _check_shape(SHAPE_PREFIX + name, shape, formats)

    def copy(self) -> Contract:
        other = Contract()
        other._values = dict(self._values)
        other._read = dict(self._read)
        return other

    def signature(self) -> tuple:
        """What the attributes say, comparable and order-free (typed values in canonical text)."""
        return tuple(sorted((k, format_attr(k, v) if typed(k) else v)
                            for k, v in self._values.items()))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Contract) and self._values == other._values

    def __repr__(self) -> str:
        return f"Contract({self._values!r})"


class GraphAttrs(MutableMapping[str, str]):
    """A graph's attributes as DOT text (``graph.attrs``): reading one formats it, setting one
    parses it once into the contract (:func:`parse_attr`)."""

    def __init__(self, contract: Contract, formats: Formats) -> None:
        self.contract, self.formats = contract, formats

    def __getitem__(self, key: str) -> str:
        if key not in self.contract:
            raise KeyError(key)
        return self.contract.text(key)

    def __setitem__(self, key: str, text: str) -> None:
        self.contract.set_text(key, text, self.formats)

    def __delitem__(self, key: str) -> None:
        if key not in self.contract:
            raise KeyError(key)
        self.contract.pop(key)

    def __iter__(self) -> Iterator[str]:
        return iter(self.contract.keys())

    def __len__(self) -> int:
        return len(self.contract.keys())
