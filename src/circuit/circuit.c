/*
 * circuit.c — the circuit file (doc/formats.md §1): layout, checksum, reader,
 * builders, conversion from circom .r1cs, writer. The evaluator is spmv.c.
 */
#include "circuit/circuit.h"
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

unsigned cuzk_circuit_threads(unsigned threads) {
    if (threads != 0) return threads;
#if defined(CUZK_HAVE_OPENMP)
    int t = omp_get_max_threads();
    return t > 0 ? (unsigned)t : 1u;
#else
    return 1u;
#endif
}

static uint64_t ld64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
    return v;
}
static uint32_t ld32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static void st64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static void st32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static uint64_t words_of(uint64_t bits) { return bits / 64 + (bits % 64 != 0); }
static uint64_t popcount_words(const uint64_t *w, uint64_t n) {
    uint64_t s = 0;
    for (uint64_t i = 0; i < n; i++) s += (uint64_t)__builtin_popcountll(w[i]);
    return s;
}

/* ---- checksum: XXH64 ------------------------------------------------------
 * Written from the xxHash specification (doc/xxhash_spec.md of Cyan4973's
 * repository): four 64-bit lanes over 32-byte stripes, each word folded in as
 * acc = rotl(acc + w*P2, 31)*P1, then the lanes merged, the tail folded in by
 * 8, 4 and 1 bytes, and a final avalanche. Non-cryptographic: it detects
 * corruption and truncation, not an adversary (doc/formats.md §1.4 says why
 * that is enough). About 1 cycle per byte per core. */
#define XP1 0x9E3779B185EBCA87ULL
#define XP2 0xC2B2AE3D27D4EB4FULL
#define XP3 0x165667B19E3779F9ULL
#define XP4 0x85EBCA77C2B2AE63ULL
#define XP5 0x27D4EB2F165667C5ULL

static inline uint64_t rotl64(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }
static inline uint64_t xround(uint64_t acc, uint64_t w) {
    return rotl64(acc + w * XP2, 31) * XP1;
}
static inline uint64_t xmerge(uint64_t acc, uint64_t v) {
    return (acc ^ xround(0, v)) * XP1 + XP4;
}

uint64_t cuzk__xxh64(const void *data, size_t n, uint64_t seed) {
    const uint8_t *p = data, *end = p + n;
    uint64_t h;
    if (n >= 32) {
        uint64_t v1 = seed + XP1 + XP2, v2 = seed + XP2, v3 = seed, v4 = seed - XP1;
        const uint8_t *limit = end - 32;
        do {
            v1 = xround(v1, ld64(p));
            v2 = xround(v2, ld64(p + 8));
            v3 = xround(v3, ld64(p + 16));
            v4 = xround(v4, ld64(p + 24));
            p += 32;
        } while (p <= limit);
        h = rotl64(v1, 1) + rotl64(v2, 7) + rotl64(v3, 12) + rotl64(v4, 18);
        h = xmerge(h, v1);
        h = xmerge(h, v2);
        h = xmerge(h, v3);
        h = xmerge(h, v4);
    } else {
        h = seed + XP5;
    }
    h += (uint64_t)n;
    for (; end - p >= 8; p += 8) h = rotl64(h ^ xround(0, ld64(p)), 27) * XP1 + XP4;
    if (end - p >= 4) {
        h = rotl64(h ^ ((uint64_t)ld32(p) * XP1), 23) * XP2 + XP3;
        p += 4;
    }
    for (; p < end; p++) h = rotl64(h ^ (*p * XP5), 11) * XP1;
    h ^= h >> 33;
    h *= XP2;
    h ^= h >> 29;
    h *= XP3;
    h ^= h >> 32;
    return h;
}

/* Returns false when out of memory. */
static bool checksum_blocks(uint64_t *out, const uint8_t *data, uint64_t n, unsigned threads) {
    uint64_t nb = n / CUZK_CIRCUIT_BLOCK_BYTES + (n % CUZK_CIRCUIT_BLOCK_BYTES != 0);
    uint8_t *dig = malloc(nb ? nb * 8 : 1);
    if (dig == NULL) return false;
    int64_t snb = (int64_t)nb;
    (void)threads;
#if defined(CUZK_HAVE_OPENMP)
#pragma omp parallel for num_threads(cuzk_circuit_threads(threads)) schedule(dynamic, 4)
#endif
    for (int64_t i = 0; i < snb; i++) {
        uint64_t off = (uint64_t)i * CUZK_CIRCUIT_BLOCK_BYTES;
        uint64_t len = n - off < CUZK_CIRCUIT_BLOCK_BYTES ? n - off : CUZK_CIRCUIT_BLOCK_BYTES;
        st64(dig + 8 * i, cuzk__xxh64(data + off, (size_t)len, 0));
    }
    *out = cuzk__xxh64(dig, (size_t)(nb * 8), 0);
    free(dig);
    return true;
}

uint64_t cuzk__circuit_checksum(const uint8_t *data, uint64_t n, unsigned threads) {
    uint64_t h = 0;
    if (!checksum_blocks(&h, data, n, threads)) return 0;
    return h;
}

/* ---- layout ---------------------------------------------------------------- */

/* Header field offsets (doc/formats.md §1.2). */
enum {
    H_MAGIC = 0, H_VERSION = 8, H_FLAGS = 12, H_NCONS = 16, H_NIN = 24, H_NAUX = 32,
    H_DOMAIN = 40, H_NNZ = 48 /* A, B, C: 48, 56, 64 */, H_NVAL = 72,
    H_CNT = 80 /* a_aux, b_inp, b_aux popcounts: 80, 88, 96 */, H_SIZE = 104, H_RESERVED = 112
};

/* The parts in file order. */
enum {
    P_VALUES = 0, P_ROWPTR = 1 /* + 3*m */, P_COL = 2, P_VAL = 3, P_AAUX = 10, P_BINP = 11,
    P_BAUX = 12, P_TRAILER = 13, P_COUNT = 14
};
static const char *const part_name[P_COUNT] = {
    "value table", "A row pointers", "A columns", "A value indices",
    "B row pointers", "B columns", "B value indices", "C row pointers",
    "C columns", "C value indices", "a_aux bitmap", "b_inp bitmap",
    "b_aux bitmap", "checksum"};

typedef struct {
    uint64_t n_constraints, n_inputs, n_aux, nnz[3], n_values;
} counts;

typedef struct {
    uint64_t off[P_COUNT], len[P_COUNT];
    uint64_t size;
} layout;

static bool add_ck(uint64_t *r, uint64_t a, uint64_t b) { return !__builtin_add_overflow(a, b, r); }
static bool mul_ck(uint64_t *r, uint64_t a, uint64_t b) { return !__builtin_mul_overflow(a, b, r); }

/* Offsets and lengths of every part; false on 64-bit overflow. */
static bool layout_make(layout *L, const counts *k) {
    uint64_t len[P_COUNT];
    if (!mul_ck(&len[P_VALUES], k->n_values, CUZK_FR_BYTES)) return false;
    uint64_t rows;
    if (!add_ck(&rows, k->n_constraints, 1)) return false;
    for (int m = 0; m < 3; m++) {
        if (!mul_ck(&len[P_ROWPTR + 3 * m], rows, 8) || !mul_ck(&len[P_COL + 3 * m], k->nnz[m], 4) ||
            !mul_ck(&len[P_VAL + 3 * m], k->nnz[m], 4))
            return false;
    }
    len[P_AAUX] = words_of(k->n_aux) * 8;
    len[P_BINP] = words_of(k->n_inputs) * 8;
    len[P_BAUX] = words_of(k->n_aux) * 8;
    len[P_TRAILER] = 8;
    uint64_t pos = CUZK_CIRCUIT_HEADER_BYTES;
    for (int i = 0; i < P_COUNT; i++) {
        uint64_t a;
        if (!add_ck(&a, pos, CUZK_CIRCUIT_ALIGN - 1)) return false;
        a &= ~(uint64_t)(CUZK_CIRCUIT_ALIGN - 1);
        L->off[i] = a;
        L->len[i] = len[i];
        if (!add_ck(&pos, a, len[i])) return false;
    }
    L->size = pos;
    return true;
}

uint64_t cuzk_circuit_domain_for(uint64_t n_constraints, uint64_t n_inputs, unsigned *log2) {
    uint64_t rows;
    unsigned lg = 0;
    if (!add_ck(&rows, n_constraints, n_inputs)) return 0;
    while (lg <= CUZK_CIRCUIT_MAX_DOMAIN_LOG && ((uint64_t)1 << lg) < rows) lg++;
    if (lg > CUZK_CIRCUIT_MAX_DOMAIN_LOG) return 0;
    if (log2 != NULL) *log2 = lg;
    return (uint64_t)1 << lg;
}

/* Points c's fields at the image (header already checked or written). */
static void index_image(cuzk_circuit *c, const layout *L) {
    const uint8_t *d = c->image;
    c->version = ld32(d + H_VERSION);
    c->flags = ld32(d + H_FLAGS);
    c->n_constraints = ld64(d + H_NCONS);
    c->n_inputs = ld64(d + H_NIN);
    c->n_aux = ld64(d + H_NAUX);
    c->domain_size = ld64(d + H_DOMAIN);
    c->domain_log = 0;
    while (((uint64_t)1 << c->domain_log) < c->domain_size) c->domain_log++;
    c->n_values = ld64(d + H_NVAL);
    c->values = (const cuzk_fr *)(const void *)(d + L->off[P_VALUES]);
    for (int m = 0; m < 3; m++) {
        c->m[m].nnz = ld64(d + H_NNZ + 8 * m);
        c->m[m].row_ptr = (const uint64_t *)(const void *)(d + L->off[P_ROWPTR + 3 * m]);
        c->m[m].col = (const uint32_t *)(const void *)(d + L->off[P_COL + 3 * m]);
        c->m[m].val = (const uint32_t *)(const void *)(d + L->off[P_VAL + 3 * m]);
    }
    c->a_aux = (const uint64_t *)(const void *)(d + L->off[P_AAUX]);
    c->b_inp = (const uint64_t *)(const void *)(d + L->off[P_BINP]);
    c->b_aux = (const uint64_t *)(const void *)(d + L->off[P_BAUX]);
    c->a_aux_count = ld64(d + H_CNT);
    c->b_inp_count = ld64(d + H_CNT + 8);
    c->b_aux_count = ld64(d + H_CNT + 16);
    c->checksum = ld64(d + L->off[P_TRAILER]);
}

/*
 * Density of columns [lo, hi) of matrix m into out (words_of(hi - lo) words,
 * zeroed here): bit col - lo for every entry with lo <= col < hi. Threads
 * share the bitmap; a bit is tested before the atomic OR, since most
 * variables appear more than once.
 */
static void density(uint64_t *out, const uint32_t *col, uint64_t nnz, uint64_t lo, uint64_t hi,
                    unsigned threads) {
    memset(out, 0, (size_t)words_of(hi - lo) * 8);
    int64_t n = (int64_t)nnz;
    (void)threads;
#if defined(CUZK_HAVE_OPENMP)
#pragma omp parallel for num_threads(cuzk_circuit_threads(threads)) schedule(static)
#endif
    for (int64_t k = 0; k < n; k++) {
        uint64_t v = col[k];
        if (v < lo || v >= hi) continue;
        v -= lo;
        uint64_t bit = (uint64_t)1 << (v % 64), *w = &out[v / 64];
        if ((__atomic_load_n(w, __ATOMIC_RELAXED) & bit) == 0)
            __atomic_fetch_or(w, bit, __ATOMIC_RELAXED);
    }
}

/* ---- building an image ------------------------------------------------------ */

/*
 * Lays out and fills a fresh image from validated parts: the value table
 * (values[0..1] = +-1) and per matrix row pointers, columns and value
 * indices. Computes the density bitmaps and popcounts. Takes ownership of
 * nothing; copies.
 */
static cuzk_status image_create(cuzk_circuit *c, const counts *k, const cuzk_fr *values,
                                const uint64_t *const rp[3], const uint32_t *const col[3],
                                const uint32_t *const val[3], const char *name, cuzk_error *err) {
    layout L;
    unsigned lg;
    uint64_t dom = cuzk_circuit_domain_for(k->n_constraints, k->n_inputs, &lg);
    if (dom == 0)
        return cuzk__fail(err, CUZK_ERR_UNSUPPORTED,
                          "%s: %llu constraints + %llu inputs need a domain above 2^%u", name,
                          (ull)k->n_constraints, (ull)k->n_inputs, CUZK_CIRCUIT_MAX_DOMAIN_LOG);
    if (!layout_make(&L, k) || L.size > (uint64_t)SIZE_MAX)
        return cuzk__fail(err, CUZK_ERR_NOMEM, "%s: circuit too large for this machine", name);
    void *img = NULL;
    if (posix_memalign(&img, CUZK_CIRCUIT_ALIGN, (size_t)L.size) != 0 || img == NULL)
        return cuzk__fail(err, CUZK_ERR_NOMEM, "%s: out of memory for a %llu-byte circuit", name,
                          (ull)L.size);
    uint8_t *d = img;
    /* Zero what memcpy will not cover: header, padding, trailer. */
    memset(d, 0, CUZK_CIRCUIT_HEADER_BYTES);
    for (int i = 0; i < P_COUNT; i++) {
        uint64_t end = L.off[i] + L.len[i], next = i + 1 < P_COUNT ? L.off[i + 1] : L.size;
        memset(d + end, 0, (size_t)(next - end));
    }
    memset(d + L.off[P_TRAILER], 0, 8);
    memcpy(d, CUZK_CIRCUIT_MAGIC, 8);
    st32(d + H_VERSION, CUZK_CIRCUIT_VERSION);
    st32(d + H_FLAGS, 0);
    st64(d + H_NCONS, k->n_constraints);
    st64(d + H_NIN, k->n_inputs);
    st64(d + H_NAUX, k->n_aux);
    st64(d + H_DOMAIN, dom);
    for (int m = 0; m < 3; m++) st64(d + H_NNZ + 8 * m, k->nnz[m]);
    st64(d + H_NVAL, k->n_values);
    st64(d + H_SIZE, L.size);
    /* Host little-endian (checked by the callers): arrays copy as they are. */
    memcpy(d + L.off[P_VALUES], values, (size_t)L.len[P_VALUES]);
    for (int m = 0; m < 3; m++) {
        memcpy(d + L.off[P_ROWPTR + 3 * m], rp[m], (size_t)L.len[P_ROWPTR + 3 * m]);
        if (k->nnz[m]) {
            memcpy(d + L.off[P_COL + 3 * m], col[m], (size_t)L.len[P_COL + 3 * m]);
            memcpy(d + L.off[P_VAL + 3 * m], val[m], (size_t)L.len[P_VAL + 3 * m]);
        }
    }
    uint64_t nv = k->n_inputs + k->n_aux;
    uint64_t *aa = (uint64_t *)(void *)(d + L.off[P_AAUX]);
    uint64_t *bi = (uint64_t *)(void *)(d + L.off[P_BINP]);
    uint64_t *ba = (uint64_t *)(void *)(d + L.off[P_BAUX]);
    density(aa, col[0], k->nnz[0], k->n_inputs, nv, 0);
    density(bi, col[1], k->nnz[1], 0, k->n_inputs, 0);
    density(ba, col[1], k->nnz[1], k->n_inputs, nv, 0);
    st64(d + H_CNT, popcount_words(aa, words_of(k->n_aux)));
    st64(d + H_CNT + 8, popcount_words(bi, words_of(k->n_inputs)));
    st64(d + H_CNT + 16, popcount_words(ba, words_of(k->n_aux)));

    memset(c, 0, sizeof(*c));
    c->path = cuzk__strdup(name);
    if (c->path == NULL) {
        free(img);
        return cuzk__fail(err, CUZK_ERR_NOMEM, "%s: out of memory", name);
    }
    c->owned = img;
    c->image = img;
    c->size = L.size;
    index_image(c, &L);
    return CUZK_OK;
}

/* Checks the shape shared by both builders. */
static cuzk_status check_shape(uint64_t n_constraints, uint64_t n_inputs, uint64_t n_aux,
                               const char *name, cuzk_error *err) {
    if (!HOST_LE)
        return cuzk__fail(err, CUZK_ERR_UNSUPPORTED, "%s: circuits need a little-endian host",
                          name);
    if (n_inputs == 0)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                          "%s: n_inputs = 0; input 0 is the constant ONE", name);
    if (n_aux > ((uint64_t)1 << 32) - n_inputs || n_inputs > ((uint64_t)1 << 32))
        return cuzk__fail(err, CUZK_ERR_UNSUPPORTED,
                          "%s: %llu inputs + %llu aux exceed 2^32 variables (u32 columns)", name,
                          (ull)n_inputs, (ull)n_aux);
    if (cuzk_circuit_domain_for(n_constraints, n_inputs, NULL) == 0)
        return cuzk__fail(err, CUZK_ERR_UNSUPPORTED,
                          "%s: %llu constraints + %llu inputs need a domain above 2^%u", name,
                          (ull)n_constraints, (ull)n_inputs, CUZK_CIRCUIT_MAX_DOMAIN_LOG);
    return CUZK_OK;
}

static const char MAT[3] = {'A', 'B', 'C'};

static cuzk_status check_rows(const uint64_t *rp, uint64_t n_constraints, int m,
                              const char *name, cuzk_error *err) {
    if (rp == NULL)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "%s: matrix %c: no row pointers", name,
                          MAT[m]);
    if (rp[0] != 0)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "%s: matrix %c: row_ptr[0] = %llu, not 0",
                          name, MAT[m], (ull)rp[0]);
    for (uint64_t i = 0; i < n_constraints; i++)
        if (rp[i + 1] < rp[i])
            return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                              "%s: matrix %c: row_ptr decreases at row %llu (%llu -> %llu)", name,
                              MAT[m], (ull)i, (ull)rp[i], (ull)rp[i + 1]);
    if (rp[n_constraints] > UINT64_MAX / 32)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "%s: matrix %c: %llu entries", name, MAT[m],
                          (ull)rp[n_constraints]);
    return CUZK_OK;
}

/* Row holding entry k (row pointers already validated). */
static uint64_t row_of(const uint64_t *rp, uint64_t n_rows, uint64_t k) {
    uint64_t lo = 0, hi = n_rows; /* the row i with rp[i] <= k < rp[i+1] */
    while (hi - lo > 1) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (rp[mid] <= k)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

static cuzk_status check_cols(const uint64_t *rp, const uint32_t *col, uint64_t nnz,
                              uint64_t n_constraints, uint64_t nv, int m, const char *name,
                              cuzk_error *err) {
    if (nnz != 0 && col == NULL)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "%s: matrix %c: no columns", name, MAT[m]);
    for (uint64_t k = 0; k < nnz; k++)
        if (col[k] >= nv)
            return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                              "%s: matrix %c row %llu entry %llu: column %u >= n_inputs + n_aux "
                              "= %llu",
                              name, MAT[m], (ull)row_of(rp, n_constraints, k), (ull)k, col[k],
                              (ull)nv);
    return CUZK_OK;
}

cuzk_status cuzk_circuit_build_indexed(cuzk_circuit *c, uint64_t n_constraints,
                                       uint64_t n_inputs, uint64_t n_aux, const cuzk_fr *values,
                                       uint64_t n_values, const uint64_t *const row_ptr[3],
                                       const uint32_t *const col[3], const uint32_t *const val[3],
                                       const char *name, cuzk_error *err) {
    memset(c, 0, sizeof(*c));
    if (name == NULL) name = "(circuit)";
    cuzk_status st = check_shape(n_constraints, n_inputs, n_aux, name, err);
    if (st != CUZK_OK) return st;
    cuzk_fr m1;
    cuzk_fr_neg(&m1, &cuzk__fr_one);
    if (values == NULL || n_values < 2 || n_values > ((uint64_t)1 << 32) ||
        !cuzk_fr_is_one(&values[0]) || !cuzk_fr_eq(&values[1], &m1))
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                          "%s: the value table needs 2..2^32 entries starting with +1, -1", name);
    for (uint64_t i = 0; i < n_values; i++)
        if (!cuzk__lt_n(values[i].l, cuzk__fr_r, CUZK_FR_LIMBS))
            return cuzk__fail(err, CUZK_ERR_NOT_CANONICAL, "%s: value %llu is >= r", name,
                              (ull)i);
    counts k = {n_constraints, n_inputs, n_aux, {0, 0, 0}, n_values};
    for (int m = 0; m < 3; m++) {
        if ((st = check_rows(row_ptr[m], n_constraints, m, name, err)) != CUZK_OK) return st;
        k.nnz[m] = row_ptr[m][n_constraints];
        if ((st = check_cols(row_ptr[m], col[m], k.nnz[m], n_constraints, n_inputs + n_aux, m,
                             name, err)) != CUZK_OK)
            return st;
        if (k.nnz[m] != 0 && val[m] == NULL)
            return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "%s: matrix %c: no value indices", name,
                              MAT[m]);
        for (uint64_t e = 0; e < k.nnz[m]; e++)
            if (val[m][e] >= n_values)
                return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                                  "%s: matrix %c row %llu entry %llu: value index %u >= %llu",
                                  name, MAT[m], (ull)row_of(row_ptr[m], n_constraints, e),
                                  (ull)e, val[m][e], (ull)n_values);
    }
    return image_create(c, &k, values, row_ptr, col, val, name, err);
}

/* Open-addressing table from coefficient to value index (linear probing). */
typedef struct {
    uint32_t *slot; /* value index + 1, 0 = empty */
    uint64_t mask;
    cuzk_fr *values;
    uint64_t n;
} value_set;

static uint64_t value_hash(const cuzk_fr *v) {
    uint64_t h = v->l[0] ^ rotl64(v->l[1], 17) ^ rotl64(v->l[2], 31) ^ rotl64(v->l[3], 47);
    h *= 0x9E3779B97F4A7C15ULL;
    return h ^ (h >> 29);
}

static uint32_t value_index(value_set *s, const cuzk_fr *v) {
    uint64_t i = value_hash(v) & s->mask;
    for (;;) {
        uint32_t e = s->slot[i];
        if (e == 0) {
            s->values[s->n] = *v;
            s->slot[i] = (uint32_t)(s->n + 1);
            return (uint32_t)s->n++;
        }
        if (cuzk_fr_eq(&s->values[e - 1], v)) return e - 1;
        i = (i + 1) & s->mask;
    }
}

cuzk_status cuzk_circuit_build(cuzk_circuit *c, uint64_t n_constraints, uint64_t n_inputs,
                               uint64_t n_aux, const cuzk_circuit_matrix_in m[3],
                               const char *name, cuzk_error *err) {
    memset(c, 0, sizeof(*c));
    if (name == NULL) name = "(circuit)";
    cuzk_status st = check_shape(n_constraints, n_inputs, n_aux, name, err);
    if (st != CUZK_OK) return st;
    uint64_t total = 0, nnz[3];
    for (int j = 0; j < 3; j++) {
        if ((st = check_rows(m[j].row_ptr, n_constraints, j, name, err)) != CUZK_OK) return st;
        nnz[j] = m[j].row_ptr[n_constraints];
        if ((st = check_cols(m[j].row_ptr, m[j].col, nnz[j], n_constraints, n_inputs + n_aux, j,
                             name, err)) != CUZK_OK)
            return st;
        if (nnz[j] != 0 && m[j].coeff == NULL)
            return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "%s: matrix %c: no coefficients", name,
                              MAT[j]);
        for (uint64_t e = 0; e < nnz[j]; e++)
            if (!cuzk__lt_n(m[j].coeff[e].l, cuzk__fr_r, CUZK_FR_LIMBS))
                return cuzk__fail(err, CUZK_ERR_NOT_CANONICAL,
                                  "%s: matrix %c row %llu entry %llu: coefficient >= r", name,
                                  MAT[j], (ull)row_of(m[j].row_ptr, n_constraints, e), (ull)e);
        if (!add_ck(&total, total, nnz[j]) || total > SIZE_MAX / 64)
            return cuzk__fail(err, CUZK_ERR_NOMEM, "%s: too many entries", name);
    }
    /* Distinct values: at most total + 2, so indices fit u32 only if that
     * many; checked as they are assigned. */
    value_set s = {0};
    uint64_t cap = 16;
    while (cap < 2 * (total + 2)) cap *= 2;
    s.mask = cap - 1;
    s.slot = calloc((size_t)cap, sizeof(uint32_t));
    s.values = malloc((size_t)(total + 2) * sizeof(cuzk_fr));
    uint32_t *vals[3] = {NULL, NULL, NULL};
    for (int j = 0; j < 3; j++) vals[j] = malloc(nnz[j] ? (size_t)nnz[j] * 4 : 1);
    if (s.slot == NULL || s.values == NULL || vals[0] == NULL || vals[1] == NULL ||
        vals[2] == NULL) {
        st = cuzk__fail(err, CUZK_ERR_NOMEM, "%s: out of memory for %llu entries", name,
                        (ull)total);
        goto done;
    }
    cuzk_fr m1;
    cuzk_fr_neg(&m1, &cuzk__fr_one);
    (void)value_index(&s, &cuzk__fr_one);
    (void)value_index(&s, &m1);
    for (int j = 0; j < 3; j++)
        for (uint64_t e = 0; e < nnz[j]; e++) {
            if (s.n == ((uint64_t)1 << 32)) {
                st = cuzk__fail(err, CUZK_ERR_UNSUPPORTED,
                                "%s: more than 2^32 distinct coefficients", name);
                goto done;
            }
            vals[j][e] = value_index(&s, &m[j].coeff[e]);
        }
    {
        counts k = {n_constraints, n_inputs, n_aux, {nnz[0], nnz[1], nnz[2]}, s.n};
        const uint64_t *rp[3] = {m[0].row_ptr, m[1].row_ptr, m[2].row_ptr};
        const uint32_t *cl[3] = {m[0].col, m[1].col, m[2].col};
        const uint32_t *vl[3] = {vals[0], vals[1], vals[2]};
        st = image_create(c, &k, s.values, rp, cl, vl, name, err);
    }
done:
    free(s.slot);
    free(s.values);
    for (int j = 0; j < 3; j++) free(vals[j]);
    return st;
}

/* ---- conversion from circom .r1cs ------------------------------------------ */

cuzk_status cuzk_circuit_from_r1cs(cuzk_circuit *c, const cuzk_r1cs *r, cuzk_error *err) {
    memset(c, 0, sizeof(*c));
    const char *name = r->file.path;
    uint64_t n_in = 1 + (uint64_t)r->n_pub_out + r->n_pub_in; /* <= nWires: r1cs.c checks */
    uint64_t n_aux = (uint64_t)r->n_wires - n_in;
    uint64_t nc = r->n_constraints;
    uint64_t nnz[3] = {0, 0, 0};
    cuzk_r1cs_iter it;
    cuzk_r1cs_constraint k;
    cuzk_r1cs_iter_init(&it, r);
    while (cuzk_r1cs_iter_next(&it, &k)) {
        nnz[0] += k.a.n;
        nnz[1] += k.b.n;
        nnz[2] += k.c.n;
    }
    cuzk_circuit_matrix_in m[3];
    uint64_t *rp[3] = {NULL, NULL, NULL};
    uint32_t *col[3] = {NULL, NULL, NULL};
    cuzk_fr *cf[3] = {NULL, NULL, NULL};
    cuzk_status st = CUZK_OK;
    for (int j = 0; j < 3; j++) {
        /* Bounded by the .r1cs size: each term took 36 bytes there. */
        rp[j] = malloc((size_t)(nc + 1) * 8);
        col[j] = malloc(nnz[j] ? (size_t)nnz[j] * 4 : 1);
        cf[j] = malloc(nnz[j] ? (size_t)nnz[j] * sizeof(cuzk_fr) : 1);
        if (rp[j] == NULL || col[j] == NULL || cf[j] == NULL) {
            st = cuzk__fail(err, CUZK_ERR_NOMEM, "%s: out of memory converting %llu constraints",
                            name, (ull)nc);
            goto done;
        }
        rp[j][0] = 0;
    }
    uint64_t pos[3] = {0, 0, 0};
    cuzk_r1cs_iter_init(&it, r);
    while (cuzk_r1cs_iter_next(&it, &k)) {
        const cuzk_r1cs_lc *lc[3] = {&k.a, &k.b, &k.c};
        for (int j = 0; j < 3; j++) {
            for (uint32_t t = 0; t < lc[j]->n; t++) {
                uint32_t wire;
                uint64_t coeff[CUZK_FR_LIMBS];
                cuzk_r1cs_lc_term(lc[j], t, &wire, coeff);
                col[j][pos[j]] = wire;
                cuzk_fr_from_limbs(&cf[j][pos[j]], coeff);
                pos[j]++;
            }
            rp[j][it.index] = pos[j];
        }
    }
    for (int j = 0; j < 3; j++) {
        m[j].row_ptr = rp[j];
        m[j].col = col[j];
        m[j].coeff = cf[j];
    }
    st = cuzk_circuit_build(c, nc, n_in, n_aux, m, name, err);
done:
    for (int j = 0; j < 3; j++) {
        free(rp[j]);
        free(col[j]);
        free(cf[j]);
    }
    return st;
}

/* ---- reader ------------------------------------------------------------------ */

/* result = the first i < n with cond (which reads i), or n; parallel. */
#define FIRST_BAD(result, n, threads, cond)                                          \
    do {                                                                             \
        int64_t fb_n_ = (int64_t)(n), fb_best_ = fb_n_;                              \
        int fb_threads_ = (int)(threads);                                            \
        (void)fb_threads_;                                                           \
        FIRST_BAD_PRAGMA                                                             \
        for (int64_t i = 0; i < fb_n_; i++)                                          \
            if (i < fb_best_ && (cond)) fb_best_ = i;                                \
        (result) = (uint64_t)fb_best_;                                               \
    } while (0)
#if defined(CUZK_HAVE_OPENMP)
#define FIRST_BAD_PRAGMA                                                                    \
    _Pragma("omp parallel for num_threads(fb_threads_) schedule(static) reduction(min : fb_best_)")
#else
#define FIRST_BAD_PRAGMA
#endif

static cuzk_status validate(cuzk_circuit *c, unsigned flags, cuzk_error *err) {
    const char *path = c->path;
    const uint8_t *d = c->image;
    uint64_t size = c->size;
    unsigned t = cuzk_circuit_threads(0);
    if (!HOST_LE)
        return cuzk__fail(err, CUZK_ERR_UNSUPPORTED,
                          "%s: circuit files are read on little-endian hosts only", path);
    if (size < CUZK_CIRCUIT_HEADER_BYTES)
        return cuzk__fail(err, CUZK_ERR_BAD_LENGTH,
                          "%s: truncated file: %llu bytes, the header needs %u", path, (ull)size,
                          CUZK_CIRCUIT_HEADER_BYTES);
    if (memcmp(d, CUZK_CIRCUIT_MAGIC, 8) != 0)
        return cuzk__fail(err, CUZK_ERR_BAD_ENCODING,
                          "%s: offset 0: wrong magic, expected \"%s\" (not a cuzk circuit file)",
                          path, CUZK_CIRCUIT_MAGIC);
    uint32_t version = ld32(d + H_VERSION), fl = ld32(d + H_FLAGS);
    if (version != CUZK_CIRCUIT_VERSION)
        return cuzk__fail(err, CUZK_ERR_UNSUPPORTED,
                          "%s: offset 8: circuit file version %u not supported (expected %u)",
                          path, version, CUZK_CIRCUIT_VERSION);
    if (fl != 0)
        return cuzk__fail(err, CUZK_ERR_UNSUPPORTED,
                          "%s: offset 12: unknown flags 0x%x (this reader knows none)", path, fl);
    for (unsigned i = H_RESERVED; i < CUZK_CIRCUIT_HEADER_BYTES; i++)
        if (d[i] != 0)
            return cuzk__fail(err, CUZK_ERR_BAD_ENCODING,
                              "%s: offset %u: reserved header byte is not zero", path, i);
    counts k;
    k.n_constraints = ld64(d + H_NCONS);
    k.n_inputs = ld64(d + H_NIN);
    k.n_aux = ld64(d + H_NAUX);
    for (int m = 0; m < 3; m++) k.nnz[m] = ld64(d + H_NNZ + 8 * m);
    k.n_values = ld64(d + H_NVAL);
    uint64_t dom = ld64(d + H_DOMAIN), fsize = ld64(d + H_SIZE);
    if (k.n_inputs == 0)
        return cuzk__fail(err, CUZK_ERR_BAD_ENCODING,
                          "%s: offset %u: n_inputs = 0 (input 0 is the constant ONE)", path,
                          H_NIN);
    if (k.n_inputs > ((uint64_t)1 << 32) || k.n_aux > ((uint64_t)1 << 32) - k.n_inputs)
        return cuzk__fail(err, CUZK_ERR_BAD_ENCODING,
                          "%s: offset %u: n_inputs %llu + n_aux %llu exceed 2^32 variables", path,
                          H_NIN, (ull)k.n_inputs, (ull)k.n_aux);
    if (k.n_values < 2 || k.n_values > ((uint64_t)1 << 32))
        return cuzk__fail(err, CUZK_ERR_BAD_ENCODING,
                          "%s: offset %u: n_values = %llu, expected 2..2^32 (+1 and -1 first)",
                          path, H_NVAL, (ull)k.n_values);
    unsigned lg;
    uint64_t want = cuzk_circuit_domain_for(k.n_constraints, k.n_inputs, &lg);
    if (want == 0)
        return cuzk__fail(err, CUZK_ERR_UNSUPPORTED,
                          "%s: offset %u: %llu constraints + %llu inputs need a domain above "
                          "2^%u",
                          path, H_NCONS, (ull)k.n_constraints, (ull)k.n_inputs,
                          CUZK_CIRCUIT_MAX_DOMAIN_LOG);
    if (dom != want)
        return cuzk__fail(err, CUZK_ERR_BAD_ENCODING,
                          "%s: offset %u: domain_size = %llu, but %llu constraints + %llu inputs "
                          "give %llu",
                          path, H_DOMAIN, (ull)dom, (ull)k.n_constraints, (ull)k.n_inputs,
                          (ull)want);
    layout L;
    if (!layout_make(&L, &k))
        return cuzk__fail(err, CUZK_ERR_BAD_ENCODING,
                          "%s: header counts overflow 64-bit sizes (corrupt header)", path);
    if (fsize != L.size)
        return cuzk__fail(err, CUZK_ERR_BAD_LENGTH,
                          "%s: offset %u: file_size = %llu, but the header's counts need %llu "
                          "bytes (corrupt count?)",
                          path, H_SIZE, (ull)fsize, (ull)L.size);
    if (size < fsize)
        return cuzk__fail(err, CUZK_ERR_BAD_LENGTH,
                          "%s: truncated file: %llu bytes, the header says %llu", path, (ull)size,
                          (ull)fsize);
    if (size > fsize)
        return cuzk__fail(err, CUZK_ERR_BAD_LENGTH,
                          "%s: offset %llu: %llu trailing bytes after the checksum", path,
                          (ull)fsize, (ull)(size - fsize));
    uint64_t stored = ld64(d + L.off[P_TRAILER]);
    if (!(flags & CUZK_CIRCUIT_SKIP_CHECKSUM)) {
        uint64_t h;
        if (!checksum_blocks(&h, d, L.off[P_TRAILER], t))
            return cuzk__fail(err, CUZK_ERR_NOMEM, "%s: out of memory for the checksum", path);
        if (h != stored)
            return cuzk__fail(err, CUZK_ERR_BAD_ENCODING,
                              "%s: offset %llu: checksum mismatch: stored 0x%016llx, computed "
                              "0x%016llx (corrupt or modified file)",
                              path, (ull)L.off[P_TRAILER], (ull)stored, (ull)h);
    }
    for (int i = 0; i < P_COUNT; i++) {
        uint64_t from = i == 0 ? CUZK_CIRCUIT_HEADER_BYTES : L.off[i - 1] + L.len[i - 1];
        for (uint64_t o = from; o < L.off[i]; o++)
            if (d[o] != 0)
                return cuzk__fail(err, CUZK_ERR_BAD_ENCODING,
                                  "%s: offset %llu: padding before the %s is not zero", path,
                                  (ull)o, part_name[i]);
    }
    index_image(c, &L);

    /* Value table. */
    uint64_t bad;
    const cuzk_fr *vals = c->values;
    FIRST_BAD(bad, k.n_values, t, !cuzk__lt_n(vals[i].l, cuzk__fr_r, CUZK_FR_LIMBS));
    if (bad < k.n_values)
        return cuzk__fail(err, CUZK_ERR_NOT_CANONICAL,
                          "%s: offset %llu: value %llu of the value table is >= r", path,
                          (ull)(L.off[P_VALUES] + 32 * bad), (ull)bad);
    cuzk_fr m1;
    cuzk_fr_neg(&m1, &cuzk__fr_one);
    if (!cuzk_fr_is_one(&vals[0]) || !cuzk_fr_eq(&vals[1], &m1))
        return cuzk__fail(err, CUZK_ERR_BAD_ENCODING,
                          "%s: offset %llu: value table must start with +1, -1 (Montgomery)",
                          path, (ull)L.off[P_VALUES]);

    /* Matrices. */
    uint64_t nv = k.n_inputs + k.n_aux, nc = k.n_constraints;
    for (int m = 0; m < 3; m++) {
        const cuzk_csr *x = &c->m[m];
        const uint64_t *rp = x->row_ptr;
        uint64_t ro = L.off[P_ROWPTR + 3 * m];
        if (rp[0] != 0)
            return cuzk__fail(err, CUZK_ERR_BAD_ENCODING,
                              "%s: offset %llu: matrix %c row_ptr[0] = %llu, expected 0", path,
                              (ull)ro, MAT[m], (ull)rp[0]);
        FIRST_BAD(bad, nc, t, rp[i + 1] < rp[i]);
        if (bad < nc)
            return cuzk__fail(err, CUZK_ERR_BAD_ENCODING,
                              "%s: offset %llu: matrix %c row_ptr decreases at row %llu (%llu -> "
                              "%llu)",
                              path, (ull)(ro + 8 * (bad + 1)), MAT[m], (ull)bad, (ull)rp[bad],
                              (ull)rp[bad + 1]);
        if (rp[nc] != x->nnz)
            return cuzk__fail(err, CUZK_ERR_BAD_ENCODING,
                              "%s: offset %llu: matrix %c row_ptr[%llu] = %llu, but nnz = %llu",
                              path, (ull)(ro + 8 * nc), MAT[m], (ull)nc, (ull)rp[nc],
                              (ull)x->nnz);
        const uint32_t *col = x->col, *val = x->val;
        FIRST_BAD(bad, x->nnz, t, col[i] >= nv);
        if (bad < x->nnz)
            return cuzk__fail(err, CUZK_ERR_BAD_ENCODING,
                              "%s: offset %llu: matrix %c row %llu entry %llu: column %u >= "
                              "n_inputs + n_aux = %llu",
                              path, (ull)(L.off[P_COL + 3 * m] + 4 * bad), MAT[m],
                              (ull)row_of(rp, nc, bad), (ull)bad, col[bad], (ull)nv);
        FIRST_BAD(bad, x->nnz, t, val[i] >= k.n_values);
        if (bad < x->nnz)
            return cuzk__fail(err, CUZK_ERR_BAD_ENCODING,
                              "%s: offset %llu: matrix %c row %llu entry %llu: value index %u >= "
                              "n_values = %llu",
                              path, (ull)(L.off[P_VAL + 3 * m] + 4 * bad), MAT[m],
                              (ull)row_of(rp, nc, bad), (ull)bad, val[bad], (ull)k.n_values);
    }

    /* Density bitmaps: recomputed (bounded by the stored ones' size). */
    struct {
        int part, mat;
        uint64_t lo, hi, count;
        const uint64_t *stored;
        const char *name, *what;
    } dens[3] = {
        {P_AAUX, 0, k.n_inputs, nv, c->a_aux_count, c->a_aux, "a_aux", "aux variable"},
        {P_BINP, 1, 0, k.n_inputs, c->b_inp_count, c->b_inp, "b_inp", "input"},
        {P_BAUX, 1, k.n_inputs, nv, c->b_aux_count, c->b_aux, "b_aux", "aux variable"},
    };
    uint64_t *tmp = malloc((size_t)(L.len[P_AAUX] > L.len[P_BINP] ? L.len[P_AAUX] : L.len[P_BINP]) +
                           8);
    if (tmp == NULL) return cuzk__fail(err, CUZK_ERR_NOMEM, "%s: out of memory", path);
    cuzk_status st = CUZK_OK;
    for (int j = 0; j < 3 && st == CUZK_OK; j++) {
        uint64_t nbits = dens[j].hi - dens[j].lo, nw = words_of(nbits);
        density(tmp, c->m[dens[j].mat].col, c->m[dens[j].mat].nnz, dens[j].lo, dens[j].hi, t);
        for (uint64_t w = 0; w < nw; w++) {
            uint64_t diff = tmp[w] ^ dens[j].stored[w];
            if (diff == 0) continue;
            uint64_t bit = w * 64 + (uint64_t)__builtin_ctzll(diff);
            uint64_t at = L.off[dens[j].part] + 8 * w;
            if (bit >= nbits)
                st = cuzk__fail(err, CUZK_ERR_BAD_ENCODING,
                                "%s: offset %llu: %s bitmap has bit %llu set, past its %llu bits",
                                path, (ull)at, dens[j].name, (ull)bit, (ull)nbits);
            else if (tmp[w] >> (bit % 64) & 1)
                st = cuzk__fail(err, CUZK_ERR_BAD_ENCODING,
                                "%s: offset %llu: %s bitmap: %s %llu appears in matrix %c but "
                                "its bit is clear",
                                path, (ull)at, dens[j].name, dens[j].what, (ull)bit,
                                MAT[dens[j].mat]);
            else
                st = cuzk__fail(err, CUZK_ERR_BAD_ENCODING,
                                "%s: offset %llu: %s bitmap: bit %llu is set but %s %llu does "
                                "not appear in matrix %c",
                                path, (ull)at, dens[j].name, (ull)bit, dens[j].what, (ull)bit,
                                MAT[dens[j].mat]);
            break;
        }
        if (st != CUZK_OK) break;
        uint64_t pc = popcount_words(dens[j].stored, nw);
        if (pc != dens[j].count)
            st = cuzk__fail(err, CUZK_ERR_BAD_ENCODING,
                            "%s: offset %u: %s popcount = %llu, the bitmap has %llu bits set",
                            path, H_CNT + 8 * j, dens[j].name, (ull)dens[j].count, (ull)pc);
    }
    free(tmp);
    return st;
}

cuzk_status cuzk_circuit_open_mem(cuzk_circuit *c, const void *data, size_t size,
                                  const char *name, unsigned flags, cuzk_error *err) {
    memset(c, 0, sizeof(*c));
    if (name == NULL) name = "(memory)";
    if (data == NULL && size != 0)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "%s: NULL buffer", name);
    c->path = cuzk__strdup(name);
    if (c->path == NULL) return cuzk__fail(err, CUZK_ERR_NOMEM, "%s: out of memory", name);
    cuzk_status vst = cuzk__aligned_view(&c->image, &c->owned, data, size, name, err);
    if (vst != CUZK_OK) {
        cuzk_circuit_close(c);
        return vst;
    }
    c->size = size;
    cuzk_status st = validate(c, flags, err);
    if (st != CUZK_OK) cuzk_circuit_close(c);
    return st;
}

cuzk_status cuzk_circuit_open(cuzk_circuit *c, const char *path, unsigned flags,
                              cuzk_error *err) {
    memset(c, 0, sizeof(*c));
    if (path == NULL) return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "cuzk_circuit_open: no path");
    c->path = cuzk__strdup(path);
    if (c->path == NULL) return cuzk__fail(err, CUZK_ERR_NOMEM, "%s: out of memory", path);
    cuzk__mapped m;
    cuzk_status st = cuzk__map_file(&m, path, CUZK__MAP_BRIEF, err);
    if (st != CUZK_OK) goto fail;
    c->image = m.data;
    c->size = m.size;
    c->map = m.map;
    c->map_size = m.map_size;
    st = validate(c, flags, err);
    if (st == CUZK_OK) return st;
fail:
    cuzk_circuit_close(c);
    return st;
}

void cuzk_circuit_close(cuzk_circuit *c) {
    if (c == NULL) return;
    cuzk__unmap_file(c->map, c->map_size);
    free(c->owned);
    free(c->path);
    memset(c, 0, sizeof(*c));
}

/* ---- writer -------------------------------------------------------------------- */

static uint64_t trailer_offset(const cuzk_circuit *c) { return c->size - 8; }

cuzk_status cuzk_circuit_to_bytes(const cuzk_circuit *c, uint8_t **out, size_t *n,
                                  cuzk_error *err) {
    *out = NULL;
    *n = 0;
    if (c->image == NULL || c->size < CUZK_CIRCUIT_HEADER_BYTES + 8)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "cuzk_circuit_to_bytes: no circuit");
    uint8_t *b = malloc((size_t)c->size);
    if (b == NULL)
        return cuzk__fail(err, CUZK_ERR_NOMEM, "%s: out of memory for %llu bytes", c->path,
                          (ull)c->size);
    uint64_t to = trailer_offset(c), h;
    memcpy(b, c->image, (size_t)to);
    if (!checksum_blocks(&h, b, to, 0)) {
        free(b);
        return cuzk__fail(err, CUZK_ERR_NOMEM, "%s: out of memory", c->path);
    }
    st64(b + to, h);
    *out = b;
    *n = (size_t)c->size;
    return CUZK_OK;
}

/* The file's pieces: the image up to its trailer, then a fresh checksum
 * (tr, 8 bytes). */
static cuzk_status circuit_pieces(const cuzk_circuit *c, const char *name,
                                  cuzk__write_piece pieces[2], uint8_t tr[8], cuzk_error *err) {
    if (c == NULL || c->image == NULL || c->size < CUZK_CIRCUIT_HEADER_BYTES + 8 || name == NULL)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "cuzk_circuit_write: no circuit or path");
    uint64_t to = trailer_offset(c), h;
    if (!checksum_blocks(&h, c->image, to, 0))
        return cuzk__fail(err, CUZK_ERR_NOMEM, "%s: out of memory", name);
    st64(tr, h);
    pieces[0] = (cuzk__write_piece){c->image, to};
    pieces[1] = (cuzk__write_piece){tr, 8};
    return CUZK_OK;
}

cuzk_status cuzk_circuit_write(const cuzk_circuit *c, const char *path, cuzk_error *err) {
    cuzk__write_piece pieces[2];
    uint8_t tr[8];
    cuzk_status st = circuit_pieces(c, path, pieces, tr, err);
    if (st != CUZK_OK) return st;
    return cuzk__write_file_atomic(path, pieces, 2, err);
}

cuzk_status cuzk__circuit_write_out(cuzk__out *o, const cuzk_circuit *c, cuzk_error *err) {
    cuzk__write_piece pieces[2];
    uint8_t tr[8];
    cuzk_status st = circuit_pieces(c, o ? cuzk__out_path(o) : NULL, pieces, tr, err);
    if (st != CUZK_OK) return st;
    return cuzk__out_write_pieces(o, pieces, 2, err);
}
