/*
 * backend_pick.c — `--backend cpu|gpu|auto` for the commands that prove
 * (prove, groth16 prove, bench prove). The GPU backend exists only in a
 * build with CUDA; auto picks it when a device is present, else the CPU.
 */
#include <stdio.h>
#include <string.h>

#include "groth16/backend.h"
#include "commands.h"

#if defined(CUZK_HAVE_CUDA)
#include "gpu/backend_gpu.h"
#endif

const cuzk_backend_ops *cuzk__cli_backend(const char *name, const char *cmd) {
    if (name == NULL || strcmp(name, "cpu") == 0) return &cuzk_backend_cpu;
#if defined(CUZK_HAVE_CUDA)
    if (strcmp(name, "gpu") == 0) return &cuzk_backend_gpu;
    if (strcmp(name, "auto") == 0)
        return cuzk__backend_gpu_devices() > 0 ? &cuzk_backend_gpu : &cuzk_backend_cpu;
    fprintf(stderr, "cuzk %s: unknown backend '%s' (cpu, gpu or auto)\n", cmd, name);
#else
    if (strcmp(name, "auto") == 0) return &cuzk_backend_cpu;
    if (strcmp(name, "gpu") == 0)
        fprintf(stderr, "cuzk %s: this build has no GPU backend (built without CUDA)\n", cmd);
    else
        fprintf(stderr, "cuzk %s: unknown backend '%s' (cpu or auto)\n", cmd, name);
#endif
    return NULL;
}

int cuzk__cli_gpu_count(void) {
#if defined(CUZK_HAVE_CUDA)
    return cuzk__backend_gpu_devices();
#else
    return 0;
#endif
}
