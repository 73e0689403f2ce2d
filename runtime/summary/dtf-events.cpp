//===- dtf-events.cpp - Print and check TensorBoard event files -----------===//
//
//   dtf-events FILE_OR_DIR...
//
// Reads every events file given (or found under a directory), checks the
// record framing (lengths and masked CRC-32C) and that each record is an
// Event, and prints one line per event:
//
//   <file>: file_version brain.Event:2
//   <file>: step 100 wall_time 1700000000.123 loss=0.52 accuracy=0.84
//
// Exits 1 at the first corrupt record, naming the file and offset.
//
//===----------------------------------------------------------------------===//

#include "runtime/data/Records.h"

#include "event.pb.h"

#include <algorithm>
#include <cstdio>
#include <dirent.h>
#include <iostream>
#include <string>
#include <sys/stat.h>
#include <vector>

namespace {

bool isDirectory(const std::string &path) {
  struct stat info;
  return ::stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}

/// Events files under `dir`, recursively, sorted.
void findEventFiles(const std::string &dir, std::vector<std::string> &out) {
  DIR *stream = ::opendir(dir.c_str());
  if (!stream)
    throw dtf::data::RecordError("cannot open directory " + dir);
  std::vector<std::string> entries;
  while (dirent *entry = ::readdir(stream)) {
    std::string name = entry->d_name;
    if (name != "." && name != "..")
      entries.push_back(name);
  }
  ::closedir(stream);
  std::sort(entries.begin(), entries.end());
  for (const std::string &name : entries) {
    std::string path = dir + "/" + name;
    if (isDirectory(path))
      findEventFiles(path, out);
    else if (name.find("tfevents") != std::string::npos)
      out.push_back(path);
  }
}

void printFile(const std::string &path) {
  dtf::data::RecordReader reader(path);
  while (std::optional<std::string> record = reader.next()) {
    dtf::tensorboard::Event event;
    if (!event.ParseFromString(*record))
      throw dtf::data::RecordError(path + ": a record is not an Event");
    std::cout << path << ": ";
    if (event.has_file_version()) {
      std::cout << "file_version " << event.file_version() << "\n";
      continue;
    }
    char wall[32];
    std::snprintf(wall, sizeof(wall), "%.3f", event.wall_time());
    std::cout << "step " << event.step() << " wall_time " << wall;
    for (const auto &value : event.summary().value())
      std::cout << " " << value.tag() << "=" << value.simple_value();
    std::cout << "\n";
  }
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2 || std::string(argv[1]) == "--help") {
    std::cerr << "usage: dtf-events FILE_OR_DIR...\n"
                 "Prints the events of TensorBoard event files and checks "
                 "their records.\n";
    return argc < 2 ? 2 : 0;
  }
  try {
    std::vector<std::string> files;
    for (int i = 1; i < argc; ++i) {
      if (isDirectory(argv[i]))
        findEventFiles(argv[i], files);
      else
        files.push_back(argv[i]);
    }
    if (files.empty())
      throw dtf::data::RecordError("no events files found");
    for (const std::string &file : files)
      printFile(file);
  } catch (const std::exception &error) {
    std::cout.flush();
    std::cerr << "dtf-events: " << error.what() << "\n";
    return 1;
  }
  return 0;
}
