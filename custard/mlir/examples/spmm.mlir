// SpMM: C = A B, with A a sparse CSR matrix (m x k) and B a dense matrix (k x n); C is dense.
// linalg.matmul accumulates into its output, here a fresh zero tensor (tensor.empty), so
// C(i,j) = sum_k A(i,k) * B(k,j).

#CSR = #sparse_tensor.encoding<{ map = (d0, d1) -> (d0 : dense, d1 : compressed) }>

func.func @spmm(%A: tensor<?x?xf64, #CSR>, %B: tensor<?x?xf64>) -> tensor<?x?xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %A, %c0 : tensor<?x?xf64, #CSR>
  %n = tensor.dim %B, %c1 : tensor<?x?xf64>
  %zero = tensor.empty(%m, %n) : tensor<?x?xf64>
  %C = linalg.matmul ins(%A, %B : tensor<?x?xf64, #CSR>, tensor<?x?xf64>)
                     outs(%zero : tensor<?x?xf64>) -> tensor<?x?xf64>
  return %C : tensor<?x?xf64>
}
