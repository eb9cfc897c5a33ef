//===- NvrtcMlaReference.h - an fp32 MLA reference kernel via nvrtc -------===//
//
// For long sequences the fp64 CPU reference is slow, so the GPU tests check
// them against a plain fp32 CUDA kernel compiled at run time with nvrtc (test
// code only: tilemla's own kernels never go through nvrtc). One block per
// (request, head): scores, max, sum, then o, each a simple loop; the page
// lookup is done independently of the kernels under test.
//
//===----------------------------------------------------------------------===//
#ifndef TILEMLA_TESTS_NVRTCMLAREFERENCE_H
#define TILEMLA_TESTS_NVRTCMLAREFERENCE_H

#include "../common/DynamicLibrary.h"
#include "../common/MlaReference.h"
#include "tilemla/Runtime.h"

#include <dlfcn.h>
#include <stdexcept>

namespace tilemla::test {
namespace detail {
inline const char *kReferenceSource = R"cuda(
extern "C" __global__ void mla_reference(
    const float *q, const float *kv, const int *blockTable, const int *lens,
    float *scores, float *o, float *lse, int H, int R, int P, int page,
    int btStride, long long maxLen, float scale) {
  __shared__ float partial[256];
  const int bh = blockIdx.x, b = bh / H, L = lens[b], D = R + P;
  const float *qv = q + (long long)bh * D;
  float *s = scores + (long long)bh * maxLen;
  auto row = [&](int t) {
    long long pg = blockTable[(long long)b * btStride + t / page];
    return kv + (pg * page + t % page) * D;
  };
  for (int t = threadIdx.x; t < L; t += blockDim.x) {
    const float *r = row(t);
    float acc = 0.f;
    for (int d = 0; d < D; ++d)
      acc += qv[d] * r[d];
    s[t] = acc * scale;
  }
  __syncthreads();
  float m = -__int_as_float(0x7f800000);
  for (int t = threadIdx.x; t < L; t += blockDim.x)
    m = fmaxf(m, s[t]);
  partial[threadIdx.x] = m;
  __syncthreads();
  for (int w = blockDim.x / 2; w > 0; w /= 2) {
    if (threadIdx.x < w)
      partial[threadIdx.x] = fmaxf(partial[threadIdx.x], partial[threadIdx.x + w]);
    __syncthreads();
  }
  const float peak = partial[0];
  __syncthreads();
  float sum = 0.f;
  for (int t = threadIdx.x; t < L; t += blockDim.x) {
    s[t] = expf(s[t] - peak);
    sum += s[t];
  }
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int w = blockDim.x / 2; w > 0; w /= 2) {
    if (threadIdx.x < w)
      partial[threadIdx.x] += partial[threadIdx.x + w];
    __syncthreads();
  }
  const float total = partial[0];
  for (int d = threadIdx.x; d < R; d += blockDim.x) {
    float acc = 0.f;
    for (int t = 0; t < L; ++t)
      acc += s[t] * row(t)[d];
    o[(long long)bh * R + d] = L ? acc / total : 0.f;
  }
  if (threadIdx.x == 0)
    lse[bh] = L ? peak + logf(total) : -__int_as_float(0x7f800000);
}
)cuda";

struct ReferenceApi {
  // nvrtc
  int (*createProgram)(void **, const char *, const char *, int,
                       const char *const *, const char *const *);
  int (*compileProgram)(void *, int, const char *const *);
  int (*getPTXSize)(void *, size_t *);
  int (*getPTX)(void *, char *);
  int (*destroyProgram)(void **);
  // driver
  int (*moduleLoadData)(void **, const void *);
  int (*moduleGetFunction)(void **, void *, const char *);
  int (*launchKernel)(void *, unsigned, unsigned, unsigned, unsigned, unsigned,
                      unsigned, unsigned, void *, void **, void **);
  void *function = nullptr;
};

/// Why the reference is unavailable (empty when it is available).
inline std::string &referenceProblem() {
  static std::string problem;
  return problem;
}

inline const ReferenceApi *referenceApi() {
  static ReferenceApi api;
  static bool ready = [] {
    std::string &problem = referenceProblem();
    DeviceBuffer makeContextCurrent(4); // module loads need a context
    void *nvrtc = dlopen("libnvrtc.so.13", RTLD_NOW | RTLD_LOCAL);
    if (!nvrtc)
      nvrtc = dlopen("/usr/local/cuda/lib64/libnvrtc.so.13", RTLD_NOW);
    void *cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!nvrtc || !cuda) {
      problem = std::string("dlopen: ") + dlerror();
      return false;
    }
    auto bind = [](void *lib, const char *name, auto &slot) {
      return bindSymbol(lib, name, slot);
    };
    if (!bind(nvrtc, "nvrtcCreateProgram", api.createProgram) ||
        !bind(nvrtc, "nvrtcCompileProgram", api.compileProgram) ||
        !bind(nvrtc, "nvrtcGetPTXSize", api.getPTXSize) ||
        !bind(nvrtc, "nvrtcGetPTX", api.getPTX) ||
        !bind(nvrtc, "nvrtcDestroyProgram", api.destroyProgram) ||
        !bind(cuda, "cuModuleLoadData", api.moduleLoadData) ||
        !bind(cuda, "cuModuleGetFunction", api.moduleGetFunction) ||
        !bind(cuda, "cuLaunchKernel", api.launchKernel)) {
      problem = "missing nvrtc or driver symbols";
      return false;
    }
    void *program = nullptr;
    const char *options[] = {"--gpu-architecture=compute_80"};
    int status = api.createProgram(&program, kReferenceSource,
                                   "mla_reference.cu", 0, nullptr, nullptr);
    if (!status)
      status = api.compileProgram(program, 1, options);
    if (status) {
      problem = "nvrtc failed with status " + std::to_string(status);
      return false;
    }
    size_t size = 0;
    api.getPTXSize(program, &size);
    std::string ptx(size, '\0');
    api.getPTX(program, ptx.data());
    api.destroyProgram(&program);
    void *module = nullptr;
    int loaded = api.moduleLoadData(&module, ptx.c_str());
    if (!loaded)
      loaded = api.moduleGetFunction(&api.function, module, "mla_reference");
    if (loaded)
      problem =
          "loading the reference failed: CUresult " + std::to_string(loaded);
    return loaded == 0;
  }();
  return ready ? &api : nullptr;
}
} // namespace detail

/// True when nvrtc and a GPU are there to run the fp32 reference.
inline bool nvrtcReferenceAvailable() {
  return isGpuAvailable() && !isInterpreterMode() && detail::referenceApi();
}

/// The fp32 GPU reference of `p` (same inputs, rounded as the kernels see
/// them), as doubles.
inline MlaReference nvrtcMlaReference(const MlaProblem &p) {
  const detail::ReferenceApi *api = detail::referenceApi();
  if (!api)
    throw std::runtime_error("nvrtc reference unavailable");
  const MlaCase &c = p.c;
  const int B = c.B(), H = c.H, R = c.R, P = c.P, D = R + P;
  std::vector<float> q(size_t(std::max(1, B)) * H * D),
      kv(size_t(p.numPages) * c.page * D);
  for (int b = 0; b < B; ++b)
    for (int h = 0; h < H; ++h) {
      for (int d = 0; d < R; ++d)
        q[(size_t(b) * H + h) * D + d] = float(p.qNope(b, h, d));
      for (int d = 0; d < P; ++d)
        q[(size_t(b) * H + h) * D + R + d] = float(p.qPe(b, h, d));
    }
  for (int pg = 0; pg < p.numPages; ++pg)
    for (int t = 0; t < c.page; ++t)
      for (int d = 0; d < D; ++d)
        kv[(size_t(pg) * c.page + t) * D + d] = float(
            p.kv.values[size_t(pg * p.kvPageStride + t * p.kvTokStride + d)]);
  long long maxLen = 1;
  for (int L : c.lens)
    maxLen = std::max<long long>(maxLen, L);
  auto upload = [](const void *data, size_t bytes) {
    DeviceBuffer buffer(std::max<size_t>(bytes, 4));
    buffer.upload(data, bytes);
    return buffer;
  };
  DeviceBuffer dq = upload(q.data(), q.size() * 4),
               dkv = upload(kv.data(), kv.size() * 4),
               dbt = upload(p.blockTable.data(), p.blockTable.size() * 4),
               dlens = upload(p.seqLens.data(), p.seqLens.size() * 4),
               scores(size_t(std::max(1, B * H)) * maxLen * 4),
               o(size_t(std::max(1, B * H)) * R * 4),
               lse(size_t(std::max(1, B * H)) * 4);
  void *pq = dq.data(), *pkv = dkv.data(), *pbt = dbt.data(),
       *plens = dlens.data(), *pscores = scores.data(), *po = o.data(),
       *plse = lse.data();
  int h = H, r = R, pp = P, page = c.page, btStride = p.btStride;
  float scale = float(c.scale);
  void *args[] = {&pq, &pkv, &pbt, &plens, &pscores,  &po,     &plse,
                  &h,  &r,   &pp,  &page,  &btStride, &maxLen, &scale};
  MlaReference ref;
  ref.o.assign(size_t(B) * H * R, 0.0);
  ref.lse.assign(size_t(B) * H, -INFINITY);
  if (B == 0)
    return ref;
  if (api->launchKernel(api->function, B * H, 1, 1, 256, 1, 1, 0, nullptr, args,
                        nullptr))
    throw std::runtime_error("mla_reference launch failed");
  synchronize();
  std::vector<float> oHost(ref.o.size()), lseHost(ref.lse.size());
  o.download(oHost.data(), oHost.size() * 4);
  lse.download(lseHost.data(), lseHost.size() * 4);
  ref.o.assign(oHost.begin(), oHost.end());
  ref.lse.assign(lseHost.begin(), lseHost.end());
  return ref;
}
} // namespace tilemla::test

#endif
