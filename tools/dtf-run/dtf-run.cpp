//===- dtf-run.cpp - The distributed training executor --------------------===//
//
// One process per task of a cluster, as TensorFlow's distributed training:
//
//   dtf-run --ps_hosts=h:p[,...] --worker_hosts=h:p,... --job_name=ps|worker
//           --task_index=N [--sync|--async] [--replicas_to_aggregate=N]
//           --train_steps=N --batch_size=N
//           [--input=NAME=FORMAT:PATH[,KEY=VALUE...] ...] model.mlir
//
// or, without the cluster flags, from TF_CONFIG. `--local` launches a whole
// cluster on loopback instead. With --export_saved_model=DIR or
// --predict=NAME=FORMAT:PATH, it takes the newest checkpoint of --logdir to
// a SavedModel or to predictions instead, in this process.
//
//===----------------------------------------------------------------------===//

#include "tools/dtf-run/LocalCluster.h"

#include "passes/InitAll.h"
#include "runtime/checkpoint/BundleDirectory.h"
#include "runtime/cluster/ClusterSpec.h"
#include "runtime/cluster/Slurm.h"
#include "runtime/core/CpuKernels.h"
#include "runtime/data/IdxReader.h"
#include "runtime/data/InputSpec.h"
#include "runtime/rpc/Auth.h"
#include "runtime/train/Compile.h"
#include "runtime/train/InGraph.h"
#include "runtime/train/Inference.h"
#include "runtime/train/Inputs.h"
#include "runtime/train/Tasks.h"
#include "runtime/train/WarmStart.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Config/llvm-config.h"

#include <gflags/gflags.h>
#include <grpc/support/log.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <unistd.h>

DEFINE_string(ps_hosts, "", "Comma-separated host:port list of the PS tasks");
DEFINE_string(worker_hosts, "",
              "Comma-separated host:port list of the worker tasks");
DEFINE_string(job_name, "", "This task's job: ps or worker");
DEFINE_int32(task_index, 0, "This task's index within its job");
DEFINE_bool(sync, false,
            "Synchronous updates: average the gradients of "
            "--replicas_to_aggregate workers before each update");
DEFINE_bool(async, false,
            "Asynchronous updates (the default): each worker's gradients are "
            "applied as they arrive");
DEFINE_bool(push_pull, false,
            "Async: a worker's push brings back the PS task's values for its "
            "next step, one round trip a step, instead of the step pulling "
            "them at its start as TensorFlow reads its variables. The values "
            "are then as old as the push: each other worker's push during "
            "this worker's compute makes its next gradient staler "
            "(runtime/rpc/README.md, \"Where a step's values come from\")");
DEFINE_bool(overlap_pull, false,
            "Async: compute each step on the values the previous step's "
            "push-pull returned while this step's push-pull is in flight, as "
            "TensorFlow's benchmarks stage variables (--staged_vars). A "
            "step's values then lack the worker's own last gradients: one "
            "more step of staleness, which costs accuracy at high learning "
            "rates (runtime/rpc/README.md, \"Where a step's values come from\"). "
            "Implies --push_pull. Not with --sync: sync replicas compute on "
            "the applied aggregate");
DEFINE_int64(max_staleness, 0,
             "Async: a PS task drops (does not apply) a push whose gradients "
             "were computed more than this many updates before they land: "
             "bounded staleness, as stale-synchronous parallel bounds it, "
             "enforced where the gradient lands (0 = no bound)");
DEFINE_bool(divide_lr_by_staleness, false,
            "Async: a PS task applies a push with 1/(1 + staleness) of the "
            "learning rate of its optimizers with momentum (momentum, Adam, "
            "RMSProp with momentum), staleness being the updates applied "
            "since the push's step; the optimizer's slots take the whole "
            "gradient, and SGD, Adagrad, Adadelta, FTRL and the rows of "
            "embedding tables the whole rate: the staleness-dependent "
            "learning rate of Zhang et al., Staleness-aware Async-SGD "
            "(IJCAI 2016). Off by default, as TensorFlow: it brings fast "
            "async workers at high learning rates to TensorFlow's accuracy "
            "and costs accuracy at low ones (bench/results/staleness.md, "
            "bench/findings.md)");
DEFINE_string(replication, "",
              "How the cluster runs the model: between-graph (each worker "
              "trains its own copy on its shard of the data) or in-graph "
              "(one graph split over the devices its ops are pinned to, "
              "driven by worker 0); empty: in-graph when the model pins ops "
              "to more than one worker device or --towers is given");
DEFINE_string(towers, "",
              "In-graph data parallelism: a copy (tower) of a one-device "
              "model on each of these comma-separated devices "
              "(/job:worker/task:1/device:GPU:0, ...), or N for the first N "
              "worker tasks; each tower takes its slice of the batch and the "
              "towers' gradients are averaged beside the variables");
DEFINE_int32(replicas_to_aggregate, 0,
             "Sync mode: gradients averaged per update (0 = every worker); "
             "fewer than the workers makes the rest backups");
// Placement, as tf.train.replica_device_setter(ps_strategy=...) with
// tf.min_max_variable_partitioner(max_partitions, min_slice_size).
DEFINE_string(ps_strategy, "round-robin",
              "How variables are spread over the PS tasks: round-robin (in "
              "creation order) or greedy-bytes (the task with the fewest "
              "bytes so far)");
DEFINE_int64(min_slice_size, 0,
             "Shard variables bigger than this many bytes along dimension 0 "
             "over several PS tasks, each shard at least this big (0 = "
             "never shard)");
DEFINE_int64(max_partitions, 0,
             "With --min_slice_size: most shards of one variable (0 = the "
             "number of PS tasks)");
DEFINE_int64(train_steps, 2000, "Train until the global step reaches this");
DEFINE_int32(batch_size, 0,
             "Examples per step: the batch of a model whose placeholders "
             "leave dimension 0 dynamic (tensor<?x784xf32>); for a static "
             "model it must match (0 = the model's)");
// Inputs (runtime/data/InputSpec.h). --input and --eval_input repeat, one
// binding each: gflags keeps one value per flag, so they are taken out of
// the command line before gflags parses it (takeRepeatedFlag) and their
// definitions serve --help.
DEFINE_string(input, "",
              "Repeatable: NAME=FORMAT:PATH[,KEY=VALUE...] feeds placeholder "
              "NAME from idx, npy, npz or tfrecord files (a glob for "
              "tfrecord), with options feature=, key=, scale=, onehot=, "
              "varlen (ragged int64 ids padded with -1 to [batch, L]); "
              "without any, x and y_ are fed from --data");
DEFINE_string(eval_input, "",
              "Repeatable: the evaluation data after training, as --input");
DEFINE_string(input_file, "",
              "A file of bindings, one per line: 'input NAME=SPEC' or "
              "'eval_input NAME=SPEC'");
DEFINE_int32(prefetch, 2,
             "Training batches a reader thread prepares while the step runs "
             "(0 = none)");
// Streaming input (runtime/data/Streaming.h, runtime/train/Inputs.h).
DEFINE_string(input_mode, "auto",
              "How --input's training data is read: memory (every example "
              "in memory before the first step, sharded by index), stream "
              "(read while training, units of the TFRecord files handed to "
              "the workers by the data coordinator, each example once per "
              "epoch), or auto (stream TFRecord data above "
              "--stream_above_mb)");
DEFINE_int64(stream_above_mb, 1024,
             "--input_mode=auto streams TFRecord data larger than this");
DEFINE_int64(num_epochs, 0,
             "Streaming: passes over the training data; training ends after "
             "the last, or at --train_steps (0 = no end of data)");
DEFINE_int64(shuffle_buffer, 10000,
             "Streaming: examples in the shuffle buffer, as tf.data's "
             "shuffle(buffer_size) (<= 1: no shuffle)");
DEFINE_int32(reader_threads, 2,
             "Streaming: threads that read and parse records");
DEFINE_int32(cycle_length, 4,
             "Streaming: units read at once, their records interleaved, as "
             "tf.data's interleave(cycle_length)");
DEFINE_int64(input_unit_mb, 64,
             "Streaming: plain TFRecord files are handed out in ranges of "
             "about this many MB (a compressed file is one unit)");
DEFINE_string(input_errors, "fail",
              "Streaming: a corrupt, truncated or vanished record file, or a "
              "record missing a feature: fail (stop, naming file and "
              "record) or skip (skip it, count it and warn, as tf.data's "
              "ignore_errors)");
DEFINE_string(data, "/usr/share/datasets/fashion-mnist",
              "Without --input: the directory of the MNIST-format IDX files "
              "whose images feed placeholder x and one-hot labels y_");
DEFINE_string(device, "CPU",
              "Where a worker computes its steps: CPU, or GPU:K (the K-th "
              "visible GPU of its host; the step is lowered with "
              "--dtf-lower-to-gpu for it). PS tasks apply updates on the CPU");
DEFINE_int32(inter_op_parallelism_threads, 0,
             "Threads that run independent ops of a worker's step "
             "concurrently, as TensorFlow's ConfigProto option: 0 = one per "
             "hardware thread, 1 or negative = the step's own thread alone. "
             "PS tasks apply each update in the thread of its push");
DEFINE_int32(log_every, 100, "Print a line every N local steps (0 = never)");
DEFINE_int32(rpc_deadline_ms, 10000, "Deadline of every RPC");
DEFINE_int32(connect_timeout_ms, 60000,
             "How long a task waits at start for each of its peers to come "
             "up (a task started before its peers is normal)");
DEFINE_int32(worker_timeout_ms, 30000,
             "PS task 0: a worker silent for this long is lost, and the "
             "chief stops waiting for it at the end of training");
DEFINE_bool(local, false,
            "Launch a whole cluster on loopback: --ps PS tasks and --workers "
            "workers as separate processes");
DEFINE_int32(ps, 1,
             "--local and --cluster_resolver=slurm: number of PS tasks");
DEFINE_string(cluster_resolver, "",
              "Where the cluster comes from: empty for --ps_hosts/"
              "--worker_hosts/--job_name/--task_index or TF_CONFIG; slurm "
              "for the tasks of the Slurm job step this task runs in (srun), "
              "the first --ps of them PS tasks");
DEFINE_int32(slurm_port_base, 8888,
             "--cluster_resolver=slurm: the k-th task on a node listens on "
             "this port + k");
DEFINE_int32(workers, 2, "--local: number of workers");
// Observability (Telemetry.h, Progress.h).
// One directory for summaries and checkpoints, as TensorFlow's Supervisor
// uses: --logdir is read by Telemetry and by reliabilityOptionsFromFlags().
DEFINE_string(logdir, "",
              "Training directory (empty: none): worker N writes TensorBoard "
              "event files (loss, accuracy, global_step/sec, examples/sec, "
              "validation) to <logdir>/worker_N and PS task N the staleness "
              "of the updates it applied to <logdir>/ps_N; the chief saves "
              "checkpoints "
              "of every variable there and PS tasks restore the newest valid "
              "one at start-up");
DEFINE_int32(save_summaries_steps, 100,
             "With --logdir: write the summaries every N local steps of a "
             "worker (0: only the validation results)");
DEFINE_string(trace, "",
              "Write a Chrome trace / Perfetto JSON timeline (op kernels, "
              "pulls, pushes, waits, PS updates) of the first --trace_steps "
              "steps to this file; --local merges every task's into it "
              "(empty: none)");
DEFINE_int32(trace_steps, 5,
             "With --trace: steps traced per worker (and the updates they "
             "cause on each PS task)");
DEFINE_bool(progress, true,
            "--local: show progress with steps/s and ETA, as a bar on a "
            "terminal and as a line per tenth otherwise");

// Serving (runtime/train/Inference.h): the newest checkpoint of --logdir as
// a SavedModel, or its predictions, in this process and without a cluster.
// --predict repeats as --input does.
DEFINE_string(export_saved_model, "",
              "Write the inference graph of the model with the variables of "
              "the newest checkpoint of --logdir (either format) frozen into "
              "it as a TensorFlow SavedModel to this directory "
              "(saved_model.pb, tag 'serve', signature 'serving_default' "
              "from the placeholders the outputs use to --outputs), then "
              "exit; no cluster is started");
DEFINE_string(predict, "",
              "Repeatable: NAME=FORMAT:PATH[,KEY=VALUE...], as --input: run "
              "the inference graph of the newest checkpoint of --logdir on "
              "the CPU over every example of the files, in batches of "
              "--batch_size (0: 100, or the model's static batch), write "
              "the --outputs to --predict_output, then exit");
DEFINE_string(predict_output, "predictions.npy",
              "--predict: the .npy file of the one output, or the directory "
              "of one <key>.npy per output");
DEFINE_string(outputs, "logits",
              "--export_saved_model and --predict: comma-separated values "
              "to return: 'logits' (the logits of the model's cross "
              "entropy, else the input of its softmax), 'result:K' (the "
              "model function's K-th result) or an op's location name (a "
              "TensorFlow node name the importer gave)");

// [reliability] Checkpoints, recovery, security; read by
// reliabilityOptionsFromFlags(). Checkpoints, as
// tf.train.MonitoredTrainingSession's.
DEFINE_int64(save_checkpoint_steps, 0,
             "With --logdir: save a checkpoint every N global steps (0 = not "
             "by steps)");
DEFINE_double(save_checkpoint_secs, 600,
              "With --logdir: save a checkpoint every N seconds (0 = not by "
              "time)");
DEFINE_int32(keep_checkpoints, 5,
             "With --logdir: checkpoints to keep (0 = all)");
DEFINE_string(checkpoint_format, "dtf",
              "With --logdir: what the chief saves checkpoints in: 'dtf' "
              "(one file model.ckpt-<step>.dtf) or 'tf' (TensorFlow's V2 "
              "bundle model.ckpt-<step>.index/.data-K-of-N, one data file "
              "per PS task, and the 'checkpoint' file, as TensorFlow's "
              "sharded Saver writes them: each PS task writes its own data "
              "file into its --logdir, which must be the chief's directory "
              "on a shared file system; tf.train.load_checkpoint reads "
              "it). PS tasks restore the newest valid checkpoint of either "
              "format");
// Warm start, as tf.compat.v1.train.init_from_checkpoint
// (runtime/train/WarmStart.h).
DEFINE_string(init_from_checkpoint, "",
              "Start the variables from this checkpoint of another job "
              "unless --logdir holds one of this job's: a TensorFlow bundle's "
              "prefix, a DTF checkpoint file, or a directory of either (its "
              "'checkpoint' file, else its newest model.ckpt-<step>.dtf); "
              "empty: the initializers");
DEFINE_string(init_assignment_map, "",
              "With --init_from_checkpoint: which checkpoint tensors "
              "initialize which variables, as init_from_checkpoint's "
              "assignment_map: comma-separated CHECKPOINT:GRAPH entries, a "
              "tensor and a variable ('w:w2') or two scopes ('old/:new/'; "
              "'/' is every variable); variables it leaves out keep their "
              "initializers, and the global step starts at 0 unless an "
              "entry names it. Empty: '/:/', every variable from the tensor "
              "of its name");
// Recovery.
DEFINE_int64(recovery_timeout_ms, 0,
             "How long a worker whose RPC failed waits, retrying with "
             "backoff, for the cluster to recover (a PS task restarted with "
             "the same flags) before it gives up; 0 = no recovery: a failed "
             "RPC ends the worker");
DEFINE_int64(debug_step_delay_ms, 0,
             "Test only: sleep this long after each training step (a slow "
             "worker)");
DEFINE_int64(debug_crash_at_step, 0,
             "Test only: a PS task kills itself with SIGKILL, as a crash, "
             "right after an update takes its step to N (0 = never): a "
             "crash at a known step");
DEFINE_int64(debug_hold_at_step, 0,
             "Test only: a PS task answers no call from the update that "
             "takes its step to N (0 = never) until --debug_release_file "
             "exists: a test acts at a known step");
DEFINE_bool(debug_hold_after_restore, false,
            "Test only: the in-graph master runs no step after it restored "
            "the tasks from a checkpoint until --debug_release_file exists: "
            "a test reads what every task restored");
DEFINE_string(debug_release_file, "",
              "Test only: the file that releases --debug_hold_at_step and "
              "--debug_hold_after_restore");
// Security.
DEFINE_string(tls_cert, "",
              "PEM certificate (chain) of this task: with --tls_key and "
              "--tls_ca, every connection is mutual TLS");
DEFINE_string(tls_key, "", "PEM private key of --tls_cert");
DEFINE_string(tls_ca, "",
              "PEM certificate(s) of the CA that signs every task's "
              "certificate");
DEFINE_string(tls_server_name, "",
              "The name PS certificates carry, when it is not the host of "
              "--ps_hosts (e.g. hosts given by address)");
DEFINE_string(cluster_token, "",
              "Shared secret every RPC must carry (prefer "
              "--cluster_token_file: a flag is visible to other users)");
DEFINE_string(cluster_token_file, "",
              "File holding the cluster token (trailing whitespace ignored)");
DEFINE_bool(insecure_bind_all, false,
            "Without TLS, let PS tasks listen on every interface rather than "
            "loopback only: anyone who reaches the port can read and change "
            "the model");
DEFINE_bool(local_transport, true,
            "Workers pull from and push to PS tasks of their own host over "
            "a Unix-domain socket of the PS task's (a round trip a third of "
            "gRPC's); gRPC between hosts, and always with TLS");
// [reliability] end

namespace {

/// Flags that select the launcher rather than a task; not forwarded.
bool isLauncherFlag(const std::string &argument) {
  std::string name = argument.substr(0, argument.find('='));
  for (const char *flag : {"--local", "-local", "--nolocal", "-nolocal",
                           "--ps", "-ps", "--workers", "-workers"})
    if (name == flag)
      return true;
  return false;
}

/// The replication the flags ask for on `cluster`; throws ClusterError for
/// flags that do not fit it.
dtf::train::ReplicationOptions
replicationFromFlags(const dtf::cluster::ClusterSpec &cluster) {
  int numWorkers = static_cast<int>(cluster.workers().size());
  dtf::train::ReplicationOptions replication;
  replication.sync = FLAGS_sync;
  replication.totalReplicas = numWorkers;
  replication.replicasToAggregate =
      FLAGS_sync && FLAGS_replicas_to_aggregate > 0
          ? FLAGS_replicas_to_aggregate
          : (FLAGS_sync ? numWorkers : 1);
  if (replication.replicasToAggregate > numWorkers)
    throw dtf::cluster::ClusterError(
        "--replicas_to_aggregate: " +
        std::to_string(replication.replicasToAggregate) + " is more than the " +
        std::to_string(numWorkers) + " workers");
  if (cluster.ps().empty())
    throw dtf::cluster::ClusterError(
        "--ps_hosts: the cluster needs at least one PS task");
  if (FLAGS_max_staleness < 0)
    throw dtf::cluster::ClusterError(
        "--max_staleness: " + std::to_string(FLAGS_max_staleness) +
        " is negative");
  replication.maxStaleness = FLAGS_max_staleness;
  replication.divideLrByStaleness = FLAGS_divide_lr_by_staleness;
  return replication;
}

/// Checkpoints, recovery and security (runtime/train/Reliability.h) as the
/// flags ask; throws std::invalid_argument for inconsistent flags and
/// std::runtime_error for unreadable files.
dtf::train::ReliabilityOptions reliabilityOptionsFromFlags() {
  dtf::train::ReliabilityOptions options;
  options.logdir = FLAGS_logdir;
  if (FLAGS_save_checkpoint_steps < 0)
    throw std::invalid_argument("--save_checkpoint_steps: must be >= 0");
  if (FLAGS_save_checkpoint_secs < 0)
    throw std::invalid_argument("--save_checkpoint_secs: must be >= 0");
  if (FLAGS_keep_checkpoints < 0)
    throw std::invalid_argument("--keep_checkpoints: must be >= 0");
  if (FLAGS_recovery_timeout_ms < 0)
    throw std::invalid_argument("--recovery_timeout_ms: must be >= 0");
  if (FLAGS_debug_step_delay_ms < 0)
    throw std::invalid_argument("--debug_step_delay_ms: must be >= 0");
  options.saveCheckpointSteps = FLAGS_save_checkpoint_steps;
  options.saveCheckpointSecs = FLAGS_save_checkpoint_secs;
  options.keepCheckpoints = FLAGS_keep_checkpoints;
  std::optional<dtf::checkpoint::CheckpointFormat> format =
      dtf::checkpoint::parseCheckpointFormat(FLAGS_checkpoint_format);
  if (!format)
    throw std::invalid_argument("--checkpoint_format: '" +
                                FLAGS_checkpoint_format +
                                "' is neither 'tf' nor 'dtf'");
  options.checkpointFormat = *format;
  if (FLAGS_init_from_checkpoint.empty() && !FLAGS_init_assignment_map.empty())
    throw std::invalid_argument(
        "--init_assignment_map: needs --init_from_checkpoint");
  options.initFromCheckpoint = FLAGS_init_from_checkpoint;
  options.initAssignmentMap = FLAGS_init_assignment_map;
  options.recoveryTimeoutMs = FLAGS_recovery_timeout_ms;
  options.debugStepDelayMs = FLAGS_debug_step_delay_ms;
  if (FLAGS_debug_crash_at_step < 0)
    throw std::invalid_argument("--debug_crash_at_step: must be >= 0");
  options.debugCrashAtStep = FLAGS_debug_crash_at_step;
  if (FLAGS_debug_hold_at_step < 0)
    throw std::invalid_argument("--debug_hold_at_step: must be >= 0");
  if (FLAGS_debug_hold_at_step > 0 && FLAGS_debug_release_file.empty())
    throw std::invalid_argument(
        "--debug_hold_at_step: needs --debug_release_file");
  options.debugHoldAtStep = FLAGS_debug_hold_at_step;
  if (FLAGS_debug_hold_after_restore && FLAGS_debug_release_file.empty())
    throw std::invalid_argument(
        "--debug_hold_after_restore: needs --debug_release_file");
  options.debugHoldAfterRestore = FLAGS_debug_hold_after_restore;
  options.debugReleaseFile = FLAGS_debug_release_file;

  int tlsFlags = !FLAGS_tls_cert.empty() + !FLAGS_tls_key.empty() +
                 !FLAGS_tls_ca.empty();
  if (tlsFlags != 0 && tlsFlags != 3)
    throw std::invalid_argument(
        "--tls_cert, --tls_key and --tls_ca: give all three (mutual TLS) or "
        "none");
  if (tlsFlags == 3) {
    options.tls.certificateChain = dtf::rpc::readSecretFile(FLAGS_tls_cert,
                                                       "--tls_cert");
    options.tls.privateKey = dtf::rpc::readSecretFile(FLAGS_tls_key, "--tls_key");
    options.tls.caCertificates = dtf::rpc::readSecretFile(FLAGS_tls_ca, "--tls_ca");
  }
  if (!FLAGS_tls_server_name.empty() && tlsFlags == 0)
    throw std::invalid_argument("--tls_server_name: needs --tls_cert, "
                                "--tls_key and --tls_ca");
  options.tls.serverNameOverride = FLAGS_tls_server_name;

  if (!FLAGS_cluster_token.empty() && !FLAGS_cluster_token_file.empty())
    throw std::invalid_argument(
        "--cluster_token and --cluster_token_file exclude each other");
  options.clusterToken = FLAGS_cluster_token;
  if (!FLAGS_cluster_token_file.empty()) {
    std::string token = dtf::rpc::readSecretFile(FLAGS_cluster_token_file,
                                            "--cluster_token_file");
    while (!token.empty() && std::isspace(static_cast<unsigned char>(
                                 token.back())))
      token.pop_back();
    if (token.empty())
      throw std::invalid_argument("--cluster_token_file: " +
                                  FLAGS_cluster_token_file +
                                  " holds only whitespace");
    options.clusterToken = token;
  }
  for (char c : options.clusterToken)
    if (c < 0x20 || c > 0x7e)
      throw std::invalid_argument(
          "the cluster token must be printable ASCII (it travels as gRPC "
          "metadata)");
  options.insecureBindAll = FLAGS_insecure_bind_all;
  options.localTransport = FLAGS_local_transport;
  return options;
}

/// The occurrences of the repeatable flag --`name` (and -`name`), as
/// --name=VALUE or --name VALUE, removed from argv.
std::vector<std::string> takeRepeatedFlag(int &argc, char **argv,
                                          const std::string &name) {
  std::vector<std::string> values;
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    std::string argument = argv[i];
    if (argument == "--")
      break;
    bool matched = false;
    for (const std::string &prefix : {"--" + name, "-" + name}) {
      if (argument.rfind(prefix + "=", 0) == 0) {
        values.push_back(argument.substr(prefix.size() + 1));
        matched = true;
      } else if (argument == prefix && i + 1 < argc) {
        values.push_back(argv[++i]);
        matched = true;
      }
    }
    if (!matched)
      argv[kept++] = argv[i];
  }
  for (int i = kept; i < argc; ++i)
    argv[i] = nullptr;
  argc = kept;
  return values;
}

/// What the workers read: --input, --eval_input and --input_file, else
/// --data's Fashion-MNIST, the images scaled to [0, 1] feeding `x` and the
/// one-hot labels `y_`, the test split for evaluation.
dtf::train::InputOptions
inputOptionsFromFlags(const std::vector<std::string> &inputs,
                      const std::vector<std::string> &evalInputs) {
  using dtf::data::parseInputSpec;
  dtf::train::InputOptions options;
  if (FLAGS_prefetch < 0)
    throw std::invalid_argument("--prefetch: must be >= 0");
  options.prefetch = static_cast<size_t>(FLAGS_prefetch);
  if (FLAGS_input_mode == "auto")
    options.mode = dtf::train::InputMode::Auto;
  else if (FLAGS_input_mode == "memory")
    options.mode = dtf::train::InputMode::Memory;
  else if (FLAGS_input_mode == "stream")
    options.mode = dtf::train::InputMode::Stream;
  else
    throw std::invalid_argument("--input_mode=" + FLAGS_input_mode +
                                ": must be auto, memory or stream");
  if (FLAGS_stream_above_mb < 0)
    throw std::invalid_argument("--stream_above_mb: must be >= 0");
  options.streamAboveBytes = static_cast<uint64_t>(FLAGS_stream_above_mb) << 20;
  if (FLAGS_num_epochs < 0)
    throw std::invalid_argument("--num_epochs: must be >= 0");
  options.epochs = FLAGS_num_epochs;
  if (FLAGS_reader_threads < 1)
    throw std::invalid_argument("--reader_threads: must be >= 1");
  options.streaming.readerThreads = FLAGS_reader_threads;
  if (FLAGS_cycle_length < 1)
    throw std::invalid_argument("--cycle_length: must be >= 1");
  options.streaming.cycleLength = FLAGS_cycle_length;
  options.streaming.shuffleBuffer = FLAGS_shuffle_buffer;
  options.streaming.prefetchBatches = std::max<size_t>(options.prefetch, 1);
  if (FLAGS_input_unit_mb < 1)
    throw std::invalid_argument("--input_unit_mb: must be >= 1");
  options.unitBytes = static_cast<uint64_t>(FLAGS_input_unit_mb) << 20;
  if (FLAGS_input_errors == "fail")
    options.streaming.badRecords = dtf::data::BadRecordPolicy::Fail;
  else if (FLAGS_input_errors == "skip")
    options.streaming.badRecords = dtf::data::BadRecordPolicy::Skip;
  else
    throw std::invalid_argument("--input_errors=" + FLAGS_input_errors +
                                ": must be fail or skip");
  if (!FLAGS_input_file.empty()) {
    dtf::data::InputBindings bindings =
        dtf::data::readInputFile(FLAGS_input_file);
    options.train = std::move(bindings.train);
    options.eval = std::move(bindings.eval);
  }
  for (const std::string &input : inputs)
    options.train.push_back(parseInputSpec(input, "--input=" + input));
  for (const std::string &input : evalInputs)
    options.eval.push_back(parseInputSpec(input, "--eval_input=" + input));
  if (!options.train.empty() || !options.eval.empty()) {
    if (options.train.empty())
      throw std::invalid_argument(
          "--eval_input without --input: bind the training data too");
    return options;
  }
  for (const char *split : {"train", "t10k"}) {
    dtf::data::MnistFiles files =
        dtf::data::locateMnistSplit(FLAGS_data, split);
    std::string origin = "--data=" + FLAGS_data;
    auto &specs = std::string(split) == "train" ? options.train : options.eval;
    specs.push_back(
        parseInputSpec("x=idx:" + files.images + ",scale=1/255", origin));
    specs.push_back(
        parseInputSpec("y_=idx:" + files.labels + ",onehot=10", origin));
  }
  return options;
}

/// In-graph replication runs each step on all of its devices at once: the
/// flags of between-graph updates do not apply to it.
void checkReplicationFlags(dtf::train::Replication replication) {
  if (replication != dtf::train::Replication::InGraph)
    return;
  if (FLAGS_checkpoint_format != "dtf")
    throw std::invalid_argument(
        "--checkpoint_format=" + FLAGS_checkpoint_format +
        ": in-graph replication's master saves DTF checkpoints only");
  for (const char *flag : {"sync", "async", "replicas_to_aggregate", "device",
                           "push_pull", "overlap_pull", "max_staleness",
                           "divide_lr_by_staleness", "init_from_checkpoint"})
    if (!gflags::GetCommandLineFlagInfoOrDie(flag).is_default)
      throw std::invalid_argument(
          std::string("--") + flag +
          " applies to between-graph replication; this model runs "
          "in-graph, one synchronous step over all of its devices (pin "
          "ops to devices in the model instead of --device)");
}

/// The placement the flags ask for.
dtf::train::PlacementOptions placementFromFlags() {
  if (FLAGS_ps_strategy != "round-robin" && FLAGS_ps_strategy != "greedy-bytes")
    throw std::invalid_argument("--ps_strategy: '" + FLAGS_ps_strategy +
                                "' is neither round-robin nor greedy-bytes");
  if (FLAGS_min_slice_size < 0)
    throw std::invalid_argument("--min_slice_size: must be >= 0");
  if (FLAGS_max_partitions < 0)
    throw std::invalid_argument("--max_partitions: must be >= 0");
  dtf::train::PlacementOptions placement;
  placement.strategy = FLAGS_ps_strategy;
  placement.minSliceBytes = FLAGS_min_slice_size;
  placement.maxPartitions = FLAGS_max_partitions;
  return placement;
}

/// What --replication, --towers and the placement flags ask for on
/// `cluster`.
dtf::train::CompileOptions
compileOptionsFromFlags(const dtf::cluster::ClusterSpec &cluster) {
  dtf::train::CompileOptions options;
  if (FLAGS_replication == "in-graph")
    options.replication = dtf::train::Replication::InGraph;
  else if (FLAGS_replication == "between-graph")
    options.replication = dtf::train::Replication::BetweenGraph;
  else if (!FLAGS_replication.empty())
    throw std::invalid_argument("--replication: '" + FLAGS_replication +
                                "' is neither in-graph nor between-graph");
  std::string towers = FLAGS_towers;
  if (!towers.empty() &&
      towers.find_first_not_of("0123456789") == std::string::npos) {
    int count = std::stoi(towers);
    if (count < 1 || count > static_cast<int>(cluster.workers().size()))
      throw std::invalid_argument(
          "--towers=" + towers + ": the cluster has " +
          std::to_string(cluster.workers().size()) + " worker tasks");
    for (int i = 0; i < count; ++i)
      options.towers.push_back("/job:worker/task:" + std::to_string(i));
  } else {
    for (size_t begin = 0; begin < towers.size();) {
      size_t end = std::min(towers.find(',', begin), towers.size());
      if (end == begin)
        throw std::invalid_argument("--towers: an empty device name in '" +
                                    towers + "'");
      options.towers.push_back(towers.substr(begin, end - begin));
      begin = end + 1;
    }
  }
  options.betweenGraph = replicationFromFlags(cluster);
  options.placement = placementFromFlags();
  if (FLAGS_batch_size < 0)
    throw std::invalid_argument(
        "--batch_size: must be >= 0 (0: the model's static batch)");
  options.batchSize = FLAGS_batch_size;
  return options;
}

/// --export_saved_model and --predict: the trained model of --logdir for
/// serving, then exit.
int runInference(mlir::MLIRContext &context, const std::string &modelPath,
                 const std::vector<std::string> &predictions) {
  std::vector<std::string> outputs;
  for (size_t begin = 0; begin <= FLAGS_outputs.size();) {
    size_t end = std::min(FLAGS_outputs.find(',', begin), FLAGS_outputs.size());
    if (end == begin)
      throw std::invalid_argument("--outputs: an empty name in '" +
                                  FLAGS_outputs + "'");
    outputs.push_back(FLAGS_outputs.substr(begin, end - begin));
    begin = end + 1;
  }
  if (FLAGS_batch_size < 0)
    throw std::invalid_argument("--batch_size: must be >= 0");
  dtf::train::TrainedModel model = dtf::train::loadTrainedModel(
      context, modelPath, FLAGS_logdir, [](const std::string &warning) {
        std::cerr << "dtf-run: warning: " << warning << "\n";
      });
  std::cout << "dtf-run: model " << modelPath << " at global step "
            << model.globalStep << " (" << model.checkpoint << ")\n";
  if (!FLAGS_export_saved_model.empty()) {
    dtf::train::exportSavedModel(model, outputs, FLAGS_export_saved_model);
    std::cout << "dtf-run: wrote the SavedModel " << FLAGS_export_saved_model
              << "\n";
  }
  if (!predictions.empty()) {
    std::vector<dtf::data::InputSpec> inputs;
    for (const std::string &binding : predictions)
      inputs.push_back(
          dtf::data::parseInputSpec(binding, "--predict=" + binding));
    std::vector<dtf::train::Prediction> predicted =
        dtf::train::predict(model, outputs, inputs, FLAGS_batch_size);
    dtf::train::writePredictions(predicted, FLAGS_predict_output);
    std::cout << "dtf-run: wrote the predictions of "
              << predicted.front().values.dim(0) << " examples to "
              << FLAGS_predict_output << "\n";
  }
  return 0;
}

/// This task and its cluster: from --cluster_resolver=slurm, else the
/// cluster flags or TF_CONFIG.
dtf::cluster::TfConfig resolveClusterFromFlags() {
  if (FLAGS_cluster_resolver == "slurm") {
    if (!FLAGS_ps_hosts.empty() || !FLAGS_worker_hosts.empty())
      throw std::invalid_argument(
          "--cluster_resolver=slurm takes the cluster from the Slurm job "
          "step; drop --ps_hosts and --worker_hosts");
    return dtf::cluster::resolveSlurm(
        [](const char *name) { return std::getenv(name); }, FLAGS_ps,
        FLAGS_slurm_port_base);
  }
  if (!FLAGS_cluster_resolver.empty())
    throw std::invalid_argument("--cluster_resolver: '" +
                                FLAGS_cluster_resolver +
                                "' is not slurm (or empty for the flags and "
                                "TF_CONFIG)");
  return dtf::cluster::resolveTask(
      {FLAGS_ps_hosts, FLAGS_worker_hosts, FLAGS_job_name, FLAGS_task_index},
      std::getenv("TF_CONFIG"));
}

} // namespace

/// gRPC logs its own view of failures (a port in use, a peer gone) to
/// stderr; dtf-run reports each failure once, in its own words, so gRPC's
/// lines are dropped unless GRPC_VERBOSITY asks for them.
void dropGrpcLog(gpr_log_func_args *) {}

int main(int argc, char **argv) {
  dtf::train::keepStepMemoryOnTheHeap();
  std::vector<std::string> originalArguments(argv + 1, argv + argc);
  std::vector<std::string> inputs = takeRepeatedFlag(argc, argv, "input");
  std::vector<std::string> evalInputs =
      takeRepeatedFlag(argc, argv, "eval_input");
  std::vector<std::string> predictions =
      takeRepeatedFlag(argc, argv, "predict");
  if (!std::getenv("GRPC_VERBOSITY"))
    gpr_set_log_function(dropGrpcLog);
  gflags::SetUsageMessage(
      "trains a dtf model on a cluster of PS and worker tasks\n"
      "  dtf-run --ps_hosts=h:p --worker_hosts=h:p,h:p --job_name=worker "
      "--task_index=0 model.mlir\n"
      "  dtf-run --local --ps=1 --workers=2 model.mlir");
  // --version: what the tasks compute with, on this machine.
  std::string kernels;
  try {
    kernels = dtf::cpuKernels().describe();
  } catch (const std::exception &error) {
    kernels = error.what();
  }
  gflags::SetVersionString("built with MLIR " LLVM_VERSION_STRING
                           "\nCPU kernels: " +
                           kernels);
  gflags::ParseCommandLineFlags(&argc, &argv, /*remove_flags=*/true);
  try {
    dtf::cpuKernels(); // a bad DTF_CPU_GEMM is one line before anything runs
  } catch (const std::exception &error) {
    std::cerr << "dtf-run: " << error.what() << "\n";
    return 2;
  }

  if (argc != 2) {
    std::cerr << "dtf-run: expected exactly one model file, got " << argc - 1
              << " (see --helpshort)\n";
    return 2;
  }
  std::string modelPath = argv[1];
  if (FLAGS_sync && FLAGS_async) {
    std::cerr << "dtf-run: --sync and --async exclude each other\n";
    return 2;
  }
  if (FLAGS_sync && FLAGS_overlap_pull) {
    std::cerr << "dtf-run: --overlap_pull: sync replicas compute each step "
                 "on the aggregate of the previous one, not on older values\n";
    return 2;
  }
  if (FLAGS_sync &&
      (FLAGS_max_staleness != 0 || FLAGS_divide_lr_by_staleness)) {
    std::cerr << "dtf-run: --"
              << (FLAGS_max_staleness != 0 ? "max_staleness"
                                           : "divide_lr_by_staleness")
              << ": sync replicas apply each step's gradients at that step "
                 "(late ones are dropped already)\n";
    return 2;
  }

  try {
    dtf::train::TelemetryOptions telemetry;
    telemetry.logdir = FLAGS_logdir;
    telemetry.saveSummariesSteps = FLAGS_save_summaries_steps;
    telemetry.traceFile = FLAGS_trace;
    telemetry.traceSteps = FLAGS_trace_steps;
    dtf::train::checkTelemetryOptions(telemetry);
    dtf::train::ComputeDevice device =
        dtf::train::ComputeDevice::parse(FLAGS_device);

    mlir::DialectRegistry registry;
    dtf::ir::registerAllDialects(registry);
    dtf::ir::registerAllPasses();
    mlir::MLIRContext context(registry);
    if (!FLAGS_export_saved_model.empty() || !predictions.empty())
      return runInference(context, modelPath, predictions);
    // A PS task or a CPU worker needs the dialects of the model and of the
    // passes it runs, which load as they are met; the GPU lowering builds
    // ops of many more.
    if (device.gpu)
      context.loadAllAvailableDialects();

    if (FLAGS_local) {
      dtf::run::LocalClusterOptions options;
      options.numPs = FLAGS_ps;
      options.numWorkers = FLAGS_workers;
      options.addresses = dtf::run::pickLocalAddresses(FLAGS_ps, FLAGS_workers);
      // The model is compiled for this cluster here first, so that a model
      // that does not compile is reported once, and no task starts.
      dtf::cluster::ClusterSpec spec = dtf::cluster::ClusterSpec::fromHostLists(
          options.addresses.psHosts, options.addresses.workerHosts);
      dtf::train::CompiledModel compiled = dtf::train::compileModel(
          context, modelPath, spec, compileOptionsFromFlags(spec));
      if (!compiled.program)
        return 1;
      checkReplicationFlags(compiled.replication);
      // The inputs are read and checked against the model here too, so that
      // a bad input is one error before any task starts.
      dtf::train::InputOptions inputOptions =
          inputOptionsFromFlags(inputs, evalInputs);
      inputOptions.prefetch = 0;
      dtf::train::checkInputs(
          *compiled.program,
          dtf::train::openInputs(*compiled.program, inputOptions, {}),
          FLAGS_batch_size);
      // So is the checkpoint to warm-start from and the assignment map.
      dtf::train::ReliabilityOptions reliability =
          reliabilityOptionsFromFlags();
      if (dtf::train::warmStartApplies(reliability))
        dtf::train::planWarmStart(
            *compiled.program, reliability, [](const std::string &warning) {
              std::cerr << "dtf-run: warning: " << warning << "\n";
            });
      options.inGraph =
          compiled.replication == dtf::train::Replication::InGraph;
      options.progress = FLAGS_progress;
      dtf::train::applySecurity(options.progressClient, reliability);
      options.trainSteps = FLAGS_train_steps;
      options.epochs = FLAGS_num_epochs;
      options.traceFile = FLAGS_trace;
      char self[4096];
      ssize_t length = ::readlink("/proc/self/exe", self, sizeof(self) - 1);
      options.executable = length > 0 ? std::string(self, length) : "dtf-run";
      for (const std::string &argument : originalArguments)
        if (!isLauncherFlag(argument))
          options.taskArguments.push_back(argument);
      return dtf::run::runLocalCluster(options);
    }

    dtf::cluster::TfConfig config = resolveClusterFromFlags();
    dtf::train::CompileOptions compile =
        compileOptionsFromFlags(config.cluster);
    dtf::train::CompiledModel compiled =
        dtf::train::compileModel(context, modelPath, config.cluster, compile);
    if (!compiled.program)
      return 1;
    checkReplicationFlags(compiled.replication);
    mlir::ModuleOp program = *compiled.program;

    dtf::train::TaskOptions options;
    options.cluster = &config.cluster;
    options.task = config.task;
    options.replication = compile.betweenGraph;
    options.trainSteps = FLAGS_train_steps;
    options.batchSize = FLAGS_batch_size;
    options.device = device;
    options.resultNames = compiled.resultNames;
    options.interOpThreads = FLAGS_inter_op_parallelism_threads;
    options.logEvery = FLAGS_log_every;
    options.pushPull = FLAGS_push_pull && !options.replication.sync;
    options.overlapPull = FLAGS_overlap_pull && !options.replication.sync;
    options.rpcDeadlineMs = FLAGS_rpc_deadline_ms;
    if (FLAGS_connect_timeout_ms <= 0)
      throw std::invalid_argument("--connect_timeout_ms: must be > 0");
    options.connectTimeoutMs = FLAGS_connect_timeout_ms;
    options.workerTimeoutMs = FLAGS_worker_timeout_ms;
    options.telemetry = telemetry;
    // [reliability] --logdir, --recovery_timeout_ms, --tls_*, ...
    options.reliability = reliabilityOptionsFromFlags();
    if (compiled.replication == dtf::train::Replication::InGraph) {
      // The chief is the master and reads the whole data set: it is the
      // one client of in-graph replication.
      if (config.task.job == dtf::cluster::Job::Worker &&
          config.task.index == 0)
        return dtf::train::runInGraphMaster(
            program, compiled.function, options,
            dtf::train::openInputs(program,
                                   inputOptionsFromFlags(inputs, evalInputs),
                                   dtf::train::inGraphDataShard()));
      return dtf::train::serveInGraphTask(options);
    }
    if (config.task.job == dtf::cluster::Job::PS)
      return dtf::train::runPsTask(program, options);
    return dtf::train::runWorkerTask(
        program, options,
        dtf::train::openInputs(
            program, inputOptionsFromFlags(inputs, evalInputs),
            dtf::train::betweenGraphDataShard(
                config.task.index,
                static_cast<int>(config.cluster.workers().size()))));
  } catch (const std::exception &error) {
    std::cerr << "dtf-run: " << error.what() << "\n";
    return 1;
  }
}
