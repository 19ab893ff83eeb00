// symgnn: graph construction, normalisation and the sparse products every model uses.
//
// Loaders only report the graphs a file carries; this layer completes the rest
// (k-NN from features or rating rows, or the identity) and turns a graph into the
// symmetrically normalised adjacency At = D^-1/2 A D^-1/2 that Eq. 1 and the CGE
// layers use. All tensors live on the device the caller asks for.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <string>
#include <vector>

#include "symgnn/config.h"
#include "symgnn/dataset.h"

namespace symgnn::graph {

/// A fixed sparse matrix (rows x cols) in CSR form, plus its transpose, so that
/// products with it and their gradients are row-parallel gathers (no atomics).
/// Build with from_coo(); it never requires a gradient itself. Entries within a row are
/// sorted by column and unique. `values` keeps the dtype it was built with (float32 or
/// float64); spmm needs X of the same dtype.
struct SparseMatrix {
  int64_t rows = 0;
  int64_t cols = 0;
  at::Tensor row_ptr;     // int64 [rows + 1]
  at::Tensor col_idx;     // int64 [nnz]
  at::Tensor values;      // float [nnz]
  at::Tensor row_idx;     // int64 [nnz], the row of each entry (COO row, for index_add paths)
  bool identity = false;  // At = I: products return their input
  // The same matrix transposed (cols x rows, CSR of A^T), built once by from_coo so that
  // the backward of spmm and transpose() cost nothing per call. Optional: when undefined
  // (a hand-filled matrix), spmm's backward builds it on the fly.
  at::Tensor t_row_ptr;  // int64 [cols + 1]
  at::Tensor t_col_idx;  // int64 [nnz]
  at::Tensor t_values;   // [nnz]
  at::Tensor t_row_idx;  // int64 [nnz]

  int64_t nnz() const;
  at::Tensor to_dense() const;
  SparseMatrix to(const at::Device& device) const;
  SparseMatrix transpose() const;
};

/// Builds a CSR matrix from coordinates (duplicates are summed).
SparseMatrix from_coo(int64_t rows, int64_t cols, const at::Tensor& row, const at::Tensor& col,
                      const at::Tensor& values);

/// The n x n identity as a SparseMatrix (flagged, so products are free).
SparseMatrix identity(int64_t n);

/// Y = A X for a fixed sparse A (rows x cols) and dense X (cols x d, or a vector of
/// length cols): differentiable in X (the gradient is A^T dY, itself differentiable), on
/// CPU and CUDA, float32 and float64. For the identity it returns x itself (no copy).
at::Tensor spmm(const SparseMatrix& a, const at::Tensor& x);

/// At = D^-1/2 A D^-1/2 for a side's graph, where D = diag(row sums of A). Isolated nodes
/// (degree 0) get a zero row and column, never NaN. GraphOrigin::Identity gives I.
SparseMatrix normalized_adjacency(const NodeSet& side);

/// Whether the models read the identity on `side`: it has no graph, the identity, or a user
/// graph kept for the lists and the people alone (NodeSet::links_only).
bool models_read_identity(const NodeSet& side);

/// The links of a directed graph file as given (NodeSet::directed): n x n with 1 at (a, b)
/// where the file gave a -> b. Undefined (no row_ptr) where the side has none to give: an
/// undirected or built graph, or one the models do not read (models_read_identity).
SparseMatrix directed_links(const NodeSet& side);

/// Symmetric k-NN graph over the rows of x (n x d, float): each node links to its k most
/// cosine-similar other nodes, and the union of both directions is kept (weight 1).
/// Zero rows have similarity 0 to everything. Computed in row blocks of at most
/// `block` rows, so memory stays O(block * n).
EdgeList knn_graph(const at::Tensor& x, int64_t k, int64_t block = 1024);

/// The rows of a sparse n x d matrix in CSR form (columns ascending within a row): the
/// training rating rows of one side, for k-NN graphs without a dense n1 x n2 matrix.
struct SparseRows {
  int64_t cols = 0;
  std::vector<int64_t> row_ptr{0};  // n + 1
  std::vector<int64_t> col;         // nnz
  std::vector<float> value;         // nnz
  int64_t rows() const { return static_cast<int64_t>(row_ptr.size()) - 1; }
};

/// knn_graph over sparse rows: the same similarity (cosine, zero rows 0 to everything), tie
/// rule and symmetric union, computed in double over the shared columns only (a row's
/// similarities come from the columns it has and, for each, the rows that have it). Memory
/// O(threads x n + nnz + n k); rows are processed in parallel (at::parallel_for).
EdgeList knn_graph(const SparseRows& x, int64_t k);

/// knn_out_edges over sparse rows (a zero query row gets no edges).
EdgeList knn_out_edges(const SparseRows& x, int64_t first, int64_t k);

/// Directed k-NN edges of the rows first..n-1 of x (n x d), by knn_graph's similarity and
/// tie rule: each of those rows links to its k most similar other rows (src = the row),
/// nothing links back. A zero row gets no edges. How nodes added after training join a
/// k-NN graph (symgnn/trained_model.h): they gather from their neighbours, and the trained
/// nodes' rows stay as they were.
EdgeList knn_out_edges(const at::Tensor& x, int64_t first, int64_t k, int64_t block = 1024);

/// Completes ds.users.graph and ds.items.graph as cfg asks: "file" keeps the file's
/// graph (error if none), "knn" builds one from side features (or from training rating
/// rows when cfg.knn_source = ratings), "identity" uses I, and "auto" takes the file's
/// graph, else a k-NN graph (of the training rating rows when cfg.knn_source = ratings,
/// of the side features when the set has them), else the identity.
/// Returns a line for every substitution it makes ("note: ..." where auto built a k-NN
/// graph or an approximate one, "warning: ..." where it fell back to the identity), for
/// the caller to show: library code prints nothing.
std::vector<std::string> resolve_graphs(Dataset& ds, const GraphConfig& cfg);

/// Makes a side's graph the identity (A = I: no edges, GraphOrigin::Identity).
void use_identity(NodeSet& side);

/// The models read the identity on `side` (graph.<side>_graph = identity): a user graph from
/// a file stays in the data for the lists and the people (NodeSet::links_only), any other
/// graph is dropped (use_identity).
void use_identity_for_models(NodeSet& side, bool user_side);

/// After nodes were appended to a resolved side (indices `first`..count-1, inductive
/// prediction, symgnn/trained_model.h): when that side's graph is a k-NN graph, links each
/// new node to its cfg.knn_k nearest nodes by the vectors the graph was built from
/// (knn_out_edges over the training rating rows or the features, per cfg.knn_source).
/// Returns the entries added (0 for other graphs) and says which vectors in *how.
int64_t link_new_nodes(Dataset& ds, bool user_side, int64_t first, const GraphConfig& cfg,
                       std::string* how = nullptr);

}  // namespace symgnn::graph
