/*
 * route.c — which prover each circuit of a call goes to (supraseal_impl.h
 * cuzk__ss_prove).
 *
 * gpu_index >= 0 picks one device, the index modulo the device count (Curio
 * passes each of its GPUs' index with that GPU's mutex; upstream indexes its
 * device list unchecked, which for an index past the end is undefined: here
 * it wraps); a negative index spreads the circuits over min(devices, n)
 * devices in contiguous blocks, the first n mod devices one longer, each
 * device on a thread of its own, as upstream does. A device whose key
 * cannot be made (no room for the SRS) drops out of the spread; with none
 * left, or no device at all, the CPU proves the call.
 *
 * After the devices, the CPU proves in ascending order whatever they left:
 * circuits of a device that failed (a device error is not the input's
 * fault), or none. An input a device refused (the CPU prover's words, from
 * the same checks) fails the call when the ascending walk reaches it, so
 * the error is always the lowest failing circuit's, as on the CPU.
 */
#include "supraseal/supraseal_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(CUZK_HAVE_CUDA)
#include "gpu/gpu_abc.h"
#endif

/* One device's share of a call. */
typedef struct {
    const cuzk__ss_srs *s;
    int device;
    void *key; /* acquired for the call */
    const cuzk_groth16_abc_input *ins;
    cuzk_groth16_partial *parts;
    size_t lo, n;   /* circuits [lo, lo + n) */
    size_t done;    /* proved: [lo, lo + done) */
    cuzk_status st; /* the refusal of circuit lo + done (CUZK_OK: none, the rest to the CPU) */
    cuzk_error err;
    pthread_t thread;
    int threaded;
} block;

#if defined(CUZK_HAVE_CUDA)
/* A failure of the device, not of the input: its circuits go to the CPU. */
static int device_failure(cuzk_status st) {
    return st == CUZK_ERR_GPU || st == CUZK_ERR_DEVICE_NOMEM;
}

/* The stage times of circuits [lo, lo + done) on stderr, one line each. */
static void log_times(const block *b, const cuzk_groth16_stage_times *t) {
    for (size_t i = 0; i < b->done; i++, t++)
        fprintf(stderr,
                "cuzk_supraseal: GPU %d: circuit %zu: upload_ms=%.1f check_ms=%.1f ntt_ms=%.1f "
                "msm_h_ms=%.1f prep_ms=%.1f batch_add_ms=%.1f tail_msm_ms=%.1f "
                "b_g2_msm_ms=%.1f total_ms=%.1f\n",
                b->device, b->lo + i, t->spmv_ms, t->check_ms, t->ntt_ms, t->msm_h_ms,
                t->prep_ms, t->batch_add_ms, t->tail_msm_ms, t->b_g2_msm_ms, t->total_ms);
}

static void block_run(block *b) {
    size_t failed = 0;
    cuzk_error e;
    cuzk__error_clear(&e);
    cuzk_groth16_stage_times *times =
        cuzk__ss_timing() ? calloc(b->n ? b->n : 1, sizeof(*times)) : NULL;
    const cuzk_status st = cuzk__gpu_abc_prove(b->key, b->ins + b->lo, b->n, b->parts + b->lo,
                                               times, &failed, &e);
    b->done = st == CUZK_OK ? b->n : failed;
    if (times != NULL) log_times(b, times);
    free(times);
    cuzk__ss_count_circuits(1, b->done);
    b->st = CUZK_OK;
    if (st != CUZK_OK && !device_failure(st)) {
        b->st = st;
        b->err = e;
    }
    cuzk__ss_device_release(b->s, b->device, st != CUZK_OK && device_failure(st) ? &e : NULL);
}

static void *block_thread(void *arg) {
    block_run(arg);
    return NULL;
}

/* The devices' part of a call into blocks[0..*nb). */
static void run_devices(const cuzk__ss_srs *s, int gpu_index, const cuzk_groth16_abc_input *ins,
                        size_t n, cuzk_groth16_partial *parts, block *blocks, size_t *nb) {
    *nb = 0;
    const int ndev = cuzk__ss_device_count();
    if (ndev <= 0 || n == 0) return;
    int want[CUZK__SS_MAX_DEVICES];
    size_t nw = 0;
    if (gpu_index >= 0) {
        want[nw++] = gpu_index % ndev;
    } else {
        for (int d = 0; d < ndev && (size_t)d < n; d++) want[nw++] = d;
    }
    for (size_t i = 0; i < nw; i++) {
        void *key = cuzk__ss_device_acquire(s, want[i]);
        if (key == NULL) continue; /* no room on it (logged): the others, or the CPU */
        block *b = &blocks[(*nb)++];
        memset(b, 0, sizeof(*b));
        b->s = s;
        b->device = want[i];
        b->key = key;
        b->ins = ins;
        b->parts = parts;
    }
    const size_t per = *nb ? n / *nb : 0, rem = *nb ? n % *nb : 0;
    size_t lo = 0;
    for (size_t i = 0; i < *nb; i++) {
        blocks[i].lo = lo;
        blocks[i].n = per + (i < rem);
        lo += blocks[i].n;
    }
    for (size_t i = 1; i < *nb; i++) /* the first runs on this thread */
        blocks[i].threaded = pthread_create(&blocks[i].thread, NULL, block_thread, &blocks[i]) == 0;
    if (*nb > 0) block_run(&blocks[0]);
    for (size_t i = 1; i < *nb; i++) {
        if (blocks[i].threaded)
            (void)pthread_join(blocks[i].thread, NULL);
        else
            block_run(&blocks[i]); /* no thread for it: in turn */
    }
}
#endif

cuzk_status cuzk__ss_prove(const cuzk__ss_srs *s, int gpu_index,
                           const cuzk_groth16_abc_input *ins, size_t n,
                           cuzk_groth16_partial *parts, cuzk_error *err) {
    block blocks[CUZK__SS_MAX_DEVICES];
    size_t nb = 0;
#if defined(CUZK_HAVE_CUDA)
    run_devices(s, gpu_index, ins, n, parts, blocks, &nb);
#else
    (void)gpu_index;
#endif
    const cuzk_ntt_domain *dom = NULL;
    size_t bi = 0;
    for (size_t i = 0; i < n; i++) {
        while (bi < nb && i >= blocks[bi].lo + blocks[bi].n) bi++;
        const block *b = bi < nb && i >= blocks[bi].lo ? &blocks[bi] : NULL;
        if (b != NULL && i < b->lo + b->done) continue; /* proved on its device */
        if (b != NULL && i == b->lo + b->done && b->st != CUZK_OK) {
            if (err != NULL) *err = b->err;
            return b->st;
        }
        cuzk_status st;
        if (dom == NULL && (st = cuzk__ss_srs_cpu_domain(s, &dom, err)) != CUZK_OK) return st;
        if ((st = cuzk__groth16_prove_start_abc(&parts[i], NULL, &ins[i], &s->p, dom, 0, err)) !=
            CUZK_OK)
            return st;
        cuzk__ss_count_circuits(0, 1);
    }
    return CUZK_OK;
}
