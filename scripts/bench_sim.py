#!/usr/bin/env python3
"""Benchmark the simulator: wall time, token events per second and peak memory, per kernel.

Every case runs in a fresh (cold) Python process, as a user would run ``sam-sim run``: loading
the data, building the graph, simulating, and checking the result against scipy. The numba JIT
cost (compiling the block kernels, or loading them from the on-disk cache) is measured in a
separate warm-up step and reported on its own line.

    python scripts/bench_sim.py             # the issue's targets, all shipped matrices, sweep
    python scripts/bench_sim.py --quick     # a short subset
    python scripts/bench_sim.py --engine reference --quick
    python scripts/bench_sim.py --suite --runs 3   # issue 22: core, features, start-up
    python scripts/bench_sim.py --suite --only TMU # one feature's rows and its core row
    python scripts/bench_sim.py --sizes            # token rate against graph size

Columns: kernel, data, tokens (emitted by all blocks), cycles, wall (whole process: Python
start-up and imports, loading, JIT cache load, simulating, checking), jit (loading this graph's
compiled kernels from the disk cache), sim (simulation alone), token events/s (tokens / sim),
peak RSS.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

KERNELS = {
    "spmspm_ikj": ("X(i,j)=B(i,k)*C(k,j)", None, "ikj"),
    "spmv": ("x(i)=B(i,j)*c(j)", None, None),
    "elemadd": ("X(i,j)=B(i,j)+C(i,j)", None, None),
}

CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
import numpy as np
import custard
from formats.io import load_tensor
from formats.synthetic import random_tensor
from formats.tensor import Tensor
from sam.check import compare, expected
from sam.sim.engine import simulate
kernel, data, engine, seed = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
expr, fmts, order = json.loads(sys.argv[5])
if data.startswith("random:"):
    _, n, density = data.split(":")
    B = random_tensor((int(n), int(n)), float(density), seed)
else:
    B = load_tensor(data)
if kernel == "spmv":
    c = random_tensor((B.shape[1],), 0.5, seed)
    tensors = {"B": B, "c": c}
elif kernel == "elemadd":
    coords, vals = B.to_coo()
    C = Tensor.from_coo(coords[:, ::-1], vals, B.shape[::-1]) if B.shape[0] == B.shape[1] else B
    tensors = {"B": B, "C": C}
else:
    coords, vals = B.to_coo()
    C = B if B.shape[0] == B.shape[1] else Tensor.from_coo(coords[:, ::-1], vals, B.shape[::-1])
    tensors = {"B": B, "C": C}
graph = custard.compile(expr, fmts, order)
t1 = time.perf_counter()
r = simulate(graph, tensors, engine=engine)
t2 = time.perf_counter()
out = next(iter(r.outputs.values()))
ok = compare(out, expected(expr, tensors)).passed
t3 = time.perf_counter()
c0 = time.process_time()
r2 = simulate(graph, tensors, engine=engine)  # again, kernels loaded: CPU time of simulating
cpu = time.process_time() - c0
assert (r2.tokens, r2.cycles) == (r.tokens, r.cycles)
print(json.dumps({"tokens": r.tokens, "cycles": r.cycles, "sim": r.wall_time, "jit": r.jit_time,
                  "load": t1 - t0, "check": t3 - t2, "passed": ok, "cpu": cpu}))
"""

WARMUP = r"""
import time
t0 = time.perf_counter()
import custard
from formats.synthetic import random_tensor
from sam.sim.engine import simulate
B = random_tensor((4, 4), 0.5, 0)
for expr, order in (("X(i,j)=B(i,k)*C(k,j)", "ikj"), ("x(i)=B(i,j)*c(j)", None),
                    ("X(i,j)=B(i,j)+C(i,j)", None)):
    g = custard.compile(expr, None, order)
    t = {"B": B, "C": B, "c": random_tensor((4,), 0.5, 0)}
    simulate(g, {k: v for k, v in t.items() if k in g.formats}, engine="fast")
print(time.perf_counter() - t0)
"""


FLOOR = "import custard, formats.io, sam.check, sam.sim.engine"

# One graph per new feature, simulated in a cold process (--suite): build it, simulate it
# (fast engine), print tokens, cycles and times. The "acyclic core" rows run the same data
# without the feature.
FEATURE = r"""
import json, sys, time
t0 = time.perf_counter()
import numpy as np
import custard
from formats.io import load_tensor
from formats.synthetic import random_tensor
from formats.tensor import Tensor
from sam.sim.engine import simulate
case = sys.argv[1]
rng = np.random.default_rng(0)
fifo = None
if case in ("ttv-fifo2", "ttv-skip-fifo2"):  # bounded FIFOs: blocks ping-pong a token at a time
    B = random_tensor((100, 100, 3000), 300 / (100 * 100 * 3000), 0)
    c = random_tensor((3000,), 0.5, 1)
    graph = custard.compile("X(i,j)=B(i,j,k)*c(k)", schedule="skip()"
                            if case == "ttv-skip-fifo2" else None)
    tensors = {"B": B, "c": c}
    fifo = 2
elif case in ("ttv", "ttv-skip", "ttv-skip-300k"):
    nnz = 300_000 if case == "ttv-skip-300k" else 3000
    B = random_tensor((300, 300, 3000), nnz / (300 * 300 * 3000), 0)
    c = random_tensor((3000,), 0.5, 1)
    graph = custard.compile("X(i,j)=B(i,j,k)*c(k)", schedule=None if case == "ttv"
                            else "skip()")
    tensors = {"B": B, "c": c}
elif case == "tmu-sls":
    from sam.tmu_ops import build_op
    A = load_tensor("bcsstk13", "ds")
    tab = np.round(rng.uniform(-1, 1, (A.shape[1], 32)), 6)
    graph, tensors = build_op("sls", A, Tensor.from_dense(tab, "dd"))
elif case == "tmu-sls-core":
    A = load_tensor("bcsstk13", "ds")
    tab = np.round(rng.uniform(-1, 1, (A.shape[1], 32)), 6)
    graph = custard.compile("X(i,d)=A(i,j)*T(j,d)", {"A": "ds", "T": "dd", "X": "dd"})
    tensors = {"A": A, "T": Tensor.from_dense(tab, "dd")}
elif case.startswith("gustavson-lanes-"):
    B = load_tensor("bcsstk13")
    graph = custard.compile("X(i,j)=B(i,k)*C(k,j)", None, "ikj",
                            schedule=[f"parallelize(i,{case.rsplit('-', 1)[1]})"])
    tensors = {"B": B, "C": B}
elif case.startswith("spmv-lanes-"):
    B = load_tensor("bcsstk13")
    n = int(case.rsplit("-", 1)[1])
    graph = custard.compile("x(i)=B(i,j)*c(j)", schedule=[f"parallelize(i,{n})"] if n > 1
                            else None)
    tensors = {"B": B, "c": Tensor.from_dense(rng.uniform(-1, 1, B.shape[1]), "d")}
elif case in ("elemmul-ds", "elemmul-b64"):
    B = load_tensor("bcsstk13")
    f = "ds" if case == "elemmul-ds" else "db64"
    graph = custard.compile("X(i,j)=B(i,j)*C(i,j)", {"B": f, "C": f, "X": "ds"})
    tensors = {"B": B, "C": B}
elif case == "spmv3":  # SpMV times a second vector: a 3-input intersecter facing B's stops
    B = load_tensor("bcsstk13")
    graph = custard.compile("x(i)=B(i,j)*c(j)*d(j)")
    tensors = {"B": B, "c": Tensor.from_dense(rng.uniform(-1, 1, B.shape[1]), "d"),
               "d": Tensor.from_dense(rng.uniform(-1, 1, B.shape[1]), "d")}
elif case == "elemmul3-ds":  # three operands: one 3-input intersecter per level
    B = load_tensor("bcsstk13")
    graph = custard.compile("X(i,j)=B(i,j)*C(i,j)*D(i,j)",
                            {"B": "ds", "C": "ds", "D": "ds", "X": "ds"})
    tensors = {"B": B, "C": B, "D": B}
elif case in ("elemmul-ragged", "elemmul-dense-rows"):
    from custard.ragged_suite import KERNELS, batch
    lengths = [int(n) for n in rng.integers(0, 512, 2000)]
    A = batch(lengths, rng)
    B = batch(lengths, rng, like=A)
    if case == "elemmul-ragged":
        graph = KERNELS["ragged_elemmul"].compile()
    else:
        A, B = A.with_format("ds"), B.with_format("ds")
        graph = custard.compile("X(b,i)=A(b,i)*B(b,i)", {"A": "ds", "B": "ds", "X": "ds"})
    tensors = {"A": A, "B": B}
else:
    raise SystemExit(f"unknown case {case}")
t1 = time.perf_counter()
r = simulate(graph, tensors, engine="fast", fifo_depth=fifo)
c0 = time.process_time()
r2 = simulate(graph, tensors, engine="fast", fifo_depth=fifo)  # again, kernels loaded
cpu = time.process_time() - c0
assert (r2.tokens, r2.cycles) == (r.tokens, r.cycles)
print(json.dumps({"tokens": r.tokens, "cycles": r.cycles, "sim": r.wall_time, "jit": r.jit_time,
                  "load": t1 - t0, "cpu": cpu}))
"""

# One long simulation of real data, run once in its cold process (--suite "single" rows): a
# small run of the same graph loads its compiled kernels and driver first, so the CPU time
# measured is the simulation's. The operands are bound as the command line binds them
# (``custard compile EXPR --run -t B=splatt-med -t c=random:0.5``, seed 0): the same data.
SINGLE = r"""
import json, sys, time
t0 = time.perf_counter()
import custard
from formats.synthetic import random_tensor
from sam.bind import bind_tensors
from sam.sim.engine import Simulation
case = sys.argv[1]
if case == "ttv-splatt-med":
    graph = custard.compile("X(i,j)=B(i,j,k)*c(k)")
    tensors = bind_tensors(graph, {"B": "splatt-med", "c": "random:0.5"}, seed=0)
    warm = {"B": random_tensor((4, 3, 1000), 0.002, 0), "c": random_tensor((1000,), 0.5, 1)}
else:
    raise SystemExit(f"unknown case {case}")
Simulation(graph, warm, capacity=16).run("fast")  # kernels and driver loaded (not timed)
sim = Simulation(graph, tensors)
t1 = time.perf_counter()
c0 = time.process_time()
r = sim.run("fast")
cpu = time.process_time() - c0
print(json.dumps({"tokens": r.tokens, "cycles": r.cycles, "sim": r.wall_time, "jit": r.jit_time,
                  "load": t1 - t0, "cpu": cpu}))
"""

#: --suite: (label, child kind, arguments); "core" rows use CHILD, "feature" rows FEATURE,
#: "single" rows SINGLE (one long run), "cli" rows time a whole command-line process.
SUITE = [
    ("Gustavson bcsstk13^2", "core", ["spmspm_ikj", "bcsstk13"]),
    ("Gustavson pushpull^2", "core", ["spmspm_ikj", "pushpull"]),
    ("TTV plain (acyclic)", "feature", ["ttv"]),
    ("TTV --skip (feedback)", "feature", ["ttv-skip"]),
    ("TTV --skip 300k nonzeros", "feature", ["ttv-skip-300k"]),
    ("TTV 100^2x3000 --fifo-depth 2", "feature", ["ttv-fifo2"]),
    ("TTV same --skip --fifo-depth 2", "feature", ["ttv-skip-fifo2"]),
    ("TTV splatt-med coiterated", "single", ["ttv-splatt-med"]),
    ("SpMM bcsstk13 x T(dd) dim 32", "feature", ["tmu-sls-core"]),
    ("TMU sls bcsstk13 dim 32", "feature", ["tmu-sls"]),
    ("Gustavson bcsstk13^2 lanes 4", "feature", ["gustavson-lanes-4"]),
    ("Gustavson bcsstk13^2 lanes 16", "feature", ["gustavson-lanes-16"]),
    ("SpMV bcsstk13 (lanes 1)", "feature", ["spmv-lanes-1"]),
    ("SpMV bcsstk13 lanes 4", "feature", ["spmv-lanes-4"]),
    ("SpMV bcsstk13 lanes 16", "feature", ["spmv-lanes-16"]),
    ("SpMV3 bcsstk13 x=B*c*d", "feature", ["spmv3"]),
    ("elemmul bcsstk13 ds", "feature", ["elemmul-ds"]),
    ("elemmul bcsstk13 db64", "feature", ["elemmul-b64"]),
    ("elemmul3 bcsstk13 ds", "feature", ["elemmul3-ds"]),
    ("elemmul 2000 rows ds", "feature", ["elemmul-dense-rows"]),
    ("elemmul 2000 rows dr (ragged)", "feature", ["elemmul-ragged"]),
    ("sam-sim run spmv LFAT5 (642 tok)", "cli",
     ["-m", "sam", "run", "{graph}", "-t", "B=LFAT5", "-t", "c=random:0.5", "--no-progress"]),
    ("custard compile X=B*C (ikj)", "cli",
     ["-m", "custard", "compile", "X(i,j)=B(i,k)*C(k,j)", "-s", "ikj"]),
]

#: --suite: each feature row's comparable acyclic core row (the same computation on data of the
#: same size without the feature); the ``vs core`` column is the feature's rate / the core's.
#: (TTV --skip has none: skipping removes most of plain TTV's tokens, its rate is not comparable.)
CORE_OF = {
    "TMU sls bcsstk13 dim 32": "SpMM bcsstk13 x T(dd) dim 32",
    "Gustavson bcsstk13^2 lanes 4": "Gustavson bcsstk13^2",
    "Gustavson bcsstk13^2 lanes 16": "Gustavson bcsstk13^2",
    "SpMV bcsstk13 lanes 4": "SpMV bcsstk13 (lanes 1)",
    "SpMV bcsstk13 lanes 16": "SpMV bcsstk13 (lanes 1)",
    "SpMV3 bcsstk13 x=B*c*d": "SpMV bcsstk13 (lanes 1)",
    "elemmul bcsstk13 db64": "elemmul bcsstk13 ds",
    "elemmul3 bcsstk13 ds": "elemmul bcsstk13 ds",
    "elemmul 2000 rows dr (ragged)": "elemmul 2000 rows ds",
}



def select_rows(only: str | None = None) -> list[tuple[str, str, list[str]]]:
    """The SUITE rows whose label holds ``only`` (all without it), each feature row's core row
    with it, in SUITE order (a core row before its features)."""
    if not only:
        return list(SUITE)
    picked = {label for label, _, _ in SUITE if only in label}
    picked |= {CORE_OF[label] for label in picked if label in CORE_OF}
    return [row for row in SUITE if row[0] in picked]


def run_child(code: str, args: list[str]) -> tuple[str, float, int]:
    """Run ``code`` in a fresh interpreter; return stdout, wall seconds, peak RSS in bytes.

    The fast engine runs compiled from its first kernel call (no interpreting budget,
    ``SAM_INTERPRET_SECONDS=0``): these rows measure the simulation rate, JIT apart."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), SAM_INTERPRET_SECONDS="0")
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", code, *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env, text=True)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    out = proc.stdout.read() if proc.stdout else ""
    err = proc.stderr.read() if proc.stderr else ""
    if status != 0:
        raise SystemExit(f"benchmark child failed: {' '.join(args[:2])}\n{err}")
    return out, wall, usage.ru_maxrss * 1024


WIDTHS = [10, 22, 13, 12, 6, 5, 6, 9, 7, 5]


def fmt_row(cells: list[str], widths: list[int]) -> str:
    return "  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in
                     enumerate(zip(cells, widths, strict=True)))


def _stats(xs: list[float]) -> str:
    xs = sorted(xs)
    return f"{xs[0]:.3f}/{xs[len(xs) // 2]:.3f}/{xs[-1]:.3f}"


def run_suite(runs: int, only: str | None = None) -> int:
    """Issue 22's table: every SUITE row ``runs`` times in cold processes, min/median/max.

    ``sim s`` is the wall time of the first simulation in the process (JIT apart); ``sim CPU
    s`` the CPU time of a second simulation of the same graph in that process (of the one
    simulation, for a ``single`` row; on a shared machine wall times follow the load); the
    rate is tokens / the best ``sim CPU s``. ``only``: the rows whose label contains one of
    these strings (all when empty)."""
    import tempfile

    sys.path.insert(0, str(ROOT))
    load = os.getloadavg()
    print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; {runs} runs per row, "
          "min/median/max\n")
    # an installed package runs from byte-compiled modules (pip writes them); a checkout run
    # under PYTHONDONTWRITEBYTECODE would otherwise compile every module from source in every
    # process (0.1-0.15 s of the start-up rows)
    subprocess.run([sys.executable, "-m", "compileall", "-q", "sam", "custard", "formats"],
                   cwd=ROOT, check=True)
    run_child(WARMUP, [])
    graph = Path(tempfile.mkdtemp()) / "spmv.gv"
    out, _, _ = run_child("import custard, sys; from sam.graph.dot import dumps; "
                          "print(dumps(custard.compile('x(i)=B(i,j)*c(j)')))", [])
    graph.write_text(out)
    header = ["case", "tokens", "cycles", "wall s", "jit s", "sim s", "sim CPU s", "M tok/s",
              "vs core"]
    widths = [32, 12, 11, 20, 20, 20, 20, 8, 7]
    rates: dict[str, float] = {}

    print("  ".join(h.ljust(w) if i == 0 else h.rjust(w)
                    for i, (h, w) in enumerate(zip(header, widths, strict=True))))
    for label, kind, args in select_rows(only):
        walls, sims, jits, cpus = [], [], [], []
        res: dict = {}
        for _ in range(runs):
            if kind == "cli":
                argv = [a.replace("{graph}", str(graph)) for a in args]
                env = dict(os.environ, PYTHONPATH=str(ROOT))
                start = time.perf_counter()
                proc = subprocess.run([sys.executable, *argv], capture_output=True, env=env)
                walls.append(time.perf_counter() - start)
                if proc.returncode != 0:
                    raise SystemExit(f"{label} failed:\n{proc.stderr.decode()}")
                continue
            if kind == "core":
                expr, fmts, order = KERNELS[args[0]]
                out, wall, _ = run_child(CHILD, [args[0], args[1], "fast", "0",
                                                 json.dumps([expr, fmts, order])])
            else:
                out, wall, _ = run_child(SINGLE if kind == "single" else FEATURE, args)
            res = json.loads(out.strip().splitlines()[-1])
            walls.append(wall)
            sims.append(res["sim"])
            jits.append(res["jit"])
            cpus.append(res["cpu"])
        if kind == "cli":
            cells = [label, "", "", _stats(walls), "", "", "", "", ""]
        else:
            rates[label] = res["tokens"] / min(cpus) / 1e6
            core = CORE_OF.get(label)
            ratio = f"{rates[label] / rates[core]:.2f}" if core in rates else ""
            cells = [label, f"{res['tokens']:,}", f"{res['cycles']:,}", _stats(walls),
                     _stats(jits), _stats(sims), _stats(cpus), f"{rates[label]:.1f}", ratio]
        print("  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                        for i, (c, w) in enumerate(zip(cells, widths, strict=True))), flush=True)
    return 0


# --sizes: the token rate of a few kernels at growing sizes, in one process (kernels loaded
# once), best of 3 CPU times of simulate() (elaboration included) and of Simulation.run alone.
SIZES = r"""
import json, sys, time
import numpy as np
import custard
from formats.synthetic import random_tensor
from formats.tensor import Tensor
from sam.sim.engine import Simulation, simulate
from sam.tmu_ops import build_op
rng = np.random.default_rng(0)
def cases():
    for n in (250, 500, 1000, 2000):
        B = random_tensor((n, n), 0.01, 0)
        yield "Gustavson random N^2 1%", n, custard.compile("X(i,j)=B(i,k)*C(k,j)", None,
                                                          "ikj"), {"B": B, "C": B}
    for n in (1000, 10000, 100000, 300000):
        B = random_tensor((n, n), 10 / n, 0).with_format("ds")
        c = Tensor.from_dense(rng.uniform(-1, 1, n), "d")
        yield "SpMV random N, 10/row, ds x d", n, custard.compile(
            "x(i)=B(i,j)*c(j)", {"B": "ds", "c": "d", "x": "d"}), {"B": B, "c": c}
    for n in (100, 1000, 10000, 40000):
        A = random_tensor((n, 2000), 10 / 2000, 0).with_format("ds")
        tab = Tensor.from_dense(np.round(rng.uniform(-1, 1, (2000, 8)), 6), "dd")
        yield "SpMM N x 2000 (10/row) x T dim 8", n, custard.compile(
            "X(i,d)=A(i,j)*T(j,d)", {"A": "ds", "T": "dd", "X": "dd"}), {"A": A, "T": tab}
        g, t = build_op("sls", A, tab)
        yield "TMU sls N x 2000 (10/row) dim 8", n, g, t
for name, n, graph, tensors in cases():
    r = simulate(graph, tensors, engine="fast")
    cpu, run = [], []
    for _ in range(3):
        c0 = time.process_time()
        r2 = simulate(graph, tensors, engine="fast")
        cpu.append(time.process_time() - c0)
        sim = Simulation(graph, tensors)
        c0 = time.process_time()
        sim.run("fast")
        run.append(time.process_time() - c0)
    assert (r2.tokens, r2.cycles) == (r.tokens, r.cycles)
    print(json.dumps([name, n, r.tokens, r.cycles, min(cpu), min(run)]), flush=True)
"""


def run_sizes() -> int:
    """Rate against graph size: tokens, cycles, best ``simulate()`` and ``Simulation.run`` CPU
    seconds and their rates, per kernel and size (``--sizes``)."""
    load = os.getloadavg()
    print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; one process, best of 3\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT), SAM_INTERPRET_SECONDS="0")
    proc = subprocess.Popen([sys.executable, "-c", SIZES], stdout=subprocess.PIPE, env=env,
                            text=True)
    print("| kernel | N | tokens | cycles | simulate() CPU s | M tok/s | run CPU s | M tok/s |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    assert proc.stdout is not None
    for line in proc.stdout:
        name, n, tokens, cycles, cpu, run = json.loads(line)
        print(f"| {name} | {n:,} | {tokens:,} | {cycles:,} | {cpu:.4f} | "
              f"{tokens / cpu / 1e6:.1f} | {run:.4f} | {tokens / run / 1e6:.1f} |", flush=True)
    return proc.wait()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", choices=("fast", "reference"), default="fast")
    parser.add_argument("--quick", action="store_true", help="a short subset")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--suite", action="store_true",
                        help="issue 22's table: core, new features and start-up, --runs each")
    parser.add_argument("--runs", type=int, default=3, help="runs per row with --suite")
    parser.add_argument("--only", metavar="TEXT",
                        help="with --suite: only the rows whose label holds TEXT, and their core")
    parser.add_argument("--sizes", action="store_true",
                        help="token rate of a few kernels against graph size (one process)")
    args = parser.parse_args()
    if args.sizes:
        return run_sizes()
    if args.suite:
        return run_suite(args.runs, args.only)

    sys.path.insert(0, str(ROOT))
    from formats import data

    _, floor, _ = run_child(FLOOR, [])
    print(f"Cold-process floor (start Python, import numpy, scipy, numba and the toolkit): "
          f"{floor:.2f} s")
    if args.engine == "fast":
        out, wall, _ = run_child(WARMUP, [])
        print(f"JIT warm-up (compile or load the block kernels from the on-disk cache, in a "
              f"cold process): {float(out):.2f} s of {wall:.2f} s total\n")

    matrices = [n for n in data.names() if data.path(n).suffix == ".mtx"]
    cases: list[tuple[str, str]] = []
    if args.engine == "reference":
        cases = [("spmspm_ikj", "bcsstm02"), ("spmspm_ikj", "LFAT5"), ("spmv", "west0479"),
                 ("elemadd", "west0479")]
    elif args.quick:
        cases = [("spmspm_ikj", "bcsstk13"), ("spmv", "west0479"), ("elemadd", "west0479")]
    else:
        cases = [("spmspm_ikj", "bcsstk13"), ("spmspm_ikj", "pushpull")]
        cases += [("spmv", m) for m in matrices] + [("elemadd", m) for m in matrices]
        cases += [("spmspm_ikj", f"random:{n}:0.01") for n in (500, 1000, 2000, 4000)]

    header = ["kernel", "data", "tokens", "cycles", "wall s", "jit s", "sim s", "tok/s (M)",
              "peak MB", "check"]
    rows = []
    for kernel, dataset in cases:
        expr, fmts, order = KERNELS[kernel]
        out, wall, rss = run_child(CHILD, [kernel, dataset, args.engine, str(args.seed),
                                          json.dumps([expr, fmts, order])])
        res = json.loads(out.strip().splitlines()[-1])
        rate = res["tokens"] / res["sim"] / 1e6 if res["sim"] > 0 else 0.0
        row = [kernel, dataset, f"{res['tokens']:,}", f"{res['cycles']:,}", f"{wall:.2f}",
               f"{res['jit']:.2f}", f"{res['sim']:.2f}", f"{rate:.1f}", f"{rss / 2**20:.0f}",
               "PASS" if res["passed"] else "FAIL"]
        rows.append(row)
        if len(rows) == 1:
            print(fmt_row(header, WIDTHS))
        print(fmt_row(row, WIDTHS), flush=True)
    return 0 if all(r[-1] == "PASS" for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
