/*
 * supraseal_impl.h — what the files of libcuzk_supraseal share: the body of
 * an SRS handle, the errors as sppark returns them, and the checks of the
 * handles Rust passes back.
 *
 * libcuzk_supraseal exports supraseal-c2's C interface (include/
 * cuzk_supraseal.h, doc/formats.md §17) over cuzk's prover:
 *   srs.c    create_SRS, evict_SRS, drop_SRS, clone_SRS: bellman .params read
 *            with cuzk_params_open, reference-counted bodies, the cache of
 *            the four most recently used paths;
 *   prove.c  the GPU mutexes and the proving calls: every circuit through
 *            cuzk__groth16_prove_start_abc (src/groth16), assembled with the
 *            caller's r and s, verified against the SRS's verifying key
 *            before it is written; the split calls' pending handles in a
 *            registry, so that a handle finalize has freed is recognised;
 *   error.c  cuzk_supraseal_error values with malloc()ed messages.
 * The library owns no threads; OpenMP's are those of the prover.
 *
 * This is the CPU backend only: every call proves on the CPU, and gpu_index
 * selects nothing. Routing through the GPU backend is a later step
 * (doc/filecoin.md).
 */
#ifndef CUZK_SUPRASEAL_IMPL_H
#define CUZK_SUPRASEAL_IMPL_H

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

/* What a cuzk_supraseal_srs points to. Immutable after load except refs;
 * freed by the release that takes refs to 0. */
typedef struct cuzk__ss_srs {
    uint64_t magic; /* CUZK__SS_SRS_MAGIC while alive */
    atomic_long refs;
    char *path;          /* as create_SRS was given it: the cache's key */
    cuzk_params p;       /* the whole file, points decoded */
    cuzk_groth16_vk vk;  /* for the self-check of every proof */
    cuzk_ntt_domain dom; /* the domain of p (root 7), built once */
} cuzk__ss_srs;

/* The body of a handle: NULL (with *why set to a sentence) for a NULL
 * handle, an empty one, or one whose body is not alive. */
const cuzk__ss_srs *cuzk__ss_srs_of(const cuzk_supraseal_srs *h, const char **why);

/* One more reference / one less (the last frees the body). */
void cuzk__ss_srs_ref(const cuzk__ss_srs *s);
void cuzk__ss_srs_unref(const cuzk__ss_srs *s);

#endif /* CUZK_SUPRASEAL_IMPL_H */
