/*
 * binfile.h — the iden3 binary container shared by .zkey, .wtns, .r1cs and
 * .ptau (doc/formats.md, iden3 container).
 *
 * Layout: 4-byte ASCII magic, u32 version, u32 nSections, then nSections
 * records of (u32 id, u64 size, payload). All integers little-endian.
 *
 * cuzk_binfile_open memory-maps the file read-only (MAP_PRIVATE) and indexes
 * the sections; nothing is copied. Sections may come in any order; a
 * duplicate id, a section running past the end of the file, or bytes after
 * the last section are errors. Unknown ids are kept in the index and the
 * format readers ignore them.
 *
 * Every length read from the file is checked with 64-bit arithmetic against
 * the bytes actually present before anything is indexed or allocated, so no
 * input can overflow a size computation or make us allocate more than the
 * file's own size.
 *
 * Errors: cuzk_status plus a cuzk_error whose message names the path (or the
 * name given to cuzk_binfile_open_mem), the file offset or section, and the
 * reason. Statuses used here and by the format readers:
 *   ERR_IO          cannot open/stat/map the file
 *   ERR_NOMEM       allocation failed
 *   ERR_BAD_LENGTH  truncated file, section past the end, trailing bytes,
 *                   a size field that disagrees with the content
 *   ERR_BAD_ENCODING wrong magic, duplicate or missing section, a field out
 *                   of its range (index, count, flag)
 *   ERR_UNSUPPORTED version, protocol or curve we do not read
 *
 * Concurrency: an open cuzk_binfile is immutable; any number of threads may
 * read it. The file must not be truncated while mapped (the OS would raise
 * SIGBUS on access to the lost pages; nothing portable prevents that).
 */
#ifndef CUZK_BINFILE_H
#define CUZK_BINFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk.h"
#include "util/error.h"

/* Sizes of the fixed container parts. */
#define CUZK_BINFILE_HEADER_BYTES 12u  /* magic, version, nSections */
#define CUZK_BINFILE_SECTION_HEADER_BYTES 12u /* id, size */

typedef struct {
    uint32_t id;
    uint64_t offset; /* file offset of the payload (after the 12-byte record header) */
    uint64_t size;   /* payload bytes */
} cuzk_binfile_section;

typedef struct {
    char *path;            /* copy of the path or name, for messages */
    const uint8_t *data;   /* the whole file */
    uint64_t size;         /* its length in bytes */
    void *map;             /* mmap base (NULL for cuzk_binfile_open_mem) */
    size_t map_size;
    char magic[5];         /* NUL-terminated */
    uint32_t version;
    uint32_t n_sections;
    cuzk_binfile_section *sections; /* in file order */
} cuzk_binfile;

/*
 * Maps path and indexes its sections. magic is the expected 4-character
 * magic; the version must lie in [min_version, max_version]. On failure *bf is
 * left closed (safe to pass to cuzk_binfile_close).
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_binfile_open(cuzk_binfile *bf, const char *path,
                                                      const char *magic, uint32_t min_version,
                                                      uint32_t max_version, cuzk_error *err);

/*
 * The same over a caller's buffer, which must stay alive and unchanged until
 * cuzk_binfile_close (it is borrowed, not copied). name stands in for the
 * path in messages. For fuzzing and for keys already in memory. Readers view
 * aligned parts of the buffer as uint64_t arrays, so pass heap (malloc) or
 * mapped memory, not a declared uint8_t array (strict aliasing).
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_binfile_open_mem(cuzk_binfile *bf, const void *data,
                                                          size_t size, const char *name,
                                                          const char *magic, uint32_t min_version,
                                                          uint32_t max_version, cuzk_error *err);

/* Unmaps and frees; leaves *bf zeroed. Safe on a zeroed or closed object. */
void cuzk_binfile_close(cuzk_binfile *bf);

/* The section with this id, or NULL. */
const cuzk_binfile_section *cuzk_binfile_find(const cuzk_binfile *bf, uint32_t id);

/* The section with this id; a missing one is ERR_BAD_ENCODING naming what. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_binfile_require(const cuzk_binfile *bf, uint32_t id,
                                                         const char *what,
                                                         const cuzk_binfile_section **sec,
                                                         cuzk_error *err);

/* Payload pointer of a section (inside the mapping; any alignment). */
static inline const uint8_t *cuzk_binfile_payload(const cuzk_binfile *bf,
                                                  const cuzk_binfile_section *s) {
    return bf->data + s->offset;
}

/*
 * A bounds-checked reader over one section's payload. Reads past the end of
 * the section fail with ERR_BAD_LENGTH and a message naming the section, the
 * file offset and `what` was being read.
 */
typedef struct {
    const cuzk_binfile *bf;
    uint32_t id;
    uint64_t pos; /* absolute file offset of the next byte */
    uint64_t end; /* absolute file offset one past the section */
} cuzk_binfile_cursor;

void cuzk_binfile_cursor_init(cuzk_binfile_cursor *c, const cuzk_binfile *bf,
                              const cuzk_binfile_section *s);
static inline uint64_t cuzk_binfile_cursor_left(const cuzk_binfile_cursor *c) {
    return c->end - c->pos;
}
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_binfile_read_u32(cuzk_binfile_cursor *c, uint32_t *v,
                                                          const char *what, cuzk_error *err);
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_binfile_read_u64(cuzk_binfile_cursor *c, uint64_t *v,
                                                          const char *what, cuzk_error *err);
/* *p points at n bytes inside the mapping; the cursor moves past them. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_binfile_read_bytes(cuzk_binfile_cursor *c,
                                                            const uint8_t **p, uint64_t n,
                                                            const char *what, cuzk_error *err);
/* Fails (ERR_BAD_LENGTH) unless the whole section has been consumed. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_binfile_cursor_done(const cuzk_binfile_cursor *c,
                                                             cuzk_error *err);

/* Little-endian loads from unaligned bytes. */
static inline uint32_t cuzk__load_le32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t cuzk__load_le64(const uint8_t *p) {
    return (uint64_t)cuzk__load_le32(p) | (uint64_t)cuzk__load_le32(p + 4) << 32;
}
/* n little-endian 64-bit words from unaligned bytes. */
static inline void cuzk__load_le64_n(uint64_t *r, const uint8_t *p, size_t n) {
    for (size_t i = 0; i < n; i++) r[i] = cuzk__load_le64(p + 8 * i);
}

/*
 * A view of `count` fixed-size records of `rec_bytes` bytes (a multiple of
 * 8) holding little-endian 64-bit words, as the host's uint64_t array:
 * a pointer into the mapping when the bytes are 8-byte aligned and the host
 * is little-endian, otherwise an aligned heap copy (C forbids misaligned
 * uint64_t access). *owned receives the copy to free later (NULL when
 * aliased). rec_bytes * count must already be checked against the section.
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__binfile_words(const cuzk_binfile *bf,
                                                        const uint8_t *bytes, uint64_t n_bytes,
                                                        const uint64_t **words, void **owned,
                                                        cuzk_error *err);

/* Appends "0x" and the little-endian integer p[0..n) in hex (most significant
 * first, at most 64 bytes shown) to buf; for messages about primes. */
void cuzk__binfile_hex_le(char *buf, size_t cap, const uint8_t *p, size_t n);

/*
 * Checks that the n8-byte little-endian prime at file offset `off` is
 * BLS12-381's base field prime p (base_field) or group order r (otherwise),
 * with n8 = 48 or 32. Anything else is ERR_UNSUPPORTED: "curve not
 * supported: BN254 (q = 0x...)" for BN254's primes, "unknown prime" for
 * others.
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__binfile_check_prime(const cuzk_binfile *bf,
                                                              uint32_t section, uint64_t off,
                                                              const uint8_t *p, uint32_t n8,
                                                              bool base_field, cuzk_error *err);

#endif /* CUZK_BINFILE_H */
