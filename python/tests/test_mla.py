"""tilemla.mla on NumPy arrays in the interpreter: every form of
forward_decode against the fp64 reference, outputs allocated or given, the
fp8 caches, the engine adapter, and the errors (each a tilemla.Error with the
library's message, or the seed's NotImplementedError)."""

import types

import numpy as np
import pytest

import tilemla
from tilemla.mla import MLADecodeAdapter, Options, TritonMLAImpl

from mla_reference import errors, make_problem, reference

pytestmark = pytest.mark.skipif(not tilemla.interpreter_mode(),
                                reason="NumPy arrays need the interpreter")

SCALE = 0.0721687836
RANK, ROPE = 512, 64


def make_impl(heads=16, kv_cache_dtype="auto", **options):
    return TritonMLAImpl(heads, RANK + ROPE, SCALE, 1, None, None,
                         kv_cache_dtype, None, "decoder", None,
                         kv_lora_rank=RANK, qk_rope_head_dim=ROPE,
                         options=Options(max_batch=8, **options))


@pytest.fixture
def rng():
    seed = np.random.SeedSequence().entropy % 2**32
    print(f"seed {seed}")
    return np.random.default_rng(seed)


@pytest.mark.parametrize("policy", ["fixed4", "auto", "batch_invariant"])
def test_decode_allocates_outputs_like_q(rng, policy):
    q, cache, table, lens = make_problem(rng)
    for array in (q, cache, table, lens):
        array.setflags(write=False)  # inputs are only read
    o, lse = make_impl(split_policy=policy).forward_decode(
        q, cache, table, lens, max_seq_len=int(lens.max()))
    assert isinstance(o, np.ndarray) and o.dtype == np.float16
    assert o.shape == (3, 16, RANK) and lse.dtype == np.float32
    o_err, lse_err = errors(o, lse, *reference(q, cache, table, lens, SCALE,
                                               RANK))
    assert o_err <= 2e-3 and lse_err <= 1e-3, (o_err, lse_err)


def test_pair_and_given_outputs(rng):
    q, cache, table, lens = make_problem(rng, lens=(5, 64, 1))
    q_nope, q_pe = q[..., :RANK].copy(), q[..., RANK:].copy()
    o = np.full((3, 16, RANK), np.nan, np.float16)
    lse = np.full((3, 16), np.nan, np.float32)
    out, out_lse = make_impl().forward_decode((q_nope, q_pe), cache, table,
                                              lens, o=o, lse=lse)
    assert out is o and out_lse is lse
    o_err, lse_err = errors(o, lse, *reference(q, cache, table, lens, SCALE,
                                               RANK))
    assert o_err <= 2e-3 and lse_err <= 1e-3, (o_err, lse_err)


def test_timed_c_calls_decode(rng):
    # bench_overhead.py's timer of the C ABI's call: each call decodes
    # (poisoned outputs are written) and is timed.
    q, cache, table, lens = make_problem(rng, lens=(5, 64, 1))
    o = np.full((3, 16, RANK), np.nan, np.float16)
    lse = np.full((3, 16), np.nan, np.float32)
    impl = make_impl()
    times = impl._native._time_c_calls(q, None, cache, table, lens,
                                       int(lens.max()), o, lse, 0, 2)
    assert len(times) == 2 and all(t > 0 for t in times)
    o_err, lse_err = errors(o, lse, *reference(q, cache, table, lens, SCALE,
                                               RANK))
    assert o_err <= 2e-3 and lse_err <= 1e-3, (o_err, lse_err)
    with pytest.raises(tilemla.Error, match="o"):
        impl._native._time_c_calls(q, None, cache, table, lens, 64,
                                   o[:2], lse, 0, 1)


def test_fp8_cache_with_a_scale(rng):
    q, cache, table, lens = make_problem(rng, lens=(30, 17))
    scale = 1 / 240
    # e4m3 codes of value / scale, by the nearest of the 254 finite codes
    # (the poison page's NaN becomes 0x7f, e4m3's NaN).
    decoded = np.array([_e4m3(c) for c in range(256)])
    finite = np.where(np.isfinite(decoded))[0]
    order = finite[np.argsort(decoded[finite])]
    ladder = decoded[order]
    wanted = cache.astype(np.float64) / scale
    upper = np.clip(np.searchsorted(ladder, wanted), 1, len(ladder) - 1)
    lower = upper - 1
    pick = np.where(np.abs(ladder[upper] - wanted) <
                    np.abs(ladder[lower] - wanted), upper, lower)
    codes = np.where(np.isnan(wanted), 0x7F, order[pick]).astype(np.uint8)
    values = decoded[codes] * np.float64(np.float32(scale))
    impl = make_impl(kv_cache_dtype="fp8")
    ref = reference(q, values, table, lens, SCALE, RANK)
    o, lse = impl.forward_decode(q, codes, table, lens, kv_scale=scale)
    o_err, lse_err = errors(o, lse, *ref)
    assert o_err <= 2e-3 and lse_err <= 1e-3, (o_err, lse_err)
    # The scale as a one-element array (a graph replay reads it anew), as an
    # engine's layer holds it, through the adapter.
    layer = types.SimpleNamespace(_k_scale=np.array([scale], np.float32))
    metadata = types.SimpleNamespace(block_table=table, seq_lens=lens)
    o, lse = MLADecodeAdapter(impl).forward_mqa(q, codes, metadata, layer)
    o_err, lse_err = errors(o, lse, *ref)
    assert o_err <= 2e-3 and lse_err <= 1e-3, (o_err, lse_err)
    with pytest.raises(tilemla.Error, match="layer._k_scale"):
        MLADecodeAdapter(impl).forward_mqa(q, codes, metadata, None)


def _e4m3(code):
    sign = -1.0 if code & 0x80 else 1.0
    exponent, mantissa = (code >> 3) & 0xF, code & 7
    if exponent == 15 and mantissa == 7:
        return np.nan
    if exponent == 0:
        return sign * mantissa / 8 * 2.0**-6
    return sign * (1 + mantissa / 8) * 2.0**(exponent - 7)


def test_one_schedule_per_step(rng):
    """schedule_decode once, then the step's call reads the schedule; a
    call whose lengths live elsewhere refuses it."""
    q, cache, table, lens = make_problem(rng)
    impl = make_impl(split_policy="auto", device_schedule="always")
    schedule = impl.new_schedule()
    impl.schedule_decode(lens, schedule)
    o, lse = impl.forward_decode(q, cache, table, lens,
                                 max_seq_len=int(lens.max()),
                                 schedule=schedule)
    o_err, lse_err = errors(o, lse, *reference(q, cache, table, lens, SCALE,
                                               RANK))
    assert o_err <= 2e-3 and lse_err <= 1e-3, (o_err, lse_err)
    with pytest.raises(tilemla.Error, match="metadata.schedule: made for"):
        impl.forward_decode(q, cache, table, lens.copy(),
                            max_seq_len=int(lens.max()), schedule=schedule)
    with pytest.raises(ValueError, match="device_schedule"):
        make_impl(device_schedule="sometimes")


def test_engine_adapter(rng):
    q, cache, table, lens = make_problem(rng)
    metadata = types.SimpleNamespace(decode=types.SimpleNamespace(
        block_table=table, seq_lens=lens, max_seq_len=int(lens.max())))
    adapter = MLADecodeAdapter(make_impl(split_policy="auto"))
    o, lse = adapter.forward_mqa(q, cache, metadata, layer=None)
    o_err, lse_err = errors(o, lse, *reference(q, cache, table, lens, SCALE,
                                               RANK))
    assert o_err <= 2e-3 and lse_err <= 1e-3, (o_err, lse_err)


def test_errors_name_their_argument(rng):
    q, cache, table, lens = make_problem(rng)
    impl = make_impl()
    with pytest.raises(tilemla.Error, match=r"^o: expected shape \[3, 16, 512\]"):
        impl.forward_decode(q, cache, table, lens,
                            o=np.zeros((3, 16, 500), np.float16))
    with pytest.raises(tilemla.Error, match=r"^kv_cache: expected dtype f16, "
                                            r"got f32"):
        impl.forward_decode(q, cache.astype(np.float32), table, lens)
    with pytest.raises(tilemla.Error, match="max_seq_len: required by "
                                            "SplitPolicy::Auto"):
        make_impl(split_policy="auto").forward_decode(q, cache, table, lens)
    with pytest.raises(tilemla.Error, match=r"^metadata.kv_scale: a scale is "
                                            r"for an fp8 cache"):
        impl.forward_decode(q, cache, table, lens, kv_scale=0.5)
    assert issubclass(tilemla.Error, RuntimeError)


def test_constructor_refusals():
    with pytest.raises(NotImplementedError, match="alibi_slopes"):
        TritonMLAImpl(16, 576, SCALE, 1, [1.0], None, "auto", None,
                      "decoder", None)
    with pytest.raises(NotImplementedError, match="Encoder self-attention"):
        TritonMLAImpl(16, 576, SCALE, 1, None, None, "auto", None,
                      "encoder", None)
    with pytest.raises(tilemla.Error, match="kv_cache_dtype: expected one of"):
        TritonMLAImpl(16, 576, SCALE, 1, None, None, "int8", None,
                      "decoder", None)
    with pytest.raises(tilemla.Error, match="num_kv_heads: MLA has one"):
        TritonMLAImpl(16, 576, SCALE, 2, None, None, "auto", None,
                      "decoder", None)
    with pytest.raises(ValueError, match="split_policy"):
        make_impl(split_policy="sometimes")
