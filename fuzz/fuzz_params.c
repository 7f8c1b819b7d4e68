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
 *   - with deferred points (the input in a memory file, opened by path) the
 *     head gives the same verdict and message as a full open wherever the
 *     full open failed on the head; otherwise the deferred open succeeds
 *     with the same counts and offsets, every vector reads back as the
 *     input's bytes, and a full open's refusal of a point is the first
 *     cuzk_params_point_check refusal in vector order, with its message.
 * fuzz/replay_main.c turns this file into a corpus replayer for any compiler.
 */
#define _GNU_SOURCE /* memfd_create */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "io/params.h"
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

/* The message after the name it starts with (the two opens name the input
 * differently). */
static const char *after_name(const cuzk_error *e, const char *name) {
    const size_t n = strlen(name);
    FUZZ_ASSERT(strncmp(e->msg, name, n) == 0);
    return e->msg + n;
}

/* Deferred points against the full open (full_st, full_e at CHECK_CURVE). */
static void check_deferred(const uint8_t *in, size_t size, cuzk_status full_st,
                           const cuzk_error *full_e) {
    const int fd = memfd_create("fuzz_params", MFD_CLOEXEC);
    if (fd < 0) return; /* no memory files here: nothing to compare */
    FUZZ_ASSERT(size == 0 || write(fd, in, size) == (ssize_t)size);
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    cuzk_params d;
    cuzk_error e;
    memset(&e, 0, sizeof(e));
    const cuzk_status st = cuzk_params_open(&d, path, CUZK_PARAMS_DEFER_POINTS, &e);
    if (st != CUZK_OK) { /* a refused head: the full open refused it first, alike */
        FUZZ_ASSERT(e.status == st);
        FUZZ_ASSERT(full_st == st);
        FUZZ_ASSERT(strcmp(after_name(&e, path), after_name(full_e, NAME)) == 0);
        FUZZ_ASSERT(all_zero(&d, sizeof(d)));
        close(fd);
        return;
    }
    FUZZ_ASSERT(d.deferred && d.h.p == NULL && d.b_g2.p == NULL);
    const cuzk_params_g1_vec *v[4] = {&d.h, &d.l, &d.a, &d.b_g1};
    uint64_t pts = d.b_g2.n;
    for (int k = 0; k < 4; k++) pts += v[k]->n;
    bool refused = false;
    uint8_t enc[192];
    for (int k = 0; k < 5 && pts <= 4096; k++) {
        const uint64_t n = k < 4 ? v[k]->n : d.b_g2.n;
        const uint64_t off = k < 4 ? v[k]->offset : d.b_g2.offset;
        const unsigned pb = k < 4 ? 96 : 192;
        for (uint64_t i = 0; i < n; i++) {
            FUZZ_ASSERT(cuzk_params_read_encoded(&d, (cuzk_params_vec)k, i, 1, enc, &e) ==
                        CUZK_OK);
            FUZZ_ASSERT(off + (i + 1) * pb <= size && memcmp(enc, in + off + i * pb, pb) == 0);
            const cuzk_status ps = cuzk_params_point_check(&d, (cuzk_params_vec)k, i, &e);
            if (ps != CUZK_OK && !refused) { /* the full open's first refusal */
                refused = true;
                FUZZ_ASSERT(ps == full_st);
                FUZZ_ASSERT(strcmp(after_name(&e, path), after_name(full_e, NAME)) == 0);
            }
        }
    }
    if (pts <= 4096) FUZZ_ASSERT(refused == (full_st != CUZK_OK));
    cuzk_params_close(&d);
    FUZZ_ASSERT(all_zero(&d, sizeof(d)));
    close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    uint8_t *in = fuzz_copy_input(data, size);
    if (in == NULL) return 0;
    cuzk_error e;
    memset(&e, 0, sizeof(e));

    cuzk_params p;
    cuzk_status st = cuzk_params_open_mem(&p, in, size, NAME, CUZK_PARAMS_CHECK_CURVE, &e);
    bool params_ok = st == CUZK_OK;
    check_deferred(in, size, st, &e);
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
