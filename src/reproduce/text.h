// The report helpers of reproduce live in util/text.h (tune's report uses them too).
#pragma once

#include "util/text.h"

namespace symgnn::reproduce {

using symgnn::duration;
using symgnn::fixed;
using symgnn::read_text_file;

}  // namespace symgnn::reproduce
