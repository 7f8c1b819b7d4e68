/* encode.c — proofs and public inputs as snarkjs JSON, public inputs from
 * files, whole-file reads (include/cuzk.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "api/api.h"
#include "ff/fr.h"
#include "ff/limbs.h"
#include "groth16/proof192.h"
#include "groth16/snarkjs_json.h"
#include "util/readfile.h"

cuzk_status cuzk_file_read(uint8_t **data, size_t *len, const char *path, size_t max_bytes,
                           cuzk_error *err) {
    cuzk__error_clear(err);
    if (data == NULL || len == NULL || path == NULL)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "file_read: NULL argument");
    return cuzk__read_file(path, max_bytes, data, len, err);
}

cuzk_status cuzk_proof_to_json(char **json, size_t *len, const cuzk_proof *proof,
                               cuzk_error *err) {
    cuzk__error_clear(err);
    if (json == NULL || len == NULL || proof == NULL)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "proof_to_json: NULL argument");
    *json = NULL;
    *len = 0;
    cuzk_groth16_proof g;
    cuzk_status st = cuzk_proof192_decode(&g, proof->bytes, err);
    if (st != CUZK_OK) return st;
    st = cuzk_snarkjs_proof_format(json, len, &g);
    return st == CUZK_OK ? st : cuzk__fail(err, st, "no memory for proof.json");
}

cuzk_status cuzk_proof_from_json(cuzk_proof *proof, const char *json, size_t len,
                                 cuzk_error *err) {
    cuzk__error_clear(err);
    if (proof == NULL || json == NULL)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "proof_from_json: NULL argument");
    cuzk_groth16_proof g;
    const cuzk_status st = cuzk_snarkjs_proof_parse(&g, json, len, NULL, err);
    if (st == CUZK_OK) cuzk_proof192_encode(proof->bytes, &g);
    return st;
}

cuzk_status cuzk_public_to_json(char **json, size_t *len, const uint8_t *public_inputs, size_t n,
                                cuzk_error *err) {
    cuzk__error_clear(err);
    if (json == NULL || len == NULL || (public_inputs == NULL && n != 0))
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "public_to_json: NULL argument");
    *json = NULL;
    *len = 0;
    static const uint64_t order[4] = CUZK__FR_R;
    cuzk_fr *fr = malloc((n ? n : 1) * sizeof(*fr));
    if (fr == NULL) return cuzk__fail(err, CUZK_ERR_NOMEM, "no memory for %zu public inputs", n);
    for (size_t i = 0; i < n; i++) {
        uint64_t v[4];
        cuzk__scalar_from_bytes(v, public_inputs + 32 * i);
        if (!cuzk__lt_n(v, order, 4)) {
            free(fr);
            return cuzk__fail(err, CUZK_ERR_NOT_CANONICAL,
                              "public input %zu is not below the group order r", i);
        }
        cuzk_fr_from_limbs(&fr[i], v);
    }
    const cuzk_status st = cuzk_snarkjs_public_format(json, len, fr, n);
    free(fr);
    return st == CUZK_OK ? st : cuzk__fail(err, st, "no memory for public.json");
}

/* Public inputs as bytes from the parser's field elements (frees them). */
static cuzk_status public_bytes(uint8_t **public_inputs, size_t *n, cuzk_fr *fr, size_t count,
                                cuzk_error *err) {
    uint8_t *out = malloc(count ? count * 32 : 1);
    if (out == NULL) {
        free(fr);
        return cuzk__fail(err, CUZK_ERR_NOMEM, "no memory for %zu public inputs", count);
    }
    for (size_t i = 0; i < count; i++) {
        uint64_t v[4];
        cuzk_fr_to_limbs(v, &fr[i]);
        cuzk__scalar_to_bytes(out + 32 * i, v);
    }
    free(fr);
    *public_inputs = out;
    *n = count;
    return CUZK_OK;
}

cuzk_status cuzk_public_from_json(uint8_t **public_inputs, size_t *n, const char *json,
                                  size_t len, cuzk_error *err) {
    cuzk__error_clear(err);
    if (public_inputs == NULL || n == NULL || json == NULL)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "public_from_json: NULL argument");
    *public_inputs = NULL;
    *n = 0;
    cuzk_fr *fr = NULL;
    size_t count = 0;
    const cuzk_status st = cuzk_snarkjs_public_parse(&fr, &count, json, len, NULL, err);
    if (st != CUZK_OK) return st;
    return public_bytes(public_inputs, n, fr, count, err);
}

cuzk_status cuzk_proof_read_json(cuzk_proof *proof, const char *path, cuzk_error *err) {
    cuzk__error_clear(err);
    if (proof == NULL || path == NULL)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "proof_read_json: NULL argument");
    cuzk_groth16_proof g;
    const cuzk_status st = cuzk_snarkjs_proof_read(&g, path, err);
    if (st == CUZK_OK) cuzk_proof192_encode(proof->bytes, &g);
    return st;
}

cuzk_status cuzk_public_read_json(uint8_t **public_inputs, size_t *n, const char *path,
                                  cuzk_error *err) {
    cuzk__error_clear(err);
    if (public_inputs == NULL || n == NULL || path == NULL)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "public_read_json: NULL argument");
    *public_inputs = NULL;
    *n = 0;
    cuzk_fr *fr = NULL;
    size_t count = 0;
    const cuzk_status st = cuzk_snarkjs_public_read(&fr, &count, path, err);
    if (st != CUZK_OK) return st;
    return public_bytes(public_inputs, n, fr, count, err);
}

/* ---- public inputs of one partition from a file ---------------------------- */

/* A text inputs file larger than this is not one. */
#define INPUTS_TEXT_MAX_BYTES ((size_t)64 << 20)

/* x = x * base + d on 4 limbs; 0 on overflow past 2^256. */
static int mul_add_small(uint64_t x[4], unsigned base, unsigned d) {
    unsigned __int128 carry = d;
    for (int i = 0; i < 4; i++) {
        const unsigned __int128 v = (unsigned __int128)x[i] * base + carry;
        x[i] = (uint64_t)v;
        carry = v >> 64;
    }
    return carry == 0;
}

/* One number: decimal, or hex after 0x. */
static int parse_scalar(uint64_t out[4], const char *s, size_t n) {
    unsigned base = 10;
    memset(out, 0, 32);
    if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s += 2;
        n -= 2;
    }
    if (n == 0) return 0;
    for (size_t i = 0; i < n; i++) {
        const char ch = s[i];
        unsigned d;
        if (ch >= '0' && ch <= '9')
            d = (unsigned)(ch - '0');
        else if (base == 16 && ch >= 'a' && ch <= 'f')
            d = (unsigned)(ch - 'a' + 10);
        else if (base == 16 && ch >= 'A' && ch <= 'F')
            d = (unsigned)(ch - 'A' + 10);
        else
            return 0;
        if (!mul_add_small(out, base, d)) return 0;
    }
    return 1;
}

/* The public inputs of a cuzk witness: from the file at path, or (data not
 * NULL) from its len bytes already read from there. */
static cuzk_status inputs_from_witness(uint8_t *out, size_t n_public, const char *path,
                                       const void *data, size_t len, cuzk_error *err) {
    cuzk_witness w;
    cuzk_status st = data != NULL ? cuzk_witness_open_mem(&w, data, len, path, err)
                                  : cuzk_witness_open(&w, path, err);
    if (st != CUZK_OK) return st;
    if (w.n_inputs - 1 != n_public) {
        st = cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                        "%s: the witness has %llu public inputs, the verifying key expects %zu",
                        path, (unsigned long long)(w.n_inputs - 1), n_public);
    } else {
        for (size_t k = 0; k < n_public; k++)
            cuzk__scalar_to_bytes(out + 32 * k, w.values + 4 * (k + 1));
    }
    cuzk_witness_close(&w);
    return st;
}

cuzk_status cuzk__public_parse_text(uint8_t *out, size_t n_public, const char *text, size_t len,
                                    const char *name, cuzk_error *err) {
    static const uint64_t order[4] = CUZK__FR_R;
    cuzk_status st = CUZK_OK;
    size_t count = 0, lineno = 0;
    for (size_t pos = 0; st == CUZK_OK && pos < len;) {
        lineno++;
        size_t end = pos;
        while (end < len && text[end] != '\n') end++;
        const char *b = text + pos, *e = text + end;
        pos = end + 1;
        if (memchr(b, '\0', (size_t)(e - b)) != NULL) {
            st = cuzk__fail(err, CUZK_ERR_BAD_ENCODING, "%s: line %zu: a NUL byte", name, lineno);
            break;
        }
        while (b < e && (*b == ' ' || *b == '\t')) b++;
        while (e > b && (e[-1] == '\r' || e[-1] == ' ' || e[-1] == '\t')) e--;
        if (b == e || *b == '#') continue;
        uint64_t v[4];
        if (!parse_scalar(v, b, (size_t)(e - b))) {
            st = cuzk__fail(err, CUZK_ERR_BAD_ENCODING,
                            "%s: line %zu: not a decimal or 0x-hex number: '%.*s'", name, lineno,
                            (int)(e - b > 80 ? 80 : e - b), b);
        } else if (!cuzk__lt_n(v, order, 4)) {
            st = cuzk__fail(err, CUZK_ERR_NOT_CANONICAL,
                            "%s: line %zu: public input not below the group order r", name,
                            lineno);
        } else if (count >= n_public) {
            st = cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                            "%s: more than the %zu public inputs the verifying key expects", name,
                            n_public);
        } else {
            cuzk__scalar_to_bytes(out + 32 * count++, v);
        }
    }
    if (st == CUZK_OK && count != n_public)
        st = cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                        "%s: %zu public inputs, the verifying key expects %zu", name, count,
                        n_public);
    return st;
}

cuzk_status cuzk_public_read(uint8_t *out, size_t n_public, const char *path, cuzk_error *err) {
    cuzk__error_clear(err);
    if (path == NULL || (out == NULL && n_public != 0))
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "public_read: NULL argument");
    /* a regular file's first bytes tell a witness (mapped, however large)
     * from text; a pipe or device can be read once only: read whole, then told */
    struct stat sb;
    const int regular = stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
    char magic[8];
    if (regular && cuzk__file_head(magic, sizeof(magic), path) == sizeof(magic) &&
        memcmp(magic, CUZK_WITNESS_MAGIC, 8) == 0)
        return inputs_from_witness(out, n_public, path, NULL, 0, err);
    uint8_t *text = NULL;
    size_t len = 0;
    cuzk_status st = cuzk_file_read(&text, &len, path, INPUTS_TEXT_MAX_BYTES, err);
    if (st != CUZK_OK) return st;
    if (!regular && len >= 8 && memcmp(text, CUZK_WITNESS_MAGIC, 8) == 0)
        st = inputs_from_witness(out, n_public, path, text, len, err);
    else
        st = cuzk__public_parse_text(out, n_public, (const char *)text, len, path, err);
    free(text);
    return st;
}
