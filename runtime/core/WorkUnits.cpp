//===- WorkUnits.cpp - Parts of a data set handed out to readers ----------===//

#include "runtime/core/WorkUnits.h"

namespace dtf {

const char *compressionName(Compression compression) {
  switch (compression) {
  case Compression::None:
    return "NONE";
  case Compression::Gzip:
    return "GZIP";
  case Compression::Zlib:
    return "ZLIB";
  }
  return "NONE";
}

WorkSource::~WorkSource() = default;

} // namespace dtf
