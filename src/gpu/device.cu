/* device.cu — device queries and the GPU error record (gpu.h, check.cuh). */
#include <stdio.h>
#include <string.h>

#include "check.cuh"

static thread_local char gpu_last_error[512];

extern "C" void cuzk__gpu_record_error(cudaError_t err, const char *expr, const char *file,
                                       int line) {
    const char *base = strrchr(file, '/');
    snprintf(gpu_last_error, sizeof gpu_last_error, "%s@%s:%d: %s: %s", expr,
             base ? base + 1 : file, line, cudaGetErrorName(err), cudaGetErrorString(err));
    (void)cudaGetLastError(); /* clear a non-sticky error; sticky ones persist anyway */
}

extern "C" const char *cuzk__gpu_last_error(void) { return gpu_last_error; }

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
    if (bytes) CUZK__CUDA_TRY(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
    return CUZK_OK;
}

extern "C" cuzk_status cuzk__gpu_download(void *dst, const void *src, size_t bytes) {
    if (bytes) CUZK__CUDA_TRY(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost));
    return CUZK_OK;
}

extern "C" cuzk_status cuzk__gpu_set_device(int device) {
    CUZK__CUDA_TRY(cudaSetDevice(device));
    return CUZK_OK;
}

extern "C" cuzk_status cuzk__gpu_sync(void) {
    CUZK__CUDA_TRY(cudaDeviceSynchronize());
    return CUZK_OK;
}

extern "C" cuzk_status cuzk__gpu_mem_info(size_t *free_bytes, size_t *total_bytes) {
    CUZK__CUDA_TRY(cudaMemGetInfo(free_bytes, total_bytes));
    return CUZK_OK;
}
