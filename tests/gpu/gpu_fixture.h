/*
 * gpu_fixture.h — inputs that several GPU tests compare the device with the
 * CPU on:
 *   - bases of a random walk over multiples of the generator, with the
 *     point at infinity, a repeat and an opposite among them, and the
 *     comparison of two Jacobian results as points (test_gpu_msm,
 *     test_gpu_stream);
 *   - toxic waste for a development setup, and the committed snarkjs
 *     sample key and witness (test_gpu_backend, test_gpu_stream).
 * Random values come from harness.h's generator, so a seed replays a run.
 * Everything is static: each test includes it once.
 */
#ifndef CUZK_TEST_GPU_FIXTURE_H
#define CUZK_TEST_GPU_FIXTURE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "circuit/witness.h"
#include "ec/g1.h"
#include "ec/g2.h"
#include "groth16/setup.h"
#include "harness.h"
#include "io/wtns.h"
#include "io/zkey.h"
#include "unit/test_util.h"

/* n bases of a random walk P += S_j over 8 random multiples S_j of the
 * generator, with infinity at 2, a repeat of 3 at 5 and its opposite at 7
 * (n >= 16); NULL when out of memory. g##_same: a and b are the same point. */
#define CUZK_GPU_TEST_WALK(g, fe_t)                                                           \
    static cuzk_##g##_aff *g##_walk(size_t n) {                                               \
        cuzk_##g##_aff gen, *b = malloc(n * sizeof *b);                                       \
        cuzk_##g##_jac gj, steps[8], cur, *tmp = malloc(4096 * sizeof *tmp);                  \
        fe_t *scr = malloc(4096 * sizeof *scr);                                               \
        if (!b || !tmp || !scr) {                                                             \
            free(b);                                                                          \
            free(tmp);                                                                        \
            free(scr);                                                                        \
            return NULL;                                                                      \
        }                                                                                     \
        cuzk_##g##_generator(&gen);                                                           \
        cuzk_##g##_aff_to_jac(&gj, &gen);                                                     \
        for (int j = 0; j < 8; j++) {                                                         \
            uint64_t k[4];                                                                    \
            cuzk_test_rand_scalar(k);                                                         \
            cuzk_##g##_jac_mul_var(&steps[j], &gj, k, 4);                                     \
        }                                                                                     \
        cur = steps[0];                                                                       \
        for (size_t i0 = 0; i0 < n; i0 += 4096) {                                             \
            const size_t m = n - i0 < 4096 ? n - i0 : 4096;                                   \
            for (size_t i = 0; i < m; i++) {                                                  \
                cuzk_##g##_jac_add_var(&cur, &cur, &steps[cuzk_test_rand64() % 8]);           \
                tmp[i] = cur;                                                                 \
            }                                                                                 \
            cuzk_##g##_jac_batch_to_aff_var(b + i0, tmp, m, scr);                             \
        }                                                                                     \
        if (n >= 16) {                                                                        \
            cuzk_##g##_aff_set_inf(&b[2]);                                                    \
            b[5] = b[3];                                                                      \
            cuzk_##g##_aff_neg(&b[7], &b[3]);                                                 \
        }                                                                                     \
        free(tmp);                                                                            \
        free(scr);                                                                            \
        return b;                                                                             \
    }                                                                                         \
    static int g##_same(const cuzk_##g##_jac *a, const cuzk_##g##_jac *b) {                   \
        cuzk_##g##_aff x, y;                                                                  \
        cuzk_##g##_jac_to_aff_var(&x, a);                                                     \
        cuzk_##g##_jac_to_aff_var(&y, b);                                                     \
        return memcmp(&x, &y, sizeof x) == 0;                                                 \
    }
CUZK_GPU_TEST_WALK(g1, cuzk_fp)
CUZK_GPU_TEST_WALK(g2, cuzk_fp2)
#undef CUZK_GPU_TEST_WALK

/* Toxic waste drawn from the seeded generator: tau, alpha, beta, gamma,
 * delta in turn. */
static void toxic_fixed(cuzk_setup_toxic *tw) {
    uint64_t *const k[5] = {tw->tau, tw->alpha, tw->beta, tw->gamma, tw->delta};
    for (int i = 0; i < 5; i++) cuzk_test_rand_scalar(k[i]);
}

/* The committed snarkjs sample: examples/sample of CUZK_SOURCE_DIR (else of
 * the current folder), its key, its witness file and the witness in it. */
typedef struct {
    cuzk_zkey zk;
    cuzk_wtns wt;
    cuzk_witness w;
} snarkjs_sample;

/* 0 when the key does not open (err says why, nothing to close); else 1,
 * the witness file and witness opened under checks. */
static int snarkjs_sample_open(snarkjs_sample *sm, cuzk_error *err) {
    const char *src = getenv("CUZK_SOURCE_DIR");
    char kp[1024], wp[1024];
    snprintf(kp, sizeof kp, "%s/examples/sample/circuit.zkey", src ? src : ".");
    snprintf(wp, sizeof wp, "%s/examples/sample/witness.wtns", src ? src : ".");
    if (cuzk_zkey_open(&sm->zk, kp, 0, err) != CUZK_OK) return 0;
    CHECK_EQ_INT(cuzk_wtns_open(&sm->wt, wp, err), CUZK_OK);
    CHECK_EQ_INT(cuzk_witness_from_values(&sm->w, (const uint64_t *)sm->wt.values, 1,
                                          (uint64_t)sm->wt.n_witness - 1, wp, err),
                 CUZK_OK);
    return 1;
}

static void snarkjs_sample_close(snarkjs_sample *sm) {
    cuzk_witness_close(&sm->w);
    cuzk_wtns_close(&sm->wt);
    cuzk_zkey_close(&sm->zk);
}

#endif /* CUZK_TEST_GPU_FIXTURE_H */
