//===- DriverTest.cpp - the compile pipeline, stage dumps, argument facts -===//
#include "tilemla/Driver/Compiler.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

using namespace tilemla;
namespace fs = std::filesystem;

namespace {
const char *kVectorAdd = R"(
kernel vector_add(x: *f32, y: *f32, out: *f32, n: i32, stride: i32,
                  BLOCK: constexpr = 256) {
    offs = program_id(0) * BLOCK + arange(0, BLOCK);
    mask = offs < n;
    a = load(x + offs * stride, mask=mask, other=0.0);
    b = load(y + offs, mask=mask, other=0.0);
    store(out + offs, a + b, mask=mask);
}
)";

std::string readFile(const fs::path &path) {
  std::ifstream stream(path, std::ios::binary);
  std::ostringstream text;
  text << stream.rdbuf();
  return text.str();
}

std::string emit(const CompileOptions &options, EmitStage stage) {
  std::string out, errs;
  EXPECT_TRUE(
      emitStage(SourceFile("v.tile", kVectorAdd), options, stage, out, errs))
      << errs;
  return out;
}
} // namespace

TEST(Driver, DumpsEveryStageFromOneRun) {
  fs::path folder = fs::temp_directory_path() /
                    ("tilemla-driver-dump-" + std::to_string(::getpid()));
  fs::remove_all(folder);
  CompileOptions options;
  options.dumpDirectory = folder.string();
  std::string errs;
  std::optional<CompiledKernel> kernel =
      compileKernel(SourceFile("v.tile", kVectorAdd), options, errs);
  ASSERT_TRUE(kernel) << errs;
  EXPECT_EQ(kernel->name, "vector_add");
  EXPECT_EQ(kernel->target, GpuTarget());
  ASSERT_EQ(kernel->params.size(), 5u); // BLOCK is gone

  // Each MLIR stage's file holds exactly what --emit prints for it.
  options.dumpDirectory.clear();
  const std::pair<const char *, EmitStage> stages[] = {
      {"0-ast.txt", EmitStage::AST},
      {"1-tile.mlir", EmitStage::Tile},
      {"2-tile-gpu.mlir", EmitStage::TileGPU},
      {"3-llvm.mlir", EmitStage::LLVMMLIR},
      {"4-llvm.ll", EmitStage::LLVMIR}};
  for (const auto &[name, stage] : stages) {
    std::string dumped = readFile(folder / name);
    EXPECT_NE(dumped.find(emit(options, stage)), std::string::npos) << name;
  }
  EXPECT_NE(readFile(folder / "2-tile-gpu.mlir").find("#tile.blocked"),
            std::string::npos);
  EXPECT_EQ(readFile(folder / "5-kernel.ptx"), kernel->ptx);
  fs::remove_all(folder);
}

TEST(Driver, ArgumentFactsSpecializeTheTileIR) {
  CompileOptions options;
  std::string plain = emit(options, EmitStage::Tile);
  EXPECT_EQ(plain.find("tile.divisibility"), std::string::npos);

  // x, y, out aligned to 16 bytes, n divisible by 16, stride equal to 1.
  options.argFacts = {
      {16, false}, {16, false}, {16, false}, {16, false}, {0, true}};
  std::string specialized = emit(options, EmitStage::Tile);
  EXPECT_NE(specialized.find("%arg3: i32 {tile.divisibility = 16 : i64}"),
            std::string::npos)
      << specialized;
  // The unit stride folds away: pid * BLOCK stays, offs * stride goes.
  auto multiplies = [](const std::string &ir) {
    size_t count = 0;
    for (size_t at = ir.find("arith.muli"); at != std::string::npos;
         at = ir.find("arith.muli", at + 1))
      ++count;
    return count;
  };
  EXPECT_EQ(multiplies(emit(CompileOptions(), EmitStage::TileGPU)), 2u);
  EXPECT_EQ(multiplies(emit(options, EmitStage::TileGPU)), 1u);
  // ... and the wider accesses reach the PTX.
  EXPECT_NE(emit(options, EmitStage::PTX),
            emit(CompileOptions(), EmitStage::PTX));
}

TEST(Driver, TargetChoosesTheDotInstructions) {
  const char *matmul = R"(
kernel mm(a: *bf16, b: *bf16, c: *f32) {
    r = arange(0, 64);
    x = load(a + r[:, None] * 64 + r[None, :]);
    y = load(b + r[:, None] * 64 + r[None, :]);
    store(c + r[:, None] * 64 + r[None, :], dot(x, y));
}
)";
  auto ptxFor = [&](const char *arch) {
    CompileOptions options;
    options.target = *GpuTarget::parse(arch);
    std::string out, errs;
    EXPECT_TRUE(emitStage(SourceFile("mm.tile", matmul), options,
                          EmitStage::PTX, out, errs))
        << errs;
    return out;
  };
  std::string hopper = ptxFor("sm_90a"), ampere = ptxFor("sm_80");
  EXPECT_NE(hopper.find(".target sm_90a"), std::string::npos);
  EXPECT_NE(hopper.find("wgmma.mma_async"), std::string::npos);
  EXPECT_NE(ampere.find(".target sm_80"), std::string::npos);
  EXPECT_EQ(ampere.find("wgmma"), std::string::npos);
  EXPECT_NE(ampere.find("mma.sync"), std::string::npos);
}
