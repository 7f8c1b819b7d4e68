/* witness_input.c — a cuzk_witness_input (a file or values in memory) as the
 * backends' cuzk_witness, checked against the key. */
#include <stdint.h>
#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "api/api.h"
#include "ff/fr.h"
#include "ff/limbs.h"
#include "io/wtns.h"
#include "util/mem.h"
#include "util/readfile.h"

void cuzk__scalar_to_bytes(uint8_t out[32], const uint64_t in[4]) {
    for (int i = 0; i < 4; i++)
        for (int b = 0; b < 8; b++) out[8 * i + b] = (uint8_t)(in[i] >> (8 * b));
}

void cuzk__scalar_from_bytes(uint64_t out[4], const uint8_t in[32]) {
    for (int i = 0; i < 4; i++) {
        uint64_t v = 0;
        for (int b = 7; b >= 0; b--) v = v << 8 | in[8 * i + b];
        out[i] = v;
    }
}

/* Value 0 must be 1 and every value below r; a failure names the value and,
 * for a file, its offset there (base: the file offset of value 0). */
static cuzk_status check_values(const uint64_t *limbs, size_t n, const char *name, int in_file,
                                uint64_t base, cuzk_error *err) {
    static const uint64_t order[4] = CUZK__FR_R;
    if (n == 0 || limbs[0] != 1 || limbs[1] != 0 || limbs[2] != 0 || limbs[3] != 0)
        return in_file ? cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                                    "%s: offset %llu: value 0 must be 1 (the constant signal)",
                                    name, (unsigned long long)base)
                       : cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                                    "%s: value 0 must be 1 (the constant signal)", name);
    for (size_t i = 1; i < n; i++)
        if (!cuzk__lt_n(limbs + 4 * i, order, 4))
            return in_file ? cuzk__fail(err, CUZK_ERR_NOT_CANONICAL,
                                        "%s: offset %llu: value %zu is not below the group "
                                        "order r",
                                        name, (unsigned long long)(base + 32 * (uint64_t)i), i)
                           : cuzk__fail(err, CUZK_ERR_NOT_CANONICAL,
                                        "%s: value %zu is not below the group order r", name, i);
    return CUZK_OK;
}

/* The split of the key's variables into inputs (the constant 1 included)
 * and aux. A zkey's backend takes only the total; its witness keeps the
 * constant alone as the input. */
static void key_split(const cuzk_key *k, uint64_t *n_inputs, uint64_t *n_aux) {
    if (k->kind == CUZK_KEY_PARAMS) {
        *n_inputs = k->c.n_inputs;
        *n_aux = k->c.n_aux;
    } else {
        *n_inputs = 1;
        *n_aux = k->n_vars - 1;
    }
}

static cuzk_status count_mismatch(const cuzk_key *k, const char *name, uint64_t got,
                                  cuzk_error *err) {
    const int zk = k->kind == CUZK_KEY_ZKEY;
    return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                      "%s has %llu values, but %s expects %llu%s: a witness of another circuit?",
                      name, (unsigned long long)got, zk ? k->path : k->circuit_path,
                      (unsigned long long)k->n_vars, zk ? " (nVars)" : "");
}

/* A witness file that its writer may still change or truncate: read, never
 * mapped (a mapping truncated under a reader kills the process), and only
 * when it is a regular file (a FIFO would block the reader forever). */
static cuzk_status load_file(const cuzk_key *k, cuzk_witness *w, const char *path,
                             cuzk_error *err) {
    int fd;
    uint64_t size;
    cuzk_status st = cuzk__open_regular(path, &fd, &size, err);
    if (st != CUZK_OK) return st;
    if (size < 8) {
        close(fd);
        return cuzk__fail(err, CUZK_ERR_BAD_ENCODING,
                          "%s: %llu bytes: neither a snarkjs .wtns nor a cuzk witness file", path,
                          (unsigned long long)size);
    }
    /* a file far larger than any witness of the key is not read at all (a
     * .wtns adds its small header sections to the values) */
    if (size > 32 * k->n_vars + ((uint64_t)1 << 20)) {
        close(fd);
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                          "%s: %llu bytes, more than a witness of %llu values takes: a witness "
                          "of another circuit?",
                          path, (unsigned long long)size, (unsigned long long)k->n_vars);
    }
    uint8_t *buf = size <= SIZE_MAX ? malloc((size_t)size) : NULL;
    if (buf == NULL) {
        close(fd);
        return cuzk__fail(err, CUZK_ERR_NOMEM, "%s: no memory to read its %llu bytes", path,
                          (unsigned long long)size);
    }
    st = cuzk__pread_all(fd, buf, (size_t)size, k->ctx->opt.threads, path, err);
    close(fd);
    if (st != CUZK_OK) {
        free(buf);
        return st;
    }
    if (memcmp(buf, CUZK_WITNESS_MAGIC, 8) == 0) {
        if ((st = cuzk__witness_adopt(w, buf, (size_t)size, path, err)) != CUZK_OK) return st;
        const int fits = k->kind == CUZK_KEY_PARAMS
                             ? w->n_inputs == k->c.n_inputs && w->n_aux == k->c.n_aux
                             : cuzk_witness_n_vars(w) == k->n_vars;
        if (!fits) {
            if (k->kind == CUZK_KEY_PARAMS)
                st = cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                                "%s has %llu inputs and %llu aux, the circuit %s has %llu and "
                                "%llu: a witness of another circuit?",
                                path, (unsigned long long)w->n_inputs,
                                (unsigned long long)w->n_aux, k->circuit_path,
                                (unsigned long long)k->c.n_inputs, (unsigned long long)k->c.n_aux);
            else
                st = count_mismatch(k, path, cuzk_witness_n_vars(w), err);
            cuzk_witness_close(w);
        }
        return st;
    }
    if (memcmp(buf, "wtns", 4) == 0) {
        cuzk_wtns wt;
        memset(&wt, 0, sizeof(wt));
        if ((st = cuzk_wtns_open_mem(&wt, buf, (size_t)size, path, err)) == CUZK_OK) {
            if (k->kind == CUZK_KEY_PARAMS) {
                st = cuzk_witness_from_wtns(w, &k->c, &wt, err);
            } else if (wt.n_witness != k->n_vars) {
                st = count_mismatch(k, path, wt.n_witness, err);
            } else if ((st = check_values(wt.values, wt.n_witness, path, 1, wt.values_offset,
                                          err)) == CUZK_OK) {
                st = cuzk_witness_from_values(w, wt.values, 1, (uint64_t)wt.n_witness - 1, path,
                                              err);
            }
            cuzk_wtns_close(&wt);
        }
        cuzk__wipe(buf, (size_t)size);
        free(buf);
        return st;
    }
    free(buf);
    return cuzk__fail(err, CUZK_ERR_BAD_ENCODING,
                      "%s: neither a snarkjs .wtns nor a cuzk witness file (first bytes)", path);
}

static uint64_t le_n(const uint8_t *p, int n) {
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--) v = v << 8 | p[i];
    return v;
}
static uint64_t le64(const uint8_t *p) { return le_n(p, 8); }
static uint32_t le32(const uint8_t *p) { return (uint32_t)le_n(p, 4); }

/* A .wtns file's section headers (type u32, size u64, from offset 12) walked
 * with pread: they must cover the file exactly, so a truncated or padded
 * file is named at once. */
static cuzk_status wtns_sections_fit(int fd, const char *path, uint64_t size, cuzk_error *err) {
    uint8_t h[12];
    cuzk_status st = CUZK_OK;
    uint64_t pos = 12;
    uint32_t n_sections = 0;
    if (pread(fd, h, 4, 8) != 4) {
        st = cuzk__fail(err, CUZK_ERR_INVALID_ARG, "%s: %llu bytes: no section count", path,
                        (unsigned long long)size);
    } else {
        n_sections = le32(h);
    }
    for (uint32_t i = 0; st == CUZK_OK && i < n_sections; i++) {
        if (size - pos < 12 || pread(fd, h, 12, (off_t)pos) != 12) {
            st = cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                            "%s: %llu bytes: section %u of %u starts past the end (a truncated "
                            "file?)",
                            path, (unsigned long long)size, i + 1, n_sections);
            break;
        }
        const uint64_t len = le64(h + 4);
        if (len > size - pos - 12) {
            st = cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                            "%s: %llu bytes: section %u of %u (%llu bytes at offset %llu) "
                            "overruns it (a truncated file?)",
                            path, (unsigned long long)size, i + 1, n_sections,
                            (unsigned long long)len, (unsigned long long)pos);
            break;
        }
        pos += 12 + len;
    }
    if (st == CUZK_OK && pos != size)
        st = cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                        "%s: %llu bytes, but its %u sections end at %llu", path,
                        (unsigned long long)size, n_sections, (unsigned long long)pos);
    return st;
}

/* check_head on the open file fd of size bytes. */
static cuzk_status check_head_fd(const cuzk_key *k, int fd, uint64_t size, const char *path,
                                 cuzk_error *err) {
    uint8_t h[64];
    memset(h, 0, sizeof(h));
    ssize_t r = pread(fd, h, sizeof(h), 0);
    const size_t got = r > 0 ? (size_t)r : 0;
    if (got == 0) return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "%s: empty or unreadable", path);
    if (got >= 8 && memcmp(h, CUZK_WITNESS_MAGIC, 8) == 0) {
        if (got < 32)
            return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                              "%s: %llu bytes: a cuzk witness file cut short in its 32-byte "
                              "header",
                              path, (unsigned long long)size);
        const uint64_t n_in = le64(h + 16), n_aux = le64(h + 24);
        const uint64_t n = n_in + n_aux;
        if (n < n_in || n > (UINT64_MAX - 32) / 32 || size != 32 + 32 * n)
            return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                              "%s: %llu bytes, but its header counts %llu + %llu values "
                              "(a truncated or damaged witness file)",
                              path, (unsigned long long)size, (unsigned long long)n_in,
                              (unsigned long long)n_aux);
        if (k->kind == CUZK_KEY_PARAMS && (n_in != k->c.n_inputs || n_aux != k->c.n_aux))
            return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                              "%s has %llu inputs and %llu aux, the circuit %s has %llu and %llu: "
                              "a witness of another circuit?",
                              path, (unsigned long long)n_in, (unsigned long long)n_aux,
                              k->circuit_path, (unsigned long long)k->c.n_inputs,
                              (unsigned long long)k->c.n_aux);
        if (k->kind == CUZK_KEY_ZKEY && n != k->n_vars) return count_mismatch(k, path, n, err);
        return CUZK_OK;
    }
    if (got >= 4 && memcmp(h, "wtns", 4) == 0) {
        /* "wtns", version, sections; the header section first: type 1, its
         * size, n8, the prime (n8 bytes), the witness count (u32) */
        const uint32_t type = le32(h + 12), n8 = le32(h + 24);
        if (got == sizeof(h) && type == 1 && n8 == 32) {
            const uint64_t n = le32(h + 60);
            if (k->kind == CUZK_KEY_ZKEY && n != k->n_vars) return count_mismatch(k, path, n, err);
        }
        /* the sections, by their headers alone, must fill the file exactly */
        return wtns_sections_fit(fd, path, size, err); /* the values: when it loads */
    }
    return cuzk__fail(err, CUZK_ERR_BAD_ENCODING,
                      "%s: neither a snarkjs .wtns nor a cuzk witness file (first bytes)", path);
}

cuzk_status cuzk__witness_check_head(const cuzk_key *k, const char *path, cuzk_error *err) {
    int fd;
    uint64_t size;
    cuzk_status st = cuzk__open_regular(path, &fd, &size, err);
    if (st == CUZK_ERR_IO) { /* a path the caller named: its mistake */
        if (err != NULL) err->status = CUZK_ERR_INVALID_ARG;
        return CUZK_ERR_INVALID_ARG;
    }
    if (st != CUZK_OK) return st;
    st = check_head_fd(k, fd, size, path, err);
    close(fd);
    return st;
}

cuzk_status cuzk__witness_load(const cuzk_key *k, cuzk_witness *w, const cuzk_witness_input *in,
                               cuzk_error *err) {
    memset(w, 0, sizeof(*w));
    if (in == NULL) return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "witness: NULL");
    if (in->path != NULL) return load_file(k, w, in->path, err);
    static const char name[] = "the witness in memory";
    if (in->values == NULL)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "witness: neither a path nor values");
    if ((uint64_t)in->n_values != k->n_vars) return count_mismatch(k, name, in->n_values, err);
    if (in->n_values > SIZE_MAX / 32)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "witness: %zu values: too many",
                          in->n_values);
    uint64_t n_inputs, n_aux;
    key_split(k, &n_inputs, &n_aux);
    uint64_t *limbs = malloc(in->n_values * 32);
    if (limbs == NULL)
        return cuzk__fail(err, CUZK_ERR_NOMEM, "no memory for %zu witness values", in->n_values);
    for (size_t i = 0; i < in->n_values; i++)
        cuzk__scalar_from_bytes(limbs + 4 * i, in->values + 32 * i);
    cuzk_status st = check_values(limbs, in->n_values, name, 0, 0, err);
    if (st == CUZK_OK) st = cuzk_witness_from_values(w, limbs, n_inputs, n_aux, name, err);
    cuzk__wipe(limbs, in->n_values * 32);
    free(limbs);
    return st;
}
