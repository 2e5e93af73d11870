"""``-s=parallelize(i,n)``: the sub-graph below index variable i replicated over n lanes (SAM
paper Sec. 4.4; docs/lanes.md).

A compiled graph is rewritten, not re-lowered:

* the **lanes** hold every block fed, directly or not, by the streams of i's level (the outputs
  of the blocks whose ``index`` is i: its scanners, merge and repeaters), except the level
  writers, the blocks of i's level and above, the coordinate droppers whose outer level is
  above i, and the reducer summing i;
* each stream of i's level entering the lanes goes through a **parallelizer**; the one on i's
  coordinates deals the elements (``rr`` round robin or ``range`` by coordinate range) and
  sends its order to the others (``mode=order``), so the aligned streams split alike;
* each stream leaving the lanes goes through a **serializer**: the coordinates of i's level
  that leave (after the lanes' droppers) are merged by coordinate (``mode=crd``), which gives
  the order of every other leaving stream (``mode=order``, its depth below i);
* when i is summed by an order-1 vector reducer (Gamma: ``parallelize(k)`` in Gustavson's
  ``i,k,j``), that reducer becomes the n-input vector reducer ``lanereduce`` fed by the lanes.

Errors are :class:`~sam.errors.CompileError` s naming what cannot be parallelized.
"""

from __future__ import annotations

import copy

from sam.blocks.base import Block, make_block
from sam.command.bounds import check_size
from sam.errors import CompileError
from sam.graph.model import Graph

#: Ways of dealing elements to lanes (the parallelizer's ``mode``).
LANE_MODES = ("rr", "range")
#: Families and types whose output streams keep the level of their input.
_PASS_TYPES = ("arrayvals",)

Link = tuple[str, str, str, str]  # src id, src port name, dst id, dst port name


def _links(graph: Graph) -> list[Link]:
    """The graph's streams with broadcast nodes resolved (an output feeding several inputs)."""
    out: list[Link] = []

    def ends(bid: str) -> list[tuple[str, str]]:
        res = []
        for e in graph.outputs_of(bid):
            if graph.blocks[e.dst].dot_type == "broadcast":
                res += ends(e.dst)
            else:
                res.append((e.dst, e.dst_port.name))
        return res

    for e in graph.edges:
        if graph.blocks[e.src].dot_type == "broadcast":
            continue
        if graph.blocks[e.dst].dot_type == "broadcast":
            out += [(e.src, e.src_port.name, d, p) for d, p in ends(e.dst)]
        else:
            out.append((e.src, e.src_port.name, e.dst, e.dst_port.name))
    return out


#: Most lanes ``parallelize(i,N)`` makes (a graph of N copies of the sub-graph below i).
MAX_LANES = 4096
#: Bytes a block of a lane costs, compiled and simulated (graph node, state, start rings;
#: measured about 2 kB and 7.5 kB on parallelize(i,1000) of Gustavson's SpM*SpM).
BYTES_PER_BLOCK = 10_000


class _Lanes:
    def __init__(self, graph: Graph, var: str, lanes: int, mode: str) -> None:
        self.graph = graph
        self.var = var
        self.n = lanes
        self.mode = mode
        order = list(graph.contract.order)
        self.what = f"parallelize({var},{lanes})"
        if var not in order:
            raise CompileError(f"{self.what}: {var} is not an index variable of the graph "
                               f"(loop order {','.join(order)})")
        check_size(self.what, lanes, high=MAX_LANES, why="SAM lanes are copies of the "
                   "sub-graph in hardware, 2 to 64 in accelerators, Sec. 4.4",
                   error=CompileError)
        if mode not in LANE_MODES:
            raise CompileError(f"{self.what}: unknown lane mode {mode!r}; use "
                               f"{' or '.join(LANE_MODES)}")
        self.depth = {v: k for k, v in enumerate(order)}
        self.order = order
        self.p = self.depth[var]
        self.links = _links(graph)
        self.blocks = {b: blk for b, blk in graph.blocks.items() if blk.dot_type != "broadcast"}

    # ---------------------------------------------------------------- classification
    def index_depth(self, blk: Block) -> int | None:
        v = blk.attrs.get("index")
        return self.depth.get(v) if v else None

    def reduced_var(self, blk: Block) -> str | None:
        """The variable a vector reducer sums (the one above its outermost kept variable)."""
        if blk.dot_type != "spaccumulator":
            return None
        kept = [blk.attrs.get(f"in{k}") for k in range(int(blk.attrs.get("order", "1")))]
        if not all(v in self.depth for v in kept):
            return None
        top = min(self.depth[v] for v in kept)
        return self.order[top - 1] if top >= 1 else None

    def fixed_outside(self, blk: Block) -> bool:
        if blk.family == "write":
            return True
        if blk.dot_type == "crddrop":
            return self.depth.get(blk.attrs.get("outer", ""), -1) < self.p
        d = self.index_depth(blk)
        return d is not None and d <= self.p

    def classify(self) -> None:
        at_level = {b for b, blk in self.blocks.items() if self.index_depth(blk) == self.p
                    and blk.dot_type != "crddrop" and blk.family != "write"}
        self.reducer = next((b for b, blk in self.blocks.items()
                             if self.reduced_var(blk) == self.var
                             or (blk.dot_type == "reduce" and self.reduces_var(b))), None)
        inside: set[str] = set()
        frontier = [d for s, _, d, _ in self.links if s in at_level]
        while frontier:
            b = frontier.pop()
            if b in inside or b == self.reducer or self.fixed_outside(self.blocks[b]) or \
                    self.sums_outer(b):
                continue
            inside.add(b)
            frontier += [d for s, _, d, _ in self.links if s == b]
        if not inside:
            raise CompileError(f"{self.what}: nothing below {self.var} to replicate (is "
                               f"{self.var} the innermost loop?)")
        self.inside = inside
        for s, _, d, _ in self.links:
            if d in inside and s not in inside and s not in at_level:
                raise CompileError(
                    f"{self.what}: node {s} ({self.blocks[s].label()}) feeds the lanes from "
                    f"outside {self.var}'s level; parallelize another variable")
        self.at_level = at_level

    def reduces_var(self, b: str) -> bool:
        """A scalar reducer summing the variable (its input is a stream of its level)."""
        try:
            return self.in_depth(b) == self.p
        except CompileError:
            return False

    def sums_outer(self, b: str) -> bool:
        """A reducer summing the variable or one outside it: it stays out of the lanes, fed
        by serializers (the sum runs once, over the joined streams)."""
        blk = self.blocks[b]
        if blk.dot_type == "spaccumulator":
            summed = self.reduced_var(blk)
        elif blk.dot_type == "reduce":
            try:
                summed = self.order[self.in_depth(b)]
            except (CompileError, IndexError):
                return False
        else:
            return False
        return summed is not None and self.depth[summed] <= self.p

    def dropped(self, b: str, port: str) -> bool:
        """Whether a stream in the lanes lacks the elements of the variable's level whose
        sub-tree is empty (after a coordinate dropper or a dropping reducer at that level):
        such streams follow the order of the dropped coordinates, the others the dealt one."""
        blk = self.blocks[b]
        if b not in self.inside:
            return False
        if blk.dot_type == "crddrop" and blk.attrs.get("outer") == self.var:
            return True
        if blk.dot_type in ("spaccumulator", "reduce") and \
                blk.attrs.get("empty", "drop") == "drop" and self.in_depth(b) == self.p + 1:
            return True
        return any(self.dropped(s, sp) for s, sp, d, _ in self.links if d == b)

    # ---------------------------------------------------------------- stream levels
    def in_depth(self, b: str) -> int:
        depths = [self.out_depth(s, sp) for s, sp, d, _ in self.links if d == b]
        return max(depths) if depths else self.p

    def out_depth(self, b: str, port: str) -> int:
        """The loop depth of the level a stream belongs to (its stops close that level)."""
        blk = self.blocks[b]
        if blk.dot_type == "crddrop":
            role = port.partition(":")[2].partition("-")[0]
            inner = blk.attrs.get("inner", "")
            # a value dropper (inner=vals) keeps one value per outer coordinate
            var = blk.attrs["outer"] if role == "outer" or inner not in self.depth else inner
            return self.depth[var]
        if blk.dot_type == "spaccumulator":
            return self.depth[blk.attrs["in0"]] - 1
        if blk.dot_type == "reduce":
            return self.in_depth(b) - 1
        d = self.index_depth(blk)
        if d is not None:
            return d
        if blk.dot_type in _PASS_TYPES or blk.family == "compute":
            return self.in_depth(b)
        raise CompileError(f"{self.what}: node {b} ({blk.label()}) cannot be replicated over "
                           "lanes (its stream level is unknown)")

    # ---------------------------------------------------------------- rewrite
    def rewrite(self) -> Graph:
        self.classify()
        check_size(self.what, self.n, bytes_each=BYTES_PER_BLOCK * len(self.inside),
                   what=f"a graph of {self.n:,} copies of {len(self.inside)} blocks",
                   error=CompileError)
        g = Graph(formats=dict(self.graph.formats), contract=self.graph.contract.copy(),
                  name=self.graph.name, dot_id=self.graph.dot_id)
        g.notices = list(self.graph.notices)
        self.g = g
        self.new_links: list[Link] = []
        self.next = 0
        ids: dict[str, str] = {}
        lane_ids: list[dict[str, str]] = [{} for _ in range(self.n)]
        for b, blk in self.blocks.items():
            if b == self.reducer and self.is_vector_reduction():
                continue
            if b in self.inside:
                for lane in range(self.n):
                    lane_ids[lane][b] = self.copy(blk, lane)
            else:
                ids[b] = self.copy(blk, None)
        entering = [ln for ln in self.links if ln[2] in self.inside and ln[0] not in self.inside]
        leaving = [ln for ln in self.links if ln[0] in self.inside and ln[2] not in self.inside]
        for s, sp, d, dp in self.links:
            if s not in self.inside and d not in self.inside and d in ids and s in ids:
                self.new_links.append((ids[s], sp, ids[d], dp))
            elif s in self.inside and d in self.inside:
                for lane in range(self.n):
                    self.new_links.append((lane_ids[lane][s], sp, lane_ids[lane][d], dp))
        self.split(entering, ids, lane_ids)
        self.join(leaving, ids, lane_ids)
        self.finish()
        g.attrs["lanes"] = f"{self.var}:{self.n}:{self.mode}"
        return g

    def is_vector_reduction(self) -> bool:
        return self.reducer is not None and self.blocks[self.reducer].attrs.get("order") == "1"

    def copy(self, blk: Block, lane: int | None) -> str:
        new = copy.deepcopy(blk)
        new.id = str(self.next)
        self.next += 1
        if lane is not None:
            new.attrs["lane"] = str(lane)
        self.g.add(new)
        return new.id

    def add(self, dot_type: str, **attrs: object) -> str:
        blk = make_block(str(self.next), dot_type, {k: str(v) for k, v in attrs.items()})
        self.next += 1
        self.g.add(blk)
        return blk.id

    def key_source(self) -> tuple[str, str]:
        """The stream of i's coordinates: the merge of i, else a scanner of i."""
        for dot_type in ("intersect", "union", "fiberlookup", "repeat"):
            for b in self.at_level:
                blk = self.blocks[b]
                if blk.dot_type == dot_type and any(p.name == "crd" for p in blk.outputs()):
                    return b, "crd"
        raise CompileError(f"{self.what}: no coordinate stream of {self.var} to deal from")

    def split(self, entering: list[Link], ids, lane_ids) -> None:
        ks, kp = self.key_source()
        attrs: dict[str, object] = {"lanes": self.n, "mode": self.mode, "kind": "crd",
                                    "depth": 0, "index": self.var}
        if self.mode == "range":
            scan = next((self.blocks[b] for b in self.at_level
                         if self.blocks[b].dot_type == "fiberlookup"), None)
            if scan is None:
                raise CompileError(f"{self.what}: range lanes need a scanner of {self.var} to "
                                   "size the range")
            attrs.update(tensor=scan.tensor, dim=scan.attrs["mode"])
        key = self.add("parallelize", **attrs)
        self.new_links.append((ids[ks], kp, key, "crd:in"))
        self.order_src = (key, "crd:order")
        by_port: dict[tuple[str, str], str] = {(ks, kp): key}
        for s, sp, d, dp in entering:
            kind = sp.split(":")[0]
            if (s, sp) not in by_port:
                if kind not in ("crd", "ref", "val"):
                    raise CompileError(f"{self.what}: a {kind} stream enters the lanes")
                p = self.add("parallelize", lanes=self.n, mode="order", kind=kind, depth=0,
                             index=self.var)
                self.new_links.append((ids[s], sp, p, f"{kind}:in"))
                self.new_links.append((key, "crd:order", p, "crd:order"))
                by_port[(s, sp)] = p
            p = by_port[(s, sp)]
            for lane in range(self.n):
                self.new_links.append((p, f"{kind}:lane{lane}", lane_ids[lane][d], dp))

    def join(self, leaving: list[Link], ids, lane_ids) -> None:
        groups: dict[tuple[str, str], list[tuple[str, str]]] = {}
        for s, sp, d, dp in leaving:
            groups.setdefault((s, sp), []).append((d, dp))
        order = self.order_src
        dropped_order = None
        # The dropped coordinates of i's level leaving the lanes give the order of the
        # streams aligned with them.
        serial: dict[tuple[str, str], tuple[str, str]] = {}
        for (s, sp), dsts in groups.items():
            if sp.split(":")[0] == "crd" and self.out_depth(s, sp) == self.p and \
                    self.dropped(s, sp) and all(d != self.reducer for d, _ in dsts):
                m = self.add("serialize", lanes=self.n, mode="crd", kind="crd", depth=0,
                             index=self.var)
                for lane in range(self.n):
                    self.new_links.append((lane_ids[lane][s], sp, m, f"crd:lane{lane}"))
                serial[(s, sp)] = (m, "crd:out")
                dropped_order = (m, "crd:order")
                break
        reduce_id = None
        for (s, sp), dsts in groups.items():
            kind = sp.split(":")[0]
            to_reducer = [(d, dp) for d, dp in dsts if d == self.reducer]
            if to_reducer and self.is_vector_reduction():
                # Gamma's merger: the lanes' partial rows summed by the n-input reducer.
                if reduce_id is None:
                    reduce_id = self.add("lanereduce", lanes=self.n, index=self.var)
                for d, dp in to_reducer:
                    if dp == "val" or dp == f"crd:{self.blocks[d].attrs['in0']}":
                        for lane in range(self.n):
                            self.new_links.append((lane_ids[lane][s], sp, reduce_id,
                                                   f"{kind}:in{lane}"))
                dsts = [x for x in dsts if x not in to_reducer]
                if not dsts:
                    continue
            if (s, sp) not in serial:
                if kind not in ("crd", "ref", "val"):
                    raise CompileError(f"{self.what}: a {kind} stream leaves the lanes")
                depth = self.out_depth(s, sp) - self.p
                if depth < 0:
                    raise CompileError(f"{self.what}: a stream of a level above {self.var} "
                                       "leaves the lanes")
                src = order
                if self.dropped(s, sp):
                    if dropped_order is None:
                        raise CompileError(f"{self.what}: a stream leaves the lanes without "
                                           f"the empty elements of {self.var}, but no "
                                           f"coordinates of {self.var} do")
                    src = dropped_order
                m = self.add("serialize", lanes=self.n, mode="order", kind=kind, depth=depth,
                             index=self.var)
                for lane in range(self.n):
                    self.new_links.append((lane_ids[lane][s], sp, m, f"{kind}:lane{lane}"))
                self.new_links.append((src[0], src[1], m, "crd:order"))
                serial[(s, sp)] = (m, f"{kind}:out")
            src = serial[(s, sp)]
            for d, dp in dsts:
                self.new_links.append((src[0], src[1], ids[d], dp))
        if reduce_id is not None:
            for s, sp, d, dp in self.links:
                if s == self.reducer:
                    port = "val" if sp == "val" else "crd:out"
                    self.new_links.append((reduce_id, port, ids[d], dp))

    def finish(self) -> None:
        """Add the streams, a broadcast node on every output feeding several inputs."""
        consumers: dict[tuple[str, str], list[tuple[str, str]]] = {}
        for s, sp, d, dp in self.new_links:
            consumers.setdefault((s, sp), []).append((d, dp))
        for (s, sp), dsts in consumers.items():
            if len(dsts) == 1:
                self.g.connect(s, sp, dsts[0][0], dsts[0][1])
                continue
            kind = sp.split(":")[0]
            fan = make_block(str(self.next), "broadcast", {})
            self.next += 1
            fan.declare_port("in", kind, "")
            self.g.add(fan)
            self.g.connect(s, sp, fan.id, kind)
            for d, dp in dsts:
                self.g.connect(fan.id, kind, d, dp)


def parallelize(graph: Graph, var: str, lanes: int, mode: str = "rr") -> Graph:
    """``graph`` with the sub-graph below ``var`` replicated over ``lanes`` lanes (module
    docstring); ``mode`` deals the elements of ``var``'s level round robin (``rr``) or by
    coordinate range (``range``)."""
    return _Lanes(graph, var, lanes, mode).rewrite()
