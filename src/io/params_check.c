/*
 * params_check.c — every point of a .params file's five vectors checked
 * (on the curve, in the subgroup, not infinity), read from the file a chunk
 * at a time, so a 47 GB file needs 12 MiB of memory (io/params.h).
 */
#include <stdlib.h>

#include "ec/encode.h"
#include "ec/g1.h"
#include "ec/g2.h"
#include "io/params.h"

#define G1_BYTES 96u
#define G2_BYTES 192u
/* Points read and checked per chunk (12 MiB of G2 points). */
#define CHECK_CHUNK ((uint64_t)1 << 16)

static int g1_point_ok(const uint8_t *enc) {
    cuzk_g1_aff t;
    return cuzk_g1_from_zcash(&t, enc, G1_BYTES, 0) == CUZK_OK && !cuzk_g1_aff_is_inf(&t);
}

static int g2_point_ok(const uint8_t *enc) {
    cuzk_g2_aff t;
    return cuzk_g2_from_zcash(&t, enc, G2_BYTES, 0) == CUZK_OK && !cuzk_g2_aff_is_inf(&t);
}

/*
 * Why point index of vector v was refused: the reader's own verdict
 * (flags, canonical coordinates, infinity, the curve), or else the subgroup
 * check the deferred reader leaves to its caller, in the reader's words.
 */
static cuzk_status explain_point(const cuzk_params *p, cuzk_params_vec v, const char *name,
                                 uint64_t offset, uint64_t index, unsigned bytes,
                                 cuzk_error *err) {
    cuzk_status st = cuzk_params_point_check(p, v, index, err);
    if (st != CUZK_OK) return st;
    uint8_t enc[G2_BYTES];
    if ((st = cuzk_params_read_encoded(p, v, index, 1, enc, err)) != CUZK_OK) return st;
    int in_group;
    if (bytes == G1_BYTES) {
        cuzk_g1_aff t;
        st = cuzk_g1_from_zcash(&t, enc, bytes, CUZK_DECODE_NO_SUBGROUP_CHECK);
        in_group = st == CUZK_OK && cuzk_g1_aff_in_subgroup_var(&t);
    } else {
        cuzk_g2_aff t;
        st = cuzk_g2_from_zcash(&t, enc, bytes, CUZK_DECODE_NO_SUBGROUP_CHECK);
        in_group = st == CUZK_OK && cuzk_g2_aff_in_subgroup_var(&t);
    }
    return cuzk__fail(err, st != CUZK_OK ? st : CUZK_ERR_NOT_IN_SUBGROUP,
                      "%s: offset %llu: %s point %llu: %s", p->path, (unsigned long long)(offset + index * bytes),
                      name, (unsigned long long)index,
                      st != CUZK_OK ? cuzk_strerror(st)
                      : in_group    ? "refused by the zcash decoder"
                                    : "point not in the prime-order subgroup");
}

cuzk_status cuzk_params_check_vectors(const cuzk_params *p, cuzk_error *err) {
    if (!p->deferred)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                          "%s: the vectors' check reads parameters opened with deferred points",
                          p->path);
    const struct {
        cuzk_params_vec v;
        const char *name;
        uint64_t n, offset;
        unsigned bytes;
    } vecs[5] = {{CUZK_PARAMS_VEC_H, "vector h", p->h.n, p->h.offset, G1_BYTES},
                 {CUZK_PARAMS_VEC_L, "vector l", p->l.n, p->l.offset, G1_BYTES},
                 {CUZK_PARAMS_VEC_A, "vector a", p->a.n, p->a.offset, G1_BYTES},
                 {CUZK_PARAMS_VEC_B_G1, "vector b_g1", p->b_g1.n, p->b_g1.offset, G1_BYTES},
                 {CUZK_PARAMS_VEC_B_G2, "vector b_g2", p->b_g2.n, p->b_g2.offset, G2_BYTES}};
    uint8_t *buf = malloc((size_t)(CHECK_CHUNK * G2_BYTES));
    if (buf == NULL) return cuzk__fail(err, CUZK_ERR_NOMEM, "%s: no memory for a chunk", p->path);
    cuzk_status st = CUZK_OK;
    for (int k = 0; k < 5 && st == CUZK_OK; k++) {
        const unsigned bytes = vecs[k].bytes;
        for (uint64_t first = 0; first < vecs[k].n && st == CUZK_OK; first += CHECK_CHUNK) {
            uint64_t m = vecs[k].n - first < CHECK_CHUNK ? vecs[k].n - first : CHECK_CHUNK;
            st = cuzk_params_read_encoded(p, vecs[k].v, first, m, buf, err);
            if (st != CUZK_OK) break;
            int64_t bad = (int64_t)m;
#if defined(CUZK_HAVE_OPENMP)
#pragma omp parallel for schedule(dynamic, 256) reduction(min : bad)
#endif
            for (int64_t i = 0; i < (int64_t)m; i++) {
                if (i >= bad) continue;
                const uint8_t *enc = buf + (uint64_t)i * bytes;
                if (!(bytes == G1_BYTES ? g1_point_ok(enc) : g2_point_ok(enc))) bad = i;
            }
            if (bad < (int64_t)m)
                st = explain_point(p, vecs[k].v, vecs[k].name, vecs[k].offset,
                                   first + (uint64_t)bad, bytes, err);
        }
    }
    free(buf);
    return st;
}

