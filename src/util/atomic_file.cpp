#include "util/atomic_file.h"

#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "symgnn/error.h"

namespace symgnn {

void write_file_atomic(const std::string& path, const std::function<void(std::ostream&)>& write) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw Error(path + ": cannot open for writing");
    try {
      write(out);
    } catch (...) {
      out.close();
      std::remove(tmp.c_str());
      throw;
    }
    out.flush();
    if (!out) {
      out.close();
      std::remove(tmp.c_str());
      throw Error(path + ": write failed (disk full?)");
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw Error(path + ": cannot rename temporary file into place");
  }
}

void write_text_atomic(const std::string& path, const std::string& contents) {
  write_file_atomic(path, [&](std::ostream& out) { out << contents; });
}

}  // namespace symgnn
