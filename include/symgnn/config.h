// symgnn: every hyperparameter, declared once.
//
// Each struct lists its fields once in visit(): key, member, one-line doc and check.
// That list drives the `key = value` config-file parser, `--set section.key=value`
// command-line overrides, to_text() (saved in every checkpoint and metrics file),
// `symgnn config --defaults` and docs/config.md (tests/util/test_config.cpp fails when
// that page is stale). Keys are "<section>.<field>", e.g. "lowrank.hidden".
//
// Extensions beyond the paper are switches whose field default is the faithful reading
// (DESIGN.md), so a default-constructed RunConfig is the paper's model. What a user gets
// with no config is the `recommended` preset (src/util/presets.cpp): the paper's reading
// plus the extensions measured to help on every benchmark (docs/models.md, "Presets").
// `--preset paper` (or `preset = paper` first in a config file) is the faithful reading.
// Tuned values for each benchmark live in configs/.
#pragma once

#include <cstdint>
#include <string>

#include "symgnn/metrics.h"
#include "symgnn/model_kinds.h"
#include "symgnn/objectives.h"

namespace symgnn {

/// A field's admissible values. Numeric fields use [min, max]; string fields with a
/// non-empty `choices` ("a|b|c") accept only those words.
struct Check {
  double min = -1e300;
  double max = 1e300;
  const char* choices = "";
};
inline Check range(double lo, double hi) { return Check{lo, hi, ""}; }
inline Check at_least(double lo) { return Check{lo, 1e300, ""}; }
inline Check one_of(const char* choices) { return Check{-1e300, 1e300, choices}; }
inline Check any() { return Check{}; }

/// Where the ratings, graphs and features come from and how they are split.
struct DataConfig {
  std::string source = "synthetic";
  std::string split = "u1";
  std::string split_time = "";
  int64_t leave_last_n = 1;
  double val_fraction = 0.05;
  double test_fraction = 0.1;
  int64_t split_seed = 1234;
  std::string test_file = "";
  std::string feedback = "auto";
  std::string unknown_test = "known-mean";
  std::string user_graph_file = "";
  std::string item_graph_file = "";
  std::string graph_self_loops = "drop";
  std::string user_features_file = "";
  std::string item_features_file = "";
  int64_t synthetic_users = 300;
  int64_t synthetic_items = 300;
  int64_t synthetic_communities = 6;
  double synthetic_density = 0.08;
  double synthetic_noise = 0.35;
  int64_t synthetic_seed = 7;

  template <class V>
  void visit(V&& v) {
    v("source", source, "dataset: 'synthetic', a MovieLens-100K/1M directory, a .mat file or a ratings CSV/TSV", any());
    v("split", split, "test split: u1..u5, ua, ub are MovieLens-100K's canonical splits (other sources without a test file: a random test_fraction drawn with split_seed); temporal: every rating at or after a cut-off time is test (split_time, else the time that makes test_fraction of the ratings test); leave_last_out: each user's last leave_last_n ratings by time; both need rating times (a 4th CSV column, MovieLens timestamps) and carve validation by time as well (docs/your_data.md, \"Time-aware splits\")", one_of("u1|u2|u3|u4|u5|ua|ub|temporal|leave_last_out"));
    v("split_time", split_time, "split = temporal: the cut-off, unix seconds or a UTC date YYYY-MM-DD[THH:MM:SS] (empty: the time of the rating that makes test_fraction of the ratings test)", any());
    v("leave_last_n", leave_last_n, "split = leave_last_out: test ratings per user, the latest by time (equal times: the later line); a user with no more ratings than this keeps them all in training", range(1, 1000000));
    v("val_fraction", val_fraction, "fraction of the training ratings held out for validation (split = temporal: the latest ones; leave_last_out: any value above 0 holds out each user's last leave_last_n training ratings)", range(0.0, 0.5));
    v("test_fraction", test_fraction, "test fraction for sources without a given test split (ML-1M, CSV, synthetic), and of split = temporal without split_time; 0: no test split, every rating given trains (validation, carved by val_fraction, still stops early and chooses; the run reports no test figures)", range(0.0, 0.9));
    v("split_seed", split_seed, "seed of the validation carve and of random test splits", at_least(0));
    v("test_file", test_file, "ratings CSV: optional separate test ratings (same format)", any());
    v("feedback", feedback, "what a ratings file's or frame's rows say: ratings (user, item, rating: a value to predict); implicit (user, item: an interaction, a click, a play or a purchase; a third column is ignored; repeated pairs are one interaction); counts (user, item, count: the count, summed over repeated pairs, becomes the weight log(1 + count) of the interaction, as implicit's ALS confidence); auto: implicit where the first line has two fields, else ratings. Under implicit and counts the kinds that rank are trained (a kind fitting rating values is replaced by popularity with train.ranker = auto choosing the lists), every held-out interaction is relevant and no rating error is reported (data/feedback.h, docs/your_data.md)", one_of("auto|ratings|implicit|counts"));
    v("unknown_test", unknown_test, "test_file ratings naming an id that is no node (in no training rating, feature or graph row): scored apart by known-mean (the item's mean training rating, else the user's, else the global mean), item-mean, user-mean, global-mean; or error", one_of("known-mean|item-mean|user-mean|global-mean|error"));
    v("user_graph_file", user_graph_file, "ratings CSV: optional user edge list 'a,b[,w]' (original ids)", any());
    v("item_graph_file", item_graph_file, "ratings CSV: optional item edge list 'a,b[,w]' (original ids)", any());
    v("graph_self_loops", graph_self_loops, "user_graph_file, item_graph_file: a row joining a node to itself (real trust exports hold them: people trust themselves) is dropped, counted on the summary line, or refused (error); rows repeated exactly are dropped either way, a repeat with another weight is always refused", one_of("drop|error"));
    v("user_features_file", user_features_file, "ratings CSV: optional user features 'id,f1,f2,...'", any());
    v("item_features_file", item_features_file, "ratings CSV: optional item features 'id,f1,f2,...'", any());
    v("synthetic_users", synthetic_users, "synthetic: number of users", range(10, 100000));
    v("synthetic_items", synthetic_items, "synthetic: number of items", range(10, 100000));
    v("synthetic_communities", synthetic_communities, "synthetic: communities per side", range(1, 1000));
    v("synthetic_density", synthetic_density, "synthetic: fraction of observed entries", range(0.001, 1.0));
    v("synthetic_noise", synthetic_noise, "synthetic: rating noise standard deviation", range(0.0, 10.0));
    v("synthetic_seed", synthetic_seed, "synthetic: generator seed", at_least(0));
  }
};

/// How each side's graph is chosen, built and normalised.
struct GraphConfig {
  std::string user_graph = "auto";
  std::string item_graph = "auto";
  int64_t knn_k = 10;
  std::string knn_source = "features";
  int64_t knn_exact_max = 20000;

  template <class V>
  void visit(V&& v) {
    v("user_graph", user_graph, "auto: file graph, else k-NN (from knn_source; features only if the side has them), else identity; identity: the models read none (a user graph from a file still gives the lists of users without ratings, the ranker's term and serve's linked people)", one_of("auto|file|knn|identity"));
    v("item_graph", item_graph, "as user_graph, for the items", one_of("auto|file|knn|identity"));
    v("knn_k", knn_k, "neighbours per node of the k-NN graph (cosine, symmetrised)", range(1, 1000));
    v("knn_source", knn_source, "vectors the k-NN graph compares: side features, training rating rows, or interactions (the rows of the binary training matrix: a co-occurrence graph)", one_of("features|ratings|interactions"));
    v("knn_exact_max", knn_exact_max, "a k-NN graph of features over at most this many nodes is exact (quadratic: every pair compared); over more, it comes from an approximate index (HNSW, hnswlib: about n log n; recall in bench/bench_knn.cpp), with a note; 0: always approximate (src/graph/knn_approximate.h)", at_least(0));
  }
};

/// The classic Sylvester equation (paper Eq. 1) and the "Sylv." completion baseline.
struct SylvesterConfig {
  std::string solver = "cg";
  double alpha = 0.8;
  double tol = 1e-8;
  int64_t max_iter = 10000;
  std::string alphas = "0.1,0.3,0.5,0.7,0.8,0.9,0.95,0.99";

  template <class V>
  void visit(V&& v) {
    v("solver", solver, "fixed_point, cg (conjugate gradient), cr (conjugate residual: monotone residual) or exact (eigendecomposition)", one_of("fixed_point|cg|cr|exact"));
    v("alpha", alpha, "a in X = a At1 X At2^T + (1-a) H (X users x items); must be in [0, 1)", range(0.0, 0.999999));
    v("tol", tol, "stop when the relative residual falls below this", range(1e-15, 1.0));
    v("max_iter", max_iter, "iteration limit of the iterative solvers", range(1, 10000000));
    v("alphas", alphas, "candidate values of a tried on the validation split by train --model sylvester", any());
  }
};

/// ItemKNN (models/closed_form/itemknn_model.h).
struct ItemKnnConfig {
  int64_t neighbours = 100;

  template <class V>
  void visit(V&& v) {
    v("neighbours", neighbours, "most similar items kept per item (cosine of the binary interaction columns)", range(1, 100000));
  }
};

/// The item-based ranker (models/elsa/elsa_model.h).
struct ElsaConfig {
  std::string dims = "128,512";
  int64_t epochs = 50;
  int64_t eval_every = 2;
  int64_t long_epoch_steps = 64;
  int64_t patience = 3;
  double fall_patience = 0;
  double min_gain = 1e-4;
  double lr = 0.01;
  int64_t batch_users = 256;
  double dropout = 0.5;
  double graph_beta = 0.3;
  std::string deep_hidden = "0,256";
  double deep_dropout = 0.5;

  template <class V>
  void visit(V&& v) {
    v("dims", dims, "candidate widths d of the item matrix A (n_items x d), each trained on the training ratings; the best on validation NDCG@10 is kept", any());
    v("epochs", epochs, "most epochs (passes over the users) per candidate; the epoch count is chosen on validation NDCG@10", range(1, 100000));
    v("eval_every", eval_every, "measure validation NDCG@10 every this many epochs", range(1, 100000));
    v("long_epoch_steps", long_epoch_steps, "an epoch of at least this many optimiser steps (users / elsa.batch_users) is measured on its own, elsa.eval_every applying to shorter ones: such an epoch moves the item rows as far as many short ones, and patience counted in pairs of them runs long past a peak (0: elsa.eval_every always)", range(0, 100000000));
    v("patience", patience, "stop a candidate after this many measurements without a better validation NDCG@10", range(1, 100000));
    v("fall_patience", fall_patience, "also stop a candidate once the epochs since its best measurement reach this multiple of the best's epoch count (1: a curve that has gone as long without a gain as it took to rise; a sparse set's peak at epoch 2 stops at epoch 4 instead of 8); 0: elsa.patience alone", range(0.0, 1000.0));
    v("min_gain", min_gain, "a measurement is better only where its validation NDCG@10 passes the best so far by more than this (0: any gain)", range(0.0, 1.0));
    v("lr", lr, "Adam learning rate", range(1e-8, 10.0));
    v("batch_users", batch_users, "users per optimiser step; more on a wide catalogue, where each step's n_items x d^2 Gram matrix would dominate: an epoch's steps stay below 2^36 multiply-adds (models/elsa/elsa_model.h)", range(1, 1000000));
    v("dropout", dropout, "probability of dropping each rated item from a user's input row during training", range(0.0, 0.95));
    v("graph_beta", graph_beta, "one step over the item graph before normalising: A' = (1 - beta) A + beta At2 A (0: off; the data's item graph, given or k-NN)", range(0.0, 1.0));
    v("deep_hidden", deep_hidden, "candidate widths H of the deep path (0: none): h_u = relu(z_u W + b), z_u the user's sum of item rows scaled by 1/sqrt(their count), scored against its own item rows D (n_items x H) beside the shallow scores and trained with them; every pair of a width of elsa.dims and one of these is trained, a deep path kept only where its validation NDCG@10 passes the best without one by elsa.min_gain (models/elsa/elsa_model.h)", any());
    v("deep_dropout", deep_dropout, "probability of dropping each unit of the deep path's hidden layer h_u during training", range(0.0, 0.95));
  }
};

/// EASE (models/closed_form/ease_model.h).
struct EaseConfig {
  std::string lambdas = "50,100,200,500,1000,2000";

  template <class V>
  void visit(V&& v) {
    v("lambdas", lambdas, "candidate ridge penalties lambda of B = argmin |X - X B|^2 + lambda |B|^2 (diag B = 0), chosen on validation NDCG@10", any());
  }
};

/// The bias baseline mu + b_u + b_i (models/baseline/bias_fit.h): the `baseline` kind, and
/// the offset of the learned models (lowrank.offset, base.offset).
struct BaselineConfig {
  std::string user_shrinkages = "0.3,1,2,3,5,10,20,30";
  std::string item_shrinkages = "1,2,3,5,10,20,30,50,100";
  std::string select = "cv";
  int64_t folds = 10;
  int64_t cv_max_held = 1000000;
  int64_t sweeps = 100;
  int64_t seed = 1;
  std::string combination = "members";
  std::string neighbour_shrinkages = "1,2,5,10,20,50,100";
  int64_t combination_folds = 5;
  int64_t knn_neighbours = 40;
  std::string link_direction = "auto";

  template <class V>
  void visit(V&& v) {
    v("user_shrinkages", user_shrinkages, "candidate ridge penalties lambda_u of the user biases, b_u = sum_{i in R(u)} (r_ui - mu - b_i) / (lambda_u + |R(u)|)", any());
    v("item_shrinkages", item_shrinkages, "candidate ridge penalties lambda_i of the item biases, b_i = sum_{u in R(i)} (r_ui - mu - b_u) / (lambda_i + |R(i)|)", any());
    v("select", select, "how model = baseline chooses the pair (lambda_u, lambda_i): cv (folds-fold cross-validation on the training ratings, deterministic) or validation (the RMSE of the validation ratings); the offset of lowrank.offset and base.offset always uses cv on the model's training ratings", one_of("cv|validation"));
    v("folds", folds, "cross-validation folds", range(2, 100));
    v("cv_max_held", cv_max_held, "most held-out ratings the cross-validation predicts: its folds are fitted in turn until their held-out ratings reach this count, so on millions of ratings a few folds choose the pair (the choice's time bounded; every fold on fewer training ratings than this); 0: every fold", at_least(0));
    v("sweeps", sweeps, "most alternating sweeps (item biases, then user biases) of one fit; a fit stops earlier when no bias moves by 1e-6 of the rating range", range(1, 100000));
    v("seed", seed, "seed of the shuffle that deals the ratings into the folds", at_least(0));
    v("combination", combination, "train.auto's final combination of a trained rating model: members (the baseline plus non-negative weights of the members that gain on combination_folds cross-fitted folds of the validation ratings by more than their spread: the network's residual, each graph's neighbour member (the shrunk mean residual of a user's graph neighbours on the item, or of the user on the item's graph neighbours) and the item k-NN member (knn_neighbours); the baseline exactly when none is kept; fit/member_selection.h, models/baseline/neighbour_residuals.h) or weights (c + a x model + b x baseline, least squares on all validation ratings, a, b >= 0: round 4's form)", one_of("members|weights"));
    v("neighbour_shrinkages", neighbour_shrinkages, "candidate shrinkages lambda of the neighbour members, sum of the neighbours' residuals / (lambda + their count), one chosen per graph on the cross-fitted folds", any());
    v("combination_folds", combination_folds, "folds of the validation ratings that the members' weights are cross-fitted on", range(2, 50));
    v("knn_neighbours", knn_neighbours, "the item k-NN member of combination = members (Koren's neighbourhood model on the baseline): the user's residuals on the knn_neighbours items most similar to the item (shrunk Pearson correlation of the residuals over their co-raters), similarity-weighted and shrunk by a lambda of neighbour_shrinkages; 0: no such member. Not tried where the co-rated pairs (sum over users of their ratings squared) pass 2e9 (models/baseline/similar_items.h)", range(0, 10000));
    v("link_direction", link_direction, "which links of a directed graph file (a,b: a follows or trusts b) the graphs' neighbour members read: auto (out, in and both tried on the cross-fitted folds where the file gave some pair one way only), both (the symmetric graph the network reads), out (the people a user follows; an item's listed neighbours) or in (the people who follow them)", one_of("auto|both|out|in"));
  }
};

/// The low-rank SyMGNN model (node representations, dot-product prediction).
struct LowRankConfig {
  std::string variant = "full";
  int64_t hidden = 32;
  int64_t layers = 2;
  double dropout = 0.0;
  std::string activation = "relu";
  std::string fusion = "sum";
  bool biases = false;
  int64_t attention_block = 512;
  std::string prior_norm = "left";
  double prior_dropout = 0.0;
  std::string decoder = "dot";
  int64_t class_bases = 2;
  double class_mse_weight = 0.0;
  double smoothness = 0.0;
  double l2 = 0.0;
  std::string class_init = "small";
  std::string prior = "paper";
  bool id_embedding = true;
  int64_t prior_width = 500;
  std::string prior_stacking = "concat";
  double prior_node_dropout = 0.7;
  double prior_dense_dropout = 0.7;
  std::string encoder_kernels = "fused";
  int64_t prior_side_width = 10;
  bool cge_bias = false;
  int64_t decoder_chunk = 1000000;
  std::string offset = "none";

  template <class V>
  void visit(V&& v) {
    v("variant", variant, "full, G (CGE aggregation only) or A (attention only)", one_of("full|G|A"));
    v("hidden", hidden, "width d of every node representation", range(1, 4096));
    v("layers", layers, "number L of CGE layers", range(0, 16));
    v("dropout", dropout, "dropout on hidden representations", range(0.0, 0.95));
    v("activation", activation, "activation phi", one_of("relu|elu|tanh|sigmoid|identity"));
    v("fusion", fusion, "sum (paper footnote: U = Uh + sum of modules) or learned (linear on the concatenation)", one_of("sum|learned"));
    v("biases", biases, "add user/item biases and the global mean to <U1_i, U2_j> (decoder dot only)", any());
    v("attention_block", attention_block, "rows per block of the attention softmax (bounds peak memory)", range(1, 1000000));
    v("prior_norm", prior_norm, "norm(H_k) of the prior aggregation: left (1/deg_i, over all classes) or symmetric (1/sqrt(deg_i deg_j))", one_of("left|symmetric"));
    v("prior_dropout", prior_dropout, "dropout on the edges of the per-class prior H_k while training, rescaled (0: off, faithful)", range(0.0, 0.95));
    v("decoder", decoder, "dot: <U1_i, U2_j> (paper); classes: softmax over the rating levels from bilinear forms, prediction = expected rating (GC-MC-style); auto: classes when the data has at most 10 rating levels, else dot", one_of("dot|classes|auto"));
    v("class_bases", class_bases, "decoder = classes: shared basis matrices Q_b of the bilinear forms", range(1, 64));
    v("class_mse_weight", class_mse_weight, "decoder = classes: loss = cross-entropy + w * MSE of the expected rating", range(0.0, 100.0));
    v("smoothness", smoothness, "lambda of the graph smoothness penalty tr(U^T (I - At) U) / n on the final representations (0: off, faithful)", range(0.0, 100.0));
    v("l2", l2, "penalty l2 (mean_i |U1_i|^2 + mean_j |U2_j|^2) on the final representations (0: off; the ranking objectives need it, docs/recommend.md)", range(0.0, 100.0));
    v("class_init", class_init, "decoder = classes: small (Q_b ~ N(0, 1/d^2), a ~ N(0, 0.01)) or orthogonal (Q_b orthogonal x 1.1, a Glorot; GC-MC's)", one_of("small|orthogonal"));
    v("prior", prior, "prior-association module b_Theta: paper (V_k = phi(norm(H_k) Uh Theta_k), then an MLP) or encoder (GC-MC-style: per-class aggregation of a wide free embedding of the other side, node dropout, dense layer; models/layers/prior_encoder.h) or auto (encoder where its memory fits a budget on the data, else paper with hidden at most 32 and the dot decoder, with a note; src/fit/prior_choice.h)", one_of("paper|encoder|auto"));
    v("id_embedding", id_embedding, "keep the free id embedding Uh = MLP([id || features]) in the sum U = Uh + modules (false: the modules act on U^(p), U = U^(p) + CGE(U^(p)) + ...; needs prior = encoder or auto)", any());
    v("prior_width", prior_width, "prior = encoder: width of the free embeddings E1, E2 aggregated per rating class", range(1, 100000));
    v("prior_stacking", prior_stacking, "prior = encoder: concat (class k aggregates its own block of prior_width/K columns; GC-MC's stack) or sum (one prior_width table per class, summed)", one_of("concat|sum"));
    v("prior_node_dropout", prior_node_dropout, "prior = encoder: probability of dropping a whole row of E1, E2 in a training pass (kept rows rescaled)", range(0.0, 0.95));
    v("prior_dense_dropout", prior_dense_dropout, "prior = encoder: dropout on the aggregated hidden layer before the dense layer to `hidden` units", range(0.0, 0.95));
    v("encoder_kernels", encoder_kernels, "prior = encoder: fused (node dropout folded into the class entries, the K class products in one pass over the table's blocks, the dense dropout's mask hashed from one seed and never stored: an epoch about a third shorter; models/kernels/hashed_dropout.h, class_spmm.h) or composite (LibTorch's ops as before: the table's rows scaled, K products and a concatenation, torch::dropout; the same model with other random draws and float sums, for the figures measured with it, docs/results.md)", one_of("fused|composite"));
    v("cge_bias", cge_bias, "add a learned bias in every CGE layer, phi(Ah U W + b) (false: as printed, no bias)", any());
    v("prior_side_width", prior_side_width, "prior = encoder: width of the side-feature branch relu(x W_f) + b_f joined to the aggregation (0: no side features)", range(0, 4096));
    v("decoder_chunk", decoder_chunk, "training pairs the class decoder (and the dot decoder off the CPU) scores at once: a step over more pairs scores them chunk by chunk and accumulates the representations' gradients, the same loss and gradients with memory O(chunk) instead of O(ratings) (0: all at once); on the CPU the dot decoder takes one fused pass that needs no chunks", range(0, 1e12));
    v("offset", offset, "none (faithful) or baseline: prediction = mu + b_u + b_i + the model's output, the biases fitted once to the training ratings before training and fixed (shrinkage by cross-validation, the baseline section; models/baseline/offset_model.h); needs decoder dot or auto (auto then picks dot) and objective rating; auto: none or baseline (with biases = false), whichever of two short runs validates better under train.auto (the residuals' first; the ratings' only where the residuals' network alone beats the baseline), else none (fit/offset_choice.h)", one_of("none|baseline|auto"));
  }
};

/// The base SyMGNN model (2-D association, four channels fused by bmm).
struct BaseConfig {
  std::string variant = "full";
  int64_t hidden = 32;
  int64_t hops = 2;
  std::string activation = "relu";
  int64_t attention_block = 512;
  bool biases = false;
  double dropout = 0.0;
  double prior_dropout = 0.0;
  std::string prior = "paper";
  int64_t prior_width = 500;
  double prior_node_dropout = 0.7;
  double prior_dense_dropout = 0.7;
  std::string encoder_kernels = "fused";
  int64_t prior_side_width = 10;
  std::string offset = "none";

  template <class V>
  void visit(V&& v) {
    v("variant", variant, "full, G (CGE aggregation only) or A (attention only)", one_of("full|G|A"));
    v("hidden", hidden, "width d of U1, U2", range(1, 4096));
    v("hops", hops, "number of CGE hops i in X1 = sum_i phi(...)", range(1, 16));
    v("activation", activation, "activation phi", one_of("relu|elu|tanh|sigmoid|identity"));
    v("attention_block", attention_block, "rows per block of the attention softmax", range(1, 1000000));
    v("biases", biases, "predict mean + std * (X_ij + b1_i + b2_j): X fits standardised ratings (false: X_ij, faithful)", any());
    v("dropout", dropout, "dropout on U1, U2 while training (0: off, faithful)", range(0.0, 0.95));
    v("prior_dropout", prior_dropout, "dropout on the edges of the per-class prior Hn_k of X3 while training, rescaled (0: off, faithful)", range(0.0, 0.95));
    v("prior", prior, "node representations U1, U2: paper (U = MLP([id || features])) or encoder (the GC-MC-style prior encoder of the low-rank model, models/layers/prior_encoder.h, per-class aggregation of the ratings)", one_of("paper|encoder"));
    v("prior_width", prior_width, "prior = encoder: width of the free embeddings aggregated per rating class", range(1, 100000));
    v("prior_node_dropout", prior_node_dropout, "prior = encoder: probability of dropping a whole embedding row in a training pass", range(0.0, 0.95));
    v("prior_dense_dropout", prior_dense_dropout, "prior = encoder: dropout before the encoder's dense layer to `hidden` units", range(0.0, 0.95));
    v("encoder_kernels", encoder_kernels, "prior = encoder: fused or composite, as lowrank.encoder_kernels", one_of("fused|composite"));
    v("prior_side_width", prior_side_width, "prior = encoder: width of the side-feature branch (0: no side features)", range(0, 4096));
    v("offset", offset, "none (faithful) or baseline: prediction = mu + b_u + b_i + the model's output, the biases fitted once to the training ratings before training and fixed (as lowrank.offset); needs objective rating", one_of("none|baseline"));
  }
};

/// The training protocol shared by all learned models.
struct TrainConfig {
  int64_t epochs = 500;
  double lr = 0.01;
  double weight_decay = 0.01;
  int64_t patience = 50;
  double lr_decay = 0.5;
  int64_t lr_patience = 20;
  double min_lr = 1e-4;
  int64_t checkpoint_every = 10;
  double checkpoint_seconds = 30;
  bool keep_checkpoints = false;
  bool stop_on_divergence = true;
  int64_t seed = 1;
  int64_t runs = 1;
  int64_t threads = 0;
  std::string device = "cpu";
  int64_t log_every = 10;
  int64_t eval_every = 1;
  double ema = 0.0;
  std::string protocol = "early_stop";
  std::string retrain_from = "scratch";
  double retrain_warm_fraction = 0.1;
  bool continue_short_run = true;
  int64_t average_last = 1;
  int64_t average_every = 5;
  int64_t batch_size = 0;
  std::string objective = "rating";
  std::string ranking_loss = "softmax";
  double ranking_weight = 1.0;
  int64_t negatives = 100;
  double positive_min = 0.0;
  int64_t ranking_block = 4194304;
  std::string select = "auto";
  std::string ranker = "none";
  double ranker_budget = 0;
  std::string cold_lists = "auto";
  double cold_popularity_weight = 1.0;
  std::string ranker_graph = "auto";
  double ranker_graph_weight = 0.5;
  double ranker_graph_shrinkage = 3.0;
  std::string ranker_graph_direction = "both";
  std::string ranker_quality = "auto";
  double ranker_quality_weight = 0.2;
  double ranker_quality_shrinkage = 10.0;
  std::string ranker_network = "auto";
  double ranker_network_weight = 0.5;
  std::string auto_choose = "off";

  template <class V>
  void visit(V&& v) {
    v("epochs", epochs, "maximum number of epochs (passes over the training ratings)", range(1, 1000000));
    v("lr", lr, "AdamW learning rate", range(1e-8, 10.0));
    v("weight_decay", weight_decay, "AdamW decoupled weight decay (paper: 0.01)", range(0.0, 10.0));
    v("patience", patience, "stop after this many epochs without a better validation score (train.select)", range(1, 1000000));
    v("lr_decay", lr_decay, "multiply the learning rate by this after lr_patience epochs without improvement", range(0.01, 1.0));
    v("lr_patience", lr_patience, "epochs without a better validation score (train.select) before the learning rate decays", range(1, 1000000));
    v("min_lr", min_lr, "the learning rate never decays below this", range(0.0, 10.0));
    v("checkpoint_every", checkpoint_every, "epochs between checkpoints in --out (the last epoch is always saved)", range(1, 1000000));
    v("checkpoint_seconds", checkpoint_seconds, "a checkpoint every checkpoint_every epochs is written only once this many seconds have passed since the run's previous one (or its start), so that a wide network's checkpoints (weights, Adam's moments, the moving average, the best weights, each hashed and synced) stay a small share of the run; the last epoch is always saved (0: every checkpoint_every epochs)", range(0.0, 1e6));
    v("stop_on_divergence", stop_on_divergence, "stop with an error (exit 2) when a step's loss exceeds a million times the first step's (a non-finite loss always stops); false: train on, the epoch selection keeps the best weights", any());
    v("keep_checkpoints", keep_checkpoints, "keep run<r>/checkpoint.pt (weights and optimiser state) when the training ends; false: pruned, the model directory keeps what inference needs, and a finished run cannot be resumed", any());
    v("seed", seed, "seed of the first run (run r uses seed + r)", at_least(0));
    v("runs", runs, "number of seeds trained; mean and standard deviation are reported", range(1, 1000));
    v("threads", threads, "intra-op threads (0: one per core)", range(0, 1024));
    v("device", device, "cpu, cuda or cuda:N", any());
    v("log_every", log_every, "epochs between progress lines when not on a terminal", range(1, 1000000));
    v("eval_every", eval_every, "with a validation split, the validation and test pairs are scored (a forward pass with the evaluation weights) every this many epochs, at the last epoch and wherever the epoch could end the run by train.patience; the epoch chosen is the best of those measured, patience and the learning-rate decay still count epochs (1: every epoch, the paper's reading; the recommended preset's 5 skips four measurements in five, each a forward pass of the model: its runs on the development sets took 3-17 % less time, docs/experiments.md)", range(1, 100000));
    v("ema", ema, "decay of an exponential moving average of the weights, min(ema, (1+t)/(10+t)) at step t; evaluation and the saved model use the averaged weights (0: off)", range(0.0, 0.99999));
    v("protocol", protocol, "early_stop: test at the best validation epoch; retrain (GC-MC/IGMC's): choose the epoch count on validation, then train a fresh model on all training ratings for that many epochs and score the test set once (without a validation split: one phase of `epochs` epochs on all ratings)", one_of("early_stop|retrain"));
    v("retrain_from", retrain_from, "protocol = retrain: the training on all ratings starts from fresh weights for the epoch count chosen on validation (scratch), or continues the selection phase's chosen weights for retrain_warm_fraction of that count (selected: a warm start, the retrain in a fraction of its time) (train/trainer.cpp)", one_of("scratch|selected"));
    v("retrain_warm_fraction", retrain_warm_fraction, "retrain_from = selected: the epochs on all ratings as a fraction of the chosen epoch count (at least 1)", range(0.0, 1.0));
    v("continue_short_run", continue_short_run, "train.auto's short runs (lowrank.offset = auto, each side's graph): the selection phase continues the chosen short run from its last epoch (its weights, optimiser moments and random generator state: the same model) instead of training those epochs again; false: it starts afresh (fit/prepared_data.cpp)", any());
    v("average_last", average_last, "runs without a validation split (val_fraction = 0, or the retrain phase): predictions are the mean over the last N checkpoints, average_every epochs apart (1: the last epoch only)", range(1, 1000));
    v("average_every", average_every, "epochs between the averaged checkpoints", range(1, 100000));
    v("batch_size", batch_size, "training ratings per optimiser step: an epoch takes ceil(ratings / batch_size) steps over a shuffled order, each on the full graph's representations (0: full batch, one step an epoch; docs/scale.md)", range(0, 1e12));
    v("objective", objective, objective_docs(), one_of(objective_choices()));
    v("ranking_loss", ranking_loss, ranking_loss_docs(), one_of(ranking_loss_choices()));
    v("ranking_weight", ranking_weight, "objective joint: weight of the ranking loss beside the rating MSE", range(0.0, 1000.0));
    v("negatives", negatives, "ranking_loss sampled_softmax: items drawn uniformly per step, shared by all positives; bpr: drawn items per positive", range(1, 100000));
    v("positive_min", positive_min, "objective ranking|joint: training ratings >= this are the positives (0: every rated pair)", range(0.0, 1e9));
    v("ranking_block", ranking_block, "ranking_loss softmax and ranking metrics: user x item scores held at once (bounds memory; never a dense users x items matrix)", range(1, 1e12));
    v("select", select, select_doc(), one_of(select_choices()));
    v("ranker", ranker, "what recommend and evaluate rank by: none (the model's own scores: its ranking head, or its predicted ratings); ease, elsa or itemknn (that ranking kind, fitted beside the model on the same data into DIR/ranker; predicted ratings still come from the model; each also ranks users added by --new-ratings, from their ratings); popularity (the most rated items); auto (for a model that ranks by its predicted ratings: the best on validation NDCG@10 of ease where the data have at most 10,000 items and 2^26 user x item pairs, else elsa, and itemknn and popularity at any width; else none) (fit/ranker.h, docs/recommend.md)", one_of("none|auto|ease|elsa|itemknn|popularity"));
    v("ranker_budget", ranker_budget, "seconds that train.ranker = auto may spend on its candidates: a candidate whose estimated fit (EASE: an n2 x n2 inverse per penalty; elsa: users x items x d a measurement) would pass what is left is not fitted, and the run says so; popularity and itemknn always are; 0: 240 s + 100 s per million training ratings, which keeps EASE at 9,742 items (about 6 s with 610 users, fewer than the items: Woodbury's form; with more users an n2 x n2 inverse a penalty, about 200 s on one thread) and leaves out elsa at 20,000 x 262,000 (about 670 s) (fit/ranker.h)", range(0.0, 1e9));
    v("cold_lists", cold_lists, "the lists of users without training ratings (created by a graph edit, given with follows alone, or first seen in the test split) where a ranker beside the model ranks, or the model is a kind that scores users from their rated items alone (popularity, itemknn, ease, elsa): neighbours (what the people linked to them in the user graph rated, as a share of the top rating, shrunk toward the items' popularity by train.cold_popularity_weight; popularity alone where none is linked or rated), popularity, model (the model's own scores: a ranker's empty row, or the network beside it), or auto (neighbours or popularity, and the weight, chosen on validation NDCG@10 of the validation users listed as if they had no rating; fit/cold_list_choice.h) (infer/cold_lists.h)", one_of("auto|neighbours|popularity|model"));
    v("cold_popularity_weight", cold_popularity_weight, "the popularity term's weight in train.cold_lists = neighbours: score = (the linked raters' shares + w x popularity) / (linked raters + w); train.cold_lists = auto writes the weight it chose (infer/cold_lists.h)", range(1e-6, 1e6));
    v("ranker_graph", ranker_graph, "the user graph's term on the lists of the ranker beside the model (train.ranker): user (each user's ranker row, scaled so that its largest entry is 1, plus train.ranker_graph_weight x what the people linked to them in the user graph rated: score = s(u, i) / max_j |s(u, j)| + beta x sum of the linked raters' shares of the top rating / (linked raters + train.ranker_graph_shrinkage)), none (the ranker's scores alone), or auto (user, and its weight and shrinkage, where they gain on validation NDCG@10 over the ranker alone by more than the gain's standard error over the users judged, with the ranker refit on the training ratings alone; else none; fit/ranker_graph_choice.h) (infer/ranker_graph_term.h)", one_of("auto|user|none"));
    v("ranker_graph_weight", ranker_graph_weight, "beta of train.ranker_graph = user: the weight of the linked raters' term beside the ranker's scaled row; train.ranker_graph = auto writes the weight it chose (infer/ranker_graph_term.h)", range(0.0, 1e6));
    v("ranker_graph_shrinkage", ranker_graph_shrinkage, "the linked raters' term of train.ranker_graph = user divides by (linked raters + this), so that one linked rater counts less than many; train.ranker_graph = auto writes the value it chose (infer/ranker_graph_term.h)", range(0.0, 1e6));
    v("ranker_graph_direction", ranker_graph_direction, "the links of a directed user graph file (a,b: a follows b) whose raters train.ranker_graph = user reads: both, out (the people each user follows) or in (the people who follow them); an undirected graph reads alike each way; train.ranker_graph = auto tries the three where the file is directed and writes the one it chose (infer/ranker_graph_term.h)", one_of("both|out|in"));
    v("ranker_quality", ranker_quality, "the items' ratings on the lists of the ranker beside the model (train.ranker), after the user graph's term: item (score = the ranker's row scaled so that its largest entry is 1 [+ the user graph's term] + train.ranker_quality_weight x q(i), q(i) = the sum of (r_ui - the rater's mean rating) over i's raters / (raters + train.ranker_quality_shrinkage), as a share of the rating scale: the rankers learn from which items are rated, this from how well), none (the ranker's scores alone), or auto (item, and its weight and shrinkage, where they gain on validation NDCG@10 over the lists without it by more than the gain's standard error over the validation users judged, with the ranker refit on the training ratings alone; else none; interactions have no ratings to weigh: none; fit/ranker_quality_choice.h) (infer/ranker_quality_term.h)", one_of("auto|item|none"));
    v("ranker_quality_weight", ranker_quality_weight, "gamma of train.ranker_quality = item: the weight of the items' rating term beside the ranker's scaled row; train.ranker_quality = auto writes the weight it chose (infer/ranker_quality_term.h)", range(0.0, 1e6));
    v("ranker_quality_shrinkage", ranker_quality_shrinkage, "the items' rating term of train.ranker_quality = item divides each item's summed deviations by (its raters + this), so that an item few rated stays near 0; train.ranker_quality = auto writes the value it chose (infer/ranker_quality_term.h)", range(0.0, 1e6));
    v("ranker_network", ranker_network, "the network trained for ranking on the lists of the ranker beside the model (train.ranker), after the items' ratings: on (score = the lists so far, the ranker's row scaled so that its largest entry is 1 with the terms above, + train.ranker_network_weight x the network's row less its mean, divided by its largest entry less its mean; the network is the low-rank SyMGNN on the run's data and graphs with objective ranking, early-stopped on validation, kept in DIR/ranker_network: fit/ranker_network_choice.h), none, or auto (on, and its weight, where it gains on validation NDCG@10 over the lists without it by more than the gain's standard error over the validation users judged, with the ranker refit on the training ratings alone; not tried where its training is expected to pass what is left of train.ranker_budget; else none) (infer/ranker_network_term.h)", one_of("auto|on|none"));
    v("ranker_network_weight", ranker_network_weight, "the weight of the network's scaled row in train.ranker_network = on; train.ranker_network = auto writes the weight it chose (infer/ranker_network_term.h)", range(0.0, 1e6));
    v("auto", auto_choose, "on: symgnn::fit decides on the validation ratings what the data should decide, and says what it chose: a trained rating model's predictions become the bias baseline plus the members kept on cross-fitted validation folds (baseline.combination; fit/baseline_guard.h), the baseline exactly where none is kept; off: the model's predictions as trained", one_of("on|off"));
  }
};

/// The metric train.select names: auto is the rating figure (val_rmse) for objective rating,
/// else the ranking figure (val_ndcg@10; symgnn/metrics.h, ranking_figure).
inline std::string selection_metric(const TrainConfig& t) {
  if (t.select != "auto") return t.select;
  return objective_ranks(t.objective) ? ranking_figure("val") : rating_figure("val");
}

/// Everything one run needs. `model` picks the model kind (symgnn/model_kinds.h); only its
/// section is used. `preset` names the starting point the fields were set on (see
/// preset_config); it is no field of the list, since setting it resets every field.
struct RunConfig {
  std::string preset = "paper";
  std::string model = "lowrank";
  DataConfig data;
  GraphConfig graph;
  SylvesterConfig sylvester;
  LowRankConfig lowrank;
  BaseConfig base;
  ItemKnnConfig itemknn;
  EaseConfig ease;
  ElsaConfig elsa;
  BaselineConfig baseline;
  TrainConfig train;

  /// The fields without a section (keys without a dot), as the sections' visit() lists theirs.
  template <class V>
  void visit_fields(V&& v) {
    v("model", model, "model kind to fit (symgnn/model_kinds.h; `symgnn models` lists them)",
      one_of(model_kind_choices()));
  }

  /// Calls v(section_name, section) for every section.
  template <class V>
  void visit_sections(V&& v) {
    v("data", data);
    v("graph", graph);
    v("sylvester", sylvester);
    v("lowrank", lowrank);
    v("base", base);
    v("itemknn", itemknn);
    v("ease", ease);
    v("elsa", elsa);
    v("baseline", baseline);
    v("train", train);
  }
};

/// The names of the presets, "paper|recommended", and the one a user gets by default.
const char* preset_names();
const char* default_preset();

/// The configuration a preset names: "paper" is a default-constructed RunConfig (the
/// faithful reading); "recommended" adds the measured extensions (src/util/presets.cpp).
/// Throws ConfigError for an unknown name.
RunConfig preset_config(const std::string& name);

/// Sets "section.key" (or "model") from its text form. Throws ConfigError naming the
/// key, the value and what is allowed (unknown keys are errors, never ignored).
void set_config_value(RunConfig& cfg, const std::string& key, const std::string& value,
                      const std::string& where = "");

/// Reads a `key = value` file ('#' comments, blank lines, optional [section] headers
/// that prefix the keys below them). Errors name the file and line. A `preset = NAME`
/// line must come before every other key: it replaces the whole configuration with
/// preset_config(NAME), and the keys below it apply on top.
void load_config_file(RunConfig& cfg, const std::string& path);

/// The preset a config file names in its `preset` line ("" when it has none).
std::string config_file_preset(const std::string& path);

/// What every command starts from: preset_config(`preset`, else the file's `preset` line,
/// else default_preset()), then the config file when one is given. Throws ConfigError
/// when `preset` and the file's line name different presets.
RunConfig start_config(const std::string& preset, const std::string& config_file);

/// Applies "key=value" overrides (from --set). `preset` is refused here: it would undo
/// the config file (the CLI has --preset).
void apply_override(RunConfig& cfg, const std::string& assignment);

/// Sets the variant (full|G|A) of cfg.model's section (`train --variant`, Python's
/// variant=); ConfigError naming `where` when the kind has no variants.
void set_variant(RunConfig& cfg, const std::string& variant, const std::string& where);

/// Cross-field rules (LightGBM's CheckParamConflict). Throws ConfigError.
void check_config(const RunConfig& cfg);

/// The whole configuration as `key = value` lines, in declaration order; parsing it
/// back with load_config_text gives an identical configuration.
std::string to_text(RunConfig& cfg);
void load_config_text(RunConfig& cfg, const std::string& text, const std::string& where);

/// docs/config.md: every key with its default and doc, generated from visit().
std::string config_markdown();

}  // namespace symgnn
