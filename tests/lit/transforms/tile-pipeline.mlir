// -tile-pipeline: specialize constexprs, inline helpers, drop dead private
// functions, fold and CSE.
// RUN: tile-opt %s -tile-pipeline | FileCheck %s

// CHECK-LABEL: module {
// CHECK-NOT: func.func private
// CHECK-LABEL: func.func @kernel(
// CHECK-SAME: %[[P:.*]]: !tile.ptr<f32>, %[[N:.*]]: i32) attributes {tile.kernel}
// CHECK-NOT: func.call
// The helper body, inlined, with BLOCK folded into the range and the
// duplicated splat CSE'd.
// CHECK-DAG: %[[V:.*]] = arith.constant dense<1.280000e+02> : tensor<128xf32>
// CHECK-DAG: %[[R:.*]] = tile.make_range 0, 128 : tensor<128xi32>
// CHECK-DAG: %[[NS:.*]] = tile.splat %[[N]] : tensor<128xi32>
// CHECK: %[[M:.*]] = arith.cmpi slt, %[[R]], %[[NS]] : tensor<128xi32>
// The two inlined calls are one value after CSE, and `m & m` folds to m.
// CHECK-NOT: arith.andi
// CHECK: %[[PS:.*]] = tile.splat %[[P]] : tensor<128x!tile.ptr<f32>>
// CHECK: %[[Q:.*]] = tile.addptr %[[PS]], %[[R]]
// CHECK: tile.store %[[Q]], %[[V]], %[[M]]
// CHECK-NOT: tile.splat %[[N]]
// CHECK: return
// CHECK-NOT: func.func
func.func private @mask_of(%r: tensor<128xi32>, %n: i32) -> tensor<128xi1> {
  %ns = tile.splat %n : tensor<128xi32>
  %m = arith.cmpi slt, %r, %ns : tensor<128xi32>
  return %m : tensor<128xi1>
}

func.func private @unused(%x: i32) -> i32 {
  return %x : i32
}

func.func @kernel(%p: !tile.ptr<f32>, %block: i32 {tile.constexpr = 128 : i32},
                  %n: i32) attributes {tile.kernel} {
  %r = tile.make_range 0, 128 : tensor<128xi32>
  %m = func.call @mask_of(%r, %n) : (tensor<128xi32>, i32) -> tensor<128xi1>
  %m2 = func.call @mask_of(%r, %n) : (tensor<128xi32>, i32) -> tensor<128xi1>
  %both = arith.andi %m, %m2 : tensor<128xi1>
  %ps = tile.splat %p : tensor<128x!tile.ptr<f32>>
  %q = tile.addptr %ps, %r : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %b = arith.sitofp %block : i32 to f32
  %v = tile.splat %b : tensor<128xf32>
  tile.store %q, %v, %both : tensor<128x!tile.ptr<f32>>, tensor<128xf32>, tensor<128xi1>
  return
}
