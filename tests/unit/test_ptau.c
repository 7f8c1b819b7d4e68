/*
 * test_ptau.c — the development powers-of-tau writer (src/groth16/ptau.h).
 *
 * Independent references: SHA-256 test vectors (FIPS 180-2 examples); the
 * 2^32-th root of unity 5^t as printed in doc/formats.md (zkey domain and
 * root of unity); the Lagrange blocks checked through the interpolation
 * identity
 *   sum_i L_i(tau) omega^(ik) = tau^k   (k < m)
 * (a forward DFT of block j gives back the powers of tau), in Fr and on the
 * points against the monomial sections, and every monomial point against
 * cuzk_g*_jac_mul_var. The file is read back with the iden3 container reader
 * (src/io/binfile.h) and the snarkjs point decoder, which checks curve and
 * subgroup. (Byte equality with snarkjs's own `prepare phase2` is checked by
 * tests/interop/check_ptau.sh.)
 */
#include "harness.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/binfile.h"
#include "ec/encode.h"
#include "ff/fr.h"
#include "ec/g1.h"
#include "ec/g2.h"
#include "groth16/ptau.h"
#include "test_util.h"

static void hex_to_bytes(uint8_t *out, const char *hex, size_t n) {
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        sscanf(hex + 2 * i, "%2x", &v);
        out[i] = (uint8_t)v;
    }
}

static void test_sha256(void) {
    static const struct {
        const char *msg, *hex;
    } v[] = {
        {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
        {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
        {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
        {"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
         "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"},
    };
    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
        uint8_t got[32], want[32];
        cuzk__sha256(got, v[i].msg, strlen(v[i].msg));
        hex_to_bytes(want, v[i].hex, 32);
        CHECK_MEM(got, want, 32);
    }
    /* one million 'a' (FIPS 180-2 C.3) */
    size_t n = 1000000;
    char *a = malloc(n);
    CHECK(a != NULL);
    if (a == NULL) return;
    memset(a, 'a', n);
    uint8_t got[32], want[32];
    cuzk__sha256(got, a, n);
    hex_to_bytes(want, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0", 32);
    CHECK_MEM(got, want, 32);
    free(a);
}

/* omega_(2^32) from the constant printed in doc/formats.md, then squared down. */
static void ref_root(cuzk_fr *w, unsigned j) {
    uint8_t be[32];
    hex_to_bytes(be, "0212d79e5b416b6f0fd56dc8d168d6c0c4024ff270b3e0941b788f500b912f1f", 32);
    CHECK(cuzk_fr_from_bytes_be(w, be));
    for (unsigned i = j; i < 32; i++) cuzk_fr_sqr(w, w);
}

static void test_roots(void) {
    for (unsigned j = 0; j <= 32; j++) {
        cuzk_fr w, r;
        cuzk__ptau_root(&w, j);
        ref_root(&r, j);
        CHECK(cuzk_fr_eq(&w, &r));
        /* order exactly 2^j */
        for (unsigned i = 0; i + 1 < j; i++) cuzk_fr_sqr(&w, &w);
        if (j >= 1) {
            cuzk_fr m1;
            cuzk_fr_set_one(&m1);
            cuzk_fr_neg(&m1, &m1);
            CHECK(cuzk_fr_eq(&w, &m1));
        } else {
            CHECK(cuzk_fr_is_one(&w));
        }
    }
}

static void test_secrets(void) {
    cuzk_ptau_secrets a, b, c;
    cuzk_ptau_secrets_from_seed(&a, "seed", 4);
    cuzk_ptau_secrets_from_seed(&b, "seed", 4);
    cuzk_ptau_secrets_from_seed(&c, "seee", 4);
    CHECK(memcmp(&a, &b, sizeof(a)) == 0);
    CHECK(!cuzk_fr_eq(&a.tau, &c.tau) && !cuzk_fr_eq(&a.alpha, &c.alpha));
    CHECK(!cuzk_fr_eq(&a.tau, &a.alpha) && !cuzk_fr_eq(&a.alpha, &a.beta));
    CHECK(!cuzk_fr_is_zero(&a.tau) && !cuzk_fr_is_zero(&a.alpha) && !cuzk_fr_is_zero(&a.beta));
    cuzk_ptau_secrets_from_seed(&c, NULL, 0); /* the empty seed is a seed */
    CHECK(!cuzk_fr_is_zero(&c.tau));
    /* tau = first SHA-256("cuzk-ptau-dev-v1\0tau\0seed" ctr) with bit 255 clear that is < r */
    uint8_t msg[64], h[32];
    size_t o = 0;
    memcpy(msg, "cuzk-ptau-dev-v1", 17);
    o += 17;
    memcpy(msg + o, "tau", 4);
    o += 4;
    memcpy(msg + o, "seed", 4);
    o += 4;
    for (uint32_t ctr = 0; ctr < 100; ctr++) {
        msg[o] = (uint8_t)ctr, msg[o + 1] = msg[o + 2] = msg[o + 3] = 0;
        cuzk__sha256(h, msg, o + 4);
        h[31] &= 0x7f;
        cuzk_fr t;
        if (cuzk_fr_from_bytes_le(&t, h)) {
            CHECK(cuzk_fr_eq(&t, &a.tau));
            break;
        }
    }
}

/* u64 limbs of an Fr element, for the scalar multiplications */
static void limbs_of(uint64_t k[4], const cuzk_fr *a) { cuzk_fr_to_limbs(k, a); }

/* Fr: sum_i out_i omega^(ik) = tau^k for k < m (and 0 for k = m - 1 in the
 * zero_top block); and sum_i L_i = 1. */
static void test_lagrange_scalars(void) {
    unsigned last = 6;
    cuzk_fr tau, *out = malloc((((size_t)2 << last) - 1) * sizeof(cuzk_fr));
    CHECK(out != NULL);
    if (out == NULL) return;
    for (int zero_top = 0; zero_top < 2; zero_top++) {
        uint64_t k[4] = {cuzk_test_rand64(), cuzk_test_rand64(), cuzk_test_rand64(), 0};
        cuzk_fr_from_limbs(&tau, k);
        CHECK(cuzk__ptau_lagrange_scalars(out, &tau, last, zero_top) == CUZK_OK);
        for (unsigned j = 0; j <= last; j++) {
            size_t m = (size_t)1 << j;
            const cuzk_fr *blk = out + m - 1;
            cuzk_fr w, tk;
            ref_root(&w, j);
            cuzk_fr_set_one(&tk);
            size_t bad = 0;
            for (size_t kk = 0; kk < m; kk++) {
                cuzk_fr acc, wk, wik;
                cuzk_fr_set_zero(&acc);
                cuzk_fr_set_one(&wk);
                for (size_t e = 0; e < kk; e++) cuzk_fr_mul(&wk, &wk, &w); /* omega^k */
                cuzk_fr_set_one(&wik);
                for (size_t i = 0; i < m; i++) {
                    cuzk_fr t;
                    cuzk_fr_mul(&t, &blk[i], &wik);
                    cuzk_fr_add(&acc, &acc, &t);
                    cuzk_fr_mul(&wik, &wik, &wk);
                }
                cuzk_fr want = tk;
                if (zero_top && j == last && kk == m - 1) cuzk_fr_set_zero(&want);
                bad += !cuzk_fr_eq(&acc, &want);
                cuzk_fr_mul(&tk, &tk, &tau);
            }
            CHECK_EQ_INT(bad, 0);
        }
    }
    /* tau a root of unity or zero: refused */
    cuzk_fr w;
    ref_root(&w, 5);
    CHECK(cuzk__ptau_lagrange_scalars(out, &w, 3, 0) == CUZK_ERR_INVALID_ARG);
    cuzk_fr_set_zero(&w);
    CHECK(cuzk__ptau_lagrange_scalars(out, &w, 3, 0) == CUZK_ERR_INVALID_ARG);
    free(out);
}

/* ---- the file ------------------------------------------------------------------- */

static char tmp_path[256];

static void make_tmp_path(const char *tag) {
    const char *d = getenv("TMPDIR");
    snprintf(tmp_path, sizeof(tmp_path), "%s/cuzk_test_ptau_%ld_%s.ptau", d && *d ? d : "/tmp",
             (long)getpid(), tag);
}

static const cuzk_binfile_section *sec(const cuzk_binfile *bf, uint32_t id) {
    return cuzk_binfile_find(bf, id);
}

static int g1_at(cuzk_g1_aff *p, const cuzk_binfile *bf, uint32_t id, size_t i) {
    const cuzk_binfile_section *s = sec(bf, id);
    if (s == NULL || (i + 1) * 96 > s->size) return 0;
    return cuzk_g1_from_snarkjs(p, cuzk_binfile_payload(bf, s) + i * 96, 0) == CUZK_OK;
}

static int g2_at(cuzk_g2_aff *p, const cuzk_binfile *bf, uint32_t id, size_t i) {
    const cuzk_binfile_section *s = sec(bf, id);
    if (s == NULL || (i + 1) * 192 > s->size) return 0;
    return cuzk_g2_from_snarkjs(p, cuzk_binfile_payload(bf, s) + i * 192, 0) == CUZK_OK;
}

/* Layout: section order and sizes from the snarkjs formulas, header content. */
static void check_layout(const cuzk_binfile *bf, unsigned power) {
    static const uint32_t order[] = {1, 2, 3, 4, 5, 6, 7, 12, 13, 14, 15};
    uint64_t n = (uint64_t)1 << power;
    const uint64_t want[] = {60, (2 * n - 1) * 96, n * 192, n * 96, n * 96, 192, 4,
                             (4 * n - 1) * 96, (2 * n - 1) * 192, (2 * n - 1) * 96,
                             (2 * n - 1) * 96};
    CHECK_EQ_INT(bf->version, 1);
    CHECK_EQ_INT(bf->n_sections, 11);
    uint64_t total = 12;
    for (unsigned i = 0; i < 11 && i < bf->n_sections; i++) {
        CHECK_EQ_INT(bf->sections[i].id, order[i]);
        CHECK_EQ_INT(bf->sections[i].size, want[i]);
        CHECK_EQ_INT(cuzk_ptau_section_bytes(order[i], power), want[i]);
        total += 12 + want[i];
    }
    CHECK_EQ_INT(bf->size, total);
    CHECK_EQ_INT(cuzk_ptau_file_bytes(power), total);
    const cuzk_binfile_section *h = sec(bf, 1);
    if (h == NULL) return;
    const uint8_t *p = cuzk_binfile_payload(bf, h);
    CHECK_EQ_INT(cuzk__load_le32(p), 48);
    uint8_t q[48];
    static const uint64_t pl[6] = CUZK__FP_P;
    for (int i = 0; i < 48; i++) q[i] = (uint8_t)(pl[i / 8] >> (8 * (i % 8)));
    CHECK_MEM(p + 4, q, 48);
    CHECK_EQ_INT(cuzk__load_le32(p + 52), power);
    CHECK_EQ_INT(cuzk__load_le32(p + 56), power);
    const cuzk_binfile_section *c = sec(bf, 7);
    if (c != NULL) CHECK_EQ_INT(cuzk__load_le32(cuzk_binfile_payload(bf, c)), 0);
}

/* Point i of section id (G1, G2) decodes and is k times the generator. */
static int g1_at_is(const cuzk_binfile *bf, uint32_t id, size_t i, const cuzk_fr *k) {
    uint64_t l[4];
    cuzk_g1_aff p, want;
    limbs_of(l, k);
    cuzk_test_g1_gen_mul(&want, l);
    return g1_at(&p, bf, id, i) && cuzk_g1_aff_eq(&p, &want);
}

static int g2_at_is(const cuzk_binfile *bf, uint32_t id, size_t i, const cuzk_fr *k) {
    uint64_t l[4];
    cuzk_g2_aff p, want;
    limbs_of(l, k);
    cuzk_test_g2_gen_mul(&want, l);
    return g2_at(&p, bf, id, i) && cuzk_g2_aff_eq(&p, &want);
}

/* Monomial sections against independent scalar multiplications (point 0 of
 * sections 2 and 3 is tau^0 = 1 times the generator). */
static void check_monomials(const cuzk_binfile *bf, unsigned power, const cuzk_ptau_secrets *s,
                            size_t stride) {
    size_t n = (size_t)1 << power;
    cuzk_fr tp, t;
    cuzk_fr_set_one(&tp);
    size_t bad = 0;
    for (size_t i = 0; i < 2 * n - 1; i++) {
        if (i % stride == 0 || i < 3 || i == 2 * n - 2) {
            bad += !g1_at_is(bf, 2, i, &tp);
            if (i < n) {
                bad += !g2_at_is(bf, 3, i, &tp);
                cuzk_fr_mul(&t, &tp, &s->alpha);
                bad += !g1_at_is(bf, 4, i, &t);
                cuzk_fr_mul(&t, &tp, &s->beta);
                bad += !g1_at_is(bf, 5, i, &t);
            }
        }
        cuzk_fr_mul(&tp, &tp, &s->tau);
    }
    CHECK_EQ_INT(bad, 0);
    CHECK(g2_at_is(bf, 6, 0, &s->beta));
}

/* Every Lagrange block sums to its section's first monomial point (sum L_i = 1;
 * in the zeroed block too, since sum omega^i = 0); all points decode (curve and
 * subgroup checked). */
static void check_block_sums(const cuzk_binfile *bf, unsigned power) {
    static const struct {
        uint32_t lag, mono;
        int g2;
        unsigned extra;
    } secs[] = {{12, 2, 0, 1}, {13, 3, 1, 0}, {14, 4, 0, 0}, {15, 5, 0, 0}};
    for (size_t si = 0; si < 4; si++) {
        size_t bad = 0;
        for (unsigned j = 0; j <= power + secs[si].extra; j++) {
            size_t m = (size_t)1 << j;
            if (secs[si].g2) {
                cuzk_g2_jac acc;
                cuzk_g2_aff p, first, sa;
                cuzk_g2_jac_set_inf(&acc);
                for (size_t i = 0; i < m; i++) {
                    if (!g2_at(&p, bf, secs[si].lag, m - 1 + i)) bad++;
                    cuzk_g2_jac_add_aff_var(&acc, &acc, &p);
                }
                cuzk_g2_jac_to_aff_var(&sa, &acc);
                bad += !(g2_at(&first, bf, secs[si].mono, 0) && cuzk_g2_aff_eq(&sa, &first));
            } else {
                cuzk_g1_jac acc;
                cuzk_g1_aff p, first, sa;
                cuzk_g1_jac_set_inf(&acc);
                for (size_t i = 0; i < m; i++) {
                    if (!g1_at(&p, bf, secs[si].lag, m - 1 + i)) bad++;
                    cuzk_g1_jac_add_aff_var(&acc, &acc, &p);
                }
                cuzk_g1_jac_to_aff_var(&sa, &acc);
                bad += !(g1_at(&first, bf, secs[si].mono, 0) && cuzk_g1_aff_eq(&sa, &first));
            }
        }
        CHECK_EQ_INT(bad, 0);
    }
}

/* The forward DFT of every block gives the monomial points back:
 * sum_i omega^(ik) B_j[i] = M[k] for k < 2^j (the zeroed block: infinity at
 * k = 2^j - 1). Quadratic: small powers only. */
static void check_block_dft(const cuzk_binfile *bf, unsigned power) {
    static const struct {
        uint32_t lag, mono;
        int g2;
        unsigned extra;
    } secs[] = {{12, 2, 0, 1}, {13, 3, 1, 0}, {14, 4, 0, 0}, {15, 5, 0, 0}};
    for (size_t si = 0; si < 4; si++) {
        size_t bad = 0;
        for (unsigned j = 0; j <= power + secs[si].extra; j++) {
            size_t m = (size_t)1 << j;
            int zeroed = secs[si].extra && j == power + 1;
            cuzk_fr w, wk, wik;
            ref_root(&w, j);
            cuzk_fr_set_one(&wk);
            for (size_t k = 0; k < m; k++) {
                cuzk_fr_set_one(&wik);
                if (secs[si].g2) {
                    cuzk_g2_jac acc, t, pj;
                    cuzk_g2_aff p, want;
                    cuzk_g2_jac_set_inf(&acc);
                    for (size_t i = 0; i < m; i++) {
                        uint64_t e[4];
                        bad += !g2_at(&p, bf, secs[si].lag, m - 1 + i);
                        cuzk_g2_aff_to_jac(&pj, &p);
                        limbs_of(e, &wik);
                        cuzk_g2_jac_mul_var(&t, &pj, e, 4);
                        cuzk_g2_jac_add_var(&acc, &acc, &t);
                        cuzk_fr_mul(&wik, &wik, &wk);
                    }
                    bad += !g2_at(&want, bf, secs[si].mono, k);
                    cuzk_g2_aff_to_jac(&t, &want);
                    bad += !cuzk_g2_jac_eq(&acc, &t);
                } else {
                    cuzk_g1_jac acc, t, pj;
                    cuzk_g1_aff p, want;
                    cuzk_g1_jac_set_inf(&acc);
                    for (size_t i = 0; i < m; i++) {
                        uint64_t e[4];
                        bad += !g1_at(&p, bf, secs[si].lag, m - 1 + i);
                        cuzk_g1_aff_to_jac(&pj, &p);
                        limbs_of(e, &wik);
                        cuzk_g1_jac_mul_var(&t, &pj, e, 4);
                        cuzk_g1_jac_add_var(&acc, &acc, &t);
                        cuzk_fr_mul(&wik, &wik, &wk);
                    }
                    if (zeroed && k == m - 1) {
                        bad += !cuzk_g1_jac_is_inf(&acc);
                    } else {
                        bad += !g1_at(&want, bf, secs[si].mono, k);
                        cuzk_g1_aff_to_jac(&t, &want);
                        bad += !cuzk_g1_jac_eq(&acc, &t);
                    }
                }
                cuzk_fr_mul(&wk, &wk, &w);
            }
        }
        CHECK_EQ_INT(bad, 0);
    }
}

static void test_file(unsigned power, int dft, size_t stride) {
    cuzk_ptau_secrets s;
    char seed[32];
    snprintf(seed, sizeof(seed), "test %llu", (unsigned long long)cuzk_test_rand64());
    cuzk_ptau_secrets_from_seed(&s, seed, strlen(seed));
    make_tmp_path("f");
    cuzk_error err;
    cuzk_status st = cuzk_ptau_write_dev(tmp_path, power, &s, 0, &err);
    CHECK_EQ_INT(st, CUZK_OK);
    if (st != CUZK_OK) {
        fprintf(stderr, "%s\n", cuzk__error_text(&err));
        return;
    }
    cuzk_binfile bf;
    st = cuzk_binfile_open(&bf, tmp_path, "ptau", 1, 1, &err);
    CHECK_EQ_INT(st, CUZK_OK);
    if (st == CUZK_OK) {
        check_layout(&bf, power);
        check_monomials(&bf, power, &s, stride);
        check_block_sums(&bf, power);
        if (dft) check_block_dft(&bf, power);
    }
    cuzk_binfile_close(&bf);
    remove(tmp_path);
}

static void test_file_small(void) {
    test_file(1, 1, 1);
    test_file(3, 1, 1);
}

static void test_file_p8(void) { test_file(8, 0, 37); }

static void test_errors(void) {
    cuzk_ptau_secrets s;
    cuzk_ptau_secrets_from_seed(&s, "e", 1);
    cuzk_error err;
    make_tmp_path("e");
    CHECK(cuzk_ptau_write_dev(tmp_path, 0, &s, 1, &err) == CUZK_ERR_INVALID_ARG);
    CHECK(cuzk_ptau_write_dev(tmp_path, CUZK_PTAU_MAX_POWER + 1, &s, 1, &err) ==
          CUZK_ERR_INVALID_ARG);
    CHECK(strstr(err.msg, "power") != NULL);
    cuzk_ptau_secrets z = s;
    cuzk_fr_set_zero(&z.alpha);
    CHECK(cuzk_ptau_write_dev(tmp_path, 2, &z, 1, &err) == CUZK_ERR_INVALID_ARG);
    z = s;
    ref_root(&z.tau, 3); /* a root of unity: L_i(tau) undefined */
    CHECK(cuzk_ptau_write_dev(tmp_path, 2, &z, 1, &err) == CUZK_ERR_INVALID_ARG);
    z = s;
    cuzk_fr_set_one(&z.tau);
    CHECK(cuzk_ptau_write_dev(tmp_path, 2, &z, 1, &err) == CUZK_ERR_INVALID_ARG);
    CHECK(access(tmp_path, F_OK) != 0); /* nothing written */
    CHECK(cuzk_ptau_write_dev("/nonexistent-dir/x.ptau", 2, &s, 1, &err) == CUZK_ERR_IO);
    CHECK(strstr(err.msg, "/nonexistent-dir/x.ptau") != NULL);
    CHECK(cuzk_ptau_write_dev(NULL, 2, &s, 1, &err) == CUZK_ERR_INVALID_ARG);
    CHECK(cuzk_ptau_section_points(99, 3) == 0);
}

int main(int argc, char **argv) {
    cuzk_test_init(argc, argv);
    RUN(test_sha256);
    RUN(test_roots);
    RUN(test_secrets);
    RUN(test_lagrange_scalars);
    RUN(test_file_small);
    RUN(test_file_p8);
    RUN(test_errors);
    return cuzk_test_finish();
}
