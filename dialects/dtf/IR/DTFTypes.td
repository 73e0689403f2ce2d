//===- DTFTypes.td - dtf dialect types ---------------------*- tablegen -*-===//

#ifndef DTF_IR_DTFTYPES_TD
#define DTF_IR_DTFTYPES_TD

include "mlir/IR/AttrTypeBase.td"
include "dialects/dtf/IR/DTFDialect.td"

class DTF_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<DTF_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def DTF_ResourceType : DTF_Type<"Resource", "resource"> {
  let summary = "handle to a mutable variable holding one tensor";
  let description = [{
    The value of a `dtf.variable`: a reference to state that outlives a step.
    The parameter is the type of the tensor the variable holds; it must have
    a static shape, since variables are allocated once, on their PS task.

    ```mlir
    !dtf.resource<tensor<784x100xf32>>
    ```
  }];
  let parameters = (ins "::mlir::RankedTensorType":$valueType);
  let assemblyFormat = "`<` $valueType `>`";
  let genVerifyDecl = 1;
}

#endif // DTF_IR_DTFTYPES_TD
