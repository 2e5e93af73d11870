"""Alg. 3's loop-order choice for one statement, without trying every permutation.

Among all orders of the statement's index variables, :func:`best_order` returns the first one,
in the order ``[default] + itertools.permutations(default)`` lists them (lexicographic in the
default order's positions), with the fewest ``(violations, format violations, swizzles)``
(:func:`custard.dag.labels.assign_orders`). Every term of that score is one **clause**: the
outermost loop belongs (or not) to a set, or a set of precedences ``a before b`` holds:

* a pipelined in-edge is violated when the producer's outermost loop is contracted (always),
  when our outermost loop is not a rank of the tensor, or when we read the tensor swizzled:
  its modes, sorted by our loop positions, must come in the order the producer wrote them,
  i.e. precedences between consecutive modes' variables;
* a pipelined out-edge is violated when our outermost loop is contracted;
* a format violation is one stored-before pair ``p before v`` out of order;
* a swizzle is an unpipelined in-edge read swizzled (precedences as above).

For each outermost loop the rest is: keep the precedence clauses whose union has no cycle,
dropping the cheapest set (costs compared as (V, F, S) tuples). When nothing conflicts, the
first order keeping every clause is a greedy topological sort (smallest default position
first), in time linear in the clauses. Conflicts (cycles) are resolved by branch and bound:
branch on the edges of one cycle (drop the clauses inducing that edge), bound by the cost
dropped plus the cheapest clause of each clause-disjoint cycle left. The first optimal order
is the greedy sort of the clauses it satisfies, which the search reaches, so the result is the
exhaustive search's (tests compare the two on random programs). Only conflicting clauses make
the search grow: when more than :data:`BUDGET` kept sets are tried (dozens of independent
conflicts whose resolutions tie), the first best order found is kept and
:attr:`OrderSearch.exhausted` says so.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

#: most kept clause sets tried per statement when clauses conflict
BUDGET = 2_000
V, F, S = 0, 1, 2


@dataclass
class Clause:
    """Precedences that must all hold (else one unit of cost in component ``part``)."""

    part: int
    pairs: tuple[tuple[str, str], ...]


@dataclass
class OrderProblem:
    """One statement's order choice: its default order and the score's clauses.

    ``first_in``: per pipelined in-edge, the ranks the outermost loop must be among, ``None``
    when the edge is violated whatever the order, with the edge's swizzle precedences;
    ``contracted`` and ``streamed_out``: the outermost loop being contracted costs
    ``streamed_out`` violations; ``stored``: stored-before pairs; ``swizzles``: precedences of
    each unpipelined in-edge."""

    default: list[str]
    first_in: list[tuple[frozenset[str] | None, tuple[tuple[str, str], ...] | None]] = \
        field(default_factory=list)
    contracted: frozenset[str] = frozenset()
    streamed_out: int = 0
    stored: list[tuple[str, str]] = field(default_factory=list)
    swizzles: list[tuple[tuple[str, str], ...] | None] = field(default_factory=list)

    def score(self, order: Sequence[str]) -> tuple[int, int, int]:
        """(violations, format violations, swizzles) of ``order`` (the exhaustive search's)."""
        pos = {v: k for k, v in enumerate(order)}

        def holds(pairs: tuple[tuple[str, str], ...] | None) -> bool:
            return pairs is not None and all(pos[a] < pos[b] for a, b in pairs)

        first = order[0] if order else None
        viol = sum(1 for ranks, pairs in self.first_in
                   if ranks is None or (first is not None and first not in ranks)
                   or not holds(pairs))
        if first is not None and first in self.contracted:
            viol += self.streamed_out
        fmt = sum(1 for p, v in self.stored if pos[p] > pos[v])
        swz = sum(1 for pairs in self.swizzles if not holds(pairs))
        return viol, fmt, swz


@dataclass
class OrderSearch:
    """The chosen order, its score and whether the conflict search ran out of budget."""

    order: list[str]
    score: tuple[int, int, int]
    exhausted: bool = False
    tried: int = 0


def mode_pairs(required: Sequence[int], access: Sequence[str]
               ) -> tuple[tuple[str, str], ...] | None:
    """Precedences under which the modes of a tensor read with ``access``, sorted (stably) by
    loop position, come in the order ``required``; ``None`` when no order does (a repeated
    variable's modes required out of mode order)."""
    pairs: list[tuple[str, str]] = []
    for a, b in zip(required, required[1:], strict=False):
        if access[a] == access[b]:
            if a > b:
                return None
        elif (access[a], access[b]) not in pairs:
            pairs.append((access[a], access[b]))
    return tuple(pairs)


def best_order(problem: OrderProblem, budget: int = BUDGET) -> OrderSearch:
    """The first order with the lowest score (see module docstring)."""
    default = problem.default
    best = OrderSearch(list(default), problem.score(default))
    if not default or best.score == (0, 0, 0):
        return best  # nothing beats the first order with nothing violated
    rank = {v: k for k, v in enumerate(default)}
    tried = 0
    for c0 in default:
        if best.score == (0, 0, 0):
            break
        base, clauses = _fix_first(problem, c0)
        if tuple(base) >= best.score:
            continue  # the default order, or an earlier outermost loop, wins ties
        found, used, out = _search(problem, rank, c0, base, clauses, best.score,
                                   budget - tried)
        tried += used
        best.exhausted |= out
        for order in found:
            score = problem.score(order)
            if (score, [rank[v] for v in order]) < (best.score, [rank[v] for v in best.order]):
                best = OrderSearch(order, score, best.exhausted)
        if tried >= budget:
            best.exhausted = True
            break
    best.tried = tried
    return best


def _fix_first(problem: OrderProblem, c0: str) -> tuple[list[int], list[Clause]]:
    """Costs decided by putting ``c0`` outermost, and the precedence clauses left."""
    base = [0, 0, 0]
    clauses: list[Clause] = []

    def add(part: int, pairs: Iterable[tuple[str, str]] | None) -> None:
        if pairs is None:
            base[part] += 1
            return
        left = []
        for a, b in pairs:
            if b == c0:  # something must precede the outermost loop
                base[part] += 1
                return
            if a != c0:
                left.append((a, b))
        if left:
            clauses.append(Clause(part, tuple(left)))

    for ranks, pairs in problem.first_in:
        if ranks is None or c0 not in ranks:
            base[V] += 1
        else:
            add(V, pairs)
    if c0 in problem.contracted:
        base[V] += problem.streamed_out
    for p, v in problem.stored:
        add(F, ((p, v),))
    for pairs in problem.swizzles:
        add(S, pairs)
    return base, clauses


def _search(problem: OrderProblem, rank: dict[str, int], c0: str, base: list[int],
            clauses: list[Clause], earlier: tuple[int, int, int], budget: int
            ) -> tuple[list[list[str]], int, bool]:
    """Greedy sorts of the cheapest acyclic kept clause sets below ``earlier`` (the best score
    of an order listed before these, which wins ties), by branch and bound on cycles: (orders,
    kept sets tried, whether the budget ran out). A kept set's bound adds, per clause-disjoint
    cycle left, its cheapest clause."""
    rest = [v for v in problem.default if v != c0]
    found: list[list[str]] = []
    seen: set[frozenset[int]] = set()
    stack: list[frozenset[int]] = [frozenset()]
    bound: tuple[int, ...] | None = None
    tried = 0
    while stack:
        if tried >= budget:
            return found, tried, True
        dropped = stack.pop()
        if dropped in seen:
            continue
        seen.add(dropped)
        cost = list(base)
        for k in dropped:
            cost[clauses[k].part] += 1
        if tuple(cost) >= earlier or (bound is not None and tuple(cost) > bound):
            continue
        tried += 1
        edges: dict[tuple[str, str], list[int]] = {}
        for k, clause in enumerate(clauses):
            if k not in dropped:
                for pair in clause.pairs:
                    edges.setdefault(pair, []).append(k)
        cycles = _disjoint_cycles(rest, edges)
        if not cycles:
            found.append([c0, *_greedy(rest, edges, rank)])
            if bound is None or tuple(cost) < bound:
                bound = tuple(cost)
            continue
        low = list(cost)
        for cycle in cycles:  # each needs one of its clauses dropped, the cheapest at best
            low[max(clauses[k].part for pair in cycle for k in edges[pair])] += 1
        if tuple(low) >= earlier or (bound is not None and tuple(low) > bound):
            continue
        # break the first cycle at one of its edges: drop every kept clause inducing it; the
        # cheapest branches are pushed last (tried first)
        branches = [dropped | frozenset(edges[pair]) for pair in cycles[0]]
        branches.sort(key=lambda d: sorted(clauses[k].part for k in d - dropped), reverse=True)
        stack.extend(b for b in branches if b not in seen)
    return found, tried, False


def _disjoint_cycles(nodes: list[str], edges: dict[tuple[str, str], list[int]]
                     ) -> list[list[tuple[str, str]]]:
    """Cycles of the precedence graph no two of which share a clause (found greedily)."""
    out: list[list[tuple[str, str]]] = []
    left = dict(edges)
    while True:
        cycle = _find_cycle(nodes, left)
        if cycle is None:
            return out
        out.append(cycle)
        gone = {k for pair in cycle for k in left[pair]}
        left = {pair: ks for pair, ks in left.items() if not gone.intersection(ks)}


def _find_cycle(nodes: list[str], edges: dict[tuple[str, str], list[int]]
                ) -> list[tuple[str, str]] | None:
    """The edges of one cycle of the precedence graph, or ``None``."""
    succ: dict[str, list[str]] = {v: [] for v in nodes}
    for a, b in edges:
        succ[a].append(b)
    color = dict.fromkeys(nodes, 0)  # 0 new, 1 on the path, 2 done
    for root in nodes:
        if color[root]:
            continue
        path = [root]
        its = [iter(succ[root])]
        color[root] = 1
        while its:
            nxt = next(its[-1], None)
            if nxt is None:
                color[path.pop()] = 2
                its.pop()
                continue
            if color[nxt] == 1:
                loop = path[path.index(nxt):] + [nxt]
                return list(zip(loop, loop[1:], strict=False))
            if color[nxt] == 0:
                color[nxt] = 1
                path.append(nxt)
                its.append(iter(succ[nxt]))
    return None


def _greedy(nodes: list[str], edges: Iterable[tuple[str, str]], rank: dict[str, int]
            ) -> list[str]:
    """The lexicographically first topological order (smallest default position first)."""
    succ: dict[str, list[str]] = {v: [] for v in nodes}
    indeg = dict.fromkeys(nodes, 0)
    for a, b in edges:
        succ[a].append(b)
        indeg[b] += 1
    heap = [rank[v] for v in nodes if indeg[v] == 0]
    heapq.heapify(heap)
    by_rank = {rank[v]: v for v in nodes}
    out: list[str] = []
    while heap:
        v = by_rank[heapq.heappop(heap)]
        out.append(v)
        for w in succ[v]:
            indeg[w] -= 1
            if indeg[w] == 0:
                heapq.heappush(heap, rank[w])
    return out
