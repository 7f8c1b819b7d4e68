/*
 * abc_prove.c — proofs of an abc key (gpu_abc.h): for each input the five
 * MSMs and H on the device, the MSMs over the assignment first, so that
 * its a, b, c go up beside them (the first input's too), and the next
 * input's copies beside the current one's work, by the key's copier:
 *
 *   input i:  wait for w(i) | aux scan | L, A, B MSMs | wait for a, b, c (i)
 *             | pad, scan, verdict | H | H MSM
 *   copier:   w(i+1) into the other assignment buffer from the start,
 *             w(i+1) into the same buffer after the MSMs (no second buffer),
 *             b, c (i+1) once H is done with them (the H MSM reads only a),
 *             a (i+1) once the H MSM is done.
 *
 * The verdict on an input comes after its assignment's MSMs: an input the
 * CPU prover refuses costs those MSMs (none when its aux is not canonical)
 * and is refused in the same words. Each copy is posted only once no
 * kernel reads or writes its destination (the steps before it have
 * synchronized the legacy stream), and waited for before a kernel reads
 * it; every return drains the copier, so nothing reads the caller's
 * memory after the call.
 */
#include <stdlib.h>
#include <string.h>

#include "gpu/abc_impl.h"
#include "gpu/gpu_circuit.h"
#include "util/clock.h"

/* A failed GPU operation as an error naming the GPU, the input and the step. */
static cuzk_status dev_fail(cuzk_error *err, const cuzk__gpu_abc_key *k,
                            const cuzk_groth16_abc_input *in, cuzk_status st, const char *what) {
    return cuzk__fail(err, st, "GPU %d: %s: %s: %s", k->device, in->name ? in->name : "(input)",
                      what, cuzk__gpu_status_text(st));
}

/* ---- MSMs split into the batch-add of the ones and a masked MSM of the others ---- */

static void jac_inf(uint64_t *result, int g2) {
    if (g2)
        cuzk_g2_jac_set_inf((cuzk_g2_jac *)(void *)result);
    else
        cuzk_g1_jac_set_inf((cuzk_g1_jac *)(void *)result);
}

/* The 0/1/other classification of n device scalars into the key's bitmaps. */
static cuzk_status classify(cuzk__gpu_abc_key *k, cuzk__gpu_msm_counts *cnt,
                            const uint64_t *scalars, uint64_t n, cuzk_groth16_stage_times *t) {
    const double t0 = cuzk__now_ms();
    const cuzk_status st =
        cuzk__gpu_msm_classify(NULL, k->bm_one, k->bm_other, cnt, scalars, (size_t)n);
    t->prep_ms += cuzk__now_ms() - t0;
    return st;
}

/* sum of scalar * base over the n scalars classified into cnt and the key's
 * bitmaps: the batch-add of the ones plus the masked MSM of the others,
 * added on the host (Jacobian words). */
static cuzk_status classified_msm(cuzk__gpu_abc_key *k, cuzk__gpu_msm_bases *b, int g2,
                                  uint64_t *result, const uint64_t *scalars, uint64_t n,
                                  const cuzk__gpu_msm_counts *cnt,
                                  cuzk_groth16_stage_times *t) {
    uint64_t ones[36], others[36];
    jac_inf(result, g2);
    if (n == 0 || b == NULL) return CUZK_OK;
    jac_inf(ones, g2);
    jac_inf(others, g2);
    cuzk_status st;
    double t0 = cuzk__now_ms();
    if (cnt->one && (st = cuzk__gpu_msm_batch_add(b, ones, (size_t)n, k->bm_one)) != CUZK_OK)
        return st;
    t->batch_add_ms += cuzk__now_ms() - t0;
    t0 = cuzk__now_ms();
    if (cnt->other &&
        (st = cuzk__gpu_msm(b, others, scalars, (size_t)n, k->bm_other)) != CUZK_OK)
        return st;
    *(g2 ? &t->b_g2_msm_ms : &t->tail_msm_ms) += cuzk__now_ms() - t0;
    cuzk__gpu_msm_add_halves(g2 ? CUZK__GPU_MSM_G2 : CUZK__GPU_MSM_G1, result, ones, others, cnt);
    return CUZK_OK;
}

static cuzk_status split_msm(cuzk__gpu_abc_key *k, cuzk__gpu_msm_bases *b, uint64_t *result,
                             const uint64_t *scalars, uint64_t n, cuzk_groth16_stage_times *t) {
    cuzk__gpu_msm_counts cnt = {0, 0, 0};
    cuzk_status st;
    if (n != 0 && b != NULL && (st = classify(k, &cnt, scalars, n, t)) != CUZK_OK) return st;
    return classified_msm(k, b, 0, result, scalars, n, &cnt, t);
}

/* ---- a query's scalars by the call's density bitmaps ------------------------------ */

/* The bitmap d (d->n bits) and its per-word ranks onto the device, slot i. */
static cuzk_status density_upload(cuzk__gpu_abc_key *k, int i, const cuzk_groth16_density *d) {
    const uint64_t words = (d->n + 63) / 64;
    uint64_t sum = 0;
    for (uint64_t w = 0; w < words; w++) {
        k->host_rank[w] = (uint32_t)sum;
        uint64_t x = d->words[w];
        if ((w + 1) * 64 > d->n && d->n % 64) x &= ((uint64_t)1 << (d->n % 64)) - 1;
        sum += (uint64_t)__builtin_popcountll(x);
    }
    cuzk_status st = cuzk__gpu_upload(k->dens_words[i], d->words, (size_t)words * 8);
    if (st == CUZK_OK) st = cuzk__gpu_upload(k->dens_rank[i], k->host_rank, (size_t)words * 4);
    return st;
}

/* out <- the k-th set bit's element of in, over d (slot i). */
static cuzk_status gather(cuzk__gpu_abc_key *k, int i, void *out, const void *in,
                          const cuzk_groth16_density *d) {
    if (d->n == 0 || d->count == 0) return CUZK_OK;
    cuzk_status st = density_upload(k, i, d);
    if (st == CUZK_OK) st = cuzk__gpu_abc_gather(out, in, k->dens_words[i], k->dens_rank[i], d->n);
    return st;
}

/* ---- one input ------------------------------------------------------------------- */

/* The tickets of an input's copies. */
typedef struct {
    uint64_t w, abc; /* 0: nothing posted */
} tickets;

/* The input's assignment into buffer w: inputs, then aux. */
static cuzk_status post_w(cuzk__gpu_abc_key *k, const cuzk_groth16_abc_input *in, void *w,
                          uint64_t *ticket) {
    cuzk_status st = cuzk__gpu_abc_copier_post(k->cp, w, in->inputs, in->n_inputs * 32, ticket);
    if (st == CUZK_OK && in->n_aux)
        st = cuzk__gpu_abc_copier_post(k->cp, (uint8_t *)w + in->n_inputs * 32, in->aux,
                                       in->n_aux * 32, ticket);
    return st;
}

/* Vectors [first, last] of a, b, c (0, 1, 2) of the input into abc. */
static cuzk_status post_abc(cuzk__gpu_abc_key *k, const cuzk_groth16_abc_input *in, int first,
                            int last, uint64_t *ticket) {
    const cuzk_fr *const v[3] = {in->a, in->b, in->c};
    for (int i = first; i <= last; i++) {
        if (in->abc_size == 0) continue;
        cuzk_status st =
            cuzk__gpu_abc_copier_post(k->cp, (uint8_t *)k->abc + (size_t)i * k->n_dom * 32, v[i],
                                      in->abc_size * 32, ticket);
        if (st != CUZK_OK) return st;
    }
    return CUZK_OK;
}

/* What prove_one needs besides its input: where its assignment is, the next
 * input (NULL: none) and where its assignment goes. */
typedef struct {
    void *w;
    tickets *mine, *next_t;
    const cuzk_groth16_abc_input *next;
    void *next_w;
} step;

/* L, A, B_G1 and B_G2 of in over its plain assignment w (device). */
static cuzk_status assignment_msms(cuzk__gpu_abc_key *k, const cuzk_groth16_abc_input *in,
                                   const uint64_t *w, cuzk_groth16_partial *out,
                                   cuzk_g1_jac *msm_l, cuzk_groth16_stage_times *t,
                                   cuzk_error *err) {
    const uint64_t n_inp = in->n_inputs, n_aux = in->n_aux;
    cuzk_status st;
    double t0;
    /* L over the aux */
    if ((st = split_msm(k, k->l, (uint64_t *)msm_l, w + 4 * n_inp, n_aux, t)) != CUZK_OK)
        return dev_fail(err, k, in, st, "L MSM");

    /* A: every input, then the aux with a_aux */
    const uint64_t *sa = w;
    const uint64_t n_a = n_inp + in->a_aux.count;
    t0 = cuzk__now_ms();
    if (in->a_aux.count != n_aux) {
        if ((st = cuzk__gpu_copy_on_device(k->gath, w, (size_t)n_inp * 32)) != CUZK_OK ||
            (st = gather(k, 0, (uint8_t *)k->gath + n_inp * 32, w + 4 * n_inp, &in->a_aux)) !=
                CUZK_OK)
            return dev_fail(err, k, in, st, "gathering A's scalars");
        sa = k->gath;
    }
    t->prep_ms += cuzk__now_ms() - t0;
    if ((st = split_msm(k, k->a, (uint64_t *)&out->msm_a, sa, n_a, t)) != CUZK_OK)
        return dev_fail(err, k, in, st, "A MSM");

    /* B: the inputs with b_inp, then the aux with b_aux; one classification
     * for B_G1 and B_G2 */
    const uint64_t *sb = w;
    const uint64_t n_b = in->b_inp.count + in->b_aux.count;
    t0 = cuzk__now_ms();
    if (in->b_inp.count != n_inp || in->b_aux.count != n_aux) {
        if ((st = gather(k, 1, k->gath, w, &in->b_inp)) != CUZK_OK ||
            (st = gather(k, 2, (uint8_t *)k->gath + in->b_inp.count * 32, w + 4 * n_inp,
                         &in->b_aux)) != CUZK_OK)
            return dev_fail(err, k, in, st, "gathering B's scalars");
        sb = k->gath;
    }
    t->prep_ms += cuzk__now_ms() - t0;
    cuzk__gpu_msm_counts cnt = {0, 0, 0};
    if (n_b != 0 && (k->b1 != NULL || k->b2 != NULL) &&
        (st = classify(k, &cnt, sb, n_b, t)) != CUZK_OK)
        return dev_fail(err, k, in, st, "classifying B's scalars");
    if ((st = classified_msm(k, k->b1, 0, (uint64_t *)&out->msm_b1, sb, n_b, &cnt, t)) !=
        CUZK_OK)
        return dev_fail(err, k, in, st, "B_G1 MSM");
    if ((st = classified_msm(k, k->b2, 1, (uint64_t *)&out->msm_b2, sb, n_b, &cnt, t)) !=
        CUZK_OK)
        return dev_fail(err, k, in, st, "B_G2 MSM");

    return CUZK_OK;
}

static cuzk_status prove_one(cuzk__gpu_abc_key *k, const cuzk_groth16_abc_input *in,
                             const step *sp, cuzk_groth16_partial *out,
                             cuzk_groth16_stage_times *t, cuzk_error *err) {
    const uint64_t n = k->n_dom, m = in->abc_size, n_inp = in->n_inputs, n_aux = in->n_aux;
    uint8_t *abc = k->abc;
    uint64_t *a = (uint64_t *)abc, *b = (uint64_t *)(abc + 32 * n), *c = (uint64_t *)(abc + 64 * n);
    uint64_t *w = sp->w;
    uint64_t first[5];
    cuzk_status st;
    memset(out, 0, sizeof(*out));

    /* the next assignment into the other buffer, beside everything below */
    if (sp->next != NULL && sp->next_w != w &&
        (st = post_w(k, sp->next, sp->next_w, &sp->next_t->w)) != CUZK_OK)
        return dev_fail(err, k, in, st, "queueing a copy");

    /* the assignment: its aux scanned while still Montgomery, then plain */
    double t0 = cuzk__now_ms();
    if (sp->mine->w && (st = cuzk__gpu_abc_copier_wait(k->cp, sp->mine->w, err)) != CUZK_OK)
        return st;
    t->spmv_ms = cuzk__now_ms() - t0;
    t0 = cuzk__now_ms();
    if ((st = cuzk__gpu_abc_scan(k->first, NULL, NULL, NULL, 0, w + 4 * n_inp, n_aux, first)) !=
        CUZK_OK)
        return dev_fail(err, k, in, st, "scanning the assignment");
    const uint64_t aux_first = first[3];
    t->check_ms = cuzk__now_ms() - t0;
    if ((st = cuzk__gpu_fr_from_mont(w, w, (size_t)(n_inp + n_aux), NULL)) != CUZK_OK)
        return dev_fail(err, k, in, st, "the assignment to plain form");

    /* the MSMs over it (a non-canonical aux is refused below, unproved) */
    cuzk_g1_jac msm_h, msm_l;
    cuzk_g1_jac_set_inf(&msm_l);
    if (aux_first >= n_aux && (st = assignment_msms(k, in, w, out, &msm_l, t, err)) != CUZK_OK)
        return st;

    /* no second buffer: the next assignment into this one, now that the MSMs
     * (whose last step read their results back) are done with it */
    if (sp->next != NULL && sp->next_w == w &&
        (st = post_w(k, sp->next, sp->next_w, &sp->next_t->w)) != CUZK_OK)
        return dev_fail(err, k, in, st, "queueing a copy");

    /* a, b, c (uploaded beside the MSMs above), the padding, the scan and the
     * CPU prover's verdict on the whole input */
    t0 = cuzk__now_ms();
    if (sp->mine->abc && (st = cuzk__gpu_abc_copier_wait(k->cp, sp->mine->abc, err)) != CUZK_OK)
        return st;
    if ((st = cuzk__gpu_abc_pad(abc, n, m)) != CUZK_OK)
        return dev_fail(err, k, in, st, "zero padding a, b, c");
    t->spmv_ms += cuzk__now_ms() - t0;
    t0 = cuzk__now_ms();
    if ((st = cuzk__gpu_abc_scan(k->first, a, b, c, m, NULL, 0, first)) != CUZK_OK)
        return dev_fail(err, k, in, st, "scanning a, b, c");
    const cuzk__groth16_abc_scan scan = {first[0], first[1], first[2], aux_first, first[4]};
    if ((st = cuzk__groth16_abc_verdict(in, &scan, err)) != CUZK_OK) return st;
    t->check_ms += cuzk__now_ms() - t0;

    /* H: coefficients of (ab - c)/Z, the first N - 1 of them plain for the MSM */
    t0 = cuzk__now_ms();
    if ((st = cuzk__gpu_h_bellman(k->dom, a, b, c, NULL)) != CUZK_OK ||
        (st = cuzk__gpu_fr_from_mont(a, a, (size_t)k->n_h, NULL)) != CUZK_OK ||
        (st = cuzk__gpu_abc_sync()) != CUZK_OK)
        return dev_fail(err, k, in, st, "H");
    t->ntt_ms = cuzk__now_ms() - t0;
    if (sp->next != NULL && (st = post_abc(k, sp->next, 1, 2, &sp->next_t->abc)) != CUZK_OK)
        return dev_fail(err, k, in, st, "queueing a copy");
    cuzk_g1_jac_set_inf(&msm_h); /* a domain of 1 has no h points */
    t0 = cuzk__now_ms();
    if (k->n_h != 0 && k->h != NULL &&
        (st = cuzk__gpu_msm(k->h, (uint64_t *)&msm_h, a, (size_t)k->n_h, NULL)) != CUZK_OK)
        return dev_fail(err, k, in, st, "H MSM");
    t->msm_h_ms = cuzk__now_ms() - t0;
    if (sp->next != NULL && (st = post_abc(k, sp->next, 0, 0, &sp->next_t->abc)) != CUZK_OK)
        return dev_fail(err, k, in, st, "queueing a copy");

    cuzk__groth16_partial_fill(out, &k->p->vk, &msm_l, &msm_h);
    out->t.abc_ms = t->spmv_ms + t->check_ms;
    out->t.ntt_ms = t->ntt_ms;
    out->t.msm_h_ms = t->msm_h_ms;
    return CUZK_OK;
}

/* ---- a call ------------------------------------------------------------------------ */

static cuzk_status prove_all(cuzk__gpu_abc_key *k, const cuzk_groth16_abc_input *ins, size_t n,
                             cuzk_groth16_partial *out, cuzk_groth16_stage_times *times,
                             size_t *failed, cuzk_error *err) {
    cuzk_status st;
    for (size_t i = 0; i < n; i++)
        if ((st = cuzk_groth16_check_abc_input(&ins[i], k->p, err)) != CUZK_OK) {
            *failed = i;
            return st;
        }
    if (n == 0) return CUZK_OK;
    if ((st = cuzk__gpu_set_device(k->device)) != CUZK_OK) {
        *failed = 0;
        return cuzk__fail(err, st, "GPU %d: selecting the device: %s", k->device,
                          cuzk__gpu_last_error());
    }
    tickets tk[2] = {{0, 0}, {0, 0}}; /* input i's are tk[i % 2] */
    int cur = 0;                      /* input i's assignment is in k->w[cur] */
    *failed = 0;
    if ((st = post_w(k, &ins[0], k->w[0], &tk[0].w)) != CUZK_OK ||
        (st = post_abc(k, &ins[0], 0, 2, &tk[0].abc)) != CUZK_OK)
        return dev_fail(err, k, &ins[0], st, "queueing a copy");
    for (size_t i = 0; i < n; i++) {
        const double t0 = cuzk__now_ms();
        cuzk_groth16_stage_times t;
        memset(&t, 0, sizeof(t));
        tickets *next_t = &tk[(i + 1) % 2];
        *next_t = (tickets){0, 0};
        const int other = k->w[1] != NULL ? cur ^ 1 : cur;
        const step sp = {k->w[cur], &tk[i % 2], next_t, i + 1 < n ? &ins[i + 1] : NULL,
                         k->w[other]};
        *failed = i;
        if ((st = prove_one(k, &ins[i], &sp, &out[i], &t, err)) != CUZK_OK) return st;
        cur = other;
        t.total_ms = cuzk__now_ms() - t0;
        out[i].t.total_ms = t.total_ms;
        if (times != NULL) times[i] = t;
    }
    *failed = n;
    return CUZK_OK;
}

cuzk_status cuzk__gpu_abc_prove(cuzk__gpu_abc_key *k, const cuzk_groth16_abc_input *ins,
                                size_t n, cuzk_groth16_partial *out,
                                cuzk_groth16_stage_times *times, size_t *failed,
                                cuzk_error *err) {
    size_t f = 0;
    cuzk__error_clear(err);
    if (k == NULL || (n > 0 && (ins == NULL || out == NULL))) {
        if (failed) *failed = 0;
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "GPU abc prove: NULL argument");
    }
    int current = -1;
    const int restore = cuzk__gpu_get_device(&current) == CUZK_OK;
    pthread_mutex_lock(&k->lock);
    const cuzk_status st = prove_all(k, ins, n, out, times, &f, err);
    cuzk__gpu_abc_copier_drain(k->cp); /* nothing reads the caller's memory after this */
    pthread_mutex_unlock(&k->lock);
    if (restore && cuzk__gpu_set_device(current) != CUZK_OK) {
        /* it was current a moment ago: nothing to undo */
    }
    if (failed) *failed = f;
    return st;
}
