// Sampled fusion: S = M .* (Q K^T), the sampled dense-dense product (SDDMM) of dense Q and K
// (n x d) at the stored entries of the sparse mask M (n x n); then O = S V (SpMM), V dense
// (n x e). S is sparse (DCSR): it has M's pattern, and when fused it streams from the SDDMM
// into the SpMM without being written to memory.

#DCSR = #sparse_tensor.encoding<{ map = (d0, d1) -> (d0 : compressed, d1 : compressed) }>

#sddmm = {
  indexing_maps = [
    affine_map<(i, j, k) -> (i, j)>,  // M
    affine_map<(i, j, k) -> (i, k)>,  // Q
    affine_map<(i, j, k) -> (j, k)>,  // K
    affine_map<(i, j, k) -> (i, j)>   // S
  ],
  iterator_types = ["parallel", "parallel", "reduction"],
  doc = "S(i,j) += M(i,j) * Q(i,k) * K(j,k)"
}

func.func @sddmm_spmm(%M: tensor<?x?xf64, #DCSR>, %Q: tensor<?x?xf64>, %K: tensor<?x?xf64>,
                      %V: tensor<?x?xf64>) -> tensor<?x?xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %M, %c0 : tensor<?x?xf64, #DCSR>
  %e = tensor.dim %V, %c1 : tensor<?x?xf64>
  %s0 = tensor.empty(%n, %n) : tensor<?x?xf64, #DCSR>
  %S = linalg.generic #sddmm
      ins(%M, %Q, %K : tensor<?x?xf64, #DCSR>, tensor<?x?xf64>, tensor<?x?xf64>)
      outs(%s0 : tensor<?x?xf64, #DCSR>) {
    ^bb0(%m: f64, %q: f64, %k: f64, %s: f64):
      %qk = arith.mulf %q, %k : f64
      %mqk = arith.mulf %m, %qk : f64
      %acc = arith.addf %s, %mqk : f64
      linalg.yield %acc : f64
  } -> tensor<?x?xf64, #DCSR>
  %o0 = tensor.empty(%n, %e) : tensor<?x?xf64>
  %O = linalg.matmul ins(%S, %V : tensor<?x?xf64, #DCSR>, tensor<?x?xf64>)
                     outs(%o0 : tensor<?x?xf64>) -> tensor<?x?xf64>
  return %O : tensor<?x?xf64>
}
