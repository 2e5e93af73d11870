"""The MLIR host interpreter (custard/mlir/interp.py): the runner's print formats exactly, driver
snippets (scf.for, tensor.generate, constants, conversions), and SAM kernel calls equal numpy on
both engines."""

from __future__ import annotations

import io

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from custard.mlir.interp import Interpreter, run_entry
from custard.mlir.printing import memref_text, sparse_text, vector_text
from custard.mlir.syntax import MlirError, parse_module
from custard.mlir.values import Sparse
from formats.tensor import Tensor

HEAD = "Unranked Memref base@ = 0x0 rank = {r} offset = 0 sizes = [{s}] strides = [{t}] data = \n"


def run(text: str, **kw) -> str:
    out = io.StringIO()
    run_entry(parse_module(text, "t.mlir"), out=out, **kw)
    return out.getvalue()


# ------------------------------------------------------------------------ print formats
def test_vector_print_floats_as_c_g() -> None:
    v = np.array([1.0, 2.5, 1e10, np.inf, -np.inf, np.nan, -0.0, 1 / 3, 1234567.0])
    assert vector_text(v, "f64") == \
        "( 1, 2.5, 1e+10, inf, -inf, nan, -0, 0.333333, 1.23457e+06 )"


def test_vector_print_ints_bools_and_nesting() -> None:
    assert vector_text(np.array([1, -2, 2147483647], np.int32), "i32") == \
        "( 1, -2, 2147483647 )"
    assert vector_text(np.array([True, False]), "i1") == "( 1, 0 )"
    assert vector_text(np.array([[1.0, 2.0], [3.0, 4.5]]), "f64") == "( ( 1, 2 ), ( 3, 4.5 ) )"
    assert vector_text(np.float64(7.0), "f64") == "7"


def test_print_memref_1d_and_2d_layout() -> None:
    assert memref_text(np.array([1.0, 2.0, 3.0]), "f64") == \
        HEAD.format(r=1, s="3", t="1") + "[1,  2,  3]\n"
    assert memref_text(np.array([[1, 2], [3, 4]], np.int32), "i32") == \
        HEAD.format(r=2, s="2, 2", t="2, 1") + "[[1,   2], \n [3,   4]]\n"
    assert memref_text(np.array([[5.5]]), "f64") == \
        HEAD.format(r=2, s="1, 1", t="1, 1") + "[[5.5]]\n"


def test_print_memref_3d_rows() -> None:
    a = np.arange(8, dtype=np.int64).reshape(2, 2, 2)
    assert memref_text(a, "i64").split("data = \n")[1] == \
        "[[[0,    1], \n  [2,    3]], \n [[4,    5], \n  [6,    7]]]\n"


def test_sparse_tensor_print_csr_dcsr_csc_and_coo() -> None:
    x = np.zeros((4, 8))
    x[0, 0], x[0, 2], x[3, 2], x[3, 3], x[3, 5] = 1, 2, 3, 4, 5
    csr = sparse_text(Tensor.from_dense(x, "ds"), "i32")
    assert csr == ("---- Sparse Tensor ----\nnse = 5\ndim = ( 4, 8 )\nlvl = ( 4, 8 )\n"
                   "pos[1] : ( 0, 2, 2, 2, 5 )\ncrd[1] : ( 0, 2, 2, 3, 5 )\n"
                   "values : ( 1, 2, 3, 4, 5 )\n----\n")
    dcsr = sparse_text(Tensor.from_dense(x, "ss"), "f64").splitlines()
    assert dcsr[4:8] == ["pos[0] : ( 0, 2 )", "crd[0] : ( 0, 3 )", "pos[1] : ( 0, 2, 5 )",
                         "crd[1] : ( 0, 2, 2, 3, 5 )"]
    csc = sparse_text(Tensor.from_dense(x, "ds:1,0"), "f64").splitlines()
    assert csc[3:6] == ["lvl = ( 8, 4 )", "pos[1] : ( 0, 1, 1, 3, 4, 4, 5, 5, 5 )",
                        "crd[1] : ( 0, 0, 3, 3, 3 )"]
    coo = sparse_text(Tensor.from_dense(x, "uq"), "f64").splitlines()
    assert coo[4:7] == ["pos[0] : ( 0, 5 )", "crd[0] : ( 0, 0, 0, 2, 3, 2, 3, 3, 3, 5 )",
                        "values : ( 1, 2, 3, 4, 5 )"]
    dense = sparse_text(Tensor.from_dense(np.eye(2), "dd"), "f64").splitlines()
    assert dense[1:] == ["nse = 4", "dim = ( 2, 2 )", "lvl = ( 2, 2 )",
                         "values : ( 1, 0, 0, 1 )", "----"]


# ------------------------------------------------------------------------- driver snippets
DRIVER = """
func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %f0 = arith.constant 0.0 : f64
  %t = tensor.generate %c4 {
  ^bb0(%i : index):
    %k = arith.addi %i, %c1 : index
    %j = arith.index_cast %k : index to i32
    %f = arith.sitofp %j : i32 to f64
    %h = arith.divf %f, %two : f64
    tensor.yield %h : f64
  } : tensor<?xf64>
  %sum = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %f0) -> (f64) {
    %e = tensor.extract %t[%i] : tensor<?xf64>
    %n = arith.addf %acc, %e : f64
    scf.yield %n : f64
  }
  %v = vector.transfer_read %t[%c0], %f0 : tensor<?xf64>, vector<6xf64>
  vector.print %v : vector<6xf64>
  vector.print %sum : f64
  %big = arith.cmpf ogt, %sum, %f0 : f64
  %r = scf.if %big -> (i32) {
    %a = arith.constant 7 : i32
    scf.yield %a : i32
  } else {
    %b = arith.constant -7 : i32
    scf.yield %b : i32
  }
  vector.print %r : i32
  vector.print str "done\\n"
  return
}
"""


def test_driver_with_generate_for_if_and_padding() -> None:
    text = DRIVER.replace("%h = arith.divf %f, %two", "%h = arith.divf %f, %twoc")
    text = text.replace("%f0 = arith.constant 0.0 : f64",
                        "%f0 = arith.constant 0.0 : f64\n  %twoc = arith.constant 2.0 : f64")
    assert run(text) == "( 0.5, 1, 1.5, 2, 0, 0 )\n5\n7\ndone\n"


def test_integer_ops_wrap_and_truncate_like_mlir() -> None:
    text = """
func.func @main() {
  %a = arith.constant 2147483647 : i32
  %one = arith.constant 1 : i32
  %m7 = arith.constant -7 : i32
  %two = arith.constant 2 : i32
  %w = arith.addi %a, %one : i32
  %q = arith.divsi %m7, %two : i32
  %r = arith.remsi %m7, %two : i32
  %inf = arith.constant 0x7FF0000000000000 : f64
  vector.print %w : i32
  vector.print %q : i32
  vector.print %r : i32
  vector.print %inf : f64
  return
}
"""
    assert run(text) == "-2147483648\n-3\n-1\ninf\n"


def test_constants_convert_and_sparse_queries() -> None:
    text = """
#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d = arith.constant dense<[[1.0, 0.0, 2.0], [0.0, 0.0, 3.0]]> : tensor<2x3xf64>
  %s = arith.constant sparse<[[0, 1], [1, 1]], [4.0, 0.0]> : tensor<2x3xf64>
  %a = sparse_tensor.convert %d : tensor<2x3xf64> to tensor<2x3xf64, #CSR>
  %b = sparse_tensor.convert %s : tensor<2x3xf64> to tensor<2x3xf64, #CSR>
  %n = sparse_tensor.number_of_entries %b : tensor<2x3xf64, #CSR>
  vector.print %n : index
  %p = sparse_tensor.positions %a {level = 1 : index} : tensor<2x3xf64, #CSR> to memref<?xindex>
  %pv = vector.transfer_read %p[%c0], %c0 : memref<?xindex>, vector<3xindex>
  vector.print %pv : vector<3xindex>
  %back = sparse_tensor.convert %a : tensor<2x3xf64, #CSR> to tensor<2x3xf64>
  %m = bufferization.to_memref %back : memref<2x3xf64>
  %u = memref.cast %m : memref<2x3xf64> to memref<*xf64>
  call @printMemrefF64(%u) : (memref<*xf64>) -> ()
  sparse_tensor.print %b : tensor<2x3xf64, #CSR>
  return
}
func.func private @printMemrefF64(%ptr : memref<*xf64>)
"""
    out = run(text).splitlines()
    assert out[:2] == ["2", "( 0, 2, 3 )"]
    assert out[3:5] == ["[[1,   0,   2], ", " [0,   0,   3]]"]
    assert "pos[1] : ( 0, 1, 2 )" in out and "values : ( 4, 0 )" in out


def test_an_op_outside_the_subset_is_one_line_at_its_position() -> None:
    text = "func.func @main() {\n  %x = vector.load_something %y : f64\n  return\n}\n"
    with pytest.raises(MlirError, match=r"^t\.mlir:2:8: vector\.load_something is not in"):
        run(text)


def test_a_missing_tensor_variable_is_one_line() -> None:
    text = """
!Filename = !llvm.ptr<i8>
func.func private @getTensorFilename(index) -> (!Filename)
func.func @main() {
  %c0 = arith.constant 0 : index
  %f = call @getTensorFilename(%c0) : (index) -> (!Filename)
  return
}
"""
    with pytest.raises(MlirError, match="TENSOR0 naming the tensor file is not set"):
        run(text)


# ----------------------------------------------------------------- kernels on SAM == numpy
KERNEL = """
#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
#trait = {
  indexing_maps = [affine_map<(i,j) -> (i,j)>, affine_map<(i,j) -> (j)>,
                   affine_map<(i,j) -> (i)>],
  iterator_types = ["parallel", "reduction"]
}
func.func @matvec(%a: tensor<4x5xf64, #CSR>, %b: tensor<5xf64>, %x: tensor<4xf64>)
    -> tensor<4xf64> {
  %0 = linalg.generic #trait ins(%a, %b : tensor<4x5xf64, #CSR>, tensor<5xf64>)
    outs(%x : tensor<4xf64>) {
  ^bb0(%av: f64, %bv: f64, %xv: f64):
    %p = arith.mulf %av, %bv : f64
    %s = arith.addf %xv, %p : f64
    linalg.yield %s : f64
  } -> tensor<4xf64>
  return %0 : tensor<4xf64>
}
"""


@pytest.mark.parametrize("engine", ["fast", "reference"])
@settings(max_examples=4, deadline=None)
@given(seed=st.integers(0, 2**16))
def test_kernel_call_on_sam_equals_numpy(engine: str, seed: int) -> None:
    rng = np.random.default_rng(seed)
    a = rng.integers(-3, 4, (4, 5)) * (rng.random((4, 5)) < 0.5)
    b = rng.integers(-3, 4, 5).astype(np.float64)
    x = rng.integers(-3, 4, 4).astype(np.float64)
    module = parse_module(KERNEL, "k.mlir")
    interp = Interpreter(module, {}, io.StringIO(), engine, True)
    from custard.mlir.encoding import parse_type
    from custard.mlir.syntax import Loc

    t = parse_type("tensor<4x5xf64, #CSR>", module, Loc("k", 1, 1))
    (out,) = interp.call("matvec", [Sparse(Tensor.from_dense(a, t.fmt), t), b, x],
                         Loc("k", 1, 1))
    np.testing.assert_allclose(out, x + a @ b)
    assert interp.run.calls == 1 and interp.run.cycles > 0


def test_a_linalg_op_in_the_driver_runs_on_sam() -> None:
    text = """
func.func @main() {
  %c0 = arith.constant 0 : index
  %i0 = arith.constant 0 : i32
  %a = arith.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  %b = arith.constant dense<[[5, 6], [7, 8]]> : tensor<2x2xi32>
  %z = arith.constant dense<0> : tensor<2x2xi32>
  %c = linalg.matmul ins(%a, %b : tensor<2x2xi32>, tensor<2x2xi32>)
                     outs(%z : tensor<2x2xi32>) -> tensor<2x2xi32>
  %v = vector.transfer_read %c[%c0, %c0], %i0 : tensor<2x2xi32>, vector<2x2xi32>
  vector.print %v : vector<2x2xi32>
  return
}
"""
    module = parse_module(text, "d.mlir")
    out = io.StringIO()
    r = run_entry(module, out=out)
    assert out.getvalue() == "( ( 19, 22 ), ( 43, 50 ) )\n"
    assert r.calls == 1


def test_foreach_visits_stored_entries_in_storage_order() -> None:
    text = """
#CSC = #sparse_tensor.encoding<{ map = (i, j) -> (j : dense, i : compressed) }>
func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d = arith.constant dense<[[1.0, 0.0, 2.0], [0.0, 5.0, 3.0]]> : tensor<2x3xf64>
  %a = sparse_tensor.convert %d : tensor<2x3xf64> to tensor<2x3xf64, #CSC>
  %n = sparse_tensor.foreach in %a init(%c0) : tensor<2x3xf64, #CSC>, index -> index do {
  ^bb0(%i: index, %j: index, %v: f64, %acc: index):
    vector.print %v : f64
    %next = arith.addi %acc, %c1 : index
    sparse_tensor.yield %next : index
  }
  vector.print %n : index
  return
}
"""
    assert run(text) == "1\n5\n2\n3\n4\n"


def test_a_linalg_op_on_memrefs_writes_in_place() -> None:
    text = """
func.func private @printMemrefF64(%ptr : memref<*xf64>)
func.func @main() {
  %a = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf64>
  %am = bufferization.to_memref %a : memref<2x2xf64>
  %c = memref.alloc() : memref<2x2xf64>
  %one = arith.constant 1.0 : f64
  linalg.fill ins(%one : f64) outs(%c : memref<2x2xf64>)
  linalg.matmul ins(%am, %am : memref<2x2xf64>, memref<2x2xf64>) outs(%c : memref<2x2xf64>)
  %u = memref.cast %c : memref<2x2xf64> to memref<*xf64>
  call @printMemrefF64(%u) : (memref<*xf64>) -> ()
  return
}
"""
    assert run(text).split("data = \n")[1] == "[[8,   11], \n [16,   23]]\n"


def test_assemble_and_disassemble_csr_and_coo() -> None:
    text = """
#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
#COO = #sparse_tensor.encoding<{
  map = (i, j) -> (i : compressed(nonunique), j : singleton) }>
func.func @main() {
  %c0 = arith.constant 0 : index
  %f0 = arith.constant 0.0 : f64
  %pos = arith.constant dense<[0, 1, 3]> : tensor<3xindex>
  %crd = arith.constant dense<[1, 0, 1]> : tensor<3xindex>
  %val = arith.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf64>
  %a = sparse_tensor.assemble (%pos, %crd), %val
     : (tensor<3xindex>, tensor<3xindex>), tensor<3xf64> to tensor<2x2xf64, #CSR>
  %d = sparse_tensor.convert %a : tensor<2x2xf64, #CSR> to tensor<2x2xf64>
  %v = vector.transfer_read %d[%c0, %c0], %f0 : tensor<2x2xf64>, vector<2x2xf64>
  vector.print %v : vector<2x2xf64>
  %cpos = arith.constant dense<[0, 2]> : tensor<2xindex>
  %cidx = arith.constant dense<[[0, 1], [1, 1]]> : tensor<2x2xindex>
  %cval = arith.constant dense<[5.0, 6.0]> : tensor<2xf64>
  %b = sparse_tensor.assemble (%cpos, %cidx), %cval
     : (tensor<2xindex>, tensor<2x2xindex>), tensor<2xf64> to tensor<2x2xf64, #COO>
  sparse_tensor.print %b : tensor<2x2xf64, #COO>
  %op = tensor.empty() : tensor<2xindex>
  %oi = tensor.empty() : tensor<2x2xindex>
  %od = tensor.empty() : tensor<3xf64>
  %p, %i, %x, %pl, %il, %xl = sparse_tensor.disassemble %b : tensor<2x2xf64, #COO>
     out_lvls(%op, %oi : tensor<2xindex>, tensor<2x2xindex>) out_vals(%od : tensor<3xf64>)
     -> (tensor<2xindex>, tensor<2x2xindex>), tensor<3xf64>, (index, index), index
  %xv = vector.transfer_read %x[%c0], %f0 : tensor<3xf64>, vector<3xf64>
  vector.print %xv : vector<3xf64>
  vector.print %il : index
  vector.print %xl : index
  return
}
"""
    out = run(text).splitlines()
    assert out[0] == "( ( 0, 1 ), ( 2, 3 ) )"
    assert out[5:8] == ["pos[0] : ( 0, 2 )", "crd[0] : ( 0, 1, 1, 1 )", "values : ( 5, 6 )"]
    assert out[9:] == ["( 5, 6, 0 )", "4", "2"]
