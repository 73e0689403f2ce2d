//===- Array.cpp - An array as a data file holds it -----------------------===//

#include "runtime/data/Array.h"

namespace dtf::data {

const char *elementTypeName(ElementType type) {
  switch (type) {
  case ElementType::U8:
    return "uint8";
  case ElementType::I32:
    return "int32";
  case ElementType::I64:
    return "int64";
  case ElementType::F32:
    return "float32";
  case ElementType::F64:
    return "float64";
  case ElementType::Bool:
    return "bool";
  }
  return "?";
}

size_t elementTypeSize(ElementType type) {
  switch (type) {
  case ElementType::U8:
  case ElementType::Bool:
    return 1;
  case ElementType::I32:
  case ElementType::F32:
    return 4;
  case ElementType::I64:
  case ElementType::F64:
    return 8;
  }
  return 0;
}

} // namespace dtf::data
