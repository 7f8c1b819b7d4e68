/* device.cu — device queries and the GPU error record (gpu.h, check.cuh). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/check.cuh"

static thread_local char gpu_last_error[512];

extern "C" void cuzk__gpu_record_error(cudaError_t err, const char *expr, const char *file,
                                       int line) {
    const char *base = strrchr(file, '/');
    snprintf(gpu_last_error, sizeof gpu_last_error, "%s@%s:%d: %s: %s", expr,
             base ? base + 1 : file, line, cudaGetErrorName(err), cudaGetErrorString(err));
    (void)cudaGetLastError(); /* clear a non-sticky error; sticky ones persist anyway */
}

extern "C" const char *cuzk__gpu_last_error(void) { return gpu_last_error; }

extern "C" const char *cuzk__gpu_status_text(cuzk_status st) {
    return st == CUZK_ERR_GPU || st == CUZK_ERR_DEVICE_NOMEM ? gpu_last_error : cuzk_strerror(st);
}

extern "C" cuzk_status cuzk__gpu_device_count(int *count) {
    if (count == NULL) return CUZK_ERR_INVALID_ARG;
    *count = 0;
    cudaError_t err = cudaGetDeviceCount(count);
    if (err == cudaSuccess) return CUZK_OK;
    *count = 0;
    cuzk__gpu_record_error(err, "cudaGetDeviceCount(count)", __FILE__, __LINE__);
    /* A machine without a GPU or driver is not an error: it has 0 devices. */
    if (err == cudaErrorNoDevice || err == cudaErrorInsufficientDriver) return CUZK_OK;
    return CUZK_ERR_GPU;
}

extern "C" cuzk_status cuzk__gpu_device_name(int device, char *name, size_t len, int *sm_count) {
    if (name == NULL || len == 0) return CUZK_ERR_INVALID_ARG;
    name[0] = '\0';
    cudaDeviceProp prop;
    CUZK__CUDA_TRY(cudaGetDeviceProperties(&prop, device));
    snprintf(name, len, "%s", prop.name);
    if (sm_count) *sm_count = prop.multiProcessorCount;
    return CUZK_OK;
}

/* ---- device selection, synchronization, memory for C callers ----------------- */

extern "C" cuzk_status cuzk__gpu_alloc(void **p, size_t bytes) {
    if (!p) return CUZK_ERR_INVALID_ARG;
    *p = NULL;
    CUZK__CUDA_TRY(cudaMalloc(p, bytes ? bytes : 1));
    return CUZK_OK;
}

extern "C" void cuzk__gpu_free(void *p) {
    if (p) (void)cudaFree(p);
}

extern "C" cuzk_status cuzk__gpu_upload(void *dst, const void *src, size_t bytes) {
    if (bytes) CUZK__CUDA_TRY(cuzk__sync_copy(dst, src, bytes, cudaMemcpyHostToDevice));
    return CUZK_OK;
}

extern "C" cuzk_status cuzk__gpu_download(void *dst, const void *src, size_t bytes) {
    if (bytes) CUZK__CUDA_TRY(cuzk__sync_copy(dst, src, bytes, cudaMemcpyDeviceToHost));
    return CUZK_OK;
}

extern "C" cuzk_status cuzk__gpu_set_device(int device) {
    CUZK__CUDA_TRY(cudaSetDevice(device));
    return CUZK_OK;
}

extern "C" cuzk_status cuzk__gpu_get_device(int *device) {
    CUZK__CUDA_TRY(cudaGetDevice(device));
    return CUZK_OK;
}

extern "C" cuzk_status cuzk__gpu_sync(void) {
    CUZK__CUDA_TRY(cudaDeviceSynchronize());
    return CUZK_OK;
}

extern "C" cuzk_status cuzk__gpu_sync_kernels(void) {
    CUZK__CUDA_TRY(cudaStreamSynchronize(0));
    return CUZK_OK;
}

extern "C" cuzk_status cuzk__gpu_mem_info(size_t *free_bytes, size_t *total_bytes) {
    CUZK__CUDA_TRY(cudaMemGetInfo(free_bytes, total_bytes));
    return CUZK_OK;
}

/* ---- page-locked host memory and the copy queue ------------------------------ */

extern "C" cuzk_status cuzk__gpu_host_alloc(void **p, size_t bytes) {
    if (!p) return CUZK_ERR_INVALID_ARG;
    cudaError_t err = cudaHostAlloc(p, bytes ? bytes : 1, cudaHostAllocPortable);
    if (err != cudaSuccess) {
        *p = NULL; /* callers free what they hold on the way out */
        cuzk__gpu_record_error(err, "cudaHostAlloc(p, bytes, cudaHostAllocPortable)", __FILE__,
                               __LINE__);
        return err == cudaErrorMemoryAllocation ? CUZK_ERR_NOMEM : CUZK_ERR_GPU;
    }
    return CUZK_OK;
}

extern "C" void cuzk__gpu_host_free(void *p) {
    if (p) (void)cudaFreeHost(p);
}

/* The ranges this process registered through cuzk__gpu_host_register,
 * counted: CUDA's registration is per process, so keys (lanes) sharing one
 * set of points share it, and the last one's unregister ends it. */
struct host_reg {
    const void *p;
    size_t bytes;
    unsigned users;
    host_reg *next;
};
static pthread_mutex_t host_regs_mu = PTHREAD_MUTEX_INITIALIZER;
static host_reg *host_regs;

extern "C" cuzk_status cuzk__gpu_host_register(const void *p, size_t bytes) {
    if (!p || bytes == 0) return CUZK_ERR_INVALID_ARG;
    pthread_mutex_lock(&host_regs_mu);
    for (host_reg *r = host_regs; r != NULL; r = r->next)
        if (r->p == p && r->bytes == bytes) {
            r->users++;
            pthread_mutex_unlock(&host_regs_mu);
            return CUZK_OK;
        }
    cuzk_status st = CUZK_OK;
    host_reg *r = (host_reg *)calloc(1, sizeof(*r));
    const cudaError_t err = r == NULL ? cudaSuccess
                                      : cudaHostRegister(const_cast<void *>(p), bytes,
                                                         cudaHostRegisterPortable);
    if (r == NULL) {
        st = CUZK_ERR_NOMEM;
    } else if (err != cudaSuccess) {
        cuzk__gpu_record_error(err, "cudaHostRegister(p, bytes, cudaHostRegisterPortable)",
                               __FILE__, __LINE__);
        (void)cudaGetLastError(); /* a refusal, not a sticky error */
        free(r);
        st = CUZK_ERR_GPU;
    } else {
        *r = host_reg{p, bytes, 1, host_regs};
        host_regs = r;
    }
    pthread_mutex_unlock(&host_regs_mu);
    return st;
}

extern "C" void cuzk__gpu_host_unregister(const void *p) {
    if (p == NULL) return;
    pthread_mutex_lock(&host_regs_mu);
    for (host_reg **at = &host_regs; *at != NULL; at = &(*at)->next) {
        host_reg *r = *at;
        if (r->p != p) continue;
        if (--r->users == 0) {
            (void)cudaHostUnregister(const_cast<void *>(p));
            *at = r->next;
            free(r);
        }
        break;
    }
    pthread_mutex_unlock(&host_regs_mu);
}

extern "C" int cuzk__gpu_host_is_pinned(const void *p) {
    if (p == NULL) return 0;
    cudaPointerAttributes attr;
    if (cudaPointerGetAttributes(&attr, p) != cudaSuccess) {
        (void)cudaGetLastError(); /* a question, not a failure: leave no error behind */
        return 0;
    }
    return attr.type == cudaMemoryTypeHost;
}

struct cuzk__gpu_copy_queue {
    cudaStream_t stream; /* a created stream is never 0 (0 is the legacy stream) */
    unsigned slots;
    cudaEvent_t *done; /* slots events, 0 until created */
    cudaEvent_t mark;  /* copy_queue_mark's point of the legacy stream */
};

static cuzk_status copy_queue_init(cuzk__gpu_copy_queue *q, bool beside) {
    /* default flags: a blocking stream, ordered with the legacy default stream;
     * non-blocking: copies run beside the kernels there */
    CUZK__CUDA_TRY(cudaStreamCreateWithFlags(&q->stream, beside ? cudaStreamNonBlocking
                                                                : cudaStreamDefault));
    for (unsigned i = 0; i < q->slots; i++)
        CUZK__CUDA_TRY(cudaEventCreateWithFlags(&q->done[i], cudaEventDisableTiming));
    CUZK__CUDA_TRY(cudaEventCreateWithFlags(&q->mark, cudaEventDisableTiming));
    return CUZK_OK;
}

static cuzk_status copy_queue_create(cuzk__gpu_copy_queue **out, unsigned slots, bool beside) {
    if (!out || slots == 0) return CUZK_ERR_INVALID_ARG;
    *out = NULL;
    cuzk__gpu_copy_queue *q = (cuzk__gpu_copy_queue *)calloc(1, sizeof(*q));
    if (q == NULL) return CUZK_ERR_NOMEM;
    q->done = (cudaEvent_t *)calloc(slots, sizeof(cudaEvent_t));
    if (q->done == NULL) {
        free(q);
        return CUZK_ERR_NOMEM;
    }
    q->slots = slots;
    cuzk_status st = copy_queue_init(q, beside);
    if (st != CUZK_OK) {
        cuzk__gpu_copy_queue_free(q);
        return st;
    }
    *out = q;
    return CUZK_OK;
}

extern "C" cuzk_status cuzk__gpu_copy_queue_create(cuzk__gpu_copy_queue **out, unsigned slots) {
    return copy_queue_create(out, slots, false);
}

extern "C" cuzk_status cuzk__gpu_copy_queue_create_beside(cuzk__gpu_copy_queue **out,
                                                          unsigned slots) {
    return copy_queue_create(out, slots, true);
}

extern "C" void cuzk__gpu_copy_queue_free(cuzk__gpu_copy_queue *q) {
    if (q == NULL) return;
    if (q->stream) {
        (void)cudaStreamSynchronize(q->stream); /* no copy may outlive its host buffer */
        (void)cudaStreamDestroy(q->stream);
    }
    for (unsigned i = 0; i < q->slots; i++)
        if (q->done[i]) (void)cudaEventDestroy(q->done[i]);
    if (q->mark) (void)cudaEventDestroy(q->mark);
    free(q->done);
    free(q);
}

extern "C" cuzk_status cuzk__gpu_copy_queue_upload(cuzk__gpu_copy_queue *q, unsigned slot,
                                                   void *dst, const void *src, size_t bytes) {
    if (q == NULL || slot >= q->slots) return CUZK_ERR_INVALID_ARG;
    if (bytes == 0) return CUZK_OK;
    CUZK__CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, q->stream));
    CUZK__CUDA_TRY(cudaEventRecord(q->done[slot], q->stream));
    return CUZK_OK;
}

extern "C" cuzk_status cuzk__gpu_copy_queue_wait(cuzk__gpu_copy_queue *q, unsigned slot) {
    if (q == NULL || slot >= q->slots) return CUZK_ERR_INVALID_ARG;
    CUZK__CUDA_TRY(cudaEventSynchronize(q->done[slot])); /* never recorded: returns at once */
    return CUZK_OK;
}

extern "C" cuzk_status cuzk__gpu_copy_queue_order(cuzk__gpu_copy_queue *q, unsigned slot,
                                                  void *stream) {
    if (q == NULL || slot >= q->slots) return CUZK_ERR_INVALID_ARG;
    CUZK__CUDA_TRY(cudaStreamWaitEvent((cudaStream_t)stream, q->done[slot], 0));
    return CUZK_OK;
}

extern "C" cuzk_status cuzk__gpu_copy_queue_sync(cuzk__gpu_copy_queue *q) {
    if (q == NULL) return CUZK_ERR_INVALID_ARG;
    CUZK__CUDA_TRY(cudaStreamSynchronize(q->stream));
    return CUZK_OK;
}

extern "C" cuzk_status cuzk__gpu_copy_queue_mark(cuzk__gpu_copy_queue *q) {
    if (q == NULL) return CUZK_ERR_INVALID_ARG;
    CUZK__CUDA_TRY(cudaEventRecord(q->mark, 0));
    return CUZK_OK;
}

extern "C" cuzk_status cuzk__gpu_copy_queue_follow(cuzk__gpu_copy_queue *q) {
    if (q == NULL) return CUZK_ERR_INVALID_ARG;
    CUZK__CUDA_TRY(cudaStreamWaitEvent(q->stream, q->mark, 0)); /* never recorded: no wait */
    return CUZK_OK;
}

extern "C" cuzk_status cuzk__gpu_copy_on_device(void *dst, const void *src, size_t bytes) {
    if (bytes == 0) return CUZK_OK;
    if (!dst || !src) return CUZK_ERR_INVALID_ARG;
    CUZK__CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, 0));
    return CUZK_OK;
}
