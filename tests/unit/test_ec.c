/*
 * Tests of G1 and G2 (src/ec/g1.h, g2.h).
 *
 * Independent references: the generators and a few known multiples (2G, K G)
 * were computed with plain Python big-int affine arithmetic and are written
 * here as canonical big-endian hex; additions are compared with a textbook
 * affine chord-and-tangent addition written in this file; scalar products are
 * tied together through Fr arithmetic (linearity mod r). The generic part below
 * is stamped once per group by including this file into itself.
 */
#ifndef TEST_EC_STAMP

#include "ff/fr.h"
#include "ec/g1.h"
#include "ec/g2.h"
#include "harness.h"
#include "test_util.h"

/* ---- field helpers (non-generic) ---- */

static void fp_from_hex(cuzk_fp *r, const char *hex) {
    uint8_t b[CUZK_FP_BYTES];
    for (int i = 0; i < CUZK_FP_BYTES; i++) {
        unsigned v;
        sscanf(hex + 2 * i, "%2x", &v);
        b[i] = (uint8_t)v;
    }
    if (!cuzk_fp_from_bytes_be(r, b)) {
        fprintf(stderr, "bad test constant %s\n", hex);
        abort();
    }
}
static void fe_from_hex_fp(cuzk_fp *r, const char *const *hex) { fp_from_hex(r, hex[0]); }
static void fe_from_hex_fp2(cuzk_fp2 *r, const char *const *hex) {
    fp_from_hex(&r->c0, hex[0]);
    fp_from_hex(&r->c1, hex[1]);
}

static void rand_fe_fp(cuzk_fp *r) { cuzk_test_rand_fp(r); }
static void rand_fe_fp2(cuzk_fp2 *r) {
    cuzk_test_rand_fp(&r->c0);
    cuzk_test_rand_fp(&r->c1);
}
static void b_fp(cuzk_fp *r) { cuzk_fp_from_u64(r, 4); }
static void b_fp2(cuzk_fp2 *r) {
    cuzk_fp_from_u64(&r->c0, 4);
    cuzk_fp_from_u64(&r->c1, 4);
}
static bool sqrt_fp(cuzk_fp *r, const cuzk_fp *a) { return cuzk_fp_sqrt(r, a); }
static bool sqrt_fp2(cuzk_fp2 *r, const cuzk_fp2 *a) { return cuzk_fp2_sqrt_var(r, a); }

/* ---- scalars ---- */

static const uint64_t order_r[4] = CUZK__FR_R;

/* plain limbs (< r) <-> Fr, for reference arithmetic mod r */
static void scalar_mul_mod_r(uint64_t out[4], const uint64_t a[4], const uint64_t b[4]) {
    cuzk_fr x, y;
    cuzk_fr_from_limbs(&x, a);
    cuzk_fr_from_limbs(&y, b);
    cuzk_fr_mul(&x, &x, &y);
    cuzk_fr_to_limbs(out, &x);
}
static void scalar_add_mod_r(uint64_t out[4], const uint64_t a[4], const uint64_t b[4]) {
    cuzk_fr x, y;
    cuzk_fr_from_limbs(&x, a);
    cuzk_fr_from_limbs(&y, b);
    cuzk_fr_add(&x, &x, &y);
    cuzk_fr_to_limbs(out, &x);
}
static void scalar_neg_mod_r(uint64_t out[4], const uint64_t a[4]) {
    cuzk_fr x;
    cuzk_fr_from_limbs(&x, a);
    cuzk_fr_neg(&x, &x);
    cuzk_fr_to_limbs(out, &x);
}

/* K and its multiples of the generators, from the Python reference. */
static const uint64_t known_k[4] = {0x78a894fd7ab96edcULL, 0x938102b0f9394781ULL,
                                    0x33f86bd107152582ULL, 0x0d8b7f00e437aa9fULL};

static const char *const g1_gen_x[] = {
    "17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb"};
static const char *const g1_gen_y[] = {
    "08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1"};
static const char *const g1_two_x[] = {
    "0572cbea904d67468808c8eb50a9450c9721db309128012543902d0ac358a62ae28f75bb8f1c7c42c39a8c5529bf0f4e"};
static const char *const g1_two_y[] = {
    "166a9d8cabc673a322fda673779d8e3822ba3ecb8670e461f73bb9021d5fd76a4c56d9d4cd16bd1bba86881979749d28"};
static const char *const g1_k_x[] = {
    "06f6b96eabe017575660fbb0f712aff8b39d96684891d0d1a2d281af986ee961239ddfee5690295c4d129a4d2e7b4932"};
static const char *const g1_k_y[] = {
    "16c3b0b97d26fb626e0d3fc362d5795cbb134aca0bde44fc9a4c2757a5146585e223fc94cb36555af5f2385faea0e9e2"};

static const char *const g2_gen_x[] = {
    "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8",
    "13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e"};
static const char *const g2_gen_y[] = {
    "0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801",
    "0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be"};
static const char *const g2_two_x[] = {
    "1638533957d540a9d2370f17cc7ed5863bc0b995b8825e0ee1ea1e1e4d00dbae81f14b0bf3611b78c952aacab827a053",
    "0a4edef9c1ed7f729f520e47730a124fd70662a904ba1074728114d1031e1572c6c886f6b57ec72a6178288c47c33577"};
static const char *const g2_two_y[] = {
    "0468fb440d82b0630aeb8dca2b5256789a66da69bf91009cbfe6bd221e47aa8ae88dece9764bf3bd999d95d71e4c9899",
    "0f6d4552fa65dd2638b361543f887136a43253d9c66c411697003f7a13c308f5422e1aa0a59c8967acdefd8b6e36ccf3"};
static const char *const g2_k_x[] = {
    "08c1645223823bfaafc4ee7b6160411a910580152f49d9a4f380604236fa786738bd357f01d558d15e64cb5d4ecf7975",
    "0189b1103f89305f164f68b4e917620ec990bd7ab21a7228cc4abc6cd6c45cafa80a14108cc4d5cd844d98d240e36aa3"};
static const char *const g2_k_y[] = {
    "093282b49d48d7ca3d4bed424c9e22f85b10be83212fee66b679b6032e48839ad18e10c63f0a55f6b67b287a0113613e",
    "064766f770ee6dfa87579f35a52d84edca4025660a73a703e0960e3bc97d800064c75ac41858d2016edcb9648fdaaac6"};

#define TEST_EC_STAMP 1

#define G(name) cuzk_g1_##name
#define T(name) g1_##name
#define FE cuzk_fp
#define FEOP(name) cuzk_fp_##name
#define FE_SFX(name) name##_fp
#include __FILE__
#undef G
#undef T
#undef FE
#undef FEOP
#undef FE_SFX

#define G(name) cuzk_g2_##name
#define T(name) g2_##name
#define FE cuzk_fp2
#define FEOP(name) cuzk_fp2_##name
#define FE_SFX(name) name##_fp2
#include __FILE__

/* ---- group-specific tests ---- */

static const uint64_t x_abs = CUZK__BLS_X_ABS;

/* beta is a nontrivial cube root of unity and phi acts on G1 as -x^2. */
static void test_g1_endomorphism(void) {
    cuzk_fp beta = {CUZK__G1_BETA}, t;
    cuzk_fp_sqr(&t, &beta);
    cuzk_fp_mul(&t, &t, &beta);
    CHECK(cuzk_fp_is_one(&t));
    CHECK(!cuzk_fp_is_one(&beta));
    /* lambda = -x^2 mod r */
    uint64_t xl[4] = {x_abs, 0, 0, 0}, lam[4];
    scalar_mul_mod_r(lam, xl, xl);
    scalar_neg_mod_r(lam, lam);
    for (unsigned long it = 0; it < ITERS(3); it++) {
        cuzk_g1_aff g, pa;
        cuzk_g1_jac p, lp, phi;
        cuzk_g1_generator(&g);
        cuzk_g1_aff_to_jac(&p, &g);
        if (it > 0) {
            uint64_t k[4];
            cuzk_test_rand_scalar(k);
            cuzk_g1_jac_mul_var(&p, &p, k, 4);
        }
        cuzk_g1_jac_to_aff(&pa, &p);
        cuzk_g1_jac_mul(&lp, &p, lam, 4);
        cuzk_g1_aff_to_jac(&phi, &pa);
        cuzk_fp_mul(&phi.x, &phi.x, &beta);
        CHECK(cuzk_g1_jac_eq(&phi, &lp));
    }
}

/* psi acts on G2 as x (negative): psi(P) = (r - |x|) P. */
static void test_g2_endomorphism(void) {
    uint64_t xl[4] = {x_abs, 0, 0, 0}, lam[4];
    scalar_neg_mod_r(lam, xl);
    for (unsigned long it = 0; it < ITERS(3); it++) {
        cuzk_g2_aff g, pa, q;
        cuzk_g2_jac p, lp, qj;
        cuzk_g2_generator(&g);
        cuzk_g2_aff_to_jac(&p, &g);
        if (it > 0) {
            uint64_t k[4];
            cuzk_test_rand_scalar(k);
            cuzk_g2_jac_mul_var(&p, &p, k, 4);
        }
        cuzk_g2_jac_to_aff(&pa, &p);
        cuzk_g2_jac_mul(&lp, &p, lam, 4);
        cuzk_g2_aff_psi(&q, &pa);
        cuzk_g2_aff_to_jac(&qj, &q);
        CHECK(cuzk_g2_jac_eq(&qj, &lp));
    }
}

/* (0, 2) lies on y^2 = x^3 + 4 and has order 3 (its tangent is y = 2, which
 * meets the curve only there): the scalar multiplications must survive the
 * table hitting infinity and the accumulator equal to the table entry. */
static void test_g1_order3_point(void) {
    cuzk_g1_aff t;
    cuzk_fp_set_zero(&t.x);
    cuzk_fp_from_u64(&t.y, 2);
    CHECK(cuzk_g1_aff_is_on_curve(&t));
    CHECK(!cuzk_g1_aff_in_subgroup_var(&t));
    CHECK(!cuzk_g1_aff_in_subgroup_naive_var(&t));
    cuzk_g1_jac tj, a, b, neg;
    cuzk_g1_aff_to_jac(&tj, &t);
    cuzk_g1_jac_neg(&neg, &tj);
    for (uint64_t k = 0; k < 40; k++) {
        uint64_t kk[1] = {k};
        cuzk_g1_jac_mul(&a, &tj, kk, 1);
        cuzk_g1_jac_mul_var(&b, &tj, kk, 1);
        CHECK(cuzk_g1_jac_eq(&a, &b));
        if (k % 3 == 0) CHECK(cuzk_g1_jac_is_inf(&a));
        if (k % 3 == 1) CHECK(cuzk_g1_jac_eq(&a, &tj));
        if (k % 3 == 2) CHECK(cuzk_g1_jac_eq(&a, &neg));
    }
    /* order 3 also means 2T = -T */
    cuzk_g1_jac_dbl(&a, &tj);
    CHECK(cuzk_g1_jac_eq(&a, &neg));
}

int main(int argc, char **argv) {
    cuzk_test_init(argc, argv);
    RUN(g1_test_generator);
    RUN(g1_test_known_multiples);
    RUN(g1_test_order);
    RUN(g1_test_jac_laws);
    RUN(g1_test_mixed_and_xyzz);
    RUN(g1_test_scalar_mul);
    RUN(g1_test_edge_scalars);
    RUN(g1_test_batch_to_aff);
    RUN(g1_test_subgroup);
    RUN(g1_test_off_curve);
    RUN(test_g1_endomorphism);
    RUN(test_g1_order3_point);
    RUN(g2_test_generator);
    RUN(g2_test_known_multiples);
    RUN(g2_test_order);
    RUN(g2_test_jac_laws);
    RUN(g2_test_mixed_and_xyzz);
    RUN(g2_test_scalar_mul);
    RUN(g2_test_edge_scalars);
    RUN(g2_test_batch_to_aff);
    RUN(g2_test_subgroup);
    RUN(g2_test_off_curve);
    RUN(test_g2_endomorphism);
    return cuzk_test_finish();
}

#else /* TEST_EC_STAMP: the generic tests, once per group */

typedef G(aff) T(aff);
typedef G(jac) T(jac);
typedef G(xyzz) T(xyzz);

/* the same point with Z scaled by a random lambda: (l^2 X, l^3 Y, l Z) */
static void T(rescale)(T(jac) * r, const T(jac) * a) {
    FE l, l2, l3;
    do FE_SFX(rand_fe)(&l);
    while (FEOP(is_zero)(&l));
    FEOP(sqr)(&l2, &l);
    FEOP(mul)(&l3, &l2, &l);
    FEOP(mul)(&r->x, &a->x, &l2);
    FEOP(mul)(&r->y, &a->y, &l3);
    FEOP(mul)(&r->z, &a->z, &l);
}

/* a random subgroup point k G with a random Z */
static void T(rand_point)(T(jac) * r) {
    T(aff) g;
    T(jac) gj;
    uint64_t k[4];
    cuzk_test_rand_scalar(k);
    G(generator)(&g);
    G(aff_to_jac)(&gj, &g);
    G(jac_mul_var)(r, &gj, k, 4);
    T(rescale)(r, r);
}

static void T(jac_of)(T(jac) * r, const char *const *hx, const char *const *hy) {
    T(aff) a;
    FE_SFX(fe_from_hex)(&a.x, hx);
    FE_SFX(fe_from_hex)(&a.y, hy);
    G(aff_to_jac)(r, &a);
}

/* Textbook affine addition (finite inputs, p != -q), with field inversions. */
static void T(ref_add)(T(aff) * r, const T(aff) * p, const T(aff) * q) {
    FE num, den, lam, t;
    if (FEOP(eq)(&p->x, &q->x)) {
        FEOP(sqr)(&t, &p->x);
        FEOP(add)(&num, &t, &t);
        FEOP(add)(&num, &num, &t);
        FEOP(add)(&den, &p->y, &p->y);
    } else {
        FEOP(sub)(&num, &q->y, &p->y);
        FEOP(sub)(&den, &q->x, &p->x);
    }
    FEOP(inv)(&den, &den);
    FEOP(mul)(&lam, &num, &den);
    FE x3, y3;
    FEOP(sqr)(&x3, &lam);
    FEOP(sub)(&x3, &x3, &p->x);
    FEOP(sub)(&x3, &x3, &q->x);
    FEOP(sub)(&t, &p->x, &x3);
    FEOP(mul)(&y3, &lam, &t);
    FEOP(sub)(&y3, &y3, &p->y);
    r->x = x3;
    r->y = y3;
}

static bool T(xyzz_eq_jac)(const T(xyzz) * a, const T(jac) * b) {
    T(jac) t;
    G(xyzz_to_jac)(&t, a);
    return G(jac_eq)(&t, b) && G(jac_is_on_curve)(&t);
}

static void T(test_generator)(void) {
    T(aff) g, ref;
    T(jac) gj;
    G(generator)(&g);
    FE_SFX(fe_from_hex)(&ref.x, T(gen_x));
    FE_SFX(fe_from_hex)(&ref.y, T(gen_y));
    CHECK(G(aff_eq)(&g, &ref));
    CHECK(G(aff_is_on_curve)(&g));
    CHECK(!G(aff_is_inf)(&g));
    G(aff_to_jac)(&gj, &g);
    CHECK(G(jac_is_on_curve)(&gj));
    T(rescale)(&gj, &gj);
    CHECK(G(jac_is_on_curve)(&gj));
    CHECK(G(aff_in_subgroup_var)(&g));
    CHECK(G(aff_in_subgroup_naive_var)(&g));
    /* the curve constant: y^2 - x^3 of the standard generator is b */
    FE b, t, u;
    FE_SFX(b)(&b);
    FEOP(sqr)(&t, &ref.y);
    FEOP(sqr)(&u, &ref.x);
    FEOP(mul)(&u, &u, &ref.x);
    FEOP(sub)(&t, &t, &u);
    CHECK(FEOP(eq)(&t, &b));
    /* infinity */
    T(aff) inf;
    T(jac) ij;
    T(xyzz) ix;
    G(aff_set_inf)(&inf);
    G(jac_set_inf)(&ij);
    G(xyzz_set_inf)(&ix);
    CHECK(G(aff_is_inf)(&inf) && G(jac_is_inf)(&ij) && G(xyzz_is_inf)(&ix));
    CHECK(G(aff_is_on_curve)(&inf) && G(jac_is_on_curve)(&ij));
    CHECK(G(aff_in_subgroup_var)(&inf) && G(aff_in_subgroup_naive_var)(&inf));
    G(aff_to_jac)(&gj, &inf);
    CHECK(G(jac_is_inf)(&gj));
    G(jac_to_aff)(&g, &ij);
    CHECK(G(aff_is_inf)(&g));
    G(jac_to_aff_var)(&g, &ij);
    CHECK(G(aff_is_inf)(&g));
    G(aff_to_xyzz)(&ix, &inf);
    CHECK(G(xyzz_is_inf)(&ix));
    G(xyzz_to_jac)(&gj, &ix);
    CHECK(G(jac_is_inf)(&gj));
    /* ZZ = 0 alone marks infinity, whatever the other coordinates hold */
    FEOP(set_one)(&ix.x);
    FEOP(set_one)(&ix.y);
    FEOP(set_one)(&ix.zzz);
    CHECK(G(xyzz_is_inf)(&ix));
    G(xyzz_to_jac)(&gj, &ix);
    CHECK(G(jac_is_inf)(&gj));
}

static void T(test_known_multiples)(void) {
    T(aff) g, a, two, kg;
    T(jac) gj, r, twoj, kgj;
    T(xyzz) gx, rx;
    G(generator)(&g);
    G(aff_to_jac)(&gj, &g);
    FE_SFX(fe_from_hex)(&two.x, T(two_x));
    FE_SFX(fe_from_hex)(&two.y, T(two_y));
    FE_SFX(fe_from_hex)(&kg.x, T(k_x));
    FE_SFX(fe_from_hex)(&kg.y, T(k_y));
    G(aff_to_jac)(&twoj, &two);
    G(aff_to_jac)(&kgj, &kg);
    CHECK(G(aff_is_on_curve)(&two) && G(aff_is_on_curve)(&kg));

    G(jac_dbl)(&r, &gj);
    G(jac_to_aff)(&a, &r);
    CHECK(G(aff_eq)(&a, &two));
    G(jac_add)(&r, &gj, &gj);
    CHECK(G(jac_eq)(&r, &twoj));
    G(jac_add_aff)(&r, &gj, &g);
    CHECK(G(jac_eq)(&r, &twoj));
    G(aff_to_xyzz)(&gx, &g);
    G(xyzz_dbl)(&rx, &gx);
    CHECK(T(xyzz_eq_jac)(&rx, &twoj));
    uint64_t k2[1] = {2};
    G(jac_mul)(&r, &gj, k2, 1);
    CHECK(G(jac_eq)(&r, &twoj));
    G(jac_mul_var)(&r, &gj, k2, 1);
    CHECK(G(jac_eq)(&r, &twoj));

    G(jac_mul)(&r, &gj, known_k, 4);
    G(jac_to_aff)(&a, &r);
    CHECK(G(aff_eq)(&a, &kg));
    G(jac_mul_var)(&r, &gj, known_k, 4);
    G(jac_to_aff_var)(&a, &r);
    CHECK(G(aff_eq)(&a, &kg));
    T(rescale)(&gj, &gj);
    G(jac_mul)(&r, &gj, known_k, 4);
    CHECK(G(jac_eq)(&r, &kgj));
}

static void T(test_order)(void) {
    T(aff) g;
    T(jac) gj, r, ng;
    G(generator)(&g);
    G(aff_to_jac)(&gj, &g);
    G(jac_mul)(&r, &gj, order_r, 4);
    CHECK(G(jac_is_inf)(&r));
    G(jac_mul_var)(&r, &gj, order_r, 4);
    CHECK(G(jac_is_inf)(&r));
    uint64_t rm1[4] = {order_r[0] - 1, order_r[1], order_r[2], order_r[3]};
    G(jac_neg)(&ng, &gj);
    G(jac_mul)(&r, &gj, rm1, 4);
    CHECK(G(jac_eq)(&r, &ng));
    G(jac_mul_var)(&r, &gj, rm1, 4);
    CHECK(G(jac_eq)(&r, &ng));
    for (unsigned long it = 0; it < ITERS(2); it++) {
        T(jac) p;
        T(rand_point)(&p);
        G(jac_mul_var)(&r, &p, order_r, 4);
        CHECK(G(jac_is_inf)(&r));
        G(jac_mul)(&r, &p, order_r, 4);
        CHECK(G(jac_is_inf)(&r));
    }
}

static void T(test_jac_laws)(void) {
    for (unsigned long it = 0; it < ITERS(6); it++) {
        T(jac) p, q, s, a, b, c, inf, np, p2;
        T(aff) pa, qa, ra, refa;
        T(rand_point)(&p);
        T(rand_point)(&q);
        T(rand_point)(&s);
        G(jac_set_inf)(&inf);
        G(jac_neg)(&np, &p);
        T(rescale)(&p2, &p); /* the same point, other coordinates */
        CHECK(G(jac_eq)(&p, &p2));
        CHECK(!G(jac_eq)(&p, &q));
        CHECK(!G(jac_eq)(&p, &np));
        CHECK(!G(jac_eq)(&p, &inf) && !G(jac_eq)(&inf, &p) && G(jac_eq)(&inf, &inf));

        /* against the textbook affine sum */
        G(jac_to_aff)(&pa, &p);
        G(jac_to_aff)(&qa, &q);
        T(ref_add)(&refa, &pa, &qa);
        G(jac_add)(&a, &p, &q);
        G(jac_to_aff)(&ra, &a);
        CHECK(G(aff_eq)(&ra, &refa));
        CHECK(G(jac_is_on_curve)(&a));
        G(jac_add_var)(&a, &p, &q);
        G(jac_to_aff_var)(&ra, &a);
        CHECK(G(aff_eq)(&ra, &refa));
        T(ref_add)(&refa, &pa, &pa);
        G(jac_dbl)(&a, &p);
        G(jac_to_aff)(&ra, &a);
        CHECK(G(aff_eq)(&ra, &refa));

        /* commutativity, associativity */
        G(jac_add)(&a, &p, &q);
        G(jac_add)(&b, &q, &p);
        CHECK(G(jac_eq)(&a, &b));
        G(jac_add)(&a, &a, &s);
        G(jac_add_var)(&b, &q, &s);
        G(jac_add_var)(&b, &p, &b);
        CHECK(G(jac_eq)(&a, &b));

        /* identity, inverse, doubling through add (P and P2 differ in Z) */
        G(jac_add)(&a, &p, &inf);
        G(jac_add)(&b, &inf, &p);
        CHECK(G(jac_eq)(&a, &p) && G(jac_eq)(&b, &p));
        G(jac_add_var)(&a, &p, &inf);
        G(jac_add_var)(&b, &inf, &p);
        CHECK(G(jac_eq)(&a, &p) && G(jac_eq)(&b, &p));
        G(jac_add)(&a, &inf, &inf);
        CHECK(G(jac_is_inf)(&a));
        G(jac_add)(&a, &p, &np);
        CHECK(G(jac_is_inf)(&a));
        G(jac_add_var)(&a, &np, &p2);
        CHECK(G(jac_is_inf)(&a));
        G(jac_dbl)(&c, &p);
        G(jac_add)(&a, &p, &p2);
        CHECK(G(jac_eq)(&a, &c));
        G(jac_add_var)(&a, &p2, &p);
        CHECK(G(jac_eq)(&a, &c));
        G(jac_dbl)(&a, &inf);
        CHECK(G(jac_is_inf)(&a));
        /* aliasing: r = a + r */
        a = q;
        G(jac_add)(&a, &p, &a);
        G(jac_add)(&b, &p, &q);
        CHECK(G(jac_eq)(&a, &b));
    }
}

static void T(test_mixed_and_xyzz)(void) {
    for (unsigned long it = 0; it < ITERS(6); it++) {
        T(jac) p, q, sum, twice, a, inf;
        T(aff) pa, qa, npa, infa;
        T(xyzz) px, qx, rx, infx;
        T(rand_point)(&p);
        T(rand_point)(&q);
        G(jac_to_aff)(&pa, &p);
        G(jac_to_aff)(&qa, &q);
        G(aff_neg)(&npa, &pa);
        G(aff_set_inf)(&infa);
        G(jac_set_inf)(&inf);
        G(xyzz_set_inf)(&infx);
        G(jac_add)(&sum, &p, &q);
        G(jac_dbl)(&twice, &p);

        /* Jacobian + affine, both flavours */
        void (*madd[2])(T(jac) *, const T(jac) *, const T(aff) *) = {G(jac_add_aff),
                                                                      G(jac_add_aff_var)};
        for (int v = 0; v < 2; v++) {
            madd[v](&a, &p, &qa);
            CHECK(G(jac_eq)(&a, &sum));
            madd[v](&a, &p, &pa); /* P == Q */
            CHECK(G(jac_eq)(&a, &twice));
            madd[v](&a, &p, &npa); /* P == -Q */
            CHECK(G(jac_is_inf)(&a));
            madd[v](&a, &inf, &qa);
            CHECK(G(jac_eq)(&a, &q));
            madd[v](&a, &p, &infa);
            CHECK(G(jac_eq)(&a, &p));
            madd[v](&a, &inf, &infa);
            CHECK(G(jac_is_inf)(&a));
        }

        /* XYZZ: from Jacobian (random Z) and from affine */
        G(jac_to_xyzz)(&px, &p);
        G(jac_to_xyzz)(&qx, &q);
        CHECK(T(xyzz_eq_jac)(&px, &p));
        void (*xadd[2])(T(xyzz) *, const T(xyzz) *, const T(xyzz) *) = {G(xyzz_add),
                                                                         G(xyzz_add_var)};
        void (*xmadd[2])(T(xyzz) *, const T(xyzz) *, const T(aff) *) = {G(xyzz_add_aff),
                                                                         G(xyzz_add_aff_var)};
        T(xyzz) px2, npx;
        T(jac) p2;
        T(rescale)(&p2, &p);
        G(jac_to_xyzz)(&px2, &p2);
        G(xyzz_neg)(&npx, &px);
        for (int v = 0; v < 2; v++) {
            xadd[v](&rx, &px, &qx);
            CHECK(T(xyzz_eq_jac)(&rx, &sum));
            xadd[v](&rx, &qx, &px);
            CHECK(T(xyzz_eq_jac)(&rx, &sum));
            xadd[v](&rx, &px, &px2);
            CHECK(T(xyzz_eq_jac)(&rx, &twice));
            xadd[v](&rx, &px2, &npx);
            CHECK(G(xyzz_is_inf)(&rx));
            xadd[v](&rx, &px, &infx);
            CHECK(T(xyzz_eq_jac)(&rx, &p));
            xadd[v](&rx, &infx, &px);
            CHECK(T(xyzz_eq_jac)(&rx, &p));
            xadd[v](&rx, &infx, &infx);
            CHECK(G(xyzz_is_inf)(&rx));

            xmadd[v](&rx, &px, &qa);
            CHECK(T(xyzz_eq_jac)(&rx, &sum));
            xmadd[v](&rx, &px, &pa);
            CHECK(T(xyzz_eq_jac)(&rx, &twice));
            xmadd[v](&rx, &px, &npa);
            CHECK(G(xyzz_is_inf)(&rx));
            xmadd[v](&rx, &infx, &qa);
            CHECK(T(xyzz_eq_jac)(&rx, &q));
            xmadd[v](&rx, &px, &infa);
            CHECK(T(xyzz_eq_jac)(&rx, &p));
            xmadd[v](&rx, &infx, &infa);
            CHECK(G(xyzz_is_inf)(&rx));
            /* aliasing r = r + b, and an accumulation chain P + Q + Q */
            rx = px;
            xmadd[v](&rx, &rx, &qa);
            xmadd[v](&rx, &rx, &qa);
            G(jac_add)(&a, &sum, &q);
            CHECK(T(xyzz_eq_jac)(&rx, &a));
        }
        G(xyzz_dbl)(&rx, &px);
        CHECK(T(xyzz_eq_jac)(&rx, &twice));
        G(xyzz_dbl)(&rx, &infx);
        CHECK(G(xyzz_is_inf)(&rx));
        G(aff_to_xyzz)(&rx, &pa);
        CHECK(T(xyzz_eq_jac)(&rx, &p));
    }
}

static void T(test_scalar_mul)(void) {
    for (unsigned long it = 0; it < ITERS(3); it++) {
        T(jac) p, a, b, c;
        uint64_t k1[4], k2[4], ks[4], kp[4], ksum5[5];
        T(rand_point)(&p);
        cuzk_test_rand_scalar(k1);
        cuzk_test_rand_scalar(k2);
        /* (k1 + k2) P = k1 P + k2 P, with the plain 5-limb sum and mod r */
        uint64_t carry = 0;
        for (int i = 0; i < 4; i++) ksum5[i] = cuzk__adc(k1[i], k2[i], &carry);
        ksum5[4] = carry;
        scalar_add_mod_r(ks, k1, k2);
        G(jac_mul)(&a, &p, k1, 4);
        G(jac_mul_var)(&b, &p, k1, 4);
        CHECK(G(jac_eq)(&a, &b));
        G(jac_mul)(&b, &p, k2, 4);
        G(jac_add)(&a, &a, &b);
        G(jac_mul)(&c, &p, ks, 4);
        CHECK(G(jac_eq)(&a, &c));
        G(jac_mul_var)(&c, &p, ksum5, 5);
        CHECK(G(jac_eq)(&a, &c));
        G(jac_mul)(&c, &p, ksum5, 5);
        CHECK(G(jac_eq)(&a, &c));
        /* (k1 k2) P = k1 (k2 P) */
        scalar_mul_mod_r(kp, k1, k2);
        G(jac_mul_var)(&a, &p, kp, 4);
        G(jac_mul_var)(&b, &p, k2, 4);
        G(jac_mul)(&b, &b, k1, 4);
        CHECK(G(jac_eq)(&a, &b));
        CHECK(G(jac_is_on_curve)(&b));
        /* a 9-limb scalar takes the var binary fallback: k1 + c 2^512,
         * and 2^512 = R^2 mod r (plain limbs CUZK__FR_R2) */
        uint64_t k9[9] = {k1[0], k1[1], k1[2], k1[3], 0, 0, 0, 0, 0}, c9 = 5, kr[4];
        const uint64_t r2[4] = CUZK__FR_R2;
        k9[8] = c9;
        cuzk_fr f1, f2, fc;
        cuzk_fr_from_limbs(&f1, k1);
        cuzk_fr_from_limbs(&f2, r2);
        cuzk_fr_from_u64(&fc, c9);
        cuzk_fr_mul(&f2, &f2, &fc);
        cuzk_fr_add(&f1, &f1, &f2);
        cuzk_fr_to_limbs(kr, &f1);
        uint64_t k9b[9];
        memcpy(k9b, k9, sizeof(k9));
        k9b[8] = 0;
        k9b[6] = c9 << 1; /* 2^(6*64) * 2c: a 7-limb scalar for the wNAF path */
        G(jac_mul_var)(&a, &p, k9, 9);
        G(jac_mul_var)(&b, &p, kr, 4);
        CHECK(G(jac_eq)(&a, &b));
        G(jac_mul)(&c, &p, k9, 9);
        CHECK(G(jac_eq)(&c, &b));
        G(jac_mul_var)(&a, &p, k9b, 9);
        G(jac_mul)(&b, &p, k9b, 9);
        CHECK(G(jac_eq)(&a, &b));
    }
    /* 2^320 - 1: five full limbs, so the top window is nonzero; its value mod r
     * is (2^256 mod r) 2^64 - 1 */
    {
        T(jac) p, a, b;
        const uint64_t ones5[5] = {~0ULL, ~0ULL, ~0ULL, ~0ULL, ~0ULL};
        const uint64_t rmod[4] = CUZK__FR_ONE, two64[4] = {0, 1, 0, 0};
        uint64_t red[4];
        cuzk_fr x, y;
        cuzk_fr_from_limbs(&x, rmod);
        cuzk_fr_from_limbs(&y, two64);
        cuzk_fr_mul(&x, &x, &y);
        cuzk_fr_set_one(&y);
        cuzk_fr_sub(&x, &x, &y);
        cuzk_fr_to_limbs(red, &x);
        T(rand_point)(&p);
        G(jac_mul)(&a, &p, ones5, 5);
        G(jac_mul_var)(&b, &p, red, 4);
        CHECK(G(jac_eq)(&a, &b));
        G(jac_mul_var)(&a, &p, ones5, 5);
        CHECK(G(jac_eq)(&a, &b));
    }
    /* every small scalar, CT and var against repeated addition */
    T(jac) p, acc, a, b;
    T(rand_point)(&p);
    G(jac_set_inf)(&acc);
    for (uint64_t k = 0; k < 40; k++) {
        uint64_t kk[2] = {k, 0};
        G(jac_mul)(&a, &p, kk, 2);
        G(jac_mul_var)(&b, &p, kk, 2);
        CHECK(G(jac_eq)(&a, &acc) && G(jac_eq)(&b, &acc));
        G(jac_add_var)(&acc, &acc, &p);
    }
    /* multiples of infinity */
    uint64_t k[4];
    cuzk_test_rand_scalar(k);
    G(jac_set_inf)(&p);
    G(jac_mul)(&a, &p, k, 4);
    G(jac_mul_var)(&b, &p, k, 4);
    CHECK(G(jac_is_inf)(&a) && G(jac_is_inf)(&b));
}

static void T(test_edge_scalars)(void) {
    T(jac) p, np, a, b;
    T(rand_point)(&p);
    G(jac_neg)(&np, &p);
    const uint64_t zero[4] = {0}, one[4] = {1};
    uint64_t rm1[4], rp1[4], all1[4] = {~0ULL, ~0ULL, ~0ULL, ~0ULL}, all1_mod[4];
    memcpy(rm1, order_r, sizeof(rm1));
    rm1[0] -= 1;
    memcpy(rp1, order_r, sizeof(rp1));
    rp1[0] += 1;
    /* 2^256 - 1 mod r = (2^256 mod r) - 1, and 2^256 mod r is Fr's one in plain limbs */
    const uint64_t rmod[4] = CUZK__FR_ONE;
    memcpy(all1_mod, rmod, sizeof(all1_mod));
    all1_mod[0] -= 1;
    void (*mul[2])(T(jac) *, const T(jac) *, const uint64_t *, size_t) = {G(jac_mul),
                                                                          G(jac_mul_var)};
    for (int v = 0; v < 2; v++) {
        mul[v](&a, &p, zero, 4);
        CHECK(G(jac_is_inf)(&a));
        mul[v](&a, &p, zero, 0);
        CHECK(G(jac_is_inf)(&a));
        mul[v](&a, &p, one, 4);
        CHECK(G(jac_eq)(&a, &p));
        mul[v](&a, &p, rm1, 4);
        CHECK(G(jac_eq)(&a, &np));
        mul[v](&a, &p, order_r, 4);
        CHECK(G(jac_is_inf)(&a));
        mul[v](&a, &p, rp1, 4);
        CHECK(G(jac_eq)(&a, &p));
        mul[v](&a, &p, all1, 4);
        G(jac_mul_var)(&b, &p, all1_mod, 4);
        CHECK(G(jac_eq)(&a, &b));
        CHECK(!G(jac_is_inf)(&a));
    }
}

static void T(test_batch_to_aff)(void) {
    enum { N = 9 };
    T(jac) in[N];
    T(aff) out[N], one;
    FE scratch[N];
    for (int i = 0; i < N; i++) {
        if (i % 4 == 1)
            G(jac_set_inf)(&in[i]);
        else
            T(rand_point)(&in[i]);
    }
    G(jac_batch_to_aff_var)(out, in, N, scratch);
    for (int i = 0; i < N; i++) {
        G(jac_to_aff)(&one, &in[i]);
        CHECK(G(aff_eq)(&out[i], &one));
        G(jac_to_aff_var)(&one, &in[i]);
        CHECK(G(aff_eq)(&out[i], &one));
        CHECK(G(aff_is_inf)(&out[i]) == (i % 4 == 1));
        CHECK(G(aff_is_on_curve)(&out[i]));
    }
    G(jac_batch_to_aff_var)(out, in, 0, scratch); /* n = 0 is a no-op */
    G(jac_batch_to_aff_var)(out, in + 1, 1, scratch);
    CHECK(G(aff_is_inf)(&out[0]));
}

/* a random point of the curve, not cofactor-cleared (so almost surely outside G) */
static void T(rand_curve_point)(T(aff) * r) {
    FE b, t;
    FE_SFX(b)(&b);
    for (;;) {
        FE_SFX(rand_fe)(&r->x);
        FEOP(sqr)(&t, &r->x);
        FEOP(mul)(&t, &t, &r->x);
        FEOP(add)(&t, &t, &b);
        if (FE_SFX(sqrt)(&r->y, &t)) return;
    }
}

static void T(test_subgroup)(void) {
    for (unsigned long it = 0; it < ITERS(4); it++) {
        T(aff) a, s, m;
        T(jac) sj, aj, mj;
        T(rand_curve_point)(&a);
        CHECK(G(aff_is_on_curve)(&a));
        bool fast = G(aff_in_subgroup_var)(&a), naive = G(aff_in_subgroup_naive_var)(&a);
        CHECK(fast == naive);
        CHECK(!fast);
        CHECK(!naive);
        T(rand_point)(&sj);
        G(jac_to_aff)(&s, &sj);
        CHECK(G(aff_in_subgroup_var)(&s));
        CHECK(G(aff_in_subgroup_naive_var)(&s));
        /* subgroup + non-subgroup is outside */
        G(aff_to_jac)(&aj, &a);
        G(jac_add)(&mj, &aj, &sj);
        G(jac_to_aff)(&m, &mj);
        CHECK(G(aff_is_on_curve)(&m));
        CHECK(!G(aff_in_subgroup_var)(&m));
        CHECK(!G(aff_in_subgroup_naive_var)(&m));
        /* r a lies in the cofactor part: its own check must fail unless r a = O */
        G(jac_mul_var)(&mj, &aj, order_r, 4);
        G(jac_to_aff_var)(&m, &mj);
        CHECK(!G(aff_is_inf)(&m));
        CHECK(G(aff_in_subgroup_var)(&m) == G(aff_in_subgroup_naive_var)(&m));
    }
}

static void T(test_off_curve)(void) {
    for (unsigned long it = 0; it < ITERS(10); it++) {
        T(jac) pj;
        T(aff) p;
        T(rand_point)(&pj);
        G(jac_to_aff)(&p, &pj);
        FE one;
        FEOP(set_one)(&one);
        FEOP(add)(&p.y, &p.y, &one);
        CHECK(!G(aff_is_on_curve)(&p));
        CHECK(!G(aff_in_subgroup_var)(&p));
        CHECK(!G(aff_in_subgroup_naive_var)(&p));
        FEOP(add)(&pj.y, &pj.y, &one);
        CHECK(!G(jac_is_on_curve)(&pj));
        /* (0, 0) is infinity, but (0, 1) is off the curve */
        FEOP(set_zero)(&p.x);
        p.y = one;
        CHECK(!G(aff_is_on_curve)(&p));
    }
}

#endif /* TEST_EC_STAMP */
