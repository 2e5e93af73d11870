#!/usr/bin/env python3
"""Side by side with the original SAM simulator (github weiya711/sam) on its final-apps tests,
on the two matrices its CI uses (bcsstm02, lp_scsd1): simulation time and whole-process time.

It runs only where the original is installed (``--original``, default
``~/.cache/sam-original``: its clone in ``sam/``, a virtual environment with its pinned
requirements in ``venv/``); elsewhere it says so in one line.

For each final-apps kernel (``sam/sim/test/final-apps/test_<kernel>_FINAL.py``; the
``tensor3_*`` ones need FROSTT tensors and are left out) and matrix:

* **operands**: the original's formatter writes them once
  (``scripts/formatting/datastructure_suitesparse.py -n MATRIX -hw -b KERNEL``, seed 0, into
  ``<original>/compare-formatted``; the CI's shipped ``data/suitesparse-formatted`` has
  one-element placeholder vectors); ours are the same tensors
  (``tests/helpers/final_apps.py``, vectors read from the formatter's files);
* **the original**: one cold process runs ``pytest`` on that one test with ``--ssname MATRIX
  --check-gold`` (its gold check), through this script's ``--driver`` mode, which times the
  test's simulation loop (the ``while not done`` loop of block updates, compiled from the test's
  own source with a clock read before and after it; the files are not changed) and keeps the
  result's values; the process is the whole-process time; best of ``--original-runs``;
* **ours**: ``sam-sim run dot_graphs/<graph>.gv ... --check --timing original --report`` in
  cold processes, best of ``--runs``, after one warm-up run (the kernel cache is warm), with
  ``SAM_INTERPRET_SECONDS`` as the user has it (default) and with ``SAM_INTERPRET_SECONDS=0``
  (compiled kernels from the first cycle); the simulation time is the report's
  ``wall_time_s`` (every other ``*_s`` field of the report is kept in ``--json``); the same
  options through ``custard compile <its kernel-suite.tsv line> --run`` for one more column.

Two tables: wall times, then CPU times (user + system; steadier on a shared machine).
Both results are checked (the original's gold, our ``--check``) and compared with each other
(number of nonzeros and sum of the values written).

    python scripts/compare_original.py --out table.md            # every case
    python scripts/compare_original.py --only elemadd --runs 3   # kernels/matrices matching
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_ORIGINAL = Path.home() / ".cache" / "sam-original"
MATRICES = ("bcsstm02", "lp_scsd1")
#: final-apps tests of third-order tensors (FROSTT data), left out
LEFT_OUT = ("tensor3_",)
#: the vectors of each kernel, as the formatter names them
VECTORS = {"mat_vecmul": ("c",), "mat_residual": ("b", "d"), "mat_mattransmul": ("d", "f")}


# --- driver mode: runs inside the original's virtual environment (stdlib and pytest only) ---

def _instrument(fn, sink: dict):
    """``fn`` (a final-apps test) compiled again from its source, with clocks read around its
    top-level ``while`` loop and its ``out_vals`` kept in ``sink``."""
    import ast
    import inspect
    import textwrap

    lines, first = inspect.getsourcelines(fn)
    tree = ast.parse(textwrap.dedent("".join(lines)))
    ast.increment_lineno(tree, first - 1)
    func = tree.body[0]
    func.decorator_list = []
    body = func.body
    loop = next(i for i, s in enumerate(body) if isinstance(s, ast.While))
    before = ast.parse("__cmp_sink['t0'] = (__cmp_wall(), __cmp_cpu())").body
    after = ast.parse("__cmp_sink['t1'] = (__cmp_wall(), __cmp_cpu())").body
    body[loop + 1:loop + 1] = after
    body[loop:loop] = before
    keep = next(i for i, s in enumerate(body) if isinstance(s, ast.Assign)
                and any(getattr(t, "id", None) == "out_vals" for t in s.targets))
    body.insert(keep + 1, ast.parse("__cmp_sink['out_vals'] = list(out_vals)").body[0])
    for stmt in before + after + [body[keep + 1]]:
        ast.copy_location(stmt, body[loop + 1])
    tree = ast.fix_missing_locations(tree)
    scope = dict(fn.__globals__, __cmp_sink=sink, __cmp_wall=time.perf_counter,
                 __cmp_cpu=time.process_time)
    exec(compile(tree, inspect.getsourcefile(fn), "exec"), scope)
    return scope[fn.__name__]


def driver(test_file: str, ssname: str, out_json: str) -> int:
    """Run one final-apps test under pytest, time its loop and its body, write the findings
    to ``out_json``."""
    import pytest

    sink: dict = {}

    class LoopClock:
        @pytest.hookimpl(tryfirst=True)
        def pytest_pyfunc_call(self, pyfuncitem):
            fn = _instrument(pyfuncitem.obj, sink)
            start = (time.perf_counter(), time.process_time())
            fn(**{a: pyfuncitem.funcargs[a] for a in pyfuncitem._fixtureinfo.argnames})
            sink["call"] = (time.perf_counter() - start[0], time.process_time() - start[1])
            return True

        @pytest.hookimpl(hookwrapper=True)
        def pytest_runtest_makereport(self, item, call):
            outcome = yield
            rep = outcome.get_result()
            if rep.when == "call":
                sink["outcome"] = rep.outcome
                if rep.failed:
                    sink["failure"] = str(rep.longrepr).splitlines()[-1][:300]

    bench = Path(out_json).with_suffix(".bench.json")
    rc = pytest.main([test_file, "--ssname", ssname, "--check-gold", "-q", "-p",
                      "no:cacheprovider", f"--benchmark-json={bench}"], plugins=[LoopClock()])
    out = {"rc": int(rc), "outcome": sink.get("outcome", "not run"),
           "failure": sink.get("failure")}
    if "t0" in sink and "t1" in sink:
        out["loop_wall_s"] = sink["t1"][0] - sink["t0"][0]
        out["loop_cpu_s"] = sink["t1"][1] - sink["t0"][1]
    if "call" in sink:  # the test's body: reading, building, the loop, Gantt chart, gold
        out["call_wall_s"], out["call_cpu_s"] = sink["call"]
    if "out_vals" in sink:
        vals = [float(v) for v in sink["out_vals"]]
        out["nnz"] = sum(1 for v in vals if v != 0)
        out["sum"] = sum(vals)
    if bench.exists():
        info = json.loads(bench.read_text())["benchmarks"][0]["extra_info"]
        out["cycles"] = info.get("cycles")
    Path(out_json).write_text(json.dumps(out))
    return 0


# --- the comparison: runs in our environment ---------------------------------------------

class Original:
    """Where the original is installed."""

    def __init__(self, home: Path):
        self.home = home
        self.repo = home / "sam"
        self.python = home / "venv" / "bin" / "python"
        self.tests = self.repo / "sam" / "sim" / "test" / "final-apps"
        self.formatted = home / "compare-formatted"

    def missing(self) -> str | None:
        for p in (self.python, self.tests, self.repo / "data" / "suitesparse"):
            if not p.exists():
                return str(p)
        return None

    def kernels(self) -> list[str]:
        names = sorted(p.name[len("test_"):-len("_FINAL.py")]
                       for p in self.tests.glob("test_*_FINAL.py"))
        return [n for n in names if not n.startswith(LEFT_OUT)]

    def env(self) -> dict:
        return dict(os.environ, SUITESPARSE_FORMATTED_PATH=str(self.formatted),
                    SUITESPARSE_PATH=str(self.repo / "data" / "suitesparse"))

    def format(self, kernel: str, matrix: str) -> Path:
        """The formatter's directory of ``kernel``'s operands on ``matrix`` (written once)."""
        out = self.formatted / matrix / kernel
        if not (out / "tensor_done").exists():
            env = dict(self.env(), PYTHONPATH=str(self.repo), SUITESPARSE_TENSOR_PATH=str(
                self.repo / "data" / "suitesparse" / f"{matrix}.mtx"))
            with tempfile.TemporaryDirectory() as tmp:
                subprocess.run([str(self.python), str(self.repo / "scripts" / "formatting" /
                                                      "datastructure_suitesparse.py"),
                                "-n", matrix, "-hw", "-b", kernel], cwd=tmp, env=env,
                               check=True, capture_output=True, timeout=600)
            (out / "tensor_done").write_text("")
        return out

    def best(self, kernel: str, matrix: str, timeout: float, runs: int) -> dict:
        """The least loop time and whole-process time of ``runs`` cold processes (the first
        run's result and cycles; a failure or a timeout ends the runs)."""
        first = self.run(kernel, matrix, timeout)
        for _ in range(runs - 1):
            if first.get("outcome") != "passed":
                break
            again = self.run(kernel, matrix, timeout)
            for k in ("loop_wall_s", "loop_cpu_s", "call_wall_s", "call_cpu_s",
                      "whole_wall_s", "whole_cpu_s"):
                if k in again:
                    first[k] = min(first[k], again[k])
        return first

    def run(self, kernel: str, matrix: str, timeout: float) -> dict:
        """One cold process of the test under the driver: its loop time, result and cycles."""
        test = self.tests / f"test_{kernel}_FINAL.py"
        with tempfile.TemporaryDirectory() as tmp:  # gen_gantt writes its csv/png to the cwd
            out = Path(tmp) / "driver.json"
            argv = [str(self.python), str(Path(__file__).resolve()), "--driver", str(test),
                    matrix, str(out)]
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            try:
                proc = subprocess.run(argv, cwd=tmp, env=self.env(), capture_output=True,
                                      text=True, timeout=timeout)
            except subprocess.TimeoutExpired:
                return {"outcome": "timeout", "timeout_s": timeout}
            wall = time.perf_counter() - start
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            if not out.exists():
                tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["no output"]
                return {"outcome": "error", "failure": tail[0][:300]}
            res = json.loads(out.read_text())
        res["whole_wall_s"] = wall
        res["whole_cpu_s"] = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
        return res


def vector_crds(directory: Path, name: str) -> list[int]:
    return [int(x) for x in (directory / f"tensor_{name}_mode_0_crd").read_text().split()]


def our_inputs(kernel: str, matrix: str, formatted: Path, tmp: Path) -> tuple[str, list[str]]:
    """Our graph for ``kernel`` and the ``-t`` bindings of the original's operands (written to
    files in ``tmp``)."""
    import numpy as np
    import scipy.sparse as sp

    sys.path.insert(0, str(ROOT / "tests"))
    from helpers.final_apps import KERNELS, shifted, vector
    from helpers.final_apps import matrix as read_matrix

    vectors = {v: vector_crds(formatted, v) for v in VECTORS.get(kernel, ())}
    m = read_matrix(matrix)
    rows, cols = m.shape
    values: dict = {}
    if kernel == "mat_identity":
        values = {"B": m}
    elif kernel == "mat_elemadd":
        values = {"B": m, "C": shifted(m)}
    elif kernel == "mat_elemadd3":
        values = {"B": m, "C": shifted(m), "D": shifted(shifted(m))}
    elif kernel in ("matmul_kij", "matmul_ikj"):
        values = {"B": m, "C": shifted(m).T}
    elif kernel == "mat_vecmul":
        values = {"B": m, "c": vector(cols, vectors["c"])}
    elif kernel == "mat_residual":
        values = {"C": m, "b": vector(rows, vectors["b"]), "d": vector(cols, vectors["d"])}
    elif kernel == "mat_mattransmul":
        values = {"C": m, "d": vector(rows, vectors["d"]), "f": vector(cols, vectors["f"]),
                  "b": 2.0, "e": 2.0}
    elif kernel == "mat_sddmm":
        kdim = 256
        values = {"B": m, "C": np.arange(rows * kdim, dtype=np.float64).reshape(rows, kdim),
                  "D": np.arange(kdim * cols, dtype=np.float64).reshape(cols, kdim).T}
    else:
        raise KeyError(kernel)
    binds = []
    for name, value in values.items():
        if name in ("B", "C") and value is m:
            binds.append(f"{name}={matrix}")  # the shipped matrix, by name
        elif np.isscalar(value):
            binds.append(f"{name}={value}")
        elif sp.issparse(value):
            path = tmp / f"{name}.npz"
            sp.save_npz(path, sp.coo_matrix(value))
            binds.append(f"{name}={path}")
        else:
            path = tmp / f"{name}.npy"
            np.save(path, np.ascontiguousarray(value))
            binds.append(f"{name}={path}")
    ours = KERNELS[kernel][0] if kernel in KERNELS else kernel
    return str(ROOT / "dot_graphs" / f"{ours}.gv"), binds


def suite_line(graph: str) -> list[str]:
    """The Custard command line of ``graph`` in ``dot_graphs/kernel-suite.tsv`` (its words)."""
    name = Path(graph).stem
    for line in (ROOT / "dot_graphs" / "kernel-suite.tsv").read_text().splitlines():
        if line.startswith(name + "\t"):
            return line.split("\t", 1)[1].split()
    raise KeyError(name)


def best_of(argv: list[str], env: dict, cwd: str, report: Path, runs: int) -> dict:
    """Whole-process wall and CPU time and the report's ``*_s`` fields, each the least of
    ``runs`` cold processes after one warm-up."""
    best: dict = {}
    subprocess.run(argv, env=env, capture_output=True, cwd=cwd, check=False)  # warm-up
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(argv, env=env, capture_output=True, cwd=cwd, check=False)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        rep = json.loads(report.read_text())
        sample = {k: v for k, v in rep.items()
                  if k.endswith("_s") and k != "tokens_per_s" and isinstance(v, (int, float))}
        sample["whole_wall_s"] = wall
        sample["whole_cpu_s"] = ((after.ru_utime + after.ru_stime)
                                 - (before.ru_utime + before.ru_stime))
        for k, v in sample.items():
            best[k] = min(best.get(k, v), v)
        best["cycles"] = rep.get("cycles")
        best["check"] = bool(rep.get("check") and rep["check"].get("passed"))
    return best


def ours(kernel: str, matrix: str, formatted: Path, runs: int) -> dict:
    """Our whole process and simulation time, best of ``runs`` cold processes, after a warm-up
    that writes the result; with the default interpreting budget and with none."""
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        graph, binds = our_inputs(kernel, matrix, formatted, tmp)
        argv = [sys.executable, "-m", "sam", "run", graph, "--check", "--timing", "original",
                "--no-progress", "--report", str(tmp / "r.json")]
        for b in binds:
            argv += ["-t", b]
        base = dict(os.environ, PYTHONPATH=str(ROOT))
        warm = subprocess.run(argv + ["-o", str(tmp / "out.tns")], env=base,
                              capture_output=True, text=True, cwd=tmpdir, check=False)
        if warm.returncode not in (0, 3):
            tail = (warm.stderr or warm.stdout).strip().splitlines()[-1:] or ["no output"]
            return {"error": tail[0][:300]}
        report = json.loads((tmp / "r.json").read_text())
        vals = [float(line.split()[-1]) for line in (tmp / "out.tns").read_text().splitlines()
                if line.strip() and not line.startswith(("#", "%"))]
        out = {"cycles": report["cycles"], "tokens": report["tokens"],
               "check": bool(report.get("check") and report["check"].get("passed")),
               "nnz": sum(1 for v in vals if v != 0), "sum": sum(vals)}
        for label, env in (("default", base), ("compiled", dict(base, SAM_INTERPRET_SECONDS="0"))):
            out[label] = best_of(argv, env, tmpdir, tmp / "r.json", runs)
        custard = [sys.executable, "-m", "custard", "compile", *suite_line(graph), "--run",
                   *argv[argv.index("--check"):]]
        out["custard"] = best_of(custard, base, tmpdir, tmp / "r.json", runs)
        return out


def same_result(orig: dict, mine: dict) -> str:
    if "nnz" not in orig or "nnz" not in mine:
        return "-"
    close = abs(orig["sum"] - mine["sum"]) <= 1e-9 * max(1.0, abs(orig["sum"]))
    return "same" if orig["nnz"] == mine["nnz"] and close else \
        f"differs (nnz {orig['nnz']}/{mine['nnz']}, sum {orig['sum']:.6g}/{mine['sum']:.6g})"


def _n(x: int | None) -> str:
    return "-" if x is None else f"{x:,}"


def _s(x: float | None) -> str:
    if x is None:
        return "-"
    if x < 0.01:
        return f"{x:.5f}"
    return f"{x:.3f}" if x < 10 else f"{x:.1f}"


def _ratio(a: float | None, b: float | None) -> str:
    if a is None or not b:
        return "-"
    return f"{a / b:.1f}x" if a / b >= 10 else f"{a / b:.2f}x"


def table(rows: list[dict]) -> str:
    head = ("| kernel | matrix | tokens (ours) | cycles original / ours | original sim s | "
            "ours sim s | sim ratio | ours sim s, compiled | sim ratio, compiled | "
            "original whole s | ours whole s | whole ratio | ours whole s, compiled | "
            "`custard compile --run` whole s | results |\n"
            "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n")
    lines = []
    for r in rows:
        o, m = r["original"], r["ours"]
        d, c = m.get("default", {}), m.get("compiled", {})
        if o.get("outcome") == "timeout":
            osim, owhole = None, None
            oshow = f"timeout ({o['timeout_s']:.0f} s)"
        else:
            osim, owhole, oshow = o.get("loop_wall_s"), o.get("whole_wall_s"), None
        runs = [m] + [m[k] for k in ("default", "compiled", "custard") if k in m]
        passed = all(x.get("check") for x in runs)
        equal = len({x.get("cycles") for x in runs}) == 1
        checks = (f"gold {o.get('outcome', '-')}, --check {'PASS' if passed else 'FAIL'}, "
                  f"{same_result(o, m)}{'' if equal else ', our cycles differ between runs'}")
        if "error" in m:
            checks = f"ours: {m['error']}"
        lines.append(
            f"| {r['kernel']} | {r['matrix']} | {_n(m.get('tokens'))} | "
            f"{_n(o.get('cycles'))} / {_n(m.get('cycles'))} | "
            f"{oshow or _s(osim)} | {_s(d.get('wall_time_s'))} | "
            f"{_ratio(osim, d.get('wall_time_s'))} | {_s(c.get('wall_time_s'))} | "
            f"{_ratio(osim, c.get('wall_time_s'))} | {oshow or _s(owhole)} | "
            f"{_s(d.get('whole_wall_s'))} | {_ratio(owhole, d.get('whole_wall_s'))} | "
            f"{_s(c.get('whole_wall_s'))} | {_s(m.get('custard', {}).get('whole_wall_s'))} | "
            f"{checks} |")
    return head + "\n".join(lines) + "\n"


def cpu_table(rows: list[dict]) -> str:
    """CPU seconds (user + system) of the same runs: steadier than wall time on a shared
    machine (ours: the report gives the simulation's wall time only)."""
    head = ("| kernel | matrix | original sim CPU s | original whole CPU s | ours whole CPU s | "
            "whole CPU ratio | ours whole CPU s, compiled | `custard compile --run` "
            "whole CPU s |\n|---|---|---:|---:|---:|---:|---:|---:|\n")
    lines = []
    for r in rows:
        o, m = r["original"], r["ours"]
        d, c, k = m.get("default", {}), m.get("compiled", {}), m.get("custard", {})
        lines.append(
            f"| {r['kernel']} | {r['matrix']} | {_s(o.get('loop_cpu_s'))} | "
            f"{_s(o.get('whole_cpu_s'))} | {_s(d.get('whole_cpu_s'))} | "
            f"{_ratio(o.get('whole_cpu_s'), d.get('whole_cpu_s'))} | "
            f"{_s(c.get('whole_cpu_s'))} | {_s(k.get('whole_cpu_s'))} |")
    return head + "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--original", type=Path, default=DEFAULT_ORIGINAL,
                    help="where the original is installed (its clone sam/, its venv/)")
    ap.add_argument("--only", action="append", metavar="TEXT",
                    help="only the cases whose 'kernel matrix' contains TEXT (repeatable)")
    ap.add_argument("--runs", type=int, default=3, help="cold runs of ours, best kept (3)")
    ap.add_argument("--original-runs", type=int, default=3,
                    help="cold runs of the original, best kept (3)")
    ap.add_argument("--timeout", type=float, default=900,
                    help="seconds for one run of the original (900)")
    ap.add_argument("--out", type=Path, help="write the Markdown table to FILE.md")
    ap.add_argument("--json", type=Path, help="write every measurement to FILE.json")
    ap.add_argument("--driver", nargs=3, metavar=("TEST", "SSNAME", "OUT"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.driver:
        return driver(*args.driver)
    orig = Original(args.original)
    missing = orig.missing()
    if missing:
        print(f"compare_original: the original SAM simulator is not installed here "
              f"({missing} missing; see --original)")
        return 1
    cases = [(k, m) for m in MATRICES for k in orig.kernels()]
    cases.sort(key=lambda c: (c[0] == "mat_sddmm", MATRICES.index(c[1])))
    if args.only:
        cases = [c for c in cases if any(t in f"{c[0]} {c[1]}" for t in args.only)]
    rows = []
    for kernel, matrix in cases:
        formatted = orig.format(kernel, matrix)
        o = orig.best(kernel, matrix, args.timeout, args.original_runs)
        m = ours(kernel, matrix, formatted, args.runs)
        rows.append({"kernel": kernel, "matrix": matrix, "original": o, "ours": m})
        print(table(rows[-1:]).splitlines()[-1], flush=True)
    text = table(rows) + "\n" + cpu_table(rows)
    if args.out:
        args.out.write_text(text)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    print()
    print(text, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
