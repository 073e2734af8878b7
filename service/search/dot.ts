/**
 * Dot product of `dim` floats of `a` from `off` with `q`: eight running sums (k mod 8), added as
 * dot.wat's f64x2 lanes add them (((0+2)+(4+6)) + ((1+3)+(5+7)), then the last dim mod 8 one by
 * one), so this loop and the WebAssembly scan give the same double; a sum may differ from the
 * one-by-one sum in its last bits (~1e-15).
 */
export function dotAt(a: Float32Array, off: number, q: ArrayLike<number>, dim: number): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let s4 = 0;
  let s5 = 0;
  let s6 = 0;
  let s7 = 0;
  let k = 0;
  let o = off;
  for (; k + 8 <= dim; k += 8, o += 8) {
    s0 += a[o]! * q[k]!;
    s1 += a[o + 1]! * q[k + 1]!;
    s2 += a[o + 2]! * q[k + 2]!;
    s3 += a[o + 3]! * q[k + 3]!;
    s4 += a[o + 4]! * q[k + 4]!;
    s5 += a[o + 5]! * q[k + 5]!;
    s6 += a[o + 6]! * q[k + 6]!;
    s7 += a[o + 7]! * q[k + 7]!;
  }
  let t = s0 + s2 + (s4 + s6) + (s1 + s3 + (s5 + s7));
  for (; k < dim; k++, o++) t += a[o]! * q[k]!;
  return t;
}
