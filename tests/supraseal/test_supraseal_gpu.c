/*
 * test_supraseal_gpu.c — libcuzk_supraseal's GPU path (src/supraseal/route.c,
 * src/gpu/gpu_abc.h) against its CPU path and cuzk's circuit prover. Built
 * only with CUDA; exits 77 (skipped) without a device, or fails when
 * CUZK_GPU_REQUIRED is set.
 *
 * Fixtures as test_supraseal.c's (fixture.h): generated circuits, their
 * development parameters in a .params file, assignments as bellperson
 * holds them, fixed r and s. The checks, each counting the circuits that
 * went to the device (cuzk__ss_get_counts), so that a silent fallback to
 * the CPU fails them:
 *   - proofs of the device equal, byte for byte, the CPU path's (the same
 *     library with the GPU switched off) and our circuit prover's, and
 *     verify: porep at 2^10 and 2^17 (several MSM windows and batches),
 *     dense and sha at 2^12, 1 to 10 circuits a call (the next circuit's
 *     copies beside the current one's work);
 *   - the split calls, a, b, c, r, s and the structs overwritten right after
 *     start, from four threads at once with two mutexes;
 *   - one assignment buffer (a device without the room for two);
 *   - gpu_index 0, 1, a large one (modulo the device count) and -1 (spread);
 *   - a device without the room for the SRS (a memory limit in the test
 *     settings): the CPU proves, with the same bytes;
 *   - refusals of malformed assignments: the same code and message as the
 *     CPU path's, and nothing written.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk_supraseal.h"
#include "harness.h"
#include "unit/test_util.h"
#include "fixture.h"
#include "cases.h"
#include "gpu/gpu_test.h"
#include "supraseal/supraseal_impl.h"

static fixture fx_porep, fx_porep17, fx_dense, fx_sha;

/* ---- helpers --------------------------------------------------------------------------- */

/* GPU on (1) or off (0) for the calls that follow, no memory limit. */
static void use_gpu(int on) {
    const cuzk__ss_settings s = {on, 0, 0, 0};
    cuzk__ss_set_settings(&s);
}

static uint64_t gpu_circuits(void) {
    cuzk__ss_counts c;
    cuzk__ss_get_counts(&c);
    return c.gpu_circuits;
}

static uint64_t device_failures(void) {
    cuzk__ss_counts c;
    cuzk__ss_get_counts(&c);
    return c.device_failures;
}

/* The error is success; its message freed as Rust frees it. */
static int ok(cuzk_supraseal_error e, int line) {
    if (e.code != 0 || e.message != NULL)
        fprintf(stderr, "line %d: code %d: %s\n", line, e.code, e.message ? e.message : "");
    const int good = e.code == 0 && e.message == NULL;
    free(e.message);
    return good;
}
#define CHECK_OK(call) CHECK(ok((call), __LINE__))

/* n assignments of f (partitions 0..n-1), their r, s and reference proofs. */
typedef struct {
    size_t n;
    assignment *xs;
    cuzk_supraseal_assignment *as;
    cuzk_supraseal_fr *rm, *sm;
    cuzk_groth16_proof *want;
} batch;

static void batch_free(batch *b) {
    for (size_t i = 0; b->xs && i < b->n; i++) assignment_free(&b->xs[i]);
    free(b->xs);
    free(b->as);
    free(b->rm);
    free(b->sm);
    free(b->want);
    memset(b, 0, sizeof(*b));
}

static int batch_make(batch *b, const fixture *f, size_t n) {
    memset(b, 0, sizeof(*b));
    b->n = n;
    b->xs = calloc(n, sizeof(*b->xs));
    b->as = calloc(n, sizeof(*b->as));
    b->rm = calloc(n, 32);
    b->sm = calloc(n, 32);
    b->want = calloc(n, sizeof(*b->want));
    if (!b->xs || !b->as || !b->rm || !b->sm || !b->want) return 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t r[4], s[4];
        if (!assignment_make(&b->xs[i], f, (unsigned)i)) return 0;
        b->as[i] = b->xs[i].as;
        rs_of(i, r, s, &b->rm[i], &b->sm[i]);
        if (!reference_proof(&b->want[i], f, &b->xs[i], r, s)) return 0;
    }
    return 1;
}

/* One call over b (split: through start and finalize) on a private SRS of f;
 * proofs into got. Returns the call's error (success: code 0). */
static cuzk_supraseal_error prove_batch(const fixture *f, batch *b, void *mtx, int gpu_index,
                                        int split, cuzk_supraseal_proof *got) {
    cuzk_supraseal_srs srs = {NULL};
    cuzk_supraseal_error e = create_SRS(&srs, f->path, false);
    if (e.code != 0) return e;
    if (!split) {
        e = generate_groth16_proofs_c(b->as, b->n, b->rm, b->sm, got, &srs, mtx, gpu_index);
    } else {
        void *h = NULL;
        /* private copies: start has consumed them once it returns */
        cuzk_supraseal_assignment *as = malloc(b->n * sizeof(*as));
        cuzk_supraseal_fr *rm = malloc(b->n * 32), *sm = malloc(b->n * 32);
        cuzk_fr **abc = calloc(3 * b->n, sizeof(*abc));
        int made = as && rm && sm && abc;
        for (size_t i = 0; made && i < b->n; i++) {
            const size_t m = b->as[i].abc_size;
            as[i] = b->as[i];
            for (int k = 0; k < 3; k++) {
                const cuzk_fr *src = k == 0 ? b->xs[i].a : k == 1 ? b->xs[i].b : b->xs[i].c;
                if ((abc[3 * i + k] = malloc(m * 32)) == NULL) {
                    made = 0;
                    break;
                }
                memcpy(abc[3 * i + k], src, m * 32);
            }
            if (!made) break;
            as[i].a = (const cuzk_supraseal_fr *)abc[3 * i];
            as[i].b = (const cuzk_supraseal_fr *)abc[3 * i + 1];
            as[i].c = (const cuzk_supraseal_fr *)abc[3 * i + 2];
        }
        if (made) {
            memcpy(rm, b->rm, b->n * 32);
            memcpy(sm, b->sm, b->n * 32);
            e = generate_groth16_proofs_start_c(as, b->n, rm, sm, &srs, mtx, gpu_index, &h);
            for (size_t i = 0; i < 3 * b->n; i++)
                if (abc[i]) memset(abc[i], 0x5a, b->as[i / 3].abc_size * 32);
            memset(as, 0xa5, b->n * sizeof(*as));
            memset(rm, 0x5a, b->n * 32);
            memset(sm, 0x5a, b->n * 32);
            drop_SRS(&srs); /* the handle holds its own reference */
            srs.ptr = NULL;
            if (e.code == 0) e = finalize_groth16_proof_c(h, got);
        } else {
            e = (cuzk_supraseal_error){ENOMEM, NULL};
        }
        for (size_t i = 0; abc && i < 3 * b->n; i++) free(abc[i]);
        free(abc);
        free(as);
        free(rm);
        free(sm);
    }
    drop_SRS(&srs);
    return e;
}

/* b's proofs equal the reference's and verify. */
static void check_proofs(const fixture *f, const batch *b, const cuzk_supraseal_proof *got) {
    for (size_t i = 0; i < b->n; i++) {
        CHECK_MEM(&got[i], &b->want[i], sizeof(got[i]));
        CHECK(verifies(f, &b->xs[i], &got[i]));
    }
}

/* n circuits of f on the device (counted), then on the CPU: equal bytes,
 * equal to the reference, verified. */
static void gpu_vs_cpu(const fixture *f, size_t n, int gpu_index, int split) {
    batch b;
    CHECK(batch_make(&b, f, n));
    cuzk_supraseal_proof *got = calloc(n, sizeof(*got)), *cpu = calloc(n, sizeof(*cpu));
    CHECK(got && cpu);
    if (b.n == n && got && cpu) {
        use_gpu(1);
        const uint64_t before = gpu_circuits();
        CHECK_OK(prove_batch(f, &b, NULL, gpu_index, split, got));
        CHECK_EQ_INT(gpu_circuits() - before, n);
        use_gpu(0);
        CHECK_OK(prove_batch(f, &b, NULL, gpu_index, split, cpu));
        use_gpu(1);
        CHECK_EQ_INT(gpu_circuits() - before, n); /* the CPU call used no device */
        CHECK_MEM(got, cpu, n * sizeof(*got));
        check_proofs(f, &b, got);
    }
    free(got);
    free(cpu);
    batch_free(&b);
}

/* ---- the tests ----------------------------------------------------------------------- */

static void test_porep_one(void) { gpu_vs_cpu(&fx_porep, 1, 0, 0); }
static void test_porep_three(void) { gpu_vs_cpu(&fx_porep, 3, 0, 0); }
static void test_porep_ten(void) { gpu_vs_cpu(&fx_porep, 10, 0, 0); }
static void test_porep_2_17(void) { gpu_vs_cpu(&fx_porep17, 3, 0, 0); }
static void test_dense(void) { gpu_vs_cpu(&fx_dense, 2, 0, 0); }
static void test_sha(void) { gpu_vs_cpu(&fx_sha, 2, 0, 0); }
/* one assignment buffer: the next circuit's assignment goes up after the
 * current one's MSMs, not beside them */
static void test_one_assignment_buffer(void) {
    const cuzk__ss_settings one = {1, 0, 1, 0};
    cuzk__ss_set_settings(&one);
    batch b;
    CHECK(batch_make(&b, &fx_porep, 4));
    cuzk_supraseal_proof got[4];
    const uint64_t before = gpu_circuits();
    if (b.n == 4) {
        CHECK_OK(prove_batch(&fx_porep, &b, NULL, 0, 0, got));
        check_proofs(&fx_porep, &b, got);
    }
    CHECK_EQ_INT(gpu_circuits() - before, 4);
    use_gpu(1);
    batch_free(&b);
}

static void test_split(void) {
    gpu_vs_cpu(&fx_porep, 3, 0, 1);
    gpu_vs_cpu(&fx_dense, 1, 0, 1);
}

static void test_gpu_index(void) {
    int n_dev = 0;
    CHECK(cuzk__gpu_device_count(&n_dev) == CUZK_OK && n_dev > 0);
    printf("  %d device(s)\n", n_dev);
    const int idx[] = {0, 1, 1000, 2147483647, -1, -7};
    for (size_t i = 0; i < sizeof(idx) / sizeof(idx[0]); i++) {
        printf("  gpu_index %d\n", idx[i]);
        gpu_vs_cpu(&fx_porep, 4, idx[i], 0);
    }
}

/* the split calls from four threads, two sharing a mutex */
typedef struct {
    const fixture *f;
    void *mtx;
    int gpu_index;
    batch *b;
    cuzk_supraseal_proof got[2];
    cuzk_supraseal_error e;
} thread_arg;

static void *split_thread(void *p) {
    thread_arg *a = p;
    a->e = prove_batch(a->f, a->b, a->mtx, a->gpu_index, 1, a->got);
    return NULL;
}

static void split_joined(void *p) {
    thread_arg *a = p;
    CHECK(ok(a->e, __LINE__));
    check_proofs(a->f, a->b, a->got);
}

static void test_split_threads(void) {
    use_gpu(1);
    batch bp, bd;
    CHECK(batch_make(&bp, &fx_porep, 2));
    CHECK(batch_make(&bd, &fx_dense, 2));
    void *m1 = create_gpu_mutex(), *m2 = create_gpu_mutex();
    thread_arg args[4];
    memset(args, 0, sizeof(args));
    const fixture *fs[4] = {&fx_porep, &fx_porep, &fx_dense, &fx_porep};
    void *ms[4] = {m1, m1, m2, NULL};
    const int idx[4] = {0, 5, -1, 0};
    batch *bs[4] = {&bp, &bp, &bd, &bp};
    for (int i = 0; i < 4; i++) {
        args[i].f = fs[i];
        args[i].mtx = ms[i];
        args[i].gpu_index = idx[i];
        args[i].b = bs[i];
    }
    const uint64_t before = gpu_circuits();
    threads_run(split_thread, args, sizeof(args[0]), 4, split_joined);
    CHECK_EQ_INT(gpu_circuits() - before, 8);
    destroy_gpu_mutex(m1);
    destroy_gpu_mutex(m2);
    batch_free(&bp);
    batch_free(&bd);
}

/* a device that cannot hold the SRS: the CPU proves, the same bytes */
static void test_fallback(void) {
    batch b;
    CHECK(batch_make(&b, &fx_porep, 2));
    cuzk_supraseal_proof got[2];
    const cuzk__ss_settings tight = {1, (size_t)1 << 20, 0, 0}; /* 1 MiB "free" */
    cuzk__ss_set_settings(&tight);
    cuzk__ss_counts c0, c1;
    cuzk__ss_get_counts(&c0);
    if (b.n == 2) {
        CHECK_OK(prove_batch(&fx_porep, &b, NULL, 0, 0, got));
        check_proofs(&fx_porep, &b, got);
    }
    cuzk__ss_get_counts(&c1);
    CHECK_EQ_INT(c1.gpu_circuits - c0.gpu_circuits, 0);
    CHECK_EQ_INT(c1.cpu_circuits - c0.cpu_circuits, 2);
    CHECK(c1.keys_refused > c0.keys_refused);
    use_gpu(1);
    batch_free(&b);
}

/* ---- refusals: the device's words are the CPU's -------------------------------------- */

/* beside cases.h's edits: a non-canonical c, in the row before the last */
static void e_c_noncanonical(cuzk_supraseal_assignment *a, assignment *x) {
    saved_fr = x->c[a->abc_size - 2];
    memset(x->c[a->abc_size - 2].l, 0xff, 32);
}

/* The call with the second of three circuits edited, on the device and on
 * the CPU: the same nonzero code and message, containing want, no proof
 * written. */
static void refused_alike(batch *b, edit_fn edit, const char *want, int line) {
    cuzk_supraseal_assignment as[3] = {b->as[0], b->as[1], b->as[2]};
    edit(&as[1], &b->xs[1]);
    cuzk_supraseal_error e[2];
    for (int gpu = 1; gpu >= 0; gpu--) {
        use_gpu(gpu);
        cuzk_supraseal_srs srs = {NULL};
        CHECK_OK(create_SRS(&srs, fx_porep.path, false));
        cuzk_supraseal_proof proofs[3], before[3];
        memset(proofs, 0xab, sizeof(proofs));
        memcpy(before, proofs, sizeof(proofs));
        e[gpu] = generate_groth16_proofs_c(as, 3, b->rm, b->sm, proofs, &srs, NULL, 0);
        CHECK(memcmp(proofs, before, sizeof(proofs)) == 0);
        drop_SRS(&srs);
    }
    use_gpu(1);
    const int same = e[0].code == e[1].code && e[0].code != 0 && e[0].message && e[1].message &&
                     strcmp(e[0].message, e[1].message) == 0 && strstr(e[1].message, want);
    if (!same)
        fprintf(stderr, "line %d: GPU code %d \"%s\", CPU code %d \"%s\", want \"%s\"\n", line,
                e[1].code, e[1].message ? e[1].message : "", e[0].code,
                e[0].message ? e[0].message : "", want);
    CHECK(same);
    free(e[0].message);
    free(e[1].message);
}

static void test_refusals(void) {
    batch b;
    CHECK(batch_make(&b, &fx_porep, 3));
    if (b.n != 3) {
        batch_free(&b);
        return;
    }
    assignment *x = &b.xs[1];
#define REFUSED(fn, want) refused_alike(&b, fn, want, __LINE__)
    REFUSED(e_a_noncanonical, "a[3] is not a Montgomery scalar");
    x->a[3] = saved_fr;
    REFUSED(e_c_noncanonical, "is not a Montgomery scalar");
    x->c[x->as.abc_size - 2] = saved_fr;
    REFUSED(e_aux_noncanonical, "aux 7 is not a Montgomery scalar");
    x->aux[7] = saved_fr;
    REFUSED(e_unsatisfied, "constraint 5 is not satisfied");
    x->c[5] = saved_fr;
    REFUSED(e_input_not_one, "input 0 is not one");
    x->inp[0] = saved_fr;
    REFUSED(e_input_row, "is not input");
    x->a[x->as.abc_size - 1] = saved_fr;
    REFUSED(e_scaled_row, "does not verify");
    free(scaled_a);
    free(scaled_b);
#undef REFUSED
    /* and the device still proves afterwards */
    cuzk_supraseal_proof got[3];
    const uint64_t before = gpu_circuits();
    CHECK_OK(prove_batch(&fx_porep, &b, NULL, 0, 0, got));
    CHECK_EQ_INT(gpu_circuits() - before, 3);
    check_proofs(&fx_porep, &b, got);
    batch_free(&b);
}

/* ---- main ------------------------------------------------------------------------------ */

int main(int argc, char **argv) {
    cuzk_test_init(argc, argv);
    const int need = cuzk_gpu_test_need_device(argc, argv);
    if (need != 0) return need;
    if (!tmpdir_make("cuzk-supraseal-gpu")) return 1;
    use_gpu(1);
    const uint64_t failures0 = device_failures();
    int ok_fx = fixture_make(&fx_porep, CUZK_GEN_POREP, 10, "porep", tmpdir) &&
                fixture_make(&fx_porep17, CUZK_GEN_POREP, 17, "porep17", tmpdir) &&
                fixture_make(&fx_dense, CUZK_GEN_DENSE, 12, "dense", tmpdir) &&
                fixture_make(&fx_sha, CUZK_GEN_SHA, 12, "sha", tmpdir);
    CHECK(ok_fx);
    if (ok_fx) {
        RUN(test_porep_one);
        RUN(test_porep_three);
        RUN(test_porep_ten);
        RUN(test_porep_2_17);
        RUN(test_dense);
        RUN(test_sha);
        RUN(test_split);
        RUN(test_one_assignment_buffer);
        RUN(test_gpu_index);
        RUN(test_split_threads);
        RUN(test_refusals);
        RUN(test_fallback);
    }
    CHECK_EQ_INT(device_failures() - failures0, 0); /* no device error anywhere */
    cuzk__ss_set_settings(NULL);
    fixture_free(&fx_porep);
    fixture_free(&fx_porep17);
    fixture_free(&fx_dense);
    fixture_free(&fx_sha);
    tmpdir_remove();
    return cuzk_test_finish();
}
