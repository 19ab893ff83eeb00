/// @file
/// Inductive prediction: ratings of users or items absent from training, given at
/// prediction time (`--new-ratings FILE`, symgnn/trained_model.h). They join the model's
/// data as training ratings of new nodes, so that the model computes the new nodes'
/// representations from them (the prior module aggregates the items a new user rated),
/// with the trained weights. New nodes have no graph edges and zero side features; the
/// weights of the rows a model keeps per node (free embeddings, per-node gates) start at
/// zero for them (`grown` in trained_model.cpp).
#pragma once

#include <string>

#include "symgnn/dataset.h"
#include "symgnn/trained_model.h"

namespace symgnn::infer {

/// Appends the ratings of `file` ("user,item,rating" CSV/TSV, the ratings reader's format)
/// to ds.train; ids not in ds become new users or items at the end. A pair the data
/// already holds is a DataError naming the line. The graphs must already be resolved.
NewRatingsSummary add_new_ratings(Dataset& ds, const std::string& file);

}  // namespace symgnn::infer
