/*
 * test_ntt.c — NTT domains, transforms and the two Groth16 H conventions.
 *
 * References are independent of src/poly: roots come from 5^t and 7^t
 * computed here with cuzk_fr_pow (and checked against the hex values in
 * doc/formats.md), transforms against naive evaluation by Horner's rule and
 * naive interpolation by the inverse-DFT sum, H against direct polynomial
 * arithmetic on those interpolants.
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "poly/h.h"
#include "poly/ntt.h"
#include "test_util.h"

#if defined(CUZK_HAVE_OPENMP) && defined(_OPENMP)
#include <omp.h>
#define HAVE_OMP 1
#else
#define HAVE_OMP 0
#endif

/* ---- helpers ------------------------------------------------------------- */

static void rand_vec(cuzk_fr *v, size_t n) {
    for (size_t i = 0; i < n; i++) cuzk_test_rand_fr(&v[i]);
}

static cuzk_fr *alloc_fr(size_t n) {
    cuzk_fr *p = malloc((n ? n : 1) * sizeof(cuzk_fr));
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    return p;
}

static size_t rev(size_t x, unsigned bits) {
    size_t r = 0;
    for (unsigned i = 0; i < bits; i++) r |= ((x >> i) & 1) << (bits - 1 - i);
    return r;
}

static int fr_from_hex(cuzk_fr *r, const char *hex) {
    uint8_t be[32];
    if (strlen(hex) != 64) return 0;
    for (int i = 0; i < 32; i++) {
        unsigned v;
        if (sscanf(hex + 2 * i, "%2x", &v) != 1) return 0;
        be[i] = (uint8_t)v;
    }
    return cuzk_fr_from_bytes_be(r, be);
}

/* base^t with t = (r - 1)/2^32, computed from r's limbs here. */
static void root_2_32(cuzk_fr *out, uint64_t base) {
    uint64_t t[4];
    t[0] = (cuzk__fr_r[0] >> 32) | (cuzk__fr_r[1] << 32);
    t[1] = (cuzk__fr_r[1] >> 32) | (cuzk__fr_r[2] << 32);
    t[2] = (cuzk__fr_r[2] >> 32) | (cuzk__fr_r[3] << 32);
    t[3] = cuzk__fr_r[3] >> 32; /* r - 1 = r with the low bit of limb 0 cleared: same shift */
    cuzk_fr b;
    cuzk_fr_from_u64(&b, base);
    cuzk_fr_pow(out, &b, t, 4);
}

/* A primitive 2^k-th root for the convention: (base^t)^(2^(32-k)). */
static void ref_omega(cuzk_fr *w, uint64_t base, unsigned k) {
    root_2_32(w, base);
    for (unsigned i = 32; i > k; i--) cuzk_fr_sqr(w, w);
}

/* Horner: p(x) for p of degree < n (natural coefficients). */
static void horner(cuzk_fr *out, const cuzk_fr *p, size_t n, const cuzk_fr *x) {
    cuzk_fr acc;
    cuzk_fr_set_zero(&acc);
    for (size_t j = n; j-- > 0;) {
        cuzk_fr_mul(&acc, &acc, x);
        cuzk_fr_add(&acc, &acc, &p[j]);
    }
    *out = acc;
}

/* out[i] = p(shift * w^i), i < n. */
static void naive_eval(cuzk_fr *out, const cuzk_fr *p, size_t n, const cuzk_fr *w,
                       const cuzk_fr *shift) {
    cuzk_fr x = *shift;
    for (size_t i = 0; i < n; i++) {
        horner(&out[i], p, n, &x);
        cuzk_fr_mul(&x, &x, w);
    }
}

/* Coefficients of the p with p(shift * w^i) = v[i]: p_j = shift^-j/n * sum_i
 * v_i w^(-ij), each sum evaluated by Horner in w^-j. */
static void naive_interp(cuzk_fr *out, const cuzk_fr *v, size_t n, const cuzk_fr *w,
                         const cuzk_fr *shift) {
    cuzk_fr winv, sinv, ninv, nf, y, sp;
    cuzk_fr_inv(&winv, w);
    cuzk_fr_inv(&sinv, shift);
    cuzk_fr_from_u64(&nf, n);
    cuzk_fr_inv(&ninv, &nf);
    cuzk_fr_set_one(&y);
    sp = ninv;
    for (size_t j = 0; j < n; j++) {
        horner(&out[j], v, n, &y);
        cuzk_fr_mul(&out[j], &out[j], &sp);
        cuzk_fr_mul(&y, &y, &winv);
        cuzk_fr_mul(&sp, &sp, &sinv);
    }
}

static int vec_eq(const cuzk_fr *a, const cuzk_fr *b, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!cuzk_fr_eq(&a[i], &b[i])) return 0;
    return 1;
}

/* Lays out natural-order v as the array for side `bitrev`. */
static void layout(cuzk_fr *dst, const cuzk_fr *v, unsigned k, int bitrev) {
    size_t n = (size_t)1 << k;
    for (size_t i = 0; i < n; i++) dst[bitrev ? rev(i, k) : i] = v[i];
}

/* Whether the input / output side of the order is bit-reversed. */
static int in_rev(cuzk_ntt_order o) { return o == CUZK_NTT_RN || o == CUZK_NTT_RR; }
static int out_rev(cuzk_ntt_order o) { return o == CUZK_NTT_NR || o == CUZK_NTT_RR; }

static const cuzk_ntt_order orders[4] = {CUZK_NTT_NN, CUZK_NTT_NR, CUZK_NTT_RN, CUZK_NTT_RR};
static const cuzk_ntt_root roots[2] = {CUZK_NTT_ROOT5, CUZK_NTT_ROOT7};

/* ---- roots and domains --------------------------------------------------- */

static void test_roots(void) {
    cuzk_fr r5, r7, h5, h7, c5 = {CUZK__FR_ROOT5}, c7 = {CUZK__FR_ROOT7};
    root_2_32(&r5, 5);
    root_2_32(&r7, 7);
    CHECK(fr_from_hex(&h5, "0212d79e5b416b6f0fd56dc8d168d6c0c4024ff270b3e0941b788f500b912f1f"));
    CHECK(fr_from_hex(&h7, "16a2a19edfe81f20d09b681922c813b4b63683508c2280b93829971f439f0d2b"));
    CHECK(cuzk_fr_eq(&r5, &h5));
    CHECK(cuzk_fr_eq(&r7, &h7));
    CHECK(cuzk_fr_eq(&c5, &h5)); /* the generated constants the domain starts from */
    CHECK(cuzk_fr_eq(&c7, &h7));

    /* Order exactly 2^32: squaring 31 times gives -1. */
    cuzk_fr one, m1, x;
    cuzk_fr_set_one(&one);
    cuzk_fr_neg(&m1, &one);
    for (int r = 0; r < 2; r++) {
        x = r ? r7 : r5;
        for (int i = 0; i < 31; i++) cuzk_fr_sqr(&x, &x);
        CHECK(cuzk_fr_eq(&x, &m1));
    }
}

static void test_domain(void) {
    cuzk_fr one, m1, nf;
    cuzk_fr_set_one(&one);
    cuzk_fr_neg(&m1, &one);
    for (int r = 0; r < 2; r++)
        for (unsigned k = 0; k <= 18; k++) {
            cuzk_ntt_domain d;
            cuzk_status st = cuzk_ntt_domain_init(&d, k, roots[r]);
            CHECK_EQ_INT(st, CUZK_OK);
            if (st != CUZK_OK) continue;
            size_t n = (size_t)1 << k;
            CHECK(d.n == n && d.log_n == k && d.root == roots[r]);
            cuzk_fr w, w2, x;
            ref_omega(&w, (uint64_t)roots[r], k);
            ref_omega(&w2, (uint64_t)roots[r], k + 1);
            CHECK(cuzk_fr_eq(&d.omega, &w));
            CHECK(cuzk_fr_eq(&d.omega_2n, &w2));
            cuzk_fr_sqr(&x, &d.omega_2n);
            CHECK(cuzk_fr_eq(&x, &d.omega));
            cuzk_fr_mul(&x, &d.omega, &d.omega_inv);
            CHECK(cuzk_fr_is_one(&x));
            cuzk_fr_from_u64(&nf, n);
            cuzk_fr_mul(&x, &nf, &d.n_inv);
            CHECK(cuzk_fr_is_one(&x));
            /* omega^n = 1, omega^(n/2) = -1 (k >= 1) */
            uint64_t e = n;
            cuzk_fr_pow(&x, &d.omega, &e, 1);
            CHECK(cuzk_fr_is_one(&x));
            if (k >= 1) {
                e = n / 2;
                cuzk_fr_pow(&x, &d.omega, &e, 1);
                CHECK(cuzk_fr_eq(&x, &m1));
            }
            /* twiddles: tw[j] = omega^j at a few places */
            if (k >= 1) {
                size_t js[4] = {0, 1, n / 4, n / 2 - 1};
                for (int t = 0; t < 4; t++) {
                    if (js[t] >= n / 2) continue;
                    e = js[t];
                    cuzk_fr_pow(&x, &w, &e, 1);
                    CHECK(cuzk_fr_eq(&d.tw[js[t]], &x));
                }
            }
            /* the smaller tables: tw[n - 2h + j] = omega_2h^j = omega^(j*n/2h) */
            for (size_t h = n / 4; h >= 1; h /= 4) {
                size_t j = h > 1 ? h - 1 : 0;
                e = (uint64_t)j * (n / (2 * h));
                cuzk_fr_pow(&x, &w, &e, 1);
                CHECK(cuzk_fr_eq(&d.tw[n - 2 * h + j], &x));
            }
            cuzk_ntt_domain_free(&d);
            CHECK(d.tw == NULL);
        }

    cuzk_ntt_domain d;
    CHECK_EQ_INT(cuzk_ntt_domain_init(&d, CUZK_NTT_MAX_LOG + 1, CUZK_NTT_ROOT5),
                 CUZK_ERR_INVALID_ARG);
    cuzk_ntt_domain_free(&d);
    CHECK_EQ_INT(cuzk_ntt_domain_init(&d, 4, (cuzk_ntt_root)3), CUZK_ERR_INVALID_ARG);
    cuzk_ntt_domain_free(&d);
    CHECK(cuzk_ntt_domain_sizeof(20) == (((size_t)1 << 20) - 1) * 32 + 32); /* rounded to 64 */
    CHECK(cuzk_ntt_domain_sizeof(0) == 0);

    /* argument checks */
    CHECK_EQ_INT(cuzk_ntt_domain_init(&d, 3, CUZK_NTT_ROOT5), CUZK_OK);
    cuzk_fr v[8], z;
    rand_vec(v, 8);
    cuzk_fr_set_zero(&z);
    CHECK_EQ_INT(cuzk_ntt_forward(&d, v, 4, CUZK_NTT_NN), CUZK_ERR_INVALID_ARG);
    CHECK_EQ_INT(cuzk_ntt_inverse(&d, NULL, 8, CUZK_NTT_NN), CUZK_ERR_INVALID_ARG);
    CHECK_EQ_INT(cuzk_ntt_forward(&d, v, 8, (cuzk_ntt_order)7), CUZK_ERR_INVALID_ARG);
    CHECK_EQ_INT(cuzk_ntt_coset_forward(&d, v, 8, CUZK_NTT_NN, &z), CUZK_ERR_INVALID_ARG);
    CHECK_EQ_INT(cuzk_ntt_coset_inverse(&d, v, 8, CUZK_NTT_NN, NULL), CUZK_ERR_INVALID_ARG);
    CHECK_EQ_INT(cuzk_h_snarkjs(&d, v, v, NULL, 4), CUZK_ERR_INVALID_ARG);
    CHECK_EQ_INT(cuzk_h_bellman(&d, v, NULL, NULL, 8), CUZK_ERR_INVALID_ARG);
    cuzk_ntt_domain_free(&d);
}

/* ---- transforms against the naive DFT ------------------------------------ */

/* Every order, both directions, plain and coset, sizes 2^0..2^max_k. */
static void naive_sweep(unsigned max_k) {
    for (int r = 0; r < 2; r++)
        for (unsigned k = 0; k <= max_k; k++) {
            cuzk_ntt_domain d;
            if (cuzk_ntt_domain_init(&d, k, roots[r]) != CUZK_OK) {
                CHECK(0);
                continue;
            }
            size_t n = d.n;
            cuzk_fr *p = alloc_fr(n), *ref = alloc_fr(n), *a = alloc_fr(n), *out = alloc_fr(n);
            cuzk_fr w, one, g;
            ref_omega(&w, (uint64_t)roots[r], k);
            cuzk_fr_set_one(&one);
            do cuzk_test_rand_fr(&g);
            while (cuzk_fr_is_zero(&g));

            for (int kind = 0; kind < 4; kind++) { /* fwd, inv, coset fwd, coset inv */
                int inv = kind & 1, coset = kind >> 1;
                const cuzk_fr *shift = coset ? &g : &one;
                rand_vec(p, n);
                if (inv)
                    naive_interp(ref, p, n, &w, shift);
                else
                    naive_eval(ref, p, n, &w, shift);
                for (int o = 0; o < 4; o++) {
                    cuzk_ntt_order ord = orders[o];
                    layout(a, p, k, in_rev(ord));
                    cuzk_status st;
                    if (coset)
                        st = inv ? cuzk_ntt_coset_inverse(&d, a, n, ord, &g)
                                 : cuzk_ntt_coset_forward(&d, a, n, ord, &g);
                    else
                        st = inv ? cuzk_ntt_inverse(&d, a, n, ord) : cuzk_ntt_forward(&d, a, n, ord);
                    CHECK_EQ_INT(st, CUZK_OK);
                    for (size_t i = 0; i < n; i++) out[i] = a[out_rev(ord) ? rev(i, k) : i];
                    if (!vec_eq(out, ref, n)) {
                        CHECK(0);
                        fprintf(stderr, "  root %d k %u kind %d order %d\n", (int)roots[r], k, kind,
                                o);
                    }
                }
            }
            free(p);
            free(ref);
            free(a);
            free(out);
            cuzk_ntt_domain_free(&d);
        }
}

static void test_naive_default(void) { naive_sweep(10); }

/* Tiny leaves, few stages per column pass and the threaded split from 2^2
 * up: the block structure of a 2^27 transform, at sizes the naive DFT can
 * check. */
static void test_naive_deep_blocking(void) {
    cuzk__ntt_tune(2, 2, 2);
    naive_sweep(8);
    cuzk__ntt_tune(3, 1, 6);
    naive_sweep(7);
    cuzk__ntt_tune(0, 0, 0);
}

static void test_bitrev_permute(void) {
    for (unsigned k = 0; k <= 16; k += (k < 10 ? 1 : 3)) {
        size_t n = (size_t)1 << k;
        cuzk_fr *a = alloc_fr(n), *b = alloc_fr(n);
        rand_vec(a, n);
        memcpy(b, a, n * sizeof(cuzk_fr));
        cuzk_ntt_bitrev_permute(b, k);
        int ok = 1;
        for (size_t i = 0; i < n; i++) ok &= cuzk_fr_eq(&b[rev(i, k)], &a[i]);
        CHECK(ok);
        free(a);
        free(b);
    }
}

/* The tiled walk of scale_bitrev (above 2^11) against the plain definition. */
static void test_scale_bitrev(void) {
    unsigned ks[4] = {5, 12, 13, 16};
    for (int t = 0; t < 4; t++) {
        unsigned k = ks[t];
        size_t n = (size_t)1 << k;
        cuzk_fr *a = alloc_fr(n), *b = alloc_fr(n), c, s, p;
        rand_vec(a, n);
        memcpy(b, a, n * sizeof(cuzk_fr));
        cuzk_test_rand_fr(&c);
        cuzk_test_rand_fr(&s);
        cuzk__ntt_scale_bitrev(a, k, &c, &s);
        p = c;
        for (size_t j = 0; j < n; j++) {
            cuzk_fr_mul(&b[rev(j, k)], &b[rev(j, k)], &p);
            cuzk_fr_mul(&p, &p, &s);
        }
        CHECK(vec_eq(a, b, n));
        cuzk__ntt_scale_natural(a, n, &c, &s);
        p = c;
        for (size_t j = 0; j < n; j++) {
            cuzk_fr_mul(&b[j], &b[j], &p);
            cuzk_fr_mul(&p, &p, &s);
        }
        CHECK(vec_eq(a, b, n));
        free(a);
        free(b);
    }
}

/* ---- large sizes: inverse after forward, and spot checks ----------------- */

static void test_roundtrip_large(void) {
    /* pairs whose layouts chain: forward output side = inverse input side */
    static const cuzk_ntt_order fw[4] = {CUZK_NTT_NN, CUZK_NTT_NR, CUZK_NTT_RN, CUZK_NTT_RR};
    static const cuzk_ntt_order iv[4] = {CUZK_NTT_NN, CUZK_NTT_RN, CUZK_NTT_NR, CUZK_NTT_RR};
    for (unsigned k = 16; k <= 20; k++) {
        cuzk_ntt_domain d;
        int r = (int)(k & 1);
        if (cuzk_ntt_domain_init(&d, k, roots[r]) != CUZK_OK) {
            CHECK(0);
            continue;
        }
        size_t n = d.n;
        cuzk_fr *p = alloc_fr(n), *a = alloc_fr(n);
        rand_vec(p, n);
        memcpy(a, p, n * sizeof(cuzk_fr));
        int pi = (int)(k % 4), coset = (k == 18);
        cuzk_fr g;
        cuzk_fr_from_u64(&g, 7);
        if (coset) {
            CHECK_EQ_INT(cuzk_ntt_coset_forward(&d, a, n, fw[pi], &g), CUZK_OK);
        } else {
            CHECK_EQ_INT(cuzk_ntt_forward(&d, a, n, fw[pi]), CUZK_OK);
        }
        /* spot-check outputs against Horner on the natural coefficients */
        {
            cuzk_fr w, x, y, *q = alloc_fr(n);
            for (size_t j = 0; j < n; j++) q[j] = p[in_rev(fw[pi]) ? rev(j, k) : j];
            ref_omega(&w, (uint64_t)roots[r], k);
            for (int s = 0; s < 3; s++) {
                size_t i = (size_t)(cuzk_test_rand64() & (n - 1));
                uint64_t e = i;
                cuzk_fr_pow(&x, &w, &e, 1);
                if (coset) cuzk_fr_mul(&x, &x, &g);
                horner(&y, q, n, &x);
                CHECK(cuzk_fr_eq(&y, &a[out_rev(fw[pi]) ? rev(i, k) : i]));
            }
            free(q);
        }
        CHECK(!vec_eq(a, p, n));
        if (coset) {
            CHECK_EQ_INT(cuzk_ntt_coset_inverse(&d, a, n, iv[pi], &g), CUZK_OK);
        } else {
            CHECK_EQ_INT(cuzk_ntt_inverse(&d, a, n, iv[pi]), CUZK_OK);
        }
        CHECK(vec_eq(a, p, n));
        free(p);
        free(a);
        cuzk_ntt_domain_free(&d);
    }
}

/* ---- H ------------------------------------------------------------------- */

/* Random a, b on the domain, c = a∘b, and their interpolants. */
typedef struct {
    size_t n;
    cuzk_fr *a, *b, *c, *pa, *pb, *pc;
} h_case;

/* Random a, b of n points and c = a∘b; the interpolants allocated, not set. */
static void h_case_rand(h_case *hc, size_t n) {
    hc->n = n;
    hc->a = alloc_fr(n);
    hc->b = alloc_fr(n);
    hc->c = alloc_fr(n);
    hc->pa = alloc_fr(n);
    hc->pb = alloc_fr(n);
    hc->pc = alloc_fr(n);
    rand_vec(hc->a, n);
    rand_vec(hc->b, n);
    for (size_t i = 0; i < n; i++) cuzk_fr_mul(&hc->c[i], &hc->a[i], &hc->b[i]);
}

static void h_case_make(h_case *hc, unsigned k, cuzk_ntt_root root) {
    size_t n = (size_t)1 << k;
    h_case_rand(hc, n);
    cuzk_fr w, one;
    ref_omega(&w, (uint64_t)root, k);
    cuzk_fr_set_one(&one);
    naive_interp(hc->pa, hc->a, n, &w, &one);
    naive_interp(hc->pb, hc->b, n, &w, &one);
    naive_interp(hc->pc, hc->c, n, &w, &one);
}

static void h_case_free(h_case *hc) {
    free(hc->a);
    free(hc->b);
    free(hc->c);
    free(hc->pa);
    free(hc->pb);
    free(hc->pc);
}

/* A(x)B(x) - C(x) from the interpolants */
static void abc_at(cuzk_fr *out, const h_case *hc, const cuzk_fr *x) {
    cuzk_fr va, vb, vc;
    horner(&va, hc->pa, hc->n, x);
    horner(&vb, hc->pb, hc->n, x);
    horner(&vc, hc->pc, hc->n, x);
    cuzk_fr_mul(out, &va, &vb);
    cuzk_fr_sub(out, out, &vc);
}

typedef cuzk_status (*h_fn)(const cuzk_ntt_domain *d, cuzk_fr *a, cuzk_fr *b, cuzk_fr *c,
                            size_t n);

/* h on copies of hc's a, b, once with c and once with c = NULL (a∘b made
 * inside); the two must agree. Returns the first result (free it). */
static cuzk_fr *h_both(h_fn h, const cuzk_ntt_domain *d, const h_case *hc) {
    size_t n = hc->n;
    cuzk_fr *a = alloc_fr(n), *b = alloc_fr(n), *c = alloc_fr(n), *a2 = alloc_fr(n),
            *b2 = alloc_fr(n);
    memcpy(a, hc->a, n * sizeof(cuzk_fr));
    memcpy(b, hc->b, n * sizeof(cuzk_fr));
    memcpy(c, hc->c, n * sizeof(cuzk_fr));
    memcpy(a2, hc->a, n * sizeof(cuzk_fr));
    memcpy(b2, hc->b, n * sizeof(cuzk_fr));
    CHECK_EQ_INT(h(d, a, b, c, n), CUZK_OK);
    CHECK_EQ_INT(h(d, a2, b2, NULL, n), CUZK_OK);
    CHECK(vec_eq(a, a2, n));
    free(b);
    free(c);
    free(a2);
    free(b2);
    return a;
}

/* Bellman's H (coefficients h) at z: H(z) * (z^n - 1) == A(z)B(z) - C(z). */
static int bellman_h_holds_at(const cuzk_fr *h, const h_case *hc, const cuzk_fr *z) {
    cuzk_fr zn, one, lhs, rhs;
    uint64_t e = hc->n;
    cuzk_fr_pow(&zn, z, &e, 1);
    cuzk_fr_set_one(&one);
    cuzk_fr_sub(&zn, &zn, &one);
    horner(&lhs, h, hc->n, z);
    cuzk_fr_mul(&lhs, &lhs, &zn);
    abc_at(&rhs, hc, z);
    return cuzk_fr_eq(&lhs, &rhs);
}

/* check on every domain of 2^0..2^7 points, for both roots, each with fresh
 * random a, b. */
typedef void (*h_check)(const cuzk_ntt_domain *d, const h_case *hc, cuzk_ntt_root root,
                        unsigned k);

static void each_small_h_case(h_check check) {
    for (int r = 0; r < 2; r++)
        for (unsigned k = 0; k <= 7; k++) {
            cuzk_ntt_domain d;
            if (cuzk_ntt_domain_init(&d, k, roots[r]) != CUZK_OK) {
                CHECK(0);
                continue;
            }
            h_case hc;
            h_case_make(&hc, k, roots[r]);
            check(&d, &hc, roots[r], k);
            h_case_free(&hc);
            cuzk_ntt_domain_free(&d);
        }
}

static void check_h_snarkjs(const cuzk_ntt_domain *d, const h_case *hc, cuzk_ntt_root root,
                            unsigned k) {
    size_t n = hc->n;
    cuzk_fr *a = h_both(cuzk_h_snarkjs, d, hc);

    /* x_i = w2n^(2i+1), w2n computed here */
    cuzk_fr w2n, w2, x, h;
    ref_omega(&w2n, (uint64_t)root, k + 1);
    cuzk_fr_sqr(&w2, &w2n);
    x = w2n;
    int ok = 1;
    for (size_t i = 0; i < n; i++) {
        abc_at(&h, hc, &x);
        ok &= cuzk_fr_eq(&h, &a[i]);
        /* x^n = -1 on the odd coset */
        cuzk_fr_mul(&x, &x, &w2);
    }
    CHECK(ok);
    if (!ok) fprintf(stderr, "  snarkjs H root %d k %u\n", (int)root, k);
    /* A·B − C is not identically zero off the domain for random a, b
     * (n >= 2), so the check cannot pass on all-zero output. */
    if (n >= 2) {
        int nz = 0;
        for (size_t i = 0; i < n; i++) nz |= !cuzk_fr_is_zero(&a[i]);
        CHECK(nz);
    }
    free(a);
}

static void check_h_bellman(const cuzk_ntt_domain *d, const h_case *hc, cuzk_ntt_root root,
                            unsigned k) {
    (void)root;
    (void)k;
    cuzk_fr *a = h_both(cuzk_h_bellman, d, hc);
    CHECK(cuzk_fr_is_zero(&a[hc->n - 1])); /* deg H <= n - 2 */

    /* at random z */
    for (int t = 0; t < 3; t++) {
        cuzk_fr z;
        cuzk_test_rand_fr(&z);
        CHECK(bellman_h_holds_at(a, hc, &z));
    }
    free(a);
}

static void test_h_snarkjs(void) { each_small_h_case(check_h_snarkjs); }

static void test_h_bellman(void) { each_small_h_case(check_h_bellman); }

/* H at 2^13 (threaded, blocked paths), checked at a few points: the
 * interpolants come from cuzk_ntt_inverse, itself checked against the naive
 * sum above. */
static void test_h_large(void) {
    unsigned k = 13;
    for (int r = 0; r < 2; r++) {
        cuzk_ntt_domain d;
        if (cuzk_ntt_domain_init(&d, k, roots[r]) != CUZK_OK) {
            CHECK(0);
            continue;
        }
        size_t n = d.n;
        h_case hc;
        h_case_rand(&hc, n);
        memcpy(hc.pa, hc.a, n * sizeof(cuzk_fr));
        memcpy(hc.pb, hc.b, n * sizeof(cuzk_fr));
        memcpy(hc.pc, hc.c, n * sizeof(cuzk_fr));
        CHECK_EQ_INT(cuzk_ntt_inverse(&d, hc.pa, n, CUZK_NTT_NN), CUZK_OK);
        CHECK_EQ_INT(cuzk_ntt_inverse(&d, hc.pb, n, CUZK_NTT_NN), CUZK_OK);
        CHECK_EQ_INT(cuzk_ntt_inverse(&d, hc.pc, n, CUZK_NTT_NN), CUZK_OK);

        cuzk_fr *a = alloc_fr(n), *b = alloc_fr(n), *c = alloc_fr(n);
        /* snarkjs */
        memcpy(a, hc.a, n * sizeof(cuzk_fr));
        memcpy(b, hc.b, n * sizeof(cuzk_fr));
        memcpy(c, hc.c, n * sizeof(cuzk_fr));
        CHECK_EQ_INT(cuzk_h_snarkjs(&d, a, b, c, n), CUZK_OK);
        cuzk_fr w2n, x, h, z;
        ref_omega(&w2n, (uint64_t)roots[r], k + 1);
        for (int t = 0; t < 4; t++) {
            size_t i = t == 0 ? 0 : t == 1 ? n - 1 : (size_t)(cuzk_test_rand64() & (n - 1));
            uint64_t e = 2 * (uint64_t)i + 1;
            cuzk_fr_pow(&x, &w2n, &e, 1);
            abc_at(&h, &hc, &x);
            CHECK(cuzk_fr_eq(&h, &a[i]));
        }
        /* bellman */
        memcpy(a, hc.a, n * sizeof(cuzk_fr));
        memcpy(b, hc.b, n * sizeof(cuzk_fr));
        CHECK_EQ_INT(cuzk_h_bellman(&d, a, b, NULL, n), CUZK_OK);
        CHECK(cuzk_fr_is_zero(&a[n - 1]));
        cuzk_test_rand_fr(&z);
        CHECK(bellman_h_holds_at(a, &hc, &z));
        free(a);
        free(b);
        free(c);
        h_case_free(&hc);
        cuzk_ntt_domain_free(&d);
    }
}

/* ---- threads ------------------------------------------------------------- */

/* Runs every operation on the same input with 1 and with several threads;
 * the results must agree bit for bit. */
static void test_threads(void) {
#if HAVE_OMP
    unsigned k = 15;
    cuzk_ntt_domain d;
    if (cuzk_ntt_domain_init(&d, k, CUZK_NTT_ROOT7) != CUZK_OK) {
        CHECK(0);
        return;
    }
    size_t n = d.n;
    cuzk_fr *in = alloc_fr(3 * n), *x = alloc_fr(3 * n), *y = alloc_fr(3 * n), g;
    rand_vec(in, 3 * n);
    cuzk_fr_from_u64(&g, 5);
    int saved = omp_get_max_threads();
    for (int op = 0; op < 10; op++) {
        for (int pass = 0; pass < 2; pass++) {
            cuzk_fr *v = pass ? y : x;
            memcpy(v, in, 3 * n * sizeof(cuzk_fr));
            omp_set_num_threads(pass ? 5 : 1);
            cuzk_status st;
            if (op < 4)
                st = cuzk_ntt_forward(&d, v, n, orders[op]);
            else if (op < 6)
                st = cuzk_ntt_inverse(&d, v, n, orders[op - 3]);
            else if (op == 6)
                st = cuzk_ntt_coset_forward(&d, v, n, CUZK_NTT_RN, &g);
            else if (op == 7)
                st = cuzk_ntt_coset_inverse(&d, v, n, CUZK_NTT_NN, &g);
            else if (op == 8)
                st = cuzk_h_snarkjs(&d, v, v + n, v + 2 * n, n);
            else
                st = cuzk_h_bellman(&d, v, v + n, NULL, n);
            CHECK_EQ_INT(st, CUZK_OK);
        }
        if (!vec_eq(x, y, 3 * n)) {
            CHECK(0);
            fprintf(stderr, "  threads differ in op %d\n", op);
        }
    }
    omp_set_num_threads(saved);
    free(in);
    free(x);
    free(y);
    cuzk_ntt_domain_free(&d);
#else
    printf("  (built without OpenMP: nothing to compare)\n");
#endif
}

int main(int argc, char **argv) {
    cuzk_test_init(argc, argv);
    RUN(test_roots);
    RUN(test_domain);
    RUN(test_bitrev_permute);
    RUN(test_scale_bitrev);
    RUN(test_naive_default);
    RUN(test_naive_deep_blocking);
    RUN(test_roundtrip_large);
    RUN(test_h_snarkjs);
    RUN(test_h_bellman);
    RUN(test_h_large);
    RUN(test_threads);
    return cuzk_test_finish();
}
