//===- PtxToCubin.cpp - assemble PTX with nvJitLink -----------------------===//
#include "PtxToCubin.h"

#include "tilemla/Runtime.h"

#include <cstdlib>
#include <dlfcn.h>
#include <fmt/format.h>

namespace tilemla::cuda {
namespace {
using Handle = struct nvJitLink *;
constexpr int kInputPTX = 2; // NVJITLINK_INPUT_PTX

struct JitLinkApi {
  int (*create)(Handle *, unsigned, const char **);
  int (*destroy)(Handle *);
  int (*addData)(Handle, int, const void *, size_t, const char *);
  int (*complete)(Handle);
  int (*cubinSize)(Handle, size_t *);
  int (*cubin)(Handle, void *);
  int (*errorLogSize)(Handle, size_t *);
  int (*errorLog)(Handle, char *);
  int (*infoLogSize)(Handle, size_t *);
  int (*infoLog)(Handle, char *);
  bool loaded = false;
};

JitLinkApi loadJitLink() {
  JitLinkApi api;
  void *library = nullptr;
  if (const char *path = std::getenv("TILEMLA_NVJITLINK"))
    library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  for (const char *name :
       {"libnvJitLink.so.13", "libnvJitLink.so.12",
        "/usr/local/cuda/lib64/libnvJitLink.so.13", "libnvJitLink.so"})
    if (!library)
      library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (!library)
    return api;
  auto bind = [&](const char *name, auto &slot) {
    slot = reinterpret_cast<std::remove_reference_t<decltype(slot)>>(
        dlsym(library, name));
    return slot != nullptr;
  };
  api.loaded = bind("nvJitLinkCreate", api.create) &&
               bind("nvJitLinkDestroy", api.destroy) &&
               bind("nvJitLinkAddData", api.addData) &&
               bind("nvJitLinkComplete", api.complete) &&
               bind("nvJitLinkGetLinkedCubinSize", api.cubinSize) &&
               bind("nvJitLinkGetLinkedCubin", api.cubin) &&
               bind("nvJitLinkGetErrorLogSize", api.errorLogSize) &&
               bind("nvJitLinkGetErrorLog", api.errorLog) &&
               bind("nvJitLinkGetInfoLogSize", api.infoLogSize) &&
               bind("nvJitLinkGetInfoLog", api.infoLog);
  return api;
}

const JitLinkApi &jitLink() {
  static const JitLinkApi api = loadJitLink();
  return api;
}
} // namespace

std::optional<AssembledCubin> assembleCubin(const std::string &ptx,
                                            const std::string &arch,
                                            const std::string &kernelName) {
  const JitLinkApi &api = jitLink();
  if (!api.loaded)
    return std::nullopt;
  std::string archOption = "-arch=" + arch;
  const char *options[] = {archOption.c_str(), "-O3"};
  Handle handle = nullptr;
  if (api.create(&handle, 2, options) != 0)
    throw Error(fmt::format("nvJitLinkCreate failed for {} ({})", kernelName,
                            archOption));
  auto readLog = [&](auto sizeOf, auto read) {
    size_t size = 0;
    sizeOf(handle, &size);
    std::string text(size, '\0');
    if (size)
      read(handle, text.data());
    while (!text.empty() && (text.back() == '\0' || text.back() == '\n'))
      text.pop_back();
    return text;
  };
  auto log = [&] { return readLog(api.errorLogSize, api.errorLog); };
  int status = api.addData(handle, kInputPTX, ptx.data(), ptx.size(),
                           kernelName.c_str());
  if (status == 0)
    status = api.complete(handle);
  if (status != 0) {
    std::string message =
        fmt::format("nvJitLink rejected the PTX of {} for {} (status {}): {}",
                    kernelName, arch, status, log());
    api.destroy(&handle);
    throw Error(message);
  }
  AssembledCubin result;
  size_t size = 0;
  api.cubinSize(handle, &size);
  result.cubin.resize(size);
  api.cubin(handle, result.cubin.data());
  result.log = readLog(api.infoLogSize, api.infoLog);
  api.destroy(&handle);
  return result;
}
} // namespace tilemla::cuda
