//===- main.cpp - a program built against an installed tilemla ------------===//
//
// Built by tests/install/CMakeLists.txt (find_package) and with pkg-config
// by scripts/test-install.sh, against `cmake --install`'s output alone. Needs
// no GPU: kernels run in the CPU interpreter. Exits non-zero on a failure.
//
//===----------------------------------------------------------------------===//
#include "tilemla/Runtime.h"
#include "tilemla/mla/TritonMLA.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

using namespace tilemla;

namespace {
int failures = 0;

void check(bool ok, const std::string &what) {
  std::printf("%s: %s\n", ok ? "ok" : "FAILED", what.c_str());
  if (!ok)
    ++failures;
}

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

/// The message of the tilemla::Error that `f` throws; "" if it throws none.
template <typename F> std::string errorOf(F f) {
  try {
    f();
  } catch (const Error &error) {
    return error.what();
  }
  return "";
}

const char *kAxpySource = R"(
kernel axpy(x: *f32, y: *f32, out: *f32, alpha: f32, n: i32,
            BLOCK: constexpr) {
    offs = program_id(0) * BLOCK + arange(0, BLOCK);
    mask = offs < n;
    a = load(x + offs, mask=mask, other=0.0);
    b = load(y + offs, mask=mask, other=0.0);
    store(out + offs, alpha * a + b, mask=mask);
}
)";

// A kernel written here goes through the whole compiler (parser, MLIR, the
// tile passes) and runs in the interpreter.
void runsAKernelFromSource() {
  const int n = 100, block = 64;
  std::vector<float> x(n), y(n), out(n, -1.0f);
  for (int i = 0; i < n; ++i) {
    x[i] = 0.5f * i;
    y[i] = 1.0f - i;
  }
  const size_t bytes = n * sizeof(float);
  DeviceBuffer dx(bytes), dy(bytes), dout(bytes);
  dx.upload(x.data(), bytes);
  dy.upload(y.data(), bytes);
  Kernel axpy = Kernel::fromSource("axpy.tile", kAxpySource,
                                   {{"BLOCK", std::to_string(block)}});
  axpy.launch({unsigned((n + block - 1) / block), 1, 1},
              {KernelArg::pointer(dx.data()), KernelArg::pointer(dy.data()),
               KernelArg::pointer(dout.data()), KernelArg::f32(3.0f),
               KernelArg::i32(n)});
  synchronize();
  dout.download(out.data(), bytes);
  int wrong = 0;
  for (int i = 0; i < n; ++i)
    wrong += out[i] != 3.0f * x[i] + y[i];
  check(wrong == 0,
        "axpy from source, interpreted: " + std::to_string(n - wrong) + "/" +
            std::to_string(n) + " elements right");

  std::string error = errorOf([&] {
    Kernel::fromSource("broken.tile", "kernel broken(x: *f32) { y = z; }")
        .launch({1, 1, 1}, {KernelArg::pointer(dx.data())});
  });
  check(contains(error, "broken.tile"),
        "a compile error names the source: " + error);
  error = errorOf([&] { axpy.launch({1, 1, 1}, {KernelArg::i32(1)}); });
  check(!error.empty(), "too few arguments throw: " + error);
}

void knowsTheTargets() {
  std::optional<GpuTarget> hopper = GpuTarget::parse("sm_90a");
  check(hopper && hopper->name() == "sm_90a" && hopper->hasWgmma(),
        "GpuTarget::parse(\"sm_90a\")");
  check(!GpuTarget::parse("sm_70"),
        "sm_70 is not a target (known: " + GpuTarget::knownNames() + ")");
}

// Built with options.device = -1, an impl allocates nothing and checks its
// arguments like any other.
void checksMlaArguments() {
  mla::TritonMLAOptions options;
  options.device = -1;
  auto make = [&](const std::string &kvCacheDtype) {
    mla::TritonMLAImpl impl(16, 576, 0.1, 1, std::nullopt, std::nullopt,
                            kvCacheDtype, std::nullopt, "decoder", std::nullopt,
                            mla::MLAArgs{512, 64, 128, 128}, options);
  };
  check(errorOf([&] { make("auto"); }).empty(),
        "TritonMLAImpl with valid arguments");
  std::string error = errorOf([&] { make("int8"); });
  check(contains(error, "kv_cache_dtype"),
        "TritonMLAImpl refuses kv_cache_dtype int8: " + error);
  check(mla::TritonMLABackend::getName() == "TRITON_MLA",
        "TritonMLABackend::getName()");
}
} // namespace

int main() {
  // Before the library's first look at them.
  setenv("TILEMLA_INTERPRET", "1", 1);
  setenv("TILEMLA_CACHE", "off", 1);
  try {
    check(isInterpreterMode(), "interpreter mode");
    runsAKernelFromSource();
    knowsTheTargets();
    checksMlaArguments();
  } catch (const std::exception &error) {
    check(false, std::string("unexpected exception: ") + error.what());
  }
  std::printf("%s\n", failures ? "tilemla consumer: FAILED"
                               : "tilemla consumer: all passed");
  return failures ? 1 : 0;
}
