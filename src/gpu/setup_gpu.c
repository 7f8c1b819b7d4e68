/* setup_gpu.c — cuzk_setup_accel over the GPU fixed-base code (setup_gpu.h). */
#include "gpu/setup_gpu.h"

#include <stdlib.h>
#include <string.h>

#include "ec/fixed_base.h"
#include "ec/g1.h"
#include "ec/g2.h"
#include "gpu/gpu.h"
#include "gpu/gpu_fixed_base.h"

/* The device code reads the host's arrays as words. */
_Static_assert(sizeof(cuzk_g1_aff) == 12 * sizeof(uint64_t), "G1 affine layout");
_Static_assert(sizeof(cuzk_g2_aff) == 24 * sizeof(uint64_t), "G2 affine layout");
_Static_assert(sizeof(cuzk_fr) == 4 * sizeof(uint64_t), "Fr layout");

typedef struct {
    int device;
    unsigned host_threads;
    cuzk__gpu_fixed_base_config cfg; /* given to both tables' handles */
    cuzk__gpu_fixed_base *g1, *g2;
} gpu_accel;

/* A failed GPU call's message (the runtime's words) or the status's name. */
static cuzk_status gpu_fail(cuzk_error *err, cuzk_status st, const char *what) {
    return cuzk__fail(err, st, "%s: %s", what, cuzk__gpu_status_text(st));
}

static void accel_unload(void *ctx) {
    gpu_accel *g = ctx;
    cuzk__gpu_fixed_base_free(g->g1);
    cuzk__gpu_fixed_base_free(g->g2);
    g->g1 = g->g2 = NULL;
}

static cuzk_status accel_load(void *ctx, const cuzk_g1_fixed_base *t1,
                              const cuzk_g2_fixed_base *t2, cuzk_error *err) {
    gpu_accel *g = ctx;
    accel_unload(g); /* a previous setup's tables, if it did not unload */
    cuzk_status st = cuzk__gpu_set_device(g->device);
    if (st != CUZK_OK) return gpu_fail(err, st, "selecting the device");
    st = cuzk__gpu_fixed_base_upload(&g->g1, CUZK__GPU_FB_G1, (const uint64_t *)t1->tbl, t1->c,
                                     t1->nwin, t1->per_win, g->host_threads);
    if (st != CUZK_OK) return gpu_fail(err, st, "uploading the G1 table");
    cuzk__gpu_fixed_base_configure(g->g1, &g->cfg);
    st = cuzk__gpu_fixed_base_upload(&g->g2, CUZK__GPU_FB_G2, (const uint64_t *)t2->tbl, t2->c,
                                     t2->nwin, t2->per_win, g->host_threads);
    if (st != CUZK_OK) return gpu_fail(err, st, "uploading the G2 table");
    cuzk__gpu_fixed_base_configure(g->g2, &g->cfg);
    return CUZK_OK;
}

static cuzk_status accel_g1(void *ctx, cuzk_g1_aff *out, const cuzk_fr *k, size_t n,
                            cuzk_error *err) {
    gpu_accel *g = ctx;
    if (g->g1 == NULL) return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "no G1 table loaded");
    cuzk_status st = cuzk__gpu_fixed_base_mul_batch(g->g1, (uint64_t *)out, (const uint64_t *)k,
                                                    n, CUZK__GPU_FB_MONT);
    return st == CUZK_OK ? CUZK_OK : gpu_fail(err, st, "G1 batch");
}

static cuzk_status accel_g2(void *ctx, cuzk_g2_aff *out, const cuzk_fr *k, size_t n,
                            cuzk_error *err) {
    gpu_accel *g = ctx;
    if (g->g2 == NULL) return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "no G2 table loaded");
    cuzk_status st = cuzk__gpu_fixed_base_mul_batch(g->g2, (uint64_t *)out, (const uint64_t *)k,
                                                    n, CUZK__GPU_FB_MONT);
    return st == CUZK_OK ? CUZK_OK : gpu_fail(err, st, "G2 batch");
}

cuzk_status cuzk__gpu_setup_accel_open(cuzk_setup_accel *a, int device, unsigned host_threads,
                                       cuzk_error *err) {
    if (a == NULL) return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "GPU setup: NULL accelerator");
    memset(a, 0, sizeof(*a));
    int count = 0;
    cuzk_status st = cuzk__gpu_device_count(&count);
    if (st != CUZK_OK) return gpu_fail(err, st, "GPU setup: counting devices");
    if (device < 0 || device >= count)
        return cuzk__fail(err, CUZK_ERR_GPU, "GPU setup: no CUDA device %d (%d found%s%s)", device,
                          count, count == 0 ? ": " : "", count == 0 ? cuzk__gpu_last_error() : "");
    gpu_accel *g = calloc(1, sizeof(*g));
    if (g == NULL) return cuzk__fail(err, CUZK_ERR_NOMEM, "GPU setup: no memory");
    g->device = device;
    g->host_threads = host_threads;
    a->name = "GPU";
    a->ctx = g;
    a->window_bits = CUZK__GPU_SETUP_WINDOW_BITS;
    a->h_chunk = CUZK__GPU_SETUP_H_CHUNK;
    a->load = accel_load;
    a->g1_mul = accel_g1;
    a->g2_mul = accel_g2;
    a->unload = accel_unload;
    return CUZK_OK;
}

void cuzk__gpu_setup_accel_configure(cuzk_setup_accel *a, const cuzk__gpu_fixed_base_config *cfg) {
    if (a == NULL || a->ctx == NULL) return;
    gpu_accel *g = a->ctx;
    if (cfg != NULL)
        g->cfg = *cfg;
    else
        memset(&g->cfg, 0, sizeof g->cfg);
}

void cuzk__gpu_setup_accel_close(cuzk_setup_accel *a) {
    if (a == NULL) return;
    if (a->ctx != NULL) {
        accel_unload(a->ctx);
        free(a->ctx);
    }
    memset(a, 0, sizeof(*a));
}
