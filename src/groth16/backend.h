/*
 * backend.h — the prover backend interface (doc/design.md, "The backend
 * interface": prepare, prove_start, prove_finish, release). The engine, the
 * commands and the benchmarks prove through it; the CPU backend
 * (backend_cpu.c) always exists, a CUDA backend (src/gpu, C-callable)
 * provides another cuzk_backend_ops value.
 *
 * Objects
 *   cuzk_backend      one instance: the ops, a thread count, a device ordinal
 *                     and the backend's own state (CPU: none; GPU: a device
 *                     context, streams, the memory planner).
 *   cuzk_backend_key  a prepared circuit: circuit + bellman parameters, or a
 *                     snarkjs .zkey (prepare_zkey, optional). CPU: borrows
 *                     them and keeps the NTT domain; GPU: uploads the SRS and
 *                     the CSR matrices (resident mode) or plans streaming.
 *   cuzk_backend_job  one proof between prove_start and prove_finish.
 *
 * Every key and job starts with the common header below; a backend puts it
 * as the FIRST member of its own struct and hands out a pointer to it (C's
 * first-member rule makes the cast back well defined, also in C++/CUDA for
 * standard-layout structs). The inline dispatchers at the end call through
 * the header's ops.
 *
 * Ownership (the reference system had a use-after-free exactly here):
 *   - prepare BORROWS the circuit and parameters (or the zkey): they stay
 *     open and unchanged until release_key.
 *   - prove_start borrows the witness for the call only; stage borrows it
 *     until the prove_start it announces has begun (or a withdrawal, or
 *     release_key).
 *   - A job OWNS everything prove_finish needs (MSM results, copies of the
 *     key points, its times; a GPU job also whatever is still in flight). Once
 *     prove_start has returned, the witness, the key, the circuit and the
 *     parameters may all be released before prove_finish.
 *   - release_job frees a job whether it was finished or not (an abandoned
 *     proof); release_key frees a key (its started jobs are unaffected).
 *   - A failing prove_start leaves *out NULL; a failing prove_finish leaves
 *     the job to release_job.
 * Concurrency: a key is immutable after prepare; several threads may call
 * prove_start on one key at once (a backend serializes internally where its
 * device requires it). One job belongs to one thread at a time.
 *
 * r and s go to prove_finish only (plain scalars < r, from
 * cuzk_groth16_random_scalar; tests fix them to compare backends bit for
 * bit); they are secret, and the assembly is constant-time in them.
 */
#ifndef CUZK_BACKEND_H
#define CUZK_BACKEND_H

#include <stdint.h>

#include "circuit/circuit.h"
#include "util/error.h"
#include "groth16/groth16.h"
#include "io/params.h"
#include "circuit/witness.h"
#include "io/zkey.h"

typedef struct cuzk_backend_ops cuzk_backend_ops;

/* A key's device memory plan (src/gpu/plan.h; cuzk_backend_plan). */
struct cuzk__plan;

typedef struct {
    const cuzk_backend_ops *ops;
    unsigned threads; /* CPU threads the backend may use (0 = all cores) */
    int device;       /* device ordinal for a GPU backend; -1 for the CPU */
    void *impl;       /* the backend's state (set by open) */
    /* Where a test's fault plan is (util/fault.h), set after open (which
     * clears it); NULL: none ever. */
    struct cuzk__fault_slot *fault;
    /* Device bytes each key of this instance may take (0: the card's free
     * memory), set after open (which clears it), before prepare: the GPU
     * backend plans its keys within it (cuzk_backend_plan), so that a large
     * card proves as a small one would. */
    uint64_t vram_limit;
    /* The most resident memory plan a GPU key of this instance may take
     * (src/gpu/plan.h cuzk__plan_rung: 0 resident, any; 1 partly resident;
     * 2 streaming; 3 and 4 the same two with a, b, c made on the CPU; 5
     * none, the key is refused), set after open (which clears it), before
     * prepare: a lane whose key ran out of device memory is prepared again
     * a rung lower. */
    int plan_floor;
} cuzk_backend;

/* Common header of a prepared key. */
typedef struct {
    const cuzk_backend_ops *ops;
    uint64_t n_inputs, n_aux; /* the witness counts prove_start expects */
    uint64_t n_public;        /* inputs without the constant 1 (what a verifier takes) */
    unsigned log_domain;
} cuzk_backend_key;

/* Common header of a job. t is complete after prove_finish. witness_staged:
 * 1 when the proof found its witness already copied beside an earlier proof
 * (cuzk_backend_stage), 0 when it loaded the witness itself (no staging, or
 * staging off: a GPU turns it off when the device lacks the room). */
typedef struct {
    const cuzk_backend_ops *ops;
    cuzk_groth16_stage_times t;
    int witness_staged;
} cuzk_backend_job;

struct cuzk_backend_ops {
    const char *name; /* "cpu", "cuda" */
    /* prepare takes parameters opened with CUZK_PARAMS_DEFER_POINTS: it
     * reads and decodes the vectors itself (the GPU key, on its device);
     * callers open them so for such a backend, and the host never holds them */
    int reads_deferred_points;
    /* Sets up be->impl for be->threads / be->device. */
    cuzk_status (*open)(cuzk_backend *be, cuzk_error *err);
    void (*close)(cuzk_backend *be);
    /* A key for circuit c with its bellman parameters p (checked with
     * cuzk_groth16_check_params). */
    cuzk_status (*prepare)(cuzk_backend *be, cuzk_backend_key **out, const cuzk_circuit *c,
                           const cuzk_params *p, cuzk_error *err);
    /* Optional (NULL: prepare; see cuzk_backend_prepare_early), with key_wait. */
    cuzk_status (*prepare_early)(cuzk_backend *be, cuzk_backend_key **out,
                                 const cuzk_circuit *c, const cuzk_params *p, cuzk_error *err);
    cuzk_status (*key_wait)(cuzk_backend *be, cuzk_backend_key *key, cuzk_error *err);
    /* A key for a snarkjs .zkey; NULL when the backend has none. Its jobs
     * take a witness whose n_inputs + n_aux equals the key's nVars (the
     * split is ignored; cuzk_witness_from_values makes one from a .wtns). */
    cuzk_status (*prepare_zkey)(cuzk_backend *be, cuzk_backend_key **out, const cuzk_zkey *zk,
                                cuzk_error *err);
    /* Optional (NULL: everything in host memory; see cuzk_backend_plan). */
    cuzk_status (*plan)(cuzk_backend *be, struct cuzk__plan *out, const cuzk_circuit *c,
                        const cuzk_params *p, const cuzk_zkey *zk, cuzk_error *err);
    /* Optional (NULL: no plan kept): the plan a prepared key follows. */
    void (*key_plan)(const cuzk_backend_key *key, struct cuzk__plan *out);
    cuzk_status (*prove_start)(cuzk_backend *be, cuzk_backend_job **out, cuzk_backend_key *key,
                               const cuzk_witness *w, cuzk_error *err);
    /* Optional, both or neither (NULL: nothing to do; see cuzk_backend_stage
     * and cuzk_backend_withdraw). */
    cuzk_status (*stage)(cuzk_backend *be, cuzk_backend_key *key, const cuzk_witness *w,
                         cuzk_error *err);
    void (*withdraw)(cuzk_backend *be, cuzk_backend_key *key, const cuzk_witness *w);
    cuzk_status (*prove_finish)(cuzk_backend *be, cuzk_groth16_proof *proof,
                                cuzk_backend_job *job, const uint64_t r[4], const uint64_t s[4],
                                cuzk_error *err);
    void (*release_job)(cuzk_backend *be, cuzk_backend_job *job);
    void (*release_key)(cuzk_backend *be, cuzk_backend_key *key);
};

/*
 * A job whose heavy part produced a cuzk_groth16_partial (both backends):
 * finish assembles on the CPU (constant time in r, s) and release wipes the
 * witness-derived MSM results. Implemented in backend_cpu.c.
 */
typedef struct {
    cuzk_backend_job base; /* first member */
    cuzk_groth16_partial part;
    int finished;
} cuzk__backend_partial_job;

cuzk_status cuzk__backend_partial_finish(cuzk_backend *be, cuzk_groth16_proof *proof,
                                         cuzk_backend_job *job, const uint64_t r[4],
                                         const uint64_t s[4], cuzk_error *err);
void cuzk__backend_partial_release(cuzk_backend *be, cuzk_backend_job *job);

/* The CPU backend (backend_cpu.c): the provers of prove.c and
 * prove_circuit.c; a key holds the NTT domain so it is built once. */
extern const cuzk_backend_ops cuzk_backend_cpu;

/* ---- dispatchers ----------------------------------------------------------- */

/* Opens an instance of ops (threads 0 = all cores; device -1 = none). On
 * failure *be is zeroed. */
static inline cuzk_status cuzk_backend_open(cuzk_backend *be, const cuzk_backend_ops *ops,
                                            unsigned threads, int device, cuzk_error *err) {
    be->ops = ops;
    be->threads = threads;
    be->device = device;
    be->impl = NULL;
    be->fault = NULL;
    be->vram_limit = 0;
    be->plan_floor = 0;
    cuzk_status st = ops->open(be, err);
    if (st != CUZK_OK) {
        be->ops = NULL;
        be->impl = NULL;
    }
    return st;
}

/* Safe on a zeroed or closed instance. */
static inline void cuzk_backend_close(cuzk_backend *be) {
    if (be->ops != NULL) be->ops->close(be);
    be->ops = NULL;
    be->impl = NULL;
}

static inline cuzk_status cuzk_backend_prepare(cuzk_backend *be, cuzk_backend_key **out,
                                               const cuzk_circuit *c, const cuzk_params *p,
                                               cuzk_error *err) {
    *out = NULL;
    return be->ops->prepare(be, out, c, p, err);
}

/*
 * prepare, returning as soon as proofs can start. A backend that reads the
 * parameters' vectors itself (reads_deferred_points; the GPU) returns once
 * the first one (h) is loaded and loads the others beside the key's first
 * proofs, each of which waits for the vectors it needs (its key_wait_ms):
 * at 2^27 the first proof computes a, b, c, H and the H MSM while the 34 GB
 * of the other four load. A vector that fails to load fails every later
 * prove_start of the key with the message prepare would have given, and
 * cuzk_backend_key_wait. c and p stay borrowed as for prepare. Backends
 * without it: prepare (the key is whole on return).
 */
static inline cuzk_status cuzk_backend_prepare_early(cuzk_backend *be, cuzk_backend_key **out,
                                                     const cuzk_circuit *c,
                                                     const cuzk_params *p, cuzk_error *err) {
    *out = NULL;
    if (be->ops->prepare_early == NULL) return be->ops->prepare(be, out, c, p, err);
    return be->ops->prepare_early(be, out, c, p, err);
}

/* Waits until key is whole (at once for a key from prepare); CUZK_OK, or the
 * load's failure (the key then proves nothing: release it). */
static inline cuzk_status cuzk_backend_key_wait(cuzk_backend *be, cuzk_backend_key *key,
                                                cuzk_error *err) {
    if (be->ops->key_wait == NULL) return CUZK_OK;
    return be->ops->key_wait(be, key, err);
}

static inline cuzk_status cuzk_backend_prepare_zkey(cuzk_backend *be, cuzk_backend_key **out,
                                                    const cuzk_zkey *zk, cuzk_error *err) {
    *out = NULL;
    if (be->ops->prepare_zkey == NULL)
        return cuzk__fail(err, CUZK_ERR_UNSUPPORTED, "backend %s does not prove snarkjs keys",
                          be->ops->name);
    return be->ops->prepare_zkey(be, out, zk, err);
}

/*
 * What a key of circuit c with parameters p (or of the zkey zk, c and p
 * NULL) would take on be's device, within be->vram_limit: the memory plan
 * (src/gpu/plan.h) with its mode (resident, partly resident, streaming, or
 * the CPU when not even streaming fits), the device and page-locked host
 * bytes, the chunk size and one sentence saying why. The same plan the
 * backend's prepare follows, as the device stands now. Reads counts only
 * (p may be opened with deferred points). CUZK_ERR_UNSUPPORTED from a
 * backend without device memory (the CPU's).
 */
static inline cuzk_status cuzk_backend_plan(cuzk_backend *be, struct cuzk__plan *out,
                                            const cuzk_circuit *c, const cuzk_params *p,
                                            const cuzk_zkey *zk, cuzk_error *err) {
    if (be->ops->plan == NULL)
        return cuzk__fail(err, CUZK_ERR_UNSUPPORTED, "backend %s keeps keys in host memory",
                          be->ops->name);
    return be->ops->plan(be, out, c, p, zk, err);
}

static inline cuzk_status cuzk_backend_prove_start(cuzk_backend *be, cuzk_backend_job **out,
                                                   cuzk_backend_key *key, const cuzk_witness *w,
                                                   cuzk_error *err) {
    *out = NULL;
    return be->ops->prove_start(be, out, key, w, err);
}

/*
 * Announces a coming prove_start(key, w) so that the backend can move the
 * witness ahead of it, beside the proof the key is computing now (the GPU
 * backend copies it into a second device buffer on a copy stream: the
 * pre-staging of doc/gpu.md, "The GPU backend"). Returns at once.
 * Announcements are taken in order, one per prove_start of the same witness,
 * and should follow the order of the proofs (announce the next witness, then
 * prove the current one). Staging never changes a proof: a prove_start
 * whose witness is not the one staged uploads it as usual, and once the
 * prove_start of w has begun nothing is copied from w for it any more (its
 * announcement and older ones it overtook are dropped). With several threads proving on one
 * key, or announcements out of order, proofs stay right but may not gain.
 * A key keeps 4 announcements (a fifth drops the oldest). The caller keeps
 * an announced w open and unchanged until its prove_start has begun (the
 * copy reads w until then), its withdrawal (cuzk_backend_withdraw), or
 * release_key; announcing w twice means two prove_starts of w. Checks that
 * w (not NULL) fits the key (CUZK_ERR_INVALID_ARG otherwise), also on
 * backends without staging.
 */
static inline cuzk_status cuzk_backend_stage(cuzk_backend *be, cuzk_backend_key *key,
                                             const cuzk_witness *w, cuzk_error *err) {
    if (w->n_inputs + w->n_aux != key->n_inputs + key->n_aux)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                          "stage: %s has %llu variables, the key expects %llu",
                          w->path ? w->path : "(witness)",
                          (unsigned long long)(w->n_inputs + w->n_aux),
                          (unsigned long long)(key->n_inputs + key->n_aux));
    if (be->ops->stage == NULL) return CUZK_OK;
    return be->ops->stage(be, key, w, err);
}

/*
 * Withdraws the announcements of w (cuzk_backend_stage, w not NULL) whose
 * prove_start will not come: once it returns nothing reads w any more (a
 * copy of w in progress is waited for), so w may close. Other callers'
 * announcements and a slot holding another witness stay as they are.
 */
static inline void cuzk_backend_withdraw(cuzk_backend *be, cuzk_backend_key *key,
                                         const cuzk_witness *w) {
    if (be->ops->withdraw != NULL) be->ops->withdraw(be, key, w);
}

static inline cuzk_status cuzk_backend_prove_finish(cuzk_backend *be, cuzk_groth16_proof *proof,
                                                    cuzk_backend_job *job, const uint64_t r[4],
                                                    const uint64_t s[4], cuzk_error *err) {
    return be->ops->prove_finish(be, proof, job, r, s, err);
}

/* The stage times of a job (complete after prove_finish). */
static inline const cuzk_groth16_stage_times *cuzk_backend_job_times(const cuzk_backend_job *job) {
    return &job->t;
}

/* Both are no-ops on NULL. */
static inline void cuzk_backend_release_job(cuzk_backend *be, cuzk_backend_job *job) {
    if (job != NULL) be->ops->release_job(be, job);
}
static inline void cuzk_backend_release_key(cuzk_backend *be, cuzk_backend_key *key) {
    if (key != NULL) be->ops->release_key(be, key);
}

#endif /* CUZK_BACKEND_H */
