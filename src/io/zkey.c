/* zkey.c — snarkjs Groth16 .zkey reader (zkey.h; doc/formats.md, zkey). */
#include "io/zkey.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ec/encode.h"

/* The LEM bytes are the structs' memory image (see zkey.h). */
_Static_assert(sizeof(cuzk_g1_aff) == 96, "cuzk_g1_aff must be 12 packed words");
_Static_assert(sizeof(cuzk_g2_aff) == 192, "cuzk_g2_aff must be 24 packed words");

#define G1_BYTES 96u
#define G2_BYTES 192u

static const char *section_name(uint32_t id) {
    switch (id) {
    case CUZK_ZKEY_SEC_IC: return "IC";
    case CUZK_ZKEY_SEC_A: return "A";
    case CUZK_ZKEY_SEC_B1: return "B1";
    case CUZK_ZKEY_SEC_B2: return "B2";
    case CUZK_ZKEY_SEC_C: return "C";
    case CUZK_ZKEY_SEC_H: return "H";
    default: return "?";
    }
}

/* ---- point checks -------------------------------------------------------- */

static bool fp_canonical(const cuzk_fp *a) { return cuzk__lt_n(a->l, cuzk__fp_p, CUZK_FP_LIMBS); }

static cuzk_status g1_status(const cuzk_g1_aff *p, unsigned level) {
    if (!fp_canonical(&p->x) || !fp_canonical(&p->y)) return CUZK_ERR_NOT_CANONICAL;
    if (level & (CUZK_ZKEY_CHECK_CURVE | CUZK_ZKEY_CHECK_SUBGROUP))
        if (!cuzk_g1_aff_is_on_curve(p)) return CUZK_ERR_NOT_ON_CURVE;
    if (level & CUZK_ZKEY_CHECK_SUBGROUP)
        if (!cuzk_g1_aff_in_subgroup_var(p)) return CUZK_ERR_NOT_IN_SUBGROUP;
    return CUZK_OK;
}

static cuzk_status g2_status(const cuzk_g2_aff *p, unsigned level) {
    if (!fp_canonical(&p->x.c0) || !fp_canonical(&p->x.c1) || !fp_canonical(&p->y.c0) ||
        !fp_canonical(&p->y.c1))
        return CUZK_ERR_NOT_CANONICAL;
    if (level & (CUZK_ZKEY_CHECK_CURVE | CUZK_ZKEY_CHECK_SUBGROUP))
        if (!cuzk_g2_aff_is_on_curve(p)) return CUZK_ERR_NOT_ON_CURVE;
    if (level & CUZK_ZKEY_CHECK_SUBGROUP)
        if (!cuzk_g2_aff_in_subgroup_var(p)) return CUZK_ERR_NOT_IN_SUBGROUP;
    return CUZK_OK;
}

/*
 * Index of the first point that fails at this level, n if none. In parallel
 * every thread keeps the smallest bad index it saw (reduction min) and skips
 * indices above it; dynamic chunks are handed out in increasing order, so
 * the result is the same first bad point as the serial scan.
 */
#define DEFINE_FIRST_BAD(G, T)                                                         \
    static uint64_t G##_first_bad(const T *p, uint64_t n, unsigned level) {            \
        uint64_t first = n;                                                            \
        if (PAR_OK(level, n)) {                                                        \
            PAR_SCAN(G, p, n, level, first);                                           \
            return first;                                                              \
        }                                                                              \
        for (uint64_t i = 0; i < n; i++)                                               \
            if (G##_status(&p[i], level) != CUZK_OK) return i;                         \
        return n;                                                                      \
    }

#if defined(CUZK_HAVE_OPENMP) && CUZK_HAVE_OPENMP
#define PAR_OK(level, n) (((level)&CUZK_ZKEY_PARALLEL) && (n) > 64)
#define PAR_SCAN(G, p, n, level, first)                                                \
    do {                                                                               \
        int64_t nn = (int64_t)(n);                                                     \
        _Pragma("omp parallel for schedule(dynamic, 64) reduction(min : first)")       \
        for (int64_t i = 0; i < nn; i++)                                               \
            if ((uint64_t)i < first && G##_status(&(p)[i], level) != CUZK_OK)          \
                first = (uint64_t)i;                                                   \
    } while (0)
#else
#define PAR_OK(level, n) 0
#define PAR_SCAN(G, p, n, level, first) (void)0
#endif

DEFINE_FIRST_BAD(g1, cuzk_g1_aff)
DEFINE_FIRST_BAD(g2, cuzk_g2_aff)

static cuzk_status point_fail(const cuzk_zkey *zk, uint32_t id, uint64_t offset, uint64_t index,
                              uint64_t bytes, cuzk_status st, cuzk_error *err) {
    const char *why = st == CUZK_ERR_NOT_CANONICAL  ? "coordinate not canonical (>= p)"
                      : st == CUZK_ERR_NOT_ON_CURVE ? "point not on the curve"
                                                    : "point not in the prime-order subgroup";
    return cuzk__fail(err, st, "%s: offset %llu: section %u (%s) point %llu: %s", zk->file.path,
                      (unsigned long long)(offset + index * bytes), id, section_name(id),
                      (unsigned long long)index, why);
}

static cuzk_status check_g1_vec(const cuzk_zkey *zk, uint32_t id, const cuzk_zkey_g1_vec *v,
                                unsigned level, cuzk_error *err) {
    uint64_t i = g1_first_bad(v->p, v->n, level);
    if (i == v->n) return CUZK_OK;
    return point_fail(zk, id, v->offset, i, G1_BYTES, g1_status(&v->p[i], level), err);
}

static cuzk_status check_g2_vec(const cuzk_zkey *zk, uint32_t id, const cuzk_zkey_g2_vec *v,
                                unsigned level, cuzk_error *err) {
    uint64_t i = g2_first_bad(v->p, v->n, level);
    if (i == v->n) return CUZK_OK;
    return point_fail(zk, id, v->offset, i, G2_BYTES, g2_status(&v->p[i], level), err);
}

cuzk_status cuzk_zkey_check_points(const cuzk_zkey *zk, unsigned flags, cuzk_error *err) {
    cuzk_status st;
    if ((st = check_g1_vec(zk, CUZK_ZKEY_SEC_IC, &zk->ic, flags, err)) != CUZK_OK) return st;
    if ((st = check_g1_vec(zk, CUZK_ZKEY_SEC_A, &zk->a, flags, err)) != CUZK_OK) return st;
    if ((st = check_g1_vec(zk, CUZK_ZKEY_SEC_B1, &zk->b1, flags, err)) != CUZK_OK) return st;
    if ((st = check_g2_vec(zk, CUZK_ZKEY_SEC_B2, &zk->b2, flags, err)) != CUZK_OK) return st;
    if ((st = check_g1_vec(zk, CUZK_ZKEY_SEC_C, &zk->c, flags, err)) != CUZK_OK) return st;
    return check_g1_vec(zk, CUZK_ZKEY_SEC_H, &zk->h, flags, err);
}

/* ---- sections ------------------------------------------------------------ */

/* One point section: what the header implies, then what open found. */
typedef struct {
    uint32_t id;
    unsigned g2;            /* G2 points (192 bytes) rather than G1 (96) */
    uint64_t n;             /* points the header implies */
    const char *count_desc; /* how n follows from the header, for messages */
    const uint8_t *raw;     /* the file bytes */
    uint64_t offset;        /* their file offset */
    const uint64_t *p;      /* host-layout points (the copy or the file bytes) */
    void *owned;            /* the copy to free, or NULL */
} zkey_points;

/* Size check of a point section: exactly n points. */
static cuzk_status points_locate(cuzk_zkey *zk, zkey_points *q, cuzk_error *err) {
    const uint64_t bytes = q->g2 ? G2_BYTES : G1_BYTES;
    const cuzk_binfile_section *s;
    char what[32];
    snprintf(what, sizeof(what), "%s points", section_name(q->id));
    cuzk_status st = cuzk_binfile_require(&zk->file, q->id, what, &s, err);
    if (st != CUZK_OK) return st;
    /* n < 2^33 and bytes <= 192: the product fits in 64 bits. */
    if (s->size != q->n * bytes)
        return cuzk__fail(err, CUZK_ERR_BAD_LENGTH,
                          "%s: offset %llu: section %u (%s) has %llu bytes, expected %llu "
                          "(%s = %llu points of %llu bytes)",
                          zk->file.path, (unsigned long long)s->offset, q->id, section_name(q->id),
                          (unsigned long long)s->size, (unsigned long long)(q->n * bytes),
                          q->count_desc, (unsigned long long)q->n, (unsigned long long)bytes);
    q->raw = cuzk_binfile_payload(&zk->file, s);
    q->offset = s->offset;
    return CUZK_OK;
}

/* The points in host layout (aliased, or copied when the section is not
 * 8-byte aligned), and with check set their canonical check (level 0). */
static cuzk_status points_load(const cuzk_zkey *zk, zkey_points *q, int check, cuzk_error *err) {
    if (q->n == 0) return CUZK_OK;
    const uint64_t bytes = q->g2 ? G2_BYTES : G1_BYTES;
    cuzk_status st = cuzk__binfile_words(&zk->file, q->raw, q->n * bytes, &q->p, &q->owned, err);
    if (st != CUZK_OK || !check) return st;
    uint64_t i = q->g2 ? g2_first_bad((const cuzk_g2_aff *)(const void *)q->p, q->n, 0)
                       : g1_first_bad((const cuzk_g1_aff *)(const void *)q->p, q->n, 0);
    if (i == q->n) return CUZK_OK;
    return point_fail(zk, q->id, q->offset, i, bytes, CUZK_ERR_NOT_CANONICAL, err);
}

static void points_g1_vec(cuzk_zkey_g1_vec *v, const zkey_points *q) {
    v->p = (const cuzk_g1_aff *)(const void *)q->p;
    v->n = q->n;
    v->raw = q->raw;
    v->offset = q->offset;
    v->owned = q->owned;
}

static void points_g2_vec(cuzk_zkey_g2_vec *v, const zkey_points *q) {
    v->p = (const cuzk_g2_aff *)(const void *)q->p;
    v->n = q->n;
    v->raw = q->raw;
    v->offset = q->offset;
    v->owned = q->owned;
}

static cuzk_status read_protocol(cuzk_zkey *zk, cuzk_error *err) {
    const cuzk_binfile_section *s;
    cuzk_status st = cuzk_binfile_require(&zk->file, CUZK_ZKEY_SEC_PROTOCOL, "protocol", &s, err);
    if (st != CUZK_OK) return st;
    cuzk_binfile_cursor c;
    cuzk_binfile_cursor_init(&c, &zk->file, s);
    if ((st = cuzk_binfile_read_u32(&c, &zk->protocol, "protocol", err)) != CUZK_OK) return st;
    if ((st = cuzk_binfile_cursor_done(&c, err)) != CUZK_OK) return st;
    if (zk->protocol != 1)
        return cuzk__fail(err, CUZK_ERR_UNSUPPORTED,
                          "%s: offset %llu: section 1: protocol %u (%s) not supported; cuzk "
                          "reads Groth16 (1) keys",
                          zk->file.path, (unsigned long long)s->offset, zk->protocol,
                          zk->protocol == 2    ? "PLONK"
                          : zk->protocol == 10 ? "FFLONK"
                                               : "unknown");
    return CUZK_OK;
}

static cuzk_status header_point_fail(const cuzk_zkey *zk, uint64_t off, const char *name,
                                     cuzk_status st, cuzk_error *err) {
    return cuzk__fail(err, st, "%s: offset %llu: section 2: header point %s: %s", zk->file.path,
                      (unsigned long long)off, name, cuzk_strerror(st));
}

static cuzk_status read_g1_header(cuzk_zkey *zk, cuzk_binfile_cursor *c, cuzk_g1_aff *r,
                                  const char *name, cuzk_error *err) {
    const uint8_t *b;
    uint64_t off = c->pos;
    cuzk_status st = cuzk_binfile_read_bytes(c, &b, G1_BYTES, name, err);
    if (st != CUZK_OK) return st;
    st = cuzk_g1_from_snarkjs(r, b, 0);
    return st == CUZK_OK ? st : header_point_fail(zk, off, name, st, err);
}

static cuzk_status read_g2_header(cuzk_zkey *zk, cuzk_binfile_cursor *c, cuzk_g2_aff *r,
                                  const char *name, cuzk_error *err) {
    const uint8_t *b;
    uint64_t off = c->pos;
    cuzk_status st = cuzk_binfile_read_bytes(c, &b, G2_BYTES, name, err);
    if (st != CUZK_OK) return st;
    st = cuzk_g2_from_snarkjs(r, b, 0);
    return st == CUZK_OK ? st : header_point_fail(zk, off, name, st, err);
}

static cuzk_status read_header(cuzk_zkey *zk, cuzk_error *err) {
    const char *path = zk->file.path;
    const cuzk_binfile_section *s;
    cuzk_status st = cuzk_binfile_require(&zk->file, CUZK_ZKEY_SEC_HEADER, "Groth16 header", &s, err);
    if (st != CUZK_OK) return st;
    cuzk_binfile_cursor c;
    cuzk_binfile_cursor_init(&c, &zk->file, s);
    const uint8_t *b;
    uint64_t off;
    if ((st = cuzk_binfile_read_u32(&c, &zk->n8q, "n8q", err)) != CUZK_OK) return st;
    off = c.pos;
    if ((st = cuzk_binfile_read_bytes(&c, &b, zk->n8q, "q", err)) != CUZK_OK) return st;
    if ((st = cuzk__binfile_check_prime(&zk->file, 2, off, b, zk->n8q, true, err)) != CUZK_OK)
        return st;
    cuzk__load_le64_n(zk->q, b, CUZK_FP_LIMBS);
    if ((st = cuzk_binfile_read_u32(&c, &zk->n8r, "n8r", err)) != CUZK_OK) return st;
    off = c.pos;
    if ((st = cuzk_binfile_read_bytes(&c, &b, zk->n8r, "r", err)) != CUZK_OK) return st;
    if ((st = cuzk__binfile_check_prime(&zk->file, 2, off, b, zk->n8r, false, err)) != CUZK_OK)
        return st;
    cuzk__load_le64_n(zk->r, b, CUZK_FR_LIMBS);
    off = c.pos;
    if ((st = cuzk_binfile_read_u32(&c, &zk->n_vars, "nVars", err)) != CUZK_OK) return st;
    if ((st = cuzk_binfile_read_u32(&c, &zk->n_public, "nPublic", err)) != CUZK_OK) return st;
    if ((st = cuzk_binfile_read_u32(&c, &zk->domain_size, "domainSize", err)) != CUZK_OK)
        return st;
    if ((uint64_t)zk->n_public + 1 > zk->n_vars)
        return cuzk__fail(err, CUZK_ERR_BAD_ENCODING,
                          "%s: offset %llu: section 2: nPublic = %u needs nVars >= %llu, got %u",
                          path, (unsigned long long)off, zk->n_public,
                          (unsigned long long)zk->n_public + 1, zk->n_vars);
    uint32_t n = zk->domain_size;
    /* omega_2n must exist: 2n <= 2^32 (two-adicity of r - 1 is 32). */
    if (n == 0 || (n & (n - 1)) != 0 || n > (1u << 31))
        return cuzk__fail(err, CUZK_ERR_BAD_ENCODING,
                          "%s: offset %llu: section 2: domainSize = %u is not a power of two in "
                          "[1, 2^31]",
                          path, (unsigned long long)(off + 8), n);
    if (n <= zk->n_public)
        return cuzk__fail(err, CUZK_ERR_BAD_ENCODING,
                          "%s: offset %llu: section 2: domainSize = %u must exceed nPublic = %u "
                          "(one public row per signal 0..nPublic)",
                          path, (unsigned long long)(off + 8), n, zk->n_public);
    zk->log_domain_size = 0;
    while ((1u << zk->log_domain_size) < n) zk->log_domain_size++;
    if ((st = read_g1_header(zk, &c, &zk->alpha1, "alpha1", err)) != CUZK_OK) return st;
    if ((st = read_g1_header(zk, &c, &zk->beta1, "beta1", err)) != CUZK_OK) return st;
    if ((st = read_g2_header(zk, &c, &zk->beta2, "beta2", err)) != CUZK_OK) return st;
    if ((st = read_g2_header(zk, &c, &zk->gamma2, "gamma2", err)) != CUZK_OK) return st;
    if ((st = read_g1_header(zk, &c, &zk->delta1, "delta1", err)) != CUZK_OK) return st;
    if ((st = read_g2_header(zk, &c, &zk->delta2, "delta2", err)) != CUZK_OK) return st;
    return cuzk_binfile_cursor_done(&c, err);
}

/* Section 4's record count against its size. */
static cuzk_status coefs_locate(cuzk_zkey *zk, cuzk_error *err) {
    const char *path = zk->file.path;
    const cuzk_binfile_section *s;
    cuzk_status st = cuzk_binfile_require(&zk->file, CUZK_ZKEY_SEC_COEFS, "coefficients", &s, err);
    if (st != CUZK_OK) return st;
    cuzk_binfile_cursor c;
    cuzk_binfile_cursor_init(&c, &zk->file, s);
    if ((st = cuzk_binfile_read_u32(&c, &zk->n_coefs, "coefficient count", err)) != CUZK_OK)
        return st;
    uint64_t need = (uint64_t)zk->n_coefs * CUZK_ZKEY_COEF_BYTES; /* < 2^38 */
    if (cuzk_binfile_cursor_left(&c) != need)
        return cuzk__fail(err, CUZK_ERR_BAD_LENGTH,
                          "%s: offset %llu: section 4: count = %u records need %llu bytes, the "
                          "section holds %llu after the count",
                          path, (unsigned long long)s->offset, zk->n_coefs,
                          (unsigned long long)need, (unsigned long long)cuzk_binfile_cursor_left(&c));
    zk->coef_bytes = zk->file.data + c.pos;
    return CUZK_OK;
}

/* Every record of section 4: matrix, constraint, signal in range, value < r;
 * n_rows from the largest constraint. */
static cuzk_status coefs_check(cuzk_zkey *zk, cuzk_error *err) {
    const char *path = zk->file.path;
    const uint64_t pos = (uint64_t)(zk->coef_bytes - zk->file.data);
    uint32_t rows = 0;
    for (uint32_t i = 0; i < zk->n_coefs; i++) {
        cuzk_zkey_coef e;
        cuzk_zkey_coef_get(zk, i, &e);
        unsigned long long at = (unsigned long long)(pos + (uint64_t)i * CUZK_ZKEY_COEF_BYTES);
        if (e.matrix > 1)
            return cuzk__fail(err, CUZK_ERR_BAD_ENCODING,
                              "%s: offset %llu: section 4 record %u: matrix %u (only 0 = A, "
                              "1 = B exist)",
                              path, at, i, e.matrix);
        if (e.constraint >= zk->domain_size)
            return cuzk__fail(err, CUZK_ERR_BAD_ENCODING,
                              "%s: offset %llu: section 4 record %u: constraint %u >= "
                              "domainSize %u",
                              path, at, i, e.constraint, zk->domain_size);
        if (e.signal >= zk->n_vars)
            return cuzk__fail(err, CUZK_ERR_BAD_ENCODING,
                              "%s: offset %llu: section 4 record %u: signal %u >= nVars %u",
                              path, at, i, e.signal, zk->n_vars);
        if (!cuzk__lt_n(e.value, cuzk__fr_r, CUZK_FR_LIMBS))
            return cuzk__fail(err, CUZK_ERR_NOT_CANONICAL,
                              "%s: offset %llu: section 4 record %u: non-canonical field "
                              "element (value >= r)",
                              path, at + 12, i);
        if (e.constraint + 1 > rows) rows = e.constraint + 1;
    }
    zk->n_rows = rows;
    return CUZK_OK;
}

/*
 * After the header: every size first (serially, so a wrong count in the header
 * is reported as the size disagreement it causes), then the memory-bound part
 * on OpenMP threads, one task per section: the copies of misaligned point
 * sections with their canonical checks, and the coefficient records. On a
 * 2-core VM this halves the open of a 22 MB key (doc/performance.md). Errors are
 * reported in a fixed order whatever the threads did: records, then the
 * sections in file order; the costlier curve/subgroup levels (and every
 * check under CUZK_ZKEY_PARALLEL, which spreads each section over all
 * threads) run afterwards.
 */
static cuzk_status zkey_parse(cuzk_zkey *zk, unsigned flags, cuzk_error *err) {
    cuzk_status st;
    zk->root = CUZK_NTT_ROOT5;
    zk->h_kind = CUZK_H_ODD_COSET_LAGRANGE;
    if ((st = read_protocol(zk, err)) != CUZK_OK) return st;
    if ((st = read_header(zk, err)) != CUZK_OK) return st;
    const uint64_t nv = zk->n_vars, np = zk->n_public;
    /* largest first, for the dynamic schedule below */
    zkey_points sec[6] = {
        {CUZK_ZKEY_SEC_B2, 1, nv, "nVars", NULL, 0, NULL, NULL},
        {CUZK_ZKEY_SEC_IC, 0, np + 1, "nPublic + 1", NULL, 0, NULL, NULL},
        {CUZK_ZKEY_SEC_A, 0, nv, "nVars", NULL, 0, NULL, NULL},
        {CUZK_ZKEY_SEC_B1, 0, nv, "nVars", NULL, 0, NULL, NULL},
        {CUZK_ZKEY_SEC_C, 0, nv - np - 1, "nVars - nPublic - 1", NULL, 0, NULL, NULL},
        {CUZK_ZKEY_SEC_H, 0, zk->domain_size, "domainSize", NULL, 0, NULL, NULL},
    };
    static const int file_order[6] = {1, 2, 3, 0, 4, 5}; /* ic, a, b1, b2, c, h */
    for (int k = 0; k < 6; k++)
        if ((st = points_locate(zk, &sec[file_order[k]], err)) != CUZK_OK) return st;
    if ((st = coefs_locate(zk, err)) != CUZK_OK) return st;

    const unsigned level =
        flags & (CUZK_ZKEY_CHECK_CURVE | CUZK_ZKEY_CHECK_SUBGROUP | CUZK_ZKEY_PARALLEL);
    /* the point checks inside the tasks (one thread per section) unless they
     * are costly or asked to spread each section over all threads */
    const int after =
        (level & (CUZK_ZKEY_CHECK_CURVE | CUZK_ZKEY_CHECK_SUBGROUP | CUZK_ZKEY_PARALLEL)) != 0;
    cuzk_status tst[7];
    cuzk_error terr[7];
#if defined(CUZK_HAVE_OPENMP) && CUZK_HAVE_OPENMP
#pragma omp parallel for schedule(dynamic, 1)
#endif
    for (int t = 0; t < 7; t++) {
        cuzk__error_clear(&terr[t]);
        tst[t] = t == 6 ? coefs_check(zk, &terr[t]) : points_load(zk, &sec[t], !after, &terr[t]);
    }
    /* the vectors own their copies from here on (close frees them) */
    points_g2_vec(&zk->b2, &sec[0]);
    points_g1_vec(&zk->ic, &sec[1]);
    points_g1_vec(&zk->a, &sec[2]);
    points_g1_vec(&zk->b1, &sec[3]);
    points_g1_vec(&zk->c, &sec[4]);
    points_g1_vec(&zk->h, &sec[5]);
    const int report[7] = {6, 1, 2, 3, 0, 4, 5}; /* records, then file order */
    for (int k = 0; k < 7; k++)
        if (tst[report[k]] != CUZK_OK) {
            if (err) *err = terr[report[k]];
            return tst[report[k]];
        }
    return after ? cuzk_zkey_check_points(zk, level, err) : CUZK_OK;
}

cuzk_status cuzk_zkey_open(cuzk_zkey *zk, const char *path, unsigned flags, cuzk_error *err) {
    memset(zk, 0, sizeof(*zk));
    cuzk_status st = cuzk_binfile_open(&zk->file, path, "zkey", 1, 2, err);
    if (st == CUZK_OK) st = zkey_parse(zk, flags, err);
    if (st != CUZK_OK) cuzk_zkey_close(zk);
    return st;
}

cuzk_status cuzk_zkey_open_mem(cuzk_zkey *zk, const void *data, size_t size, const char *name,
                               unsigned flags, cuzk_error *err) {
    memset(zk, 0, sizeof(*zk));
    cuzk_status st = cuzk_binfile_open_mem(&zk->file, data, size, name, "zkey", 1, 2, err);
    if (st == CUZK_OK) st = zkey_parse(zk, flags, err);
    if (st != CUZK_OK) cuzk_zkey_close(zk);
    return st;
}

void cuzk_zkey_close(cuzk_zkey *zk) {
    if (zk == NULL) return;
    free(zk->ic.owned);
    free(zk->a.owned);
    free(zk->b1.owned);
    free(zk->b2.owned);
    free(zk->c.owned);
    free(zk->h.owned);
    cuzk_binfile_close(&zk->file);
    memset(zk, 0, sizeof(*zk));
}
