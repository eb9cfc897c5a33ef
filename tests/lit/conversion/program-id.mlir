// program_id / num_programs are the CUDA block index / grid size; kernels
// become nvvm.kernel entries with maxntid = 32 x tile.num_warps.
// RUN: tile-opt %s -split-input-file -convert-tile-to-llvm | FileCheck %s

// CHECK-LABEL: llvm.func @grid(
// CHECK-SAME: %[[P:.*]]: !llvm.ptr<1>) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 256, 1, 1>}
// CHECK-DAG: %[[X:.*]] = nvvm.read.ptx.sreg.ctaid.x : i32
// CHECK-DAG: %[[Y:.*]] = nvvm.read.ptx.sreg.ctaid.y : i32
// CHECK-DAG: %[[Z:.*]] = nvvm.read.ptx.sreg.ctaid.z : i32
// CHECK-DAG: %[[NX:.*]] = nvvm.read.ptx.sreg.nctaid.x : i32
// CHECK-DAG: %[[NY:.*]] = nvvm.read.ptx.sreg.nctaid.y : i32
// CHECK-DAG: %[[NZ:.*]] = nvvm.read.ptx.sreg.nctaid.z : i32
// CHECK: %[[A:.*]] = llvm.add %[[X]], %[[Y]] : i32
// CHECK-NEXT: %[[B:.*]] = llvm.add %[[A]], %[[Z]] : i32
// CHECK-NEXT: %[[C:.*]] = llvm.add %[[B]], %[[NX]] : i32
// CHECK-NEXT: %[[D:.*]] = llvm.add %[[C]], %[[NY]] : i32
// CHECK-NEXT: %[[E:.*]] = llvm.add %[[D]], %[[NZ]] : i32
// CHECK-NOT: tile.
// CHECK: llvm.store %{{.*}}, %[[P]]
// CHECK: llvm.return
module attributes {tile.num_warps = 8 : i32} {
  func.func @grid(%p: !tile.ptr<i32>) attributes {tile.kernel} {
    %x = tile.program_id 0 : i32
    %y = tile.program_id 1 : i32
    %z = tile.program_id 2 : i32
    %nx = tile.num_programs 0 : i32
    %ny = tile.num_programs 1 : i32
    %nz = tile.num_programs 2 : i32
    %a = arith.addi %x, %y : i32
    %b = arith.addi %a, %z : i32
    %c = arith.addi %b, %nx : i32
    %d = arith.addi %c, %ny : i32
    %e = arith.addi %d, %nz : i32
    tile.store %p, %e : !tile.ptr<i32>, i32
    return
  }
}

// -----

// Without tile.num_warps, 4 warps; functions without tile.kernel are not
// entries.
// CHECK-LABEL: llvm.func @helper()
// CHECK-NOT: nvvm.kernel
// CHECK-LABEL: llvm.func @entry()
// CHECK-SAME: attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>}
module {
  func.func @helper() {
    return
  }
  func.func @entry() attributes {tile.kernel} {
    return
  }
}
