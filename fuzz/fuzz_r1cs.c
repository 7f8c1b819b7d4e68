/*
 * fuzz_r1cs.c — libFuzzer target for the .r1cs reader (src/io/r1cs.h) and
 * the witness check.
 *
 * The input is the file, copied to an exact-size heap block and opened with
 * cuzk_r1cs_open_mem. A refused input must give a status in range and a
 * message naming the input, and leave the object zeroed. An accepted one is
 * iterated in full: exactly nConstraints constraints, every wire < nWires,
 * every coefficient canonical, the term total equal to n_terms, the walk
 * ending exactly at the end of section 2. Small circuits are then checked
 * against the witness (1, 0, 0, ...), which must either pass or name a
 * constraint index < nConstraints.
 * fuzz/replay_main.c turns this file into a corpus replayer for any compiler.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/r1cs.h"
#include "fuzz_common.h"

static void check_lc(const cuzk_r1cs *r, const cuzk_r1cs_lc *lc) {
    for (uint32_t i = 0; i < lc->n; i++) {
        uint32_t wire;
        uint64_t c[CUZK_FR_LIMBS];
        cuzk_r1cs_lc_term(lc, i, &wire, c);
        FUZZ_ASSERT(wire < r->n_wires);
        FUZZ_ASSERT(cuzk__lt_n(c, cuzk__fr_r, CUZK_FR_LIMBS));
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    uint8_t *in = fuzz_copy_input(data, size);
    if (in == NULL) return 0;
    cuzk_r1cs r;
    cuzk_error e;
    memset(&e, 0, sizeof(e));
    cuzk_status st = cuzk_r1cs_open_mem(&r, in, size, NAME, &e);
    if (st != CUZK_OK) {
        check_error(st, &e);
        FUZZ_ASSERT(all_zero(&r, sizeof(r)));
        free(in);
        return 0;
    }
    FUZZ_ASSERT(r.n8 == 32 && memcmp(r.prime, cuzk__fr_r, 32) == 0);
    FUZZ_ASSERT(1ull + r.n_pub_out + r.n_pub_in + r.n_prv_in <= r.n_wires);
    cuzk_r1cs_iter it;
    cuzk_r1cs_constraint k;
    uint64_t n = 0, terms = 0;
    const uint8_t *end = NULL;
    cuzk_r1cs_iter_init(&it, &r);
    while (cuzk_r1cs_iter_next(&it, &k)) {
        check_lc(&r, &k.a);
        check_lc(&r, &k.b);
        check_lc(&r, &k.c);
        terms += (uint64_t)k.a.n + k.b.n + k.c.n;
        end = k.c.terms + (uint64_t)k.c.n * CUZK_R1CS_TERM_BYTES;
        n++;
    }
    FUZZ_ASSERT(n == r.n_constraints && terms == r.n_terms);
    if (n) FUZZ_ASSERT(end == r.constraints + r.constraints_size);
    if (r.n_wires && r.n_wires <= 4096) {
        uint64_t *w = calloc((size_t)r.n_wires * 4, sizeof(uint64_t));
        if (w != NULL) {
            w[0] = 1;
            uint64_t bad = 0;
            st = cuzk_r1cs_check_witness(&r, w, r.n_wires, "w", &bad, &e);
            if (st != CUZK_OK) {
                check_error(st, &e);
                FUZZ_ASSERT(st == CUZK_ERR_WITNESS_UNSATISFIED && bad < r.n_constraints);
            } else {
                FUZZ_ASSERT(bad == UINT64_MAX);
            }
            free(w);
        }
    }
    cuzk_r1cs_close(&r);
    FUZZ_ASSERT(all_zero(&r, sizeof(r)));
    free(in);
    return 0;
}
