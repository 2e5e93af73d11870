"""Sizes of a program's tensors and index variables, for the intensity and traffic models.

A tensor is described by its shape, its number of stored nonzeros and whether it is stored
compressed. Its footprint in words is GOGETA Sec. 3.2's count: a dense tensor is its number of
elements; a compressed one (CSR) ``2 * nnz + rows`` (values and coordinates, one segment entry
per row). Results of tensor statements are dense (their footprint is their element count).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from custard.dag.program import DagProgram, Statement
from custard.dag.progress import track
from formats.format import Format
from sam.errors import CompileError
from sam.notation.expr import Access, Add, Neg, Node


@dataclass(frozen=True)
class TensorInfo:
    """A tensor's shape, stored nonzeros and storage (compressed or dense)."""

    shape: tuple[int, ...]
    nnz: int
    sparse: bool = False

    @classmethod
    def dense(cls, *shape: int) -> TensorInfo:
        return cls(tuple(shape), math.prod(shape), False)

    @property
    def words(self) -> int:
        """Footprint in words (GOGETA Sec. 3.2)."""
        if not self.sparse:
            return math.prod(self.shape)
        return 2 * self.nnz + (self.shape[0] if self.shape else 0)


def info_of(tensor, fmt: str | None = None) -> TensorInfo:
    """The :class:`TensorInfo` of a :class:`formats.tensor.Tensor` (``fmt``: its program
    format; compressed when a level is not full)."""
    sparse = fmt is not None and not all(t.full for t in Format.parse(fmt).level_types)
    return TensorInfo(tuple(int(s) for s in tensor.shape), int(tensor.nnz), sparse)


def variable_sizes(st: Statement, infos: Mapping[str, TensorInfo]) -> dict[str, int]:
    """Index variable -> size, from the operands' shapes; a clash is an error."""
    sizes: dict[str, int] = {}
    assert st.assignment is not None
    accesses = list(st.assignment.rhs.accesses())
    if st.target in infos:
        accesses.append(st.assignment.lhs)
    for acc in accesses:
        info = infos.get(acc.name)
        if info is None:
            continue
        if len(info.shape) != len(acc.indices):
            raise CompileError(f"line {st.line}: {acc.name} has {len(info.shape)} modes but is "
                               f"read with {len(acc.indices)} index variables")
        for v, n in zip(acc.indices, info.shape, strict=True):
            if sizes.setdefault(v, n) != n:
                raise CompileError(f"line {st.line}: index variable {v} has size {sizes[v]} and "
                                   f"{n} ({acc.name}); the shapes do not agree")
    missing = [v for v in st.variables if v not in sizes]
    if missing:
        raise CompileError(f"line {st.line}: the size of index variable {missing[0]} is unknown "
                           "(no operand of known shape has it)")
    return sizes


def _terms(node: Node) -> list[Node]:
    if isinstance(node, Add):
        return _terms(node.left) + _terms(node.right)
    if isinstance(node, Neg):
        return _terms(node.child)
    return [node]


def multiplications(st: Statement, infos: Mapping[str, TensorInfo],
                    sizes: Mapping[str, int]) -> int:
    """Multiplications of a tensor statement (GOGETA Sec. 3.1-3.2): per product term, its
    iteration space (``nnz`` of a compressed operand times the sizes of the other variables);
    a term of one operand (an addition) has none."""
    assert st.assignment is not None
    total = 0
    for term in _terms(st.assignment.rhs):
        accs: list[Access] = term.accesses()
        if len(accs) < 2:
            continue
        variables = {v for a in accs for v in a.indices}
        sparse = [a for a in accs if infos.get(a.name) is not None and infos[a.name].sparse]
        if sparse:
            a = sparse[0]
            rest = variables - set(a.indices)
            total += infos[a.name].nnz * math.prod(sizes[v] for v in rest)
        else:
            total += math.prod(sizes[v] for v in variables)
    return total


def host_shape(st: Statement, infos: Mapping[str, TensorInfo]) -> tuple[int, ...]:
    """The shape a host step produces, found by evaluating it on random arrays of its inputs'
    shapes (host steps are small)."""
    from custard.dag.host import eval_host

    rng = np.random.default_rng(0)
    arrays = {}
    for name in st.reads:
        if name not in infos:
            raise CompileError(f"line {st.line}: host step reads {name}, whose shape is unknown")
        shape = infos[name].shape
        if math.prod(shape) > 1_000_000:
            raise CompileError(f"line {st.line}: host step reads {name} of shape {shape}; host "
                               "steps are for small dense tensors")
        arrays[name] = rng.random(shape) + (np.eye(*shape) * shape[0] if len(shape) == 2
                                            and shape[0] == shape[1] else 0)
    return tuple(np.shape(eval_host(st, arrays)))


@dataclass
class OpSizes:
    """One statement's sizes: its index variables, multiplications and tensors."""

    variables: dict[str, int]
    mults: int
    reads: dict[str, TensorInfo]
    writes: TensorInfo


def program_sizes(prog: DagProgram, inputs: Mapping[str, TensorInfo]) -> list[OpSizes]:
    """Sizes of every statement, propagating shapes from the program's ``inputs``."""
    have = dict(inputs)
    missing = [n for n in prog.inputs() if n not in have]
    if missing:
        raise CompileError(f"{prog.source}: the program reads {missing[0]} but its shape is not "
                           f"given; bind it, e.g. -t {missing[0]}=...")
    out: list[OpSizes] = []
    host_shapes: dict[tuple, tuple[int, ...]] = {}  # an unrolled program repeats its steps
    for st in track(prog.statements, "sizing", unit="stmt"):
        reads = {n: have[n] for n in st.reads}
        if st.host:
            key = (id(st), *(have[n].shape if n in have else None for n in st.reads))
            if key not in host_shapes:
                host_shapes[key] = host_shape(st, have)
            shape = host_shapes[key]
            info = TensorInfo.dense(*shape)
            out.append(OpSizes({}, 0, reads, info))
        else:
            sizes = variable_sizes(st, have)
            info = TensorInfo.dense(*[sizes[v] for v in st.indices])
            out.append(OpSizes(sizes, multiplications(st, have, sizes), reads, info))
        have[st.target] = info
    return out
