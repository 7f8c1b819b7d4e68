/*
 * ec_impl.h — short-Weierstrass group code for y^2 = x^3 + b (a = 0), written
 * once over the coordinate field and stamped twice: g1.c (Fp) and g2.c (Fp2),
 * in the manner of blst's POINT macros. The including file defines
 *   CUZK__EC(name)     pastes the group's prefix (cuzk_g1_##name)
 *   CUZK__FE           the coordinate field type (cuzk_fp)
 *   CUZK__FE_OP(name)  pastes the field's prefix (cuzk_fp_##name)
 * and, before the include, the static uint64_t arrays ec_b_limbs, ec_gen_x_limbs,
 * ec_gen_y_limbs holding b and the generator in Montgomery form (their layout is
 * that of one CUZK__FE). It includes its group header first.
 *
 * Operation counts: M = field multiplication, S = field squaring (of the
 * coordinate field: for G2 an Fp2 M is 3 Fp M, an Fp2 S is 2 Fp M).
 * Formulas are from the Explicit-Formulas Database (EFD, hyperelliptic.org/EFD,
 * g1p/auto-shortw-jacobian-0 and g1p/auto-shortw-xyzz), written anew here.
 *
 * Special cases. The plain addition formulas fail when an input is infinity or
 * when both inputs are the same point (H = 0 and r = 0); when they are opposite
 * (H = 0, r != 0) they already give Z = 0. The constant-time additions compute
 * the generic sum and the doubling and pick the right one with cmov; the _var
 * additions branch instead and are for public data (MSM, verification).
 */
#include <string.h>

typedef CUZK__FE fe;
typedef CUZK__EC(aff) ec_aff;
typedef CUZK__EC(jac) ec_jac;
typedef CUZK__EC(xyzz) ec_xyzz;

_Static_assert(sizeof(ec_b_limbs) == sizeof(fe), "b has the layout of a field element");
_Static_assert(sizeof(ec_gen_x_limbs) == sizeof(fe), "generator x layout");
_Static_assert(sizeof(ec_gen_y_limbs) == sizeof(fe), "generator y layout");

/* ---- field shorthands (all inline) ---------------------------------------- */

static inline void fe_add(fe *r, const fe *a, const fe *b) { CUZK__FE_OP(add)(r, a, b); }
static inline void fe_sub(fe *r, const fe *a, const fe *b) { CUZK__FE_OP(sub)(r, a, b); }
static inline void fe_dbl(fe *r, const fe *a) { CUZK__FE_OP(dbl)(r, a); }
static inline void fe_neg(fe *r, const fe *a) { CUZK__FE_OP(neg)(r, a); }
static inline void fe_mul(fe *r, const fe *a, const fe *b) { CUZK__FE_OP(mul)(r, a, b); }
static inline void fe_sqr(fe *r, const fe *a) { CUZK__FE_OP(sqr)(r, a); }
/* 0/1 as unsigned, so that & and | combine them without branches (and
 * without clang's -Wbitwise-instead-of-logical on bool operands). */
static inline unsigned fe_is_zero(const fe *a) { return CUZK__FE_OP(is_zero)(a); }
static inline unsigned fe_eq(const fe *a, const fe *b) { return CUZK__FE_OP(eq)(a, b); }
static inline void fe_cmov(fe *r, const fe *a, bool flag) { CUZK__FE_OP(cmov)(r, a, flag); }
static inline void fe_set_zero(fe *r) { CUZK__FE_OP(set_zero)(r); }
static inline void fe_set_one(fe *r) { CUZK__FE_OP(set_one)(r); }
static inline void fe_load(fe *r, const void *limbs) { memcpy(r, limbs, sizeof(*r)); }

/* r = 3a */
static inline void fe_tpl(fe *r, const fe *a) {
    fe t;
    fe_dbl(&t, a);
    fe_add(r, &t, a);
}

/* ---- point selection -------------------------------------------------------- */

static inline void jac_cmov(ec_jac *r, const ec_jac *a, bool flag) {
    fe_cmov(&r->x, &a->x, flag);
    fe_cmov(&r->y, &a->y, flag);
    fe_cmov(&r->z, &a->z, flag);
}

static inline void xyzz_cmov(ec_xyzz *r, const ec_xyzz *a, bool flag) {
    fe_cmov(&r->x, &a->x, flag);
    fe_cmov(&r->y, &a->y, flag);
    fe_cmov(&r->zz, &a->zz, flag);
    fe_cmov(&r->zzz, &a->zzz, flag);
}

/* ---- basics ----------------------------------------------------------------- */

void CUZK__EC(generator)(ec_aff *r) {
    fe_load(&r->x, ec_gen_x_limbs);
    fe_load(&r->y, ec_gen_y_limbs);
}

void CUZK__EC(aff_set_inf)(ec_aff *r) {
    fe_set_zero(&r->x);
    fe_set_zero(&r->y);
}

bool CUZK__EC(aff_is_inf)(const ec_aff *a) { return fe_is_zero(&a->x) & fe_is_zero(&a->y); }

/* Infinity is all zero in every form, so zeroed memory is a valid point. */
void CUZK__EC(jac_set_inf)(ec_jac *r) {
    fe_set_zero(&r->x);
    fe_set_zero(&r->y);
    fe_set_zero(&r->z);
}

bool CUZK__EC(jac_is_inf)(const ec_jac *a) { return fe_is_zero(&a->z); }

void CUZK__EC(xyzz_set_inf)(ec_xyzz *r) {
    fe_set_zero(&r->x);
    fe_set_zero(&r->y);
    fe_set_zero(&r->zz);
    fe_set_zero(&r->zzz);
}

bool CUZK__EC(xyzz_is_inf)(const ec_xyzz *a) { return fe_is_zero(&a->zz); }

void CUZK__EC(aff_to_jac)(ec_jac *r, const ec_aff *a) {
    fe zero;
    bool inf = CUZK__EC(aff_is_inf)(a);
    fe_set_zero(&zero);
    r->x = a->x;
    r->y = a->y;
    fe_set_one(&r->z);
    fe_cmov(&r->z, &zero, inf);
}

void CUZK__EC(aff_to_xyzz)(ec_xyzz *r, const ec_aff *a) {
    fe zero;
    bool inf = CUZK__EC(aff_is_inf)(a);
    fe_set_zero(&zero);
    r->x = a->x;
    r->y = a->y;
    fe_set_one(&r->zz);
    fe_cmov(&r->zz, &zero, inf);
    r->zzz = r->zz;
}

/* (X, Y, Z) -> (X, Y, Z^2, Z^3): 1M + 1S. */
void CUZK__EC(jac_to_xyzz)(ec_xyzz *r, const ec_jac *a) {
    fe zz, zzz;
    fe_sqr(&zz, &a->z);
    fe_mul(&zzz, &zz, &a->z);
    r->x = a->x;
    r->y = a->y;
    r->zz = zz;
    r->zzz = zzz;
}

/*
 * (X, Y, ZZ, ZZZ) -> (X ZZ^2, Y ZZZ^2, ZZZ): 2M + 2S. With Z = ZZZ,
 * X ZZ^2 / ZZZ^2 = X / ZZ because ZZZ^2 = ZZ^3, and Y ZZZ^2 / ZZZ^3 = Y / ZZZ.
 * Infinity (ZZ = 0) maps to Z = 0 whatever ZZZ holds.
 */
void CUZK__EC(xyzz_to_jac)(ec_jac *r, const ec_xyzz *a) {
    fe t, x, y, z, zero;
    bool inf = fe_is_zero(&a->zz);
    fe_sqr(&t, &a->zz);
    fe_mul(&x, &a->x, &t);
    fe_sqr(&t, &a->zzz);
    fe_mul(&y, &a->y, &t);
    z = a->zzz;
    fe_set_zero(&zero);
    fe_cmov(&z, &zero, inf);
    r->x = x;
    r->y = y;
    r->z = z;
}

static void jac_to_aff_with(ec_aff *r, const ec_jac *a, void (*inv)(fe *, const fe *)) {
    /* inv maps 0 to 0, so infinity lands on (0, 0) without a branch. */
    fe zi, zi2, t;
    inv(&zi, &a->z);
    fe_sqr(&zi2, &zi);
    fe_mul(&t, &zi2, &zi);
    fe_mul(&r->x, &a->x, &zi2);
    fe_mul(&r->y, &a->y, &t);
}

void CUZK__EC(jac_to_aff)(ec_aff *r, const ec_jac *a) { jac_to_aff_with(r, a, CUZK__FE_OP(inv)); }

void CUZK__EC(jac_to_aff_var)(ec_aff *r, const ec_jac *a) {
    jac_to_aff_with(r, a, CUZK__FE_OP(inv_var));
}

/*
 * Montgomery's trick: one inversion and 3(n-1) M for the n Z^-1, then 3M + 1S
 * per point. scratch[i] holds the product of the nonzero Z of in[0..i-1].
 */
void CUZK__EC(jac_batch_to_aff_var)(ec_aff *out, const ec_jac *in, size_t n, fe *scratch) {
    if (n == 0) return;
    fe acc;
    fe_set_one(&acc);
    for (size_t i = 0; i < n; i++) {
        scratch[i] = acc;
        if (!fe_is_zero(&in[i].z)) fe_mul(&acc, &acc, &in[i].z);
    }
    CUZK__FE_OP(inv_var)(&acc, &acc);
    for (size_t i = n; i-- > 0;) {
        if (fe_is_zero(&in[i].z)) {
            CUZK__EC(aff_set_inf)(&out[i]);
            continue;
        }
        fe zi, zi2, zi3;
        fe_mul(&zi, &acc, &scratch[i]);
        fe_mul(&acc, &acc, &in[i].z);
        fe_sqr(&zi2, &zi);
        fe_mul(&zi3, &zi2, &zi);
        fe_mul(&out[i].x, &in[i].x, &zi2);
        fe_mul(&out[i].y, &in[i].y, &zi3);
    }
}

void CUZK__EC(aff_neg)(ec_aff *r, const ec_aff *a) {
    r->x = a->x;
    fe_neg(&r->y, &a->y); /* (0, 0) stays (0, 0) */
}

void CUZK__EC(jac_neg)(ec_jac *r, const ec_jac *a) {
    r->x = a->x;
    fe_neg(&r->y, &a->y);
    r->z = a->z;
}

void CUZK__EC(xyzz_neg)(ec_xyzz *r, const ec_xyzz *a) {
    r->x = a->x;
    fe_neg(&r->y, &a->y);
    r->zz = a->zz;
    r->zzz = a->zzz;
}

/* ---- Jacobian arithmetic ---------------------------------------------------- */

/*
 * dbl-2009-l (a = 0): 2M + 5S. Complete: Z = 0 gives Z3 = 0, and Y = 0 (a
 * point of order 2, absent from both curves' groups anyway) gives Z3 = 0.
 *   A = X^2, B = Y^2, C = B^2, D = 2((X+B)^2 - A - C), E = 3A, F = E^2,
 *   X3 = F - 2D, Y3 = E(D - X3) - 8C, Z3 = 2YZ
 */
void CUZK__EC(jac_dbl)(ec_jac *r, const ec_jac *a) {
    fe A, B, C, D, E, F, x3, y3, z3;
    fe_sqr(&A, &a->x);
    fe_sqr(&B, &a->y);
    fe_sqr(&C, &B);
    fe_add(&D, &a->x, &B);
    fe_sqr(&D, &D);
    fe_sub(&D, &D, &A);
    fe_sub(&D, &D, &C);
    fe_dbl(&D, &D);
    fe_tpl(&E, &A);
    fe_sqr(&F, &E);
    fe_mul(&z3, &a->y, &a->z);
    fe_dbl(&z3, &z3);
    fe_dbl(&x3, &D);
    fe_sub(&x3, &F, &x3);
    fe_sub(&y3, &D, &x3);
    fe_mul(&y3, &E, &y3);
    fe_dbl(&C, &C);
    fe_dbl(&C, &C);
    fe_dbl(&C, &C);
    fe_sub(&y3, &y3, &C);
    r->x = x3;
    r->y = y3;
    r->z = z3;
}

/*
 * mdbl-2007-bl: doubling of an affine (Z = 1) point, 1M + 5S.
 *   XX = X^2, YY = Y^2, YYYY = YY^2, S = 2((X+YY)^2 - XX - YYYY), M = 3XX,
 *   X3 = M^2 - 2S, Y3 = M(S - X3) - 8YYYY, Z3 = 2Y
 */
static void jac_dbl_aff(ec_jac *r, const ec_aff *a) {
    fe XX, YY, YYYY, S, M, t, x3, y3, z3;
    fe_sqr(&XX, &a->x);
    fe_sqr(&YY, &a->y);
    fe_sqr(&YYYY, &YY);
    fe_add(&S, &a->x, &YY);
    fe_sqr(&S, &S);
    fe_sub(&S, &S, &XX);
    fe_sub(&S, &S, &YYYY);
    fe_dbl(&S, &S);
    fe_tpl(&M, &XX);
    fe_sqr(&x3, &M);
    fe_dbl(&t, &S);
    fe_sub(&x3, &x3, &t);
    fe_sub(&y3, &S, &x3);
    fe_mul(&y3, &M, &y3);
    fe_dbl(&YYYY, &YYYY);
    fe_dbl(&YYYY, &YYYY);
    fe_dbl(&YYYY, &YYYY);
    fe_sub(&y3, &y3, &YYYY);
    fe_dbl(&z3, &a->y);
    r->x = x3;
    r->y = y3;
    r->z = z3;
}

/*
 * add-2007-bl, 11M + 5S, split in two so the _var version can branch on
 * H = U2 - U1 and R = S2 - S1 between the halves.
 *   Z1Z1 = Z1^2, Z2Z2 = Z2^2, U1 = X1 Z2Z2, U2 = X2 Z1Z1,
 *   S1 = Y1 Z2 Z2Z2, S2 = Y2 Z1 Z1Z1, H = U2 - U1, R = S2 - S1
 */
typedef struct {
    fe z1z1, z2z2, u1, s1, h, r;
} jac_add_state;

static inline void jac_add_start(jac_add_state *st, const ec_jac *a, const ec_jac *b) {
    fe u2, s2;
    fe_sqr(&st->z1z1, &a->z);
    fe_sqr(&st->z2z2, &b->z);
    fe_mul(&st->u1, &a->x, &st->z2z2);
    fe_mul(&u2, &b->x, &st->z1z1);
    fe_mul(&st->s1, &a->y, &b->z);
    fe_mul(&st->s1, &st->s1, &st->z2z2);
    fe_mul(&s2, &b->y, &a->z);
    fe_mul(&s2, &s2, &st->z1z1);
    fe_sub(&st->h, &u2, &st->u1);
    fe_sub(&st->r, &s2, &st->s1);
}

/*   I = (2H)^2, J = H I, r = 2R, V = U1 I, X3 = r^2 - J - 2V,
 *   Y3 = r(V - X3) - 2 S1 J, Z3 = ((Z1+Z2)^2 - Z1Z1 - Z2Z2) H */
static inline void jac_add_finish(ec_jac *out, const jac_add_state *st, const ec_jac *a,
                                  const ec_jac *b) {
    fe I, J, rr, V, t, x3, y3, z3;
    fe_dbl(&I, &st->h);
    fe_sqr(&I, &I);
    fe_mul(&J, &st->h, &I);
    fe_dbl(&rr, &st->r);
    fe_mul(&V, &st->u1, &I);
    fe_add(&z3, &a->z, &b->z);
    fe_sqr(&z3, &z3);
    fe_sub(&z3, &z3, &st->z1z1);
    fe_sub(&z3, &z3, &st->z2z2);
    fe_mul(&z3, &z3, &st->h);
    fe_sqr(&x3, &rr);
    fe_sub(&x3, &x3, &J);
    fe_dbl(&t, &V);
    fe_sub(&x3, &x3, &t);
    fe_sub(&y3, &V, &x3);
    fe_mul(&y3, &rr, &y3);
    fe_mul(&t, &st->s1, &J);
    fe_dbl(&t, &t);
    fe_sub(&y3, &y3, &t);
    out->x = x3;
    out->y = y3;
    out->z = z3;
}

/* Constant time: the generic sum (11M + 5S) and 2a (2M + 5S), then selection. */
void CUZK__EC(jac_add)(ec_jac *r, const ec_jac *a, const ec_jac *b) {
    jac_add_state st;
    ec_jac sum, twice;
    bool a_inf = fe_is_zero(&a->z), b_inf = fe_is_zero(&b->z);
    jac_add_start(&st, a, b);
    bool same = fe_is_zero(&st.h) & fe_is_zero(&st.r);
    jac_add_finish(&sum, &st, a, b);
    CUZK__EC(jac_dbl)(&twice, a);
    jac_cmov(&sum, &twice, same);
    jac_cmov(&sum, b, a_inf);
    jac_cmov(&sum, a, b_inf);
    *r = sum;
}

void CUZK__EC(jac_add_var)(ec_jac *r, const ec_jac *a, const ec_jac *b) {
    if (fe_is_zero(&a->z)) {
        *r = *b;
        return;
    }
    if (fe_is_zero(&b->z)) {
        *r = *a;
        return;
    }
    jac_add_state st;
    jac_add_start(&st, a, b);
    if (fe_is_zero(&st.h)) {
        if (fe_is_zero(&st.r))
            CUZK__EC(jac_dbl)(r, a);
        else
            CUZK__EC(jac_set_inf)(r);
        return;
    }
    jac_add_finish(r, &st, a, b);
}

/*
 * madd-2007-bl (Z2 = 1), 7M + 4S:
 *   Z1Z1 = Z1^2, U2 = X2 Z1Z1, S2 = Y2 Z1 Z1Z1, H = U2 - X1, R = S2 - Y1,
 *   HH = H^2, I = 4HH, J = H I, r = 2R, V = X1 I, X3 = r^2 - J - 2V,
 *   Y3 = r(V - X3) - 2 Y1 J, Z3 = (Z1+H)^2 - Z1Z1 - HH
 */
typedef struct {
    fe z1z1, h, r;
} jac_madd_state;

static inline void jac_madd_start(jac_madd_state *st, const ec_jac *a, const ec_aff *b) {
    fe u2, s2;
    fe_sqr(&st->z1z1, &a->z);
    fe_mul(&u2, &b->x, &st->z1z1);
    fe_mul(&s2, &b->y, &a->z);
    fe_mul(&s2, &s2, &st->z1z1);
    fe_sub(&st->h, &u2, &a->x);
    fe_sub(&st->r, &s2, &a->y);
}

static inline void jac_madd_finish(ec_jac *out, const jac_madd_state *st, const ec_jac *a) {
    fe HH, I, J, rr, V, t, x3, y3, z3;
    fe_sqr(&HH, &st->h);
    fe_dbl(&I, &HH);
    fe_dbl(&I, &I);
    fe_mul(&J, &st->h, &I);
    fe_dbl(&rr, &st->r);
    fe_mul(&V, &a->x, &I);
    fe_add(&z3, &a->z, &st->h);
    fe_sqr(&z3, &z3);
    fe_sub(&z3, &z3, &st->z1z1);
    fe_sub(&z3, &z3, &HH);
    fe_sqr(&x3, &rr);
    fe_sub(&x3, &x3, &J);
    fe_dbl(&t, &V);
    fe_sub(&x3, &x3, &t);
    fe_sub(&y3, &V, &x3);
    fe_mul(&y3, &rr, &y3);
    fe_mul(&t, &a->y, &J);
    fe_dbl(&t, &t);
    fe_sub(&y3, &y3, &t);
    out->x = x3;
    out->y = y3;
    out->z = z3;
}

/* Constant time: madd (7M + 4S) and 2b (1M + 5S), then selection. */
void CUZK__EC(jac_add_aff)(ec_jac *r, const ec_jac *a, const ec_aff *b) {
    jac_madd_state st;
    ec_jac sum, twice, bj;
    bool a_inf = fe_is_zero(&a->z), b_inf = CUZK__EC(aff_is_inf)(b);
    jac_madd_start(&st, a, b);
    bool same = fe_is_zero(&st.h) & fe_is_zero(&st.r);
    jac_madd_finish(&sum, &st, a);
    jac_dbl_aff(&twice, b);
    CUZK__EC(aff_to_jac)(&bj, b);
    jac_cmov(&sum, &twice, same);
    jac_cmov(&sum, &bj, a_inf);
    jac_cmov(&sum, a, b_inf);
    *r = sum;
}

void CUZK__EC(jac_add_aff_var)(ec_jac *r, const ec_jac *a, const ec_aff *b) {
    if (CUZK__EC(aff_is_inf)(b)) {
        *r = *a;
        return;
    }
    if (fe_is_zero(&a->z)) {
        CUZK__EC(aff_to_jac)(r, b);
        return;
    }
    jac_madd_state st;
    jac_madd_start(&st, a, b);
    if (fe_is_zero(&st.h)) {
        if (fe_is_zero(&st.r))
            jac_dbl_aff(r, b);
        else
            CUZK__EC(jac_set_inf)(r);
        return;
    }
    jac_madd_finish(r, &st, a);
}

/* Cross-multiplied comparison, 6M + 2S: X1 Z2^2 = X2 Z1^2 and Y1 Z2^3 = Y2 Z1^3. */
bool CUZK__EC(jac_eq)(const ec_jac *a, const ec_jac *b) {
    fe z1z1, z2z2, u1, u2, s1, s2;
    bool a_inf = fe_is_zero(&a->z), b_inf = fe_is_zero(&b->z);
    fe_sqr(&z1z1, &a->z);
    fe_sqr(&z2z2, &b->z);
    fe_mul(&u1, &a->x, &z2z2);
    fe_mul(&u2, &b->x, &z1z1);
    fe_mul(&s1, &a->y, &b->z);
    fe_mul(&s1, &s1, &z2z2);
    fe_mul(&s2, &b->y, &a->z);
    fe_mul(&s2, &s2, &z1z1);
    bool same = fe_eq(&u1, &u2) & fe_eq(&s1, &s2);
    return (a_inf & b_inf) | (!a_inf & !b_inf & same);
}

bool CUZK__EC(aff_eq)(const ec_aff *a, const ec_aff *b) {
    return fe_eq(&a->x, &b->x) & fe_eq(&a->y, &b->y);
}

/* ---- XYZZ arithmetic -------------------------------------------------------- */

/*
 * dbl-2008-s-1 (a = 0), 6M + 3S; complete (ZZ = 0 or Y = 0 give ZZ3 = 0).
 *   U = 2Y, V = U^2, W = U V, S = X V, M = 3X^2,
 *   X3 = M^2 - 2S, Y3 = M(S - X3) - W Y, ZZ3 = V ZZ, ZZZ3 = W ZZZ
 */
void CUZK__EC(xyzz_dbl)(ec_xyzz *r, const ec_xyzz *a) {
    fe U, V, W, S, M, t, x3, y3;
    fe_dbl(&U, &a->y);
    fe_sqr(&V, &U);
    fe_mul(&W, &U, &V);
    fe_mul(&S, &a->x, &V);
    fe_sqr(&M, &a->x);
    fe_tpl(&M, &M);
    fe_sqr(&x3, &M);
    fe_dbl(&t, &S);
    fe_sub(&x3, &x3, &t);
    fe_sub(&y3, &S, &x3);
    fe_mul(&y3, &M, &y3);
    fe_mul(&t, &W, &a->y);
    fe_sub(&y3, &y3, &t);
    fe_mul(&r->zz, &V, &a->zz);
    fe_mul(&r->zzz, &W, &a->zzz);
    r->x = x3;
    r->y = y3;
}

/* mdbl-2008-s-1: the same with ZZ = ZZZ = 1, 4M + 3S. */
static void xyzz_dbl_aff(ec_xyzz *r, const ec_aff *a) {
    fe U, V, W, S, M, t, x3, y3;
    fe_dbl(&U, &a->y);
    fe_sqr(&V, &U);
    fe_mul(&W, &U, &V);
    fe_mul(&S, &a->x, &V);
    fe_sqr(&M, &a->x);
    fe_tpl(&M, &M);
    fe_sqr(&x3, &M);
    fe_dbl(&t, &S);
    fe_sub(&x3, &x3, &t);
    fe_sub(&y3, &S, &x3);
    fe_mul(&y3, &M, &y3);
    fe_mul(&t, &W, &a->y);
    fe_sub(&y3, &y3, &t);
    r->x = x3;
    r->y = y3;
    r->zz = V;
    r->zzz = W;
}

/*
 * The second half of add-2008-s / madd-2008-s, 6M + 2S here:
 *   PP = P^2, PPP = P PP, Q = U1 PP, X3 = R^2 - PPP - 2Q,
 *   Y3 = R(Q - X3) - S1 PPP, ZZ3 = zz PP, ZZZ3 = zzz PPP
 * where zz, zzz are ZZ1 ZZ2, ZZZ1 ZZZ2 (add) or ZZ1, ZZZ1 (madd).
 */
static inline void xyzz_add_finish(ec_xyzz *out, const fe *u1, const fe *s1, const fe *P,
                                   const fe *R, const fe *zz, const fe *zzz) {
    fe PP, PPP, Q, t, x3, y3;
    fe_sqr(&PP, P);
    fe_mul(&PPP, P, &PP);
    fe_mul(&Q, u1, &PP);
    fe_sqr(&x3, R);
    fe_sub(&x3, &x3, &PPP);
    fe_dbl(&t, &Q);
    fe_sub(&x3, &x3, &t);
    fe_sub(&y3, &Q, &x3);
    fe_mul(&y3, R, &y3);
    fe_mul(&t, s1, &PPP);
    fe_sub(&y3, &y3, &t);
    fe_mul(&out->zz, zz, &PP);
    fe_mul(&out->zzz, zzz, &PPP);
    out->x = x3;
    out->y = y3;
}

/* add-2008-s first half, 6M: U1 = X1 ZZ2, U2 = X2 ZZ1, S1 = Y1 ZZZ2,
 * S2 = Y2 ZZZ1, P = U2 - U1, R = S2 - S1, and the ZZ/ZZZ products. */
typedef struct {
    fe u1, s1, p, r, zz, zzz;
} xyzz_add_state;

static inline void xyzz_add_start(xyzz_add_state *st, const ec_xyzz *a, const ec_xyzz *b) {
    fe u2, s2;
    fe_mul(&st->u1, &a->x, &b->zz);
    fe_mul(&u2, &b->x, &a->zz);
    fe_mul(&st->s1, &a->y, &b->zzz);
    fe_mul(&s2, &b->y, &a->zzz);
    fe_sub(&st->p, &u2, &st->u1);
    fe_sub(&st->r, &s2, &st->s1);
    fe_mul(&st->zz, &a->zz, &b->zz);
    fe_mul(&st->zzz, &a->zzz, &b->zzz);
}

/* Constant time: add-2008-s (12M + 2S) and 2a (6M + 3S), then selection. */
void CUZK__EC(xyzz_add)(ec_xyzz *r, const ec_xyzz *a, const ec_xyzz *b) {
    xyzz_add_state st;
    ec_xyzz sum, twice;
    bool a_inf = fe_is_zero(&a->zz), b_inf = fe_is_zero(&b->zz);
    xyzz_add_start(&st, a, b);
    bool same = fe_is_zero(&st.p) & fe_is_zero(&st.r);
    xyzz_add_finish(&sum, &st.u1, &st.s1, &st.p, &st.r, &st.zz, &st.zzz);
    CUZK__EC(xyzz_dbl)(&twice, a);
    xyzz_cmov(&sum, &twice, same);
    xyzz_cmov(&sum, b, a_inf);
    xyzz_cmov(&sum, a, b_inf);
    *r = sum;
}

void CUZK__EC(xyzz_add_var)(ec_xyzz *r, const ec_xyzz *a, const ec_xyzz *b) {
    if (fe_is_zero(&a->zz)) {
        *r = *b;
        return;
    }
    if (fe_is_zero(&b->zz)) {
        *r = *a;
        return;
    }
    xyzz_add_state st;
    xyzz_add_start(&st, a, b);
    if (fe_is_zero(&st.p)) {
        if (fe_is_zero(&st.r))
            CUZK__EC(xyzz_dbl)(r, a);
        else
            CUZK__EC(xyzz_set_inf)(r);
        return;
    }
    xyzz_add_finish(r, &st.u1, &st.s1, &st.p, &st.r, &st.zz, &st.zzz);
}

/* madd-2008-s first half, 2M: U2 = X2 ZZ1, S2 = Y2 ZZZ1, P = U2 - X1, R = S2 - Y1. */
static inline void xyzz_madd_start(fe *P, fe *R, const ec_xyzz *a, const ec_aff *b) {
    fe u2, s2;
    fe_mul(&u2, &b->x, &a->zz);
    fe_mul(&s2, &b->y, &a->zzz);
    fe_sub(P, &u2, &a->x);
    fe_sub(R, &s2, &a->y);
}

/* Constant time: madd-2008-s (8M + 2S) and 2b (4M + 3S), then selection. */
void CUZK__EC(xyzz_add_aff)(ec_xyzz *r, const ec_xyzz *a, const ec_aff *b) {
    fe P, R;
    ec_xyzz sum, twice, bx;
    bool a_inf = fe_is_zero(&a->zz), b_inf = CUZK__EC(aff_is_inf)(b);
    xyzz_madd_start(&P, &R, a, b);
    bool same = fe_is_zero(&P) & fe_is_zero(&R);
    xyzz_add_finish(&sum, &a->x, &a->y, &P, &R, &a->zz, &a->zzz);
    xyzz_dbl_aff(&twice, b);
    CUZK__EC(aff_to_xyzz)(&bx, b);
    xyzz_cmov(&sum, &twice, same);
    xyzz_cmov(&sum, &bx, a_inf);
    xyzz_cmov(&sum, a, b_inf);
    *r = sum;
}

void CUZK__EC(xyzz_add_aff_var)(ec_xyzz *r, const ec_xyzz *a, const ec_aff *b) {
    if (CUZK__EC(aff_is_inf)(b)) {
        *r = *a;
        return;
    }
    if (fe_is_zero(&a->zz)) {
        CUZK__EC(aff_to_xyzz)(r, b);
        return;
    }
    fe P, R;
    xyzz_madd_start(&P, &R, a, b);
    if (fe_is_zero(&P)) {
        if (fe_is_zero(&R))
            xyzz_dbl_aff(r, b);
        else
            CUZK__EC(xyzz_set_inf)(r);
        return;
    }
    /* out may alias a: the finish reads a's fields before it writes out's. */
    ec_xyzz sum;
    xyzz_add_finish(&sum, &a->x, &a->y, &P, &R, &a->zz, &a->zzz);
    *r = sum;
}

/* ---- curve membership ------------------------------------------------------- */

bool CUZK__EC(aff_is_on_curve)(const ec_aff *a) {
    fe lhs, rhs, b;
    fe_load(&b, ec_b_limbs);
    fe_sqr(&lhs, &a->y);
    fe_sqr(&rhs, &a->x);
    fe_mul(&rhs, &rhs, &a->x);
    fe_add(&rhs, &rhs, &b);
    return fe_eq(&lhs, &rhs) | (unsigned)CUZK__EC(aff_is_inf)(a);
}

/* Y^2 = X^3 + b Z^6 */
bool CUZK__EC(jac_is_on_curve)(const ec_jac *a) {
    fe lhs, rhs, z6, b;
    fe_load(&b, ec_b_limbs);
    fe_sqr(&lhs, &a->y);
    fe_sqr(&rhs, &a->x);
    fe_mul(&rhs, &rhs, &a->x);
    fe_sqr(&z6, &a->z);
    fe_mul(&z6, &z6, &a->z);
    fe_sqr(&z6, &z6);
    fe_mul(&z6, &z6, &b);
    fe_add(&rhs, &rhs, &z6);
    return fe_eq(&lhs, &rhs) | fe_is_zero(&a->z);
}

/* ---- scalar multiplication -------------------------------------------------- */

/* 1 when a == b, without a branch (a, b < 16). */
static inline bool ec_small_eq(unsigned a, unsigned b) {
    uint64_t d = (uint64_t)(a ^ b);
    return (bool)(1 ^ ((d | (0 - d)) >> 63));
}

/*
 * Constant time in a and k: fixed 4-bit windows over all 64 nlimbs bits, each
 * window 4 doublings, a lookup that reads all 16 table entries, and one
 * complete addition (the table entry may be infinity, or equal to the
 * accumulator when a has small order). Cost for 256 bits: 256 dbl + 64 add
 * + 14 for the table.
 */
void CUZK__EC(jac_mul)(ec_jac *r, const ec_jac *a, const uint64_t *k, size_t nlimbs) {
    ec_jac tbl[16], acc, sel;
    CUZK__EC(jac_set_inf)(&tbl[0]);
    tbl[1] = *a;
    for (unsigned i = 2; i < 16; i += 2) {
        CUZK__EC(jac_dbl)(&tbl[i], &tbl[i / 2]);
        CUZK__EC(jac_add)(&tbl[i + 1], &tbl[i], a);
    }
    CUZK__EC(jac_set_inf)(&acc);
    for (size_t w = nlimbs * 16; w-- > 0;) {
        for (int j = 0; j < 4; j++) CUZK__EC(jac_dbl)(&acc, &acc);
        unsigned digit = (unsigned)(k[w / 16] >> (4 * (w % 16))) & 15;
        sel = tbl[0];
        for (unsigned i = 1; i < 16; i++) jac_cmov(&sel, &tbl[i], ec_small_eq(i, digit));
        CUZK__EC(jac_add)(&acc, &acc, &sel);
    }
    *r = acc;
    /* the table and the selected entries reveal a and k; clear them */
    volatile uint8_t *wipe = (volatile uint8_t *)tbl;
    for (size_t i = 0; i < sizeof(tbl); i++) wipe[i] = 0;
    wipe = (volatile uint8_t *)&sel;
    for (size_t i = 0; i < sizeof(sel); i++) wipe[i] = 0;
}

/* Left-to-right binary method for long public scalars (variable time). */
static void jac_mul_binary_var(ec_jac *r, const ec_jac *a, const uint64_t *k, size_t nlimbs) {
    ec_jac acc;
    CUZK__EC(jac_set_inf)(&acc);
    for (size_t i = nlimbs; i-- > 0;)
        for (int bit = 63; bit >= 0; bit--) {
            CUZK__EC(jac_dbl)(&acc, &acc);
            if ((k[i] >> bit) & 1) CUZK__EC(jac_add_var)(&acc, &acc, a);
        }
    *r = acc;
}

#define EC_WNAF_W 5
#define EC_WNAF_MAX_LIMBS 8

/*
 * Width-5 NAF: digits in {0, +-1, +-3, ..., +-15}, a nonzero digit followed by
 * at least 4 zeros, so about bits/6 additions; the table holds a, 3a, ..., 15a
 * (1 dbl + 7 add). Returns the digit count. k has nlimbs <= EC_WNAF_MAX_LIMBS.
 */
static size_t ec_wnaf(int8_t *digits, const uint64_t *k, size_t nlimbs) {
    uint64_t t[EC_WNAF_MAX_LIMBS + 1] = {0};
    memcpy(t, k, nlimbs * sizeof(uint64_t));
    size_t n = nlimbs + 1, count = 0;
    for (;;) {
        uint64_t any = 0;
        for (size_t i = 0; i < n; i++) any |= t[i];
        if (!any) break;
        int d = 0;
        if (t[0] & 1) {
            d = (int)(t[0] & ((1u << EC_WNAF_W) - 1));
            if (d >= (1 << (EC_WNAF_W - 1))) d -= 1 << EC_WNAF_W;
            /* t -= d: clears the low W bits; a negative d adds |d| and carries */
            uint64_t c = 0;
            if (d > 0) {
                t[0] = cuzk__sbb(t[0], (uint64_t)d, &c);
                for (size_t i = 1; i < n && c; i++) t[i] = cuzk__sbb(t[i], 0, &c);
            } else {
                t[0] = cuzk__adc(t[0], (uint64_t)(-d), &c);
                for (size_t i = 1; i < n && c; i++) t[i] = cuzk__adc(t[i], 0, &c);
            }
        }
        digits[count++] = (int8_t)d;
        for (size_t i = 0; i + 1 < n; i++) t[i] = (t[i] >> 1) | (t[i + 1] << 63);
        t[n - 1] >>= 1;
    }
    return count;
}

void CUZK__EC(jac_mul_var)(ec_jac *r, const ec_jac *a, const uint64_t *k, size_t nlimbs) {
    while (nlimbs > 0 && k[nlimbs - 1] == 0) nlimbs--;
    if (nlimbs == 0 || fe_is_zero(&a->z)) {
        CUZK__EC(jac_set_inf)(r);
        return;
    }
    if (nlimbs > EC_WNAF_MAX_LIMBS) {
        jac_mul_binary_var(r, a, k, nlimbs);
        return;
    }
    int8_t digits[64 * EC_WNAF_MAX_LIMBS + 1];
    size_t n = ec_wnaf(digits, k, nlimbs);
    ec_jac tbl[1 << (EC_WNAF_W - 2)], twice, acc, neg;
    tbl[0] = *a;
    CUZK__EC(jac_dbl)(&twice, a);
    for (size_t i = 1; i < sizeof(tbl) / sizeof(tbl[0]); i++)
        CUZK__EC(jac_add_var)(&tbl[i], &tbl[i - 1], &twice);
    CUZK__EC(jac_set_inf)(&acc);
    for (size_t i = n; i-- > 0;) {
        CUZK__EC(jac_dbl)(&acc, &acc);
        int d = digits[i];
        if (d > 0) {
            CUZK__EC(jac_add_var)(&acc, &acc, &tbl[d >> 1]);
        } else if (d < 0) {
            CUZK__EC(jac_neg)(&neg, &tbl[(-d) >> 1]);
            CUZK__EC(jac_add_var)(&acc, &acc, &neg);
        }
    }
    *r = acc;
}

/* r = |x| a for the BLS seed x: 63 dbl + 5 add (|x| has 6 bits set). */
static void jac_mul_by_x_abs_var(ec_jac *r, const ec_jac *a) {
    const uint64_t x = CUZK__BLS_X_ABS;
    ec_jac acc = *a;
    for (int bit = 62; bit >= 0; bit--) {
        CUZK__EC(jac_dbl)(&acc, &acc);
        if ((x >> bit) & 1) CUZK__EC(jac_add_var)(&acc, &acc, a);
    }
    *r = acc;
}

static const uint64_t ec_group_order[4] = CUZK__FR_R;

bool CUZK__EC(aff_in_subgroup_naive_var)(const ec_aff *a) {
    if (!CUZK__EC(aff_is_on_curve)(a)) return false;
    ec_jac p, t;
    CUZK__EC(aff_to_jac)(&p, a);
    CUZK__EC(jac_mul_var)(&t, &p, ec_group_order, 4);
    return CUZK__EC(jac_is_inf)(&t);
}
