/*
 * api.h — the objects behind the public handles of include/cuzk.h, shared by
 * the files of src/api (not installed).
 *
 * A context holds the caller's options. A key holds its files (a .zkey, or
 * a circuit and its .params), its verifying key for the self-check, the
 * backend chosen for it and one lane per GPU listed (or per CPU lane): each
 * lane is a backend instance with its own prepared copy of the key, made on
 * first use. Lanes that share a device prepare one at a time (two keys
 * allocating at once on one card would overcommit it); lanes of different
 * devices prepare side by side.
 */
#ifndef CUZK_API_API_H
#define CUZK_API_API_H

#include <pthread.h>
#include <stdatomic.h>

#include "cuzk.h"
#include "circuit/circuit.h"
#include "circuit/witness.h"
#include "groth16/backend.h"
#include "groth16/groth16.h"
#include "groth16/setup.h"
#include "io/params.h"
#include "io/r1cs.h"
#include "io/zkey.h"
#include "util/error.h"
#include "util/fault.h"

struct cuzk_context {
    cuzk_options opt;
    /* The fault plan of an engine over this context (its options) while it
     * lives; every lane's backend points here. Disarmed in production. */
    cuzk__fault_slot fault;
    /* The backend of its GPU keys: the CUDA backend (NULL in a build
     * without it), or a test's stand-in (cuzk__context_create_standin). */
    const cuzk_backend_ops *gpu_ops;
};

/* Tests: cuzk_context_create whose GPU keys use gpu, a stand-in for a
 * device (such as the CPU backend planning and running out of memory as a
 * small card would); backend GPU then needs no device, nor CUDA. */
cuzk_status cuzk__context_create_standin(cuzk_context **out, const cuzk_options *opt,
                                         const cuzk_backend_ops *gpu, cuzk_error *err);

typedef struct cuzk__lane {
    struct cuzk_key *key;
    int device;                /* GPU ordinal; -1 on the CPU */
    unsigned threads;          /* CPU threads of this lane (0: all cores) */
    pthread_mutex_t *prepare_mu; /* shared by the lanes of one device */
    int ready;                 /* be and bkey are usable (set under prepare_mu) */
    cuzk_backend be;
    cuzk_backend_key *bkey;
    char where[32]; /* " on GPU d" when a key has several GPU lanes, else "" */
    /* The rung of the memory plan (src/gpu/plan.h cuzk__plan_rung) of the
     * lane's GPU key as last prepared (the plan the backend's key follows,
     * or the one asked for before a preparation that failed), and the floor
     * a step down takes it to (cuzk__plan_floor_after; both -1: not known,
     * a lane of a CPU key; a GPU key's lane that went to the CPU: the CPU's
     * rung); the most
     * resident rung it may take (raised for good each time its device
     * memory runs out; the CPU at the bottom, proving with own_p where the
     * key's points stay in the file). floor and own_p under prepare_mu. */
    atomic_int rung, below;
    int floor;
    cuzk_params own_p;
    int have_own_p;
} cuzk__lane;

struct cuzk_key {
    cuzk_context *ctx;
    cuzk_key_kind kind;
    const cuzk_backend_ops *ops;
    cuzk_backend_kind backend; /* what ops is: CPU or GPU */
    char *path;                /* the .zkey or the .params, for messages */
    char *circuit_path;        /* circuit keys */
    cuzk_zkey zk;
    cuzk_circuit c;
    cuzk_params p;
    int have_zk, have_c, have_p;
    cuzk_r1cs r1cs; /* zkeys: the circuit, when attached, to name a failing constraint */
    int have_r1cs;
    cuzk_groth16_vk vk;
    uint64_t n_public, n_vars, n_constraints;
    unsigned domain_log;
    size_t n_lanes;
    cuzk__lane *lanes;
    size_t n_mutexes;
    pthread_mutex_t *mutexes; /* one per distinct device */
    atomic_size_t next_lane;  /* round robin for single proofs */
    /* The caller's handle and each pending proof hold a reference; the
     * last one dropped frees the lanes and the files. */
    atomic_uint refs;
};

/* Drops a reference to key (the last frees everything). */
void cuzk__key_unref(cuzk_key *key);

struct cuzk_pending_proof {
    cuzk_key *key;  /* a reference: the self-check reads the key's files */
    cuzk_backend *be; /* the lane's backend, which ran start */
    cuzk_backend_job *job;
    uint64_t (*pub)[4]; /* the public inputs, plain limbs */
    char *witness_name;
    int self_check;
    double start_ms; /* when start began (the total of the times) */
    int finished;
};

/* The backend for a kind and a key's domain (AUTO resolved), or NULL after
 * recording why; gpu: the GPU backend there is (NULL: none, as in a build
 * without CUDA; cuzk__api_gpu_ops() is the build's). */
const cuzk_backend_ops *cuzk__api_backend_ops(const cuzk_options *opt,
                                              const cuzk_backend_ops *gpu, unsigned domain_log,
                                              cuzk_backend_kind *chosen, cuzk_error *err);
const cuzk_backend_ops *cuzk__api_gpu_ops(void);

/* cuzk_prove_start on the key's lane `lane` (modulo its lanes), for a caller
 * that spreads proofs over the lanes itself (the engine's workers). */
cuzk_status cuzk__prove_start_on_lane(cuzk_key *key, size_t lane, cuzk_pending_proof **out,
                                      const cuzk_witness_input *witness, cuzk_error *err);

/* cuzk__prove_start_on_lane with the witness already loaded: w itself is
 * what the backend sees (the pointer an announcement names); taken on
 * success (*w zeroed), the caller's to close on failure. */
cuzk_status cuzk__prove_start_loaded(cuzk_key *key, size_t lane, cuzk_pending_proof **out,
                                     cuzk_witness *w, cuzk_error *err);

/* The device memory a key of ctx may use on each of its cards: the smallest
 * listed card's, or device_memory_limit when lower (0: unknown, no CUDA). */
uint64_t cuzk__context_card_bytes(const cuzk_context *ctx);

/* Makes lane ready (opens its backend and prepares the key there) unless it
 * is; after a failure the lane stays unprepared and the next call tries
 * again. Thread-safe. */
cuzk_status cuzk__lane_prepare(cuzk__lane *lane, cuzk_error *err);

/* Retires a lane after a device fault: its prepared key and backend are
 * released, and the next cuzk__lane_prepare opens them afresh. The caller
 * makes sure nothing proves on the lane meanwhile. */
void cuzk__lane_reset(cuzk__lane *lane);

/* Whether the lane is a GPU lane with a less resident plan below the one it
 * was prepared in (the CPU is below streaming). Lock-free. */
int cuzk__lane_can_step_down(cuzk__lane *lane);

/* cuzk__lane_reset after the lane's device memory ran out: its next
 * preparation plans a rung lower (resident, partly resident, streaming,
 * the same two with a, b, c made on the CPU where the key offers them,
 * then the CPU). Returns the new floor's name ("partly resident"...), or
 * NULL when the lane has none below (then it is only reset). */
const char *cuzk__lane_step_down(cuzk__lane *lane);

/* Loads a witness input for key into w (checked against the key's counts;
 * names the file or "witness in memory"). */
cuzk_status cuzk__witness_load(const cuzk_key *key, cuzk_witness *w,
                               const cuzk_witness_input *in, cuzk_error *err);

/* What a witness file's header says against key's counts, without reading
 * its values (cuzk_engine_key_check_witness). */
cuzk_status cuzk__witness_check_head(const cuzk_key *key, const char *path, cuzk_error *err);

/* Sends a formatted line to the context's log callback, if any. */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void cuzk__api_log(const cuzk_context *ctx, const char *fmt, ...);

/* The self-check of a proof and, when it fails, whose fault it is: the key's
 * (a point off the curve or outside the subgroup, named with its offset;
 * parameters that do not belong to the circuit) or the witness's. */
cuzk_status cuzk__self_check(const cuzk_key *key, const cuzk_groth16_vk *vk,
                             const cuzk_groth16_proof *proof, const uint64_t (*pub)[4],
                             const char *witness_name, const cuzk_witness *w,
                             cuzk_error *err);

/* Public stage times from a backend job's. */
void cuzk__times_from_stage(cuzk_proof_times *out, const cuzk_groth16_stage_times *t,
                            int witness_staged);

/* For the command's development setup (`cuzk setup`, `cuzk bench prove
 * --setup-seed`): cuzk__groth16_setup_dev_accel with the fixed-base
 * multiplications on GPU 0 when use_gpu (CUZK_ERR_UNSUPPORTED in a build
 * without CUDA), else on the CPU; tw NULL = fresh random toxic waste. */
cuzk_status cuzk__api_dev_setup(cuzk_params *p, const cuzk_circuit *c, const cuzk_setup_toxic *tw,
                                unsigned threads, int use_gpu, cuzk_setup_times *tm,
                                cuzk_error *err);
/* A circuit key whose parameters a development setup makes in memory from
 * toxic waste tw (on GPU 0 when the context's backend for the circuit is
 * the GPU): `cuzk bench batch --setup-seed`. INSECURE: for benchmarks. */
cuzk_status cuzk__key_open_dev(cuzk_context *ctx, cuzk_key **out, const char *circuit_path,
                               const cuzk_setup_toxic *tw, cuzk_error *err);
/* A GPU's name and multiprocessor count (sm_count may be NULL), for reports. */
cuzk_status cuzk__api_gpu_name(int device, char *name, size_t len, int *sm_count);

/* cuzk_public_read's text form from memory (name labels messages): out
 * receives exactly n_public scalars of 32 bytes. */
cuzk_status cuzk__public_parse_text(uint8_t *out, size_t n_public, const char *text, size_t len,
                                    const char *name, cuzk_error *err);

/* 32-byte little-endian scalars <-> plain limbs. */
void cuzk__scalar_to_bytes(uint8_t out[32], const uint64_t in[4]);
void cuzk__scalar_from_bytes(uint64_t out[4], const uint8_t in[32]);

#endif /* CUZK_API_API_H */
