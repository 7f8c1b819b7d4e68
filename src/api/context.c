/* context.c — options, contexts and the choice of backend (include/cuzk.h). */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"

#if defined(CUZK_HAVE_CUDA)
#include "gpu/backend_gpu.h"
#include "gpu/gpu.h"
#endif

/* AUTO's default threshold: below a 2^16 domain, bringing a device up and
 * uploading the key costs more than the proof (CUDA context creation alone is
 * 0.1-0.3 s). */
#define AUTO_GPU_MIN_LOG_DEFAULT 16u
#define THREADS_MAX 4096u

void cuzk_options_init(cuzk_options *opt) {
    memset(opt, 0, sizeof(*opt));
    opt->struct_size = sizeof(*opt);
    opt->backend = CUZK_BACKEND_AUTO;
    opt->auto_gpu_min_log = AUTO_GPU_MIN_LOG_DEFAULT;
    opt->self_check = 1;
}

int cuzk_gpu_count(void) {
#if defined(CUZK_HAVE_CUDA)
    return cuzk__backend_gpu_devices();
#else
    return 0;
#endif
}

cuzk_status cuzk_gpu_get_info(int device, cuzk_gpu_info *info, cuzk_error *err) {
    cuzk__error_clear(err);
    if (info == NULL) return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "gpu_get_info: NULL info");
    memset(info, 0, sizeof(*info));
#if defined(CUZK_HAVE_CUDA)
    const int count = cuzk_gpu_count();
    if (device < 0 || device >= count)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "GPU %d: %d present", device, count);
    size_t free_b = 0, total_b = 0;
    if (cuzk__gpu_device_name(device, info->name, sizeof(info->name), &info->multiprocessors) !=
            CUZK_OK ||
        cuzk__gpu_set_device(device) != CUZK_OK || cuzk__gpu_mem_info(&free_b, &total_b) != CUZK_OK)
        return cuzk__fail(err, CUZK_ERR_GPU, "GPU %d: %s", device, cuzk__gpu_last_error());
    info->memory_total = total_b;
    info->memory_free = free_b;
    return CUZK_OK;
#else
    (void)device;
    return cuzk__fail(err, CUZK_ERR_UNSUPPORTED, "GPU info: this build has no CUDA");
#endif
}

/* The size of cuzk_options in the first version that had it: a caller built
 * against any later header passes at least this much, and the fields past
 * its struct_size keep their defaults. */
#define OPTIONS_FIRST_SIZE (offsetof(cuzk_options, log_user) + sizeof(void *))

/* standin: the GPU keys use a test's stand-in, so no device is needed. */
static cuzk_status check_options(const cuzk_options *o, int standin, cuzk_error *err) {
    if (o->backend != CUZK_BACKEND_AUTO && o->backend != CUZK_BACKEND_CPU &&
        o->backend != CUZK_BACKEND_GPU)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "options: backend %d: must be AUTO, CPU or GPU",
                          (int)o->backend);
    if (o->n_devices > CUZK_MAX_LANES)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "options: n_devices %zu: at most %d",
                          o->n_devices, CUZK_MAX_LANES);
    if (o->cpu_lanes > CUZK_MAX_LANES)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "options: cpu_lanes %u: at most %d",
                          o->cpu_lanes, CUZK_MAX_LANES);
    if (o->threads > THREADS_MAX)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "options: threads %u: at most %u",
                          o->threads, THREADS_MAX);
    if (o->auto_gpu_min_log > 40)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "options: auto_gpu_min_log %u: at most 40",
                          o->auto_gpu_min_log);
    if (o->self_check != 0 && o->self_check != 1)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "options: self_check %d: must be 0 or 1",
                          o->self_check);
    for (size_t i = 0; i < o->n_devices; i++)
        if (o->devices[i] < 0)
            return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "options: devices[%zu] = %d: negative",
                              i, o->devices[i]);
    if (o->backend == CUZK_BACKEND_GPU && !standin) {
#if !defined(CUZK_HAVE_CUDA)
        return cuzk__fail(err, CUZK_ERR_UNSUPPORTED,
                          "backend GPU: this build has no GPU backend (built without CUDA)");
#else
        const int count = cuzk_gpu_count();
        if (count <= 0)
            return cuzk__fail(err, CUZK_ERR_UNSUPPORTED, "backend GPU: no CUDA device present");
        for (size_t i = 0; i < o->n_devices; i++)
            if (o->devices[i] >= count)
                return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                                  "options: devices[%zu] = %d: %d GPU%s present", i,
                                  o->devices[i], count, count == 1 ? "" : "s");
#endif
    }
    return CUZK_OK;
}

static cuzk_status context_new(cuzk_context **out, const cuzk_options *opt,
                               const cuzk_backend_ops *gpu, cuzk_error *err) {
    cuzk__error_clear(err);
    if (out == NULL) return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "context_create: out is NULL");
    *out = NULL;
    cuzk_options o;
    cuzk_options_init(&o);
    if (opt != NULL) {
        if (opt->struct_size < OPTIONS_FIRST_SIZE || opt->struct_size > sizeof(o))
            return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                              "options: struct_size %zu, this library takes %zu to %zu (call "
                              "cuzk_options_init)",
                              opt->struct_size, (size_t)OPTIONS_FIRST_SIZE, sizeof(o));
        memcpy(&o, opt, opt->struct_size); /* later fields keep their defaults */
        o.struct_size = sizeof(o);
    }
    cuzk_status st = check_options(&o, gpu != cuzk__api_gpu_ops(), err);
    if (st != CUZK_OK) return st;
    cuzk_context *ctx = calloc(1, sizeof(*ctx));
    if (ctx == NULL) return cuzk__fail(err, CUZK_ERR_NOMEM, "no memory for a context");
    ctx->opt = o;
    ctx->gpu_ops = gpu;
    atomic_init(&ctx->fault.nth, 0);
    atomic_init(&ctx->fault.launches, 0);
    *out = ctx;
    return CUZK_OK;
}

cuzk_status cuzk_context_create(cuzk_context **out, const cuzk_options *opt, cuzk_error *err) {
    return context_new(out, opt, cuzk__api_gpu_ops(), err);
}

cuzk_status cuzk__context_create_standin(cuzk_context **out, const cuzk_options *opt,
                                         const cuzk_backend_ops *gpu, cuzk_error *err) {
    if (gpu == NULL) {
        cuzk__error_clear(err);
        if (out != NULL) *out = NULL;
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "context_create_standin: NULL backend");
    }
    return context_new(out, opt, gpu, err);
}

void cuzk_context_destroy(cuzk_context *ctx) { free(ctx); }

const cuzk_backend_ops *cuzk__api_gpu_ops(void) {
#if defined(CUZK_HAVE_CUDA)
    return &cuzk_backend_gpu;
#else
    return NULL;
#endif
}

const cuzk_backend_ops *cuzk__api_backend_ops(const cuzk_options *opt,
                                              const cuzk_backend_ops *gpu, unsigned domain_log,
                                              cuzk_backend_kind *chosen, cuzk_error *err) {
    *chosen = CUZK_BACKEND_CPU;
    switch (opt->backend) {
    case CUZK_BACKEND_CPU:
        return &cuzk_backend_cpu;
    case CUZK_BACKEND_GPU:
        if (gpu == NULL) {
            cuzk__fail(err, CUZK_ERR_UNSUPPORTED,
                       "backend GPU: this build has no GPU backend (built without CUDA)");
            return NULL;
        }
        *chosen = CUZK_BACKEND_GPU;
        return gpu;
    case CUZK_BACKEND_AUTO:
        if (gpu != NULL && domain_log >= opt->auto_gpu_min_log && cuzk_gpu_count() > 0) {
            *chosen = CUZK_BACKEND_GPU;
            return gpu;
        }
        return &cuzk_backend_cpu;
    }
    cuzk__fail(err, CUZK_ERR_INVALID_ARG, "backend %d: must be AUTO, CPU or GPU",
               (int)opt->backend);
    return NULL;
}

void cuzk__api_log(const cuzk_context *ctx, const char *fmt, ...) {
    if (ctx->opt.log == NULL) return;
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    ctx->opt.log(ctx->opt.log_user, line);
}
