# lit configuration for mepi's regression tests.
import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "mepi"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test", ".c"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.mepi_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%mepi_src_root", config.mepi_src_root))
llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP", "CUDA_ROOT"])
llvm_config.use_default_substitutions()

llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
tools = [ToolSubst("mepi-opt", unresolved="fatal"),
         ToolSubst("mepi-capi-matmul", unresolved="fatal"),
         ToolSubst("mepi-capi-epilog-builder", unresolved="fatal"),
         ToolSubst("mepi-capi-grouped", unresolved="fatal"),
         ToolSubst("mepi-capi-distributed", unresolved="fatal"),
         ToolSubst("mepi-bench", unresolved="fatal")]
llvm_config.add_tool_substitutions(tools, [config.mepi_tools_dir, config.llvm_tools_dir])

# ptxas from the CUDA toolkit assembles the generated PTX for sm_90a.
if config.ptxas and os.path.exists(config.ptxas):
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", config.ptxas))

# nvcc compiles user device code (LTO-IR) for the link tests.
nvcc = os.path.join(os.path.dirname(config.ptxas), "nvcc") if config.ptxas else ""
if nvcc and os.path.exists(nvcc):
    config.available_features.add("nvcc")
    config.substitutions.append(("%nvcc", nvcc))
