/*
 * test_noble.c — cuzk against @noble/curves 2.4.0, an independent BLS12-381
 * implementation in JavaScript. The ctest fixture noble_vectors_gen runs
 * tests/js/gen_noble_vectors.mjs with a fresh seed and writes a text file of
 * cases (its header comment documents the format); this binary reads it
 * (path in CUZK_NOBLE_VECTORS or as the first argument) and recomputes every
 * case with cuzk: field arithmetic (Fp, Fp2, Fr, Fp12), scalar multiplication,
 * addition, zcash encode/decode with their error statuses, subgroup verdicts
 * and the pairing. The generator's seed is printed so a failure can be replayed
 * (CUZK_SEED=<seed> ctest -R noble).
 */
#include <errno.h>
#include <stdbool.h>

#include "cuzk.h"
#include "ec/encode.h"
#include "ff/fp12.h"
#include "ff/fr.h"
#include "harness.h"
#include "pairing/pairing.h"

/* ---- the vector file ----------------------------------------------------- */

#define MAX_TOKENS 40

typedef struct {
    const char *kind;
    int line;
    int ntok;
    const char *tok[MAX_TOKENS];
} vec_rec;

static vec_rec *g_recs;
static size_t g_nrecs;
static char g_noble_seed[32] = "?";
static char *g_buf;

/* Like CHECK, and names the vector line that failed. */
#define VCHECK(rec, cond)                                                                     \
    do {                                                                                      \
        if (!(cond)) {                                                                        \
            cuzk_test_checks_failed++;                                                        \
            fprintf(stderr, "%s:%d: check failed: %s (vector line %d, %s; noble seed %s)\n",  \
                    __FILE__, __LINE__, #cond, (rec)->line, (rec)->kind, g_noble_seed);       \
        }                                                                                     \
    } while (0)

static bool load_vectors(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "test_noble: cannot open %s: %s\n", path, strerror(errno));
        return false;
    }
    if (fseek(f, 0, SEEK_END) != 0) {
        fclose(f);
        return false;
    }
    long size = ftell(f);
    rewind(f);
    char *buf = malloc((size_t)size + 1);
    if (!buf || size < 0 || fread(buf, 1, (size_t)size, f) != (size_t)size) {
        fprintf(stderr, "test_noble: cannot read %s\n", path);
        fclose(f);
        free(buf);
        return false;
    }
    fclose(f);
    buf[size] = 0;
    g_buf = buf; /* the records point into it */

    size_t cap = 0;
    int lineno = 0;
    bool header = false, end = false;
    for (char *line = buf, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next) *next++ = 0;
        lineno++;
        char *hash = strchr(line, '#');
        if (hash) *hash = 0;
        vec_rec rec = {.line = lineno};
        for (char *t = strtok(line, " \t\r"); t; t = strtok(NULL, " \t\r")) {
            if (!rec.kind) {
                rec.kind = t;
            } else if (rec.ntok < MAX_TOKENS) {
                rec.tok[rec.ntok++] = t;
            } else {
                fprintf(stderr, "test_noble: %s:%d: too many tokens\n", path, lineno);
                return false;
            }
        }
        if (!rec.kind) continue;
        if (!header) {
            /* noble-vectors 1 seed=<seed> noble=<version> */
            if (strcmp(rec.kind, "noble-vectors") != 0 || rec.ntok < 2 ||
                strcmp(rec.tok[0], "1") != 0 || strncmp(rec.tok[1], "seed=", 5) != 0) {
                fprintf(stderr, "test_noble: %s: not a version-1 noble vector file\n", path);
                return false;
            }
            snprintf(g_noble_seed, sizeof(g_noble_seed), "%s", rec.tok[1] + 5);
            header = true;
            continue;
        }
        if (strcmp(rec.kind, "end") == 0) {
            end = true;
            break;
        }
        if (g_nrecs == cap) {
            cap = cap ? 2 * cap : 512;
            vec_rec *n = realloc(g_recs, cap * sizeof(*n));
            if (!n) return false;
            g_recs = n;
        }
        g_recs[g_nrecs++] = rec;
    }
    if (!end) { /* a generator that died half-way must not pass as fewer cases */
        fprintf(stderr, "test_noble: %s: no 'end' line (truncated file?)\n", path);
        return false;
    }
    printf("test_noble: %zu vectors from %s (noble seed %s; replay with CUZK_SEED=%s)\n",
           g_nrecs, path, g_noble_seed, g_noble_seed);
    return true;
}

/* Calls fn on every record of the kind with exactly ntok tokens (any count when
 * ntok < 0: fn checks); a record of the kind with another count is itself a
 * failure. Returns how many ran. */
static size_t for_each(const char *kind, int ntok, void (*fn)(const vec_rec *)) {
    size_t n = 0;
    for (size_t i = 0; i < g_nrecs; i++) {
        const vec_rec *r = &g_recs[i];
        if (strcmp(r->kind, kind) != 0) continue;
        VCHECK(r, ntok < 0 || r->ntok == ntok);
        if (ntok >= 0 && r->ntok != ntok) continue;
        fn(r);
        n++;
    }
    return n;
}

/* Each kind must be present: a generator that silently emits nothing for a
 * kind would otherwise make that part of the test unable to fail. */
#define RUN_KIND(kind, ntok, fn, min)                                                 \
    do {                                                                              \
        size_t cnt_ = for_each(kind, ntok, fn);                                       \
        if (cnt_ < (size_t)(min)) {                                                   \
            cuzk_test_checks_failed++;                                                \
            fprintf(stderr, "%s:%d: only %zu '%s' vectors, expected at least %d\n",   \
                    __FILE__, __LINE__, cnt_, kind, (int)(min));                      \
        }                                                                             \
    } while (0)

/* ---- token decoding ------------------------------------------------------ */

static int hexval(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Exactly 2n hex digits. */
static bool hex_decode(uint8_t *out, size_t n, const char *tok) {
    if (strlen(tok) != 2 * n) return false;
    for (size_t i = 0; i < n; i++) {
        int hi = hexval(tok[2 * i]), lo = hexval(tok[2 * i + 1]);
        if (hi < 0 || lo < 0) return false;
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    return true;
}

/* Decoders of tokens that the generator always writes well-formed: a bad one
 * is a failure of the vector file, reported against its line. */
static cuzk_fp tok_fp(const vec_rec *r, int i) {
    uint8_t b[CUZK_FP_BYTES];
    cuzk_fp v;
    cuzk_fp_set_zero(&v);
    bool ok = hex_decode(b, sizeof(b), r->tok[i]) && cuzk_fp_from_bytes_be(&v, b);
    VCHECK(r, ok);
    return v;
}

static cuzk_fp2 tok_fp2(const vec_rec *r, int i) {
    cuzk_fp2 v;
    v.c0 = tok_fp(r, i);
    v.c1 = tok_fp(r, i + 1);
    return v;
}

static cuzk_fr tok_fr(const vec_rec *r, int i) {
    uint8_t b[CUZK_FR_BYTES];
    cuzk_fr v;
    cuzk_fr_set_zero(&v);
    bool ok = hex_decode(b, sizeof(b), r->tok[i]) && cuzk_fr_from_bytes_be(&v, b);
    VCHECK(r, ok);
    return v;
}

/* A 32-byte big-endian scalar (any value below 2^256) as little-endian limbs. */
static void tok_scalar(uint64_t k[4], const vec_rec *r, int i) {
    uint8_t b[32] = {0};
    VCHECK(r, hex_decode(b, sizeof(b), r->tok[i]));
    for (int w = 0; w < 4; w++) {
        k[w] = 0;
        for (int j = 0; j < 8; j++) k[w] = (k[w] << 8) | b[(3 - w) * 8 + j];
    }
}

/* Bytes of any length; returns the length (0 on a malformed token). */
static size_t tok_bytes(uint8_t *out, size_t cap, const vec_rec *r, int i) {
    size_t n = strlen(r->tok[i]) / 2;
    bool ok = n <= cap && hex_decode(out, n, r->tok[i]);
    VCHECK(r, ok);
    return ok ? n : 0;
}

static bool fp_is_tok(const cuzk_fp *a, const vec_rec *r, int i) {
    uint8_t want[CUZK_FP_BYTES], got[CUZK_FP_BYTES];
    if (!hex_decode(want, sizeof(want), r->tok[i])) return false;
    cuzk_fp_to_bytes_be(got, a);
    return memcmp(want, got, sizeof(got)) == 0;
}

static bool fp2_is_tok(const cuzk_fp2 *a, const vec_rec *r, int i) {
    return fp_is_tok(&a->c0, r, i) && fp_is_tok(&a->c1, r, i + 1);
}

static bool fr_is_tok(const cuzk_fr *a, const vec_rec *r, int i) {
    uint8_t want[CUZK_FR_BYTES], got[CUZK_FR_BYTES];
    if (!hex_decode(want, sizeof(want), r->tok[i])) return false;
    cuzk_fr_to_bytes_be(got, a);
    return memcmp(want, got, sizeof(got)) == 0;
}

static bool bytes_are_tok(const uint8_t *b, size_t n, const vec_rec *r, int i) {
    uint8_t want[CUZK_G2_UNCOMPRESSED_BYTES];
    if (n > sizeof(want) || !hex_decode(want, n, r->tok[i])) return false;
    return memcmp(want, b, n) == 0;
}

/* Fp12 coefficient k (0..11) in the documented order c0.c0.c0, c0.c0.c1, ...,
 * c1.c2.c1: w-index, then v-index, then u-index. */
static cuzk_fp *fp12_coeff(cuzk_fp12 *f, int k) {
    cuzk_fp6 *g = k < 6 ? &f->c0 : &f->c1;
    cuzk_fp2 *h = (k % 6) / 2 == 0 ? &g->c0 : (k % 6) / 2 == 1 ? &g->c1 : &g->c2;
    return k % 2 ? &h->c1 : &h->c0;
}

static cuzk_fp12 tok_fp12(const vec_rec *r, int first) {
    cuzk_fp12 f;
    for (int k = 0; k < 12; k++) *fp12_coeff(&f, k) = tok_fp(r, first + k);
    return f;
}

static bool fp12_is_tok(const cuzk_fp12 *f, const vec_rec *r, int first) {
    cuzk_fp12 t = *f;
    bool ok = true;
    for (int k = 0; k < 12; k++) ok &= fp_is_tok(fp12_coeff(&t, k), r, first + k);
    return ok;
}

/* ---- fields -------------------------------------------------------------- */

static void fp_mul_case(const vec_rec *r) {
    cuzk_fp a = tok_fp(r, 0), b = tok_fp(r, 1), c;
    cuzk_fp_mul(&c, &a, &b);
    VCHECK(r, fp_is_tok(&c, r, 2));
    if (cuzk_fp_eq(&a, &b)) {
        cuzk_fp_sqr(&c, &a);
        VCHECK(r, fp_is_tok(&c, r, 2));
    }
}

static void fp_inv_case(const vec_rec *r) {
    cuzk_fp a = tok_fp(r, 0), c;
    cuzk_fp_inv(&c, &a);
    VCHECK(r, fp_is_tok(&c, r, 1));
    cuzk_fp_inv_var(&c, &a);
    VCHECK(r, fp_is_tok(&c, r, 1));
}

static void fp_sqrt_case(const vec_rec *r) {
    cuzk_fp a = tok_fp(r, 0), s;
    cuzk_fp_set_zero(&s);
    bool square = strcmp(r->tok[1], "-") != 0;
    VCHECK(r, cuzk_fp_sqrt(&s, &a) == square);
    VCHECK(r, cuzk_fp_is_square(&a) == square);
    /* fp.h promises the root a^((p+1)/4), which is what noble returns too. */
    if (square) VCHECK(r, fp_is_tok(&s, r, 1));
}

static void fp2_mul_case(const vec_rec *r) {
    cuzk_fp2 a = tok_fp2(r, 0), b = tok_fp2(r, 2), c;
    cuzk_fp2_mul(&c, &a, &b);
    VCHECK(r, fp2_is_tok(&c, r, 4));
}

static void fp2_inv_case(const vec_rec *r) {
    cuzk_fp2 a = tok_fp2(r, 0), c;
    cuzk_fp2_inv(&c, &a);
    VCHECK(r, fp2_is_tok(&c, r, 2));
    cuzk_fp2_inv_var(&c, &a);
    VCHECK(r, fp2_is_tok(&c, r, 2));
}

static void fp2_sqrt_case(const vec_rec *r) {
    cuzk_fp2 a = tok_fp2(r, 0), s, ns;
    cuzk_fp2_set_zero(&s);
    bool square = strcmp(r->tok[2], "-") != 0;
    VCHECK(r, cuzk_fp2_sqrt_var(&s, &a) == square);
    if (square) { /* fp2.h does not fix the sign of the root */
        cuzk_fp2_neg(&ns, &s);
        VCHECK(r, fp2_is_tok(&s, r, 2) || fp2_is_tok(&ns, r, 2));
    }
}

static void fr_mul_case(const vec_rec *r) {
    cuzk_fr a = tok_fr(r, 0), b = tok_fr(r, 1), c;
    cuzk_fr_mul(&c, &a, &b);
    VCHECK(r, fr_is_tok(&c, r, 2));
}

static void fr_inv_case(const vec_rec *r) {
    cuzk_fr a = tok_fr(r, 0), c;
    cuzk_fr_inv(&c, &a);
    VCHECK(r, fr_is_tok(&c, r, 1));
    cuzk_fr_inv_var(&c, &a);
    VCHECK(r, fr_is_tok(&c, r, 1));
}

static void fp12_mul_case(const vec_rec *r) {
    cuzk_fp12 a = tok_fp12(r, 0), b = tok_fp12(r, 12), c;
    cuzk_fp12_mul(&c, &a, &b);
    VCHECK(r, fp12_is_tok(&c, r, 24));
}

static void run_field_kinds(void) {
    RUN_KIND("fp_mul", 3, fp_mul_case, 20);
    RUN_KIND("fp_inv", 2, fp_inv_case, 20);
    RUN_KIND("fp_sqrt", 2, fp_sqrt_case, 20);
    RUN_KIND("fp2_mul", 6, fp2_mul_case, 10);
    RUN_KIND("fp2_inv", 4, fp2_inv_case, 10);
    RUN_KIND("fp2_sqrt", 4, fp2_sqrt_case, 10);
    RUN_KIND("fr_mul", 3, fr_mul_case, 20);
    RUN_KIND("fr_inv", 2, fr_inv_case, 20);
    RUN_KIND("fp12_mul", 36, fp12_mul_case, 5);
}

static void test_fields(void) { run_field_kinds(); }

/* The same cases through the portable C kernels (the default may be the
 * x86-64 ADX assembly). */
static void test_fields_portable(void) {
    cuzk_cpu_force_portable(1);
    run_field_kinds();
    cuzk_cpu_force_portable(0);
}

/* ---- G1 ------------------------------------------------------------------ */

/* Decode noble's bytes with every check; on failure the case fails. */
static cuzk_g1_aff g1_from_tok(const vec_rec *r, int i) {
    uint8_t b[CUZK_G1_UNCOMPRESSED_BYTES];
    size_t n = tok_bytes(b, sizeof(b), r, i);
    cuzk_g1_aff p;
    cuzk_g1_aff_set_inf(&p);
    cuzk_status st = cuzk_g1_from_zcash(&p, b, n, 0);
    VCHECK(r, st == CUZK_OK);
    return p;
}

static void g1_check_encodings(const vec_rec *r, const cuzk_g1_aff *p, int ic, int iu) {
    uint8_t c[CUZK_G1_COMPRESSED_BYTES], u[CUZK_G1_UNCOMPRESSED_BYTES];
    cuzk_g1_to_zcash_compressed(c, p);
    cuzk_g1_to_zcash_uncompressed(u, p);
    VCHECK(r, bytes_are_tok(c, sizeof(c), r, ic));
    VCHECK(r, bytes_are_tok(u, sizeof(u), r, iu));
}

static void g1_mul_case(const vec_rec *r) {
    uint64_t k[4];
    tok_scalar(k, r, 0);
    cuzk_g1_aff g, p;
    cuzk_g1_jac gj, q;
    cuzk_g1_generator(&g);
    cuzk_g1_aff_to_jac(&gj, &g);

    cuzk_g1_jac_mul(&q, &gj, k, 4);
    cuzk_g1_jac_to_aff(&p, &q);
    g1_check_encodings(r, &p, 1, 2);
    cuzk_g1_jac_mul_var(&q, &gj, k, 4);
    cuzk_g1_jac_to_aff(&p, &q);
    g1_check_encodings(r, &p, 1, 2);

    /* noble's bytes decode, both forms, to the same point. */
    cuzk_g1_aff dc = g1_from_tok(r, 1), du = g1_from_tok(r, 2);
    VCHECK(r, cuzk_g1_aff_eq(&dc, &p));
    VCHECK(r, cuzk_g1_aff_eq(&du, &p));
    uint8_t b[CUZK_G1_UNCOMPRESSED_BYTES];
    size_t n = tok_bytes(b, sizeof(b), r, 1);
    VCHECK(r, cuzk_g1_validate(b, n) == CUZK_OK);
    n = tok_bytes(b, sizeof(b), r, 2);
    VCHECK(r, cuzk_g1_validate(b, n) == CUZK_OK);
}

static void g1_add_case(const vec_rec *r) {
    cuzk_g1_aff p = g1_from_tok(r, 2), q = g1_from_tok(r, 3), s, want = g1_from_tok(r, 4);
    cuzk_g1_jac pj, qj, sj;
    cuzk_g1_aff_to_jac(&pj, &p);
    cuzk_g1_aff_to_jac(&qj, &q);

    cuzk_g1_jac_add(&sj, &pj, &qj);
    cuzk_g1_jac_to_aff(&s, &sj);
    VCHECK(r, cuzk_g1_aff_eq(&s, &want));
    uint8_t u[CUZK_G1_UNCOMPRESSED_BYTES];
    cuzk_g1_to_zcash_uncompressed(u, &s);
    VCHECK(r, bytes_are_tok(u, sizeof(u), r, 4));

    cuzk_g1_jac_add_aff(&sj, &pj, &q);
    cuzk_g1_jac_to_aff(&s, &sj);
    VCHECK(r, cuzk_g1_aff_eq(&s, &want));

    cuzk_g1_xyzz x, y;
    cuzk_g1_xyzz_set_inf(&x);
    cuzk_g1_xyzz_add_aff(&x, &x, &p); /* x = P */
    cuzk_g1_xyzz_set_inf(&y);
    cuzk_g1_xyzz_add_aff(&y, &y, &q); /* y = Q */
    cuzk_g1_xyzz_add(&y, &x, &y);
    cuzk_g1_xyzz_to_jac(&sj, &y);
    cuzk_g1_jac_to_aff(&s, &sj);
    VCHECK(r, cuzk_g1_aff_eq(&s, &want));
    cuzk_g1_xyzz_add_aff(&x, &x, &q);
    cuzk_g1_xyzz_to_jac(&sj, &x);
    cuzk_g1_jac_to_aff(&s, &sj);
    VCHECK(r, cuzk_g1_aff_eq(&s, &want));

    if (cuzk_g1_aff_eq(&p, &q)) {
        cuzk_g1_jac_dbl(&sj, &pj);
        cuzk_g1_jac_to_aff(&s, &sj);
        VCHECK(r, cuzk_g1_aff_eq(&s, &want));
    }
}

/* A point on E(Fp) that noble says is (sub) or is not (nosub) in G1. */
static void g1_curve_case(const vec_rec *r) {
    bool sub = strcmp(r->tok[2], "sub") == 0;
    VCHECK(r, sub || strcmp(r->tok[2], "nosub") == 0);
    cuzk_g1_aff pt[2];
    for (int i = 0; i < 2; i++) {
        uint8_t b[CUZK_G1_UNCOMPRESSED_BYTES];
        size_t n = tok_bytes(b, sizeof(b), r, i);
        cuzk_g1_aff p;
        cuzk_g1_aff_set_inf(&p);
        VCHECK(r, cuzk_g1_from_zcash(&p, b, n, CUZK_DECODE_NO_SUBGROUP_CHECK) == CUZK_OK);
        VCHECK(r, cuzk_g1_aff_is_on_curve(&p));
        VCHECK(r, cuzk_g1_aff_in_subgroup_var(&p) == sub);
        VCHECK(r, cuzk_g1_aff_in_subgroup_naive_var(&p) == sub);
        cuzk_g1_aff before = p;
        cuzk_status st = cuzk_g1_from_zcash(&p, b, n, 0);
        VCHECK(r, st == (sub ? CUZK_OK : CUZK_ERR_NOT_IN_SUBGROUP));
        VCHECK(r, cuzk_g1_aff_eq(&p, &before)); /* same point, or untouched */
        VCHECK(r, cuzk_g1_validate(b, n) == st);
        pt[i] = p;
    }
    VCHECK(r, cuzk_g1_aff_eq(&pt[0], &pt[1]));
    /* The encoders do not care about the subgroup: they give noble's bytes back. */
    g1_check_encodings(r, &pt[0], 0, 1);
}

static bool status_matches_reason(cuzk_status st, const char *reason) {
    if (strcmp(reason, "flags") == 0)
        return st == CUZK_ERR_BAD_ENCODING || st == CUZK_ERR_BAD_LENGTH;
    if (strcmp(reason, "noncanonical") == 0) return st == CUZK_ERR_NOT_CANONICAL;
    if (strcmp(reason, "notoncurve") == 0) return st == CUZK_ERR_NOT_ON_CURVE;
    return false;
}

static void g1_bad_case(const vec_rec *r) {
    uint8_t b[CUZK_G1_UNCOMPRESSED_BYTES];
    size_t n = tok_bytes(b, sizeof(b), r, 0);
    cuzk_g1_aff p, sentinel;
    cuzk_g1_generator(&sentinel);
    for (unsigned flags = 0; flags <= CUZK_DECODE_NO_SUBGROUP_CHECK; flags++) {
        p = sentinel;
        cuzk_status st = cuzk_g1_from_zcash(&p, b, n, flags);
        VCHECK(r, status_matches_reason(st, r->tok[1]));
        VCHECK(r, cuzk_g1_aff_eq(&p, &sentinel)); /* untouched on failure */
    }
    VCHECK(r, status_matches_reason(cuzk_g1_validate(b, n), r->tok[1]));
}

/* ---- G2 ------------------------------------------------------------------ */

static cuzk_g2_aff g2_from_tok(const vec_rec *r, int i) {
    uint8_t b[CUZK_G2_UNCOMPRESSED_BYTES];
    size_t n = tok_bytes(b, sizeof(b), r, i);
    cuzk_g2_aff p;
    cuzk_g2_aff_set_inf(&p);
    cuzk_status st = cuzk_g2_from_zcash(&p, b, n, 0);
    VCHECK(r, st == CUZK_OK);
    return p;
}

static void g2_check_encodings(const vec_rec *r, const cuzk_g2_aff *p, int ic, int iu) {
    uint8_t c[CUZK_G2_COMPRESSED_BYTES], u[CUZK_G2_UNCOMPRESSED_BYTES];
    cuzk_g2_to_zcash_compressed(c, p);
    cuzk_g2_to_zcash_uncompressed(u, p);
    VCHECK(r, bytes_are_tok(c, sizeof(c), r, ic));
    VCHECK(r, bytes_are_tok(u, sizeof(u), r, iu));
}

static void g2_mul_case(const vec_rec *r) {
    uint64_t k[4];
    tok_scalar(k, r, 0);
    cuzk_g2_aff g, p;
    cuzk_g2_jac gj, q;
    cuzk_g2_generator(&g);
    cuzk_g2_aff_to_jac(&gj, &g);

    cuzk_g2_jac_mul(&q, &gj, k, 4);
    cuzk_g2_jac_to_aff(&p, &q);
    g2_check_encodings(r, &p, 1, 2);
    cuzk_g2_jac_mul_var(&q, &gj, k, 4);
    cuzk_g2_jac_to_aff(&p, &q);
    g2_check_encodings(r, &p, 1, 2);

    cuzk_g2_aff dc = g2_from_tok(r, 1), du = g2_from_tok(r, 2);
    VCHECK(r, cuzk_g2_aff_eq(&dc, &p));
    VCHECK(r, cuzk_g2_aff_eq(&du, &p));
    uint8_t b[CUZK_G2_UNCOMPRESSED_BYTES];
    size_t n = tok_bytes(b, sizeof(b), r, 1);
    VCHECK(r, cuzk_g2_validate(b, n) == CUZK_OK);
    n = tok_bytes(b, sizeof(b), r, 2);
    VCHECK(r, cuzk_g2_validate(b, n) == CUZK_OK);
}

static void g2_add_case(const vec_rec *r) {
    cuzk_g2_aff p = g2_from_tok(r, 2), q = g2_from_tok(r, 3), s, want = g2_from_tok(r, 4);
    cuzk_g2_jac pj, qj, sj;
    cuzk_g2_aff_to_jac(&pj, &p);
    cuzk_g2_aff_to_jac(&qj, &q);

    cuzk_g2_jac_add(&sj, &pj, &qj);
    cuzk_g2_jac_to_aff(&s, &sj);
    VCHECK(r, cuzk_g2_aff_eq(&s, &want));
    uint8_t u[CUZK_G2_UNCOMPRESSED_BYTES];
    cuzk_g2_to_zcash_uncompressed(u, &s);
    VCHECK(r, bytes_are_tok(u, sizeof(u), r, 4));

    cuzk_g2_jac_add_aff(&sj, &pj, &q);
    cuzk_g2_jac_to_aff(&s, &sj);
    VCHECK(r, cuzk_g2_aff_eq(&s, &want));

    cuzk_g2_xyzz x, y;
    cuzk_g2_xyzz_set_inf(&x);
    cuzk_g2_xyzz_add_aff(&x, &x, &p);
    cuzk_g2_xyzz_set_inf(&y);
    cuzk_g2_xyzz_add_aff(&y, &y, &q);
    cuzk_g2_xyzz_add(&y, &x, &y);
    cuzk_g2_xyzz_to_jac(&sj, &y);
    cuzk_g2_jac_to_aff(&s, &sj);
    VCHECK(r, cuzk_g2_aff_eq(&s, &want));
    cuzk_g2_xyzz_add_aff(&x, &x, &q);
    cuzk_g2_xyzz_to_jac(&sj, &x);
    cuzk_g2_jac_to_aff(&s, &sj);
    VCHECK(r, cuzk_g2_aff_eq(&s, &want));

    if (cuzk_g2_aff_eq(&p, &q)) {
        cuzk_g2_jac_dbl(&sj, &pj);
        cuzk_g2_jac_to_aff(&s, &sj);
        VCHECK(r, cuzk_g2_aff_eq(&s, &want));
    }
}

static void g2_curve_case(const vec_rec *r) {
    bool sub = strcmp(r->tok[2], "sub") == 0;
    VCHECK(r, sub || strcmp(r->tok[2], "nosub") == 0);
    cuzk_g2_aff pt[2];
    for (int i = 0; i < 2; i++) {
        uint8_t b[CUZK_G2_UNCOMPRESSED_BYTES];
        size_t n = tok_bytes(b, sizeof(b), r, i);
        cuzk_g2_aff p;
        cuzk_g2_aff_set_inf(&p);
        VCHECK(r, cuzk_g2_from_zcash(&p, b, n, CUZK_DECODE_NO_SUBGROUP_CHECK) == CUZK_OK);
        VCHECK(r, cuzk_g2_aff_is_on_curve(&p));
        VCHECK(r, cuzk_g2_aff_in_subgroup_var(&p) == sub);
        VCHECK(r, cuzk_g2_aff_in_subgroup_naive_var(&p) == sub);
        cuzk_g2_aff before = p;
        cuzk_status st = cuzk_g2_from_zcash(&p, b, n, 0);
        VCHECK(r, st == (sub ? CUZK_OK : CUZK_ERR_NOT_IN_SUBGROUP));
        VCHECK(r, cuzk_g2_aff_eq(&p, &before));
        VCHECK(r, cuzk_g2_validate(b, n) == st);
        pt[i] = p;
    }
    VCHECK(r, cuzk_g2_aff_eq(&pt[0], &pt[1]));
    g2_check_encodings(r, &pt[0], 0, 1);
}

static void g2_bad_case(const vec_rec *r) {
    uint8_t b[CUZK_G2_UNCOMPRESSED_BYTES];
    size_t n = tok_bytes(b, sizeof(b), r, 0);
    cuzk_g2_aff p, sentinel;
    cuzk_g2_generator(&sentinel);
    for (unsigned flags = 0; flags <= CUZK_DECODE_NO_SUBGROUP_CHECK; flags++) {
        p = sentinel;
        cuzk_status st = cuzk_g2_from_zcash(&p, b, n, flags);
        VCHECK(r, status_matches_reason(st, r->tok[1]));
        VCHECK(r, cuzk_g2_aff_eq(&p, &sentinel));
    }
    VCHECK(r, status_matches_reason(cuzk_g2_validate(b, n), r->tok[1]));
}

static void test_g1(void) {
    RUN_KIND("g1_mul", 3, g1_mul_case, 10);
    RUN_KIND("g1_add", 5, g1_add_case, 10);
    RUN_KIND("g1_curve", 3, g1_curve_case, 10);
    RUN_KIND("g1_bad", 2, g1_bad_case, 10);
}

static void test_g2(void) {
    RUN_KIND("g2_mul", 3, g2_mul_case, 10);
    RUN_KIND("g2_add", 5, g2_add_case, 10);
    RUN_KIND("g2_curve", 3, g2_curve_case, 10);
    RUN_KIND("g2_bad", 2, g2_bad_case, 10);
}

/* ---- pairing ------------------------------------------------------------- */

/* The pairing cases read the coordinates straight from the uncompressed bytes
 * (all finite points), so a pairing failure is not an encode.c failure. */
static cuzk_g1_aff g1_raw(const vec_rec *r, int i) {
    uint8_t b[CUZK_G1_UNCOMPRESSED_BYTES];
    cuzk_g1_aff p;
    cuzk_g1_aff_set_inf(&p);
    bool ok = hex_decode(b, sizeof(b), r->tok[i]) && (b[0] & 0xe0) == 0 &&
              cuzk_fp_from_bytes_be(&p.x, b) && cuzk_fp_from_bytes_be(&p.y, b + 48);
    VCHECK(r, ok);
    return p;
}

static cuzk_g2_aff g2_raw(const vec_rec *r, int i) {
    uint8_t b[CUZK_G2_UNCOMPRESSED_BYTES];
    cuzk_g2_aff q;
    cuzk_g2_aff_set_inf(&q);
    bool ok = hex_decode(b, sizeof(b), r->tok[i]) && (b[0] & 0xe0) == 0 &&
              cuzk_fp_from_bytes_be(&q.x.c1, b) && cuzk_fp_from_bytes_be(&q.x.c0, b + 48) &&
              cuzk_fp_from_bytes_be(&q.y.c1, b + 96) && cuzk_fp_from_bytes_be(&q.y.c0, b + 144);
    VCHECK(r, ok);
    return q;
}

static void pairing_case(const vec_rec *r) {
    cuzk_g1_aff p = g1_raw(r, 2);
    cuzk_g2_aff q = g2_raw(r, 3);
    cuzk_fp12 f;
    cuzk_fp12_set_zero(&f);
    cuzk_pairing(&f, &p, &q);
    VCHECK(r, fp12_is_tok(&f, r, 4));
}

/* n P1 Q1 ... Pn Qn f[12] one|notone: noble's product of pairings. */
static void pairing_batch_case(const vec_rec *r) {
    enum { MAXN = 8 };
    int n = atoi(r->tok[0]);
    VCHECK(r, n >= 1 && n <= MAXN && r->ntok == 1 + 2 * n + 12 + 1);
    if (n < 1 || n > MAXN || r->ntok != 1 + 2 * n + 12 + 1) return;
    cuzk_g1_aff p[MAXN];
    cuzk_g2_aff q[MAXN];
    for (int i = 0; i < n; i++) {
        p[i] = g1_raw(r, 1 + 2 * i);
        q[i] = g2_raw(r, 2 + 2 * i);
    }
    const char *verdict = r->tok[r->ntok - 1];
    VCHECK(r, strcmp(verdict, "one") == 0 || strcmp(verdict, "notone") == 0);
    cuzk_fp12 m, f;
    cuzk_miller_loop(&m, p, q, (size_t)n);
    cuzk_final_exp(&f, &m);
    VCHECK(r, fp12_is_tok(&f, r, 1 + 2 * n));
    VCHECK(r, cuzk_pairing_product_is_one(p, q, (size_t)n) == (strcmp(verdict, "one") == 0));
}

static void test_pairing(void) {
    RUN_KIND("pairing", 16, pairing_case, 5);
    RUN_KIND("pairing_batch", -1, pairing_batch_case, 4);
}

int main(int argc, char **argv) {
    cuzk_test_init(argc, argv);
    const char *path = getenv("CUZK_NOBLE_VECTORS");
    if (argc > 1 && strncmp(argv[1], "--", 2) != 0) path = argv[1];
    if (!path || !*path) {
        fprintf(stderr, "test_noble: no vector file: set CUZK_NOBLE_VECTORS or pass a path "
                        "(ctest runs the noble_vectors_gen fixture first)\n");
        return 1;
    }
    if (!load_vectors(path)) {
        printf("0 passed, 1 failed\n");
        return 1;
    }
    RUN(test_fields);
    RUN(test_fields_portable);
    RUN(test_g1);
    RUN(test_g2);
    RUN(test_pairing);
    free(g_recs);
    free(g_buf);
    return cuzk_test_finish();
}
