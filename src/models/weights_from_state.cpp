#include "models/weights_from_state.h"

namespace symgnn::models {

namespace {
thread_local bool weights_from_state = false;
}  // namespace

WeightsFromState::WeightsFromState() : was_(weights_from_state) {
  weights_from_state = true;
}

WeightsFromState::~WeightsFromState() {
  weights_from_state = was_;
}

bool WeightsFromState::active() {
  return weights_from_state;
}

}  // namespace symgnn::models
