/*
 * The memory planner's streaming modes on a GPU (src/gpu/plan.h,
 * gpu_msm_stream.h, backend_gpu_stream.c), against the CPU:
 *   - the page-locked host-to-device copy rate, measured once and printed
 *     (with the pageable rate beside it);
 *   - streamed MSMs and batch-adds over host bases (G1 up to 2^16 points,
 *     G2 up to 2^14) in chunks of 128, 1984 and 10880 G1 points (64, 960,
 *     5440 G2), n from 1 to past many chunks, host and device scalars and
 *     masks, equal to the CPU's as points; a scalar >= 2^255 refused; the
 *     chunks counted; the first chunks sent ahead (prefetch) used by the
 *     call they were sent for, and ignored by another;
 *   - a pass over bases on the device (a kept vector's) in pieces of a
 *     chunk where the work area cannot hold one call over them all, in one
 *     piece where it can, the same points either way;
 *   - every mode of the GPU backend forced by a vram limit (the smallest
 *     limit that gives it, found by the plan op): resident, partly
 *     resident (H alone streamed, and the fewest vectors kept; the kept
 *     ones summed in one piece or in pieces), streaming, and streaming with a, b, c made on
 *     the CPU (the circuit's lists alone on the device, the witness and
 *     gathered queries in a, b, c's later thirds): proofs bit for bit equal
 *     to the CPU backend's with the same r, s for porep, dense and sha circuits, parameters in
 *     memory and deferred from a file (prepare and prepare_early), chunks
 *     of 12 KiB (many a vector) and the planner's own, page-locked and
 *     pageable host copies, a snarkjs zkey; a limit below the streaming
 *     minimum refused at prepare naming the plan; the streamed chunks
 *     counted only in the streaming modes;
 *   - the API: a key under a limit too small goes to the CPU with AUTO and
 *     is refused with GPU; under a streaming limit it proves on the GPU
 *     (self-checked) and its lane logs the plan.
 * Exits 77 without a device unless CUZK_GPU_REQUIRED=1. --quick: G1 only,
 * fewer sizes, one circuit a mode.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "circuit/gen.h"
#include "cuzk.h"
#include "ec/g1.h"
#include "ec/g2.h"
#include "ff/fr.h"
#include "gpu/backend_gpu.h"
#include "gpu/gpu.h"
#include "gpu/gpu_msm_stream.h"
#include "gpu/plan.h"
#include "gpu_fixture.h"
#include "gpu_test.h"
#include "groth16/backend.h"
#include "groth16/proof192.h"
#include "groth16/setup.h"
#include "harness.h"
#include "io/wtns.h"
#include "msm/msm.h"

static int quick;

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* ---- the copy rate ---------------------------------------------------------------- */

/* Median GB/s of 5 synchronous uploads of bytes from src into dev. */
static double upload_rate(void *dev, const void *src, size_t bytes) {
    double ms[5];
    if (cuzk__gpu_upload(dev, src, bytes) != CUZK_OK) return 0; /* warm-up */
    for (int r = 0; r < 5; r++) {
        const double t0 = now_ms();
        if (cuzk__gpu_upload(dev, src, bytes) != CUZK_OK) return 0;
        ms[r] = now_ms() - t0;
    }
    qsort(ms, 5, sizeof ms[0], cmp_double);
    return (double)bytes / (ms[2] * 1e6);
}

/* What a streamed chunk can reach: a page-locked 256 MiB buffer uploaded
 * whole (and, beside it, the same from pageable memory). */
static void test_copy_rate(void) {
    const size_t bytes = (size_t)256 << 20;
    void *pinned = NULL, *dev = NULL;
    CHECK_EQ_INT(cuzk__gpu_host_alloc(&pinned, bytes), CUZK_OK);
    CHECK_EQ_INT(cuzk__gpu_alloc(&dev, bytes), CUZK_OK);
    char *pageable = malloc(bytes);
    CHECK(pageable != NULL);
    if (pinned && dev && pageable) {
        memset(pinned, 0x5a, bytes);
        memset(pageable, 0x5a, bytes);
        const double rp = upload_rate(dev, pinned, bytes), rq = upload_rate(dev, pageable, bytes);
        printf("  host-to-device copy of 256 MiB (median of 5): page-locked %.2f GB/s, "
               "pageable %.2f GB/s\n",
               rp, rq);
        CHECK(rp > 0.0);
    }
    free(pageable);
    cuzk__gpu_free(dev);
    cuzk__gpu_host_free(pinned);
}

/* ---- streamed MSMs -------------------------------------------------------------- */

/* A device copy of words 64-bit words (NULL on failure). */
static uint64_t *on_device(const uint64_t *src, size_t words) {
    uint64_t *d = NULL;
    if (cuzk__gpu_alloc((void **)&d, words * 8) != CUZK_OK) return NULL;
    if (cuzk__gpu_upload(d, src, words * 8) != CUZK_OK) {
        cuzk__gpu_free(d);
        return NULL;
    }
    return d;
}

/* The chunk sizes the streamed MSMs run with: one unit (128 G1 / 64 G2
 * points), an odd size (1984 / 960) and 1 MiB (10880 / 5440). */
static const size_t chunk_sizes[] = {CUZK__GPU_MSM_STREAM_MIN_CHUNK, 1000 * 192, (size_t)1 << 20};
#define N_CHUNKS (sizeof chunk_sizes / sizeof chunk_sizes[0])

/* Streamed calls over the first n host bases (page-locked) against the CPU's
 * results for the same scalars, mask and bitmap, on streamers of every
 * chunk size; scalars and masks on the host and on the device. */
#define STREAM_CHECKS(g, GG)                                                                  \
    static void g##_stream_case(cuzk__gpu_msm_streamer *const *ss, const void *hb,             \
                                const cuzk_##g##_aff *bases, size_t n, size_t avail) {        \
        uint64_t(*k)[4] = malloc(n * 32);                                                     \
        const size_t words = cuzk_msm_bitmap_words(n);                                        \
        uint64_t *mask = calloc(words, 8), *bits = calloc(words, 8);                          \
        CHECK(k && mask && bits);                                                             \
        if (!k || !mask || !bits) goto out;                                                   \
        for (size_t i = 0; i < n; i++) {                                                      \
            cuzk_test_rand_scalar(k[i]);                                                      \
            if (cuzk_test_rand64() % 2) mask[i / 64] |= (uint64_t)1 << (i % 64);              \
            if (cuzk_test_rand64() % 3 == 0) bits[i / 64] |= (uint64_t)1 << (i % 64);         \
        }                                                                                     \
        cuzk_##g##_jac want_all, want_mask, want_bits, got;                                   \
        CHECK(cuzk_##g##_msm_var(&want_all, bases, (const uint64_t(*)[4])k, n, NULL, 0, NULL) == \
              CUZK_OK);                                                                       \
        CHECK(cuzk_##g##_msm_var(&want_mask, bases, (const uint64_t(*)[4])k, n, mask, 0,      \
                                 NULL) == CUZK_OK);                                           \
        CHECK(cuzk_##g##_batch_add_var(&want_bits, bases, n, bits, 0, NULL) == CUZK_OK);       \
        uint64_t *dk = on_device((const uint64_t *)k, 4 * n), *dm = on_device(mask, words);    \
        uint64_t *db = on_device(bits, words);                                                \
        CHECK(dk && dm && db);                                                                \
        for (size_t c = 0; c < N_CHUNKS && dk && dm && db; c++) {                             \
            cuzk__gpu_msm_streamer *s = ss[c];                                                \
            const size_t per = cuzk__gpu_msm_streamer_chunk_points(s, GG);                    \
            cuzk__gpu_msm_stream_stats b0, b1;                                                \
            cuzk__gpu_msm_streamer_stats(s, &b0);                                             \
            struct {                                                                          \
                const uint64_t *sc, *m;                                                       \
                int batch;                                                                    \
                const cuzk_##g##_jac *want;                                                   \
                const char *what;                                                             \
            } calls[] = {                                                                     \
                {(const uint64_t *)k, NULL, 0, &want_all, "host scalars"},                    \
                {dk, NULL, 0, &want_all, "device scalars"},                                   \
                {(const uint64_t *)k, mask, 0, &want_mask, "host mask"},                      \
                {dk, dm, 0, &want_mask, "device scalars and mask"},                           \
                {NULL, bits, 1, &want_bits, "batch-add, host bitmap"},                        \
                {NULL, db, 1, &want_bits, "batch-add, device bitmap"},                        \
            };                                                                                \
            const size_t nc = sizeof calls / sizeof calls[0];                                 \
            for (size_t q = 0; q < nc; q++) {                                                 \
                memset(&got, 0x5a, sizeof got);                                               \
                const cuzk_status st =                                                        \
                    calls[q].batch                                                            \
                        ? cuzk__gpu_msm_streamed_split(s, GG, hb, (uint64_t *)&got, NULL,     \
                                                       NULL, n, calls[q].m, NULL)             \
                        : cuzk__gpu_msm_streamed_split(s, GG, hb, NULL, (uint64_t *)&got,     \
                                                       calls[q].sc, n, NULL, calls[q].m);     \
                if (st != CUZK_OK) printf("  %s: %s\n", calls[q].what, cuzk__gpu_last_error()); \
                const int ok = st == CUZK_OK && g##_same(&got, calls[q].want);                \
                if (!ok)                                                                      \
                    printf("  %s n=%zu chunk of %zu points, %s: GPU and CPU differ\n", #g, n,  \
                           per, calls[q].what);                                               \
                CHECK(ok);                                                                    \
            }                                                                                 \
            cuzk__gpu_msm_streamer_stats(s, &b1);                                             \
            CHECK_EQ_INT(b1.chunks - b0.chunks, nc * ((n + per - 1) / per));                   \
            CHECK_EQ_INT(b1.bytes - b0.bytes, nc * n * sizeof(cuzk_##g##_aff));               \
            /* both halves in one pass: each chunk sent once, the same two points */         \
            cuzk_##g##_jac got_ones;                                                          \
            memset(&got, 0x5a, sizeof got);                                                   \
            memset(&got_ones, 0x5a, sizeof got_ones);                                         \
            CHECK_EQ_INT(cuzk__gpu_msm_streamed_split(s, GG, hb, (uint64_t *)&got_ones,         \
                                                      (uint64_t *)&got, dk, n, db, dm),       \
                         CUZK_OK);                                                            \
            CHECK(g##_same(&got_ones, &want_bits) && g##_same(&got, &want_mask));             \
            cuzk__gpu_msm_stream_stats b2;                                                    \
            cuzk__gpu_msm_streamer_stats(s, &b2);                                             \
            CHECK_EQ_INT(b2.chunks - b1.chunks, (n + per - 1) / per);                          \
            CHECK_EQ_INT(b2.bytes - b1.bytes, n * sizeof(cuzk_##g##_aff));                    \
            memset(&got, 0x5a, sizeof got); /* one half alone */                              \
            CHECK_EQ_INT(cuzk__gpu_msm_streamed_split(s, GG, hb, NULL, (uint64_t *)&got,        \
                                                      (const uint64_t *)k, n, NULL, mask),    \
                         CUZK_OK);                                                            \
            CHECK(g##_same(&got, &want_mask));                                                \
            /* sent ahead, then the call (the buffers first filled with other    \
             * points, 64 on): the same point, no chunk sent twice */                        \
            const size_t nch = (n + per - 1) / per, pre = nch < 2 ? nch : 2;                  \
            const char *other = (const char *)hb + 64 * sizeof(cuzk_##g##_aff);               \
            if (n + 64 <= avail) {                                                            \
                cuzk__gpu_msm_stream_stats b3, b4;                                            \
                CHECK_EQ_INT(cuzk__gpu_msm_streamed_split(s, GG, other, (uint64_t *)&got,      \
                                                          NULL, NULL, n, NULL, NULL),         \
                             CUZK_OK);                                                        \
                cuzk__gpu_msm_streamer_stats(s, &b3);                                         \
                CHECK_EQ_INT(cuzk__gpu_msm_streamer_prefetch(s, GG, hb, n), CUZK_OK);          \
                CHECK_EQ_INT(cuzk__gpu_msm_streamer_prefetch(s, GG, hb, n), CUZK_OK); /* none */ \
                memset(&got, 0x5a, sizeof got);                                               \
                CHECK_EQ_INT(cuzk__gpu_msm_streamed_split(s, GG, hb, NULL, (uint64_t *)&got,   \
                                                          dk, n, NULL, dm),                   \
                             CUZK_OK);                                                        \
                CHECK(g##_same(&got, &want_mask));                                            \
                cuzk__gpu_msm_streamer_stats(s, &b4);                                         \
                CHECK_EQ_INT(b4.chunks - b3.chunks, nch);                                     \
                /* sent ahead for another call (other points): this one sends its own */     \
                CHECK_EQ_INT(cuzk__gpu_msm_streamer_prefetch(s, GG, other, n), CUZK_OK);       \
                memset(&got, 0x5a, sizeof got);                                               \
                CHECK_EQ_INT(cuzk__gpu_msm_streamed_split(s, GG, hb, (uint64_t *)&got, NULL,   \
                                                          NULL, n, db, NULL),                 \
                             CUZK_OK);                                                        \
                CHECK(g##_same(&got, &want_bits));                                            \
                cuzk__gpu_msm_streamer_stats(s, &b3);                                         \
                CHECK_EQ_INT(b3.chunks - b4.chunks, pre + nch);                               \
            }                                                                                 \
        }                                                                                     \
        /* a participating scalar >= 2^255 is refused, in any chunk */                        \
        k[n - 1][3] |= (uint64_t)1 << 63;                                                     \
        CHECK_EQ_INT(cuzk__gpu_msm_streamed_split(ss[0], GG, hb, NULL, (uint64_t *)&got,      \
                                                  (const uint64_t *)k, n, NULL, NULL),        \
                     CUZK_ERR_INVALID_ARG);                                                   \
        cuzk__gpu_free(dk);                                                                   \
        cuzk__gpu_free(dm);                                                                   \
        cuzk__gpu_free(db);                                                                   \
    out:                                                                                      \
        free(k);                                                                              \
        free(mask);                                                                           \
        free(bits);                                                                           \
    }                                                                                         \
    static void test_##g##_streamed(void) {                                                   \
        const size_t nmax = GG == CUZK__GPU_MSM_G1 ? (size_t)1 << 16 : (size_t)1 << 14;        \
        cuzk_##g##_aff *bases = g##_walk(nmax);                                               \
        void *hb = NULL;                                                                      \
        cuzk__gpu_msm_streamer *ss[N_CHUNKS] = {NULL};                                        \
        CHECK(bases != NULL);                                                                 \
        CHECK_EQ_INT(cuzk__gpu_host_alloc(&hb, nmax * sizeof *bases), CUZK_OK);                \
        for (size_t c = 0; c < N_CHUNKS; c++) {                                               \
            const cuzk_status st = cuzk__gpu_msm_streamer_new(&ss[c], chunk_sizes[c], NULL);  \
            if (st != CUZK_OK) printf("  streamer: %s\n", cuzk__gpu_last_error());             \
            CHECK_EQ_INT(st, CUZK_OK);                                                        \
        }                                                                                     \
        if (bases && hb && ss[0] && ss[1] && ss[2]) {                                         \
            memcpy(hb, bases, nmax * sizeof *bases);                                          \
            static const size_t ns[] = {1, 63, 64, 65, 1000, 20000, 65536};                   \
            for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {                           \
                if (ns[i] > nmax || (quick && i % 2 == 1)) continue;                          \
                g##_stream_case(ss, hb, bases, ns[i], nmax);                                  \
            }                                                                                 \
            /* pageable host bases: the same results at the driver's rate */                  \
            g##_stream_case(ss, bases, bases, nmax < 5000 ? nmax : 5000, nmax);               \
        }                                                                                     \
        /* refusals: no scalars, a chunk below one unit */                                    \
        uint64_t r[36];                                                                       \
        CHECK_EQ_INT(cuzk__gpu_msm_streamed_split(ss[0], GG, hb, NULL, r, NULL, 10, NULL,     \
                                                  NULL),                                      \
                     CUZK_ERR_INVALID_ARG);                                                   \
        cuzk__gpu_msm_streamer *tiny = NULL;                                                  \
        CHECK_EQ_INT(cuzk__gpu_msm_streamer_new(&tiny, CUZK__GPU_MSM_STREAM_MIN_CHUNK - 1, NULL), \
                     CUZK_ERR_INVALID_ARG);                                                   \
        for (size_t c = 0; c < N_CHUNKS; c++) cuzk__gpu_msm_streamer_free(ss[c]);             \
        cuzk__gpu_host_free(hb);                                                              \
        free(bases);                                                                          \
    }
STREAM_CHECKS(g1, CUZK__GPU_MSM_G1)
STREAM_CHECKS(g2, CUZK__GPU_MSM_G2)

/* A pass over points on the device (a kept vector's): in pieces of a chunk
 * where the work area as it stands cannot hold one call over them all (a
 * streamer whose area holds nothing yet), in one piece where it can (one
 * sharing the area of a resident call over all of them, and a sparse tail
 * on an area one chunk's call has grown, as a proof's tails find it),
 * the area never grown by the one piece; nothing copied, the CPU's points
 * either way. */
static void test_g1_pieces(void) {
    const size_t n = 20000, words = cuzk_msm_bitmap_words(n);
    cuzk_g1_aff *bases = g1_walk(n);
    uint64_t(*k)[4] = malloc(n * 32);
    uint64_t *mask = calloc(words, 8), *bits = calloc(words, 8), *sparse = calloc(words, 8);
    CHECK(bases && k && mask && bits && sparse);
    if (!bases || !k || !mask || !bits || !sparse) goto out;
    for (size_t i = 0; i < n; i++) {
        cuzk_test_rand_scalar(k[i]);
        if (cuzk_test_rand64() % 2) mask[i / 64] |= (uint64_t)1 << (i % 64);
        if (cuzk_test_rand64() % 3 == 0) bits[i / 64] |= (uint64_t)1 << (i % 64);
        if (i % 37 == 0) sparse[i / 64] |= (uint64_t)1 << (i % 64);
    }
    cuzk_g1_jac want_mask, want_bits, want_sparse, got, got_ones;
    CHECK(cuzk_g1_msm_var(&want_mask, bases, (const uint64_t(*)[4])k, n, mask, 0, NULL) ==
          CUZK_OK);
    CHECK(cuzk_g1_msm_var(&want_sparse, bases, (const uint64_t(*)[4])k, n, sparse, 0, NULL) ==
          CUZK_OK);
    CHECK(cuzk_g1_batch_add_var(&want_bits, bases, n, bits, 0, NULL) == CUZK_OK);
    uint64_t *db = on_device(bits, words), *dm = on_device(mask, words);
    uint64_t *ds = on_device(sparse, words);
    uint64_t *dk = on_device((const uint64_t *)k, 4 * n);
    cuzk__gpu_msm_bases *res = NULL;
    CHECK_EQ_INT(cuzk__gpu_msm_bases_upload(&res, CUZK__GPU_MSM_G1, (const uint64_t *)bases, n),
                 CUZK_OK);
    CHECK(db && dm && dk && ds && res);
    if (db && dm && dk && ds && res) {
        uint64_t r[18];
        CHECK_EQ_INT(cuzk__gpu_msm(res, r, dk, n, NULL), CUZK_OK); /* its area: all n points */
        const size_t chunk = 8 * CUZK__GPU_MSM_STREAM_MIN_CHUNK; /* 1024 G1 points */
        /* 0: an empty area; 1: the resident call's; 2: one chunk's call's, a sparse tail */
        for (int c = 0; c < 3; c++) {
            cuzk__gpu_msm_streamer *s = NULL;
            CHECK_EQ_INT(cuzk__gpu_msm_streamer_new(&s, chunk, c == 1 ? res : NULL), CUZK_OK);
            if (s == NULL) continue;
            cuzk__gpu_msm_bases *view = cuzk__gpu_msm_streamer_view(s, CUZK__GPU_MSM_G1);
            const size_t per = cuzk__gpu_msm_streamer_chunk_points(s, CUZK__GPU_MSM_G1);
            if (c == 2)
                CHECK_EQ_INT(cuzk__gpu_msm_streamed_split(s, CUZK__GPU_MSM_G1, bases, NULL,
                                                          r, dk, per, NULL, NULL),
                             CUZK_OK);
            const uint64_t *const m = c == 2 ? ds : dm;
            const cuzk_g1_jac *const want = c == 2 ? &want_sparse : &want_mask;
            const size_t area = cuzk__gpu_msm_bases_work_bytes(view);
            cuzk__gpu_msm_stream_stats b0, b1;
            cuzk__gpu_msm_streamer_stats(s, &b0);
            memset(&got, 0x5a, sizeof got);
            memset(&got_ones, 0x5a, sizeof got_ones);
            CHECK_EQ_INT(cuzk__gpu_msm_pieces_split(s, CUZK__GPU_MSM_G1,
                                                    cuzk__gpu_msm_bases_at(res, 0),
                                                    (uint64_t *)&got_ones, (uint64_t *)&got, dk,
                                                    n, db, m),
                         CUZK_OK);
            CHECK(g1_same(&got_ones, &want_bits) && g1_same(&got, want));
            cuzk__gpu_msm_streamer_stats(s, &b1);
            CHECK_EQ_INT(b1.whole - b0.whole, c != 0);
            CHECK_EQ_INT(b1.chunks - b0.chunks, 0);
            if (c != 0) CHECK(cuzk__gpu_msm_bases_work_bytes(view) == area);
            /* the view back on its chunk buffer */
            CHECK(cuzk__gpu_msm_bases_count(view) == per);
            cuzk__gpu_msm_streamer_free(s);
        }
    }
    cuzk__gpu_msm_bases_free(res);
    cuzk__gpu_free(db);
    cuzk__gpu_free(dm);
    cuzk__gpu_free(dk);
    cuzk__gpu_free(ds);
out:
    free(bases);
    free(k);
    free(mask);
    free(bits);
    free(sparse);
}

/* ---- the backend's modes ------------------------------------------------------------ */

static cuzk__gpu_backend_hooks hooks = CUZK__GPU_BACKEND_HOOKS_DEFAULT;

/* The plan of a key (c and p, or zk) on gpu under limit. */
static cuzk__plan plan_at(cuzk_backend *gpu, uint64_t limit, const cuzk_circuit *c,
                          const cuzk_params *p, const cuzk_zkey *zk) {
    cuzk__plan plan;
    cuzk_error err;
    gpu->vram_limit = limit;
    const cuzk_status st = cuzk_backend_plan(gpu, &plan, c, p, zk, &err);
    if (st != CUZK_OK) printf("  plan: %s\n", err.msg);
    CHECK_EQ_INT(st, CUZK_OK);
    if (st != CUZK_OK) plan.mode = CUZK__PLAN_CPU;
    return plan;
}

/* A plan's place in the order the limit walks as it grows: the CPU, a, b,
 * c made on the CPU (streaming or partly resident), streaming, partly
 * resident, resident. */
enum { TIER_RESIDENT = 0, TIER_PARTLY = 2, TIER_STREAMING = 4, TIER_CPU_ABC = 5, TIER_CPU = 6 };
static int tier_of(const cuzk__plan *p) { return p->abc_on_cpu ? TIER_CPU_ABC : 2 * (int)p->mode; }

/* The smallest limit (to 4 KiB) whose plan is tier want or one before it;
 * with h_only, partly resident that streams H alone (every classified
 * vector kept) or more resident. */
static uint64_t limit_for(cuzk_backend *gpu, int want, int h_only, const cuzk_circuit *c,
                          const cuzk_params *p, const cuzk_zkey *zk) {
    uint64_t lo = (uint64_t)1 << 20, hi = (uint64_t)1 << 44; /* lo: no mode fits; hi: resident */
    while (hi - lo > 4096) {
        const uint64_t mid = lo + (hi - lo) / 2;
        const cuzk__plan pl = plan_at(gpu, mid, c, p, zk);
        const int t = tier_of(&pl);
        if (t < want || (t == want && (!h_only || (pl.streamed & 0x1eu) == 0)))
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}

typedef enum { SRC_MEMORY, SRC_DEFERRED, SRC_DEFERRED_EARLY } params_src;
static const char *const src_names[] = {"in memory", "deferred", "deferred, early"};

/* The streamed chunks and bytes of instance be so far. */
static uint64_t streamed_chunks(const cuzk_backend *be) {
    cuzk__gpu_backend_upload_counts c;
    cuzk__gpu_backend_stats(be, &c);
    return c.streamed_chunks;
}
static uint64_t staged_witnesses(const cuzk_backend *be) {
    cuzk__gpu_backend_upload_counts c;
    cuzk__gpu_backend_stats(be, &c);
    return c.staged_witness;
}

/* One proof of w on both backends with the same r, s: the bytes equal. */
static void prove_both(cuzk_backend *cpu, cuzk_backend_key *kc, cuzk_backend *gpu,
                       cuzk_backend_key *kg, const cuzk_witness *w, const cuzk_groth16_vk *vk,
                       cuzk_groth16_stage_times *tg) {
    uint64_t r[4], s[4];
    cuzk_test_rand_scalar(r);
    cuzk_test_rand_scalar(s);
    cuzk_groth16_proof pc, pg;
    cuzk_error err;
    cuzk_backend_job *job = NULL;
    CHECK_EQ_INT(cuzk_backend_prove_start(cpu, &job, kc, w, &err), CUZK_OK);
    CHECK_EQ_INT(cuzk_backend_prove_finish(cpu, &pc, job, r, s, &err), CUZK_OK);
    cuzk_backend_release_job(cpu, job);
    job = NULL;
    cuzk_status st = cuzk_backend_prove_start(gpu, &job, kg, w, &err);
    if (st == CUZK_OK) {
        *tg = *cuzk_backend_job_times(job);
        st = cuzk_backend_prove_finish(gpu, &pg, job, r, s, &err);
    }
    if (st != CUZK_OK) printf("  gpu prove: %s\n", err.msg);
    CHECK_EQ_INT(st, CUZK_OK);
    cuzk_backend_release_job(gpu, job);
    if (st != CUZK_OK) return;
    uint8_t bc[CUZK_PROOF192_BYTES], bg[CUZK_PROOF192_BYTES];
    cuzk_proof192_encode(bc, &pc);
    cuzk_proof192_encode(bg, &pg);
    CHECK_MEM(bg, bc, sizeof bc);
    if (vk != NULL)
        CHECK_EQ_INT(cuzk_groth16_verify(vk, (const uint64_t(*)[4])(w->values + 4),
                                         (size_t)w->n_inputs - 1, &pg, &err),
                     CUZK_OK);
}

/*
 * A generated circuit proved in every mode its key can take on this card,
 * each forced by the smallest vram limit that gives it, three partitions a
 * mode, against the CPU backend, each announced for pre-staging before the
 * proof ahead of it (where the witness fits b's third of a, b, c, found
 * staged from the second on: in a slot of its own or, short of room, in
 * that third; a plan whose witness lives there stages nothing); then a
 * limit below streaming's least.
 */
static void modes_case(cuzk_gen_profile profile, unsigned log_k, params_src src) {
    cuzk_error err;
    cuzk_gen *g = NULL;
    cuzk_gen_params gp = {profile, log_k, -1.0, cuzk_test_rand64(), 0};
    CHECK_EQ_INT(cuzk_gen_new(&g, &gp, &err), CUZK_OK);
    if (g == NULL) return;
    const cuzk_circuit *c = cuzk_gen_circuit(g);
    cuzk_params p, pd;
    memset(&p, 0, sizeof p);
    memset(&pd, 0, sizeof pd);
    char path[64] = "";
    cuzk_setup_toxic tw;
    toxic_fixed(&tw);
    CHECK_EQ_INT(cuzk_groth16_setup_dev(&p, c, &tw, 0, &err), CUZK_OK);
    const cuzk_params *gp_params = &p;
    if (src != SRC_MEMORY) {
        snprintf(path, sizeof path, "/tmp/cuzk_gpu_stream_%d.params", (int)getpid());
        CHECK_EQ_INT(cuzk_params_write(path, &p, CUZK_PARAMS_PARALLEL, &err), CUZK_OK);
        CHECK_EQ_INT(cuzk_params_open(&pd, path, CUZK_PARAMS_DEFER_POINTS, &err), CUZK_OK);
        gp_params = &pd;
    }
    cuzk_groth16_vk vk;
    CHECK_EQ_INT(cuzk_groth16_vk_from_params(&vk, &p.vk, &err), CUZK_OK);
    cuzk_backend cpu, gpu;
    cuzk_backend_key *kc = NULL;
    CHECK_EQ_INT(cuzk_backend_open(&cpu, &cuzk_backend_cpu, 0, -1, &err), CUZK_OK);
    CHECK_EQ_INT(cuzk_backend_open(&gpu, &cuzk_backend_gpu, 0, cuzk_gpu_test_dev, &err), CUZK_OK);
    cuzk__gpu_backend_set_test_hooks(&gpu, &hooks);
    CHECK_EQ_INT(cuzk_backend_prepare(&cpu, &kc, c, &p, &err), CUZK_OK);
    /* partly resident twice: H alone streamed, and the fewest kept; last, a,
     * b, c made on the CPU, where the witness fits a third of them */
    static const int tiers[] = {TIER_RESIDENT, TIER_PARTLY, TIER_PARTLY, TIER_STREAMING,
                                TIER_CPU_ABC};
    static const int h_only[] = {0, 1, 0, 0, 0};
    const size_t n_tiers = cuzk_circuit_n_vars(c) <= c->domain_size ? 5 : 4;
    for (size_t mi = 0; mi < n_tiers && kc; mi++) {
        const uint64_t limit = limit_for(&gpu, tiers[mi], h_only[mi], c, gp_params, NULL);
        const cuzk__plan plan = plan_at(&gpu, limit, c, gp_params, NULL);
        printf("  %s 2^%u, parameters %s, chunks of at most %zu bytes, limit %llu: %s\n",
               cuzk_gen_profile_name(profile), log_k, src_names[src], hooks.chunk_bytes,
               (unsigned long long)limit, plan.reason);
        /* with chunks of a few units every mode is reachable for these keys */
        if (hooks.chunk_bytes != 0) CHECK_EQ_INT(tier_of(&plan), tiers[mi]);
        if (hooks.chunk_bytes != 0 && h_only[mi]) CHECK_EQ_INT(plan.streamed & 0x1eu, 0);
        if (tier_of(&plan) != tiers[mi]) continue;
        gpu.vram_limit = limit;
        cuzk_backend_key *kg = NULL;
        const uint64_t at_prepare = streamed_chunks(&gpu);
        const cuzk_status st = src == SRC_DEFERRED_EARLY
                                   ? cuzk_backend_prepare_early(&gpu, &kg, c, gp_params, &err)
                                   : cuzk_backend_prepare(&gpu, &kg, c, gp_params, &err);
        if (st != CUZK_OK) printf("  prepare: %s\n", err.msg);
        CHECK_EQ_INT(st, CUZK_OK);
        if (st != CUZK_OK) continue;
        /* deferred streamed vectors are decoded through the chunks at prepare */
        if (src != SRC_MEMORY && plan.mode != CUZK__PLAN_RESIDENT)
            CHECK(streamed_chunks(&gpu) > at_prepare);
        enum { PARTS = 3 };
        cuzk_witness w[PARTS];
        for (unsigned part = 0; part < PARTS; part++)
            CHECK_EQ_INT(cuzk_gen_witness(g, part, &w[part], &err), CUZK_OK);
        for (unsigned part = 0; part < PARTS; part++) {
            if (part + 1 < PARTS)
                CHECK_EQ_INT(cuzk_backend_stage(&gpu, kg, &w[part + 1], &err), CUZK_OK);
            const uint64_t before = streamed_chunks(&gpu), staged0 = staged_witnesses(&gpu);
            cuzk_groth16_stage_times tg;
            memset(&tg, 0, sizeof tg);
            prove_both(&cpu, kc, &gpu, kg, &w[part], &vk, &tg);
            const uint64_t chunks = streamed_chunks(&gpu) - before;
            const uint64_t staged = staged_witnesses(&gpu) - staged0;
            CHECK((chunks > 0) == (plan.mode != CUZK__PLAN_RESIDENT));
            if (n_tiers == 5) /* b's third can hold a witness: a slot in every plan */
                CHECK_EQ_INT(staged, (uint64_t)(part > 0 && !plan.abc_on_cpu));
            printf("    partition %u: %s%s, %llu chunks streamed, witness %s; gpu %.1f ms "
                   "(msm_h %.2f batch %.2f tail %.2f g2 %.2f)\n",
                   part, cuzk__plan_mode_name(plan.mode),
                   plan.abc_on_cpu ? " (a, b, c on the CPU)" : "", (unsigned long long)chunks,
                   staged ? "staged" : "uploaded", tg.total_ms, tg.msm_h_ms, tg.batch_add_ms,
                   tg.tail_msm_ms, tg.b_g2_msm_ms);
        }
        cuzk_backend_release_key(&gpu, kg);
        for (unsigned part = 0; part < PARTS; part++) cuzk_witness_close(&w[part]);
    }
    /* below streaming's least: refused, naming the plan */
    gpu.vram_limit = (uint64_t)1 << 20;
    cuzk_backend_key *kg = NULL;
    CHECK_EQ_INT(cuzk_backend_prepare(&gpu, &kg, c, gp_params, &err), CUZK_ERR_DEVICE_NOMEM);
    CHECK(strstr(err.msg, "cpu: not even streaming fits") != NULL);
    CHECK(kg == NULL);
    cuzk_backend_release_key(&cpu, kc);
    cuzk_backend_close(&gpu);
    cuzk_backend_close(&cpu);
    cuzk_groth16_vk_free(&vk);
    if (src != SRC_MEMORY) {
        cuzk_params_close(&pd);
        unlink(path);
    }
    cuzk_params_close(&p);
    cuzk_gen_free(g);
}

/* Chunks of one unit and of a few: many a vector. */
static void test_modes_small_chunks(void) {
    hooks.chunk_bytes = 64 * 192;
    modes_case(CUZK_GEN_POREP, 12, SRC_MEMORY);
    if (!quick) {
        modes_case(CUZK_GEN_DENSE, 10, SRC_MEMORY);
        modes_case(CUZK_GEN_SHA, 12, SRC_MEMORY);
        hooks.chunk_bytes = 5 * 64 * 192;
        modes_case(CUZK_GEN_POREP, 14, SRC_MEMORY);
    }
    hooks.chunk_bytes = 0;
}

/* Deferred parameters: streamed vectors decoded through the chunk buffers
 * at prepare (runs of one chunk), resident H loaded beside (early). */
static void test_modes_deferred(void) {
    hooks.chunk_bytes = 3 * 64 * 192;
    modes_case(CUZK_GEN_POREP, 12, SRC_DEFERRED);
    modes_case(CUZK_GEN_DENSE, 11, SRC_DEFERRED_EARLY);
    hooks.chunk_bytes = 0;
}

/* No page-locked memory for the streamed vectors: the parameters' own
 * points, or pageable copies of deferred ones, stream at the driver's rate. */
static void test_modes_pageable(void) {
    hooks.chunk_bytes = 64 * 192;
    hooks.pin_fail = CUZK__GPU_PIN_FAIL_STREAM;
    modes_case(CUZK_GEN_POREP, 11, SRC_MEMORY);
    modes_case(CUZK_GEN_POREP, 11, SRC_DEFERRED);
    hooks.pin_fail = 0;
    hooks.chunk_bytes = 0;
}

/* The planner's own chunks (12 MiB at least, or a whole vector): one
 * chunk a vector of these keys; the modes it reaches. */
static void test_modes_own_chunks(void) { modes_case(CUZK_GEN_POREP, 16, SRC_MEMORY); }

/* The committed snarkjs sample, streamed: equal to the CPU in each mode. */
static void test_modes_zkey(void) {
    cuzk_error err;
    snarkjs_sample sm;
    if (!snarkjs_sample_open(&sm, &err)) {
        printf("  sample key missing (%s): failing\n", err.msg);
        CHECK(0);
        return;
    }
    cuzk_backend cpu, gpu;
    CHECK_EQ_INT(cuzk_backend_open(&cpu, &cuzk_backend_cpu, 0, -1, &err), CUZK_OK);
    CHECK_EQ_INT(cuzk_backend_open(&gpu, &cuzk_backend_gpu, 0, cuzk_gpu_test_dev, &err), CUZK_OK);
    hooks.chunk_bytes = 64 * 192;
    cuzk__gpu_backend_set_test_hooks(&gpu, &hooks);
    cuzk_backend_key *kc = NULL;
    CHECK_EQ_INT(cuzk_backend_prepare_zkey(&cpu, &kc, &sm.zk, &err), CUZK_OK);
    static const cuzk__plan_mode modes[] = {CUZK__PLAN_RESIDENT, CUZK__PLAN_PARTLY_RESIDENT,
                                            CUZK__PLAN_STREAMING};
    for (size_t mi = 0; mi < 3 && kc; mi++) {
        const uint64_t limit = limit_for(&gpu, 2 * (int)modes[mi], 0, NULL, NULL, &sm.zk);
        const cuzk__plan plan = plan_at(&gpu, limit, NULL, NULL, &sm.zk);
        printf("  zkey sample, limit %llu: %s\n", (unsigned long long)limit, plan.reason);
        /* the sample's vectors are a few points: partly resident may cost as
         * much as streaming; the modes reached are proved */
        if (plan.mode != modes[mi]) continue;
        gpu.vram_limit = limit;
        cuzk_backend_key *kg = NULL;
        const cuzk_status st = cuzk_backend_prepare_zkey(&gpu, &kg, &sm.zk, &err);
        if (st != CUZK_OK) printf("  prepare: %s\n", err.msg);
        CHECK_EQ_INT(st, CUZK_OK);
        if (st != CUZK_OK) continue;
        cuzk_groth16_stage_times tg;
        for (int rep = 0; rep < 2; rep++) prove_both(&cpu, kc, &gpu, kg, &sm.w, NULL, &tg);
        cuzk_backend_release_key(&gpu, kg);
    }
    hooks.chunk_bytes = 0;
    cuzk_backend_release_key(&cpu, kc);
    cuzk_backend_close(&gpu);
    cuzk_backend_close(&cpu);
    snarkjs_sample_close(&sm);
}

/* ---- the API ---------------------------------------------------------------------- */

static char log_seen[4096];
static void log_keep(void *user, const char *line) {
    (void)user;
    if (strlen(log_seen) + strlen(line) + 2 < sizeof log_seen) {
        strcat(log_seen, line);
        strcat(log_seen, "\n");
    }
}

/* A generated porep 2^12 circuit's files for the API (paths named by tag
 * and the process: the circuit, its parameters from a development setup, a
 * witness of partition 0), the parameters kept in *p; 0 after a failed
 * check. api_files_remove unlinks them. */
typedef struct {
    char circuit[64], params[64], witness[64];
} api_paths;
static int api_files(cuzk_gen **g, api_paths *ap, const char *tag, cuzk_params *p) {
    cuzk_error err;
    cuzk_gen_params gp = {CUZK_GEN_POREP, 12, -1.0, cuzk_test_rand64(), 0};
    memset(p, 0, sizeof *p);
    *g = NULL;
    CHECK_EQ_INT(cuzk_gen_new(g, &gp, &err), CUZK_OK);
    if (*g == NULL) return 0;
    snprintf(ap->circuit, sizeof ap->circuit, "/tmp/cuzk_gpu_%s_%d.cuzk", tag, (int)getpid());
    snprintf(ap->params, sizeof ap->params, "/tmp/cuzk_gpu_%s_%d.params", tag, (int)getpid());
    snprintf(ap->witness, sizeof ap->witness, "/tmp/cuzk_gpu_%s_%d.wit", tag, (int)getpid());
    cuzk_witness w;
    CHECK_EQ_INT(cuzk_circuit_write(cuzk_gen_circuit(*g), ap->circuit, &err), CUZK_OK);
    CHECK_EQ_INT(cuzk_groth16_setup_dev(p, cuzk_gen_circuit(*g), NULL, 0, &err), CUZK_OK);
    CHECK_EQ_INT(cuzk_params_write(ap->params, p, CUZK_PARAMS_PARALLEL, &err), CUZK_OK);
    CHECK_EQ_INT(cuzk_gen_witness(*g, 0, &w, &err), CUZK_OK);
    CHECK_EQ_INT(cuzk_witness_write(&w, ap->witness, &err), CUZK_OK);
    cuzk_witness_close(&w);
    return 1;
}
/* A context on the test device (the backend, a device memory limit, 0:
 * none) logging into log_seen (cleared), and the key of ap's files opened
 * in it: cuzk_key_open_params's status (*ctx NULL: the context's). */
static cuzk_status api_open(cuzk_backend_kind backend, uint64_t limit, const api_paths *ap,
                            cuzk_context **ctx, cuzk_key **key, cuzk_error *err) {
    cuzk_options opt;
    cuzk_options_init(&opt);
    opt.backend = backend;
    opt.auto_gpu_min_log = 0;
    opt.device_memory_limit = limit;
    opt.devices[0] = cuzk_gpu_test_dev;
    opt.n_devices = 1;
    opt.log = log_keep;
    log_seen[0] = '\0';
    *ctx = NULL;
    *key = NULL;
    const cuzk_status st = cuzk_context_create(ctx, &opt, err);
    CHECK_EQ_INT(st, CUZK_OK);
    if (st != CUZK_OK) return st;
    return cuzk_key_open_params(*ctx, key, ap->circuit, ap->params, err);
}

static void api_files_remove(const api_paths *ap) {
    unlink(ap->circuit);
    unlink(ap->params);
    unlink(ap->witness);
}

/*
 * Keys opened through the API (src/api/key.c) under device_memory_limit: a
 * limit below streaming's least sends an AUTO key to the CPU and refuses a
 * GPU one naming the plan; a limit in the streaming mode proves on the GPU
 * (checked by the self-check) and the lane logs its plan.
 */
static void test_api_limits(void) {
    cuzk_error err;
    cuzk_gen *g;
    api_paths ap;
    cuzk_params p;
    if (!api_files(&g, &ap, "limits", &p)) return;
    const char *wp = ap.witness;
    /* the least limit of this key on the GPU with the backend's own chunks */
    cuzk_params pd;
    memset(&pd, 0, sizeof pd);
    CHECK_EQ_INT(cuzk_params_open(&pd, ap.params, CUZK_PARAMS_DEFER_POINTS, &err), CUZK_OK);
    cuzk_backend gpu;
    CHECK_EQ_INT(cuzk_backend_open(&gpu, &cuzk_backend_gpu, 0, cuzk_gpu_test_dev, &err), CUZK_OK);
    const uint64_t stream_limit =
        limit_for(&gpu, TIER_CPU_ABC, 0, cuzk_gen_circuit(g), &pd, NULL);
    const cuzk__plan_mode stream_mode =
        plan_at(&gpu, stream_limit, cuzk_gen_circuit(g), &pd, NULL).mode;
    cuzk_backend_close(&gpu);
    cuzk_params_close(&pd);
    static const struct {
        cuzk_backend_kind backend;
        int streaming; /* else 1 MiB */
        cuzk_status want;
        cuzk_backend_kind chosen;
    } cases[] = {
        {CUZK_BACKEND_AUTO, 0, CUZK_OK, CUZK_BACKEND_CPU},
        {CUZK_BACKEND_GPU, 0, CUZK_ERR_DEVICE_NOMEM, CUZK_BACKEND_GPU},
        {CUZK_BACKEND_GPU, 1, CUZK_OK, CUZK_BACKEND_GPU},
        {CUZK_BACKEND_AUTO, 1, CUZK_OK, CUZK_BACKEND_GPU},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cuzk_context *ctx;
        cuzk_key *key;
        const cuzk_status st =
            api_open(cases[i].backend, cases[i].streaming ? stream_limit : (uint64_t)1 << 20, &ap,
                     &ctx, &key, &err);
        if (st != cases[i].want) printf("  case %zu: %s\n", i, err.msg);
        CHECK_EQ_INT(st, cases[i].want);
        if (st != CUZK_OK) {
            char want[64];
            snprintf(want, sizeof want, "GPU %d: cpu: not even streaming fits", cuzk_gpu_test_dev);
            CHECK(strstr(err.msg, want) != NULL);
        } else {
            cuzk_key_info info;
            cuzk_key_get_info(key, &info);
            CHECK_EQ_INT(info.backend, cases[i].chosen);
            cuzk_proof proof;
            const cuzk_witness_input in = {.path = wp};
            const cuzk_status ps = cuzk_prove(key, &proof, NULL, NULL, &in, &err);
            if (ps != CUZK_OK) printf("  case %zu prove: %s\n", i, err.msg);
            CHECK_EQ_INT(ps, CUZK_OK);
            if (cases[i].chosen == CUZK_BACKEND_GPU) {
                char want[64];
                snprintf(want, sizeof want, "GPU %d: %s:", cuzk_gpu_test_dev,
                         cuzk__plan_mode_name(stream_mode));
                printf("  case %zu log: %s", i, log_seen);
                CHECK(strstr(log_seen, want) != NULL);
            }
        }
        cuzk_key_release(key);
        cuzk_context_destroy(ctx);
    }
    CHECK_EQ_INT(stream_mode, CUZK__PLAN_STREAMING);
    api_files_remove(&ap);
    cuzk_params_close(&p);
    cuzk_gen_free(g);
}

/*
 * A circuit key (whose witness fits a third of a, b, c: the key offers a,
 * b, c made on the CPU) whose lane runs out of device memory in one proof
 * of each job (injected): the engine steps it down a rung a job, resident
 * to partly resident, streaming, the same two with a, b, c on the CPU,
 * then the CPU, and every job completes with proofs the self-check passed.
 */
static void test_api_ladder(void) {
    cuzk_error err;
    cuzk_gen *g;
    api_paths ap;
    cuzk_params p;
    if (!api_files(&g, &ap, "ladder", &p)) return;
    CHECK(cuzk_circuit_n_vars(cuzk_gen_circuit(g)) <= cuzk_gen_circuit(g)->domain_size);
    const char *wp = ap.witness;
    cuzk_context *ctx;
    cuzk_key *key;
    CHECK_EQ_INT(api_open(CUZK_BACKEND_GPU, 0, &ap, &ctx, &key, &err), CUZK_OK);
    static const char *const then[] = {
        "it proves with no plan above partly resident from now on",
        "it proves with no plan above streaming from now on",
        "it proves with no plan above partly resident with a, b, c on the CPU from now on",
        "it proves with no plan above streaming with a, b, c on the CPU from now on",
        "it proves on the CPU from now on"};
    static const char *const stages[] = {"ntt", "msm_h", "batch_add", "tail_msm", "b_g2_msm"};
    for (int step = 0; step < 5 && key != NULL; step++) {
        cuzk_engine_options o;
        cuzk_engine_options_init(&o);
        o.fault_stage = stages[cuzk_test_rand64() % 5];
        o.fault_nth = 1 + (unsigned)(cuzk_test_rand64() % 2);
        o.fault_status = CUZK_ERR_DEVICE_NOMEM;
        cuzk_engine *e = NULL;
        CHECK_EQ_INT(cuzk_engine_create(&e, ctx, &o, &err), CUZK_OK);
        if (e == NULL) break;
        cuzk_witness_input in[4];
        for (int i = 0; i < 4; i++) in[i] = (cuzk_witness_input){.path = wp};
        uint64_t id = 0;
        cuzk_proof proofs[4];
        cuzk_status st = cuzk_engine_submit(e, &id, key, in, 4, CUZK_PRIORITY_NORMAL, NULL, -1,
                                            &err);
        if (st == CUZK_OK) st = cuzk_engine_await(e, id, -1, proofs, NULL, NULL, &err);
        if (st != CUZK_OK) printf("  step %d (%s): %s\n", step, o.fault_stage, err.msg);
        CHECK_EQ_INT(st, CUZK_OK);
        cuzk_engine_stats es;
        cuzk_engine_get_stats(e, &es);
        CHECK(es.lane_step_downs == 1 && es.proofs == 4 && es.verified == 4);
        cuzk_engine_destroy(e);
        const int said = strstr(log_seen, then[step]) != NULL;
        CHECK(said);
        if (!said) printf("  step %d: no \"%s\" in the log:\n%s", step, then[step], log_seen);
    }
    printf("  %s", log_seen);
    cuzk_key_release(key);
    cuzk_context_destroy(ctx);
    api_files_remove(&ap);
    cuzk_params_close(&p);
    cuzk_gen_free(g);
}

int main(int argc, char **argv) {
    cuzk_test_init(argc, argv);
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--quick") == 0) quick = 1;
    const int need = cuzk_gpu_test_need_device(argc, argv);
    if (need != 0) return need;
    RUN(test_copy_rate);
    RUN(test_g1_streamed);
    if (!quick) RUN(test_g2_streamed);
    RUN(test_g1_pieces);
    RUN(test_modes_small_chunks);
    RUN(test_modes_deferred);
    RUN(test_modes_pageable);
    if (!quick) RUN(test_modes_own_chunks);
    RUN(test_modes_zkey);
    RUN(test_api_ladder);
    RUN(test_api_limits);
    return cuzk_test_finish();
}
