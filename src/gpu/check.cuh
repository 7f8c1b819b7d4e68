/*
 * check.cuh — CUDA error checking for the .cu files of src/gpu (internal).
 *
 * CUZK__CUDA_TRY(expr) evaluates a CUDA runtime call; on failure it records
 * "expr@file:line: name: description" as this thread's last GPU error and
 * returns from the enclosing function CUZK_ERR_DEVICE_NOMEM when the device
 * had not the memory (cudaErrorMemoryAllocation: the context stays usable,
 * the caller may step down to a leaner plan), else CUZK_ERR_GPU. Functions that hold
 * resources split into a body that returns early and a caller that frees
 * (no C++ destructors: they would export weak symbols and need the C++
 * exception personality, and every symbol of the library is cuzk_-prefixed).
 */
#ifndef CUZK_GPU_CHECK_CUH
#define CUZK_GPU_CHECK_CUH

#include <cuda_runtime.h>
#include <stddef.h>

#include "gpu/gpu.h"

/* Records a failure (and clears the runtime's non-sticky last error so a
 * later cudaGetLastError() does not report it twice). */
extern "C" void cuzk__gpu_record_error(cudaError_t err, const char *expr, const char *file,
                                       int line);

/* oom: the status of cudaErrorMemoryAllocation (whose memory ran out) */
#define CUZK__CUDA_CHECK(expr, oom)                                           \
    do {                                                                      \
        cudaError_t cuzk__err = (expr);                                       \
        if (cuzk__err != cudaSuccess) {                                       \
            cuzk__gpu_record_error(cuzk__err, #expr, __FILE__, __LINE__);     \
            return cuzk__err == cudaErrorMemoryAllocation ? (oom) : CUZK_ERR_GPU; \
        }                                                                     \
    } while (0)

#define CUZK__CUDA_TRY(expr) CUZK__CUDA_CHECK(expr, CUZK_ERR_DEVICE_NOMEM)
/* The same for a call that allocates page-locked host memory: the host's
 * memory running out is CUZK_ERR_NOMEM, not the device's. */
#define CUZK__CUDA_HOST_TRY(expr) CUZK__CUDA_CHECK(expr, CUZK_ERR_NOMEM)

/* A synchronous copy between the host and the legacy stream's work: waits for
 * the stream's kernels first, then copies. A cudaMemcpy to or from pageable
 * memory that has to wait for kernels stalls the CUDA calls of the
 * process's other threads meanwhile (a key's vector loader beside the
 * proof would be held up for each kernel it waits for); a stream
 * synchronization does not, and the copy after it finds nothing to wait for. */
static inline cudaError_t cuzk__sync_copy(void *dst, const void *src, size_t bytes,
                                          cudaMemcpyKind kind) {
    const cudaError_t e = cudaStreamSynchronize(0);
    if (e != cudaSuccess) return e;
    return cudaMemcpy(dst, src, bytes, kind);
}

#endif /* CUZK_GPU_CHECK_CUH */
