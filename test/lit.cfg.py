# -*- Python -*-
# lit configuration of the dtf compiler tests.

import os

import lit.formats
from lit.llvm import llvm_config

config.name = "DTF"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.dtf_obj_root, "test")
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "Inputs"]

llvm_config.use_default_substitutions()
config.substitutions.append(
    ("%examples", os.path.join(config.dtf_src_root, "examples")))

llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.add_tool_substitutions(
    ["dtf-opt", "dtf-gradcheck", "dtf-translate", "dtf-run", "dtf-eval-model"],
    [config.dtf_tools_dir, config.llvm_tools_dir])

# An x86-64 CPU with AVX2, on which float GEMMs must not run OpenBLAS's
# generic kernels (runtime/core/CpuKernels.h).
try:
    with open("/proc/cpuinfo") as cpuinfo:
        if any(line.startswith("flags") and " avx2" in line for line in cpuinfo):
            config.available_features.add("x86-avx2")
except OSError:
    pass

# Lowering to cubins runs ptxas from the CUDA toolkit found at configure time
# (absent when it was not found, or with -DDTF_ENABLE_CUDA=OFF).
if config.dtf_cuda_toolkit_dir and os.path.exists(
        os.path.join(config.dtf_cuda_toolkit_dir, "bin", "ptxas")):
    config.available_features.add("ptxas")
