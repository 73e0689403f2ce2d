//===- ReliabilityFlags.cpp - The flags of Reliability.h ------------------===//

#include "tools/dtf-run/Reliability.h"

#include "runtime/rpc/Auth.h"

#include <gflags/gflags.h>

#include <cctype>
#include <stdexcept>

// Defined in dtf-run.cpp, so that --helpshort lists them.
DECLARE_string(logdir);
DECLARE_int64(save_checkpoint_steps);
DECLARE_double(save_checkpoint_secs);
DECLARE_int32(keep_checkpoints);
DECLARE_int64(recovery_timeout_ms);
DECLARE_int64(debug_step_delay_ms);
DECLARE_int64(debug_crash_at_step);
DECLARE_string(tls_cert);
DECLARE_string(tls_key);
DECLARE_string(tls_ca);
DECLARE_string(tls_server_name);
DECLARE_string(cluster_token);
DECLARE_string(cluster_token_file);
DECLARE_bool(insecure_bind_all);

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
  if (FLAGS_debug_crash_at_step < 0)
    throw std::invalid_argument("--debug_crash_at_step: must be >= 0");
  options.debugCrashAtStep = FLAGS_debug_crash_at_step;

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
