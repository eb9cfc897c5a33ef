# lit configuration for tilemla's compiler tests (FileCheck style).
import os
import lit.formats

config.name = "tilemla"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".tile"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tilemla_tools_dir, "..", "tests", "lit")
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py"]

config.environment["PATH"] = os.pathsep.join(
    [config.tilemla_tools_dir, config.llvm_tools_dir, config.environment.get("PATH", "")])
config.substitutions.append(("%examples", os.path.join(config.tilemla_src_root, "kernels", "examples")))
config.substitutions.append(("%mla", os.path.join(config.tilemla_src_root, "kernels", "mla")))
if config.ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", config.ptxas))
