//===- Options.h - Limits and timeouts of the RPC layer ---------*- C++ -*-===//
//
// The messages of a training step (Pull, Push, PushPull) carry whole
// tensors, one message per call, as TensorFlow's RecvTensor does; the
// streams of Snapshot and of the worker service cut tensors into chunks of
// kDefaultChunkBytes. Servers and channels set the message size limit
// explicitly (gRPC's own default, 4 MiB for receiving and unlimited for
// sending, is neither documented here nor symmetric).
//
//===----------------------------------------------------------------------===//

#pragma once

#include <chrono>
#include <cstddef>
#include <limits>
#include <string>

namespace dtf::rpc {

/// Tensor bytes per message of a Pull or Push stream.
inline constexpr size_t kDefaultChunkBytes = size_t(1) << 20;

/// Largest message a server or channel accepts or sends: gRPC's largest,
/// as TensorFlow sets it. It bounds what one pull or push of a PS task
/// carries (2 GiB); a variable beyond it is sharded over PS tasks
/// (dtf-run --min_slice_size).
inline constexpr int kDefaultMaxMessageBytes =
    std::numeric_limits<int>::max();

/// Transport security shared by servers and clients (runtime/rpc/README.md,
/// "Security"). PEM contents, not paths. Without a certificate and key the
/// transport is plaintext; with them it is mutual TLS: each side presents
/// its certificate and checks the other's against `caCertificates`.
struct TlsSettings {
  std::string certificateChain;
  std::string privateKey;
  std::string caCertificates;
  /// Clients: the name the server's certificate must carry, when it is not
  /// the host of the address dialed (e.g. a cluster addressed by IP).
  std::string serverNameOverride;

  bool enabled() const { return !certificateChain.empty(); }
};

/// Metadata key of the cluster token on every call.
inline constexpr const char *kClusterTokenKey = "dtf-cluster-token";

struct ClientOptions {
  /// Deadline of every ordinary call.
  std::chrono::milliseconds callTimeout{10'000};
  /// Deadline of the calls that move or write all of a PS task's variables
  /// (Snapshot, SaveCheckpointShard): they take as long as the task's
  /// bytes, which may be many GB of embedding tables. A task that dies
  /// meanwhile (its connection closed) still fails the call at once
  /// (UNAVAILABLE); a hung task or a cut link holds it this long.
  std::chrono::milliseconds checkpointTimeout{600'000};
  /// How long waitUntilReachable() waits for the peer to come up; a task
  /// started before its peers is normal.
  std::chrono::milliseconds connectTimeout{60'000};
  /// Longest reconnection backoff while a peer is down (gRPC's default
  /// grows to two minutes, far too slow for a cluster starting up).
  std::chrono::milliseconds maxReconnectBackoff{1'000};
  /// How long the server blocks in one call of a long wait (WaitForStep,
  /// WaitInitialized, WaitWorkersDone). The client repeats such calls until
  /// its own timeout, so that a dead server is noticed within one slice.
  std::chrono::milliseconds waitSlice{2'000};
  size_t chunkBytes = kDefaultChunkBytes;
  int maxMessageBytes = kDefaultMaxMessageBytes;
  /// Sent with every call (metadata kClusterTokenKey); empty: none.
  std::string clusterToken{};
  TlsSettings tls{};
  /// Pull, Push and PushPull over the PS task's local socket when it offers
  /// one and is on this host (LocalTransport.h); gRPC otherwise.
  bool localTransport = true;
};

} // namespace dtf::rpc
