//===- DTFDialect.td - The dtf dialect definition ----------*- tablegen -*-===//
//
// The dtf dialect models TensorFlow 1.x style training graphs: tensors,
// variables held in resources, the usual neural-network ops, and a `minimize`
// request that later passes turn into gradients and optimizer updates.
//
//===----------------------------------------------------------------------===//

#ifndef DTF_IR_DTFDIALECT_TD
#define DTF_IR_DTFDIALECT_TD

include "mlir/IR/OpBase.td"

def DTF_Dialect : Dialect {
  let name = "dtf";
  let cppNamespace = "::dtf::ir";
  let summary = "Distributed TensorFlow-style training graphs";
  let description = [{
    Ops of a TensorFlow 1.x training graph on ranked tensors. Variables are
    `!dtf.resource` handles; placement onto tasks of a cluster is expressed
    with the discardable `dtf.device` attribute on ops and the `dtf.cluster`
    attribute on the module.
  }];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
  let hasConstantMaterializer = 1;
  let extraClassDeclaration = [{
    /// Name of the discardable attribute pinning an op to a device.
    static constexpr ::llvm::StringLiteral getDeviceAttrName() {
      return ::llvm::StringLiteral("dtf.device");
    }
    /// Name of the module attribute describing the cluster.
    static constexpr ::llvm::StringLiteral getClusterAttrName() {
      return ::llvm::StringLiteral("dtf.cluster");
    }
    /// Name of the module attribute recording how `--dtf-replicate`
    /// replicated the module.
    static constexpr ::llvm::StringLiteral getReplicationAttrName() {
      return ::llvm::StringLiteral("dtf.replication");
    }
    /// Name of the function attribute listing, in order, the variables whose
    /// gradients a PS function takes.
    static constexpr ::llvm::StringLiteral getGradientsAttrName() {
      return ::llvm::StringLiteral("dtf.gradients");
    }
    /// Name of the function attribute listing, in order, the variables whose
    /// sparse gradients (ids and rows) a PS function takes after the dense
    /// ones.
    static constexpr ::llvm::StringLiteral getSparseGradientsAttrName() {
      return ::llvm::StringLiteral("dtf.sparse_gradients");
    }
    /// Name of the variable attribute (a #dtf.partitioner) that splits a
    /// table into shards by rows.
    static constexpr ::llvm::StringLiteral getPartitionerAttrName() {
      return ::llvm::StringLiteral("dtf.partitioner");
    }
    /// Name of the variable attribute (a #dtf.dynamic_table) that makes a
    /// table's rows appear as training meets their ids.
    static constexpr ::llvm::StringLiteral getDynamicTableAttrName() {
      return ::llvm::StringLiteral("dtf.dynamic_table");
    }
    /// Name of the function attribute `[predictions, labels]`: the results
    /// (probabilities in [0, 1] and 0/1 labels of one shape) whose streaming
    /// AUC and log loss validation reports, as tf.metrics.auc.
    static constexpr ::llvm::StringLiteral getAucAttrName() {
      return ::llvm::StringLiteral("dtf.auc");
    }
    /// Name of the function attribute naming each of its results, as
    /// validation reports them (`validation <name> = ...`, TensorBoard's
    /// `validation/<name>`): an imported graph's loss and --outputs.
    static constexpr ::llvm::StringLiteral getResultNamesAttrName() {
      return ::llvm::StringLiteral("dtf.result_names");
    }

    // The boundary of a device function (--dtf-lift-graph-inputs).
    /// Argument attribute: the placeholder the argument is fed as.
    static constexpr ::llvm::StringLiteral getFeedAttrName() {
      return ::llvm::StringLiteral("dtf.feed");
    }
    /// Argument attribute: the variable whose value the argument is.
    static constexpr ::llvm::StringLiteral getVariableAttrName() {
      return ::llvm::StringLiteral("dtf.variable");
    }
    /// Result attribute: the variable the result is the gradient of.
    static constexpr ::llvm::StringLiteral getGradientAttrName() {
      return ::llvm::StringLiteral("dtf.gradient");
    }
    /// On a lifted device function: the optimizer to apply the gradient
    /// results with. On a trainable dtf.variable: the optimizer that updates
    /// this variable instead of its minimize's (DNNLinearCombinedClassifier's
    /// linear_optimizer and dnn_optimizer).
    static constexpr ::llvm::StringLiteral getOptimizerAttrName() {
      return ::llvm::StringLiteral("dtf.optimizer");
    }

  private:
    void registerTypes();
    void registerAttributes();
  }];
}

class DTF_Op<string mnemonic, list<Trait> traits = []>
    : Op<DTF_Dialect, mnemonic, traits>;

#endif // DTF_IR_DTFDIALECT_TD
