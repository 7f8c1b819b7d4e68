/*
 * fuzz_zkey.c — libFuzzer target for the .zkey reader (src/io/zkey.h) and
 * the container under it (binfile.h).
 *
 * The input is the file itself, copied to an exact-size heap block (so ASan
 * sees any read past its end) and opened with cuzk_zkey_open_mem with the
 * curve check on. Properties (abort on violation):
 *   - a refused input gives a status in range, a message naming the input,
 *     and leaves the object zeroed;
 *   - an accepted key is consistent: counts match nVars/nPublic/domainSize,
 *     every coefficient record is in range and canonical, every point
 *     canonical and on its curve; small keys are also subgroup-checked
 *     through cuzk_zkey_check_points, which must then agree with a serial
 *     re-check;
 *   - the open a prover makes (flags 0) accepts whatever the checked open
 *     does, and a key it accepts gives its witness products (a, b, c) for a
 *     witness of 1 then zeros without reading or writing out of bounds.
 * fuzz/replay_main.c turns this file into a corpus replayer for any compiler.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "groth16/groth16.h"
#include "io/zkey.h"
#include "fuzz_common.h"

static bool fp_ok(const cuzk_fp *a) { return cuzk__lt_n(a->l, cuzk__fp_p, CUZK_FP_LIMBS); }

static void check_key(const cuzk_zkey *zk) {
    FUZZ_ASSERT(zk->protocol == 1 && zk->n8q == 48 && zk->n8r == 32);
    FUZZ_ASSERT(zk->n_public < zk->n_vars);
    FUZZ_ASSERT(zk->domain_size > zk->n_public);
    FUZZ_ASSERT((zk->domain_size & (zk->domain_size - 1)) == 0);
    FUZZ_ASSERT((1ull << zk->log_domain_size) == zk->domain_size);
    FUZZ_ASSERT(zk->ic.n == (uint64_t)zk->n_public + 1);
    FUZZ_ASSERT(zk->a.n == zk->n_vars && zk->b1.n == zk->n_vars && zk->b2.n == zk->n_vars);
    FUZZ_ASSERT(zk->c.n == (uint64_t)zk->n_vars - zk->n_public - 1);
    FUZZ_ASSERT(zk->h.n == zk->domain_size);
    FUZZ_ASSERT(zk->n_rows <= zk->domain_size);
    FUZZ_ASSERT(zk->root == CUZK_NTT_ROOT5 && zk->h_kind == CUZK_H_ODD_COSET_LAGRANGE);
    uint32_t rows = 0;
    for (uint32_t i = 0; i < zk->n_coefs; i++) {
        cuzk_zkey_coef e;
        cuzk_zkey_coef_get(zk, i, &e);
        FUZZ_ASSERT(e.matrix <= 1 && e.constraint < zk->domain_size && e.signal < zk->n_vars);
        FUZZ_ASSERT(cuzk__lt_n(e.value, cuzk__fr_r, CUZK_FR_LIMBS));
        if (e.constraint + 1 > rows) rows = e.constraint + 1;
    }
    FUZZ_ASSERT(rows == zk->n_rows);
    const cuzk_zkey_g1_vec *v[5] = {&zk->ic, &zk->a, &zk->b1, &zk->c, &zk->h};
    for (int k = 0; k < 5; k++) {
        FUZZ_ASSERT(v[k]->raw == zk->file.data + v[k]->offset);
        for (uint64_t i = 0; i < v[k]->n; i++) {
            const cuzk_g1_aff *p = &v[k]->p[i];
            FUZZ_ASSERT(memcmp(p, v[k]->raw + 96 * i, 96) == 0); /* little-endian host */
            FUZZ_ASSERT(fp_ok(&p->x) && fp_ok(&p->y) && cuzk_g1_aff_is_on_curve(p));
        }
    }
    for (uint64_t i = 0; i < zk->b2.n; i++) {
        FUZZ_ASSERT(memcmp(&zk->b2.p[i], zk->b2.raw + 192 * i, 192) == 0);
        FUZZ_ASSERT(cuzk_g2_aff_is_on_curve(&zk->b2.p[i]));
    }
    FUZZ_ASSERT(cuzk_g1_aff_in_subgroup_var(&zk->alpha1));
    FUZZ_ASSERT(cuzk_g2_aff_in_subgroup_var(&zk->delta2));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    uint8_t *in = fuzz_copy_input(data, size);
    if (in == NULL) return 0;
    cuzk_zkey zk;
    cuzk_error e;
    memset(&e, 0, sizeof(e));
    cuzk_status st = cuzk_zkey_open_mem(&zk, in, size, NAME, CUZK_ZKEY_CHECK_CURVE, &e);
    if (st != CUZK_OK) {
        check_error(st, &e);
        FUZZ_ASSERT(all_zero(&zk, sizeof(zk)));
    } else {
        check_key(&zk);
        uint64_t pts = zk.ic.n + zk.a.n + zk.b1.n + zk.b2.n + zk.c.n + zk.h.n;
        if (pts <= 256) {
            cuzk_error e2;
            cuzk_status s1 = cuzk_zkey_check_points(&zk, CUZK_ZKEY_CHECK_SUBGROUP, &e);
            cuzk_status s2 = cuzk_zkey_check_points(
                &zk, CUZK_ZKEY_CHECK_SUBGROUP | CUZK_ZKEY_PARALLEL, &e2);
            FUZZ_ASSERT(s1 == s2);
            if (s1 != CUZK_OK) {
                check_error(s1, &e);
                FUZZ_ASSERT(strcmp(e.msg, e2.msg) == 0);
            }
        }
        cuzk_zkey_close(&zk);
        FUZZ_ASSERT(all_zero(&zk, sizeof(zk)));
    }
    /* the open a prover makes (no curve check) takes at least as much, and
     * the witness products (a, b, c) of a key it takes stay in bounds */
    cuzk_zkey z0;
    cuzk_status st0 = cuzk_zkey_open_mem(&z0, in, size, NAME, 0, &e);
    if (st == CUZK_OK) FUZZ_ASSERT(st0 == CUZK_OK);
    if (st0 != CUZK_OK) {
        check_error(st0, &e);
    } else {
        uint64_t(*w)[4] = calloc(z0.n_vars, 32);
        cuzk_fr *abc = malloc(3 * (size_t)z0.domain_size * sizeof(cuzk_fr));
        if (w != NULL && abc != NULL) {
            w[0][0] = 1;
            FUZZ_ASSERT(cuzk__groth16_zkey_abc(&z0, (const uint64_t(*)[4])w, z0.n_vars, abc, &e) ==
                        CUZK_OK);
        }
        free(w);
        free(abc);
        cuzk_zkey_close(&z0);
    }
    free(in);
    return 0;
}
