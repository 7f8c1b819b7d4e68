/* binfile.c — the iden3 binary container (binfile.h; doc/formats.md, iden3
 * container). */
#include "io/binfile.h"
#include "util/mapfile.h"
#include "util/mem.h"

#include "ff/fp.h"
#include "ff/fr.h"

#include <stdlib.h>
#include <string.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define HOST_LE 1
#else
#define HOST_LE 0
#endif

/* Magic bytes as printable text for a message ("\x00" for the rest). */
static void show_magic(char out[17], const uint8_t *m) {
    size_t k = 0;
    for (int i = 0; i < 4; i++) {
        if (m[i] >= 0x20 && m[i] < 0x7f) {
            out[k++] = (char)m[i];
        } else {
            static const char hx[] = "0123456789abcdef";
            out[k++] = '\\';
            out[k++] = 'x';
            out[k++] = hx[m[i] >> 4];
            out[k++] = hx[m[i] & 15];
        }
    }
    out[k] = '\0';
}

static int cmp_by_id(const void *a, const void *b) {
    const cuzk_binfile_section *x = *(const cuzk_binfile_section *const *)a;
    const cuzk_binfile_section *y = *(const cuzk_binfile_section *const *)b;
    if (x->id != y->id) return x->id < y->id ? -1 : 1;
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/*
 * Rejects a repeated section id, naming the earliest repeat in file order.
 * Sorting keeps this O(n log n): a hostile file of millions of empty
 * sections must not make the pairwise scan quadratic.
 */
static cuzk_status find_duplicate(const cuzk_binfile *bf, cuzk_error *err) {
    uint32_t n = bf->n_sections;
    if (n < 2) return CUZK_OK;
    const cuzk_binfile_section **v = malloc((size_t)n * sizeof(*v));
    if (v == NULL)
        return cuzk__fail(err, CUZK_ERR_NOMEM, "%s: out of memory indexing %u sections", bf->path,
                          n);
    for (uint32_t i = 0; i < n; i++) v[i] = &bf->sections[i];
    qsort(v, n, sizeof(*v), cmp_by_id);
    /* In each run of equal ids (sorted by offset) the second entry is that
     * id's first repeat; report the repeat that comes first in the file. */
    const cuzk_binfile_section *orig = NULL, *repeat = NULL;
    for (uint32_t i = 0; i < n;) {
        uint32_t j = i + 1;
        while (j < n && v[j]->id == v[i]->id) j++;
        if (j - i > 1 && (repeat == NULL || v[i + 1]->offset < repeat->offset)) {
            orig = v[i];
            repeat = v[i + 1];
        }
        i = j;
    }
    free(v);
    if (repeat == NULL) return CUZK_OK;
    return cuzk__fail(err, CUZK_ERR_BAD_ENCODING,
                      "%s: offset %llu: duplicate section %u (first at offset %llu)", bf->path,
                      (unsigned long long)(repeat->offset - CUZK_BINFILE_SECTION_HEADER_BYTES),
                      repeat->id,
                      (unsigned long long)(orig->offset - CUZK_BINFILE_SECTION_HEADER_BYTES));
}

/* Parses the header and the section records of bf->data[0..size). */
static cuzk_status index_sections(cuzk_binfile *bf, const char *magic, uint32_t min_version,
                                  uint32_t max_version, cuzk_error *err) {
    const char *path = bf->path;
    const uint8_t *d = bf->data;
    uint64_t size = bf->size;
    if (size < CUZK_BINFILE_HEADER_BYTES)
        return cuzk__fail(err, CUZK_ERR_BAD_LENGTH,
                          "%s: truncated file: %llu bytes, the container header needs %u", path,
                          (unsigned long long)size, CUZK_BINFILE_HEADER_BYTES);
    if (memcmp(d, magic, 4) != 0) {
        char got[17];
        show_magic(got, d);
        return cuzk__fail(err, CUZK_ERR_BAD_ENCODING,
                          "%s: offset 0: wrong magic \"%s\", expected \"%.4s\"", path, got, magic);
    }
    memcpy(bf->magic, d, 4);
    bf->magic[4] = '\0';
    bf->version = cuzk__load_le32(d + 4);
    if (bf->version < min_version || bf->version > max_version)
        return cuzk__fail(err, CUZK_ERR_UNSUPPORTED,
                          "%s: offset 4: %.4s version %u not supported (expected %u..%u)", path,
                          magic, bf->version, min_version, max_version);
    uint32_t n = cuzk__load_le32(d + 8);
    /* Each section needs at least its 12-byte record header: bound the
     * count by the file before allocating the index. */
    uint64_t room = (size - CUZK_BINFILE_HEADER_BYTES) / CUZK_BINFILE_SECTION_HEADER_BYTES;
    if ((uint64_t)n > room)
        return cuzk__fail(err, CUZK_ERR_BAD_LENGTH,
                          "%s: offset 8: nSections = %u, but the %llu-byte file has room for "
                          "at most %llu section headers (truncated file?)",
                          path, n, (unsigned long long)size, (unsigned long long)room);
    bf->sections = calloc(n ? n : 1, sizeof(*bf->sections));
    if (bf->sections == NULL)
        return cuzk__fail(err, CUZK_ERR_NOMEM, "%s: out of memory for %u section records", path,
                          n);
    uint64_t pos = CUZK_BINFILE_HEADER_BYTES;
    for (uint32_t i = 0; i < n; i++) {
        if (size - pos < CUZK_BINFILE_SECTION_HEADER_BYTES)
            return cuzk__fail(err, CUZK_ERR_BAD_LENGTH,
                              "%s: offset %llu: truncated file: header of section record %u "
                              "of %u needs %u bytes, %llu left",
                              path, (unsigned long long)pos, i, n,
                              CUZK_BINFILE_SECTION_HEADER_BYTES,
                              (unsigned long long)(size - pos));
        uint32_t id = cuzk__load_le32(d + pos);
        uint64_t len = cuzk__load_le64(d + pos + 4);
        uint64_t payload = pos + CUZK_BINFILE_SECTION_HEADER_BYTES;
        if (len > size - payload)
            return cuzk__fail(err, CUZK_ERR_BAD_LENGTH,
                              "%s: offset %llu: section %u (record %u) overruns the file: "
                              "size %llu, %llu bytes left (truncated file?)",
                              path, (unsigned long long)pos, id, i, (unsigned long long)len,
                              (unsigned long long)(size - payload));
        bf->sections[i].id = id;
        bf->sections[i].offset = payload;
        bf->sections[i].size = len;
        bf->n_sections = i + 1;
        pos = payload + len;
    }
    if (pos != size)
        return cuzk__fail(err, CUZK_ERR_BAD_LENGTH,
                          "%s: offset %llu: %llu trailing bytes after the last of %u sections",
                          path, (unsigned long long)pos, (unsigned long long)(size - pos), n);
    return find_duplicate(bf, err);
}

cuzk_status cuzk_binfile_open_mem(cuzk_binfile *bf, const void *data, size_t size,
                                  const char *name, const char *magic, uint32_t min_version,
                                  uint32_t max_version, cuzk_error *err) {
    memset(bf, 0, sizeof(*bf));
    if (name == NULL) name = "(memory)";
    if (magic == NULL || strlen(magic) != 4 || (data == NULL && size != 0))
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "%s: bad arguments to cuzk_binfile_open_mem",
                          name);
    bf->path = cuzk__strdup(name);
    if (bf->path == NULL) return cuzk__fail(err, CUZK_ERR_NOMEM, "%s: out of memory", name);
    static const uint8_t empty[1] = {0};
    bf->data = size ? (const uint8_t *)data : empty;
    bf->size = size;
    cuzk_status st = index_sections(bf, magic, min_version, max_version, err);
    if (st != CUZK_OK) cuzk_binfile_close(bf);
    return st;
}

cuzk_status cuzk_binfile_open(cuzk_binfile *bf, const char *path, const char *magic,
                              uint32_t min_version, uint32_t max_version, cuzk_error *err) {
    memset(bf, 0, sizeof(*bf));
    if (path == NULL || magic == NULL || strlen(magic) != 4)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "bad arguments to cuzk_binfile_open");
    bf->path = cuzk__strdup(path);
    if (bf->path == NULL) return cuzk__fail(err, CUZK_ERR_NOMEM, "%s: out of memory", path);
    cuzk__mapped m;
    cuzk_status st = cuzk__map_file(&m, path, 0, err);
    if (st != CUZK_OK) goto fail;
    bf->data = m.data;
    bf->size = m.size;
    bf->map = m.map;
    bf->map_size = m.map_size;
    st = index_sections(bf, magic, min_version, max_version, err);
    if (st == CUZK_OK) return CUZK_OK;
fail:
    cuzk_binfile_close(bf);
    return st;
}

void cuzk_binfile_close(cuzk_binfile *bf) {
    if (bf == NULL) return;
    cuzk__unmap_file(bf->map, bf->map_size);
    free(bf->sections);
    free(bf->path);
    memset(bf, 0, sizeof(*bf));
}

const cuzk_binfile_section *cuzk_binfile_find(const cuzk_binfile *bf, uint32_t id) {
    for (uint32_t i = 0; i < bf->n_sections; i++)
        if (bf->sections[i].id == id) return &bf->sections[i];
    return NULL;
}

cuzk_status cuzk_binfile_require(const cuzk_binfile *bf, uint32_t id, const char *what,
                                 const cuzk_binfile_section **sec, cuzk_error *err) {
    *sec = cuzk_binfile_find(bf, id);
    if (*sec == NULL)
        return cuzk__fail(err, CUZK_ERR_BAD_ENCODING, "%s: missing section %u (%s)", bf->path, id,
                          what);
    return CUZK_OK;
}

void cuzk_binfile_cursor_init(cuzk_binfile_cursor *c, const cuzk_binfile *bf,
                              const cuzk_binfile_section *s) {
    c->bf = bf;
    c->id = s->id;
    c->pos = s->offset;
    c->end = s->offset + s->size;
}

static cuzk_status short_read(const cuzk_binfile_cursor *c, uint64_t n, const char *what,
                              cuzk_error *err) {
    return cuzk__fail(err, CUZK_ERR_BAD_LENGTH,
                      "%s: offset %llu: section %u too short: %s needs %llu bytes, %llu left",
                      c->bf->path, (unsigned long long)c->pos, c->id, what,
                      (unsigned long long)n, (unsigned long long)(c->end - c->pos));
}

cuzk_status cuzk_binfile_read_u32(cuzk_binfile_cursor *c, uint32_t *v, const char *what,
                                  cuzk_error *err) {
    if (c->end - c->pos < 4) return short_read(c, 4, what, err);
    *v = cuzk__load_le32(c->bf->data + c->pos);
    c->pos += 4;
    return CUZK_OK;
}

cuzk_status cuzk_binfile_read_u64(cuzk_binfile_cursor *c, uint64_t *v, const char *what,
                                  cuzk_error *err) {
    if (c->end - c->pos < 8) return short_read(c, 8, what, err);
    *v = cuzk__load_le64(c->bf->data + c->pos);
    c->pos += 8;
    return CUZK_OK;
}

cuzk_status cuzk_binfile_read_bytes(cuzk_binfile_cursor *c, const uint8_t **p, uint64_t n,
                                    const char *what, cuzk_error *err) {
    if (c->end - c->pos < n) return short_read(c, n, what, err);
    *p = c->bf->data + c->pos;
    c->pos += n;
    return CUZK_OK;
}

cuzk_status cuzk_binfile_cursor_done(const cuzk_binfile_cursor *c, cuzk_error *err) {
    if (c->pos != c->end)
        return cuzk__fail(err, CUZK_ERR_BAD_LENGTH,
                          "%s: offset %llu: section %u has %llu unexpected bytes at its end",
                          c->bf->path, (unsigned long long)c->pos, c->id,
                          (unsigned long long)(c->end - c->pos));
    return CUZK_OK;
}

cuzk_status cuzk__binfile_words(const cuzk_binfile *bf, const uint8_t *bytes, uint64_t n_bytes,
                                const uint64_t **words, void **owned, cuzk_error *err) {
    *owned = NULL;
    if (HOST_LE && ((uintptr_t)bytes & 7u) == 0) {
        /* The file's bytes already are the host's limbs: alias the mapping. */
        *words = (const uint64_t *)(const void *)bytes;
        return CUZK_OK;
    }
    uint64_t n = n_bytes / 8;
    if (n_bytes > (uint64_t)SIZE_MAX - 8)
        return cuzk__fail(err, CUZK_ERR_NOMEM, "%s: offset %llu: %llu bytes too large to copy",
                          bf->path, (unsigned long long)(bytes - bf->data),
                          (unsigned long long)n_bytes);
    uint64_t *w = cuzk__alloc_large((size_t)n * 8); /* freed with free() */
    if (w == NULL)
        return cuzk__fail(err, CUZK_ERR_NOMEM,
                          "%s: offset %llu: out of memory copying %llu unaligned bytes",
                          bf->path, (unsigned long long)(bytes - bf->data),
                          (unsigned long long)n_bytes);
    if (HOST_LE) {
        if (n) memcpy(w, bytes, (size_t)n * 8);
    } else {
        for (uint64_t i = 0; i < n; i++) w[i] = cuzk__load_le64(bytes + 8 * i);
    }
    *words = w;
    *owned = w;
    return CUZK_OK;
}

void cuzk__binfile_hex_le(char *buf, size_t cap, const uint8_t *p, size_t n) {
    static const char hx[] = "0123456789abcdef";
    size_t k = strlen(buf);
    size_t shown = n > 64 ? 64 : n;
    /* Skip leading zero bytes of the big-endian rendering, keep one digit. */
    size_t top = shown;
    while (top > 1 && p[top - 1] == 0) top--;
    if (k + 3 > cap) return;
    buf[k++] = '0';
    buf[k++] = 'x';
    for (size_t i = top; i-- > 0;) {
        if (k + 3 > cap) break;
        buf[k++] = hx[p[i] >> 4];
        buf[k++] = hx[p[i] & 15];
    }
    if (n > shown && k + 4 <= cap) {
        memcpy(buf + k, "...", 3);
        k += 3;
    }
    buf[k] = '\0';
}

/* BN254 (alt_bn128) primes, plain limbs, only to name the curve in errors. */
static const uint64_t bn254_q[4] = {0x3c208c16d87cfd47ULL, 0x97816a916871ca8dULL,
                                    0xb85045b68181585dULL, 0x30644e72e131a029ULL};
static const uint64_t bn254_r[4] = {0x43e1f593f0000001ULL, 0x2833e84879b97091ULL,
                                    0xb85045b68181585dULL, 0x30644e72e131a029ULL};

static bool limbs_equal_bytes(const uint8_t *p, uint32_t n8, const uint64_t *l, size_t nl) {
    if (n8 != 8 * nl) return false;
    for (size_t i = 0; i < nl; i++)
        if (cuzk__load_le64(p + 8 * i) != l[i]) return false;
    return true;
}

cuzk_status cuzk__binfile_check_prime(const cuzk_binfile *bf, uint32_t section, uint64_t off,
                                      const uint8_t *p, uint32_t n8, bool base_field,
                                      cuzk_error *err) {
    const char *name = base_field ? "q" : "r";
    if (base_field ? limbs_equal_bytes(p, n8, cuzk__fp_p, CUZK_FP_LIMBS)
                   : limbs_equal_bytes(p, n8, cuzk__fr_r, CUZK_FR_LIMBS))
        return CUZK_OK;
    char hex[160] = "";
    cuzk__binfile_hex_le(hex, sizeof(hex), p, n8);
    bool bn = base_field ? limbs_equal_bytes(p, n8, bn254_q, 4) : limbs_equal_bytes(p, n8, bn254_r, 4);
    /* A BLS12-381 p where r is expected (or the reverse) is a mix-up, not
     * another curve: say so. */
    bool swapped = base_field ? limbs_equal_bytes(p, n8, cuzk__fr_r, CUZK_FR_LIMBS)
                              : limbs_equal_bytes(p, n8, cuzk__fp_p, CUZK_FP_LIMBS);
    if (bn)
        return cuzk__fail(err, CUZK_ERR_UNSUPPORTED,
                          "%s: offset %llu: section %u: curve not supported: BN254 (%s = %s); "
                          "cuzk reads BLS12-381 only",
                          bf->path, (unsigned long long)off, section, name, hex);
    return cuzk__fail(err, CUZK_ERR_UNSUPPORTED,
                      "%s: offset %llu: section %u: curve not supported: %s %s = %s (%u bytes); "
                      "expected the BLS12-381 %s",
                      bf->path, (unsigned long long)off, section,
                      swapped ? "BLS12-381's other prime in place of" : "unknown prime", name, hex,
                      n8, base_field ? "base field prime p" : "group order r");
}
