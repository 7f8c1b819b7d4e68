/*
 * pairing.c — optimal ate Miller loop and final exponentiation (pairing.h).
 *
 * Miller loop. Q stays on the M-type twist E': y^2 = x^3 + b', b' = 4(u + 1),
 * as T = (X : Y : Z) in homogeneous projective coordinates; the untwist
 * (x', y') -> (x'/w^2, y'/w^3) maps it into E(Fp12). A line through points of
 * E', multiplied by w^3 and by a factor in Fp2 (both die in the final
 * exponentiation), evaluated at P = (xP, yP) is
 *   l0 + l1 v + l4 v w      (w^2 = v, w^3 = v w)
 * with l0 in Fp2 from T alone, l1 = (Fp2) * xP and l4 = (Fp2) * yP: the
 * sparse "014" shape of cuzk_fp12_mul_by_014.
 *
 * Derivations (ours; the same formulas as Costello, Lange, Naehrig,
 * "Faster pairing computations on curves with high-degree twists", PKC 2010,
 * sec. 4/5, scaled to avoid halvings):
 *
 * Doubling. Tangent slope 3X^2/(2YZ); the line times 2YZ, with
 * X^3 = Y^2 Z - b' Z^3, is (Y^2 - 3b'Z^2) - 3X^2 xP w^2 + 2YZ yP w^3. We use its
 * negation. With B = Y^2, C = Z^2, E = 3b'C, F = 3E, H = (Y + Z)^2 - B - C = 2YZ:
 *   l0 = E - B,  l1 = 3X^2 xP,  l4 = -H yP
 *   2T = (2XY(B - F) : (B + F)^2 - 12E^2 : 4BH)     (4x the usual X3, Y3, Z3)
 * 3M + 5S in Fp2 for the point, 1S + 4 Fp mults for the line.
 *
 * Addition with affine Q = (xQ, yQ). theta = Y - yQ Z, lambda = X - xQ Z; the
 * chord times lambda, negated:
 *   l0 = lambda yQ - theta xQ,  l1 = theta xP,  l4 = -lambda yP
 *   C = theta^2, D = lambda^2, E = lambda D, F = Z C, G = X D, H = E + F - 2G
 *   T + Q = (lambda H : theta(G - H) - Y E : Z E)
 * 11M + 2S in Fp2 (l0's two products included), plus 4 Fp mults for l1, l4.
 *
 * T = kQ with 1 < k < |x| < r never meets infinity or +-Q for Q in G2, so the
 * formulas need no exceptional cases.
 */
#include "pairing/pairing.h"

/* Per-pair state: the running point T, the affine Q, and P's coordinates in
 * the forms the lines use. */
typedef struct {
    cuzk_fp2 x, y, z;
    cuzk_fp2 qx, qy;
    cuzk_fp px, px3, pyn; /* xP, 3 xP, -yP */
} ml_state;

/* r = b' a = 4(u + 1) a */
static inline void fp2_mul_by_b(cuzk_fp2 *r, const cuzk_fp2 *a) {
    cuzk_fp2_mul_by_xi(r, a);
    cuzk_fp2_dbl(r, r);
    cuzk_fp2_dbl(r, r);
}

/* T = 2T; (l0, l1, l4) the tangent at the old T evaluated at P. */
static void dbl_step(ml_state *s, cuzk_fp2 *l0, cuzk_fp2 *l1, cuzk_fp2 *l4) {
    cuzk_fp2 a, b, c, e, f, h, t;
    cuzk_fp2_mul(&a, &s->x, &s->y); /* XY */
    cuzk_fp2_sqr(&b, &s->y);        /* B = Y^2 */
    cuzk_fp2_sqr(&c, &s->z);        /* C = Z^2 */
    fp2_mul_by_b(&e, &c);
    cuzk_fp2_add(&t, &e, &e);
    cuzk_fp2_add(&e, &t, &e);       /* E = 3b'C */
    cuzk_fp2_add(&f, &e, &e);
    cuzk_fp2_add(&f, &f, &e);       /* F = 3E */
    cuzk_fp2_add(&h, &s->y, &s->z);
    cuzk_fp2_sqr(&h, &h);
    cuzk_fp2_sub(&h, &h, &b);
    cuzk_fp2_sub(&h, &h, &c);       /* H = 2YZ */

    /* line */
    cuzk_fp2_sub(l0, &e, &b);
    cuzk_fp2_sqr(&t, &s->x);
    cuzk_fp2_mul_fp(l1, &t, &s->px3);
    cuzk_fp2_mul_fp(l4, &h, &s->pyn);

    /* X3 = 2XY(B - F) */
    cuzk_fp2_sub(&t, &b, &f);
    cuzk_fp2_mul(&s->x, &a, &t);
    cuzk_fp2_dbl(&s->x, &s->x);
    /* Z3 = 4BH */
    cuzk_fp2_mul(&s->z, &b, &h);
    cuzk_fp2_dbl(&s->z, &s->z);
    cuzk_fp2_dbl(&s->z, &s->z);
    /* Y3 = (B + F)^2 - 3(2E)^2 */
    cuzk_fp2_add(&t, &b, &f);
    cuzk_fp2_sqr(&t, &t);
    cuzk_fp2_dbl(&e, &e);
    cuzk_fp2_sqr(&e, &e);
    cuzk_fp2_sub(&t, &t, &e);
    cuzk_fp2_dbl(&e, &e);
    cuzk_fp2_sub(&s->y, &t, &e);
}

/* T = T + Q; (l0, l1, l4) the chord through T and Q evaluated at P. */
static void add_step(ml_state *s, cuzk_fp2 *l0, cuzk_fp2 *l1, cuzk_fp2 *l4) {
    cuzk_fp2 th, la, c, d, e, f, g, h, t;
    cuzk_fp2_mul(&t, &s->qy, &s->z);
    cuzk_fp2_sub(&th, &s->y, &t); /* theta */
    cuzk_fp2_mul(&t, &s->qx, &s->z);
    cuzk_fp2_sub(&la, &s->x, &t); /* lambda */

    /* line */
    cuzk_fp2_mul(l0, &la, &s->qy);
    cuzk_fp2_mul(&t, &th, &s->qx);
    cuzk_fp2_sub(l0, l0, &t);
    cuzk_fp2_mul_fp(l1, &th, &s->px);
    cuzk_fp2_mul_fp(l4, &la, &s->pyn);

    cuzk_fp2_sqr(&c, &th);
    cuzk_fp2_sqr(&d, &la);
    cuzk_fp2_mul(&e, &la, &d);
    cuzk_fp2_mul(&f, &s->z, &c);
    cuzk_fp2_mul(&g, &s->x, &d);
    cuzk_fp2_add(&h, &e, &f);
    cuzk_fp2_sub(&h, &h, &g);
    cuzk_fp2_sub(&h, &h, &g);
    cuzk_fp2_mul(&s->x, &la, &h);
    cuzk_fp2_sub(&t, &g, &h);
    cuzk_fp2_mul(&t, &th, &t);
    cuzk_fp2_mul(&g, &s->y, &e);
    cuzk_fp2_sub(&s->y, &t, &g);
    cuzk_fp2_mul(&s->z, &s->z, &e);
}

/* f = f * line, or f = line when f is still the implicit 1. */
static void mul_line(cuzk_fp12 *f, bool *f_is_one, const cuzk_fp2 *l0, const cuzk_fp2 *l1,
                     const cuzk_fp2 *l4) {
    if (*f_is_one) {
        cuzk_fp12_set_zero(f);
        f->c0.c0 = *l0;
        f->c0.c1 = *l1;
        f->c1.c1 = *l4;
        *f_is_one = false;
        return;
    }
    cuzk_fp12_mul_by_014(f, f, l0, l1, l4);
}

static bool g1_is_inf(const cuzk_g1_aff *a) {
    return (unsigned)cuzk_fp_is_zero(&a->x) & (unsigned)cuzk_fp_is_zero(&a->y);
}
static bool g2_is_inf(const cuzk_g2_aff *a) {
    return (unsigned)cuzk_fp2_is_zero(&a->x) & (unsigned)cuzk_fp2_is_zero(&a->y);
}

/* Pairs per shared squaring chain; the states live on the stack (~6 KiB).
 * Larger batches run chunk by chunk and multiply the results. */
#define ML_CHUNK 16

/* f = product of the Miller loops of up to ML_CHUNK pairs, before the final
 * conjugation; *f_is_one is left true when every pair was skipped (f = 1). */
static void miller_chunk(cuzk_fp12 *f, bool *f_is_one, const cuzk_g1_aff *p,
                         const cuzk_g2_aff *q, size_t n) {
    ml_state st[ML_CHUNK];
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (g1_is_inf(&p[i]) || g2_is_inf(&q[i])) continue;
        ml_state *s = &st[m++];
        s->x = q[i].x;
        s->y = q[i].y;
        cuzk_fp2_set_one(&s->z);
        s->qx = q[i].x;
        s->qy = q[i].y;
        s->px = p[i].x;
        cuzk_fp_add(&s->px3, &p[i].x, &p[i].x);
        cuzk_fp_add(&s->px3, &s->px3, &p[i].x);
        cuzk_fp_neg(&s->pyn, &p[i].y);
    }
    cuzk_fp12_set_one(f);
    *f_is_one = true;
    if (m == 0) return;

    const uint64_t x = CUZK__BLS_X_ABS;
    cuzk_fp2 l0, l1, l4;
    /* The top bit of |x| is the initial T = Q. */
    for (int bit = 62; bit >= 0; bit--) {
        if (!*f_is_one) cuzk_fp12_sqr(f, f);
        for (size_t j = 0; j < m; j++) {
            dbl_step(&st[j], &l0, &l1, &l4);
            mul_line(f, f_is_one, &l0, &l1, &l4);
        }
        if ((x >> bit) & 1)
            for (size_t j = 0; j < m; j++) {
                add_step(&st[j], &l0, &l1, &l4);
                mul_line(f, f_is_one, &l0, &l1, &l4);
            }
    }
}

void cuzk_miller_loop(cuzk_fp12 *r, const cuzk_g1_aff *p, const cuzk_g2_aff *q, size_t n) {
    cuzk_fp12 acc, f;
    bool acc_is_one = true, f_is_one;
    cuzk_fp12_set_one(&acc);
    for (size_t i = 0; i < n; i += ML_CHUNK) {
        size_t k = n - i < ML_CHUNK ? n - i : ML_CHUNK;
        miller_chunk(&f, &f_is_one, p + i, q + i, k);
        if (f_is_one) continue;
        if (acc_is_one)
            acc = f;
        else
            cuzk_fp12_mul(&acc, &acc, &f);
        acc_is_one = false;
    }
    /* x < 0: f_{x,Q} = 1/f_{|x|,Q} up to factors the final exponentiation
     * kills, and 1/f equals conj(f) there too. */
    cuzk_fp12_conjugate(r, &acc);
}

/* a^x for cyclotomic a, x = -|x| (conjugation inverts). */
static void cyc_pow_neg_x(cuzk_fp12 *r, const cuzk_fp12 *a) {
    cuzk_fp12_cyclotomic_pow_x(r, a);
    cuzk_fp12_conjugate(r, r);
}

/*
 * Easy part f^((p^6 - 1)(p^2 + 1)): conj(f) / f, then t^(p^2) t. The result
 * is in the cyclotomic subgroup, where conjugation is inversion.
 * Hard part (Hayashida, Hayasaka, Teruya, eprint 2020/875, for BLS12):
 *   3 (p^4 - p^2 + 1)/r = (x - 1)^2 (x + p)(x^2 + p^2 - 1) + 3
 *   y0 = a^(x-1), y1 = y0^(x-1), y2 = y1^(x+p), y3 = y2^(x^2+p^2-1), r = y3 a^3
 * 5 exponentiations by x (63 cyclotomic squarings each) + 7 multiplications.
 */
void cuzk_final_exp(cuzk_fp12 *r, const cuzk_fp12 *f) {
    cuzk_fp12 a, t, u, y;
    cuzk_fp12_inv(&t, f);
    cuzk_fp12_conjugate(&a, f);
    cuzk_fp12_mul(&a, &a, &t);
    cuzk_fp12_frobenius(&t, &a, 2);
    cuzk_fp12_mul(&a, &a, &t);

    /* y = a^(x-1) */
    cyc_pow_neg_x(&y, &a);
    cuzk_fp12_conjugate(&t, &a);
    cuzk_fp12_mul(&y, &y, &t);
    /* y = y^(x-1) */
    cyc_pow_neg_x(&t, &y);
    cuzk_fp12_conjugate(&y, &y);
    cuzk_fp12_mul(&y, &y, &t);
    /* y = y^(x+p) */
    cyc_pow_neg_x(&t, &y);
    cuzk_fp12_frobenius(&y, &y, 1);
    cuzk_fp12_mul(&y, &y, &t);
    /* y = y^(x^2 + p^2 - 1) */
    cyc_pow_neg_x(&t, &y);
    cyc_pow_neg_x(&t, &t);          /* y^(x^2) */
    cuzk_fp12_frobenius(&u, &y, 2); /* y^(p^2) */
    cuzk_fp12_mul(&t, &t, &u);
    cuzk_fp12_conjugate(&y, &y);    /* y^-1 */
    cuzk_fp12_mul(&y, &y, &t);
    /* r = y a^3 */
    cuzk_fp12_cyclotomic_sqr(&t, &a);
    cuzk_fp12_mul(&t, &t, &a);
    cuzk_fp12_mul(r, &y, &t);
}

void cuzk_pairing(cuzk_fp12 *r, const cuzk_g1_aff *p, const cuzk_g2_aff *q) {
    cuzk_fp12 f;
    cuzk_miller_loop(&f, p, q, 1);
    cuzk_final_exp(r, &f);
}

bool cuzk_pairing_product_is_one(const cuzk_g1_aff *p, const cuzk_g2_aff *q, size_t n) {
    cuzk_fp12 f;
    cuzk_miller_loop(&f, p, q, n);
    cuzk_final_exp(&f, &f);
    return cuzk_fp12_is_one(&f);
}
