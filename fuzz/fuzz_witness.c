/*
 * fuzz_witness.c — libFuzzer target for our witness file reader
 * (src/circuit/witness.h, doc/formats.md §2).
 *
 * The input is the file, copied to an exact-size heap block and opened with
 * cuzk_witness_open_mem. A refused input must give a status in range and a
 * message naming the input, and leave the object zeroed. An accepted one
 * must have exactly 32 + 32 (n_inputs + n_aux) bytes, n_inputs >= 1, every
 * value canonical and equal to its bytes, value 0 = 1; its Montgomery form
 * must convert back to the same limbs, and writing it must give the input.
 * fuzz/replay_main.c turns this file into a corpus replayer for any compiler.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "circuit/witness.h"
#include "fuzz_common.h"

static uint64_t le64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    uint8_t *in = fuzz_copy_input(data, size);
    if (in == NULL) return 0;
    cuzk_witness w;
    cuzk_error e;
    memset(&e, 0, sizeof(e));
    cuzk_status st = cuzk_witness_open_mem(&w, in, size, NAME, &e);
    if (st != CUZK_OK) {
        check_error(st, &e);
        FUZZ_ASSERT(all_zero(&w, sizeof(w)));
    } else {
        uint64_t n = cuzk_witness_n_vars(&w);
        FUZZ_ASSERT(w.n_inputs >= 1 && n >= 1 && size == 32 + 32 * n);
        FUZZ_ASSERT(le64(in + 16) == w.n_inputs && le64(in + 24) == w.n_aux);
        const uint64_t *one = w.values;
        FUZZ_ASSERT(one[0] == 1 && one[1] == 0 && one[2] == 0 && one[3] == 0);
        cuzk_fr *m = n <= 4096 ? malloc(n * sizeof(cuzk_fr)) : NULL;
        if (m != NULL) cuzk_witness_to_mont(m, &w, 1);
        for (uint64_t i = 0; i < n; i++) {
            const uint64_t *v = w.values + 4 * i;
            FUZZ_ASSERT(cuzk__lt_n(v, cuzk__fr_r, CUZK_FR_LIMBS));
            for (int k = 0; k < 4; k++) FUZZ_ASSERT(v[k] == le64(in + 32 + 32 * i + 8 * k));
            if (m != NULL) {
                uint64_t back[4];
                cuzk_fr_to_limbs(back, &m[i]);
                FUZZ_ASSERT(memcmp(back, v, 32) == 0);
            }
        }
        free(m);
        uint8_t *out;
        size_t on;
        FUZZ_ASSERT(cuzk_witness_to_bytes(&w, &out, &on, &e) == CUZK_OK);
        FUZZ_ASSERT(on == size && memcmp(out, in, size) == 0);
        free(out);
        cuzk_witness_close(&w);
        FUZZ_ASSERT(all_zero(&w, sizeof(w)));
    }
    free(in);
    return 0;
}
