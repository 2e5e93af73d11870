"""The shipped MLIR examples (``custard/mlir/examples/*.mlir``) as workloads: each its file,
kernel function, a seeded input generator and a numpy reference, and a measurement of one run
(cycles and memory traffic, fused or not).

* ``spmm``: ``C = A B``, A sparse CSR, B dense;
* ``sddmm_spmm``: ``S = M .* (Q K^T)`` (M a sparse mask), then ``O = S V``;
* ``gcn``: ``H = relu(A (X W))``, A a sparse adjacency;
* ``bigbird``: ``S = M .* (Q K^T) * scale``, ``E = exp(S)`` on S's stored entries,
  ``R(i) = sum_j E(i,j)``, ``P = E / R``, ``O = P V``, M a BigBird-style block mask
  (:func:`bigbird_mask`).

The references follow MLIR's semantics for sparse operands: a ``sparse_tensor.unary``'s
``present`` function applies to the stored entries only (exp(S) is 0 where M stores nothing).

**Memory traffic** (:func:`memory_words`) is counted from a simulation's statistics, in words,
for the blocks that touch memory: a compressed level scanner reads two segment words per fiber
it opens (data references in) and one coordinate word per coordinate it emits; a dense level
scanner or locator computes coordinates and reads nothing; an array load reads one value word
per data reference; a compressed level writer writes one coordinate word per data coordinate
in and its segment array; a dense level writer writes nothing but the values; a values writer
one word per value in. Stream scanners of a fused graph read a stream, not memory.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from formats.tensor import Tensor

EXAMPLES = Path(__file__).resolve().parent / "examples"
#: BigBird's score scale, the constant of bigbird.mlir: 1/sqrt(d) for d = 64 features
BIGBIRD_SCALE = 0.125


@dataclass(frozen=True)
class BigBirdMask:
    """A BigBird attention pattern (Zaheer et al. 2020) over ``n`` tokens in blocks of
    ``block`` tokens: each block row attends to ``window`` blocks centred on its diagonal
    block, to the first ``global_blocks`` block columns, and to ``random`` other blocks drawn
    per block row (seeded); the first ``global_blocks`` block rows attend to every block."""

    n: int
    block: int
    random: int = 2
    window: int = 3
    global_blocks: int = 1
    seed: int = 0

    def pattern(self) -> np.ndarray:
        """The block pattern, ``nb x nb`` booleans (``nb = n / block``)."""
        if self.n % self.block:
            raise ValueError(f"n={self.n} is not a multiple of block={self.block}")
        nb = self.n // self.block
        rng = np.random.default_rng(self.seed)
        blocks = np.zeros((nb, nb), dtype=bool)
        half = self.window // 2
        for r in range(nb):
            blocks[r, max(0, r - half):min(nb, r + half + 1)] = True
        g = min(self.global_blocks, nb)
        blocks[:g, :] = True
        blocks[:, :g] = True
        for r in range(nb):
            free = np.flatnonzero(~blocks[r])
            if len(free):
                blocks[r, rng.choice(free, size=min(self.random, len(free)),
                                     replace=False)] = True
        return blocks

    def dense(self) -> np.ndarray:
        """The mask as an ``n x n`` matrix of 0 and 1."""
        ones = np.ones((self.block, self.block))
        return np.kron(self.pattern().astype(np.float64), ones)


def bigbird_mask(n: int, block: int, *, random: int = 2, window: int = 3,
                 global_blocks: int = 1, seed: int = 0) -> np.ndarray:
    """The ``n x n`` 0/1 mask of :class:`BigBirdMask`."""
    return BigBirdMask(n, block, random, window, global_blocks, seed).dense()


def _sparse(rng: np.random.Generator, shape: tuple[int, int], density: float) -> np.ndarray:
    a = rng.uniform(-1.0, 1.0, shape)
    return a * (rng.random(shape) < density)


@dataclass(frozen=True)
class Workload:
    """One example: its MLIR file and function, inputs by argument name, numpy reference."""

    name: str
    file: str
    func: str
    what: str
    #: (seed, sizes) -> argument values by SSA name (without %), in call order
    inputs: Callable[..., dict[str, np.ndarray]]
    reference: Callable[..., np.ndarray]
    small: dict[str, object] = field(default_factory=dict)
    large: dict[str, object] = field(default_factory=dict)

    @property
    def path(self) -> Path:
        return EXAMPLES / self.file

    def lowered(self):  # -> custard.mlir.program.Lowered
        from custard.mlir.program import lower_function
        from custard.mlir.syntax import parse_module

        return lower_function(parse_module(self.path.read_text(), str(self.path)), self.func)


# ------------------------------------------------------------------------------ generators
def spmm_inputs(seed: int = 0, m: int = 12, k: int = 10, n: int = 4, density: float = 0.3,
                matrix: str | None = None) -> dict[str, np.ndarray]:
    """A (m x k, ``density``, or a shipped matrix by name) and B (k x n)."""
    rng = np.random.default_rng(seed)
    if matrix is not None:
        import formats.io as fio

        a = fio.load_tensor(matrix, "ds").to_dense()
    else:
        a = _sparse(rng, (m, k), density)
    return {"A": a, "B": rng.uniform(-1.0, 1.0, (a.shape[1], n))}


def spmm_reference(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    return A @ B


def sddmm_inputs(seed: int = 0, n: int = 12, d: int = 4, e: int = 3,
                 density: float = 0.3) -> dict[str, np.ndarray]:
    """M (n x n mask of 1s, ``density``), Q and K (n x d), V (n x e)."""
    rng = np.random.default_rng(seed)
    mask = (rng.random((n, n)) < density).astype(np.float64)
    return {"M": mask, "Q": rng.uniform(-1.0, 1.0, (n, d)),
            "K": rng.uniform(-1.0, 1.0, (n, d)), "V": rng.uniform(-1.0, 1.0, (n, e))}


def sddmm_reference(M: np.ndarray, Q: np.ndarray, K: np.ndarray, V: np.ndarray) -> np.ndarray:
    return (M * (Q @ K.T)) @ V


def gcn_inputs(seed: int = 0, n: int = 12, f: int = 5, h: int = 4, density: float = 0.25,
               matrix: str | None = None) -> dict[str, np.ndarray]:
    """A (n x n adjacency: ``density`` or a shipped matrix's pattern, with self loops,
    row-normalised), X (n x f), W (f x h)."""
    rng = np.random.default_rng(seed)
    if matrix is not None:
        import formats.io as fio

        pattern = fio.load_tensor(matrix, "ds").to_dense() != 0
    else:
        pattern = rng.random((n, n)) < density
    a = (pattern | np.eye(pattern.shape[0], dtype=bool)).astype(np.float64)
    a /= a.sum(axis=1, keepdims=True)
    return {"A": a, "X": rng.uniform(-1.0, 1.0, (a.shape[0], f)),
            "W": rng.uniform(-1.0, 1.0, (f, h))}


def gcn_reference(A: np.ndarray, X: np.ndarray, W: np.ndarray) -> np.ndarray:
    return np.maximum(A @ (X @ W), 0.0)


def bigbird_inputs(seed: int = 0, n: int = 16, block: int = 4, d: int = 4, e: int = 4,
                   random: int = 1, window: int = 3,
                   global_blocks: int = 1) -> dict[str, np.ndarray]:
    """M (:func:`bigbird_mask`, seeded by ``seed``), Q and K (n x d), V (n x e)."""
    rng = np.random.default_rng(seed)
    mask = bigbird_mask(n, block, random=random, window=window, global_blocks=global_blocks,
                        seed=seed)
    return {"M": mask, "Q": rng.uniform(-1.0, 1.0, (n, d)),
            "K": rng.uniform(-1.0, 1.0, (n, d)), "V": rng.uniform(-1.0, 1.0, (n, e))}


def bigbird_reference(M: np.ndarray, Q: np.ndarray, K: np.ndarray,
                      V: np.ndarray) -> np.ndarray:
    """exp on M's stored entries only, softmax without the max subtraction."""
    stored = M != 0
    s = M * (Q @ K.T) * BIGBIRD_SCALE
    e = np.where(stored, np.exp(s), 0.0)
    r = e.sum(axis=1, keepdims=True)
    p = np.divide(e, r, out=np.zeros_like(e), where=r != 0)
    return p @ V


WORKLOADS: dict[str, Workload] = {w.name: w for w in (
    Workload("spmm", "spmm.mlir", "spmm", "C = A B (A CSR)", spmm_inputs, spmm_reference,
             {}, {"matrix": "bcsstk13", "n": 16}),
    Workload("sddmm_spmm", "sddmm_spmm.mlir", "sddmm_spmm", "S = M .* (Q K^T); O = S V",
             sddmm_inputs, sddmm_reference, {},
             {"n": 512, "d": 64, "e": 64, "density": 0.05}),
    Workload("gcn", "gcn.mlir", "gcn", "H = relu(A (X W))", gcn_inputs, gcn_reference, {},
             {"matrix": "pushpull", "f": 16, "h": 16}),
    Workload("bigbird", "bigbird.mlir", "bigbird",
             "O = softmax(M .* (Q K^T) * scale) V, BigBird block mask", bigbird_inputs,
             bigbird_reference, {},
             {"n": 512, "block": 32, "d": 64, "e": 64, "random": 2, "window": 3,
              "global_blocks": 1}),
)}


# ------------------------------------------------------------------------------ measuring
def memory_words(graph, result, written: Mapping[str, Tensor]) -> tuple[int, int]:
    """(words read, words written) by the memory blocks of ``graph`` in one simulation of it
    (a :class:`~sam.sim.stats.SimResult`; see module docstring); ``written`` holds the
    tensors it wrote."""
    crd_out: dict[str, int] = {}
    seen: set[tuple[str, str]] = set()
    for s in result.streams:  # a stream copied to several readers counts once
        if s.kind == "crd" and (s.src, s.src_port) not in seen:
            seen.add((s.src, s.src_port))
            crd_out[s.src] = crd_out.get(s.src, 0) + s.tokens.get("data", 0)
    read = wrote = 0
    for bid, block in graph.blocks.items():
        stats = result.blocks.get(str(bid))
        if stats is None or stats.parts:
            continue
        data_in = stats.tokens_in["data"]
        compressed = block.attrs.get("format", "") != "dense"
        if block.dot_type == "arrayvals":
            read += data_in
        elif block.dot_type == "fiberlookup" and compressed:
            read += 2 * data_in + crd_out.get(str(bid), 0)
        elif block.dot_type == "fiberwrite":
            mode = block.attrs.get("mode", "")
            if mode == "vals":
                wrote += data_in
            elif compressed:
                t = written.get(block.attrs.get("tensor", ""))
                level = t.level_of_mode(int(mode)) if t is not None else None
                wrote += data_in + len(getattr(level, "seg", ()))
    return read, wrote


@dataclass
class Measured:
    """One run of a workload: outputs, cycles, memory words and units."""

    outputs: list[np.ndarray]
    cycles: int
    words_read: int
    words_written: int
    units: list[tuple[str, int]]
    fused: int
    graphs: list = field(default_factory=list, repr=False)

    @property
    def words(self) -> int:
        return self.words_read + self.words_written


def measure(work: Workload, values: Mapping[str, np.ndarray], *, fuse: bool = True,
            engine: str = "fast") -> Measured:
    """Compile ``work``'s function (fused or op by op) and simulate it on ``values`` (by
    argument name), counting cycles and memory words per unit."""
    from custard.dag.bind import input_infos
    from custard.dag.labels import build_dag
    from custard.dag.run import compile_dag
    from custard.mlir.program import reference_inputs
    from sam.errors import SimulationError

    low = work.lowered()
    tensors = low.bind(reference_inputs(low, values))
    prog = low.dag_program()
    dag = build_dag(prog, input_infos(prog, tensors))
    units = compile_dag(dag, fuse=fuse)
    have: dict[str, Tensor] = dict(tensors)
    cycles = read = wrote = 0
    per_unit: list[tuple[str, int]] = []
    graphs = []
    for unit in units:
        assert unit.program is not None, "the examples have no host steps"
        result = unit.program.run(have, engine=engine)
        if result.interrupted or any(r.error for r in result.phases):
            raise SimulationError(f"{work.name}: {unit.label(dag)} stopped early")
        for phase, sim in zip(unit.program.phases, result.phases, strict=True):
            r, w = memory_words(phase.graph, sim, result.written)
            read, wrote = read + r, wrote + w
            graphs.append(phase.graph)
        have.update(result.written)
        cycles += result.cycles
        per_unit.append((unit.label(dag), result.cycles))
    outs = [have[n].to_dense() for n, _ in low.outputs]
    return Measured(outs, cycles, read, wrote, per_unit,
                    sum(1 for u in units if u.kind == "fused"), graphs)
