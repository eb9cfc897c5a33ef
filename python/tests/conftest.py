"""The Python tests run the kernels in the CPU interpreter on NumPy arrays
(TILEMLA_INTERPRET=1, set here before the library reads it) unless torch
sees a CUDA GPU and TILEMLA_INTERPRET is unset: then on the GPU with torch
tensors. Each test module skips what its mode cannot run."""

import os

if "TILEMLA_INTERPRET" not in os.environ:
    try:
        import torch

        gpu = torch.cuda.is_available()
    except ImportError:
        gpu = False
    if not gpu:
        os.environ["TILEMLA_INTERPRET"] = "1"
os.environ.setdefault("TILEMLA_CACHE", "off")
