/// @file
/// data.feedback: what the values of a ratings source are. Most data people have are
/// interactions without a rating (clicks, plays, purchases); a user brings them as
/// `user,item` rows (implicit) or `user,item,count` rows (counts), and the kinds that rank
/// learn from them as they do from ratings' binary interactions:
///
///   ratings   the value is a rating to predict (unchanged);
///   implicit  every value is 1: an interaction (a pair given twice is one interaction);
///   counts    the value is w = log(1 + c), c the pair's count summed over its rows: a
///             confidence weight, as implicit's ALS damps raw counts. EASE's and the binary
///             Sylvester kind's X, popularity's sums, ItemKNN's cosine and user rows, the
///             item-based ranker's user rows (in its loss and its scores) and the networks'
///             ranking losses (each positive weighs w: models/objectives/objective.h) read w
///             where they read a binary interaction.
///
/// Under implicit and counts every held-out interaction is relevant (eval::relevant_min_of)
/// and no rating error is reported.
#pragma once

#include <string>

#include "symgnn/config.h"
#include "symgnn/dataset.h"

namespace symgnn::data {

/// cfg.feedback resolved: as given, or for auto "implicit" where data.source is a ratings
/// file whose first line has two fields (`user,item`), else "ratings" (a directory, a .mat
/// file, synthetic data, rows in memory).
std::string resolved_feedback(const DataConfig& cfg);

/// Makes every split's values what `feedback` ("ratings", "implicit" or "counts") says
/// they are (above) and sets ds.feedback, ds.rating_levels, rating_min and rating_max.
/// DataError (naming `where`) for a count that is not positive.
void apply_feedback(Dataset& ds, const std::string& feedback, const std::string& where);

}  // namespace symgnn::data
