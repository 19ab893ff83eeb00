/// @file
/// The predictions a closed-form fit reports (ClosedFormFit::val_predictions,
/// test_predictions): the model's forward() on a rating list's pairs, clipped to the rating
/// range, in the list's order, as float64 on the CPU.
#pragma once

#include <vector>

#include "symgnn/model.h"

namespace symgnn::models {

std::vector<double> clipped_predictions(RatingModel& model, const RatingList& list, double lo, double hi,
                                        const at::Device& device);

}  // namespace symgnn::models
