//===- Passes.td - dtf transformation passes ---------------*- tablegen -*-===//
//
// Every dtf pass is declared here, one `def` each, in the order a training
// graph goes through them. `Passes.h` exposes the generated constructors,
// option structs and `registerDTFPasses()`; each pass is implemented in its
// own .cpp file of the DTFTransforms library.
//
//===----------------------------------------------------------------------===//

#ifndef DTF_PASSES_PASSES_TD
#define DTF_PASSES_PASSES_TD

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// Training
//===----------------------------------------------------------------------===//

def AutodiffPass : Pass<"dtf-autodiff", "func::FuncOp"> {
  let summary = "Replace dtf.minimize with its gradients and apply_gradients";
  let description = [{
    Reverse-mode automatic differentiation, the first half of TensorFlow's
    `optimizer.minimize(loss, global_step)` (`compute_gradients`). Each
    `dtf.minimize %loss` becomes the backward pass of `%loss` with respect
    to every trainable `dtf.variable` that `%loss` depends on through
    differentiable ops, followed by

    ```mlir
    dtf.apply_gradients <optimizer> (vars...) grads(grads...) [global_step]
    ```

    with the variables in creation order. The backward pass starts from a
    constant 1 of the loss type and visits the ops of the loss's backward
    slice in reverse order; the gradients of a value with several uses, and
    of a variable read several times, are summed with `dtf.add`. Gradient
    formulas are TensorFlow's (`math_grad.py`, `nn_grad.py`,
    `array_grad.py`): e.g. `relu` uses `relu_grad` of the relu input,
    `softmax` uses `softmax_grad` of the softmax output, and broadcasting
    binary ops reduce the incoming gradient back to each operand's shape.

    Paths through non-float values (`argmax`, `equal`, `cast` to an integer
    type) carry no gradient and are cut; placeholders, constants and
    non-trainable variables are leaves. Only the operands that lead to a
    trainable variable get gradient ops, so no dead op is emitted.

    The pass fails with an error naming the op when the loss depends on a
    trainable variable through an op without a gradient rule, when the
    labels of `softmax_cross_entropy_with_logits` depend on a trainable
    variable, and when the loss depends on no trainable variable at all.
  }];
  let dependentDialects = ["::mlir::dtf::DTFDialect"];
}

def ExpandOptimizerPass : Pass<"dtf-expand-optimizer", "func::FuncOp"> {
  let summary = "Expand dtf.apply_gradients into the optimizer's update ops";
  let description = [{
    The second half of TensorFlow's `minimize` (`apply_gradients`): each
    `dtf.apply_gradients` becomes the optimizer's fused update ops, its slot
    variables and the global-step increment.

    - `#dtf.sgd`: `dtf.apply_gradient_descent` per variable.
    - `#dtf.momentum`: a zero-initialized, non-trainable slot
      `<var>/Momentum` per variable and `dtf.apply_momentum`.
    - `#dtf.adam`: slots `<var>/Adam` (m) and `<var>/Adam_1` (v), the
      non-slot scalars `beta1_power` and `beta2_power` (initialized to beta1
      and beta2, colocated with the variable whose name sorts first, as
      TensorFlow's AdamOptimizer does), `dtf.apply_adam` per variable, then
      `beta1_power *= beta1` and `beta2_power *= beta2`.

    Slot variables are created right after their variable; names already
    taken get TensorFlow's `_N` suffix. Every new variable names the
    variable it is colocated with in `colocate_with` (TensorFlow's
    `loc:@var`), so that `--dtf-place-variables` keeps it there. New
    variables, and the update ops, inherit the `dtf.device` of the variable
    they are colocated with. The
    global step, when given, is incremented by one after all updates.
  }];
  let dependentDialects = ["::mlir::dtf::DTFDialect"];
}

#endif // DTF_PASSES_PASSES_TD
