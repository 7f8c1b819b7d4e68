/*
 * backend_gpu.c — the CUDA backend (backend_gpu.h): an instance (its device,
 * hooks and counts) and the ops table over the key, staging and proof files
 * (backend_gpu_impl.h). Everything heavy runs on the device; the host keeps
 * only counts, bitmaps of the 0/1/other classification and the MSM results.
 */
#include <stdlib.h>
#include <string.h>

#include "gpu/backend_gpu_impl.h"

int cuzk__backend_gpu_devices(void) {
    int n = 0;
    if (cuzk__gpu_device_count(&n) != CUZK_OK) return 0;
    return n;
}

static cuzk_status gpu_open(cuzk_backend *be, cuzk_error *err) {
    int n = cuzk__backend_gpu_devices();
    if (n == 0)
        return cuzk__fail(err, CUZK_ERR_GPU, "no CUDA device (%s)", cuzk__gpu_last_error());
    if (be->device < 0) be->device = 0;
    if (be->device >= n)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "GPU %d requested, %d present", be->device,
                          n);
    cuzk_status st = cuzk__gpu_set_device(be->device);
    if (st != CUZK_OK) return gpu_fail(err, st, "selecting the device");
    gpu_backend *inst = calloc(1, sizeof(*inst));
    if (inst == NULL) return cuzk__fail(err, CUZK_ERR_NOMEM, "no memory for a GPU backend");
    const cuzk__gpu_backend_hooks dflt = CUZK__GPU_BACKEND_HOOKS_DEFAULT;
    inst->hooks = dflt;
    be->impl = inst;
    return CUZK_OK;
}

static void gpu_close(cuzk_backend *be) {
    free(be->impl);
    be->impl = NULL;
}

void cuzk__gpu_backend_set_test_hooks(cuzk_backend *be, const cuzk__gpu_backend_hooks *hooks) {
    if (be == NULL || be->ops != &cuzk_backend_gpu || be->impl == NULL) return;
    gpu_backend *inst = be->impl;
    const cuzk__gpu_backend_hooks dflt = CUZK__GPU_BACKEND_HOOKS_DEFAULT;
    inst->hooks = hooks != NULL ? *hooks : dflt;
}

void cuzk__gpu_backend_stats(const cuzk_backend *be, cuzk__gpu_backend_upload_counts *out) {
    memset(out, 0, sizeof(*out));
    if (be == NULL || be->ops != &cuzk_backend_gpu || be->impl == NULL) return;
    const uint64_t *src = (const uint64_t *)&((const gpu_backend *)be->impl)->stats;
    uint64_t *dst = (uint64_t *)out;
    for (size_t i = 0; i < sizeof(*out) / sizeof(uint64_t); i++)
        dst[i] = __atomic_load_n(&src[i], __ATOMIC_RELAXED);
}

void cuzk__gpu_circuit_src_of(cuzk__gpu_circuit_src *src, const cuzk_circuit *c) {
    memset(src, 0, sizeof(*src));
    src->n_constraints = c->n_constraints;
    src->n_inputs = c->n_inputs;
    src->n_aux = c->n_aux;
    src->domain_size = c->domain_size;
    for (int m = 0; m < 3; m++) {
        src->row_ptr[m] = c->m[m].row_ptr;
        src->col[m] = c->m[m].col;
        src->val[m] = c->m[m].val;
        src->nnz[m] = c->m[m].nnz;
    }
    src->values = (const uint64_t *)c->values;
    src->n_values = c->n_values;
    src->a_aux = c->a_aux;
    src->b_inp = c->b_inp;
    src->b_aux = c->b_aux;
}

const cuzk_backend_ops cuzk_backend_gpu = {
    .name = "gpu",
    .reads_deferred_points = 1,
    .open = gpu_open,
    .close = gpu_close,
    .prepare = cuzk__gpu_op_prepare,
    .prepare_early = cuzk__gpu_op_prepare_early,
    .key_wait = cuzk__gpu_op_key_wait,
    .prepare_zkey = cuzk__gpu_op_prepare_zkey,
    .plan = cuzk__gpu_op_plan,
    .key_plan = cuzk__gpu_op_key_plan,
    .prove_start = cuzk__gpu_op_prove_start,
    .stage = cuzk__gpu_op_stage,
    .withdraw = cuzk__gpu_op_withdraw,
    .prove_finish = cuzk__backend_partial_finish,
    .release_job = cuzk__backend_partial_release,
    .release_key = cuzk__gpu_op_release_key,
};

