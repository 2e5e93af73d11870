"""The MLIR front end (custard/mlir): encodings to formats, linalg ops to statements, kernels
simulated on SAM equal numpy on both engines, and bad input as one line with its position."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from custard.mlir.encoding import parse_type
from custard.mlir.program import lower_function, run_lowered
from custard.mlir.syntax import Loc, MlirError, Module, parse_module
from formats.format import Format

CSR = "#sparse_tensor.encoding<{ map = (d0, d1) -> (d0 : dense, d1 : compressed) }>"
DCSR = "#sparse_tensor.encoding<{ map = (d0, d1) -> (d0 : compressed, d1 : compressed) }>"
SV = "#sparse_tensor.encoding<{ map = (d0) -> (d0 : compressed) }>"
HERE = Loc("t.mlir", 1, 1)


@pytest.mark.parametrize("encoding,rank,expected", [
    (CSR, 2, "ds"),
    (DCSR, 2, "ss"),
    ("#sparse_tensor.encoding<{ map = (d0, d1) -> (d1 : dense, d0 : compressed) }>", 2,
     "ds:1,0"),
    ("#sparse_tensor.encoding<{ map = (i, j) -> (i : compressed(nonunique), j : singleton) }>",
     2, "uq"),
    ("#sparse_tensor.encoding<{ map = (i, j, k) -> (i : compressed(nonunique), "
     "j : singleton(nonunique), k : singleton) }>", 3, "ucq"),
    ('#sparse_tensor.encoding<{ lvlTypes = [ "dense", "compressed" ] }>', 2, "ds"),
    ('#sparse_tensor.encoding<{ dimLevelType = [ "compressed-nu", "singleton" ] }>', 2, "uq"),
    ('#sparse_tensor.encoding<{ dimLevelType = [ "dense", "compressed" ], '
     'dimOrdering = affine_map<(i,j) -> (j,i)> }>', 2, "ds:1,0"),
    ('#sparse_tensor.encoding<{ lvlTypes = [ "compressed", "compressed" ], '
     'dimToLvl = affine_map<(i,j) -> (j,i)>, posWidth = 8, crdWidth = 8 }>', 2, "ss:1,0"),
    ("#sparse_tensor.encoding<{ map = (d0) -> (d0 : loose_compressed) }>", 1, "s"),
])
def test_encodings_map_to_our_formats(encoding: str, rank: int, expected: str) -> None:
    module = Module("t.mlir", aliases={"#E": encoding})
    shape = "x".join(["?"] * rank)
    t = parse_type(f"tensor<{shape}xf64, #E>", module, HERE)
    assert t.fmt == Format.parse(expected)


@pytest.mark.parametrize("encoding,words", [
    ("#sparse_tensor.encoding<{ map = (i, j) -> (i floordiv 2 : dense, j floordiv 2 : "
     "compressed, i mod 2 : dense, j mod 2 : dense) }>", "block map"),
    ("#sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : n_out_of_m(2, 4)) }>",
     "n:m structured"),
    ("#sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed(nonordered)) }>",
     "unordered"),
])
def test_unlowerable_encodings_are_one_line(encoding: str, words: str) -> None:
    module = Module("t.mlir", aliases={"#E": encoding})
    with pytest.raises(MlirError) as err:
        parse_type("tensor<?x?xf64, #E>", module, Loc("t.mlir", 7, 3))
    assert str(err.value).startswith("t.mlir:7:3: ") and words in str(err.value)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("element", ["complex<f64>", "f16", "bf16"])
def test_element_types_sam_does_not_compute_are_refused(element: str) -> None:
    with pytest.raises(MlirError, match=f"element type {element}"):
        parse_type(f"tensor<4x{element}>", Module("t.mlir"), HERE)


@pytest.mark.parametrize("text,where,words", [
    ("func.func @f() {\n  %0 = arith.constant 1 : i32\n", "t.mlir:1:16", "never closed"),
    ("func.func @f() {\n  return `\n}\n", "t.mlir:2:10", "unexpected character"),
    ("#A = #sparse_tensor.encoding<{ map = (d0) -> (d0 : compressed)\n", "t.mlir:1:6",
     "unclosed '<'"),
    ("func.func @f() {\n return\n}\nfunc.func @f() {\n return\n}\n", "t.mlir:4:11",
     "redefinition of function @f"),
])
def test_syntax_errors_name_file_line_column(text: str, where: str, words: str) -> None:
    with pytest.raises(MlirError) as err:
        parse_module(text, "t.mlir")
    assert str(err.value).startswith(where) and words in str(err.value)


# --------------------------------------------------------------------------- kernels on SAM
MATVEC = f"""
#CSR = {CSR}
func.func @matvec(%A: tensor<?x?xf64, #CSR>, %x: tensor<?xf64>, %y: tensor<?xf64>)
    -> tensor<?xf64> {{
  %0 = linalg.matvec ins(%A, %x : tensor<?x?xf64, #CSR>, tensor<?xf64>)
                     outs(%y : tensor<?xf64>) -> tensor<?xf64>
  return %0 : tensor<?xf64>
}}
"""

MATMUL = f"""
#DCSR = {DCSR}
func.func @matmul(%A: tensor<6x5xf64, #DCSR>, %B: tensor<5x4xf64, #DCSR>)
    -> tensor<6x4xf64, #DCSR> {{
  %e = tensor.empty() : tensor<6x4xf64, #DCSR>
  %0 = linalg.matmul ins(%A, %B : tensor<6x5xf64, #DCSR>, tensor<5x4xf64, #DCSR>)
                     outs(%e : tensor<6x4xf64, #DCSR>) -> tensor<6x4xf64, #DCSR>
  return %0 : tensor<6x4xf64, #DCSR>
}}
"""

#: union add, then intersection product, then |.|: three ops, one chain
ELEMENTWISE = f"""
#SV = {SV}
#ew = {{ indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
         iterator_types = ["parallel"] }}
#un = {{ indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
         iterator_types = ["parallel"] }}
func.func @ew(%a: tensor<8xf64, #SV>, %b: tensor<8xf64, #SV>, %c: tensor<8xf64, #SV>)
    -> tensor<8xf64, #SV> {{
  %e0 = tensor.empty() : tensor<8xf64, #SV>
  %s = linalg.generic #ew ins(%a, %b : tensor<8xf64, #SV>, tensor<8xf64, #SV>)
                          outs(%e0 : tensor<8xf64, #SV>) {{
  ^bb0(%x: f64, %y: f64, %o: f64):
    %r = sparse_tensor.binary %x, %y : f64, f64 to f64
      overlap = {{
        ^bb0(%p: f64, %q: f64):
          %t = arith.addf %p, %q : f64
          sparse_tensor.yield %t : f64
      }}
      left = identity
      right = identity
    linalg.yield %r : f64
  }} -> tensor<8xf64, #SV>
  %e1 = tensor.empty() : tensor<8xf64, #SV>
  %m = linalg.generic #ew ins(%s, %c : tensor<8xf64, #SV>, tensor<8xf64, #SV>)
                          outs(%e1 : tensor<8xf64, #SV>) {{
  ^bb0(%x: f64, %y: f64, %o: f64):
    %r = sparse_tensor.binary %x, %y : f64, f64 to f64
      overlap = {{
        ^bb0(%p: f64, %q: f64):
          %t = arith.mulf %p, %q : f64
          sparse_tensor.yield %t : f64
      }}
      left = {{}}
      right = {{}}
    linalg.yield %r : f64
  }} -> tensor<8xf64, #SV>
  %e2 = tensor.empty() : tensor<8xf64, #SV>
  %n = linalg.generic #un ins(%m : tensor<8xf64, #SV>) outs(%e2 : tensor<8xf64, #SV>) {{
  ^bb0(%x: f64, %o: f64):
    %r = sparse_tensor.unary %x : f64 to f64
      present = {{
        ^bb0(%p: f64):
          %t = math.absf %p : f64
          sparse_tensor.yield %t : f64
      }}
      absent = {{}}
    linalg.yield %r : f64
  }} -> tensor<8xf64, #SV>
  return %n : tensor<8xf64, #SV>
}}
"""

#: a scaled row sum with sparse_tensor.reduce into a dense vector, and ReLU
ROWSUM = f"""
#CSR = {CSR}
#rows = {{ indexing_maps = [affine_map<(i,j) -> (i,j)>, affine_map<(i,j) -> (i)>],
           iterator_types = ["parallel", "reduction"] }}
#relu = {{ indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
           iterator_types = ["parallel"] }}
func.func @rowsum(%A: tensor<?x?xf64, #CSR>, %out: tensor<?xf64>) -> tensor<?xf64> {{
  %zero = arith.constant 0.0 : f64
  %two = arith.constant 2.0 : f64
  %0 = linalg.generic #rows ins(%A : tensor<?x?xf64, #CSR>) outs(%out : tensor<?xf64>) {{
  ^bb0(%a: f64, %o: f64):
    %s = arith.mulf %a, %two : f64
    %r = sparse_tensor.reduce %s, %o, %zero : f64 {{
      ^bb0(%p: f64, %q: f64):
        %t = arith.addf %p, %q : f64
        sparse_tensor.yield %t : f64
    }}
    linalg.yield %r : f64
  }} -> tensor<?xf64>
  %1 = linalg.generic #relu ins(%0 : tensor<?xf64>) outs(%out : tensor<?xf64>) {{
  ^bb0(%a: f64, %o: f64):
    %r = arith.maximumf %a, %zero : f64
    linalg.yield %r : f64
  }} -> tensor<?xf64>
  return %1 : tensor<?xf64>
}}
"""


def _sparse(rng: np.random.Generator, shape: tuple[int, ...], density: float) -> np.ndarray:
    values = rng.uniform(-2, 2, shape)
    return np.where(rng.random(shape) < density, values, 0.0)


ENGINES = ("fast", "reference")


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 10_000), m=st.integers(1, 7), n=st.integers(1, 7),
       density=st.floats(0.1, 0.9))
def test_matvec_accumulates_into_its_outs(seed: int, m: int, n: int, density: float) -> None:
    rng = np.random.default_rng(seed)
    a, x, y = _sparse(rng, (m, n), density), rng.uniform(-1, 1, n), rng.uniform(-1, 1, m)
    low = lower_function(parse_module(MATVEC, "matvec.mlir"), "matvec")
    assert low.statements[0].text == "t0(i) = y(i) + A(i,j) * x(j)"
    for engine in ENGINES:
        got = run_lowered(low, [a, x, y], engine=engine).outputs[0].to_dense()
        np.testing.assert_allclose(got, y + a @ x, rtol=1e-12, atol=1e-12)


@settings(max_examples=5, deadline=None)
@given(seed=st.integers(0, 10_000), density=st.floats(0.1, 0.8))
def test_matmul_with_an_empty_output_is_a_plain_product(seed: int, density: float) -> None:
    rng = np.random.default_rng(seed)
    a, b = _sparse(rng, (6, 5), density), _sparse(rng, (5, 4), density)
    low = lower_function(parse_module(MATMUL, "matmul.mlir"), "matmul")
    assert low.statements[0].text == "t0(i,j) = A(i,k) * B(k,j)"
    assert low.statements[0].formats == {"t0": "ss", "A": "ss", "B": "ss"}
    for engine in ENGINES:
        call = run_lowered(low, [a, b], engine=engine)
        assert call.outputs[0].format == Format.parse("ss")
        np.testing.assert_allclose(call.outputs[0].to_dense(), a @ b, rtol=1e-12, atol=1e-12)


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 10_000), density=st.floats(0.1, 0.9))
def test_binary_union_intersection_and_unary_chain(seed: int, density: float) -> None:
    rng = np.random.default_rng(seed)
    a, b, c = (_sparse(rng, (8,), density) for _ in range(3))
    low = lower_function(parse_module(ELEMENTWISE, "ew.mlir"), "ew")
    texts = [s.text for s in low.statements]
    assert texts == ["s(i) = a(i) + b(i)", "m(i) = s(i) * c(i)", "n(i) = m(i)"]
    assert low.statements[2].unary == ("abs",)
    want = np.abs((a + b) * c)
    for engine in ENGINES:
        for fuse in (True, False):
            call = run_lowered(low, [a, b, c], engine=engine, fuse=fuse)
            np.testing.assert_allclose(call.outputs[0].to_dense(), want, atol=1e-12)


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 10_000), m=st.integers(1, 6), n=st.integers(1, 6),
       density=st.floats(0.1, 0.9))
def test_reduce_and_relu(seed: int, m: int, n: int, density: float) -> None:
    rng = np.random.default_rng(seed)
    a, out = _sparse(rng, (m, n), density), rng.uniform(-3, 3, m)
    low = lower_function(parse_module(ROWSUM, "rows.mlir"), "rowsum")
    assert low.statements[0].text == "t0(i) = A(i,j) * 2 + out(i)"
    assert low.statements[1].text == "t1(i) = t0(i)"
    assert low.statements[1].unary == ("relu",)
    want = np.maximum(out + 2 * a.sum(axis=1), 0)
    for engine in ENGINES:
        got = run_lowered(low, [a, out], engine=engine).outputs[0].to_dense()
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("region,words", [
    ("%r = math.sin %a : f64", "math.sin in a linalg region has no SAM ALU"),
    ("%r = math.exp %a : f64", "math.exp of a sparse operand"),
    ("%r = arith.maximumf %a, %o : f64", "SAM's max ALU is not lowered"),
])
def test_regions_without_a_sam_alu_name_the_op(region: str, words: str) -> None:
    text = f"""#CSR = {CSR}
func.func @k(%A: tensor<?x?xf64, #CSR>, %o: tensor<?x?xf64>) -> tensor<?x?xf64> {{
  %0 = linalg.generic {{indexing_maps = [affine_map<(i,j) -> (i,j)>, affine_map<(i,j) -> (i,j)>],
                       iterator_types = ["parallel", "parallel"]}}
       ins(%A : tensor<?x?xf64, #CSR>) outs(%o : tensor<?x?xf64>) {{
  ^bb0(%a: f64, %o2: f64):
    {region.replace("%o", "%o2")}
    linalg.yield %r : f64
  }} -> tensor<?x?xf64>
  return %0 : tensor<?x?xf64>
}}
"""
    with pytest.raises(MlirError) as err:
        lower_function(parse_module(text, "k.mlir"), "k")
    assert str(err.value).startswith("k.mlir:7:") and words in str(err.value)


def test_a_convolution_window_is_refused_at_its_op() -> None:
    text = """func.func @conv(%x: tensor<8xf64>, %w: tensor<3xf64>, %o: tensor<6xf64>)
    -> tensor<6xf64> {
  %0 = linalg.generic {indexing_maps = [affine_map<(i,k) -> (i + k)>,
      affine_map<(i,k) -> (k)>, affine_map<(i,k) -> (i)>],
      iterator_types = ["parallel", "reduction"]}
      ins(%x, %w : tensor<8xf64>, tensor<3xf64>) outs(%o : tensor<6xf64>) {
  ^bb0(%a: f64, %b: f64, %c: f64):
    %m = arith.mulf %a, %b : f64
    %s = arith.addf %c, %m : f64
    linalg.yield %s : f64
  } -> tensor<6xf64>
  return %0 : tensor<6xf64>
}
"""
    with pytest.raises(MlirError, match=r"conv.mlir:3:8: .*'i \+ k' is not a plain dimension"):
        lower_function(parse_module(text, "conv.mlir"), "conv")
