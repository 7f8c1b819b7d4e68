/*
 * msm_stream.cu — MSMs over bases in host memory (gpu_msm_stream.h): two
 * device chunk buffers filled on a copy stream of their own, each chunk's
 * MSM or batch-add on a view handle of its buffer, the sums added on the
 * host; and the same pass over bases on the device with nothing copied,
 * in one piece where its calls fit the work area, else in pieces of a
 * chunk. VARIABLE TIME (public data, as the CPU MSM).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/check.cuh"
#include "gpu/gpu_msm_stream.h"

/* The host's group additions (src/ec/g1.c, g2.c) on Jacobian words. */
extern "C" {
void cuzk_g1_jac_add_var(void *r, const void *a, const void *b);
void cuzk_g2_jac_add_var(void *r, const void *a, const void *b);
}

struct cuzk__gpu_msm_streamer {
    void *buf[2];              /* the chunk buffers, chunk_bytes each */
    size_t chunk_bytes;
    size_t per[2];             /* points a chunk holds: G1, G2 */
    cuzk__gpu_msm_bases *view[2]; /* G1, G2: handles over a chunk buffer */
    cudaStream_t cs;           /* the copy stream (beside the legacy stream's kernels) */
    cudaEvent_t copied[2], used[2]; /* buffer b's upload done; its last MSM's kernels done */
    cudaEvent_t t0[2], t1[2];  /* buffer b's upload timed */
    cuzk__gpu_msm_stream_stats stats;
    /* what cuzk__gpu_msm_streamer_prefetch sent ahead: the first pf_have
     * chunks of a call over pf_n points at pf_bases in group pf_g */
    const void *pf_bases;
    size_t pf_n, pf_have;
    int pf_g;
};

static int gi(cuzk__gpu_msm_group g) { return g == CUZK__GPU_MSM_G2 ? 1 : 0; }
static size_t point_bytes(cuzk__gpu_msm_group g) { return g == CUZK__GPU_MSM_G2 ? 192 : 96; }
static size_t jac_words(cuzk__gpu_msm_group g) { return g == CUZK__GPU_MSM_G2 ? 36 : 18; }

extern "C" void cuzk__gpu_msm_streamer_free(cuzk__gpu_msm_streamer *s) {
    if (s == nullptr) return;
    if (s->cs) {
        (void)cudaStreamSynchronize(s->cs); /* no copy may outlive its buffer */
        (void)cudaStreamDestroy(s->cs);
    }
    for (int b = 0; b < 2; b++) {
        cudaEvent_t *evs[4] = {&s->copied[b], &s->used[b], &s->t0[b], &s->t1[b]};
        for (int e = 0; e < 4; e++)
            if (*evs[e]) (void)cudaEventDestroy(*evs[e]);
        cuzk__gpu_msm_bases_free(s->view[b]); /* views: the buffers stay */
    }
    for (int b = 0; b < 2; b++)
        if (s->buf[b]) (void)cudaFree(s->buf[b]);
    free(s);
}

static cuzk_status streamer_make(cuzk__gpu_msm_streamer *s, cuzk__gpu_msm_bases *work) {
    /* the buffers are the large allocation: checked against free memory */
    size_t free_b = 0, total_b = 0;
    CUZK__CUDA_TRY(cudaMemGetInfo(&free_b, &total_b));
    if (free_b / 2 < s->chunk_bytes) {
        char what[128];
        snprintf(what, sizeof what, "two chunk buffers of %zu bytes, %zu bytes free",
                 s->chunk_bytes, free_b);
        cuzk__gpu_record_error(cudaErrorMemoryAllocation, what, __FILE__, __LINE__);
        return CUZK_ERR_DEVICE_NOMEM;
    }
    for (int b = 0; b < 2; b++) CUZK__CUDA_TRY(cudaMalloc(&s->buf[b], s->chunk_bytes));
    CUZK__CUDA_TRY(cudaStreamCreateWithFlags(&s->cs, cudaStreamNonBlocking));
    for (int b = 0; b < 2; b++) {
        CUZK__CUDA_TRY(cudaEventCreateWithFlags(&s->copied[b], cudaEventDisableTiming));
        CUZK__CUDA_TRY(cudaEventCreateWithFlags(&s->used[b], cudaEventDisableTiming));
        CUZK__CUDA_TRY(cudaEventCreate(&s->t0[b]));
        CUZK__CUDA_TRY(cudaEventCreate(&s->t1[b]));
    }
    const cuzk__gpu_msm_group groups[2] = {CUZK__GPU_MSM_G1, CUZK__GPU_MSM_G2};
    for (int g = 0; g < 2; g++) {
        s->per[g] = s->chunk_bytes / point_bytes(groups[g]) / 64 * 64;
        const cuzk_status st =
            cuzk__gpu_msm_bases_view(&s->view[g], groups[g], s->buf[0], s->per[g]);
        if (st != CUZK_OK) return st;
    }
    cuzk__gpu_msm_bases_share_work(s->view[1], s->view[0]);
    if (work != nullptr) {
        cuzk__gpu_msm_bases_share_work(s->view[0], work);
        cuzk__gpu_msm_bases_share_work(s->view[1], work);
    }
    return CUZK_OK;
}

extern "C" cuzk_status cuzk__gpu_msm_streamer_new(cuzk__gpu_msm_streamer **out,
                                                  size_t chunk_bytes,
                                                  cuzk__gpu_msm_bases *work) {
    if (out == nullptr || chunk_bytes < CUZK__GPU_MSM_STREAM_MIN_CHUNK) return CUZK_ERR_INVALID_ARG;
    *out = nullptr;
    cuzk__gpu_msm_streamer *s =
        static_cast<cuzk__gpu_msm_streamer *>(calloc(1, sizeof(cuzk__gpu_msm_streamer)));
    if (s == nullptr) return CUZK_ERR_NOMEM;
    s->chunk_bytes = chunk_bytes;
    const cuzk_status st = streamer_make(s, work);
    if (st != CUZK_OK) {
        cuzk__gpu_msm_streamer_free(s);
        return st;
    }
    *out = s;
    return CUZK_OK;
}

extern "C" cuzk__gpu_msm_bases *cuzk__gpu_msm_streamer_view(cuzk__gpu_msm_streamer *s,
                                                            cuzk__gpu_msm_group group) {
    return s ? s->view[gi(group)] : nullptr;
}

extern "C" size_t cuzk__gpu_msm_streamer_chunk_points(const cuzk__gpu_msm_streamer *s,
                                                      cuzk__gpu_msm_group group) {
    return s ? s->per[gi(group)] : 0;
}

extern "C" void cuzk__gpu_msm_streamer_stats(const cuzk__gpu_msm_streamer *s,
                                             cuzk__gpu_msm_stream_stats *out) {
    if (s)
        *out = s->stats;
    else
        memset(out, 0, sizeof(*out));
}

/* Chunk i's upload (points [i per, ...) of n) into buffer i % 2, after the
 * kernels of the chunk that last read that buffer. */
static cuzk_status upload_chunk(cuzk__gpu_msm_streamer *s, const char *bases, size_t pb,
                                size_t per, size_t n, size_t i) {
    const int b = (int)(i & 1);
    const size_t first = i * per, cnt = n - first < per ? n - first : per;
    CUZK__CUDA_TRY(cudaStreamWaitEvent(s->cs, s->used[b], 0));
    CUZK__CUDA_TRY(cudaEventRecord(s->t0[b], s->cs));
    CUZK__CUDA_TRY(cudaMemcpyAsync(s->buf[b], bases + first * pb, cnt * pb,
                                   cudaMemcpyHostToDevice, s->cs));
    CUZK__CUDA_TRY(cudaEventRecord(s->t1[b], s->cs));
    CUZK__CUDA_TRY(cudaEventRecord(s->copied[b], s->cs));
    s->stats.bytes += cnt * pb;
    s->stats.chunks++;
    return CUZK_OK;
}

/* What one call computes over its chunks: into ones_result (NULL: not
 * computed) the batch-add of the bases whose ones bit is set (ones NULL:
 * all), into others_result (NULL: not computed) the MSM of the scalars
 * masked by others (others NULL: all), each chunk uploaded once for both. */
typedef struct {
    int on_device; /* the bases are on the device already: pieces, no copies */
    uint64_t *ones_result, *others_result;
    const uint64_t *ones, *others, *scalars;
} pass;

static void add_into(cuzk__gpu_msm_group group, uint64_t *acc, const uint64_t *part) {
    if (group == CUZK__GPU_MSM_G2)
        cuzk_g2_jac_add_var(acc, acc, part);
    else
        cuzk_g1_jac_add_var(acc, acc, part);
}

/* The chunks of one call, each's batch-add and MSM on its buffer, summed. */
static cuzk_status streamed_body(cuzk__gpu_msm_streamer *s, cuzk__gpu_msm_group group,
                                 const void *bases, size_t n, const pass *p) {
    const int g = gi(group);
    const size_t pb = point_bytes(group);
    const char *host = static_cast<const char *>(bases);
    cuzk__gpu_msm_bases *v = s->view[g];
    uint64_t part[36];
    const int up = !p->on_device;
    size_t per = s->per[g];
    /* bases on the device in one piece where its calls fit the work area as
     * it stands: a classified tail needs room for the points that take part,
     * which the plan reckoned as a whole chunk's (every call in pieces of a
     * chunk costs each piece a call's fixed work) */
    if (!up && n > per &&
        cuzk__gpu_msm_bases_retarget(v, const_cast<char *>(host), n) == CUZK_OK) {
        int whole = 0;
        const cuzk_status st = cuzk__gpu_msm_split_fits(
            v, n, p->ones_result != nullptr, p->ones, p->others_result != nullptr, p->scalars,
            p->others, &whole);
        if (st != CUZK_OK) return st;
        if (whole) per = n;
        s->stats.whole += whole != 0;
    }
    const size_t nch = (n + per - 1) / per;
    /* chunks a prefetch of this very call sent ahead are not sent again */
    size_t have = 0;
    if (up) {
        if (s->pf_bases == bases && s->pf_n == n && s->pf_g == g) have = s->pf_have;
        s->pf_bases = nullptr;
    }
    cuzk_status st = up && have == 0 ? upload_chunk(s, host, pb, per, n, 0) : CUZK_OK;
    for (size_t i = 0; i < nch && st == CUZK_OK; i++) {
        /* the next chunk goes up while this one's kernels run */
        if (up && i + 1 < nch && i + 1 >= have &&
            (st = upload_chunk(s, host, pb, per, n, i + 1)) != CUZK_OK)
            break;
        const int b = (int)(i & 1);
        const size_t first = i * per, cnt = n - first < per ? n - first : per;
        if (up) CUZK__CUDA_TRY(cudaStreamWaitEvent(0, s->copied[b], 0)); /* the legacy stream */
        void *at = up ? s->buf[b] : const_cast<char *>(host) + first * pb;
        if ((st = cuzk__gpu_msm_bases_retarget(v, at, cnt)) != CUZK_OK) break;
        /* first % 64 == 0: a chunk's bitmap starts on a word */
        if (p->ones_result) {
            const uint64_t *m = p->ones ? p->ones + first / 64 : nullptr;
            if ((st = cuzk__gpu_msm_batch_add(v, part, cnt, m)) != CUZK_OK) break;
            add_into(group, p->ones_result, part);
        }
        if (p->others_result) {
            const uint64_t *m = p->others ? p->others + first / 64 : nullptr;
            if ((st = cuzk__gpu_msm(v, part, p->scalars + 4 * first, cnt, m)) != CUZK_OK) break;
            add_into(group, p->others_result, part);
        }
        if (!up) continue;
        CUZK__CUDA_TRY(cudaEventRecord(s->used[b], 0));
        /* the chunk's kernels waited for its upload: its clocks are set */
        float ms = 0;
        if (cudaEventElapsedTime(&ms, s->t0[b], s->t1[b]) == cudaSuccess)
            s->stats.copy_ms += ms;
        else
            (void)cudaGetLastError();
    }
    return st;
}

/* A call's frame: the results infinity, the arguments checked, the chunks,
 * and no copy left in flight (the caller may free its host bases). */
static cuzk_status streamed(cuzk__gpu_msm_streamer *s, cuzk__gpu_msm_group group,
                            const void *bases, size_t n, const pass *p) {
    if (s == nullptr || (p->others_result && n != 0 && p->scalars == nullptr) ||
        (n != 0 && bases == nullptr) || (group != CUZK__GPU_MSM_G1 && group != CUZK__GPU_MSM_G2))
        return CUZK_ERR_INVALID_ARG;
    if (p->ones_result) memset(p->ones_result, 0, jac_words(group) * 8); /* infinity */
    if (p->others_result) memset(p->others_result, 0, jac_words(group) * 8);
    if (n == 0 || (!p->ones_result && !p->others_result)) return CUZK_OK;
    cuzk_status st = streamed_body(s, group, bases, n, p);
    /* the view back on its chunk buffer: nothing later may take a kept
     * vector's memory for the buffer's (the deferred decode writes there) */
    const int g = gi(group);
    if (p->on_device && s->per[g] != 0) {
        const cuzk_status rt = cuzk__gpu_msm_bases_retarget(s->view[g], s->buf[0], s->per[g]);
        if (st == CUZK_OK) st = rt;
    }
    const cudaError_t e = cudaStreamSynchronize(s->cs);
    if (st != CUZK_OK) return st;
    if (e != cudaSuccess) {
        cuzk__gpu_record_error(e, "cudaStreamSynchronize(copy stream)", __FILE__, __LINE__);
        return CUZK_ERR_GPU;
    }
    return CUZK_OK;
}

extern "C" cuzk_status cuzk__gpu_msm_streamer_prefetch(cuzk__gpu_msm_streamer *s,
                                                       cuzk__gpu_msm_group group,
                                                       const void *bases, size_t n) {
    if (s == nullptr || (group != CUZK__GPU_MSM_G1 && group != CUZK__GPU_MSM_G2))
        return CUZK_ERR_INVALID_ARG;
    const int g = gi(group);
    if (bases != nullptr && s->pf_bases == bases && s->pf_n == n && s->pf_g == g)
        return CUZK_OK; /* sent ahead already (two kept vectors before it) */
    s->pf_bases = nullptr;
    if (bases == nullptr || n == 0) return CUZK_OK;
    const size_t pb = point_bytes(group), per = s->per[g];
    const size_t nch = (n + per - 1) / per, ahead = nch < 2 ? nch : 2;
    const char *host = static_cast<const char *>(bases);
    for (size_t i = 0; i < ahead; i++) {
        const cuzk_status st = upload_chunk(s, host, pb, per, n, i);
        if (st != CUZK_OK) return st; /* nothing counts as sent ahead */
    }
    s->pf_bases = bases;
    s->pf_n = n;
    s->pf_g = g;
    s->pf_have = ahead;
    return CUZK_OK;
}

/* Both halves in one pass, over host bases (streamed) or device ones (pieces). */
static cuzk_status split_pass(cuzk__gpu_msm_streamer *s, cuzk__gpu_msm_group group,
                              const void *bases, int on_device, uint64_t *ones, uint64_t *others,
                              const uint64_t *scalars, size_t n, const uint64_t *bm_one,
                              const uint64_t *bm_other) {
    const pass p = {on_device, ones, others, bm_one, bm_other, scalars};
    return streamed(s, group, bases, n, &p);
}

extern "C" cuzk_status cuzk__gpu_msm_streamed_split(cuzk__gpu_msm_streamer *s,
                                                    cuzk__gpu_msm_group group, const void *bases,
                                                    uint64_t *ones, uint64_t *others,
                                                    const uint64_t *scalars, size_t n,
                                                    const uint64_t *bm_one,
                                                    const uint64_t *bm_other) {
    return split_pass(s, group, bases, 0, ones, others, scalars, n, bm_one, bm_other);
}

extern "C" cuzk_status cuzk__gpu_msm_pieces_split(cuzk__gpu_msm_streamer *s,
                                                  cuzk__gpu_msm_group group, const void *bases,
                                                  uint64_t *ones, uint64_t *others,
                                                  const uint64_t *scalars, size_t n,
                                                  const uint64_t *bm_one,
                                                  const uint64_t *bm_other) {
    return split_pass(s, group, bases, 1, ones, others, scalars, n, bm_one, bm_other);
}
