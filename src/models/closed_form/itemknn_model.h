/// @file
/// ItemKNN (Sarwar et al., WWW 2001; the variant of the ranking literature) as a
/// closed-form model kind (symgnn/model_kinds.h): the cosine similarity of the items'
/// binary interaction columns, each item keeping its itemknn.neighbours most similar ones:
///
///   S_ij = <X_:i, X_:j> / (|X_:i| |X_:j|),  S_jj = 0;  column j keeps its k largest entries
///   score(u, :) = X_u S
///
/// (models/closed_form/interaction_model.h holds the fit and the rating head.)
#pragma once

#include "models/closed_form/interaction_model.h"

namespace symgnn::models {

class ItemKnnModel : public InteractionModel {
 public:
  ItemKnnModel(const ItemKnnConfig& cfg, const ModelContext& ctx);
  std::string name() const override { return "itemknn"; }

 protected:
  std::vector<double> settings() const override { return {static_cast<double>(neighbours_)}; }
  std::string setting_name() const override { return "itemknn.neighbours"; }
  at::Tensor item_weights(const at::Tensor& x, double neighbours) const override;

 private:
  int64_t neighbours_;
};

}  // namespace symgnn::models
