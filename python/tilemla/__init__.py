"""tilemla: a tile-language JIT compiler for GPUs, and MLA decode on it.

- ``tilemla.mla.TritonMLAImpl``: multi-head latent attention decode with the
  upstream TRITON_MLA backend's constructor, for torch, CuPy, JAX or NumPy
  arrays (any DLPack producer; NumPy with ``TILEMLA_INTERPRET=1``).
- ``tilemla.Kernel``: a kernel of the tile language, launched as
  ``kernel[grid](*args)``; ``tilemla.compile`` prints its code at any stage.

Every failure raises ``tilemla.Error`` (a ``RuntimeError``) with the
library's message, which names the argument at fault.
"""

from ._tilemla import Error, interpreter_mode
from .kernel import Kernel, compile, desc
from . import mla

__version__ = "0.1.0"
__all__ = ["Error", "Kernel", "compile", "desc", "interpreter_mode", "mla"]
