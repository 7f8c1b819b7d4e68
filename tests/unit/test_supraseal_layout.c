/*
 * test_supraseal_layout.c — include/cuzk_supraseal.h against what it claims
 * (doc/formats.md §17), before anything implements it:
 *   - its types have the sizes and offsets of cuzk's own field elements,
 *     points and proof, so the library can hand them across without
 *     conversion;
 *   - the limbs hold Montgomery forms, v * 2^256 mod r and v * 2^384 mod p,
 *     computed here by plain modular doubling (no Montgomery code), on the
 *     scalars 1 and small values and on the G1 and G2 generators (Fp2 c0
 *     first in memory); infinity is all zero;
 *   - density bitmaps as bellperson builds them (a variable counts where
 *     its coefficient is nonzero; Lsb0 words) equal our circuits' bitmaps,
 *     and an assignment filled from a generated circuit meets the shape
 *     relations upstream asserts against parameters made for it, including
 *     its domain formula lg2(|H| - 1) + 1;
 *   - a .params encoding walked the way upstream's reader walks it (864 bytes
 *     of verifying key, then big-endian counts and 96- or 192-byte points)
 *     ends exactly at the end of the file, with our counts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk_supraseal.h"
#include "harness.h"
#include "circuit/gen.h"
#include "ec/g1.h"
#include "ec/g2.h"
#include "ff/fp.h"
#include "ff/fr.h"
#include "groth16/groth16.h"
#include "groth16/setup.h"
#include "io/params.h"
#include "test_util.h"

/* ---- multi-limb helpers, independent of src/ff -------------------------------- */

/* a >= b over n little-endian limbs */
static int ge_n(const uint64_t *a, const uint64_t *b, int n) {
    for (int i = n - 1; i >= 0; i--)
        if (a[i] != b[i]) return a[i] > b[i];
    return 1;
}

/* x = 2x mod m (x < m, m odd and below 2^(64n - 1)) */
static void dbl_mod_n(uint64_t *x, const uint64_t *m, int n) {
    uint64_t carry = 0;
    for (int i = 0; i < n; i++) {
        uint64_t top = x[i] >> 63;
        x[i] = (x[i] << 1) | carry;
        carry = top;
    }
    if (carry || ge_n(x, m, n)) {
        uint64_t borrow = 0;
        for (int i = 0; i < n; i++) {
            uint64_t d = x[i] - m[i] - borrow;
            borrow = (x[i] < m[i]) || (x[i] == m[i] && borrow) ? 1 : 0;
            x[i] = d;
        }
    }
}

/* out = v * 2^bits mod m, by doubling (v < m) */
static void mont_naive(uint64_t *out, const uint64_t *v, const uint64_t *m, int n, int bits) {
    memcpy(out, v, (size_t)n * 8);
    for (int i = 0; i < bits; i++) dbl_mod_n(out, m, n);
}

/* 48-byte big-endian hex (96 digits) to 6 little-endian limbs */
static void fp_hex(uint64_t out[6], const char *hex) {
    CHECK(strlen(hex) == 96);
    for (int i = 0; i < 6; i++) {
        char part[17];
        memcpy(part, hex + 16 * (5 - i), 16);
        part[16] = '\0';
        out[i] = strtoull(part, NULL, 16);
    }
}

static const uint64_t fr_mod[4] = CUZK__FR_R;
static const uint64_t fp_mod[6] = CUZK__FP_P;

/* ---- layouts -------------------------------------------------------------------- */

static void test_layout_matches_cuzk(void) {
    CHECK_EQ_INT(sizeof(cuzk_supraseal_fr), sizeof(cuzk_fr));
    CHECK_EQ_INT(sizeof(cuzk_supraseal_fp), sizeof(cuzk_fp));
    CHECK_EQ_INT(sizeof(cuzk_supraseal_fp2), sizeof(cuzk_fp2));
    CHECK_EQ_INT(offsetof(cuzk_supraseal_fp2, c1), offsetof(cuzk_fp2, c1));
    CHECK_EQ_INT(sizeof(cuzk_supraseal_g1_affine), sizeof(cuzk_g1_aff));
    CHECK_EQ_INT(offsetof(cuzk_supraseal_g1_affine, y), offsetof(cuzk_g1_aff, y));
    CHECK_EQ_INT(sizeof(cuzk_supraseal_g2_affine), sizeof(cuzk_g2_aff));
    CHECK_EQ_INT(offsetof(cuzk_supraseal_g2_affine, y), offsetof(cuzk_g2_aff, y));
    /* a proof of our prover is byte for byte one of upstream's */
    CHECK_EQ_INT(sizeof(cuzk_supraseal_proof), sizeof(cuzk_groth16_proof));
    CHECK_EQ_INT(offsetof(cuzk_supraseal_proof, a), offsetof(cuzk_groth16_proof, a));
    CHECK_EQ_INT(offsetof(cuzk_supraseal_proof, b), offsetof(cuzk_groth16_proof, b));
    CHECK_EQ_INT(offsetof(cuzk_supraseal_proof, c), offsetof(cuzk_groth16_proof, c));
    /* an array of scalars has no padding (Rust's &[Scalar] stride) */
    cuzk_supraseal_fr two[2];
    CHECK_EQ_INT((const char *)&two[1] - (const char *)&two[0], 32);
    /* the error struct as the Rust side declares it: i32, then a pointer */
    cuzk_supraseal_error e;
    CHECK_EQ_INT(sizeof(e.code), 4);
    CHECK_EQ_INT(sizeof(e.message), sizeof(void *));
}

/* ---- Montgomery forms ------------------------------------------------------------ */

static void test_fr_is_montgomery(void) {
    /* one: 2^256 mod r, what is_one() in upstream and input 0 compare with */
    uint64_t v[4] = {1, 0, 0, 0}, want[4];
    mont_naive(want, v, fr_mod, 4, 256);
    CHECK_MEM(want, cuzk__fr_one.l, 32);
    /* small values and a random canonical one */
    for (unsigned k = 0; k < ITERS(20); k++) {
        uint64_t x[4];
        if (k < 10) {
            x[0] = k;
            x[1] = x[2] = x[3] = 0;
        } else {
            cuzk_test_rand_scalar(x);
        }
        cuzk_fr f;
        cuzk_fr_from_limbs(&f, x);
        cuzk_supraseal_fr s;
        memcpy(&s, &f, sizeof(s));
        mont_naive(want, x, fr_mod, 4, 256);
        CHECK_MEM(want, s.l, 32);
        uint64_t back[4];
        cuzk_fr_to_limbs(back, (const cuzk_fr *)(const void *)&s);
        CHECK_MEM(back, x, 32);
    }
}

static void test_points_are_montgomery(void) {
    uint64_t v[6] = {1, 0, 0, 0, 0, 0}, want[6], plain[6];
    mont_naive(want, v, fp_mod, 6, 384);
    CHECK_MEM(want, cuzk__fp_one.l, 48);

    /* G1 generator: x then y */
    static const char *g1x = "17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905"
                             "a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb";
    static const char *g1y = "08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af6"
                             "00db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1";
    cuzk_g1_aff g1;
    cuzk_g1_generator(&g1);
    cuzk_supraseal_g1_affine s1;
    memcpy(&s1, &g1, sizeof(s1));
    fp_hex(plain, g1x);
    mont_naive(want, plain, fp_mod, 6, 384);
    CHECK_MEM(want, s1.x.l, 48);
    fp_hex(plain, g1y);
    mont_naive(want, plain, fp_mod, 6, 384);
    CHECK_MEM(want, s1.y.l, 48);

    /* G2 generator: c0 before c1 in memory (the file encodings put c1 first) */
    static const char *g2[4] = {
        "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02"
        "b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8", /* x.c0 */
        "13e02b6052719f607dacd3a088274f65596bd0d09920b61a"
        "b5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e", /* x.c1 */
        "0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a7"
        "6d429a695160d12c923ac9cc3baca289e193548608b82801", /* y.c0 */
        "0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af"
        "267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be", /* y.c1 */
    };
    cuzk_g2_aff g2a;
    cuzk_g2_generator(&g2a);
    cuzk_supraseal_g2_affine s2;
    memcpy(&s2, &g2a, sizeof(s2));
    const cuzk_supraseal_fp *parts[4] = {&s2.x.c0, &s2.x.c1, &s2.y.c0, &s2.y.c1};
    for (int i = 0; i < 4; i++) {
        fp_hex(plain, g2[i]);
        mont_naive(want, plain, fp_mod, 6, 384);
        CHECK_MEM(want, parts[i]->l, 48);
    }
}

static int all_zero(const void *p, size_t n) {
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        if (b[i]) return 0;
    return 1;
}

static void test_infinity_is_zero(void) {
    cuzk_g1_aff g1;
    cuzk_g2_aff g2;
    memset(&g1, 0xa5, sizeof(g1));
    memset(&g2, 0xa5, sizeof(g2));
    cuzk_g1_aff_set_inf(&g1);
    cuzk_g2_aff_set_inf(&g2);
    CHECK(all_zero(&g1, sizeof(g1)));
    CHECK(all_zero(&g2, sizeof(g2)));
    cuzk_supraseal_proof zero;
    memset(&zero, 0, sizeof(zero));
    CHECK(cuzk_g1_aff_is_inf((const cuzk_g1_aff *)(const void *)&zero.a));
    CHECK(cuzk_g2_aff_is_inf((const cuzk_g2_aff *)(const void *)&zero.b));
    cuzk_g1_aff gen;
    cuzk_g1_generator(&gen);
    CHECK(!cuzk_g1_aff_is_inf(&gen));
}

/* ---- densities and shapes ------------------------------------------------------- */

/* bellperson's rule: variable j is in matrix m when some entry of m has
 * column j and a nonzero coefficient; packed Lsb0 into 64-bit words. */
static uint64_t *density_of(const cuzk_circuit *c, int m, uint64_t col0, uint64_t n) {
    uint64_t *w = calloc((size_t)((n + 63) / 64 + 1), 8);
    if (w == NULL) return NULL;
    const cuzk_csr *mx = &c->m[m];
    for (uint64_t e = 0; e < mx->nnz; e++) {
        uint64_t col = mx->col[e];
        if (col < col0 || col >= col0 + n) continue;
        if (cuzk_fr_is_zero(&c->values[mx->val[e]])) continue;
        uint64_t j = col - col0;
        w[j / 64] |= (uint64_t)1 << (j % 64);
    }
    return w;
}

/* the first n bits of a and b agree (bits past n ignored), popcount of a */
static int same_bits(const uint64_t *a, const uint64_t *b, uint64_t n, uint64_t *popcount) {
    uint64_t pc = 0;
    int same = 1;
    for (uint64_t i = 0; i < (n + 63) / 64; i++) {
        uint64_t mask = (i + 1) * 64 <= n ? ~(uint64_t)0 : ((uint64_t)1 << (n % 64)) - 1;
        same &= (a[i] & mask) == (b[i] & mask);
        pc += (uint64_t)__builtin_popcountll(a[i] & mask);
    }
    *popcount = pc;
    return same;
}

static unsigned lg2_floor(size_t n) { /* upstream's lg2: floor(log2 n), 0 for 0 */
    unsigned r = 0;
    while (n >>= 1) r++;
    return r;
}

static void check_profile(cuzk_gen_profile prof) {
    cuzk_gen_params gp = {prof, 10, -1, 7, 0};
    cuzk_gen *g = NULL;
    cuzk_error err;
    CHECK_EQ_INT(cuzk_gen_new(&g, &gp, &err), CUZK_OK);
    if (g == NULL) return;
    const cuzk_circuit *c = cuzk_gen_circuit(g);

    uint64_t *a_aux = density_of(c, 0, c->n_inputs, c->n_aux);
    uint64_t *b_inp = density_of(c, 1, 0, c->n_inputs);
    uint64_t *b_aux = density_of(c, 1, c->n_inputs, c->n_aux);
    CHECK(a_aux != NULL && b_inp != NULL && b_aux != NULL);
    if (a_aux == NULL || b_inp == NULL || b_aux == NULL) goto out;
    uint64_t pa, pbi, pba;
    CHECK(same_bits(a_aux, c->a_aux, c->n_aux, &pa));
    CHECK(same_bits(b_inp, c->b_inp, c->n_inputs, &pbi));
    CHECK(same_bits(b_aux, c->b_aux, c->n_aux, &pba));
    CHECK_EQ_INT(pa, c->a_aux_count);
    CHECK_EQ_INT(pbi, c->b_inp_count);
    CHECK_EQ_INT(pba, c->b_aux_count);

    /* the assignment's shape fields as bellperson fills them from this circuit */
    cuzk_supraseal_assignment as;
    memset(&as, 0, sizeof(as));
    as.a_aux_density = c->a_aux;
    as.a_aux_bit_len = (size_t)c->n_aux;
    as.a_aux_popcount = (size_t)c->a_aux_count;
    as.b_inp_density = c->b_inp;
    as.b_inp_bit_len = (size_t)c->n_inputs;
    as.b_inp_popcount = (size_t)c->b_inp_count;
    as.b_aux_density = c->b_aux;
    as.b_aux_bit_len = (size_t)c->n_aux;
    as.b_aux_popcount = (size_t)c->b_aux_count;
    as.abc_size = (size_t)(c->n_constraints + c->n_inputs);
    as.inp_assignment_size = (size_t)c->n_inputs;
    as.aux_assignment_size = (size_t)c->n_aux;

    /* what upstream asserts of each assignment against its SRS */
    cuzk_params p;
    memset(&p, 0, sizeof(p));
    cuzk_status st = cuzk_groth16_setup_dev(&p, c, NULL, 0, &err);
    CHECK_EQ_INT(st, CUZK_OK);
    if (st != CUZK_OK) {
        fprintf(stderr, "setup: %s\n", err.msg);
        goto out;
    }
    CHECK_EQ_INT(p.l.n, as.aux_assignment_size);
    CHECK_EQ_INT(p.a.n, as.inp_assignment_size + as.a_aux_popcount);
    CHECK_EQ_INT(p.b_g1.n, as.b_inp_popcount + as.b_aux_popcount);
    CHECK_EQ_INT(p.b_g2.n, p.b_g1.n);
    CHECK_EQ_INT(as.a_aux_bit_len, as.aux_assignment_size);
    CHECK_EQ_INT(as.b_aux_bit_len, as.aux_assignment_size);
    CHECK_EQ_INT(as.b_inp_bit_len, as.inp_assignment_size);
    CHECK_EQ_INT(p.vk.n_ic, as.inp_assignment_size);
    /* the domain upstream derives from |H| is ours, and a, b, c fit in it */
    unsigned lg = lg2_floor((size_t)p.h.n - 1) + 1;
    CHECK_EQ_INT(lg, p.log_domain_size);
    CHECK(as.abc_size <= ((size_t)1 << lg));
    CHECK_EQ_INT(p.h.n + 1, (uint64_t)1 << lg);

    /* the file upstream reads, walked its way */
    uint64_t size = cuzk_params_encoded_size(&p);
    uint8_t *buf = malloc((size_t)size);
    CHECK(buf != NULL);
    if (buf != NULL && cuzk_params_encode(buf, (size_t)size, &p, 0, &err) == CUZK_OK) {
        uint64_t cur = 3 * 96 + 3 * 192, counts[6];
        CHECK_EQ_INT(cur, 864);
        for (int k = 0; k < 6; k++) { /* ic, h, l, a, b_g1, b_g2 */
            CHECK(cur + 4 <= size);
            if (cur + 4 > size) break;
            counts[k] = (uint64_t)buf[cur] << 24 | (uint64_t)buf[cur + 1] << 16 |
                        (uint64_t)buf[cur + 2] << 8 | buf[cur + 3];
            cur += 4 + counts[k] * (k == 5 ? 192 : 96);
        }
        CHECK_EQ_INT(cur, size);
        CHECK_EQ_INT(counts[0], as.inp_assignment_size);
        CHECK_EQ_INT(counts[1], p.h.n);
        CHECK_EQ_INT(counts[2], p.l.n);
        CHECK_EQ_INT(counts[3], p.a.n);
        CHECK_EQ_INT(counts[4], p.b_g1.n);
        CHECK_EQ_INT(counts[5], p.b_g2.n);
    } else {
        CHECK(!"cuzk_params_encode failed");
    }
    free(buf);
    cuzk_params_close(&p);
out:
    free(a_aux);
    free(b_inp);
    free(b_aux);
    cuzk_gen_free(g);
}

static void test_densities_and_shapes(void) {
    check_profile(CUZK_GEN_POREP);
    check_profile(CUZK_GEN_SHA);
    check_profile(CUZK_GEN_DENSE);
}

int main(int argc, char **argv) {
    cuzk_test_init(argc, argv);
    RUN(test_layout_matches_cuzk);
    RUN(test_fr_is_montgomery);
    RUN(test_points_are_montgomery);
    RUN(test_infinity_is_zero);
    RUN(test_densities_and_shapes);
    return cuzk_test_finish();
}
