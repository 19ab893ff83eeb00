#include "util/npy.h"

#include <cstring>
#include <stdexcept>

namespace symgnn {
namespace {

// The format's own description (numpy.lib.format): magic "\x93NUMPY", version 1.0, a
// little-endian uint16 header length, then a Python dict literal padded with spaces and
// ended by '\n' so that magic + length + header is a multiple of 64 bytes, then the data.
std::string npy_header(const char* descr, const std::vector<int64_t>& shape) {
  // A Python tuple: "()", "(n,)" or "(a, b)".
  std::string dims;
  for (size_t k = 0; k < shape.size(); ++k) dims += (k ? ", " : "") + std::to_string(shape[k]);
  if (shape.size() == 1) dims += ",";
  std::string dict =
      std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (" + dims + "), }";
  const size_t unpadded = 6 + 2 + 2 + dict.size() + 1;
  dict.append((64 - unpadded % 64) % 64, ' ');
  dict.push_back('\n');
  std::string out("\x93NUMPY\x01\x00", 8);
  const auto n = static_cast<uint16_t>(dict.size());
  out.push_back(static_cast<char>(n & 0xff));
  out.push_back(static_cast<char>(n >> 8));
  return out + dict;
}

template <typename T>
std::string npy_of(const char* descr, const std::vector<T>& values, const std::vector<int64_t>& shape) {
  int64_t count = 1;
  for (const int64_t d : shape) count *= d;
  if (count != static_cast<int64_t>(values.size()))
    throw std::logic_error("npy_bytes: shape does not hold the values");
  std::string out = npy_header(descr, shape);
  const size_t head = out.size();
  out.resize(head + values.size() * sizeof(T));
  if (!values.empty())
    std::memcpy(&out[head], values.data(), values.size() * sizeof(T));  // x86/ARM: little-endian
  return out;
}

}  // namespace

std::string npy_bytes(const std::vector<float>& values, const std::vector<int64_t>& shape) {
  return npy_of("<f4", values, shape);
}

std::string npy_bytes(const std::vector<int64_t>& values, const std::vector<int64_t>& shape) {
  return npy_of("<i8", values, shape);
}

}  // namespace symgnn
