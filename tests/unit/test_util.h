/*
 * test_util.h — helpers that several unit tests (tests/unit/test_*.c) had
 * each written for themselves: random field elements and scalars, multiples
 * of the generators, a check of a failure's status and message, a growable
 * byte buffer for files built by hand, and writing files and fuzz seeds.
 * Include it after harness.h: the random helpers draw from its generator, so
 * a seed still replays a run.
 *
 * Everything is static inline, as in harness.h, so a test pays only for what
 * it uses. The group helpers use the library's scalar multiplication: a test
 * of that multiplication needs its own reference.
 */
#ifndef CUZK_TEST_UTIL_H
#define CUZK_TEST_UTIL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/error.h"
#include "ff/fp.h"
#include "ff/fr.h"
#include "ec/g1.h"
#include "ec/g2.h"
#include "harness.h"

/* ---- random field elements and scalars ------------------------------------- */

/* Uniform in [0, p): the top limb masked to p's 381 bits, then rejection. */
static inline void cuzk_test_rand_fp(cuzk_fp *r) {
    uint64_t l[6];
    do {
        for (int i = 0; i < 6; i++) l[i] = cuzk_test_rand64();
        l[5] &= 0x1fffffffffffffffULL;
    } while (!cuzk__lt_n(l, cuzk__fp_p, 6));
    cuzk_fp_from_limbs(r, l);
}

/* Plain limbs uniform in [0, r): the top limb masked to 255 bits, then
 * rejection. */
static inline void cuzk_test_rand_scalar(uint64_t k[4]) {
    do {
        for (int i = 0; i < 4; i++) k[i] = cuzk_test_rand64();
        k[3] &= 0x7fffffffffffffffULL;
    } while (!cuzk__lt_n(k, cuzk__fr_r, 4));
}

static inline void cuzk_test_rand_fr(cuzk_fr *r) {
    uint64_t l[4];
    cuzk_test_rand_scalar(l);
    cuzk_fr_from_limbs(r, l);
}

/* Plain limbs, nonzero and below 2^254 < r (so no rejection against r; the
 * top of [2^254, r) is never drawn): a multiple of a generator by it is
 * never the point at infinity. */
static inline void cuzk_test_rand_scalar_nonzero(uint64_t k[4]) {
    do {
        for (int i = 0; i < 4; i++) k[i] = cuzk_test_rand64();
        k[3] &= 0x3fffffffffffffffULL;
    } while ((k[0] | k[1] | k[2] | k[3]) == 0);
}

static inline void cuzk_test_rand_fr_nonzero(cuzk_fr *r) {
    uint64_t l[4];
    cuzk_test_rand_scalar_nonzero(l);
    cuzk_fr_from_limbs(r, l);
}

/* ---- multiples of the generators ------------------------------------------- */

/* r = k G1 for plain little-endian limbs k (variable time). */
static inline void cuzk_test_g1_gen_mul(cuzk_g1_aff *r, const uint64_t k[4]) {
    cuzk_g1_aff g;
    cuzk_g1_jac j;
    cuzk_g1_generator(&g);
    cuzk_g1_aff_to_jac(&j, &g);
    cuzk_g1_jac_mul_var(&j, &j, k, 4);
    cuzk_g1_jac_to_aff(r, &j);
}

/* r = k G2 for plain little-endian limbs k (variable time). */
static inline void cuzk_test_g2_gen_mul(cuzk_g2_aff *r, const uint64_t k[4]) {
    cuzk_g2_aff g;
    cuzk_g2_jac j;
    cuzk_g2_generator(&g);
    cuzk_g2_aff_to_jac(&j, &g);
    cuzk_g2_jac_mul_var(&j, &j, k, 4);
    cuzk_g2_jac_to_aff(r, &j);
}

/* ---- failures -------------------------------------------------------------- */

static inline bool cuzk_test_msg_has(const cuzk_error *e, const char *s) {
    return strstr(e->msg, s) != NULL;
}

/* call must return st_exp with a message in e holding sub1 and sub2 (either
 * may be NULL: not checked). */
#define EXPECT_FAIL(call, st_exp, e, sub1, sub2)                                          \
    do {                                                                                  \
        cuzk_status st__ = (call);                                                        \
        CHECK_EQ_INT(st__, st_exp);                                                       \
        const char *s1__ = (sub1), *s2__ = (sub2);                                        \
        if ((s1__ != NULL && !cuzk_test_msg_has(&(e), s1__)) ||                           \
            (s2__ != NULL && !cuzk_test_msg_has(&(e), s2__))) {                           \
            CHECK(!"message lacks the expected words");                                   \
            fprintf(stderr, "  message: %s\n  wanted: %s / %s\n", (e).msg,                \
                    s1__ ? s1__ : "", s2__ ? s2__ : "");                                  \
        }                                                                                 \
    } while (0)

/* ---- a growable byte buffer ------------------------------------------------ */

/* Zero-initialize ({0}); free p when done. */
typedef struct {
    uint8_t *p;
    size_t n, cap;
} cuzk_test_buf;

/* Appends n bytes (d may be NULL when n is 0); aborts when out of memory, as
 * a test cannot go on without its input. */
static inline void cuzk_test_put(cuzk_test_buf *b, const void *d, size_t n) {
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap < b->n + n) cap *= 2;
        b->p = realloc(b->p, cap);
        if (b->p == NULL) abort();
        b->cap = cap;
    }
    if (n) memcpy(b->p + b->n, d, n);
    b->n += n;
}

static inline void cuzk_test_put_le32(cuzk_test_buf *b, uint32_t v) {
    uint8_t t[4];
    for (int i = 0; i < 4; i++) t[i] = (uint8_t)(v >> (8 * i));
    cuzk_test_put(b, t, 4);
}

static inline void cuzk_test_put_le64(cuzk_test_buf *b, uint64_t v) {
    uint8_t t[8];
    for (int i = 0; i < 8; i++) t[i] = (uint8_t)(v >> (8 * i));
    cuzk_test_put(b, t, 8);
}

/* ---- files ----------------------------------------------------------------- */

/* Writes n bytes to path; false when it could not create, write or close. */
static inline bool cuzk_test_write_file(const char *path, const void *p, size_t n) {
    FILE *f = fopen(path, "wb");
    if (f == NULL) return false;
    bool ok = fwrite(p, 1, n, f) == n;
    return fclose(f) == 0 && ok;
}

/* A fuzz seed: dir/sub/name (dir/sub made if missing). A seed that cannot be
 * written is reported, not failed: the corpus is a by-product of the test. */
static inline void cuzk_test_write_seed(const char *dir, const char *sub, const char *name,
                                        const void *p, size_t n) {
    char path[1024];
    snprintf(path, sizeof(path), "%s/%s", dir, sub);
    mkdir(path, 0755);
    snprintf(path, sizeof(path), "%s/%s/%s", dir, sub, name);
    if (!cuzk_test_write_file(path, p, n)) fprintf(stderr, "cannot write %s\n", path);
}

#endif /* CUZK_TEST_UTIL_H */
