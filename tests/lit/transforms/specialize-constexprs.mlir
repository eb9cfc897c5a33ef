// constexpr arguments become constants and leave the signature; runtime
// arguments keep their order.
// RUN: tile-opt %s -split-input-file -tile-specialize-constexprs | FileCheck %s
// RUN: tile-opt %s -split-input-file -tile-specialize-constexprs -canonicalize | FileCheck %s --check-prefix=FOLD

// CHECK-LABEL: func.func @kernel(
// CHECK-SAME: %[[P:[a-z0-9]+]]: !tile.ptr<f32>, %[[N:[a-z0-9]+]]: i32) attributes {tile.kernel}
// CHECK-NOT: tile.constexpr
// CHECK-DAG: %[[BLOCK:.*]] = arith.constant 128 : i32
// CHECK-DAG: %[[SCALE:.*]] = arith.constant 2.500000e+00 : f32
// CHECK-DAG: %[[FLAG:.*]] = arith.constant true
// CHECK: arith.muli %{{.*}}, %[[BLOCK]] : i32
// CHECK: arith.mulf %{{.*}}, %[[SCALE]] : f32
// CHECK: arith.select %[[FLAG]]
// CHECK: arith.addi %{{.*}}, %[[N]] : i32
// CHECK: tile.addptr %[[P]]

// Once constant, the uses fold: select on true disappears, pid * 128 stays.
// FOLD-LABEL: func.func @kernel(
// FOLD-NOT: arith.select
// FOLD: arith.constant 128 : i32
func.func @kernel(%p: !tile.ptr<f32>, %block: i32 {tile.constexpr = 128 : i32},
                  %n: i32, %scale: f32 {tile.constexpr = 2.5 : f32},
                  %flag: i1 {tile.constexpr = true}) attributes {tile.kernel} {
  %pid = tile.program_id 0 : i32
  %off = arith.muli %pid, %block : i32
  %one = arith.constant 1.0 : f32
  %s = arith.mulf %one, %scale : f32
  %t = arith.select %flag, %s, %one : f32
  %o = arith.addi %off, %n : i32
  %q = tile.addptr %p, %o : !tile.ptr<f32>, i32
  tile.store %q, %t : !tile.ptr<f32>, f32
  return
}

// -----

// Without constexpr arguments nothing changes.
// CHECK-LABEL: func.func @plain(
// CHECK-SAME: %{{.*}}: !tile.ptr<f32>, %{{.*}}: i32)
// CHECK-NEXT: return
func.func @plain(%p: !tile.ptr<f32>, %n: i32) {
  return
}
