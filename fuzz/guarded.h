/// @file guarded.h
/// What the fuzz targets share: running one reader on the input, where symgnn::Error is the
/// expected way to refuse it and anything else escapes to libFuzzer as a finding.
#pragma once

#include "symgnn/error.h"

namespace symgnn::fuzz {

template <class F>
void guarded(F&& f) {
  try {
    f();
  } catch (const symgnn::Error&) {
  }
}

}  // namespace symgnn::fuzz
