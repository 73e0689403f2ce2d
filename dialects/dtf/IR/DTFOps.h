//===- DTFOps.h - dtf dialect operations ------------------------*- C++ -*-===//

#pragma once

#include "dialects/dtf/IR/DTFDialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace dtf::ir {
/// The rendezvous through which `dtf.send` hands tensors to `dtf.recv`:
/// modelled as a side-effect resource so that transfers are neither erased
/// as dead nor merged or reordered across each other.
struct RendezvousResource
    : public SideEffects::Resource::Base<RendezvousResource> {
  StringRef getName() final { return "dtf.rendezvous"; }
};

/// The state of the PS tasks, as seen from a worker: `dtf.pull` reads it and
/// `dtf.push_gradients` writes it, so that pushes are never erased as dead
/// and pulls are not merged or reordered across them.
struct ParameterServerResource
    : public SideEffects::Resource::Base<ParameterServerResource> {
  StringRef getName() final { return "dtf.parameter_server"; }
};

/// The state of the stateful random generators (`dtf.random_uniform`):
/// each op reads and advances it, so that two samplings are never merged
/// into one, nor erased while something may read them.
struct RandomGeneratorResource
    : public SideEffects::Resource::Base<RandomGeneratorResource> {
  StringRef getName() final { return "dtf.random_generator"; }
};
} // namespace dtf::ir

#define GET_OP_CLASSES
#include "dialects/dtf/IR/DTFOps.h.inc"
