"""Compile what real users typed on the TACO website (``tests/data/taco-website/success.log``).

Every line is ``DATE: taco "EXPR" -f=... -s=...``; some lines are junk that is not index
notation. For each unique command line this compiles it in-process with Custard and sorts it:

* ``compiled``: a SAM graph came out (with ``--dot``, it also survives DOT text and back);
* ``refused``: a one-line ``ToolkitError`` (the reason is tallied, numbers and names folded);
* ``crashed``: any other exception (a bug), listed in full; ``timeout``: compiling took over
  20 s.

With ``--simulate N`` a seeded sample of N compiled lines is simulated on small random inputs
(every index variable of size 2..6, fewer when there are many, about 40% nonzeros, small nonzero
integers; scalars random): the graph is written with :func:`sam.graph.dot.dumps` and read back
with :func:`~sam.graph.dot.loads`, the graph read back is simulated, and

* its result must equal the gold result (:func:`sam.check.expected`, decided before
  simulating, compared with :func:`sam.check.compare`), and
* its run must equal the in-memory graph's run token for token and cycle for cycle: the cycle
  count, the outputs, each block's tokens in/out and busy/idle/stalled cycles, and the tokens on
  every stream (:func:`measure`);
* on every ``--fast-every``-th sampled line the fast engine runs the graph read back and must
  equal the reference engine the same way.

A simulated line is ``pass`` or one of ``wrong`` (differs from gold), ``dot-differs`` (the run
after DOT differs from the in-memory one), ``engines-differ``, ``error`` (a simulation error,
e.g. a deadlock), ``dot-error`` (the DOT text is not read back), ``uncheckable`` (no gold),
``unstorable`` (the random data does not fit a format the line asks for, e.g. a singleton root
level ``q`` holding one coordinate) or ``timeout``; every line that is not ``pass`` is listed,
and all but ``timeout`` and ``unstorable`` make the script exit 1.

    python scripts/corpus.py                        # all unique lines: counts and reasons
    python scripts/corpus.py --all-lines            # counted over all 24,113 logged lines
    python scripts/corpus.py --limit 500 --simulate 50
    make corpus                                     # all unique lines + a sample of 300
"""

from __future__ import annotations

import argparse
import collections
import random
import re
import shlex
import signal
import sys
import time
import zlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
LOG = ROOT / "tests" / "data" / "taco-website" / "success.log"

#: Index variable sizes and operand density of the simulated inputs.
SIZES = (2, 6)
DENSITY = 0.4
#: Largest iteration space (product of all index variables' sizes) of a simulated line.
BUDGET = 4096
#: Seconds one line may take: compiling, and all the simulations of one sampled line.
COMPILE_SECONDS = 20
SIMULATE_SECONDS = 60


def read_lines(path: Path = LOG) -> list[str]:
    """Every logged command line (after ``taco``), in log order, junk included."""
    out = []
    for line in path.read_text(errors="replace").splitlines():
        _, sep, rest = line.partition(": taco ")
        if sep:
            out.append(rest.strip())
    return out


def unique(lines: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(lines))


def reason_key(message: str) -> str:
    """A refusal message with names, numbers and quoted parts folded, for tallying."""
    msg = re.sub(r"'[^']*'|\"[^\"]*\"", "'…'", message)
    msg = re.sub(r"\b\d+\b", "N", msg)
    msg = re.sub(r"\b[A-Za-z]\w*\([^)]*\)", "T(…)", msg)
    return msg[:140]


class Timeout(Exception):
    pass


def _alarm(signum, frame):  # noqa: ARG001
    raise Timeout


class _Limit:
    """``with _Limit(seconds):`` raises :class:`Timeout` when the body runs longer."""

    def __init__(self, seconds: int) -> None:
        self.seconds = seconds

    def __enter__(self) -> None:
        self.old = signal.signal(signal.SIGALRM, _alarm)
        signal.alarm(self.seconds)

    def __exit__(self, *exc) -> None:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, self.old)


def compile_line(command: str, dot_roundtrip: bool = False, seconds: int = COMPILE_SECONDS):
    """(status, detail, graph): status is compiled, refused, crashed or timeout."""
    from custard.cli import graph_from_command_line
    from formats.errors import ToolkitError

    try:
        with _Limit(seconds):
            graph = graph_from_command_line(command)
            if dot_roundtrip:
                from custard.api import graphs_of
                from sam.graph.dot import dumps_all, loads_all

                graphs = graphs_of(graph)
                back = loads_all(dumps_all(graphs))
                if [b.signature() for b in back] != [g.signature() for g in graphs]:
                    return "crashed", "DOT round trip changes the graph", graph
        return "compiled", "", graph
    except ToolkitError as err:
        return "refused", str(err), None
    except Timeout:
        return "timeout", f"over {seconds} s", None
    except Exception as err:  # noqa: BLE001 - a bug: report it, go on
        return "crashed", f"{type(err).__name__}: {err}", None


def one_line_refusal(detail: str) -> bool:
    """A refusal is one line of text without a traceback."""
    return bool(detail.strip()) and "\n" not in detail and "Traceback" not in detail


# --------------------------------------------------------------------------- simulating
def _seed(command: str, seed: int) -> int:
    return zlib.crc32(command.encode()) ^ (seed * 0x9E3779B1 & 0xFFFFFFFF)


def random_inputs(expression: str, inputs: Iterable[str], rng: random.Random,
                  density: float = DENSITY, sizes: tuple[int, int] = SIZES,
                  budget: int | None = None) -> dict:
    """Random input tensors (by name) for ``expression``: each index variable of a random size
    in ``sizes`` (one size for the modes of a tensor used with several variables; the largest
    shrunk, down to 1, while the iteration space, the product of every variable's size, exceeds
    ``budget`` points, by default :data:`BUDGET`), about
    ``density`` nonzeros of value +-1..3, and scalars a random nonzero integer. A tensor that
    divides (right of ``/``) is full: x/0 is undefined, and where a dense level stores a zero
    the gold result and the simulator disagree today (tests/test_corpus.py, a strict xfail)."""
    from formats.tensor import Tensor
    from sam.notation.expr import Div, children
    from sam.notation.parse import parse_expression

    assign = parse_expression(expression)
    divisors: set[str] = set()

    def visit(node) -> None:
        if isinstance(node, Div):
            divisors.update(a.name for a in node.right.accesses())
        for c in children(node):
            visit(c)

    visit(assign.rhs)
    parent: dict[str, str] = {}

    def find(v: str) -> str:
        parent.setdefault(v, v)
        while parent[v] != v:
            v = parent[v]
        return v

    first = {}
    for acc in assign.rhs.accesses():
        ref = first.setdefault(acc.name, acc)
        for a, b in zip(ref.indices, acc.indices, strict=False):
            parent[find(a)] = find(b)
    variables = sorted({v for acc in assign.rhs.accesses() for v in acc.indices}
                       | set(assign.lhs.indices))
    size = {v: rng.randint(*sizes) for v in variables}
    roots = sorted({find(v) for v in variables})
    while int(np.prod([size[find(v)] for v in variables])) > (budget or BUDGET):
        big = max(roots, key=lambda r: size[r])
        if size[big] == 1:
            break
        size[big] -= 1
    size = {v: size[find(v)] for v in variables}
    nprng = np.random.default_rng(rng.randrange(2**32))
    tensors = {}
    for name in inputs:
        acc = first.get(name)
        idx = acc.indices if acc is not None else ()
        shape = tuple(size[v] for v in idx)
        vals = nprng.integers(1, 4, shape) * nprng.choice([-1, 1], shape)
        fill = 1.0 if name in divisors else density
        dense = np.where(nprng.random(shape) < fill, vals, 0).astype(float) if shape \
            else np.array(float(vals))
        tensors[name] = Tensor.from_dense(dense)
    return tensors


def measure(result) -> dict:
    """A run as comparable values: cycles, outputs (coordinates and values), per block tokens
    in/out and busy/idle/stalled cycles, per stream tokens by kind."""
    outputs = {}
    for name, t in sorted(result.outputs.items()):
        crd, vals = t.to_coo()
        outputs[name] = (tuple(t.shape), np.asarray(crd).tolist(), np.asarray(vals).tolist())
    return {
        "cycles": result.cycles,
        "outputs": outputs,
        "blocks": {bid: (sorted(b.tokens_in.items()), sorted(b.tokens_out.items()), b.busy,
                         b.idle, b.stalled) for bid, b in sorted(result.blocks.items())},
        "streams": sorted((s.src, s.src_port, s.dst, s.dst_port, s.kind,
                           tuple(sorted(s.tokens.items()))) for s in result.streams),
    }


def _digest(measured: Mapping) -> str:
    """A short stable digest of a :func:`measure` value (for ``--record``)."""
    import hashlib
    import json

    text = json.dumps(measured, sort_keys=True, default=str)
    return f"{measured.get('cycles', measured.get('phase_cycles'))}:" + \
        hashlib.sha256(text.encode()).hexdigest()[:16]


def first_difference(a: Mapping, b: Mapping) -> str:
    """Where two :func:`measure` values differ, in a few words."""
    for key in a:
        if a[key] == b.get(key):
            continue
        if isinstance(a[key], dict):
            for k in sorted(set(a[key]) | set(b[key])):
                if a[key].get(k) != b[key].get(k):
                    return f"{key} {k}: {a[key].get(k)} vs {b[key].get(k)}"
        if isinstance(a[key], list):
            extra = [x for x in a[key] if x not in b[key]][:1]
            return f"{key}: {extra} vs {[x for x in b[key] if x not in a[key]][:1]}"
        return f"{key}: {a[key]} vs {b[key]}"
    return "no difference"


@dataclass
class Simulated:
    """One sampled line's simulation: its status and, unless ``pass``, why."""

    command: str
    status: str
    detail: str = ""
    engines: list[str] = field(default_factory=list)
    #: A digest of the run read back from DOT (cycles, outputs, blocks, streams), when simulated.
    digest: str = ""


def simulate_line(command: str, seed: int = 0, fast: bool = False,
                  seconds: int = SIMULATE_SECONDS) -> Simulated:
    """Compile ``command``, write it as DOT text and read it back, simulate both graphs on
    random inputs and check (see module docstring)."""
    from formats.errors import FormatError, ToolkitError
    from sam.check import CheckError, compare, expected
    from sam.graph.dot import dumps, loads
    from sam.graph.implicit import index_sizes
    from sam.graph.validate import input_tensors, output_tensors
    from sam.program import Program
    from sam.sim.engine import simulate

    status, detail, graph = compile_line(command)
    if status != "compiled":
        return Simulated(command, status, detail)
    engines = ["reference"] + (["fast"] if fast else [])
    if isinstance(graph, Program):
        return _simulate_program(command, graph, seed, fast, seconds, engines)
    try:
        back = loads(dumps(graph))
    except ToolkitError as err:
        return Simulated(command, "dot-error", str(err), engines)
    rng = random.Random(_seed(command, seed))
    expression = graph.contract.expression
    tensors = random_inputs(expression, input_tensors(graph), rng)
    (out,) = output_tensors(graph)
    try:
        with _Limit(seconds):
            try:
                gold = expected(expression, tensors, index_sizes(graph), graph.formats)
            except CheckError as err:
                return Simulated(command, "uncheckable", str(err), engines)
            stage = "in-memory graph"
            mine = simulate(graph, tensors, engine="reference")
            stage = "graph read back from DOT"
            read = simulate(back, tensors, engine="reference")
            check = compare(read.outputs[out], gold)
            if not check.passed:
                return Simulated(command, "wrong", check.line(), engines)
            a, b = measure(mine), measure(read)
            if a != b:
                return Simulated(command, "dot-differs", first_difference(a, b), engines)
            if fast:
                stage = "fast engine"
                signal.alarm(0)  # the first fast run may compile the kernels (numba)
                c = measure(simulate(back, tensors, engine="fast"))
                if c != b:
                    return Simulated(command, "engines-differ", first_difference(b, c), engines)
    except Timeout:
        return Simulated(command, "timeout", f"over {seconds} s", engines)
    except FormatError as err:  # the data does not fit a format the line asks for (q, c)
        return Simulated(command, "unstorable", " ".join(str(err).split())[:300], engines)
    except ToolkitError as err:
        msg = " ".join(str(err).split())
        return Simulated(command, "error", f"{stage}: {msg[:300]}", engines)
    return Simulated(command, "pass", "", engines, _digest(b))


def _simulate_program(command: str, program, seed: int, fast: bool, seconds: int,
                      engines: list[str]) -> Simulated:
    """A line compiled to a program of graphs (a workspace, a sum computed first): its graphs
    through DOT text and back, run as a program, against the gold of the line's expression."""
    from custard.api import graphs_of
    from formats.errors import ToolkitError
    from sam.check import CheckError, compare, expected
    from sam.graph.dot import dumps_all, loads_all
    from sam.graph.implicit import index_sizes
    from sam.program import Program

    graphs = graphs_of(program)
    try:
        back = Program(loads_all(dumps_all(graphs)))
    except ToolkitError as err:
        return Simulated(command, "dot-error", str(err), engines)
    expression = shlex.split(command)[0]
    rng = random.Random(_seed(command, seed))
    tensors = random_inputs(expression, program.inputs(), rng)
    (out,) = program.results()
    sizes = {v: n for g in graphs for v, n in index_sizes(g).items()}
    formats = {n: f for g in graphs for n, f in g.formats.items() if n in tensors}
    try:
        with _Limit(seconds):
            try:
                gold = expected(expression, tensors, sizes, formats)
            except CheckError as err:
                return Simulated(command, "uncheckable", str(err), engines)
            mine = program.run(tensors, engine="reference")
            read = back.run(tensors, engine="reference")
            check = compare(read.outputs[out], gold)
            if not check.passed:
                return Simulated(command, "wrong", check.line(), engines)
            if mine.phase_cycles != read.phase_cycles:
                return Simulated(command, "dot-differs", f"phase cycles {mine.phase_cycles} "
                                 f"!= {read.phase_cycles}", engines)
            if fast:
                signal.alarm(0)
                if back.run(tensors, engine="fast").phase_cycles != read.phase_cycles:
                    return Simulated(command, "engines-differ", "phase cycles", engines)
    except Timeout:
        return Simulated(command, "timeout", f"over {seconds} s", engines)
    except ToolkitError as err:
        return Simulated(command, "error", " ".join(str(err).split())[:300], engines)
    return Simulated(command, "pass", "", engines,
                     _digest({"cycles": read.cycles,
                              "phases": [measure(r) for r in read.phases]}))


def sample(compiled: list[str], n: int, seed: int) -> list[str]:
    """A seeded sample of ``n`` lines (all when there are fewer)."""
    return random.Random(seed).sample(compiled, min(n, len(compiled)))


# --------------------------------------------------------------------------- the run
def _progress(items, unit: str):
    try:
        from tqdm import tqdm

        return tqdm(items, unit=unit, disable=not sys.stderr.isatty())
    except ImportError:  # pragma: no cover
        return items


def _percent(tally: collections.Counter, total: int) -> str:
    return ", ".join(f"{k} {v} ({100 * v / max(total, 1):.1f}%)" for k, v in tally.most_common())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=int, help="only the first N unique lines")
    ap.add_argument("--all-lines", action="store_true",
                    help="also count over all logged lines (repeats included)")
    ap.add_argument("--dot", action="store_true",
                    help="also check that each compiled graph survives DOT text and back")
    ap.add_argument("--simulate", type=int, default=0, metavar="N",
                    help="simulate a seeded sample of N compiled lines through DOT text")
    ap.add_argument("--seed", type=int, default=0, help="seed of the sample and its inputs")
    ap.add_argument("--fast-every", type=int, default=4, metavar="K",
                    help="also run the fast engine on every K-th sampled line (0: never)")
    ap.add_argument("--record", type=Path, metavar="FILE",
                    help="write each simulated line's status and run digest (cycles, outputs, "
                         "per-block and per-stream counts) as JSON, to compare two versions")
    ap.add_argument("--reasons", type=int, default=25, help="how many refusal reasons to list")
    ap.add_argument("--crashes", type=int, default=20, help="how many crashes to list")
    args = ap.parse_args(argv)

    lines = read_lines()
    todo = unique(lines)
    if args.limit:
        todo = todo[: args.limit]
    start = time.perf_counter()
    status: dict[str, tuple[str, str]] = {}
    for cmd in _progress(todo, "line"):
        st, detail, _ = compile_line(cmd, args.dot)
        status[cmd] = (st, detail)
    took = time.perf_counter() - start

    tally = collections.Counter(st for st, _ in status.values())
    print(f"{len(status)} unique lines in {took:.1f} s: {_percent(tally, len(status))}")
    if args.all_lines:
        counted = [c for c in lines if c in status]
        all_tally = collections.Counter(status[c][0] for c in counted)
        print(f"{len(counted)} logged lines: {_percent(all_tally, len(counted))}")
    reasons = collections.Counter(reason_key(" ".join(d.split())) for st, d in status.values()
                                  if st == "refused")
    if reasons:
        print("\nrefusal reasons (unique lines):")
        for r, n in reasons.most_common(args.reasons):
            print(f"{n:6d}  {r}")
    multi = [c for c, (st, d) in status.items() if st == "refused" and not one_line_refusal(d)]
    if multi:
        print(f"\nrefusals that are not one line ({len(multi)}):")
        for c in multi[: args.crashes]:
            print(f"  {c}\n      {status[c][1]!r}")
    crashes = [(c, d) for c, (st, d) in status.items() if st in ("crashed", "timeout")]
    if crashes:
        print(f"\ncrashes and time-outs ({len(crashes)}):")
        for c, d in crashes[: args.crashes]:
            print(f"  {c}\n      {d}")

    bad = len(crashes) + len(multi)
    if args.simulate:
        compiled = [c for c, (st, _) in status.items() if st == "compiled"]
        picked = sample(compiled, args.simulate, args.seed)
        start = time.perf_counter()
        results = []
        for k, cmd in enumerate(_progress(picked, "graph")):
            fast = bool(args.fast_every) and k % args.fast_every == 0
            results.append(simulate_line(cmd, args.seed, fast=fast))
        took = time.perf_counter() - start
        sims = collections.Counter(r.status for r in results)
        n_fast = sum("fast" in r.engines for r in results)
        print(f"\nsimulated {len(results)} sampled lines through DOT text in {took:.1f} s "
              f"(fast engine too on {n_fast}): {_percent(sims, len(results))}")
        failed = [r for r in results if r.status != "pass"]
        for r in failed:
            print(f"  {r.status}: {r.command}\n      {r.detail}")
        bad += sum(r.status not in ("pass", "timeout", "unstorable") for r in results)
        if args.record:
            import json

            args.record.write_text(json.dumps(
                {r.command: [r.status, r.digest] for r in results}, indent=1, sort_keys=True))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
