/*
 * abc_impl.h — what the files of the abc keys (gpu_abc.h) share: the key
 * and the copier. Not a public header: only abc_*.c include it.
 *   abc_copy.c   the copier: a thread that copies host ranges to the device
 *                on a stream beside the kernels, in order, through two
 *                page-locked buffers
 *   abc_key.c    a key: the memory plan, the uploads, the free
 *   abc_prove.c  proofs of a call's inputs, the next one's copies beside
 *                the current one's work
 */
#ifndef CUZK_GPU_ABC_IMPL_H
#define CUZK_GPU_ABC_IMPL_H

#include <pthread.h>
#include <stdint.h>

#include "gpu/gpu.h"
#include "gpu/gpu_abc.h"
#include "gpu/gpu_msm.h"
#include "gpu/gpu_ntt.h"

typedef unsigned long long ull;

/* ---- the copier (abc_copy.c) --------------------------------------------------- */

typedef struct cuzk__gpu_abc_copier cuzk__gpu_abc_copier;

/* A copier for device (its thread selects it) with two page-locked buffers
 * of stage_bytes (without them, page-locked memory refused, each job is one
 * plain copy: correct, nothing overlaps); threads: host threads for the
 * copies into those buffers (0: all cores). */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_abc_copier_new(cuzk__gpu_abc_copier **out,
                                                             int device, size_t stage_bytes,
                                                             unsigned threads, cuzk_error *err);
/* Drains (below), stops the thread and frees (NULL is fine). */
void cuzk__gpu_abc_copier_free(cuzk__gpu_abc_copier *c);
/* Queues dst (device) <- src (host, read until the job is done), bytes;
 * *ticket: the job's number for wait. Jobs run in the order posted. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_abc_copier_post(cuzk__gpu_abc_copier *c,
                                                              void *dst, const void *src,
                                                              size_t bytes, uint64_t *ticket);
/* Waits until every job up to ticket is done: CUZK_OK, or the first failed
 * job's status and message (every later job is skipped, until a drain). */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__gpu_abc_copier_wait(cuzk__gpu_abc_copier *c,
                                                              uint64_t ticket, cuzk_error *err);
/* Drops the jobs not yet begun, waits for the one in progress, and clears a
 * failure: on return nothing reads a host range or writes the device. */
void cuzk__gpu_abc_copier_drain(cuzk__gpu_abc_copier *c);

/* ---- the key --------------------------------------------------------------------- */

struct cuzk__gpu_abc_key {
    int device;
    const cuzk_params *p; /* borrowed */
    pthread_mutex_t lock; /* one call at a time: the work area */
    uint64_t n_dom, n_h, n_inp, n_aux, n_vars, max_query;
    cuzk__gpu_msm_bases *h, *l, *a, *b1, *b2; /* NULL for an empty vector */
    cuzk__gpu_ntt_domain *dom;
    void *abc;             /* a, b, c: 3 N elements */
    void *w[2];            /* assignment buffers (inputs, aux); w[1] NULL without the room */
    void *gath;            /* one gathered query: max(|a|, |b_g1|) elements */
    uint64_t *bm_one, *bm_other; /* the classification's bitmaps, max_query bits */
    uint64_t *dens_words[3];     /* a_aux, b_inp, b_aux: a call's bitmap words */
    uint32_t *dens_rank[3];      /* and their per-word ranks */
    uint32_t *host_rank;         /* host scratch for a rank table */
    uint64_t *first;             /* 5 words for the scan */
    cuzk__gpu_abc_copier *cp;
    uint64_t fixed_bytes; /* everything above, on the device */
};

#endif /* CUZK_GPU_ABC_IMPL_H */
