//===- SummaryWriter.cpp - TensorBoard event files ------------------------===//

#include "runtime/summary/SummaryWriter.h"

#include "event.pb.h"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>

namespace dtf::summary {

double wallTime() {
  return std::chrono::duration<double>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string eventFileName(double wallTime) {
  char host[256] = "localhost";
  if (::gethostname(host, sizeof(host) - 1) != 0)
    std::strcpy(host, "localhost");
  host[sizeof(host) - 1] = '\0';
  return "events.out.tfevents." +
         std::to_string(static_cast<long long>(wallTime)) + "." + host + "." +
         std::to_string(::getpid());
}

void makeDirectories(const std::string &dir) {
  for (size_t slash = 1; slash <= dir.size(); ++slash) {
    if (slash != dir.size() && dir[slash] != '/')
      continue;
    std::string prefix = dir.substr(0, slash);
    if (::mkdir(prefix.c_str(), 0777) != 0 && errno != EEXIST)
      throw RecordError("cannot create directory " + prefix + ": " +
                        std::strerror(errno));
  }
  struct stat info;
  if (::stat(dir.c_str(), &info) != 0 || !S_ISDIR(info.st_mode))
    throw RecordError(dir + " is not a directory");
}

static std::string createFile(const std::string &logdir) {
  makeDirectories(logdir);
  return logdir + "/" + eventFileName(wallTime());
}

SummaryWriter::SummaryWriter(const std::string &logdir)
    : records(createFile(logdir)) {
  tensorboard::Event event;
  event.set_wall_time(wallTime());
  event.set_file_version(kFileVersion);
  event.mutable_source_metadata()->set_writer("dtf");
  write(event);
  flush();
}

SummaryWriter::~SummaryWriter() {
  try {
    flush();
  } catch (const RecordError &) {
    // Nothing to report to from a destructor.
  }
}

void SummaryWriter::addScalars(
    int64_t step, const std::vector<std::pair<std::string, double>> &values) {
  tensorboard::Event event;
  event.set_wall_time(wallTime());
  event.set_step(step);
  tensorboard::Summary *summary = event.mutable_summary();
  for (const auto &[tag, value] : values) {
    tensorboard::Summary::Value *entry = summary->add_value();
    entry->set_tag(tag);
    entry->set_simple_value(static_cast<float>(value));
  }
  write(event);
}

void SummaryWriter::write(const tensorboard::Event &event) {
  records.write(event.SerializeAsString());
}

} // namespace dtf::summary
