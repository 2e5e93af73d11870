"""``custard ember`` keeps the command layer's promises (issue 31): outputs checked before any
work, inputs byte for byte intact, undecodable/empty/odd inputs, absurd sizes and too-deep loop
nests refused in one line, option combinations that would be ignored refused."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest

import formats.memory
from custard.cli import main
from custard.ember.nesting import MAX_DEPTH

SCF = Path(__file__).resolve().parents[1] / "custard" / "ember" / "data" / "eb_scf.mlir"


@pytest.fixture
def work(tmp_path: Path) -> Path:
    """eb_scf.mlir and the Fig. 10 inputs (arg0, arg1, arg4) in ``tmp_path``."""
    (tmp_path / "in.mlir").write_bytes(SCF.read_bytes())
    np.save(tmp_path / "arg0.npy", np.array([0, 2, 3]))
    np.save(tmp_path / "arg1.npy", np.array([0, 2, 5]))
    np.save(tmp_path / "arg4.npy", np.arange(1, 25, dtype=float).reshape(6, 4))
    return tmp_path


def tensors(d: Path) -> list[str]:
    return [a for n in ("arg0", "arg1", "arg4") for a in ("-t", f"{n}={d / n}.npy")]


def one_line_error(capsys: pytest.CaptureFixture[str]) -> str:
    """The command's error: exactly one line on stderr, nothing on stdout."""
    out, err = capsys.readouterr()
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("custard: error: ") and "Traceback" not in err
    return lines[0]


def nested_loops(n: int) -> str:
    """A function of ``n`` nested ``scf.for`` (one iteration each) copying one value."""
    lines = ["module {", "  func.func @deep(%table: memref<?x?xf64>, %out: memref<?x?xf64>) "
             "-> memref<?x?xf64> {", "    %c0 = arith.constant 0 : index",
             "    %c1 = arith.constant 1 : index"]
    lines += ["    " + "  " * k + f"scf.for %i{k} = %c0 to %c1 step %c1 {{" for k in range(n)]
    pad = "    " + "  " * n
    lines += [pad + "%v = memref.load %table[%c0, %c0] : memref<?x?xf64>",
              pad + "memref.store %v, %out[%c0, %c0] : memref<?x?xf64>"]
    lines += ["    " + "  " * k + "}" for k in reversed(range(n))]
    return "\n".join(lines + ["    func.return %out : memref<?x?xf64>", "  }", "}", ""])


# ----------------------------------------------------------------------------- outputs
@pytest.mark.parametrize("case", ["ir", "run_o", "trace"])
def test_output_that_is_an_input_is_refused_input_intact(work, capsys, case):
    src = work / "in.mlir"
    if case == "ir":
        argv, victim = [str(src), "-O3", "-o", str(src)], src
    elif case == "run_o":
        victim = work / "arg0.npy"
        argv = [str(src), "-O3", "--run", *tensors(work), "-o", str(victim)]
    else:  # a -t input named .json, and --trace aimed at it
        victim = work / "arg0.json"
        victim.write_bytes((work / "arg0.npy").read_bytes())
        argv = [str(src), "-O3", "--run", "-t", f"arg0={victim}", "-t",
                f"arg1={work}/arg1.npy", "-t", f"arg4={work}/arg4.npy", "-o",
                str(work / "o.npy"), "--trace", str(victim)]
    before = victim.read_bytes()
    assert main(["ember", *argv]) == 1
    assert "that is an input of this command" in one_line_error(capsys)
    assert victim.read_bytes() == before
    assert not (work / "o.npy").exists()


@pytest.mark.parametrize("opt", ["-o", "--trace"])
def test_missing_folder_is_refused_before_any_work(work, capsys, opt):
    out = {"-o": str(work / "o.npy"), "--trace": str(work / "t.json")}
    out[opt] = str(work / "missing" / Path(out[opt]).name)
    assert main(["ember", str(work / "in.mlir"), "-O3", "--vlen", "2", "--run",
                 *tensors(work), "-o", out["-o"], "--trace", out["--trace"]]) == 1
    err = one_line_error(capsys)  # nothing ran: no cycles line, no result
    assert f"{opt} {out[opt]}: folder {work / 'missing'} does not exist" in err
    assert sorted(p.name for p in work.iterdir()) == ["arg0.npy", "arg1.npy", "arg4.npy",
                                                      "in.mlir"]


def test_missing_folder_for_printed_ir(work, capsys):
    assert main(["ember", str(work / "in.mlir"), "-O3", "-o",
                 str(work / "missing" / "x.mlir")]) == 1
    assert "does not exist; create it first" in one_line_error(capsys)


@pytest.mark.parametrize("argv, suffix, allowed", [
    (["-O3", "-o", "x.npy"], ".npy", ".mlir"),
    (["-O3", "--emit", "dot", "-o", "g.mlir"], ".mlir", ".dot, .gv"),
    (["-O3", "--run", "-o", "o.mlir"], ".mlir", ".npy"),
    (["-O3", "--run", "-o", "o.npy", "--trace", "t.npy"], ".npy", ".json"),
])
def test_output_suffixes(work, capsys, argv, suffix, allowed):
    argv = [str(work / a) if "." in a and not a.startswith("-") else a for a in argv]
    bound = tensors(work) if "--emit" in argv or "--run" in argv else []
    assert main(["ember", str(work / "in.mlir"), *bound, *argv]) == 1
    err = one_line_error(capsys)
    assert f"unknown file type '{suffix}'" in err and err.endswith(f"writes {allowed}")


def test_failed_run_leaves_the_old_output_as_it_was(work, capsys):
    old = work / "o.npy"
    np.save(old, np.array([7.0]))
    before = old.read_bytes()
    assert main(["ember", str(work / "in.mlir"), "-O3", "--run", "-t",
                 f"arg0={work}/arg0.npy", "-o", str(old)]) == 1  # arg1, arg4 unbound
    assert "argument arg1" in one_line_error(capsys)
    assert old.read_bytes() == before


def test_outputs_are_written_whole(work, capsys):
    out, trace = work / "o.npy", work / "t.json"
    assert main(["ember", str(work / "in.mlir"), "-O3", "--vlen", "2", "--run", "--at", "dlc",
                 *tensors(work), "-o", str(out), "--trace", str(trace)]) == 0
    assert np.load(out).tolist() == [[10, 12, 14, 16], [21, 22, 23, 24]]
    assert trace.read_text().startswith('{"control": ["ee", "ee", "se"')
    assert sorted(p.name for p in work.iterdir() if p.name.startswith((".", "o", "t"))) == \
        ["o.npy", "t.json"]  # no temporary files left


# ----------------------------------------------------------------------------- inputs
def test_non_utf8_file(work, capsys):
    bad = work / "bad.mlir"
    bad.write_bytes(b"module {\n  \xff\xfe\n}\n")
    assert main(["ember", str(bad), "-O3"]) == 1
    assert one_line_error(capsys) == (f"custard: error: {bad}:2:3: the MLIR file is not UTF-8 "
                                      "text (byte 0xff); is it the right file?")


@pytest.mark.parametrize("text, message", [
    ("", "the MLIR file is empty"),
    ("  \n\n", "the MLIR file is empty"),
    ("// nothing here\n", "no MLIR operations, only comments; Ember reads a func.func of "
     "scf/memref/arith loops over embedding tables (for an example: custard ember --op sls)"),
    ("module {}\n", "no func.func with a body; Ember reads a func.func of scf/memref/arith"),
    ("func.func private @f(i64)\n", "no func.func with a body"),
])
@pytest.mark.parametrize("level", [[], ["-O3"]])
def test_empty_file_or_no_function(work, capsys, text, message, level):
    f = work / "e.mlir"
    f.write_text(text)
    assert main(["ember", str(f), *level]) == 1
    err = one_line_error(capsys)
    assert err.startswith(f"custard: error: {f}: ") and message in err


def test_missing_file_and_folder(work, capsys):
    assert main(["ember", str(work / "none.mlir")]) == 1
    assert one_line_error(capsys).endswith("none.mlir: no such MLIR file")
    assert main(["ember", str(work)]) == 1
    assert "is a folder" in one_line_error(capsys)


def _bad_npy(path: Path, kind: str) -> None:
    if kind == "huge":  # a header declaring 8 TB, followed by 64 bytes
        with open(path, "wb") as f:
            np.lib.format.write_array_header_1_0(
                f, {"descr": "<f8", "fortran_order": False, "shape": (10**6, 10**6)})
            f.write(bytes(64))
    elif kind == "garbage":
        path.write_bytes(b"\x93NUMPY\x01\x00garbage")
    elif kind == "text":
        path.write_text("0 2 3\n")
    elif kind == "objects":
        np.save(path, np.array([{"a": 1}], dtype=object), allow_pickle=True)
    elif kind == "strings":
        np.save(path, np.array(["a", "b"]))
    else:
        np.save(path, np.array([1j]))


@pytest.mark.parametrize("kind, message", [
    ("huge", "declares a 1000000x1000000 float64 array (8,000,000,000,000 bytes) but holds 64"),
    ("garbage", "not a readable .npy array"),
    ("text", "not a readable .npy array"),
    ("objects", "holds Python objects, which are never loaded"),
    ("strings", "holds <U1 values; a tensor needs numbers"),
    ("complex", "complex values are not supported"),
])
def test_bad_npy_inputs_are_one_line(work, capsys, kind, message):
    bad = work / "bad.npy"
    _bad_npy(bad, kind)
    start = time.perf_counter()
    assert main(["ember", str(work / "in.mlir"), "-O3", "--run", "-t", f"arg0={bad}", "-t",
                 f"arg1={work}/arg1.npy", "-t", f"arg4={work}/arg4.npy"]) == 1
    assert time.perf_counter() - start < 10
    err = one_line_error(capsys)
    assert err.startswith(f"custard: error: {bad}: ") and message in err


def test_npy_larger_than_memory_is_refused_before_loading(work, capsys, monkeypatch):
    big = work / "big.npy"
    np.save(big, np.zeros(10_000_000, dtype=np.int64))  # 80 MB
    monkeypatch.setattr(formats.memory, "available_bytes", lambda: 50_000_000)
    assert main(["ember", str(work / "in.mlir"), "-O3", "--run", "-t", f"arg0={big}"]) == 1
    assert "reading its 10000000 array needs about 80 MB, more than the 50 MB" in \
        one_line_error(capsys)


# ----------------------------------------------------------------------------- sizes
@pytest.mark.parametrize("argv, message", [
    (["in.mlir", "-O3", "--vlen", "100000000"], "--vlen 100,000,000: at most 1,024 (a vector "
     "is one register of the execute core"),
    (["in.mlir", "-O3", "--vlen", "1025", "--run", "T"], "--vlen 1,025: at most 1,024"),
    (["in.mlir", "-O1", "--vlen", "0"], "--vlen 0: give 1 or more"),
    (["--op", "spattn", "--block", "100000000"], "--block 100,000,000: at most 4,096"),
    (["--op", "spattn", "--block", "0"], "--block 0: give 1 or more"),
    (["--op", "spattn", "--block", "-3"], "--block -3: give 1 or more"),
])
def test_absurd_sizes_are_refused_quickly(work, capsys, argv, message):
    argv = [str(work / a) if a.endswith(".mlir") else a for a in argv]
    if "T" in argv:
        argv = [a for a in argv if a != "T"] + tensors(work)
    start = time.perf_counter()
    assert main(["ember", *argv]) == 1
    assert time.perf_counter() - start < 5
    assert message in one_line_error(capsys)


def test_largest_vlen_runs(work, capsys):
    assert main(["ember", str(work / "in.mlir"), "-O3", "--vlen", "1024", "--run", "--at",
                 "dlc", *tensors(work), "-o", str(work / "o.npy")]) == 0
    assert np.load(work / "o.npy").tolist() == [[10, 12, 14, 16], [21, 22, 23, 24]]


@pytest.mark.parametrize("extra", [["--at", "dlc"], ["--trace", "t.json"]])
def test_trace_memory_of_a_large_vlen_is_refused_before_the_run(work, capsys, monkeypatch,
                                                                  extra):
    np.save(work / "idx.npy", np.zeros(2000, dtype=np.int64))
    monkeypatch.setattr(formats.memory, "available_bytes", lambda: 100_000_000)
    extra = [str(work / a) if a.endswith(".json") else a for a in extra]
    argv = [str(work / "in.mlir"), "-O3", "--run", "-t", f"arg1={work}/idx.npy", "-t",
            f"arg4={work}/arg4.npy", *extra]
    assert main(["ember", *argv, "--vlen", "1024"]) == 1
    assert one_line_error(capsys) == (
        "custard: error: --vlen 1,024: the queue trace (2,000 vectors of 1024 lanes at least): "
        "needs about 131 MB, more than the 100 MB of memory available; give a smaller value")


# ----------------------------------------------------------------------------- nesting
def test_200_nested_loops_are_one_line_with_position(work, capsys):
    deep = work / "deep.mlir"
    deep.write_text(nested_loops(200))
    for level in ([], ["-O3"]):
        assert main(["ember", str(deep), *level]) == 1
        # module and function are 2 levels: loop 63 (index 62, line 5 + 62) is 65 deep
        assert one_line_error(capsys) == (
            f"custard: error: {deep}:67:129: scf.for opens a block nested 65 deep (counting "
            "the module and the function); the loop nest is too deep for the decoupling, which "
            "supports blocks nested up to 64 deep (the parser and the passes recurse once per "
            "level; embedding operations nest 2-4 loops)")


def test_deepest_supported_nest_compiles_and_runs(work, capsys):
    deep = work / "deep.mlir"
    deep.write_text(nested_loops(MAX_DEPTH - 2))
    np.save(work / "tab.npy", np.array([[5.0]]))
    np.save(work / "out.npy", np.zeros((1, 1)))
    for at in ("dlc", "tmu"):
        assert main(["ember", str(deep), "-O3", "--run", "--at", at, "-t",
                     f"table={work}/tab.npy", "-t", f"out={work}/out.npy", "-o",
                     str(work / "r.npy")]) == 0
        assert np.load(work / "r.npy").tolist() == [[5.0]]
    capsys.readouterr()
    deep.write_text(nested_loops(MAX_DEPTH - 1))
    assert main(["ember", str(deep)]) == 1
    assert "nested 65 deep" in one_line_error(capsys)


def test_deeply_nested_brackets_are_one_line(work, capsys):
    f = work / "types.mlir"
    f.write_text("func.func private @f(" + "tuple<" * 2000 + "i64" + ">" * 2000 + ")\n")
    assert main(["ember", str(f)]) == 1
    assert one_line_error(capsys) == (f"custard: error: {f}: the MLIR nests brackets too "
                                      "deeply to read (Python's recursion limit); flatten its "
                                      "types and attributes")


# ----------------------------------------------------------------------------- combinations
@pytest.mark.parametrize("argv, message", [
    ([], "give either FILE.mlir or --op NAME"),
    (["F", "--op", "sls"], "give either FILE.mlir or --op NAME"),
    (["--op", "sls", "--block", "4"], "--block is the block size of --op spattn"),
    (["F", "-O3", "--emit", "dot"], "--emit dot builds the TMU graph for given input shapes"),
    (["F", "-O3", "--trace", "W/t.json"], "--trace applies to a --run; add --run or drop --trace"),
    (["F", "-O3", "--at", "dlc"], "--at applies to a --run"),
    (["F", "-O3", "--engine", "fast"], "--engine applies to a --run"),
    (["F", "-O3", "T"], "-t binds inputs for --run or --emit dot"),
    (["F", "-O3", "--run", "--emit", "dlc", "T"], "--emit prints code and --run runs it"),
    (["F", "-O3", "--run", "--at", "slc", "--trace", "W/t.json", "T"],
     "--trace needs --at dlc or --at tmu (the slc level has no queues)"),
    (["F", "-O3", "--run", "--at", "dlc", "--engine", "fast", "T"],
     "--engine chooses the simulator of --at tmu"),
    (["F", "-O3", "--run", "-t", "arg0=a.npy", "-t", "arg0=b.npy"], "-t arg0 is given more "
     "than once"),
    (["F", "-O3", "--run", "-t", "arg0"], "-t arg0: write NAME=FILE.npy"),
    (["F", "-O3", "--run", "-t", "=a.npy"], "-t =a.npy: write NAME=FILE.npy"),
    (["F", "-O3", "--run", "-t", "nope=W/arg0.npy"], "no argument named nope in @sls_scf"),
])
def test_option_combinations_are_one_line(work, capsys, argv, message):
    argv = [str(work / "in.mlir") if a == "F" else a.replace("W/", f"{work}/") for a in argv]
    if "T" in argv:
        argv = [a for a in argv if a != "T"] + tensors(work)
    before = (work / "in.mlir").read_bytes()
    assert main(["ember", *argv]) == 1
    assert message in one_line_error(capsys)
    assert (work / "in.mlir").read_bytes() == before


def test_usage_errors_exit_2(work, capsys):
    assert main(["ember", str(work / "in.mlir"), "-O5"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1] == ("custard ember: error: argument -O: invalid choice: 5 (choose from 0, "
                       "1, 2, 3)")
