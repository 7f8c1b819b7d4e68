/*
 * fuzz_wtns.c — libFuzzer target for the .wtns reader (src/io/wtns.h).
 *
 * The input is the file, copied to an exact-size heap block and opened with
 * cuzk_wtns_open_mem. A refused input must give a status in range and a
 * message naming the input, and leave the object zeroed; an accepted one
 * must hold n_witness canonical values equal to the bytes of section 2.
 * fuzz/replay_main.c turns this file into a corpus replayer for any compiler.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/wtns.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    uint8_t *in = fuzz_copy_input(data, size);
    if (in == NULL) return 0;
    cuzk_wtns w;
    cuzk_error e;
    memset(&e, 0, sizeof(e));
    cuzk_status st = cuzk_wtns_open_mem(&w, in, size, NAME, &e);
    if (st != CUZK_OK) {
        check_error(st, &e);
        FUZZ_ASSERT(all_zero(&w, sizeof(w)));
    } else {
        FUZZ_ASSERT(w.n8 == 32 && memcmp(w.prime, cuzk__fr_r, 32) == 0);
        FUZZ_ASSERT(w.values_offset + (uint64_t)w.n_witness * 32 <= size);
        for (uint64_t i = 0; i < w.n_witness; i++) {
            const uint64_t *v = cuzk_wtns_value(&w, i);
            FUZZ_ASSERT(cuzk__lt_n(v, cuzk__fr_r, CUZK_FR_LIMBS));
            for (int k = 0; k < 4; k++)
                FUZZ_ASSERT(v[k] == cuzk__load_le64(in + w.values_offset + 32 * i + 8 * k));
        }
        cuzk_wtns_close(&w);
        FUZZ_ASSERT(all_zero(&w, sizeof(w)));
    }
    free(in);
    return 0;
}
