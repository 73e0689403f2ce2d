//===- ReliabilityFlags.cpp - The flags of Reliability.h ------------------===//

#include "tools/dtf-run/Reliability.h"

#include "runtime/rpc/Auth.h"

#include <gflags/gflags.h>

#include <cctype>
#include <stdexcept>

// Checkpoints, as tf.train.MonitoredTrainingSession's.
DEFINE_string(logdir, "",
              "Checkpoint directory: the chief saves every variable there and "
              "PS tasks restore the newest valid checkpoint at start-up "
              "(empty = no checkpoints)");
DEFINE_int64(save_checkpoint_steps, 0,
             "With --logdir: save a checkpoint every N global steps (0 = not "
             "by steps)");
DEFINE_double(save_checkpoint_secs, 600,
              "With --logdir: save a checkpoint every N seconds (0 = not by "
              "time)");
DEFINE_int32(keep_checkpoints, 5,
             "With --logdir: checkpoint files to keep (0 = all)");
// Recovery.
DEFINE_int64(recovery_timeout_ms, 0,
             "How long a worker whose RPC failed waits, retrying with "
             "backoff, for the cluster to recover (a PS task restarted with "
             "the same flags) before it gives up; 0 = no recovery: a failed "
             "RPC ends the worker");
DEFINE_int64(debug_step_delay_ms, 0,
             "Test only: sleep this long after each training step (a slow "
             "worker)");
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

namespace dtf::run {

ReliabilityOptions reliabilityOptionsFromFlags() {
  ReliabilityOptions options;
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
  options.recoveryTimeoutMs = FLAGS_recovery_timeout_ms;
  options.debugStepDelayMs = FLAGS_debug_step_delay_ms;

  int tlsFlags = !FLAGS_tls_cert.empty() + !FLAGS_tls_key.empty() +
                 !FLAGS_tls_ca.empty();
  if (tlsFlags != 0 && tlsFlags != 3)
    throw std::invalid_argument(
        "--tls_cert, --tls_key and --tls_ca: give all three (mutual TLS) or "
        "none");
  if (tlsFlags == 3) {
    options.tls.certificateChain = rpc::readSecretFile(FLAGS_tls_cert,
                                                       "--tls_cert");
    options.tls.privateKey = rpc::readSecretFile(FLAGS_tls_key, "--tls_key");
    options.tls.caCertificates = rpc::readSecretFile(FLAGS_tls_ca, "--tls_ca");
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
    std::string token = rpc::readSecretFile(FLAGS_cluster_token_file,
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
  return options;
}

} // namespace dtf::run
