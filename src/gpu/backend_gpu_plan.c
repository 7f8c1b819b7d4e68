/*
 * backend_gpu_plan.c — the memory plan of a key on the CUDA backend's
 * device (plan.h, backend_gpu_impl.h): the key's sizes by the backend's
 * formulas (backend_gpu.h), the device's free memory and the instance's
 * vram limit, the MSM work area by the MSM's own sizing on this device;
 * and the device memory a key may still use once the limit hides part of
 * the card.
 */
#include <string.h>

#include "gpu/backend_gpu_impl.h"

/* A level budget: a seventh of the memory a key may use (the card's total,
 * or the limit when lower). At 2^27 on a 141 GB card (H200: ~20 GiB) a
 * quarter (the MSM's own default) lets the H and L MSMs process three
 * windows per group (~29 GB of levels), the fastest MSM, but the device
 * then lacks room for the next witness's staging slot and every proof
 * uploads its own witness; with a seventh two windows per group fit beside
 * the slot, the faster proof. A share, not a size, so that a smaller card
 * (or limit) keeps the same proportions. Where even this leaves too little
 * room (other sizes), stage_setup lowers it further. The instance's hook,
 * where set, takes its place. */
size_t cuzk__gpu_key_level_budget(const gpu_backend *inst, size_t total, uint64_t limit) {
    if (inst->hooks.level_budget != 0) return inst->hooks.level_budget;
    const size_t m = limit != 0 && limit < total ? (size_t)limit : total;
    return (m / 7 >> 20) << 20;
}

/* Bytes kept out of the plan: 256 MiB and a 64th of the memory the key may
 * use, for what the plan only estimates (the NTT's small tables, the
 * levels' clocks, allocation rounding, the runtime's own growth). */
static uint64_t plan_reserve(size_t total, uint64_t limit) {
    const uint64_t m = limit != 0 && limit < total ? limit : (uint64_t)total;
    return ((uint64_t)256 << 20) + m / 64;
}

static uint64_t popcount_bits(const uint64_t *bm, uint64_t n) {
    if (bm == NULL) return 0;
    uint64_t c = 0;
    for (uint64_t w = 0; w < n / 64; w++) c += (uint64_t)__builtin_popcountll(bm[w]);
    if (n % 64) c += (uint64_t)__builtin_popcountll(bm[n / 64] & (((uint64_t)1 << (n % 64)) - 1));
    return c;
}

/* The per-proof buffers (key.c's work_alloc): the witness plain, its
 * Montgomery form sharing a buffer with the gathered queries, a, b, c, two
 * classification bitmaps. */
static uint64_t proof_bytes(uint64_t n_vars, uint64_t n_dom, uint64_t max_query) {
    const uint64_t bm = cuzk__gpu_bitmap_bytes(max_query);
    const uint64_t shared = n_vars > max_query ? n_vars : (max_query ? max_query : 1);
    return 32 * (n_vars + shared + 3 * n_dom) + 2 * bm;
}

/* The NTT domain (gpu_ntt.h): the twiddles (16 per element), the later
 * passes' Shoup tables (at most an eighth of that) and a few MiB of tables. */
static uint64_t ntt_bytes(uint64_t n_dom) { return 16 * n_dom + 2 * n_dom + ((uint64_t)4 << 20); }

/* What every mode holds in page-locked host memory: the two staging
 * buffers and the loader's two runs (prepare), a zkey's a, b, c. */
static uint64_t host_fixed(const gpu_backend *inst, uint64_t zkey_abc) {
    const uint64_t stage = inst->hooks.stage_bytes ? inst->hooks.stage_bytes : ((uint64_t)32 << 20);
    return 4 * stage + zkey_abc;
}

/* The key's sizes: circuit and parameters, or a zkey. */
static void key_sizes(cuzk__plan_key *key, const gpu_backend *inst, const cuzk_circuit *c,
                      const cuzk_params *p, const cuzk_zkey *zk) {
    memset(key, 0, sizeof(*key));
    key->h_masked = 0;
    key->others_masked = 1;
    if (zk != NULL) {
        key->points[0] = zk->h.n;
        key->points[1] = zk->c.n;
        key->points[2] = zk->a.n;
        key->points[3] = zk->b1.n;
        key->points[4] = zk->b2.n;
        const uint64_t n_vars = zk->n_vars, n_dom = zk->domain_size;
        key->ntt_bytes = ntt_bytes(n_dom);
        key->proof_bytes = proof_bytes(n_vars, n_dom, n_vars > n_dom ? n_vars : n_dom);
        key->host_bytes = host_fixed(inst, 3 * n_dom * 32);
        return;
    }
    for (unsigned v = 0; v < 5; v++) key->points[v] = vec_count(p, (cuzk_params_vec)v);
    const uint64_t n_vars = cuzk_circuit_n_vars(c), n_dom = c->domain_size;
    uint64_t max_query = p->a.n > p->b_g1.n ? p->a.n : p->b_g1.n;
    if (c->n_aux > max_query) max_query = c->n_aux;
    if (p->h.n > max_query) max_query = p->h.n;
    /* gpu_circuit.h: row pointers, 8 bytes a nonzero, the values, the
     * density lists (A: every input and the aux of a_aux; B: b_inp, b_aux) */
    uint64_t nnz = 0;
    for (int m = 0; m < 3; m++) nnz += c->m[m].nnz;
    const uint64_t lists = c->n_inputs + popcount_bits(c->a_aux, c->n_aux) +
                           popcount_bits(c->b_inp, c->n_inputs) +
                           popcount_bits(c->b_aux, c->n_aux);
    key->circuit_bytes =
        3 * (c->n_constraints + 1) * 8 + 8 * nnz + 32 * c->n_values + 4 * lists;
    key->ntt_bytes = ntt_bytes(n_dom);
    key->proof_bytes = proof_bytes(n_vars, n_dom, max_query);
    key->host_bytes = host_fixed(inst, 0);
    /* a, b, c made on the CPU (key.c's work_alloc): a, b, c, the bitmaps and
     * the lists on the device, the witness and a gathered query (at most
     * n_vars) in the thirds after a's, so only where n_vars fits a third;
     * two host buffers of a, b, c */
    if (n_vars <= n_dom) {
        key->cpu_abc_bytes = 3 * 32 * n_dom + 2 * cuzk__gpu_bitmap_bytes(max_query) + 4 * lists + 8;
        key->cpu_abc_host_bytes = 2 * 3 * 32 * n_dom;
    }
}

/* The MSM's own sizing on this device: handles of one point (G1, G2) with
 * the key's level budget stand for the bases. */
typedef struct {
    cuzk__gpu_msm_bases *proto[2];
} area_sizer;

static uint64_t area_of(void *ctx, int g2, uint64_t n, int masked) {
    area_sizer *a = ctx;
    size_t bytes = 0;
    if (n >= ((uint64_t)1 << 31) ||
        cuzk__gpu_msm_bases_area_bytes(a->proto[g2 != 0], (size_t)n, masked, &bytes) != CUZK_OK)
        return UINT64_MAX; /* an MSM the device cannot plan fits nowhere */
    return bytes;
}

/* The plan of a key on be's device (selected by the caller), with the
 * device bytes the limit hides in *hidden (may be NULL). */
static cuzk_status plan_on_device(cuzk_backend *be, cuzk__plan *out, size_t *hidden,
                                  const cuzk_circuit *c, const cuzk_params *p,
                                  const cuzk_zkey *zk, cuzk_error *err) {
    const gpu_backend *inst = be->impl;
    size_t free_b = 0, total_b = 0;
    cuzk_status st = cuzk__gpu_mem_info(&free_b, &total_b);
    if (st != CUZK_OK) return gpu_fail(err, st, "reading the device's memory for the plan");
    cuzk__plan_key key;
    key_sizes(&key, inst, c, p, zk);
    area_sizer sizer = {{NULL, NULL}};
    const cuzk__gpu_msm_group groups[2] = {CUZK__GPU_MSM_G1, CUZK__GPU_MSM_G2};
    for (int g = 0; g < 2 && st == CUZK_OK; g++) {
        st = cuzk__gpu_msm_bases_alloc(&sizer.proto[g], groups[g], 1);
        if (st == CUZK_OK)
            cuzk__gpu_msm_bases_cap_level_budget(
                sizer.proto[g], cuzk__gpu_key_level_budget(inst, total_b, be->vram_limit));
    }
    if (st == CUZK_OK) {
        cuzk__plan_device dev;
        dev.free_bytes = free_b;
        dev.vram_limit = be->vram_limit;
        dev.reserve = plan_reserve(total_b, be->vram_limit);
        dev.max_chunk = inst->hooks.chunk_bytes; /* tests: many chunks (0: the planner's) */
        dev.floor = be->plan_floor > CUZK__PLAN_RUNG_CPU ? CUZK__PLAN_RUNG_CPU
                    : be->plan_floor < 0                ? CUZK__PLAN_RUNG_RESIDENT
                                                        : (cuzk__plan_rung)be->plan_floor;
        dev.area = area_of;
        dev.area_ctx = &sizer;
        cuzk__plan_make(out, &key, &dev);
        if (hidden != NULL)
            *hidden = be->vram_limit != 0 && be->vram_limit < free_b
                          ? free_b - (size_t)be->vram_limit
                          : 0;
    } else {
        gpu_fail(err, st, "sizing the MSM work area for the plan");
    }
    cuzk__gpu_msm_bases_free(sizer.proto[0]);
    cuzk__gpu_msm_bases_free(sizer.proto[1]);
    return st;
}

cuzk_status cuzk__gpu_op_plan(cuzk_backend *be, cuzk__plan *out, const cuzk_circuit *c,
                              const cuzk_params *p, const cuzk_zkey *zk, cuzk_error *err) {
    cuzk__error_clear(err);
    memset(out, 0, sizeof(*out));
    if (be->impl == NULL) return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "GPU backend not opened");
    if (zk == NULL && (c == NULL || p == NULL))
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                          "plan: no key (circuit and parameters, or zkey)");
    cuzk_status st = cuzk__gpu_set_device(be->device);
    if (st != CUZK_OK) return gpu_fail(err, st, "selecting the device");
    return plan_on_device(be, out, NULL, c, p, zk, err);
}

void cuzk__gpu_op_key_plan(const cuzk_backend_key *key, cuzk__plan *out) {
    *out = ((const gpu_key *)key)->plan;
}

cuzk_status cuzk__gpu_key_plan(gpu_key *k, cuzk_backend *be, cuzk_error *err) {
    cuzk_status st = plan_on_device(be, &k->plan, &k->hidden, k->c, k->p, k->zk, err);
    if (st != CUZK_OK) return st;
    k->vram_limit = be->vram_limit;
    if (k->plan.mode == CUZK__PLAN_CPU)
        return cuzk__fail(err, CUZK_ERR_DEVICE_NOMEM, "GPU %d: %s: the key does not fit: %s",
                          k->device,
                          k->zk ? k->zk->file.path : (k->p->path ? k->p->path : "(parameters)"),
                          k->plan.reason);
    return CUZK_OK;
}

cuzk_status cuzk__gpu_key_mem(const gpu_key *k, size_t *free_b, size_t *total_b) {
    cuzk_status st = cuzk__gpu_mem_info(free_b, total_b);
    if (st != CUZK_OK) return st;
    *free_b = *free_b > k->hidden ? *free_b - k->hidden : 0;
    return CUZK_OK;
}
