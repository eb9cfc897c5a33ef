"""How arrays reach the C ABI. torch tensors are read through their own
attributes rather than torch's __dlpack__ (slower, and for CUDA tensors it
makes the legacy default stream wait on the current one): the DLTensor must
be the one DLPack gives, for every dtype and view. Runs on CPU tensors
(skipped without torch); the decode and kernel tests run interpreted."""

import numpy as np
import pytest

import tilemla
from tilemla import _tilemla
from tilemla.mla import Options, TritonMLAImpl

from mla_reference import errors, make_problem, reference

torch = pytest.importorskip("torch")

SCALE = 0.0721687836
RANK, ROPE = 512, 64

DTYPES = [torch.float16, torch.bfloat16, torch.float32, torch.float64,
          torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8,
          torch.bool, torch.float8_e4m3fn, torch.float8_e5m2]


def views(dtype, device="cpu"):
    base = torch.arange(4 * 6 * 8, dtype=torch.float32,
                        device=device).view(4, 6, 8).to(dtype)
    return {
        "contiguous": base,
        "offset slice": base[1:, 2:, 3:],
        "transposed": base.transpose(0, 2),
        "stepped": base[:, ::3],
        "broadcast (stride 0)": base[0, :1].expand(5, 8),
        "size-1 dimension": base[:, 1:2, :],
        "contiguous, size-1 dimension of any stride":
            base[1:2].as_strided((6, 1, 8), (8, 5, 1)),
        "0-d": base[1, 2, 3],
        "empty": base[2:2],
    }


DEVICES = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_torch_tensors_read_directly_as_dlpack_gives_them(dtype, device):
    for name, view in views(dtype, device).items():
        for writable in (False, True):
            direct = _tilemla._describe_array(view, writable)
            through_dlpack = _tilemla._describe_array(view, writable, False)
            assert direct[0] and not through_dlpack[0], name
            # A size-1 dimension's stride is never stepped: the direct path
            # gives a contiguous tensor row-major strides, whatever torch
            # keeps there. Every other field is DLPack's.
            shape, strides = direct[7], direct[8]
            assert len(strides) == len(through_dlpack[8]), name
            stepped = [i for i, n in enumerate(shape) if n > 1]
            assert ([strides[i] for i in stepped] ==
                    [through_dlpack[8][i] for i in stepped]), (
                name, direct, through_dlpack)
            assert (direct[1:8] + direct[9:] ==
                    through_dlpack[1:8] + through_dlpack[9:]), (
                name, direct, through_dlpack)
            assert direct[1] == view.data_ptr(), name


def test_subclasses_and_other_layouts_go_through_dlpack():
    parameter = torch.nn.Parameter(torch.ones(3, 4), requires_grad=False)
    described = _tilemla._describe_array(parameter)
    assert not described[0] and described[1] == parameter.data_ptr()
    sparse = torch.eye(3).to_sparse()
    with pytest.raises(tilemla.Error, match="array: expected an array"):
        _tilemla._describe_array(sparse)


def make_impl(heads=16):
    return TritonMLAImpl(heads, RANK + ROPE, SCALE, 1, None, None, "auto",
                         None, "decoder", None,
                         options=Options(max_batch=8, split_policy="auto"))


@pytest.mark.skipif(not tilemla.interpreter_mode(),
                    reason="CPU tensors need the interpreter")
def test_decode_on_torch_cpu_tensors_equals_numpy():
    rng = np.random.default_rng()
    q, cache, table, lens = make_problem(rng, lens=(300, 1, 77))
    impl = make_impl()
    o_np, lse_np = impl.forward_decode(q, cache, table, lens, max_seq_len=300)
    tq, tcache = torch.from_numpy(q), torch.from_numpy(cache)
    ttable, tlens = torch.from_numpy(table), torch.from_numpy(lens)
    o, lse = impl.forward_decode(tq, tcache, ttable, tlens, max_seq_len=300)
    assert isinstance(o, torch.Tensor) and o.dtype == torch.float16
    assert lse.dtype == torch.float32
    # The same kernels on the same bytes: the same bits.
    np.testing.assert_array_equal(o.numpy(), o_np)
    np.testing.assert_array_equal(lse.numpy(), lse_np)
    o_err, lse_err = errors(o.numpy(), lse.numpy(),
                            *reference(q, cache, table, lens, SCALE, RANK))
    assert o_err <= 2e-3 and lse_err <= 1e-3, (o_err, lse_err)
    # The pair, as views of one tensor, into given (poisoned) outputs.
    o_given = torch.full((3, 16, RANK), float("nan"), dtype=torch.float16)
    lse_given = torch.full((3, 16), float("nan"))
    impl.forward_decode((tq[..., :RANK], tq[..., RANK:]), tcache, ttable,
                        tlens, 300, o_given, lse_given)
    np.testing.assert_array_equal(o_given.numpy(), o_np)
    np.testing.assert_array_equal(lse_given.numpy(), lse_np)


@pytest.mark.skipif(not tilemla.interpreter_mode(),
                    reason="CPU tensors need the interpreter")
def test_decode_errors_name_the_torch_argument():
    rng = np.random.default_rng()
    q, cache, table, lens = (torch.from_numpy(a)
                             for a in make_problem(rng, lens=(5, 6, 7)))
    impl = make_impl()
    with pytest.raises(tilemla.Error, match="^q: the tensor requires grad"):
        impl.forward_decode(q.float().requires_grad_(), cache, table, lens, 7)
    with pytest.raises(tilemla.Error, match="^block_table: expected an "
                       "array .* got list"):
        impl.forward_decode(q, cache, table.tolist(), lens, 7)
    with pytest.raises(tilemla.Error, match=r"^kv_cache: expected dtype f16, "
                       "got bf16"):
        impl.forward_decode(q, cache.bfloat16(), table, lens, 7)


@pytest.mark.skipif(not tilemla.interpreter_mode(),
                    reason="CPU tensors need the interpreter")
def test_kernel_on_torch_cpu_tensors():
    x = torch.arange(64, dtype=torch.float32)
    out = torch.zeros(32)
    vector_add = tilemla.Kernel("embedded:examples/vector_add",
                                {"BLOCK": 32, "T": "f32"})
    vector_add[1](x[:32], x[32:], out, 32)
    torch.testing.assert_close(out, x[:32] + x[32:], rtol=0, atol=0)
