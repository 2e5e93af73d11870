"""Linalg ops to Custard index notation (SAM paper Sec. 2.1 and 5): one statement per op.

A ``linalg.generic`` is a loop nest in index notation already:

* its **indexing maps** give each operand's index variables (the map's dimension names, or
  ``i, j, k, ...`` for ``d0, d1, ...``); a map must be a projected permutation (every result a
  plain dimension), since a SAM level scanner walks one dimension per level;
* its **iterator types** mark the reduction dimensions: the index variables absent from the
  output map, which Custard sums (Sec. 2.1);
* its **region** is the scalar expression: ``arith`` add/sub/mul/div (float and integer) and
  ``negf`` become ``+ - * /`` and negation (ALUs, Def. 3.6), a constant defined outside becomes a
  literal, the output's block argument is the output's old value (``X(i) = X(i) + ...``, the
  ``outs`` initial value honoured);
* element-wise functions SAM has as unary ALUs (``math.exp``, ``math.absf``, ReLU written
  ``arith.maximumf %x, 0``) applied to the whole result become the statement's unary post-ops
  (``-u=exp``); applied to one operand they become a statement of their own;
* ``sparse_tensor.binary`` with ``overlap`` add and both sides ``identity`` is a union (``+``),
  with ``overlap`` mul and both sides empty an intersection (``*``); ``sparse_tensor.unary``
  with an empty ``absent`` region maps its ``present`` function over the stored entries;
  ``sparse_tensor.reduce`` with an add region is the sum. Other regions are refused, naming the
  op.

Named ops are the generic ops they abbreviate: ``linalg.matmul`` is
``C(i,j) = C(i,j) + A(i,k)*B(k,j)``, ``matvec``, ``vecmat``, ``dot``, ``batch_matmul``,
``matmul_transpose_b``, element-wise ``add/sub/mul/div``, ``copy``, ``transpose``.

Only the semantics the sparsifier gives are lowered: a non-zero-preserving function
(``math.exp``) of a sparse operand is refused (the sparsifier would compute it densely; write
``sparse_tensor.unary`` to apply it to stored entries only).
"""

from __future__ import annotations

import math
import re
import struct
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from custard.mlir.encoding import TensorType
from custard.mlir.syntax import Loc, Op, Region, dict_entries, error

#: region ops -> binary operator of index notation
BINARY = {"arith.addf": "+", "arith.addi": "+", "arith.subf": "-", "arith.subi": "-",
          "arith.mulf": "*", "arith.muli": "*", "arith.divf": "/", "arith.divsi": "/",
          "arith.divui": "/"}
#: region ops -> unary ALU (sam/blocks/alus.py); all but exp keep zero at zero
UNARY = {"math.exp": "exp", "math.absf": "abs", "math.absi": "abs", "arith.negf": "neg"}
ZERO_PRESERVING = {"abs", "neg", "relu"}
MAXIMUM = ("arith.maximumf", "arith.maxnumf", "arith.maxf", "arith.maxsi")
#: default index variable names, for dimensions named d0, d1, ...
LETTERS = "ijklmnopqrstuvwxyzabcefgh"


@dataclass
class Statement:
    """One lowered op: index notation, formats of its tensors, unary post-ops, position."""

    target: str
    text: str
    formats: dict[str, str]
    loc: Loc
    unary: tuple[str, ...] = ()
    order: list[str] | None = None
    reads_init: bool = False  #: whether it reads the output's initial value

    def line(self) -> str:
        """The statement as a line of a DAG program (custard/dag/program.py)."""
        opts = [f"-f={n}:{f}" for n, f in self.formats.items() if f]
        opts += [f"-u={u}" for u in self.unary]
        if self.order:
            opts.append(f"-s=reorder({','.join(self.order)})")
        return " ".join([self.text, *opts])


@dataclass
class Env:
    """What lowering an op needs from its function: tensor names and types of SSA values,
    scalar constants, zero-initialised tensors, and a name maker for temporaries."""

    names: dict[str, str] = field(default_factory=dict)
    types: dict[str, TensorType] = field(default_factory=dict)
    constants: dict[str, str] = field(default_factory=dict)
    #: tensors the kernel makes empty (tensor.empty, a zero fill): name -> type
    zeros: dict[str, TensorType] = field(default_factory=dict)
    #: tensors every entry of which is one constant (linalg.fill, a splat dense<c>, a generic
    #: yielding a constant): name -> (type, literal)
    fills: dict[str, tuple[TensorType, str]] = field(default_factory=dict)
    fresh: Callable[[str], str] = lambda base: base
    parse_type: Callable[[str, Loc], TensorType] | None = None

    def tensor(self, value: str, loc: Loc) -> tuple[str, TensorType]:
        if value not in self.names:
            raise error(loc, f"{value} is not a tensor this function defines or receives")
        return self.names[value], self.types[value]


def fmt_text(t: TensorType) -> str:
    """The ``-f`` spelling of a tensor type's format (``ds``, ``ss:1,0``), '' for scalars."""
    if t.rank == 0:
        return ""
    f = t.format_or_dense()
    letters = "".join(f.levels)
    if list(f.mode_order) == list(range(t.rank)):
        return letters
    return f"{letters}:{','.join(map(str, f.mode_order))}"


def access(name: str, idx: list[str]) -> str:
    return f"{name}({','.join(idx)})" if idx else name


# ------------------------------------------------------------------------------ generic ops
def _maps(op: Op, text: str | None, env: Env) -> list[tuple[list[str], list[str]]]:
    """The indexing maps as (dimension names, result names)."""
    if text is None:
        raise error(op.loc, f"{op.name} without indexing_maps")
    out = []
    for m in re.finditer(r"affine_map<\s*\(([^)]*)\)\s*->\s*\(([^)]*)\)\s*>", text):
        dims = [d.strip() for d in m.group(1).split(",") if d.strip()]
        res = [r.strip() for r in m.group(2).split(",") if r.strip()]
        for r in res:
            if r not in dims:
                raise error(op.loc, f"{op.name}: indexing map result '{r}' is not a plain "
                                    "dimension (affine index expressions such as convolution "
                                    "windows have no SAM level scan)")
        out.append((dims, res))
    if not out:
        raise error(op.loc, f"{op.name}: cannot read indexing_maps '{text}'")
    return out


def _names(dims: list[str]) -> dict[str, str]:
    """Index variable name of each map dimension."""
    if all(re.fullmatch(r"d[0-9]+", d) for d in dims) or len(set(dims)) != len(dims):
        return {d: LETTERS[k] for k, d in enumerate(dims)}
    return {d: d for d in dims}


def lower_generic(op: Op, env: Env, module_resolve: Callable[[str], str]) -> list[Statement]:
    """A ``linalg.generic``'s statement(s) (see module docstring)."""
    trait = next((t for t in op.tokens if t.kind in ("hash", "dict")), None)
    text = module_resolve(trait.text) if trait is not None else ""
    entries = dict_entries(text) if text.startswith("{") else {}
    maps = _maps(op, entries.get("indexing_maps"), env)
    ins, _ = op.group("ins")
    outs, _ = op.group("outs")
    if len(outs) != 1 or len(op.results) > 1:
        raise error(op.loc, f"{op.name} with {len(outs)} outputs: one output per op is lowered")
    if len(maps) != len(ins) + 1:
        raise error(op.loc, f"{op.name}: {len(maps)} indexing maps for {len(ins) + 1} operands")
    iters = re.findall(r"parallel|reduction|window", entries.get("iterator_types", ""))
    if "window" in iters:
        raise error(op.loc, f"{op.name}: window iterators are not lowered")
    dims = maps[0][0]
    names = _names(dims)
    idx = [[names[r] for r in res] for _, res in maps]
    if not op.regions:
        raise error(op.loc, f"{op.name} without a region")
    block = op.regions[0].blocks[0]
    if len(block.args) != len(ins) + 1:
        raise error(block.loc, f"{op.name}: the region takes {len(block.args)} arguments for "
                               f"{len(ins) + 1} operands")
    operands = [env.tensor(v, op.loc) for v in ins]
    out_value = outs[0]
    result_type = _result_type(op, env, out_value)
    target, reads_init, init_name = _target(op, env, out_value)
    leaves = {a: (access(n, i), t)
              for (a, _), (n, t), i in zip(block.args, operands, idx, strict=False)}
    out_arg = block.args[-1][0]
    reduced = [names[d] for d, it in zip(dims, iters, strict=False) if it == "reduction"]
    init_text = env.fills[init_name][1] if init_name in env.fills else \
        access(init_name, idx[-1])
    expr = _Region(op, env, leaves, out_arg, init_text)
    body, unary = expr.lower(block.ops)
    if expr.used_out and not expr.accumulates and reduced:
        raise error(op.loc, f"{op.name}: a reduction that does not add into its output "
                            "(only sums are lowered)")
    if reduced and not expr.used_out and not expr.custom_reduce:
        raise error(op.loc, f"{op.name}: reduction dimensions but the region does not "
                            "accumulate into the output (only sums are lowered)")
    statements = expr.extra
    reads = expr.used_out and init_name not in env.zeros and init_name not in env.fills
    if expr.used_out and init_name in env.zeros:
        body = expr.without_init or body
    text = f"{access(target, idx[-1])} = {body}"
    formats = {target: fmt_text(result_type)}
    for (n, t) in operands:
        formats[n] = fmt_text(t)
    if reads:
        formats[init_name] = fmt_text(env.types[out_value])
    order = loop_order([names[d] for d in dims], text, formats)
    statements.append(Statement(target, text, formats, op.loc, tuple(unary), order,
                                reads and reads_init))
    _bind_result(op, env, target, result_type)
    return statements


def loop_order(dims: list[str], text: str, formats: Mapping[str, str]) -> list[str] | None:
    """The iteration space's dimension order as the loop order, when it differs from Custard's
    default order and every tensor can be read in it (its levels' variables in loop order),
    as the sparsifier keeps a generic's order when the encodings admit it; else None (the
    default order)."""
    from custard.api import default_order, stored_before
    from formats.format import Format
    from sam.notation.parse import parse_expression

    assign = parse_expression(text)
    fmts = {n: Format.parse(f) for n, f in formats.items() if f}
    used = set(assign.lhs.indices) | {v for a in assign.rhs.accesses() for v in a.indices}
    order = [d for d in dims if d in used]
    if order == default_order(assign, fmts):
        return None
    before = stored_before(assign, fmts)
    placed: set[str] = set()
    for v in order:
        if not before.get(v, set()) <= placed:
            return None
        placed.add(v)
    return order


def _result_type(op: Op, env: Env, out_value: str) -> TensorType:
    arrow = op.after("->")
    if arrow and env.parse_type is not None:
        return env.parse_type(arrow[0].text, op.loc)
    return env.types[out_value]


def _target(op: Op, env: Env, out_value: str) -> tuple[str, bool, str]:
    """The output tensor's name, whether it is written in place, and the name its initial
    value is read by. Tensors are values: an op with a result writes a new tensor named after
    the result (``%0`` -> ``t0``), its ``outs`` only giving the initial value; an op without
    results (on memrefs) writes its ``outs`` in place."""
    name, _ = env.tensor(out_value, op.loc)
    if not op.results:
        return name, True, name
    return env.fresh(op.results[0][1:]), False, name


def _bind_result(op: Op, env: Env, target: str, rtype: TensorType) -> None:
    if op.results:
        env.names[op.results[0]] = target
        env.types[op.results[0]] = rtype


class _Region:
    """The scalar expression of a linalg region, as index notation text."""

    def __init__(self, op: Op, env: Env, leaves: Mapping[str, tuple[str, TensorType]],
                 out_arg: str, out_access: str) -> None:
        self.op, self.env = op, env
        self.values: dict[str, tuple[str, str]] = {}  # ssa -> (text, precedence)
        self.sparse: dict[str, bool] = {}
        for arg, (text, t) in leaves.items():
            self.values[arg] = (text, "atom")
            self.sparse[arg] = t.sparse
        self.out_arg, self.out_access = out_arg, out_access
        self.values[out_arg] = (out_access, "atom")
        self.sparse[out_arg] = False
        self.used_out = False
        self.accumulates = False
        self.custom_reduce = False
        self.without_init: str | None = None
        self.extra: list[Statement] = []

    def get(self, value: str, loc: Loc) -> tuple[str, str]:
        if value in self.values:
            if value == self.out_arg:
                self.used_out = True
            return self.values[value]
        if value in self.env.constants:
            return self.env.constants[value], "atom"
        raise error(loc, f"{self.op.name}: the region uses {value}, which is neither a block "
                         "argument nor a constant")

    def lower(self, ops: list[Op]) -> tuple[str, list[str]]:
        """The yielded expression and the unary post-ops applied to all of it."""
        post: dict[str, tuple[str, list[str]]] = {}
        for op in ops:
            if op.name in ("linalg.yield", "sparse_tensor.yield"):
                value = op.values()[0]
                if value in post:
                    inner, funcs = post[value]
                    return inner, funcs
                return self.get(value, op.loc)[0], []
            if not op.results:
                raise error(op.loc, f"{op.name} in a linalg region is not lowered")
            res = op.results[0]
            args = op.values()
            if op.name == "arith.constant":
                self.values[res] = (constant_text(op), "atom")
                continue
            if op.name in BINARY:
                a, b = (self._operand(v, op.loc, post) for v in args[:2])
                self._note_accumulate(op, args)
                self.values[res] = (f"{_paren(a, BINARY[op.name])} {BINARY[op.name]} "
                                    f"{_paren(b, BINARY[op.name], right=True)}", BINARY[op.name])
                self.sparse[res] = False
                continue
            func, src = UNARY.get(op.name), (args[0] if args else "")
            if func is None and op.name in MAXIMUM:
                func, src = "relu", self._relu(op, args)
            if func is not None:
                inner = post.get(src)
                text = inner[0] if inner else self.get(src, op.loc)[0]
                funcs = (inner[1] if inner else []) + [func]
                self._check_zero(op, func, src)
                post[res] = (text, funcs)
                continue
            if op.name == "sparse_tensor.binary":
                self.values[res] = self._binary(op, post)
                continue
            if op.name == "sparse_tensor.unary":
                text, funcs = self._unary(op)
                if funcs:
                    post[res] = (text, funcs)
                else:
                    self.values[res] = (text, "atom")
                continue
            if op.name == "sparse_tensor.reduce":
                self.values[res] = self._reduce(op, post)
                continue
            raise error(op.loc, f"{op.name} in a linalg region has no SAM ALU (lowered: "
                                "arith add/sub/mul/div/negf, math.exp/absf, maximumf with 0, "
                                "sparse_tensor.binary/unary/reduce)")
        raise error(self.op.loc, f"{self.op.name}: the region does not yield")

    def _operand(self, value: str, loc: Loc, post: dict) -> str:
        if value in post:  # a function of a sub-expression used further: its own statement
            if value not in self.values:
                self.values[value] = (self._spill(value, *post[value], loc), "atom")
            return self.values[value][0]
        return self.get(value, loc)[0]

    def _note_accumulate(self, op: Op, args: list[str]) -> None:
        if self.out_arg in args[:2] and op.name in ("arith.addf", "arith.addi"):
            self.accumulates = True
            other = args[1] if args[0] == self.out_arg else args[0]
            if other in self.values:
                self.without_init = self.values[other][0]

    def _relu(self, op: Op, args: list[str]) -> str:
        """The operand of ``max(x, 0)`` (ReLU)."""
        zero = [a for a in args if self.env.constants.get(a, self.values.get(a, ("",))[0])
                in ("0", "0.0")]
        if len(args) == 2 and zero:
            return args[1] if args[0] == zero[0] else args[0]
        raise error(op.loc, f"{op.name} of two tensors: SAM's max ALU is not lowered from "
                            "regions (ReLU, a maximum with the constant 0, is)")

    def _check_zero(self, op: Op, func: str, src: str) -> None:
        if func in ZERO_PRESERVING:
            return
        if any(self.sparse.get(a) for a in self.values if a == src) or self.sparse.get(src):
            raise error(op.loc, f"{op.name} of a sparse operand: exp(0) = 1, so the sparsifier "
                                "computes it densely; write sparse_tensor.unary with "
                                f"present={{{op.name}}} absent={{}} to map stored entries")

    def _spill(self, res: str, text: str, funcs: list[str], loc: Loc) -> str:
        """A function of part of the expression: its own statement, read by name."""
        m = re.fullmatch(r"([A-Za-z_][A-Za-z0-9_]*)\(([^()]*)\)", text)
        if m is None:
            raise error(loc, f"{self.op.name}: {funcs[-1]} of the compound expression {text} "
                             "inside a region: split it into its own linalg op")
        name = self.env.fresh(f"{m.group(1)}_{funcs[-1]}")
        src = next((v for v, t in self.env.names.items() if t == m.group(1)), None)
        fmt = fmt_text(self.env.types[src]) if src else ""
        idx = m.group(2)
        self.extra.append(Statement(name, f"{name}({idx}) = {text}", {name: fmt, m.group(1): fmt},
                                    loc, tuple(funcs)))
        return f"{name}({idx})"

    def _binary(self, op: Op, post: dict) -> tuple[str, str]:
        a, b = (self._operand(v, op.loc, post) for v in op.values()[:2])
        overlap = op.region("overlap")
        kind = _region_op(overlap)
        left, right = op.attr("left"), op.attr("right")
        lreg, rreg = op.region("left"), op.region("right")
        if kind in ("arith.addf", "arith.addi") and left == "identity" and right == "identity":
            return f"{a} + {b}", "+"
        if kind in ("arith.subf", "arith.subi") and left == "identity" and rreg is not None \
                and _region_op(rreg) in ("arith.negf",):
            return f"{a} - {_paren(b, '-', right=True)}", "-"
        if kind in ("arith.mulf", "arith.muli") and _empty(lreg, left) and _empty(rreg, right):
            return f"{_paren(a, '*')} * {_paren(b, '*', right=True)}", "*"
        raise error(op.loc, f"sparse_tensor.binary with overlap {kind or 'region'}, left "
                            f"{left or 'region'}, right {right or 'region'}: not a union add/sub "
                            "or an intersection product, which are what SAM's merges express")

    def _unary(self, op: Op) -> tuple[str, list[str]]:
        src = op.values()[0]
        text = self.get(src, op.loc)[0]
        absent = op.region("absent")
        if absent is not None and absent.ops:
            raise error(op.loc, "sparse_tensor.unary with a non-empty absent region fills "
                                "entries that are not stored; SAM computes on stored entries")
        present = op.region("present")
        if present is None or op.attr("present") == "identity":
            return text, []
        kinds = [o.name for o in present.ops if o.name != "sparse_tensor.yield"]
        funcs: list[str] = []
        for k in kinds:
            f = UNARY.get(k)
            if f is None:
                raise error(op.loc, f"sparse_tensor.unary present region with {k}: only "
                                    "math.exp, math.absf and arith.negf are lowered")
            funcs.append(f)
        return text, funcs

    def _reduce(self, op: Op, post: dict) -> tuple[str, str]:
        kind = _region_op(op.regions[0] if op.regions else None)
        if kind not in ("arith.addf", "arith.addi"):
            raise error(op.loc, f"sparse_tensor.reduce with {kind or 'an empty region'}: SAM's "
                                "reducer sums (only add reductions are lowered)")
        args = op.values()
        self.custom_reduce = True
        self._note_accumulate(Op("arith.addf", [], [], [], op.loc), args[:2])
        a, b = (self._operand(v, op.loc, post) for v in args[:2])
        return f"{a} + {b}", "+"


def _region_op(region: Region | None) -> str:
    if region is None:
        return ""
    names = [o.name for o in region.ops if o.name not in ("sparse_tensor.yield",)]
    return names[0] if len(names) == 1 else ""


def _empty(region: Region | None, word: str | None) -> bool:
    return (region is not None and not region.ops) or word == "{}"


_PREC = {"+": 1, "-": 1, "*": 2, "/": 2, "atom": 3}


def _paren(text: str, op: str, right: bool = False) -> str:
    """``text`` parenthesised when it is a sum inside a product (or the right of - or /)."""
    outer = _PREC[op]
    if re.fullmatch(r"[A-Za-z_0-9.]+(\([^()]*\))?", text):
        return text
    inner = _top_prec(text)
    if inner < outer or (right and inner == outer and op in "-/"):
        return f"({text})"
    return text


def _top_prec(text: str) -> int:
    depth, lowest = 0, 3
    for k, c in enumerate(text):
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif depth == 0 and c in "+-*/" and k > 0:
            lowest = min(lowest, _PREC[c])
    return lowest


def _hex_float(value: str, types: list[str]) -> float:
    """``0x7F800000 : f32``: a float's bit pattern; an integer type's hex is its value."""
    kind = types[-1] if types else ""
    if kind in ("f32", "f64"):
        size = 4 if kind == "f32" else 8
        return float(struct.unpack(">f" if size == 4 else ">d",
                                   int(value, 16).to_bytes(size, "big"))[0])
    return float(int(value, 16))


def constant_text(op: Op) -> str:
    toks = [t.text for t in op.tokens]
    value = toks[0] if toks else "0"
    if value == "-" and len(toks) > 1:
        value = "-" + toks[1]
    if value in ("true", "false"):
        return "1" if value == "true" else "0"
    try:
        number = _hex_float(value, op.types()) if value.startswith("0x") else float(value)
    except ValueError:
        raise error(op.loc, f"arith.constant {value} is not a scalar number") from None
    if not math.isfinite(number):
        raise error(op.loc, f"arith.constant {value} is not finite (SAM's literals are "
                            "finite numbers; an identity such as +inf for a min-reduction has "
                            "no SAM reducer)")
    if number == int(number) and abs(number) < 1e15:
        return str(int(number))
    return repr(number)


# ------------------------------------------------------------------------------- named ops
#: named op -> index variables of (inputs..., output) and whether it accumulates into outs
NAMED: dict[str, tuple[list[str], bool, str]] = {
    "linalg.matmul": (["i,k", "k,j", "i,j"], True, "*"),
    "linalg.matvec": (["i,j", "j", "i"], True, "*"),
    "linalg.vecmat": (["j", "j,i", "i"], True, "*"),
    "linalg.dot": (["i", "i", ""], True, "*"),
    "linalg.batch_matmul": (["b,i,k", "b,k,j", "b,i,j"], True, "*"),
    "linalg.matmul_transpose_b": (["i,k", "j,k", "i,j"], True, "*"),
    "linalg.matmul_transpose_a": (["k,i", "k,j", "i,j"], True, "*"),
    "linalg.add": (["*", "*", "*"], False, "+"),
    "linalg.sub": (["*", "*", "*"], False, "-"),
    "linalg.mul": (["*", "*", "*"], False, "*"),
    "linalg.div": (["*", "*", "*"], False, "/"),
    "linalg.copy": (["*", "*"], False, ""),
}


def lower_named(op: Op, env: Env) -> list[Statement]:
    """A named linalg op's statement (its generic form, see :data:`NAMED`)."""
    ins, _ = op.group("ins")
    outs, _ = op.group("outs")
    if op.name == "linalg.transpose":
        perm = [int(x) for x in re.findall(r"-?\d+", op.attr("permutation") or "")]
        (name, t) = env.tensor(ins[0], op.loc)
        src = list(LETTERS[:t.rank])
        idx = [",".join(src), ",".join(src[p] for p in perm)]
        return _named(op, env, ins, outs, idx, False, "")
    spec = NAMED.get(op.name)
    if spec is None:
        raise error(op.loc, f"{op.name} is not lowered (lowered: linalg.generic, "
                            f"{', '.join(sorted(NAMED))}, linalg.transpose)")
    idx, acc, sym = spec
    if idx[0] == "*":
        rank = env.tensor(outs[0], op.loc)[1].rank
        idx = [",".join(LETTERS[:rank])] * (len(ins) + 1)
    return _named(op, env, ins, outs, idx, acc, sym)


def _named(op: Op, env: Env, ins: list[str], outs: list[str], idx: list[str], acc: bool,
           sym: str) -> list[Statement]:
    if len(ins) != len(idx) - 1 or len(outs) != 1:
        raise error(op.loc, f"{op.name} takes {len(idx) - 1} inputs and one output")
    operands = [env.tensor(v, op.loc) for v in ins]
    rtype = _result_type(op, env, outs[0])
    target, in_place, init = _target(op, env, outs[0])
    terms = [access(n, i.split(",") if i else []) for (n, _), i in zip(operands, idx, strict=False)]
    body = f" {sym} ".join(terms) if sym else terms[0]
    reads = acc and init not in env.zeros and init not in env.fills
    out_idx = idx[-1].split(",") if idx[-1] else []
    if reads:
        body = f"{access(init, out_idx)} + {body}"
    elif acc and init in env.fills:
        body = f"{env.fills[init][1]} + {body}"
    formats = {target: fmt_text(rtype)}
    for n, t in operands:
        formats[n] = fmt_text(t)
    if reads:
        formats[init] = fmt_text(env.types[outs[0]])
    _bind_result(op, env, target, rtype)
    return [Statement(target, f"{access(target, out_idx)} = {body}", formats, op.loc, (), None,
                      reads and in_place)]
