/*
 * fuzz_params.c — libFuzzer target for the bellman .params and .vk readers
 * (src/io/params.h).
 *
 * The input is the file itself, copied to an exact-size heap block (so ASan
 * sees any read past its end) and opened both as a .params
 * (cuzk_params_open_mem, curve check on) and as a .vk
 * (cuzk_params_vk_open_mem). Properties (abort on violation):
 *   - a refused input gives a status in range, a message naming the input,
 *     and leaves the object zeroed;
 *   - an accepted file is consistent: counts obey the shape rules, every
 *     point is canonical, on its curve and finite, the vk points and IC are
 *     in the subgroup, and the conventions are bellman's;
 *   - an accepted file re-encodes to exactly its input bytes (serial and
 *     parallel writer), so reading loses nothing;
 *   - small accepted files give the same verdict and message with the
 *     subgroup check serial and parallel;
 *   - the two readers agree: the input is a valid .vk exactly when it is
 *     the vk part of nothing more, so both never accept the same bytes.
 * fuzz/replay_main.c turns this file into a corpus replayer for any compiler.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "params.h"
#include "fuzz_common.h"

static bool fp_ok(const cuzk_fp *a) { return cuzk__lt_n(a->l, cuzk__fp_p, CUZK_FP_LIMBS); }

static void check_g1(const cuzk_g1_aff *p, bool subgroup) {
    FUZZ_ASSERT(fp_ok(&p->x) && fp_ok(&p->y));
    FUZZ_ASSERT(!cuzk_g1_aff_is_inf(p) && cuzk_g1_aff_is_on_curve(p));
    if (subgroup) FUZZ_ASSERT(cuzk_g1_aff_in_subgroup_var(p));
}

static void check_g2(const cuzk_g2_aff *p, bool subgroup) {
    FUZZ_ASSERT(fp_ok(&p->x.c0) && fp_ok(&p->x.c1) && fp_ok(&p->y.c0) && fp_ok(&p->y.c1));
    FUZZ_ASSERT(!cuzk_g2_aff_is_inf(p) && cuzk_g2_aff_is_on_curve(p));
    if (subgroup) FUZZ_ASSERT(cuzk_g2_aff_in_subgroup_var(p));
}

static void check_vk(const cuzk_params_vk *vk) {
    check_g1(&vk->alpha1, true);
    check_g1(&vk->beta1, true);
    check_g2(&vk->beta2, true);
    check_g2(&vk->gamma2, true);
    check_g1(&vk->delta1, true);
    check_g2(&vk->delta2, true);
    FUZZ_ASSERT(vk->n_ic >= 1 && vk->ic != NULL);
    for (uint64_t i = 0; i < vk->n_ic; i++) check_g1(&vk->ic[i], true);
}

static void check_params(const cuzk_params *p) {
    check_vk(&p->vk);
    uint64_t dom = p->h.n + 1, ni = p->vk.n_ic, nl = p->l.n;
    FUZZ_ASSERT((dom & (dom - 1)) == 0 && p->domain_size == dom && dom >= ni);
    FUZZ_ASSERT((1ull << p->log_domain_size) == dom);
    FUZZ_ASSERT(p->a.n >= ni && p->a.n <= ni + nl);
    FUZZ_ASSERT(p->b_g1.n == p->b_g2.n && p->b_g1.n <= ni + nl);
    FUZZ_ASSERT(p->n_inputs == ni && p->n_aux == nl);
    FUZZ_ASSERT(p->root == CUZK_NTT_ROOT7 && p->h_kind == CUZK_H_MONOMIAL);
    const cuzk_params_g1_vec *v[4] = {&p->h, &p->l, &p->a, &p->b_g1};
    for (int k = 0; k < 4; k++)
        for (uint64_t i = 0; i < v[k]->n; i++) check_g1(&v[k]->p[i], false);
    for (uint64_t i = 0; i < p->b_g2.n; i++) check_g2(&p->b_g2.p[i], false);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    uint8_t *in = malloc(size ? size : 1);
    if (in == NULL) return 0;
    if (size) memcpy(in, data, size);
    cuzk_error e;
    memset(&e, 0, sizeof(e));

    cuzk_params p;
    cuzk_status st = cuzk_params_open_mem(&p, in, size, NAME, CUZK_PARAMS_CHECK_CURVE, &e);
    bool params_ok = st == CUZK_OK;
    if (!params_ok) {
        check_error(st, &e);
        FUZZ_ASSERT(all_zero(&p, sizeof(p)));
    } else {
        check_params(&p);
        FUZZ_ASSERT(cuzk_params_encoded_size(&p) == size);
        uint8_t *out = malloc(size);
        FUZZ_ASSERT(out != NULL);
        for (unsigned fl = 0; fl <= CUZK_PARAMS_PARALLEL; fl += CUZK_PARAMS_PARALLEL) {
            FUZZ_ASSERT(cuzk_params_encode(out, size, &p, fl, &e) == CUZK_OK);
            FUZZ_ASSERT(memcmp(out, in, size) == 0);
        }
        free(out);
        uint64_t pts = p.h.n + p.l.n + p.a.n + p.b_g1.n + p.b_g2.n;
        cuzk_params_close(&p);
        FUZZ_ASSERT(all_zero(&p, sizeof(p)));
        if (pts <= 64) {
            cuzk_error e1, e2;
            cuzk_params q1, q2;
            cuzk_status s1 =
                cuzk_params_open_mem(&q1, in, size, NAME, CUZK_PARAMS_CHECK_SUBGROUP, &e1);
            cuzk_status s2 = cuzk_params_open_mem(
                &q2, in, size, NAME, CUZK_PARAMS_CHECK_SUBGROUP | CUZK_PARAMS_PARALLEL, &e2);
            FUZZ_ASSERT(s1 == s2);
            if (s1 != CUZK_OK) {
                check_error(s1, &e1);
                FUZZ_ASSERT(strcmp(e1.msg, e2.msg) == 0);
            } else {
                check_params(&q1);
            }
            cuzk_params_close(&q1);
            cuzk_params_close(&q2);
        }
    }

    cuzk_params_vk vk;
    st = cuzk_params_vk_open_mem(&vk, in, size, NAME, 0, &e);
    if (st != CUZK_OK) {
        check_error(st, &e);
        FUZZ_ASSERT(all_zero(&vk, sizeof(vk)));
    } else {
        FUZZ_ASSERT(!params_ok); /* a .params always has bytes after its vk */
        check_vk(&vk);
        FUZZ_ASSERT(cuzk_params_vk_encoded_size(&vk) == size);
        uint8_t *out = malloc(size);
        FUZZ_ASSERT(out != NULL);
        FUZZ_ASSERT(cuzk_params_vk_encode(out, size, &vk, &e) == CUZK_OK);
        FUZZ_ASSERT(memcmp(out, in, size) == 0);
        free(out);
        cuzk_params_vk_free(&vk);
        FUZZ_ASSERT(all_zero(&vk, sizeof(vk)));
    }
    free(in);
    return 0;
}
