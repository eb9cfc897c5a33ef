// A constexpr value must have its argument's type.
// RUN: tile-opt %s -tile-specialize-constexprs -verify-diagnostics -o /dev/null

// expected-error @+1 {{constexpr argument #0 has type 'i32' but its value is 1.000000e+00 : f32}}
func.func @mismatch(%b: i32 {tile.constexpr = 1.0 : f32}) {
  return
}
