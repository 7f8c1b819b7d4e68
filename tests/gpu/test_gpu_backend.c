/*
 * The GPU backend (src/gpu/backend_gpu*.c) against the CPU backend, bit for
 * bit: same circuit, parameters, witness and r, s give the same proof
 * bytes, which also verify against the parameters' vk.
 *
 * Bellman path: synthetic circuits from cuzk_gen (porep, dense and sha
 * profiles at 2^10..2^14; a porep one at 2^16), a development SRS from fixed
 * toxic waste, several partitions with fresh random r, s (seed printed).
 * An unsatisfying witness is refused by both backends naming the same
 * constraint. snarkjs path: the committed examples/sample key and witness.
 *
 * Uploads (backend_gpu.h): every GPU proof checks which path its inputs
 * took through the backend's counters: staged from pageable memory (also
 * with staging chunks of 4000 bytes, so field elements straddle chunks and
 * both buffers are refilled many times), straight from a page-locked
 * witness, and the plain copies left when prepare's page-locked allocations
 * are made to fail. Pre-staging: announced witnesses found in the slot, and
 * the slot made by lowering the MSMs' level budget when device memory is
 * held back so that it would not fit. Shifted copies of the bases made
 * after a key's first proof: the proofs after it are the same.
 * Exits 77 without a device unless CUZK_GPU_REQUIRED=1.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "groth16/backend.h"
#include "circuit/gen.h"
#include "gpu/backend_gpu.h"
#include "gpu/gpu.h"
#include "gpu_fixture.h"
#include "gpu_test.h"
#include "harness.h"
#include "groth16/proof192.h"
#include "groth16/setup.h"
#include "io/wtns.h"

/* How a proof's uploads are expected to go (backend_gpu.h). */
typedef enum { UP_STAGED, UP_PINNED, UP_PAGEABLE } upload_path;

/* A page-locked copy of witness src (its file image, read in place), in
 * *buf for cuzk__gpu_host_free after cuzk_witness_close(w). */
static void pinned_witness(cuzk_witness *w, void **buf, const cuzk_witness *src) {
    cuzk_error err;
    uint8_t *bytes = NULL;
    size_t n = 0;
    *buf = NULL;
    CHECK_EQ_INT(cuzk_witness_to_bytes(src, &bytes, &n, &err), CUZK_OK);
    cuzk_status st = cuzk__gpu_host_alloc(buf, n);
    if (st != CUZK_OK) printf("host alloc: %s\n", cuzk__gpu_last_error());
    CHECK_EQ_INT(st, CUZK_OK);
    if (*buf != NULL) memcpy(*buf, bytes, n);
    free(bytes);
    CHECK_EQ_INT(cuzk_witness_open_mem(w, *buf, n, "pinned witness", &err), CUZK_OK);
    CHECK(cuzk__gpu_host_is_pinned(w->values)); /* read in place, not copied */
}

/* The hooks every GPU instance of these tests opens with (backend_gpu.h):
 * the defaults unless a test changes them for its cases. */
static cuzk__gpu_backend_hooks test_hooks = CUZK__GPU_BACKEND_HOOKS_DEFAULT;

/* The counts of instance be so far. */
static cuzk__gpu_backend_upload_counts stats_of(const cuzk_backend *be) {
    cuzk__gpu_backend_upload_counts c;
    cuzk__gpu_backend_stats(be, &c);
    return c;
}
/* The counts of the last instance keys_close or zkey_sample_case closed. */
static cuzk__gpu_backend_upload_counts last_stats;

/* Chunks of n bytes when the staging buffers are test_hooks.stage_bytes
 * (set below the backend's 1 MiB floor, so that is the chunk size). */
static uint64_t chunks_of(uint64_t n) {
    const uint64_t c = test_hooks.stage_bytes;
    return (n + c - 1) / c;
}

/* The uploads of one proof on instance be against its counters before it:
 * `pinned` page-locked ones, `pageable` plain ones, and staged chunks
 * (exactly `staged` when nonzero, at least one when staged_any). */
static void check_uploads(const cuzk_backend *be, const cuzk__gpu_backend_upload_counts *before,
                          uint64_t pinned, uint64_t pageable, int staged_any, uint64_t staged) {
    const cuzk__gpu_backend_upload_counts now_c = stats_of(be), *now = &now_c;
    CHECK_EQ_INT(now->pinned - before->pinned, pinned);
    CHECK_EQ_INT(now->pageable - before->pageable, pageable);
    const uint64_t chunks = now->staged_chunks - before->staged_chunks;
    if (staged)
        CHECK_EQ_INT(chunks, staged);
    else if (staged_any)
        CHECK(chunks >= 1);
    else
        CHECK_EQ_INT(chunks, 0);
}

/* One proof through a backend with the given r, s. */
/* the witness_staged of prove_with's last job (-1: it had none) */
static int last_witness_staged = -1;
static cuzk_status prove_with(cuzk_backend *be, cuzk_backend_key *key, const cuzk_witness *w,
                              const uint64_t r[4], const uint64_t s[4], cuzk_groth16_proof *pf,
                              cuzk_groth16_stage_times *t, cuzk_error *err) {
    cuzk_backend_job *job = NULL;
    last_witness_staged = -1;
    cuzk_status st = cuzk_backend_prove_start(be, &job, key, w, err);
    if (st != CUZK_OK) return st;
    last_witness_staged = job->witness_staged;
    st = cuzk_backend_prove_finish(be, pf, job, r, s, err);
    if (t) *t = *cuzk_backend_job_times(job);
    cuzk_backend_release_job(be, job);
    return st;
}

/* A generated circuit with development parameters and a key of it on each
 * backend (the GPU's instance with test_hooks). */
typedef struct {
    cuzk_gen *g;
    const cuzk_circuit *c;
    cuzk_params p;
    cuzk_params pd; /* keys_deferred: the same parameters from a file, points deferred */
    char path[64];
    cuzk_backend cpu, gpu;
    cuzk_backend_key *kc, *kg; /* kg NULL when the GPU's prepare failed (checked) */
} keys_fixture;

/* Nonzero: the GPU key reads its parameters from a file opened with
 * deferred points (params.h) and decodes them on the device. */
static int keys_deferred;
/* With keys_deferred: the GPU key from cuzk_backend_prepare_early (its later
 * vectors load beside the first proof). */
static int keys_early;

/* p written to a file of this process and opened with deferred points. */
static void write_deferred(cuzk_params *pd, char path[64], const cuzk_params *p) {
    cuzk_error err;
    snprintf(path, 64, "/tmp/cuzk_gpu_deferred_%d.params", (int)getpid());
    CHECK_EQ_INT(cuzk_params_write(path, p, CUZK_PARAMS_PARALLEL, &err), CUZK_OK);
    CHECK_EQ_INT(cuzk_params_open(pd, path, CUZK_PARAMS_DEFER_POINTS, &err), CUZK_OK);
}

static void keys_open(keys_fixture *f, cuzk_gen_profile profile, unsigned log_k) {
    cuzk_error err;
    memset(f, 0, sizeof(*f));
    cuzk_gen_params gp = {profile, log_k, -1.0, cuzk_test_rand64(), 0};
    CHECK_EQ_INT(cuzk_gen_new(&f->g, &gp, &err), CUZK_OK);
    f->c = cuzk_gen_circuit(f->g);
    cuzk_setup_toxic tw;
    toxic_fixed(&tw);
    CHECK_EQ_INT(cuzk_groth16_setup_dev(&f->p, f->c, &tw, 0, &err), CUZK_OK);
    if (keys_deferred) write_deferred(&f->pd, f->path, &f->p);
    CHECK_EQ_INT(cuzk_backend_open(&f->cpu, &cuzk_backend_cpu, 0, -1, &err), CUZK_OK);
    CHECK_EQ_INT(cuzk_backend_open(&f->gpu, &cuzk_backend_gpu, 0, cuzk_gpu_test_dev, &err),
                 CUZK_OK);
    cuzk__gpu_backend_set_test_hooks(&f->gpu, &test_hooks);
    CHECK_EQ_INT(cuzk_backend_prepare(&f->cpu, &f->kc, f->c, &f->p, &err), CUZK_OK);
    cuzk_status st =
        keys_deferred && keys_early
            ? cuzk_backend_prepare_early(&f->gpu, &f->kg, f->c, &f->pd, &err)
            : cuzk_backend_prepare(&f->gpu, &f->kg, f->c, keys_deferred ? &f->pd : &f->p, &err);
    if (st != CUZK_OK) printf("prepare: %s\n", err.msg);
    CHECK_EQ_INT(st, CUZK_OK);
}

static void keys_close(keys_fixture *f) {
    if (f->kg) cuzk_backend_release_key(&f->gpu, f->kg);
    if (f->kc) cuzk_backend_release_key(&f->cpu, f->kc);
    last_stats = stats_of(&f->gpu);
    cuzk_backend_close(&f->gpu);
    cuzk_backend_close(&f->cpu);
    cuzk_params_close(&f->p);
    if (f->pd.deferred) {
        cuzk_params_close(&f->pd);
        unlink(f->path);
    }
    cuzk_gen_free(f->g);
}

/* w with one aux value changed, in place (w's own memory, page-locked or
 * not): both of f's keys refuse it at the same constraint; then w is put
 * back as it was. A generated circuit may leave a variable free enough that
 * the change still satisfies it (a boolean only checked for being 0 or 1):
 * the CPU picks the first variable from the middle on whose change it
 * refuses, and the GPU must refuse that one at the same constraint. */
static void broken_witness(keys_fixture *f, cuzk_witness *w) {
    int refused = 0;
    for (uint64_t i = 0; i < 64 && !refused && w->n_aux / 2 + i < w->n_aux; i++) {
        uint64_t *v = (uint64_t *)w->values + 4 * (w->n_inputs + w->n_aux / 2 + i);
        uint64_t was[4];
        memcpy(was, v, sizeof was);
        const int zero = !(v[0] | v[1] | v[2] | v[3]);
        memset(v, 0, 32);
        v[0] = zero; /* 0 becomes 1, anything else 0: canonical and changed */
        cuzk_backend_job *job = NULL;
        cuzk_error e1, e2;
        const cuzk_status st = cuzk_backend_prove_start(&f->cpu, &job, f->kc, w, &e1);
        if (st == CUZK_OK) {
            cuzk_backend_release_job(&f->cpu, job);
        } else {
            refused = 1;
            CHECK_EQ_INT(st, CUZK_ERR_WITNESS_UNSATISFIED);
            CHECK_EQ_INT(cuzk_backend_prove_start(&f->gpu, &job, f->kg, w, &e2),
                         CUZK_ERR_WITNESS_UNSATISFIED);
            const char *n1 = strstr(e1.msg, "constraint"), *n2 = strstr(e2.msg, "constraint");
            CHECK(n1 && n2 && strcmp(n1, n2) == 0);
        }
        memcpy(v, was, sizeof was);
    }
    CHECK(refused);
}

/* test_hooks (stage_bytes, pin_fail) are set by the caller for the GPU
 * instance; path is where its witness uploads should go. */
static void bellman_case(cuzk_gen_profile profile, unsigned log_k, unsigned partitions,
                         upload_path path) {
    cuzk_error err;
    keys_fixture f;
    keys_open(&f, profile, log_k);
    cuzk_gen *g = f.g;
    cuzk_backend_key *kc = f.kc, *kg = f.kg;
    cuzk_backend *cpu = &f.cpu, *gpu = &f.gpu;
    cuzk_groth16_vk vk;
    CHECK_EQ_INT(cuzk_groth16_vk_from_params(&vk, &f.p.vk, &err), CUZK_OK);
    cuzk_status st;

    for (unsigned part = 0; part < partitions && kg; part++) {
        cuzk_witness w;
        void *pinned = NULL;
        CHECK_EQ_INT(cuzk_gen_witness(g, part, &w, &err), CUZK_OK);
        if (path == UP_PINNED) {
            cuzk_witness gw = w;
            pinned_witness(&w, &pinned, &gw);
            cuzk_witness_close(&gw);
        }
        /* an early key's first proof fails on its own while the vectors load;
         * the next one still equals the CPU's */
        if (part == 0 && keys_early) broken_witness(&f, &w);
        uint64_t r[4], s[4];
        cuzk_test_rand_scalar(r);
        cuzk_test_rand_scalar(s);
        cuzk_groth16_proof pc, pg;
        cuzk_groth16_stage_times tc, tg;
        CHECK_EQ_INT(prove_with(cpu, kc, &w, r, s, &pc, &tc, &err), CUZK_OK);
        const cuzk__gpu_backend_upload_counts before = stats_of(gpu);
        st = prove_with(gpu, kg, &w, r, s, &pg, &tg, &err);
        if (st != CUZK_OK) printf("gpu prove: %s\n", err.msg);
        CHECK_EQ_INT(st, CUZK_OK);
        const uint64_t wbytes = cuzk_witness_n_vars(&w) * 32;
        /* (an early key's loader adds its runs to the staged chunks meanwhile) */
        check_uploads(gpu, &before, path == UP_PINNED, path == UP_PAGEABLE, path == UP_STAGED,
                      path == UP_STAGED && test_hooks.stage_bytes != 0 &&
                              test_hooks.stage_bytes < ((size_t)1 << 20) && !keys_early
                          ? chunks_of(wbytes)
                          : 0);
        if (keys_early && part == 0) {
            /* it decoded the four vectors after h (prepare_early returned
             * without them), and needed every vector: the key is whole */
            CHECK(tg.key_wait_ms > 0.0);
            CHECK_EQ_INT(cuzk_backend_key_wait(gpu, kg, &err), CUZK_OK);
        } else {
            CHECK(tg.key_wait_ms == 0.0);
        }
        uint8_t bc[CUZK_PROOF192_BYTES], bg[CUZK_PROOF192_BYTES];
        cuzk_proof192_encode(bc, &pc);
        cuzk_proof192_encode(bg, &pg);
        CHECK_MEM(bg, bc, sizeof bc);
        /* the proof verifies with the partition's public inputs */
        CHECK_EQ_INT(cuzk_groth16_verify(&vk, (const uint64_t(*)[4])(w.values + 4),
                                         (size_t)w.n_inputs - 1, &pg, &err),
                     CUZK_OK);
        printf("  %s 2^%u partition %u: cpu %.1f ms, gpu %.1f ms (spmv %.2f ntt %.2f msm_h %.2f "
               "batch %.2f tail %.2f g2 %.2f key_wait %.2f)\n",
               cuzk_gen_profile_name(profile), log_k, part, tc.total_ms, tg.total_ms,
               tg.spmv_ms, tg.ntt_ms, tg.msm_h_ms, tg.batch_add_ms, tg.tail_msm_ms,
               tg.b_g2_msm_ms, tg.key_wait_ms);

        if (part == 0 && !keys_early) broken_witness(&f, &w);
        cuzk_witness_close(&w);
        cuzk__gpu_host_free(pinned);
    }
    cuzk_groth16_vk_free(&vk);
    keys_close(&f);
}

static void test_bellman_small(void) {
    bellman_case(CUZK_GEN_POREP, 10, 3, UP_STAGED);
    bellman_case(CUZK_GEN_DENSE, 10, 2, UP_STAGED);
    bellman_case(CUZK_GEN_SHA, 12, 2, UP_STAGED);
    bellman_case(CUZK_GEN_POREP, 14, 2, UP_STAGED);
}

/* 2 MB witnesses: two chunks of the default sizing. */
static void test_bellman_2_16(void) { bellman_case(CUZK_GEN_POREP, 16, 2, UP_STAGED); }

/* A witness of many 4000-byte chunks (n_vars * 32 is not a multiple). */
static void test_bellman_small_chunks(void) {
    const size_t saved = test_hooks.stage_bytes;
    test_hooks.stage_bytes = 4000;
    bellman_case(CUZK_GEN_POREP, 12, 2, UP_STAGED);
    bellman_case(CUZK_GEN_DENSE, 10, 1, UP_STAGED);
    test_hooks.stage_bytes = saved;
}

/* A witness in page-locked memory: one DMA, no staging. */
static void test_bellman_pinned_witness(void) {
    bellman_case(CUZK_GEN_POREP, 12, 2, UP_PINNED);
}

/* No page-locked memory for the staging buffers: plain copies, same proofs. */
static void test_bellman_no_staging(void) {
    test_hooks.pin_fail = CUZK__GPU_PIN_FAIL_STAGE;
    bellman_case(CUZK_GEN_POREP, 12, 2, UP_PAGEABLE);
    test_hooks.pin_fail = 0;
}

/* test_bellman_deferred's cases, with early keys (keys_early) or not; the
 * early ones a little larger, so that more of the loading overlaps. */
static void deferred_cases(int early) {
    keys_deferred = 1;
    keys_early = early;
    bellman_case(CUZK_GEN_POREP, early ? 14 : 12, 2, UP_STAGED);
    bellman_case(CUZK_GEN_DENSE, 10, 1, UP_STAGED);
    const size_t saved = test_hooks.stage_bytes;
    test_hooks.stage_bytes = 4000;
    bellman_case(CUZK_GEN_POREP, early ? 13 : 12, early ? 2 : 1, UP_STAGED);
    test_hooks.stage_bytes = saved;
    test_hooks.pin_fail = CUZK__GPU_PIN_FAIL_STAGE;
    bellman_case(CUZK_GEN_POREP, 11, 1, UP_PAGEABLE);
    test_hooks.pin_fail = 0;
    keys_deferred = keys_early = 0;
}

/*
 * Deferred parameters (params.h): the GPU key reads the vectors from the file
 * and decodes them on the device; every proof equals the CPU's from the
 * decoded parameters (same r, s). In runs of the default staging size, in
 * runs of 4000 bytes (41 G1 or 20 G2 points, most runs shorter than a
 * vector), and through the pageable buffer when page-locked memory is
 * refused.
 */
static void test_bellman_deferred(void) { deferred_cases(0); }

/*
 * The same from keys of cuzk_backend_prepare_early: the first proof starts
 * while the vectors after h load (waiting for each one its MSMs need), and
 * equals the CPU's; after it the key is whole (key_wait), and later proofs
 * wait for nothing. In runs of the default size, in runs of 4000 bytes (so
 * the loading takes thousands of runs beside the proof), and without
 * page-locked memory (then prepare_early loads everything itself).
 */
static void test_bellman_deferred_early(void) { deferred_cases(1); }

/* Overwrites point index of a vector in the file (len bytes at byte at). */
static void spoil(const char *path, uint64_t off, const uint8_t *bytes, size_t len) {
    const int fd = open(path, O_WRONLY);
    CHECK(fd >= 0 && pwrite(fd, bytes, len, (off_t)off) == (ssize_t)len && close(fd) == 0);
}

/*
 * A bad point in deferred parameters: the GPU key refuses it at prepare with
 * the host reader's message (vector, index, reason), the lowest bad index of
 * the vector when there are several (in different runs); the CPU backend
 * refuses deferred parameters outright. A key of prepare_early refuses a
 * bad h point the same way; one in a later vector fails every proof and
 * key_wait with that message instead.
 */
static void test_bellman_deferred_bad_points(void) {
    cuzk_error err;
    keys_fixture f;
    keys_open(&f, CUZK_GEN_POREP, 10);
    cuzk_params pd;
    char path[64];
    struct {
        int vec;            /* a cuzk_params_vec */
        uint64_t index[2];  /* the points spoiled (the lower one is named) */
        unsigned byte;      /* which byte of the point to change */
        uint8_t value;      /* XORed into it */
        cuzk_status want;
        const char *says;
    } cases[] = {
        {CUZK_PARAMS_VEC_L, {300, 45}, 95, 0x01, CUZK_ERR_NOT_ON_CURVE, "vector l point 45"},
        {CUZK_PARAMS_VEC_H, {7, 700}, 0, 0x80, CUZK_ERR_BAD_ENCODING, "vector h point 7"},
        {CUZK_PARAMS_VEC_B_G2, {3, 3}, 0, 0x40, CUZK_ERR_BAD_ENCODING, "vector b_g2 point 3"},
        {CUZK_PARAMS_VEC_A, {2, 2}, 48, 0xe0, CUZK_ERR_NOT_CANONICAL, "vector a point 2"},
    };
    const size_t saved = test_hooks.stage_bytes;
    test_hooks.stage_bytes = 4000;
    cuzk__gpu_backend_set_test_hooks(&f.gpu, &test_hooks);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        write_deferred(&pd, path, &f.p);
        const cuzk_params_g1_vec *g1v[4] = {&pd.h, &pd.l, &pd.a, &pd.b_g1};
        const int g2 = cases[c].vec == CUZK_PARAMS_VEC_B_G2;
        const uint64_t base = g2 ? pd.b_g2.offset : g1v[cases[c].vec]->offset;
        const unsigned pb = g2 ? 192 : 96;
        for (int j = 0; j < 2; j++) {
            uint8_t pt[192];
            CHECK_EQ_INT(cuzk_params_read_encoded(&pd, (cuzk_params_vec)cases[c].vec,
                                                  cases[c].index[j], 1, pt, &err),
                         CUZK_OK);
            if (j == 0 || cases[c].index[1] != cases[c].index[0]) {
                pt[cases[c].byte] ^= cases[c].value;
                spoil(path, base + cases[c].index[j] * pb, pt, pb);
            }
        }
        cuzk_backend_key *k = NULL;
        cuzk_error e2;
        const cuzk_status st = cuzk_backend_prepare(&f.gpu, &k, f.c, &pd, &e2);
        CHECK_EQ_INT(st, cases[c].want);
        CHECK(k == NULL);
        if (strstr(e2.msg, cases[c].says) == NULL) {
            CHECK(!"the message names the point");
            printf("  message: %s\n", e2.msg);
        }
        CHECK_EQ_INT(cuzk_backend_prepare(&f.cpu, &k, f.c, &pd, &err), CUZK_ERR_INVALID_ARG);
        CHECK(strstr(err.msg, "deferred") != NULL);
        k = NULL;
        const cuzk_status se = cuzk_backend_prepare_early(&f.gpu, &k, f.c, &pd, &e2);
        if (cases[c].vec == CUZK_PARAMS_VEC_H) {
            CHECK_EQ_INT(se, cases[c].want);
            CHECK(k == NULL);
            CHECK(strstr(e2.msg, cases[c].says) != NULL);
        } else {
            CHECK_EQ_INT(se, CUZK_OK);
            /* a page-locked witness: its upload is counted apart (pinned) */
            cuzk_witness gw, w;
            void *buf = NULL;
            CHECK_EQ_INT(cuzk_gen_witness(f.g, 0, &gw, &err), CUZK_OK);
            pinned_witness(&w, &buf, &gw);
            cuzk_witness_close(&gw);
            for (int t = 0; t < 3 && k != NULL; t++) { /* two proofs, then key_wait */
                cuzk_backend_job *job = NULL;
                const uint64_t up0 = stats_of(&f.gpu).pinned;
                const cuzk_status sp = t < 2 ? cuzk_backend_prove_start(&f.gpu, &job, k, &w, &e2)
                                             : cuzk_backend_key_wait(&f.gpu, k, &e2);
                CHECK_EQ_INT(sp, cases[c].want);
                CHECK(job == NULL);
                /* the first proof finds the bad point (its witness uploaded);
                 * the second fails at once, before any upload */
                if (t < 2) CHECK_EQ_INT(stats_of(&f.gpu).pinned - up0, t == 0 ? 1 : 0);
                if (strstr(e2.msg, cases[c].says) == NULL) {
                    CHECK(!"an early key's proofs name the point");
                    printf("  message: %s\n", e2.msg);
                }
            }
            cuzk_witness_close(&w);
            cuzk__gpu_host_free(buf);
            cuzk_backend_release_key(&f.gpu, k);
        }
        cuzk_params_close(&pd);
        unlink(path);
    }
    test_hooks.stage_bytes = saved;
    keys_close(&f);
}

/* w proved on both of f's keys with the same fresh r, s: the CPU stages
 * nothing and the proof bytes agree. Returns the GPU's status
 * (last_witness_staged is then the GPU job's). */
static cuzk_status prove_both(keys_fixture *f, const cuzk_witness *w) {
    cuzk_error err;
    uint64_t r[4], s4[4];
    cuzk_test_rand_scalar(r);
    cuzk_test_rand_scalar(s4);
    cuzk_groth16_proof pc, pg;
    CHECK_EQ_INT(prove_with(&f->cpu, f->kc, w, r, s4, &pc, NULL, &err), CUZK_OK);
    CHECK_EQ_INT(last_witness_staged, 0); /* the CPU backend stages nothing */
    cuzk_status st = prove_with(&f->gpu, f->kg, w, r, s4, &pg, NULL, &err);
    if (st != CUZK_OK) printf("gpu prove: %s\n", err.msg);
    CHECK_EQ_INT(st, CUZK_OK);
    if (st == CUZK_OK) {
        uint8_t bc[CUZK_PROOF192_BYTES], bg[CUZK_PROOF192_BYTES];
        cuzk_proof192_encode(bc, &pc);
        cuzk_proof192_encode(bg, &pg);
        CHECK_MEM(bg, bc, sizeof bc);
    }
    return st;
}

/*
 * A key of prepare_early released while its vectors load (runs of 4000
 * bytes: ~1,800 of them at 2^14): the release stops the loader at its next
 * run and frees everything; a key prepared afterwards proves as the CPU.
 * Round 0 holds the loader before l (the hooks' loader_hold), so the
 * release surely finds it loading; round 1 releases at once and lets the
 * race fall as it may.
 */
static void test_bellman_early_release(void) {
    keys_deferred = 1;
    keys_fixture f;
    keys_open(&f, CUZK_GEN_POREP, 14);
    const size_t saved = test_hooks.stage_bytes;
    test_hooks.stage_bytes = 4000;
    cuzk__gpu_backend_set_test_hooks(&f.gpu, &test_hooks);
    cuzk_error err;
    size_t free0 = 0, free1 = 0, total = 0;
    CHECK_EQ_INT(cuzk__gpu_mem_info(&free0, &total), CUZK_OK);
    /* a whole preparation's staged chunks (the circuit's and the vectors'
     * runs), for comparison */
    const uint64_t all0 = stats_of(&f.gpu).staged_chunks;
    cuzk_backend_key *kw = NULL;
    CHECK_EQ_INT(cuzk_backend_prepare(&f.gpu, &kw, f.c, &f.pd, &err), CUZK_OK);
    cuzk_backend_release_key(&f.gpu, kw);
    const uint64_t all = stats_of(&f.gpu).staged_chunks - all0;
    for (int round = 0; round < 2; round++) {
        const uint64_t runs0 = stats_of(&f.gpu).staged_chunks;
        cuzk_backend_key *k = NULL;
        test_hooks.loader_hold = round == 0;
        cuzk__gpu_backend_set_test_hooks(&f.gpu, &test_hooks);
        CHECK_EQ_INT(cuzk_backend_prepare_early(&f.gpu, &k, f.c, &f.pd, &err), CUZK_OK);
        cuzk_backend_release_key(&f.gpu, k);
        test_hooks.loader_hold = 0;
        cuzk__gpu_backend_set_test_hooks(&f.gpu, &test_hooks);
        /* (a vector's runs are counted once it is whole: the circuit's and
         * h's when held) */
        const uint64_t runs = stats_of(&f.gpu).staged_chunks - runs0;
        printf("  round %d: %llu of a whole preparation's %llu staged chunks\n", round,
               (unsigned long long)runs, (unsigned long long)all);
        if (round == 0) CHECK(runs < all);
    }
    CHECK_EQ_INT(cuzk__gpu_mem_info(&free1, &total), CUZK_OK);
    CHECK(free1 + ((size_t)8 << 20) >= free0); /* nothing left behind (the pool may keep a little) */
    test_hooks.stage_bytes = saved;
    cuzk_witness w;
    CHECK_EQ_INT(cuzk_gen_witness(f.g, 1, &w, &err), CUZK_OK);
    CHECK_EQ_INT(prove_both(&f, &w), CUZK_OK);
    cuzk_witness_close(&w);
    keys_close(&f);
    keys_deferred = 0;
}

/*
 * Pre-staging (cuzk_backend_stage): announced witnesses are copied beside
 * the running proof and taken by the next proof of the same witness; every
 * proof still equals the CPU's (same r, s) whatever was staged. Covers the
 * first proof (nothing set up yet), a hit per announcement, the same witness
 * announced twice (two hits), an unannounced witness while another sits in
 * the slot (a miss that empties it), withdrawals (another witness's copy
 * kept), an announcement overtaken, a witness reopened at the same address
 * with other values (its old values must never be used), a witness of the
 * wrong size, and a key released while a copy may be running. With the slot a buffer of its own
 * (slot CUZK__GPU_STAGE_SLOT_OWN) and in b's third of a, b, c (_ABC: each
 * copy after the NTTs of the proof before, the same hits).
 */
static void prestaged_case(int slot) {
    cuzk_error err;
    keys_fixture f;
    test_hooks.stage_slot = slot;
    keys_open(&f, CUZK_GEN_POREP, 12);
    test_hooks.stage_slot = 0;
    cuzk_gen *g = f.g;
    cuzk_backend_key *kg = f.kg;
    cuzk_backend *gpu = &f.gpu;
    enum { NW = 4 };
    cuzk_witness w[NW];
    for (unsigned i = 0; i < NW; i++) CHECK_EQ_INT(cuzk_gen_witness(g, i, &w[i], &err), CUZK_OK);

    /* (announce before, witness proved, expect a staged hit) */
    enum { NONE = -1 };
    static const struct {
        int reopen;   /* index reopened (closed, then another partition's witness in the
                         same struct, so at the same address) before this step, NONE none */
        int announce; /* indices to announce before the proof, in order, NONE none */
        int announce2;
        int withdraw; /* then withdrawn: an index, NONE none */
        unsigned prove;
        int hit;
    } steps[] = {
        {NONE, 0, 1, NONE, 0, 0},    /* first proof: no worker yet, its own announcement
                                        dropped; the slot is made after it and w1 copied */
        {NONE, 2, NONE, NONE, 1, 1}, /* w1 in the slot; w2 copied during this proof */
        {NONE, 3, NONE, NONE, 2, 1}, /* w3 copied during this one */
        {NONE, NONE, NONE, NONE, 0, 0}, /* w0 unannounced, w3 in the slot: a miss that
                                           empties it */
        {NONE, 3, 3, NONE, 3, 1},       /* w3 announced twice: a copy now, the second
                                           during it */
        {NONE, NONE, NONE, NONE, 3, 1}, /* ... and taken here */
        {NONE, 1, NONE, 1, 1, 0},       /* withdrawn: a plain upload */
        {NONE, 0, 1, NONE, 1, 0},       /* w1 overtakes w0: a miss that drops both */
        {1, 1, NONE, NONE, 1, 1},       /* w1 reopened with other values at the same
                                           address: its new values are copied and taken,
                                           never the old ones */
        {NONE, 2, 3, 3, 2, 1},          /* w3's withdrawal leaves w2's copy */
        {NONE, 0, NONE, 0, 0, 0},       /* w0 withdrawn, copied or not: a plain upload */
        {NONE, 1, 2, 1, 2, 1},          /* w1 withdrawn from the slot or the queue: w2
                                           copied after it and taken */
    };
    for (size_t si = 0; si < sizeof steps / sizeof steps[0] && kg; si++) {
        if (steps[si].reopen >= 0) {
            const unsigned r = (unsigned)steps[si].reopen;
            cuzk_witness_close(&w[r]);
            CHECK_EQ_INT(cuzk_gen_witness(g, NW + r, &w[r], &err), CUZK_OK);
        }
        const int ann[2] = {steps[si].announce, steps[si].announce2};
        for (int a = 0; a < 2; a++)
            if (ann[a] >= 0)
                CHECK_EQ_INT(cuzk_backend_stage(gpu, kg, &w[ann[a]], &err), CUZK_OK);
        if (steps[si].withdraw != NONE) cuzk_backend_withdraw(gpu, kg, &w[steps[si].withdraw]);
        const cuzk__gpu_backend_upload_counts before = stats_of(gpu);
        prove_both(&f, &w[steps[si].prove]);
        CHECK_EQ_INT(last_witness_staged, steps[si].hit); /* the job says what the counters do */
        const cuzk__gpu_backend_upload_counts now_c = stats_of(gpu), *now = &now_c;
        const uint64_t hits = now->staged_witness - before.staged_witness;
        if ((int)hits != steps[si].hit)
            printf("  step %zu: %llu staged hits\n", si, (unsigned long long)hits);
        CHECK_EQ_INT(hits, steps[si].hit);
        CHECK_EQ_INT(now->unstaged_witness - before.unstaged_witness, !steps[si].hit);
    }
    /* a witness of another shape is refused by name */
    cuzk_witness bad = w[0];
    bad.n_aux -= 1;
    bad.path = "bad.wit";
    CHECK_EQ_INT(cuzk_backend_stage(gpu, kg, &bad, &err), CUZK_ERR_INVALID_ARG);
    CHECK(strstr(err.msg, "bad.wit") != NULL);
    /* released with a copy announced (maybe running): the worker stops first */
    CHECK_EQ_INT(cuzk_backend_stage(gpu, kg, &w[2], &err), CUZK_OK);
    cuzk_backend_release_key(gpu, kg);
    f.kg = NULL;
    for (unsigned i = 0; i < NW; i++) cuzk_witness_close(&w[i]);
    keys_close(&f);
}
static void test_bellman_prestaged(void) { prestaged_case(CUZK__GPU_STAGE_SLOT_OWN); }
static void test_bellman_prestaged_in_abc(void) { prestaged_case(CUZK__GPU_STAGE_SLOT_ABC); }

static size_t device_free(void) {
    size_t fr = 0, tot = 0;
    CHECK_EQ_INT(cuzk__gpu_mem_info(&fr, &tot), CUZK_OK);
    return fr;
}

/* Holds device memory until *free_left bytes are free (chunks of at most
 * 4 GiB, into held[0..*nheld)); *free_left: what is then free. */
static void hold_device(void **held, unsigned *nheld, unsigned max, size_t *free_left) {
    size_t fr = device_free();
    *nheld = 0;
    while (fr > *free_left && *nheld < max) {
        size_t take = fr - *free_left;
        if (take > ((size_t)4 << 30)) take = (size_t)4 << 30;
        if (cuzk__gpu_alloc(&held[*nheld], take) != CUZK_OK) break;
        (*nheld)++;
        fr = device_free();
    }
    *free_left = fr;
}

/* The two fit tests' fixture: a porep 2^18 key (a slot of several of
 * cudaMalloc's 2 MiB pages) and three copies of one partition's witness
 * (separate buffers: the same classification counts in every proof, so the
 * MSMs' plans and the area they reserve do not change from one proof to the
 * next by themselves). */
enum { FIT_NW = 3 };
typedef struct {
    keys_fixture f;
    cuzk_witness w[FIT_NW];
    void *held[64];
    unsigned nheld;
    size_t slot;
} fit_fixture;
/* slot: the hooks' stage_slot for the key */
static void fit_open(fit_fixture *x, int slot) {
    cuzk_error err;
    memset(x, 0, sizeof *x); /* fit_close after a failed check closes only what was made */
    test_hooks.stage_slot = slot;
    keys_open(&x->f, CUZK_GEN_POREP, 18);
    test_hooks.stage_slot = 0;
    for (unsigned i = 0; i < FIT_NW; i++)
        CHECK_EQ_INT(cuzk_gen_witness(x->f.g, 0, &x->w[i], &err), CUZK_OK);
    x->nheld = 0;
    x->slot = (size_t)cuzk_witness_n_vars(&x->w[0]) * 32;
}
/* Device memory held back until 2.5 slots are free (stage_setup short). */
static void fit_squeeze(fit_fixture *x) {
    size_t left = 2 * x->slot + x->slot / 2;
    hold_device(x->held, &x->nheld, 64, &left);
    printf("  held %u blocks: %zu bytes free for a slot of %zu\n", x->nheld, left, x->slot);
    CHECK(left < 3 * x->slot); /* else stage_setup would not be short */
}
static void fit_close(fit_fixture *x) {
    for (unsigned i = 0; i < x->nheld; i++) cuzk__gpu_free(x->held[i]);
    for (unsigned i = 0; i < FIT_NW; i++) cuzk_witness_close(&x->w[i]);
    keys_close(&x->f);
}

/*
 * Too little room for the staging slot beside the MSMs' work area: after
 * the proof that wants the slot, stage_setup lowers the key's level budget
 * (cuzk__gpu_msm_bases_fit_work) and frees the area; the next proof's MSMs
 * reserve it smaller, the slot is made after that proof, and the witness
 * announced is then found staged. The area does not grow back afterwards,
 * and every proof equals the CPU's.
 */
static void test_bellman_staging_fits(void) {
    fit_fixture x;
    fit_open(&x, CUZK__GPU_STAGE_SLOT_OWN);
    cuzk_error err;
    size_t after_slot = 0;
    /* w0 unannounced (the work area at its full size); w2 with w1 announced
     * and device memory held back to 2.5 slots (the fit after it); w0 (the
     * area smaller, the slot made after it, w1 copied); w1 (staged); w0 */
    static const struct {
        int announce, squeeze, fit, hit;
        unsigned prove;
    } steps[] = {{-1, 0, 0, 0, 0}, {1, 1, 1, 0, 2}, {-1, 0, 0, 0, 0}, {-1, 0, 0, 1, 1},
                 {-1, 0, 0, 0, 0}};
    for (size_t si = 0; si < sizeof steps / sizeof steps[0] && x.f.kg; si++) {
        const uint64_t fits = stats_of(&x.f.gpu).level_fits;
        if (steps[si].squeeze) fit_squeeze(&x);
        if (steps[si].announce >= 0)
            CHECK_EQ_INT(cuzk_backend_stage(&x.f.gpu, x.f.kg, &x.w[steps[si].announce], &err),
                         CUZK_OK);
        prove_both(&x.f, &x.w[steps[si].prove]);
        CHECK_EQ_INT(last_witness_staged, steps[si].hit);
        CHECK_EQ_INT(stats_of(&x.f.gpu).level_fits - fits, (uint64_t)steps[si].fit);
        /* the area did not grow back once the slot was made (within two pages:
         * the driver may still load a module lazily) */
        const size_t fr = device_free();
        if (si == 2) after_slot = fr;
        if (si > 2 && fr + ((size_t)4 << 20) < after_slot)
            printf("  step %zu: %zu bytes free, %zu after the slot\n", si, fr, after_slot);
        if (si > 2) CHECK(fr + ((size_t)4 << 20) >= after_slot);
    }
    fit_close(&x);
}

/*
 * A fit that does not make the room: as test_bellman_staging_fits up to the
 * fit, then the look after the next proof finds no room (forced, as if
 * another allocation had taken it: the hooks' room_fail). Staging
 * goes off for the key, the level budgets are put back, and the MSMs' area
 * grows back on the proof after (by at least half a slot: the fit lowered
 * it by at least what was missing, 3 slots less the 2.5 free); a witness
 * announced after that is not staged, and every proof equals the CPU's.
 */
static void test_bellman_staging_fit_undone(void) {
    fit_fixture x;
    fit_open(&x, CUZK__GPU_STAGE_SLOT_OWN);
    cuzk_error err;
    size_t free_fitted = 0, free_small = 0;
    /* w0 unannounced; w2 with w1 announced, squeezed to 2.5 slots (the fit);
     * w0 with the look forced to fail (budgets back, staging off); w0 with w1
     * announced again (the area grows back); w1 (not staged); w0 */
    static const struct {
        int announce, squeeze, fit, restore, room_fail;
        unsigned prove;
    } steps[] = {{-1, 0, 0, 0, 0, 0}, {1, 1, 1, 0, 0, 2}, {-1, 0, 0, 1, 1, 0},
                 {1, 0, 0, 0, 0, 0},  {-1, 0, 0, 0, 0, 1}, {-1, 0, 0, 0, 0, 0}};
    for (size_t si = 0; si < sizeof steps / sizeof steps[0] && x.f.kg; si++) {
        const uint64_t fits = stats_of(&x.f.gpu).level_fits;
        const uint64_t restores = stats_of(&x.f.gpu).level_restores;
        if (steps[si].squeeze) fit_squeeze(&x);
        if (steps[si].announce >= 0)
            CHECK_EQ_INT(cuzk_backend_stage(&x.f.gpu, x.f.kg, &x.w[steps[si].announce], &err),
                         CUZK_OK);
        test_hooks.room_fail = steps[si].room_fail;
        test_hooks.stage_slot = CUZK__GPU_STAGE_SLOT_OWN; /* as the key was opened */
        cuzk__gpu_backend_set_test_hooks(&x.f.gpu, &test_hooks);
        prove_both(&x.f, &x.w[steps[si].prove]);
        test_hooks.room_fail = 0;
        cuzk__gpu_backend_set_test_hooks(&x.f.gpu, &test_hooks);
        test_hooks.stage_slot = 0;
        CHECK_EQ_INT(last_witness_staged, 0);
        CHECK_EQ_INT(stats_of(&x.f.gpu).level_fits - fits, (uint64_t)steps[si].fit);
        CHECK_EQ_INT(stats_of(&x.f.gpu).level_restores - restores,
                     (uint64_t)steps[si].restore);
        const size_t fr = device_free();
        if (si == 1) free_fitted = fr; /* the area freed by the fit */
        if (si == 2) free_small = fr;  /* reserved again under the lowered budgets */
        if (si == 3) {
            printf("  free: %zu after the fit, %zu with the smaller area, %zu with the budgets"
                   " back (slot %zu)\n",
                   free_fitted, free_small, fr, x.slot);
            CHECK(fr + x.slot / 2 <= free_small);
        }
    }
    fit_close(&x);
}

/*
 * Too little room for a slot of its own, with the hooks' default: the slot
 * is b's third of a, b, c (no level fit, no device memory taken), the
 * witness announced is found staged by the proof after the one that made
 * it, and every proof equals the CPU's.
 */
static void test_bellman_staging_in_abc(void) {
    fit_fixture x;
    fit_open(&x, 0);
    cuzk_error err;
    static const struct {
        int announce, squeeze, hit;
        unsigned prove;
    } steps[] = {{-1, 0, 0, 0}, {1, 1, 0, 2}, {2, 0, 1, 1}, {0, 0, 1, 2}, {-1, 0, 1, 0}};
    size_t fr_before = 0;
    for (size_t si = 0; si < sizeof steps / sizeof steps[0] && x.f.kg; si++) {
        const uint64_t fits = stats_of(&x.f.gpu).level_fits;
        if (steps[si].squeeze) fit_squeeze(&x);
        if (si == 1) fr_before = device_free();
        if (steps[si].announce >= 0)
            CHECK_EQ_INT(cuzk_backend_stage(&x.f.gpu, x.f.kg, &x.w[steps[si].announce], &err),
                         CUZK_OK);
        prove_both(&x.f, &x.w[steps[si].prove]);
        CHECK_EQ_INT(last_witness_staged, steps[si].hit);
        CHECK_EQ_INT(stats_of(&x.f.gpu).level_fits - fits, 0);
    }
    /* the slot took no device memory (within two pages: a module loaded lazily) */
    const size_t fr = device_free();
    printf("  free: %zu before the slot, %zu after (slot %zu)\n", fr_before, fr, x.slot);
    CHECK(fr + ((size_t)4 << 20) >= fr_before);
    fit_close(&x);
}

/* The sample snarkjs key: a, b, c and the witness uploaded per proof.
 * test_hooks as set by the caller; expected per proof: pinned and pageable
 * uploads, staged chunks (staged_any: at least one; staged: exactly). */
static void zkey_sample_case(uint64_t pinned, uint64_t pageable, int staged_any, int exact) {
    cuzk_error err;
    snarkjs_sample sm;
    if (!snarkjs_sample_open(&sm, &err)) {
        printf("sample key missing (%s): skipped\n", err.msg);
        return;
    }
    cuzk_backend cpu, gpu;
    CHECK_EQ_INT(cuzk_backend_open(&cpu, &cuzk_backend_cpu, 0, -1, &err), CUZK_OK);
    CHECK_EQ_INT(cuzk_backend_open(&gpu, &cuzk_backend_gpu, 0, cuzk_gpu_test_dev, &err), CUZK_OK);
    cuzk__gpu_backend_set_test_hooks(&gpu, &test_hooks);
    cuzk_backend_key *kc = NULL, *kg = NULL;
    CHECK_EQ_INT(cuzk_backend_prepare_zkey(&cpu, &kc, &sm.zk, &err), CUZK_OK);
    CHECK_EQ_INT(cuzk_backend_prepare_zkey(&gpu, &kg, &sm.zk, &err), CUZK_OK);
    for (int rep = 0; rep < 3 && kg; rep++) {
        uint64_t r[4], s[4];
        cuzk_test_rand_scalar(r);
        cuzk_test_rand_scalar(s);
        cuzk_groth16_proof pc, pg;
        CHECK_EQ_INT(prove_with(&cpu, kc, &sm.w, r, s, &pc, NULL, &err), CUZK_OK);
        const cuzk__gpu_backend_upload_counts before = stats_of(&gpu);
        cuzk_status st = prove_with(&gpu, kg, &sm.w, r, s, &pg, NULL, &err);
        if (st != CUZK_OK) printf("gpu prove: %s\n", err.msg);
        CHECK_EQ_INT(st, CUZK_OK);
        CHECK_MEM(&pg, &pc, sizeof pc);
        /* exact: a, b, c (3 N values) and the witness, both staged */
        check_uploads(&gpu, &before, pinned, pageable, staged_any,
                      exact ? chunks_of(3 * (uint64_t)sm.zk.domain_size * 32) +
                                  chunks_of(cuzk_witness_n_vars(&sm.w) * 32)
                            : 0);
    }
    cuzk_backend_release_key(&gpu, kg);
    cuzk_backend_release_key(&cpu, kc);
    last_stats = stats_of(&gpu);
    cuzk_backend_close(&gpu);
    cuzk_backend_close(&cpu);
    snarkjs_sample_close(&sm);
}

static void test_zkey_sample(void) {
    /* a, b, c built in page-locked memory, the witness staged */
    zkey_sample_case(1, 0, 1, 0);
    /* a, b, c in pageable memory too: both staged in 4000-byte chunks */
    const size_t saved = test_hooks.stage_bytes;
    test_hooks.stage_bytes = 4000;
    test_hooks.pin_fail = CUZK__GPU_PIN_FAIL_ABC;
    zkey_sample_case(0, 0, 1, 1);
    /* no page-locked memory at all: two plain copies */
    test_hooks.pin_fail = CUZK__GPU_PIN_FAIL_ABC | CUZK__GPU_PIN_FAIL_STAGE;
    zkey_sample_case(0, 2, 0, 0);
    test_hooks.pin_fail = 0;
    test_hooks.stage_bytes = saved;
}

/*
 * Shifted copies of H's and L's bases made after a key's first proof
 * (key_copies; the cost model has them pay for a handle's own size at 2^14
 * too, where its calls read them): the later proofs still equal the CPU's,
 * bellman and snarkjs keys alike.
 */
static void test_copies(void) {
    const unsigned after = test_hooks.copies_after, most = test_hooks.copies_max;
    test_hooks.copies_after = 1;
    test_hooks.copies_max = 4;
    bellman_case(CUZK_GEN_POREP, 14, 3, UP_STAGED);
    const uint64_t bellman = last_stats.copies;
    zkey_sample_case(1, 0, 1, 0);
    const uint64_t zkey = last_stats.copies;
    printf("  copies made: bellman 2^14 %llu, snarkjs sample %llu\n", (unsigned long long)bellman,
           (unsigned long long)zkey);
    /* H's at least: its MSM has all of its points (typically 4 for the
     * bellman key, whose L MSMs have too few points to read them; 8 for the
     * sample, H's and C's) */
    CHECK(bellman >= 2);
    CHECK(zkey >= 2);
    /* a key that is never asked makes none */
    test_hooks.copies_after = 0;
    bellman_case(CUZK_GEN_POREP, 12, 2, UP_STAGED);
    CHECK_EQ_INT(last_stats.copies, 0);
    test_hooks.copies_after = after;
    test_hooks.copies_max = most;
}

int main(int argc, char **argv) {
    cuzk_test_init(argc, argv);
    int need = cuzk_gpu_test_need_device(argc, argv);
    if (need != 0) return need;
    RUN(test_zkey_sample);
    RUN(test_bellman_small);
    RUN(test_bellman_2_16);
    RUN(test_bellman_small_chunks);
    RUN(test_bellman_pinned_witness);
    RUN(test_bellman_no_staging);
    RUN(test_bellman_deferred);
    RUN(test_bellman_deferred_early);
    RUN(test_bellman_deferred_bad_points);
    RUN(test_bellman_early_release);
    RUN(test_bellman_prestaged);
    RUN(test_bellman_prestaged_in_abc);
    RUN(test_bellman_staging_fits);
    RUN(test_bellman_staging_fit_undone);
    RUN(test_bellman_staging_in_abc);
    RUN(test_copies);
    return cuzk_test_finish();
}
