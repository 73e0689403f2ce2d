//===- ReplayMain.cpp - Run the fuzz target over files, without libFuzzer -===//
//
//   dtf-fuzz-mlir-replay FILE_OR_DIR...
//
// Feeds each file (each regular file of a directory) to
// LLVMFuzzerTestOneInput once, as a libFuzzer binary does when given
// files; a crash is the failure. For compilers without libFuzzer.
//
//===----------------------------------------------------------------------===//

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <dirent.h>
#include <fstream>
#include <iterator>
#include <string>
#include <sys/stat.h>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool runFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", path.c_str());
    return false;
  }
  std::string bytes((std::istreambuf_iterator<char>(in)),
                    std::istreambuf_iterator<char>());
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t *>(bytes.data()),
                         bytes.size());
  return true;
}

int main(int argc, char **argv) {
  int runs = 0;
  for (int i = 1; i < argc; ++i) {
    std::string path = argv[i];
    struct stat info;
    if (::stat(path.c_str(), &info) != 0) {
      std::fprintf(stderr, "no such file: %s\n", path.c_str());
      return 1;
    }
    std::vector<std::string> files;
    if (S_ISDIR(info.st_mode)) {
      DIR *dir = ::opendir(path.c_str());
      while (dirent *entry = dir ? ::readdir(dir) : nullptr) {
        std::string file = path + "/" + entry->d_name;
        struct stat fileInfo;
        if (::stat(file.c_str(), &fileInfo) == 0 && S_ISREG(fileInfo.st_mode))
          files.push_back(file);
      }
      if (dir)
        ::closedir(dir);
    } else {
      files.push_back(path);
    }
    for (const std::string &file : files) {
      if (!runFile(file))
        return 1;
      ++runs;
    }
  }
  std::printf("ran %d input(s) without a crash\n", runs);
  return 0;
}
