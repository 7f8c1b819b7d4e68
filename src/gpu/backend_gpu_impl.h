/*
 * backend_gpu_impl.h — what the GPU backend's files (backend_gpu*.c) share:
 * the instance and key structures and the entry points each file gives the
 * others. Not a public header: only backend_gpu*.c include it.
 *   backend_gpu.c        the instance (open, close, hooks, counts) and the
 *                        ops table
 *   backend_gpu_key.c    a key: preparation, the resident data, release,
 *                        the shifted copies of a key that keeps proving
 *   backend_gpu_load.c   the deferred vectors' loader (file -> device)
 *   backend_gpu_stage.c  uploads through the staging buffers, and the
 *                        pre-staging of announced witnesses
 *   backend_gpu_prove.c  one proof
 *   backend_gpu_plan.c   the memory plan of a key (plan.h) and the device
 *                        memory a key may still use under its limit
 *   backend_gpu_stream.c the vectors a plan streams from host memory, and
 *                        a proof's MSMs over a vector wherever it lives
 */
#ifndef CUZK_BACKEND_GPU_IMPL_H
#define CUZK_BACKEND_GPU_IMPL_H

#include <pthread.h>
#include <stdint.h>
#include <time.h>

#include "gpu/backend_gpu.h"
#include "util/clock.h"
#include "util/fault.h"
#include "gpu/gpu.h"
#include "gpu/gpu_circuit.h"
#include "gpu/gpu_msm.h"
#include "gpu/gpu_msm_stream.h"
#include "gpu/gpu_ntt.h"
#include "gpu/plan.h"

typedef unsigned long long ull;

/* An instance (be->impl): its hooks and counts, read and counted by its keys. */
typedef struct {
    cuzk__gpu_backend_hooks hooks;
    cuzk__gpu_backend_upload_counts stats;
} gpu_backend;

static inline void count_uploads(uint64_t *counter, uint64_t n) {
    __atomic_fetch_add(counter, n, __ATOMIC_RELAXED);
}

/* Bytes of a classification bitmap of bits bits on the device (a spare
 * word: the kernels may read one past the last); work_alloc's size and the
 * planner's. */
static inline uint64_t cuzk__gpu_bitmap_bytes(uint64_t bits) { return ((bits + 63) / 64 + 1) * 8; }

/* A failed call's error: the device's words for CUZK_ERR_GPU and
 * CUZK_ERR_DEVICE_NOMEM. */
static inline cuzk_status gpu_fail(cuzk_error *err, cuzk_status st, const char *what) {
    return cuzk__fail(err, st, "GPU: %s: %s", what, cuzk__gpu_status_text(st));
}

/* Announcements a key keeps (cuzk_backend_stage); a fifth drops the oldest. */
#define STAGE_QUEUE 4

typedef struct {
    cuzk_backend_key base; /* first member: the pointer handed out */
    gpu_backend *inst;     /* the instance that prepared the key (outlives it) */
    int device;
    /* the memory plan the key follows (plan.h), the instance's limit it was
     * made under, and the device bytes the limit hides (free memory at
     * prepare past the limit): every later look at free memory subtracts
     * them (cuzk__gpu_key_mem), so a large card acts as a small one */
    cuzk__plan plan;
    uint64_t vram_limit;
    size_t hidden;
    /* the vectors the plan streams (plan.streamed): their points in host
     * memory (sv_host: the key's own copy sv_own, page-locked when
     * sv_pinned, or the caller's points: page-locked in place when
     * sv_registered, as they are when the host refused both), and
     * the streamer that sums them chunk by chunk (backend_gpu_stream.c) */
    const void *sv_host[5];
    void *sv_own[5];
    int sv_pinned[5];
    int sv_registered[5];
    cuzk__gpu_msm_streamer *streamer;
    unsigned threads; /* CPU threads for the staging copies (0 = all) */
    /* borrowed */
    const cuzk_circuit *c;
    const cuzk_params *p;
    const cuzk_zkey *zk;
    /* resident */
    cuzk__gpu_circuit *gc;     /* bellman keys */
    cuzk__gpu_ntt_domain *dom;
    cuzk__gpu_msm_bases *h, *l, *a, *b1, *b2; /* zkey: l holds section C */
    uint64_t n_vars, n_h, n_dom;
    uint64_t l_first; /* first variable of the L (or C) query */
    uint64_t max_query;
    /* work area, one proof at a time (lock) */
    pthread_mutex_t lock;
    void *w_plain, *w_mont, *abc;
    void *gath; /* a gathered query's scalars: w_mont's buffer (dead after the SpMV) */
    /* a plan with a, b, c made on the CPU (plan.abc_on_cpu): no w_mont; the
     * witness (w_plain) and the gathered queries (gath) take abc's second
     * and third thirds, which the NTTs have finished with; two host buffers
     * of a, b, c, so that one proof makes its own on the CPU while another
     * proof's go up (cab_mu and cab_cv guard cab_busy, a bit a buffer);
     * cab_cq, a queue beside the kernels: b's and c's copies run beside the
     * transforms of a and b, the witness's beside the H MSM (NULL: in line) */
    int w_in_abc;
    cuzk__gpu_copy_queue *cab_cq;
    cuzk_fr *cab_host[2];
    int cab_pinned[2];
    unsigned cab_busy;
    pthread_mutex_t cab_mu;
    pthread_cond_t cab_cv;
    cuzk_fr *host_abc;           /* zkey: a, b, c made on the CPU */
    int host_abc_pinned;         /* host_abc from cuzk__gpu_host_alloc, else malloc */
    /* staging for uploads from pageable memory (NULL: plain copies) */
    cuzk__gpu_copy_queue *cq;
    void *stage[2];
    size_t stage_bytes;
    uint64_t *bm_one, *bm_other; /* device bitmaps of max_query bits: the classification's */
    /* pre-staging (cuzk_backend_stage): a worker thread copies an announced
     * witness into w_slot on its own stream, beside the proof the key is
     * computing; the next prove_start of that witness swaps w_slot and
     * w_plain instead of uploading. st_mu guards the st_ fields and the
     * slot's state; w_slot and the copy resources are made at the end of a
     * proof (the proof's own work areas come first).
     * Where the device has no room for w_slot, it may be b's third of abc
     * (st_in_abc), which a proof writes from its start (the SpMV) to the
     * end of its NTTs and never reads after: a proof holds it that long
     * (st_abc_busy), the worker copies only while no proof does, its copy
     * queued after the last holder's NTTs (st_cq's mark), and a hit copies
     * the witness to w_plain on the device before the SpMV. */
    pthread_mutex_t st_mu;
    pthread_cond_t st_cv;
    pthread_t st_thread;
    int st_thread_on, st_quit;
    int st_wanted;                /* stage was called: make the slot after a proof */
    int st_off;                   /* no room for the slot: staging does nothing */
    int st_fitted;                /* a fit freed the MSMs' area (budgets lowered where needed) */
    size_t st_budgets[5];         /* the level budgets before the fit (key_msms's order) */
    size_t st_area;               /* the MSMs' work area before the fit, bytes */
    const cuzk_witness *st_q[STAGE_QUEUE]; /* announced, not yet copied, oldest first */
    unsigned st_nq;
    const cuzk_witness *st_have;  /* in w_slot (being copied or done) */
    const void *st_have_values;   /* its values when announced (a reopened witness differs) */
    int st_state;                 /* SLOT_* */
    void *w_slot;
    int st_in_abc;                /* w_slot is b's third of abc (not its own buffer) */
    int st_abc_busy;              /* a proof holds b's third (st_in_abc) */
    cuzk__gpu_copy_queue *st_cq;  /* non-blocking stream: beside the kernels */
    void *st_stage[2];
    size_t st_stage_bytes;
    /* the vectors of deferred parameters, copied by a thread of their own
     * beside the key's first proofs (vector_loader) and decoded by the first
     * proof that needs each (vectors_wait); ld_mu/ld_cv guard ld_copied,
     * ld_st and ld_err; ld_decoded is the lock's. Keys without deferred
     * vectors start with 5 copied and decoded. */
    pthread_mutex_t ld_mu;
    pthread_cond_t ld_cv;
    pthread_t ld_thread;
    int ld_thread_on;
    int ld_quit;              /* stop copying (atomic; set under ld_mu): release_key, or a failure */
    int ld_yield;             /* a proof uploads its witness: the loader pauses (ld_mu) */
    unsigned ld_copied;       /* vectors [0, ld_copied) of cuzk_params_vec are copied */
    unsigned ld_decoded;      /* ... and [0, ld_decoded) decoded and checked */
    cuzk_status ld_st;        /* the load's failure (CUZK_OK: none so far) */
    cuzk_error ld_err;
    uint64_t *ld_bad;         /* device: a decode's first refused point */
    struct enc_upload *ld_up; /* the loader's buffers, freed by loader_reap */
    struct cuzk__fault_slot *fault; /* the proving instance's fault slot (set under lock) */
    uint64_t proofs;       /* proofs done */
    uint64_t copies_after; /* key_copies after this many (0: never, or done) */
    /* proof constants */
    cuzk_g1_aff alpha1, beta1, delta1;
    cuzk_g2_aff beta2, delta2;
} gpu_key;

/* CUZK_ERR_GPU (CUZK_ERR_DEVICE_NOMEM for a fault plan of exhausted memory) when
 * the key's fault plan makes this launch of stage fail, worded as the
 * device's own error would be. */
static inline cuzk_status injected(gpu_key *k, const char *stage, cuzk_error *err) {
    const unsigned launch = cuzk__fault_hit(k->fault, stage);
    if (launch == 0) return CUZK_OK;
    if (k->fault->nomem)
        return cuzk__fail(err, CUZK_ERR_DEVICE_NOMEM,
                          "GPU %d: %s: out of device memory (injected at launch %u)", k->device,
                          stage, launch);
    return cuzk__fail(err, CUZK_ERR_GPU, "GPU %d: %s: injected fault at launch %u", k->device,
                      stage, launch);
}

typedef cuzk__backend_partial_job gpu_job;

enum { SLOT_EMPTY, SLOT_COPYING, SLOT_READY, SLOT_FAILED };

/* The key's handle of vector v, v's point count in p, and what its upload
 * is called in messages. */
static inline cuzk__gpu_msm_bases **key_vec(gpu_key *k, cuzk_params_vec v) {
    cuzk__gpu_msm_bases **const all[5] = {&k->h, &k->l, &k->a, &k->b1, &k->b2};
    return all[v];
}
static inline uint64_t vec_count(const cuzk_params *p, cuzk_params_vec v) {
    const uint64_t n[5] = {p->h.n, p->l.n, p->a.n, p->b_g1.n, p->b_g2.n};
    return n[v];
}
static inline const char *upload_what(cuzk_params_vec v) {
    static const char *const what[5] = {"uploading vector h", "uploading vector l",
                                        "uploading vector a", "uploading vector b_g1",
                                        "uploading vector b_g2"};
    return what[v];
}

/* backend_gpu_key.c: the ops of a key, and the key's MSM handles that
 * exist, H first, into hs (returns how many); the shifted copies of H's and
 * L's bases (once the key has done copies_after proofs). */
cuzk_status cuzk__gpu_op_prepare(cuzk_backend *be, cuzk_backend_key **out, const cuzk_circuit *c,
                                 const cuzk_params *p, cuzk_error *err);
cuzk_status cuzk__gpu_op_prepare_early(cuzk_backend *be, cuzk_backend_key **out,
                                       const cuzk_circuit *c, const cuzk_params *p,
                                       cuzk_error *err);
cuzk_status cuzk__gpu_op_key_wait(cuzk_backend *be, cuzk_backend_key *key, cuzk_error *err);
cuzk_status cuzk__gpu_op_prepare_zkey(cuzk_backend *be, cuzk_backend_key **out,
                                      const cuzk_zkey *zk, cuzk_error *err);
void cuzk__gpu_op_release_key(cuzk_backend *be, cuzk_backend_key *key);
unsigned cuzk__gpu_key_msms(const gpu_key *k, cuzk__gpu_msm_bases *hs[5]);
void cuzk__gpu_key_copies(gpu_key *k);

/* backend_gpu_plan.c: the plan op; a key's plan under be's limit (k->plan,
 * k->hidden; CUZK_ERR_DEVICE_NOMEM naming the plan when not even streaming fits);
 * free memory as the key may use it (the card's less k->hidden); a key's
 * level budget for a card of total bytes under limit (0: none), or the
 * instance's hook. */
cuzk_status cuzk__gpu_op_plan(cuzk_backend *be, cuzk__plan *out, const cuzk_circuit *c,
                              const cuzk_params *p, const cuzk_zkey *zk, cuzk_error *err);
/* The plan a prepared key follows (the op key_plan). */
void cuzk__gpu_op_key_plan(const cuzk_backend_key *key, cuzk__plan *out);
cuzk_status cuzk__gpu_key_plan(gpu_key *k, cuzk_backend *be, cuzk_error *err);
cuzk_status cuzk__gpu_key_mem(const gpu_key *k, size_t *free_b, size_t *total_b);
size_t cuzk__gpu_key_level_budget(const gpu_backend *inst, size_t total, uint64_t limit);

/* Whether the key's plan streams vector v from host memory. */
static inline int cuzk__gpu_streamed(const gpu_key *k, cuzk_params_vec v) {
    return (k->plan.streamed >> (unsigned)v) & 1u;
}

/* backend_gpu_stream.c: the streamed vectors' host points and the streamer
 * (prepare, after the resident vectors' handles; CUZK_OK at once when the
 * plan streams nothing), their release; whether vector v has points; a
 * proof's MSM and batch-add over vector v, and both at once (ones or
 * others NULL: that half not computed). In a plan that streams, every
 * vector's MSMs go through the streamer: a streamed one's chunks go up
 * once for both halves, a resident one is summed whole where its calls fit
 * the work area, else in pieces of a chunk. */
cuzk_status cuzk__gpu_stream_setup(gpu_key *k, cuzk_error *err);
void cuzk__gpu_stream_free(gpu_key *k);
int cuzk__gpu_key_has(const gpu_key *k, cuzk_params_vec v);
cuzk_status cuzk__gpu_key_msm(gpu_key *k, cuzk_params_vec v, uint64_t *result,
                              const uint64_t *scalars, uint64_t n, const uint64_t *mask);
cuzk_status cuzk__gpu_key_batch_add(gpu_key *k, cuzk_params_vec v, uint64_t *result, uint64_t n,
                                    const uint64_t *bitmap);
cuzk_status cuzk__gpu_key_split(gpu_key *k, cuzk_params_vec v, uint64_t *ones, uint64_t *others,
                                const uint64_t *scalars, uint64_t n, const uint64_t *bm_one,
                                const uint64_t *bm_other);
/* The first chunks of a coming call over streamed vector v (n points) sent
 * ahead while the device does other work (nothing for a vector the plan
 * keeps, or a key that streams nothing). */
void cuzk__gpu_key_prefetch(gpu_key *k, cuzk_params_vec v, uint64_t n);

/* backend_gpu_load.c: the deferred vectors (see there); count points of
 * vector v from first read from the file into dst (pb bytes a point), in
 * slices on up to 8 of threads (0: all). */
cuzk_status cuzk__gpu_read_runs(const cuzk_params *p, cuzk_params_vec v, uint64_t first,
                                uint64_t count, uint8_t *dst, unsigned pb, unsigned threads,
                                cuzk_error *err);
cuzk_status cuzk__gpu_bases_alloc_deferred(gpu_key *k, const cuzk_params *p, cuzk_error *err);
cuzk_status cuzk__gpu_loader_start(gpu_key *k, cuzk_error *err);
void cuzk__gpu_loader_reap(gpu_key *k, int quit);
void cuzk__gpu_loader_yield(gpu_key *k, int on);
cuzk_status cuzk__gpu_load_status(gpu_key *k, cuzk_error *err);
cuzk_status cuzk__gpu_vectors_wait(gpu_key *k, unsigned upto, cuzk_error *err);

/* backend_gpu_stage.c: the staging buffers and uploads through them, the
 * circuit's copy callback, and pre-staging (see there). */
void cuzk__gpu_stage_alloc(gpu_key *k);
cuzk_status cuzk__gpu_upload_input(gpu_key *k, void *dst, const void *src, size_t bytes);
cuzk_status cuzk__gpu_upload_beside(gpu_key *k, void *dst, const void *src, size_t bytes);
cuzk_status cuzk__gpu_staged_copy(void *ctx, void *dst, const void *src, size_t bytes);
cuzk_status cuzk__gpu_op_stage(cuzk_backend *be, cuzk_backend_key *key, const cuzk_witness *w,
                               cuzk_error *err);
void cuzk__gpu_op_withdraw(cuzk_backend *be, cuzk_backend_key *key, const cuzk_witness *w);
void cuzk__gpu_stage_setup(gpu_key *k);
void cuzk__gpu_stage_stop(gpu_key *k);
int cuzk__gpu_stage_take(gpu_key *k, const cuzk_witness *w);
/* A slot in b's third (st_in_abc): the witness a hit found there copied to
 * w_plain (before the SpMV); and b's third let go by the proof once its NTTs
 * are queued, or at its end (nothing held: nothing done). */
cuzk_status cuzk__gpu_stage_abc_taken(gpu_key *k);
void cuzk__gpu_stage_abc_free(gpu_key *k);

/* backend_gpu_prove.c: the proof op, and the check that a witness fits the
 * key (naming the call op). */
cuzk_status cuzk__gpu_op_prove_start(cuzk_backend *be, cuzk_backend_job **out,
                                     cuzk_backend_key *key, const cuzk_witness *w,
                                     cuzk_error *err);
cuzk_status cuzk__gpu_witness_check(const gpu_key *k, const cuzk_witness *w, const char *op,
                                    cuzk_error *err);

#endif /* CUZK_BACKEND_GPU_IMPL_H */
