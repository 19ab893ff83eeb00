#include "util/version.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>

#include "symgnn_git_hash.h"  // generated at build time (cmake/git_hash.cmake)

namespace symgnn {

std::string symgnn_version() {
  return SYMGNN_VERSION;
}
std::string git_hash() {
  return SYMGNN_GIT_HASH;
}

std::string blas_library() {
  // LibTorch calls the Fortran BLAS symbol; whichever library the dynamic linker bound
  // it to (libblas.so.3 is an alternatives link) is the one doing our matrix products.
  void* sym = ::dlsym(RTLD_DEFAULT, "sgemm_");
  if (sym == nullptr) return "not found";
  Dl_info info{};
  if (::dladdr(sym, &info) == 0 || info.dli_fname == nullptr) return "unknown";
  char resolved[PATH_MAX];
  if (::realpath(info.dli_fname, resolved) != nullptr) return std::string(info.dli_fname) + " -> " + resolved;
  return info.dli_fname;
}

}  // namespace symgnn
