/*
 * abc_key.c — an abc key (gpu_abc.h): the memory plan against the device's
 * free memory, the bases uploaded through the copier's page-locked buffers,
 * the NTT tables and the work area; and its free.
 */
#include <stdlib.h>
#include <string.h>

#include "gpu/abc_impl.h"

#define MIB(x) ((ull)((x) >> 20))

/* Page-locked buffers of the copier (the CUDA backend's staging size). */
#define STAGE_BYTES ((size_t)32 << 20)

/* Kept free beside the key: 256 MiB and a 64th of the card, as the CUDA
 * backend's plan keeps (backend_gpu_plan.c plan_reserve), for what the
 * estimate misses (the NTT's small tables and stream-ordered scratch, the
 * levels' clocks, allocation rounding, the runtime's own growth). */
static uint64_t reserve_of(size_t total) { return ((uint64_t)256 << 20) + total / 64; }

/* The level budget the key starts from: a seventh of the card, the CUDA
 * backend's keys' (backend_gpu_plan.c cuzk__gpu_key_level_budget: at 2^27
 * on an H200 two windows a group); halved while the device has not the
 * room, down to LEVEL_BUDGET_MIN (a slower MSM, not a failed one), below
 * which the CPU is the better place. */
static size_t level_budget_of(size_t total) { return (total / 7 >> 20) << 20; }
#define LEVEL_BUDGET_MIN ((size_t)1 << 30)

void cuzk__gpu_abc_key_free(cuzk__gpu_abc_key *k) {
    if (k == NULL) return;
    int current = -1;
    const int restore = cuzk__gpu_get_device(&current) == CUZK_OK;
    const cuzk_status st = cuzk__gpu_set_device(k->device); /* best effort: free what we can */
    (void)st;
    cuzk__gpu_abc_copier_free(k->cp); /* first: a copy may be writing the buffers */
    cuzk__gpu_msm_bases_free(k->h);
    cuzk__gpu_msm_bases_free(k->l);
    cuzk__gpu_msm_bases_free(k->a);
    cuzk__gpu_msm_bases_free(k->b1);
    cuzk__gpu_msm_bases_free(k->b2);
    cuzk__gpu_ntt_domain_destroy(k->dom);
    cuzk__gpu_free(k->abc);
    cuzk__gpu_free(k->w[0]);
    cuzk__gpu_free(k->w[1]);
    cuzk__gpu_free(k->gath);
    cuzk__gpu_free(k->bm_one);
    cuzk__gpu_free(k->bm_other);
    for (int i = 0; i < 3; i++) {
        cuzk__gpu_free(k->dens_words[i]);
        cuzk__gpu_free(k->dens_rank[i]);
    }
    cuzk__gpu_free(k->first);
    free(k->host_rank);
    pthread_mutex_destroy(&k->lock);
    free(k);
    if (restore && cuzk__gpu_set_device(current) != CUZK_OK) {
        /* it was current a moment ago: nothing to undo */
    }
}

static uint64_t words_of(uint64_t bits) { return (bits + 63) / 64; }

/* Device bytes of everything but the MSMs' work area. */
static uint64_t fixed_bytes(const cuzk_params *p, uint64_t max_query) {
    const uint64_t n = p->domain_size, n_vars = p->n_inputs + p->n_aux;
    const uint64_t bases = 96 * (p->h.n + p->l.n + p->a.n + p->b_g1.n) + 192 * p->b_g2.n;
    const uint64_t ntt = 16 * n + ((uint64_t)8 << 20); /* twiddles and a few MiB of tables */
    const uint64_t dens = 2 * words_of(p->n_aux) * 12 + words_of(p->n_inputs) * 12;
    const uint64_t work = 96 * n + 32 * n_vars + 32 * max_query +
                          2 * (words_of(max_query) + 1) * 8 + dens + 64;
    return bases + ntt + work;
}

/* The MSMs' shared work area (bytes) of the key's calls under level budget
 * `budget`, as the MSM plans it (cuzk__gpu_msm_bases_area_bytes on the
 * one-point handles proto[G1, G2]): the largest of the H MSM (all N - 1
 * points), the classified L, A and B_G1 (G1) and B_G2 (G2) MSMs, each
 * planned for all its points. UINT64_MAX when a call cannot be planned. */
static uint64_t msm_area(cuzk__gpu_msm_bases *const proto[2], const cuzk_params *p,
                         size_t budget) {
    const struct {
        int g2;
        uint64_t n;
        int masked;
    } calls[5] = {{0, p->h.n, 0}, {0, p->l.n, 1}, {0, p->a.n, 1}, {0, p->b_g1.n, 1},
                  {1, p->b_g2.n, 1}};
    cuzk__gpu_msm_bases_restore_level_budget(proto[0], budget);
    cuzk__gpu_msm_bases_restore_level_budget(proto[1], budget);
    uint64_t most = 0;
    for (int i = 0; i < 5; i++) {
        size_t bytes = 0;
        if (calls[i].n == 0) continue;
        if (cuzk__gpu_msm_bases_area_bytes(proto[calls[i].g2], (size_t)calls[i].n,
                                           calls[i].masked, &bytes) != CUZK_OK)
            return UINT64_MAX;
        if (bytes > most) most = bytes;
    }
    return most;
}

/* The level budget under which everything fits free_b into *budget, the
 * MSMs' work area then into *area; CUZK_ERR_DEVICE_NOMEM when none does. */
static cuzk_status fit_budget(const cuzk__gpu_abc_key *k, size_t free_b, size_t total_b,
                              uint64_t fixed, size_t *budget, uint64_t *area, cuzk_error *err) {
    cuzk__gpu_msm_bases *proto[2] = {NULL, NULL};
    cuzk_status st = cuzk__gpu_msm_bases_alloc(&proto[0], CUZK__GPU_MSM_G1, 1);
    if (st == CUZK_OK) st = cuzk__gpu_msm_bases_alloc(&proto[1], CUZK__GPU_MSM_G2, 1);
    *budget = 0;
    if (st != CUZK_OK) {
        cuzk__fail(err, st, "GPU %d: sizing the MSMs' work area: %s", k->device,
                   cuzk__gpu_last_error());
    } else {
        const uint64_t keep = fixed + reserve_of(total_b);
        for (size_t b = level_budget_of(total_b);; b = (b / 2 >> 20) << 20) {
            if (b < LEVEL_BUDGET_MIN) b = LEVEL_BUDGET_MIN;
            *area = msm_area(proto, k->p, b);
            if (*area != UINT64_MAX && keep + *area <= free_b) {
                *budget = b;
                break;
            }
            if (b == LEVEL_BUDGET_MIN) break;
        }
        const char *pn = k->p->path ? k->p->path : "(params)";
        if (*budget == 0 && *area == UINT64_MAX)
            st = cuzk__fail(err, CUZK_ERR_DEVICE_NOMEM,
                            "GPU %d: an MSM of %s (2^%u) cannot be planned",
                            k->device, pn, k->p->log_domain_size);
        else if (*budget == 0)
            st = cuzk__fail(err, CUZK_ERR_DEVICE_NOMEM,
                            "GPU %d: the parameters of %s (2^%u) need about %llu MiB of device "
                            "memory (%llu resident, %llu for the MSMs' work area at its "
                            "smallest, %llu kept free), %llu MiB are free",
                            k->device, pn, k->p->log_domain_size, MIB(keep + *area), MIB(fixed),
                            MIB(*area), MIB(reserve_of(total_b)), MIB(free_b));
    }
    cuzk__gpu_msm_bases_free(proto[0]);
    cuzk__gpu_msm_bases_free(proto[1]);
    return st;
}

/* One vector into a new handle through the copier (n >= 1). */
static cuzk_status upload_vec(cuzk__gpu_abc_key *k, cuzk__gpu_msm_bases **out,
                              cuzk__gpu_msm_group g, const void *pts, uint64_t n,
                              const char *what, cuzk_error *err) {
    if (n == 0) return CUZK_OK;
    cuzk_status st = cuzk__gpu_msm_bases_alloc(out, g, (size_t)n);
    if (st != CUZK_OK)
        return cuzk__fail(err, st, "GPU %d: vector %s (%llu points): %s", k->device, what,
                          (ull)n, cuzk__gpu_last_error());
    uint64_t ticket;
    const size_t bytes = (size_t)n * (g == CUZK__GPU_MSM_G1 ? 96 : 192);
    if ((st = cuzk__gpu_abc_copier_post(k->cp, cuzk__gpu_msm_bases_at(*out, 0), pts, bytes,
                                        &ticket)) != CUZK_OK ||
        (st = cuzk__gpu_abc_copier_wait(k->cp, ticket, err)) != CUZK_OK)
        return st;
    return CUZK_OK;
}

static cuzk_status alloc(void **p, uint64_t bytes, const char *what, int device,
                         cuzk_error *err) {
    const cuzk_status st = cuzk__gpu_alloc(p, (size_t)(bytes ? bytes : 1));
    if (st != CUZK_OK)
        return cuzk__fail(err, st, "GPU %d: allocating %s (%llu MiB): %s", device, what,
                          MIB(bytes), cuzk__gpu_last_error());
    return CUZK_OK;
}

/* What key_new does once the device is selected. */
static cuzk_status key_make(cuzk__gpu_abc_key *k, const cuzk__gpu_abc_opts *o, cuzk_error *err) {
    const cuzk_params *p = k->p;
    const char *pn = p->path ? p->path : "(params)";
    size_t free_b = 0, total_b = 0;
    cuzk_status st = cuzk__gpu_mem_info(&free_b, &total_b);
    if (st != CUZK_OK)
        return cuzk__fail(err, st, "GPU %d: reading its free memory: %s", k->device,
                          cuzk__gpu_last_error());
    if (o->mem_limit != 0 && o->mem_limit < free_b) free_b = o->mem_limit;
    const uint64_t fixed = fixed_bytes(p, k->max_query);
    if (fixed + reserve_of(total_b) > free_b)
        return cuzk__fail(err, CUZK_ERR_DEVICE_NOMEM,
                          "GPU %d: the parameters of %s (2^%u) need more than %llu MiB of device "
                          "memory, %llu MiB are free",
                          k->device, pn, p->log_domain_size, MIB(fixed + reserve_of(total_b)),
                          MIB(free_b));
    uint64_t area = 0;
    size_t budget = 0;
    if ((st = fit_budget(k, free_b, total_b, fixed, &budget, &area, err)) != CUZK_OK) return st;
    /* a second assignment buffer where the room is left: the next input's
     * assignment then goes up beside this one's MSMs */
    const int second_w = !o->one_assignment &&
                         fixed + area + reserve_of(total_b) + 32 * k->n_vars <= free_b;
    if ((st = cuzk__gpu_abc_copier_new(&k->cp, k->device, STAGE_BYTES, o->threads, err)) !=
        CUZK_OK)
        return st;
    if ((st = upload_vec(k, &k->h, CUZK__GPU_MSM_G1, p->h.p, p->h.n, "h", err)) != CUZK_OK ||
        (st = upload_vec(k, &k->l, CUZK__GPU_MSM_G1, p->l.p, p->l.n, "l", err)) != CUZK_OK ||
        (st = upload_vec(k, &k->a, CUZK__GPU_MSM_G1, p->a.p, p->a.n, "a", err)) != CUZK_OK ||
        (st = upload_vec(k, &k->b1, CUZK__GPU_MSM_G1, p->b_g1.p, p->b_g1.n, "b_g1", err)) !=
            CUZK_OK ||
        (st = upload_vec(k, &k->b2, CUZK__GPU_MSM_G2, p->b_g2.p, p->b_g2.n, "b_g2", err)) !=
            CUZK_OK)
        return st;
    /* the MSMs run one after another: one work area (H's) for all, its
     * level buffers within the budget */
    cuzk__gpu_msm_bases *const hs[5] = {k->h, k->l, k->a, k->b1, k->b2};
    cuzk__gpu_msm_bases *share = NULL;
    for (int i = 0; i < 5; i++) {
        if (hs[i] == NULL) continue;
        if (share == NULL)
            share = hs[i];
        else
            cuzk__gpu_msm_bases_share_work(hs[i], share);
        cuzk__gpu_msm_bases_cap_level_budget(hs[i], budget);
    }
    if ((st = cuzk__gpu_ntt_domain_create(&k->dom, p->log_domain_size, CUZK_NTT_ROOT7)) !=
        CUZK_OK)
        return cuzk__fail(err, st, "GPU %d: NTT tables of 2^%u: %s", k->device,
                          p->log_domain_size, cuzk__gpu_last_error());
    const uint64_t bm_bytes = (words_of(k->max_query) + 1) * 8;
    if ((st = alloc(&k->abc, 96 * k->n_dom, "a, b, c", k->device, err)) != CUZK_OK ||
        (st = alloc(&k->w[0], 32 * k->n_vars, "the assignment", k->device, err)) != CUZK_OK ||
        (st = alloc(&k->gath, 32 * (k->max_query ? k->max_query : 1), "a query's scalars",
                    k->device, err)) != CUZK_OK ||
        (st = alloc((void **)&k->bm_one, bm_bytes, "bitmaps", k->device, err)) != CUZK_OK ||
        (st = alloc((void **)&k->bm_other, bm_bytes, "bitmaps", k->device, err)) != CUZK_OK ||
        (st = alloc((void **)&k->first, 5 * 8, "the scan's words", k->device, err)) != CUZK_OK)
        return st;
    const uint64_t dens_bits[3] = {k->n_aux, k->n_inp, k->n_aux};
    uint64_t most_words = 1;
    for (int i = 0; i < 3; i++) {
        const uint64_t w = words_of(dens_bits[i]) ? words_of(dens_bits[i]) : 1;
        if (w > most_words) most_words = w;
        if ((st = alloc((void **)&k->dens_words[i], 8 * w, "density bitmaps", k->device, err)) !=
                CUZK_OK ||
            (st = alloc((void **)&k->dens_rank[i], 4 * w, "density ranks", k->device, err)) !=
                CUZK_OK)
            return st;
    }
    if ((k->host_rank = malloc((size_t)most_words * 4)) == NULL)
        return cuzk__fail(err, CUZK_ERR_NOMEM, "no memory for %llu density ranks",
                          (ull)most_words);
    if (second_w && cuzk__gpu_alloc(&k->w[1], (size_t)(32 * k->n_vars)) != CUZK_OK)
        k->w[1] = NULL; /* no overlap of the assignment: slower, not wrong */
    k->fixed_bytes = fixed + (k->w[1] ? 32 * k->n_vars : 0);
    return CUZK_OK;
}

cuzk_status cuzk__gpu_abc_key_new(cuzk__gpu_abc_key **out, int device, const cuzk_params *p,
                                  const cuzk__gpu_abc_opts *o, cuzk_error *err) {
    static const cuzk__gpu_abc_opts dflt = {0, 0, 0};
    *out = NULL;
    if (o == NULL) o = &dflt;
    if (p == NULL) return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "GPU abc key: NULL parameters");
    if (p->root != CUZK_NTT_ROOT7 || p->h_kind != CUZK_H_MONOMIAL)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                          "%s: only bellman parameters (root 7^t, monomial H) are proved here",
                          p->path ? p->path : "(params)");
    cuzk_status st = cuzk_params_require_points(p, "the GPU prover of a, b, c", err);
    if (st != CUZK_OK) return st;
    if (p->domain_size != p->h.n + 1 || p->log_domain_size > CUZK__GPU_NTT_MAX_LOG ||
        p->n_inputs + p->n_aux > UINT32_MAX)
        return cuzk__fail(err, CUZK_ERR_UNSUPPORTED,
                          "%s: a domain of 2^%u with %llu variables is beyond the GPU prover",
                          p->path ? p->path : "(params)", p->log_domain_size,
                          (ull)(p->n_inputs + p->n_aux));
    cuzk__gpu_abc_key *k = calloc(1, sizeof(*k));
    if (k == NULL) return cuzk__fail(err, CUZK_ERR_NOMEM, "no memory for a GPU key");
    if (pthread_mutex_init(&k->lock, NULL) != 0) {
        free(k);
        return cuzk__fail(err, CUZK_ERR_NOMEM, "cannot create a mutex");
    }
    k->device = device;
    k->p = p;
    k->n_dom = p->domain_size;
    k->n_h = p->h.n;
    k->n_inp = p->n_inputs;
    k->n_aux = p->n_aux;
    k->n_vars = p->n_inputs + p->n_aux;
    k->max_query = p->a.n > p->b_g1.n ? p->a.n : p->b_g1.n;
    if (k->n_aux > k->max_query) k->max_query = k->n_aux;
    int current = -1;
    const int restore = cuzk__gpu_get_device(&current) == CUZK_OK;
    if ((st = cuzk__gpu_set_device(device)) != CUZK_OK)
        cuzk__fail(err, st, "GPU %d: selecting the device: %s", device, cuzk__gpu_last_error());
    else
        st = key_make(k, o, err);
    if (restore && cuzk__gpu_set_device(current) != CUZK_OK) {
        /* it was current a moment ago: nothing to undo */
    }
    if (st != CUZK_OK) {
        cuzk__gpu_abc_key_free(k);
        return st;
    }
    *out = k;
    return CUZK_OK;
}

uint64_t cuzk__gpu_abc_key_device_bytes(const cuzk__gpu_abc_key *k) {
    return k ? k->fixed_bytes + cuzk__gpu_msm_bases_work_bytes(k->h) : 0;
}

int cuzk__gpu_abc_key_overlaps_assignment(const cuzk__gpu_abc_key *k) {
    return k != NULL && k->w[1] != NULL;
}
