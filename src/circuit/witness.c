/* witness.c — our witness file and witness -> a, b, c (witness.h; doc/formats.md §2). */
#include "circuit/witness.h"
#include "util/atomic_write.h"
#include "util/mem.h"
#include "util/mapfile.h"

#include <stdlib.h>
#include <string.h>

#if defined(CUZK_HAVE_OPENMP)
#include <omp.h>
#endif

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define HOST_LE 1
#else
#define HOST_LE 0
#endif

typedef unsigned long long ull;

static uint64_t ld64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
    return v;
}
static void st64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* Bytes of a witness with these counts, or 0 on overflow. */
static uint64_t witness_size(uint64_t n_inputs, uint64_t n_aux) {
    uint64_t n, b, s;
    if (__builtin_add_overflow(n_inputs, n_aux, &n) || __builtin_mul_overflow(n, 32, &b) ||
        __builtin_add_overflow(b, CUZK_WITNESS_HEADER_BYTES, &s))
        return 0;
    return s;
}

static bool is_one_plain(const uint64_t *v) {
    return v[0] == 1 && v[1] == 0 && v[2] == 0 && v[3] == 0;
}

/* The first value >= r among n, or n; parallel. */
static uint64_t first_noncanonical(const uint64_t *v, uint64_t n) {
    int64_t sn = (int64_t)n, best = sn;
#if defined(CUZK_HAVE_OPENMP)
#pragma omp parallel for schedule(static) reduction(min : best)
#endif
    for (int64_t i = 0; i < sn; i++)
        if (i < best && !cuzk__lt_n(v + 4 * i, cuzk__fr_r, CUZK_FR_LIMBS)) best = i;
    return (uint64_t)best;
}

static cuzk_status validate(cuzk_witness *w, cuzk_error *err) {
    const char *path = w->path;
    const uint8_t *d = w->image;
    if (!HOST_LE)
        return cuzk__fail(err, CUZK_ERR_UNSUPPORTED,
                          "%s: witness files are read on little-endian hosts only", path);
    if (w->size < CUZK_WITNESS_HEADER_BYTES)
        return cuzk__fail(err, CUZK_ERR_BAD_LENGTH,
                          "%s: truncated file: %llu bytes, the header needs %u", path,
                          (ull)w->size, CUZK_WITNESS_HEADER_BYTES);
    if (memcmp(d, CUZK_WITNESS_MAGIC, 8) != 0)
        return cuzk__fail(err, CUZK_ERR_BAD_ENCODING,
                          "%s: offset 0: wrong magic, expected \"%s\" (not a cuzk witness file)",
                          path, CUZK_WITNESS_MAGIC);
    w->version = (uint32_t)ld64(d + 8);
    w->flags = (uint32_t)(ld64(d + 8) >> 32);
    if (w->version != CUZK_WITNESS_VERSION)
        return cuzk__fail(err, CUZK_ERR_UNSUPPORTED,
                          "%s: offset 8: witness file version %u not supported (expected %u)",
                          path, w->version, CUZK_WITNESS_VERSION);
    if (w->flags != 0)
        return cuzk__fail(err, CUZK_ERR_UNSUPPORTED,
                          "%s: offset 12: unknown flags 0x%x (this reader knows none)", path,
                          w->flags);
    w->n_inputs = ld64(d + 16);
    w->n_aux = ld64(d + 24);
    if (w->n_inputs == 0)
        return cuzk__fail(err, CUZK_ERR_BAD_ENCODING,
                          "%s: offset 16: n_inputs = 0 (input 0 is the constant ONE)", path);
    uint64_t need = witness_size(w->n_inputs, w->n_aux);
    if (need == 0)
        return cuzk__fail(err, CUZK_ERR_BAD_ENCODING,
                          "%s: offset 16: n_inputs %llu + n_aux %llu overflow 64-bit sizes "
                          "(corrupt header)",
                          path, (ull)w->n_inputs, (ull)w->n_aux);
    if (w->size < need)
        return cuzk__fail(err, CUZK_ERR_BAD_LENGTH,
                          "%s: truncated file: %llu bytes, %llu inputs + %llu aux need %llu",
                          path, (ull)w->size, (ull)w->n_inputs, (ull)w->n_aux, (ull)need);
    if (w->size > need)
        return cuzk__fail(err, CUZK_ERR_BAD_LENGTH,
                          "%s: offset %llu: %llu trailing bytes after %llu inputs + %llu aux",
                          path, (ull)need, (ull)(w->size - need), (ull)w->n_inputs,
                          (ull)w->n_aux);
    w->values = (const uint64_t *)(const void *)(d + CUZK_WITNESS_HEADER_BYTES);
    uint64_t n = w->n_inputs + w->n_aux, bad = first_noncanonical(w->values, n);
    if (bad < n)
        return cuzk__fail(err, CUZK_ERR_NOT_CANONICAL,
                          "%s: offset %llu: non-canonical field element (%s %llu is >= r)", path,
                          (ull)(CUZK_WITNESS_HEADER_BYTES + 32 * bad),
                          bad < w->n_inputs ? "input" : "aux",
                          (ull)(bad < w->n_inputs ? bad : bad - w->n_inputs));
    if (!is_one_plain(w->values))
        return cuzk__fail(err, CUZK_ERR_BAD_ENCODING,
                          "%s: offset %u: input 0 must be 1 (the constant ONE)", path,
                          CUZK_WITNESS_HEADER_BYTES);
    return CUZK_OK;
}

void cuzk_witness_close(cuzk_witness *w) {
    if (w == NULL) return;
    cuzk__unmap_file(w->map, w->map_size);
    free(w->owned);
    free(w->path);
    memset(w, 0, sizeof(*w));
}

cuzk_status cuzk_witness_open_mem(cuzk_witness *w, const void *data, size_t size,
                                  const char *name, cuzk_error *err) {
    memset(w, 0, sizeof(*w));
    if (name == NULL) name = "(memory)";
    if (data == NULL && size != 0)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "%s: NULL buffer", name);
    w->path = cuzk__strdup(name);
    if (w->path == NULL) return cuzk__fail(err, CUZK_ERR_NOMEM, "%s: out of memory", name);
    cuzk_status vst = cuzk__aligned_view(&w->image, &w->owned, data, size, name, err);
    if (vst != CUZK_OK) {
        cuzk_witness_close(w);
        return vst;
    }
    w->size = size;
    cuzk_status st = validate(w, err);
    if (st != CUZK_OK) cuzk_witness_close(w);
    return st;
}

cuzk_status cuzk__witness_adopt(cuzk_witness *w, void *buf, size_t size, const char *name,
                                cuzk_error *err) {
    memset(w, 0, sizeof(*w));
    w->owned = buf; /* malloc's alignment covers the limbs' */
    w->path = cuzk__strdup(name);
    if (w->path == NULL) {
        cuzk_witness_close(w);
        return cuzk__fail(err, CUZK_ERR_NOMEM, "%s: out of memory", name);
    }
    w->image = buf;
    w->size = size;
    const cuzk_status st = validate(w, err);
    if (st != CUZK_OK) cuzk_witness_close(w);
    return st;
}

cuzk_status cuzk_witness_open(cuzk_witness *w, const char *path, cuzk_error *err) {
    memset(w, 0, sizeof(*w));
    if (path == NULL) return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "cuzk_witness_open: no path");
    w->path = cuzk__strdup(path);
    if (w->path == NULL) return cuzk__fail(err, CUZK_ERR_NOMEM, "%s: out of memory", path);
    cuzk__mapped m;
    cuzk_status st = cuzk__map_file(&m, path, CUZK__MAP_BRIEF, err);
    if (st != CUZK_OK) goto fail;
    w->image = m.data;
    w->size = m.size;
    w->map = m.map;
    w->map_size = m.map_size;
    st = validate(w, err);
    if (st == CUZK_OK) return st;
fail:
    cuzk_witness_close(w);
    return st;
}

cuzk_status cuzk_witness_from_values(cuzk_witness *w, const uint64_t *values, uint64_t n_inputs,
                                     uint64_t n_aux, const char *name, cuzk_error *err) {
    memset(w, 0, sizeof(*w));
    if (name == NULL) name = "(witness)";
    uint64_t size = witness_size(n_inputs, n_aux);
    if (size == 0 || size > SIZE_MAX)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "%s: %llu inputs + %llu aux: too many",
                          name, (ull)n_inputs, (ull)n_aux);
    if (values == NULL)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "%s: no values", name);
    uint8_t *img = malloc((size_t)size);
    w->path = cuzk__strdup(name);
    if (img == NULL || w->path == NULL) {
        free(img);
        cuzk_witness_close(w);
        return cuzk__fail(err, CUZK_ERR_NOMEM, "%s: out of memory for %llu bytes", name,
                          (ull)size);
    }
    memcpy(img, CUZK_WITNESS_MAGIC, 8);
    st64(img + 8, CUZK_WITNESS_VERSION);
    st64(img + 16, n_inputs);
    st64(img + 24, n_aux);
    /* Little-endian host (validate refuses others): limbs are the bytes. */
    memcpy(img + CUZK_WITNESS_HEADER_BYTES, values, (size_t)(size - CUZK_WITNESS_HEADER_BYTES));
    w->owned = img;
    w->image = img;
    w->size = size;
    cuzk_status st = validate(w, err);
    if (st != CUZK_OK) cuzk_witness_close(w);
    return st;
}

cuzk_status cuzk_witness_from_wtns(cuzk_witness *w, const cuzk_circuit *c, const cuzk_wtns *src,
                                   cuzk_error *err) {
    memset(w, 0, sizeof(*w));
    const char *wp = src->file.path ? src->file.path : "(wtns)";
    if ((uint64_t)src->n_witness != cuzk_circuit_n_vars(c))
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                          "%s: %u witness values, but circuit %s has %llu inputs + %llu aux", wp,
                          src->n_witness, c->path, (ull)c->n_inputs, (ull)c->n_aux);
    if (src->n_witness == 0 || !is_one_plain(cuzk_wtns_value(src, 0)))
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                          "%s: w[0] must be 1 (wire 0 is the constant one)", wp);
    return cuzk_witness_from_values(w, src->values, c->n_inputs, c->n_aux, wp, err);
}

cuzk_status cuzk_witness_to_bytes(const cuzk_witness *w, uint8_t **out, size_t *n,
                                  cuzk_error *err) {
    *out = NULL;
    *n = 0;
    if (w->image == NULL || w->size < CUZK_WITNESS_HEADER_BYTES)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "cuzk_witness_to_bytes: no witness");
    uint8_t *b = malloc((size_t)w->size);
    if (b == NULL) return cuzk__fail(err, CUZK_ERR_NOMEM, "%s: out of memory", w->path);
    memcpy(b, w->image, (size_t)w->size);
    *out = b;
    *n = (size_t)w->size;
    return CUZK_OK;
}

cuzk_status cuzk_witness_write(const cuzk_witness *w, const char *path, cuzk_error *err) {
    if (w == NULL || w->image == NULL || w->size < CUZK_WITNESS_HEADER_BYTES || path == NULL)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "cuzk_witness_write: no witness or path");
    const cuzk__write_piece piece = {w->image, w->size};
    return cuzk__write_file_atomic(path, &piece, 1, err);
}

cuzk_status cuzk__witness_write_out(cuzk__out *o, const cuzk_witness *w, cuzk_error *err) {
    if (o == NULL || w == NULL || w->image == NULL || w->size < CUZK_WITNESS_HEADER_BYTES)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "cuzk_witness_write: no witness or output");
    return cuzk__out_write(o, w->image, w->size, err);
}

void cuzk_witness_to_mont(cuzk_fr *out, const cuzk_witness *w, unsigned threads) {
    int64_t n = (int64_t)cuzk_witness_n_vars(w);
    const uint64_t *v = w->values;
    int t = (int)cuzk_circuit_threads(threads);
    (void)t;
#if defined(CUZK_HAVE_OPENMP)
#pragma omp parallel for num_threads(t) schedule(static)
#endif
    for (int64_t i = 0; i < n; i++) cuzk_fr_from_limbs(&out[i], v + 4 * i);
}

cuzk_status cuzk_witness_abc_var(const cuzk_circuit *c, const cuzk_witness *w, cuzk_fr *a,
                                 cuzk_fr *b, cuzk_fr *cc, unsigned flags, unsigned threads,
                                 uint64_t *first_bad, cuzk_error *err) {
    if (first_bad != NULL) *first_bad = UINT64_MAX;
    if (w->n_inputs != c->n_inputs || w->n_aux != c->n_aux)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                          "%s: witness has %llu inputs + %llu aux, but circuit %s has %llu + %llu",
                          w->path, (ull)w->n_inputs, (ull)w->n_aux, c->path, (ull)c->n_inputs,
                          (ull)c->n_aux);
    uint64_t n = cuzk_witness_n_vars(w);
    cuzk_fr *wm = malloc((size_t)n * sizeof(cuzk_fr));
    if (wm == NULL)
        return cuzk__fail(err, CUZK_ERR_NOMEM, "%s: out of memory for %llu values", w->path,
                          (ull)n);
    cuzk_witness_to_mont(wm, w, threads);
    cuzk_status st = cuzk_circuit_abc_var(c, a, b, cc, wm, flags & CUZK_SPMV_DEFAULT, threads);
    free(wm);
    if (st != CUZK_OK)
        return cuzk__fail(err, st, "%s: cuzk_witness_abc_var: bad arguments", c->path);
    if (flags & CUZK_SPMV_NO_CHECK) return CUZK_OK;
    return cuzk_circuit_check_abc(c, a, b, cc, w->path, threads, first_bad, err);
}
