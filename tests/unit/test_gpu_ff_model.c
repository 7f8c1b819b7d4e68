/*
 * The device field arithmetic (src/gpu/ff.cuh) on the host: the same source
 * compiled by a C++ compiler with its PTX carry chains modelled
 * (tests/unit/gpu_ff_model.cpp), against the CPU field code, bit for bit.
 * Every multiplier the kernels use: Fr mul, sqr and mul_pair; Fp mul, sqr,
 * mul_pair, sqr_pair; Fp2 mul and sqr; the lazy forms of Fr (the NTT's
 * butterflies) and Fp (G1's mixed additions), values in [0, 2m); the Fr, Fp
 * and Fp2 inversions; and the MSM's mixed addition (ec.cuh) with eager and lazy
 * coordinates. Inputs: all pairs of edge values,
 * carry-heavy values (limbs of 0, 1, 2^32-1, the modulus's limbs) and
 * uniform ones. tests/gpu/test_gpu_ff.c checks the compiled kernels on a GPU;
 * this one runs everywhere, CI included, and takes seconds.
 */
#include <stdlib.h>
#include <unistd.h>

#include "ec/encode.h"
#include "ff/fp2.h"
#include "ff/fr.h"
#include "ec/g1.h"
#include "ec/g2.h"
#include "io/params.h"
#include "harness.h"
#include "field_cases.h"

void cuzk_model_fr_mul(uint64_t r[4], const uint64_t a[4], const uint64_t b[4]);
void cuzk_model_fr_sqr(uint64_t r[4], const uint64_t a[4]);
void cuzk_model_fr_mul_pair(uint64_t r[8], const uint64_t a[8], const uint64_t b[8]);
void cuzk_model_fr_mul_lazy(uint64_t r[4], const uint64_t a[4], const uint64_t b[4]);
void cuzk_model_fr_shoup_prepare(uint64_t c[4], uint64_t cq[4], const uint64_t cR[4]);
void cuzk_model_fr_mul_shoup_lazy(uint64_t r[4], const uint64_t a[4], const uint64_t c[4],
                                  const uint64_t cq[4], int negate);
void cuzk_model_fr_shoup_high(uint64_t q[4], const uint64_t a[4], const uint64_t cq[4]);
void cuzk_model_fr_add_lazy(uint64_t r[4], const uint64_t a[4], const uint64_t b[4]);
void cuzk_model_fr_sub_lazy(uint64_t r[4], const uint64_t a[4], const uint64_t b[4]);
void cuzk_model_fr_reduce_lazy(uint64_t r[4], const uint64_t a[4]);
int cuzk_model_fr_is_zero_lazy(const uint64_t a[4]);
void cuzk_model_fp_mul_lazy(uint64_t r[6], const uint64_t a[6], const uint64_t b[6]);
void cuzk_model_fp_sqr_lazy(uint64_t r[6], const uint64_t a[6]);
void cuzk_model_fp_add_lazy(uint64_t r[6], const uint64_t a[6], const uint64_t b[6]);
void cuzk_model_fp_sub_lazy(uint64_t r[6], const uint64_t a[6], const uint64_t b[6]);
void cuzk_model_fp_reduce_lazy(uint64_t r[6], const uint64_t a[6]);
int cuzk_model_fp_is_zero_lazy(const uint64_t a[6]);
void cuzk_model_fr_add_noreduce(uint64_t r[4], const uint64_t a[4], const uint64_t b[4]);
void cuzk_model_fr_sub_plus_m(uint64_t r[4], const uint64_t a[4], const uint64_t b[4]);
void cuzk_model_fr_neg_lazy(uint64_t r[4], const uint64_t a[4]);
void cuzk_model_fp_add_noreduce(uint64_t r[6], const uint64_t a[6], const uint64_t b[6]);
void cuzk_model_fp_sub_plus_m(uint64_t r[6], const uint64_t a[6], const uint64_t b[6]);
void cuzk_model_fp_neg_lazy(uint64_t r[6], const uint64_t a[6]);
void cuzk_model_g1_madd_seq(uint64_t out[24], const uint64_t *pts, const uint8_t *neg, size_t n,
                            int lazy);
void cuzk_model_g2_madd_seq(uint64_t out[48], const uint64_t *pts, const uint8_t *neg, size_t n,
                            int lazy);
void cuzk_model_fp_mul(uint64_t r[6], const uint64_t a[6], const uint64_t b[6]);
void cuzk_model_fp_sqr(uint64_t r[6], const uint64_t a[6]);
void cuzk_model_fp_mul_pair(uint64_t r[12], const uint64_t a[12], const uint64_t b[12]);
void cuzk_model_fp_sqr_pair(uint64_t r[12], const uint64_t a[12]);
void cuzk_model_fr_inv(uint64_t r[4], const uint64_t a[4]);
void cuzk_model_fp_inv(uint64_t r[6], const uint64_t a[6]);
void cuzk_model_fp2_inv(uint64_t r[12], const uint64_t a[12]);
void cuzk_model_fp2_mul(uint64_t r[12], const uint64_t a[12], const uint64_t b[12]);
void cuzk_model_fp2_sqr(uint64_t r[12], const uint64_t a[12]);
int cuzk_model_g1_decode(uint64_t out[12], const uint8_t in[96]);
int cuzk_model_g2_decode(uint64_t out[24], const uint8_t in[192]);

/* One field: n coordinate words, its modulus and Montgomery one. */
typedef struct {
    const char *name;
    size_t n;
    const uint64_t *m, *one;
} field;

static const field FR = {"Fr", 4, cuzk__fr_r, cuzk__fr_one.l};
static const field FP = {"Fp", 6, cuzk__fp_p, cuzk__fp_one.l};

/* Input k of a run: the edge pairs first, then carry-heavy and uniform ones. */
static void pick(uint64_t *a, uint64_t *b, const field *f, size_t k, uint64_t edges[][6],
                 size_t ne) {
    if (k < ne * ne) {
        memcpy(a, edges[k / ne], f->n * 8);
        memcpy(b, edges[k % ne], f->n * 8);
    } else if (k % 2) {
        rand_carry_heavy(a, f->m, f->n);
        rand_carry_heavy(b, f->m, f->n);
    } else {
        rand_coord(a, f->m, f->n);
        rand_coord(b, f->m, f->n);
    }
}

static void report(const char *what, size_t k, const uint64_t *a, const uint64_t *b,
                   const uint64_t *got, const uint64_t *want, size_t n) {
    fprintf(stderr, "  %s differs at input %zu:\n", what, k);
    const uint64_t *v[4] = {a, b, got, want};
    const char *lab[4] = {"a", "b", "model", "cpu"};
    for (int i = 0; i < 4; i++) {
        fprintf(stderr, "    %-5s", lab[i]);
        for (size_t j = n; j-- > 0;) fprintf(stderr, " %016llx", (unsigned long long)v[i][j]);
        fprintf(stderr, "\n");
    }
}

/* The CPU's operation of one field, by the field's width. */
static void cpu_mul(const field *f, uint64_t *r, const uint64_t *a, const uint64_t *b) {
    if (f->n == 4)
        cuzk_fr_mul((cuzk_fr *)r, (const cuzk_fr *)a, (const cuzk_fr *)b);
    else
        cuzk_fp_mul((cuzk_fp *)r, (const cuzk_fp *)a, (const cuzk_fp *)b);
}
static void cpu_add(const field *f, uint64_t *r, const uint64_t *a, const uint64_t *b) {
    if (f->n == 4)
        cuzk_fr_add((cuzk_fr *)r, (const cuzk_fr *)a, (const cuzk_fr *)b);
    else
        cuzk_fp_add((cuzk_fp *)r, (const cuzk_fp *)a, (const cuzk_fp *)b);
}
static void cpu_sub(const field *f, uint64_t *r, const uint64_t *a, const uint64_t *b) {
    if (f->n == 4)
        cuzk_fr_sub((cuzk_fr *)r, (const cuzk_fr *)a, (const cuzk_fr *)b);
    else
        cuzk_fp_sub((cuzk_fp *)r, (const cuzk_fp *)a, (const cuzk_fp *)b);
}

/* mul, sqr and the pairs of one prime field over count inputs. */
static void check_prime(const field *f, size_t count) {
    uint64_t edges[MAX_COORDS][6];
    const size_t ne = edge_coords(edges, f->m, f->one, f->n);
    const bool fr = f->n == 4;
    size_t bad = 0;
    for (size_t k = 0; k < ne * ne + count && bad < 4; k++) {
        uint64_t a[12] = {0}, b[12] = {0}, got[12], want[12];
        pick(a, b, f, k, edges, ne);
        pick(a + f->n, b + f->n, f, (k * 7 + 3) % (ne * ne + count), edges, ne);
        /* mul */
        (fr ? cuzk_model_fr_mul : cuzk_model_fp_mul)(got, a, b);
        cpu_mul(f, want, a, b);
        if (memcmp(got, want, f->n * 8) != 0) bad++, report("mul", k, a, b, got, want, f->n);
        /* sqr */
        if (fr) {
            cuzk_model_fr_sqr(got, a);
            cuzk_fr_sqr((cuzk_fr *)want, (const cuzk_fr *)a);
        } else {
            cuzk_model_fp_sqr(got, a);
            cuzk_fp_sqr((cuzk_fp *)want, (const cuzk_fp *)a);
        }
        if (memcmp(got, want, f->n * 8) != 0) bad++, report("sqr", k, a, a, got, want, f->n);
        /* the pairs: (a0, b0) and (a1, b1) at once */
        (fr ? cuzk_model_fr_mul_pair : cuzk_model_fp_mul_pair)(got, a, b);
        cpu_mul(f, want, a, b);
        cpu_mul(f, want + f->n, a + f->n, b + f->n);
        if (memcmp(got, want, 2 * f->n * 8) != 0)
            bad++, report("mul_pair", k, a, b, got, want, 2 * f->n);
        if (!fr) {
            cuzk_model_fp_sqr_pair(got, a);
            cuzk_fp_sqr((cuzk_fp *)want, (const cuzk_fp *)a);
            cuzk_fp_sqr((cuzk_fp *)want + 1, (const cuzk_fp *)a + 1);
            if (memcmp(got, want, 12 * 8) != 0)
                bad++, report("sqr_pair", k, a, a, got, want, 12);
        }
    }
    CHECK(bad == 0);
}

static void test_fr(void) { check_prime(&FR, 1000000 * cuzk_test_iters_scale); }
static void test_fp(void) { check_prime(&FP, 400000 * cuzk_test_iters_scale); }

/* The inversion (ff.cuh inv_var, a binary GCD whose rounds depend on the
 * value) of one prime field against the CPU's Fermat inversion: every edge
 * value (0 gives 0; raw values below 2^62 take the rounds' short window),
 * then carry-heavy and uniform ones; each result is also checked as a
 * product, a * a^-1 = 1. */
static void check_inv(const field *f, size_t count) {
    uint64_t edges[MAX_COORDS][6];
    const size_t ne = edge_coords(edges, f->m, f->one, f->n);
    const bool fr = f->n == 4;
    size_t bad = 0;
    for (size_t k = 0; k < ne + count && bad < 4; k++) {
        uint64_t a[6] = {0}, b[6], got[6], want[6], one[6];
        if (k < ne)
            memcpy(a, edges[k], f->n * 8);
        else
            pick(a, b, f, ne * ne + k, edges, ne);
        if (fr) {
            cuzk_model_fr_inv(got, a);
            cuzk_fr_inv((cuzk_fr *)want, (const cuzk_fr *)a);
        } else {
            cuzk_model_fp_inv(got, a);
            cuzk_fp_inv((cuzk_fp *)want, (const cuzk_fp *)a);
        }
        if (memcmp(got, want, f->n * 8) != 0) bad++, report("inv", k, a, a, got, want, f->n);
        cpu_mul(f, one, a, got);
        const bool zero = cuzk__is_zero_n(a, f->n);
        if (!zero && memcmp(one, f->one, f->n * 8) != 0)
            bad++, report("a * inv", k, a, got, one, f->one, f->n);
    }
    CHECK(bad == 0);
}

static void test_fr_inv(void) { check_inv(&FR, 100000 * cuzk_test_iters_scale); }
static void test_fp_inv(void) { check_inv(&FP, 100000 * cuzk_test_iters_scale); }

/* n-word helpers for the lazy checks: a < b, a += b, a -= b (no carry or
 * borrow out where they are used). */
static bool lt_n(const uint64_t *a, const uint64_t *b, size_t n) {
    for (size_t i = n; i-- > 0;)
        if (a[i] != b[i]) return a[i] < b[i];
    return false;
}
static void add_n(uint64_t *a, const uint64_t *b, size_t n) {
    unsigned __int128 c = 0;
    for (size_t i = 0; i < n; i++) {
        c += (unsigned __int128)a[i] + b[i];
        a[i] = (uint64_t)c;
        c >>= 64;
    }
}
static void sub_n(uint64_t *a, const uint64_t *b, size_t n) {
    unsigned __int128 br = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned __int128 d = (unsigned __int128)a[i] - b[i] - br;
        a[i] = (uint64_t)d;
        br = (d >> 64) & 1;
    }
}

/* The lazy result got must be below 2m and equal want once m is taken off. */
static bool lazy_ok(const field *f, const uint64_t *got, const uint64_t *want) {
    uint64_t two_m[6] = {0}, c[6];
    add_n(two_m, f->m, f->n);
    add_n(two_m, f->m, f->n);
    if (!lt_n(got, two_m, f->n)) return false;
    memcpy(c, got, f->n * 8);
    if (!lt_n(c, f->m, f->n)) sub_n(c, f->m, f->n);
    return memcmp(c, want, f->n * 8) == 0;
}

/* The lazy forms: each canonical input also as its other representative
 * (x + m) by the bits of k. Fr (the NTT): mul_lazy's first operand
 * canonical, its limb-split one lazy or any 256-bit word (every third
 * input), which it accepts too. Fp (G1's mixed additions): both operands of
 * mul_lazy and sqr_lazy lazy. Then add_lazy, sub_lazy, reduce_lazy and
 * is_zero_lazy (0 and m, the two lazy zeros, among the edge values), and
 * the canonical-to-lazy steps of G1's levels (add_noreduce, neg_lazy,
 * sub_plus_m). */
static void check_lazy(const field *f, size_t count) {
    uint64_t edges[MAX_COORDS][6];
    const size_t ne = edge_coords(edges, f->m, f->one, f->n), n = f->n;
    const bool fr = n == 4;
    size_t bad = 0;
    for (size_t k = 0; k < ne * ne + count && bad < 4; k++) {
        uint64_t a[6], b[6], al[6], bl[6], got[6], want[6], bw[6], bm[6];
        pick(a, b, f, k, edges, ne);
        memcpy(al, a, n * 8);
        memcpy(bl, b, n * 8);
        if (k & 1) add_n(al, f->m, n);
        if (k & 2) add_n(bl, f->m, n);
        memcpy(bw, bl, n * 8);
        if (fr && k % 3 == 2)
            for (size_t i = 0; i < n; i++) bw[i] = cuzk_test_rand64();
        memcpy(bm, bw, n * 8);
        while (!lt_n(bm, f->m, n)) sub_n(bm, f->m, n);
        if (fr)
            cuzk_model_fr_mul_lazy(got, a, bw);
        else
            cuzk_model_fp_mul_lazy(got, al, bw);
        cpu_mul(f, want, a, bm);
        if (!lazy_ok(f, got, want)) bad++, report("mul_lazy", k, fr ? a : al, bw, got, want, n);
        if (!fr) {
            cuzk_model_fp_sqr_lazy(got, al);
            cpu_mul(f, want, a, a);
            if (!lazy_ok(f, got, want)) bad++, report("sqr_lazy", k, al, al, got, want, n);
        }
        (fr ? cuzk_model_fr_add_lazy : cuzk_model_fp_add_lazy)(got, al, bl);
        cpu_add(f, want, a, b);
        if (!lazy_ok(f, got, want)) bad++, report("add_lazy", k, al, bl, got, want, n);
        (fr ? cuzk_model_fr_sub_lazy : cuzk_model_fp_sub_lazy)(got, al, bl);
        cpu_sub(f, want, a, b);
        if (!lazy_ok(f, got, want)) bad++, report("sub_lazy", k, al, bl, got, want, n);
        (fr ? cuzk_model_fr_reduce_lazy : cuzk_model_fp_reduce_lazy)(got, al);
        if (memcmp(got, a, n * 8) != 0) bad++, report("reduce_lazy", k, al, al, got, a, n);
        uint64_t z = 0;
        for (size_t i = 0; i < n; i++) z |= a[i];
        const int zero = (fr ? cuzk_model_fr_is_zero_lazy : cuzk_model_fp_is_zero_lazy)(al);
        if (zero != (z == 0)) bad++, report("is_zero_lazy", k, al, al, al, a, n);
        /* from canonical a, b: a + b unreduced (the exact sum), m - a (m for
         * 0), a + m - b, each a lazy value */
        static const uint64_t zero6[6] = {0};
        uint64_t sum[6];
        memcpy(sum, a, n * 8);
        add_n(sum, b, n);
        (fr ? cuzk_model_fr_add_noreduce : cuzk_model_fp_add_noreduce)(got, a, b);
        cpu_add(f, want, a, b);
        if (memcmp(got, sum, n * 8) != 0 || !lazy_ok(f, got, want))
            bad++, report("add_noreduce", k, a, b, got, want, n);
        (fr ? cuzk_model_fr_neg_lazy : cuzk_model_fp_neg_lazy)(got, a);
        cpu_sub(f, want, zero6, a);
        memcpy(sum, f->m, n * 8);
        sub_n(sum, a, n);
        if (memcmp(got, sum, n * 8) != 0 || !lazy_ok(f, got, want))
            bad++, report("neg_lazy", k, a, a, got, want, n);
        (fr ? cuzk_model_fr_sub_plus_m : cuzk_model_fp_sub_plus_m)(got, a, b);
        cpu_sub(f, want, a, b);
        if (!lazy_ok(f, got, want)) bad++, report("sub_plus_m", k, a, b, got, want, n);
    }
    CHECK(bad == 0);
}

/* r = a b (8 words) and r = a b mod 2^256 (4 words), for 4-word a, b. */
static void mul_4x4(uint64_t r[8], const uint64_t a[4], const uint64_t b[4]) {
    memset(r, 0, 8 * sizeof r[0]);
    for (int i = 0; i < 4; i++) {
        unsigned __int128 carry = 0;
        for (int j = 0; j < 4; j++) {
            carry += (unsigned __int128)a[i] * b[j] + r[i + j];
            r[i + j] = (uint64_t)carry;
            carry >>= 64;
        }
        r[i + 4] = (uint64_t)carry;
    }
}
static void mul_low_4(uint64_t r[4], const uint64_t a[4], const uint64_t b[4]) {
    uint64_t w[8];
    mul_4x4(w, a, b);
    memcpy(r, w, 32);
}

/* cq = floor(c 2^256 / r) exactly: cq r <= c 2^256 < cq r + r (8 words). */
static bool shoup_quotient_ok(const uint64_t c[4], const uint64_t cq[4]) {
    uint64_t lo[8], d[8] = {0};
    mul_4x4(lo, cq, cuzk__fr_r);
    memcpy(d + 4, c, 32); /* c 2^256 */
    if (lt_n(d, lo, 8)) return false;
    sub_n(d, lo, 8); /* d = c 2^256 - cq r, must be below r */
    return !(d[4] | d[5] | d[6] | d[7]) && lt_n(d, cuzk__fr_r, 4);
}

/* One Shoup product of the model against the CPU: a c and (-c) a, with a
 * below 2r, each equal to mul(b, a mod r) or its negation and below 2r. */
static size_t shoup_product_bad(size_t k, const uint64_t b[4], const uint64_t c[4],
                                const uint64_t cq[4], const uint64_t a[4]) {
    static const uint64_t zero[4] = {0};
    uint64_t am[4], got[4], want[4];
    size_t bad = 0;
    memcpy(am, a, 32);
    while (!lt_n(am, FR.m, 4)) sub_n(am, FR.m, 4);
    cuzk_model_fr_mul_shoup_lazy(got, a, c, cq, 0);
    cpu_mul(&FR, want, b, am);
    if (!lazy_ok(&FR, got, want)) bad++, report("mul_shoup_lazy", k, a, b, got, want, 4);
    cuzk_model_fr_mul_shoup_lazy(got, a, c, cq, 1);
    cpu_sub(&FR, want, zero, want);
    if (!lazy_ok(&FR, got, want)) bad++, report("mul_shoup_lazy -c", k, a, b, got, want, 4);
    return bad;
}

/*
 * The NTT's twiddle product by a precomputed quotient (ff.cuh
 * mul_shoup_lazy): for each nonzero canonical constant b (held as b = cR),
 * its Shoup form (c = b R^-1 against the CPU's product by the plain 1, cq
 * checked exact by shoup_quotient_ok), then products of c and of -c with a
 * canonical or lazy (a + r) a, and with a the largest lazy value 2r - 1
 * every fifth input.
 * Uniform inputs almost never make shoup_high's dropped columns carry into
 * its result (q' = q_true - 1, ~2^-29 a product), so for odd cq each
 * constant also gets inputs a = s cq^-1 mod 2^256 (s < 2^224), for which
 * a cq mod 2^256 = s is small: there the case is common. q' is checked to
 * be q_true or q_true - 1 (q_true = a cq >> 256), and the run must meet the
 * second case.
 */
static void test_fr_shoup(void) {
    uint64_t edges[MAX_COORDS][6];
    const size_t ne = edge_coords(edges, FR.m, FR.one, 4), count = 300000 * cuzk_test_iters_scale;
    static const uint64_t plain_one[4] = {1, 0, 0, 0};
    uint64_t two_r[4] = {0};
    add_n(two_r, FR.m, 4);
    add_n(two_r, FR.m, 4);
    size_t bad = 0, forced = 0, dropped_carry = 0;
    for (size_t k = 0; k < ne * ne + count && bad < 4; k++) {
        uint64_t a[6], b[6], c[4], cq[4], want_c[4], al[4];
        pick(a, b, &FR, k, edges, ne);
        if (!(b[0] | b[1] | b[2] | b[3])) continue; /* twiddles are never zero */
        cuzk_model_fr_shoup_prepare(c, cq, b);
        cpu_mul(&FR, want_c, b, plain_one);
        if (memcmp(c, want_c, 32) != 0) bad++, report("shoup_prepare c", k, b, b, c, want_c, 4);
        if (!shoup_quotient_ok(c, cq)) bad++, report("shoup_prepare cq", k, b, b, cq, c, 4);
        memcpy(al, a, 32);
        if (k & 1) add_n(al, FR.m, 4);
        if (k % 5 == 4) { /* 2r - 1 */
            memcpy(al, two_r, 32);
            sub_n(al, plain_one, 4);
        }
        bad += shoup_product_bad(k, b, c, cq, al);
        if (!(cq[0] & 1) || k % 8) continue;
        /* inv = cq^-1 mod 2^256 (Newton: x = cq is right mod 2^3) */
        uint64_t inv[4], t[4];
        memcpy(inv, cq, 32);
        for (int it = 0; it < 7; it++) {
            mul_low_4(t, cq, inv);
            uint64_t two[4] = {2, 0, 0, 0};
            sub_n(two, t, 4);
            mul_low_4(inv, inv, two);
        }
        for (int rep = 0; rep < 8; rep++) {
            uint64_t sm[4] = {cuzk_test_rand64(), cuzk_test_rand64(), cuzk_test_rand64(),
                              cuzk_test_rand64() >> (32 + rep * 4)}, af[4], q[4], p[8];
            mul_low_4(af, sm, inv);
            if (!lt_n(af, two_r, 4)) continue;
            forced++;
            cuzk_model_fr_shoup_high(q, af, cq);
            mul_4x4(p, af, cq); /* q_true = p >> 256 */
            uint64_t q1[4];
            memcpy(q1, q, 32);
            add_n(q1, plain_one, 4);
            if (memcmp(q1, p + 4, 32) == 0)
                dropped_carry++;
            else if (memcmp(q, p + 4, 32) != 0)
                bad++, report("shoup_high", k, af, cq, q, p + 4, 4);
            bad += shoup_product_bad(k, b, c, cq, af);
        }
    }
    printf("  %zu inputs with a small a cq mod 2^256, %zu of them with q' = q_true - 1\n", forced,
           dropped_carry);
    CHECK(bad == 0);
    CHECK(dropped_carry > forced / 8);
}

static void test_fr_lazy(void) { check_lazy(&FR, 400000 * cuzk_test_iters_scale); }
static void test_fp_lazy(void) { check_lazy(&FP, 200000 * cuzk_test_iters_scale); }

/*
 * The MSM's mixed addition (ec.cuh xyzz_add_aff) over sequences of random
 * points with its special cases mixed in: infinity inputs, the accumulator
 * itself (doubling) and its negation (cancellation to infinity), each
 * possibly given negated through the addition's neg flag. The model's eager
 * (mul_call) and lazy (mul_lazy_call; G2 has none, so it runs eager twice)
 * runs must give the same canonical XYZZ words, and the same point as the
 * CPU's XYZZ addition. One text for both groups: the CPU's functions for
 * the group, and its sizes.
 */
typedef struct {
    const char *name;
    size_t aff, xyzz; /* bytes */
    void (*model)(uint64_t *, const uint64_t *, const uint8_t *, size_t, int);
    void (*random_point)(void *aff); /* k G, k a random 64-bit scalar */
    void (*set_inf)(void *aff);
    void (*neg)(void *r, const void *aff);
    void (*xyzz_inf)(void *xyzz);
    bool (*xyzz_is_inf)(const void *xyzz);
    void (*xyzz_add_aff)(void *xyzz, const void *aff); /* in place */
    void (*xyzz_to_aff)(void *aff, const void *xyzz);
} group_ops;

#define GROUP_OPS(G)                                                                        \
    static void G##_random_point(void *a) {                                                \
        cuzk_##G##_aff g;                                                                  \
        cuzk_##G##_jac j;                                                                  \
        uint64_t k = cuzk_test_rand64() | 1;                                               \
        cuzk_##G##_generator(&g);                                                          \
        cuzk_##G##_aff_to_jac(&j, &g);                                                     \
        cuzk_##G##_jac_mul_var(&j, &j, &k, 1);                                             \
        cuzk_##G##_jac_to_aff_var((cuzk_##G##_aff *)a, &j);                                \
    }                                                                                      \
    static void G##_set_inf(void *a) { cuzk_##G##_aff_set_inf((cuzk_##G##_aff *)a); }      \
    static void G##_neg(void *r, const void *a) {                                          \
        cuzk_##G##_aff_neg((cuzk_##G##_aff *)r, (const cuzk_##G##_aff *)a);                \
    }                                                                                      \
    static void G##_xyzz_inf(void *x) { cuzk_##G##_xyzz_set_inf((cuzk_##G##_xyzz *)x); }   \
    static bool G##_xyzz_is_inf(const void *x) {                                           \
        return cuzk_##G##_xyzz_is_inf((const cuzk_##G##_xyzz *)x);                         \
    }                                                                                      \
    static void G##_xyzz_add_aff(void *x, const void *a) {                                 \
        cuzk_##G##_xyzz t;                                                                 \
        cuzk_##G##_xyzz_add_aff_var(&t, (const cuzk_##G##_xyzz *)x,                        \
                                    (const cuzk_##G##_aff *)a);                            \
        *(cuzk_##G##_xyzz *)x = t;                                                         \
    }                                                                                      \
    static void G##_xyzz_to_aff(void *a, const void *x) {                                  \
        cuzk_##G##_jac j;                                                                  \
        cuzk_##G##_xyzz_to_jac(&j, (const cuzk_##G##_xyzz *)x);                            \
        cuzk_##G##_jac_to_aff_var((cuzk_##G##_aff *)a, &j);                                \
    }                                                                                      \
    static const group_ops G##_OPS = {#G,                                                  \
                                      sizeof(cuzk_##G##_aff),                              \
                                      sizeof(cuzk_##G##_xyzz),                             \
                                      cuzk_model_##G##_madd_seq,                           \
                                      G##_random_point,                                    \
                                      G##_set_inf,                                         \
                                      G##_neg,                                             \
                                      G##_xyzz_inf,                                        \
                                      G##_xyzz_is_inf,                                     \
                                      G##_xyzz_add_aff,                                    \
                                      G##_xyzz_to_aff};
GROUP_OPS(g1)
GROUP_OPS(g2)

#define SEQ_MAX 40
#define POOL 8

static void check_madd(const group_ops *g, size_t rounds) {
    uint8_t pool[POOL][192], pts[SEQ_MAX * 192], neg[SEQ_MAX], ref[384], cur[192], eff[192];
    uint64_t eager[48], lazy[48];
    size_t bad = 0, doublings = 0, cancels = 0;
    for (int i = 0; i < POOL; i++) g->random_point(pool[i]);
    for (size_t r = 0; r < rounds && bad < 4; r++) {
        const size_t n = 1 + cuzk_test_rand64() % SEQ_MAX;
        g->xyzz_inf(ref);
        for (size_t i = 0; i < n; i++) {
            const unsigned pick_kind = (unsigned)(cuzk_test_rand64() % 8);
            neg[i] = (uint8_t)(cuzk_test_rand64() & 1);
            if (pick_kind == 0) {
                g->set_inf(eff);
            } else if (pick_kind <= 2 && !g->xyzz_is_inf(ref)) { /* +-acc */
                g->xyzz_to_aff(cur, ref);
                if (pick_kind == 1) {
                    memcpy(eff, cur, g->aff);
                    doublings++;
                } else {
                    g->neg(eff, cur);
                    cancels++;
                }
            } else {
                memcpy(eff, pool[cuzk_test_rand64() % POOL], g->aff);
            }
            /* the model is given eff itself, or -eff with the neg flag
             * (points packed at the group's size, as the device's bases) */
            if (neg[i])
                g->neg(pts + i * g->aff, eff);
            else
                memcpy(pts + i * g->aff, eff, g->aff);
            g->xyzz_add_aff(ref, eff);
        }
        g->model(eager, (const uint64_t *)pts, neg, n, 0);
        g->model(lazy, (const uint64_t *)pts, neg, n, 1);
        uint8_t want[192], got[192];
        g->xyzz_to_aff(want, ref);
        g->xyzz_to_aff(got, lazy);
        if (memcmp(eager, lazy, g->xyzz) != 0 || memcmp(got, want, g->aff) != 0) {
            bad++;
            fprintf(stderr, "  %s: round %zu (%zu points): eager %s lazy, lazy %s the CPU\n",
                    g->name, r, n, memcmp(eager, lazy, g->xyzz) ? "!=" : "==",
                    memcmp(got, want, g->aff) ? "!=" : "==");
        }
    }
    printf("  %s: %zu sequences, %zu doublings, %zu cancellations\n", g->name, rounds, doublings,
           cancels);
    CHECK(bad == 0);
    CHECK(doublings > 0 && cancels > 0);
}

static void test_g1_madd(void) { check_madd(&g1_OPS, 400 * cuzk_test_iters_scale); }
static void test_g2_madd(void) { check_madd(&g2_OPS, 150 * cuzk_test_iters_scale); }

/* Fp2 mul and sqr: coordinates from the same generators. On the first
 * ninv inputs (every pair of edge values, then random ones) also the
 * inversions as the kernels call them (ec.cuh finv): Fp of the first
 * coordinate, 0 giving 0, and Fp2. */
static void test_fp2(void) {
    uint64_t edges[MAX_COORDS][6];
    const size_t ne = edge_coords(edges, FP.m, FP.one, FP.n);
    const size_t count = ne * ne + 100000 * cuzk_test_iters_scale;
    const size_t ninv = ne * ne + 20000 * cuzk_test_iters_scale;
    size_t bad = 0;
    for (size_t k = 0; k < count && bad < 4; k++) {
        uint64_t a[12], b[12], got[12], want[12];
        pick(a, b, &FP, k, edges, ne);
        pick(a + 6, b + 6, &FP, (k * 5 + 1) % count, edges, ne);
        cuzk_model_fp2_mul(got, a, b);
        cuzk_fp2_mul((cuzk_fp2 *)want, (const cuzk_fp2 *)a, (const cuzk_fp2 *)b);
        if (memcmp(got, want, sizeof got) != 0) bad++, report("fp2 mul", k, a, b, got, want, 12);
        cuzk_model_fp2_sqr(got, a);
        cuzk_fp2_sqr((cuzk_fp2 *)want, (const cuzk_fp2 *)a);
        if (memcmp(got, want, sizeof got) != 0) bad++, report("fp2 sqr", k, a, a, got, want, 12);
        if (k >= ninv) continue;
        cuzk_model_fp_inv(got, a);
        cuzk_fp_inv((cuzk_fp *)want, (const cuzk_fp *)a);
        if (memcmp(got, want, 48) != 0) bad++, report("fp inv", k, a, a, got, want, 6);
        cuzk_model_fp2_inv(got, a);
        cuzk_fp2_inv((cuzk_fp2 *)want, (const cuzk_fp2 *)a);
        if (memcmp(got, want, 96) != 0) bad++, report("fp2 inv", k, a, a, got, want, 12);
    }
    CHECK(bad == 0);
}

/*
 * The device's decoder of parameter-file points (decode.cuh) against the
 * host reader's verdicts: encodings of random points, mutated at random
 * (flag bits, infinity, (0, 0), coordinates at or above p, off the curve,
 * random bytes), stored in vectors l (G1) and b_g2 (G2) of a .params file
 * opened with deferred points; for each, cuzk_params_point_check (params.c's
 * decoder at CUZK_PARAMS_CHECK_CURVE) and the model must agree, and an
 * accepted point must decode to the host's coordinates.
 */
#define DEC_G1 1200
#define DEC_G2 600 /* |b_g2| <= 1 + |l| */

static void be_of_p(uint8_t out[48]) {
    for (int i = 0; i < 48; i++) out[i] = (uint8_t)(cuzk__fp_p[(47 - i) / 8] >> (8 * ((47 - i) % 8)));
}

/* One test encoding of the group (g2: 192 bytes, else 96); returns its kind. */
static unsigned mutate(uint8_t *enc, const group_ops *g, int g2) {
    const size_t bytes = g2 ? 192 : 96, coords = bytes / 48;
    uint8_t pt[192], pbe[48];
    g->random_point(pt);
    if (cuzk_test_rand64() & 1) g->neg(pt, pt);
    if (g2)
        cuzk_g2_to_zcash_uncompressed(enc, (const cuzk_g2_aff *)pt);
    else
        cuzk_g1_to_zcash_uncompressed(enc, (const cuzk_g1_aff *)pt);
    const unsigned kind = (unsigned)(cuzk_test_rand64() % 12);
    uint8_t *c = enc + 48 * (cuzk_test_rand64() % coords); /* one Fp of the encoding */
    be_of_p(pbe);
    switch (kind) {
    case 0: case 1: case 2: break;                    /* valid */
    case 3: enc[0] |= 0x80; break;                    /* compressed flag */
    case 4: enc[0] |= 0x20; break;                    /* sign flag */
    case 5: enc[0] |= 0x40; break;                    /* infinity flag, rest not zero */
    case 6: memset(enc, 0, bytes); enc[0] = 0x40; break; /* a proper infinity */
    case 7: memset(enc, 0, bytes); break;             /* unflagged (0, 0) */
    case 8: memcpy(c, pbe, 48); c[47] += (uint8_t)(cuzk_test_rand64() % 3); break; /* p .. p+2 */
    case 9: memset(c, 0xff, 48); c[0] = 0x1f; break;  /* 2^381 - 1 */
    case 10: c[47] ^= (uint8_t)(1 + cuzk_test_rand64() % 255); break; /* off the curve */
    default: cuzk_test_rand_bytes(enc, bytes); enc[0] &= 0x1f; break;
    }
    if (c == enc && kind >= 8) enc[0] &= 0x1f; /* the flags stay clear: the value is tested */
    return kind;
}

/*
 * The canonical check at its edge, on points of the curve: x = 0 gives y^2 =
 * b, so (0, y) and (0, p - y) are valid (b is a square in Fp, and in Fp2
 * when the host's decompression finds a root), while the same points with a
 * coordinate written as itself + p must be refused. Random points cannot
 * test that: a coordinate moved to p.. is off the curve anyway. Returns the
 * number of encodings written to enc, the *n_valid accepted ones first.
 */
static size_t edge_encodings(uint8_t (*enc)[192], size_t *n_valid, int g2) {
    const size_t bytes = g2 ? 192 : 96, nf = bytes / 96; /* Fp's per coordinate */
    uint8_t c[192];
    memset(c, 0, sizeof c);
    c[0] = 0x80; /* compressed x = 0, y the smaller root */
    uint8_t pt[192];
    const cuzk_status st = g2 ? cuzk_g2_from_zcash((cuzk_g2_aff *)pt, c, 96,
                                                   CUZK_DECODE_NO_SUBGROUP_CHECK)
                              : cuzk_g1_from_zcash((cuzk_g1_aff *)pt, c, 48,
                                                   CUZK_DECODE_NO_SUBGROUP_CHECK);
    *n_valid = 0;
    if (st != CUZK_OK) return 0; /* no point with x = 0 */
    size_t n = 0;
    for (int neg = 0; neg < 2; neg++) {
        uint8_t q[192];
        if (neg)
            g2 ? cuzk_g2_aff_neg((cuzk_g2_aff *)q, (const cuzk_g2_aff *)pt)
               : cuzk_g1_aff_neg((cuzk_g1_aff *)q, (const cuzk_g1_aff *)pt);
        else
            memcpy(q, pt, bytes);
        if (g2)
            cuzk_g2_to_zcash_uncompressed(enc[n++], (const cuzk_g2_aff *)q);
        else
            cuzk_g1_to_zcash_uncompressed(enc[n++], (const cuzk_g1_aff *)q);
    }
    *n_valid = n;
    /* each Fp of each valid encoding, one at a time, + p (below 2^381: stays unflagged) */
    uint8_t pbe[48];
    be_of_p(pbe);
    for (size_t v = 0; v < 2; v++)
        for (size_t f = 0; f < 2 * nf; f++) {
            memcpy(enc[n], enc[v], bytes);
            uint8_t *x = enc[n] + 48 * f;
            unsigned carry = 0;
            for (int i = 47; i >= 0; i--) {
                const unsigned t = x[i] + pbe[i] + carry;
                x[i] = (uint8_t)t;
                carry = t >> 8;
            }
            if (carry == 0 && (x[0] & 0xe0) == 0) n++; /* else not a test of the value */
        }
    return n;
}

static void put_be32(FILE *f, uint32_t v) {
    const uint8_t b[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};
    fwrite(b, 1, 4, f);
}

static void test_decode(void) {
    static uint8_t l_enc[DEC_G1][96], b2_enc[DEC_G2][192];
    unsigned kinds[12] = {0};
    for (int i = 0; i < DEC_G1; i++) kinds[mutate(l_enc[i], &g1_OPS, 0)]++;
    for (int i = 0; i < DEC_G2; i++) kinds[mutate(b2_enc[i], &g2_OPS, 1)]++;
    /* the canonical edge first in each vector (its verdicts checked below) */
    uint8_t edge[12][192];
    size_t edge_valid[2], edge_n[2];
    for (int g2 = 0; g2 < 2; g2++) {
        edge_n[g2] = edge_encodings(edge, &edge_valid[g2], g2);
        for (size_t i = 0; i < edge_n[g2]; i++)
            memcpy(g2 ? b2_enc[i] : l_enc[i], edge[i], g2 ? 192 : 96);
    }
    /* G1: (0, 2), (0, p - 2), and x + p of both, y + p of the first (p - 2 + p
     * reaches the flag bits); the twist has no point with x = 0 (the norm of
     * 4(1 + u) is 32, a non-square mod p), so G2's Fp checks rest on the
     * random cases and on the same per-Fp code */
    CHECK(edge_n[0] == 5 && edge_valid[0] == 2 && edge_n[1] == 0);
    /* the file: a valid vk head and IC, h and a one point each, l the G1
     * cases, b_g1 valid points, b_g2 the G2 cases (the shape rules hold) */
    char dir[] = "/tmp/cuzk_test_decode.XXXXXX", path[64];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/d.params", dir);
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (f == NULL) return;
    cuzk_g1_aff g1;
    cuzk_g2_aff g2;
    uint8_t e1[96], e2[192];
    cuzk_g1_generator(&g1);
    cuzk_g2_generator(&g2);
    cuzk_g1_to_zcash_uncompressed(e1, &g1);
    cuzk_g2_to_zcash_uncompressed(e2, &g2);
    fwrite(e1, 1, 96, f), fwrite(e1, 1, 96, f), fwrite(e2, 1, 192, f); /* alpha, beta1, beta2 */
    fwrite(e2, 1, 192, f), fwrite(e1, 1, 96, f), fwrite(e2, 1, 192, f); /* gamma2, delta1, 2 */
    put_be32(f, 1), fwrite(e1, 1, 96, f);                                /* IC */
    put_be32(f, 1), fwrite(e1, 1, 96, f);                                /* h */
    put_be32(f, DEC_G1), fwrite(l_enc, 96, DEC_G1, f);                   /* l */
    put_be32(f, 1), fwrite(e1, 1, 96, f);                                /* a */
    put_be32(f, DEC_G2);                                                 /* b_g1 */
    for (int i = 0; i < DEC_G2; i++) fwrite(e1, 1, 96, f);
    put_be32(f, DEC_G2), fwrite(b2_enc, 192, DEC_G2, f);                 /* b_g2 */
    CHECK(fclose(f) == 0);
    cuzk_params p;
    cuzk_error e;
    cuzk__error_clear(&e);
    CHECK_EQ_INT(cuzk_params_open(&p, path, CUZK_PARAMS_DEFER_POINTS, &e), CUZK_OK);
    size_t bad = 0, accepted = 0;
    for (int i = 0; i < DEC_G1 + DEC_G2 && bad < 4; i++) {
        const int is2 = i >= DEC_G1, k = is2 ? i - DEC_G1 : i;
        const uint8_t *enc = is2 ? b2_enc[k] : l_enc[k];
        uint64_t got[24], want[24];
        const int ok = is2 ? cuzk_model_g2_decode(got, enc) : cuzk_model_g1_decode(got, enc);
        const cuzk_status ref = cuzk_params_point_check(
            &p, is2 ? CUZK_PARAMS_VEC_B_G2 : CUZK_PARAMS_VEC_L, (uint64_t)k, &e);
        const size_t g = is2 ? 1 : 0;
        if ((size_t)k < edge_n[g]) /* the edge: valid ones accepted, + p refused as such */
            CHECK(((size_t)k < edge_valid[g]) == (ref == CUZK_OK) &&
                  ((size_t)k < edge_valid[g] || ref == CUZK_ERR_NOT_CANONICAL));
        int same = ok == (ref == CUZK_OK);
        if (same && ok) {
            accepted++;
            if (is2)
                CHECK_EQ_INT(cuzk_g2_from_zcash((cuzk_g2_aff *)want, enc, 192,
                                                CUZK_DECODE_NO_SUBGROUP_CHECK),
                             CUZK_OK);
            else
                CHECK_EQ_INT(cuzk_g1_from_zcash((cuzk_g1_aff *)want, enc, 96,
                                                CUZK_DECODE_NO_SUBGROUP_CHECK),
                             CUZK_OK);
            same = memcmp(got, want, is2 ? 192 : 96) == 0;
        }
        if (!same) {
            bad++;
            fprintf(stderr, "  %s point %d: model %s, host %s (%s)\n", is2 ? "G2" : "G1", k,
                    ok ? "accepts" : "refuses", ref == CUZK_OK ? "accepts" : "refuses",
                    ref == CUZK_OK ? "-" : cuzk__error_text(&e));
        }
    }
    printf("  %d G1 and %d G2 encodings (kinds:", DEC_G1, DEC_G2);
    for (int i = 0; i < 12; i++) printf(" %u", kinds[i]);
    printf("), %zu accepted; canonical edge: G1 %zu (%zu valid), G2 %zu (%zu valid)\n", accepted,
           edge_n[0], edge_valid[0], edge_n[1], edge_valid[1]);
    CHECK(bad == 0);
    CHECK(accepted > (DEC_G1 + DEC_G2) / 5 && accepted < (DEC_G1 + DEC_G2) / 2);
    cuzk_params_close(&p);
    unlink(path);
    rmdir(dir);
}

int main(int argc, char **argv) {
    cuzk_test_init(argc, argv);
    RUN(test_fr);
    RUN(test_fr_lazy);
    RUN(test_fr_shoup);
    RUN(test_fp);
    RUN(test_fp_lazy);
    RUN(test_fr_inv);
    RUN(test_fp_inv);
    RUN(test_fp2);
    RUN(test_g1_madd);
    RUN(test_g2_madd);
    RUN(test_decode);
    return cuzk_test_finish();
}
