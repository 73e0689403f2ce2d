//===- Npy.cpp - NumPy .npy and .npz files --------------------------------===//

#include "runtime/data/Npy.h"

#include <zip.h>

#include <cstring>
#include <fstream>
#include <memory>
#include <regex>
#include <sstream>
#include <stdexcept>

namespace dtf::data {

namespace {

[[noreturn]] void fail(const std::string &source, const std::string &message) {
  throw std::runtime_error(source + ": " + message);
}

/// The element type of a NumPy descr: byte order ('<', '|', '='), kind and
/// size.
ElementType elementTypeOf(const std::string &descr, const std::string &source) {
  static const std::pair<const char *, ElementType> known[] = {
      {"b1", ElementType::Bool}, {"u1", ElementType::U8},
      {"i4", ElementType::I32},  {"i8", ElementType::I64},
      {"f4", ElementType::F32},  {"f8", ElementType::F64}};
  if (descr.size() == 3 &&
      (descr[0] == '<' || descr[0] == '|' || descr[0] == '='))
    for (auto &[code, type] : known)
      if (descr.compare(1, 2, code) == 0)
        return type;
  fail(source, "NumPy dtype '" + descr +
                   "' is not one DTF reads (little-endian bool, uint8, "
                   "int32, int64, float32 or float64)");
}

/// The value of `key` in the header's dict literal, as text.
std::string headerField(const std::string &header, const std::string &key,
                        const std::string &pattern, const std::string &source) {
  std::smatch match;
  std::regex field("['\"]" + key + "['\"]\\s*:\\s*(" + pattern + ")");
  if (!std::regex_search(header, match, field))
    fail(source, "the .npy header has no readable '" + key + "': " + header);
  return match[1].str();
}

std::string readWholeFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    fail(path, std::string("cannot open: ") + std::strerror(errno));
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return std::move(bytes).str();
}

} // namespace

Array parseNpy(std::string_view bytes, const std::string &source) {
  static constexpr char kMagic[] = "\x93NUMPY";
  if (bytes.size() < 10 || bytes.substr(0, 6) != std::string_view(kMagic, 6))
    fail(source, "not a .npy file (no \\x93NUMPY magic)");
  unsigned major = static_cast<unsigned char>(bytes[6]);
  size_t headerLength;
  size_t headerStart;
  if (major == 1) {
    headerLength = static_cast<unsigned char>(bytes[8]) |
                   static_cast<unsigned char>(bytes[9]) << 8;
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12)
      fail(source, "truncated .npy header");
    headerLength = 0;
    for (int i = 0; i < 4; ++i)
      headerLength |= size_t(static_cast<unsigned char>(bytes[8 + i]))
                      << (8 * i);
    headerStart = 12;
  } else {
    fail(source, ".npy format version " + std::to_string(major) +
                     " is not one DTF reads (1 to 3)");
  }
  if (bytes.size() < headerStart + headerLength)
    fail(source, "truncated .npy header");
  std::string header(bytes.substr(headerStart, headerLength));

  Array array;
  array.source = source;
  array.type =
      elementTypeOf(headerField(header, "descr", "'[^']*'|\"[^\"]*\"", source)
                        .substr(1)
                        .substr(0, 3),
                    source);
  if (headerField(header, "fortran_order", "True|False", source) == "True")
    fail(source, "a Fortran-order array; save it in C order "
                 "(numpy.ascontiguousarray)");
  std::string shape = headerField(header, "shape", "\\([^)]*\\)", source);
  std::regex number("[0-9]+");
  for (std::sregex_iterator it(shape.begin(), shape.end(), number), end;
       it != end; ++it)
    array.shape.push_back(std::stoll(it->str()));

  size_t size = static_cast<size_t>(numElementsOf(array.shape)) *
                elementTypeSize(array.type);
  size_t dataStart = headerStart + headerLength;
  if (bytes.size() - dataStart != size)
    fail(source, "holds " + std::to_string(bytes.size() - dataStart) +
                     " bytes of data where its header, " +
                     elementTypeName(array.type) + " " +
                     shapeToString(array.shape) + ", says " +
                     std::to_string(size));
  array.bytes.resize(size);
  std::memcpy(array.bytes.data(), bytes.data() + dataStart, size);
  return array;
}

Array readNpy(const std::string &path) {
  return parseNpy(readWholeFile(path), path);
}

Array readNpzMember(const std::string &path, const std::string &key) {
  int error = 0;
  std::unique_ptr<zip_t, int (*)(zip_t *)> archive(
      zip_open(path.c_str(), ZIP_RDONLY, &error), zip_close);
  if (!archive) {
    zip_error_t zipError;
    zip_error_init_with_code(&zipError, error);
    std::string message = zip_error_strerror(&zipError);
    zip_error_fini(&zipError);
    fail(path, "cannot open as a .npz (zip) archive: " + message);
  }
  std::string member = key + ".npy";
  zip_int64_t index = zip_name_locate(archive.get(), member.c_str(), 0);
  if (index < 0) {
    std::string keys;
    for (zip_int64_t i = 0; i < zip_get_num_entries(archive.get(), 0); ++i) {
      std::string name = zip_get_name(archive.get(), i, 0);
      if (name.size() > 4 && name.compare(name.size() - 4, 4, ".npy") == 0)
        keys += (keys.empty() ? "" : ", ") + name.substr(0, name.size() - 4);
    }
    fail(path, "no array '" + key +
                   "' (it holds: " + (keys.empty() ? "none" : keys) + ")");
  }
  zip_stat_t stat;
  if (zip_stat_index(archive.get(), index, 0, &stat) != 0 ||
      !(stat.valid & ZIP_STAT_SIZE))
    fail(path, "cannot read the size of " + member);
  std::unique_ptr<zip_file_t, int (*)(zip_file_t *)> file(
      zip_fopen_index(archive.get(), index, 0), zip_fclose);
  if (!file)
    fail(path, "cannot open " + member + ": " + zip_strerror(archive.get()));
  std::string bytes(stat.size, '\0');
  zip_int64_t got = zip_fread(file.get(), bytes.data(), stat.size);
  if (got < 0 || static_cast<zip_uint64_t>(got) != stat.size)
    fail(path, "cannot read " + member + ": " + zip_file_strerror(file.get()));
  return parseNpy(bytes, path + " member " + member);
}

} // namespace dtf::data
