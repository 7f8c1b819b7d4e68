/*
 * abc_copy.c — the copier of an abc key (abc_impl.h): a thread of its own
 * that copies host ranges onto the device in the order they were posted, on
 * a stream beside the legacy default stream where the proofs' kernels run,
 * so that the next input's a, b, c go up while the current one's MSMs
 * compute. The caller orders the rest: it posts a range only once no
 * kernel still reads or writes its destination, and waits for the job's
 * ticket before a kernel uses it.
 *
 * From pageable memory (what bellperson hands over) a range goes through two
 * page-locked buffers, chunk i into buffer i % 2 once the DMA of chunk
 * i - 2 has read it, the host copy of one chunk beside the DMA of the other
 * (the CUDA backend's upload_chunked, backend_gpu_stage.c); from page-locked
 * memory it is one DMA. Without page-locked buffers (the host refused them)
 * a job is one plain copy.
 */
#include <stdlib.h>
#include <string.h>

#include "gpu/abc_impl.h"
#include "util/mem.h"

/* Jobs queued at most; a post beyond waits for room (a call posts five per
 * input, one input ahead). */
#define QUEUE 32

typedef struct {
    void *dst;
    const void *src;
    size_t bytes;
} job;

struct cuzk__gpu_abc_copier {
    int device;
    unsigned threads;
    cuzk__gpu_copy_queue *q; /* beside stream; NULL: plain copies */
    void *stage[2];
    size_t stage_bytes;
    pthread_t thread;
    int thread_on;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    job jobs[QUEUE]; /* ring: [head, tail) queued, head in progress while busy */
    uint64_t head, tail; /* jobs taken / posted, ever: ticket t is job t - 1 */
    int busy;            /* the job at head is being copied */
    int quit;
    cuzk_status failed;  /* the first failure since the last drain */
    cuzk_error err;
};

/* One range through the staging buffers, or straight (see the top). */
static cuzk_status copy_range(cuzk__gpu_abc_copier *c, const job *j, cuzk_error *err) {
    const uint8_t *s = j->src;
    uint8_t *d = j->dst;
    cuzk_status st;
    if (c->q == NULL || cuzk__gpu_host_is_pinned(j->src)) {
        if (c->q == NULL)
            st = cuzk__gpu_upload(d, s, j->bytes);
        else if ((st = cuzk__gpu_copy_queue_upload(c->q, 0, d, s, j->bytes)) == CUZK_OK)
            st = cuzk__gpu_copy_queue_sync(c->q);
    } else {
        st = CUZK_OK;
        uint64_t chunks = 0;
        for (size_t off = 0; st == CUZK_OK && off < j->bytes; chunks++) {
            const unsigned slot = (unsigned)(chunks & 1);
            const size_t n = j->bytes - off < c->stage_bytes ? j->bytes - off : c->stage_bytes;
            if ((st = cuzk__gpu_copy_queue_wait(c->q, slot)) != CUZK_OK) break;
            cuzk__memcpy_parallel(c->stage[slot], s + off, n, c->threads);
            st = cuzk__gpu_copy_queue_upload(c->q, slot, d + off, c->stage[slot], n);
            off += n;
        }
        /* also after a failure: no DMA may still read a buffer refilled later */
        const cuzk_status sync = cuzk__gpu_copy_queue_sync(c->q);
        if (st == CUZK_OK) st = sync;
    }
    if (st != CUZK_OK)
        return cuzk__fail(err, st, "GPU %d: copying %zu bytes to the device: %s", c->device,
                          j->bytes, cuzk__gpu_last_error());
    return CUZK_OK;
}

static void *worker(void *arg) {
    cuzk__gpu_abc_copier *c = arg;
    cuzk_error e;
    cuzk__error_clear(&e);
    cuzk_status dev = cuzk__gpu_set_device(c->device);
    if (dev != CUZK_OK)
        cuzk__fail(&e, dev, "GPU %d: selecting the device for copies: %s", c->device,
                   cuzk__gpu_last_error());
    pthread_mutex_lock(&c->mu);
    for (;;) {
        while (!c->quit && c->head == c->tail) pthread_cond_wait(&c->cv, &c->mu);
        if (c->quit) break;
        const job j = c->jobs[c->head % QUEUE];
        const int skip = c->failed != CUZK_OK || dev != CUZK_OK;
        c->busy = 1;
        pthread_mutex_unlock(&c->mu);
        cuzk_error je;
        cuzk__error_clear(&je);
        const cuzk_status st = skip ? CUZK_OK : copy_range(c, &j, &je);
        pthread_mutex_lock(&c->mu);
        c->busy = 0;
        if (c->failed == CUZK_OK && (st != CUZK_OK || dev != CUZK_OK)) {
            c->failed = st != CUZK_OK ? st : dev;
            c->err = st != CUZK_OK ? je : e;
        }
        c->head++;
        pthread_cond_broadcast(&c->cv);
    }
    pthread_mutex_unlock(&c->mu);
    return NULL;
}

cuzk_status cuzk__gpu_abc_copier_new(cuzk__gpu_abc_copier **out, int device, size_t stage_bytes,
                                     unsigned threads, cuzk_error *err) {
    *out = NULL;
    cuzk__gpu_abc_copier *c = calloc(1, sizeof(*c));
    if (c == NULL) return cuzk__fail(err, CUZK_ERR_NOMEM, "no memory for a copier");
    c->device = device;
    c->threads = threads;
    c->failed = CUZK_OK;
    if (pthread_mutex_init(&c->mu, NULL) != 0) {
        free(c);
        return cuzk__fail(err, CUZK_ERR_NOMEM, "cannot create a mutex");
    }
    if (pthread_cond_init(&c->cv, NULL) != 0) {
        pthread_mutex_destroy(&c->mu);
        free(c);
        return cuzk__fail(err, CUZK_ERR_NOMEM, "cannot create a condition variable");
    }
    /* page-locked buffers and the stream beside the kernels, else plain copies */
    if (cuzk__gpu_copy_queue_create_beside(&c->q, 2) == CUZK_OK &&
        cuzk__gpu_host_alloc(&c->stage[0], stage_bytes) == CUZK_OK &&
        cuzk__gpu_host_alloc(&c->stage[1], stage_bytes) == CUZK_OK) {
        c->stage_bytes = stage_bytes;
    } else {
        cuzk__gpu_copy_queue_free(c->q);
        cuzk__gpu_host_free(c->stage[0]);
        cuzk__gpu_host_free(c->stage[1]);
        c->q = NULL;
        c->stage[0] = c->stage[1] = NULL;
    }
    if (pthread_create(&c->thread, NULL, worker, c) != 0) {
        cuzk__gpu_abc_copier_free(c);
        return cuzk__fail(err, CUZK_ERR_NOMEM, "cannot start the copier's thread");
    }
    c->thread_on = 1;
    *out = c;
    return CUZK_OK;
}

void cuzk__gpu_abc_copier_drain(cuzk__gpu_abc_copier *c) {
    if (c == NULL) return;
    pthread_mutex_lock(&c->mu);
    /* the queued jobs go; the one in progress (at head) ends on its own */
    c->tail = c->busy ? c->head + 1 : c->head;
    while (c->head != c->tail) pthread_cond_wait(&c->cv, &c->mu);
    c->failed = CUZK_OK;
    cuzk__error_clear(&c->err);
    pthread_mutex_unlock(&c->mu);
}

void cuzk__gpu_abc_copier_free(cuzk__gpu_abc_copier *c) {
    if (c == NULL) return;
    if (c->thread_on) {
        cuzk__gpu_abc_copier_drain(c);
        pthread_mutex_lock(&c->mu);
        c->quit = 1;
        pthread_cond_broadcast(&c->cv);
        pthread_mutex_unlock(&c->mu);
        (void)pthread_join(c->thread, NULL);
    }
    cuzk__gpu_copy_queue_free(c->q); /* first: it waits for the DMAs reading the buffers */
    cuzk__gpu_host_free(c->stage[0]);
    cuzk__gpu_host_free(c->stage[1]);
    pthread_cond_destroy(&c->cv);
    pthread_mutex_destroy(&c->mu);
    free(c);
}

cuzk_status cuzk__gpu_abc_copier_post(cuzk__gpu_abc_copier *c, void *dst, const void *src,
                                      size_t bytes, uint64_t *ticket) {
    pthread_mutex_lock(&c->mu);
    while (c->tail - c->head >= QUEUE) pthread_cond_wait(&c->cv, &c->mu);
    c->jobs[c->tail % QUEUE] = (job){dst, src, bytes};
    *ticket = ++c->tail;
    pthread_cond_broadcast(&c->cv);
    pthread_mutex_unlock(&c->mu);
    return CUZK_OK;
}

cuzk_status cuzk__gpu_abc_copier_wait(cuzk__gpu_abc_copier *c, uint64_t ticket,
                                      cuzk_error *err) {
    pthread_mutex_lock(&c->mu);
    while (c->head < ticket && c->failed == CUZK_OK) pthread_cond_wait(&c->cv, &c->mu);
    const cuzk_status st = c->failed;
    if (st != CUZK_OK && err != NULL) *err = c->err;
    pthread_mutex_unlock(&c->mu);
    return st;
}
