"""Kernels of the tile language from Python, launched Triton-style:

    add = tilemla.Kernel("kernels/examples/vector_add.tile", {"BLOCK": 1024})
    add[(n + 1023) // 1024](x, y, out, n)

Each array argument (any DLPack producer) is passed zero-copy; a pointer
parameter also takes an int address, a ``desc<T>`` parameter a 2-D array
(or ``tilemla.desc(array)``). Compiled on first launch per specialization,
cached in memory and on disk as in C++.
"""

from __future__ import annotations

import os
from typing import Any, Callable, Mapping, Optional, Sequence, Union

from . import _tilemla
from ._arrays import current_stream

_DTYPE_NAMES = {"bfloat16": "bf16", "float16": "f16", "float32": "f32",
                "int32": "i32", "int64": "i64", "bool": "i1"}
_SCALAR_KINDS = {"i32": (_tilemla.ARG_I32, int),
                 "i64": (_tilemla.ARG_I64, int),
                 "f32": (_tilemla.ARG_F32, float),
                 "i1": (_tilemla.ARG_BOOL, bool)}


class desc:
    """A 2-D array passed to a ``desc<T>`` parameter (a tensor descriptor:
    its base, rows, columns and row stride)."""

    def __init__(self, array: Any) -> None:
        self.array = array


def _constexpr_text(value):
    """A specialization value as the compiler reads it: ints, floats, bools,
    dtype names ('bf16') or framework dtypes (torch.bfloat16)."""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, (int, float, str)):
        return str(value)
    name = str(value).split(".")[-1]
    if name in _DTYPE_NAMES:
        return _DTYPE_NAMES[name]
    raise _tilemla.Error(f"constexpr value {value!r}: expected an int, a "
                         f"float, a bool or a dtype")


def _grid3(grid):
    grid = (grid,) if isinstance(grid, int) else tuple(grid)
    if not 1 <= len(grid) <= 3:
        raise _tilemla.Error(f"grid: 1 to 3 dimensions, got {len(grid)}")
    return tuple(int(g) for g in grid) + (1,) * (3 - len(grid))


class Kernel:
    """A tile-language kernel: `source_or_path` is source text, a .tile file,
    or "embedded:NAME" (one of the library's, e.g. "embedded:examples/softmax");
    `constexprs` its specialization values; num_warps 0: the kernel's own."""

    def __init__(self, source_or_path: Union[str, os.PathLike],
                 constexprs: Optional[Mapping[str, Any]] = None, *,
                 num_warps: int = 0) -> None:
        text = os.fspath(source_or_path)
        if text.startswith("embedded:") or (
                "\n" not in text and (text.endswith(".tile")
                                      or os.path.exists(text))):
            path, source = text, None
        else:
            path, source = "<source>", text
        values = [(name, _constexpr_text(value))
                  for name, value in (constexprs or {}).items()]
        self._native = _tilemla.Kernel(path, source, values, num_warps)
        self._types = None

    @property
    def parameter_types(self) -> list[str]:
        """The launch's parameters: '*f32', 'i32', 'desc<bf16>', ..."""
        if self._types is None:
            self._types = self._native.parameter_types()
        return list(self._types)

    def __getitem__(self, grid: Union[int, Sequence[int]]
                    ) -> Callable[..., None]:
        def launcher(*args: Any, stream: Any = None) -> None:
            self.launch(grid, *args, stream=stream)
        return launcher

    def launch(self, grid: Union[int, Sequence[int]], *args: Any,
               stream: Any = None) -> None:
        """Launches `grid` programs with `args` on `stream` (default: torch's
        current stream for torch tensors, else the legacy default stream)."""
        types = self.parameter_types
        if len(args) != len(types):
            raise _tilemla.Error(
                f"the kernel takes {len(types)} arguments "
                f"({', '.join(types)}), got {len(args)}")
        kinds, values, arrays = [], [], []
        for i, (kind, arg) in enumerate(zip(types, args)):
            if kind.startswith("*"):
                if arg is None or isinstance(arg, int):
                    kinds.append(_tilemla.ARG_POINTER)
                    values.append(arg or 0)
                    continue
                kinds.append(_tilemla.ARG_TENSOR)
            elif kind.startswith("desc<"):
                arg = arg.array if isinstance(arg, desc) else arg
                kinds.append(_tilemla.ARG_TENSOR_DESC)
            elif kind in _SCALAR_KINDS:
                code, python_type = _SCALAR_KINDS[kind]
                kinds.append(code)
                arg = python_type(arg)  # NumPy scalars, 0/1 for i1
            else:
                raise _tilemla.Error(f"argument {i}: {kind} scalars cannot be "
                                     f"passed from Python")
            values.append(arg)
            if kinds[-1] in (_tilemla.ARG_TENSOR, _tilemla.ARG_TENSOR_DESC):
                arrays.append(arg)
        self._native.launch(_grid3(grid), kinds, values,
                            current_stream(arrays, stream))

    def emit(self, stage: str = "ptx", arch: Optional[str] = None) -> str:
        """The kernel's code after `stage` ('ast', 'tile', 'tile-gpu',
        'llvm-mlir', 'llvm', 'ptx') for `arch` (default: the current GPU's,
        sm_90a without one), as `tilec --emit=` prints it."""
        return self._native.emit(stage, arch)


def compile(source_or_path: Union[str, os.PathLike],
            constexprs: Optional[Mapping[str, Any]] = None, *,
            emit: str = "ptx", arch: Optional[str] = None,
            num_warps: int = 0) -> str:
    """A kernel's code at stage `emit`, for inspection (no GPU needed)."""
    return Kernel(source_or_path, constexprs, num_warps=num_warps).emit(
        emit, arch)
