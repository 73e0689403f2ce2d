//===- LocalCluster.cpp - A whole cluster on loopback, for a laptop -------===//

#include "tools/dtf-run/LocalCluster.h"

#include "tools/dtf-run/Progress.h"
#include "runtime/train/Telemetry.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace dtf::run {

namespace {

std::vector<int> pickFreePorts(int count) {
  // Hold every socket until all are picked so that the ports differ; the
  // kernel will not hand out a bound port twice.
  std::vector<int> sockets, ports;
  for (int i = 0; i < count; ++i) {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = 0;
    socklen_t length = sizeof(address);
    if (fd < 0 ||
        ::bind(fd, reinterpret_cast<sockaddr *>(&address), sizeof(address)) ||
        ::getsockname(fd, reinterpret_cast<sockaddr *>(&address), &length))
      throw std::runtime_error(std::string("--local: cannot pick a free port: ") +
                               std::strerror(errno));
    sockets.push_back(fd);
    ports.push_back(ntohs(address.sin_port));
  }
  for (int fd : sockets)
    ::close(fd);
  return ports;
}

struct Task {
  std::string name; // "ps0", "worker1"
  bool isPs = false;
  pid_t pid = -1;
  std::thread reader;
  bool running = false;
};

/// Serializes prefixed lines from several tasks onto stdout.
std::mutex outputMutex;

/// The progress bar or lines, when shown; lines of output go above the bar.
ProgressReporter *progress = nullptr;

/// Writes `text` (whole lines) to stdout; requires outputMutex.
void writeLocked(const std::string &text) {
  if (progress)
    progress->hideLocked();
  std::cout << text;
  std::cout.flush();
  if (progress)
    progress->showLocked();
}

/// Copies `fd` to stdout line by line, each line prefixed with the task.
void forwardOutput(int fd, const std::string &prefix) {
  FILE *stream = ::fdopen(fd, "r");
  char *line = nullptr;
  size_t capacity = 0;
  while (::getline(&line, &capacity, stream) > 0) {
    std::lock_guard<std::mutex> lock(outputMutex);
    std::string text = prefix + line;
    if (text.back() != '\n')
      text += '\n';
    writeLocked(text);
  }
  std::free(line);
  std::fclose(stream);
}

/// OpenBLAS threads (and executor threads) per task: the machine's cores
/// shared by the cluster's tasks. OpenBLAS otherwise starts a thread per
/// core in every task, and on a machine with fewer cores than tasks their
/// spinning threads take the CPU from each other (1.5x slower steps on 2
/// cores, bench/results/REPORT.md). The MLP's GEMMs are too small to gain
/// from more.
std::string threadsPerTask(int tasks) {
  unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  return std::to_string(std::max(1u, cores / std::max(1, tasks)));
}

/// This process's environment plus OPENBLAS_NUM_THREADS and
/// OMP_NUM_THREADS (oneDNN's GEMM threads, runtime/core/CpuKernels.h)
/// unless set (an explicit value wins); built before fork, as the child may
/// only call async-signal-safe functions.
std::vector<std::string> taskEnvironment(const std::string &blasThreads) {
  std::vector<std::string> environment;
  for (char **entry = environ; *entry; ++entry)
    environment.push_back(*entry);
  for (const char *variable : {"OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"})
    if (!std::getenv(variable))
      environment.push_back(std::string(variable) + "=" + blasThreads);
  return environment;
}

pid_t spawn(const std::string &executable,
            const std::vector<std::string> &arguments, int outputFd,
            const std::vector<std::string> &environment) {
  std::vector<char *> argv;
  argv.push_back(const_cast<char *>(executable.c_str()));
  for (const std::string &argument : arguments)
    argv.push_back(const_cast<char *>(argument.c_str()));
  argv.push_back(nullptr);
  std::vector<char *> envp;
  for (const std::string &entry : environment)
    envp.push_back(const_cast<char *>(entry.c_str()));
  envp.push_back(nullptr);
  [[maybe_unused]] pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0)
    throw std::runtime_error(std::string("--local: fork failed: ") +
                             std::strerror(errno));
  if (pid == 0) {
#ifdef __linux__
    // A launcher killed outright (SIGKILL, a harness's timeout) cannot stop
    // its tasks itself: the kernel sends them SIGTERM, as to a task told to
    // stop, when it dies. One that died before this call already left.
    if (::prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || ::getppid() != parent)
      ::_exit(128 + SIGTERM);
#endif
    ::dup2(outputFd, STDOUT_FILENO);
    ::dup2(outputFd, STDERR_FILENO);
    ::close(outputFd);
    ::execve(executable.c_str(), argv.data(), envp.data());
    std::fprintf(stderr, "--local: cannot start %s: %s\n", executable.c_str(),
                 std::strerror(errno));
    ::_exit(127);
  }
  return pid;
}

std::string joinHosts(const std::vector<int> &ports, size_t begin,
                      size_t end) {
  std::string hosts;
  for (size_t i = begin; i < end; ++i)
    hosts += (hosts.empty() ? "" : ",") + std::string("localhost:") +
             std::to_string(ports[i]);
  return hosts;
}

int exitStatus(int status) {
  if (WIFEXITED(status))
    return WEXITSTATUS(status);
  return 128 + WTERMSIG(status);
}

} // namespace

LocalAddresses pickLocalAddresses(int numPs, int numWorkers) {
  if (numPs < 1)
    throw std::invalid_argument("--ps: must be >= 1 (the variables live on "
                                "PS tasks)");
  if (numWorkers < 1)
    throw std::invalid_argument("--workers: must be >= 1");
  std::vector<int> ports = pickFreePorts(numPs + numWorkers);
  return {joinHosts(ports, 0, numPs), joinHosts(ports, numPs, ports.size())};
}

int runLocalCluster(const LocalClusterOptions &options) {
  const std::string &psHosts = options.addresses.psHosts;
  const std::string &workerHosts = options.addresses.workerHosts;
  {
    std::lock_guard<std::mutex> lock(outputMutex);
    std::cout << "local cluster: ps=[" << psHosts << "] worker=["
              << workerHosts << "]" << std::endl;
  }

  std::string traceParts;
  if (!options.traceFile.empty())
    traceParts = train::makeTracePartsDir(options.traceFile);

  std::vector<Task> tasks(options.numPs + options.numWorkers);
  std::string threads = threadsPerTask(static_cast<int>(tasks.size()));
  std::vector<std::string> environment = taskEnvironment(threads);
  for (size_t i = 0; i < tasks.size(); ++i) {
    Task &task = tasks[i];
    task.isPs = static_cast<int>(i) < options.numPs;
    int index = task.isPs ? i : i - options.numPs;
    task.name = (task.isPs ? "ps" : "worker") + std::to_string(index);
    std::vector<std::string> arguments = {
        "--ps_hosts=" + psHosts, "--worker_hosts=" + workerHosts,
        std::string("--job_name=") + (task.isPs ? "ps" : "worker"),
        "--task_index=" + std::to_string(index)};
    // Before the launcher's own arguments: a later flag wins, so one given
    // on the command line overrides this default.
    arguments.push_back("--inter_op_parallelism_threads=" + threads);
    arguments.insert(arguments.end(), options.taskArguments.begin(),
                     options.taskArguments.end());
    // Last, so that it wins over the --trace given to the launcher.
    if (!traceParts.empty())
      arguments.push_back("--trace=" + traceParts + "/" + task.name + ".json");
    int pipeFds[2];
    if (::pipe(pipeFds))
      throw std::runtime_error(std::string("--local: pipe failed: ") +
                               std::strerror(errno));
    task.pid = spawn(options.executable, arguments, pipeFds[1], environment);
    ::close(pipeFds[1]);
    task.running = true;
    task.reader = std::thread(forwardOutput, pipeFds[0], "[" + task.name + "] ");
  }

  std::unique_ptr<ProgressReporter> reporter;
  if (options.progress) {
    if (options.inGraph) {
      std::vector<std::string> addresses;
      for (const std::string &hosts : {psHosts, workerHosts})
        for (size_t begin = 0; begin < hosts.size();) {
          size_t end = std::min(hosts.find(',', begin), hosts.size());
          addresses.push_back(hosts.substr(begin, end - begin));
          begin = end + 1;
        }
      reporter = makeInGraphProgress(std::move(addresses),
                                     options.progressClient,
                                     options.trainSteps, outputMutex);
    } else {
      reporter = makeLocalProgress(psHosts.substr(0, psHosts.find(',')),
                                   options.progressClient, options.trainSteps,
                                   options.epochs, outputMutex);
    }
    progress = reporter.get();
    reporter->start();
  }

  auto stopAll = [&](int signal) {
    for (Task &task : tasks)
      if (task.running)
        ::kill(task.pid, signal);
  };

  int result = 0;
  int workersRunning = options.numWorkers;
  std::chrono::steady_clock::time_point workersDoneAt;
  while (true) {
    bool anyRunning = false;
    for (Task &task : tasks)
      anyRunning |= task.running;
    if (!anyRunning)
      break;

    int status;
    pid_t pid = ::waitpid(-1, &status, WNOHANG);
    if (pid > 0) {
      for (Task &task : tasks) {
        if (task.pid != pid || !task.running)
          continue;
        task.running = false;
        int code = exitStatus(status);
        if (!task.isPs && --workersRunning == 0)
          workersDoneAt = std::chrono::steady_clock::now();
        if (code != 0 && result == 0) {
          result = code;
          std::lock_guard<std::mutex> lock(outputMutex);
          writeLocked("local cluster: " + task.name + " exited with status " +
                      std::to_string(code) + "; stopping the other tasks\n");
          stopAll(SIGTERM);
        }
      }
      continue;
    }
    // PS tasks stop when the chief tells them; one that does not is stopped.
    if (workersRunning == 0 &&
        std::chrono::steady_clock::now() - workersDoneAt >
            std::chrono::seconds(options.psStopTimeoutSeconds)) {
      std::lock_guard<std::mutex> lock(outputMutex);
      writeLocked("local cluster: PS tasks did not stop within " +
                  std::to_string(options.psStopTimeoutSeconds) +
                  " s; killing them\n");
      stopAll(SIGKILL);
      if (result == 0)
        result = 1;
      workersDoneAt = std::chrono::steady_clock::now() + std::chrono::hours(1);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  for (Task &task : tasks)
    task.reader.join();
  if (reporter) {
    reporter->stop();
    progress = nullptr;
  }
  if (!traceParts.empty()) {
    std::vector<std::string> names;
    for (const Task &task : tasks)
      names.push_back(task.name);
    train::mergeTaskTraces(options.traceFile, traceParts, names);
  }
  return result;
}

} // namespace dtf::run
