// Launch-argument facts: integers equal to 1 become the constant in every
// use (the argument stays in the signature), divisibility becomes the
// tile.divisibility argument attribute; functions that are not kernels are
// left alone.
// RUN: tile-opt %s -tile-apply-arg-facts="divisibility=16,0,16,4 ones=1" | FileCheck %s

// CHECK-LABEL: func.func @kernel(
// CHECK-SAME: %[[P:[a-z0-9]+]]: !tile.ptr<i32> {tile.divisibility = 16 : i64},
// CHECK-SAME: %[[STRIDE:[a-z0-9]+]]: i32,
// CHECK-SAME: %[[N:[a-z0-9]+]]: i32 {tile.divisibility = 16 : i64},
// CHECK-SAME: %[[M:[a-z0-9]+]]: i32 {tile.divisibility = 4 : i64})
// CHECK: %[[ONE:.*]] = arith.constant 1 : i32
// CHECK: arith.muli %{{.*}}, %[[ONE]] : i32
// CHECK: arith.addi %{{.*}}, %[[N]] : i32
// CHECK: arith.addi %{{.*}}, %[[M]] : i32
func.func @kernel(%p: !tile.ptr<i32>, %stride: i32, %n: i32, %m: i32) attributes {tile.kernel} {
  %pid = tile.program_id 0 : i32
  %a = arith.muli %pid, %stride : i32
  %b = arith.addi %a, %n : i32
  %c = arith.addi %b, %m : i32
  %q = tile.addptr %p, %c : !tile.ptr<i32>, i32
  tile.store %q, %c : !tile.ptr<i32>, i32
  return
}

// CHECK-LABEL: func.func @helper(
// CHECK-SAME: %{{[a-z0-9]+}}: !tile.ptr<f32>, %{{[a-z0-9]+}}: i32)
// CHECK-NOT: tile.divisibility
// CHECK-NOT: arith.constant
func.func @helper(%p: !tile.ptr<f32>, %stride: i32) {
  %pid = tile.program_id 0 : i32
  %a = arith.muli %pid, %stride : i32
  return
}
