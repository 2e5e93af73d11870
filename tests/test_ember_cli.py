"""``custard ember`` (issue 15): printing each level, running with inputs bound by name,
writing the result and the queue trace, one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from custard.cli import main
from custard.ember.context import parse_module

DATA = Path(__file__).resolve().parents[1] / "custard" / "ember" / "data"
SCF = str(DATA / "eb_scf.mlir")


@pytest.fixture
def fig10(tmp_path: Path) -> list[str]:
    arrays = {"arg0": np.array([0, 2, 3]), "arg1": np.array([0, 2, 5]),
              "arg4": np.arange(1, 25, dtype=float).reshape(6, 4)}
    args = []
    for name, arr in arrays.items():
        np.save(tmp_path / f"{name}.npy", arr)
        args += ["-t", f"{name}={tmp_path / f'{name}.npy'}"]
    return args


@pytest.mark.parametrize("at", ["tmu", "dlc"])
def test_run_writes_result_and_trace(tmp_path, fig10, capsys, at):
    out, trace = tmp_path / "out.npy", tmp_path / "trace.json"
    assert main(["ember", SCF, "-O3", "--vlen", "2", "--run", *fig10, "--at", at, "-o",
                 str(out), "--trace", str(trace)]) == 0
    assert np.load(out).tolist() == [[10, 12, 14, 16], [21, 22, 23, 24]]
    t = json.loads(trace.read_text())
    if at == "tmu":  # the DAE machine's result (tests/test_ember_dae_cli.py)
        assert t.pop("machine")["cores"][0]["tokens"] == 6
    assert t == {"control": ["ee", "ee", "se", "ee", "se", "done"],
                 "data": [[1.0, 2.0], [3.0, 4.0], [9.0, 10.0], [11.0, 12.0], [21.0, 22.0],
                          [23.0, 24.0]]}
    err = capsys.readouterr().err
    assert ("cycles" in err) if at == "tmu" else ("6 control tokens, 6 data entries" in err)


@pytest.mark.parametrize("level, counts", [(0, (13, 36)), (1, (7, 18)), (2, (4, 9))])
def test_trace_sizes_per_level(tmp_path, fig10, level, counts):
    trace = tmp_path / "t.json"
    assert main(["ember", SCF, f"-O{level}", "--vlen", "2", "--run", *fig10, "-o",
                 str(tmp_path / "o.npy"), "--trace", str(trace)]) == 0
    t = json.loads(trace.read_text())
    assert (len(t["control"]), len(t["data"])) == counts


@pytest.mark.parametrize("emit, op", [("slc", "slcvec.for"), ("dlc", "dlc.compute_loop")])
def test_emit_prints_a_level_that_reads_back(capsys, emit, op):
    assert main(["ember", SCF, "-O3", "--emit", emit]) == 0
    text = capsys.readouterr().out
    assert op in {o.name for o in parse_module(text).walk()}


def test_emit_dot_writes_the_tmu_graph(tmp_path, fig10):
    from sam.graph.dot import loads

    dot = tmp_path / "g.dot"
    assert main(["ember", SCF, "-O3", "--vlen", "2", "--emit", "dot", *fig10, "-o",
                 str(dot)]) == 0
    graph = loads(dot.read_text())
    assert sorted(b.dot_type for b in graph.blocks.values()) == ["execute", "tmu"]


@pytest.mark.parametrize("op", ["sls", "spmm", "spattn", "mp", "kg"])
def test_op_prints_scf_input(capsys, op):
    assert main(["ember", "--op", op]) == 0
    mod = parse_module(capsys.readouterr().out)
    assert "scf.for" in {o.name for o in mod.walk()}


def test_malformed_file_is_one_line_with_position(tmp_path, capsys):
    bad = tmp_path / "bad.mlir"
    bad.write_text(Path(SCF).read_text().replace("memref.load %arg0[%3]",
                                                 "memref.load %arg0[%33]"))
    assert main(["ember", str(bad), "-O1"]) == 1
    err = capsys.readouterr().err.strip()
    assert "\n" not in err
    assert err.startswith(f"custard: error: {bad}:11:") and "%33" in err


def test_usage_errors_are_one_line(tmp_path, capsys):
    assert main(["ember"]) == 1
    assert "give either FILE.mlir or --op" in capsys.readouterr().err
    assert main(["ember", SCF, "-O1", "--run", "-t", "arg0"]) == 1
    assert "write NAME=FILE.npy" in capsys.readouterr().err
    assert main(["ember", SCF, "-O1", "--run", "-t", f"arg0={tmp_path}/none.npy"]) == 1
    assert "cannot read" in capsys.readouterr().err
