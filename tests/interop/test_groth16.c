/*
 * test_groth16.c — the prover's API on real snarkjs keys (the fixtures of
 * tests/interop/fixtures.sh; directory in CUZK_SNARKJS_FIXTURES): proofs made
 * with fixed r, s are reproducible bit for bit, prove_finish needs nothing
 * from the key (it is closed before), proofs with fresh r, s differ and all
 * verify, and bad witnesses are refused with a reason.
 */
#include <stdlib.h>
#include <string.h>

#include "groth16/groth16.h"
#include "harness.h"
#include "io/wtns.h"
#include "io/zkey.h"

static const char *fixtures;
static const char *circuits[] = {"multiplier", "multi_public"};

static int open_pair(const char *circuit, cuzk_zkey *zk, cuzk_wtns *w) {
    char path[4096];
    cuzk_error err;
    memset(zk, 0, sizeof(*zk));
    memset(w, 0, sizeof(*w));
    snprintf(path, sizeof(path), "%s/%s/circuit.zkey", fixtures, circuit);
    if (cuzk_zkey_open(zk, path, CUZK_ZKEY_CHECK_SUBGROUP, &err) != CUZK_OK) {
        fprintf(stderr, "%s\n", cuzk__error_text(&err));
        return 0;
    }
    snprintf(path, sizeof(path), "%s/%s/witness.wtns", fixtures, circuit);
    if (cuzk_wtns_open(w, path, &err) != CUZK_OK) {
        fprintf(stderr, "%s\n", cuzk__error_text(&err));
        cuzk_zkey_close(zk);
        return 0;
    }
    return 1;
}

static void random_scalar(uint64_t k[4]) {
    cuzk_fr x;
    uint64_t l[4] = {cuzk_test_rand64(), cuzk_test_rand64(), cuzk_test_rand64(),
                     cuzk_test_rand64() & 0x3fffffffffffffffULL};
    cuzk_fr_from_limbs(&x, l); /* reduce below r through Montgomery form */
    cuzk_fr_to_limbs(k, &x);
}

static int verify(const cuzk_groth16_vk *vk, const cuzk_wtns *w, const cuzk_groth16_proof *p) {
    cuzk_error err;
    return cuzk_groth16_verify(vk, (const uint64_t(*)[4])(w->values + 4), vk->n_public, p,
                               &err) == CUZK_OK;
}

static void test_reproducible_and_valid(void) {
    for (size_t c = 0; c < sizeof(circuits) / sizeof(circuits[0]); c++) {
        cuzk_zkey zk;
        cuzk_wtns w;
        if (!open_pair(circuits[c], &zk, &w)) {
            CHECK(0);
            continue;
        }
        cuzk_error err;
        cuzk_groth16_vk vk;
        CHECK(cuzk_groth16_vk_from_zkey(&vk, &zk, &err) == CUZK_OK);
        cuzk_groth16_partial p1, p2;
        CHECK(cuzk_groth16_prove_start_zkey(&p1, &zk, (const uint64_t(*)[4])w.values,
                                            w.n_witness, 1, &err) == CUZK_OK);
        CHECK(cuzk_groth16_prove_start_zkey(&p2, &zk, (const uint64_t(*)[4])w.values,
                                            w.n_witness, 0, &err) == CUZK_OK);
        cuzk_zkey_close(&zk); /* the partials own what prove_finish needs */
        uint64_t r[4], s[4], r2[4], s2[4];
        random_scalar(r);
        random_scalar(s);
        random_scalar(r2);
        random_scalar(s2);
        cuzk_groth16_proof a, b, d;
        cuzk_groth16_prove_finish(&a, &p1, r, s);
        cuzk_groth16_prove_finish(&b, &p2, r, s); /* 1 thread vs all: same bits */
        CHECK_MEM(&a, &b, sizeof(a));
        cuzk_groth16_prove_finish(&d, &p1, r2, s2);
        CHECK(memcmp(&a, &d, sizeof(a)) != 0);
        CHECK(verify(&vk, &w, &a));
        CHECK(verify(&vk, &w, &d));
        /* r = s = 0 is allowed by the algebra and still verifies. */
        uint64_t zero[4] = {0};
        cuzk_groth16_prove_finish(&d, &p1, zero, zero);
        CHECK(verify(&vk, &w, &d));
        /* A proof for other public inputs fails. */
        if (vk.n_public > 0) {
            uint64_t(*pub)[4] = malloc(sizeof(*pub) * vk.n_public);
            memcpy(pub, w.values + 4, sizeof(*pub) * vk.n_public);
            pub[0][0] ^= 1;
            CHECK(cuzk_groth16_verify(&vk, (const uint64_t(*)[4])pub, vk.n_public, &a, &err) ==
                  CUZK_ERR_PROOF_INVALID);
            free(pub);
        }
        cuzk_groth16_vk_free(&vk);
        cuzk_wtns_close(&w);
    }
}

static void test_bad_witness_refused(void) {
    cuzk_zkey zk;
    cuzk_wtns w;
    if (!open_pair("multi_public", &zk, &w)) {
        CHECK(0);
        return;
    }
    cuzk_error err;
    cuzk_groth16_partial p;
    uint64_t(*copy)[4] = malloc(sizeof(*copy) * w.n_witness);
    memcpy(copy, w.values, sizeof(*copy) * w.n_witness);
    CHECK(cuzk_groth16_prove_start_zkey(&p, &zk, (const uint64_t(*)[4])copy, w.n_witness - 1, 0,
                                        &err) == CUZK_ERR_INVALID_ARG);
    CHECK(strstr(err.msg, "nVars") != NULL);
    copy[0][0] = 2;
    CHECK(cuzk_groth16_prove_start_zkey(&p, &zk, (const uint64_t(*)[4])copy, w.n_witness, 0,
                                        &err) == CUZK_ERR_INVALID_ARG);
    copy[0][0] = 1;
    static const uint64_t r[4] = CUZK__FR_R;
    memcpy(copy[3], r, sizeof(r));
    CHECK(cuzk_groth16_prove_start_zkey(&p, &zk, (const uint64_t(*)[4])copy, w.n_witness, 0,
                                        &err) == CUZK_ERR_NOT_CANONICAL);
    CHECK(strstr(err.msg, "witness value 3") != NULL);
    free(copy);
    cuzk_wtns_close(&w);
    cuzk_zkey_close(&zk);
}

int main(int argc, char **argv) {
    cuzk_test_init(argc, argv);
    fixtures = getenv("CUZK_SNARKJS_FIXTURES");
    if (fixtures == NULL) return cuzk_test_skip("CUZK_SNARKJS_FIXTURES is not set");
    RUN(test_reproducible_and_valid);
    RUN(test_bad_witness_refused);
    return cuzk_test_finish();
}
