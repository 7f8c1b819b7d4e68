/* fp2.c — Fp2 operations that are not inline (see fp2.h). */
#include "ff/fp2.h"

static void fp2_inv_with(cuzk_fp2 *r, const cuzk_fp2 *a,
                         void (*fp_inv)(cuzk_fp *, const cuzk_fp *)) {
    /* (a0 + a1 u)^-1 = (a0 - a1 u) / (a0^2 + a1^2) */
    cuzk_fp n, t;
    cuzk_fp_sqr(&n, &a->c0);
    cuzk_fp_sqr(&t, &a->c1);
    cuzk_fp_add(&n, &n, &t);
    fp_inv(&n, &n);
    cuzk_fp_mul(&r->c0, &a->c0, &n);
    cuzk_fp_mul(&t, &a->c1, &n);
    cuzk_fp_neg(&r->c1, &t);
}

void cuzk_fp2_inv(cuzk_fp2 *r, const cuzk_fp2 *a) { fp2_inv_with(r, a, cuzk_fp_inv); }
void cuzk_fp2_inv_var(cuzk_fp2 *r, const cuzk_fp2 *a) { fp2_inv_with(r, a, cuzk_fp_inv_var); }

void cuzk_fp2_frobenius(cuzk_fp2 *r, const cuzk_fp2 *a, unsigned power) {
    if (power & 1)
        cuzk_fp2_conj(r, a);
    else
        *r = *a;
}

void cuzk_fp2_pow(cuzk_fp2 *r, const cuzk_fp2 *a, const uint64_t *e, size_t nlimbs) {
    cuzk_fp2 acc, base = *a;
    cuzk_fp2_set_one(&acc);
    for (size_t i = nlimbs; i-- > 0;)
        for (int b = 63; b >= 0; b--) {
            cuzk_fp2_sqr(&acc, &acc);
            if ((e[i] >> b) & 1) cuzk_fp2_mul(&acc, &acc, &base);
        }
    *r = acc;
}

bool cuzk_fp2_sqrt_var(cuzk_fp2 *r, const cuzk_fp2 *a) {
    /* For p = 3 mod 4 (the "complex method"): with n = sqrt(a0^2 + a1^2) in Fp,
     * x0^2 = (a0 + n)/2 or (a0 - n)/2, and x1 = a1 / (2 x0). */
    if (cuzk_fp2_is_zero(a)) {
        cuzk_fp2_set_zero(r);
        return true;
    }
    cuzk_fp2 x;
    if (cuzk_fp_is_zero(&a->c1)) {
        /* a = a0: either sqrt(a0) in Fp, or sqrt(-a0) * u. */
        cuzk_fp s, na;
        if (cuzk_fp_sqrt(&s, &a->c0)) {
            x.c0 = s;
            cuzk_fp_set_zero(&x.c1);
        } else {
            cuzk_fp_neg(&na, &a->c0);
            if (!cuzk_fp_sqrt(&s, &na)) return false;
            cuzk_fp_set_zero(&x.c0);
            x.c1 = s;
        }
        *r = x;
        return true;
    }
    cuzk_fp norm, t, n, half, d, x0, x1;
    cuzk_fp_sqr(&norm, &a->c0);
    cuzk_fp_sqr(&t, &a->c1);
    cuzk_fp_add(&norm, &norm, &t);
    if (!cuzk_fp_sqrt(&n, &norm)) return false;
    cuzk_fp_from_u64(&half, 2);
    cuzk_fp_inv_var(&half, &half);
    cuzk_fp_add(&d, &a->c0, &n);
    cuzk_fp_mul(&d, &d, &half);
    if (!cuzk_fp_sqrt(&x0, &d)) {
        cuzk_fp_sub(&d, &a->c0, &n);
        cuzk_fp_mul(&d, &d, &half);
        if (!cuzk_fp_sqrt(&x0, &d)) return false;
    }
    cuzk_fp_dbl(&t, &x0);
    cuzk_fp_inv_var(&t, &t);
    cuzk_fp_mul(&x1, &a->c1, &t);
    x.c0 = x0;
    x.c1 = x1;
    cuzk_fp2 check;
    cuzk_fp2_sqr(&check, &x);
    if (!cuzk_fp2_eq(&check, a)) return false;
    *r = x;
    return true;
}

bool cuzk_fp2_is_lexicographically_largest(const cuzk_fp2 *a) {
    if (!cuzk_fp_is_zero(&a->c1)) return cuzk_fp_is_lexicographically_largest(&a->c1);
    return cuzk_fp_is_lexicographically_largest(&a->c0);
}
