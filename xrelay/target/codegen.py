"""``xrelay.target.codegen`` (TVM's ``tvm.target.codegen``): facts about the code
generator, which is LLVM through llvmlite."""

from __future__ import annotations


def llvm_version_major(allow_none: bool = False) -> int:
    """The major version of the LLVM that compiles xrelay's kernels."""
    import llvmlite.binding as llvm

    return int(llvm.llvm_version_info[0])
