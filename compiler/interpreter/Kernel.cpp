//===- Kernel.cpp - the interpreter's public API: compile, check, launch --===//
#include "Program.h"

#include "tilemla/Dialect/TileDialect.h"
#include "tilemla/Driver/Pipeline.h"
#include "tilemla/Interpreter/Interpreter.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <fmt/format.h>

using namespace mlir;

namespace tilemla::interp {
Arg Arg::pointer(void *data, size_t bytes) {
  Arg a;
  a.kind = KernelParam::Pointer;
  a.buffer = {data, bytes};
  return a;
}
Arg Arg::i32(int32_t value) {
  Arg a;
  a.kind = KernelParam::Int32;
  a.i = value;
  return a;
}
Arg Arg::i64(int64_t value) {
  Arg a;
  a.kind = KernelParam::Int64;
  a.i = value;
  return a;
}
Arg Arg::f32(float value) {
  Arg a;
  a.kind = KernelParam::Float32;
  a.f = value;
  return a;
}
Arg Arg::f16Bits(uint16_t bits) {
  Arg a;
  a.kind = KernelParam::Float16;
  a.bits = bits;
  return a;
}
Arg Arg::bf16Bits(uint16_t bits) {
  Arg a;
  a.kind = KernelParam::BFloat16;
  a.bits = bits;
  return a;
}
Arg Arg::tensorDesc(void *data, size_t bytes, int64_t rows, int64_t cols,
                    int64_t rowStride) {
  Arg a = pointer(data, bytes);
  a.kind = KernelParam::TensorDesc;
  a.rows = rows;
  a.cols = cols;
  a.rowStride = rowStride;
  return a;
}

Arg Arg::i1(bool value) {
  Arg a;
  a.kind = KernelParam::Bool;
  a.i = value;
  return a;
}

struct Kernel::Impl {
  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  func::FuncOp func;
  std::string name;
  std::vector<KernelParam> params;
  std::vector<std::pair<ElemKind, ElemKind>> kinds; ///< (kind, pointee)

  Impl() : context(MLIRContext::Threading::DISABLED) {
    DialectRegistry registry;
    registerTileDialects(registry);
    context.appendDialectRegistry(registry);
    context.printOpOnDiagnostic(false);
  }
};

Kernel::Kernel(const SourceFile &file, const CompileOptions &options)
    : impl(std::make_unique<Impl>()) {
  std::string errs;
  impl->module = compileToTileIR(file, options, impl->context, errs);
  if (!impl->module)
    throw CompileError(errs.empty() ? "compilation failed" : errs);
  impl->module->walk([&](func::FuncOp func) {
    if (func->hasAttr(tile::TileDialect::KernelAttrHelper::getNameStr()))
      impl->func = func;
  });
  if (!impl->func)
    throw CompileError("no kernel in " + file.getPath().str());
  impl->name = impl->func.getName().str();
  for (Type type : impl->func.getArgumentTypes()) {
    ElemKind kind, pointee = ElemKind::I32;
    // The signature is the compiled kernel's; `kinds` is how this
    // interpreter reads each argument.
    std::optional<KernelParam> param = describeKernelParam(type);
    if (auto desc = dyn_cast<tile::TensorDescType>(type)) {
      ElemKind unused;
      if (param && getElemKind(desc.getElementType(), pointee, unused)) {
        impl->kinds.push_back({ElemKind::Ptr, pointee});
        impl->params.push_back(*param);
        continue;
      }
    }
    if (!param || !getElemKind(type, kind, pointee) ||
        isa<RankedTensorType>(type) || kind == ElemKind::F8E4M3 ||
        kind == ElemKind::F8E5M2) {
      std::string text;
      llvm::raw_string_ostream os(text);
      os << type;
      throw CompileError("kernel '" + impl->name +
                         "': the interpreter cannot pass a parameter of type " +
                         text);
    }
    impl->kinds.push_back({kind, pointee});
    impl->params.push_back(*param);
  }
}

Kernel::~Kernel() = default;
Kernel::Kernel(Kernel &&) noexcept = default;
Kernel &Kernel::operator=(Kernel &&) noexcept = default;

const std::string &Kernel::getName() const { return impl->name; }

const std::vector<KernelParam> &Kernel::getParams() const {
  return impl->params;
}

std::string Kernel::getTileIR() const {
  std::string text;
  llvm::raw_string_ostream os(text);
  impl->module->print(os);
  return text;
}

void Kernel::launch(std::array<unsigned, 3> grid,
                    const std::vector<Arg> &args) const {
  const std::vector<KernelParam> &params = impl->params;
  if (args.size() != params.size())
    throw ArgumentError(fmt::format("kernel '{}' takes {} arguments, got {}",
                                    impl->name, params.size(), args.size()));
  std::vector<Buffer> buffers(args.size());
  std::vector<RtValue> values;
  for (size_t i = 0; i < args.size(); ++i) {
    const Arg &arg = args[i];
    if (arg.kind != params[i].kind) {
      std::string expected = params[i].kind == KernelParam::Pointer
                                 ? std::string("a pointer to ") +
                                       elementTypeName(params[i].elementType)
                                 : toString(params[i]);
      throw ArgumentError(
          fmt::format("kernel '{}': argument {} must be {}, got {}", impl->name,
                      i, expected, tilemla::kindName(arg.kind)));
    }
    auto [kind, pointee] = impl->kinds[i];
    RtValue value = RtValue::zeros(kind, {}, pointee);
    switch (arg.kind) {
    case KernelParam::Pointer:
      buffers[i] = arg.buffer;
      value.ints[0] = Memory::baseAddress(i);
      break;
    case KernelParam::TensorDesc:
      if (arg.rows < 1 || arg.cols < 1 || arg.rowStride < arg.cols)
        throw ArgumentError(fmt::format(
            "kernel '{}': argument {} describes a {} x {} tensor with row "
            "stride {} (need rows, cols >= 1 and stride >= cols)",
            impl->name, i, arg.rows, arg.cols, arg.rowStride));
      buffers[i] = arg.buffer;
      value.ints = {Memory::baseAddress(i), arg.rows, arg.cols, arg.rowStride};
      break;
    case KernelParam::Int32:
    case KernelParam::Int64:
    case KernelParam::Bool:
      value.ints[0] = wrapInt(kind, arg.i);
      break;
    case KernelParam::Float32:
      value.floats[0] = arg.f;
      break;
    case KernelParam::Float16:
      value.floats[0] = f16ToFloat(arg.bits);
      break;
    case KernelParam::BFloat16:
      value.floats[0] = bf16ToFloat(arg.bits);
      break;
    }
    values.push_back(std::move(value));
  }

  LaunchState state{impl->name, grid, Memory(std::move(buffers))};
  for (unsigned z = 0; z < grid[2]; ++z)
    for (unsigned y = 0; y < grid[1]; ++y)
      for (unsigned x = 0; x < grid[0]; ++x)
        ProgramInterpreter(state, {x, y, z}).run(impl->func, values);
}

void launch(const SourceFile &file, const CompileOptions &options,
            std::array<unsigned, 3> grid, const std::vector<Arg> &args) {
  Kernel(file, options).launch(grid, args);
}

bool interpretRequested() {
  const char *value = std::getenv("TILEMLA_INTERPRET");
  return value && *value && std::string(value) != "0";
}
} // namespace tilemla::interp
