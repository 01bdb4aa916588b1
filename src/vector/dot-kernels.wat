;; Dot products of a query with chosen rows of float32 vectors, in float64, bit for bit as the
;; JavaScript loops they replace sum them (see row-vectors.ts). Assembled into
;; dot-kernels-binary.ts by `npm run build:wasm`.
;;
;; Memory (imported): rows of `dim` float32 values from byte 0, row `s` at `s * dim * 4`.
;; Every function reads the query as `dim` float64 values at byte `q` and the row numbers as
;; `n` int32 values at byte `slots`, and writes `n` float64 results at byte `out`, which must have
;; room for 4 more (the last group of rows is completed by repeating its first row).
(module
  (import "env" "memory" (memory 1))

  ;; dotAt's sum: four partial sums, s_k over the components i ≡ k (mod 4) while four remain, the
  ;; rest into s0, each in index order; the result is (s0 + s1) + (s2 + s3). Two rows at a time,
  ;; (s0, s1) and (s2, s3) as the two lanes of two registers each.
  (func (export "strided") (param $q i32) (param $slots i32) (param $n i32) (param $dim i32) (param $out i32)
    (local $j i32) (local $i i32) (local $a i32) (local $b i32) (local $bytes i32) (local $wide i32)
    (local $qi i32)
    (local $a01 v128) (local $a23 v128) (local $b01 v128) (local $b23 v128)
    (local $v v128) (local $w v128) (local $q01 v128) (local $q23 v128)
    (local $sa f64) (local $sb f64) (local $x f64)
    (local.set $bytes (i32.shl (local.get $dim) (i32.const 2)))
    (local.set $wide (i32.and (local.get $dim) (i32.const -4)))
    (block $done
      (loop $pairs
        (br_if $done (i32.ge_u (local.get $j) (local.get $n)))
        (local.set $a
          (i32.mul (i32.load (i32.add (local.get $slots) (i32.shl (local.get $j) (i32.const 2)))) (local.get $bytes)))
        ;; the second row, or the first again past the end
        (local.set $b
          (select
            (i32.mul (i32.load offset=4 (i32.add (local.get $slots) (i32.shl (local.get $j) (i32.const 2)))) (local.get $bytes))
            (local.get $a)
            (i32.lt_u (i32.add (local.get $j) (i32.const 1)) (local.get $n))))
        (local.set $a01 (v128.const f64x2 0 0))
        (local.set $a23 (v128.const f64x2 0 0))
        (local.set $b01 (v128.const f64x2 0 0))
        (local.set $b23 (v128.const f64x2 0 0))
        (local.set $i (i32.const 0))
        (block $wideEnd
          (loop $wideLoop
            (br_if $wideEnd (i32.ge_u (local.get $i) (local.get $wide)))
            (local.set $qi (i32.add (local.get $q) (i32.shl (local.get $i) (i32.const 3))))
            (local.set $q01 (v128.load (local.get $qi)))
            (local.set $q23 (v128.load offset=16 (local.get $qi)))
            (local.set $v (v128.load (i32.add (local.get $a) (i32.shl (local.get $i) (i32.const 2)))))
            (local.set $w (v128.load (i32.add (local.get $b) (i32.shl (local.get $i) (i32.const 2)))))
            (local.set $a01 (f64x2.add (local.get $a01)
              (f64x2.mul (f64x2.promote_low_f32x4 (local.get $v)) (local.get $q01))))
            (local.set $a23 (f64x2.add (local.get $a23)
              (f64x2.mul (f64x2.promote_low_f32x4
                (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $v) (local.get $v))) (local.get $q23))))
            (local.set $b01 (f64x2.add (local.get $b01)
              (f64x2.mul (f64x2.promote_low_f32x4 (local.get $w)) (local.get $q01))))
            (local.set $b23 (f64x2.add (local.get $b23)
              (f64x2.mul (f64x2.promote_low_f32x4
                (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $w) (local.get $w))) (local.get $q23))))
            (local.set $i (i32.add (local.get $i) (i32.const 4)))
            (br $wideLoop)))
        ;; the last dim mod 4 components go into s0
        (local.set $sa (f64x2.extract_lane 0 (local.get $a01)))
        (local.set $sb (f64x2.extract_lane 0 (local.get $b01)))
        (block $tailEnd
          (loop $tailLoop
            (br_if $tailEnd (i32.ge_u (local.get $i) (local.get $dim)))
            (local.set $x (f64.load (i32.add (local.get $q) (i32.shl (local.get $i) (i32.const 3)))))
            (local.set $sa (f64.add (local.get $sa)
              (f64.mul (f64.promote_f32 (f32.load (i32.add (local.get $a) (i32.shl (local.get $i) (i32.const 2))))) (local.get $x))))
            (local.set $sb (f64.add (local.get $sb)
              (f64.mul (f64.promote_f32 (f32.load (i32.add (local.get $b) (i32.shl (local.get $i) (i32.const 2))))) (local.get $x))))
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (br $tailLoop)))
        (f64.store (i32.add (local.get $out) (i32.shl (local.get $j) (i32.const 3)))
          (f64.add
            (f64.add (local.get $sa) (f64x2.extract_lane 1 (local.get $a01)))
            (f64.add (f64x2.extract_lane 0 (local.get $a23)) (f64x2.extract_lane 1 (local.get $a23)))))
        (f64.store offset=8 (i32.add (local.get $out) (i32.shl (local.get $j) (i32.const 3)))
          (f64.add
            (f64.add (local.get $sb) (f64x2.extract_lane 1 (local.get $b01)))
            (f64.add (f64x2.extract_lane 0 (local.get $b23)) (f64x2.extract_lane 1 (local.get $b23)))))
        (local.set $j (i32.add (local.get $j) (i32.const 2)))
        (br $pairs))))

  ;; cosine's dot: one sum per row, component after component in index order. Four rows at a
  ;; time, as the lanes of two registers (rows a, b and c, d), each register one chain per lane.
  (func (export "sequential") (param $q i32) (param $slots i32) (param $n i32) (param $dim i32) (param $out i32)
    (local $j i32) (local $i i32) (local $bytes i32) (local $wide i32) (local $qi i32) (local $si i32) (local $off i32)
    (local $a i32) (local $b i32) (local $c i32) (local $d i32)
    (local $ab v128) (local $cd v128) (local $va v128) (local $vb v128) (local $vc v128) (local $vd v128)
    (local $lo v128) (local $hi v128) (local $lo2 v128) (local $hi2 v128) (local $x v128)
    (local.set $bytes (i32.shl (local.get $dim) (i32.const 2)))
    (local.set $wide (i32.and (local.get $dim) (i32.const -4)))
    (block $done
      (loop $groups
        (br_if $done (i32.ge_u (local.get $j) (local.get $n)))
        (local.set $si (i32.add (local.get $slots) (i32.shl (local.get $j) (i32.const 2))))
        (local.set $a (i32.mul (i32.load (local.get $si)) (local.get $bytes)))
        ;; b, c, d: the next rows, or row a again past the end
        (local.set $b (select (i32.mul (i32.load offset=4 (local.get $si)) (local.get $bytes)) (local.get $a)
          (i32.lt_u (i32.add (local.get $j) (i32.const 1)) (local.get $n))))
        (local.set $c (select (i32.mul (i32.load offset=8 (local.get $si)) (local.get $bytes)) (local.get $a)
          (i32.lt_u (i32.add (local.get $j) (i32.const 2)) (local.get $n))))
        (local.set $d (select (i32.mul (i32.load offset=12 (local.get $si)) (local.get $bytes)) (local.get $a)
          (i32.lt_u (i32.add (local.get $j) (i32.const 3)) (local.get $n))))
        (local.set $ab (v128.const f64x2 0 0))
        (local.set $cd (v128.const f64x2 0 0))
        (local.set $i (i32.const 0))
        (block $wideEnd
          (loop $wideLoop
            (br_if $wideEnd (i32.ge_u (local.get $i) (local.get $wide)))
            (local.set $va (v128.load (i32.add (local.get $a) (i32.shl (local.get $i) (i32.const 2)))))
            (local.set $vb (v128.load (i32.add (local.get $b) (i32.shl (local.get $i) (i32.const 2)))))
            (local.set $vc (v128.load (i32.add (local.get $c) (i32.shl (local.get $i) (i32.const 2)))))
            (local.set $vd (v128.load (i32.add (local.get $d) (i32.shl (local.get $i) (i32.const 2)))))
            ;; (a0 b0 a1 b1), (a2 b2 a3 b3), and the same of c, d
            (local.set $lo (i8x16.shuffle 0 1 2 3 16 17 18 19 4 5 6 7 20 21 22 23 (local.get $va) (local.get $vb)))
            (local.set $hi (i8x16.shuffle 8 9 10 11 24 25 26 27 12 13 14 15 28 29 30 31 (local.get $va) (local.get $vb)))
            (local.set $lo2 (i8x16.shuffle 0 1 2 3 16 17 18 19 4 5 6 7 20 21 22 23 (local.get $vc) (local.get $vd)))
            (local.set $hi2 (i8x16.shuffle 8 9 10 11 24 25 26 27 12 13 14 15 28 29 30 31 (local.get $vc) (local.get $vd)))
            (local.set $qi (i32.add (local.get $q) (i32.shl (local.get $i) (i32.const 3))))
            (local.set $x (f64x2.splat (f64.load (local.get $qi))))
            (local.set $ab (f64x2.add (local.get $ab) (f64x2.mul (local.get $x) (f64x2.promote_low_f32x4 (local.get $lo)))))
            (local.set $cd (f64x2.add (local.get $cd) (f64x2.mul (local.get $x) (f64x2.promote_low_f32x4 (local.get $lo2)))))
            (local.set $x (f64x2.splat (f64.load offset=8 (local.get $qi))))
            (local.set $ab (f64x2.add (local.get $ab) (f64x2.mul (local.get $x) (f64x2.promote_low_f32x4
              (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $lo) (local.get $lo))))))
            (local.set $cd (f64x2.add (local.get $cd) (f64x2.mul (local.get $x) (f64x2.promote_low_f32x4
              (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $lo2) (local.get $lo2))))))
            (local.set $x (f64x2.splat (f64.load offset=16 (local.get $qi))))
            (local.set $ab (f64x2.add (local.get $ab) (f64x2.mul (local.get $x) (f64x2.promote_low_f32x4 (local.get $hi)))))
            (local.set $cd (f64x2.add (local.get $cd) (f64x2.mul (local.get $x) (f64x2.promote_low_f32x4 (local.get $hi2)))))
            (local.set $x (f64x2.splat (f64.load offset=24 (local.get $qi))))
            (local.set $ab (f64x2.add (local.get $ab) (f64x2.mul (local.get $x) (f64x2.promote_low_f32x4
              (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $hi) (local.get $hi))))))
            (local.set $cd (f64x2.add (local.get $cd) (f64x2.mul (local.get $x) (f64x2.promote_low_f32x4
              (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $hi2) (local.get $hi2))))))
            (local.set $i (i32.add (local.get $i) (i32.const 4)))
            (br $wideLoop)))
        ;; the last dim mod 4 components, one at a time
        (block $tailEnd
          (loop $tailLoop
            (br_if $tailEnd (i32.ge_u (local.get $i) (local.get $dim)))
            (local.set $off (i32.shl (local.get $i) (i32.const 2)))
            (local.set $x (f64x2.splat (f64.load (i32.add (local.get $q) (i32.shl (local.get $i) (i32.const 3))))))
            (local.set $ab (f64x2.add (local.get $ab) (f64x2.mul (local.get $x)
              (f64x2.replace_lane 1
                (f64x2.splat (f64.promote_f32 (f32.load (i32.add (local.get $a) (local.get $off)))))
                (f64.promote_f32 (f32.load (i32.add (local.get $b) (local.get $off))))))))
            (local.set $cd (f64x2.add (local.get $cd) (f64x2.mul (local.get $x)
              (f64x2.replace_lane 1
                (f64x2.splat (f64.promote_f32 (f32.load (i32.add (local.get $c) (local.get $off)))))
                (f64.promote_f32 (f32.load (i32.add (local.get $d) (local.get $off))))))))
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (br $tailLoop)))
        (v128.store (i32.add (local.get $out) (i32.shl (local.get $j) (i32.const 3))) (local.get $ab))
        (v128.store offset=16 (i32.add (local.get $out) (i32.shl (local.get $j) (i32.const 3))) (local.get $cd))
        (local.set $j (i32.add (local.get $j) (i32.const 4)))
        (br $groups))))
)
