# lit configuration for distc. Run through ctest (`ctest -R lit`), which
# prints the summary CI reads, or directly: lit -sv build/test
import os
import lit.formats
from lit.llvm import llvm_config

config.name = "distc"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test", ".json"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.distc_obj_root, "test")

config.environment["FILECHECK_OPTS"] = "--enable-var-scope"
config.environment["PATH"] = os.environ.get("PATH", "/usr/bin:/bin")
llvm_config.use_default_substitutions()
# Our tools first, then LLVM's FileCheck/not, then the system's.
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.distc_tools_dir, append_path=True)

config.substitutions.append(("%inputs", os.path.join(config.test_source_root, "Inputs")))
config.substitutions.append(
    ("%examples", os.path.join(os.path.dirname(config.test_source_root), "examples")))
config.substitutions.append(("%shared_data", config.distc_shared_data))
# TableGen include paths, for distc-tblgen tests: the pd dialect's and MLIR's.
config.substitutions.append(
    ("%pd_include", os.path.join(os.path.dirname(config.test_source_root), "dialects", "Pd",
                                 "include")))
config.substitutions.append(
    ("%mlir_include", os.path.join(os.path.dirname(config.llvm_tools_dir), "include")))
# Debian's numpy is installed for the system interpreter, not for any other
# python3 that may come first on PATH.
config.substitutions.append(("%python", "/usr/bin/python3"))
config.substitutions.append(
    ("%kill_on_unlink", os.path.join(config.distc_obj_root, "lib", "libdistc-kill-on-unlink.so")))

if config.distc_build_compiler:
    config.available_features.add("compiler")

# Tests on a GPU need CUDA devices the CUDA backend can use; dist-run
# --version counts them ("cuda backend: built (NCCL x.y.z), N devices").
# Without one they are reported UNSUPPORTED, which is a skip.
import re
import subprocess

try:
    version = subprocess.run([os.path.join(config.distc_tools_dir, "dist-run"), "--version"],
                             capture_output=True, text=True, timeout=120).stdout
except (OSError, subprocess.TimeoutExpired):
    version = ""
devices = re.search(r"^cuda backend: built .*?, (\d+) devices?", version, re.M)
if devices and int(devices.group(1)) >= 1:
    config.available_features.add("cuda-device")
if devices and int(devices.group(1)) >= 2:
    config.available_features.add("cuda-devices-2")
