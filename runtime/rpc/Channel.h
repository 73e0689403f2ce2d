//===- Channel.h - Client channels with explicit limits ---------*- C++ -*-===//

#pragma once

#include "runtime/rpc/Errors.h"
#include "runtime/rpc/LocalTransport.h"
#include "runtime/rpc/Options.h"
#include "runtime/rpc/TensorCodec.h"

#include <grpcpp/channel.h>
#include <grpcpp/client_context.h>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace dtf::rpc {

/// A channel to `address` ("host:port") with the message size limits,
/// reconnection backoff and transport security (options.tls: mutual TLS, or
/// plaintext) of `options`. It has its own connection: a dead peer seen
/// through one client does not affect another.
std::shared_ptr<grpc::Channel> createChannel(const std::string &address,
                                             const ClientOptions &options);

/// Sets `context`'s deadline to now + `timeout`.
void setTimeout(grpc::ClientContext &context,
                std::chrono::milliseconds timeout);

/// Prepares a call of a client: its deadline (now + `timeout`) and the
/// options' cluster token.
void prepareCall(grpc::ClientContext &context, const ClientOptions &options,
                 std::chrono::milliseconds timeout);

/// Reads the messages of a call that streams tensors (`reader`: a
/// ClientReader or ClientReaderWriter) to its end and reassembles their
/// chunks. `onMessage` sees every message first and may throw
/// std::invalid_argument for one it finds malformed. Throws callError(peer,
/// rpc, ...): DATA_LOSS for a malformed response (cancelling the call), the
/// call's status when it failed.
template <typename Message, typename Reader>
std::vector<NamedTensor>
readTensorStream(Reader &reader, grpc::ClientContext &context,
                 const std::string &peer, const char *rpc,
                 const std::function<void(const Message &)> &onMessage = {}) {
  TensorAssembler assembler;
  std::string malformed;
  Message message;
  while (malformed.empty() && reader.Read(&message)) {
    try {
      if (onMessage)
        onMessage(message);
      for (const TensorChunk &chunk : message.chunks())
        assembler.add(chunk);
    } catch (const std::invalid_argument &error) {
      malformed = error.what();
      context.TryCancel();
    }
  }
  grpc::Status status = reader.Finish();
  std::vector<NamedTensor> tensors;
  if (malformed.empty() && status.ok()) {
    try {
      tensors = assembler.finish();
    } catch (const std::invalid_argument &error) {
      malformed = error.what();
    }
  }
  if (!malformed.empty())
    throw callError(peer, rpc,
                    grpc::Status(grpc::StatusCode::DATA_LOSS,
                                 "malformed response: " + malformed));
  if (!status.ok())
    throw callError(peer, rpc, status);
  return tensors;
}

/// One unary call, as every client makes it: `(stub.*method)(request)` with
/// the deadline (now + `timeout`, by default options.callTimeout) and
/// cluster token of `options`; returns the response, or throws the
/// dtf::Error naming `peer` and `rpc`.
///
///   auto reply = unaryCall(peer, "GetStep", options, *stub,
///                          &ParameterServer::Stub::GetStep, GetStepRequest());
template <typename Stub, typename Request, typename Response>
Response
unaryCall(const std::string &peer, const char *rpc,
          const ClientOptions &options, Stub &stub,
          grpc::Status (Stub::*method)(grpc::ClientContext *, const Request &,
                                       Response *),
          const Request &request,
          std::optional<std::chrono::milliseconds> timeout = std::nullopt) {
  grpc::ClientContext context;
  prepareCall(context, options, timeout.value_or(options.callTimeout));
  Response response;
  grpc::Status status = (stub.*method)(&context, request, &response);
  if (!status.ok())
    throw callError(peer, rpc, status);
  return response;
}

/// The local socket of the server `stub` calls (LocalTransport.h), asked
/// for with its LocalEndpoint RPC `method` once it answers: null where
/// `options` keep to gRPC (no local transport, or TLS, which a local socket
/// cannot check) or the server offers none (one that predates local
/// sockets answers UNIMPLEMENTED).
template <typename Stub, typename Request, typename Response>
std::shared_ptr<LocalChannel>
localChannelOf(LocalEndpoint &local, const ClientOptions &options, Stub &stub,
               grpc::Status (Stub::*method)(grpc::ClientContext *,
                                            const Request &, Response *)) {
  if (!options.localTransport || options.tls.enabled())
    return nullptr;
  return local.channel(
      [&]() -> std::optional<std::string> {
        grpc::ClientContext context;
        prepareCall(context, options, options.callTimeout);
        Response endpoint;
        grpc::Status asked = (stub.*method)(&context, Request(), &endpoint);
        if (asked.error_code() == grpc::StatusCode::UNIMPLEMENTED)
          return std::string();
        if (!asked.ok())
          return std::nullopt;
        return endpoint.socket_name();
      },
      std::chrono::steady_clock::now() + options.callTimeout);
}

/// Waits until `channel` is connected, retrying with backoff, for at most
/// `timeout`. Throws Error(Unavailable) naming `peer` after that.
void waitForConnection(grpc::Channel &channel, const std::string &peer,
                       std::chrono::milliseconds timeout);

/// One call of a long wait: the server blocks for at most `slice`.
using LongPollCall = std::function<grpc::Status(
    grpc::ClientContext &context, std::chrono::milliseconds slice)>;

/// Repeats `call` in slices of options.waitSlice until it succeeds or
/// `timeout` has passed, so that a dead peer is noticed within one slice
/// rather than at the end of a long wait. Each call's deadline is its slice
/// plus options.callTimeout. DEADLINE_EXCEEDED means "not yet"; any other
/// error, and the end of `timeout`, throw a dtf::Error naming `peer` and `rpc`.
void longPoll(const std::string &peer, const std::string &rpc,
              const ClientOptions &options, std::chrono::milliseconds timeout,
              const LongPollCall &call);

} // namespace dtf::rpc
