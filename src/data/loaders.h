// The format readers behind load_dataset(). Each returns train and test ratings
// (validation empty; load_dataset carves it), the graphs the files carry
// (GraphOrigin::File) and side features. Errors: DataError naming file and line/key.
#pragma once

#include <string>

#include "symgnn/config.h"
#include "symgnn/dataset.h"

namespace symgnn::data {

/// MovieLens-100K directory: u.data, u.user, u.item, split files <split>.base/.test.
Dataset load_movielens_100k(const std::string& dir, const DataConfig& cfg);

/// MovieLens-1M directory: ratings.dat, users.dat, movies.dat ('::' separated);
/// cfg.test_fraction of the ratings, drawn with cfg.split_seed, form the test split.
Dataset load_movielens_1m(const std::string& dir, const DataConfig& cfg);

/// Monti et al. MATLAB v7.3 file (HDF5): M, Otraining, Otest, W_users, W_movies/W_tracks.
Dataset load_mat_v73(const std::string& path, const DataConfig& cfg);

/// Generic "user,item,rating" CSV/TSV with arbitrary string ids and optional header,
/// plus cfg.test_file, cfg.{user,item}_graph_file and cfg.{user,item}_features_file.
Dataset load_ratings_file(const std::string& path, const DataConfig& cfg);

/// The embedded default: a seeded graph-structured rating matrix (see synthetic.cpp).
Dataset make_synthetic(const DataConfig& cfg);

}  // namespace symgnn::data
