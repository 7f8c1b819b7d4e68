/*
 * cuzk.h — the one public header of cuzk, a Groth16 prover for BLS12-381
 * with a CPU and a CUDA backend.
 *
 * What it offers:
 *   - a context (cuzk_context): which backend, which GPUs, how many threads,
 *     memory limits, whether proofs are checked before they are returned;
 *   - keys (cuzk_key): a snarkjs .zkey, or one of our circuit files with its
 *     bellman .params; prepared once (resident on the GPU, or the CPU's NTT
 *     domain), then used for any number of proofs;
 *   - proving: one proof, N partitions at once (spread over the context's
 *     GPUs or CPU lanes), or the split form (start, then finish) for
 *     pipelines;
 *   - verification against a snarkjs verification_key.json, a bellman .vk or
 *     .params, or the key itself; one proof or N partitions;
 *   - encodings: the 192-byte proof (zcash/bellman compressed points), the
 *     snarkjs proof.json, public.json and verification_key.json; files
 *     written whole or not at all.
 *
 * Conventions
 *   - Every public identifier starts with cuzk_ (macros CUZK_).
 *   - Calls that can fail return a cuzk_status (CUZK_OK is 0) and take a
 *     last argument `cuzk_error *err` (may be NULL) that receives the status
 *     and one sentence naming what was wrong and where: the file and offset,
 *     the partition, the constraint. On failure every output argument is
 *     left empty (NULL handles, zeroed counts) unless said otherwise.
 *   - Argument order: the context or key, outputs, in/out, inputs; a count
 *     follows its array; flags come last.
 *   - Scalars (public inputs, witness values, r and s) are 32 bytes,
 *     little-endian, canonical (below the group order r).
 *   - Ownership: a handle is owned by whoever created it and freed by the
 *     matching release/free call (each accepts NULL). Memory returned
 *     through `char **` or `uint8_t **` is freed with cuzk_free. Input
 *     pointers are borrowed for the call only, unless a function says
 *     otherwise.
 *   - Thread safety: functions on distinct objects may run at once on any
 *     threads. A context, a key and a verifying key are safe to share
 *     between threads once created (proofs on one key from several threads
 *     at once are allowed; the key serializes what its device requires). A
 *     pending proof belongs to one thread at a time. Releasing an object
 *     while another thread uses it is a caller error.
 *   - No global state: nothing here reads the environment or changes
 *     process-wide settings, except cuzk_cpu_force_portable (documented).
 */
#ifndef CUZK_H
#define CUZK_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define CUZK_WARN_UNUSED_RESULT __attribute__((warn_unused_result))
#else
#define CUZK_WARN_UNUSED_RESULT
#endif

/* Marks what the shared library exports; everything else in it is hidden. */
#if defined(__GNUC__) && !defined(_WIN32)
#define CUZK_API __attribute__((visibility("default")))
#else
#define CUZK_API
#endif

#define CUZK_VERSION_MAJOR 0
#define CUZK_VERSION_MINOR 5
#define CUZK_VERSION_PATCH 0

/* ==== status and errors =================================================== */

/*
 * Status codes. One table generates the enum, cuzk_strerror and
 * cuzk_status_name, so the three never disagree. Values are stable: new
 * codes are added at the end.
 */
#define CUZK_STATUS_MAP(XX)                                                    \
    XX(OK, "success")                                                          \
    XX(ERR_INVALID_ARG, "invalid argument")                                    \
    XX(ERR_NOMEM, "out of memory")                                             \
    XX(ERR_IO, "input/output error")                                           \
    XX(ERR_BAD_LENGTH, "wrong encoding length")                                \
    XX(ERR_BAD_ENCODING, "malformed encoding (flag bits or layout)")           \
    XX(ERR_NOT_CANONICAL, "field element not in canonical range")              \
    XX(ERR_NOT_ON_CURVE, "point not on the curve")                             \
    XX(ERR_NOT_IN_SUBGROUP, "point not in the prime-order subgroup")           \
    XX(ERR_POINT_AT_INFINITY, "point at infinity where a finite one is required") \
    XX(ERR_NOT_A_SQUARE, "no square root exists")                              \
    XX(ERR_UNSUPPORTED, "unsupported feature or format")                       \
    XX(ERR_PROOF_INVALID, "proof does not verify")                             \
    XX(ERR_WITNESS_UNSATISFIED, "witness does not satisfy the circuit")        \
    XX(ERR_GPU, "GPU error")                                                   \
    XX(ERR_KEY_CORRUPT, "the proving key is corrupt")                         \
    XX(ERR_TIMEOUT, "timed out")                                               \
    XX(ERR_CANCELLED, "cancelled")                                             \
    XX(ERR_BUSY, "the queue is full")                                          \
    XX(ERR_NOT_FOUND, "no such job")                                           \
    XX(ERR_DEVICE_NOMEM, "out of device memory")

typedef enum {
#define CUZK__STATUS_ENUM(name, msg) CUZK_##name,
    CUZK_STATUS_MAP(CUZK__STATUS_ENUM)
#undef CUZK__STATUS_ENUM
    CUZK_STATUS_COUNT
} cuzk_status;

/* A human-readable sentence for a status ("unknown status" if out of range). */
CUZK_API const char *cuzk_strerror(cuzk_status st);
/* The symbolic name without prefix, e.g. "ERR_NOT_ON_CURVE". */
CUZK_API const char *cuzk_status_name(cuzk_status st);

#define CUZK_ERROR_MSG_BYTES 512

/* A status and the sentence that explains it (empty for CUZK_OK). A message
 * longer than the buffer ends in "...". */
typedef struct {
    cuzk_status status;
    char msg[CUZK_ERROR_MSG_BYTES];
} cuzk_error;

/* err's message, or cuzk_strerror(err->status) when it has none. */
CUZK_API const char *cuzk_error_text(const cuzk_error *err);

/* Frees memory the library returned through a char ** or uint8_t ** output. */
CUZK_API void cuzk_free(void *p);

/* "0.2.0" */
CUZK_API const char *cuzk_version(void);

/* ==== the CPU's arithmetic kernels ======================================== */

/*
 * The x86-64 BMI2/ADX path is chosen at load time from CPUID.
 */
#define CUZK_CPU_ADX 1u  /* mulx/adcx/adox Montgomery kernels in use */
#define CUZK_CPU_IFMA 2u /* AVX-512 IFMA batch kernels in use (the MSM's G1 buckets) */
CUZK_API unsigned cuzk_cpu_features(void);
/* Those kernels in words, for reports: "x86-64 BMI2/ADX" or "portable C",
 * with " + AVX-512 IFMA" when the batch kernels run. */
CUZK_API const char *cuzk_cpu_kernels(void);
/* Switches every later field operation of the process to the portable C
 * kernels (1) or back to the best available ones (0). Process-wide and not
 * thread-safe against concurrent arithmetic: call it before any other
 * thread uses the library (the command does so for CUZK_NO_ASM=1). */
CUZK_API void cuzk_cpu_force_portable(int on);

/* ==== point encodings ===================================================== */

/*
 * zcash/bellman form: big-endian, flag bits in the top three bits of byte 0,
 * Fp2 as c1 then c0. snarkjs form: little-endian Montgomery coordinates, c0
 * first, infinity as all zero bytes.
 */
#define CUZK_G1_COMPRESSED_BYTES 48
#define CUZK_G1_UNCOMPRESSED_BYTES 96
#define CUZK_G2_COMPRESSED_BYTES 96
#define CUZK_G2_UNCOMPRESSED_BYTES 192

/*
 * Checks a zcash-encoded G1/G2 point (compressed or uncompressed, chosen by
 * len): flags, canonical coordinates, curve equation and subgroup. Returns
 * CUZK_OK for a valid point (the point at infinity included).
 */
CUZK_API CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_g1_validate(const uint8_t *in, size_t len);
CUZK_API CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_g2_validate(const uint8_t *in, size_t len);

/* ==== contexts ============================================================ */

typedef enum {
    CUZK_BACKEND_AUTO = 0, /* a GPU for keys from a 2^auto_gpu_min_log domain, when present */
    CUZK_BACKEND_CPU = 1,
    CUZK_BACKEND_GPU = 2 /* CUZK_ERR_UNSUPPORTED when the build or machine has none */
} cuzk_backend_kind;

/* Lanes a context can drive at once (GPU ordinals listed, or CPU lanes). */
#define CUZK_MAX_LANES 64

/*
 * How a context proves. Fill with cuzk_options_init, then change fields.
 * Every field has a working default; nothing is read from the environment.
 */
typedef struct {
    /* sizeof(cuzk_options), set by cuzk_options_init: lets later versions
     * add fields at the end without breaking callers built against this one */
    size_t struct_size;
    cuzk_backend_kind backend; /* default AUTO */
    /* GPU ordinals, one lane each (an ordinal listed twice gets two lanes,
     * each with its own copy of a key: one partition's host work beside the
     * other's kernels). n_devices 0: device 0. Ignored on the CPU. */
    int devices[CUZK_MAX_LANES];
    size_t n_devices;
    /* CPU backend: partitions proved at a time (the cores shared among
     * them); 0 or 1: one. */
    unsigned cpu_lanes;
    /* CPU threads a lane may use; 0: all cores (divided among cpu_lanes). */
    unsigned threads;
    /* AUTO takes a GPU only for keys whose domain is at least 2^this (below,
     * bringing the device up costs more than the proof). Default 16. */
    unsigned auto_gpu_min_log;
    /* Bytes of host memory a key may hold (its circuit, parameters or
     * zkey as read); 0: no limit. A key over the limit is refused with
     * CUZK_ERR_NOMEM before its parameters are read. */
    uint64_t host_memory_limit;
    /* Bytes of device memory a key may take on each card (the vram limit,
     * `cuzk prove --vram-limit`); 0: the card's free memory. The GPU
     * backend plans each key within the smaller of the two (doc/gpu.md,
     * "The memory planner"), so that a large card proves as a card of that
     * size would: resident when the whole key fits, else with its SRS
     * points (all but H, or all) in page-locked host memory, streamed to
     * the card as each proof needs them. A key that does not fit even so
     * (its circuit, tables and work areas alone are too large) is refused
     * (CUZK_ERR_DEVICE_NOMEM, naming the plan's numbers) on the GPU backend, or
     * proved on the CPU with AUTO. */
    uint64_t device_memory_limit;
    /* 1 (default): every proof is verified against the key's verifying key
     * before it is returned; a failure is reported as the witness's fault
     * or the key's, with the offset of a corrupt point where one is found.
     * 0: skip (the caller verifies). */
    int self_check;
    /* Progress and timing lines (one sentence each, no newline), e.g. per
     * partition stage times; NULL: none. Called from the proving threads. */
    void (*log)(void *user, const char *line);
    void *log_user;
} cuzk_options;

/* The defaults above. */
CUZK_API void cuzk_options_init(cuzk_options *opt);

typedef struct cuzk_context cuzk_context;

/*
 * A context with a copy of *opt (NULL: the defaults). Checks the options
 * (CUZK_ERR_INVALID_ARG naming the field) and, for backend GPU, that the
 * build has CUDA and the listed devices exist (CUZK_ERR_UNSUPPORTED or
 * CUZK_ERR_INVALID_ARG). Devices are brought up when a key is prepared.
 */
CUZK_API CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_context_create(cuzk_context **out,
                                                                 const cuzk_options *opt,
                                                                 cuzk_error *err);
/* Frees the context; its keys must be released first. NULL is a no-op. */
CUZK_API void cuzk_context_destroy(cuzk_context *ctx);
/* CUDA devices present (0 without a device, a driver or a CUDA build). */
CUZK_API int cuzk_gpu_count(void);

typedef struct {
    char name[128];        /* "NVIDIA H100 80GB HBM3" */
    int multiprocessors;
    uint64_t memory_total; /* bytes */
    uint64_t memory_free;  /* bytes free now, on the whole card */
} cuzk_gpu_info;

/* What device is and how much of its memory is free now (CUZK_ERR_UNSUPPORTED
 * in a build without CUDA; CUZK_ERR_INVALID_ARG for a device not present). */
CUZK_API CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_gpu_get_info(int device, cuzk_gpu_info *info,
                                                               cuzk_error *err);

/* ==== keys ================================================================ */

typedef struct cuzk_key cuzk_key;

/*
 * A proving key from a snarkjs .zkey (Groth16, BLS12-381). The file stays
 * mapped until cuzk_key_release. Its header and sections are checked now;
 * its points when the self-check needs to explain a failure.
 */
CUZK_API CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_key_open_zkey(cuzk_context *ctx,
                                                                cuzk_key **out,
                                                                const char *zkey_path,
                                                                cuzk_error *err);

/*
 * A proving key from one of our circuit files (CSR form: `cuzk import` makes
 * one from a circom .r1cs, `cuzk gen-circuit` synthetic ones) and its bellman
 * .params. The counts of both must agree (CUZK_ERR_INVALID_ARG naming both
 * files and the count). With a GPU backend the parameters' points stay in the
 * file until each lane's device reads and checks them.
 */
CUZK_API CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_key_open_params(cuzk_context *ctx,
                                                                  cuzk_key **out,
                                                                  const char *circuit_path,
                                                                  const char *params_path,
                                                                  cuzk_error *err);

/*
 * Gives a zkey its circuit (circom's .r1cs), so that a witness that does not
 * satisfy it is reported with its first failing constraint, and a proof that
 * fails its self-check although the witness satisfies the circuit is blamed
 * on the key. CUZK_ERR_IO or a format error when the file cannot be read,
 * CUZK_ERR_INVALID_ARG when it is not the key's circuit (counts differ),
 * CUZK_ERR_UNSUPPORTED for a circuit key. Call it before the key's first
 * proof: it is not safe against proofs running on the key.
 */
CUZK_API CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_key_attach_r1cs(cuzk_key *key,
                                                                  const char *r1cs_path,
                                                                  cuzk_error *err);

/*
 * Makes the key ready to prove on every lane of its context: the GPU
 * backend uploads it to each listed device (resident), the CPU builds its
 * NTT domain. Optional: the first proof prepares what it needs. Returns when
 * proofs can start (on a GPU the vectors after the first may still be
 * loading; proofs wait for what they need). Idempotent.
 */
CUZK_API CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_key_prepare(cuzk_key *key, cuzk_error *err);

/* Releases the caller's handle. The key's device memory and files are freed
 * at once, or when the last pending proof started on it is released (a
 * pending proof keeps its key alive). NULL is a no-op. */
CUZK_API void cuzk_key_release(cuzk_key *key);

typedef enum { CUZK_KEY_ZKEY = 1, CUZK_KEY_PARAMS = 2 } cuzk_key_kind;

/* What a key is. n_public counts the public inputs without the constant 1;
 * n_vars the whole witness (the constant 1 included). */
typedef struct {
    cuzk_key_kind kind;
    uint64_t n_public;
    uint64_t n_vars;
    uint64_t n_constraints;
    unsigned domain_log;
    cuzk_backend_kind backend; /* CPU or GPU: what AUTO chose */
} cuzk_key_info;

CUZK_API void cuzk_key_get_info(const cuzk_key *key, cuzk_key_info *info);

/* ==== witnesses and proofs ================================================ */

#define CUZK_SCALAR_BYTES 32
#define CUZK_PROOF_BYTES 192

/*
 * A proof in the 192-byte form of bellman / Filecoin: A (G1), B (G2), C (G1)
 * as zcash compressed points. Encode to snarkjs JSON with
 * cuzk_proof_to_json. A proof of N partitions is N of these in order.
 */
typedef struct {
    uint8_t bytes[CUZK_PROOF_BYTES];
} cuzk_proof;

/*
 * Where a witness comes from: a file (path not NULL), either a snarkjs .wtns
 * or one of our witness files (told apart by their first bytes), or values
 * in memory (path NULL): n_values scalars of 32 bytes, the whole assignment
 * in the key's order, values[0] = 1. Borrowed for the call.
 */
typedef struct {
    const char *path;
    const uint8_t *values;
    size_t n_values;
} cuzk_witness_input;

/* Milliseconds per stage of one proof (zero where a stage did not run). */
typedef struct {
    double abc_ms;       /* witness -> a, b, c */
    double check_ms;     /* a_i b_i = c_i on every constraint (circuit keys) */
    double ntt_ms;       /* H */
    double msm_h_ms;     /* sum h_i H_i */
    double prep_ms;      /* density gathers, 0/1/other classification */
    double batch_add_ms; /* bases whose scalar is 1 */
    double tail_msm_ms;  /* G1 Pippenger over the other scalars */
    double b_g2_msm_ms;  /* G2 Pippenger */
    double key_wait_ms;  /* waiting for the key's vectors to load */
    double lock_wait_ms; /* waiting for the device: another proof's kernels on the key */
    double finish_ms;    /* assembly with r, s */
    double self_check_ms;
    double total_ms;
    int witness_staged;  /* 1: the witness was copied to the device beside the proof before */
    double cpu_abc_ms;   /* of abc_ms, a, b, c made on the CPU before the device was waited
                            for (a GPU key whose memory plan keeps the circuit on the host),
                            a wait for a free host buffer included */
} cuzk_proof_times;

/*
 * One proof. proof: the result; public_inputs (may be NULL): receives the
 * key's n_public public inputs (n_public x 32 bytes), what a verifier
 * needs; times (may be NULL). r and s are drawn from the OS CSPRNG.
 * Errors: CUZK_ERR_INVALID_ARG for a witness of another size or with
 * values[0] != 1; CUZK_ERR_WITNESS_UNSATISFIED naming the first failing
 * constraint (circuit keys check every constraint; zkeys are caught by the
 * self-check); CUZK_ERR_KEY_CORRUPT naming the key's file and offset when
 * the self-check finds the key at fault; file errors naming the file.
 */
CUZK_API CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_prove(cuzk_key *key, cuzk_proof *proof,
                                                        uint8_t *public_inputs,
                                                        cuzk_proof_times *times,
                                                        const cuzk_witness_input *witness,
                                                        cuzk_error *err);

/*
 * N proofs of one key (a Filecoin proof's partitions), proofs[i] for
 * witnesses[i], spread over the context's lanes (each GPU listed, or the
 * CPU lanes) with each lane's next witness loaded while it proves the
 * current one. public_inputs (may be NULL): n x n_public x 32 bytes, in
 * order; times (may be NULL): n entries. The first failure stops the other
 * lanes; *failed (may be NULL) receives the lowest failing partition among
 * those tried and the message starts "partition i (file)" (n, on success,
 * or when the failure is no partition's: a lane that could not prepare the
 * key). After a failed preparation the next call tries again.
 * On failure nothing in proofs is meaningful.
 */
CUZK_API CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_prove_partitions(
    cuzk_key *key, cuzk_proof *proofs, uint8_t *public_inputs, cuzk_proof_times *times,
    size_t *failed, const cuzk_witness_input *witnesses, size_t n, cuzk_error *err);

/*
 * The split form, for pipelines: start does all the heavy work (a, b, c, H
 * and the MSMs) and returns a pending proof; finish draws r and s,
 * assembles and self-checks. The key may be released in between (the
 * pending proof keeps it alive). Several starts may run at once on one key.
 */
typedef struct cuzk_pending_proof cuzk_pending_proof;

CUZK_API CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_prove_start(cuzk_key *key,
                                                              cuzk_pending_proof **out,
                                                              const cuzk_witness_input *witness,
                                                              cuzk_error *err);
/* proof, public_inputs and times as for cuzk_prove. The pending proof is
 * still to be released, whatever the result. */
CUZK_API CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_prove_finish(cuzk_pending_proof *pending,
                                                               cuzk_proof *proof,
                                                               uint8_t *public_inputs,
                                                               cuzk_proof_times *times,
                                                               cuzk_error *err);
/*
 * finish with given r and s (32-byte little-endian scalars below the group
 * order, not zero) instead of fresh random ones. For tests that compare
 * backends bit for bit: a proof with known r, s is NOT zero-knowledge.
 */
CUZK_API CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_prove_finish_with_rs(
    cuzk_pending_proof *pending, cuzk_proof *proof, uint8_t *public_inputs,
    cuzk_proof_times *times, const uint8_t r[CUZK_SCALAR_BYTES],
    const uint8_t s[CUZK_SCALAR_BYTES], cuzk_error *err);
/* Frees a pending proof, finished or not (wiping its MSM results, which
 * derive from the witness). NULL is a no-op. */
CUZK_API void cuzk_pending_proof_release(cuzk_pending_proof *pending);

/* ==== verification ======================================================== */

typedef struct cuzk_vk cuzk_vk;

/* The verifying key of a proving key. */
CUZK_API CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_vk_from_key(cuzk_vk **out, const cuzk_key *key,
                                                              cuzk_error *err);
/*
 * A verifying key from a file: snarkjs verification_key.json, a bellman .vk,
 * or a bellman .params (only its verifying key is read; the file's vectors
 * are not). Every point is checked (curve, subgroup).
 */
CUZK_API CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_vk_read(cuzk_vk **out, const char *path,
                                                          cuzk_error *err);
/* Public inputs the key verifies (without the constant 1). */
CUZK_API size_t cuzk_vk_n_public(const cuzk_vk *vk);
CUZK_API void cuzk_vk_free(cuzk_vk *vk);

/*
 * Verifies a proof against n_public public inputs (32 bytes each). Stricter
 * than snarkjs: the count must equal the key's, each input must be
 * canonical, A and C finite points of G1 and B of G2. CUZK_OK for a valid
 * proof, CUZK_ERR_PROOF_INVALID when the pairing equation fails, or the
 * error of a malformed input.
 */
CUZK_API CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_verify(const cuzk_vk *vk,
                                                         const cuzk_proof *proof,
                                                         const uint8_t *public_inputs,
                                                         size_t n_public, cuzk_error *err);

/*
 * Verifies n partition proofs, partition i against public_inputs[i *
 * n_public * 32 ...]. Stops at the first that fails; *failed (may be NULL)
 * receives its index (n on success) and the message starts "partition i".
 */
CUZK_API CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_verify_partitions(
    const cuzk_vk *vk, size_t *failed, const cuzk_proof *proofs, size_t n,
    const uint8_t *public_inputs, size_t n_public, cuzk_error *err);

/* ==== encodings =========================================================== */

/* A proof as snarkjs's proof.json (NUL-terminated; free with cuzk_free).
 * CUZK_ERR_BAD_ENCODING when proof's bytes are not valid points. */
CUZK_API CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_proof_to_json(char **json, size_t *len,
                                                                const cuzk_proof *proof,
                                                                cuzk_error *err);
/* A proof from snarkjs JSON text (len bytes; rapidsnark's form too). */
CUZK_API CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_proof_from_json(cuzk_proof *proof,
                                                                  const char *json, size_t len,
                                                                  cuzk_error *err);
/* A proof from a proof.json file (at most 1 MiB; errors name the file). */
CUZK_API CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_proof_read_json(cuzk_proof *proof,
                                                                  const char *path,
                                                                  cuzk_error *err);
/* n public inputs as snarkjs's public.json (decimal strings). */
CUZK_API CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_public_to_json(char **json, size_t *len,
                                                                 const uint8_t *public_inputs,
                                                                 size_t n, cuzk_error *err);
/* Public inputs from public.json text: *public_inputs gets *n x 32 bytes
 * (free with cuzk_free). */
CUZK_API CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_public_from_json(uint8_t **public_inputs,
                                                                   size_t *n, const char *json,
                                                                   size_t len, cuzk_error *err);
/* Public inputs from a public.json file (at most 1 MiB; errors name the
 * file): *public_inputs gets *n x 32 bytes (free with cuzk_free). */
CUZK_API CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_public_read_json(uint8_t **public_inputs,
                                                                   size_t *n, const char *path,
                                                                   cuzk_error *err);
/*
 * Public inputs of one partition from a file: one of our witness files (its
 * inputs after the constant 1) or text, one input per line, decimal or
 * 0x-hex, the constant 1 left out, blank and '#' lines skipped, a last line
 * without newline accepted, NUL bytes refused. Exactly n_public inputs are
 * expected; out receives n_public x 32 bytes.
 */
CUZK_API CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_public_read(uint8_t *out, size_t n_public,
                                                              const char *path, cuzk_error *err);
/* A verifying key as snarkjs's verification_key.json. */
CUZK_API CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_vk_to_json(char **json, size_t *len,
                                                             const cuzk_vk *vk, cuzk_error *err);

/*
 * Reads a whole file (at most max_bytes; CUZK_ERR_BAD_LENGTH above) into
 * *data (free with cuzk_free), NUL-terminated past *len.
 */
CUZK_API CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_file_read(uint8_t **data, size_t *len,
                                                            const char *path, size_t max_bytes,
                                                            cuzk_error *err);

/* One output file for cuzk_files_write. */
typedef struct {
    const char *path;
    const void *data;
    size_t len;
} cuzk_output;

/*
 * Writes n files together or not at all: each to a unique temporary file
 * beside its target, flushed to disk, then all renamed into place. A target
 * that exists and is not a regular file (a device, a FIFO) is written in
 * place, never replaced, and only once every other output is complete;
 * a directory is refused. Two outputs with one path are refused before
 * anything is written. When writing fails, no regular target has changed
 * and no temporary file is left (bytes already sent to a device or FIFO
 * cannot be taken back). POSIX renames one file at a time: a failure or a
 * crash during the renames can leave the first targets new and the others
 * old (the message names those replaced), never a partial target.
 */
CUZK_API CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_files_write(const cuzk_output *outputs,
                                                              size_t n, cuzk_error *err);

/* ==== the engine: many jobs, their partitions scheduled over the lanes ==== */

/*
 * An engine keeps proving for as long as it lives: callers submit jobs (a key
 * and N witnesses, one per partition), and worker threads take partitions
 * from one ordered queue, by priority (CRITICAL first), then by job age, then
 * by partition, so an older job finishes before a newer one of the same
 * priority starts. Workers serve lane slots (each GPU listed, or each CPU
 * lane): a worker of slot s proves on lane s of the job's key, so keys stay
 * prepared between jobs. Every proof is self-checked as the context says.
 * All functions are thread-safe.
 */
typedef struct cuzk_engine cuzk_engine;

typedef enum {
    CUZK_PRIORITY_LOW = 0,
    CUZK_PRIORITY_NORMAL = 1,
    CUZK_PRIORITY_HIGH = 2,
    CUZK_PRIORITY_CRITICAL = 3
} cuzk_priority;

typedef struct {
    size_t struct_size; /* sizeof(cuzk_engine_options), set by cuzk_engine_options_init */
    /* Workers per lane slot (each GPU listed, or each CPU lane); default 2
     * where the context may use a GPU, 1 on the CPU. Workers of one GPU
     * share its kernels back to back: while one computes, another loads
     * and uploads its witness, finishes and self-checks. 1..16. */
    unsigned workers_per_device;
    /* Partitions queued at most (default 1024): a submission that would pass
     * it waits (backpressure) up to its timeout, then fails with ERR_BUSY. */
    size_t max_queued_partitions;
    /* Host bytes the engine may hold for jobs: the witness values submitted
     * in memory (copied) and the witnesses loaded by running partitions.
     * A submission that would pass it waits like a full queue. Running
     * partitions are counted but never wait (that could stall the workers
     * that free the budget), so the engine may pass it by one witness a
     * worker. 0 (default): three quarters of the physical memory. */
    uint64_t host_memory_budget;
    /* Times a partition is proved again after a device fault (CUZK_ERR_GPU),
     * on another lane of its key where it has one (default 1). A GPU lane
     * whose device memory ran out (CUZK_ERR_DEVICE_NOMEM) is instead prepared
     * again one memory plan lower (resident, partly resident, streaming,
     * then the CPU: doc/gpu.md, "The memory planner") and the partition
     * proved again, as often as the lane can step down. */
    unsigned max_retries;
    /* Bytes the keys named in the engine (cuzk_engine_key_add) may hold
     * open or prepared, counted by their files' sizes; opening one evicts
     * the least recently used idle keys until it fits (a key in use is
     * never evicted, so busy keys may pass it). 0 (default): with a GPU
     * context, or an AUTO one on a host with a card, the smallest card's
     * memory (its device_memory_limit when lower), so keys kept resident
     * together fit a card; no limit on the CPU. */
    uint64_t key_cache_bytes;
    /* Timeline events kept (cuzk_engine_timeline; default 65536, 0: none). */
    size_t timeline_events;
    /* 1: workers take nothing until cuzk_engine_pause(e, 0) (default 0). */
    int start_paused;
    /* For tests of recovery: the fault_nth launch (1: the first) of the
     * kernel stage fault_stage ("spmv", "ntt", "msm_h", "batch_add",
     * "tail_msm", "b_g2_msm") fails as a device error, in the lanes this
     * engine's context opens from now on (a CPU lane counts each stage of a
     * proof as one launch). NULL (default): none. fault_status: how it
     * fails, CUZK_ERR_GPU (default: a device error) or CUZK_ERR_DEVICE_NOMEM
     * (the device's memory ran out). */
    const char *fault_stage;
    unsigned fault_nth;
    /* Same-key batching: when the next partition's named key is closed
     * (another key took its room in the cache), queued partitions of the
     * same priority whose keys are open go first, until that partition's job
     * has waited batch_wait_ms since its submission. Keys that cannot stay
     * open together are then not swapped back and forth job by job; keys
     * that can see no change. Default 10000; 0: strict order. */
    unsigned batch_wait_ms;
    cuzk_status fault_status;
} cuzk_engine_options;

CUZK_API void cuzk_engine_options_init(cuzk_engine_options *opt);

/* An engine over ctx (which must outlive it); opt NULL: the defaults. */
CUZK_API CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_engine_create(cuzk_engine **out,
                                                                cuzk_context *ctx,
                                                                const cuzk_engine_options *opt,
                                                                cuzk_error *err);
/* Stops the workers after the partitions they are proving (queued jobs are
 * cancelled) and frees the engine and every job. No other call on e may be
 * in progress or follow. NULL is a no-op. */
CUZK_API void cuzk_engine_destroy(cuzk_engine *e);

/* Workers take no new partition while paused (1), and go on again (0). */
CUZK_API void cuzk_engine_pause(cuzk_engine *e, int paused);

/* Counts since the engine was created, and its state now. */
typedef struct {
    uint64_t proofs;            /* partitions proved */
    uint64_t verified;          /* ... and self-checked before they were returned */
    uint64_t failed_partitions; /* partitions that failed their job */
    uint64_t faults;            /* device faults (CUZK_ERR_GPU) */
    uint64_t retries;           /* partitions proved again after one */
    uint64_t lane_resets;       /* lanes reset after one */
    uint64_t lane_step_downs;   /* GPU lanes prepared again in a less resident memory
                                 * plan after their device memory ran out */
    uint64_t host_bytes_used, host_bytes_budget;
    size_t queued_partitions, running_partitions;
    size_t workers, lane_slots;
    uint64_t timeline_dropped; /* events the ring overwrote */
} cuzk_engine_stats;

CUZK_API void cuzk_engine_get_stats(cuzk_engine *e, cuzk_engine_stats *stats);

/*
 * Queues a job: n partitions of key, partition i from witnesses[i] (copied:
 * the caller may free them on return). The engine holds a reference to the
 * key until the job is collected. request_id (may be NULL): a second
 * submission with the same id, while the first job is known, returns the
 * first job's id and queues nothing (CUZK_ERR_INVALID_ARG if its key or
 * partition count differ). key must come from the engine's context, and
 * is best used only through the engine: after a device fault the engine
 * resets the key's lane (closes its backend), which a proof of the key
 * started outside the engine would not survive. When the queue has no
 * room for n partitions, or the host memory budget none for the witness
 * values, the call waits up to timeout_ms (0: not at all, -1: without
 * limit), then fails with CUZK_ERR_BUSY; n above max_queued_partitions,
 * or values above the whole budget, is CUZK_ERR_INVALID_ARG. Waiting
 * submissions are let in by priority, then in the order they came: one
 * that would fit waits behind an earlier or more urgent one that does not
 * yet (so a large or CRITICAL job is never starved by a flood of small
 * ones). The values are copied once the job is let in.
 */
CUZK_API CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_engine_submit(
    cuzk_engine *e, uint64_t *job_id, cuzk_key *key, const cuzk_witness_input *witnesses,
    size_t n, cuzk_priority priority, const char *request_id, int timeout_ms, cuzk_error *err);

typedef enum {
    CUZK_JOB_QUEUED = 0,
    CUZK_JOB_RUNNING = 1,
    CUZK_JOB_DONE = 2,
    CUZK_JOB_FAILED = 3,
    CUZK_JOB_CANCELLED = 4
} cuzk_job_state;

typedef struct {
    cuzk_job_state state;
    size_t n_partitions, n_done, n_running;
    size_t queued_ahead; /* partitions of other jobs before this one's next */
    uint64_t finish_seq; /* 1, 2, ...: the order in which jobs ended (0: not yet) */
    uint64_t n_public;   /* public inputs per partition (the key's) */
} cuzk_job_info;

/* A job's state (CUZK_ERR_NOT_FOUND for an unknown or collected job). */
CUZK_API CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_engine_job_info(cuzk_engine *e,
                                                                  uint64_t job_id,
                                                                  cuzk_job_info *info,
                                                                  cuzk_error *err);

/*
 * Waits up to timeout_ms (-1: without limit) for the job to end and collects
 * it: proofs (n of them), public_inputs (may be NULL; n x n_public x 32
 * bytes) and times (may be NULL; n) for a job done. A failed job returns its
 * error, naming the partition; a cancelled one CUZK_ERR_CANCELLED. Either
 * way the job is then forgotten. CUZK_ERR_TIMEOUT leaves it as it was.
 */
CUZK_API CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_engine_await(cuzk_engine *e, uint64_t job_id,
                                                               int timeout_ms, cuzk_proof *proofs,
                                                               uint8_t *public_inputs,
                                                               cuzk_proof_times *times,
                                                               cuzk_error *err);

/*
 * How many jobs have ended with none of their partitions still being proved
 * (what cuzk_engine_await collects without waiting), counted since the
 * engine was created. Waits up to timeout_ms (-1: without limit, 0: not at
 * all) for the count to pass seen and returns it; seen or less when the
 * time ran out or the engine is being destroyed. A caller following many
 * jobs keeps the count it last got, waits past it, then awaits those of its
 * jobs that cuzk_engine_job_info reports ended with n_running 0.
 */
CUZK_API uint64_t cuzk_engine_wait_settled(cuzk_engine *e, uint64_t seen, int timeout_ms);

/* Cancels a job: its queued partitions are dropped at once, those being
 * proved end with their proof discarded. CUZK_ERR_NOT_FOUND for an unknown
 * job; a job that has ended stays as it ended. */
CUZK_API CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_engine_cancel(cuzk_engine *e, uint64_t job_id,
                                                                cuzk_error *err);

/* ---- keys by name: the engine's key cache ----------------------------------- */

/* Where a named key is: on disk only (COLD), open with its files mapped
 * (WARM), or prepared on its lanes, resident on the devices (HOT). */
typedef enum { CUZK_KEY_COLD = 0, CUZK_KEY_WARM = 1, CUZK_KEY_HOT = 2 } cuzk_key_tier;

/* A key's files: a snarkjs .zkey (r1cs optional, to name a failing
 * constraint), or our circuit file with its bellman .params. */
typedef struct {
    const char *zkey;
    const char *r1cs;
    const char *circuit;
    const char *params;
} cuzk_key_source;

/*
 * Names a key (name and paths copied). Nothing is opened until a job, a
 * preload or cuzk_engine_submit_named needs it; the files must exist
 * (CUZK_ERR_IO naming the one missing). CUZK_ERR_INVALID_ARG for a name in
 * use or sources that are not one of the two forms.
 */
CUZK_API CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_engine_key_add(cuzk_engine *e, const char *name,
                                                                 const cuzk_key_source *src,
                                                                 cuzk_error *err);

/* cuzk_engine_submit with the key named: opened first if it is cold (the
 * call then takes as long as opening it). A job keeps the name, not the
 * key: if the key is evicted while the job waits, its next partition opens
 * it again. CUZK_ERR_NOT_FOUND for an unknown name. */
CUZK_API CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_engine_submit_named(
    cuzk_engine *e, uint64_t *job_id, const char *key_name, const cuzk_witness_input *witnesses,
    size_t n, cuzk_priority priority, const char *request_id, int timeout_ms, cuzk_error *err);

/*
 * Checks that a witness file fits a named key by its header alone: its kind
 * (.wtns or ours), its value counts against the key's, and for our witness
 * files its size. What a service checks before it accepts a job, so that a
 * witness of another circuit, or a truncated one, is refused at once rather
 * than failing its job later; the values themselves are checked when the
 * partition loads them. The key is opened if it is cold.
 * CUZK_ERR_INVALID_ARG naming the file (missing, not a regular file, empty,
 * counts or size that do not fit), CUZK_ERR_BAD_ENCODING for a file of
 * neither kind, CUZK_ERR_NOT_FOUND for an unknown key.
 */
CUZK_API CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_engine_key_check_witness(cuzk_engine *e,
                                                                           const char *name,
                                                                           const char *path,
                                                                           cuzk_error *err);

/* Opens a named key (WARM) or also prepares it on every lane (HOT), now,
 * rather than at its first job. */
CUZK_API CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_engine_key_preload(cuzk_engine *e,
                                                                     const char *name,
                                                                     cuzk_key_tier tier,
                                                                     cuzk_error *err);

/* Closes a named key (COLD): its device and host memory go once nothing
 * uses it. CUZK_ERR_BUSY while partitions of it are being proved. */
CUZK_API CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_engine_key_evict(cuzk_engine *e,
                                                                   const char *name,
                                                                   cuzk_error *err);

typedef struct {
    cuzk_key_tier tier;
    uint64_t bytes;       /* what it counts against key_cache_bytes when open */
    size_t running;       /* partitions of it being proved */
    uint64_t loads;       /* times it was opened */
    uint64_t evictions;   /* times it was closed to make room or on request */
    double last_used_ms;  /* on the engine's clock (the timeline's) */
} cuzk_engine_key_info;

CUZK_API CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_engine_key_get_info(cuzk_engine *e,
                                                                      const char *name,
                                                                      cuzk_engine_key_info *info,
                                                                      cuzk_error *err);

/* ---- the engine's timeline -------------------------------------------------- */

/* The stages of a partition, as the engine's timeline names them. */
typedef enum {
    CUZK_STAGE_QUEUED = 0,  /* submitted, waiting for a worker */
    CUZK_STAGE_LOAD = 1,    /* the witness read and announced to the lane (and made into
                               a, b, c on the CPU where the key's plan does that) */
    CUZK_STAGE_LOCK_WAIT = 2, /* waiting for the lane's device (another worker's kernels) */
    CUZK_STAGE_SPMV = 3,    /* kernels, by name (the backend's stage times): a, b, c */
    CUZK_STAGE_NTT = 4,     /* the H step */
    CUZK_STAGE_MSM_H = 5,
    CUZK_STAGE_PREP = 6,    /* classification and gathers */
    CUZK_STAGE_BATCH_ADD = 7,
    CUZK_STAGE_TAIL_MSM = 8,
    CUZK_STAGE_B_G2_MSM = 9,
    CUZK_STAGE_FINISH = 10, /* assembly with r and s */
    CUZK_STAGE_VERIFY = 11, /* the self-check */
    CUZK_STAGE_COUNT = 12
} cuzk_stage;

/* "queued", "load", ..., "verify"; "?" for a value out of range. */
CUZK_API const char *cuzk_stage_name(cuzk_stage stage);

typedef struct {
    uint64_t job_id;
    uint32_t partition;
    uint32_t worker;  /* the worker's index (the queue's own events: UINT32_MAX) */
    int device;       /* the worker's GPU, -1 for a CPU lane */
    cuzk_stage stage;
    double start_ms, end_ms; /* milliseconds since the engine was created */
} cuzk_timeline_event;

/* The buckets of the stage histograms: upper bounds in milliseconds, the
 * last bucket above them all. */
#define CUZK_STAGE_BUCKETS 13
#define CUZK_STAGE_BUCKET_BOUNDS_MS {1, 2.5, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000}

typedef struct {
    uint64_t count[CUZK_STAGE_BUCKETS]; /* per bucket (not cumulative) */
    uint64_t n;                         /* their total */
    double sum_ms;
} cuzk_stage_histogram;

/* The durations of one stage over every partition since the engine was
 * created (what the timeline records, without its ring's limit). */
CUZK_API void cuzk_engine_stage_histogram(cuzk_engine *e, cuzk_stage stage,
                                          cuzk_stage_histogram *out);

/* Milliseconds since the engine was created: the timeline's clock now. */
CUZK_API double cuzk_engine_now_ms(cuzk_engine *e);

/*
 * Copies the engine's newest timeline events, at most cap of them, oldest
 * first, and returns how many it copied. The engine keeps the last
 * timeline_events of them (its options) in a ring.
 */
CUZK_API size_t cuzk_engine_timeline(cuzk_engine *e, cuzk_timeline_event *out, size_t cap);

/* The same for the events that ended after since_ms (the engine's clock,
 * cuzk_engine_now_ms): the newest cap of them, oldest first, without
 * copying the rest of the ring. */
CUZK_API size_t cuzk_engine_timeline_since(cuzk_engine *e, double since_ms,
                                           cuzk_timeline_event *out, size_t cap);

/*
 * Writes events as an SVG picture to path (through the output writer of
 * cuzk_files_write): one lane per worker, one colour per stage, a legend
 * and a time axis. QUEUED events are not drawn.
 */
CUZK_API CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_timeline_write_svg(
    const cuzk_timeline_event *events, size_t n, const char *path, cuzk_error *err);

#ifdef __cplusplus
}
#endif
#endif /* CUZK_H */
