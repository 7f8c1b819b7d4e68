/* dev_setup.c — the development setup with the GPU's fixed-base accelerator
 * when asked (for `cuzk setup` and `cuzk bench prove --setup-seed`), and the
 * name of a GPU for the commands' reports. */
#include <string.h>

#include "api/api.h"
#include "groth16/setup.h"

#if defined(CUZK_HAVE_CUDA)
#include "gpu/gpu.h"
#include "gpu/setup_gpu.h"
#endif

cuzk_status cuzk__api_dev_setup(cuzk_params *p, const cuzk_circuit *c, const cuzk_setup_toxic *tw,
                                unsigned threads, int use_gpu, cuzk_setup_times *tm,
                                cuzk_error *err) {
    cuzk_setup_accel accel;
    memset(&accel, 0, sizeof(accel));
#if defined(CUZK_HAVE_CUDA)
    if (use_gpu) {
        const cuzk_status st = cuzk__gpu_setup_accel_open(&accel, 0, threads, err);
        if (st != CUZK_OK) return st;
    }
#else
    if (use_gpu)
        return cuzk__fail(err, CUZK_ERR_UNSUPPORTED,
                          "this build has no GPU backend (built without CUDA)");
#endif
    const cuzk_status st =
        cuzk__groth16_setup_dev_accel(p, c, tw, threads, use_gpu ? &accel : NULL, tm, err);
#if defined(CUZK_HAVE_CUDA)
    cuzk__gpu_setup_accel_close(&accel);
#endif
    return st;
}

cuzk_status cuzk__api_gpu_name(int device, char *name, size_t len, int *sm_count) {
#if defined(CUZK_HAVE_CUDA)
    return cuzk__gpu_device_name(device, name, len, sm_count);
#else
    (void)device;
    (void)sm_count;
    if (len > 0) name[0] = '\0';
    return CUZK_ERR_UNSUPPORTED;
#endif
}
