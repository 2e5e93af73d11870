"""Fuse a producer -> consumer edge of a DAG of statements into one SAM graph (GOGETA's
*pipelineable* edge, Sec. 4 and 5 of ../shared/seeds/gogeta-paper.txt).

``fuse_edge("T(i,k)=A(i,j)*B(j,k)", "Y(i,l)=T(i,k)*C(k,l)", "T")`` compiles both statements
(:func:`custard.api.compile`) and joins them: the producer's output streams for ``T`` - one
coordinate stream per level and the value stream, which would have gone to its level writers
(SAM paper Def. 3.8) - feed the consumer where it would have scanned ``T`` (Def. 3.1) and loaded
its values (Def. 3.5). The fused graph has no writer and no scanner of ``T``; ``T`` never
exists in memory.

**How the consumer's reads are replaced** (docs/dag-fusion.md). A level scanner gives
coordinates and references (positions); the array load turns the last level's references into
values.

* Each level's coordinate stream is first put in the form a scan of the stored level would
  have (:mod:`sam.blocks.aligners`: result streams may carry lone stops that the writers settle
  only when the output is assembled).
* The producer's value stream has one value per last-level coordinate, so it travels where the
  last level's references would - through the consumer's intersecters, unioners and repeaters
  (Defs. 3.2-3.4), which move references without reading them - and reaches the consumer's ALUs
  where the array load of ``T`` was. Two ``retype`` nodes (:mod:`sam.blocks.retype`) carry the
  value words into the reference streams (shaped like the last coordinate stream) and out.
* If the consumer reads every fiber of ``T`` (it merges ``T`` with other operands only at
  ``T``'s last level, or locates into them), the aligned streams simply replace the scanners'
  coordinates, and the references of the outer levels, which only drove the next scanner,
  disappear. Otherwise (an intersection above the last level drops whole fibers of ``T``, a
  union adds empty ones) every scanner of ``T`` becomes a stream scanner
  (:mod:`sam.blocks.streamscan`) that reads its level from the stream once, in order, skipping
  the fibers not asked for; the last one emits the values as its references.

**When fusion is legal** (else :class:`~sam.errors.CompileError`, one line with the reason):

* the orders are concordant (GOGETA Sec. 5): the consumer's outermost loops are ``T``'s index
  variables, in the order the producer emits ``T`` (its loop order restricted to them, which
  must be ``T``'s format's mode order); a consumer that visits them in another order reads
  ``T`` *swizzled*, and one whose outer loop is not an index of ``T`` would read ``T`` again
  for each of its coordinates (the stream is read once);
* ``T``'s levels are compressed (a dense level's scanner would emit every coordinate, the
  producer only those it computes), ``T`` has at least one index, is read once by the consumer
  (by level scans and a value load only) and not by the producer, and each statement compiles
  to one graph.

``schedules`` is ``{"producer": [...], "consumer": [...]}``, each a list of ``-s`` commands
(a string is one command); ``formats`` maps tensor names of either statement (``T``'s format
serves both) to format strings as ``-f`` takes them.

**Chains.** :func:`fuse_graphs` is the same join on compiled graphs: its producer may itself
be a fused graph (its output is its last statement's result streams), so ``A -> B -> C`` is
fused one link at a time into one graph; unary post-ops spliced before a value writer
(:mod:`custard.splice`) stay on the stream that feeds the next consumer.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from custard.api import compile as compile_statement
from custard.splice import UNARY_ATTR
from formats.errors import FormatError
from formats.format import Format
from sam.blocks.base import Block
from sam.errors import CompileError
from sam.graph.builder import GraphBuilder
from sam.graph.implicit import CONSTANTS, COPIES, RANGES, implicit_names
from sam.graph.model import Graph
from sam.graph.validate import input_tensors
from sam.notation.expr import Access, Add, Assignment, Mul, Neg, Node, replace
from sam.notation.parse import parse_expression
from sam.program import Program

#: A link between two ports, broadcast nodes resolved: ((block id, port), (block id, port)).
Link = tuple[tuple[str, str], tuple[str, str]]
#: Graph attribute of a fused graph: its statements (two, or a chain's), ``;``-separated.
FUSED_ATTR = "fused"
#: Graph attribute of a fused graph: the streamed intermediate tensor(s), ``,``-separated.
FUSED_TENSOR_ATTR = "fused_tensor"
#: Graph attribute of a fused graph: each statement's loop order, ``;``-separated.
FUSED_ORDERS_ATTR = "fused_orders"
#: Graph attribute of a fused graph: each statement's unary post-ops, ``;``-separated.
FUSED_UNARY_ATTR = "fused_unary"


def fuse_edge(producer: str, consumer: str, tensor: str,
              formats: Mapping[str, str | Format] | None = None,
              schedules: Mapping[str, Sequence[str] | str] | None = None) -> Graph:
    """One SAM graph computing ``consumer`` with ``tensor`` streamed from ``producer`` (see
    module docstring); :class:`~sam.errors.CompileError` when the edge cannot be fused."""
    prod = _parse("producer", producer)
    cons = _parse("consumer", consumer)
    _check_statements(prod, cons, tensor)
    known = {a.name for s in (prod, cons) for a in [s.lhs, *s.rhs.accesses()]}
    stray = next((n for n in formats or {} if n not in known), None)
    if stray is not None:
        raise CompileError(f"format given for {stray}, which is in neither statement (tensors: "
                           f"{', '.join(sorted(known))})")
    fmt = _tensor_format(formats, tensor, len(prod.lhs.indices))
    scheds = _schedules(schedules)
    pgraph = _one_graph("producer", producer, tensor,
                        _compile("producer", producer, prod, formats, scheds["producer"]))
    compiled = _compile("consumer", consumer, cons, formats, scheds["consumer"])
    last = compiled if isinstance(compiled, Graph) else compiled.phases[-1].graph
    _check_orders(prod, cons, tensor, fmt, pgraph, last)
    cgraph = _one_graph("consumer", consumer, tensor, compiled)
    return fuse_graphs(pgraph, producer, cgraph, consumer, tensor, fmt)


def fuse_graphs(pgraph: Graph, producer: str, cgraph: Graph, consumer: str, tensor: str,
                fmt: str | Format | None = None) -> Graph:
    """:func:`fuse_edge` on compiled graphs: one graph computing ``consumer`` (compiled to
    ``cgraph``) with ``tensor`` streamed from ``pgraph``, which computes ``producer``'s
    result - a statement's graph, or a fused graph whose last statement is ``producer``
    (chains). ``fmt`` is ``tensor``'s format (default compressed levels in mode order). The
    graphs may carry unary post-ops (:mod:`custard.splice`); ``cgraph`` may be changed
    (implicit inputs renamed), so pass a copy to keep it. :class:`~sam.errors.CompileError`
    when the edge cannot be fused."""
    prod = _parse("producer", producer)
    cons = _parse("consumer", consumer)
    _check_statements(prod, cons, tensor)
    if FUSED_ATTR in cgraph.attrs:
        raise CompileError(f"cannot fuse {tensor}: the consumer's graph is already fused; fuse "
                           "a chain from its first statement on, one consumer at a time")
    last = pgraph.attrs.get(FUSED_ATTR, "").split(";")[-1]
    if last and last != "".join(producer.split()):
        raise CompileError(f"cannot fuse {tensor}: the producer's graph ends with {last}, not "
                           f"{''.join(producer.split())}; give the chain's last statement")
    if tensor in input_tensors(pgraph):
        raise CompileError(f"cannot fuse {tensor}: the producer's chain also reads {tensor}; "
                           "run it sequentially through memory")
    fmt = _tensor_format({tensor: fmt} if fmt else None, tensor, len(prod.lhs.indices))
    _check_orders(prod, cons, tensor, fmt, pgraph, cgraph)
    return _join(pgraph, cgraph, tensor, fmt, producer, consumer)


def fusion_refusal(producer: str, consumer: str, tensor: str,
                   formats: Mapping[str, str | Format] | None = None,
                   schedules: Mapping[str, Sequence[str] | str] | None = None) -> str | None:
    """Why the edge cannot be fused (the one-line reason :func:`fuse_edge` would raise), or
    None when it can."""
    try:
        fuse_edge(producer, consumer, tensor, formats, schedules)
    except CompileError as err:
        return str(err)
    return None


# ------------------------------------------------------------------ statements and options
def _parse(role: str, text: str) -> Assignment:
    try:
        return parse_expression(text)
    except CompileError as err:
        raise CompileError(f"{role} {text.strip()}: {err}") from None


def _check_statements(prod: Assignment, cons: Assignment, tensor: str) -> None:
    if prod.lhs.name != tensor:
        raise CompileError(f"cannot fuse {tensor}: the producer computes {prod.lhs.name}, not "
                           f"{tensor}; give the statement whose left-hand side is {tensor}")
    if tensor in {a.name for a in prod.rhs.accesses()}:
        raise CompileError(f"cannot fuse {tensor}: the producer also reads {tensor} (an update "
                           "in place); run it sequentially through memory")
    reads = [a for a in cons.rhs.accesses() if a.name == tensor]
    if not reads:
        raise CompileError(f"cannot fuse {tensor}: the consumer {cons.lhs.name} does not read "
                           f"{tensor}")
    if len(reads) > 1:
        raise CompileError(f"cannot fuse {tensor}: the consumer reads it {len(reads)} times; "
                           "one stream feeds one read, run it sequentially through memory")
    if cons.lhs.name == tensor:
        raise CompileError(f"cannot fuse {tensor}: the consumer overwrites {tensor}")
    if not prod.lhs.indices:
        raise CompileError(f"cannot fuse {tensor}: it is a scalar (no index variables); run it "
                           "sequentially through memory")
    if len(reads[0].indices) != len(prod.lhs.indices):
        raise CompileError(f"cannot fuse {tensor}: the producer gives it "
                           f"{len(prod.lhs.indices)} indices, the consumer "
                           f"{len(reads[0].indices)}")


def _tensor_format(formats: Mapping[str, str | Format] | None, tensor: str, order: int
                   ) -> Format:
    given = (formats or {}).get(tensor)
    try:
        fmt = given if isinstance(given, Format) else (
            Format.parse(given) if given else Format.default(order))
    except FormatError as err:
        raise CompileError(f"format of {tensor}: {err}") from None
    if fmt.order != order:
        raise CompileError(f"format {fmt.taco()} of {tensor} has {fmt.order} level(s) but "
                           f"{tensor} has order {order}")
    dense = [k for k, cls in enumerate(fmt.level_types) if cls.full]
    if dense:
        raise CompileError(
            f"cannot fuse {tensor}: its level {dense[0]} ({fmt.taco()}) is dense, whose scan "
            "visits every coordinate while the producer streams only those it computes; give "
            f"{tensor} compressed levels (-f={tensor}:{'s' * order})")
    return fmt


def _schedules(schedules: Mapping[str, Sequence[str] | str] | None
               ) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {"producer": [], "consumer": []}
    if schedules is None:
        return out
    if not isinstance(schedules, Mapping):
        raise CompileError("schedules must map 'producer' and/or 'consumer' to -s commands, "
                           "e.g. {'consumer': ['reorder(n,h,i)']}")
    for key, value in schedules.items():
        if key not in out:
            raise CompileError(f"schedules: unknown statement {key!r}; use 'producer' or "
                               "'consumer'")
        out[key] = [value] if isinstance(value, str) else [str(v) for v in value]
    return out


def _formats_for(assign: Assignment, formats: Mapping[str, str | Format] | None
                 ) -> dict[str, str | Format]:
    names = {assign.lhs.name, *(a.name for a in assign.rhs.accesses())}
    return {n: f for n, f in (formats or {}).items() if n in names}


def _compile(role: str, text: str, assign: Assignment,
             formats: Mapping[str, str | Format] | None, schedule: list[str]) -> Graph | Program:
    try:
        return compile_statement(text, _formats_for(assign, formats), schedule=schedule)
    except CompileError as err:
        raise CompileError(f"{role} {text.strip()}: {err}") from None


def _one_graph(role: str, text: str, tensor: str, result: Graph | Program) -> Graph:
    if not isinstance(result, Graph):
        raise CompileError(f"cannot fuse {tensor}: the {role} {text.strip()} compiles to several "
                           "graphs (a temporary); run it sequentially through memory")
    return result


# ------------------------------------------------------------------ concordance
def loop_order(graph: Graph) -> list[str]:
    """The loop order a compiled graph records (its ``order`` attribute); for a fused graph,
    its last statement's (the one whose result it writes)."""
    fused = graph.attrs.get(FUSED_ORDERS_ATTR)
    if fused:
        return [v for v in fused.split(";")[-1].split(",") if v]
    return list(graph.contract.order)


def _check_orders(prod: Assignment, cons: Assignment, tensor: str, fmt: Format,
                  pgraph: Graph, cgraph: Graph) -> None:
    """GOGETA Sec. 5's conditions on the loop-order pair (module docstring)."""
    pidx = prod.lhs.indices
    emitted = [pidx.index(v) for v in loop_order(pgraph) if v in pidx]
    if tuple(emitted) != tuple(fmt.mode_order) or tensor in pgraph.contract.output_formats:
        raise CompileError(
            f"cannot fuse {tensor}: the producer emits it in loop order "
            f"{','.join(pidx[m] for m in emitted)} but its format {fmt.taco()} stores "
            f"{','.join(pidx[m] for m in fmt.mode_order)}; give {tensor} a format in the "
            "producer's loop order")
    cidx = next(a for a in cons.rhs.accesses() if a.name == tensor).indices
    corder = loop_order(cgraph)
    visited = [cidx.index(v) for v in corder if v in cidx]
    if visited != emitted:
        first = next(k for k, (a, b) in enumerate(zip(visited, emitted, strict=True)) if a != b)
        raise CompileError(
            f"cannot fuse {tensor}: consumer iterates {cidx[visited[first]]} before "
            f"{cidx[emitted[first]]} (swizzle); run it sequentially through memory")
    stray = next((v for v in corder[: len(cidx)] if v not in cidx), None)
    if stray is not None:
        raise CompileError(
            f"cannot fuse {tensor}: the consumer's loop {stray} (not an index of {tensor}) "
            f"encloses {tensor}'s loops, so {tensor} would be read again for each {stray}; "
            f"put {','.join(cidx[m] for m in emitted)} outermost or run it sequentially "
            "through memory")


# ------------------------------------------------------------------ joining the graphs
def _links(graph: Graph) -> list[Link]:
    """The graph's edges with broadcast nodes resolved (an output may feed several inputs)."""
    feed = {e.dst: (e.src, e.src_port.name) for e in graph.edges
            if graph.blocks[e.dst].dot_type == "broadcast"}

    def source(bid: str, port: str) -> tuple[str, str]:
        while graph.blocks[bid].dot_type == "broadcast":
            bid, port = feed[bid]
        return bid, port

    return [(source(e.src, e.src_port.name), (e.dst, e.dst_port.name)) for e in graph.edges
            if graph.blocks[e.dst].dot_type != "broadcast"]


def _at(block: Block) -> str:
    index = block.attrs.get("index")
    return f"at {index}" if index else f"(node {block.id}, {block.dot_type})"


def _misused(tensor: str, block: Block) -> CompileError:
    return CompileError(
        f"cannot fuse {tensor}: the consumer passes {tensor}'s values (its last references) to "
        f"a {block.dot_type} block {_at(block)}, which a stream cannot feed; run it "
        "sequentially through memory")


def _copy(builder: GraphBuilder, block: Block, attrs: Mapping[str, str]) -> str:
    """Add a block like ``block`` (its ports too: merges learn them) to ``builder``."""
    new = builder.block(block.dot_type, attrs)
    for direction, ports in (("in", block.inputs()), ("out", block.outputs())):
        for port in ports:
            new.declare_port(direction, port.kind, port.comment)
    return new.id


class _Join:
    """The producer's and consumer's blocks and links, rewired (module docstring)."""

    def __init__(self, pgraph: Graph, cgraph: Graph, tensor: str, fmt: Format) -> None:
        self.p, self.c, self.tensor, self.fmt = pgraph, cgraph, tensor, fmt
        self.plinks, self.clinks = _links(pgraph), _links(cgraph)
        modes = [str(m) for m in fmt.mode_order]
        writers = {b.attrs.get("mode"): bid for bid, b in pgraph.blocks.items()
                   if b.dot_type == "fiberwrite" and b.tensor == tensor}
        if sorted(writers) != sorted([*modes, "vals"]):
            raise CompileError(f"cannot fuse {tensor}: the producer's graph does not write "
                               f"{tensor} level by level ({len(writers)} writers)")
        self.writers = [writers[m] for m in modes]
        self.vals_writer = writers["vals"]
        self.crd_src = [self._feed(self.plinks, w) for w in self.writers]
        self.val_src = self._feed(self.plinks, self.vals_writer)
        scanners: dict[str, str] = {}
        loads: list[str] = []
        for bid, b in cgraph.blocks.items():
            if b.tensor != tensor or b.dot_type == "repeat":
                continue
            if b.dot_type == "fiberlookup" and b.attrs.get("mode") not in scanners:
                scanners[b.attrs["mode"]] = bid
            elif b.dot_type == "arrayvals" and not loads:
                loads.append(bid)
            elif b.dot_type in ("fiberlookup", "arrayvals"):
                what = "values" if b.dot_type == "arrayvals" else "level " + _at(b)
                raise CompileError(
                    f"cannot fuse {tensor}: the consumer reads {tensor}'s {what} twice (its "
                    "streams feed two merges); one stream feeds one read, run it sequentially "
                    "through memory")
            else:
                raise CompileError(
                    f"cannot fuse {tensor}: the consumer reads it with a {b.dot_type} block "
                    f"{_at(b)}; only level scans and one value load can take a stream; run it "
                    "sequentially through memory")
        if sorted(scanners) != sorted(modes) or not loads:
            raise CompileError(f"cannot fuse {tensor}: the consumer does not scan every level "
                               f"of {tensor} and load its values")
        self.scanners = [scanners[m] for m in modes]
        if any(getattr(cgraph.blocks[bid], "skipping", False) for bid in self.scanners):
            raise CompileError(f"cannot fuse {tensor}: the consumer's intersecters skip ahead in "
                               f"{tensor}'s levels (-s skip), which a stream cannot do; leave "
                               f"{tensor} out of skip(...) or run it sequentially through memory")
        self.load = loads[0]
        if cgraph.blocks[self.scanners[0]].attrs.get("root") != "true":
            raise CompileError(f"cannot fuse {tensor}: the consumer scans {tensor} under an "
                               "outer loop; run it sequentially through memory")

    @staticmethod
    def _feed(links: list[Link], block: str) -> tuple[str, str]:
        return next(src for src, dst in links if dst[0] == block)

    def _check_value_path(self) -> None:
        """The last level's references may only travel through merges and repeaters to the
        value load of ``T``."""
        todo = [(self.scanners[-1], "ref")]
        while todo:
            src = todo.pop()
            for s, (dst, port) in self.clinks:
                if s != src:
                    continue
                block = self.c.blocks[dst]
                if dst == self.load:
                    continue
                if block.dot_type in ("intersect", "union") and port.startswith("ref:in-"):
                    todo.append((dst, "ref:out-" + port[len("ref:in-"):]))
                elif block.dot_type == "repeat" and port == "ref":
                    todo.append((dst, "ref"))
                else:
                    raise _misused(self.tensor, block)

    def graph(self) -> Graph:
        last = len(self.scanners) - 1
        level = {bid: m for m, bid in enumerate(self.scanners)}
        self._check_value_path()
        b = GraphBuilder()
        ids: dict[tuple[str, str], str] = {}
        dropped_p = {*self.writers, self.vals_writer}
        for bid, block in self.p.blocks.items():
            if bid not in dropped_p and block.dot_type != "broadcast":
                ids["p", bid] = _copy(b, block, block.attrs)
        for bid, block in self.c.blocks.items():
            if bid in level or bid == self.load or block.dot_type == "broadcast":
                continue
            attrs = dict(block.attrs)
            if block.dot_type == "repeat" and attrs.get("tensor") == self.tensor:
                del attrs["tensor"]  # it repeats the producer's values: nothing is read
                attrs["stream"] = self.tensor
            ids["c", bid] = _copy(b, block, attrs)
        into_ref = b.block("retype", {"from": "val", "to": "ref", "stream": self.tensor})
        into_val = b.block("retype", {"from": "ref", "to": "val", "stream": self.tensor})
        for (s, sp), (d, dp) in self.plinks:
            if d not in dropped_p:
                b.link((ids["p", s], sp), ids["p", d], dp)
        # each level in scanner form, aligned to the (aligned) level above, the root's to the
        # root stream
        crd: list[tuple[str, str]] = []
        for m in range(last + 1):
            index = self.c.blocks[self.scanners[m]].attrs.get("index", "")
            root = {"root": "true"} if m == 0 else {}
            aligner = b.block("fiberalign", {"index": index, **root, "stream": self.tensor})
            if m:
                b.link(crd[-1], aligner, "crd:outer")
            b.link((ids["p", self.crd_src[m][0]], self.crd_src[m][1]), aligner, "crd:inner")
            crd.append((aligner.id, "crd"))
        b.link((ids["p", self.val_src[0]], self.val_src[1]), into_ref, "val")
        b.link(crd[-1], into_ref, "crd")
        if self.streamed():
            self._stream_scanners(b, ids, crd, into_ref.id, into_val.id)
        else:
            self._direct(b, ids, crd, into_ref.id, into_val.id)
        return b.finish()

    def streamed(self) -> bool:
        """Whether the consumer merges ``T`` with other operands above its last level: then
        every level is read by a stream scanner, which skips the fibers not asked for."""
        level = {bid: m for m, bid in enumerate(self.scanners)}
        for (s, sp), (d, _) in self.clinks:
            if d in level and level[d] > 0 and s != self.scanners[level[d] - 1]:
                return True
            if s in level and sp == "ref" and level[s] < len(self.scanners) - 1 \
                    and d != self.scanners[level[s] + 1]:
                return True
        return False

    def _direct(self, b: GraphBuilder, ids: dict[tuple[str, str], str],
                crd: list[tuple[str, str]], into_ref: str, into_val: str) -> None:
        """Every fiber of ``T`` is read: the aligned streams replace the scanners' coordinates,
        the outer references disappear, the values replace the last references."""
        last = len(self.scanners) - 1
        level = {bid: m for m, bid in enumerate(self.scanners)}
        for (s, sp), (d, dp) in self.clinks:
            if d in level:
                continue  # a scanner's reference input (from the scanner above)
            dst = (into_val, "ref") if d == self.load else (ids["c", d], dp)
            if s in level:
                src = crd[level[s]] if sp == "crd" else (into_ref, "ref")
                assert sp == "crd" or level[s] == last
            elif s == self.load:
                src = (into_val, "val")
            else:
                src = (ids["c", s], sp)
            b.link(src, dst[0], dst[1])

    def _stream_scanners(self, b: GraphBuilder, ids: dict[tuple[str, str], str],
                         crd: list[tuple[str, str]], into_ref: str, into_val: str) -> None:
        """Each scanner of ``T`` becomes a stream scanner of the aligned level (the last one
        emitting the values as its references)."""
        last = len(self.scanners) - 1
        for m, bid in enumerate(self.scanners):
            old = self.c.blocks[bid]
            attrs = {k: old.attrs[k] for k in ("index", "root") if k in old.attrs}
            scanner = b.block("fiberstream", {**attrs, "stream": self.tensor})
            if m == last:
                scanner.declare_port("in", "ref", "words")
            ids["c", bid] = scanner.id
            b.link(crd[m], scanner, "crd")
            if m == last:
                b.link((into_ref, "ref"), scanner, "ref:words")
        for (s, sp), (d, dp) in self.clinks:
            dst = (into_val, "ref") if d == self.load else (ids["c", d], dp)
            src = (into_val, "val") if s == self.load else (ids["c", s], sp)
            b.link(src, dst[0], dst[1])


def _rename_implicit(pgraph: Graph, cgraph: Graph) -> None:
    """Give the consumer's implicit inputs (constants, ranges, copies: named by each
    compilation on its own) that the producer uses for something else fresh names."""
    ptensors = set(pgraph.tensors()) | set(implicit_names(pgraph))
    taken = ptensors | set(cgraph.tensors()) | set(implicit_names(cgraph))
    for key in (CONSTANTS, RANGES, COPIES):
        pairs = dict(getattr(cgraph.contract, key))
        mine = getattr(pgraph.contract, key)
        renamed: dict[str, str] = {}
        for name, value in pairs.items():
            if name in ptensors and mine.get(name) != value:
                fresh, k = f"{name}_c", 1
                while fresh in taken:
                    k += 1
                    fresh = f"{name}_c{k}"
                taken.add(fresh)
                renamed[name] = fresh
        if not renamed:
            continue
        for block in cgraph.blocks.values():
            if block.attrs.get("tensor") in renamed:
                block.attrs["tensor"] = renamed[block.attrs["tensor"]]
        cgraph.formats = {renamed.get(n, n): f for n, f in cgraph.formats.items()}
        setattr(cgraph.contract, key, {renamed.get(n, n): v for n, v in pairs.items()})


def _rename_indices(pgraph: Graph, cgraph: Graph, tensor: str, producer: str,
                    consumer: str) -> None:
    """Give the consumer's index variables that name another dimension in the producer's graph
    fresh names in the consumer's blocks (``S(i,j)=M(i,j)*Q(i,k)*K(j,k)`` then
    ``O(i,j)=S(i,k)*V(k,j)``: the consumer's k is the producer's j, its j a new dimension):
    one graph sizes every scan of a variable alike. A variable reading ``tensor`` by the
    producer's name for that mode keeps it."""
    prod, cons = _parse("producer", producer), _parse("consumer", consumer)
    read = next(a for a in cons.rhs.accesses() if a.name == tensor)
    same = {c for c, p in zip(read.indices, prod.lhs.indices, strict=True) if c == p}
    taken = {b.attrs["index"] for b in pgraph.blocks.values() if b.attrs.get("index")}
    variables = {v for a in [cons.lhs, *cons.rhs.accesses()] for v in a.indices}
    renamed: dict[str, str] = {}
    for v in sorted(variables - same):
        if v in taken:
            fresh, k = f"{v}_c", 1
            while fresh in taken | variables:
                k += 1
                fresh = f"{v}_c{k}"
            taken.add(fresh)
            renamed[v] = fresh
    for block in cgraph.blocks.values():
        if block.attrs.get("index") in renamed:
            block.attrs["index"] = renamed[block.attrs["index"]]


def _join(pgraph: Graph, cgraph: Graph, tensor: str, fmt: Format, producer: str,
          consumer: str) -> Graph:
    _rename_implicit(pgraph, cgraph)
    _rename_indices(pgraph, cgraph, tensor, producer, consumer)
    graph = _Join(pgraph, cgraph, tensor, fmt).graph()
    graph.formats = {n: f for n, f in cgraph.formats.items() if n != tensor}
    for name, fmt in pgraph.formats.items():
        if name != tensor and str(graph.formats.get(name, fmt)) != str(fmt):
            raise CompileError(
                f"cannot fuse {tensor}: both statements read {name}, the producer as "
                f"{fmt.taco()}, the consumer as {graph.formats[name].taco()}; one graph reads "
                f"a tensor in one format, so give {name} one format (-f) that both loop orders "
                "follow, or run them sequentially through memory")
        if name != tensor:
            graph.formats.setdefault(name, fmt)
    for key in (CONSTANTS, RANGES, COPIES):
        setattr(graph.contract, key, _merge_pairs(getattr(pgraph.contract, key),
                                                  getattr(cgraph.contract, key), key, tensor))
    graph.contract.output_formats = cgraph.contract.output_formats
    chained = FUSED_ATTR in pgraph.attrs
    whole = pgraph.contract.expression if chained and pgraph.contract.expression else producer
    graph.contract.expression = composed_expression(_parse("producer", whole),
                                                    _parse("consumer", consumer), tensor)
    if chained:  # the statements fused so far
        before = {key: pgraph.attrs[key] for key in (FUSED_ATTR, FUSED_TENSOR_ATTR,
                                                      FUSED_ORDERS_ATTR)}
        before[FUSED_UNARY_ATTR] = pgraph.attrs.get(
            FUSED_UNARY_ATTR, ";" * pgraph.attrs[FUSED_ATTR].count(";"))
    else:
        before = {FUSED_ATTR: "".join(producer.split()), FUSED_TENSOR_ATTR: "",
                  FUSED_ORDERS_ATTR: ",".join(pgraph.contract.order),
                  FUSED_UNARY_ATTR: pgraph.attrs.get(UNARY_ATTR, "")}
    graph.attrs[FUSED_ATTR] = f"{before[FUSED_ATTR]};{''.join(consumer.split())}"
    graph.attrs[FUSED_TENSOR_ATTR] = ",".join(t for t in (before[FUSED_TENSOR_ATTR], tensor) if t)
    graph.attrs[FUSED_ORDERS_ATTR] = f"{before[FUSED_ORDERS_ATTR]};" \
                                     f"{','.join(cgraph.contract.order)}"
    unary = f"{before[FUSED_UNARY_ATTR]};{cgraph.attrs.get(UNARY_ATTR, '')}"
    if unary.strip(";"):
        graph.attrs[FUSED_UNARY_ATTR] = unary
    graph.name = graph.dot_id = cgraph.name
    graph.notices = list(dict.fromkeys(pgraph.notices + cgraph.notices))
    return graph


def _merge_pairs(first: Mapping[str, object], second: Mapping[str, object], key: str,
                 tensor: str) -> dict[str, object]:
    """Two ``name=value`` graph attributes (typed maps of the contracts) as one; a name both
    give differently is refused (the two compilations chose the same name for different
    things)."""
    pairs: dict[str, object] = {}
    for values in (first, second):
        for name, value in values.items():
            if pairs.get(name, value) != value:
                raise CompileError(f"cannot fuse {tensor}: both statements name {name} in their "
                                   f"{key} differently; rename a tensor")
            pairs[name] = value
    return pairs


def composed_expression(prod: Assignment, cons: Assignment, tensor: str) -> str:
    """The consumer with its read of ``tensor`` replaced by the producer's right-hand side
    (its variables renamed: ``tensor``'s to the consumer's, the summed ones to fresh names): one
    statement computing what the fused graph computes (its ``expression`` attribute, which
    ``sam-sim --check`` evaluates)."""
    read = next(a for a in cons.rhs.accesses() if a.name == tensor)
    names = dict(zip(prod.lhs.indices, read.indices, strict=True))
    taken = {v for a in [cons.lhs, *cons.rhs.accesses()] for v in a.indices}
    for v in sorted(prod.rhs.vars() - set(prod.lhs.indices)):
        fresh, k = v, 1
        while fresh in taken:
            k += 1
            fresh = f"{v}{k}"
        names[v] = fresh
        taken.add(fresh)
    rhs = replace(cons.rhs, read, _renamed(prod.rhs, names))
    return "".join(f"{cons.lhs}={rhs}".split())


def _renamed(node: Node, names: Mapping[str, str]) -> Node:
    """``node`` with its index variables renamed by ``names``."""
    if isinstance(node, Access):
        return Access(node.name, tuple(names.get(v, v) for v in node.indices))
    if isinstance(node, Mul):  # a Div too
        return type(node)(_renamed(node.left, names), _renamed(node.right, names))
    if isinstance(node, Add):
        return Add(_renamed(node.left, names), _renamed(node.right, names), node.sub)
    if isinstance(node, Neg):
        return Neg(_renamed(node.child, names))
    return node
