/*
 * snarkjs_json.c — proof.json, public.json and verification_key.json for
 * Groth16 on BLS12-381 (snarkjs_json.h; doc/formats.md, snarkjs JSON).
 *
 * Everything here handles public data (keys, proofs, public signals), so it
 * is variable-time throughout.
 */
#include "groth16/snarkjs_json.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/atomic_write.h"
#include "util/readfile.h"

/* File size limits: a proof is < 2 KB; public.json holds up to ~82 bytes per
 * public signal and gets the proof's cap (1 MiB: some 12,000 signals); the
 * key grows by ~270 bytes per IC point. The JSON tree costs up to ~36x the
 * input (json.h), so the limits are not set higher than needed. */
#define PROOF_MAX_BYTES ((size_t)1 << 20)
#define PUBLIC_MAX_BYTES PROOF_MAX_BYTES
#define BIG_MAX_BYTES ((size_t)256 << 20)

/* ---- decimal strings ---------------------------------------------------------- */

#define DEC_CHUNK 1000000000u /* 10^9: nine digits per step */

/* A short printable excerpt of s for messages: the whole text when short,
 * otherwise its first and last ten bytes; bytes outside 0x20..0x7e become '?'. */
static void excerpt(char *out, size_t cap, const char *s, size_t len) {
    char tmp[32];
    size_t n = 0;
    if (len <= 24) {
        for (size_t i = 0; i < len; i++) tmp[n++] = s[i];
    } else {
        for (size_t i = 0; i < 10; i++) tmp[n++] = s[i];
        tmp[n++] = '.';
        tmp[n++] = '.';
        tmp[n++] = '.';
        for (size_t i = len - 10; i < len; i++) tmp[n++] = s[i];
    }
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)tmp[i] < 0x20 || (unsigned char)tmp[i] > 0x7e) tmp[i] = '?';
    tmp[n] = '\0';
    snprintf(out, cap, "%s", tmp);
}

cuzk_status cuzk__dec_to_limbs_var(uint64_t *out, const uint64_t *mod, size_t nlimbs,
                                   const char *mod_name, const char *s, size_t len,
                                   cuzk_error *err) {
    char ex[32];
    if (nlimbs == 0 || nlimbs > CUZK__MAX_LIMBS)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "bad limb count %zu", nlimbs);
    if (len == 0)
        return cuzk__fail(err, CUZK_ERR_BAD_ENCODING, "empty string, expected a decimal integer");
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9') {
            excerpt(ex, sizeof(ex), s, len);
            return cuzk__fail(err, CUZK_ERR_BAD_ENCODING,
                              "not a decimal integer: \"%s\" (byte %zu is not a digit)", ex, i);
        }
    }
    if (s[0] == '0' && len > 1) {
        excerpt(ex, sizeof(ex), s, len);
        return cuzk__fail(err, CUZK_ERR_BAD_ENCODING, "leading zero in \"%s\"", ex);
    }
    /* Without a leading zero, more than 20n digits means >= 10^(20n) > 2^(64n). */
    excerpt(ex, sizeof(ex), s, len);
    if (len > 20 * nlimbs)
        return cuzk__fail(err, CUZK_ERR_NOT_CANONICAL, "not canonical: %s (%zu digits) >= %s", ex,
                          len, mod_name);
    /* acc = acc * 10^9 + chunk over n+1 limbs: 10^(20n) < 2^(64(n+1)) for n <= 26. */
    uint64_t acc[CUZK__MAX_LIMBS + 1] = {0};
    size_t i = 0, first = len % 9 ? len % 9 : 9;
    while (i < len) {
        size_t k = i == 0 ? first : 9;
        uint64_t chunk = 0, mul = 1;
        for (size_t j = 0; j < k; j++) {
            chunk = chunk * 10 + (uint64_t)(s[i + j] - '0');
            mul *= 10;
        }
        uint64_t carry = chunk;
        for (size_t j = 0; j <= nlimbs; j++) acc[j] = cuzk__mac(&carry, acc[j], mul, carry, 0);
        i += k;
    }
    if (acc[nlimbs] != 0 || !cuzk__lt_n(acc, mod, nlimbs))
        return cuzk__fail(err, CUZK_ERR_NOT_CANONICAL, "not canonical: %s >= %s", ex, mod_name);
    memcpy(out, acc, nlimbs * sizeof(uint64_t));
    return CUZK_OK;
}

size_t cuzk__limbs_to_dec_var(char *out, size_t cap, const uint64_t *a, size_t nlimbs) {
    uint64_t t[CUZK__MAX_LIMBS];
    char rev[CUZK__MAX_LIMBS * 20 + 1]; /* digits, least significant first */
    size_t n = 0;
    if (nlimbs > CUZK__MAX_LIMBS || cap == 0) return 0;
    memcpy(t, a, nlimbs * sizeof(uint64_t));
    for (;;) {
        /* t, rem = t / 10^9, t % 10^9, over 32-bit halves so that every
         * dividend (rem * 2^32 + half < 10^9 * 2^32) fits in 64 bits. */
        uint64_t rem = 0, nz = 0;
        for (size_t i = nlimbs; i-- > 0;) {
            uint64_t hi = (rem << 32) | (t[i] >> 32);
            uint64_t qh = hi / DEC_CHUNK;
            rem = hi % DEC_CHUNK;
            uint64_t lo = (rem << 32) | (t[i] & 0xffffffffu);
            uint64_t ql = lo / DEC_CHUNK;
            rem = lo % DEC_CHUNK;
            t[i] = (qh << 32) | ql;
            nz |= t[i];
        }
        /* Nine digits per step, except that the last step stops at the most
         * significant non-zero digit (the value 0 still gives "0"). */
        for (int d = 0; d < 9; d++) {
            rev[n++] = (char)('0' + rem % 10);
            rem /= 10;
            if (!nz && rem == 0) break;
        }
        if (!nz) break;
    }
    if (n + 1 > cap) return 0;
    for (size_t i = 0; i < n; i++) out[i] = rev[n - 1 - i];
    out[n] = '\0';
    return n;
}

static const uint64_t fp_mod[CUZK_FP_LIMBS] = CUZK__FP_P;
static const uint64_t fr_mod[CUZK_FR_LIMBS] = CUZK__FR_R;

cuzk_status cuzk_fp_from_dec_var(cuzk_fp *r, const char *s, size_t len, cuzk_error *err) {
    uint64_t l[CUZK_FP_LIMBS];
    cuzk_status st = cuzk__dec_to_limbs_var(l, fp_mod, CUZK_FP_LIMBS, "p", s, len, err);
    if (st == CUZK_OK) cuzk_fp_from_limbs(r, l);
    return st;
}

cuzk_status cuzk_fr_from_dec_var(cuzk_fr *r, const char *s, size_t len, cuzk_error *err) {
    uint64_t l[CUZK_FR_LIMBS];
    cuzk_status st = cuzk__dec_to_limbs_var(l, fr_mod, CUZK_FR_LIMBS, "r", s, len, err);
    if (st == CUZK_OK) cuzk_fr_from_limbs(r, l);
    return st;
}

size_t cuzk_fp_to_dec_var(char out[CUZK_FP_DEC_BYTES], const cuzk_fp *a) {
    uint64_t l[CUZK_FP_LIMBS];
    cuzk_fp_to_limbs(l, a);
    return cuzk__limbs_to_dec_var(out, CUZK_FP_DEC_BYTES, l, CUZK_FP_LIMBS);
}

size_t cuzk_fr_to_dec_var(char out[CUZK_FR_DEC_BYTES], const cuzk_fr *a) {
    uint64_t l[CUZK_FR_LIMBS];
    cuzk_fr_to_limbs(l, a);
    return cuzk__limbs_to_dec_var(out, CUZK_FR_DEC_BYTES, l, CUZK_FR_LIMBS);
}

/* ---- reading: context, messages, paths ------------------------------------------ */

typedef struct {
    const char *file;
    cuzk_error *err;
} reader;

#define PATH_BYTES 64

#if defined(__GNUC__)
__attribute__((format(printf, 5, 6)))
#endif
static cuzk_status fail_at(const reader *rd, const cuzk_json *at, const char *path,
                           cuzk_status st, const char *fmt, ...) {
    char reason[CUZK_ERROR_MSG_BYTES];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof(reason), fmt, ap);
    va_end(ap);
    if (path[0] == '\0')
        return cuzk__fail(rd->err, st, "%s:%u:%u: %s", rd->file, (unsigned)at->line,
                          (unsigned)at->col, reason);
    return cuzk__fail(rd->err, st, "%s:%u:%u: %s: %s", rd->file, (unsigned)at->line,
                      (unsigned)at->col, path, reason);
}

/* out = path + "[i]"; paths are short (deepest: "vk_delta_2[0][1]", "IC[n][2]"),
 * a longer one is cut at PATH_BYTES - 1. */
static void sub_path(char out[PATH_BYTES], const char *path, size_t i) {
    char idx[24];
    int k = snprintf(idx, sizeof(idx), "[%zu]", i);
    size_t n = strlen(path), m = k > 0 ? (size_t)k : 0;
    if (n > PATH_BYTES - 1) n = PATH_BYTES - 1;
    if (m > PATH_BYTES - 1 - n) m = PATH_BYTES - 1 - n;
    memcpy(out, path, n);
    memcpy(out + n, idx, m);
    out[n + m] = '\0';
}

static cuzk_status expect_array(const reader *rd, const cuzk_json *v, const char *path,
                                size_t n, const char *shape) {
    if (v->type != CUZK_JSON_ARRAY)
        return fail_at(rd, v, path, CUZK_ERR_BAD_ENCODING, "expected %s, got %s %s", shape,
                       v->type == CUZK_JSON_OBJECT ? "an" : "a", cuzk_json_type_name(v->type));
    if (v->len != n)
        return fail_at(rd, v, path, CUZK_ERR_BAD_ENCODING,
                       "expected %s (%zu elements), got %zu element%s", shape, n, v->len,
                       v->len == 1 ? "" : "s");
    return CUZK_OK;
}

/* A member of an object: missing (when required) or duplicated is an error. */
static cuzk_status member(const reader *rd, const cuzk_json *obj, const char *key, bool required,
                          const cuzk_json **out) {
    *out = NULL;
    size_t n = cuzk_json_count(obj, key);
    if (n > 1) {
        const cuzk_json *second = NULL;
        size_t seen = 0, klen = strlen(key);
        for (size_t i = 0; i < obj->len && second == NULL; i++)
            if (obj->items[i]->key_len == klen && memcmp(obj->items[i]->key, key, klen) == 0 &&
                ++seen == 2)
                second = obj->items[i];
        return fail_at(rd, second, key, CUZK_ERR_BAD_ENCODING, "duplicate key");
    }
    if (n == 0) {
        if (!required) return CUZK_OK;
        return fail_at(rd, obj, key, CUZK_ERR_BAD_ENCODING, "missing");
    }
    *out = cuzk_json_get(obj, key);
    return CUZK_OK;
}

static cuzk_status get_fp(const reader *rd, const cuzk_json *v, const char *path, cuzk_fp *out) {
    if (v->type != CUZK_JSON_STRING)
        return fail_at(rd, v, path, CUZK_ERR_BAD_ENCODING, "expected a decimal string, got %s %s",
                       v->type == CUZK_JSON_ARRAY || v->type == CUZK_JSON_OBJECT ? "an" : "a",
                       cuzk_json_type_name(v->type));
    cuzk_error e;
    cuzk__error_clear(&e);
    cuzk_status st = cuzk_fp_from_dec_var(out, v->str, v->len, &e);
    if (st != CUZK_OK) return fail_at(rd, v, path, st, "%s", cuzk__error_text(&e));
    return CUZK_OK;
}

static cuzk_status get_fp2(const reader *rd, const cuzk_json *v, const char *path, cuzk_fp2 *out) {
    char p[PATH_BYTES];
    cuzk_status st = expect_array(rd, v, path, 2, "[c0, c1]");
    if (st != CUZK_OK) return st;
    sub_path(p, path, 0);
    if ((st = get_fp(rd, v->items[0], p, &out->c0)) != CUZK_OK) return st;
    sub_path(p, path, 1);
    return get_fp(rd, v->items[1], p, &out->c1);
}

static cuzk_status get_g1(const reader *rd, const cuzk_json *v, const char *path,
                          cuzk_g1_aff *out, bool allow_inf) {
    char p[PATH_BYTES];
    cuzk_fp c[3];
    cuzk_status st = expect_array(rd, v, path, 3, "a G1 point [x, y, z]");
    if (st != CUZK_OK) return st;
    for (size_t i = 0; i < 3; i++) {
        sub_path(p, path, i);
        if ((st = get_fp(rd, v->items[i], p, &c[i])) != CUZK_OK) return st;
    }
    cuzk_g1_aff pt;
    if (cuzk_fp_is_zero(&c[2])) {
        if (!cuzk_fp_is_zero(&c[0]) || !cuzk_fp_is_one(&c[1]))
            return fail_at(rd, v, path, CUZK_ERR_BAD_ENCODING,
                           "z = 0 (infinity) must come as [\"0\", \"1\", \"0\"]");
        if (!allow_inf)
            return fail_at(rd, v, path, CUZK_ERR_POINT_AT_INFINITY,
                           "the point at infinity is not allowed here");
        cuzk_g1_aff_set_inf(&pt);
        *out = pt;
        return CUZK_OK;
    }
    if (!cuzk_fp_is_one(&c[2])) {
        sub_path(p, path, 2);
        return fail_at(rd, v->items[2], p, CUZK_ERR_BAD_ENCODING,
                       "z must be \"1\" (affine point) or \"0\" (infinity)");
    }
    pt.x = c[0];
    pt.y = c[1];
    /* (0, 0) is how infinity is held in memory and passes the predicates. */
    if (cuzk_g1_aff_is_inf(&pt) || !cuzk_g1_aff_is_on_curve(&pt))
        return fail_at(rd, v, path, CUZK_ERR_NOT_ON_CURVE, "not on the curve");
    if (!cuzk_g1_aff_in_subgroup_var(&pt))
        return fail_at(rd, v, path, CUZK_ERR_NOT_IN_SUBGROUP, "not in the G1 subgroup");
    *out = pt;
    return CUZK_OK;
}

static cuzk_status get_g2(const reader *rd, const cuzk_json *v, const char *path,
                          cuzk_g2_aff *out, bool allow_inf) {
    char p[PATH_BYTES];
    cuzk_fp2 c[3];
    cuzk_status st = expect_array(rd, v, path, 3, "a G2 point [x, y, z]");
    if (st != CUZK_OK) return st;
    for (size_t i = 0; i < 3; i++) {
        sub_path(p, path, i);
        if ((st = get_fp2(rd, v->items[i], p, &c[i])) != CUZK_OK) return st;
    }
    cuzk_g2_aff pt;
    if (cuzk_fp2_is_zero(&c[2])) {
        if (!cuzk_fp2_is_zero(&c[0]) || !cuzk_fp2_is_one(&c[1]))
            return fail_at(rd, v, path, CUZK_ERR_BAD_ENCODING,
                           "z = 0 (infinity) must come as [[\"0\", \"0\"], [\"1\", \"0\"], "
                           "[\"0\", \"0\"]]");
        if (!allow_inf)
            return fail_at(rd, v, path, CUZK_ERR_POINT_AT_INFINITY,
                           "the point at infinity is not allowed here");
        cuzk_g2_aff_set_inf(&pt);
        *out = pt;
        return CUZK_OK;
    }
    if (!cuzk_fp2_is_one(&c[2])) {
        sub_path(p, path, 2);
        return fail_at(rd, v->items[2], p, CUZK_ERR_BAD_ENCODING,
                       "z must be [\"1\", \"0\"] (affine point) or [\"0\", \"0\"] (infinity)");
    }
    pt.x = c[0];
    pt.y = c[1];
    if (cuzk_g2_aff_is_inf(&pt) || !cuzk_g2_aff_is_on_curve(&pt))
        return fail_at(rd, v, path, CUZK_ERR_NOT_ON_CURVE, "not on the curve");
    if (!cuzk_g2_aff_in_subgroup_var(&pt))
        return fail_at(rd, v, path, CUZK_ERR_NOT_IN_SUBGROUP, "not in the G2 subgroup");
    *out = pt;
    return CUZK_OK;
}

void cuzk__snarkjs_curve_normalize(char *out, size_t cap, const char *name, size_t len) {
    size_t n = 0;
    if (cap == 0) return;
    for (size_t i = 0; i < len && n + 1 < cap; i++) {
        char c = name[i];
        if (c >= 'a' && c <= 'z') c = (char)(c - 'a' + 'A');
        if ((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) out[n++] = c;
    }
    out[n] = '\0';
}

static cuzk_status check_protocol(const reader *rd, const cuzk_json *obj) {
    const cuzk_json *v;
    cuzk_status st = member(rd, obj, "protocol", true, &v);
    if (st != CUZK_OK) return st;
    if (v->type != CUZK_JSON_STRING)
        return fail_at(rd, v, "protocol", CUZK_ERR_BAD_ENCODING, "expected a string, got %s",
                       cuzk_json_type_name(v->type));
    if (!cuzk_json_is_string(v, "groth16")) {
        char ex[32];
        excerpt(ex, sizeof(ex), v->str, v->len);
        return fail_at(rd, v, "protocol", CUZK_ERR_UNSUPPORTED,
                       "\"%s\" is not supported (only \"groth16\")", ex);
    }
    return CUZK_OK;
}

static cuzk_status check_curve(const reader *rd, const cuzk_json *obj, bool required) {
    const cuzk_json *v;
    cuzk_status st = member(rd, obj, "curve", required, &v);
    if (st != CUZK_OK || v == NULL) return st;
    if (v->type != CUZK_JSON_STRING)
        return fail_at(rd, v, "curve", CUZK_ERR_BAD_ENCODING, "expected a string, got %s",
                       cuzk_json_type_name(v->type));
    char norm[16], ex[32];
    /* norm keeps the first 15 alphanumerics; the names compared below are
     * shorter, so a longer name never matches by truncation. */
    cuzk__snarkjs_curve_normalize(norm, sizeof(norm), v->str, v->len);
    excerpt(ex, sizeof(ex), v->str, v->len);
    if (strcmp(norm, "BLS12381") == 0) return CUZK_OK;
    if (strcmp(norm, "BN128") == 0 || strcmp(norm, "BN254") == 0 || strcmp(norm, "ALTBN128") == 0)
        return fail_at(rd, v, "curve", CUZK_ERR_UNSUPPORTED,
                       "\"%s\" (BN254) is not supported: cuzk works on bls12381 only", ex);
    return fail_at(rd, v, "curve", CUZK_ERR_UNSUPPORTED, "unknown curve \"%s\" (expected bls12381)",
                   ex);
}

/* Parses text into *root, prefixing syntax errors with the file name. */
static cuzk_status parse_doc(const reader *rd, cuzk_json **root, const char *text, size_t len,
                             size_t max_bytes) {
    cuzk_error e;
    cuzk__error_clear(&e);
    cuzk_json_limits lim = {max_bytes, 0, 0};
    cuzk_status st = cuzk_json_parse(root, text, len, &lim, &e);
    if (st != CUZK_OK) return cuzk__fail(rd->err, st, "%s: %s", rd->file, cuzk__error_text(&e));
    return CUZK_OK;
}

/* A whole file, at most max bytes (util/readfile.h). */
static cuzk_status read_file(const char *path, size_t max, char **out, size_t *len,
                             cuzk_error *err) {
    uint8_t *buf = NULL;
    const cuzk_status st = cuzk__read_file(path, max, &buf, len, err);
    *out = (char *)buf;
    return st;
}

/* Whole or not at all (util/atomic_write.h): a kill or a full disk leaves
 * the previous file in place, never an empty or truncated one. */
static cuzk_status write_file(const char *path, const char *data, size_t len, cuzk_error *err) {
    const cuzk__write_piece piece = {data, len};
    return cuzk__write_file_atomic(path, &piece, 1, err);
}

/* ---- proof.json ------------------------------------------------------------------ */

cuzk_status cuzk_snarkjs_proof_parse(cuzk_groth16_proof *proof, const char *text, size_t len,
                                     const char *name, cuzk_error *err) {
    reader rd = {name ? name : "proof.json", err};
    cuzk_json *root;
    cuzk__error_clear(err);
    cuzk_status st = parse_doc(&rd, &root, text, len, PROOF_MAX_BYTES);
    if (st != CUZK_OK) return st;
    cuzk_groth16_proof pf;
    const cuzk_json *a = NULL, *b = NULL, *c = NULL;
    if (root->type != CUZK_JSON_OBJECT)
        st = fail_at(&rd, root, "", CUZK_ERR_BAD_ENCODING, "expected an object, got %s %s",
                     root->type == CUZK_JSON_ARRAY ? "an" : "a", cuzk_json_type_name(root->type));
    if (st == CUZK_OK) st = check_protocol(&rd, root);
    if (st == CUZK_OK) st = check_curve(&rd, root, false);
    if (st == CUZK_OK) st = member(&rd, root, "pi_a", true, &a);
    if (st == CUZK_OK) st = member(&rd, root, "pi_b", true, &b);
    if (st == CUZK_OK) st = member(&rd, root, "pi_c", true, &c);
    if (st == CUZK_OK) st = get_g1(&rd, a, "pi_a", &pf.a, true);
    if (st == CUZK_OK) st = get_g2(&rd, b, "pi_b", &pf.b, true);
    if (st == CUZK_OK) st = get_g1(&rd, c, "pi_c", &pf.c, true);
    cuzk_json_free(root);
    if (st == CUZK_OK) *proof = pf;
    return st;
}

cuzk_status cuzk_snarkjs_proof_read(cuzk_groth16_proof *proof, const char *path,
                                    cuzk_error *err) {
    char *buf;
    size_t len;
    cuzk_status st = read_file(path, PROOF_MAX_BYTES, &buf, &len, err);
    if (st != CUZK_OK) return st;
    st = cuzk_snarkjs_proof_parse(proof, buf, len, path, err);
    free(buf);
    return st;
}

/* ---- public.json ----------------------------------------------------------------- */

cuzk_status cuzk_snarkjs_public_parse(cuzk_fr **pub, size_t *n, const char *text, size_t len,
                                      const char *name, cuzk_error *err) {
    reader rd = {name ? name : "public.json", err};
    cuzk_json *root;
    *pub = NULL;
    *n = 0;
    cuzk__error_clear(err);
    cuzk_status st = parse_doc(&rd, &root, text, len, PUBLIC_MAX_BYTES);
    if (st != CUZK_OK) return st;
    cuzk_fr *out = NULL;
    if (root->type != CUZK_JSON_ARRAY) {
        st = fail_at(&rd, root, "", CUZK_ERR_BAD_ENCODING,
                     "expected an array of decimal strings, got %s %s",
                     root->type == CUZK_JSON_OBJECT ? "an" : "a", cuzk_json_type_name(root->type));
    } else if (root->len > 0) {
        out = malloc(root->len * sizeof(cuzk_fr)); /* len <= input bytes: no overflow */
        if (out == NULL)
            st = cuzk__fail(err, CUZK_ERR_NOMEM, "%s: cannot allocate %zu public signals",
                            rd.file, root->len);
        for (size_t i = 0; st == CUZK_OK && i < root->len; i++) {
            const cuzk_json *v = root->items[i];
            char p[PATH_BYTES];
            snprintf(p, sizeof(p), "[%zu]", i);
            if (v->type != CUZK_JSON_STRING) {
                st = fail_at(&rd, v, p, CUZK_ERR_BAD_ENCODING,
                             "expected a decimal string, got %s %s",
                             v->type == CUZK_JSON_ARRAY || v->type == CUZK_JSON_OBJECT ? "an" : "a",
                             cuzk_json_type_name(v->type));
                break;
            }
            cuzk_error e;
            cuzk__error_clear(&e);
            st = cuzk_fr_from_dec_var(&out[i], v->str, v->len, &e);
            if (st != CUZK_OK) st = fail_at(&rd, v, p, st, "%s", cuzk__error_text(&e));
        }
    }
    size_t count = root->type == CUZK_JSON_ARRAY ? root->len : 0;
    cuzk_json_free(root);
    if (st != CUZK_OK) {
        free(out);
        return st;
    }
    *pub = out;
    *n = count;
    return CUZK_OK;
}

cuzk_status cuzk_snarkjs_public_read(cuzk_fr **pub, size_t *n, const char *path,
                                     cuzk_error *err) {
    char *buf;
    size_t len;
    *pub = NULL;
    *n = 0;
    cuzk_status st = read_file(path, PUBLIC_MAX_BYTES, &buf, &len, err);
    if (st != CUZK_OK) return st;
    st = cuzk_snarkjs_public_parse(pub, n, buf, len, path, err);
    free(buf);
    return st;
}

/* ---- verification_key.json ------------------------------------------------------- */

cuzk_status cuzk_snarkjs_vk_parse(cuzk_groth16_vk *vk, const char *text, size_t len,
                                  const char *name, cuzk_error *err) {
    reader rd = {name ? name : "verification_key.json", err};
    cuzk_json *root;
    memset(vk, 0, sizeof(*vk));
    cuzk__error_clear(err);
    cuzk_status st = parse_doc(&rd, &root, text, len, BIG_MAX_BYTES);
    if (st != CUZK_OK) return st;
    cuzk_groth16_vk k;
    memset(&k, 0, sizeof(k));
    const cuzk_json *np = NULL, *alpha = NULL, *beta = NULL, *gamma = NULL, *delta = NULL,
                    *ic = NULL, *ab = NULL;
    uint64_t n_public = 0;
    if (root->type != CUZK_JSON_OBJECT)
        st = fail_at(&rd, root, "", CUZK_ERR_BAD_ENCODING, "expected an object, got %s %s",
                     root->type == CUZK_JSON_ARRAY ? "an" : "a", cuzk_json_type_name(root->type));
    /* Protocol and curve first, so a BN254 or PLONK key fails for that reason
     * and not on its first coordinate. */
    if (st == CUZK_OK) st = check_protocol(&rd, root);
    if (st == CUZK_OK) st = check_curve(&rd, root, true);
    if (st == CUZK_OK) st = member(&rd, root, "nPublic", true, &np);
    if (st == CUZK_OK) st = member(&rd, root, "vk_alpha_1", true, &alpha);
    if (st == CUZK_OK) st = member(&rd, root, "vk_beta_2", true, &beta);
    if (st == CUZK_OK) st = member(&rd, root, "vk_gamma_2", true, &gamma);
    if (st == CUZK_OK) st = member(&rd, root, "vk_delta_2", true, &delta);
    if (st == CUZK_OK) st = member(&rd, root, "vk_alphabeta_12", false, &ab);
    if (st == CUZK_OK) st = member(&rd, root, "IC", true, &ic);
    if (st == CUZK_OK && !cuzk_json_get_u64(np, &n_public)) {
        char ex[32];
        if (np->type == CUZK_JSON_NUMBER)
            excerpt(ex, sizeof(ex), np->str, np->len);
        else
            snprintf(ex, sizeof(ex), "a %s", cuzk_json_type_name(np->type));
        st = fail_at(&rd, np, "nPublic", CUZK_ERR_BAD_ENCODING,
                     "expected a non-negative integer (a JSON number), got %s", ex);
    }
    if (st == CUZK_OK) st = get_g1(&rd, alpha, "vk_alpha_1", &k.alpha1, false);
    if (st == CUZK_OK) st = get_g2(&rd, beta, "vk_beta_2", &k.beta2, false);
    if (st == CUZK_OK) st = get_g2(&rd, gamma, "vk_gamma_2", &k.gamma2, false);
    if (st == CUZK_OK) st = get_g2(&rd, delta, "vk_delta_2", &k.delta2, false);
    if (st == CUZK_OK) {
        if (ic->type != CUZK_JSON_ARRAY)
            st = fail_at(&rd, ic, "IC", CUZK_ERR_BAD_ENCODING,
                         "expected an array of nPublic + 1 G1 points, got %s %s",
                         ic->type == CUZK_JSON_OBJECT ? "an" : "a", cuzk_json_type_name(ic->type));
        else if (n_public >= ic->len || ic->len - n_public != 1)
            st = fail_at(&rd, ic, "IC", CUZK_ERR_BAD_ENCODING,
                         "has %zu points, expected nPublic + 1 = %llu + 1", ic->len,
                         (unsigned long long)n_public);
    }
    if (st == CUZK_OK) {
        /* ic->len <= input bytes, so the product cannot overflow. */
        k.n_public = (size_t)n_public;
        k.ic = malloc(ic->len * sizeof(cuzk_g1_aff));
        if (k.ic == NULL)
            st = cuzk__fail(err, CUZK_ERR_NOMEM, "%s: cannot allocate %zu IC points", rd.file,
                            ic->len);
        for (size_t i = 0; st == CUZK_OK && i < ic->len; i++) {
            char p[PATH_BYTES];
            sub_path(p, "IC", i);
            st = get_g1(&rd, ic->items[i], p, &k.ic[i], false);
        }
    }
    cuzk_json_free(root);
    if (st != CUZK_OK) {
        free(k.ic);
        return st;
    }
    *vk = k;
    return CUZK_OK;
}

cuzk_status cuzk_snarkjs_vk_read(cuzk_groth16_vk *vk, const char *path, cuzk_error *err) {
    char *buf;
    size_t len;
    memset(vk, 0, sizeof(*vk));
    cuzk_status st = read_file(path, BIG_MAX_BYTES, &buf, &len, err);
    if (st != CUZK_OK) return st;
    st = cuzk_snarkjs_vk_parse(vk, buf, len, path, err);
    free(buf);
    return st;
}

/* ---- writers ----------------------------------------------------------------------- */

#define KEY(w, k) cuzk_json_key((w), (k), sizeof(k) - 1)
#define STR(w, s) cuzk_json_string((w), (s), sizeof(s) - 1)

static void put_fp(cuzk_json_writer *w, const cuzk_fp *a) {
    char d[CUZK_FP_DEC_BYTES];
    size_t n = cuzk_fp_to_dec_var(d, a);
    cuzk_json_string(w, d, n);
}

static void put_fp2(cuzk_json_writer *w, const cuzk_fp2 *a) {
    cuzk_json_begin_array(w);
    put_fp(w, &a->c0);
    put_fp(w, &a->c1);
    cuzk_json_end_array(w);
}

static void put_g1(cuzk_json_writer *w, const cuzk_g1_aff *a) {
    cuzk_json_begin_array(w);
    if (cuzk_g1_aff_is_inf(a)) {
        STR(w, "0");
        STR(w, "1");
        STR(w, "0");
    } else {
        put_fp(w, &a->x);
        put_fp(w, &a->y);
        STR(w, "1");
    }
    cuzk_json_end_array(w);
}

static void put_pair(cuzk_json_writer *w, const char *c0, const char *c1) {
    cuzk_json_begin_array(w);
    cuzk_json_string(w, c0, 1);
    cuzk_json_string(w, c1, 1);
    cuzk_json_end_array(w);
}

static void put_g2(cuzk_json_writer *w, const cuzk_g2_aff *a) {
    cuzk_json_begin_array(w);
    if (cuzk_g2_aff_is_inf(a)) {
        put_pair(w, "0", "0");
        put_pair(w, "1", "0");
        put_pair(w, "0", "0");
    } else {
        put_fp2(w, &a->x);
        put_fp2(w, &a->y);
        put_pair(w, "1", "0");
    }
    cuzk_json_end_array(w);
}

static void put_fp6(cuzk_json_writer *w, const cuzk_fp6 *a) {
    cuzk_json_begin_array(w);
    put_fp2(w, &a->c0);
    put_fp2(w, &a->c1);
    put_fp2(w, &a->c2);
    cuzk_json_end_array(w);
}

cuzk_status cuzk_snarkjs_proof_format(char **out, size_t *len, const cuzk_groth16_proof *proof) {
    cuzk_json_writer w;
    cuzk_json_writer_init(&w, 1);
    cuzk_json_begin_object(&w);
    KEY(&w, "pi_a");
    put_g1(&w, &proof->a);
    KEY(&w, "pi_b");
    put_g2(&w, &proof->b);
    KEY(&w, "pi_c");
    put_g1(&w, &proof->c);
    KEY(&w, "protocol");
    STR(&w, "groth16");
    KEY(&w, "curve");
    STR(&w, "bls12381");
    cuzk_json_end_object(&w);
    return cuzk_json_writer_finish(&w, out, len);
}

cuzk_status cuzk_snarkjs_public_format(char **out, size_t *len, const cuzk_fr *pub, size_t n) {
    cuzk_json_writer w;
    cuzk_json_writer_init(&w, 1);
    cuzk_json_begin_array(&w);
    for (size_t i = 0; i < n; i++) {
        char d[CUZK_FR_DEC_BYTES];
        size_t k = cuzk_fr_to_dec_var(d, &pub[i]);
        cuzk_json_string(&w, d, k);
    }
    cuzk_json_end_array(&w);
    return cuzk_json_writer_finish(&w, out, len);
}

cuzk_status cuzk_snarkjs_vk_format(char **out, size_t *len, const cuzk_groth16_vk *vk,
                                   const cuzk_fp12 *alphabeta) {
    cuzk_json_writer w;
    char num[24];
    cuzk_json_writer_init(&w, 1);
    cuzk_json_begin_object(&w);
    KEY(&w, "protocol");
    STR(&w, "groth16");
    KEY(&w, "curve");
    STR(&w, "bls12381");
    KEY(&w, "nPublic");
    int k = snprintf(num, sizeof(num), "%llu", (unsigned long long)vk->n_public);
    cuzk_json_raw(&w, num, (size_t)k);
    KEY(&w, "vk_alpha_1");
    put_g1(&w, &vk->alpha1);
    KEY(&w, "vk_beta_2");
    put_g2(&w, &vk->beta2);
    KEY(&w, "vk_gamma_2");
    put_g2(&w, &vk->gamma2);
    KEY(&w, "vk_delta_2");
    put_g2(&w, &vk->delta2);
    if (alphabeta != NULL) {
        KEY(&w, "vk_alphabeta_12");
        cuzk_json_begin_array(&w);
        put_fp6(&w, &alphabeta->c0);
        put_fp6(&w, &alphabeta->c1);
        cuzk_json_end_array(&w);
    }
    KEY(&w, "IC");
    cuzk_json_begin_array(&w);
    for (size_t i = 0; i <= vk->n_public; i++) put_g1(&w, &vk->ic[i]);
    cuzk_json_end_array(&w);
    cuzk_json_end_object(&w);
    return cuzk_json_writer_finish(&w, out, len);
}

static cuzk_status format_failed(const char *path, cuzk_error *err) {
    return cuzk__fail(err, CUZK_ERR_NOMEM, "%s: out of memory while formatting", path);
}

cuzk_status cuzk_snarkjs_proof_write(const char *path, const cuzk_groth16_proof *proof,
                                     cuzk_error *err) {
    char *text;
    size_t len;
    if (cuzk_snarkjs_proof_format(&text, &len, proof) != CUZK_OK) return format_failed(path, err);
    cuzk_status st = write_file(path, text, len, err);
    free(text);
    return st;
}

cuzk_status cuzk_snarkjs_public_write(const char *path, const cuzk_fr *pub, size_t n,
                                      cuzk_error *err) {
    char *text;
    size_t len;
    if (cuzk_snarkjs_public_format(&text, &len, pub, n) != CUZK_OK)
        return format_failed(path, err);
    cuzk_status st = write_file(path, text, len, err);
    free(text);
    return st;
}

cuzk_status cuzk_snarkjs_vk_write(const char *path, const cuzk_groth16_vk *vk,
                                  const cuzk_fp12 *alphabeta, cuzk_error *err) {
    char *text;
    size_t len;
    if (cuzk_snarkjs_vk_format(&text, &len, vk, alphabeta) != CUZK_OK)
        return format_failed(path, err);
    cuzk_status st = write_file(path, text, len, err);
    free(text);
    return st;
}
