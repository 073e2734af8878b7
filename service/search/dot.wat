;; Dot products of float32 vectors with a float64 query, four f64x2 sums (lanes: k mod 8 = 0,1 |
;; 2,3 | 4,5 | 6,7), summed as ((s0 + s1) + (s2 + s3)) lane-wise, then lane 0 + lane 1, then the
;; last dim mod 8 elements one by one: the exact order of `dotAt` in vectors.ts, so both give the
;; same double, bit for bit. Built into dot-wasm.ts by `npm run build:wasm` (wabt's wat2wasm).
(module
  (memory (export "memory") 1)

  (func $dot (param $a i32) (param $q i32) (param $dim i32) (result f64)
    (local $k i32) (local $v v128) (local $qk i32)
    (local $s0 v128) (local $s1 v128) (local $s2 v128) (local $s3 v128) (local $t f64)
    (block $done
      (loop $eight
        (br_if $done (i32.gt_u (i32.add (local.get $k) (i32.const 8)) (local.get $dim)))
        (local.set $qk (i32.add (local.get $q) (i32.shl (local.get $k) (i32.const 3))))
        (local.set $v (v128.load (i32.add (local.get $a) (i32.shl (local.get $k) (i32.const 2)))))
        (local.set $s0 (f64x2.add (local.get $s0)
          (f64x2.mul (f64x2.promote_low_f32x4 (local.get $v)) (v128.load (local.get $qk)))))
        (local.set $s1 (f64x2.add (local.get $s1)
          (f64x2.mul (f64x2.promote_low_f32x4 (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $v) (local.get $v)))
                     (v128.load offset=16 (local.get $qk)))))
        (local.set $v (v128.load offset=16 (i32.add (local.get $a) (i32.shl (local.get $k) (i32.const 2)))))
        (local.set $s2 (f64x2.add (local.get $s2)
          (f64x2.mul (f64x2.promote_low_f32x4 (local.get $v)) (v128.load offset=32 (local.get $qk)))))
        (local.set $s3 (f64x2.add (local.get $s3)
          (f64x2.mul (f64x2.promote_low_f32x4 (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $v) (local.get $v)))
                     (v128.load offset=48 (local.get $qk)))))
        (local.set $k (i32.add (local.get $k) (i32.const 8)))
        (br $eight)))
    (local.set $s0 (f64x2.add (f64x2.add (local.get $s0) (local.get $s1)) (f64x2.add (local.get $s2) (local.get $s3))))
    (local.set $t (f64.add (f64x2.extract_lane 0 (local.get $s0)) (f64x2.extract_lane 1 (local.get $s0))))
    (block $tail_done
      (loop $tail
        (br_if $tail_done (i32.ge_u (local.get $k) (local.get $dim)))
        (local.set $t (f64.add (local.get $t)
          (f64.mul (f64.promote_f32 (f32.load (i32.add (local.get $a) (i32.shl (local.get $k) (i32.const 2)))))
                   (f64.load (i32.add (local.get $q) (i32.shl (local.get $k) (i32.const 3)))))))
        (local.set $k (i32.add (local.get $k) (i32.const 1)))
        (br $tail)))
    (local.get $t))

  ;; out[i] = dot(vector i, q) for i in [0, n): vectors of `dim` f32 from `data`, q `dim` f64, out f64
  (func (export "dots") (param $data i32) (param $q i32) (param $n i32) (param $dim i32) (param $out i32)
    (local $i i32) (local $stride i32)
    (local.set $stride (i32.shl (local.get $dim) (i32.const 2)))
    (block $done
      (loop $each
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (f64.store (i32.add (local.get $out) (i32.shl (local.get $i) (i32.const 3)))
          (call $dot (i32.add (local.get $data) (i32.mul (local.get $i) (local.get $stride))) (local.get $q) (local.get $dim)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $each))))

  ;; out[j] = dot(vector idx[j], q) for j in [0, m): idx i32
  (func (export "dotsIdx") (param $data i32) (param $q i32) (param $idx i32) (param $m i32) (param $dim i32) (param $out i32)
    (local $j i32) (local $stride i32)
    (local.set $stride (i32.shl (local.get $dim) (i32.const 2)))
    (block $done
      (loop $each
        (br_if $done (i32.ge_u (local.get $j) (local.get $m)))
        (f64.store (i32.add (local.get $out) (i32.shl (local.get $j) (i32.const 3)))
          (call $dot
            (i32.add (local.get $data) (i32.mul (i32.load (i32.add (local.get $idx) (i32.shl (local.get $j) (i32.const 2)))) (local.get $stride)))
            (local.get $q) (local.get $dim)))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $each))))
)
