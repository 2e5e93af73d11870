"""``custard tile`` keeps the command layer's promises (issue 31): options, the memory
configuration and the output are checked before any compile, bind or simulation; tile sizes are
bounded by the memory their tiles and tuples need; the result check follows the nonzeros, is
decided before the run and tells a wrong result from a right one."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import custard.api
import custard.tiling
import sam.bind
import sam.check
import sam.program
from custard.cli import main
from custard.tiling import check_tiling, tiling_size
from formats.io import load_tensor, save_tensor
from formats.tensor import Tensor
from sam.command.bounds import BoundError
from sam.errors import SimulationError
from sam.memory_model import hierarchy_from, load_hierarchy

MATMUL = "X(i,j)=B(i,k)*C(k,j)"
WEST = ["-t", "B=west0479", "-t", "C=west0479"]
LEVEL = {"name": "PE", "capacity_bytes": 1000, "bandwidth": 2, "latency": 1, "tile": [4, 4]}


def _yaml(path: Path, **change: object) -> str:
    """A one-level YAML configuration with ``change`` applied to its level."""
    lv = {**LEVEL, **change}
    lines = [f"  {'- ' if k == 0 else '  '}{key}: {value}\n"
             for k, (key, value) in enumerate(lv.items())]
    path.write_text("level:\n" + "".join(lines))
    return str(path)


@pytest.fixture
def no_work(monkeypatch: pytest.MonkeyPatch) -> None:
    """Compiling, binding and simulating fail the test: a refusal must come before them."""
    def refuse(*_a: object, **_k: object) -> None:
        raise AssertionError("work started before the options were checked")

    for owner, name in ((custard.api, "compile"), (sam.bind, "bind_tensors"),
                        (custard.tiling, "run_tiled"), (sam.program.Program, "run")):
        monkeypatch.setattr(owner, name, refuse)


def _one_line_error(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    assert main(argv) == 1
    out = capsys.readouterr()
    assert out.out == ""
    assert out.err.count("\n") == 1 and out.err.startswith("custard: error: "), out.err
    assert "Traceback" not in out.err
    return out.err


# ---------------------------------------------------------------------- refused before any work
@pytest.mark.parametrize(("make", "message"), [
    (lambda d: str(d / "missing.yaml"), "missing.yaml: no such memory configuration"),
    (lambda d: (d / "bad.yaml").write_bytes(b"level:\n  - name: \xff\n") and str(d / "bad.yaml"),
     "bad.yaml:2:11: the memory configuration is not UTF-8"),
    (lambda d: (d / "e.yaml").write_text("\n") and str(d / "e.yaml"),
     "e.yaml: the memory configuration is empty"),
    (lambda d: _yaml(d / "t.yaml", tile="[0, 0]"), "t.yaml: level PE: tile [0, 0]: give one size"),
    (lambda d: _yaml(d / "t.yaml", tile="[4, -1]"), "level PE: tile [4, -1]"),
    (lambda d: _yaml(d / "b.yaml", bandwidth=0), "b.yaml: level PE: bandwidth 0: give a number "
     "above 0"),
    (lambda d: _yaml(d / "b.yaml", bandwidth=-2), "level PE: bandwidth -2"),
    (lambda d: _yaml(d / "c.yaml", capacity_bytes=0), "c.yaml: level PE: capacity_bytes 0"),
    (lambda d: _yaml(d / "c.yaml", capacity_bytes=-5), "level PE: capacity_bytes -5"),
    (lambda d: _yaml(d / "l.yaml", latency=-1), "l.yaml: level PE: latency -1: give an integer "
     "0 or more"),
    (lambda d: _yaml(d / "n.yaml", bandwidth=".nan"), "level PE: bandwidth nan"),
    (lambda d: (d / "n.yaml").write_text("name: x\n") and str(d / "n.yaml"),
     "n.yaml: no `level:` list"),
    (lambda d: (d / "n.toml").write_text('name = "x"\n') and str(d / "n.toml"),
     "n.toml: no [[level]] tables"),
])
def test_memory_configuration_refused_first(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                            no_work: None, make, message: str) -> None:
    err = _one_line_error(capsys, ["tile", MATMUL, "--tile", "128", *WEST,
                                   "--memory", make(tmp_path)])
    assert message in err


@pytest.mark.parametrize(("options", "message"), [
    (["--buffers", "-3"], "--buffers -3: give 0 or more"),
    (["--tile", "0"], "--tile 0: give 1 or more"),
    (["--tile", "-2"], "--tile -2: give 1 or more"),
    (["-s", "split(i,i0,i1,0)"], "split(i,i0,i1,0): give 1 or more"),
    (["-s", "split(k,k0,k1,-5)"], "split(k,k0,k1,-5): give 1 or more"),
    (["--tile", str(2**70)], "at most"),
    (["-o", "no/such/folder/X.mtx"], "folder no/such/folder does not exist"),
    (["-o", "X.npy"], "-o X.npy: unknown file type '.npy'; -o writes .mtx, .tns, .npz"),
])
def test_options_refused_first(capsys: pytest.CaptureFixture[str], no_work: None,
                               options: list[str], message: str) -> None:
    assert message in _one_line_error(capsys, ["tile", MATMUL, *WEST, *options])


def test_output_that_is_an_input(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                 no_work: None) -> None:
    b = tmp_path / "B.mtx"
    save_tensor(load_tensor("west0067"), b)
    before = b.read_bytes()
    err = _one_line_error(capsys, ["tile", MATMUL, "--tile", "8", "-t", f"B={b}", "-t",
                                   f"C={b}", "-o", str(b)])
    assert "that is an input of this command" in err and b.read_bytes() == before
    cfg = _yaml(tmp_path / "m.yaml")
    err = _one_line_error(capsys, ["tile", MATMUL, "--tile", "8", *WEST, "--memory", cfg,
                                   "-o", cfg])
    assert "that is an input of this command" in err


def test_config_wording_follows_its_syntax(tmp_path: Path) -> None:
    with pytest.raises(SimulationError, match=r"no `level:` list") as yaml_err:
        hierarchy_from({"name": "x"}, "m.yaml")
    assert "[[level]]" not in str(yaml_err.value)
    with pytest.raises(SimulationError, match=r"no \[\[level\]\] tables"):
        hierarchy_from({"level": []}, "m.toml", syntax="toml")
    p = tmp_path / "m.toml"
    p.write_text('[[level]]\nname = "PE"\ncapacity_bytes = 7e4\nbandwidth = 256\nlatency = 0\n'
                 'tile = [128, 128]\n')
    assert load_hierarchy(p).levels[0].tile == (128, 128)  # latency 0: an ideal level is fine
    with pytest.raises(SimulationError, match="two levels have this name"):
        hierarchy_from({"level": [LEVEL, LEVEL]}, "m.yaml")


# ---------------------------------------------------------------------- bounds of tile sizes
def test_tile_bound_before_tiling(monkeypatch: pytest.MonkeyPatch,
                                  capsys: pytest.CaptureFixture[str], no_work: None) -> None:
    """--tile 1 on a matrix of 100,000 entries: about 2 million tile tuples (one per scalar
    product) need more than the 1 GB said to be available; refused after binding, before
    any tiling or simulation."""
    rng = np.random.default_rng(1)
    pos = rng.integers(0, 5000, (2, 100_000))
    big = Tensor.from_scipy(sp.csr_matrix((rng.random(100_000) + 1, tuple(pos)), (5000, 5000)),
                            "ss")
    monkeypatch.setattr("formats.memory.available_bytes", lambda: 10**9)
    monkeypatch.setattr(sam.bind, "bind_tensors", lambda graph, specs, **_: {"B": big, "C": big})
    monkeypatch.setattr(custard.api, "compile", lambda *a, **k: None)
    monkeypatch.setattr(custard.api, "graphs_of", lambda g: [None])
    err = _one_line_error(capsys, ["tile", MATMUL, "--tile", "1", *WEST])
    assert "--tile 1: up to " in err and "tile tuples" in err and "give a larger --tile" in err
    # the split that sets the smallest tile is named
    err = _one_line_error(capsys, ["tile", MATMUL, "-s", "split(j,j0,j1,5)", "-s",
                                   "split(k,k0,k1,1)", "-s", "split(i,i0,i1,1)", *WEST])
    assert err.startswith("custard: error: split(k,k0,k1,1): up to ")


def test_no_skip_memory_steps_bounded(capsys: pytest.CaptureFixture[str],
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Without tile skipping the memory model steps through every tuple of the grid: 479^3 for
    1x1 tiles of west0479."""
    monkeypatch.setattr(custard.tiling, "run_tiled", pytest.fail)
    err = _one_line_error(capsys, ["tile", MATMUL, "--tile", "1", *WEST, "--memory",
                                   "extensor", "--no-skip"])
    assert "109,902,239 memory-model steps" in err


def test_tuple_count_exact_for_a_product() -> None:
    """The bound counts the tuples of a product of two operands exactly (west0479: the tuples
    the tiled runs of tests/test_tiling.py find) and never under-counts tiles."""
    b = load_tensor("west0479", "ss")
    for size, tuples in ((1, 7587), (4, 4733), (16, 1292), (128, 64)):
        got = tiling_size(MATMUL, {"B": b, "C": b}, dict.fromkeys("ijk", size))
        assert got.tuples == tuples
    # 1x1 tiles: one per stored entry of each operand
    assert check_tiling(MATMUL, {"B": b, "C": b}, dict.fromkeys("ijk", 1), "--tile", 1).tiles \
        == 2 * 1910
    with pytest.raises(BoundError, match="give a larger --tile"):
        check_tiling(MATMUL, {"B": b, "C": b}, dict.fromkeys("ijk", 1), "--tile", 1,
                     memory_levels=2, dense=True)


@settings(max_examples=8, deadline=None)
@given(st.integers(1, 12), st.integers(1, 12), st.integers(1, 12), st.integers(1, 5),
       st.integers(1, 5), st.integers(0, 10_000))
def test_bound_holds_on_random_runs(m: int, k: int, n: int, ti: int, tk: int,
                                    seed: int) -> None:
    """The bound is never below what the tiled run builds (tiles and tuples)."""
    b = Tensor.from_scipy(sp.random(m, k, 0.3, "csr", random_state=seed), "ss")
    c = Tensor.from_scipy(sp.random(k, n, 0.3, "csr", random_state=seed + 1), "ss")
    sched = [f"split(i,i0,i1,{ti})", f"split(k,k0,k1,{tk})"]
    res = custard.tiling.run_tiled(MATMUL, {"B": b, "C": c}, {"X": "ss", "B": "ss", "C": "ss"},
                                   "ikj", schedule=sched, engine="reference")
    size = tiling_size(MATMUL, {"B": b, "C": c}, {"i": ti, "k": tk})
    assert size.tuples == len(res.runs)
    sz = tiling_size("y(i)=B(i,k)*C(k,j)*B(i,k)+C(k,j)", {"B": b, "C": c}, {"i": ti, "k": tk})
    assert sz.tuples >= size.tuples


# ---------------------------------------------------------------------- the result check
def test_check_follows_the_nonzeros() -> None:
    """west0479 x west0479: the gold result and the comparison take a few MB (the dense
    reference took 2.7 GB)."""
    from custard.tile_cli import _verdict
    from sam.cli import gold_for_check

    b = load_tensor("west0479", "ss")
    want = Tensor.from_scipy(sp.csr_matrix(b.to_scipy() @ b.to_scipy()), "ss")
    graph = custard.api.compile(MATMUL, {"X": "ss", "B": "ss", "C": "ss"})
    tracemalloc.start()
    try:
        gold = gold_for_check(MATMUL, {"B": b, "C": b}, "custard", graph)
        line, passed = _verdict(gold, want)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert passed is True and line.startswith("PASS")
    assert peak < 20e6, peak


def test_tiled_run_checked(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                           monkeypatch: pytest.MonkeyPatch) -> None:
    """A right result passes (and is written with -o); a result made wrong in one tile fails
    with exit status 3; the dense reference is never built."""
    def no_dense(*_a: object, **_k: object) -> None:
        raise AssertionError("the dense reference was built")

    monkeypatch.setattr(sam.check, "evaluate", no_dense)
    out = tmp_path / "X.mtx"
    argv = ["tile", MATMUL, "-f=X:ss", "-f=B:ss", "-f=C:ss", "-s=reorder(i,k,j)", "--tile",
            "128", *WEST, "--memory", "extensor", "--buffers", "0"]
    assert main([*argv, "-o", str(out)]) == 0
    text = capsys.readouterr().out
    assert "result X: 6,523 entries; equals the untiled value: True (PASS" in text
    b = load_tensor("west0479").to_scipy()
    np.testing.assert_allclose(load_tensor(str(out)).to_scipy().toarray(), (b @ b).toarray())

    real = custard.tiling._tile_run
    spoiled: list[int] = []

    def wrong(p: dict) -> tuple:
        cycles, coords, vals = real(p)
        if len(vals) and not spoiled:  # the first nonempty partial result, 1.5 times too big
            spoiled.append(len(vals))
            vals = vals * 1.5
        return cycles, coords, vals

    monkeypatch.setattr(custard.tiling, "_tile_run", wrong)
    assert main(argv) == 3
    assert "equals the untiled value: False (FAIL: largest difference" in capsys.readouterr().out


@pytest.mark.parametrize("spoil", [False, True])
@settings(max_examples=3, deadline=None)
@given(st.integers(2, 30), st.integers(2, 30), st.integers(2, 30), st.integers(1, 9),
       st.floats(0.05, 0.5), st.integers(0, 1000))
def test_check_verdict_against_scipy(tmp_path_factory: pytest.TempPathFactory, spoil: bool,
                                     m: int, k: int, n: int, tile: int, density: float,
                                     seed: int) -> None:
    """On random matrices the tiled result equals scipy's product and the check says PASS;
    with one value spoiled (after the run, before the check) it says FAIL."""
    d = tmp_path_factory.mktemp("check")
    b = sp.random(m, k, density, "csr", random_state=seed) * 10
    c = sp.random(k, n, density, "csr", random_state=seed + 1) * 10
    save_tensor(Tensor.from_scipy(b), d / "B.mtx")
    save_tensor(Tensor.from_scipy(c), d / "C.mtx")
    from custard.tile_cli import _verdict

    seen: dict[str, object] = {}

    def verdict(gold: object, result: Tensor) -> tuple[str, bool | None]:
        crd, vals = result.to_coo()
        vals = np.array(vals, dtype=np.float64)
        if spoil and len(vals):
            vals[-1] += 1.0
        elif spoil:
            vals, crd = np.array([1.0]), np.array([[m - 1, n - 1]])
        seen["result"] = Tensor.from_coo(crd, vals, result.shape, "ss")
        return _verdict(gold, seen["result"])

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("custard.tile_cli._verdict", verdict)
        status = main(["tile", MATMUL, "--tile", str(tile), "-t", f"B={d / 'B.mtx'}", "-t",
                       f"C={d / 'C.mtx'}", "--engine", "reference"])
    want = (b @ c).toarray()
    got = seen["result"].to_dense()  # type: ignore[attr-defined]
    right = bool(np.allclose(got, want, rtol=1e-9, atol=1e-12))
    assert right != spoil
    assert status == (0 if right else 3)


def test_check_skipped_is_said_before_the_run(capsys: pytest.CaptureFixture[str],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    order: list[str] = []

    def cannot(*_a: object, **_k: object) -> None:
        order.append("gold")
        raise sam.check.CheckError("too many products (test)")

    real = custard.tiling.run_tiled

    def run(*a: object, **k: object) -> object:
        order.append("run")
        return real(*a, **k)

    monkeypatch.setattr(sam.check, "expected", cannot)
    monkeypatch.setattr(custard.tiling, "run_tiled", run)
    assert main(["tile", MATMUL, "--tile", "128", "-t", "B=west0067", "-t", "C=west0067"]) == 0
    out = capsys.readouterr()
    assert order == ["gold", "run"]
    assert out.err == "custard: check skipped: too many products (test)\n"
    assert "equals the untiled value: not checked" in out.out


def test_memory_hint_names_tile_options(capsys: pytest.CaptureFixture[str],
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    def oom(*_a: object, **_k: object) -> None:
        raise MemoryError("Unable to allocate 59.9 GiB")

    monkeypatch.setattr(custard.tiling, "run_tiled", oom)
    err = _one_line_error(capsys, ["tile", MATMUL, "--tile", "128", *WEST, "--no-check"])
    assert "out of memory" in err and "--tile" in err and "--fifo-depth" not in err
