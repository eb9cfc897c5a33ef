"""Host time of forward_decode from Python (graph-free, outputs given),
timed as mla-bench times its "host us" (rounds of 20 calls after a
synchronization, each call timed, the median of 1000), to compare with
mla-bench for the same shape in the same session, and beside the C ABI's
call timed inside the extension in the same process (the C ABI adds about
0.1 us to the C++ call):
python python/tests/bench_overhead.py [B] [H] [L] (on a GPU machine; not a
pytest module).

With --interpreted (no GPU needed) it times the binding alone: an empty
batch in interpreter mode is validated and returns without a launch, so the
median is the arrays' import, the wrapper, the C ABI and the C++ checks,
for torch CPU tensors and for NumPy arrays."""

import os
import statistics
import sys

INTERPRETED = "--interpreted" in sys.argv
if INTERPRETED:
    os.environ["TILEMLA_INTERPRET"] = "1"

import time  # noqa: E402

import torch  # noqa: E402

from tilemla.mla import Options, TritonMLAImpl  # noqa: E402

sizes = [int(a) for a in sys.argv[1:] if not a.startswith("--")]
B, H, L = (sizes + [8, 16, 4096][len(sizes):])[:3]
R, P, PAGE = 512, 64, 64
pages = (L + PAGE - 1) // PAGE


def median_us(call, count=1000, warmup=100):
    times = []
    for _ in range(count + warmup):
        start = time.perf_counter_ns()
        call()
        times.append(time.perf_counter_ns() - start)
    return statistics.median(times[warmup:]) / 1e3


if INTERPRETED:
    import numpy as np

    impl = TritonMLAImpl(H, R + P, 0.07, 1, options=Options(
        max_batch=max(B, 1), split_policy="auto"))
    shapes = [(0, H, R + P), (B * pages, PAGE, R + P), (0, pages), (0,),
              (0, H, R), (0, H)]
    kinds = [torch.bfloat16, torch.bfloat16, torch.int32, torch.int32,
             torch.bfloat16, torch.float32]
    arrays = {"torch": [torch.zeros(s, dtype=k) for s, k in zip(shapes, kinds)],
              "numpy": [np.zeros(s, np.float16 if k == torch.bfloat16 else
                                 torch.empty(0, dtype=k).numpy().dtype)
                        for s, k in zip(shapes, kinds)]}
    for kind, (q, cache, table, lens, o, lse) in arrays.items():
        print(f"{kind}: an empty batch through the binding, median of "
              f"1000: Python {median_us(lambda: impl.forward_decode(q, cache, table, lens, L, o, lse, 0)):.2f} us, "  # noqa: E501
              f"native layer {median_us(lambda: impl._native.forward_decode(q, None, cache, table, lens, L, o, lse, 0, None, None, None)):.2f} us")  # noqa: E501
    sys.exit(0)

cache = torch.randn(B * pages, PAGE, R + P, dtype=torch.bfloat16, device="cuda")
table = torch.arange(B * pages, dtype=torch.int32, device="cuda").view(B, pages)
lens = torch.full((B,), L, dtype=torch.int32, device="cuda")
q = torch.randn(B, H, R + P, dtype=torch.bfloat16, device="cuda")
o = torch.empty(B, H, R, dtype=torch.bfloat16, device="cuda")
lse = torch.empty(B, H, dtype=torch.float32, device="cuda")
impl = TritonMLAImpl(H, R + P, 0.07, 1, None, None, "auto", None, "decoder",
                     None, options=Options(max_batch=B, split_policy="auto"))
stream = torch.cuda.current_stream().cuda_stream


def host_us(call, calls=1000):
    """As mla-bench's 'host us': rounds of 20 calls, each round after a
    synchronization (an empty queue), the median of the calls' times."""
    for _ in range(100):
        call()
    times = []
    for _ in range(calls // 20):
        torch.cuda.synchronize()
        for _ in range(20):
            start = time.perf_counter_ns()
            call()
            times.append(time.perf_counter_ns() - start)
    torch.cuda.synchronize()
    return statistics.median(times) / 1e3


def side_by_side(calls=1000):
    """The C ABI's call (timed inside the extension, the arrays read once)
    and the Python call, in alternating rounds of 20 after a
    synchronization: both medians from the same process and host state."""
    native = impl._native
    c_times, py_times = [], []
    for _ in range(5):
        native._time_c_calls(q, None, cache, table, lens, L, o, lse, stream, 20)
        impl.forward_decode(q, cache, table, lens, L, o, lse, stream)
    for _ in range(calls // 20):
        torch.cuda.synchronize()
        c_times += native._time_c_calls(q, None, cache, table, lens, L, o,
                                        lse, stream, 20)
        torch.cuda.synchronize()
        for _ in range(20):
            start = time.perf_counter_ns()
            impl.forward_decode(q, cache, table, lens, L, o, lse, stream)
            py_times.append(time.perf_counter_ns() - start)
    torch.cuda.synchronize()
    return statistics.median(c_times) / 1e3, statistics.median(py_times) / 1e3


native = host_us(lambda: impl._native.forward_decode(
    q, None, cache, table, lens, L, o, lse, stream, None, None, None))
explicit = host_us(
    lambda: impl.forward_decode(q, cache, table, lens, L, o, lse, stream))
current = host_us(lambda: impl.forward_decode(q, cache, table, lens, L, o, lse))
print(f"B={B} H={H} L={L}: forward_decode host time as mla-bench's host us "
      f"(rounds of 20 after a sync, median of 1000): Python {explicit:.2f} us "
      f"with the stream given, {current:.2f} us on torch's current stream; "
      f"the native layer alone {native:.2f} us")
c_us, py_us = side_by_side()
print(f"B={B} H={H} L={L}, one process, alternating rounds of 20: the C "
      f"ABI's call {c_us:.2f} us, Python's {py_us:.2f} us, "
      f"{py_us - c_us:.2f} us above")
