/*
 * backend_gpu.c — the CUDA backend (backend_gpu.h): orchestration in C over
 * the device modules (gpu_circuit.h, gpu_ntt.h, gpu_msm.h). Everything
 * heavy runs on the device; the host keeps only counts, bitmaps of the
 * 0/1/other classification and the MSM results.
 */
#include "gpu/backend_gpu.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef CUZK_HAVE_OPENMP
#include <omp.h>
#endif

#include "gpu/gpu.h"
#include "gpu/gpu_circuit.h"
#include "gpu/gpu_msm.h"
#include "gpu/gpu_ntt.h"
#include "util/mem.h"

typedef unsigned long long ull;

/* The most bytes a staging buffer takes unless the hooks say otherwise
 * (stage_alloc sizes it for at least 4 chunks of the key's largest input). */
#define STAGE_BYTES_MAX ((size_t)32 << 20)

/* An instance (be->impl): its hooks and counts, read and counted by its keys. */
typedef struct {
    cuzk__gpu_backend_hooks hooks;
    cuzk__gpu_backend_upload_counts stats;
} gpu_backend;

static void count_uploads(uint64_t *counter, uint64_t n) {
    __atomic_fetch_add(counter, n, __ATOMIC_RELAXED);
}

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static cuzk_status gpu_fail(cuzk_error *err, cuzk_status st, const char *what) {
    if (st == CUZK_ERR_GPU)
        return cuzk__fail(err, st, "GPU: %s: %s", what, cuzk__gpu_last_error());
    return cuzk__fail(err, st, "GPU: %s: %s", what, cuzk_strerror(st));
}

/* Announcements a key keeps (cuzk_backend_stage); a fifth drops the oldest. */
#define STAGE_QUEUE 4

typedef struct {
    cuzk_backend_key base; /* first member: the pointer handed out */
    gpu_backend *inst;     /* the instance that prepared the key (outlives it) */
    int device;
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
    void *w_plain, *w_mont, *abc, *gath;
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
     * proof (the proof's own work areas come first). */
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
    uint64_t proofs;       /* proofs done */
    uint64_t copies_after; /* key_copies after this many (0: never, or done) */
    /* proof constants */
    cuzk_g1_aff alpha1, beta1, delta1;
    cuzk_g2_aff beta2, delta2;
} gpu_key;

typedef cuzk__backend_partial_job gpu_job;

enum { SLOT_EMPTY, SLOT_COPYING, SLOT_READY, SLOT_FAILED };

int cuzk__backend_gpu_devices(void) {
    int n = 0;
    if (cuzk__gpu_device_count(&n) != CUZK_OK) return 0;
    return n;
}

static cuzk_status gpu_open(cuzk_backend *be, cuzk_error *err) {
    int n = cuzk__backend_gpu_devices();
    if (n == 0)
        return cuzk__fail(err, CUZK_ERR_GPU, "no CUDA device (%s)", cuzk__gpu_last_error());
    if (be->device < 0) be->device = 0;
    if (be->device >= n)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "GPU %d requested, %d present", be->device,
                          n);
    cuzk_status st = cuzk__gpu_set_device(be->device);
    if (st != CUZK_OK) return gpu_fail(err, st, "selecting the device");
    gpu_backend *inst = calloc(1, sizeof(*inst));
    if (inst == NULL) return cuzk__fail(err, CUZK_ERR_NOMEM, "no memory for a GPU backend");
    const cuzk__gpu_backend_hooks dflt = CUZK__GPU_BACKEND_HOOKS_DEFAULT;
    inst->hooks = dflt;
    be->impl = inst;
    return CUZK_OK;
}

static void gpu_close(cuzk_backend *be) {
    free(be->impl);
    be->impl = NULL;
}

void cuzk__gpu_backend_set_test_hooks(cuzk_backend *be, const cuzk__gpu_backend_hooks *hooks) {
    if (be == NULL || be->ops != &cuzk_backend_gpu || be->impl == NULL) return;
    gpu_backend *inst = be->impl;
    const cuzk__gpu_backend_hooks dflt = CUZK__GPU_BACKEND_HOOKS_DEFAULT;
    inst->hooks = hooks != NULL ? *hooks : dflt;
}

void cuzk__gpu_backend_stats(const cuzk_backend *be, cuzk__gpu_backend_upload_counts *out) {
    memset(out, 0, sizeof(*out));
    if (be == NULL || be->ops != &cuzk_backend_gpu || be->impl == NULL) return;
    const uint64_t *src = (const uint64_t *)&((const gpu_backend *)be->impl)->stats;
    uint64_t *dst = (uint64_t *)out;
    for (size_t i = 0; i < sizeof(*out) / sizeof(uint64_t); i++)
        dst[i] = __atomic_load_n(&src[i], __ATOMIC_RELAXED);
}

static void stage_stop(gpu_key *k);
static void loader_reap(gpu_key *k, int quit);

static void key_free(gpu_key *k) {
    if (k == NULL) return;
    /* best effort: on failure the frees below still release what they can */
    cuzk_status st = cuzk__gpu_set_device(k->device);
    (void)st;
    loader_reap(k, 1); /* it may be writing the bases */
    stage_stop(k);     /* its copy may be writing w_slot */
    cuzk__gpu_circuit_free(k->gc);
    cuzk__gpu_ntt_domain_destroy(k->dom);
    cuzk__gpu_msm_bases_free(k->h);
    cuzk__gpu_msm_bases_free(k->l);
    cuzk__gpu_msm_bases_free(k->a);
    cuzk__gpu_msm_bases_free(k->b1);
    cuzk__gpu_msm_bases_free(k->b2);
    cuzk__gpu_free(k->w_plain);
    cuzk__gpu_free(k->w_mont);
    cuzk__gpu_free(k->abc);
    cuzk__gpu_free(k->gath);
    cuzk__gpu_copy_queue_free(k->cq); /* first: it waits for copies reading the buffers */
    cuzk__gpu_host_free(k->stage[0]);
    cuzk__gpu_host_free(k->stage[1]);
    cuzk__gpu_copy_queue_free(k->st_cq);
    cuzk__gpu_host_free(k->st_stage[0]);
    cuzk__gpu_host_free(k->st_stage[1]);
    cuzk__gpu_free(k->w_slot);
    if (k->host_abc_pinned)
        cuzk__gpu_host_free(k->host_abc);
    else
        free(k->host_abc);
    cuzk__gpu_free(k->bm_one);
    cuzk__gpu_free(k->bm_other);
    cuzk__gpu_free(k->ld_bad);
    pthread_cond_destroy(&k->ld_cv);
    pthread_mutex_destroy(&k->ld_mu);
    pthread_cond_destroy(&k->st_cv);
    pthread_mutex_destroy(&k->st_mu);
    pthread_mutex_destroy(&k->lock);
    free(k);
}

static gpu_key *key_new(cuzk_backend *be) {
    gpu_key *k = calloc(1, sizeof(*k));
    if (k == NULL) return NULL;
    int made = 0; /* how many of the five below exist */
    if (pthread_mutex_init(&k->lock, NULL) == 0) made = 1;
    if (made == 1 && pthread_mutex_init(&k->st_mu, NULL) == 0) made = 2;
    if (made == 2 && pthread_cond_init(&k->st_cv, NULL) == 0) made = 3;
    if (made == 3 && pthread_mutex_init(&k->ld_mu, NULL) == 0) made = 4;
    if (made == 4 && pthread_cond_init(&k->ld_cv, NULL) == 0) made = 5;
    if (made < 5) {
        if (made > 3) pthread_mutex_destroy(&k->ld_mu);
        if (made > 2) pthread_cond_destroy(&k->st_cv);
        if (made > 1) pthread_mutex_destroy(&k->st_mu);
        if (made > 0) pthread_mutex_destroy(&k->lock);
        free(k);
        return NULL;
    }
    k->ld_copied = k->ld_decoded = 5; /* nothing to load unless prepare starts a loader */
    k->inst = be->impl;
    k->copies_after = k->inst->hooks.copies_after;
    k->device = be->device;
    k->threads = be->threads;
    k->base.ops = &cuzk_backend_gpu;
    return k;
}

/* Bases upload, naming the vector on failure. */
static cuzk_status upload_g1(cuzk__gpu_msm_bases **out, const cuzk_g1_aff *p, uint64_t n,
                             const char *what, cuzk_error *err) {
    if (n == 0) return CUZK_OK;
    cuzk_status st =
        cuzk__gpu_msm_bases_upload(out, CUZK__GPU_MSM_G1, (const uint64_t *)p, (size_t)n);
    if (st != CUZK_OK) return gpu_fail(err, st, what);
    return CUZK_OK;
}

static cuzk_status upload_g2(cuzk__gpu_msm_bases **out, const cuzk_g2_aff *p, uint64_t n,
                             const char *what, cuzk_error *err) {
    if (n == 0) return CUZK_OK;
    cuzk_status st =
        cuzk__gpu_msm_bases_upload(out, CUZK__GPU_MSM_G2, (const uint64_t *)p, (size_t)n);
    if (st != CUZK_OK) return gpu_fail(err, st, what);
    return CUZK_OK;
}

/*
 * The staging buffers for uploads from pageable memory, sized for at least 4
 * chunks of the largest input (so the host copy of one overlaps the DMA of
 * another even for mid-sized keys), at most the hooks' stage_bytes,
 * at least 1 MiB. Without them (page-locked memory refused) the key uploads
 * with plain copies: a slower proof, not a failed one.
 */
static void stage_alloc(gpu_key *k) {
    if (k->stage_bytes != 0) return; /* made early for the circuit's upload */
    size_t need = (size_t)k->n_vars * 32;
    if (k->zk != NULL && !k->host_abc_pinned && 3 * (size_t)k->n_dom * 32 > need)
        need = 3 * (size_t)k->n_dom * 32;
    size_t bytes = (need + 3) / 4;
    if (bytes < ((size_t)1 << 20)) bytes = (size_t)1 << 20;
    const size_t most = k->inst->hooks.stage_bytes ? k->inst->hooks.stage_bytes : STAGE_BYTES_MAX;
    if (bytes > most) bytes = most;
    if ((k->inst->hooks.pin_fail & CUZK__GPU_PIN_FAIL_STAGE) == 0 &&
        cuzk__gpu_host_alloc(&k->stage[0], bytes) == CUZK_OK &&
        cuzk__gpu_host_alloc(&k->stage[1], bytes) == CUZK_OK &&
        cuzk__gpu_copy_queue_create(&k->cq, 2) == CUZK_OK) {
        k->stage_bytes = bytes;
        return;
    }
    cuzk__gpu_host_free(k->stage[0]);
    cuzk__gpu_host_free(k->stage[1]);
    k->stage[0] = k->stage[1] = NULL;
}

/*
 * The byte budget of a key's MSM level buffers (gpu_msm.h, variant 4's
 * levels; the MSM's own default is a quarter of the device). At 2^27 on the
 * H200 (141 GB) a quarter lets the H and L MSMs process three windows per
 * group (~29 GB of levels): the fastest MSM (H 762 ms), but the device then
 * lacks room for the next witness's staging slot, so every proof uploads its
 * own witness (spmv 101 ms instead of 20). Two windows per group fit beside
 * it: partition 1399.6 -> 1332.6 ms (H 775 ms; one window: 1363.8; session
 * 11, doc/perf.md). 20000 MiB is the budget measured; CUZK_GPU_MSM_BA_BUDGET_MB,
 * when set, still decides (gpu_msm.h). Where even this leaves too little
 * room (a smaller card, other sizes), stage_setup lowers it further.
 */
#define GPU_KEY_LEVEL_BUDGET ((size_t)20000 << 20)

/* The key's MSM handles that exist, H first, into hs; returns how many. */
static unsigned key_msms(const gpu_key *k, cuzk__gpu_msm_bases *hs[5]) {
    cuzk__gpu_msm_bases *const all[5] = {k->h, k->l, k->a, k->b1, k->b2};
    unsigned nh = 0;
    for (int i = 0; i < 5; i++)
        if (all[i] != NULL) hs[nh++] = all[i];
    return nh;
}

/* The work area: witness (plain and Montgomery), a, b, c, one gathered
 * query, the classification bitmaps and the staging buffers. */
static cuzk_status work_alloc(gpu_key *k, cuzk_error *err) {
    size_t fr = 32;
    cuzk_status st;
    /* the key's MSMs run one after another: one MSM work area for all
     * (at 2^27 one area is ~30 GB; five side by side do not fit); their
     * affine levels get at most GPU_KEY_LEVEL_BUDGET: more takes the room of
     * the next witness's staging slot (stage_setup) */
    cuzk__gpu_msm_bases *hs[5];
    const unsigned nh = key_msms(k, hs);
    for (unsigned i = 0; i < nh; i++) {
        if (k->h != NULL) cuzk__gpu_msm_bases_share_work(hs[i], k->h); /* H's own: no-op */
        cuzk__gpu_msm_bases_cap_level_budget(hs[i], GPU_KEY_LEVEL_BUDGET);
    }
    /* the bitmaps stay on the device: the classification writes them and the
     * batch-add and masked MSM read them there (host copies cost ~10 ms of
     * round trips per classification at 2^27) */
    const size_t bm_bytes = ((size_t)(k->max_query + 63) / 64 + 1) * 8;
    if ((st = cuzk__gpu_alloc(&k->w_plain, k->n_vars * fr)) != CUZK_OK ||
        (st = cuzk__gpu_alloc(&k->w_mont, k->n_vars * fr)) != CUZK_OK ||
        (st = cuzk__gpu_alloc(&k->abc, 3 * k->n_dom * fr)) != CUZK_OK ||
        (st = cuzk__gpu_alloc(&k->gath, (k->max_query ? k->max_query : 1) * fr)) != CUZK_OK ||
        (st = cuzk__gpu_alloc((void **)&k->bm_one, bm_bytes)) != CUZK_OK ||
        (st = cuzk__gpu_alloc((void **)&k->bm_other, bm_bytes)) != CUZK_OK)
        return gpu_fail(err, st, "allocating the per-proof work area");
    stage_alloc(k);
    return CUZK_OK;
}

void cuzk__gpu_circuit_src_of(cuzk__gpu_circuit_src *src, const cuzk_circuit *c) {
    memset(src, 0, sizeof(*src));
    src->n_constraints = c->n_constraints;
    src->n_inputs = c->n_inputs;
    src->n_aux = c->n_aux;
    src->domain_size = c->domain_size;
    for (int m = 0; m < 3; m++) {
        src->row_ptr[m] = c->m[m].row_ptr;
        src->col[m] = c->m[m].col;
        src->val[m] = c->m[m].val;
        src->nnz[m] = c->m[m].nnz;
    }
    src->values = (const uint64_t *)c->values;
    src->n_values = c->n_values;
    src->a_aux = c->a_aux;
    src->b_inp = c->b_inp;
    src->b_aux = c->b_aux;
}

static cuzk_status upload_input(gpu_key *k, void *dst, const void *src, size_t bytes);

/* The circuit's arrays through the key's staging buffers (gpu_circuit.h):
 * they live in the circuit file's pageable mapping. */
static cuzk_status staged_copy(void *ctx, void *dst, const void *src, size_t bytes) {
    return upload_input(ctx, dst, src, bytes);
}

/* The key's handle of vector v, and v's point count in p. */
static cuzk__gpu_msm_bases **key_vec(gpu_key *k, cuzk_params_vec v) {
    cuzk__gpu_msm_bases **const all[5] = {&k->h, &k->l, &k->a, &k->b1, &k->b2};
    return all[v];
}

static uint64_t vec_count(const cuzk_params *p, cuzk_params_vec v) {
    const uint64_t n[5] = {p->h.n, p->l.n, p->a.n, p->b_g1.n, p->b_g2.n};
    return n[v];
}

/* What each vector's upload is called in messages (cuzk_params_vec order). */
static const char *const upload_what[5] = {"uploading vector h", "uploading vector l",
                                           "uploading vector a", "uploading vector b_g1",
                                           "uploading vector b_g2"};

/*
 * The vectors of deferred parameters (params.h): each is read from the file
 * in runs of the staging size into page-locked buffers (slices on up to 8
 * of the backend's threads: on the 16-core H200 host 4 threads take 2.1 s
 * at 2^26, 8 1.8 s, 16 1.6-1.7 s; on a 32-core two-GPU host all cores
 * coincided with a prepare ~2x slower than 8 threads had been, so 8 until
 * that is measured apart; doc/perf.md), each run's DMA queued while the next
 * one is read, straight into the bases' memory (an encoding has the size of
 * the decoded point, 96 or 192 bytes); then the whole vector is decoded and
 * checked there on the device (decode.cuh). The host never holds the
 * points; at 2^27 this replaces ~47 GiB of decoding into RAM at open and the
 * upload of that (doc/perf.md, session 9).
 *
 * A thread of the key's own copies (vector_loader), h first, with its own
 * page-locked buffers, on a stream beside the proofs' (a beside copy queue),
 * so that the key's first proof computes its a, b, c and H, and its H MSM,
 * while the later vectors load (at 2^27 the one-shot `cuzk prove` of a
 * partition takes 4.1 s instead of 4.7; doc/perf.md session 14). The
 * copies wait for no kernel (check.cuh's cuzk__sync_copy says what stalled them); each vector
 * is decoded by whoever first needs it (vectors_wait: the proof about to run
 * its MSM, or prepare), in that caller's stream order. Without page-locked
 * memory (refused by the host) the runs go through one pageable buffer, in
 * prepare itself: slower, and nothing overlaps.
 */
typedef struct enc_upload {
    cuzk__gpu_copy_queue *cq; /* beside stream (NULL: the pageable way) */
    void *stage[2];           /* page-locked runs, with cq */
    void *host;               /* one pageable run, without */
    size_t run_bytes;
    int threaded;             /* copied by vector_loader (else in prepare) */
} enc_upload;

static cuzk_status read_runs(const cuzk_params *p, cuzk_params_vec v, uint64_t first,
                             uint64_t count, uint8_t *dst, unsigned pb, unsigned threads,
                             cuzk_error *err) {
#ifdef CUZK_HAVE_OPENMP
    enum { MAX_SLICES = 8 }; /* see the comment above enc_upload */
    int nt = threads ? (int)threads : omp_get_max_threads();
    if (nt > MAX_SLICES) nt = MAX_SLICES;
    if ((uint64_t)nt > count / 1024) nt = (int)(count / 1024); /* 96 KiB a slice at least */
    if (nt > 1) {
        /* each slice keeps its own error: the first failing one is the run's
         * (a slice that failed holds stale bytes, so none may be missed) */
        cuzk_error *e = calloc((size_t)nt, sizeof(*e));
        if (e == NULL) return cuzk__fail(err, CUZK_ERR_NOMEM, "no memory for read slices");
#pragma omp parallel for num_threads(nt) schedule(static)
        for (int i = 0; i < nt; i++) {
            const uint64_t lo = count * (uint64_t)i / (uint64_t)nt;
            const uint64_t hi = count * (uint64_t)(i + 1) / (uint64_t)nt;
            e[i].status =
                cuzk_params_read_encoded(p, v, first + lo, hi - lo, dst + lo * pb, &e[i]);
        }
        cuzk_status st = CUZK_OK;
        for (int i = 0; i < nt && st == CUZK_OK; i++)
            if (e[i].status != CUZK_OK) {
                st = e[i].status;
                if (err) *err = e[i];
            }
        free(e);
        return st;
    }
#else
    (void)threads;
#endif
    return cuzk_params_read_encoded(p, v, first, count, dst, err);
}

/* Frees what loader_open made (after its queued copies are done). */
static void loader_close(enc_upload *u) {
    if (u == NULL) return;
    cuzk__gpu_copy_queue_free(u->cq); /* first: it waits for what reads the buffers */
    cuzk__gpu_host_free(u->stage[0]);
    cuzk__gpu_host_free(u->stage[1]);
    free(u->host);
    free(u);
}

/* The loader's buffers: page-locked runs of the key's staging size on a
 * beside queue, or (page-locked memory refused, or the key has none) one
 * pageable run of 8 MiB. */
static cuzk_status loader_open(gpu_key *k, enc_upload **out, cuzk_error *err) {
    enc_upload *u = calloc(1, sizeof(*u));
    *out = u;
    if (u == NULL) return cuzk__fail(err, CUZK_ERR_NOMEM, "no memory for an upload buffer");
    u->run_bytes = k->cq ? k->stage_bytes : (size_t)8 << 20;
    if (k->cq != NULL && cuzk__gpu_copy_queue_create_beside(&u->cq, 2) == CUZK_OK &&
        cuzk__gpu_host_alloc(&u->stage[0], u->run_bytes) == CUZK_OK &&
        cuzk__gpu_host_alloc(&u->stage[1], u->run_bytes) == CUZK_OK)
        return CUZK_OK;
    cuzk__gpu_copy_queue_free(u->cq);
    cuzk__gpu_host_free(u->stage[0]);
    cuzk__gpu_host_free(u->stage[1]);
    u->cq = NULL;
    u->stage[0] = u->stage[1] = NULL;
    u->run_bytes = (size_t)8 << 20;
    if ((u->host = malloc(u->run_bytes)) == NULL)
        return cuzk__fail(err, CUZK_ERR_NOMEM, "no memory for an upload buffer");
    return CUZK_OK;
}

/* Vector v's encodings (n points) into the memory of handle b (allocated by
 * prepare), every copy done on return. */
static cuzk_status copy_encoded(gpu_key *k, enc_upload *u, cuzk__gpu_msm_bases *b,
                                cuzk_params_vec v, uint64_t n, cuzk_error *err) {
    const char *what = upload_what[v];
    if (n == 0) return CUZK_OK;
    const unsigned pb = v == CUZK_PARAMS_VEC_B_G2 ? 192u : 96u;
    const uint64_t per = u->run_bytes / pb;
    uint8_t *dst = cuzk__gpu_msm_bases_at(b, 0);
    cuzk_status st;
    if (per == 0) /* a staging size below one point (the test knob) */
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "GPU: %s: runs of %zu bytes hold no point",
                          what, u->run_bytes);
    uint64_t runs = 0;
    for (uint64_t first = 0; first < n; first += per, runs++) {
        const int hold = k->inst->hooks.loader_hold && v != CUZK_PARAMS_VEC_H && u->threaded;
        pthread_mutex_lock(&k->ld_mu);
        while ((k->ld_yield || hold) && !__atomic_load_n(&k->ld_quit, __ATOMIC_RELAXED))
            pthread_cond_wait(&k->ld_cv, &k->ld_mu);
        pthread_mutex_unlock(&k->ld_mu);
        if (__atomic_load_n(&k->ld_quit, __ATOMIC_RELAXED))
            return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "GPU: %s: the key was released", what);
        const unsigned slot = (unsigned)(runs & 1);
        const uint64_t cnt = n - first < per ? n - first : per;
        uint8_t *host = u->cq ? u->stage[slot] : u->host;
        /* the buffer's previous DMA must be done before it is refilled */
        if (u->cq && (st = cuzk__gpu_copy_queue_wait(u->cq, slot)) != CUZK_OK)
            return gpu_fail(err, st, what);
        if ((st = read_runs(k->p, v, first, cnt, host, pb, k->threads, err)) != CUZK_OK)
            return st;
        st = u->cq ? cuzk__gpu_copy_queue_upload(u->cq, slot, dst + first * pb, host, cnt * pb)
                   : cuzk__gpu_upload(dst + first * pb, host, cnt * pb);
        if (st != CUZK_OK) return gpu_fail(err, st, what);
    }
    if (u->cq && (st = cuzk__gpu_copy_queue_sync(u->cq)) != CUZK_OK)
        return gpu_fail(err, st, what);
    count_uploads(&k->inst->stats.staged_chunks, u->cq ? runs : 0);
    return CUZK_OK;
}

/* The loader stops at its next run, also one paused for a proof's upload. */
static void loader_quit(gpu_key *k) {
    pthread_mutex_lock(&k->ld_mu);
    __atomic_store_n(&k->ld_quit, 1, __ATOMIC_RELAXED);
    pthread_cond_broadcast(&k->ld_cv);
    pthread_mutex_unlock(&k->ld_mu);
}

/* The loader's failure, or a decode's: every later wait returns it, and the
 * loader stops (ld_mu not held). Recorded before the loader is told to quit,
 * so that its "released" failure can never take the place of this one. */
static void load_failed(gpu_key *k, cuzk_status st, const cuzk_error *e) {
    pthread_mutex_lock(&k->ld_mu);
    if (k->ld_st == CUZK_OK) {
        k->ld_st = st;
        k->ld_err = *e;
    }
    __atomic_store_n(&k->ld_quit, 1, __ATOMIC_RELAXED);
    pthread_cond_broadcast(&k->ld_cv);
    pthread_mutex_unlock(&k->ld_mu);
}

/* A proof's own witness upload goes first (on 1, off 0): the loader pauses
 * at its next run until it is done. It has time to spare (at 2^27 it is done
 * long before the first proof needs l), while the upload beside it takes
 * 173 ms instead of 100 (doc/perf.md session 14). */
static void loader_yield(gpu_key *k, int on) {
    pthread_mutex_lock(&k->ld_mu);
    k->ld_yield = on;
    pthread_cond_broadcast(&k->ld_cv);
    pthread_mutex_unlock(&k->ld_mu);
}

/* The load's failure so far (CUZK_OK: none), copied into err. */
static cuzk_status load_status(gpu_key *k, cuzk_error *err) {
    pthread_mutex_lock(&k->ld_mu);
    const cuzk_status st = k->ld_st;
    if (st != CUZK_OK && err != NULL) *err = k->ld_err;
    pthread_mutex_unlock(&k->ld_mu);
    return st;
}

/* Copies the five vectors in order, publishing each as it is on the device
 * (or the first failure, after which nothing more is copied). */
static void load_vectors(gpu_key *k) {
    cuzk_error e;
    cuzk__error_clear(&e);
    cuzk_status st = cuzk__gpu_set_device(k->device);
    if (st != CUZK_OK) gpu_fail(&e, st, "selecting the device");
    for (unsigned i = 0; i < 5 && st == CUZK_OK; i++) {
        const cuzk_params_vec v = (cuzk_params_vec)i;
        if ((st = copy_encoded(k, k->ld_up, *key_vec(k, v), v, vec_count(k->p, v), &e)) !=
            CUZK_OK)
            break;
        pthread_mutex_lock(&k->ld_mu);
        k->ld_copied = i + 1;
        pthread_cond_broadcast(&k->ld_cv);
        pthread_mutex_unlock(&k->ld_mu);
    }
    if (st != CUZK_OK) load_failed(k, st, &e);
}

static void *vector_loader(void *arg) {
    load_vectors(arg);
    return NULL;
}

/* Vector v, copied, decoded and checked in place (the legacy stream: in
 * order with the calling proof); a refused point is named by the host's
 * reader (the same message as at open). */
static cuzk_status decode_vector(gpu_key *k, cuzk_params_vec v, cuzk_error *err) {
    cuzk__gpu_msm_bases *const b = *key_vec(k, v);
    const char *what = upload_what[v];
    if (b == NULL) return CUZK_OK; /* no points */
    const uint64_t none = UINT64_MAX;
    uint64_t bad = none;
    const size_t n = cuzk__gpu_msm_bases_count(b);
    cuzk_status st;
    if ((st = cuzk__gpu_upload(k->ld_bad, &none, sizeof none)) != CUZK_OK ||
        (st = cuzk__gpu_msm_bases_decode(b, 0, n, cuzk__gpu_msm_bases_at(b, 0), k->ld_bad)) !=
            CUZK_OK ||
        (st = cuzk__gpu_download(&bad, k->ld_bad, sizeof bad)) != CUZK_OK)
        return gpu_fail(err, st, what);
    if (bad == none) return CUZK_OK;
    if ((st = cuzk_params_point_check(k->p, v, bad, err)) != CUZK_OK) return st;
    return cuzk__fail(err, CUZK_ERR_GPU, "GPU: %s: point %llu refused on the device, which the "
                                         "host reader accepts",
                      what, (ull)bad);
}

/* Vectors [0, upto) of cuzk_params_vec ready on the device: waits for the
 * loader's copies and decodes those not yet decoded (the caller holds the
 * key's lock, or owns the key in prepare). A failure (the loader's or a
 * decode's) is every later call's too. */
static cuzk_status vectors_wait(gpu_key *k, unsigned upto, cuzk_error *err) {
    pthread_mutex_lock(&k->ld_mu);
    while (k->ld_copied < upto && k->ld_st == CUZK_OK) pthread_cond_wait(&k->ld_cv, &k->ld_mu);
    cuzk_status st = k->ld_st;
    if (st != CUZK_OK && err != NULL) *err = k->ld_err;
    pthread_mutex_unlock(&k->ld_mu);
    if (st != CUZK_OK) return st;
    for (; k->ld_decoded < upto; k->ld_decoded++) {
        cuzk_error e;
        cuzk__error_clear(&e);
        if ((st = decode_vector(k, (cuzk_params_vec)k->ld_decoded, &e)) != CUZK_OK) {
            load_failed(k, st, &e);
            if (err != NULL) *err = e;
            return st;
        }
    }
    return CUZK_OK;
}

/* Once the loader has finished (or, quit, after it stops at its next run):
 * joins it and frees its buffers. Not on the loader's way out: freeing
 * page-locked memory waits for the device, and a proof's kernels would hold
 * up its last vector. No-op without a loader or while it still copies. */
static void loader_reap(gpu_key *k, int quit) {
    if (quit) loader_quit(k);
    if (k->ld_thread_on) {
        pthread_mutex_lock(&k->ld_mu);
        const int done = k->ld_copied == 5 || k->ld_st != CUZK_OK;
        pthread_mutex_unlock(&k->ld_mu);
        if (!done && !quit) return;
        (void)pthread_join(k->ld_thread, NULL);
        k->ld_thread_on = 0;
    }
    loader_close(k->ld_up);
    k->ld_up = NULL;
}

/* The handles of the five deferred vectors, not yet filled: made before the
 * work area, so that it and the memory plan see them as when uploaded. */
static cuzk_status bases_alloc_deferred(gpu_key *k, const cuzk_params *p, cuzk_error *err) {
    for (unsigned i = 0; i < 5; i++) {
        const cuzk_params_vec v = (cuzk_params_vec)i;
        const cuzk__gpu_msm_group g =
            v == CUZK_PARAMS_VEC_B_G2 ? CUZK__GPU_MSM_G2 : CUZK__GPU_MSM_G1;
        const uint64_t n = vec_count(p, v);
        cuzk_status st;
        if (n != 0 && (st = cuzk__gpu_msm_bases_alloc(key_vec(k, v), g, (size_t)n)) != CUZK_OK)
            return gpu_fail(err, st, upload_what[v]);
    }
    return CUZK_OK;
}

/* The loader's buffers, then its thread (in line, in prepare, without
 * page-locked buffers or a thread); the load's status is vectors_wait's. */
static cuzk_status loader_start(gpu_key *k, cuzk_error *err) {
    cuzk_status st;
    if ((st = cuzk__gpu_alloc((void **)&k->ld_bad, sizeof(uint64_t))) != CUZK_OK)
        return gpu_fail(err, st, "allocating the decode's flag");
    if ((st = loader_open(k, &k->ld_up, err)) != CUZK_OK) return st;
    k->ld_copied = k->ld_decoded = 0;
    k->ld_up->threaded = k->ld_up->cq != NULL; /* before the thread reads it */
    if (k->ld_up->threaded && pthread_create(&k->ld_thread, NULL, vector_loader, k) == 0) {
        k->ld_thread_on = 1;
        return CUZK_OK;
    }
    k->ld_up->threaded = 0;
    load_vectors(k);
    return CUZK_OK;
}

/* prepare (early 0) or prepare_early (1: returns once h is on the device,
 * the other deferred vectors loading beside the first proofs). */
static cuzk_status prepare_with(cuzk_backend *be, cuzk_backend_key **out, const cuzk_circuit *c,
                                const cuzk_params *p, int early, cuzk_error *err) {
    cuzk__error_clear(err);
    cuzk_status st = cuzk_groth16_check_params(c, p, err);
    if (st != CUZK_OK) return st;
    if ((st = cuzk__gpu_set_device(be->device)) != CUZK_OK)
        return gpu_fail(err, st, "selecting the device");
    if (be->impl == NULL) return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "GPU backend not opened");
    gpu_key *k = key_new(be);
    if (k == NULL) return cuzk__fail(err, CUZK_ERR_NOMEM, "no memory for a backend key");
    k->c = c;
    k->p = p;
    k->n_vars = cuzk_circuit_n_vars(c);
    k->n_dom = c->domain_size;
    k->n_h = p->h.n;
    k->l_first = c->n_inputs;
    k->max_query = p->a.n > p->b_g1.n ? p->a.n : p->b_g1.n;
    if (c->n_aux > k->max_query) k->max_query = c->n_aux;
    if (k->n_h > k->max_query) k->max_query = k->n_h;

    /* the staging buffers first: the circuit (8.9 GB at 2^27) goes through
     * them, and the loader's runs take their size */
    stage_alloc(k);
    cuzk__gpu_circuit_src src;
    cuzk__gpu_circuit_src_of(&src, c);
    if ((st = cuzk__gpu_circuit_upload(&k->gc, &src, staged_copy, k)) != CUZK_OK) {
        gpu_fail(err, st, "uploading the circuit");
        goto fail;
    }
    if ((st = cuzk__gpu_ntt_domain_create(&k->dom, p->log_domain_size, CUZK_NTT_ROOT7)) !=
        CUZK_OK) {
        gpu_fail(err, st, "NTT tables");
        goto fail;
    }
    if (p->deferred) {
        if ((st = bases_alloc_deferred(k, p, err)) != CUZK_OK) goto fail;
    } else if ((st = upload_g1(&k->h, p->h.p, p->h.n, upload_what[0], err)) != CUZK_OK ||
               (st = upload_g1(&k->l, p->l.p, p->l.n, upload_what[1], err)) != CUZK_OK ||
               (st = upload_g1(&k->a, p->a.p, p->a.n, upload_what[2], err)) != CUZK_OK ||
               (st = upload_g1(&k->b1, p->b_g1.p, p->b_g1.n, upload_what[3], err)) != CUZK_OK ||
               (st = upload_g2(&k->b2, p->b_g2.p, p->b_g2.n, upload_what[4], err)) != CUZK_OK) {
        goto fail;
    }
    if ((st = work_alloc(k, err)) != CUZK_OK) goto fail;
    k->alpha1 = p->vk.alpha1;
    k->beta1 = p->vk.beta1;
    k->delta1 = p->vk.delta1;
    k->beta2 = p->vk.beta2;
    k->delta2 = p->vk.delta2;
    k->base.n_inputs = c->n_inputs;
    k->base.n_aux = c->n_aux;
    k->base.n_public = c->n_inputs - 1;
    k->base.log_domain = p->log_domain_size;
    if (p->deferred) {
        if ((st = loader_start(k, err)) != CUZK_OK ||
            (st = vectors_wait(k, early ? 1 : 5, err)) != CUZK_OK)
            goto fail;
        loader_reap(k, 0); /* frees its buffers if it is done */
    }
    *out = &k->base;
    return CUZK_OK;
fail:
    key_free(k);
    return st;
}

static cuzk_status gpu_prepare(cuzk_backend *be, cuzk_backend_key **out, const cuzk_circuit *c,
                               const cuzk_params *p, cuzk_error *err) {
    return prepare_with(be, out, c, p, 0, err);
}

static cuzk_status gpu_prepare_early(cuzk_backend *be, cuzk_backend_key **out,
                                     const cuzk_circuit *c, const cuzk_params *p,
                                     cuzk_error *err) {
    return prepare_with(be, out, c, p, 1, err);
}

/* The whole key: its loader's status (its buffers freed once it is done). */
static cuzk_status gpu_key_wait(cuzk_backend *be, cuzk_backend_key *key, cuzk_error *err) {
    (void)be;
    cuzk__error_clear(err);
    gpu_key *k = (gpu_key *)key;
    pthread_mutex_lock(&k->lock); /* the decodes and loader_reap are the proofs' too */
    cuzk_status st = cuzk__gpu_set_device(k->device); /* the decodes run on it */
    if (st != CUZK_OK)
        gpu_fail(err, st, "selecting the device");
    else
        st = vectors_wait(k, 5, err);
    loader_reap(k, 0);
    pthread_mutex_unlock(&k->lock);
    return st;
}

static cuzk_status gpu_prepare_zkey(cuzk_backend *be, cuzk_backend_key **out,
                                    const cuzk_zkey *zk, cuzk_error *err) {
    cuzk__error_clear(err);
    cuzk_status st;
    if ((st = cuzk__gpu_set_device(be->device)) != CUZK_OK)
        return gpu_fail(err, st, "selecting the device");
    if (zk->root != CUZK_NTT_ROOT5 || zk->h_kind != CUZK_H_ODD_COSET_LAGRANGE)
        return cuzk__fail(err, CUZK_ERR_UNSUPPORTED,
                          "%s: only snarkjs keys (root 5^t, odd-coset H) are proved here",
                          zk->file.path);
    if (be->impl == NULL) return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "GPU backend not opened");
    gpu_key *k = key_new(be);
    if (k == NULL) return cuzk__fail(err, CUZK_ERR_NOMEM, "no memory for a backend key");
    k->zk = zk;
    k->n_vars = zk->n_vars;
    k->n_dom = zk->domain_size;
    k->n_h = zk->domain_size;
    k->l_first = (uint64_t)zk->n_public + 1;
    k->max_query = k->n_vars > k->n_dom ? k->n_vars : k->n_dom;
    /* page-locked, so its upload is one DMA; else through the staging buffers */
    const size_t abc_bytes = 3 * (size_t)k->n_dom * sizeof(cuzk_fr);
    if ((k->inst->hooks.pin_fail & CUZK__GPU_PIN_FAIL_ABC) == 0 &&
        cuzk__gpu_host_alloc((void **)&k->host_abc, abc_bytes) == CUZK_OK)
        k->host_abc_pinned = 1;
    else
        k->host_abc = cuzk__alloc_large(abc_bytes);
    if (k->host_abc == NULL) {
        st = cuzk__fail(err, CUZK_ERR_NOMEM, "no memory for a, b, c");
        goto fail;
    }
    if ((st = cuzk__gpu_ntt_domain_create(&k->dom, zk->log_domain_size, CUZK_NTT_ROOT5)) !=
        CUZK_OK) {
        gpu_fail(err, st, "NTT tables");
        goto fail;
    }
    if ((st = upload_g1(&k->h, zk->h.p, zk->h.n, "uploading section H", err)) != CUZK_OK ||
        (st = upload_g1(&k->l, zk->c.p, zk->c.n, "uploading section C", err)) != CUZK_OK ||
        (st = upload_g1(&k->a, zk->a.p, zk->a.n, "uploading section A", err)) != CUZK_OK ||
        (st = upload_g1(&k->b1, zk->b1.p, zk->b1.n, "uploading section B1", err)) != CUZK_OK ||
        (st = upload_g2(&k->b2, zk->b2.p, zk->b2.n, "uploading section B2", err)) != CUZK_OK)
        goto fail;
    if ((st = work_alloc(k, err)) != CUZK_OK) goto fail;
    k->alpha1 = zk->alpha1;
    k->beta1 = zk->beta1;
    k->delta1 = zk->delta1;
    k->beta2 = zk->beta2;
    k->delta2 = zk->delta2;
    k->base.n_inputs = (uint64_t)zk->n_public + 1;
    k->base.n_aux = zk->n_vars - k->base.n_inputs;
    k->base.n_public = zk->n_public;
    k->base.log_domain = zk->log_domain_size;
    *out = &k->base;
    return CUZK_OK;
fail:
    key_free(k);
    return st;
}

/* ---- one proof ------------------------------------------------------------------ */

/*
 * Host -> device copy of an input (a proof's witness, backend_gpu.h; the
 * circuit's arrays at key preparation, staged_copy): one DMA from
 * page-locked memory; from pageable memory chunk i goes to staging buffer
 * i % 2 once the DMA of chunk i - 2 has read it, and its DMA is queued, so
 * the CPU copies one chunk while the device reads the previous one. After a
 * failure, copies still queued stay ordered before any later device work and
 * are waited for before a buffer is refilled or freed.
 */
/* Chunks of src through the two page-locked staging buffers stage[0..1] on
 * queue cq (see upload_input), counted in *chunks_sent; waits for the last
 * copy. */
static cuzk_status upload_chunked(cuzk__gpu_copy_queue *cq, void *const stage[2],
                                  size_t stage_bytes, unsigned threads, void *dst,
                                  const void *src, size_t bytes, uint64_t *chunks_sent) {
    const uint8_t *s = src;
    uint8_t *d = dst;
    uint64_t chunks = 0;
    cuzk_status st = CUZK_OK;
    for (size_t off = 0; off < bytes; chunks++) {
        const unsigned slot = (unsigned)(chunks & 1);
        const size_t n = bytes - off < stage_bytes ? bytes - off : stage_bytes;
        if ((st = cuzk__gpu_copy_queue_wait(cq, slot)) != CUZK_OK) return st;
        cuzk__memcpy_parallel(stage[slot], s + off, n, threads);
        if ((st = cuzk__gpu_copy_queue_upload(cq, slot, d + off, stage[slot], n)) != CUZK_OK)
            return st;
        off += n;
    }
    count_uploads(chunks_sent, chunks);
    return cuzk__gpu_copy_queue_sync(cq);
}

static cuzk_status upload_input(gpu_key *k, void *dst, const void *src, size_t bytes) {
    if (bytes == 0) return CUZK_OK;
    if (cuzk__gpu_host_is_pinned(src)) {
        count_uploads(&k->inst->stats.pinned, 1);
        return cuzk__gpu_upload(dst, src, bytes);
    }
    if (k->cq == NULL) {
        count_uploads(&k->inst->stats.pageable, 1);
        return cuzk__gpu_upload(dst, src, bytes);
    }
    return upload_chunked(k->cq, k->stage, k->stage_bytes, k->threads, dst, src, bytes,
                          &k->inst->stats.staged_chunks);
}

/* ---- pre-staging (cuzk_backend_stage) --------------------------------------------- */

/* Removes entry i of the announcement queue (st_mu held). */
static void stage_unqueue(gpu_key *k, unsigned i) {
    for (; i + 1 < k->st_nq; i++) k->st_q[i] = k->st_q[i + 1];
    k->st_nq--;
}

/* The worker: copies the oldest announced witness whenever the slot is empty. */
static void *stage_worker(void *arg) {
    gpu_key *k = arg;
    const cuzk_status dev = cuzk__gpu_set_device(k->device);
    pthread_mutex_lock(&k->st_mu);
    for (;;) {
        while (!k->st_quit && (k->st_nq == 0 || k->st_state != SLOT_EMPTY))
            pthread_cond_wait(&k->st_cv, &k->st_mu);
        if (k->st_quit) break;
        const cuzk_witness *w = k->st_q[0];
        stage_unqueue(k, 0);
        k->st_have = w;
        k->st_have_values = w->values;
        k->st_state = SLOT_COPYING;
        pthread_mutex_unlock(&k->st_mu);
        const size_t bytes = (size_t)k->n_vars * 32;
        cuzk_status st = dev;
        if (st == CUZK_OK && cuzk__gpu_host_is_pinned(w->values)) {
            /* DMA straight from it, a chunk at a time: the proof's device-wide
             * synchronizations then wait for one chunk, not the whole witness */
            const uint8_t *src = (const uint8_t *)w->values;
            for (size_t off = 0; st == CUZK_OK && off < bytes; off += k->st_stage_bytes) {
                const size_t n = bytes - off < k->st_stage_bytes ? bytes - off : k->st_stage_bytes;
                st = cuzk__gpu_copy_queue_upload(k->st_cq, 0, (uint8_t *)k->w_slot + off,
                                                 src + off, n);
                if (st == CUZK_OK) st = cuzk__gpu_copy_queue_sync(k->st_cq);
            }
        } else if (st == CUZK_OK) {
            st = upload_chunked(k->st_cq, k->st_stage, k->st_stage_bytes, k->threads, k->w_slot,
                                w->values, bytes, &k->inst->stats.staged_chunks);
        }
        pthread_mutex_lock(&k->st_mu);
        k->st_state = st == CUZK_OK ? SLOT_READY : SLOT_FAILED;
        pthread_cond_broadcast(&k->st_cv);
    }
    pthread_mutex_unlock(&k->st_mu);
    return NULL;
}

static void stage_stop(gpu_key *k) {
    pthread_mutex_lock(&k->st_mu);
    k->st_quit = 1;
    pthread_cond_broadcast(&k->st_cv);
    pthread_mutex_unlock(&k->st_mu);
    if (k->st_thread_on) (void)pthread_join(k->st_thread, NULL);
    k->st_thread_on = 0;
}

/* Staging stays off for the key: what stage_setup made is released. */
static void stage_off(gpu_key *k) {
    cuzk__gpu_copy_queue_free(k->st_cq);
    cuzk__gpu_host_free(k->st_stage[0]);
    cuzk__gpu_host_free(k->st_stage[1]);
    cuzk__gpu_free(k->w_slot);
    k->st_cq = NULL;
    k->st_stage[0] = k->st_stage[1] = k->w_slot = NULL;
    pthread_mutex_lock(&k->st_mu);
    k->st_off = 1;
    k->st_nq = 0;
    pthread_mutex_unlock(&k->st_mu);
}

/* Staging goes off after a level fit that did not make the room: the MSMs
 * get back the budgets that the slot was to pay for, when the device has
 * room for their area to grow back to its size before the fit (else the
 * next proof's MSMs could not reserve it: the smaller area stays, as it
 * does when the device's free memory cannot be read). */
static void stage_give_up(gpu_key *k) {
    cuzk__gpu_msm_bases *hs[5];
    const unsigned nh = k->h != NULL ? key_msms(k, hs) : 0;
    size_t free_b = 0, total_b = 0;
    if (k->st_fitted && nh > 0 && cuzk__gpu_mem_info(&free_b, &total_b) == CUZK_OK) {
        const size_t now = cuzk__gpu_msm_bases_work_bytes(k->h);
        const size_t grow = k->st_area > now ? k->st_area - now : 0;
        if (grow + ((size_t)2 << 20) <= free_b) {
            for (unsigned i = 0; i < nh; i++)
                cuzk__gpu_msm_bases_restore_level_budget(hs[i], k->st_budgets[i]);
            count_uploads(&k->inst->stats.level_restores, 1);
        }
    }
    stage_off(k);
}

/*
 * After a proof, under the key's lock, once stage has been called: the slot
 * (a second witness buffer), its staging buffers and stream, and the worker.
 * Only with room to spare (twice the slot free after it, so the next
 * proofs' MSM areas may still grow); otherwise staging stays off for the
 * key and every proof uploads its witness itself. Short of room the first
 * time, the MSMs' work area is freed to be reserved smaller by the next
 * proof, its level budget lowered where that is what makes the room (fewer
 * windows per group: a slower MSM, but at 2^27 an unstaged witness costs
 * ~80 ms a proof, more than a window group less, doc/perf.md session 11);
 * this runs again after that proof to see whether the room is there, and
 * if it is not, staging goes off and the budgets are put back (stage_give_up).
 */
static void stage_setup(gpu_key *k) {
    const size_t bytes = (size_t)k->n_vars * 32;
    const size_t chunk = k->stage_bytes ? k->stage_bytes : ((size_t)8 << 20);
    k->st_stage_bytes = chunk; /* before the worker starts: it may copy at once */
    /* the host side first: without it no budget is worth lowering */
    if (k->st_cq == NULL &&
        ((k->inst->hooks.pin_fail & CUZK__GPU_PIN_FAIL_STAGE) != 0 ||
         cuzk__gpu_copy_queue_create_beside(&k->st_cq, 2) != CUZK_OK ||
         cuzk__gpu_host_alloc(&k->st_stage[0], chunk) != CUZK_OK ||
         cuzk__gpu_host_alloc(&k->st_stage[1], chunk) != CUZK_OK)) {
        stage_off(k);
        return;
    }
    size_t free_b = 0, total_b = 0;
    if (cuzk__gpu_mem_info(&free_b, &total_b) != CUZK_OK) {
        stage_give_up(k);
        return;
    }
    /* the look after a fit: the room may still not be there (another
     * allocation took it, or the estimate was short) */
    if (k->st_fitted && k->inst->hooks.room_fail) free_b = 0;
    if (free_b < 3 * bytes) {
        cuzk__gpu_msm_bases *hs[5];
        const unsigned nh = k->h != NULL ? key_msms(k, hs) : 0;
        if (!k->st_fitted && nh > 0) {
            unsigned serves[5];
            int freed = 0;
            for (unsigned i = 0; i < nh; i++) { /* H unmasked; the others classified */
                serves[i] = hs[i] == k->h ? CUZK__GPU_MSM_SERVES_MSM : CUZK__GPU_MSM_SERVES_MASKED;
                k->st_budgets[i] = cuzk__gpu_msm_bases_level_budget(hs[i]);
            }
            k->st_area = cuzk__gpu_msm_bases_work_bytes(k->h);
            if (cuzk__gpu_msm_bases_fit_work(hs, serves, nh, free_b, 3 * bytes, &freed) !=
                CUZK_OK)
                freed = 0;
            if (freed) { /* a fit that does not help is undone: stage_give_up */
                k->st_fitted = 1;
                count_uploads(&k->inst->stats.level_fits, 1);
                return; /* still wanted: again after the next proof */
            }
        }
        stage_give_up(k);
        return;
    }
    if (cuzk__gpu_alloc(&k->w_slot, bytes) != CUZK_OK ||
        pthread_create(&k->st_thread, NULL, stage_worker, k) != 0) {
        cuzk__gpu_free(k->w_slot); /* before stage_give_up looks at free memory */
        k->w_slot = NULL;
        stage_give_up(k);
        return;
    }
    pthread_mutex_lock(&k->st_mu);
    k->st_thread_on = 1;
    pthread_cond_broadcast(&k->st_cv);
    pthread_mutex_unlock(&k->st_mu);
}

/* CUZK_OK when w has values and the key's variables (for a circuit, also
 * its input/aux split), else the refusal, naming the call op. */
static cuzk_status witness_check(const gpu_key *k, const cuzk_witness *w, const char *op,
                                 cuzk_error *err) {
    if (w == NULL || w->values == NULL)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "%s: NULL witness", op);
    if (cuzk_witness_n_vars(w) != k->n_vars ||
        (k->c != NULL && (w->n_inputs != k->c->n_inputs || w->n_aux != k->c->n_aux)))
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                          "%s: %s: witness has %llu inputs + %llu aux, the key expects %llu "
                          "variables: witness of another circuit?",
                          op, w->path ? w->path : "(witness)", (ull)w->n_inputs, (ull)w->n_aux,
                          (ull)k->n_vars);
    return CUZK_OK;
}

/* The slot holds nothing any more (st_mu held; wakes the worker and any
 * proof waiting on the slot). */
static void slot_clear(gpu_key *k) {
    k->st_state = SLOT_EMPTY;
    k->st_have = NULL;
    k->st_have_values = NULL;
    pthread_cond_broadcast(&k->st_cv);
}

/* Index of the first announcement of w, or -1 (st_mu held). */
static int stage_find(const gpu_key *k, const cuzk_witness *w) {
    for (unsigned i = 0; i < k->st_nq; i++)
        if (k->st_q[i] == w) return (int)i;
    return -1;
}

/*
 * At the start of a proof of w (under the key's lock, before anything that
 * can fail): 1 when the slot holds w, copied (w_plain and w_slot swapped;
 * the slot is free for the next announcement), 0 when the proof uploads w
 * itself. The rule that keeps every proof's witness its own: once a proof
 * of w has begun, nothing copies w for it any more. So a miss removes w's
 * announcement and the older ones it overtook from the queue (their copies
 * would come too late or never be taken), and a slot holding another
 * witness is emptied. To find w when it was announced in order, the call
 * waits for a copy in progress, and for the worker to take w when w is the
 * oldest announcement and the slot is free: then what a proof finds depends
 * on the order of the calls, not on thread timing.
 */
static int stage_take(gpu_key *k, const cuzk_witness *w) {
    int hit = 0;
    pthread_mutex_lock(&k->st_mu);
    while (k->st_state == SLOT_COPYING ||
           (k->st_thread_on && k->st_state == SLOT_EMPTY && k->st_nq > 0 && k->st_q[0] == w))
        pthread_cond_wait(&k->st_cv, &k->st_mu);
    if (k->st_state == SLOT_READY && k->st_have == w && k->st_have_values == w->values) {
        void *t = k->w_plain;
        k->w_plain = k->w_slot;
        k->w_slot = t;
        hit = 1;
    } else {
        const int i = stage_find(k, w);
        for (int d = 0; d <= i; d++) stage_unqueue(k, 0);
    }
    slot_clear(k);
    pthread_mutex_unlock(&k->st_mu);
    count_uploads(hit ? &k->inst->stats.staged_witness : &k->inst->stats.unstaged_witness, 1);
    return hit;
}

static cuzk_status gpu_stage(cuzk_backend *be, cuzk_backend_key *key, const cuzk_witness *w,
                             cuzk_error *err) {
    (void)be;
    cuzk__error_clear(err);
    gpu_key *k = (gpu_key *)key;
    cuzk_status st;
    if (w != NULL && (st = witness_check(k, w, "stage", err)) != CUZK_OK) return st;
    pthread_mutex_lock(&k->st_mu);
    if (w == NULL) { /* withdraw: nothing announced is read after this returns */
        k->st_nq = 0;
        while (k->st_state == SLOT_COPYING) pthread_cond_wait(&k->st_cv, &k->st_mu);
        slot_clear(k); /* also wakes a proof waiting for an announcement just cleared */
    } else if (!k->st_off) {
        k->st_wanted = 1;
        if (k->st_nq == STAGE_QUEUE) stage_unqueue(k, 0);
        k->st_q[k->st_nq++] = w;
        pthread_cond_broadcast(&k->st_cv);
    }
    pthread_mutex_unlock(&k->st_mu);
    return CUZK_OK;
}

/* The 0/1/other classification of n device scalars into the key's device
 * bitmaps, for classified_msm over one or more bases. */
static cuzk_status classify(gpu_key *k, cuzk__gpu_msm_counts *cnt, const uint64_t *scalars,
                            uint64_t n, cuzk_groth16_stage_times *t, cuzk_error *err) {
    const double t0 = now_ms();
    cuzk_status st =
        cuzk__gpu_msm_classify(NULL, k->bm_one, k->bm_other, cnt, scalars, (size_t)n);
    t->prep_ms += now_ms() - t0;
    if (st != CUZK_OK) return gpu_fail(err, st, "classifying scalars");
    return CUZK_OK;
}

/* sum over the n device scalars of scalar * base, after classify() of the
 * same scalars (cnt and the key's bitmaps): batch-add of the ones, Pippenger
 * over the others (result: host Jacobian words). */
static cuzk_status classified_msm(gpu_key *k, cuzk__gpu_msm_bases *b, int g2, uint64_t *result,
                                  const uint64_t *scalars, uint64_t n,
                                  const cuzk__gpu_msm_counts *cnt, cuzk_groth16_stage_times *t,
                                  cuzk_error *err) {
    uint64_t ones[36], others[36];
    memset(ones, 0, sizeof(ones));
    memset(others, 0, sizeof(others));
    if (n == 0 || b == NULL) {
        if (g2)
            cuzk_g2_jac_set_inf((cuzk_g2_jac *)(void *)result);
        else
            cuzk_g1_jac_set_inf((cuzk_g1_jac *)(void *)result);
        return CUZK_OK;
    }
    cuzk_status st;
    double t0 = now_ms();
    if (cnt->one && (st = cuzk__gpu_msm_batch_add(b, ones, n, k->bm_one)) != CUZK_OK)
        return gpu_fail(err, st, "batch-add");
    t->batch_add_ms += now_ms() - t0;
    t0 = now_ms();
    if (cnt->other && (st = cuzk__gpu_msm(b, others, scalars, n, k->bm_other)) != CUZK_OK)
        return gpu_fail(err, st, "tail MSM");
    if (g2)
        t->b_g2_msm_ms += now_ms() - t0;
    else
        t->tail_msm_ms += now_ms() - t0;
    /* ones + others on the host (Jacobian; the empty sums are the zeroed infinity) */
    if (g2) {
        cuzk_g2_jac x, y;
        memcpy(&x, ones, sizeof(x));
        memcpy(&y, others, sizeof(y));
        if (!cnt->one) cuzk_g2_jac_set_inf(&x);
        if (!cnt->other) cuzk_g2_jac_set_inf(&y);
        cuzk_g2_jac_add_var(&x, &x, &y);
        memcpy(result, &x, sizeof(x));
    } else {
        cuzk_g1_jac x, y;
        memcpy(&x, ones, sizeof(x));
        memcpy(&y, others, sizeof(y));
        if (!cnt->one) cuzk_g1_jac_set_inf(&x);
        if (!cnt->other) cuzk_g1_jac_set_inf(&y);
        cuzk_g1_jac_add_var(&x, &x, &y);
        memcpy(result, &x, sizeof(x));
    }
    return CUZK_OK;
}

/* classify, then classified_msm over one base vector. */
static cuzk_status split_msm(gpu_key *k, cuzk__gpu_msm_bases *b, int g2, uint64_t *result,
                             const uint64_t *scalars, uint64_t n, cuzk_groth16_stage_times *t,
                             cuzk_error *err) {
    cuzk__gpu_msm_counts cnt = {0, 0, 0};
    cuzk_status st;
    if (n != 0 && b != NULL && (st = classify(k, &cnt, scalars, n, t, err)) != CUZK_OK)
        return st;
    return classified_msm(k, b, g2, result, scalars, n, &cnt, t, err);
}

/* B1 (G1) and B2 (G2) over the same n scalars: one classification for both. */
static cuzk_status b_msms(gpu_key *k, cuzk_groth16_partial *out, const uint64_t *scalars,
                          uint64_t n, cuzk_groth16_stage_times *t, cuzk_error *err) {
    cuzk__gpu_msm_counts cnt = {0, 0, 0};
    cuzk_status st;
    if (n != 0 && (k->b1 != NULL || k->b2 != NULL) &&
        (st = classify(k, &cnt, scalars, n, t, err)) != CUZK_OK)
        return st;
    if ((st = classified_msm(k, k->b1, 0, (uint64_t *)&out->msm_b1, scalars, n, &cnt, t, err)) !=
        CUZK_OK)
        return st;
    return classified_msm(k, k->b2, 1, (uint64_t *)&out->msm_b2, scalars, n, &cnt, t, err);
}

/* Bellman: witness -> a, b, c -> check -> H (plain, in abc's first third). */
static cuzk_status stage_h_bellman(gpu_key *k, const cuzk_witness *w, int staged,
                                   cuzk_groth16_stage_times *t, cuzk_error *err) {
    const cuzk_circuit *c = k->c;
    const uint64_t n = k->n_dom;
    uint8_t *abc = k->abc;
    void *a = abc, *b = abc + 32 * n, *cc = abc + 64 * n;
    cuzk_status st;
    double t0 = now_ms();
    if (!staged) { /* ahead of a loader still copying the key's vectors */
        if (k->ld_thread_on) loader_yield(k, 1);
        st = upload_input(k, k->w_plain, w->values, k->n_vars * 32);
        if (k->ld_thread_on) loader_yield(k, 0);
        if (st != CUZK_OK) return gpu_fail(err, st, "witness -> a, b, c");
    }
    if ((st = cuzk__gpu_fr_to_mont(k->w_mont, k->w_plain, k->n_vars, NULL)) != CUZK_OK ||
        (st = cuzk__gpu_circuit_abc(k->gc, a, b, cc, k->w_mont, NULL)) != CUZK_OK ||
        (st = cuzk__gpu_sync()) != CUZK_OK)
        return gpu_fail(err, st, "witness -> a, b, c");
    t->spmv_ms = now_ms() - t0;
    t0 = now_ms();
    uint64_t bad = UINT64_MAX;
    if ((st = cuzk__gpu_circuit_check(k->gc, a, b, cc, &bad, NULL)) != CUZK_OK)
        return gpu_fail(err, st, "satisfaction check");
    t->check_ms = now_ms() - t0;
    if (bad != UINT64_MAX)
        return cuzk__fail(err, CUZK_ERR_WITNESS_UNSATISFIED,
                          "%s: witness %s does not satisfy constraint %llu (A*B != C)",
                          c->path ? c->path : "(circuit)", w->path ? w->path : "(assignment)",
                          (ull)bad);
    t0 = now_ms();
    if ((st = cuzk__gpu_h_bellman(k->dom, a, b, cc, NULL)) != CUZK_OK ||
        (st = cuzk__gpu_fr_from_mont(a, a, (size_t)k->n_h, NULL)) != CUZK_OK ||
        (st = cuzk__gpu_sync()) != CUZK_OK)
        return gpu_fail(err, st, "H");
    t->ntt_ms = now_ms() - t0;
    return CUZK_OK;
}

/* snarkjs: a, b, c from the coefficients on the CPU, H on the device. */
static cuzk_status stage_h_zkey(gpu_key *k, const cuzk_witness *w, int staged,
                                cuzk_groth16_stage_times *t, cuzk_error *err) {
    const uint64_t n = k->n_dom;
    uint8_t *abc = k->abc;
    void *a = abc, *b = abc + 32 * n, *cc = abc + 64 * n;
    double t0 = now_ms();
    cuzk_status st = cuzk__groth16_zkey_abc(k->zk, (const uint64_t(*)[4])w->values,
                                            (size_t)cuzk_witness_n_vars(w), k->host_abc, err);
    if (st != CUZK_OK) return st;
    if ((st = upload_input(k, abc, k->host_abc, 3 * n * 32)) != CUZK_OK ||
        (!staged && (st = upload_input(k, k->w_plain, w->values, k->n_vars * 32)) != CUZK_OK))
        return gpu_fail(err, st, "uploading a, b, c and the witness");
    t->spmv_ms = now_ms() - t0;
    t0 = now_ms();
    if ((st = cuzk__gpu_h_snarkjs(k->dom, a, b, cc, NULL)) != CUZK_OK ||
        (st = cuzk__gpu_fr_from_mont(a, a, (size_t)n, NULL)) != CUZK_OK ||
        (st = cuzk__gpu_sync()) != CUZK_OK)
        return gpu_fail(err, st, "H");
    t->ntt_ms = now_ms() - t0;
    return CUZK_OK;
}

/* Vector v (and those before it) on the device: a key from prepare_early
 * may still be loading it, or have it to decode (key_wait counts both). */
static cuzk_status vector_need(gpu_key *k, cuzk_params_vec v, cuzk_groth16_stage_times *t,
                               cuzk_error *err) {
    if (k->ld_decoded > (unsigned)v) return CUZK_OK;
    const double t0 = now_ms();
    const cuzk_status st = vectors_wait(k, 1 + (unsigned)v, err);
    t->key_wait_ms += now_ms() - t0;
    return st;
}

static cuzk_status prove_locked(gpu_key *k, gpu_job *j, const cuzk_witness *w, cuzk_error *err) {
    cuzk_groth16_stage_times *t = &j->base.t;
    cuzk_groth16_partial *out = &j->part;
    cuzk_status st;
    if ((st = witness_check(k, w, "prove_start", err)) != CUZK_OK) return st;
    /* first, so that every proof uses up its announcement, also one that
     * fails below (stage_take); a wait for its copy counts as spmv */
    const double t_take = now_ms();
    const int staged = stage_take(k, w);
    const double take_ms = now_ms() - t_take;
    j->base.witness_staged = staged;
    if ((st = load_status(k, err)) != CUZK_OK) return st; /* a vector failed to load */
    if ((st = cuzk__gpu_set_device(k->device)) != CUZK_OK)
        return gpu_fail(err, st, "selecting the device");
    st = k->zk ? stage_h_zkey(k, w, staged, t, err) : stage_h_bellman(k, w, staged, t, err);
    if (st != CUZK_OK) return st;
    t->spmv_ms += take_ms;

    /* H: N - 1 (bellman) or N (snarkjs) random scalars, no split */
    cuzk_g1_jac msm_h, msm_l;
    cuzk_g1_jac_set_inf(&msm_h); /* a domain of 1 has no h points */
    if ((st = vector_need(k, CUZK_PARAMS_VEC_H, t, err)) != CUZK_OK) return st;
    double t0 = now_ms();
    if (k->n_h != 0 &&
        (st = cuzk__gpu_msm(k->h, (uint64_t *)&msm_h, k->abc, (size_t)k->n_h, NULL)) != CUZK_OK)
        return gpu_fail(err, st, "H MSM");
    t->msm_h_ms = now_ms() - t0;

    const uint64_t *wp = k->w_plain;
    /* L (bellman) or C (snarkjs): the aux / private variables in place */
    if ((st = vector_need(k, CUZK_PARAMS_VEC_L, t, err)) != CUZK_OK ||
        (st = split_msm(k, k->l, 0, (uint64_t *)&msm_l, wp + 4 * k->l_first,
                        k->n_vars - k->l_first, t, err)) != CUZK_OK)
        return st;
    if (k->c != NULL) {
        const cuzk__gpu_circuit_info *info = cuzk__gpu_circuit_info_of(k->gc);
        t0 = now_ms();
        if ((st = cuzk__gpu_fr_gather(k->gath, wp, info->a_vars, (size_t)info->a_count, NULL)) !=
            CUZK_OK)
            return gpu_fail(err, st, "gathering A's scalars");
        t->prep_ms += now_ms() - t0;
        if ((st = vector_need(k, CUZK_PARAMS_VEC_A, t, err)) != CUZK_OK ||
            (st = split_msm(k, k->a, 0, (uint64_t *)&out->msm_a, k->gath, info->a_count, t,
                            err)) != CUZK_OK)
            return st;
        t0 = now_ms();
        if ((st = cuzk__gpu_fr_gather(k->gath, wp, info->b_vars, (size_t)info->b_count, NULL)) !=
            CUZK_OK)
            return gpu_fail(err, st, "gathering B's scalars");
        t->prep_ms += now_ms() - t0;
        if ((st = vector_need(k, CUZK_PARAMS_VEC_B_G2, t, err)) != CUZK_OK ||
            (st = b_msms(k, out, k->gath, info->b_count, t, err)) != CUZK_OK)
            return st;
    } else { /* snarkjs: A, B1, B2 over every variable */
        if ((st = split_msm(k, k->a, 0, (uint64_t *)&out->msm_a, wp, k->n_vars, t, err)) !=
                CUZK_OK ||
            (st = b_msms(k, out, wp, k->n_vars, t, err)) != CUZK_OK)
            return st;
    }
    cuzk_g1_jac_add_var(&out->msm_ch, &msm_l, &msm_h);
    out->alpha1 = k->alpha1;
    out->beta1 = k->beta1;
    out->delta1 = k->delta1;
    out->beta2 = k->beta2;
    out->delta2 = k->delta2;
    /* the per-MSM view of the snarkjs timings, for callers that print it */
    out->t.abc_ms = t->spmv_ms + t->check_ms;
    out->t.ntt_ms = t->ntt_ms;
    out->t.msm_h_ms = t->msm_h_ms;
    return CUZK_OK;
}

/*
 * Shifted copies of the bases of the key's dense MSMs, H and L (A and B_G1
 * are sparse tails), once the key has done k->copies_after proofs: a 2^24
 * porep partition's H MSM goes from 104.5 to 91.2 ms with them, the proof
 * from 180.5 to 168.1 (doc/perf.md, session 21). A handle gets them only if
 * its calls would read them: H's MSM of all its points, L's masked MSM at
 * the most points it has had (a masked MSM of few points does not read
 * them, and copies nobody reads would only hold memory). Making them costs
 * ~0.9 s a handle at 2^24, which a key that has served that many proofs is
 * likely to earn back (1.8 s for H and L against 13-28 ms saved a proof:
 * 64-140 proofs; a one-shot command's few proofs never pay for them). They
 * take the room the proofs leave: after the first proofs the work area and the
 * staging slot are made, and cuzk__gpu_msm_bases_precompute_fit keeps a
 * sixteenth of the device free beside them (other keys, the estimate's
 * error); where the room is not there (a 2^27 partition) nothing changes.
 * A failure leaves the handle as it was: the proofs go on without copies.
 */
static void key_copies(gpu_key *k) {
    size_t free_b = 0, total_b = 0;
    if (cuzk__gpu_mem_info(&free_b, &total_b) != CUZK_OK) return;
    /* H's MSM has all of its points; L's is masked (its scalars 0 and 1 apart) */
    cuzk__gpu_msm_bases *const hs[2] = {k->h, k->l};
    const unsigned serves[2] = {CUZK__GPU_MSM_SERVES_MSM, CUZK__GPU_MSM_SERVES_MASKED};
    for (int i = 0; i < 2; i++) {
        unsigned made = 1;
        if (hs[i] != NULL &&
            cuzk__gpu_msm_bases_precompute_fit(hs[i], k->inst->hooks.copies_max, serves[i],
                                               total_b / 16, &made) == CUZK_OK &&
            made > 1)
            count_uploads(&k->inst->stats.copies, made);
    }
}

static cuzk_status gpu_prove_start(cuzk_backend *be, cuzk_backend_job **out,
                                   cuzk_backend_key *key, const cuzk_witness *w,
                                   cuzk_error *err) {
    (void)be;
    cuzk__error_clear(err);
    gpu_key *k = (gpu_key *)key;
    gpu_job *j = calloc(1, sizeof(*j));
    if (j == NULL) return cuzk__fail(err, CUZK_ERR_NOMEM, "no memory for a proof job");
    j->base.ops = &cuzk_backend_gpu;
    const double t0 = now_ms();
    pthread_mutex_lock(&k->lock);
    cuzk_status st = prove_locked(k, j, w, err);
    loader_reap(k, 0); /* its buffers go once it is done, before the staging's look */
    int staging_open = 0; /* the slot wanted, neither made nor given up yet */
    if (st == CUZK_OK && !k->st_thread_on && !k->st_off) {
        pthread_mutex_lock(&k->st_mu);
        const int wanted = k->st_wanted;
        pthread_mutex_unlock(&k->st_mu);
        if (wanted) stage_setup(k);
        staging_open = wanted && !k->st_thread_on && !k->st_off;
    }
    const double t1 = now_ms();
    if (st == CUZK_OK) k->proofs++;
    /* the copies take what room is left once the slot is settled; not this proof's time */
    if (st == CUZK_OK && k->copies_after != 0 && k->proofs >= k->copies_after &&
        !staging_open) {
        k->copies_after = 0; /* once a key */
        key_copies(k);
    }
    pthread_mutex_unlock(&k->lock);
    j->base.t.total_ms = t1 - t0;
    j->part.t.total_ms = j->base.t.total_ms;
    if (st != CUZK_OK) {
        cuzk__backend_partial_release(be, &j->base);
        return st;
    }
    *out = &j->base;
    return CUZK_OK;
}

static void gpu_release_key(cuzk_backend *be, cuzk_backend_key *key) {
    (void)be;
    key_free((gpu_key *)key);
}

const cuzk_backend_ops cuzk_backend_gpu = {
    .name = "gpu",
    .reads_deferred_points = 1,
    .open = gpu_open,
    .close = gpu_close,
    .prepare = gpu_prepare,
    .prepare_early = gpu_prepare_early,
    .key_wait = gpu_key_wait,
    .prepare_zkey = gpu_prepare_zkey,
    .prove_start = gpu_prove_start,
    .stage = gpu_stage,
    .prove_finish = cuzk__backend_partial_finish,
    .release_job = cuzk__backend_partial_release,
    .release_key = gpu_release_key,
};
