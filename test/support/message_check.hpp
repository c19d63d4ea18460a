// The one check of error messages every suite uses: exact error kinds and the numbers in
// the message.
#pragma once

#include <boost/test/unit_test.hpp>

#include <exception>
#include <string>

/// Whether `e`'s message contains `text`; logs both when it does not.
inline bool message_has(const std::exception& e, const std::string& text) {
  const bool found = std::string(e.what()).find(text) != std::string::npos;
  if (!found) BOOST_TEST_MESSAGE("message was: " << e.what() << "\nexpected to contain: " << text);
  return found;
}

/// A BOOST_CHECK_EXCEPTION predicate: the exception is an `Error` whose message contains `text`.
template <class Error>
auto with_message(std::string text) {
  return [text = std::move(text)](const Error& e) { return message_has(e, text); };
}
