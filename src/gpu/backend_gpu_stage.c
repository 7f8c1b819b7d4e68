/*
 * backend_gpu_stage.c — the CUDA backend's uploads of per-proof inputs
 * (backend_gpu_impl.h): through two page-locked staging buffers, the host
 * copy of one chunk beside the DMA of the other; and pre-staging
 * (cuzk_backend_stage), the next proof's witness copied into a second device
 * buffer beside the proof the key is computing.
 */
#include <stdlib.h>
#include <string.h>

#include "gpu/backend_gpu_impl.h"
#include "util/mem.h"

/* The most bytes a staging buffer takes unless the hooks say otherwise
 * (stage_alloc sizes it for at least 4 chunks of the key's largest input). */
#define STAGE_BYTES_MAX ((size_t)32 << 20)

/*
 * The staging buffers for uploads from pageable memory, sized for at least 4
 * chunks of the largest input (so the host copy of one overlaps the DMA of
 * another even for mid-sized keys), at most the hooks' stage_bytes,
 * at least 1 MiB. Without them (page-locked memory refused) the key uploads
 * with plain copies: a slower proof, not a failed one.
 */
void cuzk__gpu_stage_alloc(gpu_key *k) {
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

/* The circuit's arrays through the key's staging buffers (gpu_circuit.h):
 * they live in the circuit file's pageable mapping. */
cuzk_status cuzk__gpu_staged_copy(void *ctx, void *dst, const void *src, size_t bytes) {
    return cuzk__gpu_upload_input(ctx, dst, src, bytes);
}

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

cuzk_status cuzk__gpu_upload_input(gpu_key *k, void *dst, const void *src, size_t bytes) {
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

/* upload_input on the key's queue beside the kernels (cab_cq), through the
 * same staging buffers (the caller holds the key's lock: no other upload
 * uses them meanwhile): the copy runs beside kernels queued on the legacy
 * stream; returns once it is done. In line without that queue. */
cuzk_status cuzk__gpu_upload_beside(gpu_key *k, void *dst, const void *src, size_t bytes) {
    if (k->cab_cq == NULL) return cuzk__gpu_upload_input(k, dst, src, bytes);
    if (bytes == 0) return CUZK_OK;
    cuzk_status st;
    if (cuzk__gpu_host_is_pinned(src)) {
        count_uploads(&k->inst->stats.pinned, 1);
        st = cuzk__gpu_copy_queue_upload(k->cab_cq, 0, dst, src, bytes);
        const cuzk_status done = cuzk__gpu_copy_queue_sync(k->cab_cq); /* also after a failure */
        return st != CUZK_OK ? st : done;
    }
    if (k->stage_bytes == 0) return cuzk__gpu_upload_input(k, dst, src, bytes);
    st = upload_chunked(k->cab_cq, k->stage, k->stage_bytes, k->threads, dst, src, bytes,
                        &k->inst->stats.staged_chunks);
    if (st != CUZK_OK) { /* the staging buffers' readers done before anything reuses them */
        const cuzk_status done = cuzk__gpu_copy_queue_sync(k->cab_cq);
        (void)done;
    }
    return st;
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
        while (!k->st_quit && (k->st_nq == 0 || k->st_state != SLOT_EMPTY || k->st_abc_busy))
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
        /* b's third: after the NTTs of the proof that held it last */
        if (st == CUZK_OK && k->st_in_abc) st = cuzk__gpu_copy_queue_follow(k->st_cq);
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
        /* a failed copy may leave earlier chunks in flight: done before the
         * slot is given up (in b's third, the next SpMV writes there) */
        if (st != CUZK_OK && dev == CUZK_OK) {
            const cuzk_status done = cuzk__gpu_copy_queue_sync(k->st_cq);
            (void)done;
        }
        pthread_mutex_lock(&k->st_mu);
        k->st_state = st == CUZK_OK ? SLOT_READY : SLOT_FAILED;
        pthread_cond_broadcast(&k->st_cv);
    }
    pthread_mutex_unlock(&k->st_mu);
    return NULL;
}

void cuzk__gpu_stage_stop(gpu_key *k) {
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
    if (!k->st_in_abc) cuzk__gpu_free(k->w_slot);
    k->st_cq = NULL;
    k->st_stage[0] = k->st_stage[1] = k->w_slot = NULL;
    k->st_in_abc = 0;
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
    const unsigned nh = k->h != NULL ? cuzk__gpu_key_msms(k, hs) : 0;
    size_t free_b = 0, total_b = 0;
    if (k->st_fitted && nh > 0 && cuzk__gpu_key_mem(k, &free_b, &total_b) == CUZK_OK) {
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

/* The worker started on slot (b's third of abc: in_abc); without a thread
 * staging goes off. */
static void stage_start(gpu_key *k, void *slot, int in_abc) {
    k->w_slot = slot;
    k->st_in_abc = in_abc;
    if (pthread_create(&k->st_thread, NULL, stage_worker, k) != 0) {
        if (!in_abc) cuzk__gpu_free(slot); /* before stage_give_up looks at free memory */
        k->w_slot = NULL;
        k->st_in_abc = 0;
        stage_give_up(k);
        return;
    }
    pthread_mutex_lock(&k->st_mu);
    k->st_thread_on = 1;
    pthread_cond_broadcast(&k->st_cv);
    pthread_mutex_unlock(&k->st_mu);
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
 * a proof more than a window group less does);
 * this runs again after that proof to see whether the room is there, and
 * if it is not, staging goes off and the budgets are put back (stage_give_up).
 */
void cuzk__gpu_stage_setup(gpu_key *k) {
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
    if (cuzk__gpu_key_mem(k, &free_b, &total_b) != CUZK_OK) {
        stage_give_up(k);
        return;
    }
    /* the look after a fit: the room may still not be there (another
     * allocation took it, or the estimate was short) */
    if (k->st_fitted && k->inst->hooks.room_fail) free_b = 0;
    const int slot_hook = k->inst->hooks.stage_slot;
    const int abc_can = k->abc != NULL && !k->w_in_abc && k->n_vars <= k->n_dom &&
                        slot_hook != CUZK__GPU_STAGE_SLOT_OWN;
    if (abc_can && (free_b < 3 * bytes || slot_hook == CUZK__GPU_STAGE_SLOT_ABC)) {
        stage_start(k, (uint8_t *)k->abc + 32 * k->n_dom, 1);
        return;
    }
    if (free_b < 3 * bytes) {
        cuzk__gpu_msm_bases *hs[5];
        const unsigned nh = k->h != NULL ? cuzk__gpu_key_msms(k, hs) : 0;
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
    void *slot = NULL;
    if (cuzk__gpu_alloc(&slot, bytes) != CUZK_OK) {
        stage_give_up(k);
        return;
    }
    stage_start(k, slot, 0);
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
 * the slot is free for the next announcement; a slot in b's third is
 * copied to w_plain by stage_abc_taken), 0 when the proof uploads w
 * itself. The rule that keeps every proof's witness its own: once a proof
 * of w has begun, nothing copies w for it any more. So a miss removes w's
 * announcement and the older ones it overtook from the queue (their copies
 * would come too late or never be taken), and a slot holding another
 * witness is emptied. To find w when it was announced in order, the call
 * waits for a copy in progress, and for the worker to take w when w is the
 * oldest announcement and the slot is free: then what a proof finds depends
 * on the order of the calls, not on thread timing.
 */
int cuzk__gpu_stage_take(gpu_key *k, const cuzk_witness *w) {
    int hit = 0;
    pthread_mutex_lock(&k->st_mu);
    while (k->st_state == SLOT_COPYING ||
           (k->st_thread_on && k->st_state == SLOT_EMPTY && !k->st_abc_busy && k->st_nq > 0 &&
            k->st_q[0] == w))
        pthread_cond_wait(&k->st_cv, &k->st_mu);
    if (k->st_state == SLOT_READY && k->st_have == w && k->st_have_values == w->values) {
        if (!k->st_in_abc) { /* b's third: the caller copies it (stage_abc_taken) */
            void *t = k->w_plain;
            k->w_plain = k->w_slot;
            k->w_slot = t;
        }
        hit = 1;
    } else {
        const int i = stage_find(k, w);
        for (int d = 0; d <= i; d++) stage_unqueue(k, 0);
    }
    slot_clear(k);
    if (k->st_in_abc) k->st_abc_busy = 1; /* the proof's SpMV writes b's third */
    pthread_mutex_unlock(&k->st_mu);
    count_uploads(hit ? &k->inst->stats.staged_witness : &k->inst->stats.unstaged_witness, 1);
    return hit;
}

cuzk_status cuzk__gpu_stage_abc_taken(gpu_key *k) {
    return cuzk__gpu_copy_on_device(k->w_plain, k->w_slot, (size_t)k->n_vars * 32);
}

void cuzk__gpu_stage_abc_free(gpu_key *k) {
    if (!k->st_in_abc) return;
    pthread_mutex_lock(&k->st_mu);
    if (k->st_abc_busy) {
        /* the worker's copy goes after the kernels queued so far; unable to
         * order it, staging stops here (b's third stays the proofs') */
        if (cuzk__gpu_set_device(k->device) == CUZK_OK &&
            cuzk__gpu_copy_queue_mark(k->st_cq) == CUZK_OK) {
            k->st_abc_busy = 0;
        } else {
            k->st_off = 1;
            k->st_nq = 0;
        }
        pthread_cond_broadcast(&k->st_cv);
    }
    pthread_mutex_unlock(&k->st_mu);
}

cuzk_status cuzk__gpu_op_stage(cuzk_backend *be, cuzk_backend_key *key, const cuzk_witness *w,
                             cuzk_error *err) {
    (void)be;
    cuzk__error_clear(err);
    gpu_key *k = (gpu_key *)key;
    const cuzk_status st = cuzk__gpu_witness_check(k, w, "stage", err);
    if (st != CUZK_OK) return st;
    pthread_mutex_lock(&k->st_mu);
    if (!k->st_off) {
        k->st_wanted = 1;
        if (k->st_nq == STAGE_QUEUE) stage_unqueue(k, 0);
        k->st_q[k->st_nq++] = w;
        pthread_cond_broadcast(&k->st_cv);
    }
    pthread_mutex_unlock(&k->st_mu);
    return CUZK_OK;
}

void cuzk__gpu_op_withdraw(cuzk_backend *be, cuzk_backend_key *key, const cuzk_witness *w) {
    (void)be;
    gpu_key *k = (gpu_key *)key;
    pthread_mutex_lock(&k->st_mu);
    for (unsigned i = 0; i < k->st_nq;) {
        if (k->st_q[i] == w)
            stage_unqueue(k, i);
        else
            i++;
    }
    while (k->st_state == SLOT_COPYING && k->st_have == w)
        pthread_cond_wait(&k->st_cv, &k->st_mu);
    if (k->st_have == w)
        slot_clear(k);
    else /* wakes a proof waiting for an announcement just dropped */
        pthread_cond_broadcast(&k->st_cv);
    pthread_mutex_unlock(&k->st_mu);
}
