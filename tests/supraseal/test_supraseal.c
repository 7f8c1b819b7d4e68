/*
 * test_supraseal.c — libcuzk_supraseal (src/supraseal) through the ten calls
 * of include/cuzk_supraseal.h, as Filecoin's Rust stack makes them.
 *
 * Fixtures (fixture.h): circuits from our generator (porep, dense and sha
 * profiles, 2^10), development parameters from a fixed seed written as a
 * .params file in a temporary folder, and per circuit what bellperson's
 * ProvingAssignment would hold, the density bits past each bit length set.
 *
 * The checks:
 *   - generate_groth16_proofs_c's proofs equal, byte for byte, our circuit
 *     prover's (cuzk_groth16_prove_start_circuit + prove_finish with the
 *     same r, s, given to the library in Montgomery form), and verify with
 *     the verifier `cuzk verify` uses (192-byte encoding, bellman vk);
 *     three profiles, 1..10 circuits per call;
 *   - the split calls give the same proofs, read none of a, b, c, r_s, s_s
 *     after start (they are overwritten before finalize), run from several
 *     threads at once, and a second destroy, or a destroy after finalize, is
 *     harmless; finalize of a dead handle is an error;
 *   - every malformed input (shapes, NULLs, non-canonical scalars, an
 *     unsatisfied row, a missing input row, a missing or corrupt .params, an
 *     assignment that satisfies its rows but is not the circuit's, a corrupt
 *     point in the parameters) gives a nonzero code and a message that says
 *     what is wrong, and leaves proofs[] untouched;
 *   - the SRS cache: one body per path string, at most four, evict, and
 *     (internal build only) the reference counts of clone and drop.
 * Built twice: against the library's objects (test_supraseal, which also
 * reads reference counts) and against libcuzk_supraseal.so, whose ten
 * exports are then all it reaches of the library (test_supraseal_shared).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuzk_supraseal.h"
#include "harness.h"
#include "unit/test_util.h"
#include "fixture.h"
#include "cases.h"
#ifndef CUZK_SS_TEST_SHARED
#include "supraseal/supraseal_impl.h"
#endif

/* The error's code is code (0: any nonzero), its message contains want, and
 * it is freed as Rust frees it. */
static int check_error(cuzk_supraseal_error e, int code, const char *want, int line) {
    int ok = e.code != 0 && (code == 0 || e.code == code) && e.message != NULL &&
             (want == NULL || strstr(e.message, want) != NULL);
    if (!ok)
        fprintf(stderr, "line %d: expected code %d with \"%s\", got code %d: %s\n", line, code,
                want ? want : "", e.code, e.message ? e.message : "(no message)");
    free(e.message);
    return ok;
}
#define CHECK_ERR(call, code, want) CHECK(check_error((call), (code), (want), __LINE__))

static int check_ok(cuzk_supraseal_error e, int line) {
    if (e.code != 0 || e.message != NULL)
        fprintf(stderr, "line %d: code %d: %s\n", line, e.code,
                e.message ? e.message : "(no message)");
    int ok = e.code == 0 && e.message == NULL;
    free(e.message);
    return ok;
}
#define CHECK_OK(call) CHECK(check_ok((call), __LINE__))

/* ---- proofs equal to our prover's ---------------------------------------------------- */

/* n circuits of f in one call (gpu_mtx, gpu_index as given), or through
 * the split calls */
static void prove_and_compare(const fixture *f, size_t n, void *mtx, int gpu_index, int split) {
    assignment *xs = calloc(n, sizeof(*xs));
    cuzk_supraseal_assignment *as = calloc(n, sizeof(*as));
    cuzk_supraseal_fr *rm = calloc(n, 32), *sm = calloc(n, 32);
    cuzk_supraseal_proof *got = calloc(n, sizeof(*got));
    cuzk_groth16_proof *want = calloc(n, sizeof(*want));
    uint64_t(*r)[4] = calloc(n, 32), (*s)[4] = calloc(n, 32);
    CHECK(xs && as && rm && sm && got && want && r && s);
    if (!(xs && as && rm && sm && got && want && r && s)) goto out;
    for (size_t i = 0; i < n; i++) {
        CHECK(assignment_make(&xs[i], f, (unsigned)i));
        as[i] = xs[i].as;
        rs_of(i, r[i], s[i], &rm[i], &sm[i]);
        CHECK(reference_proof(&want[i], f, &xs[i], r[i], s[i]));
    }
    cuzk_supraseal_srs srs = {NULL};
    CHECK_OK(create_SRS(&srs, f->path, false));
    if (!split) {
        CHECK_OK(generate_groth16_proofs_c(as, n, rm, sm, got, &srs, mtx, gpu_index));
    } else {
        void *h = NULL;
        CHECK_OK(generate_groth16_proofs_start_c(as, n, rm, sm, &srs, mtx, gpu_index, &h));
        CHECK(h != NULL);
        /* start has consumed a, b, c, r_s, s_s: scribble over them, and
         * over the structs, which the handle must not need either */
        for (size_t i = 0; i < n; i++) {
            memset(xs[i].a, 0x5a, xs[i].as.abc_size * 32);
            memset(xs[i].b, 0x5a, xs[i].as.abc_size * 32);
            memset(xs[i].c, 0x5a, xs[i].as.abc_size * 32);
        }
        memset(as, 0xa5, n * sizeof(*as));
        memset(rm, 0x5a, n * 32);
        memset(sm, 0x5a, n * 32);
        /* the SRS may go before finalize: the handle holds a reference */
        drop_SRS(&srs);
        srs.ptr = NULL;
        CHECK_OK(finalize_groth16_proof_c(h, got));
        destroy_pending_proof(h); /* as Curio's Drop may do: harmless */
        CHECK_ERR(finalize_groth16_proof_c(h, got), EINVAL, "not a pending proof");
    }
    drop_SRS(&srs);
    for (size_t i = 0; i < n; i++) {
        CHECK_MEM(&got[i], &want[i], sizeof(got[i]));
        CHECK(verifies(f, &xs[i], &got[i]));
    }
out:
    for (size_t i = 0; xs && i < n; i++) assignment_free(&xs[i]);
    free(xs);
    free(as);
    free(rm);
    free(sm);
    free(got);
    free(want);
    free(r);
    free(s);
}

static fixture fx_porep, fx_dense, fx_sha;

static void test_layout_of_proof(void) {
    /* the library writes cuzk's proof struct into upstream's */
    CHECK_EQ_INT(sizeof(cuzk_supraseal_proof), sizeof(cuzk_groth16_proof));
    CHECK_EQ_INT(sizeof(cuzk_supraseal_assignment), 136);
}

static void test_porep_three(void) { prove_and_compare(&fx_porep, 3, NULL, -1, 0); }

static void test_dense_two(void) {
    void *m = create_gpu_mutex();
    CHECK(m != NULL);
    prove_and_compare(&fx_dense, 2, m, 0, 0);
    destroy_gpu_mutex(m);
    destroy_gpu_mutex(NULL);
}

static void test_sha_two(void) { prove_and_compare(&fx_sha, 2, NULL, 1, 0); }

static void test_porep_ten(void) { prove_and_compare(&fx_porep, 10, NULL, -1, 0); }

static void test_split(void) {
    prove_and_compare(&fx_porep, 2, NULL, -1, 1);
    prove_and_compare(&fx_dense, 1, NULL, 0, 1);
}

/* several threads through the split calls at once, two sharing a mutex */
typedef struct {
    const fixture *f;
    void *mtx;
} thread_arg;

static void *split_thread(void *p) {
    thread_arg *a = p;
    prove_and_compare(a->f, 2, a->mtx, -1, 1);
    return NULL;
}

static void test_split_threads(void) {
    void *m1 = create_gpu_mutex(), *m2 = create_gpu_mutex();
    thread_arg args[4] = {{&fx_porep, m1}, {&fx_porep, m1}, {&fx_dense, m2}, {&fx_sha, NULL}};
    threads_run(split_thread, args, sizeof(args[0]), 4, NULL);
    destroy_gpu_mutex(m1);
    destroy_gpu_mutex(m2);
}

static void test_pending_lifecycle(void) {
    assignment x;
    CHECK(assignment_make(&x, &fx_porep, 0));
    cuzk_supraseal_fr rm, sm;
    uint64_t r[4], s[4];
    rs_of(0, r, s, &rm, &sm);
    cuzk_supraseal_srs srs = {NULL};
    CHECK_OK(create_SRS(&srs, fx_porep.path, false));
    /* started, never finalized: destroy frees it; a second destroy and NULL
     * are ignored */
    void *h = NULL;
    CHECK_OK(generate_groth16_proofs_start_c(&x.as, 1, &rm, &sm, &srs, NULL, -1, &h));
    CHECK(h != NULL);
    destroy_pending_proof(h);
    destroy_pending_proof(h);
    destroy_pending_proof(NULL);
    CHECK_ERR(finalize_groth16_proof_c(h, NULL), EINVAL, "not a pending proof");
    CHECK_ERR(finalize_groth16_proof_c(NULL, NULL), EINVAL, "not a pending proof");
    /* finalize without room for the proofs fails and frees the handle; a
     * proof started next (its memory may be the freed one's) is not the
     * freed handle's, so destroying that one leaves it be */
    CHECK_OK(generate_groth16_proofs_start_c(&x.as, 1, &rm, &sm, &srs, NULL, -1, &h));
    CHECK_ERR(finalize_groth16_proof_c(h, NULL), EINVAL, "proofs is NULL");
    void *next = NULL, *seen[16];
    for (int i = 0; i < 16; i++) { /* handles are never given twice */
        CHECK_OK(generate_groth16_proofs_start_c(&x.as, 1, &rm, &sm, &srs, NULL, -1, &next));
        seen[i] = next;
        for (int k = 0; k < i; k++) CHECK(seen[k] != next);
        CHECK(next != h);
        if (i < 15) CHECK_ERR(finalize_groth16_proof_c(next, NULL), EINVAL, "proofs is NULL");
    }
    destroy_pending_proof(h);
    for (int i = 0; i < 15; i++) destroy_pending_proof(seen[i]);
    cuzk_supraseal_proof one;
    CHECK_OK(finalize_groth16_proof_c(next, &one));
    /* no circuits: nothing to do, nothing written */
    CHECK_OK(generate_groth16_proofs_start_c(NULL, 0, NULL, NULL, &srs, NULL, -1, &h));
    CHECK(h != NULL);
    CHECK_OK(finalize_groth16_proof_c(h, NULL));
    CHECK_OK(generate_groth16_proofs_c(NULL, 0, NULL, NULL, NULL, &srs, NULL, -1));
    /* a failing start leaves no handle */
    h = (void *)&x;
    CHECK_ERR(generate_groth16_proofs_start_c(&x.as, 1, &rm, &sm, NULL, NULL, -1, &h), EINVAL,
              "SRS handle is NULL");
    CHECK(h == NULL);
    CHECK_ERR(generate_groth16_proofs_start_c(&x.as, 1, &rm, &sm, &srs, NULL, -1, NULL), EINVAL,
              "pending_out is NULL");
    drop_SRS(&srs);
    assignment_free(&x);
}

/* ---- errors -------------------------------------------------------------------------- */

/* One malformed call: generate_groth16_proofs_c on a copy of x.as changed
 * by edit (cases.h), expecting code and a message with want; proofs
 * untouched. */
static void expect_refused(const cuzk_supraseal_srs *srs, assignment *x, edit_fn edit,
                           int code, const char *want, int line) {
    cuzk_supraseal_assignment as[2] = {x->as, x->as};
    cuzk_supraseal_fr rm[2], sm[2];
    uint64_t r[4], s[4];
    rs_of(0, r, s, &rm[0], &sm[0]);
    rs_of(1, r, s, &rm[1], &sm[1]);
    /* the bad one second: nothing of the first may be written either */
    edit(&as[1], x);
    cuzk_supraseal_proof proofs[2], before[2];
    memset(proofs, 0xab, sizeof(proofs));
    memcpy(before, proofs, sizeof(proofs));
    cuzk_supraseal_error e = generate_groth16_proofs_c(as, 2, rm, sm, proofs, srs, NULL, -1);
    if (!check_error(e, code, want, line)) CHECK(!"refused as expected");
    CHECK(memcmp(proofs, before, sizeof(proofs)) == 0);
    /* the same through the split calls: start refuses it, except what only
     * the self-check sees (EBADMSG), which finalize refuses, freeing the
     * handle; proofs untouched either way */
    void *h = (void *)x;
    e = generate_groth16_proofs_start_c(as, 2, rm, sm, srs, NULL, -1, &h);
    if (code == EBADMSG) {
        CHECK(check_ok(e, line));
        CHECK(h != NULL);
        e = finalize_groth16_proof_c(h, proofs);
        destroy_pending_proof(h); /* as Curio's Drop does after a failed finalize */
    } else {
        CHECK(h == NULL);
    }
    if (!check_error(e, code, want, line)) CHECK(!"split calls refused as expected");
    CHECK(memcmp(proofs, before, sizeof(proofs)) == 0);
}

static uint64_t saved_word;

static int bit_of(const uint64_t *w, size_t j) { return (int)((w[j / 64] >> (j % 64)) & 1); }

static void e_a_aux_len(cuzk_supraseal_assignment *a, assignment *x) {
    (void)x;
    a->a_aux_bit_len--;
}
static void e_b_inp_len(cuzk_supraseal_assignment *a, assignment *x) {
    (void)x;
    a->b_inp_bit_len++;
}
static void e_b_aux_pop(cuzk_supraseal_assignment *a, assignment *x) {
    (void)x;
    a->b_aux_popcount++;
}
static void e_a_aux_bit(cuzk_supraseal_assignment *a, assignment *x) {
    /* a density that disagrees with its (correct) popcount */
    (void)a;
    saved_word = x->a_aux[0];
    x->a_aux[0] ^= 1;
}
static void e_abc_big(cuzk_supraseal_assignment *a, assignment *x) {
    (void)x;
    a->abc_size = 4096; /* the domain is 2^10 */
}
static void e_abc_small(cuzk_supraseal_assignment *a, assignment *x) {
    (void)x;
    a->abc_size = a->inp_assignment_size - 1;
}
static void e_inp_size(cuzk_supraseal_assignment *a, assignment *x) {
    a->inp_assignment_size--;
    a->b_inp_bit_len--;
    a->b_inp_popcount -= (size_t)bit_of(x->b_inp, a->b_inp_bit_len);
}
static void e_aux_size(cuzk_supraseal_assignment *a, assignment *x) {
    /* one aux fewer, the densities (and their popcounts) with it */
    a->aux_assignment_size--;
    a->a_aux_bit_len--;
    a->b_aux_bit_len--;
    a->a_aux_popcount -= (size_t)bit_of(x->a_aux, a->a_aux_bit_len);
    a->b_aux_popcount -= (size_t)bit_of(x->b_aux, a->b_aux_bit_len);
}
static void e_aux_null(cuzk_supraseal_assignment *a, assignment *x) {
    (void)x;
    a->aux_assignment_data = NULL;
}
static void e_c_null(cuzk_supraseal_assignment *a, assignment *x) {
    (void)x;
    a->c = NULL;
}
static void e_density_null(cuzk_supraseal_assignment *a, assignment *x) {
    (void)x;
    a->b_aux_density = NULL;
}
static void test_bad_assignments(void) {
    assignment x;
    CHECK(assignment_make(&x, &fx_porep, 0));
    cuzk_supraseal_srs srs = {NULL};
    CHECK_OK(create_SRS(&srs, fx_porep.path, false));
#define REFUSED(fn, code, want) expect_refused(&srs, &x, fn, code, want, __LINE__)
    REFUSED(e_a_aux_len, EINVAL, "a_aux density has");
    REFUSED(e_b_inp_len, EINVAL, "b_inp density has");
    REFUSED(e_b_aux_pop, EINVAL, "popcount says");
    REFUSED(e_a_aux_bit, EINVAL, "a_aux density has");
    x.a_aux[0] = saved_word;
    REFUSED(e_abc_big, EINVAL, "exceeds the domain");
    REFUSED(e_abc_small, EINVAL, "below the");
    REFUSED(e_inp_size, EINVAL, "inputs, but");
    REFUSED(e_aux_size, EINVAL, "aux variables, but");
    REFUSED(e_aux_null, EINVAL, "aux assignment is NULL");
    REFUSED(e_c_null, EINVAL, "a, b or c is NULL");
    REFUSED(e_density_null, EINVAL, "b_aux density is NULL");
    REFUSED(e_a_noncanonical, EINVAL, "a[3] is not a Montgomery scalar");
    x.a[3] = saved_fr;
    REFUSED(e_aux_noncanonical, EINVAL, "aux 7 is not a Montgomery scalar");
    x.aux[7] = saved_fr;
    REFUSED(e_unsatisfied, EINVAL, "constraint 5 is not satisfied");
    x.c[5] = saved_fr;
    REFUSED(e_input_not_one, EINVAL, "input 0 is not one");
    x.inp[0] = saved_fr;
    REFUSED(e_input_row, EINVAL, "is not input");
    x.a[x.as.abc_size - 1] = saved_fr;
    REFUSED(e_scaled_row, EBADMSG, "circuit 1: the proof does not verify");
    free(scaled_a);
    free(scaled_b);
#undef REFUSED
    /* shapes are checked side by side: of two bad circuits, the lower is named */
    {
        cuzk_supraseal_assignment as[4] = {x.as, x.as, x.as, x.as};
        cuzk_supraseal_fr rm[4], sm[4];
        uint64_t r[4], s[4];
        for (int i = 0; i < 4; i++) rs_of(i, r, s, &rm[i], &sm[i]);
        e_b_inp_len(&as[1], &x);
        e_a_aux_len(&as[3], &x);
        cuzk_supraseal_proof proofs[4];
        CHECK_ERR(generate_groth16_proofs_c(as, 4, rm, sm, proofs, &srs, NULL, -1), EINVAL,
                  "circuit 1: the b_inp density has");
    }
    assignment_free(&x);

    /* arguments */
    CHECK(assignment_make(&x, &fx_porep, 1));
    cuzk_supraseal_fr rm, sm, bad;
    uint64_t r[4], s[4];
    rs_of(0, r, s, &rm, &sm);
    cuzk_supraseal_proof proof;
    memcpy(bad.l, cuzk__fr_r, 32);
    CHECK_ERR(generate_groth16_proofs_c(&x.as, 1, &bad, &sm, &proof, &srs, NULL, -1), EINVAL,
              "r_s[0] or s_s[0] is not a Montgomery scalar");
    CHECK_ERR(generate_groth16_proofs_c(&x.as, 1, &rm, &bad, &proof, &srs, NULL, -1), EINVAL,
              "not a Montgomery scalar");
    CHECK_ERR(generate_groth16_proofs_c(NULL, 1, &rm, &sm, &proof, &srs, NULL, -1), EINVAL,
              "is NULL");
    CHECK_ERR(generate_groth16_proofs_c(&x.as, 1, NULL, &sm, &proof, &srs, NULL, -1), EINVAL,
              "is NULL");
    CHECK_ERR(generate_groth16_proofs_c(&x.as, 1, &rm, &sm, NULL, &srs, NULL, -1), EINVAL,
              "proofs is NULL");
    CHECK_ERR(generate_groth16_proofs_c(&x.as, 1, &rm, &sm, &proof, NULL, NULL, -1), EINVAL,
              "SRS handle is NULL");
    cuzk_supraseal_srs empty = {NULL};
    CHECK_ERR(generate_groth16_proofs_c(&x.as, 1, &rm, &sm, &proof, &empty, NULL, -1), EINVAL,
              "SRS handle is empty");
    /* an SRS for another circuit */
    cuzk_supraseal_srs other = {NULL};
    CHECK_OK(create_SRS(&other, fx_dense.path, false));
    CHECK_ERR(generate_groth16_proofs_c(&x.as, 1, &rm, &sm, &proof, &other, NULL, -1), EINVAL,
              "parameters of another circuit?");
    drop_SRS(&other);
    /* and after all that, the same call with good arguments still works */
    CHECK_OK(generate_groth16_proofs_c(&x.as, 1, &rm, &sm, &proof, &srs, NULL, -1));
    CHECK(verifies(&fx_porep, &x, &proof));
    drop_SRS(&srs);
    assignment_free(&x);
}

static int copy_file(const char *from, const char *to, uint8_t **data, size_t *n) {
    FILE *f = fopen(from, "rb");
    if (f == NULL) return 0;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    *data = malloc((size_t)len);
    *n = (size_t)len;
    int ok = *data != NULL && fread(*data, 1, (size_t)len, f) == (size_t)len;
    fclose(f);
    return ok && cuzk_test_write_file(to, *data, *n);
}

static void test_bad_srs(void) {
    cuzk_supraseal_srs srs = {(const void *)&srs};
    char path[400];
    snprintf(path, sizeof(path), "%s/missing.params", tmpdir);
    CHECK_ERR(create_SRS(&srs, path, false), ENOENT, "open(\"");
    CHECK(srs.ptr == NULL);
    CHECK_ERR(create_SRS(&srs, path, true), ENOENT, "No such file");
    CHECK_ERR(create_SRS(&srs, NULL, false), EINVAL, "path is NULL");
    CHECK_ERR(create_SRS(NULL, fx_porep.path, false), EINVAL, "ret is NULL");
    CHECK_ERR(create_SRS(&srs, tmpdir, false), 0, NULL); /* a folder */

    uint8_t *data = NULL;
    size_t n = 0;
    snprintf(path, sizeof(path), "%s/corrupt.params", tmpdir);
    CHECK(copy_file(fx_porep.path, path, &data, &n));
    /* truncated */
    CHECK(cuzk_test_write_file(path, data, n - 100));
    CHECK_ERR(create_SRS(&srs, path, true), EINVAL, "corrupt.params");
    /* trailing bytes */
    uint8_t *longer = malloc(n + 7);
    memcpy(longer, data, n);
    memset(longer + n, 0, 7);
    CHECK(cuzk_test_write_file(path, longer, n + 7));
    free(longer);
    CHECK_ERR(create_SRS(&srs, path, false), EINVAL, "corrupt.params");
    /* alpha (the first point) off the curve */
    data[95] ^= 1;
    CHECK(cuzk_test_write_file(path, data, n));
    CHECK_ERR(create_SRS(&srs, path, false), EINVAL, "corrupt.params");
    data[95] ^= 1;
    /* a count that runs past the end: IC's */
    uint8_t saved = data[864];
    data[864] = 0x7f;
    CHECK(cuzk_test_write_file(path, data, n));
    CHECK_ERR(create_SRS(&srs, path, false), EINVAL, "corrupt.params");
    data[864] = saved;
    CHECK(srs.ptr == NULL);

    /* a corrupt point inside vector h loads (its curve is checked when a
     * proof fails), and the proof that uses it is refused naming it */
    uint64_t n_ic = ((uint64_t)data[864] << 24) | ((uint64_t)data[865] << 16) |
                    ((uint64_t)data[866] << 8) | data[867];
    size_t h0 = 864 + 4 + (size_t)n_ic * 96 + 4;
    data[h0 + 95] ^= 1; /* the low bit of the first h point's y */
    CHECK(cuzk_test_write_file(path, data, n));
    CHECK_OK(create_SRS(&srs, path, false));
    assignment x;
    CHECK(assignment_make(&x, &fx_porep, 0));
    cuzk_supraseal_fr rm, sm;
    uint64_t r[4], s[4];
    rs_of(0, r, s, &rm, &sm);
    cuzk_supraseal_proof proof;
    CHECK_ERR(generate_groth16_proofs_c(&x.as, 1, &rm, &sm, &proof, &srs, NULL, -1), EBADMSG,
              "vector h");
    drop_SRS(&srs);
    assignment_free(&x);
    free(data);
}

/* ---- the cache ------------------------------------------------------------------------ */

#ifndef CUZK_SS_TEST_SHARED
static long refs_of(const cuzk_supraseal_srs *h) {
    return atomic_load(&((cuzk__ss_srs *)h->ptr)->refs);
}
#define CHECK_REFS(h, n) CHECK_EQ_INT(refs_of(h), n)
#else
#define CHECK_REFS(h, n) ((void)(h))
#endif

/* Callers of one path at once, from threads: one load, one body. */
typedef struct {
    const char *path;
    pthread_barrier_t *start;
    cuzk_supraseal_srs h;
    int code;
} cache_caller;

static void *cache_caller_main(void *arg) {
    cache_caller *c = arg;
    pthread_barrier_wait(c->start);
    cuzk_supraseal_error e = create_SRS(&c->h, c->path, true);
    c->code = e.code;
    free(e.message);
    return NULL;
}

static void test_cache_threads(void) {
    enum { N = 6 };
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, N);
    cache_caller c[N];
    pthread_t th[N];
    for (int i = 0; i < N; i++) {
        c[i] = (cache_caller){fx_porep.path, &start, {NULL}, -1};
        CHECK(pthread_create(&th[i], NULL, cache_caller_main, &c[i]) == 0);
    }
    for (int i = 0; i < N; i++) pthread_join(th[i], NULL);
    pthread_barrier_destroy(&start);
    for (int i = 0; i < N; i++) CHECK(c[i].code == 0 && c[i].h.ptr == c[0].h.ptr);
    CHECK_REFS(&c[0].h, N + 1); /* the cache's and each caller's */
    evict_SRS(&c[0].h);
    for (int i = 0; i < N; i++) drop_SRS(&c[i].h);
}

static void test_cache(void) {
    const char *path = fx_porep.path;
    cuzk_supraseal_srs a = {NULL}, b = {NULL}, c = {NULL}, d = {NULL};
    CHECK_OK(create_SRS(&a, path, true));
    CHECK_OK(create_SRS(&b, path, true));
    CHECK(a.ptr != NULL && a.ptr == b.ptr); /* one body */
    CHECK_REFS(&a, 3);                      /* the cache's, a's and b's */
    CHECK_OK(create_SRS(&c, path, false));
    CHECK(c.ptr != NULL && c.ptr != a.ptr); /* private */
    CHECK_REFS(&c, 1);
    d = clone_SRS(&a);
    CHECK(d.ptr == a.ptr);
    CHECK_REFS(&a, 4);
    drop_SRS(&b);
    b.ptr = NULL; /* as Rust does after drop */
    CHECK_REFS(&a, 3);
    /* evict: the cache lets go, the handles keep it; the next create loads anew */
    evict_SRS(&a);
    CHECK_REFS(&a, 2);
    evict_SRS(&a); /* no entry any more: nothing happens */
    CHECK_REFS(&a, 2);
    CHECK_OK(create_SRS(&b, path, true));
    CHECK(b.ptr != NULL && b.ptr != a.ptr);
    CHECK_REFS(&b, 2);
    /* evict through a private handle of the same path removes the entry too */
    evict_SRS(&c);
    CHECK_REFS(&b, 1);
    drop_SRS(&b);
    drop_SRS(&c);

    /* a handle kept after its original is dropped still proves */
    drop_SRS(&a);
    a.ptr = NULL;
    CHECK_REFS(&d, 1);
    assignment x;
    CHECK(assignment_make(&x, &fx_porep, 2));
    cuzk_supraseal_fr rm, sm;
    uint64_t r[4], s[4];
    rs_of(2, r, s, &rm, &sm);
    cuzk_supraseal_proof proof;
    CHECK_OK(generate_groth16_proofs_c(&x.as, 1, &rm, &sm, &proof, &d, NULL, -1));
    CHECK(verifies(&fx_porep, &x, &proof));
    assignment_free(&x);
    drop_SRS(&d);

    /* empty handles */
    cuzk_supraseal_srs empty = {NULL};
    drop_SRS(&empty);
    drop_SRS(NULL);
    evict_SRS(&empty);
    evict_SRS(NULL);
    CHECK(clone_SRS(&empty).ptr == NULL);
    CHECK(clone_SRS(NULL).ptr == NULL);

    /* at most four: the path strings differ ("./" inserted), the file is one */
    char paths[6][400];
    cuzk_supraseal_srs h[6];
    for (int i = 0; i < 6; i++) {
        char dots[32] = "";
        for (int k = 0; k < i; k++) strcat(dots, "./");
        snprintf(paths[i], sizeof(paths[i]), "%s/%sporep.params", tmpdir, dots);
        h[i].ptr = NULL;
    }
    for (int i = 0; i < 5; i++) CHECK_OK(create_SRS(&h[i], paths[i], true));
    CHECK_REFS(&h[0], 1); /* the fifth pushed the first (least recently used) out */
    CHECK_REFS(&h[1], 2);
    CHECK_REFS(&h[4], 2);
    cuzk_supraseal_srs again = {NULL};
    CHECK_OK(create_SRS(&again, paths[1], true)); /* a hit: paths[1] is the most recent */
    CHECK(again.ptr == h[1].ptr);
    drop_SRS(&again);
    CHECK_OK(create_SRS(&again, paths[0], true)); /* a miss: loads, pushes out paths[2] */
    CHECK(again.ptr != h[0].ptr);
    CHECK_REFS(&h[2], 1);
    CHECK_REFS(&h[1], 2);
    drop_SRS(&again);
    CHECK_OK(create_SRS(&again, paths[2], true)); /* gone: a new body */
    CHECK(again.ptr != h[2].ptr);
    drop_SRS(&again);
    for (int i = 0; i < 5; i++) {
        evict_SRS(&h[i]);
        drop_SRS(&h[i]);
    }
}

/* ---- main ----------------------------------------------------------------------------- */

int main(int argc, char **argv) {
    cuzk_test_init(argc, argv);
    if (!tmpdir_make("cuzk-supraseal")) return 1;
    int ok = fixture_make(&fx_porep, CUZK_GEN_POREP, 10, "porep", tmpdir) &&
             fixture_make(&fx_dense, CUZK_GEN_DENSE, 10, "dense", tmpdir) &&
             fixture_make(&fx_sha, CUZK_GEN_SHA, 10, "sha", tmpdir);
    CHECK(ok);
    if (ok) {
        RUN(test_layout_of_proof);
        RUN(test_porep_three);
        RUN(test_dense_two);
        RUN(test_sha_two);
        RUN(test_porep_ten);
        RUN(test_split);
        RUN(test_split_threads);
        RUN(test_pending_lifecycle);
        RUN(test_bad_assignments);
        RUN(test_bad_srs);
        RUN(test_cache);
        RUN(test_cache_threads);
    }
    fixture_free(&fx_porep);
    fixture_free(&fx_dense);
    fixture_free(&fx_sha);
    tmpdir_remove();
    return cuzk_test_finish();
}
