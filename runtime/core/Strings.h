//===- Strings.h - Lists of names in messages -------------------*- C++ -*-===//

#pragma once

#include <string>
#include <string_view>

namespace dtf {

/// "a, b, c" for the strings of `names` (any range of std::string), or
/// `ifEmpty` when there are none.
template <typename Range>
std::string joinNames(const Range &names, std::string_view ifEmpty = "") {
  std::string text;
  for (const std::string &name : names)
    text += (text.empty() ? "" : ", ") + name;
  return text.empty() ? std::string(ifEmpty) : text;
}

} // namespace dtf
