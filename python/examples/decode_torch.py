"""One MLA decode step on torch tensors (DeepSeek-V3's shape: 128 heads,
latent rank 512, rope 64), in pages of 64 tokens: as an engine would call it.
Run on a GPU machine: python python/examples/decode_torch.py"""

import torch

from tilemla.mla import Options, TritonMLAImpl

B, H, R, P, PAGE = 8, 128, 512, 64, 64
lens = torch.randint(1, 4096, (B,), dtype=torch.int32, device="cuda")
pages = (lens + PAGE - 1) // PAGE
table = torch.zeros(B, int(pages.max()), dtype=torch.int32, device="cuda")
first = 0
for b in range(B):  # each request's pages, back to back
    table[b, :pages[b]] = torch.arange(first, first + int(pages[b]))
    first += int(pages[b])
cache = torch.randn(first, PAGE, R + P, dtype=torch.bfloat16, device="cuda")
q = torch.randn(B, H, R + P, dtype=torch.bfloat16, device="cuda")

impl = TritonMLAImpl(H, R + P, (128 + P) ** -0.5, 1, None, None, "auto", None,
                     "decoder", None, kv_lora_rank=R, qk_rope_head_dim=P,
                     options=Options(max_batch=B, split_policy="auto"))
o, lse = impl.forward_decode(q, cache, table, lens,
                             max_seq_len=int(lens.max()))
torch.cuda.synchronize()
print("o", tuple(o.shape), o.dtype, "lse", tuple(lse.shape), lse.dtype)
