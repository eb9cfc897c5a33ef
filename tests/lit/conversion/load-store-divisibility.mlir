// Divisibility hints on kernel arguments (tile.divisibility, set by the driver
// from CompileOptions::argDivisibility) drive the access widths.
//
// Regression: tile.divisibility argument attributes must reach the
// access-width analysis before the lowering drops them: a pointer known to be
// only 4-byte aligned gets no 16-byte vector accesses, and a bound known to
// be a multiple of 16 allows vectorized masked accesses.
// RUN: tile-opt %s -convert-tile-to-llvm | FileCheck %s

#b = #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4]>

// CHECK-LABEL: llvm.func @masked_divisible(
// CHECK: llvm.intr.masked.load {{.*}} {alignment = 8 : i32} : (!llvm.ptr<1>, vector<4xi1>, vector<4xf16>) -> vector<4xf16>
// CHECK: llvm.intr.masked.store {{.*}} {alignment = 8 : i32} : vector<4xf16>, vector<4xi1> into !llvm.ptr<1>

// A byte offset known to be a multiple of 16, halved into an f16 index,
// still starts 16-byte runs; shifted by 5 it is known to be nothing.
// CHECK-LABEL: llvm.func @halved_offset(
// CHECK: llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr<1> -> vector<4xf16>
// CHECK: llvm.load %{{.*}} {alignment = 2 : i64} : !llvm.ptr<1> -> vector<1xf16>

// CHECK-LABEL: llvm.func @misaligned_base(
// CHECK-NOT: vector<4xf32>
// CHECK: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> vector<1xf32>
// CHECK-NOT: vector<4xf32>
// CHECK: llvm.return
module attributes {tile.num_warps = 4 : i32} {
  func.func @masked_divisible(%x: !tile.ptr<f16>, %n: i32 {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
    %r = tile.make_range 0, 512 : tensor<512xi32, #b>
    %ns = tile.splat %n : tensor<512xi32, #b>
    %m = arith.cmpi slt, %r, %ns : tensor<512xi32, #b>
    %xs = tile.splat %x : tensor<512x!tile.ptr<f16>, #b>
    %xp = tile.addptr %xs, %r : tensor<512x!tile.ptr<f16>, #b>, tensor<512xi32, #b>
    %v = tile.load %xp, %m : (tensor<512x!tile.ptr<f16>, #b>, tensor<512xi1, #b>) -> tensor<512xf16, #b>
    tile.store %xp, %v, %m : tensor<512x!tile.ptr<f16>, #b>, tensor<512xf16, #b>, tensor<512xi1, #b>
    return
  }
  func.func @halved_offset(%x: !tile.ptr<f16>, %bytes: i32 {tile.divisibility = 16 : i32}) attributes {tile.kernel} {
    %c2 = arith.constant 2 : i32
    %c5 = arith.constant 5 : i32
    %half = arith.divsi %bytes, %c2 : i32
    %r = tile.make_range 0, 512 : tensor<512xi32, #b>
    %hs = tile.splat %half : tensor<512xi32, #b>
    %o = arith.addi %hs, %r : tensor<512xi32, #b>
    %xs = tile.splat %x : tensor<512x!tile.ptr<f16>, #b>
    %xp = tile.addptr %xs, %o : tensor<512x!tile.ptr<f16>, #b>, tensor<512xi32, #b>
    %v = tile.load %xp : (tensor<512x!tile.ptr<f16>, #b>) -> tensor<512xf16, #b>
    %shifted = arith.shrsi %bytes, %c5 : i32
    %ss = tile.splat %shifted : tensor<512xi32, #b>
    %o2 = arith.addi %ss, %r : tensor<512xi32, #b>
    %xp2 = tile.addptr %xs, %o2 : tensor<512x!tile.ptr<f16>, #b>, tensor<512xi32, #b>
    %w = tile.load %xp2 : (tensor<512x!tile.ptr<f16>, #b>) -> tensor<512xf16, #b>
    %sum = arith.addf %v, %w : tensor<512xf16, #b>
    tile.store %xp, %sum : tensor<512x!tile.ptr<f16>, #b>, tensor<512xf16, #b>
    return
  }
  func.func @misaligned_base(%x: !tile.ptr<f32> {tile.divisibility = 4 : i32}) attributes {tile.kernel} {
    %r = tile.make_range 0, 512 : tensor<512xi32, #b>
    %xs = tile.splat %x : tensor<512x!tile.ptr<f32>, #b>
    %xp = tile.addptr %xs, %r : tensor<512x!tile.ptr<f32>, #b>, tensor<512xi32, #b>
    %v = tile.load %xp : (tensor<512x!tile.ptr<f32>, #b>) -> tensor<512xf32, #b>
    tile.store %xp, %v : tensor<512x!tile.ptr<f32>, #b>, tensor<512xf32, #b>
    return
  }
}
