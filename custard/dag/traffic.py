"""Words moved between DRAM and an on-chip SRAM, op-by-op and with inter-operation reuse
(GOGETA Sec. 5.3, 6.1.3).

Four configurations (Table 3), in words (GOGETA counts elements; 4 bytes each in Table 4):

* ``seq_flex`` (op-by-op): every operation reads its operands from DRAM and writes its result
  to DRAM, each once (the best mapping of a single operation); independent of the SRAM;
* ``seq_overflow``: results are written into the SRAM in FIFO order and only the part that does
  not fit goes to DRAM; operands read from DRAM also fill free SRAM space; nothing is evicted
  and nothing is pipelined;
* ``gogeta``: the DAG's labels (:mod:`custard.dag.labels`) decide which reads are streams (a
  pipelineable or hold edge into the next tensor operation: no memory access) and which results
  need storing at all (a result every reader streams, and that the program does not keep, is
  never written); stored tensors fill the SRAM in FIFO order (the head resident, the tail in
  DRAM); when the SRAM is full, the tails of tensors whose next use is furthest away (later
  than the incoming tensor's) are evicted, and evicting words that are only on chip writes them
  to DRAM (Sec. 5.3: "evict out a portion of X to make room for R by evicting the later
  elements of X first");
* ``ideal``: the program's inputs read once and its kept results written once.

A tensor dead after an operation (no later reader, not kept) is dropped from the SRAM without
being written. Since each read costs at most the tensor's words and each result is written at
most once in all, ``ideal <= gogeta <= seq_flex`` and ``seq_overflow <= seq_flex``.
Multicast consumers are charged like any reader (the second read usually hits the SRAM).
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass, field

from custard.dag.labels import HOLD, PIPELINEABLE, Dag, Edge
from custard.dag.progress import track

#: Table 4: bytes per word
BYTES_PER_WORD = 4
MB = 1 << 20


@dataclass
class OpTraffic:
    """One operation's DRAM words: reads of its operands, writes of its result (and of what
    its result evicted)."""

    reads: int = 0
    writes: int = 0

    @property
    def total(self) -> int:
        return self.reads + self.writes


@dataclass
class Traffic:
    """DRAM words of one configuration: per operation and in all (the final write-back of kept
    results is counted in ``final``)."""

    config: str
    ops: list[OpTraffic] = field(default_factory=list)
    final: int = 0

    @property
    def total(self) -> int:
        return sum(o.total for o in self.ops) + self.final


def words_of_mb(mb: float) -> int:
    """SRAM capacity in words (Table 4's 4-byte words)."""
    return int(mb * MB // BYTES_PER_WORD)


def next_statement(dag: Dag, k: int) -> int | None:
    """The first tensor statement after statement ``k`` (host steps are skipped)."""
    return dag.next_tensor_mac(k)


def streamed(dag: Dag, edge: Edge) -> bool:
    """The consumer takes ``edge``'s tensor as a stream: a pipelineable edge into the next
    tensor operation, or a hold edge whose longest path is made of such edges."""
    from custard.dag.labels import longest_path

    if edge.label == PIPELINEABLE:
        return next_statement(dag, edge.src) == edge.dst and not edge.transitive
    if edge.label == HOLD:
        path = longest_path(dag, edge.src, edge.dst)
        return all(next_statement(dag, a) == b for a, b in zip(path, path[1:], strict=False))
    return False


def seq_flex(dag: Dag) -> Traffic:
    """Op-by-op: operands read from DRAM and the result written to DRAM, every operation."""
    out = Traffic("seq_flex")
    for op in dag.sizes:
        out.ops.append(OpTraffic(sum(t.words for t in op.reads.values()), op.writes.words))
    return out


def ideal(dag: Dag) -> Traffic:
    """Inputs read once, kept results written once."""
    prog = dag.program
    out = Traffic("ideal", [OpTraffic() for _ in dag.nodes])
    first_read: dict[str, int] = {}
    for k, st in enumerate(prog.statements):
        for t in st.reads:
            first_read.setdefault(t, k)
    for name in prog.inputs():
        k = first_read[name]
        out.ops[k].reads += dag.sizes[k].reads[name].words
    last_writer: dict[str, int] = {}
    for k, st in enumerate(prog.statements):
        last_writer[st.target] = k
    out.final = sum(dag.sizes[last_writer[n]].writes.words for n in prog.outputs()
                    if n in last_writer)
    return out


@dataclass
class _Version:
    """One value of a tensor (an input, or one statement's result) and its SRAM residency."""

    words: int
    seq: int = 0  #: creation order (ties between eviction victims)
    resident: int = 0
    dirty: int = 0  #: resident words not in DRAM
    uses: list[int] = field(default_factory=list)  #: statements reading it through memory
    kept: bool = False

    def next_use(self, now: int) -> float:
        k = bisect.bisect_right(self.uses, now)  # uses are appended in statement order
        return self.uses[k] if k < len(self.uses) else math.inf


class _Sram:
    """Versions and their residency; the words in use and the resident versions are kept up
    to date, so that no step scans every version of the program."""

    def __init__(self, capacity: int, evict: bool) -> None:
        self.capacity = capacity
        self.evict = evict
        self.versions: dict[tuple[str, int], _Version] = {}
        self.resident: dict[tuple[str, int], _Version] = {}
        self.in_use = 0
        #: statement -> versions not kept whose last read it is (dead after it)
        self.last_use: dict[int, list[tuple[str, int]]] = {}

    def add(self, key: tuple[str, int], version: _Version) -> None:
        version.seq = len(self.versions)
        self.versions[key] = version

    def set_resident(self, key: tuple[str, int], words: int) -> None:
        v = self.versions[key]
        self.in_use += words - v.resident
        v.resident = words
        if words:
            self.resident[key] = v
        else:
            self.resident.pop(key, None)

    def used(self) -> int:
        return self.in_use

    def allocate(self, key: tuple[str, int], want: int, now: int) -> tuple[int, int]:
        """Room for ``want`` more words of ``key``: (words granted, words written to DRAM by
        evicting the tails of tensors used after ``key``'s next use)."""
        me = self.versions[key]
        take = min(want, max(0, self.capacity - self.in_use))
        written = 0
        if take < want and self.evict:
            mine = me.next_use(now)
            victims = sorted(((k, v) for k, v in self.resident.items()
                              if k != key and v.next_use(now) > mine),
                             key=lambda kv: (-kv[1].next_use(now), kv[1].seq))
            for k, v in victims:
                x = min(v.resident, want - take)
                w = min(x, v.dirty)
                v.dirty -= w
                self.set_resident(k, v.resident - x)
                written += w
                take += x
                if take == want:
                    break
        return take, written

    def drop_dead(self, now: int) -> None:
        """Drop, unwritten, the versions not kept whose last read is statement ``now``."""
        for key in self.last_use.pop(now, ()):
            if self.versions[key].resident:
                self.versions[key].dirty = 0
                self.set_resident(key, 0)


def with_sram(dag: Dag, capacity_words: int, *, reuse: bool = True,
              streams: set[tuple[int, int, str]] | None = None) -> Traffic:
    """``gogeta`` (``reuse``) or ``seq_overflow`` (not ``reuse``) traffic for an SRAM of
    ``capacity_words`` (see module docstring). ``streams`` (src, dst, tensor) replaces the
    edges the labels stream, e.g. by those a SAM program actually fused."""
    prog = dag.program
    sram = _Sram(capacity_words, evict=reuse)
    # versions: ("A", -1) an input, ("S", k) the result of statement k
    first_read: dict[str, int] = {}
    for k, st in enumerate(prog.statements):
        for t in st.reads:
            first_read.setdefault(t, k)
    current: dict[str, tuple[str, int]] = {n: (n, -1) for n in prog.inputs()}
    for n in prog.inputs():
        sram.add((n, -1), _Version(dag.sizes[first_read[n]].reads[n].words))
    stream_in: dict[int, set[str]] = {k: set() for k in range(len(dag.nodes))}
    for e in dag.edges:
        on = streamed(dag, e) if streams is None else (e.src, e.dst, e.tensor) in streams
        if reuse and on:
            stream_in[e.dst].add(e.tensor)
    # who reads each version through memory
    writer: dict[str, tuple[str, int]] = dict(current)
    for k, st in enumerate(prog.statements):
        for t in st.reads:
            if t not in stream_in[k]:
                sram.versions[writer[t]].uses.append(k)
        writer[st.target] = (st.target, k)
        sram.add((st.target, k), _Version(dag.sizes[k].writes.words))
    for n in prog.outputs():
        if n in writer:
            sram.versions[writer[n]].kept = True
    for key, v in sram.versions.items():
        if v.uses and not v.kept:
            sram.last_use.setdefault(v.uses[-1], []).append(key)
    out = Traffic("gogeta" if reuse else "seq_overflow")
    for k, st in track(enumerate(prog.statements), f"traffic ({out.config})",
                       total=len(prog.statements), unit="stmt"):
        op = OpTraffic()
        for t in st.reads:
            if t in stream_in[k]:
                continue
            v = sram.versions[current[t]]
            missing = v.words - v.resident
            op.reads += missing
            if missing and v.next_use(k) != math.inf:
                got, written = sram.allocate(current[t], missing, k)
                sram.set_resident(current[t], v.resident + got)
                op.writes += written
        sram.drop_dead(k)
        key = (st.target, k)
        w = sram.versions[key]
        if w.uses or w.kept:
            got, written = sram.allocate(key, w.words, k)
            sram.set_resident(key, got)
            w.dirty = got
            op.writes += written + (w.words - got)
        current[st.target] = key
        out.ops.append(op)
    out.final = sum(v.dirty for v in sram.versions.values() if v.kept)
    return out


def gogeta(dag: Dag, capacity_words: int,
           streams: set[tuple[int, int, str]] | None = None) -> Traffic:
    return with_sram(dag, capacity_words, reuse=True, streams=streams)


def seq_overflow(dag: Dag, capacity_words: int) -> Traffic:
    return with_sram(dag, capacity_words, reuse=False)


def all_configs(dag: Dag, capacity_words: int) -> dict[str, Traffic]:
    """The four configurations of Table 3 (without tiling: GOGETA-df's DRAM traffic, which
    GOGETA-map's tiling leaves unchanged)."""
    return {"seq_flex": seq_flex(dag), "seq_overflow": seq_overflow(dag, capacity_words),
            "gogeta": gogeta(dag, capacity_words), "ideal": ideal(dag)}



@dataclass
class PairNoc:
    """Inter-cluster link traversals (words) of one streamed producer -> consumer pair."""

    src: int
    dst: int
    tensor: str
    df: int  #: GOGETA-df: the streamed tensor crosses between two clusters
    mapped: int  #: GOGETA-map: only the tensors without the split rank cross


def noc_traversals(dag: Dag, clusters: int = 16) -> list[PairNoc]:
    """Sec. 5.2 and 6.2.3, per streamed edge. GOGETA-df gives producer and consumer clusters of
    their own, so the streamed tensor crosses the inter-cluster network once. GOGETA-map splits
    each operation's dominant rank (else its outermost loop) across ``clusters`` clusters and
    pipelines inside each: an operand without the split rank is broadcast and a result without
    it is reduced, each over ``clusters - 1`` links (ops 4 and 5 of CG: ``2 N^2 (clusters-1)``
    against ``M N``). An operand indexed by another rank of the split size (the SpMM's P) is
    counted as local: its exchange depends on the sparsity pattern, which the paper leaves out.
    """
    out: list[PairNoc] = []
    links = clusters - 1
    for e in dag.edges:
        if not streamed(dag, e):
            continue
        mapped = 0
        for k in (e.src, e.dst):
            node = dag.nodes[k]
            st = node.statement
            split = node.dominant_rank or (node.order[0] if node.order else None)
            sizes = dag.sizes[k]
            big = sizes.variables.get(split, 0) if split else 0
            if split not in st.indices:  # a contracted split rank: the result is reduced
                mapped += sizes.writes.words * links
            for t in st.reads:
                idx = st.access(t)
                if split in idx or any(sizes.variables.get(v) == big for v in idx):
                    continue
                if k == e.dst and t == e.tensor:
                    continue
                mapped += sizes.reads[t].words * links
        out.append(PairNoc(e.src, e.dst, e.tensor, dag.sizes[e.src].writes.words, mapped))
    return out
