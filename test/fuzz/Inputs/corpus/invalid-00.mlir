// One case per diagnostic of the dtf dialect, roughly in the order of the
// sources (DTFAttrs.cpp, DTFDialect.cpp, DTFOps.cpp), then constraints
// generated from the ODS definitions for a few representative ops.
// Attribute and type errors are reported while parsing; the shape errors of
// ops whose result types are inferred while parsing their custom form (so
// without the "'dtf.op' op" prefix), the others while verifying.
//
// Not reachable from textual IR, hence not tested here: the checks of
// DeviceAttr::verify (the device-name parser rejects such names first), and
// the shape functions' "expects ranked tensors", "expects a ranked tensor",
// "expects strides and padding" and "expects ksize, strides and padding"
// (the ODS constraints and the custom parsers reject such ops first).

//===----------------------------------------------------------------------===//
// Attribute parameters
//===----------------------------------------------------------------------===//

func.func @bool_parameter(%loss: tensor<f32>) {
  // expected-error @+2 {{expected 'true' or 'false'}}
  // expected-error @+1 {{failed to parse DTF_MomentumAttr parameter 'use_nesterov' which is to be a `bool`}}
  dtf.minimize %loss : tensor<f32>, #dtf.momentum<learning_rate = 0.1, momentum = 0.9, use_nesterov = 1>
  return
}
