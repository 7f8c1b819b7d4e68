/*
 * cases.h — what test_supraseal.c and test_supraseal_gpu.c share beside
 * fixture.h:
 *   - edits that make one circuit's assignment malformed in ways only its
 *     values show (a non-canonical scalar, an unsatisfied row, an input
 *     that is not one, an input row that is not its input, rows scaled so
 *     that only the self-check sees it), which both the CPU path and the
 *     device must refuse in the same words;
 *   - the temporary folder the fixtures' .params files are written to;
 *   - a function run on several threads at once.
 * Everything is static: each program includes it once, after fixture.h and
 * harness.h.
 */
#ifndef CUZK_TEST_SUPRASEAL_CASES_H
#define CUZK_TEST_SUPRASEAL_CASES_H

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk_supraseal.h"
#include "ff/fr.h"
#include "fixture.h"
#include "harness.h"

/* ---- malformed assignments ------------------------------------------------------------ */

/* An edit of circuit x before a call: of as (the call's copy of x->as) or of
 * x's own arrays. An edit of x's arrays keeps the value it overwrote in
 * saved_fr, for the caller to put back after the call; e_scaled_row points
 * as at scaled_a and scaled_b, for the caller to free. */
typedef void (*edit_fn)(cuzk_supraseal_assignment *as, assignment *x);

static cuzk_fr saved_fr;
static cuzk_fr *scaled_a, *scaled_b;

static void e_a_noncanonical(cuzk_supraseal_assignment *a, assignment *x) {
    (void)a;
    saved_fr = x->a[3];
    memcpy(x->a[3].l, cuzk__fr_r, 32); /* r itself */
}
static void e_aux_noncanonical(cuzk_supraseal_assignment *a, assignment *x) {
    (void)a;
    saved_fr = x->aux[7];
    memset(x->aux[7].l, 0xff, 32);
}
static void e_unsatisfied(cuzk_supraseal_assignment *a, assignment *x) {
    (void)a;
    saved_fr = x->c[5];
    cuzk_fr_add(&x->c[5], &x->c[5], &cuzk__fr_one);
}
static void e_input_not_one(cuzk_supraseal_assignment *a, assignment *x) {
    (void)a;
    saved_fr = x->inp[0];
    cuzk_fr_add(&x->inp[0], &x->inp[0], &cuzk__fr_one);
}
static void e_input_row(cuzk_supraseal_assignment *a, assignment *x) {
    /* the last input row's a is not that input */
    saved_fr = x->a[a->abc_size - 1];
    cuzk_fr_add(&x->a[a->abc_size - 1], &x->a[a->abc_size - 1], &cuzk__fr_one);
}
static void e_scaled_row(cuzk_supraseal_assignment *a, assignment *x) {
    /* a_i b_i = c_i still holds on every row, but a and b are not the
     * circuit's: A(X) B(X) changes off the domain, so does H, and only the
     * self-check can tell */
    size_t m = a->abc_size, nc = m - a->inp_assignment_size;
    scaled_a = malloc(m * 32);
    scaled_b = malloc(m * 32);
    memcpy(scaled_a, x->a, m * 32);
    memcpy(scaled_b, x->b, m * 32);
    cuzk_fr two, half;
    cuzk_fr_add(&two, &cuzk__fr_one, &cuzk__fr_one);
    cuzk_fr_inv(&half, &two);
    for (size_t i = 0; i < nc; i++)
        if (!cuzk_fr_is_zero(&scaled_a[i]) && !cuzk_fr_is_zero(&scaled_b[i])) {
            cuzk_fr_mul(&scaled_a[i], &scaled_a[i], &two);
            cuzk_fr_mul(&scaled_b[i], &scaled_b[i], &half);
            break;
        }
    a->a = (const cuzk_supraseal_fr *)scaled_a;
    a->b = (const cuzk_supraseal_fr *)scaled_b;
}

/* ---- the fixtures' folder ------------------------------------------------------------- */

static char tmpdir[256];

/* A new folder $TMPDIR/name-XXXXXX (/tmp where TMPDIR is unset or empty)
 * into tmpdir: 1, or 0 after saying why not. */
static int tmpdir_make(const char *name) {
    const char *base = getenv("TMPDIR");
    snprintf(tmpdir, sizeof(tmpdir), "%s/%s-XXXXXX", base && *base ? base : "/tmp", name);
    if (mkdtemp(tmpdir) == NULL) {
        perror("mkdtemp");
        return 0;
    }
    return 1;
}

/* tmpdir and everything in it */
static void tmpdir_remove(void) {
    char cmd[600];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmpdir);
}

/* ---- threads -------------------------------------------------------------------------- */

#define THREADS_MAX 8

/* fn on n threads at once, thread i's argument at (char *)args + i * size;
 * then thread by thread: checked to have started, joined, and its argument
 * handed to joined (when not NULL). */
static void threads_run(void *(*fn)(void *), void *args, size_t size, int n,
                        void (*joined)(void *)) {
    pthread_t t[THREADS_MAX];
    int started[THREADS_MAX];
    CHECK(n <= THREADS_MAX);
    if (n > THREADS_MAX) return;
    for (int i = 0; i < n; i++)
        started[i] = pthread_create(&t[i], NULL, fn, (char *)args + (size_t)i * size) == 0;
    for (int i = 0; i < n; i++) {
        CHECK(started[i]);
        if (!started[i]) continue;
        pthread_join(t[i], NULL);
        if (joined != NULL) joined((char *)args + (size_t)i * size);
    }
}

#endif /* CUZK_TEST_SUPRASEAL_CASES_H */
