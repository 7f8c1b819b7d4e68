/*
 * The optimal ate pairing against a known vector and its algebraic laws.
 *
 * Scalar multiples come from test-local affine double-and-add (field
 * inversions, textbook chord-and-tangent), independent of src/ec.
 */
#include "ff/fr.h"
#include "harness.h"
#include "pairing/pairing.h"

/*
 * e(G1, G2) for the standard generators, canonical big-endian, in the order
 * c0.c0.c0, c0.c0.c1, c0.c1.c0, ..., c1.c2.c1. Printed by @noble/curves 2.4.0:
 *   bls12_381.pairing(bls12_381.G1.Point.BASE, bls12_381.G2.Point.BASE)
 * (c0.c0.c0 = 0x1250ebd8... is also the GT "generator" of zcash's bls12_381).
 */
static const char *const E_G1_G2[12] = {
    "1250ebd871fc0a92a7b2d83168d0d727272d441befa15c503dd8e90ce98db3e7b6d194f60839c508a84305aaca1789b6",
    "089a1c5b46e5110b86750ec6a532348868a84045483c92b7af5af689452eafabf1a8943e50439f1d59882a98eaa0170f",
    "1368bb445c7c2d209703f239689ce34c0378a68e72a6b3b216da0e22a5031b54ddff57309396b38c881c4c849ec23e87",
    "193502b86edb8857c273fa075a50512937e0794e1e65a7617c90d8bd66065b1fffe51d7a579973b1315021ec3c19934f",
    "01b2f522473d171391125ba84dc4007cfbf2f8da752f7c74185203fcca589ac719c34dffbbaad8431dad1c1fb597aaa5",
    "018107154f25a764bd3c79937a45b84546da634b8f6be14a8061e55cceba478b23f7dacaa35c8ca78beae9624045b4b6",
    "19f26337d205fb469cd6bd15c3d5a04dc88784fbb3d0b2dbdea54d43b2b73f2cbb12d58386a8703e0f948226e47ee89d",
    "06fba23eb7c5af0d9f80940ca771b6ffd5857baaf222eb95a7d2809d61bfe02e1bfd1b68ff02f0b8102ae1c2d5d5ab1a",
    "11b8b424cd48bf38fcef68083b0b0ec5c81a93b330ee1a677d0d15ff7b984e8978ef48881e32fac91b93b47333e2ba57",
    "03350f55a7aefcd3c31b4fcb6ce5771cc6a0e9786ab5973320c806ad360829107ba810c5a09ffdd9be2291a0c25a99a2",
    "04c581234d086a9902249b64728ffd21a189e87935a954051c7cdba7b3872629a4fafc05066245cb9108f0242d0fe3ef",
    "0f41e58663bf08cf068672cbd01a7ec73baca4d72ca93544deff686bfd6df543d48eaa24afe47e1efde449383b676631",
};

/* 3 (p^12 - 1) / r, little-endian limbs (Python: 3*(p**12-1)//r). The factor
 * 3 is the convention of blst, zcash and noble (see pairing.h). */
static const uint64_t FINAL_EXP_3[68] = {
    0x42362d2019e05f30ULL, 0x71ec9292b3a3f16eULL, 0xcc14f35af381dd9bULL, 0xaa8e8db57364b4e0ULL,
    0xbbd8542f1f4e813cULL, 0x67448d0357e60280ULL, 0x37e374d545d9b34bULL, 0x0dbe98538990b886ULL,
    0x4f37addccc764259ULL, 0xb126a5693d0c1648ULL, 0xe2fab93c0cbe7336ULL, 0x5be26fa7d750500cULL,
    0x0fd55b32bc26877fULL, 0x2789939db85ffd7eULL, 0x8a8dbc483bf8b74cULL, 0xee57b6df108eff59ULL,
    0x44dc2a7f86c253a4ULL, 0x1ab9a096b98465d0ULL, 0xa19abe6ea2accb45ULL, 0xd458de749460d4a2ULL,
    0xefda3b46ebf86211ULL, 0xbf503bd6ec0a0679ULL, 0xee452496f5166c25ULL, 0x533883a3513435f3ULL,
    0x0c49ebcd2352765fULL, 0xdd3ed254fdeda030ULL, 0xf337b31c79222145ULL, 0xdc89d154af91ad54ULL,
    0x48986b14d9098746ULL, 0xb600e6c98003bf85ULL, 0xe543c4bc40bcd4c0ULL, 0x1e5f07600ce6b407ULL,
    0x5017931d6740bda7ULL, 0x99edd44084bd2372ULL, 0xb20f28c19e4105abULL, 0x56cfa8c3574363efULL,
    0x376e521070d29c9dULL, 0x24ed5e515911037bULL, 0xa9f5aa7994cec31bULL, 0xc2f98fcdd0dd36caULL,
    0xc2cb543d69430c37ULL, 0xd4c1f3ac25e3167eULL, 0x6f3496b2dd38e722ULL, 0x0c4347bb5a7e405dULL,
    0x312d8a7d76233637ULL, 0x167ff1323d6e99acULL, 0x4dde0523678105d9ULL, 0x4e2513d6e4a5d3bbULL,
    0x9f28efa0d355b022ULL, 0x773528bbae870697ULL, 0x7ab1cd294a502304ULL, 0x4b9783d9c6aa8129ULL,
    0x133bdc3ca9412b98ULL, 0x16e296a72928cfeeULL, 0xfb77b732ba5f9948ULL, 0xa9d6ff3a07dbd34eULL,
    0x54207282314fc0deULL, 0x5958cb8bfdae2d2dULL, 0x15eacb2cf3218a16ULL, 0x42009fe1bd6fcbceULL,
    0x913caba6579c08fdULL, 0x7315a664019fbd84ULL, 0x468d8f473094aecbULL, 0x5a2b2fe3bea73dfbULL,
    0x7dc671be77cf1771ULL, 0xdc3e541f9dca04bbULL, 0x96587127a538fd40ULL, 0x0000000008ca5921ULL,
};

static const uint64_t R_LIMBS[4] = CUZK__FR_R;

/* ---- test-local affine arithmetic ------------------------------------------ */

static void g1_gen(cuzk_g1_aff *r) {
    static const uint64_t x[6] = CUZK__G1_GEN_X, y[6] = CUZK__G1_GEN_Y;
    for (int i = 0; i < 6; i++) r->x.l[i] = x[i], r->y.l[i] = y[i];
}
static void g2_gen(cuzk_g2_aff *r) {
    static const uint64_t x[2][6] = CUZK__G2_GEN_X, y[2][6] = CUZK__G2_GEN_Y;
    for (int i = 0; i < 6; i++) {
        r->x.c0.l[i] = x[0][i], r->x.c1.l[i] = x[1][i];
        r->y.c0.l[i] = y[0][i], r->y.c1.l[i] = y[1][i];
    }
}
static bool g1_inf(const cuzk_g1_aff *a) { return cuzk_fp_is_zero(&a->x) && cuzk_fp_is_zero(&a->y); }
static bool g2_inf(const cuzk_g2_aff *a) {
    return cuzk_fp2_is_zero(&a->x) && cuzk_fp2_is_zero(&a->y);
}

static bool g1_on_curve(const cuzk_g1_aff *a) {
    cuzk_fp l, r, b;
    cuzk_fp_sqr(&l, &a->y);
    cuzk_fp_sqr(&r, &a->x);
    cuzk_fp_mul(&r, &r, &a->x);
    cuzk_fp_from_u64(&b, 4);
    cuzk_fp_add(&r, &r, &b);
    return cuzk_fp_eq(&l, &r);
}
static bool g2_on_curve(const cuzk_g2_aff *a) {
    cuzk_fp2 l, r, b;
    cuzk_fp2_sqr(&l, &a->y);
    cuzk_fp2_sqr(&r, &a->x);
    cuzk_fp2_mul(&r, &r, &a->x);
    cuzk_fp_from_u64(&b.c0, 4);
    cuzk_fp_from_u64(&b.c1, 4);
    cuzk_fp2_add(&r, &r, &b);
    return cuzk_fp2_eq(&l, &r);
}

/* r = a + b with the chord-and-tangent rule (handles infinity, a = +-b). */
static void g1_add(cuzk_g1_aff *r, const cuzk_g1_aff *a, const cuzk_g1_aff *b) {
    if (g1_inf(a)) { *r = *b; return; }
    if (g1_inf(b)) { *r = *a; return; }
    cuzk_fp lam, num, den, x3, y3;
    if (cuzk_fp_eq(&a->x, &b->x)) {
        if (!cuzk_fp_eq(&a->y, &b->y) || cuzk_fp_is_zero(&a->y)) {
            cuzk_fp_set_zero(&r->x);
            cuzk_fp_set_zero(&r->y);
            return;
        }
        cuzk_fp_sqr(&num, &a->x);
        cuzk_fp_add(&lam, &num, &num);
        cuzk_fp_add(&num, &lam, &num); /* 3x^2 */
        cuzk_fp_dbl(&den, &a->y);
    } else {
        cuzk_fp_sub(&num, &b->y, &a->y);
        cuzk_fp_sub(&den, &b->x, &a->x);
    }
    cuzk_fp_inv_var(&den, &den);
    cuzk_fp_mul(&lam, &num, &den);
    cuzk_fp_sqr(&x3, &lam);
    cuzk_fp_sub(&x3, &x3, &a->x);
    cuzk_fp_sub(&x3, &x3, &b->x);
    cuzk_fp_sub(&y3, &a->x, &x3);
    cuzk_fp_mul(&y3, &y3, &lam);
    cuzk_fp_sub(&y3, &y3, &a->y);
    r->x = x3;
    r->y = y3;
}
static void g2_add(cuzk_g2_aff *r, const cuzk_g2_aff *a, const cuzk_g2_aff *b) {
    if (g2_inf(a)) { *r = *b; return; }
    if (g2_inf(b)) { *r = *a; return; }
    cuzk_fp2 lam, num, den, x3, y3;
    if (cuzk_fp2_eq(&a->x, &b->x)) {
        if (!cuzk_fp2_eq(&a->y, &b->y) || cuzk_fp2_is_zero(&a->y)) {
            cuzk_fp2_set_zero(&r->x);
            cuzk_fp2_set_zero(&r->y);
            return;
        }
        cuzk_fp2_sqr(&num, &a->x);
        cuzk_fp2_add(&lam, &num, &num);
        cuzk_fp2_add(&num, &lam, &num);
        cuzk_fp2_dbl(&den, &a->y);
    } else {
        cuzk_fp2_sub(&num, &b->y, &a->y);
        cuzk_fp2_sub(&den, &b->x, &a->x);
    }
    cuzk_fp2_inv_var(&den, &den);
    cuzk_fp2_mul(&lam, &num, &den);
    cuzk_fp2_sqr(&x3, &lam);
    cuzk_fp2_sub(&x3, &x3, &a->x);
    cuzk_fp2_sub(&x3, &x3, &b->x);
    cuzk_fp2_sub(&y3, &a->x, &x3);
    cuzk_fp2_mul(&y3, &y3, &lam);
    cuzk_fp2_sub(&y3, &y3, &a->y);
    r->x = x3;
    r->y = y3;
}
/* r = k a, k little-endian limbs */
static void g1_mul(cuzk_g1_aff *r, const cuzk_g1_aff *a, const uint64_t *k, int n) {
    cuzk_g1_aff acc;
    memset(&acc, 0, sizeof acc);
    for (int i = n - 1; i >= 0; i--)
        for (int b = 63; b >= 0; b--) {
            g1_add(&acc, &acc, &acc);
            if ((k[i] >> b) & 1) g1_add(&acc, &acc, a);
        }
    *r = acc;
}
static void g2_mul(cuzk_g2_aff *r, const cuzk_g2_aff *a, const uint64_t *k, int n) {
    cuzk_g2_aff acc;
    memset(&acc, 0, sizeof acc);
    for (int i = n - 1; i >= 0; i--)
        for (int b = 63; b >= 0; b--) {
            g2_add(&acc, &acc, &acc);
            if ((k[i] >> b) & 1) g2_add(&acc, &acc, a);
        }
    *r = acc;
}
static void g1_neg(cuzk_g1_aff *r, const cuzk_g1_aff *a) {
    r->x = a->x;
    cuzk_fp_neg(&r->y, &a->y);
}

static uint64_t rand_nonzero64(void) {
    uint64_t v;
    do v = cuzk_test_rand64();
    while (v == 0);
    return v;
}
static void rand_fr(cuzk_fr *r, uint64_t limbs[4]) {
    uint64_t l[4] = {cuzk_test_rand64(), cuzk_test_rand64(), cuzk_test_rand64(),
                     cuzk_test_rand64() & 0x3fffffffffffffffULL};
    cuzk_fr_from_limbs(r, l);
    cuzk_fr_to_limbs(limbs, r);
}

static void hex_be(char out[97], const cuzk_fp *a) {
    uint8_t b[48];
    cuzk_fp_to_bytes_be(b, a);
    for (int i = 0; i < 48; i++) snprintf(out + 2 * i, 3, "%02x", b[i]);
}
static const cuzk_fp *coeff(const cuzk_fp12 *f, int i) {
    const cuzk_fp6 *h = i < 6 ? &f->c0 : &f->c1;
    const cuzk_fp2 *q = (i % 6) / 2 == 0 ? &h->c0 : (i % 6) / 2 == 1 ? &h->c1 : &h->c2;
    return i % 2 ? &q->c1 : &q->c0;
}

/* ---- tests ------------------------------------------------------------------ */

static void test_generators(void) {
    cuzk_g1_aff p;
    cuzk_g2_aff q, t;
    g1_gen(&p);
    g2_gen(&q);
    CHECK(g1_on_curve(&p));
    CHECK(g2_on_curve(&q));
    /* r Q = O: Q has order r (checks the test's own G2 arithmetic too) */
    g2_mul(&t, &q, R_LIMBS, 4);
    CHECK(g2_inf(&t));
}

static void test_known_vector(void) {
    cuzk_g1_aff p;
    cuzk_g2_aff q;
    cuzk_fp12 e;
    g1_gen(&p);
    g2_gen(&q);
    cuzk_pairing(&e, &p, &q);
    for (int i = 0; i < 12; i++) {
        char h[97];
        hex_be(h, coeff(&e, i));
        CHECK(strcmp(h, E_G1_G2[i]) == 0);
        if (strcmp(h, E_G1_G2[i]) != 0) fprintf(stderr, "  coefficient %d: %s\n", i, h);
    }
    CHECK(!cuzk_fp12_is_one(&e));
}

/* final_exp(f) = f^(3 (p^12 - 1)/r) by plain square-and-multiply. */
static void test_final_exp_exponent(void) {
    for (unsigned long it = 0; it < ITERS(1); it++) {
        cuzk_fp12 f, x, y;
        uint64_t l[6];
        cuzk_fp *c[12];
        for (int i = 0; i < 12; i++) c[i] = (cuzk_fp *)coeff(&f, i);
        for (int i = 0; i < 12; i++) {
            for (int j = 0; j < 6; j++) l[j] = cuzk_test_rand64();
            l[5] &= 0x0fffffffffffffffULL;
            cuzk_fp_from_limbs(c[i], l);
        }
        cuzk_final_exp(&x, &f);
        cuzk_fp12_pow(&y, &f, FINAL_EXP_3, 68);
        CHECK(cuzk_fp12_eq(&x, &y));
        /* aliasing */
        cuzk_final_exp(&f, &f);
        CHECK(cuzk_fp12_eq(&f, &x));
    }
}

static void test_bilinearity(void) {
    cuzk_g1_aff p, ap;
    cuzk_g2_aff q, bq;
    cuzk_fp12 e, eab, lhs;
    g1_gen(&p);
    g2_gen(&q);
    cuzk_pairing(&e, &p, &q);
    /* 64-bit scalars: e(aP, bQ) = e(P, Q)^(ab), ab as a 128-bit integer */
    for (unsigned long it = 0; it < ITERS(2); it++) {
        uint64_t a = rand_nonzero64(), b = rand_nonzero64(), ab[2];
        ab[0] = cuzk__mac(&ab[1], a, b, 0, 0);
        g1_mul(&ap, &p, &a, 1);
        g2_mul(&bq, &q, &b, 1);
        cuzk_pairing(&lhs, &ap, &bq);
        cuzk_fp12_pow(&eab, &e, ab, 2);
        CHECK(cuzk_fp12_eq(&lhs, &eab));
        /* e(aP, Q) = e(P, aQ) */
        cuzk_fp12 x, y;
        cuzk_g2_aff aq;
        g2_mul(&aq, &q, &a, 1);
        cuzk_pairing(&x, &ap, &q);
        cuzk_pairing(&y, &p, &aq);
        CHECK(cuzk_fp12_eq(&x, &y));
    }
    /* full-size scalars: exponent ab mod r */
    {
        cuzk_fr fa, fb, fab;
        uint64_t a[4], b[4], ab[4];
        rand_fr(&fa, a);
        rand_fr(&fb, b);
        cuzk_fr_mul(&fab, &fa, &fb);
        cuzk_fr_to_limbs(ab, &fab);
        g1_mul(&ap, &p, a, 4);
        g2_mul(&bq, &q, b, 4);
        cuzk_pairing(&lhs, &ap, &bq);
        cuzk_fp12_pow(&eab, &e, ab, 4);
        CHECK(cuzk_fp12_eq(&lhs, &eab));
    }
}

static void test_order_r(void) {
    cuzk_g1_aff p;
    cuzk_g2_aff q;
    cuzk_fp12 e, t;
    g1_gen(&p);
    g2_gen(&q);
    uint64_t k = rand_nonzero64();
    g1_mul(&p, &p, &k, 1);
    cuzk_pairing(&e, &p, &q);
    CHECK(!cuzk_fp12_is_one(&e));
    cuzk_fp12_pow(&t, &e, R_LIMBS, 4);
    CHECK(cuzk_fp12_is_one(&t));
}

static void test_product_is_one(void) {
    cuzk_g1_aff p[3];
    cuzk_g2_aff q[3];
    g1_gen(&p[0]);
    g2_gen(&q[0]);
    uint64_t a = rand_nonzero64(), b = rand_nonzero64();
    g1_mul(&p[0], &p[0], &a, 1);
    g1_neg(&p[1], &p[0]);
    q[1] = q[0];
    CHECK(cuzk_pairing_product_is_one(p, q, 2));
    /* e(aP, Q) e(aP, Q) != 1 */
    p[1] = p[0];
    CHECK(!cuzk_pairing_product_is_one(p, q, 2));
    /* Groth16 shape: e(abP, Q) e(-aP, bQ) = 1, with an infinity pair mixed in */
    cuzk_g1_aff g;
    g1_gen(&g);
    uint64_t ab[2];
    ab[0] = cuzk__mac(&ab[1], a, b, 0, 0);
    g1_mul(&p[0], &g, ab, 2);
    g1_mul(&p[1], &g, &a, 1);
    g1_neg(&p[1], &p[1]);
    g2_mul(&q[1], &q[0], &b, 1);
    p[2] = g;
    cuzk_fp2_set_zero(&q[2].x);
    cuzk_fp2_set_zero(&q[2].y);
    CHECK(cuzk_pairing_product_is_one(p, q, 3));
    CHECK(cuzk_pairing_product_is_one(p, q, 0));
}

static void test_infinity(void) {
    cuzk_g1_aff p, pinf;
    cuzk_g2_aff q, qinf;
    memset(&pinf, 0, sizeof pinf);
    memset(&qinf, 0, sizeof qinf);
    cuzk_fp12 e, f;
    g1_gen(&p);
    g2_gen(&q);
    cuzk_pairing(&e, &pinf, &q);
    CHECK(cuzk_fp12_is_one(&e));
    cuzk_pairing(&e, &p, &qinf);
    CHECK(cuzk_fp12_is_one(&e));
    cuzk_pairing(&e, &pinf, &qinf);
    CHECK(cuzk_fp12_is_one(&e));
    cuzk_miller_loop(&f, &p, &q, 0);
    CHECK(cuzk_fp12_is_one(&f));
    /* an infinite pair does not change a product */
    cuzk_g1_aff ps[2] = {p, pinf};
    cuzk_g2_aff qs[2] = {q, q};
    cuzk_pairing(&e, &p, &q);
    cuzk_miller_loop(&f, ps, qs, 2);
    cuzk_final_exp(&f, &f);
    CHECK(cuzk_fp12_eq(&e, &f));
    CHECK(!cuzk_pairing_product_is_one(ps, qs, 2));
}

/* final_exp(miller_loop(n pairs)) = prod e(p_i, q_i), for n within one chunk
 * and across the chunk boundary (16). */
static void test_multi_miller(void) {
    enum { N = 18 };
    cuzk_g1_aff p[N], g;
    cuzk_g2_aff q[N], h;
    g1_gen(&g);
    g2_gen(&h);
    for (int i = 0; i < N; i++) {
        uint64_t a = rand_nonzero64() >> 48 | 1, b = rand_nonzero64() >> 48 | 1;
        g1_mul(&p[i], &g, &a, 1);
        g2_mul(&q[i], &h, &b, 1);
    }
    const size_t ns[] = {1, 2, 3, N};
    cuzk_fp12 prod, e, f;
    cuzk_fp12_set_one(&prod);
    size_t done = 0;
    for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
        for (; done < ns[k]; done++) {
            cuzk_pairing(&e, &p[done], &q[done]);
            cuzk_fp12_mul(&prod, &prod, &e);
        }
        cuzk_miller_loop(&f, p, q, ns[k]);
        cuzk_final_exp(&f, &f);
        CHECK(cuzk_fp12_eq(&f, &prod));
    }
}

int main(int argc, char **argv) {
    cuzk_test_init(argc, argv);
    RUN(test_generators);
    RUN(test_known_vector);
    RUN(test_final_exp_exponent);
    RUN(test_bilinearity);
    RUN(test_order_r);
    RUN(test_product_is_one);
    RUN(test_infinity);
    RUN(test_multi_miller);
    return cuzk_test_finish();
}
