//===- Channel.cpp - Client channels with explicit limits -----------------===//

#include "runtime/rpc/Channel.h"

#include "runtime/rpc/Auth.h"
#include "runtime/rpc/Errors.h"

#include <grpc/grpc.h>
#include <grpcpp/create_channel.h>
#include <grpcpp/security/credentials.h>
#include <grpcpp/support/channel_arguments.h>

namespace dtf::rpc {

std::shared_ptr<grpc::Channel> createChannel(const std::string &address,
                                             const ClientOptions &options) {
  grpc::ChannelArguments arguments;
  arguments.SetMaxReceiveMessageSize(options.maxMessageBytes);
  arguments.SetMaxSendMessageSize(options.maxMessageBytes);
  int maxBackoffMs = static_cast<int>(options.maxReconnectBackoff.count());
  arguments.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS,
                   std::min(100, maxBackoffMs));
  arguments.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, maxBackoffMs);
  // GRPC_ARG_MIN_RECONNECT_BACKOFF_MS stays unset: gRPC also takes it as
  // the timeout of a connection attempt, which must allow a slow handshake.
  // A peer that accepts connections but never answers fails at each call's
  // deadline instead.
  // gRPC shares connections between channels with equal arguments by
  // default; a channel of its own keeps clients independent.
  arguments.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  if (options.tls.enabled() && !options.tls.serverNameOverride.empty())
    arguments.SetSslTargetNameOverride(options.tls.serverNameOverride);
  return grpc::CreateCustomChannel(address, channelCredentials(options.tls),
                                   arguments);
}

void prepareCall(grpc::ClientContext &context, const ClientOptions &options,
                 std::chrono::milliseconds timeout) {
  setTimeout(context, timeout);
  addClusterToken(context, options);
}

void setTimeout(grpc::ClientContext &context,
                std::chrono::milliseconds timeout) {
  context.set_deadline(std::chrono::system_clock::now() + timeout);
}

void waitForConnection(grpc::Channel &channel, const std::string &peer,
                       std::chrono::milliseconds timeout) {
  // WaitForConnected asks the channel to connect and follows its state;
  // the channel itself retries with the backoff set in createChannel.
  if (channel.WaitForConnected(std::chrono::system_clock::now() + timeout))
    return;
  throw Error(ErrorCode::Unavailable,
              peer + ": not reachable within " +
                  std::to_string(timeout.count()) +
                  " ms (is the task running and listening there, and do "
                  "both sides use TLS with certificates of one CA?)");
}

void longPoll(const std::string &peer, const std::string &rpc,
              const ClientOptions &options, std::chrono::milliseconds timeout,
              const LongPollCall &call) {
  using Clock = std::chrono::steady_clock;
  auto end = Clock::now() + timeout;
  grpc::Status last(grpc::StatusCode::DEADLINE_EXCEEDED,
                    "waited " + std::to_string(timeout.count()) + " ms");
  while (true) {
    auto remaining =
        std::chrono::duration_cast<std::chrono::milliseconds>(end - Clock::now());
    if (remaining.count() <= 0)
      throw callError(peer, rpc, last);
    auto slice = std::min(remaining, options.waitSlice);
    grpc::ClientContext context;
    prepareCall(context, options, slice + options.callTimeout);
    grpc::Status status = call(context, slice);
    if (status.ok())
      return;
    if (status.error_code() != grpc::StatusCode::DEADLINE_EXCEEDED)
      throw callError(peer, rpc, status);
    last = grpc::Status(grpc::StatusCode::DEADLINE_EXCEEDED,
                        status.error_message() + " (gave up after " +
                            std::to_string(timeout.count()) + " ms)");
  }
}

} // namespace dtf::rpc
