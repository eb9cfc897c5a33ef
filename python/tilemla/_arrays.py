"""What the package needs to know of the caller's arrays: their framework
(to allocate outputs of the same kind) and torch's current CUDA stream."""

import importlib


def framework(array):
    """'torch', 'numpy', 'cupy', 'jax', ... : the array type's top module."""
    return type(array).__module__.split(".")[0]


def empty_like_framework(reference, shape, dtype=None, stream=None):
    """An uninitialized array of `shape` of `reference`'s framework, on its
    device, of `dtype` (default: reference's). torch: allocated on `stream`
    (an int handle; None: the current one), the stream that will write it,
    so that torch's caching allocator orders its reuse after that work."""
    kind = framework(reference)
    if kind == "torch":
        dtype = dtype or reference.dtype
        if stream is None or not reference.is_cuda:
            return reference.new_empty(shape, dtype=dtype)
        import torch

        with torch.cuda.stream(torch.cuda.ExternalStream(
                stream, device=reference.device)):
            return reference.new_empty(shape, dtype=dtype)
    if kind in ("numpy", "cupy"):
        xp = importlib.import_module(kind)
        if kind == "cupy":
            with reference.device:
                return xp.empty(shape, dtype=dtype or reference.dtype)
        return xp.empty(shape, dtype=dtype or reference.dtype)
    from ._tilemla import Error

    raise Error(
        f"o: tilemla allocates outputs for torch, NumPy and CuPy arrays, not "
        f"{type(reference).__name__}; pass o (and lse) yourself")


def float32_of(reference):
    """float32 in `reference`'s framework."""
    kind = framework(reference)
    return importlib.import_module(kind).float32 if kind in (
        "torch", "numpy", "cupy") else None


def current_stream(arrays, stream):
    """`stream` as an int handle; None: torch's current stream on the first
    CUDA tensor's device when torch tensors come in, else 0 (the legacy
    default stream)."""
    if stream is not None:
        if type(stream) is int:
            return stream
        return int(getattr(stream, "cuda_stream", stream))
    for array in arrays:
        if array is None:
            continue
        module = type(array).__module__  # torch or torch.*, not torchvision
        if ((module == "torch" or module.startswith("torch."))
                and array.is_cuda):
            return _torch_current_stream(array)
    return 0


_raw_current_stream = None


def _torch_current_stream(tensor):
    """torch's current stream on `tensor`'s device as an int handle. Read
    through torch._C._cuda_getCurrentRawStream where torch has it (the raw
    handle, without building a torch.cuda.Stream each call: this runs on
    every decode call), else through torch.cuda.current_stream."""
    global _raw_current_stream
    if _raw_current_stream is None:
        import torch

        _raw_current_stream = getattr(
            torch._C, "_cuda_getCurrentRawStream",
            lambda index: torch.cuda.current_stream(index).cuda_stream)
    return int(_raw_current_stream(tensor.get_device()))
