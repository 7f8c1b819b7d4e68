/*
 * gpu_ff_model.cpp — the device field arithmetic (src/gpu/ff.cuh) compiled
 * for the host by a C++ compiler (CUZK_GPU_HOST_MODEL: the PTX carry chains
 * run on a carry-flag variable), behind C entry points for
 * test_gpu_ff_model.c. Elements cross as the host's 64-bit limbs, which are
 * the device layout byte for byte (ff.cuh); points as the host's affine and
 * XYZZ forms, also the device's (ec.cuh).
 */
#define CUZK_GPU_HOST_MODEL 1
#include <stdint.h>
#include <string.h>

#include "gpu/ff.cuh"
#include "gpu/ec.cuh"
#include "gpu/decode.cuh"

using namespace cuzk_gpu;

template <class E>
static E from(const uint64_t *w) {
    E e;
    memcpy(&e, w, sizeof e);
    return e;
}

template <class E>
static void to(uint64_t *w, const E &e) {
    memcpy(w, &e, sizeof e);
}

/* The pairs (two products through one mul_pair), on elements of type E
 * given as host limbs. */
template <class E>
static void model_mul_pair(uint64_t *r, const uint64_t *a, const uint64_t *b) {
    const size_t w = sizeof(E) / 8;
    E a0 = from<E>(a), a1 = from<E>(a + w), b0 = from<E>(b), b1 = from<E>(b + w), r0, r1;
    mul_pair(r0, a0, b0, r1, a1, b1);
    to(r, r0);
    to(r + w, r1);
}

/* acc = sum of the n affine points (point i negated where neg[i]) by the
 * MSM's mixed addition (ec.cuh xyzz_add_aff) with the multiplier policy M,
 * from infinity, made canonical at the end as the kernels store it. */
template <class F, class M>
static void model_madd_seq(uint64_t *out, const uint64_t *pts, const uint8_t *neg, size_t n) {
    const size_t w = sizeof(aff_pt<F>) / 8;
    xyzz_pt<F> acc;
    xyzz_set_inf(acc);
    for (size_t i = 0; i < n; i++) xyzz_add_aff<F, M>(acc, from<aff_pt<F>>(pts + i * w), neg[i]);
    xyzz_canon<F, M>(acc);
    to(out, acc);
}

template <class F>
static int model_decode(uint64_t *out, const uint8_t *in) {
    uint32_t w[sizeof(aff_pt<F>) / 4];
    memcpy(w, in, sizeof w);
    aff_pt<F> p;
    const int ok = decode_point_be(p, w);
    memcpy(out, &p, sizeof p);
    return ok;
}

extern "C" {

/* r = fn(a, b) or fn(a) on elements of type E given as host limbs: the
 * entry points of test_gpu_ff_model.c, one per operation and field. */
#define MODEL_OP2(name, E, fn)                                                               \
    void cuzk_model_##name(uint64_t *r, const uint64_t *a, const uint64_t *b) {             \
        E x = from<E>(a), y = from<E>(b), z;                                                 \
        fn(z, x, y);                                                                         \
        to(r, z);                                                                            \
    }
#define MODEL_OP1(name, E, fn)                                                               \
    void cuzk_model_##name(uint64_t *r, const uint64_t *a) {                                 \
        E x = from<E>(a), z;                                                                 \
        fn(z, x);                                                                            \
        to(r, z);                                                                            \
    }
MODEL_OP2(fr_mul, fr_t, mul)
MODEL_OP1(fr_sqr, fr_t, sqr)
MODEL_OP2(fp_mul, fp_t, mul)
MODEL_OP1(fp_sqr, fp_t, sqr)
MODEL_OP2(fp2_mul, fp2_t, mul)
MODEL_OP1(fp2_sqr, fp2_t, sqr)
/* the lazy forms (values in [0, 2m)): Fr's for the NTT's butterflies, Fp's
 * for G1's mixed additions */
MODEL_OP2(fr_mul_lazy, fr_t, mul_lazy)
MODEL_OP2(fr_add_lazy, fr_t, add_lazy)
MODEL_OP2(fr_sub_lazy, fr_t, sub_lazy)
MODEL_OP1(fr_reduce_lazy, fr_t, reduce_lazy)
MODEL_OP2(fp_mul_lazy, fp_t, mul_lazy)
MODEL_OP1(fp_sqr_lazy, fp_t, sqr_lazy)
MODEL_OP2(fp_add_lazy, fp_t, add_lazy)
MODEL_OP2(fp_sub_lazy, fp_t, sub_lazy)
MODEL_OP1(fp_reduce_lazy, fp_t, reduce_lazy)
/* G1's batch-affine levels: canonical inputs to lazy operands, with no
 * conditional step */
MODEL_OP2(fr_add_noreduce, fr_t, add_noreduce)
MODEL_OP2(fr_sub_plus_m, fr_t, sub_plus_m)
MODEL_OP1(fr_neg_lazy, fr_t, neg_lazy)
MODEL_OP2(fp_add_noreduce, fp_t, add_noreduce)
MODEL_OP2(fp_sub_plus_m, fp_t, sub_plus_m)
MODEL_OP1(fp_neg_lazy, fp_t, neg_lazy)
/* the inversions (ff.cuh inv_var, a binary GCD, out of line as ec.cuh
 * finv), which the batch-affine levels and the XYZZ-to-affine conversions
 * share out among their batches; Fr's for the template's other field */
MODEL_OP1(fr_inv, fr_t, inv_var)
MODEL_OP1(fp_inv, fp_t, finv)
MODEL_OP1(fp2_inv, fp2_t, finv)
int cuzk_model_fr_is_zero_lazy(const uint64_t a[4]) { return is_zero_lazy(from<fr_t>(a)); }
int cuzk_model_fp_is_zero_lazy(const uint64_t a[6]) { return is_zero_lazy(from<fp_t>(a)); }

/* The NTT's twiddle products (ff.cuh mul_shoup_lazy): the Shoup form of a
 * Montgomery constant cR (c plain, cq its quotient), and a product by it,
 * by its negation where negate (neg_shoup, as the inverse transform takes
 * it). */
void cuzk_model_fr_shoup_prepare(uint64_t c[4], uint64_t cq[4], const uint64_t cR[4]) {
    fr_t minv, cc, q;
    mod_inverse_words<fr_params>(minv.v);
    shoup_prepare(cc, q, from<fr_t>(cR), minv);
    to(c, cc);
    to(cq, q);
}
void cuzk_model_fr_shoup_high(uint64_t q[4], const uint64_t a[4], const uint64_t cq[4]) {
    fr_t qq;
    shoup_high<fr_params>(qq.v, from<fr_t>(a), from<fr_t>(cq).v);
    to(q, qq);
}
void cuzk_model_fr_mul_shoup_lazy(uint64_t r[4], const uint64_t a[4], const uint64_t c[4],
                                  const uint64_t cq[4], int negate) {
    fr_t cc = from<fr_t>(c), q = from<fr_t>(cq), z;
    if (negate) neg_shoup(cc, q);
    mul_shoup_lazy(z, from<fr_t>(a), cc, q);
    to(r, z);
}

void cuzk_model_fr_mul_pair(uint64_t r[8], const uint64_t a[8], const uint64_t b[8]) {
    model_mul_pair<fr_t>(r, a, b);
}
void cuzk_model_fp_mul_pair(uint64_t r[12], const uint64_t a[12], const uint64_t b[12]) {
    model_mul_pair<fp_t>(r, a, b);
}
void cuzk_model_fp_sqr_pair(uint64_t r[12], const uint64_t a[12]) {
    fp_t a0 = from<fp_t>(a), a1 = from<fp_t>(a + 6), r0, r1;
    sqr_pair(r0, a0, r1, a1);
    to(r, r0);
    to(r + 6, r1);
}

void cuzk_model_g1_madd_seq(uint64_t out[24], const uint64_t *pts, const uint8_t *neg, size_t n,
                            int lazy) {
    if (lazy)
        model_madd_seq<fp_t, mul_lazy_call>(out, pts, neg, n);
    else
        model_madd_seq<fp_t, mul_call>(out, pts, neg, n);
}
void cuzk_model_g2_madd_seq(uint64_t out[48], const uint64_t *pts, const uint8_t *neg, size_t n,
                            int lazy) {
    /* G2 has no lazy form (ec.cuh for_field): both runs are eager */
    if (lazy)
        model_madd_seq<fp2_t, for_field<fp2_t, mul_lazy_call>::type>(out, pts, neg, n);
    else
        model_madd_seq<fp2_t, mul_call>(out, pts, neg, n);
}

/* decode.cuh on one zcash encoding (the bytes as a little-endian GPU load
 * sees them): 1 if accepted, the point (host affine form) in out either way. */
int cuzk_model_g1_decode(uint64_t out[12], const uint8_t in[96]) {
    return model_decode<fp_t>(out, in);
}
int cuzk_model_g2_decode(uint64_t out[24], const uint8_t in[192]) {
    return model_decode<fp2_t>(out, in);
}

} /* extern "C" */
