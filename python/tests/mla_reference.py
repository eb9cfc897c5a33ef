"""MLA decode problems and their fp64 reference, in NumPy (shared by the
interpreter and GPU tests)."""

import numpy as np


def make_problem(rng, heads=16, lens=(37, 0, 20), page=16, rank=512, rope=64,
                 dtype=np.float16):
    """q [B, H, R + P], a paged cache with a shuffled block table (its unused
    entries point at a NaN page), seq_lens; values in `dtype`."""
    batch, width = len(lens), rank + rope
    pages_of = [(n + page - 1) // page for n in lens]
    used = sum(pages_of)
    cache = rng.uniform(-1, 1, (used + 2, page, width)).astype(dtype)
    cache[used + 1] = np.nan  # the poison page
    order = rng.permutation(used)
    table = np.full((batch, max(max(pages_of), 1) + 1), used + 1, np.int32)
    start = 0
    for b, n in enumerate(pages_of):
        table[b, :n] = order[start:start + n]
        start += n
    q = rng.uniform(-1, 1, (batch, heads, width)).astype(dtype)
    return q, cache, table, np.array(lens, np.int32)


def reference(q, cache, table, lens, scale, rank):
    """o [B, H, R] and lse [B, H] in float64 (lse -inf, o 0 for L = 0)."""
    batch, heads, _ = q.shape
    page = cache.shape[1]
    o = np.zeros((batch, heads, rank))
    lse = np.full((batch, heads), -np.inf)
    for b in range(batch):
        n = int(lens[b])
        if n == 0:
            continue
        tokens = np.arange(n)
        rows = cache[table[b, tokens // page], tokens % page].astype(np.float64)
        s = q[b].astype(np.float64) @ rows.T * scale  # [H, L]
        peak = s.max(axis=1, keepdims=True)
        p = np.exp(s - peak)
        total = p.sum(axis=1, keepdims=True)
        o[b] = (p / total) @ rows[:, :rank]
        lse[b] = (peak + np.log(total))[:, 0]
    return o, lse


def errors(o, lse, ref_o, ref_lse):
    """Worst row-relative error of o and absolute error of lse (-inf must
    match exactly)."""
    o = np.asarray(o, np.float64)
    peak = np.abs(ref_o).max(axis=-1, keepdims=True)
    rel = np.abs(o - ref_o) / np.where(peak > 0, peak, 1)
    o_err = float(np.nan_to_num(rel, nan=np.inf).max())
    lse = np.asarray(lse, np.float64)
    empty = np.isinf(ref_lse)
    lse_err = float(np.abs(lse[~empty] - ref_lse[~empty]).max(initial=0))
    if not np.array_equal(lse[empty], ref_lse[empty]):
        lse_err = np.inf
    return o_err, lse_err
