"""Ember front end (issue 15): dialects, passes, interpreters, queue traces (Ember paper
Sec. 4-7, Figures 10, 14, 15)."""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from custard.ember.context import parse_module, print_module
from custard.ember.errors import EmberError
from custard.ember.ops import OPS, random_inputs, reference, scf_text
from custard.ember.pipeline import compile_module, run_module

DATA = Path(__file__).resolve().parents[1] / "custard" / "ember" / "data"
ARTIFACTS = ("eb_scf", "eb_slc_O0", "eb_slc_O3", "eb_dlc")

# Figure 10: two segments, lookups 0, 2 and 5 of a 6x4 table holding 1..24
FIG10 = {"arg0": np.array([0, 2, 3]), "arg1": np.array([0, 2, 5]),
         "arg4": np.arange(1, 25, dtype=float).reshape(6, 4)}
FIG10_OUT = [[10, 12, 14, 16], [21, 22, 23, 24]]

# the queue traces of Figure 14 with --vlen 2, written out in full
TRACES = {
    0: {"control": ["ei"] * 12 + ["done"],
        "data": [0, 0, 1.0, 0, 1, 2.0, 0, 2, 3.0, 0, 3, 4.0,
                 0, 0, 9.0, 0, 1, 10.0, 0, 2, 11.0, 0, 3, 12.0,
                 1, 0, 21.0, 1, 1, 22.0, 1, 2, 23.0, 1, 3, 24.0]},
    1: {"control": ["ei"] * 6 + ["done"],
        "data": [0, 0, [1.0, 2.0], 0, 2, [3.0, 4.0], 0, 0, [9.0, 10.0], 0, 2, [11.0, 12.0],
                 1, 0, [21.0, 22.0], 1, 2, [23.0, 24.0]]},
    2: {"control": ["ee", "ee", "ee", "done"],
        "data": [0, [1.0, 2.0], [3.0, 4.0], 0, [9.0, 10.0], [11.0, 12.0],
                 1, [21.0, 22.0], [23.0, 24.0]]},
    3: {"control": ["ee", "ee", "se", "ee", "se", "done"],
        "data": [[1.0, 2.0], [3.0, 4.0], [9.0, 10.0], [11.0, 12.0], [21.0, 22.0],
                 [23.0, 24.0]]},
}
COUNTS = {0: (13, 36), 1: (7, 18), 2: (4, 9), 3: (6, 6)}


@functools.cache
def compiled(source: str, level: int, vlen: int):
    text = (DATA / f"{source}.mlir").read_text() if source.startswith("eb_") \
        else scf_text(source)
    return compile_module(text, level, vlen)


# ------------------------------------------------------------------------------- the IR
@pytest.mark.parametrize("name", ARTIFACTS)
def test_artifact_files_parse_verify_and_print_back(name):
    text = (DATA / f"{name}.mlir").read_text()
    mod = parse_module(text, name)
    printed = print_module(mod)
    again = print_module(parse_module(printed, name))
    assert printed == again
    ops = {op.name for op in mod.walk()}
    expected = {"eb_scf": "scf.for", "eb_slc_O0": "slc.for", "eb_slc_O3": "slcvec.for",
                "eb_dlc": "dlc.compute_loop"}[name]
    assert expected in ops


def test_artifact_license_is_beside_the_files():
    assert "MIT License" in (DATA / "LICENSE").read_text()


def test_aliases_of_the_paper_and_readme_parse_to_the_same_ops():
    text = (DATA / "eb_slc_O3.mlir").read_text()
    alias = (text.replace("slc.mem_stream", "slc.mem_str").replace("slcvec.for<", "slcv.for<")
             .replace("slc.from_stream", "slc.to_val").replace("slc.alu_stream", "slc.alu_str"))
    assert print_module(parse_module(alias)) == print_module(parse_module(text))
    dtext = (DATA / "eb_dlc.mlir").read_text()
    dalias = dtext.replace("dlc.register_operand", "dlc.push_op").replace(
        "dlc.configure_access_engine", "dlc.config_access")
    assert print_module(parse_module(dalias)) == print_module(parse_module(dtext))


def test_artifact_slc_o0_runs_figure_10():
    out, trace = run_module(parse_module((DATA / "eb_slc_O0.mlir").read_text()),
                            {"arg0": FIG10["arg0"], "arg1": FIG10["arg1"],
                             "arg3": FIG10["arg4"]})
    assert trace is None
    assert out.tolist() == FIG10_OUT


def test_scf_to_slc_gives_the_artifacts_o0_structure():
    ours = compiled("eb_scf", 0, 8).slc
    theirs = parse_module((DATA / "eb_slc_O0.mlir").read_text())
    names = [op.name for op in ours.walk() if op.name.startswith(("slc", "slcvec"))]
    want = [op.name for op in theirs.walk() if op.name.startswith(("slc", "slcvec"))]
    assert sorted(names) == sorted(want)


def test_o3_gives_the_artifacts_o3_operations():
    from collections import Counter

    def ops(mod):
        return Counter(op.name for op in mod.walk()
                       if op.name.split(".")[0] in ("slc", "slcvec", "vector", "scf"))
    theirs = parse_module((DATA / "eb_slc_O3.mlir").read_text())
    assert ops(compiled("eb_scf", 3, 8).slc) == ops(theirs)


def test_slc_to_dlc_gives_the_artifacts_dlc_structure():
    ours = compiled("eb_scf", 3, 8).dlc
    theirs = parse_module((DATA / "eb_dlc.mlir").read_text())

    def kinds(mod):
        return sorted(op.name for op in mod.walk() if op.name.startswith("dlc.")
                      and op.name not in ("dlc.get_mask", "dlc.pop_operand", "dlc.get_var"))
    assert kinds(ours) == kinds(theirs)


# ------------------------------------------------------------------------------- Figure 10
@pytest.mark.parametrize("level", [0, 1, 2, 3])
def test_figure_10_at_every_level(level):
    c = compiled("eb_scf", level, 2)
    for mod in (c.scf, c.slc, c.dlc):
        out, _ = run_module(mod, FIG10)
        assert out.tolist() == FIG10_OUT


@pytest.mark.parametrize("level", [0, 1, 2, 3])
def test_figure_14_queue_traces_with_vlen_2(level):
    out, trace = run_module(compiled("eb_scf", level, 2).dlc, FIG10)
    assert out.tolist() == FIG10_OUT
    assert trace == TRACES[level]
    assert (len(trace["control"]), len(trace["data"])) == COUNTS[level]


def test_o3_control_sequence_with_an_empty_segment():
    inputs = dict(FIG10, arg0=np.array([0, 2, 2, 3]))
    out, trace = run_module(compiled("eb_scf", 3, 2).dlc, inputs)
    assert trace["control"] == ["ee", "ee", "se", "se", "ee", "se", "done"]
    assert out.tolist() == [[10, 12, 14, 16], [0, 0, 0, 0], [21, 22, 23, 24]]


def test_o1_masks_a_remainder_lane():
    _, trace = run_module(compiled("eb_scf", 1, 3).dlc, FIG10)
    assert trace["data"][:6] == [0, 0, [1.0, 2.0, 3.0], 0, 3, [4.0, 0.0, 0.0]]


# ------------------------------------------------------------------------------- random inputs
@settings(max_examples=40, deadline=None)
@given(segments=st.integers(0, 5), emb=st.integers(1, 7), lookups=st.integers(0, 4),
       level=st.sampled_from([0, 1, 2, 3]), vlen=st.sampled_from([1, 2, 3, 4, 8]),
       seed=st.integers(0, 2**31))
def test_sls_every_level_agrees_with_numpy(segments, emb, lookups, level, vlen, seed):
    ins = random_inputs("sls", np.random.default_rng(seed), segments=segments, rows=5,
                        emb=emb, max_lookups=lookups)
    ref = reference("sls", ins)
    c = compiled("sls", level, vlen)
    for mod in (c.scf, c.slc, c.dlc):
        out, trace = run_module(mod, ins)
        np.testing.assert_allclose(out, ref, atol=1e-12)
    if level == 3:
        assert trace["control"].count("se") == segments
        assert trace["control"].count("ee") == len(ins["idxs"])
        assert len(trace["data"]) == len(ins["idxs"]) * -(-emb // vlen)


@settings(max_examples=30, deadline=None)
@given(op=st.sampled_from(OPS), segments=st.integers(1, 4), emb=st.integers(1, 6),
       level=st.sampled_from([0, 1, 2, 3]), vlen=st.sampled_from([2, 3, 4]),
       seed=st.integers(0, 2**31))
def test_table_1_operations_agree_with_numpy(op, segments, emb, level, vlen, seed):
    ins = random_inputs(op, np.random.default_rng(seed), segments=segments, emb=emb)
    ref = reference(op, ins)
    c = compiled(op, level, vlen)
    for mod in (c.slc, c.dlc):
        out, _ = run_module(mod, ins)
        np.testing.assert_allclose(out, ref, atol=1e-9)


def test_optimizations_cut_queue_traffic_on_every_operation():
    rng = np.random.default_rng(3)
    for op in OPS:
        ins = random_inputs(op, rng, segments=4, emb=8, max_lookups=4)
        sizes = []
        for level in range(4):
            _, trace = run_module(compiled(op, level, 4).dlc, ins)
            sizes.append(len(trace["control"]) + len(trace["data"]))
        assert sizes[0] > sizes[1] > sizes[2] >= sizes[3], (op, sizes)


def test_workspace_loop_of_mp_stays_on_the_core():
    slc = compiled("mp", 0, 4).slc
    loops = [op.name for op in slc.walk() if op.name in ("slc.for", "scf.for")]
    assert loops.count("slc.for") == 3 and loops.count("scf.for") == 1


# ------------------------------------------------------------------------------- errors
@pytest.mark.parametrize("text, where", [
    ("module {\n  func.func @f() {\n    %y = arith.addi %x, %x : index\n  }\n}\n", ":3:21:"),
    ("module {\n  func.func @f() {\n    slc.frobnicate\n  }\n}\n", ":3:5:"),
    ((DATA / "eb_scf.mlir").read_text().replace("scf.for %arg7 = %2 to", "scf.for %arg7 = %2 2"),
     ":12:26:"),
    ((DATA / "eb_slc_O0.mlir").read_text().replace("alu_stream< add>", "alu_stream< pow>"),
     ":14:7:"),
])
def test_malformed_mlir_is_one_line_with_line_and_column(text, where):
    with pytest.raises(EmberError) as err:
        parse_module(text, "bad.mlir")
    msg = str(err.value)
    assert "\n" not in msg and msg.startswith("bad.mlir" + where), msg


@pytest.mark.parametrize("old, new, message", [
    ("%0 = slc.to_stream %c0 : index to", "%0 = slc.to_stream %c0 : index to index //",
     "bad.mlir:8:5: invalid slc.to_stream: index should be of base attribute slc.stream"),
    ("dlc.get_ind_var %10 : !slc.stream<index>", "dlc.get_ind_var %10 : index",
     "bad.mlir:19:7: invalid dlc.get_ind_var: index should be of base attribute slc.stream"),
    ("%10 = dlc.new_tu %0 to %5 step %1 : !slc.stream<index> into !dlc.tu",
     "%10 = dlc.new_tu %0 to %5 step %1 : !slc.stream<index> into index",
     "bad.mlir:18:7: invalid dlc.new_tu: index should be of base attribute dlc.tu"),
])
def test_a_type_the_assembly_format_refuses_is_located(old, new, message):
    """A type refused while an op is read (its assembly format checks the op's constraints)
    is one line at the op, like the verifier's errors."""
    text = (DATA / "eb_dlc.mlir").read_text()
    assert old in text
    with pytest.raises(EmberError) as err:
        parse_module(text.replace(old, new, 1), "bad.mlir")
    assert str(err.value) == message


def test_unbound_and_misnamed_inputs_are_refused():
    c = compiled("eb_scf", 0, 2)
    with pytest.raises(EmberError, match="no argument named ptrs"):
        run_module(c.dlc, {"ptrs": np.array([0, 1])})
    with pytest.raises(EmberError, match="arg4 .* is not bound"):
        run_module(c.dlc, {"arg0": np.array([0, 1]), "arg1": np.array([0])})


@pytest.mark.parametrize("level", [0, 1, 2, 3])
def test_out_of_bounds_lookup_is_refused(level):
    with pytest.raises(EmberError, match="out of the bounds"):
        run_module(compiled("eb_scf", level, 2).dlc, dict(FIG10, arg1=np.array([0, 2, 9])))


def test_non_integer_indices_are_refused():
    with pytest.raises(EmberError, match="non-integer values"):
        run_module(compiled("eb_scf", 0, 2).dlc, dict(FIG10, arg1=np.array([0, 2.5, 5])))


def test_pipeline_starts_at_an_slc_input():
    """SLC input starts the pipeline at its level (tests/test_ember_front.py runs it)."""
    c = compile_module((DATA / "eb_slc_O0.mlir").read_text(), 0)
    assert c.start == "slc" and c.scf is None
    with pytest.raises(EmberError, match="no scf level"):
        c.at("scf")


def test_cleanup_patterns_leave_no_dead_streams_or_constants():
    for level in range(4):
        c = compiled("sls", level, 4)
        for mod in (c.slc, c.dlc):
            for op in mod.walk():
                if op.name in ("slc.to_stream", "arith.constant"):
                    assert op.results[0].uses, (level, str(op))
