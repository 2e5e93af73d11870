"""``custard ember --run`` (at tmu) and ``sam-sim tmu`` time their run on the DAE machine
(issue 34; :mod:`sam.dae`): ``--machine``, ``--cores``, ``--queue-entries``, the summary equal to
``simulate``'s numbers, Figure 10's machine cycles derived by hand from the model's rules, and
one-line errors."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

from custard.cli import main as custard
from custard.ember.context import parse_module
from custard.ember.pipeline import compile_module, input_level, with_outputs
from custard.ember.to_tmu import access_trace, lower_to_tmu
from sam.dae.machine import paper_machine
from sam.dae.simulate import simulate
from sam.tmu_cli import machine_summary

SCF = Path(__file__).resolve().parents[1] / "custard" / "ember" / "data" / "eb_scf.mlir"
FIG10 = {"arg0": np.array([0, 2, 3]), "arg1": np.array([0, 2, 5]),
         "arg4": np.arange(1, 25, dtype=float).reshape(6, 4)}


@pytest.fixture
def fig10(tmp_path: Path) -> list[str]:
    args = []
    for name, arr in FIG10.items():
        np.save(tmp_path / f"{name}.npy", arr)
        args += ["-t", f"{name}={tmp_path / name}.npy"]
    return args


def ember(tmp_path: Path, fig10: list[str], *extra: str, level: int = 3, vlen: int = 2,
          engine: str = "reference") -> list[str]:
    return ["ember", str(SCF), f"-O{level}", "--vlen", str(vlen), "--run", *fig10, "-o",
            str(tmp_path / "o.npy"), "--engine", engine, *extra]


def one_line_error(capsys: pytest.CaptureFixture[str], prog: str) -> str:
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"{prog}: error: "), err
    assert "Traceback" not in err
    return lines[0]


def chain() -> float:
    """Three dependent HBM misses (lines 0, 1, 2; :func:`hand_cycles`)."""
    m = paper_machine()
    hbm = m.hbm.latency_ns * m.clocks.core_ghz + m.line_bytes * m.hbm.channels \
        * m.clocks.core_ghz / m.hbm.bandwidth_gbps
    noc = 2 * (m.noc.router_cycles + m.noc.link_cycles)
    return sum(m.l2.latency_cycles + noc * line + m.llc.latency_cycles + hbm
               for line in range(3))


def hand_cycles(level: int) -> float:
    """Figure 10's machine cycles from the model's rules (sam/dae/simulate.py, memory.py) on the
    shipped machine, one core. Every level loads the same four lines (ptrs, idxs, two of the
    table) and starts with the same chain of three dependent HBM misses: bound load (line 0) ->
    index load (line 1) -> first table row (line 2); a miss of line L costs the L2 latency, the
    NoC round trip to slice L (2 x L hops x 2 cycles), the LLC latency, the HBM latency and the
    line's transfer on its channel. The TMU pushes one entry per queue per TMU cycle (2.4 core
    cycles); a push is seen by the core ``queue latency`` later; then the core's work (dispatch
    4, scalar/vector pop 1, scalar ALU 0.25, rmw scalar 1 / vector 2) runs back to back."""
    m = paper_machine()
    tmu = m.clocks.core_ghz / m.clocks.tmu_ghz
    q, c, t0 = m.queues.latency_cycles, m.core, chain()
    d = c.dispatch
    if level == 0:  # token 1's value pushed 1 TMU cycle after the row, token 2 1 later;
        # 11 more tokens "ei" (3 scalar pops, scalar rmw), then "done"
        return t0 + 2 * tmu + q + 11 * (d + 3 * c.pop_scalar + c.rmw_scalar) + d
    if level == 1:  # token 1 (its 2 scalars popped long before) waits for its vector
        per = d + 2 * c.pop_scalar + c.pop_vector + c.rmw_vector
        return t0 + tmu + q + c.pop_vector + c.rmw_vector + 5 * per + d
    if level == 2:  # 3 tokens "ee": 1 scalar pop, 2 vectors popped and added
        per = d + c.pop_scalar + 2 * (c.pop_vector + c.rmw_vector)
        return t0 + 2 * tmu + q + 3 * per + d
    # O3: 3 tokens "ee" (2 vectors) and 2 segment-end tokens "se" (one scalar ALU op)
    ee, se = d + 2 * (c.pop_vector + c.rmw_vector), d + c.alu_scalar
    return t0 + 2 * tmu + q + 3 * ee + 2 * se + d


def test_figure_10_machine_cycles_are_the_hand_derived_ones(tmp_path, fig10, capsys):
    token, machine = [], []
    for level in range(4):
        assert custard(ember(tmp_path, fig10, level=level)) == 0
        err = capsys.readouterr().err
        token.append(int(re.search(r"(\d+) cycles on the TMU graph", err).group(1)))
        machine.append(int(re.search(r"ember-dae, 1 core: ([\d,]+) cycles", err).group(1)
                           .replace(",", "")))
    assert token == [50, 26, 17, 15]  # docs/ember.md: unchanged
    assert machine == [math.ceil(hand_cycles(k)) for k in range(4)] == [658, 615, 603, 608]
    # the three dependent misses (156 cycles of HBM latency each) are most of every level's
    assert chain() == pytest.approx(552.288)
    assert all(chain() / cycles > 0.83 for cycles in machine)


def test_summary_and_trace_json_are_simulates_numbers(tmp_path, fig10, capsys):
    trace = tmp_path / "t.json"
    assert custard(ember(tmp_path, fig10, "--cores", "3", "--trace", str(trace),
                         level=2)) == 0
    err = capsys.readouterr().err
    mod = parse_module(SCF.read_text(), str(SCF))
    c = compile_module(mod, 2, 2, str(SCF))
    low = lower_to_tmu(c.dlc, with_outputs(c.at(input_level(mod)), dict(FIG10)))
    tr = access_trace(low, engine="reference")
    m = paper_machine()
    want = simulate([tr] * 3, m, "reference")
    assert json.loads(trace.read_text())["machine"] == want.to_dict()
    assert f"ember: -O2 --vlen 2: {machine_summary(want, m)}" in err
    assert f"HBM {3 * 256:,} bytes" in err and "ember-dae, 3 cores: " in err
    assert want.cycles > simulate([tr], m, "reference").cycles  # the shared HBM channels
    # fast engine: the same numbers
    assert custard(ember(tmp_path, fig10, "--cores", "3", level=2, engine="fast")) == 0
    assert machine_summary(want, m) in capsys.readouterr().err


def test_a_machine_file_and_queue_entries(tmp_path, fig10, capsys):
    yaml = tmp_path / "m.yaml"
    yaml.write_text("name: slow-hbm\ncores: 2\nhbm:\n  latency_ns: 130\n")
    assert custard(ember(tmp_path, fig10, "--machine", str(yaml), "--queue-entries", "8",
                         level=0)) == 0
    err = capsys.readouterr().err
    cycles = int(re.search(r"slow-hbm, 1 core: ([\d,]+) cycles", err).group(1).replace(",", ""))
    # three dependent misses, each 65 ns (156 cycles) slower; queues of 8 hold O0's entries
    assert cycles == math.ceil(hand_cycles(0) + 3 * 65 * 2.4)


@pytest.mark.parametrize("argv, message", [
    (["-O3", "--machine", "M"], "--machine applies to a --run; add --run or drop --machine"),
    (["-O3", "--cores", "2"], "--cores applies to a --run"),
    (["-O3", "--run", "--at", "dlc", "--queue-entries", "4", "T"],
     "--queue-entries times the TMU run on the DAE machine; drop it with --at dlc"),
    (["-O3", "--run", "--cores", "9", "T"], "--cores 9: the machine ember-dae has 8 cores"),
    (["-O3", "--run", "--cores", "0", "T"], "--cores 0: give 1 or more"),
    (["-O3", "--run", "--queue-entries", "0", "T"], "--queue-entries 0: give 1 or more"),
    (["-O3", "--run", "--machine", "W/none.yaml", "T"], "none.yaml"),
    (["-O3", "--run", "--machine", "W/bad.yaml", "T"], "cannot parse"),
    (["-O3", "--run", "--machine", "W/empty.yaml", "T"], "W/empty.yaml: the DAE machine is empty"),
    (["-O3", "--run", "--machine", "W/binary.yaml", "T"], "W/binary.yaml:1:1: the DAE machine is "
     "not UTF-8 text"),
    (["-O3", "--run", "--machine", "W/field.yaml", "T"], "unknown field 'warp'"),
    (["-O3", "--run", "--machine", "W/m.json", "--trace", "W/m.json", "T"],
     "--trace W/m.json: that is an input of this command"),
])
def test_option_errors_are_one_line(tmp_path, fig10, capsys, argv, message):
    (tmp_path / "bad.yaml").write_text("hbm: [1,\n")
    (tmp_path / "empty.yaml").write_bytes(b"")
    (tmp_path / "binary.yaml").write_bytes(b"\xff\xfe\x00cores")
    (tmp_path / "field.yaml").write_text("core:\n  warp: 32\n")
    (tmp_path / "m.json").write_text("{}")
    argv = [a.replace("W/", f"{tmp_path}/") for a in argv]
    argv = [x for a in argv for x in (fig10 if a == "T" else [a])]
    argv = [str(SCF) if a == "M" else a for a in argv]
    assert custard(["ember", str(SCF), *argv]) == 1
    assert message.replace("W/", f"{tmp_path}/") in one_line_error(capsys, "custard")
    assert not (tmp_path / "o.npy").exists()


def test_a_queue_too_small_for_a_bufferized_embedding_is_one_line(tmp_path, capsys):
    """-O2 pushes a row's 4 vectors (32 columns, --vlen 8) and its segment before the token."""
    rng = np.random.default_rng(0)
    arrays = {"arg0": np.array([0, 3, 7, 10]), "arg1": rng.integers(0, 16, 10),
              "arg4": rng.uniform(-1, 1, (16, 32))}
    binds = []
    for name, arr in arrays.items():
        np.save(tmp_path / f"{name}.npy", arr)
        binds += ["-t", f"{name}={tmp_path / name}.npy"]
    argv = ember(tmp_path, binds, "--queue-entries", "2", level=2, vlen=8)
    assert custard(argv) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert "cycles on the TMU graph" in err[0]  # the functional run came first
    assert len(err) == 2 and err[1].startswith("custard: error: ember-dae: the data queue (2 "
                                                "entries) deadlocks")
    assert err[1].endswith("or --queue-entries 5 or more")
    assert custard(argv[:-1] + ["5"]) == 0


# ----------------------------------------------------------------------------- sam-sim tmu
def test_sam_sim_tmu_summary_is_simulates(capsys):
    from formats.tensor import Tensor
    from sam.bind import synthetic_tensor
    from sam.cli import main
    from sam.dae.record import record
    from sam.tmu_ops import build_op

    spec = "random:0.3:1:6x8"
    assert main(["tmu", "--op", "sls", "-A", spec, "--dim", "16", "--lanes", "4",
                 "--engine", "reference", "--cores", "2", "--queue-entries", "16"]) == 0
    out = capsys.readouterr().out
    A = synthetic_tensor(spec, "A").to_scipy().tocsr()
    graph, tensors = build_op("sls", Tensor.from_scipy(A, "ds"),
                              Tensor.from_dense(np.ones((8, 16)), "dd"), lanes=4)
    tmu = next(b for b in graph.blocks.values() if b.dot_type == "tmu")
    ex = next(b for b in graph.blocks.values() if b.dot_type == "execute")
    m = paper_machine().replace(control_entries=16, data_entries=16)
    tr = record(tmu.config, tensors, ex.program, engine="reference")
    want = simulate([tr, tr], m, "reference")
    assert machine_summary(want, m) in out and "check: passed" in out


@pytest.mark.parametrize("argv, message", [
    (["--mode", "sam", "--cores", "2"], "--cores times a dae-mode run on the DAE machine and "
     "--mode sam has no queues"),
    (["--dot", "W/g.gv", "--machine", "W/m.yaml"], "--machine times a dae-mode run"),
    (["--cores", "9"], "--cores 9: the machine ember-dae has 8 cores"),
    (["--queue-entries", "-1"], "--queue-entries -1: give 1 or more"),
    (["--machine", "W/bad.yaml"], "cannot parse"),
    (["--machine", "W/empty.yaml"], "empty.yaml: the DAE machine is empty"),
    (["--machine", "W/binary.yaml"], "binary.yaml:1:1: the DAE machine is not UTF-8 text"),
    (["--machine", "W/m.yaml", "--dim", "4", "--cores", "3"],
     "--cores 3: the machine two has 2 cores"),
])
def test_sam_sim_tmu_option_errors_are_one_line(tmp_path, capsys, argv, message):
    from sam.cli import main

    (tmp_path / "bad.yaml").write_text("hbm: [1,\n")
    (tmp_path / "empty.yaml").write_bytes(b"")
    (tmp_path / "binary.yaml").write_bytes(b"\xff\xfe\x00cores")
    (tmp_path / "m.yaml").write_text("name: two\ncores: 2\n")
    argv = [a.replace("W/", f"{tmp_path}/") for a in argv]
    assert main(["tmu", "--op", "sls", "-A", "random:0.3:1:6x8", *argv]) == 1
    assert message in one_line_error(capsys, "sam-sim")
    assert not (tmp_path / "g.gv").exists()


def test_cores_whose_simulation_does_not_fit_memory_is_one_line(tmp_path, fig10, capsys,
                                                                  monkeypatch):
    import sam.tmu_cli

    monkeypatch.setattr(sam.tmu_cli, "SIM_BYTES_PER_ITEM", 1 << 60)
    assert custard(ember(tmp_path, fig10, "--cores", "2")) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and err[1].startswith("custard: error: --cores 2: the DAE machine's "
                                                "simulation: ")
