// A GCN layer: H = relu(A (X W)), A the sparse (CSR) adjacency (n x n), X the node features
// (n x f), W the weights (f x h), all but A dense. Three ops: T = X W (dense matmul),
// U = A T (SpMM; U stored DCSR, the rows A has), H = relu(U) (a generic of
// arith.maximumf with the constant 0). U streams into the ReLU when fused.

#CSR = #sparse_tensor.encoding<{ map = (d0, d1) -> (d0 : dense, d1 : compressed) }>
#DCSR = #sparse_tensor.encoding<{ map = (d0, d1) -> (d0 : compressed, d1 : compressed) }>

#relu = {
  indexing_maps = [
    affine_map<(i, j) -> (i, j)>,  // U
    affine_map<(i, j) -> (i, j)>   // H
  ],
  iterator_types = ["parallel", "parallel"],
  doc = "H(i,j) = max(U(i,j), 0)"
}

func.func @gcn(%A: tensor<?x?xf64, #CSR>, %X: tensor<?x?xf64>,
               %W: tensor<?x?xf64>) -> tensor<?x?xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f64
  %n = tensor.dim %A, %c0 : tensor<?x?xf64, #CSR>
  %h = tensor.dim %W, %c1 : tensor<?x?xf64>
  %t0 = tensor.empty(%n, %h) : tensor<?x?xf64>
  %T = linalg.matmul ins(%X, %W : tensor<?x?xf64>, tensor<?x?xf64>)
                     outs(%t0 : tensor<?x?xf64>) -> tensor<?x?xf64>
  %u0 = tensor.empty(%n, %h) : tensor<?x?xf64, #DCSR>
  %U = linalg.matmul ins(%A, %T : tensor<?x?xf64, #CSR>, tensor<?x?xf64>)
                     outs(%u0 : tensor<?x?xf64, #DCSR>) -> tensor<?x?xf64, #DCSR>
  %h0 = tensor.empty(%n, %h) : tensor<?x?xf64>
  %H = linalg.generic #relu
      ins(%U : tensor<?x?xf64, #DCSR>)
      outs(%h0 : tensor<?x?xf64>) {
    ^bb0(%u: f64, %out: f64):
      %r = arith.maximumf %u, %zero : f64
      linalg.yield %r : f64
  } -> tensor<?x?xf64>
  return %H : tensor<?x?xf64>
}
