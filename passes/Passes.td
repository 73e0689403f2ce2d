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
    taken get TensorFlow's `_N` suffix. New variables, and the update ops,
    inherit the `dtf.device` of the variable they are colocated with. The
    global step, when given, is incremented by one after all updates.
  }];
  let dependentDialects = ["::mlir::dtf::DTFDialect"];
}

//===----------------------------------------------------------------------===//
// GPU lowering
//
// `--dtf-lower-to-gpu` (LowerToGPU.cpp) runs these passes around upstream
// ones; runtime/ABI.md ("GPU") is the contract of its output.
//===----------------------------------------------------------------------===//

def LiftGraphInputsPass : Pass<"dtf-lift-graph-inputs", "ModuleOp"> {
  let summary = "Turn feeds, variable reads and gradients into function "
                "arguments and results";
  let description = [{
    The first step of lowering a worker's computation to a device: what a
    graph takes from the host becomes a function argument and what it sends
    back a function result, so that everything left is pure tensor math.
    This is where TensorFlow's partitioner puts `_Recv` and `_Send` ops
    between a GPU and the CPU.

    - `dtf.placeholder "x"` becomes an argument `{dtf.feed = "x"}`;
    - `dtf.read` of `dtf.variable "w"` becomes an argument
      `{dtf.variable = "w"}` (one per variable, however often it is read);
    - `dtf.apply_gradients` becomes results `{dtf.gradient = "w"}` appended
      after the function's own results, one per variable, in its order; its
      optimizer is recorded on the function as `dtf.optimizer`, for the
      parameter server that applies it.

    New arguments come after the existing ones, in program order, and are
    marked `bufferization.writable = false`: the device program never writes
    the buffers the runtime hands it. Variables that are only read are
    erased. A function that still updates a variable (`dtf.assign`,
    `dtf.apply_adam`, ...) or asks for a `dtf.minimize` cannot run on a
    device: the pass fails naming the op.
  }];
  let dependentDialects = ["::mlir::dtf::DTFDialect"];
}

def ConvertDTFToCUDACallsPass : Pass<"dtf-convert-to-cuda-calls", "ModuleOp"> {
  let summary = "Lower matmul, convolution and pooling to cuBLAS/cuDNN calls";
  let description = [{
    Replaces the dtf ops that vendor libraries implement best with calls to
    the runtime's library functions (runtime/ABI.md, "GPU library calls"),
    declared in the module as `func.func private @dtf_cuda_*` with
    `llvm.emit_c_interface`:

    | dtf op | call |
    | --- | --- |
    | `matmul` | `@dtf_cuda_gemm_f32(a, b, c, transpose_a, transpose_b)` (cuBLAS) |
    | `conv2d` | `@dtf_cuda_conv2d_f32(x, w, y, stride_h, stride_w, pad_h, pad_w)` |
    | `conv2d_backprop_input` | `@dtf_cuda_conv2d_backprop_input_f32(w, dy, dx, ...)` |
    | `conv2d_backprop_filter` | `@dtf_cuda_conv2d_backprop_filter_f32(x, dy, dw, ...)` |
    | `max_pool` | `@dtf_cuda_max_pool_f32(x, y, window_h, window_w, ...)` |
    | `max_pool_grad` | `@dtf_cuda_max_pool_grad_f32(x, y, dy, dx, ...)` |

    (cuDNN for all but matmul.) Operands are identity-layout memrefs of
    dynamic shape; the call writes its last memref operand, which the pass
    allocates. Tensors cross over with `bufferization.to_memref read_only`
    and `bufferization.to_tensor restrict writable`, which one-shot
    bufferization folds away.

    Filters are passed in cuDNN's OHWI (KRSC) layout: the pass transposes
    TensorFlow's HWIO with `linalg.transpose`. cuDNN pads symmetrically;
    where TensorFlow's SAME padding is not (the odd row or column goes to
    the bottom/right), the pass pads the input explicitly with `tensor.pad`
    (zeros for convolutions, -inf for pooling), calls the library with no
    padding and slices the input gradients back with `tensor.extract_slice`.

    Only static shapes and f32 are supported; anything else is an error
    naming the op.
  }];
  let dependentDialects = [
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::func::FuncDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def ConvertDTFToLinalgPass : Pass<"dtf-convert-to-linalg", "func::FuncOp"> {
  let summary = "Lower dtf tensor math to linalg on tensors";
  let description = [{
    Lowers the remaining dtf ops of a function to `linalg.generic` (and
    `linalg.fill`, `tensor.empty`, `tensor.collapse_shape`/`expand_shape`)
    with `arith` and `math` bodies, in TensorFlow's semantics, as the CPU
    kernels of dtf_runtime compute them:

    - elementwise ops (`add`, `sub`, `mul`, `div`, `equal`, `neg`, `relu`,
      `log`, `clip_by_value`, `cast`, `bias_add`, the elementwise gradients
      and `broadcast_to`) become one all-parallel generic each; NumPy
      broadcasting is a projected or constant indexing map;
    - reductions (`reduce_sum`, `reduce_mean`, `bias_add_grad`, `argmax`)
      put the kept dimensions first as parallel iterators and the reduced
      ones last, so loops over the result are parallel and the reduction is
      sequential within each result element; f32 sums accumulate in f64, as
      the CPU kernels do. A reduction to a scalar keeps one unit parallel
      dimension and reshapes it away, so that it still maps to a GPU thread;
    - `softmax`, `softmax_grad` and the softmax cross-entropy and its
      gradient are row reductions (max, sum of exp) followed by an
      elementwise generic;
    - `reshape` is a collapse to one dimension and an expansion;
      `constant` is `arith.constant`.

    The pass expects `--dtf-lift-graph-inputs` and
    `--dtf-convert-to-cuda-calls` to have run; it fails on any dtf op left,
    on dynamic shapes and on element types the op does not support.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def GPUTileParallelLoopsPass
    : Pass<"dtf-gpu-tile-parallel-loops", "func::FuncOp"> {
  let summary = "Shape parallel loops as a 1-D grid of thread blocks";
  let description = [{
    Prepares the `scf.parallel` loops of `convert-linalg-to-parallel-loops`
    for `gpu-map-parallel-loops`: each outermost parallel loop has its
    dimensions collapsed into one and is tiled by `block-size`, with an
    in-bounds `scf.if` instead of min/max bounds. The mapper then sends the
    tile loop to blocks and the intra-tile loop to threads, so that
    consecutive threads touch consecutive (row-major) elements and no grid
    dimension exceeds its hardware limit, whatever the rank of the loop.
    Loops nested in the parallel loop (a reduction's `scf.for`) run
    sequentially within a thread.
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", /*default=*/"256",
           "Threads per block">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def GPUDeviceMemoryPass : Pass<"dtf-gpu-device-memory", "func::FuncOp"> {
  let summary = "Put the buffers of host code in GPU memory";
  let description = [{
    After kernel outlining the host function allocates, copies and passes
    around buffers that only kernels and library calls touch. This pass
    makes that explicit: `memref.alloc` becomes `gpu.alloc`,
    `memref.dealloc` `gpu.dealloc`, `memref.copy` `gpu.memcpy`, and a
    `memref.get_global` (a constant) is copied into a fresh `gpu.alloc`
    with `gpu.memcpy`.

    It then checks that the host function no longer reads or writes memory
    itself: an op other than a view (`memref.cast`, `collapse_shape`,
    `expand_shape`, `subview`, ...), a `gpu` op, a `func.call` or
    `func.return` that uses a memref is an error, since it would
    dereference a device pointer on the host.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

#endif // DTF_PASSES_PASSES_TD
