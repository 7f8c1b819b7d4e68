/*
 * supraseal_impl.h — what the files of libcuzk_supraseal share: the body of
 * an SRS handle, the errors as sppark returns them, and the checks of the
 * handles Rust passes back.
 *
 * libcuzk_supraseal exports supraseal-c2's C interface (include/
 * cuzk_supraseal.h, doc/formats.md §17) over cuzk's prover:
 *   srs.c     create_SRS, evict_SRS, drop_SRS, clone_SRS: bellman .params read
 *             with cuzk_params_open, reference-counted bodies, the cache of
 *             the four most recently used paths;
 *   prove.c   the GPU mutexes and the proving calls: every circuit through
 *             cuzk__ss_prove (route.c), assembled with the caller's r and s,
 *             verified against the SRS's verifying key before it is written;
 *             the split calls' pending handles in a registry, so that a
 *             handle finalize has freed is recognised;
 *   route.c   which prover each circuit goes to: the device gpu_index names
 *             (or all of them, in blocks), the CPU for what no device takes;
 *   device.c  an SRS's keys on the devices (src/gpu/gpu_abc.h: made at its
 *             first proof on a device when the device has the room, freed
 *             with the SRS), the settings and counts tests read;
 *   error.c   cuzk_supraseal_error values with malloc()ed messages.
 * Threads: a copier for each device key (it lives with the key), and one
 * per device while a call spreads over several; OpenMP's are the prover's.
 *
 * Built with CUDA and run where a device is, a call proves on the GPU; the
 * CPU otherwise, and wherever a device cannot hold the SRS or fails (the
 * reason logged on stderr, the proofs the same).
 */
#ifndef CUZK_SUPRASEAL_IMPL_H
#define CUZK_SUPRASEAL_IMPL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "cuzk_supraseal.h"
#include "groth16/groth16.h"
#include "io/params.h"
#include "poly/ntt.h"
#include "util/error.h"

/* errno values (upstream returns errno or -cudaError_t codes; §17.9) */
#include <errno.h>

/* ---- errors -------------------------------------------------------------- */

/* Success: code 0, message NULL (as upstream; Rust frees whatever is there). */
cuzk_supraseal_error cuzk__ss_ok(void);

/* code with a malloc()ed message (NULL if even that allocation fails: Rust
 * then prints "sppark::Error #code"). */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
cuzk_supraseal_error cuzk__ss_fail(int code, const char *fmt, ...);

/* The errno-style code for a cuzk status: ENOMEM, EIO, EBADMSG (a proof
 * that does not verify), EINVAL for everything about the inputs. */
int cuzk__ss_code(cuzk_status st);

/* cuzk__ss_fail(cuzk__ss_code(err->status), "<prefix>message"); prefix may
 * be NULL. */
cuzk_supraseal_error cuzk__ss_from(const cuzk_error *err, const char *prefix);

/* ---- SRS ------------------------------------------------------------------- */

#define CUZK__SS_SRS_MAGIC 0x43555a4b53525331ULL /* "CUZKSRS1" */

/* An SRS's keys on the devices (device.c). */
typedef struct cuzk__ss_devices cuzk__ss_devices;

/* What a cuzk_supraseal_srs points to. Immutable after load except refs,
 * the CPU's NTT domain (made at the first CPU proof, under dom_mu) and the
 * device keys (dev, under their own lock); freed by the release that takes
 * refs to 0. */
typedef struct cuzk__ss_srs {
    uint64_t magic; /* CUZK__SS_SRS_MAGIC while alive */
    atomic_long refs;
    char *path;          /* as create_SRS was given it: the cache's key */
    cuzk_params p;       /* the whole file, points decoded */
    int borrowed;        /* p belongs to the caller (cuzk__ss_srs_wrap): not closed here */
    cuzk_groth16_vk vk;  /* for the self-check of every proof */
    pthread_mutex_t dom_mu;
    int dom_ready;
    cuzk_ntt_domain dom; /* the domain of p (root 7), once a CPU proof needs it */
    cuzk__ss_devices *dev;
    pthread_mutex_t check_mu;
    int checked;          /* the file's points checked (cuzk__ss_srs_check_points) */
    cuzk_status check_st; /* and the verdict */
    cuzk_error check_err;
} cuzk__ss_srs;

/* The body of a handle: NULL (with *why set to a sentence) for a NULL
 * handle, an empty one, or one whose body is not alive. */
const cuzk__ss_srs *cuzk__ss_srs_of(const cuzk_supraseal_srs *h, const char **why);

/* One more reference / one less (the last frees the body). */
void cuzk__ss_srs_ref(const cuzk__ss_srs *s);
void cuzk__ss_srs_unref(const cuzk__ss_srs *s);

/* Every point of the file s was loaded from checked (flags, coordinates,
 * the curve, the subgroup), at the first call only: a failed self-check asks
 * whether the parameters are to blame, and a check reads the whole file,
 * so later failures take the first verdict. CUZK_OK, or the first bad
 * point's status and message. */
cuzk_status cuzk__ss_srs_check_points(const cuzk__ss_srs *s, cuzk_error *err);

/* s's NTT domain for the CPU prover, made at the first call. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__ss_srs_cpu_domain(const cuzk__ss_srs *s,
                                                            const cuzk_ntt_domain **out,
                                                            cuzk_error *err);

/*
 * TESTS AND BENCHMARKS ONLY (not exported by the shared library): a handle
 * to parameters already in memory, e.g. from the INSECURE development setup
 * of a benchmark, which a 2^27 .params file (47 GB) would otherwise have to
 * hold. The body borrows *p (the caller keeps it open until the last
 * handle's drop); name stands in for the path in messages. Never cached.
 */
cuzk_supraseal_error cuzk__ss_srs_wrap(cuzk_supraseal_srs *ret, const cuzk_params *p,
                                       const char *name);

/* ---- proving (route.c) --------------------------------------------------------- */

/*
 * ins[0..n) (checked shapes) into parts: on the device gpu_index names
 * (gpu_index >= 0: that index modulo the device count; negative: the
 * circuits spread over min(devices, n) devices in contiguous blocks, the
 * first n mod devices one longer, as upstream), each device with s's key
 * there; on the CPU where there is no device, none that holds s, or a device
 * fails. CUZK_OK, or the failure of the lowest failing circuit in the CPU
 * prover's words. The caller holds gpu_mtx.
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__ss_prove(const cuzk__ss_srs *s, int gpu_index,
                                                   const cuzk_groth16_abc_input *ins, size_t n,
                                                   cuzk_groth16_partial *parts,
                                                   cuzk_error *err);

/* ---- devices (device.c) -------------------------------------------------------- */

#define CUZK__SS_MAX_DEVICES 16

/* The devices calls may use: CUDA's count (at most CUZK__SS_MAX_DEVICES),
 * 0 without CUDA or a device, or with the GPU switched off
 * (CUZK_SUPRASEAL_GPU=0 in the environment, or the test settings). */
int cuzk__ss_device_count(void);

/* s's key on device, one use counted (made at the first call when the
 * device has the room; refused otherwise, the reason logged once per SRS and
 * device): a struct cuzk__gpu_abc_key *, or NULL (prove on the CPU). */
void *cuzk__ss_device_acquire(const cuzk__ss_srs *s, int device);
/* The use ends; failure (NULL: none) is a device failure during it: logged,
 * the key freed once no call uses it, the device not used for s again. */
void cuzk__ss_device_release(const cuzk__ss_srs *s, int device, const cuzk_error *failure);
/* Frees s's keys (the body's last release; no call uses them). */
void cuzk__ss_devices_free(cuzk__ss_devices *d);
/* A new empty set (NULL when out of memory: the body then proves on the CPU). */
cuzk__ss_devices *cuzk__ss_devices_new(void);

/* 1 when each circuit proved on a device logs its stage times on stderr
 * (CUZK_SUPRASEAL_TIMING=1 in the environment, or the test settings). */
int cuzk__ss_timing(void);

/* TESTS AND BENCHMARKS ONLY. gpu: -1 as the environment says (the
 * default), 0 the CPU only, 1 the devices even if the environment says
 * otherwise; for keys made afterwards, mem_limit: they see at most this
 * much free device memory (0: all), e.g. too little for the SRS, to test
 * the fallback; one_assignment: one assignment buffer each, as on a device
 * without the room for two (gpu_abc.h); timing: 1 logs the stage times
 * whatever the environment says. */
typedef struct {
    int gpu;
    size_t mem_limit;
    int one_assignment;
    int timing;
} cuzk__ss_settings;
void cuzk__ss_set_settings(const cuzk__ss_settings *s);

/* What the calls did so far, process-wide (atomic counts). */
typedef struct {
    uint64_t gpu_circuits;    /* proved on a device */
    uint64_t cpu_circuits;    /* proved on the CPU */
    uint64_t keys_made;       /* SRS made resident on a device */
    uint64_t keys_refused;    /* a device without the room for an SRS */
    uint64_t device_failures; /* a device failed during a call (its circuits went to the CPU) */
} cuzk__ss_counts;
void cuzk__ss_get_counts(cuzk__ss_counts *out);
/* Adds n circuits proved on a device (on_gpu) or on the CPU to the counts. */
void cuzk__ss_count_circuits(int on_gpu, uint64_t n);

#endif /* CUZK_SUPRASEAL_IMPL_H */
