// addptr -> one getelementptr per register; load/store -> vector accesses as
// wide as the access-width analysis allows (tile.access_width), masked ones
// through llvm.intr.masked.load/store.
// RUN: tile-opt %s -convert-tile-to-llvm | FileCheck %s
// RUN: tile-opt %s -convert-tile-to-llvm -canonicalize | FileCheck %s --check-prefix=MASK

// 4 contiguous f32 per thread from a 16-byte aligned base: one 16-byte access
// for the 4 registers.
// CHECK-LABEL: llvm.func @unmasked(
// CHECK-COUNT-4: llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
// CHECK: %[[V:.*]] = llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK-COUNT-4: llvm.extractelement %[[V]][%{{.*}} : i32] : vector<4xf32>
// CHECK-NOT: llvm.load
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK-NOT: llvm.store
// CHECK: llvm.return

// A mask against a runtime bound may flip anywhere: one masked access per
// register, `other` as the pass-through. (Canonicalized to see through the
// register structs.)
// MASK-LABEL: llvm.func @masked(
// MASK-SAME: %[[X:.*]]: !llvm.ptr<1>, %[[N:.*]]: i32)
// MASK: %[[OTHER:.*]] = llvm.mlir.constant(-1.000000e+00 : f32) : f32
// MASK: %[[M0:.*]] = llvm.icmp "slt" %[[I0:.*]], %[[N]] : i32
// MASK-COUNT-3: llvm.icmp "slt"
// MASK-NEXT: %[[P0:.*]] = llvm.getelementptr %[[X]][%[[I0]]] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
// MASK-COUNT-3: llvm.getelementptr %[[X]]
// MASK-NEXT: %[[PT:.*]] = llvm.insertelement %[[OTHER]], %{{.*}} : vector<1xf32>
// MASK-NEXT: %[[MV:.*]] = llvm.insertelement %[[M0]], %{{.*}} : vector<1xi1>
// MASK-NEXT: llvm.intr.masked.load %[[P0]], %[[MV]], %[[PT]] {alignment = 4 : i32} : (!llvm.ptr<1>, vector<1xi1>, vector<1xf32>) -> vector<1xf32>
// MASK-COUNT-3: llvm.intr.masked.load {{.*}} -> vector<1xf32>
// MASK-NOT: llvm.intr.masked.load
// MASK: %[[MS:.*]] = llvm.insertelement %[[M0]], %{{.*}} : vector<1xi1>
// MASK-NEXT: llvm.intr.masked.store %{{.*}}, %[[P0]], %[[MS]] {alignment = 4 : i32} : vector<1xf32>, vector<1xi1> into !llvm.ptr<1>
// MASK-COUNT-3: llvm.intr.masked.store
// MASK: llvm.return

// Scalars: a scalar getelementptr and a one-element access.
// CHECK-LABEL: llvm.func @scalar(
// CHECK-SAME: %[[X:.*]]: !llvm.ptr<1>, %[[I:.*]]: i32)
// CHECK: %[[P:.*]] = llvm.getelementptr %[[X]][%[[I]]] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i64
// CHECK-NEXT: %[[L:.*]] = llvm.load %[[P]] {alignment = 8 : i64} : !llvm.ptr<1> -> vector<1xi64>
// CHECK: llvm.store %{{.*}}, %[[X]] {alignment = 8 : i64} : vector<1xi64>, !llvm.ptr<1>
#b = #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4]>
module attributes {tile.num_warps = 4 : i32} {
  func.func @unmasked(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>) attributes {tile.kernel} {
    %r = tile.make_range 0, 512 : tensor<512xi32, #b>
    %xs = tile.splat %x : tensor<512x!tile.ptr<f32>, #b>
    %xp = tile.addptr %xs, %r : tensor<512x!tile.ptr<f32>, #b>, tensor<512xi32, #b>
    %v = tile.load %xp : (tensor<512x!tile.ptr<f32>, #b>) -> tensor<512xf32, #b>
    %ys = tile.splat %y : tensor<512x!tile.ptr<f32>, #b>
    %yp = tile.addptr %ys, %r : tensor<512x!tile.ptr<f32>, #b>, tensor<512xi32, #b>
    tile.store %yp, %v : tensor<512x!tile.ptr<f32>, #b>, tensor<512xf32, #b>
    return
  }
  func.func @masked(%x: !tile.ptr<f32>, %n: i32) attributes {tile.kernel} {
    %r = tile.make_range 0, 512 : tensor<512xi32, #b>
    %ns = tile.splat %n : tensor<512xi32, #b>
    %m = arith.cmpi slt, %r, %ns : tensor<512xi32, #b>
    %xs = tile.splat %x : tensor<512x!tile.ptr<f32>, #b>
    %xp = tile.addptr %xs, %r : tensor<512x!tile.ptr<f32>, #b>, tensor<512xi32, #b>
    %o = arith.constant dense<-1.0> : tensor<512xf32, #b>
    %v = tile.load %xp, %m, other %o : (tensor<512x!tile.ptr<f32>, #b>, tensor<512xi1, #b>, tensor<512xf32, #b>) -> tensor<512xf32, #b>
    tile.store %xp, %v, %m : tensor<512x!tile.ptr<f32>, #b>, tensor<512xf32, #b>, tensor<512xi1, #b>
    return
  }
  func.func @scalar(%x: !tile.ptr<i64>, %i: i32) attributes {tile.kernel} {
    %p = tile.addptr %x, %i : !tile.ptr<i64>, i32
    %v = tile.load %p : (!tile.ptr<i64>) -> i64
    tile.store %x, %v : !tile.ptr<i64>, i64
    return
  }
}
