"""tilemla.Kernel from Python in the interpreter: kernel[grid](*args) on
NumPy arrays, the parameter types, tilemla.compile at each stage, and the
errors (a compile error located in the source, a wrong argument count)."""

import numpy as np
import pytest

import tilemla

pytestmark = pytest.mark.skipif(not tilemla.interpreter_mode(),
                                reason="NumPy arrays need the interpreter")

ADD = """
kernel add(x: *f32, y: *f32, out: *f32, n: i32, alpha: f32, BLOCK: constexpr) {
    offs = program_id(0) * BLOCK + arange(0, BLOCK);
    a = load(x + offs, mask=offs < n, other=0.0);
    b = load(y + offs, mask=offs < n, other=0.0);
    store(out + offs, a + alpha * b, mask=offs < n);
}
"""


def test_launch_on_numpy_arrays():
    rng = np.random.default_rng()
    n = 1000
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    out = np.full(n, np.nan, np.float32)
    add = tilemla.Kernel(ADD, {"BLOCK": 256})
    assert add.parameter_types == ["*f32", "*f32", "*f32", "i32", "f32"]
    add[(n + 255) // 256](x, y, out, n, 0.5)
    np.testing.assert_array_equal(out, x + np.float32(0.5) * y)


def test_embedded_kernel_and_strided_views():
    x = np.arange(64, dtype=np.float32)
    out = np.zeros(32, np.float32)
    vector_add = tilemla.Kernel("embedded:examples/vector_add",
                                {"BLOCK": 32, "T": "f32"})
    vector_add[1](x[:32], x[32:], out, 32)
    np.testing.assert_array_equal(out, x[:32] + x[32:])


def test_compile_at_each_stage():
    ptx = tilemla.compile(ADD, {"BLOCK": 128}, emit="ptx", arch="sm_80")
    assert ".entry add" in ptx and ".target sm_80" in ptx
    assert "tile.load" in tilemla.compile(ADD, {"BLOCK": 128}, emit="tile")
    with pytest.raises(tilemla.Error, match="stage: expected ast"):
        tilemla.compile(ADD, {"BLOCK": 128}, emit="sass")


def test_errors():
    with pytest.raises(tilemla.Error, match=r"<source>:1:\d+: error"):
        tilemla.Kernel("kernel broken(x: *f32) { y = ; }").parameter_types
    add = tilemla.Kernel(ADD, {"BLOCK": 128})
    x = np.zeros(4, np.float32)
    with pytest.raises(tilemla.Error, match="takes 5 arguments"):
        add[1](x, x, x, 4)
    out = np.zeros(4, np.float32)
    with pytest.raises(tilemla.Error, match="argument 2 does not point into "
                                            "a DeviceBuffer"):
        add[1](x, x, out.ctypes.data, 4, 1.0)  # a bare address: no extent


BOXES = """
kernel boxes(d: desc<f32>, out: *f32) {
    rows = program_id(0) * 4 + arange(0, 4);
    cols = arange(0, 16);
    box = desc_load(d, (program_id(0) * 4, 0), (4, 16));
    store(out + rows[:, None] * 16 + cols[None, :], box);
}
"""


def test_tensor_descriptor_argument():
    """A desc<f32> parameter takes a 2-D array (or tilemla.desc(array));
    rows past the tensor read as zero."""
    table = np.arange(6 * 16, dtype=np.float32).reshape(6, 16)
    out = np.full((8, 16), np.nan, np.float32)
    boxes = tilemla.Kernel(BOXES)
    assert boxes.parameter_types == ["desc<f32>", "*f32"]
    boxes[2](tilemla.desc(table), out)
    np.testing.assert_array_equal(out[:6], table)
    np.testing.assert_array_equal(out[6:], 0)
    with pytest.raises(tilemla.Error, match=r"args\[0\]: a tensor of f16 "
                                            r"for a desc<f32> parameter"):
        boxes[2](table.astype(np.float16), out)
    # One column: its stride is any (here 7 elements).
    column = np.lib.stride_tricks.as_strided(table[:, 4:], shape=(6, 1),
                                             strides=(64, 28))
    out[:] = np.nan
    boxes[2](tilemla.desc(column), out)
    np.testing.assert_array_equal(out[:6, 0], table[:, 4])
    np.testing.assert_array_equal(out[6:, 0], 0)
    np.testing.assert_array_equal(out[:, 1:], 0)
    with pytest.raises(tilemla.Error, match=r"args\[0\]: a tensor "
                                            r"descriptor is 2-D with a unit "
                                            r"last stride"):
        boxes[2](table[:, ::2], out)
