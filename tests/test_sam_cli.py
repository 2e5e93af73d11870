"""``sam-sim`` (and ``custard compile --run``) run as a user would: subprocesses of the real
entry points, on shipped data, with every figure checked against numpy/scipy.

The fast engine compiles its numba kernels on first use (20-40 s) and caches them in
``~/.cache/sam-toolkit``; with a warm cache this file runs in about a minute.
"""

from __future__ import annotations

import json
import os
import pty
import re
import select
import shutil
import signal
import struct
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from collections import defaultdict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

from formats import data
from formats.io import load_tensor
from formats.synthetic import blocks, random_tensor, runs

from helpers.cli import cli_env as _env
from helpers.cli import custard, ok, sam_sim

ROOT = Path(__file__).resolve().parent.parent
GRAPHS = ROOT / "dot_graphs"
DEADLOCK = ROOT / "tests" / "data" / "deadlock_mat_residual.gv"  # deadlocks at depth 1
SPMV = GRAPHS / "mat_vecmul_ij.gv"
MATMUL = GRAPHS / "matmul_ikj.gv"
KINDS = ("data", "stop", "empty", "done")
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
HAVE_DOT = shutil.which("dot") is not None
needs_dot = pytest.mark.skipif(not HAVE_DOT, reason="graphviz `dot` is not installed")


def concurrently(*calls: Callable[[], subprocess.CompletedProcess]
                 ) -> list[subprocess.CompletedProcess]:
    """Run independent commands a few at a time (they are short, mostly start-up)."""
    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 1)) as pool:
        return list(pool.map(lambda call: call(), calls))


def one_line_error(proc: subprocess.CompletedProcess, *fragments: str, code: int = 1,
                   prog: str = "sam-sim") -> str:
    """The run failed with ``code`` and exactly one stderr line ``PROG: error: ...``."""
    assert proc.returncode == code, f"exit {proc.returncode}\n{proc.stdout[-2000:]}\n{proc.stderr}"
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith(f"{prog}: error: "), lines[0]
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    return lines[0]


def scipy_matrix(name: str) -> sp.csr_matrix:
    """A shipped SuiteSparse matrix read by scipy itself (not by the toolkit)."""
    return sp.csr_matrix(scipy.io.mmread(str(data.path(name))))


def png_size(path: Path) -> tuple[int, int]:
    head = path.read_bytes()[:24]
    assert head[:8] == PNG_MAGIC, f"{path} is not a PNG"
    return struct.unpack(">II", head[16:24])


def svg_texts(path: Path) -> list[str]:
    root = ET.fromstring(path.read_bytes())
    assert root.tag.endswith("svg"), root.tag
    return ["".join(el.itertext()) for el in root.iter() if el.tag.endswith("}text")]


# ------------------------------------------------------------------------------------------
# 1. results written with -o equal scipy's
# ------------------------------------------------------------------------------------------
def test_matmul_west0479_fast_engine_mtx(tmp_path: Path) -> None:
    run = ok(sam_sim(tmp_path, "run", MATMUL, "-t", "B=west0479", "-t", "C=B", "--check",
                     "-o", "X.mtx"))
    b = scipy_matrix("west0479")
    gold = (b @ b).toarray()
    got = load_tensor(tmp_path / "X.mtx").to_dense()
    assert got.shape == (479, 479)
    np.testing.assert_allclose(got, gold, rtol=1e-12, atol=1e-9 * np.abs(gold).max())
    nnz = int(np.count_nonzero(gold))
    assert f"result X: shape 479x479, {nnz:,} nonzeros (format ss01)" in run.stdout
    assert "(fast engine)" in run.stdout
    assert run.stdout.rstrip().splitlines()[-1].startswith("PASS: largest difference")
    assert f"{nnz} expected nonzeros" in run.stdout


def test_spmv_lp_scsd1_random_vector_tns(spmv_run: dict) -> None:
    b = scipy_matrix("lp_scsd1")
    assert b.shape == (77, 760)
    c = random_tensor((760,), 0.5, 3).to_dense()  # the spec random:0.5:3, shape from B
    gold = b @ c
    got = load_tensor(spmv_run["dir"] / "x.tns", shape=(77,)).to_dense()
    np.testing.assert_allclose(got, gold, rtol=1e-12)
    report = spmv_run["report"]
    assert report["inputs"]["c"]["nnz"] == 380 and report["inputs"]["c"]["shape"] == [760]
    assert report["outputs"]["x"]["nnz"] == int(np.count_nonzero(gold))
    assert report["check"]["passed"] is True


def test_mat_elemadd_transpose_reference_npz(tmp_path: Path) -> None:
    ok(sam_sim(tmp_path, "run", GRAPHS / "mat_elemadd.gv", "-t", "B=west0067", "-t", "C=B^T",
               "--engine", "reference", "--check", "-o", "X.npz"))
    b = scipy_matrix("west0067")
    got = sp.load_npz(tmp_path / "X.npz")
    assert got.shape == (67, 67)
    np.testing.assert_allclose(got.toarray(), (b + b.T).toarray(), rtol=1e-12)


def test_tensor_times_vector_splatt_small(tmp_path: Path) -> None:
    run = ok(sam_sim(tmp_path, "run", GRAPHS / "tensor3_ttv.gv", "-t", "B=splatt-small",
                     "-t", "c=random:1.0:7", "--engine", "reference", "--check", "-o", "X.tns",
                     "--json"))
    b = load_tensor("splatt-small").to_dense()
    assert b.shape == (2, 3, 2)
    c = random_tensor((2,), 1.0, 7).to_dense()
    gold = np.einsum("ijk,k->ij", b, c)
    got = load_tensor(tmp_path / "X.tns", shape=(2, 3)).to_dense()
    np.testing.assert_array_equal(got, gold)
    report = json.loads(run.stdout)
    assert report["outputs"]["X"]["shape"] == [2, 3]
    assert report["outputs"]["X"]["nnz"] == int(np.count_nonzero(gold))
    assert report["inputs"]["B"] == {"shape": [2, 3, 2], "format": "sss012", "nnz": 6,
                                     "stored": 6, "source": "splatt-small"}
    assert report["check"]["passed"] is True and report["check"]["max_abs_diff"] == 0


def test_scalar_binding(tmp_path: Path) -> None:
    run = ok(sam_sim(tmp_path, "run", GRAPHS / "vec_scalar_mul.gv", "-t", "b=2.5",
                     "-t", "c=random:0.3:5:50", "--engine", "reference", "--check",
                     "-o", "x.npy", "--json"))
    c = random_tensor((50,), 0.3, 5).to_dense()
    np.testing.assert_array_equal(np.load(tmp_path / "x.npy"), 2.5 * c)
    report = json.loads(run.stdout)
    assert report["inputs"]["b"]["shape"] == [] and report["inputs"]["b"]["source"] == "2.5"
    assert report["inputs"]["c"]["nnz"] == 15 and report["outputs"]["x"]["nnz"] == 15


def test_seed_option_seeds_random_specs(tmp_path: Path) -> None:
    """--seed seeds every random spec without a seed, each operand its own seed derived from
    --seed and its name (sam.bind.seed_for); the report records the full spec used."""
    from sam.bind import seed_for

    run = ok(sam_sim(tmp_path, "run", GRAPHS / "vec_scalar_mul.gv", "-t", "b=-3", "-t",
                     "c=random:0.2::40", "--seed", "11", "--engine", "reference", "-o", "x.npy",
                     "--json"))
    c = random_tensor((40,), 0.2, seed_for(11, "c")).to_dense()
    np.testing.assert_array_equal(np.load(tmp_path / "x.npy"), -3 * c)
    report = json.loads(run.stdout)
    assert report["seed"] == 11
    assert report["inputs"]["c"]["source"] == f"random:0.2:{seed_for(11, 'c')}:40"


def test_scalar_result_tns_and_npy(tmp_path: Path) -> None:
    """x = B(i,j,k) * C(i,j,k) on splatt-small with C = B: the sum of squares."""
    b = load_tensor("splatt-small").to_dense()
    gold = float((b * b).sum())
    run = ok(sam_sim(tmp_path, "run", GRAPHS / "tensor3_innerprod.gv", "-t", "B=splatt-small",
                     "-t", "C=B", "--engine", "reference", "--check", "-o", "x.npy"))
    assert "result x: shape scalar, 1 nonzeros" in run.stdout
    assert np.load(tmp_path / "x.npy").shape == () and float(np.load(tmp_path / "x.npy")) == gold
    ok(sam_sim(tmp_path, "run", GRAPHS / "tensor3_innerprod.gv", "-t", "B=splatt-small",
               "-t", "C=B", "--engine", "reference", "-o", "x.tns"))
    assert load_tensor(tmp_path / "x.tns", shape=()).to_dense() == gold


def test_random_operands_size_and_feed_each_other(tmp_path: Path) -> None:
    """A random tensor with a shape sizes the others; B^T of a random tensor."""
    run = ok(sam_sim(tmp_path, "run", MATMUL, "-t", "B=random:0.3:4:6x9", "-t", "C=B^T",
                     "--engine", "reference", "--check", "-o", "X.npy", "--json"))
    b = random_tensor((6, 9), 0.3, 4).to_dense()
    np.testing.assert_array_equal(np.load(tmp_path / "X.npy"), b @ b.T)
    assert json.loads(run.stdout)["inputs"]["C"]["shape"] == [9, 6]
    ok(sam_sim(tmp_path, "run", SPMV, "-t", "B=random:0.5:1:5x0", "-t", "c=random:0.5",
               "--engine", "reference", "--check", "-o", "x.npy"))  # j has size 0
    np.testing.assert_array_equal(np.load(tmp_path / "x.npy"), np.zeros(5))


def test_blocks_pair_elemmul(tmp_path: Path) -> None:
    spec = "blocks:8:400:0:2000"
    run = ok(sam_sim(tmp_path, "run", GRAPHS / "vec_elemmul.gv", "-t", f"b={spec}",
                     "-t", f"c={spec}", "--engine", "reference", "--check", "-o", "x.npy",
                     "--json"))
    b, c = blocks(2000, 400, 8, 0)
    gold = b.to_dense() * c.to_dense()
    assert np.count_nonzero(gold) > 0  # the blocks of b and c overlap
    np.testing.assert_array_equal(np.load(tmp_path / "x.npy"), gold)
    report = json.loads(run.stdout)
    assert report["inputs"]["b"]["nnz"] == report["inputs"]["c"]["nnz"] == 400
    assert report["outputs"]["x"]["nnz"] == int(np.count_nonzero(gold))


def test_runs_pair_elemadd_fast(tmp_path: Path) -> None:
    spec = "runs:16:300:4:2000"
    ok(sam_sim(tmp_path, "run", GRAPHS / "vec_elemadd.gv", "-t", f"b={spec}", "-t",
               f"c={spec}", "--check", "-o", "x.tns"))
    b, c = runs(2000, 300, 16, 4)
    gold = b.to_dense() + c.to_dense()
    assert np.count_nonzero(gold) == 600  # runs never share a coordinate
    got = load_tensor(tmp_path / "x.tns", shape=(2000,)).to_dense()
    np.testing.assert_array_equal(got, gold)


# ------------------------------------------------------------------------------------------
# 2. the JSON report
# ------------------------------------------------------------------------------------------
SPMV_ARGS = (SPMV, "-t", "B=lp_scsd1", "-t", "c=random:0.5:3")


@pytest.fixture(scope="module")
def spmv_run(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """SpMV on lp_scsd1 (fast engine) with --check --json --report -o, run once."""
    where = tmp_path_factory.mktemp("spmv")
    run = ok(sam_sim(where, "run", *SPMV_ARGS, "--check", "--json", "--report",
                     "report.json", "-o", "x.tns"))
    return {"dir": where, "proc": run, "report": json.loads(run.stdout)}


def test_json_report_fields(spmv_run: dict) -> None:
    r = spmv_run["report"]
    assert r["version"] == 1
    assert r["graph"] == str(SPMV)
    assert r["expression"] == "x(i)=B(i,j)*c(j)"
    assert r["engine"] == "fast"
    assert r["fifo_depth"] is None and r["latencies"] == {}
    assert r["interrupted"] is False
    assert isinstance(r["cycles"], int) and r["cycles"] > 0
    assert isinstance(r["wall_time_s"], float) and r["wall_time_s"] > 0
    assert isinstance(r["jit_time_s"], float) and r["jit_time_s"] >= 0
    assert isinstance(r["tokens"], int) and r["tokens"] > 0
    assert r["tokens_per_s"] == pytest.approx(r["tokens"] / r["wall_time_s"])
    assert r["inputs"] == {
        "B": {"shape": [77, 760], "format": "ss01", "nnz": 2388, "stored": 2388,
              "source": "lp_scsd1"},
        "c": {"shape": [760], "format": "s0", "nnz": 380, "stored": 380,
              "source": "random:0.5:3:760"},  # the full spec: density, seed, shape
    }
    assert list(r["outputs"]) == ["x"]
    assert r["outputs"]["x"]["shape"] == [77] and r["outputs"]["x"]["format"] == "s0"
    check = r["check"]
    assert check["passed"] is True and check["max_abs_diff"] <= 1e-9 * check["max_abs_value"]
    assert check["line"].startswith("PASS: largest difference")


def test_json_report_blocks_and_streams_add_up(spmv_run: dict) -> None:
    from sam.graph.dot import load

    r = spmv_run["report"]
    graph = load(SPMV)
    cycles = r["cycles"]
    ids = [b["id"] for b in r["blocks"]]
    assert sorted(ids) == sorted(i for i, b in graph.blocks.items() if b.dot_type != "broadcast")
    for b in r["blocks"]:
        assert b["type"] == graph.blocks[b["id"]].dot_type
        assert b["label"] and b["family"] in ("scan", "repeat", "merge", "array", "compute",
                                              "reduce", "drop", "write")
        assert set(b["tokens_in"]) == set(KINDS) and set(b["tokens_out"]) == set(KINDS)
        assert b["busy"] + b["idle"] + b["stalled"] == b["finished"], b
        assert 0 <= b["started"] <= b["finished"] <= cycles
        assert b["stalled"] == 0  # unbounded FIFOs never stall
        assert b["utilisation"] == pytest.approx(b["busy"] / cycles)
    assert max(b["finished"] for b in r["blocks"]) == cycles
    # every token a block emits is in the total, once
    assert r["tokens"] == sum(sum(b["tokens_out"].values()) for b in r["blocks"])
    # streams: fan-out copies carry the same tokens; a block's inputs are its streams plus,
    # for a root, the reference stream "0, D"; its outputs are one stream per used port
    into: dict[str, dict[str, int]] = defaultdict(lambda: dict.fromkeys(KINDS, 0))
    by_port: dict[tuple[str, str], dict[str, int]] = {}
    for s in r["streams"]:
        assert s["kind"] in ("crd", "ref", "val", "repsig", "bv")
        assert set(s["tokens"]) == set(KINDS)
        assert by_port.setdefault((s["src"], s["src_port"]), s["tokens"]) == s["tokens"]
        for k in KINDS:
            into[s["dst"]][k] += s["tokens"][k]
    out_of: dict[str, dict[str, int]] = defaultdict(lambda: dict.fromkeys(KINDS, 0))
    for (src, _port), tokens in by_port.items():
        for k in KINDS:
            out_of[src][k] += tokens[k]
    for b in r["blocks"]:
        expected_in = dict(into[b["id"]])
        if graph.blocks[b["id"]].attrs.get("root") == "true":
            expected_in["data"] += 1
            expected_in["done"] += 1
        assert b["tokens_in"] == expected_in, b["id"]
        assert b["tokens_out"] == out_of[b["id"]], b["id"]
    # the scanner of B's rows emits one coordinate per nonempty row, the writer stores them
    scan_i = next(b for b in r["blocks"] if b["type"] == "fiberlookup"
                  and b["label"].startswith("scan i: B0"))
    assert scan_i["tokens_out"]["data"] == 2 * 77  # crd and ref ports, 77 rows


def test_report_file_is_the_printed_json(spmv_run: dict) -> None:
    saved = json.loads((spmv_run["dir"] / "report.json").read_text())
    printed = spmv_run["report"]
    assert saved == printed


def test_text_report_matches_json(tmp_path: Path, spmv_run: dict) -> None:
    run = ok(sam_sim(tmp_path, "run", *SPMV_ARGS, "--check"))
    r = spmv_run["report"]
    lines = run.stdout.splitlines()
    nnz = r["outputs"]["x"]["nnz"]
    assert lines[0] == f"result x: shape 77, {nnz:,} nonzeros (format s0)"
    assert lines[1] == f"cycles: {r['cycles']:,}"  # deterministic: same cycles as the fixture
    assert lines[2].startswith("wall time: ") and f"{r['tokens']:,} tokens" in lines[2]
    header = next(line for line in lines if line.startswith("id "))
    assert header.split() == ["id", "block", *[f"in:{k}" for k in KINDS],
                              *[f"out:{k}" for k in KINDS], "busy", "idle", "stalled", "util%"]
    rows = {line.split()[0]: line for line in lines[lines.index(header) + 2:] if line.strip()}
    for b in r["blocks"]:
        cells = rows[b["id"]].split()
        counts = [f"{b['tokens_in'][k]:,}" for k in KINDS] + [
            f"{b['tokens_out'][k]:,}" for k in KINDS]
        assert cells[-12:] == [*counts, f"{b['busy']:,}", f"{b['idle']:,}", f"{b['stalled']:,}",
                               f"{100 * b['utilisation']:.1f}"], b["id"]
        assert " ".join(cells[1:-12]) == b["label"]
    assert lines[-1] == r["check"]["line"]


def _json_run(cwd: Path, *extra: str) -> dict:
    return json.loads(ok(sam_sim(cwd, "run", *SPMV_ARGS, "--check", "--json", *extra)).stdout)


@pytest.fixture(scope="module")
def spmv_fifo2(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The fixture's SpMV with every FIFO bounded to 2 tokens (text report)."""
    where = tmp_path_factory.mktemp("fifo2")
    run = ok(sam_sim(where, "run", *SPMV_ARGS, "--check", "--fifo-depth", "2", "--report",
                     "report.json"))
    return {"text": run.stdout, "report": json.loads((where / "report.json").read_text())}


def test_fifo_depth_and_latency_change_cycles(tmp_path: Path, spmv_run: dict,
                                              spmv_fifo2: dict) -> None:
    base = spmv_run["report"]
    nnz = base["outputs"]["x"]["nnz"]
    assert all(b["stalled"] == 0 for b in base["blocks"])

    depth1, slow, deepest = concurrently(
        partial(_json_run, tmp_path, "--fifo-depth", "1"),
        partial(_json_run, tmp_path, "--latency", "arrayvals=3", "--latency", "default=2"),
        partial(_json_run, tmp_path, "--fifo-depth", "2147483647"))
    assert deepest["fifo_depth"] == 2**31 - 1  # deeper than any stream here: no bound at all
    assert deepest["cycles"] == base["cycles"]
    assert depth1["fifo_depth"] == 1
    assert depth1["cycles"] > base["cycles"]
    assert any(b["stalled"] > 0 for b in depth1["blocks"])  # a full FIFO stalls its producer
    for b in depth1["blocks"]:
        assert b["busy"] + b["idle"] + b["stalled"] == b["finished"]

    depth2 = spmv_fifo2["report"]
    assert depth2["fifo_depth"] == 2
    assert base["cycles"] <= depth2["cycles"] < depth1["cycles"]
    lines = spmv_fifo2["text"].splitlines()
    assert "FIFO depth: 2" in lines and f"cycles: {depth2['cycles']:,}" in lines

    assert slow["latencies"] == {"arrayvals": 3, "default": 2}
    assert slow["cycles"] > base["cycles"]

    for r in (depth1, depth2, slow):  # the timing changes, the result does not
        assert r["check"]["passed"] is True
        assert r["outputs"]["x"]["nnz"] == nnz
        assert r["tokens"] == base["tokens"]


def test_check_fail_exits_3(tmp_path: Path) -> None:
    """--expr with another expression than the graph computes: a wrong result on purpose."""
    run = sam_sim(tmp_path, "run", SPMV, "-t", "B=west0479", "-t", "c=random:0.5:3",
                  "--check", "--expr", "x(i)=B(j,i)*c(j)", "-o", "x.tns", "--report", "r.json")
    assert run.returncode == 3, run.stderr
    assert run.stderr == ""
    assert run.stdout.rstrip().splitlines()[-1].startswith("FAIL: largest difference")
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["expression"] == "x(i)=B(j,i)*c(j)"
    assert report["check"]["passed"] is False and report["check"]["max_abs_diff"] > 0
    assert report["check"]["line"].startswith("FAIL: ")
    # the result (right for the graph) is still written
    b = scipy_matrix("west0479")
    c = random_tensor((479,), 0.5, 3).to_dense()
    got = load_tensor(tmp_path / "x.tns", shape=(479,)).to_dense()
    np.testing.assert_allclose(got, b @ c, rtol=1e-12, atol=1e-9)


def test_original_custard_graph_checks_with_expr(tmp_path: Path) -> None:
    run = ok(sam_sim(tmp_path, "run", ROOT / "tests/data/custard/mat_vecmul_ij.gv",
                     "-t", "B=west0067", "-t", "c=random:0.5:3", "--engine", "reference",
                     "--check", "--expr", "x(i)=B(i,j)*c(j)", "--json"))
    report = json.loads(run.stdout)
    assert report["check"]["passed"] is True
    assert report["expression"] == "x(i)=B(i,j)*c(j)"
    assert all(b["type"] != "broadcast" for b in report["blocks"])


# ------------------------------------------------------------------------------------------
# 3. errors: one line, right exit code
# ------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def bad_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("bad")
    (d / "malformed.gv").write_text('digraph SAM {\n  0 [type="fiberlookup" \n')
    text = SPMV.read_text()
    assert text.count('type="repsiggen"') == 1
    (d / "unknown_type.gv").write_text(text.replace('type="repsiggen"', 'type="frobnicate"'))
    shutil.copy(ROOT / "tests/data/bad-input/mangled13.mtx", d / "mangled13.mtx")
    np.save(d / "vector479.npy", np.arange(1.0, 480.0))
    np.save(d / "vector100.npy", np.arange(1.0, 101.0))
    (d / "garbage.json").write_text("garbage\n")
    (d / "not_a_report.json").write_text('{"a": 1}\n')
    (d / "minimal_report.json").write_text('{"cycles": 1, "blocks": [], "streams": []}\n')
    (d / "bad_cycles_report.json").write_text('{"cycles": "a", "blocks": [], "streams": []}\n')
    (d / "bad_block_report.json").write_text(
        '{"cycles": 5, "blocks": [{"id": 1}], "streams": [{"src": "0"}]}\n')
    return d


G = str(SPMV)
SPMV_OK = ("-t", "B=west0479", "-t", "c=random:0.5")
SMALL_OK = ("-t", "B=west0067", "-t", "c=random:0.5", "--engine", "reference")  # a quick run
ERRORS = {
    "missing graph": (["run", "no_such_graph.gv", *SPMV_OK],
                      "no_such_graph.gv: no such graph file"),
    "malformed DOT": (["run", "malformed.gv", *SPMV_OK], "malformed.gv: line 2"),
    "unknown node type": (["run", "unknown_type.gv", *SPMV_OK], "unknown type 'frobnicate'"),
    "missing binding": (["run", G, "-t", "B=west0479"],
                        "the graph reads tensor c but it is not bound; add -t c=..."),
    "extra binding": (["run", G, *SPMV_OK, "-t", "D=west0479"],
                      "tensor D is not read by the graph (it reads: B, c)"),
    "binding syntax": (["run", G, "-t", "B", "-t", "c=random:0.5"],
                       "tensor binding 'B': write NAME=SPEC"),
    "bound twice": (["run", G, *SPMV_OK, "-t", "B=west0067"], "tensor B is bound twice"),
    "binding file missing": (["run", G, "-t", "B=missing.mtx", "-t", "c=random:0.5"],
                             "missing.mtx: no such file"),
    "unknown data name": (["run", G, "-t", "B=west9999", "-t", "c=random:0.5"],
                          "unknown tensor 'west9999'"),
    "unreadable matrix": (["run", G, "-t", "B=mangled13.mtx", "-t", "c=random:0.5"],
                          "mangled13.mtx:7: column index 9999 is outside 1..4"),
    "vector for a matrix": (["run", G, "-t", "B=vector479.npy", "-t", "c=random:0.5"],
                            "B is bound to a tensor of order 1 (shape 479) but the graph uses "
                            "it as an order-2 tensor"),
    "matrix for a vector": (["run", G, "-t", "B=west0479", "-t", "c=B^T"],
                            "c is bound to a tensor of order 2 (shape 479x479) but the graph "
                            "uses it as an order-1 tensor"),
    "matrix for an order-3 tensor": (["run", str(GRAPHS / "tensor3_ttv.gv"), "-t",
                                      "B=west0479", "-t", "c=random:0.5"],
                                     "B is bound to a tensor of order 2 (shape 479x479) but the "
                                     "graph uses it as an order-3 tensor"),
    "scalar for a matrix": (["run", G, "-t", "B=2.5", "-t", "c=random:0.5"],
                            "B is bound to a tensor of order 0"),
    "vector of the wrong length": (["run", G, "-t", "B=west0479", "-t", "c=vector100.npy"],
                                   "index j has size 479 in B (mode 1) but 100 in c (mode 0); "
                                   "the shapes do not fit"),
    "random of the wrong length": (["run", G, "-t", "B=west0479", "-t", "c=random:0.5:1:100"],
                                   "index j has size 479 in B (mode 1) but 100 in c (mode 0)"),
    "random density not a number": (["run", G, "-t", "B=west0479", "-t", "c=random:abc"],
                                    "c: random:abc: DENSITY is a number in [0, 1]"),
    "random density above 1": (["run", G, "-t", "B=west0479", "-t", "c=random:1.5"],
                               "c: density 1.5 is not in [0, 1]"),
    "random shape of the wrong order": (["run", G, "-t", "B=west0479", "-t",
                                         "c=random:0.5:1:10x10"],
                                        "c: shape 10x10 has 2 dimension(s), the graph uses c "
                                        "with 1"),
    "random without a size": (["run", G, "-t", "B=random:0.1", "-t", "c=random:0.5"],
                              "cannot tell the size of mode 0 (index i) of B"),
    "runs spec": (["run", str(GRAPHS / "vec_elemmul.gv"), "-t", "b=runs:x", "-t", "c=runs:x"],
                  "b: write runs:LENGTH[:NNZ[:SEED[:SIZE]]]"),
    "transpose of a random of unknown size": (["run", G, "-t", "B=c^T", "-t", "c=random:0.5"],
                                              "cannot tell the size of mode 0 (index j) of c"),
    "bindings that refer to each other": (["run", str(MATMUL), "-t", "B=C", "-t", "C=B^T"],
                                          "B=C and C=B^T refer to each other"),
    "scalar not finite": (["run", str(GRAPHS / "vec_scalar_mul.gv"), "-t", "b=nan", "-t",
                           "c=random:0.5:1:10"], "scalar 'nan': a scalar must be a finite number"),
    "latency without value": (["run", G, *SPMV_OK, "--latency", "arrayvals"],
                              "--latency 'arrayvals': write TYPE=CYCLES"),
    "latency of an unknown type": (["run", G, *SPMV_OK, "--latency", "arrayval=2"],
                                   "--latency 'arrayval=2': unknown block type 'arrayval'"),
    "latency below 1": (["run", G, *SPMV_OK, "--latency", "union=0"],
                        "--latency 'union=0': a latency is 1 to 2147483647 cycles"),
    # mat_residual without its mindepth="2" edge attribute (custard.depths): a depth-1 deadlock
    "deadlock with bounded FIFOs": (["run", str(DEADLOCK), "-t",
                                     "b=random:0.4:1:7", "-t", "C=random:0.4:2:7x7", "-t",
                                     "d=random:0.4:3:7", "--fifo-depth", "1", "--engine",
                                     "reference"],
                                    "simulation cannot progress: node 0 (scan i: b0 "
                                    "(compressed)) waits for room on output crd (FIFO full)"),
    "fifo depth 0": (["run", G, *SPMV_OK, "--fifo-depth", "0"],
                     "--fifo-depth 0: a FIFO holds 1 to 2147483647 tokens"),
    "fifo depth beyond int64": (["run", G, *SPMV_OK, "--fifo-depth", "99999999999999999999"],
                                "--fifo-depth 99999999999999999999: a FIFO holds 1 to"),
    "latency beyond int64": (["run", G, *SPMV_OK, "--latency", "default=99999999999999999999"],
                             "a latency is 1 to 2147483647 cycles"),
    "negative seed in a spec": (["run", G, "-t", "B=west0479", "-t", "c=random:0.5:-1"],
                                "c: random:0.5:-1: SEED is a non-negative integer"),
    "negative --seed": (["run", G, *SPMV_OK, "--seed", "-3"],
                        "--seed -3: a seed is a non-negative integer"),
    "negative seed in a pair": (["run", str(GRAPHS / "vec_elemmul.gv"), "-t",
                                 "b=runs:5:10:-2:100", "-t", "c=runs:5:10:-2:100"],
                                "b: runs:5:10:-2:100: SEED is a non-negative integer"),
    "check without expression": (["run", str(ROOT / "tests/data/custard/mat_vecmul_ij.gv"),
                                  "-t", "B=west0067", "-t", "c=random:0.5", "--check",
                                  "--engine", "reference"],
                                 "does not record its expression; give it with --expr"),
    "check expr with an unbound tensor": (["run", G, *SMALL_OK, "--check", "--expr",
                                           "x(i)=B(i,j)*d(j)"],
                                          "it reads d, which is not an input of the graph"),
    "check expr of another shape": (["run", G, *SPMV_OK, "--check", "--expr",
                                     "X(i,j)=B(i,k)*B(k,j)"],
                                    "result shape (479,) differs from the expected (479, 479)"),
    "check expr unparsable": (["run", G, *SMALL_OK, "--check", "--expr", "x(i)="],
                              "expected a tensor access"),
    "output of unknown type": (["run", G, *SPMV_OK, "-o", "x.xyz"],
                               "-o x.xyz: unknown file type '.xyz'; use .mtx, .tns, .npy, .npz"),
    "vector result to .npz": (["run", str(GRAPHS / "vec_identity.gv"), "-t",
                               "b=random:0.5:1:6", "-o", "x.npz"],
                              "-o x.npz: .npz files hold matrices and the result x has order 1"),
    "scalar result to .mtx": (["run", str(GRAPHS / "tensor3_innerprod.gv"), "-t",
                               "B=splatt-small", "-t", "C=B", "-o", "x.mtx"],
                              "-o x.mtx: .mtx files hold matrices and the result x has order 0"),
    "report in a missing directory": (["run", G, *SMALL_OK, "--report", "nodir/r.json"],
                                      "nodir/r.json: folder nodir does not exist"),
    "draw stats not JSON": (["draw", G, "-o", "g.svg", "--stats", "garbage.json"],
                            "garbage.json: not a JSON report"),
    "draw stats not a report": (["draw", G, "-o", "g.svg", "--stats", "not_a_report.json"],
                                "not_a_report.json: not a sam-sim report"),
    "draw stats missing": (["draw", G, "-o", "g.svg", "--stats", "none.json"],
                           "none.json: no such report"),
    "draw unknown picture format": (["draw", G, "-o", "g.bmp"],
                                    "unknown picture format 'bmp'"),
    "plot not a report": (["plot", "not_a_report.json", "-o", "t.png"],
                          "not_a_report.json: not a sam-sim report"),
    "plot unknown picture format": (["plot", "minimal_report.json", "-o", "t.bmp"],
                                    "t.bmp: write a .png, .svg or .pdf picture"),
    "tensor of the wrong format": (["tensor", "splatt-small", "-f", "ss"],
                                   "format ss01 describes"),
    "tensor with a bad --shape": (["tensor", "splatt-small", "--shape", "2xb"],
                                  "--shape '2xb': write the size of every mode"),
    "tensor .mtx with --zero-based": (["tensor", "west0479", "--zero-based"],
                                      ".mtx files take no option zero_based"),
    "plot report with bad cycles": (["plot", "bad_cycles_report.json", "-o", "t.png"],
                                    "bad_cycles_report.json: not a valid sam-sim report: "
                                    "'cycles' must be a count"),
    "draw report with a bad block": (["draw", G, "-o", "g.svg", "--stats",
                                      "bad_block_report.json"],
                                     "not a valid sam-sim report: blocks[0].id must be a string"),
}


@pytest.fixture(scope="module")
def error_runs(bad_dir: Path) -> dict[str, subprocess.CompletedProcess]:
    """Every case of ERRORS, run a few at a time (each is a short process)."""
    runs = concurrently(*[partial(sam_sim, bad_dir, *args) for args, _ in ERRORS.values()])
    return dict(zip(ERRORS, runs, strict=True))


@pytest.mark.parametrize("case", list(ERRORS))
def test_error_is_one_line(case: str, bad_dir: Path, error_runs: dict) -> None:
    run = error_runs[case]
    one_line_error(run, ERRORS[case][1])
    assert run.stdout == ""
    assert not (bad_dir / "x.xyz").exists() and not (bad_dir / "g.svg").exists()


USAGE_ERRORS = {
    "unknown option": (["run", G, *SPMV_OK, "--bogus"], "unrecognized arguments: --bogus"),
    "no graph": (["run"], "the following arguments are required: graph"),
    "unknown engine": (["run", G, *SPMV_OK, "--engine", "bogus"],
                       "argument --engine: invalid choice: 'bogus'"),
    "fifo depth not a number": (["run", G, *SPMV_OK, "--fifo-depth", "two"],
                                "argument --fifo-depth: invalid int value"),
    "draw without -o": (["draw", G], "the following arguments are required: -o/--output"),
    "unknown command": (["frobnicate"], "invalid choice: 'frobnicate'"),
}


@pytest.fixture(scope="module")
def usage_runs(tmp_path_factory: pytest.TempPathFactory) -> dict:
    where = tmp_path_factory.mktemp("usage")
    runs = concurrently(*[partial(sam_sim, where, *args) for args, _ in USAGE_ERRORS.values()])
    return dict(zip(USAGE_ERRORS, runs, strict=True))


@pytest.mark.parametrize("case", list(USAGE_ERRORS))
def test_usage_errors_exit_2(case: str, usage_runs: dict) -> None:
    run = usage_runs[case]
    assert run.returncode == 2
    assert run.stdout == "" and "Traceback" not in run.stderr
    last = run.stderr.splitlines()[-1]
    assert last.startswith("sam-sim") and ": error: " in last and USAGE_ERRORS[case][1] in last


def test_no_command_prints_help_and_exits_2(tmp_path: Path) -> None:
    run = sam_sim(tmp_path)
    assert run.returncode == 2
    assert "usage: sam-sim" in run.stdout and "run" in run.stdout


# ------------------------------------------------------------------------------------------
# 4. draw and plot
# ------------------------------------------------------------------------------------------
@needs_dot
def test_draw_svg_and_png_without_stats(tmp_path: Path) -> None:
    run = ok(sam_sim(tmp_path, "draw", SPMV, "-o", "g.svg"))
    assert run.stdout.strip() == "wrote g.svg"
    texts = svg_texts(tmp_path / "g.svg")
    assert any("intersect" in t for t in texts)
    assert not any(t.startswith("busy ") for t in texts)
    assert not any(" data + " in t for t in texts)
    ok(sam_sim(tmp_path, "draw", MATMUL, "-o", "g.png"))
    width, height = png_size(tmp_path / "g.png")
    assert width > 100 and height > 100


@needs_dot
def test_draw_with_stats_shows_report_counts(tmp_path: Path, spmv_run: dict) -> None:
    report_path = spmv_run["dir"] / "report.json"
    r = spmv_run["report"]
    ok(sam_sim(tmp_path, "draw", SPMV, "-o", "g.svg", "--stats", report_path))
    texts = svg_texts(tmp_path / "g.svg")
    joined = "\n".join(texts)
    assert f"({r['cycles']:,} cycles)" in joined  # counts grouped by thousands
    for b in r["blocks"]:
        assert f"busy {b['busy']:,}" in texts, b["id"]
    for s in r["streams"]:
        t = s["tokens"]
        parts = [f"{t[k]:,} {k}" for k in ("data", "empty", "stop", "done") if t[k]]
        label = f"{sum(t.values()):,} = " + " + ".join(parts)
        assert label in texts, (s, label)
    ok(sam_sim(tmp_path, "draw", SPMV, "-o", "g.png", "--stats", report_path))
    png_size(tmp_path / "g.png")
    # a report of another graph would label the edges with unrelated counts
    wrong = sam_sim(tmp_path, "draw", MATMUL, "-o", "wrong.svg", "--stats", report_path)
    one_line_error(wrong, f"--stats {report_path} (a report of {SPMV}) does not fit {MATMUL}")
    assert not (tmp_path / "wrong.svg").exists()


def test_plot_tokens_and_timeline(tmp_path: Path, spmv_run: dict) -> None:
    report_path = spmv_run["dir"] / "report.json"
    run = ok(sam_sim(tmp_path, "plot", report_path, "-o", "tokens.png"))
    assert run.stdout.splitlines() == ["wrote tokens.png", "wrote tokens-timeline.png"]
    _, all_scanners = png_size(tmp_path / "tokens.png")
    png_size(tmp_path / "tokens-timeline.png")

    # the streams of one node, by node id: its crd and ref outputs, two rows
    scan_j = next(b["id"] for b in spmv_run["report"]["blocks"]
                  if b["label"].startswith("scan j: c0"))
    ok(sam_sim(tmp_path, "plot", report_path, "-o", "two.png", "--stream", scan_j,
               "--timeline", "tl.svg"))
    _, two = png_size(tmp_path / "two.png")
    assert two < all_scanners  # the figure is sized by its rows (three scanners' crd)
    assert ET.fromstring((tmp_path / "tl.svg").read_bytes()).tag.endswith("svg")
    assert not (tmp_path / "two-timeline.png").exists()


def test_plot_unknown_stream_is_one_line(tmp_path: Path, spmv_run: dict) -> None:
    run = sam_sim(tmp_path, "plot", spmv_run["dir"] / "report.json", "-o", "t.png",
                  "--stream", "99")
    line = one_line_error(run, "no stream matches ['99']", "streams in the report: 0:crd")
    assert "5:ref:out-B" in line
    assert not (tmp_path / "t.png").exists()


# ------------------------------------------------------------------------------------------
# 5. tensor, data, help
# ------------------------------------------------------------------------------------------
def test_tensor_prints_level_arrays(tmp_path: Path) -> None:
    run = ok(sam_sim(tmp_path, "tensor", "west0479", "-f", "ds"))
    t = load_tensor("west0479", "ds")
    lines = run.stdout.splitlines()
    assert lines[0].startswith("west0479: shape 479x479, format ds01")
    assert "  level 0 (mode 0, dense, size 479):" in lines
    assert "  level 1 (mode 1, compressed, size 479):" in lines
    seg = t.levels[1].seg.tolist()
    assert any(line.strip().startswith(f"seg = [{seg[0]}, {seg[1]}, {seg[2]}")
               for line in lines)
    vals = next(line for line in lines if line.strip().startswith("vals = ["))
    first = vals.split("[", 1)[1].split(",")[0]
    assert float(first) == pytest.approx(t.vals[0], rel=1e-4)


def test_data_lists_shipped_names(tmp_path: Path) -> None:
    run = ok(sam_sim(tmp_path, "data", "--names"))
    names = run.stdout.split()
    assert names == list(data.names())
    assert "west0479" in names and "splatt-small" in names and "bcsstk13" in names


def test_data_table_has_shapes_and_nonzeros(tmp_path: Path) -> None:
    lines = ok(sam_sim(tmp_path, "data")).stdout.splitlines()
    assert lines[0].split() == ["name", "kind", "shape", "nonzeros", "file"]
    rows = {line.split()[0]: line.split() for line in lines[2:] if line.strip()
            and line.split()[0] in data.names()}
    assert sorted(rows) == list(data.names())
    for name in ("west0479", "lp_scsd1", "LFAT5"):
        gold = scipy.io.mmread(data.path(name))
        assert rows[name][1] == "suitesparse"
        assert rows[name][2] == f"{gold.shape[0]}x{gold.shape[1]}"
        assert int(rows[name][3].replace(",", "")) == np.count_nonzero(gold.toarray())
    assert rows["splatt-small"][1:4] == ["frostt", "2x3x2", "6"]
    assert rows["splatt-small4_zeroidx"][2] == "3x3x4x3"  # read 0-based by name


def test_help_mentions_specs_and_exit_codes(tmp_path: Path) -> None:
    top = ok(sam_sim(tmp_path, "--help")).stdout
    flat = " ".join(top.split())
    for fragment in ("run", "draw", "plot", "tensor", "data", "0 ok", "1 error", "2 usage",
                     "3 --check failed", "130 interrupted", "sam-sim run --help"):
        assert fragment in flat, fragment
    run = ok(sam_sim(tmp_path, "run", "--help")).stdout
    flat = " ".join(run.split())
    for fragment in ("tensor specs (-t NAME=SPEC)", "random:DENSITY[:SEED[:SHAPE]]",
                     "runs:LEN[:NNZ[:SEED[:SIZE]]]", "blocks:LEN", "B | B^T | transpose(B)",
                     "FILE.mtx", "sam-sim data", "--fifo-depth", "--latency", "--engine",
                     "exit status: 0 ok, 1 error", "3 --check found a wrong result",
                     "130 interrupted"):
        assert fragment in flat, fragment


# ------------------------------------------------------------------------------------------
# 6. custard compile --run
# ------------------------------------------------------------------------------------------
def test_custard_compile_run_check_result(tmp_path: Path) -> None:
    run = ok(custard(tmp_path, "compile", "X(i,j)=B(i,k)*C(k,j)", "-f=B:ss", "-f=C:ss",
                     "-s=reorder(i,k,j)", "-o", "g.gv", "--run", "-t", "B=west0067",
                     "-t", "C=B^T", "--check", "--engine", "reference", "--result", "X.mtx"))
    assert "digraph" not in run.stdout  # the DOT text went to -o only
    assert run.stdout.rstrip().splitlines()[-1].startswith("PASS: ")
    b = scipy_matrix("west0067")
    gold = (b @ b.T).toarray()
    np.testing.assert_allclose(load_tensor(tmp_path / "X.mtx").to_dense(), gold, rtol=1e-12)
    from sam.graph.dot import load

    graph = load(tmp_path / "g.gv")
    assert graph.attrs.get("expression") == "X(i,j)=B(i,k)*C(k,j)"
    # the written graph, run by sam-sim, gives the same cycles
    again = ok(sam_sim(tmp_path, "run", "g.gv", "-t", "B=west0067", "-t", "C=B^T",
                       "--engine", "reference"))
    cycles = next(line for line in run.stdout.splitlines() if line.startswith("cycles: "))
    assert cycles in again.stdout.splitlines()


def test_custard_run_json_matches_sam_sim(tmp_path: Path, spmv_fifo2: dict) -> None:
    run = ok(custard(tmp_path, "compile", "x(i)=B(i,j)*c(j)", "--run", "-t", "B=lp_scsd1",
                     "-t", "c=random:0.5:3", "--json", "--fifo-depth", "2", "--check",
                     "--result", "x.npy", "--counts"))
    r = json.loads(run.stdout)  # --counts goes to stderr: stdout is pure JSON
    assert "Lvl Scan" in run.stderr
    assert r["expression"] == "x(i)=B(i,j)*c(j)" and r["fifo_depth"] == 2
    assert r["engine"] == "fast" and r["check"]["passed"] is True
    b = scipy_matrix("lp_scsd1")
    c = random_tensor((760,), 0.5, 3).to_dense()
    np.testing.assert_allclose(np.load(tmp_path / "x.npy"), b @ c, rtol=1e-12)
    # dot_graphs/mat_vecmul_ij.gv is this expression compiled with the default options
    same = spmv_fifo2["report"]
    assert r["cycles"] == same["cycles"] and r["tokens"] == same["tokens"]
    assert [b["busy"] for b in r["blocks"]] == [b["busy"] for b in same["blocks"]]


def test_custard_run_errors(tmp_path: Path) -> None:
    expr = "x(i)=B(i,j)*c(j)"
    run_errors = [
        (["-t", "B=west0479"], "the graph reads tensor c but it is not bound"),
        (["-t", "B=west0479", "-t", "c=random:0.5", "--latency", "arrayvals"],
         "--latency 'arrayvals'"),
        (["-t", "B=west0479", "-t", "c=random:0.5", "--result", "x.bmp"],
         "--result x.bmp: unknown file type '.bmp'"),
    ]
    usage_errors = [
        (["-t", "B=west0479"], "-t: simulation options, they need --run"),
        (["--check", "--engine", "reference"], "--check, --engine: simulation options"),
        (["--run", "-o", "-", "-t", "B=west0479"], "-o - (the DOT text on stdout) cannot"),
    ]
    calls = [("compile", expr, "--run", *args) for args, _ in run_errors]
    calls += [("compile", expr, *args) for args, _ in usage_errors]
    calls += [("compile", expr), ("compile", "--help")]
    runs = concurrently(*[partial(custard, tmp_path, *args) for args in calls])
    for run, (_, fragment) in zip(runs, run_errors, strict=False):
        one_line_error(run, fragment, prog="custard")
    for run, (_, fragment) in zip(runs[len(run_errors):], usage_errors, strict=False):
        assert run.returncode == 2 and run.stdout == "" and "Traceback" not in run.stderr
        last = run.stderr.splitlines()[-1]
        assert last.startswith("custard compile: error: ") and fragment in last, last
    # without --run, compile is unchanged: the DOT text on stdout
    assert ok(runs[-2]).stdout.startswith("digraph SAM {")
    helptext = " ".join(ok(runs[-1]).stdout.split())
    assert "--run" in helptext and "random:DENSITY[:SEED[:SHAPE]]" in helptext
    assert not (tmp_path / "x.bmp").exists()


# ------------------------------------------------------------------------------------------
# 7. progress bar and Ctrl-C
# ------------------------------------------------------------------------------------------
LONG_RUN = ("run", MATMUL, "-t", "B=bcsstk13", "-t", "C=B", "--engine", "reference")  # ~60 s


def _sigint_default() -> None:  # a child of a shell that ignores SIGINT would inherit that
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _pty_read(fd: int, until: bytes | None, deadline: float) -> bytes:
    out = b""
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.1)
        if not ready:
            if until is None:
                break
            continue
        try:
            chunk = os.read(fd, 4096)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        out += chunk
        if until is not None and until in out:
            break
    return out


def _interrupt_on_pty(tmp_path: Path, module: str, args: tuple, wait_for: bytes | None,
                      sleep: float) -> tuple[subprocess.Popen, str, bytes]:
    """Run with stderr on a terminal (80 columns), wait for ``wait_for`` there (or ``sleep``
    seconds), send SIGINT; return the process, its stdout and the terminal's bytes."""
    import fcntl
    import termios

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    proc = subprocess.Popen([sys.executable, "-m", module, *map(str, args)], cwd=tmp_path,
                            env=_env(), stdout=subprocess.PIPE, stderr=slave, text=True,
                            preexec_fn=_sigint_default)
    os.close(slave)
    try:
        if wait_for is not None:
            seen = _pty_read(master, wait_for, time.monotonic() + 40)
        else:
            time.sleep(sleep)
            seen = _pty_read(master, None, time.monotonic() + 1)
        finished_early = proc.poll() is not None
        if not finished_early:
            proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=60)
        seen += _pty_read(master, None, time.monotonic() + 2)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
    if finished_early:
        pytest.skip("the run finished before the signal")
    return proc, out, seen


def _terminal_lines(seen: bytes) -> list[str]:
    """What is left on the terminal: progress-bar redraws (\\r) and blank lines removed."""
    lines = []
    text = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", seen.decode(errors="replace"))  # erase-line
    for line in text.replace("\r\n", "\n").split("\n"):
        last = line.split("\r")[-1].strip()
        if last:
            lines.append(last)
    return lines


@pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX terminal (pty)")
def test_progress_bar_on_a_terminal_and_ctrl_c(tmp_path: Path) -> None:
    proc, out, seen = _interrupt_on_pty(
        tmp_path, "sam.cli", (*LONG_RUN, "-o", "X.mtx", "--report", "r.json"),
        wait_for=b"simulating", sleep=0)
    assert b"simulating" in seen  # the bar appeared (after two seconds)
    assert b"tok" in seen  # it counts tokens
    assert proc.returncode == 130, out
    assert "INTERRUPTED: statistics are partial" in out.splitlines()
    assert out.startswith("cycles: ")  # no result line: there is no result
    assert _terminal_lines(seen) == ["sam-sim: interrupted; the statistics above are partial"]
    assert not (tmp_path / "X.mtx").exists()  # no partial result is written
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["interrupted"] is True and 0 < report["cycles"]
    assert report["outputs"] == {}  # an interrupted run assembles no result
    for b in report["blocks"]:
        assert b["busy"] + b["idle"] + b["stalled"] == b["finished"] <= report["cycles"]


@pytest.mark.skipif(sys.platform == "win32", reason="needs POSIX signals")
def test_custard_run_ctrl_c_json_without_terminal(tmp_path: Path) -> None:
    """Pipes only (no bar); SIGINT mid-run gives exit 130, a partial JSON report and one
    stderr line."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "custard.cli", "compile", "X(i,j)=B(i,k)*C(k,j)",
         "-s=reorder(i,k,j)", "--run", "-t", "B=bcsstk13", "-t", "C=B", "--engine",
         "reference", "--json"],
        cwd=tmp_path, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=_sigint_default)
    try:
        time.sleep(4)
        if proc.poll() is not None:
            pytest.skip("the run finished before the signal")
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    if not out and err.strip() == "custard: interrupted":
        pytest.skip("the signal arrived before the simulation started")
    assert proc.returncode == 130, err
    assert err.splitlines() == ["custard: interrupted; the statistics above are partial"]
    report = json.loads(out)
    assert report["interrupted"] is True and report["check"] is None
    assert report["cycles"] > 0 and report["tokens"] > 0
    assert report["tokens"] == sum(sum(b["tokens_out"].values()) for b in report["blocks"])


# ------------------------------------------------------------------------------------------
# a bug these tests found in sam/sim (fixed in 074e9c1): regression test
# ------------------------------------------------------------------------------------------
def test_deep_fifo_bound_behaves_like_no_bound() -> None:
    """A FIFO bound deeper than the run's streams equals no bound (the rings used to be
    allocated at the bound's size: --fifo-depth 1000000000 needed 152 GiB)."""
    from sam.bind import bind_tensors
    from sam.graph.dot import load
    from sam.sim.engine import simulate

    graph = load(GRAPHS / "vec_identity.gv")
    tensors = bind_tensors(graph, {"b": "random:0.5:1:6"})
    free = simulate(graph, tensors, engine="reference")
    deep = simulate(graph, tensors, engine="reference", fifo_depth=2**50)
    assert deep.cycles == free.cycles
    np.testing.assert_array_equal(deep.outputs["x"].to_dense(), free.outputs["x"].to_dense())
