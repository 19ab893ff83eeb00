// symgnn._core: the Python package's thin binding of the C++ library (python/symgnn/).
// Nothing is implemented twice: training is the library's one run, symgnn::fit
// (symgnn/fit.h), as the CLI's `train` runs it, so a model directory written from Python is
// the CLI's; prediction, ranking, similarity and evaluation are symgnn/trained_model.h and
// symgnn/recommend.h; the parameter table is the config's field list (symgnn/config.h).
// The GIL is released while C++ works; a fit's epoch callback (symgnn/progress.h) takes it
// back once per epoch to report progress and to check for Ctrl-C. The library prints
// nothing, so nothing is silenced; fits take turns (fit_mutex), calls on one model take
// turns (ModelHandle), and everything else runs concurrently.
// Each area of the library is bound by its own part (bindings.h).
#include <c10/util/Exception.h>
#include <pybind11/pybind11.h>

#include <exception>
#include <string>

#include "bindings.h"
#include "symgnn/error.h"

namespace py = pybind11;
using namespace symgnn;

namespace {

/// Python's exception classes (python/symgnn/_errors.py) for the C++ ones.
void register_errors() {
  py::register_exception_translator([](std::exception_ptr p) {
    if (!p) return;
    const py::module_ errors = py::module_::import("symgnn._errors");
    try {
      std::rethrow_exception(p);
    } catch (const DataError& e) {
      const std::string what = e.what();
      const bool missing = what.find("cannot open (missing or unreadable file)") != std::string::npos;
      PyErr_SetString(errors.attr(missing ? "MissingFileError" : "DataError").ptr(), e.what());
    } catch (const ConfigError& e) {
      PyErr_SetString(errors.attr("ConfigError").ptr(), e.what());
    } catch (const Error& e) {
      PyErr_SetString(errors.attr("Error").ptr(), e.what());
    } catch (const c10::Error& e) {
      // A LibTorch failure: its first line only (no C++ trace in Python).
      const std::string what = e.what_without_backtrace();
      PyErr_SetString(errors.attr("Error").ptr(), what.substr(0, what.find('\n')).c_str());
    }
  });
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "symgnn's C++ core (use the symgnn package, not this module)";
  register_errors();
  bind_fit(m);
  bind_graph(m);
  bind_model(m);
}
