#!/usr/bin/env python3
"""Checks that a replicated module only holds ops the runtime can run.

Reads a module printed by `dtf-opt --dtf-replicate --mlir-print-op-generic`
on stdin. Every op of `@worker` and of the `@ps_<N>` functions must be one
the reference interpreter evaluates (the TypeSwitch of
runtime/exec/Interpreter.cpp, mirrored below), or `dtf.pull` and
`dtf.push_gradients`, which the runtime implements as RPCs. On top of that
runtime/ABI.md asks:

- @worker holds no variable and touches none (it pulls and pushes), carries
  no device, and is the only function that pulls or pushes;
- a PS function reads no placeholder: PS tasks are fed gradients only.

Prints one line per function with the ops it uses, and exits with status 1
after listing every violation.
"""

import re
import sys

# The ops runtime/exec/Interpreter.cpp evaluates (Interpreter::evaluateOp).
INTERPRETER_OPS = {
    "func.return",
    # Graph inputs and state.
    "dtf.placeholder", "dtf.constant", "dtf.variable", "dtf.read",
    "dtf.assign", "dtf.assign_add",
    # Math.
    "dtf.matmul", "dtf.add", "dtf.sub", "dtf.mul", "dtf.div", "dtf.equal",
    "dtf.bias_add", "dtf.neg", "dtf.relu", "dtf.log", "dtf.softmax",
    "dtf.clip_by_value", "dtf.softmax_cross_entropy_with_logits",
    # Reductions and shapes.
    "dtf.reduce_sum", "dtf.reduce_mean", "dtf.reshape", "dtf.argmax",
    "dtf.cast", "dtf.broadcast_to",
    # Convolution and pooling.
    "dtf.conv2d", "dtf.max_pool",
    # Gradients.
    "dtf.relu_grad", "dtf.softmax_grad", "dtf.clip_by_value_grad",
    "dtf.softmax_cross_entropy_with_logits_grad", "dtf.bias_add_grad",
    "dtf.conv2d_backprop_input", "dtf.conv2d_backprop_filter",
    "dtf.max_pool_grad",
    # Optimizer updates.
    "dtf.apply_gradient_descent", "dtf.apply_momentum", "dtf.apply_adam",
}
# The ops the runtime implements itself.
RPC_OPS = {"dtf.pull", "dtf.push_gradients"}
# What only PS tasks do.
STATE_OPS = {
    "dtf.variable", "dtf.read", "dtf.assign", "dtf.assign_add",
    "dtf.apply_gradient_descent", "dtf.apply_momentum", "dtf.apply_adam",
}

OP = re.compile(r'^\s*(?:%[^=]*=\s*)?"([a-z_0-9]+\.[a-z_0-9]+)"')
SYM_NAME = re.compile(r'sym_name = "([^"]*)"')
# The discardable `dtf.device` attribute (not the `device` of pull/push).
PLACED = re.compile(r'[{,]\s*dtf\.device\s*=')


def main():
    errors = []
    functions = {}
    function = None
    for number, line in enumerate(sys.stdin, 1):
        match = OP.match(line)
        if not match:
            continue
        name = match.group(1)
        if name == "builtin.module":
            continue
        if name == "func.func":
            function = SYM_NAME.search(line).group(1)
            functions[function] = set()
            if function != "worker" and not re.fullmatch(r"ps_[0-9]+",
                                                         function):
                errors.append(f"line {number}: @{function} is neither "
                              "@worker nor @ps_<N>")
            continue
        if function is None:
            errors.append(f"line {number}: '{name}' outside a function")
            continue
        functions[function].add(name)
        where = f"line {number}: '{name}' in @{function}"
        if name not in INTERPRETER_OPS | RPC_OPS:
            errors.append(f"{where} is not evaluated by the interpreter")
        if function == "worker":
            if name in STATE_OPS:
                errors.append(f"{where}: the worker holds no variable")
            if PLACED.search(line):
                errors.append(f"{where} is placed; the worker is not")
        elif re.fullmatch(r"ps_[0-9]+", function):
            if name in RPC_OPS:
                errors.append(f"{where}: only the worker pulls and pushes")
            if name == "dtf.placeholder":
                errors.append(f"{where}: PS tasks are not fed")

    if "worker" not in functions:
        errors.append("no @worker function")
    if not any(re.fullmatch(r"ps_[0-9]+", name) for name in functions):
        errors.append("no @ps_<N> function")
    for name in sorted(functions):
        print(f"@{name}: {' '.join(sorted(functions[name]))}")
    for error in errors:
        print(f"error: {error}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
