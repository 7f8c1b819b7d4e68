/* params.c — bellman/Filecoin .params and .vk reader and writer (params.h;
 * doc/formats.md, bellman .params and .vk). */
#include "io/params.h"
#include "util/mem.h"

#include "util/mapfile.h"
#include "util/atomic_write.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ec/encode.h"

#if defined(CUZK_HAVE_OPENMP) && CUZK_HAVE_OPENMP
#define HAVE_OMP 1
#else
#define HAVE_OMP 0
#endif

#define G1_BYTES 96u
#define G2_BYTES 192u
#define FP_BYTES 48u

#define ZC_COMPRESSED 0x80u
#define ZC_INFINITY 0x40u
#define ZC_LARGEST 0x20u

/* Decode levels (internal): flags and canonical coordinates are always
 * checked. */
#define LVL_CURVE CUZK_PARAMS_CHECK_CURVE
#define LVL_SUBGROUP CUZK_PARAMS_CHECK_SUBGROUP
#define LVL_FULL (LVL_CURVE | LVL_SUBGROUP)

/* Below this many points a vector is decoded on the calling thread even
 * with CUZK_PARAMS_PARALLEL (the fork costs more than the work). */
#define PAR_MIN_POINTS 256u

static uint32_t load_be32(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static void store_be32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static bool all_zero(const uint8_t *in, size_t n) {
    uint8_t acc = 0;
    for (size_t i = 0; i < n; i++) acc |= in[i];
    return acc == 0;
}

/* ---- point decoding (uncompressed zcash, infinity refused) --------------- */

/* Flag byte of an uncompressed point: 0x80 and 0x20 must be clear; 0x40
 * (infinity) needs every other bit of the encoding zero, and is then
 * refused as infinity, not as bad encoding. */
static cuzk_status zc_flags(const uint8_t *in, size_t len) {
    unsigned b0 = in[0];
    if (b0 & ZC_INFINITY) {
        if (b0 != ZC_INFINITY || !all_zero(in + 1, len - 1)) return CUZK_ERR_BAD_ENCODING;
        return CUZK_ERR_POINT_AT_INFINITY;
    }
    if (b0 & (ZC_COMPRESSED | ZC_LARGEST)) return CUZK_ERR_BAD_ENCODING;
    return CUZK_OK;
}

/* Cost: flags, 2 big-endian -> Montgomery conversions (one Montgomery
 * multiplication each); curve: 1S + 2M; subgroup: the endomorphism test. */
static cuzk_status g1_decode(cuzk_g1_aff *r, const uint8_t *in, unsigned level) {
    cuzk_status st = zc_flags(in, G1_BYTES);
    if (st != CUZK_OK) return st;
    if (!cuzk_fp_from_bytes_be(&r->x, in) || !cuzk_fp_from_bytes_be(&r->y, in + FP_BYTES))
        return CUZK_ERR_NOT_CANONICAL;
    /* Unflagged (0, 0) is our in-memory infinity and not a curve point:
     * refuse it even when the curve check is off. */
    if (cuzk_g1_aff_is_inf(r)) return CUZK_ERR_NOT_ON_CURVE;
    if ((level & LVL_FULL) && !cuzk_g1_aff_is_on_curve(r)) return CUZK_ERR_NOT_ON_CURVE;
    if ((level & LVL_SUBGROUP) && !cuzk_g1_aff_in_subgroup_var(r)) return CUZK_ERR_NOT_IN_SUBGROUP;
    return CUZK_OK;
}

/* zcash Fp2: c1 then c0. */
static bool fp2_from_be(cuzk_fp2 *r, const uint8_t *in) {
    return cuzk_fp_from_bytes_be(&r->c1, in) && cuzk_fp_from_bytes_be(&r->c0, in + FP_BYTES);
}

static cuzk_status g2_decode(cuzk_g2_aff *r, const uint8_t *in, unsigned level) {
    cuzk_status st = zc_flags(in, G2_BYTES);
    if (st != CUZK_OK) return st;
    if (!fp2_from_be(&r->x, in) || !fp2_from_be(&r->y, in + 2 * FP_BYTES))
        return CUZK_ERR_NOT_CANONICAL;
    if (cuzk_g2_aff_is_inf(r)) return CUZK_ERR_NOT_ON_CURVE;
    if ((level & LVL_FULL) && !cuzk_g2_aff_is_on_curve(r)) return CUZK_ERR_NOT_ON_CURVE;
    if ((level & LVL_SUBGROUP) && !cuzk_g2_aff_in_subgroup_var(r)) return CUZK_ERR_NOT_IN_SUBGROUP;
    return CUZK_OK;
}

static const char *point_why(cuzk_status st) {
    switch (st) {
    case CUZK_ERR_BAD_ENCODING: return "bad flag bits for an uncompressed zcash point";
    case CUZK_ERR_NOT_CANONICAL: return "coordinate not canonical (>= p)";
    case CUZK_ERR_NOT_ON_CURVE: return "point not on the curve";
    case CUZK_ERR_NOT_IN_SUBGROUP: return "point not in the prime-order subgroup";
    case CUZK_ERR_POINT_AT_INFINITY:
        return "the point at infinity, which bellman refuses in parameter files";
    default: return cuzk_strerror(st);
    }
}

/*
 * Decodes n points of a vector into out and returns the index of the first
 * bad one (n if none). In parallel each thread keeps the smallest bad index
 * it saw (reduction min) and skips indices above it; chunks are handed out
 * in increasing order, so the answer is the serial scan's.
 */
#define DEFINE_DECODE_VEC(G, T, BYTES)                                                 \
    static uint64_t G##_decode_vec(T *out, const uint8_t *in, uint64_t n, unsigned level, \
                                   bool par) {                                         \
        uint64_t first = n;                                                            \
        if (par && n >= PAR_MIN_POINTS) {                                              \
            PAR_DECODE(G, out, in, n, BYTES, level, first);                            \
            return first;                                                              \
        }                                                                              \
        for (uint64_t i = 0; i < n; i++)                                               \
            if (G##_decode(&out[i], in + i * (BYTES), level) != CUZK_OK) return i;     \
        return n;                                                                      \
    }

#if HAVE_OMP
#define PAR_DECODE(G, out, in, n, BYTES, level, first)                                 \
    do {                                                                               \
        int64_t nn = (int64_t)(n);                                                     \
        _Pragma("omp parallel for schedule(dynamic, 64) reduction(min : first)")       \
        for (int64_t i = 0; i < nn; i++)                                               \
            if ((uint64_t)i < first &&                                                 \
                G##_decode(&(out)[i], (in) + (uint64_t)i * (BYTES), level) != CUZK_OK) \
                first = (uint64_t)i;                                                   \
    } while (0)
#else
/* Without OpenMP the serial loop below the call does the work. */
#define PAR_DECODE(G, out, in, n, BYTES, level, first)                                 \
    do {                                                                               \
        for (uint64_t i = 0; i < (n); i++)                                             \
            if (G##_decode(&(out)[i], (in) + i * (BYTES), level) != CUZK_OK) {         \
                (first) = i;                                                           \
                break;                                                                 \
            }                                                                          \
    } while (0)
#endif

DEFINE_DECODE_VEC(g1, cuzk_g1_aff, G1_BYTES)
DEFINE_DECODE_VEC(g2, cuzk_g2_aff, G2_BYTES)

/* ---- layout -------------------------------------------------------------- */

enum { PART_IC, PART_H, PART_L, PART_A, PART_B_G1, PART_B_G2, N_PARTS };

static const char *const part_name[N_PARTS] = {"IC", "vector h", "vector l", "vector a",
                                               "vector b_g1", "vector b_g2"};
static const unsigned part_bytes[N_PARTS] = {G1_BYTES, G1_BYTES, G1_BYTES,
                                             G1_BYTES, G1_BYTES, G2_BYTES};

typedef struct {
    uint64_t count_off; /* offset of the u32 count */
    uint64_t off;       /* offset of the first point */
    uint64_t n;
} part_loc;

typedef struct {
    const char *path;
    const uint8_t *d;
    uint64_t size;
    unsigned n_parts; /* 1 for a .vk, N_PARTS for a .params */
    part_loc part[N_PARTS];
} layout;

/* Walks the counts: every one checked against the bytes left before it is
 * used, so no later offset computation can overflow or run off the end. */
static cuzk_status read_layout(layout *lo, cuzk_error *err) {
    const char *path = lo->path;
    uint64_t size = lo->size;
    if (size < CUZK_PARAMS_VK_HEAD_BYTES)
        return cuzk__fail(err, CUZK_ERR_BAD_LENGTH,
                          "%s: truncated file: %llu bytes, the verifying key's six points need "
                          "%u",
                          path, (unsigned long long)size, CUZK_PARAMS_VK_HEAD_BYTES);
    uint64_t pos = CUZK_PARAMS_VK_HEAD_BYTES;
    for (unsigned k = 0; k < lo->n_parts; k++) {
        if (size - pos < 4)
            return cuzk__fail(err, CUZK_ERR_BAD_LENGTH,
                              "%s: offset %llu: truncated file: the count of %s needs 4 bytes, "
                              "%llu left",
                              path, (unsigned long long)pos, part_name[k],
                              (unsigned long long)(size - pos));
        uint32_t n = load_be32(lo->d + pos);
        uint64_t need = (uint64_t)n * part_bytes[k]; /* < 2^40 */
        uint64_t left = size - pos - 4;
        if (need > left)
            return cuzk__fail(err, CUZK_ERR_BAD_LENGTH,
                              "%s: offset %llu: %s: count %u needs %llu bytes (%u-byte points), "
                              "only %llu left (truncated file or corrupt count)",
                              path, (unsigned long long)pos, part_name[k], n,
                              (unsigned long long)need, part_bytes[k], (unsigned long long)left);
        lo->part[k].count_off = pos;
        lo->part[k].off = pos + 4;
        lo->part[k].n = n;
        pos += 4 + need;
    }
    if (pos != size)
        return cuzk__fail(err, CUZK_ERR_BAD_LENGTH,
                          "%s: offset %llu: %llu unexpected bytes after the %s (a %s has "
                          "nothing after it)",
                          path, (unsigned long long)pos, (unsigned long long)(size - pos),
                          part_name[lo->n_parts - 1],
                          lo->n_parts == 1 ? "verifying-key file" : "parameter file");
    return CUZK_OK;
}

/*
 * The shape rules of params.h on counts. count_off[k] locates part k's count
 * in the file for messages (NULL: the parameters are in memory, being
 * written).
 */
static cuzk_status check_shape(const char *path, const uint64_t n[N_PARTS],
                               const uint64_t *count_off, unsigned n_parts, cuzk_error *err) {
    char at[N_PARTS][48];
    for (unsigned k = 0; k < N_PARTS; k++) {
        if (count_off != NULL && k < n_parts)
            snprintf(at[k], sizeof(at[k]), " offset %llu:", (unsigned long long)count_off[k]);
        else
            at[k][0] = '\0';
    }
    if (n[PART_IC] == 0)
        return cuzk__fail(err, CUZK_ERR_BAD_ENCODING,
                          "%s:%s IC is empty; it needs at least the point for the constant "
                          "input 1",
                          path, at[PART_IC]);
    if (n_parts == 1) return CUZK_OK;
    uint64_t dom = n[PART_H] + 1, n_ic = n[PART_IC], nl = n[PART_L];
    if ((dom & (dom - 1)) != 0)
        return cuzk__fail(err, CUZK_ERR_BAD_ENCODING,
                          "%s:%s vector h has %llu points; bellman writes N - 1 for a "
                          "power-of-two domain N",
                          path, at[PART_H], (unsigned long long)n[PART_H]);
    if (dom < n_ic)
        return cuzk__fail(err, CUZK_ERR_BAD_ENCODING,
                          "%s:%s vector h has %llu points: a domain of %llu cannot hold the "
                          "rows of %llu inputs",
                          path, at[PART_H], (unsigned long long)n[PART_H],
                          (unsigned long long)dom, (unsigned long long)n_ic);
    if (n[PART_A] < n_ic || n[PART_A] > n_ic + nl)
        return cuzk__fail(err, CUZK_ERR_BAD_ENCODING,
                          "%s:%s vector a has %llu points; with %llu inputs (dense in A) and "
                          "%llu aux variables it must have %llu to %llu",
                          path, at[PART_A], (unsigned long long)n[PART_A],
                          (unsigned long long)n_ic, (unsigned long long)nl,
                          (unsigned long long)n_ic, (unsigned long long)(n_ic + nl));
    if (n[PART_B_G1] > n_ic + nl)
        return cuzk__fail(err, CUZK_ERR_BAD_ENCODING,
                          "%s:%s vector b_g1 has %llu points, more than the %llu variables",
                          path, at[PART_B_G1], (unsigned long long)n[PART_B_G1],
                          (unsigned long long)(n_ic + nl));
    if (n[PART_B_G2] != n[PART_B_G1])
        return cuzk__fail(err, CUZK_ERR_BAD_ENCODING,
                          "%s:%s vector b_g2 has %llu points, vector b_g1 %llu; both follow "
                          "the same B density",
                          path, at[PART_B_G2], (unsigned long long)n[PART_B_G2],
                          (unsigned long long)n[PART_B_G1]);
    return CUZK_OK;
}

static cuzk_status point_fail(const char *path, uint64_t off, const char *part, uint64_t index,
                              cuzk_status st, cuzk_error *err) {
    return cuzk__fail(err, st, "%s: offset %llu: %s point %llu: %s", path,
                      (unsigned long long)off, part, (unsigned long long)index, point_why(st));
}

static cuzk_status head_fail(const char *path, uint64_t off, const char *name, cuzk_status st,
                             cuzk_error *err) {
    return cuzk__fail(err, st, "%s: offset %llu: verifying key %s: %s", path,
                      (unsigned long long)off, name, point_why(st));
}

static cuzk_status alloc_points(void **p, uint64_t n, unsigned bytes, const char *path,
                                const char *part, cuzk_error *err) {
    *p = NULL;
    if (n == 0) return CUZK_OK;
    if (n > (uint64_t)SIZE_MAX / bytes ||
        (*p = malloc((size_t)n * bytes)) == NULL)
        return cuzk__fail(err, CUZK_ERR_NOMEM, "%s: out of memory for %s (%llu points, %llu bytes)",
                          path, part, (unsigned long long)n, (unsigned long long)n * bytes);
    return CUZK_OK;
}

static cuzk_status decode_g1_part(const layout *lo, unsigned k, unsigned level, bool par,
                                  cuzk_g1_aff **out, cuzk_error *err) {
    const part_loc *pl = &lo->part[k];
    void *m;
    cuzk_status st = alloc_points(&m, pl->n, G1_BYTES, lo->path, part_name[k], err);
    if (st != CUZK_OK) return st;
    *out = m;
    const uint8_t *in = lo->d + pl->off;
    uint64_t bad = g1_decode_vec(*out, in, pl->n, level, par);
    if (bad == pl->n) return CUZK_OK;
    cuzk_g1_aff t;
    st = g1_decode(&t, in + bad * G1_BYTES, level);
    return point_fail(lo->path, pl->off + bad * G1_BYTES, part_name[k], bad, st, err);
}

static cuzk_status decode_g2_part(const layout *lo, unsigned k, unsigned level, bool par,
                                  cuzk_g2_aff **out, cuzk_error *err) {
    const part_loc *pl = &lo->part[k];
    void *m;
    cuzk_status st = alloc_points(&m, pl->n, G2_BYTES, lo->path, part_name[k], err);
    if (st != CUZK_OK) return st;
    *out = m;
    const uint8_t *in = lo->d + pl->off;
    uint64_t bad = g2_decode_vec(*out, in, pl->n, level, par);
    if (bad == pl->n) return CUZK_OK;
    cuzk_g2_aff t;
    st = g2_decode(&t, in + bad * G2_BYTES, level);
    return point_fail(lo->path, pl->off + bad * G2_BYTES, part_name[k], bad, st, err);
}

/* The vk head and IC, always fully checked. */
static cuzk_status read_vk(const layout *lo, cuzk_params_vk *vk, bool par, cuzk_error *err) {
    static const char *const names[6] = {"alpha_g1", "beta_g1",  "beta_g2",
                                         "gamma_g2", "delta_g1", "delta_g2"};
    const uint8_t *d = lo->d;
    uint64_t off = 0;
    for (unsigned i = 0; i < 6; i++) {
        bool g2 = i == 2 || i == 3 || i == 5;
        cuzk_status st;
        switch (i) {
        case 0: st = g1_decode(&vk->alpha1, d + off, LVL_FULL); break;
        case 1: st = g1_decode(&vk->beta1, d + off, LVL_FULL); break;
        case 2: st = g2_decode(&vk->beta2, d + off, LVL_FULL); break;
        case 3: st = g2_decode(&vk->gamma2, d + off, LVL_FULL); break;
        case 4: st = g1_decode(&vk->delta1, d + off, LVL_FULL); break;
        default: st = g2_decode(&vk->delta2, d + off, LVL_FULL); break;
        }
        if (st != CUZK_OK) return head_fail(lo->path, off, names[i], st, err);
        off += g2 ? G2_BYTES : G1_BYTES;
    }
    vk->n_ic = lo->part[PART_IC].n;
    return decode_g1_part(lo, PART_IC, LVL_FULL, par, &vk->ic, err);
}

/* ---- mapping (src/util/mapfile.h) ---------------------------------------- */

typedef cuzk__mapped mapping;

static const uint8_t empty_file[1] = {0};

static cuzk_status map_file(mapping *m, const char *path, cuzk_error *err) {
    return cuzk__map_file(m, path, 0, err);
}

static void unmap_file(mapping *m) {
    cuzk__unmap_file(m->map, m->map_size);
    memset(m, 0, sizeof(*m));
}

/* ---- open ---------------------------------------------------------------- */

static cuzk_status params_parse(cuzk_params *p, const uint8_t *d, uint64_t size, unsigned flags,
                                cuzk_error *err) {
    layout lo;
    memset(&lo, 0, sizeof(lo));
    lo.path = p->path;
    lo.d = d;
    lo.size = size;
    lo.n_parts = N_PARTS;
    cuzk_status st = read_layout(&lo, err);
    if (st != CUZK_OK) return st;
    uint64_t n[N_PARTS], co[N_PARTS];
    for (unsigned k = 0; k < N_PARTS; k++) {
        n[k] = lo.part[k].n;
        co[k] = lo.part[k].count_off;
    }
    if ((st = check_shape(p->path, n, co, N_PARTS, err)) != CUZK_OK) return st;
    bool par = (flags & CUZK_PARAMS_PARALLEL) != 0;
    const bool defer = (flags & CUZK_PARAMS_DEFER_POINTS) != 0;
    unsigned level = flags & LVL_FULL;
    if ((st = read_vk(&lo, &p->vk, par, err)) != CUZK_OK) return st;
    cuzk_params_g1_vec *g1v[4] = {&p->h, &p->l, &p->a, &p->b_g1};
    for (unsigned k = PART_H; k <= PART_B_G1; k++) {
        cuzk_params_g1_vec *v = g1v[k - PART_H];
        v->n = lo.part[k].n;
        v->offset = lo.part[k].off;
        if (!defer && (st = decode_g1_part(&lo, k, level, par, &v->p, err)) != CUZK_OK)
            return st;
    }
    p->b_g2.n = lo.part[PART_B_G2].n;
    p->b_g2.offset = lo.part[PART_B_G2].off;
    if (!defer && (st = decode_g2_part(&lo, PART_B_G2, level, par, &p->b_g2.p, err)) != CUZK_OK)
        return st;
    p->domain_size = p->h.n + 1;
    p->log_domain_size = 0;
    while ((1ull << p->log_domain_size) < p->domain_size) p->log_domain_size++;
    p->n_inputs = p->vk.n_ic;
    p->n_aux = p->l.n;
    p->root = CUZK_NTT_ROOT7;
    p->h_kind = CUZK_H_MONOMIAL;
    return CUZK_OK;
}

cuzk_status cuzk_params_open_mem(cuzk_params *p, const void *data, size_t size, const char *name,
                                 unsigned flags, cuzk_error *err) {
    memset(p, 0, sizeof(*p));
    cuzk__error_clear(err);
    if (name == NULL) name = "(memory)";
    if (data == NULL && size != 0)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "%s: NULL data", name);
    if (flags & CUZK_PARAMS_DEFER_POINTS)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                          "%s: deferred points need a file (the buffer is only borrowed)", name);
    p->path = cuzk__strdup(name);
    if (p->path == NULL) return cuzk__fail(err, CUZK_ERR_NOMEM, "%s: out of memory", name);
    cuzk_status st = params_parse(p, size ? (const uint8_t *)data : empty_file, size, flags, err);
    if (st != CUZK_OK) cuzk_params_close(p);
    return st;
}

cuzk_status cuzk_params_open(cuzk_params *p, const char *path, unsigned flags, cuzk_error *err) {
    memset(p, 0, sizeof(*p));
    cuzk__error_clear(err);
    if (path == NULL) return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "cuzk_params_open: NULL path");
    const bool defer = (flags & CUZK_PARAMS_DEFER_POINTS) != 0;
    if (defer && (flags & LVL_FULL))
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                          "%s: deferred points are checked by their reader, not at open", path);
    p->path = cuzk__strdup(path);
    if (p->path == NULL) return cuzk__fail(err, CUZK_ERR_NOMEM, "%s: out of memory", path);
    mapping m;
    cuzk_status st = cuzk__map_file(&m, path, defer ? CUZK__MAP_KEEP_FD : 0, err);
    if (st == CUZK_OK) {
        st = params_parse(p, m.data, m.size, flags, err);
        if (defer) { /* the descriptor outlives the mapping: the readers pread it */
            p->fd = m.fd;
            p->deferred = true;
        }
        unmap_file(&m);
    }
    if (st != CUZK_OK) cuzk_params_close(p);
    return st;
}

/* Where vector v lives: its location, point size and name. */
static cuzk_status deferred_vec(const char *who, const cuzk_params *p, cuzk_params_vec v,
                                uint64_t first, uint64_t count, uint64_t *off, unsigned *bytes,
                                unsigned *part, cuzk_error *err) {
    if (p == NULL || !p->deferred)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                          "%s: parameters not opened with deferred points", who);
    if ((unsigned)v > CUZK_PARAMS_VEC_B_G2)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "%s: %s: no vector %u", who, p->path,
                          (unsigned)v);
    const uint64_t n[5] = {p->h.n, p->l.n, p->a.n, p->b_g1.n, p->b_g2.n};
    const uint64_t o[5] = {p->h.offset, p->l.offset, p->a.offset, p->b_g1.offset,
                           p->b_g2.offset};
    *part = PART_H + (unsigned)v;
    *bytes = part_bytes[*part];
    if (first > n[v] || count > n[v] - first)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                          "%s: %s: points [%llu, +%llu) outside its %llu points", p->path,
                          part_name[*part], (unsigned long long)first,
                          (unsigned long long)count, (unsigned long long)n[v]);
    *off = o[v] + first * *bytes;
    return CUZK_OK;
}

cuzk_status cuzk_params_read_encoded(const cuzk_params *p, cuzk_params_vec v, uint64_t first,
                                     uint64_t count, void *dst, cuzk_error *err) {
    uint64_t off = 0;
    unsigned bytes = 0, part = 0;
    cuzk_status st =
        deferred_vec("cuzk_params_read_encoded", p, v, first, count, &off, &bytes, &part, err);
    if (st != CUZK_OK) return st;
    uint8_t *d = dst;
    uint64_t left = count * bytes;
    while (left > 0) {
        const size_t step = left > ((size_t)1 << 30) ? (size_t)1 << 30 : (size_t)left;
        const ssize_t got = pread(p->fd, d, step, (off_t)off);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0)
            return cuzk__fail(err, CUZK_ERR_IO, "%s: offset %llu: %s: cannot read: %s", p->path,
                              (unsigned long long)off, part_name[part],
                              got < 0 ? strerror(errno) : "the file is shorter than at open");
        d += got;
        off += (uint64_t)got;
        left -= (uint64_t)got;
    }
    return CUZK_OK;
}

cuzk_status cuzk_params_point_check(const cuzk_params *p, cuzk_params_vec v, uint64_t index,
                                    cuzk_error *err) {
    uint64_t off = 0;
    unsigned bytes = 0, part = 0;
    cuzk_status st =
        deferred_vec("cuzk_params_point_check", p, v, index, 1, &off, &bytes, &part, err);
    if (st != CUZK_OK) return st;
    uint8_t enc[G2_BYTES];
    if ((st = cuzk_params_read_encoded(p, v, index, 1, enc, err)) != CUZK_OK) return st;
    if (bytes == G1_BYTES) {
        cuzk_g1_aff t;
        st = g1_decode(&t, enc, LVL_CURVE);
    } else {
        cuzk_g2_aff t;
        st = g2_decode(&t, enc, LVL_CURVE);
    }
    if (st == CUZK_OK) return CUZK_OK;
    return point_fail(p->path, off, part_name[part], index, st, err);
}

void cuzk_params_close(cuzk_params *p) {
    if (p == NULL) return;
    if (p->deferred) close(p->fd);
    cuzk_params_vk_free(&p->vk);
    free(p->h.p);
    free(p->l.p);
    free(p->a.p);
    free(p->b_g1.p);
    free(p->b_g2.p);
    free(p->path);
    memset(p, 0, sizeof(*p));
}

static cuzk_status vk_parse(cuzk_params_vk *vk, const char *path, const uint8_t *d, uint64_t size,
                            unsigned flags, cuzk_error *err) {
    layout lo;
    memset(&lo, 0, sizeof(lo));
    lo.path = path;
    lo.d = d;
    lo.size = size;
    lo.n_parts = 1;
    cuzk_status st = read_layout(&lo, err);
    if (st != CUZK_OK) return st;
    uint64_t n[N_PARTS] = {lo.part[PART_IC].n, 0, 0, 0, 0, 0};
    uint64_t co[N_PARTS] = {lo.part[PART_IC].count_off, 0, 0, 0, 0, 0};
    if ((st = check_shape(path, n, co, 1, err)) != CUZK_OK) return st;
    return read_vk(&lo, vk, (flags & CUZK_PARAMS_PARALLEL) != 0, err);
}

cuzk_status cuzk_params_vk_open_mem(cuzk_params_vk *vk, const void *data, size_t size,
                                    const char *name, unsigned flags, cuzk_error *err) {
    memset(vk, 0, sizeof(*vk));
    cuzk__error_clear(err);
    if (name == NULL) name = "(memory)";
    if (data == NULL && size != 0)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "%s: NULL data", name);
    cuzk_status st =
        vk_parse(vk, name, size ? (const uint8_t *)data : empty_file, size, flags, err);
    if (st != CUZK_OK) cuzk_params_vk_free(vk);
    return st;
}

cuzk_status cuzk_params_vk_open(cuzk_params_vk *vk, const char *path, unsigned flags,
                                cuzk_error *err) {
    memset(vk, 0, sizeof(*vk));
    cuzk__error_clear(err);
    if (path == NULL)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "cuzk_params_vk_open: NULL path");
    mapping m;
    cuzk_status st = map_file(&m, path, err);
    if (st == CUZK_OK) {
        st = vk_parse(vk, path, m.data, m.size, flags, err);
        unmap_file(&m);
    }
    if (st != CUZK_OK) cuzk_params_vk_free(vk);
    return st;
}

void cuzk_params_vk_free(cuzk_params_vk *vk) {
    if (vk == NULL) return;
    free(vk->ic);
    memset(vk, 0, sizeof(*vk));
}

cuzk_status cuzk_params_vk_copy(cuzk_params_vk *out, const cuzk_params_vk *vk, cuzk_error *err) {
    memset(out, 0, sizeof(*out));
    *out = *vk;
    out->ic = NULL;
    void *m;
    cuzk_status st = alloc_points(&m, vk->n_ic, G1_BYTES, "verifying key", "IC", err);
    if (st != CUZK_OK) {
        memset(out, 0, sizeof(*out));
        return st;
    }
    out->ic = m;
    if (vk->n_ic) memcpy(out->ic, vk->ic, (size_t)vk->n_ic * G1_BYTES);
    return CUZK_OK;
}

/* ---- writing ------------------------------------------------------------- */

/* Where encoded bytes go: a memory buffer or a stdio stream. */
typedef struct {
    uint8_t *mem;
    uint64_t cap, pos;
    FILE *f;
    const char *path;
} sink;

static cuzk_status sink_put(sink *s, const uint8_t *b, size_t n, cuzk_error *err) {
    if (s->f != NULL) {
        if (n && fwrite(b, 1, n, s->f) != n)
            return cuzk__fail(err, CUZK_ERR_IO, "%s: write failed at offset %llu: %s", s->path,
                              (unsigned long long)s->pos, strerror(errno));
    } else {
        if (n > s->cap - s->pos)
            return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                              "%s: output buffer too small (%llu bytes)", s->path,
                              (unsigned long long)s->cap);
        memcpy(s->mem + s->pos, b, n);
    }
    s->pos += n;
    return CUZK_OK;
}

static cuzk_status sink_u32(sink *s, uint64_t v, const char *part, cuzk_error *err) {
    if (v > UINT32_MAX)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                          "%s: %s has %llu points; the format's u32 count allows at most %u",
                          s->path, part, (unsigned long long)v, UINT32_MAX);
    uint8_t b[4];
    store_be32(b, (uint32_t)v);
    return sink_put(s, b, 4, err);
}

/* Points per encoding chunk: 32768 G2 points are 6 MiB of scratch; big
 * chunks keep the number of OpenMP fork/joins (one per chunk) small. */
#define CHUNK_POINTS 32768u

/*
 * Encodes n points (G1 if g1, else G2) through a chunk buffer. Infinity is
 * refused (the reader would refuse the file). Each point costs two (G1) or
 * four (G2) Montgomery -> big-endian conversions.
 */
static cuzk_status sink_points(sink *s, const void *pts, uint64_t n, bool g1, const char *part,
                               bool par, uint8_t *buf, cuzk_error *err) {
    unsigned bytes = g1 ? G1_BYTES : G2_BYTES;
    for (uint64_t base = 0; base < n; base += CHUNK_POINTS) {
        uint64_t m = n - base < CHUNK_POINTS ? n - base : CHUNK_POINTS;
        uint64_t first = m;
#if HAVE_OMP
        if (par && m >= PAR_MIN_POINTS) {
            int64_t mm = (int64_t)m;
#pragma omp parallel for schedule(static) reduction(min : first)
            for (int64_t j = 0; j < mm; j++) {
                uint64_t i = base + (uint64_t)j;
                if (g1) {
                    const cuzk_g1_aff *q = (const cuzk_g1_aff *)pts + i;
                    if (cuzk_g1_aff_is_inf(q) && (uint64_t)j < first) first = (uint64_t)j;
                    cuzk_g1_to_zcash_uncompressed(buf + (uint64_t)j * bytes, q);
                } else {
                    const cuzk_g2_aff *q = (const cuzk_g2_aff *)pts + i;
                    if (cuzk_g2_aff_is_inf(q) && (uint64_t)j < first) first = (uint64_t)j;
                    cuzk_g2_to_zcash_uncompressed(buf + (uint64_t)j * bytes, q);
                }
            }
        } else
#endif
        {
            (void)par;
            for (uint64_t j = 0; j < m && first == m; j++) {
                uint64_t i = base + j;
                if (g1) {
                    const cuzk_g1_aff *q = (const cuzk_g1_aff *)pts + i;
                    if (cuzk_g1_aff_is_inf(q)) first = j;
                    cuzk_g1_to_zcash_uncompressed(buf + j * bytes, q);
                } else {
                    const cuzk_g2_aff *q = (const cuzk_g2_aff *)pts + i;
                    if (cuzk_g2_aff_is_inf(q)) first = j;
                    cuzk_g2_to_zcash_uncompressed(buf + j * bytes, q);
                }
            }
        }
        if (first != m)
            return cuzk__fail(err, CUZK_ERR_POINT_AT_INFINITY,
                              "%s: %s point %llu is the point at infinity, which bellman "
                              "refuses in parameter files",
                              s->path, part, (unsigned long long)(base + first));
        cuzk_status st = sink_put(s, buf, (size_t)(m * bytes), err);
        if (st != CUZK_OK) return st;
    }
    return CUZK_OK;
}

static cuzk_status sink_vk(sink *s, const cuzk_params_vk *vk, uint8_t *buf, cuzk_error *err) {
    static const char *const names[6] = {"alpha_g1", "beta_g1",  "beta_g2",
                                         "gamma_g2", "delta_g1", "delta_g2"};
    const cuzk_g1_aff *g1[3] = {&vk->alpha1, &vk->beta1, &vk->delta1};
    const cuzk_g2_aff *g2[3] = {&vk->beta2, &vk->gamma2, &vk->delta2};
    static const int order[6] = {0, 1, -1, -2, 2, -3}; /* >= 0: g1[k], < 0: g2[-k-1] */
    uint64_t n[N_PARTS] = {vk->n_ic, 0, 0, 0, 0, 0};
    cuzk_status st = check_shape(s->path, n, NULL, 1, err);
    if (st != CUZK_OK) return st;
    for (unsigned i = 0; i < 6; i++) {
        int k = order[i];
        bool inf;
        if (k >= 0) {
            inf = cuzk_g1_aff_is_inf(g1[k]);
            cuzk_g1_to_zcash_uncompressed(buf, g1[k]);
        } else {
            inf = cuzk_g2_aff_is_inf(g2[-k - 1]);
            cuzk_g2_to_zcash_uncompressed(buf, g2[-k - 1]);
        }
        if (inf)
            return cuzk__fail(err, CUZK_ERR_POINT_AT_INFINITY,
                              "%s: verifying key %s is the point at infinity", s->path, names[i]);
        if ((st = sink_put(s, buf, k >= 0 ? G1_BYTES : G2_BYTES, err)) != CUZK_OK) return st;
    }
    if ((st = sink_u32(s, vk->n_ic, "IC", err)) != CUZK_OK) return st;
    return sink_points(s, vk->ic, vk->n_ic, true, "IC", false, buf, err);
}

static cuzk_status sink_params(sink *s, const cuzk_params *p, bool par, uint8_t *buf,
                               cuzk_error *err) {
    uint64_t n[N_PARTS] = {p->vk.n_ic, p->h.n, p->l.n, p->a.n, p->b_g1.n, p->b_g2.n};
    cuzk_status st = check_shape(s->path, n, NULL, N_PARTS, err);
    if (st != CUZK_OK) return st;
    if ((st = sink_vk(s, &p->vk, buf, err)) != CUZK_OK) return st;
    const cuzk_params_g1_vec *g1v[4] = {&p->h, &p->l, &p->a, &p->b_g1};
    for (unsigned k = PART_H; k <= PART_B_G1; k++) {
        const cuzk_params_g1_vec *v = g1v[k - PART_H];
        if ((st = sink_u32(s, v->n, part_name[k], err)) != CUZK_OK) return st;
        if ((st = sink_points(s, v->p, v->n, true, part_name[k], par, buf, err)) != CUZK_OK)
            return st;
    }
    if ((st = sink_u32(s, p->b_g2.n, part_name[PART_B_G2], err)) != CUZK_OK) return st;
    return sink_points(s, p->b_g2.p, p->b_g2.n, false, part_name[PART_B_G2], par, buf, err);
}

uint64_t cuzk_params_vk_encoded_size(const cuzk_params_vk *vk) {
    return CUZK_PARAMS_VK_HEAD_BYTES + 4 + vk->n_ic * G1_BYTES;
}

uint64_t cuzk_params_encoded_size(const cuzk_params *p) {
    return cuzk_params_vk_encoded_size(&p->vk) + 5 * 4 +
           (p->h.n + p->l.n + p->a.n + p->b_g1.n) * G1_BYTES + p->b_g2.n * G2_BYTES;
}

static cuzk_status encode_common(uint8_t *out, size_t cap, const cuzk_params_vk *vk,
                                 const cuzk_params *p, bool par, cuzk_error *err) {
    cuzk__error_clear(err);
    uint64_t need = p ? cuzk_params_encoded_size(p) : cuzk_params_vk_encoded_size(vk);
    if (out == NULL || cap < need)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                          "(memory): output buffer of %zu bytes, the encoding needs %llu", cap,
                          (unsigned long long)need);
    uint8_t *buf = malloc((size_t)CHUNK_POINTS * G2_BYTES);
    if (buf == NULL) return cuzk__fail(err, CUZK_ERR_NOMEM, "(memory): out of memory");
    sink s = {out, cap, 0, NULL, "(memory)"};
    cuzk_status st = p ? sink_params(&s, p, par, buf, err) : sink_vk(&s, vk, buf, err);
    free(buf);
    return st;
}

cuzk_status cuzk_params_vk_encode(uint8_t *out, size_t cap, const cuzk_params_vk *vk,
                                  cuzk_error *err) {
    return encode_common(out, cap, vk, NULL, false, err);
}

cuzk_status cuzk_params_require_points(const cuzk_params *p, const char *who, cuzk_error *err) {
    if (p != NULL && p->deferred)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                          "%s: opened with deferred points, which only a GPU key reads; %s "
                          "needs them decoded",
                          p->path ? p->path : "(params)", who);
    return CUZK_OK;
}

cuzk_status cuzk_params_encode(uint8_t *out, size_t cap, const cuzk_params *p, unsigned flags,
                               cuzk_error *err) {
    cuzk_status st = cuzk_params_require_points(p, "the encoder", err);
    if (st != CUZK_OK) return st;
    return encode_common(out, cap, NULL, p, (flags & CUZK_PARAMS_PARALLEL) != 0, err);
}

/* Encodes the vk, or p with its vectors, into o's stream. */
static cuzk_status write_out(cuzk__out *o, const cuzk_params_vk *vk, const cuzk_params *p,
                             bool par, cuzk_error *err) {
    uint8_t *buf = malloc((size_t)CHUNK_POINTS * G2_BYTES);
    if (buf == NULL) return cuzk__fail(err, CUZK_ERR_NOMEM, "%s: out of memory", cuzk__out_path(o));
    sink s = {NULL, 0, 0, cuzk__out_file(o), cuzk__out_path(o)};
    cuzk_status st = p ? sink_params(&s, p, par, buf, err) : sink_vk(&s, vk, buf, err);
    free(buf);
    return st;
}

/* A set of one (util/atomic_write.h): a failed or interrupted write never
 * leaves a truncated file under the final name. */
static cuzk_status write_common(const char *path, const cuzk_params_vk *vk, const cuzk_params *p,
                                bool par, cuzk_error *err) {
    cuzk__error_clear(err);
    if (path == NULL) return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "NULL path");
    cuzk__outset set;
    cuzk__out *o;
    cuzk__outset_init(&set);
    cuzk_status st = cuzk__outset_add(&set, &o, path, err);
    if (st == CUZK_OK) st = write_out(o, vk, p, par, err);
    if (st == CUZK_OK) return cuzk__outset_commit(&set, err);
    cuzk__outset_abort(&set);
    return st;
}

cuzk_status cuzk__params_vk_write_out(cuzk__out *o, const cuzk_params_vk *vk, cuzk_error *err) {
    return write_out(o, vk, NULL, false, err);
}

cuzk_status cuzk__params_write_out(cuzk__out *o, const cuzk_params *p, unsigned flags,
                                   cuzk_error *err) {
    cuzk_status st = cuzk_params_require_points(p, "the writer", err);
    if (st != CUZK_OK) return st;
    return write_out(o, NULL, p, (flags & CUZK_PARAMS_PARALLEL) != 0, err);
}

cuzk_status cuzk_params_vk_write(const char *path, const cuzk_params_vk *vk, cuzk_error *err) {
    return write_common(path, vk, NULL, false, err);
}

cuzk_status cuzk_params_write(const char *path, const cuzk_params *p, unsigned flags,
                              cuzk_error *err) {
    cuzk_status st = cuzk_params_require_points(p, "the writer", err);
    if (st != CUZK_OK) return st;
    return write_common(path, NULL, p, (flags & CUZK_PARAMS_PARALLEL) != 0, err);
}
