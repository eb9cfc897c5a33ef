"""A kernel of the tile language launched from Python: a row softmax.
On a GPU with torch tensors; without one, with TILEMLA_INTERPRET=1 and
NumPy arrays: python python/examples/custom_kernel.py"""

import numpy as np

import tilemla

SOFTMAX = """
kernel softmax(x: *f32, out: *f32, cols: i32, BLOCK: constexpr) {
    row = program_id(0);
    offs = arange(0, BLOCK);
    v = load(x + row * cols + offs, mask=offs < cols, other=-inf);
    e = exp(v - max(v, 0));
    store(out + row * cols + offs, e / sum(e, 0), mask=offs < cols);
}
"""

rows, cols = 64, 100
kernel = tilemla.Kernel(SOFTMAX, {"BLOCK": 128})
if tilemla.interpreter_mode():
    x = np.random.default_rng().standard_normal((rows, cols), np.float32)
    out = np.empty_like(x)
else:
    import torch

    x = torch.randn(rows, cols, device="cuda")
    out = torch.empty_like(x)
kernel[rows](x, out, cols)
print("rows sum to", float(out.sum()) / rows)
print(tilemla.compile(SOFTMAX, {"BLOCK": 128}, emit="ptx", arch="sm_90a")
      .splitlines()[0:3])
