"""``custard mlir`` on the command line: lowering printed, a run fused and unfused with the
result written and equal to numpy, the SAM program written as DOT, the file's own driver run
with ``--entry``, and bad input as one line ``FILE:LINE:COL: what``."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from custard.cli import main
from formats.io import load_tensor

from helpers.mlir_text import mlir_kernel

ROOT = Path(__file__).resolve().parent.parent
PEERS = ROOT / "tests" / "data" / "mlir-sparsifier"
EXAMPLES = ROOT / "custard" / "mlir" / "examples"


def test_run_writes_the_result_the_graphs_and_both_cycle_counts(
        tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    k = tmp_path / "chain.mlir"
    k.write_text((EXAMPLES / "sddmm_spmm.mlir").read_text())
    argv = ["mlir", str(k), "--run", "-t", "M=random:0.3:1:12x12", "-t", "Q=random:1:2:12x4",
            "-t", "K=random:1:3:12x4", "-t", "V=random:1:4:12x5", "--engine", "reference",
            "--result", str(tmp_path / "o.tns"), "-o", str(tmp_path / "g.gv"),
            "--report", str(tmp_path / "r.json")]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "fused:" in out and "unfused/fused" in out and "results equal" in out
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["cycles_fused"] < report["cycles_unfused"]
    assert "digraph" in (tmp_path / "g.gv").read_text()
    from sam.bind import synthetic_tensor

    m, q, kk, v = (synthetic_tensor(spec, name, seed=0).to_dense() for spec, name in [
        ("random:0.3:1:12x12", "M"), ("random:1:2:12x4", "Q"), ("random:1:3:12x4", "K"),
        ("random:1:4:12x5", "V")])
    got = load_tensor(str(tmp_path / "o.tns")).to_dense()
    want = (m * (q @ kk.T)) @ v
    np.testing.assert_allclose(got.reshape(want.shape), want, rtol=1e-12, atol=1e-12)


def test_entry_runs_the_tests_driver(monkeypatch: pytest.MonkeyPatch,
                                     capsys: pytest.CaptureFixture) -> None:
    monkeypatch.setenv("TENSOR0", str(PEERS / "data" / "wide.mtx"))
    assert main(["mlir", str(PEERS / "CPU" / "sparse_matvec.mlir"), "--entry"]) == 0
    captured = capsys.readouterr()
    assert "( 889, 1514, -21, -3431 )" in captured.out
    assert "SAM call(s)" in captured.err


def test_the_lowered_statements_are_printed(tmp_path: Path,
                                            capsys: pytest.CaptureFixture) -> None:
    k = tmp_path / "k.mlir"
    k.write_text(mlir_kernel("x(i)=A(i,j)*b(j)", {"A": "ds", "x": "d"}, ["i", "j"]))
    assert main(["mlir", str(k)]) == 0
    assert "x(i) = A(i,j) * b(j) -f=x:d -f=A:ds -f=b:d" in capsys.readouterr().out


@pytest.mark.parametrize("text,where,words", [
    ("func.func @k(%a: tensor<?xf64>) {\n  %0 = linalg.generic {\n", "2:23", "never closed"),
    ("func.func @k(%a: tensor<?xf64>) -> tensor<?xf64> {\n  %0 = linalg.conv_2d ins(%a : "
     "tensor<?xf64>) outs(%a : tensor<?xf64>) -> tensor<?xf64>\n  return %0 : tensor<?xf64>\n}\n",
     "2:8", "linalg.conv_2d in a kernel function is not lowered"),
])
def test_bad_input_is_one_line_with_its_position(tmp_path: Path, text: str, where: str,
                                                 words: str,
                                                 capsys: pytest.CaptureFixture) -> None:
    k = tmp_path / "bad.mlir"
    k.write_text(text)
    assert main(["mlir", str(k), "--func", "k"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert f"bad.mlir:{where}: " in err and words in err
