"""Host time of forward_decode from Python (median of 1000 calls, graph-free,
outputs given), to compare with mla-bench's "host us" for the same shape in
the same session: python python/tests/bench_overhead.py [B] [H] [L]
(on a GPU machine; not a pytest module)."""

import statistics
import sys
import time

import torch

from tilemla.mla import Options, TritonMLAImpl

B, H, L = (int(a) for a in (sys.argv[1:] + ["8", "16", "4096"][len(sys.argv) - 1:])[:3])
R, P, PAGE = 512, 64, 64
pages = (L + PAGE - 1) // PAGE
cache = torch.randn(B * pages, PAGE, R + P, dtype=torch.bfloat16, device="cuda")
table = torch.arange(B * pages, dtype=torch.int32, device="cuda").view(B, pages)
lens = torch.full((B,), L, dtype=torch.int32, device="cuda")
q = torch.randn(B, H, R + P, dtype=torch.bfloat16, device="cuda")
o = torch.empty(B, H, R, dtype=torch.bfloat16, device="cuda")
lse = torch.empty(B, H, dtype=torch.float32, device="cuda")
impl = TritonMLAImpl(H, R + P, 0.07, 1, None, None, "auto", None, "decoder",
                     None, options=Options(max_batch=B, split_policy="auto"))
stream = torch.cuda.current_stream().cuda_stream
times = []
for i in range(1100):
    start = time.perf_counter_ns()
    impl.forward_decode(q, cache, table, lens, L, o, lse, stream)
    times.append(time.perf_counter_ns() - start)
    if i % 50 == 0:
        torch.cuda.synchronize()  # keep the queue short
print(f"B={B} H={H} L={L}: Python forward_decode host time, median of 1000: "
      f"{statistics.median(times[100:]) / 1e3:.2f} us")
