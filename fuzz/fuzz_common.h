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

#endif /* CUZK_FUZZ_COMMON_H */
