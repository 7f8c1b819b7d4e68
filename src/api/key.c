/* key.c — proving keys: open, lanes, prepare, release (include/cuzk.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api/api.h"
#include "gpu/plan.h"
#include "groth16/proof192.h"
#include "util/mem.h"

#if defined(CUZK_HAVE_CUDA)
#include "gpu/gpu.h"
#endif

static cuzk_status file_size(uint64_t *size, const char *path, cuzk_error *err) {
    struct stat sb;
    if (stat(path, &sb) != 0)
        return cuzk__fail(err, CUZK_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    if (!S_ISREG(sb.st_mode))
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "%s: not a regular file", path);
    *size = (uint64_t)sb.st_size;
    return CUZK_OK;
}

static cuzk_key *key_new(cuzk_context *ctx, cuzk_key_kind kind, const char *path,
                         cuzk_error *err) {
    cuzk_key *k = calloc(1, sizeof(*k));
    if (k == NULL || (k->path = cuzk__strdup(path)) == NULL) {
        free(k);
        cuzk__fail(err, CUZK_ERR_NOMEM, "no memory for a key");
        return NULL;
    }
    k->ctx = ctx;
    k->kind = kind;
    atomic_init(&k->refs, 1);
    atomic_init(&k->next_lane, 0);
    return k;
}

/* The lanes of a key: one per GPU listed (device 0 when none is), or the
 * context's CPU lanes, with one preparation lock per distinct device. */
static cuzk_status make_lanes(cuzk_key *k, cuzk_error *err) {
    const cuzk_options *o = &k->ctx->opt;
    const int gpu = k->backend == CUZK_BACKEND_GPU;
    const size_t n = gpu ? (o->n_devices ? o->n_devices : 1) : (o->cpu_lanes > 1 ? o->cpu_lanes : 1);
    k->lanes = calloc(n, sizeof(*k->lanes));
    k->mutexes = calloc(n, sizeof(*k->mutexes));
    if (k->lanes == NULL || k->mutexes == NULL)
        return cuzk__fail(err, CUZK_ERR_NOMEM, "no memory for %zu lanes", n);
    unsigned threads = o->threads;
    if (!gpu && threads == 0 && n > 1) { /* CPU lanes share the cores */
        const long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
        threads = ncpu > (long)n ? (unsigned)(ncpu / (long)n) : 1;
    }
    for (size_t i = 0; i < n; i++) {
        cuzk__lane *L = &k->lanes[i];
        L->key = k;
        L->device = gpu ? (o->n_devices ? o->devices[i] : 0) : -1;
        L->threads = threads;
        atomic_init(&L->rung, -1);
        atomic_init(&L->below, -1);
        if (gpu && n > 1) snprintf(L->where, sizeof(L->where), " on GPU %d", L->device);
        for (size_t j = 0; j < i && L->prepare_mu == NULL; j++)
            if (k->lanes[j].device == L->device) L->prepare_mu = k->lanes[j].prepare_mu;
        if (L->prepare_mu == NULL) {
            if (pthread_mutex_init(&k->mutexes[k->n_mutexes], NULL) != 0)
                return cuzk__fail(err, CUZK_ERR_NOMEM, "cannot create a mutex");
            L->prepare_mu = &k->mutexes[k->n_mutexes++];
        }
    }
    k->n_lanes = n;
    return CUZK_OK;
}

/*
 * The device memory a key of ctx may use on each of its cards: the smallest
 * listed card's, or device_memory_limit when lower (0: unknown, no CUDA).
 */
uint64_t cuzk__context_card_bytes(const cuzk_context *ctx) {
    const cuzk_options *o = &ctx->opt;
    uint64_t cap = o->device_memory_limit;
#if defined(CUZK_HAVE_CUDA)
    /* each listed card's memory; the caller's current device is kept */
    int current = -1;
    const int restore = cuzk__gpu_get_device(&current) == CUZK_OK;
    const size_t n_dev = o->n_devices ? o->n_devices : 1;
    for (size_t i = 0; i < n_dev; i++) {
        size_t free_b = 0, total_b = 0;
        const int d = o->n_devices ? o->devices[i] : 0;
        if (cuzk__gpu_set_device(d) == CUZK_OK &&
            cuzk__gpu_mem_info(&free_b, &total_b) == CUZK_OK && (cap == 0 || total_b < cap))
            cap = total_b;
    }
    if (restore && cuzk__gpu_set_device(current) != CUZK_OK) {
        /* the device was current a moment ago: nothing to undo */
    }
#endif
    return cap;
}

/* Whether a GPU key may take a plan of this mode: every mode that keeps it
 * on the device, resident or streamed from host memory. */
static int gpu_takes(cuzk__plan_mode mode) { return mode != CUZK__PLAN_CPU; }

/*
 * The GPU backend's memory plan of a GPU key (circuit c with parameters p
 * opened for the GPU, or zkey zk) on each distinct listed device, under
 * the context's device_memory_limit (cuzk_backend_plan, doc/gpu.md "The
 * memory planner"). A device where the key cannot go sends an AUTO key to
 * the CPU (*to_cpu = 1) and refuses a GPU key (CUZK_ERR_DEVICE_NOMEM naming the
 * device and the plan). *host: the most page-locked host memory one lane's
 * plan takes. A device that cannot be opened or planned decides nothing
 * here (its lane's prepare reports it).
 */
static cuzk_status plan_devices(cuzk_key *k, const cuzk_circuit *c, const cuzk_params *p,
                                const cuzk_zkey *zk, int *to_cpu, uint64_t *host,
                                cuzk_error *err) {
    const cuzk_options *o = &k->ctx->opt;
    *to_cpu = 0;
    *host = 0;
    if (k->ops->plan == NULL) return CUZK_OK;
#if defined(CUZK_HAVE_CUDA)
    /* opening a GPU backend selects its device: the caller's is kept */
    int current = -1;
    const int restore = cuzk__gpu_get_device(&current) == CUZK_OK;
#endif
    cuzk_status st = CUZK_OK;
    const size_t n_dev = o->n_devices ? o->n_devices : 1;
    for (size_t i = 0; i < n_dev && st == CUZK_OK && !*to_cpu; i++) {
        const int d = o->n_devices ? o->devices[i] : 0;
        int seen = 0;
        for (size_t j = 0; j < i; j++) seen |= o->devices[j] == d;
        if (seen) continue;
        cuzk_backend be;
        cuzk_error e;
        cuzk__plan plan;
        if (cuzk_backend_open(&be, k->ops, o->threads, d, &e) != CUZK_OK) continue;
        be.vram_limit = o->device_memory_limit;
        const cuzk_status pst = cuzk_backend_plan(&be, &plan, c, p, zk, &e);
        cuzk_backend_close(&be);
        if (pst != CUZK_OK) continue;
        if (plan.host_pinned > *host) *host = plan.host_pinned;
        if (gpu_takes(plan.mode)) continue;
        if (o->backend == CUZK_BACKEND_AUTO)
            *to_cpu = 1;
        else
            st = cuzk__fail(err, CUZK_ERR_DEVICE_NOMEM, "%s: GPU %d: %s", k->path, d,
                            plan.reason);
    }
#if defined(CUZK_HAVE_CUDA)
    if (restore && cuzk__gpu_set_device(current) != CUZK_OK) {
        /* the device was current a moment ago: nothing to undo */
    }
#endif
    return st;
}

static void use_cpu(cuzk_key *k) {
    k->backend = CUZK_BACKEND_CPU;
    k->ops = &cuzk_backend_cpu;
}

/* Refuses a key over the host memory limit: host, what it holds in host
 * memory on its backend. */
static cuzk_status check_host(cuzk_key *k, uint64_t host, cuzk_error *err) {
    const cuzk_options *o = &k->ctx->opt;
    if (o->host_memory_limit != 0 && host > o->host_memory_limit)
        return cuzk__fail(err, CUZK_ERR_NOMEM,
                          "%s: the key needs %llu bytes of host memory, the limit is %llu",
                          k->path, (unsigned long long)host,
                          (unsigned long long)o->host_memory_limit);
    return CUZK_OK;
}

cuzk_status cuzk_key_open_zkey(cuzk_context *ctx, cuzk_key **out, const char *zkey_path,
                               cuzk_error *err) {
    cuzk__error_clear(err);
    if (out == NULL || ctx == NULL || zkey_path == NULL)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "key_open_zkey: NULL argument");
    *out = NULL;
    uint64_t size = 0;
    cuzk_status st = file_size(&size, zkey_path, err);
    if (st != CUZK_OK) return st;
    cuzk_key *k = key_new(ctx, CUZK_KEY_ZKEY, zkey_path, err);
    if (k == NULL) return CUZK_ERR_NOMEM;
    if ((st = cuzk_zkey_open(&k->zk, zkey_path, 0, err)) != CUZK_OK) goto fail;
    k->have_zk = 1;
    k->n_public = k->zk.n_public;
    k->n_vars = k->zk.n_vars;
    k->n_constraints = k->zk.n_rows;
    k->domain_log = k->zk.log_domain_size;
    if ((k->ops = cuzk__api_backend_ops(&ctx->opt, ctx->gpu_ops, k->domain_log, &k->backend,
                                        err)) == NULL) {
        st = err ? err->status : CUZK_ERR_INVALID_ARG;
        goto fail;
    }
    /* the file stays mapped; a GPU key's streamed sections are page-locked copies */
    uint64_t pinned = 0;
    if (k->backend == CUZK_BACKEND_GPU) {
        int to_cpu = 0;
        if ((st = plan_devices(k, NULL, NULL, &k->zk, &to_cpu, &pinned, err)) != CUZK_OK)
            goto fail;
        if (to_cpu) {
            use_cpu(k);
            pinned = 0;
        }
    }
    if ((st = check_host(k, size + pinned, err)) != CUZK_OK) goto fail;
    if ((st = cuzk_groth16_vk_from_zkey(&k->vk, &k->zk, err)) != CUZK_OK) goto fail;
    if ((st = make_lanes(k, err)) != CUZK_OK) goto fail;
    *out = k;
    return CUZK_OK;
fail:
    cuzk__key_unref(k);
    return st;
}

/* A circuit key's circuit opened from circuit_path, and the backend chosen
 * for its domain. */
static cuzk_status circuit_key_begin(cuzk_key *k, const char *circuit_path, cuzk_error *err) {
    if ((k->circuit_path = cuzk__strdup(circuit_path)) == NULL)
        return cuzk__fail(err, CUZK_ERR_NOMEM, "no memory for a key");
    cuzk_status st = cuzk_circuit_open(&k->c, circuit_path, 0, err);
    if (st != CUZK_OK) return st;
    k->have_c = 1;
    k->domain_log = k->c.domain_log;
    if ((k->ops = cuzk__api_backend_ops(&k->ctx->opt, k->ctx->gpu_ops, k->domain_log,
                                        &k->backend, err)) == NULL)
        return err ? err->status : CUZK_ERR_INVALID_ARG;
    return CUZK_OK;
}

/* A circuit key's checks, verifying key, counts and lanes, once its circuit
 * and parameters are open. */
static cuzk_status circuit_key_finish(cuzk_key *k, cuzk_error *err) {
    cuzk_status st;
    if ((st = cuzk_groth16_check_params(&k->c, &k->p, err)) != CUZK_OK ||
        (st = cuzk_groth16_vk_from_params(&k->vk, &k->p.vk, err)) != CUZK_OK)
        return st;
    k->n_public = k->c.n_inputs - 1;
    k->n_vars = k->c.n_inputs + k->c.n_aux;
    k->n_constraints = k->c.n_constraints;
    return make_lanes(k, err);
}

cuzk_status cuzk_key_open_params(cuzk_context *ctx, cuzk_key **out, const char *circuit_path,
                                 const char *params_path, cuzk_error *err) {
    cuzk__error_clear(err);
    if (out == NULL || ctx == NULL || circuit_path == NULL || params_path == NULL)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "key_open_params: NULL argument");
    *out = NULL;
    uint64_t c_size = 0, p_size = 0;
    cuzk_status st;
    if ((st = file_size(&c_size, circuit_path, err)) != CUZK_OK ||
        (st = file_size(&p_size, params_path, err)) != CUZK_OK)
        return st;
    cuzk_key *k = key_new(ctx, CUZK_KEY_PARAMS, params_path, err);
    if (k == NULL) return CUZK_ERR_NOMEM;
    if ((st = circuit_key_begin(k, circuit_path, err)) != CUZK_OK) goto fail;
    /* A GPU key reads the parameters' points from the file on its device; the
     * host holds them only for the CPU, or page-locked where the GPU streams
     * them. The plan needs only the parameters' head: they are opened so
     * for a GPU key first, and again whole should the key go to the CPU.
     * Points are not checked one by one here (seconds to minutes at PoRep
     * size): a corrupt point makes a proof that fails the self-check, which
     * then finds and names it. The verifying key is always checked. */
    uint64_t host = c_size + p_size;
    if (k->ops->reads_deferred_points) {
        const unsigned dflags = CUZK_PARAMS_PARALLEL | CUZK_PARAMS_DEFER_POINTS;
        if ((st = cuzk_params_open(&k->p, params_path, dflags, err)) != CUZK_OK) goto fail;
        k->have_p = 1;
        int to_cpu = 0;
        uint64_t pinned = 0;
        if ((st = plan_devices(k, &k->c, &k->p, NULL, &to_cpu, &pinned, err)) != CUZK_OK)
            goto fail;
        if (to_cpu) { /* the CPU reads the points: open again, whole */
            use_cpu(k);
            cuzk_params_close(&k->p);
            k->have_p = 0;
        } else {
            host = c_size + pinned;
        }
    }
    if ((st = check_host(k, host, err)) != CUZK_OK) goto fail;
    if (!k->have_p) {
        if ((st = cuzk_params_open(&k->p, params_path, CUZK_PARAMS_PARALLEL, err)) != CUZK_OK)
            goto fail;
        k->have_p = 1;
    }
    if ((st = circuit_key_finish(k, err)) != CUZK_OK) goto fail;
    *out = k;
    return CUZK_OK;
fail:
    cuzk__key_unref(k);
    return st;
}

cuzk_status cuzk__key_open_dev(cuzk_context *ctx, cuzk_key **out, const char *circuit_path,
                               const cuzk_setup_toxic *tw, cuzk_error *err) {
    cuzk__error_clear(err);
    *out = NULL;
    cuzk_key *k = key_new(ctx, CUZK_KEY_PARAMS, circuit_path, err);
    if (k == NULL) return CUZK_ERR_NOMEM;
    cuzk_status st;
    if ((st = circuit_key_begin(k, circuit_path, err)) != CUZK_OK) goto fail;
    cuzk_setup_times tm;
    if ((st = cuzk__api_dev_setup(&k->p, &k->c, tw, ctx->opt.threads,
                                  k->backend == CUZK_BACKEND_GPU, &tm, err)) != CUZK_OK)
        goto fail;
    k->have_p = 1;
    if ((st = circuit_key_finish(k, err)) != CUZK_OK) goto fail;
    *out = k;
    return CUZK_OK;
fail:
    cuzk__key_unref(k);
    return st;
}

cuzk_status cuzk_key_attach_r1cs(cuzk_key *key, const char *r1cs_path, cuzk_error *err) {
    cuzk__error_clear(err);
    if (key == NULL || r1cs_path == NULL)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "key_attach_r1cs: NULL argument");
    if (key->kind != CUZK_KEY_ZKEY)
        return cuzk__fail(err, CUZK_ERR_UNSUPPORTED,
                          "%s: only a zkey takes an r1cs (a circuit key has its circuit)",
                          r1cs_path);
    if (key->have_r1cs)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "%s: the key has an r1cs already",
                          r1cs_path);
    cuzk_r1cs r;
    memset(&r, 0, sizeof(r));
    cuzk_status st = cuzk_r1cs_open(&r, r1cs_path, err);
    if (st != CUZK_OK) return st;
    const cuzk_zkey *zk = &key->zk;
    if (r.n_wires != zk->n_vars || r.n_pub_out + r.n_pub_in != zk->n_public ||
        (uint64_t)r.n_constraints + zk->n_public + 1 != zk->n_rows) {
        st = cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                        "%s is not the circuit of %s: %u wires, %u public signals, %u "
                        "constraints; the key has %u variables, %u public, %u rows",
                        r1cs_path, key->path, r.n_wires, r.n_pub_out + r.n_pub_in,
                        r.n_constraints, zk->n_vars, zk->n_public, zk->n_rows);
        cuzk_r1cs_close(&r);
        return st;
    }
    key->r1cs = r;
    key->have_r1cs = 1;
    return CUZK_OK;
}

/* The parameters of a lane that stepped down to the CPU: the key's, or,
 * where the GPU key left its points in the file, the lane's own whole copy
 * (under prepare_mu). */
static cuzk_status cpu_params(cuzk__lane *L, const cuzk_params **out, cuzk_error *err) {
    cuzk_key *k = L->key;
    *out = &k->p;
    if (!k->p.deferred) return CUZK_OK;
    if (!L->have_own_p) {
        const cuzk_status st = cuzk_params_open(&L->own_p, k->path, CUZK_PARAMS_PARALLEL, err);
        if (st != CUZK_OK) return st;
        L->have_own_p = 1;
    }
    *out = &L->own_p;
    return CUZK_OK;
}

/* The lane's rung and the floor below it, from plan. */
static void lane_keep_rung(cuzk__lane *L, const cuzk__plan *plan) {
    atomic_store(&L->rung, (int)cuzk__plan_rung_of(plan));
    atomic_store(&L->below, (int)cuzk__plan_floor_after(plan));
}

/* Opens the lane's backend and prepares the key there once: on its GPU
 * within its floor, logging the plan, or on the CPU below streaming. On
 * failure nothing is kept. */
static cuzk_status lane_open(cuzk__lane *L, cuzk_error *err) {
    cuzk_key *k = L->key;
    const int zk = k->kind == CUZK_KEY_ZKEY;
    const int on_cpu = k->backend == CUZK_BACKEND_GPU && L->floor >= (int)CUZK__PLAN_RUNG_CPU;
    const cuzk_backend_ops *ops = on_cpu ? &cuzk_backend_cpu : k->ops;
    /* no plan known until the plan op answers (a failure before it steps
     * from the floor, not from an earlier preparation's rung) */
    atomic_store(&L->rung, on_cpu ? (int)CUZK__PLAN_RUNG_CPU : -1);
    atomic_store(&L->below, on_cpu ? (int)CUZK__PLAN_RUNG_CPU : -1);
    cuzk_status st = cuzk_backend_open(&L->be, ops, L->threads, on_cpu ? -1 : L->device, err);
    if (st != CUZK_OK) return st;
    L->be.fault = &k->ctx->fault;
    L->be.vram_limit = k->ctx->opt.device_memory_limit;
    L->be.plan_floor = L->floor;
    if (ops->plan != NULL) {
        /* the plan the preparation follows, as the device stands now */
        cuzk__plan plan;
        cuzk_error pe;
        if (cuzk_backend_plan(&L->be, &plan, zk ? NULL : &k->c, zk ? NULL : &k->p,
                              zk ? &k->zk : NULL, &pe) == CUZK_OK) {
            lane_keep_rung(L, &plan);
            cuzk__api_log(k->ctx, "%s: GPU %d: %s", k->path, L->device, plan.reason);
        }
    }
    const cuzk_params *p = &k->p;
    if (zk)
        st = cuzk_backend_prepare_zkey(&L->be, &L->bkey, &k->zk, err);
    else if (!on_cpu || (st = cpu_params(L, &p, err)) == CUZK_OK)
        st = cuzk_backend_prepare_early(&L->be, &L->bkey, &k->c, p, err);
    if (st == CUZK_OK && L->bkey == NULL)
        st = cuzk__fail(err, CUZK_ERR_UNSUPPORTED, "the %s backend prepared no key", ops->name);
    if (st == CUZK_OK && ops->key_plan != NULL) {
        /* the plan the key took, which may differ from the one above when
         * another key's preparation changed the device's free memory */
        cuzk__plan plan;
        ops->key_plan(L->bkey, &plan);
        lane_keep_rung(L, &plan);
    }
    if (st != CUZK_OK) {
        cuzk_backend_release_key(&L->be, L->bkey);
        L->bkey = NULL;
        cuzk_backend_close(&L->be);
    }
    return st;
}

cuzk_status cuzk__lane_prepare(cuzk__lane *L, cuzk_error *err) {
    cuzk_key *k = L->key;
    pthread_mutex_lock(L->prepare_mu);
    cuzk_status st = CUZK_OK;
    while (!L->ready) {
        if ((st = lane_open(L, err)) == CUZK_OK) {
            L->ready = 1;
            break;
        }
        /* out of device memory in its plan: a rung lower, down to the CPU;
         * any other failure keeps nothing, and a later call tries again (it
         * may have been passing, such as memory another process held) */
        const int rung = atomic_load(&L->rung);
        if (st != CUZK_ERR_DEVICE_NOMEM || k->backend != CUZK_BACKEND_GPU ||
            L->floor >= (int)CUZK__PLAN_RUNG_CPU)
            break;
        /* below the plan's rung, so the floor's; no plan known (the device
         * ran out before the plan op answered): one rung below the floor */
        const int below = atomic_load(&L->below);
        L->floor = below > L->floor ? below : L->floor + 1;
        cuzk__api_log(k->ctx, "%s: GPU %d: preparing the key (plan: %s) ran out of device "
                              "memory: %s; prepared again %s",
                      k->path, L->device,
                      rung < 0 ? "not made" : cuzk__plan_rung_name((cuzk__plan_rung)rung),
                      err != NULL ? cuzk__error_text(err) : cuzk_strerror(st),
                      L->floor >= (int)CUZK__PLAN_RUNG_CPU
                          ? "on the CPU"
                          : cuzk__plan_rung_name((cuzk__plan_rung)L->floor));
    }
    pthread_mutex_unlock(L->prepare_mu);
    return st;
}

/* Releases what the lane has prepared (under prepare_mu). */
static void lane_release(cuzk__lane *L) {
    if (!L->ready) return;
    cuzk_backend_release_key(&L->be, L->bkey);
    L->bkey = NULL;
    cuzk_backend_close(&L->be);
    L->ready = 0;
}

void cuzk__lane_reset(cuzk__lane *L) {
    pthread_mutex_lock(L->prepare_mu);
    lane_release(L);
    pthread_mutex_unlock(L->prepare_mu);
}

int cuzk__lane_can_step_down(cuzk__lane *L) {
    const int rung = atomic_load(&L->rung);
    return rung >= 0 && rung < (int)CUZK__PLAN_RUNG_CPU;
}

const char *cuzk__lane_step_down(cuzk__lane *L) {
    pthread_mutex_lock(L->prepare_mu);
    const int rung = atomic_load(&L->rung), below = atomic_load(&L->below);
    const char *to = NULL;
    if (rung >= 0 && rung < (int)CUZK__PLAN_RUNG_CPU) {
        if (L->floor < below) L->floor = below;
        to = L->floor >= (int)CUZK__PLAN_RUNG_CPU
                 ? "the CPU"
                 : cuzk__plan_rung_name((cuzk__plan_rung)L->floor);
    }
    lane_release(L);
    pthread_mutex_unlock(L->prepare_mu);
    return to;
}

/* One lane's preparation on a thread of its own, with its outcome. */
typedef struct {
    cuzk__lane *lane;
    cuzk_status st;
    cuzk_error err;
} prepare_job;

static void *prepare_main(void *arg) {
    prepare_job *j = arg;
    cuzk__error_clear(&j->err);
    j->st = cuzk__lane_prepare(j->lane, &j->err);
    return NULL;
}

cuzk_status cuzk_key_prepare(cuzk_key *key, cuzk_error *err) {
    cuzk__error_clear(err);
    if (key == NULL) return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "key_prepare: NULL key");
    if (key->n_lanes == 1) return cuzk__lane_prepare(&key->lanes[0], err);
    /* lanes of different devices side by side; those of one device wait
     * for each other on its lock */
    pthread_t *th = calloc(key->n_lanes, sizeof(*th));
    prepare_job *jobs = calloc(key->n_lanes, sizeof(*jobs));
    if (th == NULL || jobs == NULL) {
        free(th);
        free(jobs);
        return cuzk__fail(err, CUZK_ERR_NOMEM, "no memory for threads");
    }
    size_t started = 0;
    for (size_t i = 0; i < key->n_lanes; i++) jobs[i].lane = &key->lanes[i];
    for (; started < key->n_lanes; started++)
        if (pthread_create(&th[started], NULL, prepare_main, &jobs[started]) != 0) break;
    for (size_t i = 0; i < started; i++) pthread_join(th[i], NULL);
    for (size_t i = started; i < key->n_lanes; i++) prepare_main(&jobs[i]);
    cuzk_status st = CUZK_OK;
    for (size_t i = 0; i < key->n_lanes && st == CUZK_OK; i++)
        if (jobs[i].st != CUZK_OK) {
            st = jobs[i].st;
            if (err != NULL) *err = jobs[i].err;
        }
    free(th);
    free(jobs);
    return st;
}

void cuzk_key_get_info(const cuzk_key *key, cuzk_key_info *info) {
    memset(info, 0, sizeof(*info));
    if (key == NULL) return;
    info->kind = key->kind;
    info->n_public = key->n_public;
    info->n_vars = key->n_vars;
    info->n_constraints = key->n_constraints;
    info->domain_log = key->domain_log;
    info->backend = key->backend;
}

void cuzk__key_unref(cuzk_key *k) {
    if (k == NULL || atomic_fetch_sub(&k->refs, 1) != 1) return;
    for (size_t i = 0; i < k->n_lanes; i++) {
        cuzk__lane *L = &k->lanes[i];
        if (L->ready) {
            cuzk_backend_release_key(&L->be, L->bkey);
            cuzk_backend_close(&L->be);
        }
        if (L->have_own_p) cuzk_params_close(&L->own_p);
    }
    for (size_t i = 0; i < k->n_mutexes; i++) pthread_mutex_destroy(&k->mutexes[i]);
    free(k->lanes);
    free(k->mutexes);
    cuzk_groth16_vk_free(&k->vk);
    if (k->have_r1cs) cuzk_r1cs_close(&k->r1cs);
    if (k->have_p) cuzk_params_close(&k->p);
    if (k->have_c) cuzk_circuit_close(&k->c);
    if (k->have_zk) cuzk_zkey_close(&k->zk);
    free(k->circuit_path);
    free(k->path);
    free(k);
}

void cuzk_key_release(cuzk_key *key) { cuzk__key_unref(key); }
