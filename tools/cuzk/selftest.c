/*
 * selftest.c — `cuzk selftest`: known-answer checks of the arithmetic end to
 * end (fields, groups, encodings, pairing), with fresh random scalars. It is
 * what `make run` shows until the Groth16 prover lands, and a quick health
 * check on a new machine (exit 0 only when every check passes).
 */
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "cuzk.h"
#include "util/clock.h"
#include "ec/encode.h"
#include "ff/fr.h"
#include "pairing/pairing.h"
#include "commands.h"
#include "opt.h"

static int checks_run, checks_failed;

static void check(const char *what, int ok, double ms) {
    checks_run++;
    if (!ok) checks_failed++;
    printf("  %-58s %s  %8.3f ms\n", what, ok ? "ok  " : "FAIL", ms);
}

static int hex_eq(const uint8_t *bytes, size_t n, const char *hex) {
    static const char digits[] = "0123456789abcdef";
    if (strlen(hex) != 2 * n) return 0;
    for (size_t i = 0; i < n; i++)
        if (hex[2 * i] != digits[bytes[i] >> 4] || hex[2 * i + 1] != digits[bytes[i] & 15])
            return 0;
    return 1;
}

/* A uniformly random scalar below r from the OS CSPRNG. */
static int random_scalar(uint64_t k[4]) {
    static const uint64_t r[4] = CUZK__FR_R;
    do {
        if (getrandom(k, 32, 0) != 32) return 0;
        k[3] &= 0x7fffffffffffffffULL;
    } while (!cuzk__lt_n(k, r, 4));
    return 1;
}

/* a*b mod r on plain limbs, through Fr's Montgomery arithmetic. */
static void scalar_mul_mod_r(uint64_t out[4], const uint64_t a[4], const uint64_t b[4]) {
    cuzk_fr x, y;
    cuzk_fr_from_limbs(&x, a);
    cuzk_fr_from_limbs(&y, b);
    cuzk_fr_mul(&x, &x, &y);
    cuzk_fr_to_limbs(out, &x);
}

int cuzk__selftest_main(int argc, char **argv) {
    if (argc >= 1 && (strcmp(argv[0], "-h") == 0 || strcmp(argv[0], "--help") == 0)) {
        printf("usage: cuzk selftest\n"
               "  known-answer and random checks of the arithmetic stack; takes no options\n");
        return 0;
    }
    if (argc >= 1) return cuzk__opt_unknown("cuzk selftest", argv[0]);
    static const uint64_t r[4] = CUZK__FR_R;
    double t;
    printf("cuzk %s selftest (field kernels: %s)\n", cuzk_version(),
           cuzk_cpu_kernels());

    /* Encodings of the standard generators (zcash compressed form). */
    cuzk_g1_aff g1;
    cuzk_g2_aff g2;
    uint8_t c1[48], c2[96];
    t = cuzk__now_ms();
    cuzk_g1_generator(&g1);
    cuzk_g1_to_zcash_compressed(c1, &g1);
    check("G1 generator compresses to 97f1d3a7...",
          hex_eq(c1, 48,
                 "97f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1a"
                 "effb3af00adb22c6bb"),
          cuzk__now_ms() - t);
    t = cuzk__now_ms();
    cuzk_g2_generator(&g2);
    cuzk_g2_to_zcash_compressed(c2, &g2);
    check("G2 generator compresses to 93e02b60...",
          hex_eq(c2, 96,
                 "93e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d"
                 "57e5ac7d055d042b7e024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3"
                 "d1770bac0326a805bbefd48056c8c121bdb8"),
          cuzk__now_ms() - t);

    /* The generators have order r. */
    cuzk_g1_jac j1, k1;
    cuzk_g2_jac j2, k2;
    cuzk_g1_aff_to_jac(&j1, &g1);
    cuzk_g2_aff_to_jac(&j2, &g2);
    t = cuzk__now_ms();
    cuzk_g1_jac_mul_var(&k1, &j1, r, 4);
    check("r * G1 = infinity", cuzk_g1_jac_is_inf(&k1), cuzk__now_ms() - t);
    t = cuzk__now_ms();
    cuzk_g2_jac_mul_var(&k2, &j2, r, 4);
    check("r * G2 = infinity", cuzk_g2_jac_is_inf(&k2), cuzk__now_ms() - t);

    /* Random multiples: decode(encode(P)) = P with every check on. */
    uint64_t a[4], b[4], ab[4];
    if (!random_scalar(a) || !random_scalar(b)) {
        fprintf(stderr, "selftest: the OS random source failed\n");
        return 1;
    }
    scalar_mul_mod_r(ab, a, b);
    cuzk_g1_aff pa, pab, dec1;
    cuzk_g2_aff qb, dec2;
    t = cuzk__now_ms();
    cuzk_g1_jac_mul(&k1, &j1, a, 4);
    cuzk_g1_jac_to_aff(&pa, &k1);
    cuzk_g2_jac_mul(&k2, &j2, b, 4);
    cuzk_g2_jac_to_aff(&qb, &k2);
    check("constant-time scalar multiplication in G1 and G2", 1, cuzk__now_ms() - t);
    t = cuzk__now_ms();
    cuzk_g1_to_zcash_compressed(c1, &pa);
    cuzk_g2_to_zcash_compressed(c2, &qb);
    int ok = cuzk_g1_from_zcash(&dec1, c1, 48, 0) == CUZK_OK && cuzk_g1_aff_eq(&dec1, &pa) &&
             cuzk_g2_from_zcash(&dec2, c2, 96, 0) == CUZK_OK && cuzk_g2_aff_eq(&dec2, &qb);
    check("compressed round trip of a*G1, b*G2 (subgroup checked)", ok, cuzk__now_ms() - t);

    /* Bilinearity: e(aP, bQ) = e(abP, Q), and e(aP, bQ) * e(-abP, Q) = 1. */
    cuzk_fp12 e1, e2;
    t = cuzk__now_ms();
    cuzk_pairing(&e1, &pa, &qb);
    double one_pairing = cuzk__now_ms() - t;
    cuzk_g1_jac_mul_var(&k1, &j1, ab, 4);
    cuzk_g1_jac_to_aff(&pab, &k1);
    cuzk_pairing(&e2, &pab, &g2);
    check("e(aG1, bG2) = e(abG1, G2)", cuzk_fp12_eq(&e1, &e2), one_pairing);
    cuzk_g1_aff ps[2];
    cuzk_g2_aff qs[2] = {qb, g2};
    ps[0] = pa;
    cuzk_g1_aff_neg(&ps[1], &pab);
    t = cuzk__now_ms();
    check("e(aG1, bG2) * e(-abG1, G2) = 1 (one final exponentiation)",
          cuzk_pairing_product_is_one(ps, qs, 2), cuzk__now_ms() - t);
    ps[1] = pab;
    check("e(aG1, bG2) * e(abG1, G2) != 1", !cuzk_pairing_product_is_one(ps, qs, 2), 0);

    printf("selftest: %d checks, %d failed\n", checks_run, checks_failed);
    return checks_failed ? 1 : 0;
}
