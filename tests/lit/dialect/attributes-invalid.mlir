// The discardable tile.* attributes are verified by the dialect: where each
// may sit and what it holds. Valid uses of every one first, then the errors.
// RUN: tile-opt %s -split-input-file -verify-diagnostics

module attributes {tile.num_warps = 4 : i32, tile.shared = 0 : i32, tile.dot_b_offset = 128 : i32} {
  func.func @valid(%p: !tile.ptr<f32> {tile.divisibility = 16 : i64},
                   %n: i32 {tile.constexpr = 8 : i32}) attributes {tile.kernel} {
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %c1 = arith.constant 1 : index
    scf.for %i = %c0 to %c4 step %c1 {
    } {tile.num_stages = 2 : i32}
    return
  }
}

// -----

// expected-error @+1 {{unknown tile dialect attribute 'tile.kernal'}}
func.func @misspelled() attributes {tile.kernal} {
  return
}

// -----

// expected-error @+1 {{'tile.kernel' must be a unit attribute, got 1 : i32}}
func.func @kernel_value() attributes {tile.kernel = 1 : i32} {
  return
}

// -----

// expected-error @+1 {{'tile.num_warps' belongs on the module}}
func.func @warps_on_function() attributes {tile.num_warps = 4 : i32} {
  return
}

// -----

// expected-error @+1 {{'tile.num_warps' must be a positive integer, got 0 : i32}}
module attributes {tile.num_warps = 0 : i32} {
}

// -----

// A stage count the pipeliner would allocate shared memory for, per stage.
func.func @too_many_stages() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'tile.num_stages' must be an integer in 1..8 (kMaxPipelineStages), got 2147483647 : i32}}
  scf.for %i = %c0 to %c1 step %c1 {
  } {tile.num_stages = 2147483647 : i32}
  return
}

// -----

func.func @stages_on_function() {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tile.num_stages' belongs on an scf.for loop}}
  %c1 = arith.constant {tile.num_stages = 2 : i32} 1 : index
  return
}

// -----

// expected-error @+1 {{'tile.divisibility' of argument #0 must be a positive integer, got 0 : i64}}
func.func @divisibility_zero(%p: !tile.ptr<f32> {tile.divisibility = 0 : i64}) {
  return
}

// -----

// expected-error @+1 {{'tile.constexpr' of argument #0 must be a typed constant, got unit}}
func.func @constexpr_untyped(%n: i32 {tile.constexpr}) {
  return
}

// -----

// expected-error @+1 {{'tile.constexpr' belongs on a function argument}}
func.func @constexpr_on_function() attributes {tile.constexpr = 1 : i32} {
  return
}

// -----

// expected-error @+1 {{'tile.shared' must be a non-negative integer, got -16 : i32}}
module attributes {tile.shared = -16 : i32} {
}
