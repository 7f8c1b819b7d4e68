/*
 * Differential tests of Fp, Fr and Fp2 (src/ff) against GMP.
 *
 * The reference never goes through the code under test: moduli come from
 * hex strings in this file, Montgomery forms are built and read with mpz
 * (x*R mod m, raw*R^-1 mod m), and Fp2 has a small mpz model below. Every
 * output is compared limb for limb with the expected Montgomery form, which
 * also checks that it is fully reduced.
 *
 * Inputs are edge values (0, 1, 2, m-1, m-2, (m-1)/2, (m+1)/2, R mod m,
 * R^-1, all-ones limbs just below m, ...) and seeded random values, some of
 * them structured (small, near m, limbs of 0 / all ones). The whole suite
 * runs twice: with the default kernels (ADX asm when cuzk_cpu_features()
 * says so) and after cuzk_cpu_force_portable(1).
 */
/* stdarg.h and stdio.h before gmp.h: it declares gmp_vfprintf only when
 * va_list and FILE are known */
#include <stdarg.h>
#include <stdio.h>
#include <gmp.h>
#include <signal.h>
#include <stdbool.h>
#include <unistd.h>

#include "cuzk.h"
#include "ff/fp2.h"
#include "ff/fr.h"
#include "harness.h"

#define MAX_LIMBS 6
#define MAX_BYTES 48
#define MAX_EDGES 40
#define MAX_PRINT 20 /* failure lines printed per test case */
#define MAX_BATCH 40

/* ---- failure reporting --------------------------------------------------- */

static const char *g_mode = "?";
static unsigned long g_printed;

static void failf(const char *fmt, ...) {
    cuzk_test_checks_failed++;
    if (g_printed++ >= MAX_PRINT) {
        if (g_printed == MAX_PRINT + 1) fprintf(stderr, "  (further failures not printed)\n");
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    gmp_vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, " [%s kernels, seed %" PRIu64 "]\n", g_mode, cuzk_test_seed);
}

/* A watchdog per test case: a loop that never ends (Tonelli-Shanks on a
 * non-residue, say) is reported as a failure of the case instead of a hang. */
static const char *volatile g_case = "?";

static void watchdog(int sig) {
    (void)sig;
    static const char msg[] = "\nwatchdog: test case did not finish in time: ";
    ssize_t ignored = write(2, msg, sizeof(msg) - 1);
    ignored = write(2, g_case, strlen(g_case));
    ignored = write(2, "\n", 1);
    (void)ignored;
    _exit(1);
}

static void begin_case(void) {
    g_printed = 0;
    alarm((unsigned)(60 * (cuzk_test_iters_scale < 100 ? cuzk_test_iters_scale : 100)));
}

/* ---- one field, seen through a common interface --------------------------- */

typedef union {
    cuzk_fp fp;
    cuzk_fr fr;
    uint64_t l[MAX_LIMBS];
} elt;

typedef struct {
    const char *name;
    const char *mod_hex;
    const uint64_t *mod_limbs; /* the library's constant, checked against mod_hex */
    size_t n, nbytes;
    mpz_t m, R, Rinv, half; /* half = (m-1)/2 */
    mpz_t edges[MAX_EDGES];
    size_t nedges;
    void (*from_limbs)(elt *, const uint64_t *);
    void (*to_limbs)(uint64_t *, const elt *);
    void (*from_u64)(elt *, uint64_t);
    void (*set_zero)(elt *);
    void (*set_one)(elt *);
    void (*add)(elt *, const elt *, const elt *);
    void (*sub)(elt *, const elt *, const elt *);
    void (*mul)(elt *, const elt *, const elt *);
    void (*dbl)(elt *, const elt *);
    void (*neg)(elt *, const elt *);
    void (*sqr)(elt *, const elt *);
    void (*inv)(elt *, const elt *);
    void (*inv_var)(elt *, const elt *);
    void (*pow)(elt *, const elt *, const uint64_t *, size_t);
    int (*batch_inv_var)(elt *, const elt *, size_t, int);
    bool (*sqrt)(elt *, const elt *);
    int sqrt_is_pow; /* Fp: the root must be a^((p+1)/4) (fp.h) */
    bool (*is_square)(const elt *);
    bool (*is_lex_largest)(const elt *); /* NULL for Fr */
    bool (*eq)(const elt *, const elt *);
    bool (*is_zero)(const elt *);
    bool (*is_one)(const elt *);
    void (*cmov)(elt *, const elt *, bool);
    bool (*from_bytes_be)(elt *, const uint8_t *);
    bool (*from_bytes_le)(elt *, const uint8_t *);
    void (*to_bytes_be)(uint8_t *, const elt *);
    void (*to_bytes_le)(uint8_t *, const elt *);
} field;

#define WRAP_FIELD(F)                                                                            \
    static void F##_from_limbs_w(elt *r, const uint64_t *a) { cuzk_##F##_from_limbs(&r->F, a); } \
    static void F##_to_limbs_w(uint64_t *r, const elt *a) { cuzk_##F##_to_limbs(r, &a->F); }     \
    static void F##_from_u64_w(elt *r, uint64_t v) { cuzk_##F##_from_u64(&r->F, v); }            \
    static void F##_set_zero_w(elt *r) { cuzk_##F##_set_zero(&r->F); }                           \
    static void F##_set_one_w(elt *r) { cuzk_##F##_set_one(&r->F); }                             \
    static void F##_add_w(elt *r, const elt *a, const elt *b) { cuzk_##F##_add(&r->F, &a->F, &b->F); } \
    static void F##_sub_w(elt *r, const elt *a, const elt *b) { cuzk_##F##_sub(&r->F, &a->F, &b->F); } \
    static void F##_mul_w(elt *r, const elt *a, const elt *b) { cuzk_##F##_mul(&r->F, &a->F, &b->F); } \
    static void F##_dbl_w(elt *r, const elt *a) { cuzk_##F##_dbl(&r->F, &a->F); }                \
    static void F##_neg_w(elt *r, const elt *a) { cuzk_##F##_neg(&r->F, &a->F); }                \
    static void F##_sqr_w(elt *r, const elt *a) { cuzk_##F##_sqr(&r->F, &a->F); }                \
    static void F##_inv_w(elt *r, const elt *a) { cuzk_##F##_inv(&r->F, &a->F); }                \
    static void F##_inv_var_w(elt *r, const elt *a) { cuzk_##F##_inv_var(&r->F, &a->F); }        \
    static void F##_pow_w(elt *r, const elt *a, const uint64_t *e, size_t k) {                   \
        cuzk_##F##_pow(&r->F, &a->F, e, k);                                                      \
    }                                                                                            \
    static bool F##_is_square_w(const elt *a) { return cuzk_##F##_is_square(&a->F); }            \
    static bool F##_eq_w(const elt *a, const elt *b) { return cuzk_##F##_eq(&a->F, &b->F); }     \
    static bool F##_is_zero_w(const elt *a) { return cuzk_##F##_is_zero(&a->F); }                \
    static bool F##_is_one_w(const elt *a) { return cuzk_##F##_is_one(&a->F); }                  \
    static void F##_cmov_w(elt *r, const elt *a, bool fl) { cuzk_##F##_cmov(&r->F, &a->F, fl); } \
    static bool F##_from_be_w(elt *r, const uint8_t *in) { return cuzk_##F##_from_bytes_be(&r->F, in); } \
    static bool F##_from_le_w(elt *r, const uint8_t *in) { return cuzk_##F##_from_bytes_le(&r->F, in); } \
    static void F##_to_be_w(uint8_t *o, const elt *a) { cuzk_##F##_to_bytes_be(o, &a->F); }      \
    static void F##_to_le_w(uint8_t *o, const elt *a) { cuzk_##F##_to_bytes_le(o, &a->F); }      \
    /* Runs the batch inversion on native arrays; returns 0 when an out-of-place                 \
     * call modified its input. */                                                               \
    static int F##_batch_w(elt *out, const elt *a, size_t n, int inplace) {                      \
        cuzk_##F x[MAX_BATCH], s[MAX_BATCH], o[MAX_BATCH];                                        \
        int intact = 1;                                                                          \
        memset(x, 0, sizeof(x));                                                                 \
        for (size_t i = 0; i < n; i++) x[i] = a[i].F;                                            \
        memset(s, 0x5a, sizeof(s));                                                              \
        memset(o, 0xa5, sizeof(o));                                                              \
        if (inplace) {                                                                           \
            cuzk_##F##_batch_inv_var(x, x, n, s);                                                \
            for (size_t i = 0; i < n; i++) out[i].F = x[i];                                      \
        } else {                                                                                 \
            cuzk_##F##_batch_inv_var(o, x, n, s);                                                \
            for (size_t i = 0; i < n; i++) {                                                     \
                out[i].F = o[i];                                                                 \
                intact &= memcmp(&x[i], &a[i].F, sizeof(x[i])) == 0;                             \
            }                                                                                    \
        }                                                                                        \
        return intact;                                                                           \
    }

WRAP_FIELD(fp)
WRAP_FIELD(fr)

static bool fp_sqrt_w(elt *r, const elt *a) { return cuzk_fp_sqrt(&r->fp, &a->fp); }
static bool fr_sqrt_w(elt *r, const elt *a) { return cuzk_fr_sqrt_var(&r->fr, &a->fr); }
static bool fp_lex_w(const elt *a) { return cuzk_fp_is_lexicographically_largest(&a->fp); }

#define FIELD_OPS(F)                                                                              \
    .from_limbs = F##_from_limbs_w, .to_limbs = F##_to_limbs_w, .from_u64 = F##_from_u64_w,       \
    .set_zero = F##_set_zero_w, .set_one = F##_set_one_w, .add = F##_add_w, .sub = F##_sub_w,     \
    .mul = F##_mul_w, .dbl = F##_dbl_w, .neg = F##_neg_w, .sqr = F##_sqr_w, .inv = F##_inv_w,     \
    .inv_var = F##_inv_var_w, .pow = F##_pow_w, .batch_inv_var = F##_batch_w,                     \
    .sqrt = F##_sqrt_w, .is_square = F##_is_square_w, .eq = F##_eq_w, .is_zero = F##_is_zero_w,  \
    .is_one = F##_is_one_w, .cmov = F##_cmov_w, .from_bytes_be = F##_from_be_w,                   \
    .from_bytes_le = F##_from_le_w, .to_bytes_be = F##_to_be_w, .to_bytes_le = F##_to_le_w

/* Moduli from the BLS12-381 specification, not from the library. */
static field FP = {
    .name = "fp",
    .mod_hex = "1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9fe"
               "ffffffffaaab",
    .mod_limbs = cuzk__fp_p,
    .n = CUZK_FP_LIMBS,
    .nbytes = CUZK_FP_BYTES,
    .sqrt_is_pow = 1,
    .is_lex_largest = fp_lex_w,
    FIELD_OPS(fp),
};
static field FR = {
    .name = "fr",
    .mod_hex = "73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001",
    .mod_limbs = cuzk__fr_r,
    .n = CUZK_FR_LIMBS,
    .nbytes = CUZK_FR_BYTES,
    .sqrt_is_pow = 0,
    .is_lex_largest = NULL,
    FIELD_OPS(fr),
};

/* ---- mpz <-> limbs, Montgomery forms -------------------------------------- */

static void limbs_from_mpz(uint64_t *l, size_t n, const mpz_t x) {
    size_t count = 0;
    memset(l, 0, n * 8);
    if (mpz_sgn(x) < 0 || mpz_sizeinbase(x, 2) > 64 * n) {
        failf("test bug: %#Zx does not fit %zu limbs", x, n);
        return;
    }
    mpz_export(l, &count, -1, 8, 0, 0, x);
}

static void mpz_from_limbs(mpz_t x, const uint64_t *l, size_t n) { mpz_import(x, n, -1, 8, 0, 0, l); }

/* e = the Montgomery form of x (x*R mod m); x is any integer. */
static void elt_set(const field *f, elt *e, const mpz_t x) {
    mpz_t t;
    mpz_init(t);
    mpz_mul(t, x, f->R);
    mpz_mod(t, t, f->m);
    memset(e, 0, sizeof(*e));
    limbs_from_mpz(e->l, f->n, t);
    mpz_clear(t);
}

/* x = the value held by e (raw * R^-1 mod m), and raw = its limbs as an integer. */
static void elt_get(const field *f, mpz_t x, mpz_t raw, const uint64_t *l) {
    mpz_from_limbs(raw, l, f->n);
    mpz_mul(x, raw, f->Rinv);
    mpz_mod(x, x, f->m);
}

/* true when l holds exactly want*R mod m (so also fully reduced). */
static int limbs_are(const field *f, const uint64_t *l, const mpz_t want) {
    elt w;
    elt_set(f, &w, want);
    return memcmp(w.l, l, f->n * 8) == 0;
}

/* Checks one result; a and b are the inputs shown on failure (b may be NULL). */
static void expect(const field *f, const char *op, const uint64_t *got, const mpz_t want,
                   const mpz_t a, const mpz_t b) {
    if (limbs_are(f, got, want)) return;
    mpz_t g, raw;
    mpz_inits(g, raw, NULL);
    elt_get(f, g, raw, got);
    const char *red = mpz_cmp(raw, f->m) < 0 ? "" : ", NOT REDUCED";
    if (b)
        failf("%s %s: a=%#Zx b=%#Zx: got %#Zx (Montgomery limbs %#Zx%s), want %#Zx", f->name, op, a,
              b, g, raw, red, want);
    else
        failf("%s %s: a=%#Zx: got %#Zx (Montgomery limbs %#Zx%s), want %#Zx", f->name, op, a, g, raw,
              red, want);
    mpz_clears(g, raw, NULL);
}

static void expect_bool(const field *f, const char *op, int got, int want, const mpz_t a,
                        const mpz_t b) {
    if (!!got == !!want) return;
    if (b)
        failf("%s %s: a=%#Zx b=%#Zx: got %d, want %d", f->name, op, a, b, !!got, !!want);
    else
        failf("%s %s: a=%#Zx: got %d, want %d", f->name, op, a, !!got, !!want);
}

/* ---- inputs ----------------------------------------------------------------- */

static uint64_t rnd(void) { return cuzk_test_rand64(); }

static void rand_bits(mpz_t x, size_t bits) {
    uint64_t l[MAX_LIMBS + 2] = {0};
    size_t n = (bits + 63) / 64;
    for (size_t i = 0; i < n; i++) l[i] = rnd();
    if (bits % 64) l[n - 1] &= (UINT64_C(1) << (bits % 64)) - 1;
    mpz_import(x, n, -1, 8, 0, 0, l);
}

/* Uniform in [0, m). */
static void rand_uniform(const field *f, mpz_t x) {
    size_t bits = mpz_sizeinbase(f->m, 2);
    do rand_bits(x, bits);
    while (mpz_cmp(x, f->m) >= 0);
}

/* A value in [0, m): uniform most of the time, else shaped to stress carries. */
static void rand_elt(const field *f, mpz_t x) {
    uint64_t k = rnd() % 10;
    size_t bits = mpz_sizeinbase(f->m, 2);
    switch (k) {
    case 0: /* small */
        mpz_set_ui(x, 0);
        mpz_import(x, 1, -1, 8, 0, 0, (uint64_t[]){rnd() >> (rnd() % 64)});
        return;
    case 1: /* just below m */
        mpz_import(x, 1, -1, 8, 0, 0, (uint64_t[]){(rnd() >> (rnd() % 64)) + 1});
        mpz_sub(x, f->m, x);
        if (mpz_sgn(x) < 0) mpz_set_ui(x, 0);
        return;
    case 2: { /* limbs of 0, all ones or random */
        for (int tries = 0; tries < 8; tries++) {
            uint64_t l[MAX_LIMBS];
            for (size_t i = 0; i < f->n; i++) {
                uint64_t c = rnd() % 3;
                l[i] = c == 0 ? 0 : c == 1 ? ~UINT64_C(0) : rnd();
            }
            if (bits % 64) l[f->n - 1] &= (UINT64_C(1) << (bits % 64)) - 1;
            mpz_from_limbs(x, l, f->n);
            if (mpz_cmp(x, f->m) < 0) return;
        }
        break;
    }
    case 3: /* 2^k or 2^k - 1 */
        mpz_set_ui(x, 0);
        mpz_setbit(x, rnd() % (bits - 1));
        if (rnd() & 1) mpz_sub_ui(x, x, 1);
        return;
    default:
        break;
    }
    rand_uniform(f, x);
}

static void add_edge(field *f, const mpz_t x) {
    if (f->nedges >= MAX_EDGES) return;
    mpz_init_set(f->edges[f->nedges], x);
    mpz_mod(f->edges[f->nedges], f->edges[f->nedges], f->m);
    f->nedges++;
}

static int field_init(field *f) {
    mpz_inits(f->m, f->R, f->Rinv, f->half, NULL);
    if (mpz_set_str(f->m, f->mod_hex, 16) != 0) return 0;
    mpz_set_ui(f->R, 0);
    mpz_setbit(f->R, 64 * f->n);
    mpz_invert(f->Rinv, f->R, f->m);
    mpz_mod(f->R, f->R, f->m);
    mpz_sub_ui(f->half, f->m, 1);
    mpz_fdiv_q_2exp(f->half, f->half, 1);

    mpz_t x;
    mpz_init(x);
    for (unsigned long v = 0; v <= 2; v++) {
        mpz_set_ui(x, v);
        add_edge(f, x);
    }
    mpz_sub_ui(x, f->m, 1);
    add_edge(f, x); /* m-1 */
    mpz_sub_ui(x, f->m, 2);
    add_edge(f, x); /* m-2 */
    add_edge(f, f->half); /* (m-1)/2 */
    mpz_add_ui(x, f->half, 1);
    add_edge(f, x); /* (m+1)/2 */
    add_edge(f, f->R); /* R mod m */
    add_edge(f, f->Rinv); /* its Montgomery form is the plain 1 */
    mpz_sub_ui(x, f->m, 1);
    mpz_mul(x, x, f->Rinv);
    add_edge(f, x); /* Montgomery form m-1 */
    for (size_t k = 1; k < f->n; k++) {
        /* top limbs of m, low k limbs all ones: the largest such value below m */
        mpz_fdiv_q_2exp(x, f->m, 64 * k);
        mpz_mul_2exp(x, x, 64 * k);
        mpz_sub_ui(x, x, 1);
        add_edge(f, x);
        mpz_set_ui(x, 0);
        mpz_setbit(x, 64 * k);
        mpz_sub_ui(x, x, 1);
        add_edge(f, x); /* 2^(64k) - 1 */
    }
    mpz_set_ui(x, 0);
    mpz_setbit(x, mpz_sizeinbase(f->m, 2) - 1);
    mpz_sub_ui(x, x, 1);
    add_edge(f, x); /* all ones, one bit shorter than m */
    mpz_clear(x);
    return 1;
}

static void field_clear(field *f) {
    for (size_t i = 0; i < f->nedges; i++) mpz_clear(f->edges[i]);
    mpz_clears(f->m, f->R, f->Rinv, f->half, NULL);
}

/* The i-th test input: the edge values first, then random ones. */
static size_t ninputs(const field *f, unsigned long nrand) { return f->nedges + nrand; }
static void input(const field *f, mpz_t x, size_t i) {
    if (i < f->nedges)
        mpz_set(x, f->edges[i]);
    else
        rand_elt(f, x);
}

/* ---- Fp / Fr tests ------------------------------------------------------------ */

static void field_constants(field *f) {
    begin_case();
    mpz_t lib;
    mpz_init(lib);
    mpz_from_limbs(lib, f->mod_limbs, f->n);
    if (mpz_cmp(lib, f->m) != 0) failf("%s modulus constant %#Zx, want %#Zx", f->name, lib, f->m);
    if (!mpz_probab_prime_p(f->m, 30)) failf("%s modulus %#Zx is not prime", f->name, f->m);
    mpz_clear(lib);
}

static void field_conv(field *f) {
    begin_case();
    mpz_t x, y, raw, want;
    mpz_inits(x, y, raw, want, NULL);
    for (size_t i = 0; i < ninputs(f, ITERS(200)); i++) {
        input(f, x, i);
        uint64_t l[MAX_LIMBS], back[MAX_LIMBS];
        elt e;
        memset(&e, 0, sizeof(e));
        limbs_from_mpz(l, f->n, x);
        f->from_limbs(&e, l);
        expect(f, "from_limbs", e.l, x, x, NULL);
        /* to_limbs on a Montgomery form built by mpz */
        elt_set(f, &e, x);
        f->to_limbs(back, &e);
        mpz_from_limbs(y, back, f->n);
        if (mpz_cmp(x, y) != 0) failf("%s to_limbs: a=%#Zx: got %#Zx", f->name, x, y);
        /* full round trip through the library */
        f->from_limbs(&e, l);
        f->to_limbs(back, &e);
        if (memcmp(back, l, f->n * 8) != 0) {
            mpz_from_limbs(y, back, f->n);
            failf("%s to_limbs(from_limbs): a=%#Zx: got %#Zx", f->name, x, y);
        }
    }
    for (unsigned long i = 0; i < ITERS(100) + 4; i++) {
        uint64_t v = i == 0 ? 0 : i == 1 ? 1 : i == 2 ? 2 : i == 3 ? ~UINT64_C(0) : rnd() >> (rnd() % 64);
        elt e;
        memset(&e, 0, sizeof(e));
        mpz_import(x, 1, -1, 8, 0, 0, &v);
        f->from_u64(&e, v);
        expect(f, "from_u64", e.l, x, x, NULL);
    }
    {
        elt e;
        memset(&e, 0xff, sizeof(e));
        f->set_zero(&e);
        mpz_set_ui(x, 0);
        expect(f, "set_zero", e.l, x, x, NULL);
        f->set_one(&e);
        mpz_set_ui(x, 1);
        expect(f, "set_one", e.l, x, x, NULL);
    }
    mpz_clears(x, y, raw, want, NULL);
}

/* op(r, a, b) out of place, with r == a and with r == b. */
static void check_binop(const field *f, const char *name, void (*op)(elt *, const elt *, const elt *),
                        const elt *ea, const elt *eb, const mpz_t a, const mpz_t b, const mpz_t want) {
    char buf[64];
    elt r, t;
    memset(&r, 0x77, sizeof(r));
    op(&r, ea, eb);
    expect(f, name, r.l, want, a, b);
    t = *ea;
    op(&t, &t, eb);
    snprintf(buf, sizeof(buf), "%s (r==a)", name);
    expect(f, buf, t.l, want, a, b);
    t = *eb;
    op(&t, ea, &t);
    snprintf(buf, sizeof(buf), "%s (r==b)", name);
    expect(f, buf, t.l, want, a, b);
}

static void check_unop(const field *f, const char *name, void (*op)(elt *, const elt *),
                       const elt *ea, const mpz_t a, const mpz_t want) {
    char buf[64];
    elt r, t;
    memset(&r, 0x77, sizeof(r));
    op(&r, ea);
    expect(f, name, r.l, want, a, NULL);
    t = *ea;
    op(&t, &t);
    snprintf(buf, sizeof(buf), "%s (r==a)", name);
    expect(f, buf, t.l, want, a, NULL);
}

static void arith_pair(const field *f, const mpz_t a, const mpz_t b, mpz_t w) {
    elt ea, eb;
    elt_set(f, &ea, a);
    elt_set(f, &eb, b);
    mpz_add(w, a, b);
    mpz_mod(w, w, f->m);
    check_binop(f, "add", f->add, &ea, &eb, a, b, w);
    mpz_sub(w, a, b);
    mpz_mod(w, w, f->m);
    check_binop(f, "sub", f->sub, &ea, &eb, a, b, w);
    mpz_mul(w, a, b);
    mpz_mod(w, w, f->m);
    check_binop(f, "mul", f->mul, &ea, &eb, a, b, w);
}

static void arith_single(const field *f, const mpz_t a, mpz_t w) {
    elt ea, r;
    elt_set(f, &ea, a);
    mpz_mul_2exp(w, a, 1);
    mpz_mod(w, w, f->m);
    check_unop(f, "dbl", f->dbl, &ea, a, w);
    f->add(&r, &ea, &ea);
    expect(f, "add (a==b)", r.l, w, a, a);
    mpz_neg(w, a);
    mpz_mod(w, w, f->m);
    check_unop(f, "neg", f->neg, &ea, a, w);
    mpz_mul(w, a, a);
    mpz_mod(w, w, f->m);
    check_unop(f, "sqr", f->sqr, &ea, a, w);
    f->mul(&r, &ea, &ea);
    expect(f, "mul (a==b)", r.l, w, a, a);
    mpz_set_ui(w, 0);
    f->sub(&r, &ea, &ea);
    expect(f, "sub (a==b)", r.l, w, a, a);
}

static void field_arith(field *f) {
    begin_case();
    mpz_t a, b, w;
    mpz_inits(a, b, w, NULL);
    for (size_t i = 0; i < f->nedges; i++) {
        arith_single(f, f->edges[i], w);
        for (size_t j = 0; j < f->nedges; j++) arith_pair(f, f->edges[i], f->edges[j], w);
    }
    for (unsigned long i = 0; i < ITERS(1000); i++) {
        rand_elt(f, a);
        if (i % 4 == 0)
            mpz_set(b, f->edges[rnd() % f->nedges]);
        else
            rand_elt(f, b);
        if (i & 1) mpz_swap(a, b);
        arith_single(f, a, w);
        arith_pair(f, a, b, w);
    }
    mpz_clears(a, b, w, NULL);
}

static void pow_one(const field *f, const mpz_t a, const uint64_t *e, size_t k, mpz_t w, mpz_t ez) {
    elt ea, r;
    char name[128];
    elt_set(f, &ea, a);
    mpz_set_ui(ez, 0);
    if (k) mpz_from_limbs(ez, e, k);
    mpz_powm(w, a, ez, f->m);
    snprintf(name, sizeof(name), "pow (%zu exponent limbs, b=exponent)", k);
    memset(&r, 0x77, sizeof(r));
    f->pow(&r, &ea, e, k);
    expect(f, name, r.l, w, a, ez);
    snprintf(name, sizeof(name), "pow (%zu exponent limbs, r==a)", k);
    r = ea;
    f->pow(&r, &r, e, k);
    expect(f, name, r.l, w, a, ez);
}

static void field_pow(field *f) {
    begin_case();
    mpz_t a, w, ez, t;
    mpz_inits(a, w, ez, t, NULL);
    const size_t lens[] = {0, 1, 2, f->n - 1, f->n, f->n + 1, 2 * f->n};
    uint64_t e[2 * MAX_LIMBS];
    for (size_t i = 0; i < ninputs(f, ITERS(30)); i++) {
        input(f, a, i);
        for (size_t li = 0; li < sizeof(lens) / sizeof(lens[0]); li++) {
            size_t k = lens[li];
            for (size_t j = 0; j < k; j++) e[j] = rnd();
            if (k && (rnd() & 3) == 0) e[k - 1] = 0; /* leading zero limb */
            if (k && (rnd() & 3) == 0) e[0] = ~UINT64_C(0);
            pow_one(f, a, e, k, w, ez);
        }
        /* fixed exponents: 1, 2, m-1, m-2, (m-1)/2, (m+1)/4 */
        for (int which = 0; which < 6; which++) {
            switch (which) {
            case 0: mpz_set_ui(t, 1); break;
            case 1: mpz_set_ui(t, 2); break;
            case 2: mpz_sub_ui(t, f->m, 1); break;
            case 3: mpz_sub_ui(t, f->m, 2); break;
            case 4: mpz_set(t, f->half); break;
            default:
                mpz_add_ui(t, f->m, 1);
                mpz_fdiv_q_2exp(t, t, 2);
                break;
            }
            limbs_from_mpz(e, f->n, t);
            pow_one(f, a, e, f->n, w, ez);
        }
    }
    mpz_clears(a, w, ez, t, NULL);
}

static void field_inv(field *f) {
    begin_case();
    mpz_t a, w;
    mpz_inits(a, w, NULL);
    for (size_t i = 0; i < ninputs(f, ITERS(150)); i++) {
        input(f, a, i);
        if (mpz_sgn(a) == 0)
            mpz_set_ui(w, 0);
        else if (!mpz_invert(w, a, f->m))
            failf("test bug: no inverse of %#Zx", a);
        elt ea;
        elt_set(f, &ea, a);
        check_unop(f, "inv", f->inv, &ea, a, w);
        check_unop(f, "inv_var", f->inv_var, &ea, a, w);
    }
    mpz_clears(a, w, NULL);
}

static void field_batch_inv(field *f) {
    begin_case();
    const size_t lens[] = {0, 1, 2, 3, 5, 16, MAX_BATCH};
    mpz_t x[MAX_BATCH], w;
    elt a[MAX_BATCH], out[MAX_BATCH];
    for (size_t i = 0; i < MAX_BATCH; i++) mpz_init(x[i]);
    mpz_init(w);
    for (unsigned long it = 0; it < ITERS(6); it++)
        for (size_t li = 0; li < sizeof(lens) / sizeof(lens[0]); li++) {
            size_t n = lens[li];
            /* pattern: 0 mixed zeros, 1 all zero, 2 none zero, 3 zeros at both ends */
            unsigned pattern = (unsigned)(rnd() % 4);
            for (size_t i = 0; i < n; i++) {
                int zero = pattern == 1 || (pattern == 0 && rnd() % 4 == 0) ||
                           (pattern == 3 && (i == 0 || i + 1 == n));
                if (zero)
                    mpz_set_ui(x[i], 0);
                else if (rnd() % 4 == 0)
                    mpz_set(x[i], f->edges[1 + rnd() % (f->nedges - 1)]); /* edges[0] is 0 */
                else
                    rand_elt(f, x[i]);
                elt_set(f, &a[i], x[i]);
            }
            for (int inplace = 0; inplace < 2; inplace++) {
                int intact = f->batch_inv_var(out, a, n, inplace);
                if (!intact) failf("%s batch_inv_var (n=%zu): input array modified", f->name, n);
                for (size_t i = 0; i < n; i++) {
                    if (mpz_sgn(x[i]) == 0)
                        mpz_set_ui(w, 0);
                    else
                        mpz_invert(w, x[i], f->m);
                    char name[128];
                    snprintf(name, sizeof(name), "batch_inv_var (%s, n=%zu, index %zu)",
                             inplace ? "out==a" : "out!=a", n, i);
                    expect(f, name, out[i].l, w, x[i], NULL);
                }
            }
        }
    for (size_t i = 0; i < MAX_BATCH; i++) mpz_clear(x[i]);
    mpz_clear(w);
}

static void sqrt_one(const field *f, const mpz_t a, mpz_t w, mpz_t t) {
    elt ea, r, sentinel;
    elt_set(f, &ea, a);
    int leg = mpz_sgn(a) == 0 ? 0 : mpz_legendre(a, f->m);
    expect_bool(f, "is_square", f->is_square(&ea), leg != -1, a, NULL);
    if (f->is_lex_largest)
        expect_bool(f, "is_lexicographically_largest", f->is_lex_largest(&ea),
                    mpz_cmp(a, f->half) > 0, a, NULL);
    mpz_set_ui(t, 0x1234567);
    elt_set(f, &sentinel, t);
    r = sentinel;
    bool ok = f->sqrt(&r, &ea);
    const char *name = f->sqrt_is_pow ? "sqrt" : "sqrt_var";
    if (leg == -1) {
        expect_bool(f, name, ok, 0, a, NULL);
        if (memcmp(&r, &sentinel, sizeof(r)) != 0)
            failf("%s %s: a=%#Zx (non-residue): output was written", f->name, name, a);
        elt t2 = ea;
        ok = f->sqrt(&t2, &t2);
        if (ok || memcmp(&t2, &ea, sizeof(t2)) != 0)
            failf("%s %s (r==a): a=%#Zx (non-residue): returned %d or changed r", f->name, name, a,
                  (int)ok);
        return;
    }
    expect_bool(f, name, ok, 1, a, NULL);
    if (!ok) return;
    mpz_t raw;
    mpz_init(raw);
    elt_get(f, w, raw, r.l);
    if (mpz_cmp(raw, f->m) >= 0) failf("%s %s: a=%#Zx: root limbs %#Zx not reduced", f->name, name, a, raw);
    mpz_mul(t, w, w);
    mpz_mod(t, t, f->m);
    if (mpz_cmp(t, a) != 0) failf("%s %s: a=%#Zx: root %#Zx squares to %#Zx", f->name, name, a, w, t);
    if (f->sqrt_is_pow) {
        mpz_add_ui(t, f->m, 1);
        mpz_fdiv_q_2exp(t, t, 2);
        mpz_powm(t, a, t, f->m);
        expect(f, "sqrt (want a^((p+1)/4))", r.l, t, a, NULL);
    }
    elt t2 = ea;
    ok = f->sqrt(&t2, &t2);
    expect_bool(f, "sqrt (r==a)", ok, 1, a, NULL);
    if (ok && memcmp(&t2, &r, sizeof(t2)) != 0)
        failf("%s %s (r==a): a=%#Zx: root differs from the out-of-place one", f->name, name, a);
    mpz_clear(raw);
}

static void field_sqrt(field *f) {
    begin_case();
    mpz_t a, w, t;
    mpz_inits(a, w, t, NULL);
    for (size_t i = 0; i < ninputs(f, ITERS(100)); i++) {
        input(f, a, i);
        sqrt_one(f, a, w, t);
        /* a square for sure, and its negation (a non-residue when -1 is one) */
        mpz_mul(a, a, a);
        mpz_mod(a, a, f->m);
        sqrt_one(f, a, w, t);
        mpz_neg(a, a);
        mpz_mod(a, a, f->m);
        sqrt_one(f, a, w, t);
    }
    mpz_clears(a, w, t, NULL);
}

static void field_predicates(field *f) {
    begin_case();
    mpz_t a, b;
    mpz_inits(a, b, NULL);
    size_t ne = f->nedges, nr = ITERS(200);
    for (size_t i = 0; i < ne + nr; i++) {
        input(f, a, i);
        for (size_t j = 0; j < (i < ne ? ne : 4); j++) {
            if (i < ne)
                mpz_set(b, f->edges[j]);
            else if (j == 0)
                mpz_set(b, a);
            else if (j == 1) /* differs in one bit of the Montgomery form */
                mpz_add(b, a, f->Rinv), mpz_mod(b, b, f->m);
            else
                rand_elt(f, b);
            elt ea, eb, r;
            elt_set(f, &ea, a);
            elt_set(f, &eb, b);
            expect_bool(f, "eq", f->eq(&ea, &eb), mpz_cmp(a, b) == 0, a, b);
            for (int flag = 0; flag < 2; flag++) {
                r = ea;
                f->cmov(&r, &eb, flag);
                expect(f, flag ? "cmov (flag 1: want b)" : "cmov (flag 0: want a)", r.l,
                       flag ? b : a, a, b);
            }
        }
        elt ea;
        elt_set(f, &ea, a);
        expect_bool(f, "is_zero", f->is_zero(&ea), mpz_sgn(a) == 0, a, NULL);
        expect_bool(f, "is_one", f->is_one(&ea), mpz_cmp_ui(a, 1) == 0, a, NULL);
    }
    mpz_clears(a, b, NULL);
}

static void bytes_of(uint8_t *out, size_t nb, const mpz_t x, int big_endian) {
    uint8_t tmp[MAX_BYTES + 8];
    size_t count = 0;
    memset(out, 0, nb);
    mpz_export(tmp, &count, -1, 1, 0, 0, x); /* least significant byte first */
    for (size_t i = 0; i < count && i < nb; i++) out[big_endian ? nb - 1 - i : i] = tmp[i];
}

static void decode_one(const field *f, const uint8_t *in, int big_endian) {
    mpz_t v, t;
    mpz_inits(v, t, NULL);
    mpz_import(v, f->nbytes, big_endian ? 1 : -1, 1, 0, 0, in);
    mpz_set_ui(t, 0x1234567);
    elt sentinel, r;
    elt_set(f, &sentinel, t);
    r = sentinel;
    bool ok = big_endian ? f->from_bytes_be(&r, in) : f->from_bytes_le(&r, in);
    const char *name = big_endian ? "from_bytes_be" : "from_bytes_le";
    if (mpz_cmp(v, f->m) >= 0) {
        expect_bool(f, name, ok, 0, v, NULL);
        if (memcmp(&r, &sentinel, sizeof(r)) != 0)
            failf("%s %s: a=%#Zx (>= modulus): output was written", f->name, name, v);
    } else {
        expect_bool(f, name, ok, 1, v, NULL);
        if (ok) expect(f, name, r.l, v, v, NULL);
    }
    mpz_clears(v, t, NULL);
}

static void decode_value(const field *f, const mpz_t x) {
    uint8_t buf[MAX_BYTES];
    for (int be = 0; be < 2; be++) {
        bytes_of(buf, f->nbytes, x, be);
        decode_one(f, buf, be);
    }
}

static void field_bytes(field *f) {
    begin_case();
    mpz_t a, t;
    mpz_inits(a, t, NULL);
    size_t nb = f->nbytes, top = 8 * nb, bits = mpz_sizeinbase(f->m, 2);
    uint8_t want[MAX_BYTES], got[MAX_BYTES], buf[MAX_BYTES];
    /* encodings of values < m, and decoding them back */
    for (size_t i = 0; i < ninputs(f, ITERS(200)); i++) {
        input(f, a, i);
        elt e;
        elt_set(f, &e, a);
        for (int be = 0; be < 2; be++) {
            bytes_of(want, nb, a, be);
            memset(got, 0x5a, sizeof(got));
            if (be)
                f->to_bytes_be(got, &e);
            else
                f->to_bytes_le(got, &e);
            if (memcmp(got, want, nb) != 0) {
                mpz_import(t, nb, be ? 1 : -1, 1, 0, 0, got);
                failf("%s %s: a=%#Zx: got bytes reading %#Zx", f->name,
                      be ? "to_bytes_be" : "to_bytes_le", a, t);
            }
            decode_one(f, want, be);
        }
    }
    /* every rejection class: m, m+1, m+2, m + small, [m, 2^bits), 2^bits.., just below 2^top */
    for (unsigned long v = 0; v < 3; v++) {
        mpz_add_ui(t, f->m, v);
        decode_value(f, t);
    }
    for (size_t k = bits; k < top; k++) {
        mpz_set_ui(t, 0);
        mpz_setbit(t, k);
        decode_value(f, t); /* 2^k */
        mpz_add_ui(t, t, 1);
        decode_value(f, t);
        mpz_set_ui(t, 0);
        mpz_setbit(t, k + 1);
        mpz_sub_ui(t, t, 1);
        decode_value(f, t); /* 2^(k+1) - 1: all ones, ends at 2^top - 1 = all 0xff */
    }
    for (unsigned long j = 1; j < 4; j++) {
        mpz_set_ui(t, 0);
        mpz_setbit(t, top);
        mpz_sub_ui(t, t, j + 1);
        decode_value(f, t); /* just below 2^top */
    }
    for (size_t k = 0; k < top; k += 7) {
        mpz_set_ui(t, 0);
        mpz_setbit(t, top);
        mpz_set_ui(a, 0);
        mpz_setbit(a, k);
        mpz_sub(t, t, a);
        decode_value(f, t); /* 2^top - 2^k */
    }
    memset(buf, 0xff, sizeof(buf));
    decode_one(f, buf, 0);
    decode_one(f, buf, 1);
    for (unsigned long i = 0; i < ITERS(300); i++) {
        switch (i % 4) {
        case 0: /* in [m, 2^bits) */
            do rand_bits(t, bits);
            while (mpz_cmp(t, f->m) < 0);
            break;
        case 1: /* m + small */
            mpz_set_ui(t, 0);
            mpz_import(t, 1, -1, 8, 0, 0, (uint64_t[]){rnd() >> (rnd() % 64)});
            mpz_add(t, t, f->m);
            break;
        case 2: /* at least 2^bits */
            rand_bits(t, top);
            mpz_setbit(t, bits + rnd() % (top - bits));
            break;
        default: /* any top-bit pattern */
            rand_bits(t, top);
            break;
        }
        decode_value(f, t);
        cuzk_test_rand_bytes(buf, nb);
        decode_one(f, buf, (int)(i & 1));
    }
    /* the largest accepted values */
    mpz_sub_ui(t, f->m, 1);
    decode_value(f, t);
    mpz_sub_ui(t, f->m, 2);
    decode_value(f, t);
    mpz_clears(a, t, NULL);
}

/* ---- Fp2: a tiny mpz model -------------------------------------------------- */

typedef struct {
    mpz_t c0, c1;
} ref2;

static void r2_init(ref2 *a) { mpz_inits(a->c0, a->c1, NULL); }
static void r2_clear(ref2 *a) { mpz_clears(a->c0, a->c1, NULL); }
static void r2_set(ref2 *r, const ref2 *a) {
    mpz_set(r->c0, a->c0);
    mpz_set(r->c1, a->c1);
}
static void r2_mod(ref2 *r) {
    mpz_mod(r->c0, r->c0, FP.m);
    mpz_mod(r->c1, r->c1, FP.m);
}
static void r2_add(ref2 *r, const ref2 *a, const ref2 *b) {
    mpz_add(r->c0, a->c0, b->c0);
    mpz_add(r->c1, a->c1, b->c1);
    r2_mod(r);
}
static void r2_sub(ref2 *r, const ref2 *a, const ref2 *b) {
    mpz_sub(r->c0, a->c0, b->c0);
    mpz_sub(r->c1, a->c1, b->c1);
    r2_mod(r);
}
static void r2_neg(ref2 *r, const ref2 *a) {
    mpz_neg(r->c0, a->c0);
    mpz_neg(r->c1, a->c1);
    r2_mod(r);
}
static void r2_conj(ref2 *r, const ref2 *a) {
    mpz_set(r->c0, a->c0);
    mpz_neg(r->c1, a->c1);
    r2_mod(r);
}
/* (a0 + a1 u)(b0 + b1 u) = (a0 b0 - a1 b1) + (a0 b1 + a1 b0) u, u^2 = -1 */
static void r2_mul(ref2 *r, const ref2 *a, const ref2 *b) {
    mpz_t t0, t1;
    mpz_inits(t0, t1, NULL);
    mpz_mul(t0, a->c0, b->c0);
    mpz_submul(t0, a->c1, b->c1);
    mpz_mul(t1, a->c0, b->c1);
    mpz_addmul(t1, a->c1, b->c0);
    mpz_swap(r->c0, t0);
    mpz_swap(r->c1, t1);
    r2_mod(r);
    mpz_clears(t0, t1, NULL);
}
static void r2_norm(mpz_t n, const ref2 *a) {
    mpz_mul(n, a->c0, a->c0);
    mpz_addmul(n, a->c1, a->c1);
    mpz_mod(n, n, FP.m);
}
static void r2_inv(ref2 *r, const ref2 *a) {
    mpz_t n;
    mpz_init(n);
    r2_norm(n, a);
    if (mpz_sgn(n) == 0) { /* only a = 0, since -1 is not a square mod p */
        mpz_set_ui(r->c0, 0);
        mpz_set_ui(r->c1, 0);
    } else {
        mpz_invert(n, n, FP.m);
        mpz_mul(r->c0, a->c0, n);
        mpz_mul(r->c1, a->c1, n);
        mpz_neg(r->c1, r->c1);
        r2_mod(r);
    }
    mpz_clear(n);
}
static void r2_pow(ref2 *r, const ref2 *a, const mpz_t e) {
    ref2 acc, base;
    r2_init(&acc);
    r2_init(&base);
    r2_set(&base, a);
    mpz_set_ui(acc.c0, 1);
    for (size_t i = mpz_sizeinbase(e, 2); i-- > 0;) {
        r2_mul(&acc, &acc, &acc);
        if (mpz_tstbit(e, i)) r2_mul(&acc, &acc, &base);
    }
    r2_set(r, &acc);
    r2_clear(&acc);
    r2_clear(&base);
}
/* zcash: c1 > (p-1)/2, or c1 = 0 and c0 > (p-1)/2 */
static int r2_lex_largest(const ref2 *a) {
    if (mpz_sgn(a->c1) != 0) return mpz_cmp(a->c1, FP.half) > 0;
    return mpz_cmp(a->c0, FP.half) > 0;
}
/* a nonzero a is a square in Fp2 exactly when its norm is a square in Fp */
static int r2_is_square(const ref2 *a) {
    mpz_t n;
    mpz_init(n);
    r2_norm(n, a);
    int sq = mpz_sgn(n) == 0 || mpz_legendre(n, FP.m) == 1;
    mpz_clear(n);
    return sq;
}

static void fp2_set(cuzk_fp2 *x, const ref2 *a) {
    elt e;
    elt_set(&FP, &e, a->c0);
    x->c0 = e.fp;
    elt_set(&FP, &e, a->c1);
    x->c1 = e.fp;
}

static int fp2_is(const cuzk_fp2 *x, const ref2 *want) {
    return limbs_are(&FP, x->c0.l, want->c0) && limbs_are(&FP, x->c1.l, want->c1);
}

static void fp2_expect(const char *op, const cuzk_fp2 *got, const ref2 *want, const ref2 *a,
                       const ref2 *b) {
    if (fp2_is(got, want)) return;
    mpz_t g0, g1, raw0, raw1;
    mpz_inits(g0, g1, raw0, raw1, NULL);
    elt_get(&FP, g0, raw0, got->c0.l);
    elt_get(&FP, g1, raw1, got->c1.l);
    const char *red = mpz_cmp(raw0, FP.m) < 0 && mpz_cmp(raw1, FP.m) < 0 ? "" : " (NOT REDUCED)";
    if (b)
        failf("fp2 %s: a=(%#Zx, %#Zx) b=(%#Zx, %#Zx): got (%#Zx, %#Zx)%s, want (%#Zx, %#Zx)", op,
              a->c0, a->c1, b->c0, b->c1, g0, g1, red, want->c0, want->c1);
    else
        failf("fp2 %s: a=(%#Zx, %#Zx): got (%#Zx, %#Zx)%s, want (%#Zx, %#Zx)", op, a->c0, a->c1, g0,
              g1, red, want->c0, want->c1);
    mpz_clears(g0, g1, raw0, raw1, NULL);
}

static void fp2_expect_bool(const char *op, int got, int want, const ref2 *a) {
    if (!!got != !!want)
        failf("fp2 %s: a=(%#Zx, %#Zx): got %d, want %d", op, a->c0, a->c1, !!got, !!want);
}

/* Fp2 edge values: every pair from a few Fp edges (0, 1, 2, m-1, m-2, (m-1)/2, (m+1)/2, R). */
#define FP2_EDGE_BASE 8
static size_t fp2_ninputs(unsigned long nrand) { return FP2_EDGE_BASE * FP2_EDGE_BASE + nrand; }
static void fp2_input(ref2 *a, size_t i) {
    if (i < FP2_EDGE_BASE * FP2_EDGE_BASE) {
        mpz_set(a->c0, FP.edges[i % FP2_EDGE_BASE]);
        mpz_set(a->c1, FP.edges[i / FP2_EDGE_BASE]);
        return;
    }
    rand_elt(&FP, a->c0);
    rand_elt(&FP, a->c1);
    uint64_t k = rnd() % 8;
    if (k == 0) mpz_set_ui(a->c0, 0);
    if (k == 1) mpz_set_ui(a->c1, 0);
}

typedef void (*fp2_binop)(cuzk_fp2 *, const cuzk_fp2 *, const cuzk_fp2 *);
typedef void (*fp2_unop)(cuzk_fp2 *, const cuzk_fp2 *);

static void fp2_check_binop(const char *name, fp2_binop op, const ref2 *a, const ref2 *b,
                            const ref2 *want) {
    cuzk_fp2 x, y, r;
    char buf[64];
    fp2_set(&x, a);
    fp2_set(&y, b);
    memset(&r, 0x77, sizeof(r));
    op(&r, &x, &y);
    fp2_expect(name, &r, want, a, b);
    r = x;
    op(&r, &r, &y);
    snprintf(buf, sizeof(buf), "%s (r==a)", name);
    fp2_expect(buf, &r, want, a, b);
    r = y;
    op(&r, &x, &r);
    snprintf(buf, sizeof(buf), "%s (r==b)", name);
    fp2_expect(buf, &r, want, a, b);
}

static void fp2_check_unop(const char *name, fp2_unop op, const ref2 *a, const ref2 *want) {
    cuzk_fp2 x, r;
    char buf[64];
    fp2_set(&x, a);
    memset(&r, 0x77, sizeof(r));
    op(&r, &x);
    fp2_expect(name, &r, want, a, NULL);
    r = x;
    op(&r, &r);
    snprintf(buf, sizeof(buf), "%s (r==a)", name);
    fp2_expect(buf, &r, want, a, NULL);
}

static void w_fp2_dbl(cuzk_fp2 *r, const cuzk_fp2 *a) { cuzk_fp2_dbl(r, a); }
static void w_fp2_neg(cuzk_fp2 *r, const cuzk_fp2 *a) { cuzk_fp2_neg(r, a); }
static void w_fp2_sqr(cuzk_fp2 *r, const cuzk_fp2 *a) { cuzk_fp2_sqr(r, a); }
static void w_fp2_conj(cuzk_fp2 *r, const cuzk_fp2 *a) { cuzk_fp2_conj(r, a); }
static void w_fp2_xi(cuzk_fp2 *r, const cuzk_fp2 *a) { cuzk_fp2_mul_by_xi(r, a); }
static void w_fp2_frob0(cuzk_fp2 *r, const cuzk_fp2 *a) { cuzk_fp2_frobenius(r, a, 0); }
static void w_fp2_frob1(cuzk_fp2 *r, const cuzk_fp2 *a) { cuzk_fp2_frobenius(r, a, 1); }
static void w_fp2_frob2(cuzk_fp2 *r, const cuzk_fp2 *a) { cuzk_fp2_frobenius(r, a, 2); }
static void w_fp2_frob3(cuzk_fp2 *r, const cuzk_fp2 *a) { cuzk_fp2_frobenius(r, a, 3); }
static void w_fp2_add(cuzk_fp2 *r, const cuzk_fp2 *a, const cuzk_fp2 *b) { cuzk_fp2_add(r, a, b); }
static void w_fp2_sub(cuzk_fp2 *r, const cuzk_fp2 *a, const cuzk_fp2 *b) { cuzk_fp2_sub(r, a, b); }
static void w_fp2_mul(cuzk_fp2 *r, const cuzk_fp2 *a, const cuzk_fp2 *b) { cuzk_fp2_mul(r, a, b); }

static void fp2_unary_all(const ref2 *a, ref2 *w, ref2 *t) {
    r2_add(w, a, a);
    fp2_check_unop("dbl", w_fp2_dbl, a, w);
    r2_neg(w, a);
    fp2_check_unop("neg", w_fp2_neg, a, w);
    r2_mul(w, a, a);
    fp2_check_unop("sqr", w_fp2_sqr, a, w);
    r2_conj(w, a);
    fp2_check_unop("conj", w_fp2_conj, a, w);
    fp2_check_unop("frobenius(1)", w_fp2_frob1, a, w);
    fp2_check_unop("frobenius(3)", w_fp2_frob3, a, w);
    fp2_check_unop("frobenius(0)", w_fp2_frob0, a, a);
    fp2_check_unop("frobenius(2)", w_fp2_frob2, a, a);
    mpz_set_ui(t->c0, 1);
    mpz_set_ui(t->c1, 1);
    r2_mul(w, a, t); /* xi = 1 + u */
    fp2_check_unop("mul_by_xi", w_fp2_xi, a, w);

    cuzk_fp2 x;
    fp2_set(&x, a);
    fp2_expect_bool("is_zero", cuzk_fp2_is_zero(&x), !mpz_sgn(a->c0) && !mpz_sgn(a->c1), a);
    fp2_expect_bool("is_one", cuzk_fp2_is_one(&x), !mpz_cmp_ui(a->c0, 1) && !mpz_sgn(a->c1), a);
    fp2_expect_bool("is_lexicographically_largest", cuzk_fp2_is_lexicographically_largest(&x),
                    r2_lex_largest(a), a);
}

static void fp2_binary_all(const ref2 *a, const ref2 *b, ref2 *w) {
    r2_add(w, a, b);
    fp2_check_binop("add", w_fp2_add, a, b, w);
    r2_sub(w, a, b);
    fp2_check_binop("sub", w_fp2_sub, a, b, w);
    r2_mul(w, a, b);
    fp2_check_binop("mul", w_fp2_mul, a, b, w);

    cuzk_fp2 x, y, r;
    fp2_set(&x, a);
    fp2_set(&y, b);
    /* mul_fp by b's c0 */
    ref2 s;
    r2_init(&s);
    mpz_set(s.c0, b->c0);
    r2_mul(w, a, &s);
    cuzk_fp2_mul_fp(&r, &x, &y.c0);
    fp2_expect("mul_fp (b=(b0, 0))", &r, w, a, &s);
    r2_clear(&s);
    int equal = !mpz_cmp(a->c0, b->c0) && !mpz_cmp(a->c1, b->c1);
    if (cuzk_fp2_eq(&x, &y) != equal)
        failf("fp2 eq: a=(%#Zx, %#Zx) b=(%#Zx, %#Zx): got %d", a->c0, a->c1, b->c0, b->c1,
              (int)cuzk_fp2_eq(&x, &y));
    for (int flag = 0; flag < 2; flag++) {
        r = x;
        cuzk_fp2_cmov(&r, &y, flag);
        fp2_expect(flag ? "cmov (flag 1: want b)" : "cmov (flag 0: want a)", &r, flag ? b : a, a, b);
    }
}

static void test_fp2_arith(void) {
    begin_case();
    ref2 a, b, w, t;
    r2_init(&a);
    r2_init(&b);
    r2_init(&w);
    r2_init(&t);
    size_t ne = FP2_EDGE_BASE * FP2_EDGE_BASE;
    for (size_t i = 0; i < ne; i++) {
        fp2_input(&a, i);
        fp2_unary_all(&a, &w, &t);
        for (size_t j = 0; j < ne; j += 1 + (i + j) % 3) {
            fp2_input(&b, j);
            fp2_binary_all(&a, &b, &w);
        }
    }
    for (unsigned long i = 0; i < ITERS(500); i++) {
        fp2_input(&a, ne + i);
        fp2_input(&b, (i & 3) == 0 ? rnd() % ne : ne + i);
        fp2_unary_all(&a, &w, &t);
        fp2_binary_all(&a, &b, &w);
        fp2_binary_all(&a, &a, &w);
    }
    r2_clear(&a);
    r2_clear(&b);
    r2_clear(&w);
    r2_clear(&t);
}

/* The model's conjugate is checked against the definition of Frobenius, a^p. */
static void test_fp2_frobenius_is_pth_power(void) {
    begin_case();
    ref2 a, w, c;
    r2_init(&a);
    r2_init(&w);
    r2_init(&c);
    for (unsigned long i = 0; i < ITERS(4); i++) {
        fp2_input(&a, fp2_ninputs(0) + i);
        r2_pow(&w, &a, FP.m);
        r2_conj(&c, &a);
        if (mpz_cmp(w.c0, c.c0) || mpz_cmp(w.c1, c.c1))
            failf("fp2 model: a^p != conj(a) for a=(%#Zx, %#Zx)", a.c0, a.c1);
        cuzk_fp2 x, r;
        fp2_set(&x, &a);
        cuzk_fp2_frobenius(&r, &x, 1);
        fp2_expect("frobenius(1) (want a^p)", &r, &w, &a, NULL);
    }
    r2_clear(&a);
    r2_clear(&w);
    r2_clear(&c);
}

static void test_fp2_inv_pow(void) {
    begin_case();
    ref2 a, w;
    r2_init(&a);
    r2_init(&w);
    mpz_t e;
    mpz_init(e);
    for (size_t i = 0; i < fp2_ninputs(ITERS(60)); i++) {
        fp2_input(&a, i);
        r2_inv(&w, &a);
        fp2_check_unop("inv", cuzk_fp2_inv, &a, &w);
        fp2_check_unop("inv_var", cuzk_fp2_inv_var, &a, &w);
        if (i % 4 == 0) {
            uint64_t el[MAX_LIMBS];
            size_t k = (size_t)(rnd() % 4);
            for (size_t j = 0; j < k; j++) el[j] = rnd() >> (rnd() % 64);
            mpz_set_ui(e, 0);
            if (k) mpz_from_limbs(e, el, k);
            r2_pow(&w, &a, e);
            cuzk_fp2 x, r;
            fp2_set(&x, &a);
            memset(&r, 0x77, sizeof(r));
            cuzk_fp2_pow(&r, &x, el, k);
            if (!fp2_is(&r, &w))
                failf("fp2 pow: a=(%#Zx, %#Zx) e=%#Zx (%zu limbs): wrong result", a.c0, a.c1, e, k);
            cuzk_fp2_pow(&x, &x, el, k);
            if (!fp2_is(&x, &w))
                failf("fp2 pow (r==a): a=(%#Zx, %#Zx) e=%#Zx (%zu limbs): wrong result", a.c0, a.c1,
                      e, k);
        }
    }
    mpz_clear(e);
    r2_clear(&a);
    r2_clear(&w);
}

static void fp2_sqrt_one(const ref2 *a) {
    ref2 w;
    r2_init(&w);
    cuzk_fp2 x, r, sentinel;
    fp2_set(&x, a);
    mpz_set_ui(w.c0, 0x1234567);
    mpz_set_ui(w.c1, 0x7654321);
    fp2_set(&sentinel, &w);
    r = sentinel;
    bool ok = cuzk_fp2_sqrt_var(&r, &x);
    int sq = r2_is_square(a);
    fp2_expect_bool("sqrt_var (returns is-square)", ok, sq, a);
    if (!ok) {
        if (memcmp(&r, &sentinel, sizeof(r)) != 0)
            failf("fp2 sqrt_var: a=(%#Zx, %#Zx): returned false but wrote the output", a->c0, a->c1);
    } else {
        mpz_t raw;
        mpz_init(raw);
        elt_get(&FP, w.c0, raw, r.c0.l);
        int reduced = mpz_cmp(raw, FP.m) < 0;
        elt_get(&FP, w.c1, raw, r.c1.l);
        reduced &= mpz_cmp(raw, FP.m) < 0;
        ref2 s;
        r2_init(&s);
        r2_mul(&s, &w, &w);
        if (!reduced || mpz_cmp(s.c0, a->c0) || mpz_cmp(s.c1, a->c1))
            failf("fp2 sqrt_var: a=(%#Zx, %#Zx): root (%#Zx, %#Zx)%s squares to (%#Zx, %#Zx)", a->c0,
                  a->c1, w.c0, w.c1, reduced ? "" : " NOT REDUCED", s.c0, s.c1);
        r2_clear(&s);
        mpz_clear(raw);
    }
    cuzk_fp2 t = x;
    bool ok2 = cuzk_fp2_sqrt_var(&t, &t);
    if (ok2 != ok || memcmp(&t, ok ? &r : &x, sizeof(t)) != 0)
        failf("fp2 sqrt_var (r==a): a=(%#Zx, %#Zx): differs from the out-of-place call", a->c0, a->c1);
    r2_clear(&w);
}

static void test_fp2_sqrt(void) {
    begin_case();
    ref2 a, s;
    r2_init(&a);
    r2_init(&s);
    for (size_t i = 0; i < fp2_ninputs(ITERS(60)); i++) {
        fp2_input(&a, i);
        fp2_sqrt_one(&a);
        r2_mul(&s, &a, &a); /* a square for sure */
        fp2_sqrt_one(&s);
    }
    r2_clear(&a);
    r2_clear(&s);
}

/* ---- driver ------------------------------------------------------------------- */

#define FIELD_TESTS(F, FIELD)                                              \
    static void test_##F##_constants(void) { field_constants(&FIELD); }    \
    static void test_##F##_conversions(void) { field_conv(&FIELD); }      \
    static void test_##F##_arith(void) { field_arith(&FIELD); }           \
    static void test_##F##_pow(void) { field_pow(&FIELD); }               \
    static void test_##F##_inv(void) { field_inv(&FIELD); }               \
    static void test_##F##_batch_inv(void) { field_batch_inv(&FIELD); }   \
    static void test_##F##_sqrt(void) { field_sqrt(&FIELD); }             \
    static void test_##F##_predicates(void) { field_predicates(&FIELD); } \
    static void test_##F##_bytes(void) { field_bytes(&FIELD); }

FIELD_TESTS(fp, FP)
FIELD_TESTS(fr, FR)

/* RUN, with the case named for the watchdog */
#define RUN_CASE(fn)    \
    do {                \
        g_case = #fn;   \
        RUN(fn);        \
    } while (0)

static void run_suite(void) {
    RUN_CASE(test_fp_constants);
    RUN_CASE(test_fp_conversions);
    RUN_CASE(test_fp_arith);
    RUN_CASE(test_fp_pow);
    RUN_CASE(test_fp_inv);
    RUN_CASE(test_fp_batch_inv);
    RUN_CASE(test_fp_sqrt);
    RUN_CASE(test_fp_predicates);
    RUN_CASE(test_fp_bytes);
    RUN_CASE(test_fr_constants);
    RUN_CASE(test_fr_conversions);
    RUN_CASE(test_fr_arith);
    RUN_CASE(test_fr_pow);
    RUN_CASE(test_fr_inv);
    RUN_CASE(test_fr_batch_inv);
    RUN_CASE(test_fr_sqrt);
    RUN_CASE(test_fr_predicates);
    RUN_CASE(test_fr_bytes);
    RUN_CASE(test_fp2_arith);
    RUN_CASE(test_fp2_frobenius_is_pth_power);
    RUN_CASE(test_fp2_inv_pow);
    RUN_CASE(test_fp2_sqrt);
}

int main(int argc, char **argv) {
    cuzk_test_init(argc, argv);
    signal(SIGALRM, watchdog);
    if (!field_init(&FP) || !field_init(&FR)) {
        printf("bad modulus string\n");
        return 1;
    }
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) cuzk_cpu_force_portable(1);
        g_mode = (cuzk_cpu_features() & CUZK_CPU_ADX) ? "ADX asm" : "portable C";
        printf("== pass %d: %s kernels (%s)\n", pass + 1, g_mode,
               pass == 0 ? "default selection" : "after cuzk_cpu_force_portable(1)");
        fflush(stdout);
        run_suite();
    }
    alarm(0);
    cuzk_cpu_force_portable(0);
    field_clear(&FP);
    field_clear(&FR);
    return cuzk_test_finish();
}
