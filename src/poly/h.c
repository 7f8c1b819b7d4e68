/*
 * h.c — Groth16 H in the snarkjs and bellman conventions (contract in h.h).
 *
 * Both move each of a, b, c from <omega_n> to a coset zeta*<omega_n> with one
 * fused sequence and no reordering pass: DIF inverse (natural values ->
 * bit-reversed coefficients, times n), scale the coefficient at position
 * bitrev(j) by zeta^j/n, DIT forward (bit-reversed coefficients -> natural
 * values at zeta*omega_n^i). snarkjs takes zeta = omega_2n, bellman zeta = g.
 */
#include <stdlib.h>

#include "poly/h.h"

#include "util/mem.h"

#if defined(CUZK_HAVE_OPENMP) && defined(_OPENMP)
#define H_OMP(x) _Pragma(x)
#else
#define H_OMP(x)
#endif

#define H_PAR_MIN 8192 /* smaller vectors stay on the calling thread */

/* values on <omega_n> -> values on zeta*<omega_n>, natural order both sides.
 * Cost: 2 NTTs + 2n multiplications. */
static void coset_shift(const cuzk_ntt_domain *d, cuzk_fr *v, const cuzk_fr *zeta) {
    cuzk__ntt_dif(d, v, 1);
    cuzk__ntt_scale_bitrev(v, d->log_n, &d->n_inv, zeta);
    cuzk__ntt_dit(d, v, 0);
}

/* out = a∘b - c (c may be NULL: out = a∘b); out may alias a or b. */
static void pointwise(cuzk_fr *out, const cuzk_fr *a, const cuzk_fr *b, const cuzk_fr *c,
                      size_t n) {
    long long nn = (long long)n;
    int par = n >= H_PAR_MIN;
    (void)par;
    H_OMP("omp parallel for schedule(static) if(par)")
    for (long long i = 0; i < nn; i++) {
        cuzk_fr t;
        cuzk_fr_mul(&t, &a[i], &b[i]);
        if (c) cuzk_fr_sub(&t, &t, &c[i]);
        out[i] = t;
    }
}

static cuzk_status h_check(const cuzk_ntt_domain *d, const cuzk_fr *a, const cuzk_fr *b,
                           size_t n) {
    if (!d || !a || !b || n != d->n || (n > 1 && !d->tw)) return CUZK_ERR_INVALID_ARG;
    return CUZK_OK;
}

/* c, or a fresh a∘b in *owned (CUZK_ERR_NOMEM when it cannot be allocated). */
static cuzk_status h_get_c(cuzk_fr **cp, cuzk_fr **owned, const cuzk_fr *a, const cuzk_fr *b,
                           size_t n) {
    *owned = NULL;
    if (*cp) return CUZK_OK;
    if (n > SIZE_MAX / sizeof(cuzk_fr)) return CUZK_ERR_NOMEM;
    cuzk_fr *c = cuzk__alloc_large(n * sizeof(cuzk_fr));
    if (!c) return CUZK_ERR_NOMEM;
    pointwise(c, a, b, NULL, n);
    *cp = *owned = c;
    return CUZK_OK;
}

cuzk_status cuzk_h_snarkjs(const cuzk_ntt_domain *d, cuzk_fr *a, cuzk_fr *b, cuzk_fr *c,
                           size_t n) {
    cuzk_status st = h_check(d, a, b, n);
    if (st != CUZK_OK) return st;
    if (d->log_n >= CUZK_NTT_MAX_LOG) return CUZK_ERR_INVALID_ARG; /* no omega_2n */
    cuzk_fr *owned;
    if ((st = h_get_c(&c, &owned, a, b, n)) != CUZK_OK) return st;
    coset_shift(d, a, &d->omega_2n);
    coset_shift(d, b, &d->omega_2n);
    coset_shift(d, c, &d->omega_2n);
    pointwise(a, a, b, c, n);
    free(owned);
    return CUZK_OK;
}

cuzk_status cuzk_h_bellman(const cuzk_ntt_domain *d, cuzk_fr *a, cuzk_fr *b, cuzk_fr *c,
                           size_t n) {
    cuzk_status st = h_check(d, a, b, n);
    if (st != CUZK_OK) return st;
    cuzk_fr g, ginv, zinv, k, one;
    cuzk_fr_from_u64(&g, CUZK_H_BELLMAN_COSET_GEN);
    cuzk_fr_inv_var(&ginv, &g);
    /* Z(g*omega^i) = g^n - 1 for every i: one inversion. Never zero (7 has
     * order r - 1 > n), but a zero would silently give H = 0: check. */
    uint64_t e = (uint64_t)n;
    cuzk_fr_pow(&zinv, &g, &e, 1);
    cuzk_fr_set_one(&one);
    cuzk_fr_sub(&zinv, &zinv, &one);
    if (cuzk_fr_is_zero(&zinv)) return CUZK_ERR_INVALID_ARG;
    cuzk_fr_inv_var(&zinv, &zinv);

    cuzk_fr *owned;
    if ((st = h_get_c(&c, &owned, a, b, n)) != CUZK_OK) return st;
    coset_shift(d, a, &g);
    coset_shift(d, b, &g);
    coset_shift(d, c, &g);
    pointwise(a, a, b, c, n);
    /* Coset inverse, with (g^n - 1)^-1 folded into its 1/n: DIF inverse gives
     * bit-reversed coefficients (times n) of H(g x); reorder, then coefficient
     * j times g^-j * zinv / n. */
    cuzk__ntt_dif(d, a, 1);
    cuzk_ntt_bitrev_permute(a, d->log_n);
    cuzk_fr_mul(&k, &zinv, &d->n_inv);
    cuzk__ntt_scale_natural(a, n, &k, &ginv);
    free(owned);
    return CUZK_OK;
}
