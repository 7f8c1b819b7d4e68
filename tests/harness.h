/*
 * harness.h — the test harness shared by every cuzk test binary.
 *
 * Each test binary is one process run by ctest. Random tests draw from a
 * xoshiro256** generator seeded from the clock unless --seed N or CUZK_SEED is
 * given; the seed is printed first so any failure can be replayed.
 * CUZK_TEST_ITERS scales iteration counts; CUZK_NO_ASM=1 switches the field
 * arithmetic to the portable C kernels (cuzk_cpu_force_portable: the library
 * reads no environment itself). Checks record the failure with
 * file:line and carry on; the binary ends with "N passed, N failed" and exits
 * non-zero when anything failed.
 *
 * Usage:
 *   static void test_add(void) { CHECK(x == y); }
 *   int main(int argc, char **argv) {
 *       cuzk_test_init(argc, argv);
 *       RUN(test_add);
 *       return cuzk_test_finish();
 *   }
 */
#ifndef CUZK_TEST_HARNESS_H
#define CUZK_TEST_HARNESS_H

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuzk.h"

static uint64_t cuzk_test_rng_state[4];
static uint64_t cuzk_test_seed;
static unsigned long cuzk_test_checks_failed, cuzk_test_cases_passed, cuzk_test_cases_failed;
static unsigned long cuzk_test_iters_scale = 1;

static inline uint64_t cuzk_test_rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static inline uint64_t cuzk_test_rand64(void) {
    uint64_t *s = cuzk_test_rng_state;
    uint64_t result = cuzk_test_rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = cuzk_test_rotl(s[3], 45);
    return result;
}

static inline void cuzk_test_rand_bytes(uint8_t *out, size_t n) {
    for (size_t i = 0; i < n; i++) out[i] = (uint8_t)cuzk_test_rand64();
}

static inline void cuzk_test_reseed(uint64_t seed) {
    uint64_t z = seed;
    for (int i = 0; i < 4; i++) { /* splitmix64 */
        z += 0x9e3779b97f4a7c15ULL;
        uint64_t x = z;
        x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
        x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
        cuzk_test_rng_state[i] = x ^ (x >> 31);
    }
}

static inline void cuzk_test_init(int argc, char **argv) {
    const char *s = getenv("CUZK_SEED");
    uint64_t seed = 0;
    int have = 0;
    for (int i = 1; i + 1 < argc; i++)
        if (strcmp(argv[i], "--seed") == 0) {
            s = argv[i + 1];
        }
    if (s && *s) {
        seed = strtoull(s, NULL, 0);
        have = 1;
    }
    if (!have) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        seed = (uint64_t)ts.tv_sec * 1000000007ULL ^ (uint64_t)ts.tv_nsec;
    }
    const char *it = getenv("CUZK_TEST_ITERS");
    if (it && *it) cuzk_test_iters_scale = strtoul(it, NULL, 0);
    if (cuzk_test_iters_scale == 0) cuzk_test_iters_scale = 1;
    const char *no_asm = getenv("CUZK_NO_ASM");
    if (no_asm && *no_asm && strcmp(no_asm, "0") != 0) cuzk_cpu_force_portable(1);
    cuzk_test_seed = seed;
    cuzk_test_reseed(seed);
    printf("%s: seed %" PRIu64 " (replay with --seed %" PRIu64 " or CUZK_SEED)\n",
           argc > 0 ? argv[0] : "test", seed, seed);
    fflush(stdout);
}

/* n scaled by CUZK_TEST_ITERS */
#define ITERS(n) ((unsigned long)(n) * cuzk_test_iters_scale)

#define CHECK(cond)                                                                    \
    do {                                                                               \
        if (!(cond)) {                                                                 \
            cuzk_test_checks_failed++;                                                 \
            fprintf(stderr, "%s:%d: check failed: %s (seed %" PRIu64 ")\n", __FILE__, \
                    __LINE__, #cond, cuzk_test_seed);                                  \
        }                                                                              \
    } while (0)

#define CHECK_EQ_INT(a, b)                                                                  \
    do {                                                                                    \
        long long cuzk__a = (long long)(a), cuzk__b = (long long)(b);                       \
        if (cuzk__a != cuzk__b) {                                                           \
            cuzk_test_checks_failed++;                                                      \
            fprintf(stderr, "%s:%d: %s == %s failed: %lld != %lld (seed %" PRIu64 ")\n",    \
                    __FILE__, __LINE__, #a, #b, cuzk__a, cuzk__b, cuzk_test_seed);          \
        }                                                                                   \
    } while (0)

#define CHECK_MEM(a, b, n)                                                                 \
    do {                                                                                   \
        if (memcmp((a), (b), (n)) != 0) {                                                  \
            cuzk_test_checks_failed++;                                                     \
            fprintf(stderr, "%s:%d: memory differs: %s vs %s (seed %" PRIu64 ")\n", __FILE__, \
                    __LINE__, #a, #b, cuzk_test_seed);                                     \
        }                                                                                  \
    } while (0)

#define RUN(fn)                                                                   \
    do {                                                                          \
        unsigned long before = cuzk_test_checks_failed;                           \
        fn();                                                                     \
        if (cuzk_test_checks_failed == before) {                                  \
            cuzk_test_cases_passed++;                                             \
            printf("ok   %s\n", #fn);                                             \
        } else {                                                                  \
            cuzk_test_cases_failed++;                                             \
            printf("FAIL %s (%lu checks)\n", #fn, cuzk_test_checks_failed - before); \
        }                                                                         \
        fflush(stdout);                                                           \
    } while (0)

/* Exit code 77 tells ctest (SKIP_RETURN_CODE) that the test was skipped. */
#define CUZK_TEST_SKIP_CODE 77
static inline int cuzk_test_skip(const char *why) {
    printf("skipped: %s\n", why);
    return CUZK_TEST_SKIP_CODE;
}

static inline int cuzk_test_finish(void) {
    printf("%lu passed, %lu failed\n", cuzk_test_cases_passed, cuzk_test_cases_failed);
    return cuzk_test_cases_failed ? 1 : 0;
}

#endif /* CUZK_TEST_HARNESS_H */
