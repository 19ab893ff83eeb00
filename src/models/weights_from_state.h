/// @file
/// A scope in which the models built take their weights from a saved or shared state right
/// after (a graph edit's rebuilt members, infer/rebuilt_parts.cpp): the large tables skip their
/// random initialisation, which the state overwrites anyway (the prior encoder's embedding
/// tables are n x width per side: most of a member's construction on Douban).
#pragma once

namespace symgnn::models {

class WeightsFromState {
 public:
  WeightsFromState();
  ~WeightsFromState();
  WeightsFromState(const WeightsFromState&) = delete;
  WeightsFromState& operator=(const WeightsFromState&) = delete;
  /// Whether a scope is open on this thread.
  static bool active();

 private:
  bool was_;
};

}  // namespace symgnn::models
