"""tilemla.mla on torch CUDA tensors (skipped without a GPU or in the
interpreter): bf16 and f16, q whole and as the pair, lse, a non-default
stream, CUDA graph capture with replays over new lengths, and bit-equality
with the C ABI called directly (ctypes) on the same tensors."""

import ctypes
import os

import numpy as np
import pytest

import tilemla
from tilemla.mla import Options, TritonMLAImpl

from mla_reference import errors, make_problem, reference

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.skipif(
    tilemla.interpreter_mode() or not torch.cuda.is_available(),
    reason="needs torch with a CUDA GPU (and no TILEMLA_INTERPRET)")

SCALE = 0.0721687836
RANK, ROPE = 512, 64


def make_impl(heads, policy="auto", max_batch=64):
    return TritonMLAImpl(heads, RANK + ROPE, SCALE, 1, None, None, "auto",
                         None, "decoder", None,
                         options=Options(max_batch=max_batch,
                                         split_policy=policy))


def on_gpu(rng, dtype, heads, lens, page=64):
    q, cache, table, seq = make_problem(rng, heads=heads, lens=lens,
                                        page=page, dtype=np.float32)
    to = dict(device="cuda")
    tq = torch.from_numpy(q).to(dtype=dtype, **to)
    tc = torch.from_numpy(cache).to(dtype=dtype, **to)
    host = (tq.double().cpu().numpy(), tc.double().cpu().numpy(), table, seq)
    return tq, tc, torch.from_numpy(table).to(**to), \
        torch.from_numpy(seq).to(**to), host


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
@pytest.mark.parametrize("heads", [16, 128])
def test_decode_forms(dtype, heads):
    rng = np.random.default_rng()
    q, cache, table, lens, host = on_gpu(rng, dtype, heads,
                                         (4096, 1, 0, 777))
    ref_o, ref_lse = reference(*host, SCALE, RANK)
    impl = make_impl(heads)
    tolerance = 1e-2 if dtype == torch.bfloat16 else 2e-3
    for form in ("q", "pair"):
        arg = q if form == "q" else (q[..., :RANK], q[..., RANK:])
        o, lse = impl.forward_decode(arg, cache, table, lens, max_seq_len=4096)
        torch.cuda.synchronize()
        assert o.dtype == dtype and lse.dtype == torch.float32
        o_err, lse_err = errors(o.double().cpu().numpy(),
                                lse.double().cpu().numpy(), ref_o, ref_lse)
        assert o_err <= tolerance and lse_err <= 1e-3, (form, o_err, lse_err)


def test_non_default_stream_and_graph_replay():
    rng = np.random.default_rng()
    # Pages for the longest lengths of every call below; the first uses
    # fewer tokens of them.
    q, cache, table, lens, host = on_gpu(rng, torch.bfloat16, 16,
                                         (1000, 999, 1000, 1000))
    first = (300, 64, 1000, 5)
    lens.copy_(torch.tensor(first, dtype=torch.int32))
    host = host[:3] + (np.array(first, np.int32),)
    impl = make_impl(16, policy="fixed4")
    o = torch.empty(4, 16, RANK, dtype=torch.bfloat16, device="cuda")
    lse = torch.empty(4, 16, dtype=torch.float32, device="cuda")
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):  # the current stream by default
        impl.forward_decode(q, cache, table, lens, o=o, lse=lse)
    stream.synchronize()
    ref_o, ref_lse = reference(*host, SCALE, RANK)
    assert max(errors(o.double().cpu().numpy(), lse.double().cpu().numpy(),
                      ref_o, ref_lse)) <= 1e-2

    graph = torch.cuda.CUDAGraph()
    impl.precompile(q, cache, table, lens, o=o, lse=lse)
    with torch.cuda.graph(graph):
        impl.forward_decode(q, cache, table, lens, o=o, lse=lse)
    for new_lens in ((1000, 1, 0, 64), (5, 999, 300, 1000)):
        lens.copy_(torch.tensor(new_lens, dtype=torch.int32))
        o.fill_(float("nan"))
        graph.replay()
        torch.cuda.synchronize()
        ref_o, ref_lse = reference(host[0], host[1], host[2],
                                   np.array(new_lens, np.int32), SCALE, RANK)
        o_err, lse_err = errors(o.double().cpu().numpy(),
                                lse.double().cpu().numpy(), ref_o, ref_lse)
        assert o_err <= 1e-2 and lse_err <= 1e-3, (new_lens, o_err, lse_err)


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int), ("device_id", ctypes.c_int)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice),
                ("ndim", ctypes.c_int), ("dtype", DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


def dl(tensor, keep):
    """A ctypes DLTensor of a CUDA torch tensor (arrays kept in `keep`)."""
    codes = {torch.bfloat16: (4, 16), torch.float16: (2, 16),
             torch.float32: (2, 32), torch.int32: (0, 32)}
    shape = (ctypes.c_int64 * tensor.dim())(*tensor.shape)
    strides = (ctypes.c_int64 * tensor.dim())(*tensor.stride())
    keep += [shape, strides]
    code, bits = codes[tensor.dtype]
    return DLTensor(tensor.data_ptr(), DLDevice(2, tensor.device.index or 0),
                    tensor.dim(), DLDataType(code, bits, 1), shape, strides, 0)


def test_bit_equal_to_the_c_abi():
    """The Python layer hands the C++ API the same call: equal bits."""
    lib = ctypes.CDLL(os.path.join(os.path.dirname(tilemla.__file__),
                                   "libtilemla.so"))
    rng = np.random.default_rng()
    q, cache, table, lens, _ = on_gpu(rng, torch.bfloat16, 128,
                                      (2000, 1, 4096, 30))
    o, lse = make_impl(128).forward_decode(q, cache, table, lens,
                                           max_seq_len=4096)

    class Config(ctypes.Structure):
        _fields_ = [("struct_size", ctypes.c_size_t),
                    ("num_heads", ctypes.c_int64),
                    ("head_size", ctypes.c_int64), ("scale", ctypes.c_double),
                    ("num_kv_heads", ctypes.c_int64),
                    ("kv_cache_dtype", ctypes.c_char_p),
                    ("kv_lora_rank", ctypes.c_int64),
                    ("qk_rope_head_dim", ctypes.c_int64),
                    ("qk_nope_head_dim", ctypes.c_int64),
                    ("v_head_dim", ctypes.c_int64),
                    ("max_batch", ctypes.c_int64),
                    ("max_query_len", ctypes.c_int32),
                    ("split_policy", ctypes.c_int32),
                    ("lse_in_query_dtype", ctypes.c_int32),
                    ("device", ctypes.c_int32),
                    ("check_inputs", ctypes.c_int32),
                    ("device_schedule", ctypes.c_int32)]

    class Metadata(ctypes.Structure):
        _fields_ = [("struct_size", ctypes.c_size_t),
                    ("block_table", ctypes.POINTER(DLTensor)),
                    ("seq_lens", ctypes.POINTER(DLTensor)),
                    ("max_seq_len", ctypes.c_int64),
                    ("has_kv_scale", ctypes.c_int32),
                    ("kv_scale", ctypes.c_float),
                    ("kv_scale_tensor", ctypes.POINTER(DLTensor)),
                    ("schedule", ctypes.c_void_p)]

    config = Config()
    # The sized inits write only the bytes these mirrors of tilemla_c.h have.
    assert lib.tilemla_mla_config_init_sized(
        ctypes.byref(config), ctypes.c_size_t(ctypes.sizeof(config))) == 0
    config.num_heads, config.scale, config.max_batch = 128, SCALE, 64
    config.split_policy = 2  # auto
    impl = ctypes.c_void_p()
    assert lib.tilemla_mla_create(ctypes.byref(config), ctypes.byref(impl)) == 0
    keep = []
    o2, lse2 = torch.empty_like(o), torch.empty_like(lse)
    tensors = [dl(t, keep) for t in (q, cache, table, lens, o2, lse2)]
    md = Metadata()
    assert lib.tilemla_decode_metadata_init_sized(
        ctypes.byref(md), ctypes.c_size_t(ctypes.sizeof(md))) == 0
    md.block_table, md.seq_lens = ctypes.pointer(tensors[2]), \
        ctypes.pointer(tensors[3])
    md.max_seq_len = 4096
    stream = torch.cuda.current_stream().cuda_stream
    status = lib.tilemla_mla_forward_decode(
        impl, ctypes.byref(tensors[0]), None, ctypes.byref(tensors[1]),
        ctypes.byref(md), ctypes.byref(tensors[4]), ctypes.byref(tensors[5]),
        ctypes.c_void_p(stream))
    lib.tilemla_last_error.restype = ctypes.c_char_p
    assert status == 0, lib.tilemla_last_error().decode()
    torch.cuda.synchronize()
    lib.tilemla_mla_destroy(impl)
    assert torch.equal(o.view(torch.int16), o2.view(torch.int16))
    assert torch.equal(lse.view(torch.int32), lse2.view(torch.int32))


def test_kernel_on_torch_tensors():
    """tilemla.Kernel on CUDA tensors, on torch's current (non-default)
    stream."""
    source = """
kernel axpy(x: *f32, y: *f32, out: *f32, n: i32, alpha: f32,
            BLOCK: constexpr) {
    offs = program_id(0) * BLOCK + arange(0, BLOCK);
    a = load(x + offs, mask=offs < n, other=0.0);
    b = load(y + offs, mask=offs < n, other=0.0);
    store(out + offs, alpha * a + b, mask=offs < n);
}
"""
    n = 100_000
    x, y = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
    out = torch.full((n,), float("nan"), device="cuda")
    axpy = tilemla.Kernel(source, {"BLOCK": 1024})
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        axpy[(n + 1023) // 1024](x, y, out, n, 0.5)
    stream.synchronize()
    torch.testing.assert_close(out, 0.5 * x + y, rtol=1e-6, atol=1e-6)
