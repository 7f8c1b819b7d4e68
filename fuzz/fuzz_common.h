/*
 * fuzz_common.h — what every fuzz target shares: the property check that
 * aborts (so libFuzzer, or replay_main.c, reports the input as a crash), the
 * check of a refused input's status and message, and the entry point's
 * prototype. Header-only (static inline), so each target stays one file.
 */
#ifndef CUZK_FUZZ_COMMON_H
#define CUZK_FUZZ_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"

#define FUZZ_ASSERT(cond)                                                              \
    do {                                                                               \
        if (!(cond)) {                                                                 \
            fprintf(stderr, "%s:%d: fuzz property failed: %s\n", __FILE__, __LINE__, #cond); \
            abort();                                                                   \
        }                                                                              \
    } while (0)

/* The name the targets give the in-memory input; every message must carry it. */
#ifndef NAME
#define NAME "fuzz-input"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Every failure names the input and carries a status in range. */
static inline void check_error(cuzk_status st, const cuzk_error *e) {
    FUZZ_ASSERT((unsigned)st < CUZK_STATUS_COUNT);
    FUZZ_ASSERT(e->status == st);
    FUZZ_ASSERT(strstr(e->msg, NAME) != NULL);
}

/* A refused input must leave the object zeroed. */
static inline bool all_zero(const void *p, size_t n) {
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        if (b[i]) return false;
    return true;
}

/* A private copy of the input, exactly size bytes (reads past it are caught
 * by the sanitizers); an empty input gets one zeroed byte, so the pointer is
 * valid and initialized. NULL when out of memory (the target then returns). */
static inline uint8_t *fuzz_copy_input(const uint8_t *data, size_t size) {
    uint8_t *in = calloc(size ? size : 1, 1);
    if (in != NULL && size) memcpy(in, data, size);
    return in;
}

#endif /* CUZK_FUZZ_COMMON_H */
