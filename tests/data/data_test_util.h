/// @file data_test_util.h
/// Assertions shared by the data tests: a DataError must be thrown, be one line, and name the
/// file, the line and what went wrong (STYLE.md section 4).
#pragma once

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>

#include "symgnn/error.h"

namespace symgnn::testing {

/// The message of the DataError `f` throws, or a marker saying what happened instead.
template <class F>
std::string data_error_message(F&& f) {
  try {
    f();
  } catch (const symgnn::DataError& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("<not a DataError: ") + e.what() + ">";
  }
  return "<no exception>";
}

inline void expect_message_parts(const std::string& msg, std::initializer_list<const char*> parts) {
  EXPECT_EQ(msg.find('\n'), std::string::npos) << "message is not one line: " << msg;
  for (const char* part : parts)
    EXPECT_NE(msg.find(part), std::string::npos) << "message: " << msg << "\nexpected to contain: " << part;
}

}  // namespace symgnn::testing

/// EXPECT_THROW(statement, DataError), then checks the message contains every given part.
#define EXPECT_DATA_ERROR(statement, ...)                                                              \
  do {                                                                                                 \
    EXPECT_THROW(statement, ::symgnn::DataError);                                                      \
    ::symgnn::testing::expect_message_parts(::symgnn::testing::data_error_message([&] { statement; }), \
                                            {__VA_ARGS__});                                            \
  } while (0)
