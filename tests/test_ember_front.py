"""The Ember front end's wider inputs (issue 34 point 5): ``iter_args`` accumulations, torch-style
``i64`` indices with ``arith.index_cast``, values one callback computes for an inner one, 2-d
outputs of other shapes (SDDMM), SLC/DLC files as input, and parse errors located from xDSL's
structure. Each kernel runs at every level (scf, slc, dlc interpreters; TMU graph on both
engines) equal to numpy."""

from __future__ import annotations

import functools
import io
import json
from contextlib import redirect_stdout
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.utils.exceptions import ParseError
from xdsl.utils.lexer import Input, Span

from custard.ember import dlc, slc
from custard.ember.context import (
    UnknownOperationError,
    _LocatingParser,
    context,
    parse_error_line,
    parse_module,
    print_module,
)
from custard.ember.errors import EmberError
from custard.ember.examples import EXAMPLES, example_inputs, example_reference, example_text
from custard.ember.pipeline import compile_module, input_level, run_module, with_outputs
from custard.ember.to_tmu import lower_to_tmu, simulate_tmu, tmu_trace

DATA = Path(__file__).resolve().parents[1] / "custard" / "ember" / "data"
FIG10 = {"arg0": np.array([0, 2, 3]), "arg1": np.array([0, 2, 5]),
         "arg3": np.arange(1, 25, dtype=float).reshape(6, 4)}
FIG10_OUT = [[10, 12, 14, 16], [21, 22, 23, 24]]
ENGINES = ("reference", "fast")


@functools.cache
def compiled(name: str, level: int, vlen: int = 4):
    return compile_module(example_text(name), level, vlen)


def inputs(name: str, seed: int, **kw) -> dict[str, np.ndarray]:
    return with_outputs(compiled(name, 0).scf, example_inputs(name, np.random.default_rng(seed),
                                                              **kw))


def same_trace(a: dict, b: dict) -> bool:
    return a["control"] == b["control"] and len(a["data"]) == len(b["data"]) and all(
        np.allclose(x, y) for x, y in zip(a["data"], b["data"], strict=True))


# ---------------------------------------------------------------- the new kernels, every level
@settings(max_examples=25, deadline=None)
@given(name=st.sampled_from(EXAMPLES), level=st.integers(0, 3), seed=st.integers(0, 2**32 - 1),
       segments=st.integers(1, 4), emb=st.integers(1, 6), lookups=st.integers(0, 4))
def test_every_level_interprets_each_new_kernel_like_numpy(name, level, seed, segments, emb,
                                                           lookups):
    inp = inputs(name, seed, segments=segments, emb=emb, max_lookups=lookups)
    ref = example_reference(name, inp)
    c = compiled(name, level)
    for mod in (c.scf, c.slc, c.dlc):
        out, _ = run_module(mod, inp)
        assert out.shape == ref.shape and np.allclose(out, ref), (name, level)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("level", [0, 1, 2, 3])
@pytest.mark.parametrize("name", EXAMPLES)
def test_each_new_kernel_on_the_tmu_equals_numpy_and_the_dlc_trace(name, level, engine):
    inp = inputs(name, 7)
    dlc_mod = compiled(name, level).dlc
    _, trace = run_module(dlc_mod, inp)
    low = lower_to_tmu(dlc_mod, inp)
    out, res = simulate_tmu(low, engine)
    assert np.allclose(out, example_reference(name, inp)) and res.cycles > 0
    assert same_trace(tmu_trace(low, engine), trace)


@settings(max_examples=15, deadline=None)
@given(name=st.sampled_from(EXAMPLES), level=st.integers(0, 3), engine=st.sampled_from(ENGINES),
       seed=st.integers(0, 2**32 - 1), segments=st.integers(1, 4), emb=st.integers(1, 6),
       lookups=st.integers(1, 4))
def test_random_inputs_on_the_tmu_equal_numpy(name, level, engine, seed, segments, emb,
                                              lookups):
    inp = inputs(name, seed, segments=segments, emb=emb, max_lookups=lookups)
    if inp["out"].size == 0:
        return  # no lookups at all: nothing to simulate
    out, _ = simulate_tmu(lower_to_tmu(compiled(name, level).dlc, inp), engine)
    assert np.allclose(out, example_reference(name, inp))


def test_iter_args_loop_is_offloaded_with_its_sum_a_core_variable():
    """spmv: the ``iter_args`` loop is an slc.for carrying the sum; in DLC the sum is core
    variable 1, set by the element callback and reset after the segment's store; nothing of
    it crosses the data queue (2 values per nonzero, the segment index at O0)."""
    c = compiled("spmv", 0)
    loops = [op for op in c.slc.walk() if isinstance(op, slc.ForOp)]
    assert len(loops) == 2 and len(loops[1].inits) == 1
    names = [op.name for op in c.dlc.walk()]
    assert names.count("dlc.set_var") == 3  # the element's sum, the reset, the init token
    inp = inputs("spmv", 3)
    _, trace = run_module(c.dlc, inp)
    nnz = int(inp["ptrs"][-1])
    segs = inp["ptrs"].size - 1
    assert trace["control"].count("ei") == nnz and trace["control"][0] == "init"
    assert len(trace["data"]) == 2 * nnz + segs
    _, trace3 = run_module(compiled("spmv", 3).dlc, inp)
    assert len(trace3["data"]) == 2 * nnz  # O3: the segment index is a counter


def test_index_cast_of_a_stream_is_the_stream():
    """sls_i64 gives the same streams, tokens and data as SLS over index arrays."""
    from custard.ember.ops import scf_text

    c64 = compiled("sls_i64", 3)
    assert not any(op.name == "arith.index_cast" for op in c64.dlc.walk()
                   if op.parent_op() is not None and isinstance(op.parent_op(), slc.ForOp))
    inp = inputs("sls_i64", 5)
    _, t64 = run_module(c64.dlc, inp)
    sls = compile_module(scf_text("sls"), 3, 4)
    _, tix = run_module(sls.dlc, {"ptrs": inp["ptrs"], "idxs": inp["idxs"],
                                  "table": inp["table"]})
    assert same_trace(t64, tix)


def test_an_outer_callback_value_is_a_core_variable_not_a_queue_entry():
    """scaled: the segment callback computes ``s = w*w`` once and sets a core variable that
    every element callback reads; the data queue holds ``w`` once per segment."""
    c = compiled("scaled", 3)
    sets = [op for op in c.dlc.walk() if isinstance(op, dlc.SetVarOp)]
    gets = [op for op in c.dlc.walk() if isinstance(op, dlc.GetVarOp)]
    assert len(sets) == 1 and any(g.attributes["var"] == sets[0].attributes["var"]
                                  for g in gets)
    inp = inputs("scaled", 11, segments=4, max_lookups=3)
    _, t0 = run_module(compiled("scaled", 0).dlc, inp)
    segs, nnz, emb = 4, int(inp["ptrs"][-1]), inp["table"].shape[1]
    assert len(t0["data"]) == segs + 3 * nnz * emb  # w per segment; b, e, v per element


def test_sddmm_output_shape_is_derived_from_its_indices():
    inp = example_inputs("sddmm", np.random.default_rng(2), segments=3, rows=7)
    derived = with_outputs(compiled("sddmm", 0).scf, inp)
    assert derived["out"].shape == (3, 7)  # rows of a (the loop's bound), rows of bt
    assert with_outputs(compiled("spmv", 0).scf, example_inputs(
        "spmv", np.random.default_rng(2), segments=5))["out"].shape == (5,)
    bound = dict(inp, out=np.zeros((3, 9)))  # an explicit binding wins
    assert with_outputs(compiled("sddmm", 0).scf, bound)["out"].shape == (3, 9)


def test_an_accumulation_from_a_core_value_stays_on_the_core_and_is_still_right():
    """An accumulation starting at a value computed on the core (neither static nor the
    enclosing loop's carried value) is not offloaded; the program still runs right at every
    interpreted level."""
    text = example_text("spmv").replace(
        "%sum = scf.for %p = %beg to %end step %c1 iter_args(%acc = %zero)",
        "%sum = scf.for %p = %beg to %end step %c1 iter_args(%acc = %w0)").replace(
        "      %end = memref.load %ptrs[%b1] : memref<?xindex>\n",
        "      %end = memref.load %ptrs[%b1] : memref<?xindex>\n"
        "      %w0 = arith.addf %zero, %zero : f64\n")
    c = compile_module(text, 0)
    assert sum(isinstance(op, slc.ForOp) for op in c.slc.walk()) == 1
    inp = inputs("spmv", 4)
    for mod in (c.scf, c.slc, c.dlc):
        assert np.allclose(run_module(mod, inp)[0], example_reference("spmv", inp))


def test_a_sum_through_nested_loops_shares_one_core_variable():
    """segdot: the element loop continues the lookup loop's sum; both loops are offloaded and
    carry it in one core variable (set per element, stored and reset per segment)."""
    c = compiled("segdot", 3)
    assert sum(isinstance(op, slc.ForOp) for op in c.slc.walk()) == 3
    carried = {op.attributes["var"] for op in c.dlc.walk() if isinstance(op, dlc.SetVarOp)}
    assert len(carried) == 1


# ---------------------------------------------------------------- SLC and DLC files as input
FIG10_TRACES = {0: (13, 36, 50), 1: (7, 18, 26), 2: (4, 9, 17), 3: (6, 6, 15)}


@pytest.mark.parametrize("level", [0, 1, 2, 3])
def test_the_artifacts_slc_o0_file_is_optimized_and_gives_figure_10(level):
    c = compile_module((DATA / "eb_slc_O0.mlir").read_text(), level, 2)
    assert c.start == "slc" and c.scf is None
    for mod in (c.slc, c.dlc):
        assert run_module(mod, FIG10)[0].tolist() == FIG10_OUT
    _, trace = run_module(c.dlc, FIG10)
    low = lower_to_tmu(c.dlc, FIG10)
    out, res = simulate_tmu(low, "reference")
    ctrl, data, cycles = FIG10_TRACES[level]
    assert (len(trace["control"]), len(trace["data"]), res.cycles) == (ctrl, data, cycles)
    assert out.tolist() == FIG10_OUT


@pytest.mark.parametrize("name", ["eb_slc_O3", "eb_dlc"])
def test_the_artifacts_o3_buffer_loop_is_refused_by_name(name):
    with pytest.raises(EmberError) as err:
        compile_module((DATA / f"{name}.mlir").read_text(), 0, path=f"{name}.mlir")
    msg = str(err.value)
    assert "\n" not in msg and msg.startswith(f"{name}.mlir: a callback walks a buffer with "
                                              "step 1 but reads vectors of 8")


@pytest.mark.parametrize("name, loop", [("eb_slc_O3", "scf.for %arg8 = %c0 to %dim step"),
                                        ("eb_dlc", "scf.for %arg5 = %c0 to %dim step")])
def test_the_artifacts_o3_code_with_the_step_fixed_gives_figure_10(name, loop):
    text = (DATA / f"{name}.mlir").read_text().replace(f"{loop} %c1", f"{loop} %c8")
    c = compile_module(text, 0)
    assert run_module(c.dlc, FIG10)[0].tolist() == FIG10_OUT


@pytest.mark.parametrize("name", EXAMPLES)
def test_printed_slc_and_dlc_read_back_and_run_alike(name):
    inp = inputs(name, 9)
    ref = example_reference(name, inp)
    for level in (0, 3):
        c = compiled(name, level)
        for lv, mod in (("slc", c.slc), ("dlc", c.dlc)):
            back = parse_module(print_module(mod), f"{name}.mlir")
            assert input_level(back) == lv
            again = compile_module(back, 0)
            assert np.allclose(run_module(again.dlc, inp)[0], ref), (name, level, lv)


def test_dlc_input_refuses_optimization_and_earlier_levels():
    text = print_module(compiled("spmv", 3).dlc)
    with pytest.raises(EmberError, match="DLC code, which -O2 cannot optimize"):
        compile_module(text, 2)
    c = compile_module(text, 0)
    with pytest.raises(EmberError, match="the input is DLC code: it has no slc level"):
        c.at("slc")


def _cli(*argv: str) -> str:
    from custard.cli import main

    buf = io.StringIO()
    with redirect_stdout(buf):
        assert main(["ember", *argv]) == 0
    return buf.getvalue()


def test_cli_runs_an_slc_file_at_o3_and_a_dlc_file(tmp_path):
    for k, v in FIG10.items():
        np.save(tmp_path / f"{k}.npy", v)
    binds = [x for k in FIG10 for x in ("-t", f"{k}={tmp_path / k}.npy")]
    src = str(DATA / "eb_slc_O0.mlir")
    assert "dlc.compute_loop" in _cli(src, "-O3", "--vlen", "2", "--emit", "dlc")
    dlc_file = tmp_path / "o3.mlir"
    dlc_file.write_text(_cli(src, "-O3", "--vlen", "2", "--emit", "dlc"))
    for args in ([src, "-O3", "--vlen", "2"], [str(dlc_file)]):
        trace = tmp_path / "t.json"
        _cli(*args, "--run", "--engine", "reference", "--trace", str(trace), "-o",
             str(tmp_path / "out.npy"), *binds)
        assert np.load(tmp_path / "out.npy").tolist() == FIG10_OUT
        assert json.loads(trace.read_text())["control"] == ["ee", "ee", "se", "ee", "se",
                                                            "done"]
    assert "dlc.compute_loop" in _cli(str(dlc_file))  # printed back at its own level


def test_cli_refuses_an_earlier_level_of_an_slc_file(capsys):
    from custard.cli import main

    assert main(["ember", str(DATA / "eb_slc_O0.mlir"), "-O1", "--emit", "scf"]) == 1
    err = capsys.readouterr().err.strip()
    assert err.endswith("the input is SLC code: it has no scf level (use slc or dlc)"), err


# ---------------------------------------------------------------- located parse errors
def _parser(text: str) -> _LocatingParser:
    return _LocatingParser(context(), text, name="bad.mlir")


def test_unknown_operations_are_located_from_the_parser_not_the_message():
    text = "module {\n  func.func @f() {\n    %y = \"slc.frob\"() : () -> index\n  }\n}\n"
    p = _parser(text)
    with pytest.raises(UnknownOperationError) as err:
        p.parse_module()
    assert err.value.name == "slc.frob"
    assert parse_error_line(err.value, text, "bad.mlir", p).startswith(
        "bad.mlir:3:11: unknown operation 'slc.frob'")


def test_undefined_values_are_located_at_their_first_use_from_the_parser():
    text = "module {\n  func.func @f() {\n    %y = arith.addi %x, %x : index\n  }\n}\n"
    p = _parser(text)
    with pytest.raises(ParseError) as err:
        p.parse_module()
    assert p.undefined() == "x" and "x" in p.first_use
    assert parse_error_line(err.value, text, "bad.mlir", p) == \
        "bad.mlir:3:21: value %x is used but never defined"


@pytest.mark.parametrize("msg, line", [
    ("values used but not defined: [%x]", "bad.mlir:3:21: value %x is used but never defined"),
    ("Operation slc.frob is not registered",
     "bad.mlir:3:10: unknown operation 'slc.frob' (not in the "
     "func/scf/memref/arith/math/vector/llvm/slc/slcvec/dlc dialects)"),
    ("something else", "bad.mlir:5:2: something else"),
])
def test_without_structure_the_message_text_is_the_fallback(msg, line):
    text = "module {\n  func.func @f() {\n    %y = arith.addi %x, %x : index\n  }\n}\n"
    text = text.replace("arith.addi", "slc.frob") if "frob" in msg else text
    end = len(text) - 1 if "frob" not in msg else text.index("frob") + 4
    err = ParseError(Span(end, end + 1, Input(text, "bad.mlir")), msg)
    assert parse_error_line(err, text, "bad.mlir", None) == line


TOTAL = """module {
  func.func @total(%idxs: memref<?xindex>, %x: memref<?xf64>, %out: memref<?xf64>) \
-> memref<?xf64> {
    %zero = arith.constant 0.0 : f64
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = memref.dim %idxs, %c0 : memref<?xindex>
    %t = scf.for %p = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f64) {
      %k = memref.load %idxs[%p] : memref<?xindex>
      %v = memref.load %x[%k] : memref<?xf64>
      %a = arith.addf %acc, %v : f64
      scf.yield %a : f64
    }
    memref.store %t, %out[%c0] : memref<?xf64>
    func.return %out : memref<?xf64>
  }
}
"""


@pytest.mark.parametrize("level", [0, 3])
def test_an_outermost_accumulation_runs_on_the_interpreters_and_is_refused_on_the_tmu(level):
    """The sum of an outermost iter_args loop is the compute loop's result, stored after it:
    right at every interpreted level; the TMU's execute block has no code after its last
    token, so the lowering refuses it in one line."""
    inp = {"idxs": np.array([1, 3, 3, 0]), "x": np.array([1.0, 2, 3, 4]), "out": np.zeros(1)}
    c = compile_module(TOTAL, level, 4)
    for mod in (c.scf, c.slc, c.dlc):
        assert run_module(mod, inp)[0].tolist() == [11.0]
    with pytest.raises(EmberError, match="^TMU lowering: code after the decoupled loop nest"):
        lower_to_tmu(c.dlc, inp)


def test_a_dlc_file_derives_its_output_and_a_store_outside_an_output_names_the_fix():
    """A DLC file's stores index popped values: the pops' streams tell the SDDMM output's shape
    (2 rows of a, 6 rows of bt); an output too small for a store names the fix."""
    rng = np.random.default_rng(0)
    inp = {"ptrs": np.array([0, 2, 3]), "idxs": np.array([5, 0, 4]),
           "a": rng.uniform(-1, 1, (2, 3)), "bt": rng.uniform(-1, 1, (6, 3))}
    c = compile_module(print_module(compiled("sddmm", 0).dlc), 0)
    assert with_outputs(c.dlc, inp)["out"].shape == (2, 6)
    bound = with_outputs(c.dlc, inp)
    assert np.allclose(run_module(c.dlc, inp)[0], example_reference("sddmm", bound))
    with pytest.raises(EmberError, match="index \\(0, 5\\) out of the bounds \\(2, 3\\).*"
                       "bound with -t NAME=FILE.npy"):
        run_module(c.dlc, dict(inp, out=np.zeros((2, 3))))


@pytest.mark.parametrize("name", EXAMPLES)
def test_every_level_derives_the_same_output_shape_at_o0(name):
    """The scf stores name their indices; SLC reads them from streams; DLC from the streams its
    pops take (slc-to-dlc's registration order): all three derive the same output."""
    inp = example_inputs(name, np.random.default_rng(3), segments=4, rows=7, emb=5)
    c = compiled(name, 0)
    shapes = {with_outputs(mod, inp)["out"].shape for mod in (c.scf, c.slc, c.dlc)}
    assert len(shapes) == 1, shapes
