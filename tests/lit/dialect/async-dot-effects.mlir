// RUN: tile-opt %s -split-input-file -cse -loop-invariant-code-motion -canonicalize | FileCheck %s

// Two equal asynchronous dots are two wgmma groups, each counted by the
// waits tile-place-dot-waits placed: CSE keeps both, and an unused one is
// not removed. Equal dots that wait for themselves are pure and merge.

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3>
#smem = #tile.shared<rowStride = 4096, swizzle = 128>
// CHECK-LABEL: func.func @equal_groups
// CHECK-COUNT-3: tile.dot {{.*}} -> !tile.pending
// CHECK: tile.dot_wait {{.*}} {pending = 1 : i32}
// CHECK: tile.dot_wait {{.*}} {pending = 0 : i32}
// CHECK-COUNT-1: tile.dot {{.*}} -> tensor<64x64xf32
// CHECK-NOT: tile.dot
// CHECK: return
func.func @equal_groups(%v: tensor<64x64xbf16, #smem>, %acc: tensor<64x64xf32, #mma>) -> (tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>) {
  %p1 = tile.dot %v, %v, %acc {transB} : tensor<64x64xbf16, #smem> * tensor<64x64xbf16, #smem> + tensor<64x64xf32, #mma> -> !tile.pending<tensor<64x64xf32, #mma>>
  %p2 = tile.dot %v, %v, %acc {transB} : tensor<64x64xbf16, #smem> * tensor<64x64xbf16, #smem> + tensor<64x64xf32, #mma> -> !tile.pending<tensor<64x64xf32, #mma>>
  %unused = tile.dot %v, %v, %acc {transB} : tensor<64x64xbf16, #smem> * tensor<64x64xbf16, #smem> + tensor<64x64xf32, #mma> -> !tile.pending<tensor<64x64xf32, #mma>>
  %r1 = tile.dot_wait %p1 : !tile.pending<tensor<64x64xf32, #mma>> {pending = 1 : i32}
  %r2 = tile.dot_wait %p2 : !tile.pending<tensor<64x64xf32, #mma>> {pending = 0 : i32}
  %s1 = tile.dot %v, %v, %acc {transB} : tensor<64x64xbf16, #smem> * tensor<64x64xbf16, #smem> -> tensor<64x64xf32, #mma>
  %s2 = tile.dot %v, %v, %acc {transB} : tensor<64x64xbf16, #smem> * tensor<64x64xbf16, #smem> -> tensor<64x64xf32, #mma>
  %sum = arith.addf %s1, %s2 : tensor<64x64xf32, #mma>
  return %r1, %r2, %sum : tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>
}

// -----

// A loop-invariant asynchronous dot stays in the loop: hoisting it would
// issue one group where the waits count one per trip. Its synchronous twin
// is hoisted.

#mma = #tile.mma<warpsPerCTA = [4, 1], version = 3>
#smem = #tile.shared<rowStride = 4096, swizzle = 128>
// CHECK-LABEL: func.func @invariant_group
// CHECK: tile.dot {{.*}} -> tensor<64x64xf32
// CHECK: scf.for
// CHECK: tile.dot {{.*}} -> !tile.pending
// CHECK: tile.dot_wait
// CHECK: scf.yield
func.func @invariant_group(%v: tensor<64x64xbf16, #smem>, %acc: tensor<64x64xf32, #mma>, %n: i32) -> tensor<64x64xf32, #mma> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%x = %acc) -> (tensor<64x64xf32, #mma>) : i32 {
    %s = tile.dot %v, %v, %acc {transB} : tensor<64x64xbf16, #smem> * tensor<64x64xbf16, #smem> -> tensor<64x64xf32, #mma>
    %p = tile.dot %v, %v, %acc {transB} : tensor<64x64xbf16, #smem> * tensor<64x64xbf16, #smem> + tensor<64x64xf32, #mma> -> !tile.pending<tensor<64x64xf32, #mma>>
    %d = tile.dot_wait %p : !tile.pending<tensor<64x64xf32, #mma>> {pending = 0 : i32}
    %y = arith.addf %s, %d : tensor<64x64xf32, #mma>
    %z = arith.addf %x, %y : tensor<64x64xf32, #mma>
    scf.yield %z : tensor<64x64xf32, #mma>
  }
  return %r : tensor<64x64xf32, #mma>
}
