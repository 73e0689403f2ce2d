//===- InputSpec.cpp - Which file feeds which placeholder -----------------===//

#include "runtime/data/InputSpec.h"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <set>
#include <stdexcept>

namespace dtf::data {

namespace {

double parseScale(const std::string &text, const std::string &where) {
  auto number = [&](const std::string &part) {
    size_t used = 0;
    double value = 0;
    try {
      value = std::stod(part, &used);
    } catch (const std::exception &) {
      used = 0;
    }
    if (used == 0 || used != part.size() || !std::isfinite(value))
      throw std::invalid_argument(where + "scale=" + text +
                                  " is not a number or a fraction (1/255)");
    return value;
  };
  size_t slash = text.find('/');
  if (slash == std::string::npos)
    return number(text);
  double denominator = number(text.substr(slash + 1));
  if (denominator == 0)
    throw std::invalid_argument(where + "scale=" + text + " divides by zero");
  return number(text.substr(0, slash)) / denominator;
}

} // namespace

InputSpec parseInputSpec(const std::string &text, const std::string &origin) {
  InputSpec spec;
  spec.origin = origin;
  size_t equals = text.find('=');
  if (equals == std::string::npos || equals == 0)
    throw std::invalid_argument(origin + ": '" + text +
                                "' is not NAME=FORMAT:PATH[,KEY=VALUE...]");
  spec.placeholder = text.substr(0, equals);
  std::string where =
      origin + ": input of placeholder '" + spec.placeholder + "': ";
  std::string rest = text.substr(equals + 1);
  size_t colon = rest.find(':');
  if (colon == std::string::npos)
    throw std::invalid_argument(where + "'" + rest +
                                "' names no format (idx:, npy:, npz: or "
                                "tfrecord:)");
  spec.format = rest.substr(0, colon);
  static const std::set<std::string> formats = {"idx", "npy", "npz",
                                                "tfrecord"};
  if (!formats.count(spec.format))
    throw std::invalid_argument(where + "unknown format '" + spec.format +
                                "' (idx, npy, npz or tfrecord)");
  rest = rest.substr(colon + 1);
  size_t comma = rest.find(',');
  spec.path = rest.substr(0, comma);
  if (spec.path.empty())
    throw std::invalid_argument(where + "no path");
  std::set<std::string> seen;
  while (comma != std::string::npos) {
    size_t next = rest.find(',', comma + 1);
    std::string option = rest.substr(comma + 1, next - comma - 1);
    comma = next;
    size_t eq = option.find('=');
    std::string key = option.substr(0, eq);
    std::string value = eq == std::string::npos ? "" : option.substr(eq + 1);
    bool flag = key == "varlen";
    if (flag && eq != std::string::npos)
      throw std::invalid_argument(where + "option '" + option +
                                  "': varlen takes no value");
    if (!flag && (eq == std::string::npos || value.empty()))
      throw std::invalid_argument(where + "option '" + option +
                                  "' is not KEY=VALUE");
    if (!seen.insert(key).second)
      throw std::invalid_argument(where + "option '" + key +
                                  "' is given twice");
    if (key == "varlen" && spec.format == "tfrecord") {
      spec.varlen = true;
    } else if (key == "scale") {
      spec.scale = parseScale(value, where);
    } else if (key == "onehot") {
      size_t used = 0;
      long long classes = 0;
      try {
        classes = std::stoll(value, &used);
      } catch (const std::exception &) {
        used = 0;
      }
      if (used != value.size() || classes < 1)
        throw std::invalid_argument(where + "onehot=" + value +
                                    " is not a positive number of classes");
      spec.oneHotClasses = classes;
    } else if (key == "feature" && spec.format == "tfrecord") {
      spec.member = value;
    } else if (key == "key" && spec.format == "npz") {
      spec.member = value;
    } else {
      throw std::invalid_argument(
          where + "option '" + key + "' does not apply to " + spec.format +
          " (scale, onehot" +
          (spec.format == "tfrecord" ? ", feature, varlen"
           : spec.format == "npz"    ? ", key"
                                     : "") +
          ")");
    }
  }
  if (spec.varlen && (spec.scale || spec.oneHotClasses))
    throw std::invalid_argument(
        where + "varlen pads integer ids with -1; it takes no " +
        (spec.scale ? "scale" : "onehot"));
  if (spec.member.empty() &&
      (spec.format == "tfrecord" || spec.format == "npz"))
    spec.member = spec.placeholder;
  return spec;
}

InputBindings readInputFile(const std::string &path) {
  std::ifstream in(path);
  if (!in)
    throw std::invalid_argument("--input_file=" + path +
                                ": cannot open: " + std::strerror(errno));
  InputBindings bindings;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    std::string origin = path + ":" + std::to_string(number);
    size_t hash = line.find('#');
    if (hash != std::string::npos)
      line.erase(hash);
    size_t begin = line.find_first_not_of(" \t\r");
    if (begin == std::string::npos)
      continue;
    size_t end = line.find_last_not_of(" \t\r");
    line = line.substr(begin, end - begin + 1);
    size_t space = line.find_first_of(" \t");
    std::string kind = line.substr(0, space);
    std::string binding =
        space == std::string::npos
            ? ""
            : line.substr(line.find_first_not_of(" \t", space));
    if (kind == "input")
      bindings.train.push_back(parseInputSpec(binding, origin));
    else if (kind == "eval_input")
      bindings.eval.push_back(parseInputSpec(binding, origin));
    else
      throw std::invalid_argument(origin + ": '" + line +
                                  "' is not 'input NAME=SPEC' or "
                                  "'eval_input NAME=SPEC'");
  }
  return bindings;
}

} // namespace dtf::data
