/*
 * GPU field arithmetic (src/gpu/ff.cuh) against the CPU (src/ff), bit for bit.
 *
 * For Fr, Fp and Fp2 and every exported elementwise operation (the Fp and
 * Fp2 inversions against the CPU's binary GCD, 0 giving 0): fresh seeded
 * random inputs of sizes 1, 1000 and 2^20, with the first elements replaced
 * by all pairs of edge values (0, 1, 2, limb boundaries, 2^(32k)-1, all
 * 32-bit limbs 0xffffffff but the top one, m-1, m-2, R mod m, -R mod m,
 * (m-1)/2, (m+1)/2, ...). The buffers are the host's own cuzk_fr /
 * cuzk_fp / cuzk_fp2 arrays, handed to the device unconverted, so this also
 * checks that the layouts agree. "Fp pair" runs the paired squaring and
 * multiplication (ff.cuh sqr_pair, mul_pair) on two Fp elements at once.
 *
 * The dedicated squaring (ff.cuh sqr) also against the device's own
 * multiplication a*a, on 2^20 inputs whose 32-bit limbs are drawn mostly from
 * carry-heavy values (0, 1, 0xffffffff, 0xfffffffe, the modulus's limb);
 * Fr mul and sqr against the CPU on 2^20 pairs of such values and sparse
 * ones (mostly zero limbs), aimed at Fr's own reduction step.
 * Fp mul and mul_pair, and Fr mul, against the CPU on 2^20 pairs whose
 * halves sit at carry boundaries (a0 + a1 and b0 + b1 at or just below
 * 2^(32N/2), all-ones halves, equal halves).
 * Exits 77 (skipped) without a CUDA device, unless CUZK_GPU_REQUIRED=1.
 *
 * --bench: afterwards, times Fr, Fp and Fp2 multiplication over 2^24
 * elements and prints a table (elements x iterations per second); the lazy
 * Fp rows (G1's level products) also at 12 and 24 warps an SM.
 */
#include <stdbool.h>

#include "ff/fp2.h"
#include "ff/fr.h"
#include "gpu/gpu.h"
#include "gpu_test.h"
#include "harness.h"
#include "field_cases.h"

#define MAX_WORDS 12 /* Fp2: 2 x 6 */
#define MAX_EDGES 128

typedef cuzk_status (*gpu_binary_fn)(uint64_t *, const uint64_t *, const uint64_t *, size_t);
typedef cuzk_status (*gpu_unary_fn)(uint64_t *, const uint64_t *, size_t);
typedef void (*cpu_fn)(uint64_t *r, const uint64_t *a, const uint64_t *b);

typedef struct {
    const char *name;
    gpu_binary_fn gpu2; /* one of gpu2 / gpu1 */
    gpu_unary_fn gpu1;
    cpu_fn cpu;
} op_desc;

typedef struct {
    const char *name;
    size_t words; /* uint64 words per element */
    const uint64_t *mod; /* one coordinate's modulus */
    size_t mod_words;
    const uint64_t *one; /* R mod m */
    const op_desc *ops;
    size_t nops;
} field_desc;

/* ---- CPU references (the host field code) --------------------------------- */

#define CPU2(fname, T, call) \
    static void fname(uint64_t *r, const uint64_t *a, const uint64_t *b) { \
        call((T *)r, (const T *)a, (const T *)b);                        \
    }
#define CPU1(fname, T, call) \
    static void fname(uint64_t *r, const uint64_t *a, const uint64_t *b) { \
        (void)b;                                                         \
        call((T *)r, (const T *)a);                                      \
    }
CPU2(cpu_fr_mul, cuzk_fr, cuzk_fr_mul)
CPU1(cpu_fr_sqr, cuzk_fr, cuzk_fr_sqr)
CPU2(cpu_fr_add, cuzk_fr, cuzk_fr_add)
CPU2(cpu_fr_sub, cuzk_fr, cuzk_fr_sub)
CPU1(cpu_fr_neg, cuzk_fr, cuzk_fr_neg)
CPU2(cpu_fp_mul, cuzk_fp, cuzk_fp_mul)
CPU1(cpu_fp_sqr, cuzk_fp, cuzk_fp_sqr)
CPU2(cpu_fp_add, cuzk_fp, cuzk_fp_add)
CPU2(cpu_fp_sub, cuzk_fp, cuzk_fp_sub)
CPU1(cpu_fp_neg, cuzk_fp, cuzk_fp_neg)
CPU1(cpu_fp_inv, cuzk_fp, cuzk_fp_inv_var)
CPU2(cpu_fp2_mul, cuzk_fp2, cuzk_fp2_mul)
CPU1(cpu_fp2_sqr, cuzk_fp2, cuzk_fp2_sqr)
CPU1(cpu_fp2_inv, cuzk_fp2, cuzk_fp2_inv_var)

/* two Fp squarings side by side, the reference for the device's sqr_pair */
static void cpu_fp_sqr_pair(uint64_t *r, const uint64_t *a, const uint64_t *b) {
    (void)b;
    cuzk_fp_sqr((cuzk_fp *)r, (const cuzk_fp *)a);
    cuzk_fp_sqr((cuzk_fp *)r + 1, (const cuzk_fp *)a + 1);
}

/* two Fp products side by side, the reference for the device's mul_pair */
static void cpu_fp_mul_pair(uint64_t *r, const uint64_t *a, const uint64_t *b) {
    cuzk_fp_mul((cuzk_fp *)r, (const cuzk_fp *)a, (const cuzk_fp *)b);
    cuzk_fp_mul((cuzk_fp *)r + 1, (const cuzk_fp *)a + 1, (const cuzk_fp *)b + 1);
}

static const op_desc fr_ops[] = {
    {"mul", cuzk__gpu_fr_mul, NULL, cpu_fr_mul}, {"sqr", NULL, cuzk__gpu_fr_sqr, cpu_fr_sqr},
    {"add", cuzk__gpu_fr_add, NULL, cpu_fr_add}, {"sub", cuzk__gpu_fr_sub, NULL, cpu_fr_sub},
    {"neg", NULL, cuzk__gpu_fr_neg, cpu_fr_neg},
};
static const op_desc fp_ops[] = {
    {"mul", cuzk__gpu_fp_mul, NULL, cpu_fp_mul}, {"sqr", NULL, cuzk__gpu_fp_sqr, cpu_fp_sqr},
    {"add", cuzk__gpu_fp_add, NULL, cpu_fp_add}, {"sub", cuzk__gpu_fp_sub, NULL, cpu_fp_sub},
    {"neg", NULL, cuzk__gpu_fp_neg, cpu_fp_neg}, {"inv", NULL, cuzk__gpu_fp_inv, cpu_fp_inv},
};
static const op_desc fp2_ops[] = {
    {"mul", cuzk__gpu_fp2_mul, NULL, cpu_fp2_mul},
    {"sqr", NULL, cuzk__gpu_fp2_sqr, cpu_fp2_sqr},
    {"inv", NULL, cuzk__gpu_fp2_inv, cpu_fp2_inv},
};
static const op_desc fp_pair_ops[] = {
    {"sqr_pair", NULL, cuzk__gpu_fp_sqr_pair, cpu_fp_sqr_pair},
    {"mul_pair", cuzk__gpu_fp_mul_pair, NULL, cpu_fp_mul_pair},
};

static const field_desc fields[] = {
    {"Fr", 4, cuzk__fr_r, 4, cuzk__fr_one.l, fr_ops, sizeof fr_ops / sizeof fr_ops[0]},
    {"Fp", 6, cuzk__fp_p, 6, cuzk__fp_one.l, fp_ops, sizeof fp_ops / sizeof fp_ops[0]},
    {"Fp2", 12, cuzk__fp_p, 6, cuzk__fp_one.l, fp2_ops, sizeof fp2_ops / sizeof fp2_ops[0]},
    {"Fp pair", 12, cuzk__fp_p, 6, cuzk__fp_one.l, fp_pair_ops,
     sizeof fp_pair_ops / sizeof fp_pair_ops[0]},
};

/* ---- inputs ------------------------------------------------------------- */

/* Edge elements of the field (Fp2: combinations of coordinates). */
static size_t edge_elements(uint64_t out[][MAX_WORDS], const field_desc *f) {
    uint64_t c[MAX_COORDS][6];
    size_t k = edge_coords(c, f->mod, f->one, f->mod_words), e = 0;
    memset(out, 0, sizeof(uint64_t) * MAX_WORDS * MAX_EDGES);
    if (f->words == f->mod_words) {
        for (size_t i = 0; i < k; i++) memcpy(out[e++], c[i], f->mod_words * 8);
        return e;
    }
    for (size_t i = 0; i < k && e + 4 <= MAX_EDGES; i++) {
        memcpy(out[e], c[i], 48), memcpy(out[e] + 6, c[i], 48), e++;     /* (x, x) */
        memcpy(out[e], c[i], 48), e++;                                    /* (x, 0) */
        memcpy(out[e] + 6, c[i], 48), e++;                                /* (0, x) */
        memcpy(out[e], c[i], 48), memcpy(out[e] + 6, c[k - 1 - i], 48), e++; /* (x, y) */
    }
    return e;
}

/* All pairs of edge values at the start of a and b, as far as they fit. */
static void put_edge_pairs(uint64_t *a, uint64_t *b, size_t n, const field_desc *f) {
    const size_t w = f->words;
    static uint64_t edges[MAX_EDGES][MAX_WORDS];
    size_t ne = edge_elements(edges, f), pos = 0;
    for (size_t i = 0; i < ne; i++)
        for (size_t j = 0; j < ne && pos < n; j++, pos++) {
            memcpy(a + pos * w, edges[i], w * 8);
            memcpy(b + pos * w, edges[j], w * 8);
        }
}

static void fill_inputs(uint64_t *a, uint64_t *b, size_t n, const field_desc *f) {
    const size_t w = f->words, mw = f->mod_words;
    for (size_t i = 0; i < n; i++)
        for (size_t c = 0; c < w; c += mw) {
            rand_coord(a + i * w + c, f->mod, mw);
            rand_coord(b + i * w + c, f->mod, mw);
        }
    put_edge_pairs(a, b, n, f);
}

/* ---- the comparison ------------------------------------------------------ */

static void print_elem(const char *label, const uint64_t *x, size_t w) {
    fprintf(stderr, "    %s", label);
    for (size_t i = w; i-- > 0;) fprintf(stderr, " %016" PRIx64, x[i]);
    fprintf(stderr, "\n");
}

/* Elements of got that differ from want (n elements of w words), the first
 * three printed with their operands a and b (b may be NULL) under what. */
static size_t count_differing(const char *what, const uint64_t *a, const uint64_t *b,
                              const uint64_t *got, const uint64_t *want, size_t n, size_t w) {
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        if (memcmp(got + i * w, want + i * w, w * 8) == 0) continue;
        if (bad++ < 3) {
            fprintf(stderr, "  %s: element %zu differs\n", what, i);
            print_elem("a  ", a + i * w, w);
            if (b) print_elem("b  ", b + i * w, w);
            print_elem("gpu", got + i * w, w);
            print_elem("cpu", want + i * w, w);
        }
    }
    return bad;
}

static void check_field(const field_desc *f) {
    static const size_t sizes[] = {1, 1000, (size_t)1 << 20};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        const size_t n = sizes[s], w = f->words;
        uint64_t *a = malloc(n * w * 8), *b = malloc(n * w * 8);
        uint64_t *got = malloc(n * w * 8), *want = malloc(n * w * 8);
        CHECK(a && b && got && want);
        if (!(a && b && got && want)) goto out;
        fill_inputs(a, b, n, f);
        for (size_t o = 0; o < f->nops; o++) {
            const op_desc *op = &f->ops[o];
            for (size_t i = 0; i < n; i++) op->cpu(want + i * w, a + i * w, b + i * w);
            memset(got, 0, n * w * 8);
            cuzk_status st = op->gpu2 ? op->gpu2(got, a, b, n) : op->gpu1(got, a, n);
            if (st != CUZK_OK) {
                fprintf(stderr, "%s %s n=%zu: %s: %s\n", f->name, op->name, n,
                        cuzk_status_name(st), cuzk__gpu_last_error());
                CHECK(st == CUZK_OK);
                continue;
            }
            char what[96];
            snprintf(what, sizeof what, "%s %s n=%zu", f->name, op->name, n);
            const size_t bad = count_differing(what, a, op->gpu2 ? b : NULL, got, want, n, w);
            if (bad) fprintf(stderr, "  %s %s n=%zu: %zu of %zu differ\n", f->name, op->name, n,
                             bad, n);
            CHECK(bad == 0);
        }
    out:
        free(a), free(b), free(got), free(want);
    }
}

static void test_fr(void) { check_field(&fields[0]); }
static void test_fp(void) { check_field(&fields[1]); }
static void test_fp2(void) { check_field(&fields[2]); }
static void test_fp_pairs(void) { check_field(&fields[3]); }

/* ---- the dedicated squaring against the device's multiplication ---------- */

/* by_mul = GPU mul(a, b) and by_sqr = GPU sqr(a) for n elements of w words,
 * each output poisoned differently first (a kernel that writes nothing
 * cannot make them agree). False, with the device's error under what, if
 * either call failed. */
static bool run_mul_sqr(const char *what, gpu_binary_fn gpu_mul, gpu_unary_fn gpu_sqr,
                        uint64_t *by_mul, uint64_t *by_sqr, const uint64_t *a, const uint64_t *b,
                        size_t n, size_t w) {
    memset(by_mul, 0x5a, n * w * 8);
    memset(by_sqr, 0xa5, n * w * 8);
    cuzk_status st = gpu_mul(by_mul, a, b, n);
    CHECK(st == CUZK_OK);
    cuzk_status st2 = gpu_sqr(by_sqr, a, n);
    CHECK(st2 == CUZK_OK);
    if (st == CUZK_OK && st2 == CUZK_OK) return true;
    fprintf(stderr, "  %s: %s\n", what, cuzk__gpu_last_error());
    return false;
}

/* GPU sqr(a) == GPU mul(a, a) == CPU sqr(a) for 2^20 elements: the edge
 * values, then carry-heavy and uniform ones alternating. */
static void check_sqr_vs_mul(const field_desc *f, gpu_binary_fn gpu_mul, gpu_unary_fn gpu_sqr,
                             cpu_fn cpu_sqr) {
    const size_t n = (size_t)1 << 20, w = f->words;
    uint64_t *a = malloc(n * w * 8), *by_mul = malloc(n * w * 8), *by_sqr = malloc(n * w * 8);
    uint64_t *want = malloc(n * w * 8);
    CHECK(a && by_mul && by_sqr && want);
    if (!(a && by_mul && by_sqr && want)) goto out;
    for (size_t i = 0; i < n; i++) {
        if (i % 2)
            rand_coord(a + i * w, f->mod, w);
        else
            rand_carry_heavy(a + i * w, f->mod, w);
    }
    {
        static uint64_t edges[MAX_EDGES][MAX_WORDS];
        size_t ne = edge_elements(edges, f);
        for (size_t i = 0; i < ne; i++) memcpy(a + i * w, edges[i], w * 8);
    }
    if (!run_mul_sqr(f->name, gpu_mul, gpu_sqr, by_mul, by_sqr, a, a, n, w)) goto out;
    for (size_t i = 0; i < n; i++) cpu_sqr(want + i * w, a + i * w, NULL);
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        if (memcmp(by_sqr + i * w, by_mul + i * w, w * 8) == 0 &&
            memcmp(by_sqr + i * w, want + i * w, w * 8) == 0)
            continue;
        if (bad++ < 3) {
            fprintf(stderr, "  %s sqr vs mul: element %zu differs\n", f->name, i);
            print_elem("a       ", a + i * w, w);
            print_elem("gpu sqr ", by_sqr + i * w, w);
            print_elem("gpu a*a ", by_mul + i * w, w);
            print_elem("cpu sqr ", want + i * w, w);
        }
    }
    if (bad) fprintf(stderr, "  %s sqr vs mul: %zu of %zu differ\n", f->name, bad, n);
    CHECK(bad == 0);
out:
    free(a), free(by_mul), free(by_sqr), free(want);
}

/* Below m: each 32-bit limb zero with probability 5/8, else a carry-heavy
 * value as above. Many zero limbs make a reduction row's low word t0 zero
 * (q = 0) or 0xffffffff, the two corner cases of Fr's multiplier-free
 * handling of r's limbs 1 and 0xffffffff (ff.cuh cios_reduce,
 * redc_parity_row). */
static void rand_sparse(uint64_t *r, const uint64_t *m, size_t n) {
    rand_carry_heavy(r, m, n);
    for (size_t i = 0; i < 2 * n; i++) {
        if (cuzk_test_rand64() % 8 < 5) set_limb32(r, i, 0);
    }
    /* clearing limbs only lowers the value: still below m */
}

/* GPU Fr mul and sqr against the CPU on 2^20 pairs of distinct operands,
 * both carry-heavy or sparse (the uniform pairs of test_fr almost never
 * reach a row with t0 = 0 or t0 = 0xffffffff). */
static void test_fr_carry_heavy(void) {
    const field_desc *f = &fields[0];
    const size_t n = (size_t)1 << 20, w = f->words;
    uint64_t *a = malloc(n * w * 8), *b = malloc(n * w * 8), *got = malloc(n * w * 8);
    uint64_t *got_sqr = malloc(n * w * 8), *want = malloc(n * w * 8);
    CHECK(a && b && got && got_sqr && want);
    if (!(a && b && got && got_sqr && want)) goto out;
    for (size_t i = 0; i < n; i++) {
        if (i % 2) rand_sparse(a + i * w, f->mod, w); else rand_carry_heavy(a + i * w, f->mod, w);
        if (i % 4 < 2) rand_sparse(b + i * w, f->mod, w); else rand_carry_heavy(b + i * w, f->mod, w);
    }
    if (!run_mul_sqr("Fr carry-heavy", cuzk__gpu_fr_mul, cuzk__gpu_fr_sqr, got, got_sqr, a, b, n,
                     w))
        goto out;
    for (size_t i = 0; i < n; i++) cpu_fr_mul(want + i * w, a + i * w, b + i * w);
    size_t bad = count_differing("Fr carry-heavy mul", a, b, got, want, n, w);
    for (size_t i = 0; i < n; i++) cpu_fr_sqr(want + i * w, a + i * w, NULL);
    bad += count_differing("Fr carry-heavy sqr", a, NULL, got_sqr, want, n, w);
    if (bad) fprintf(stderr, "  Fr carry-heavy: %zu mismatches in %zu elements\n", bad, n);
    CHECK(bad == 0);
out:
    free(a), free(b), free(got), free(got_sqr), free(want);
}

static void test_fr_sqr_vs_mul(void) {
    check_sqr_vs_mul(&fields[0], cuzk__gpu_fr_mul, cuzk__gpu_fr_sqr, cpu_fr_sqr);
}
static void test_fp_sqr_vs_mul(void) {
    check_sqr_vs_mul(&fields[1], cuzk__gpu_fp_mul, cuzk__gpu_fp_sqr, cpu_fp_sqr);
}

/* ---- halves at carry boundaries ------------------------------------------ */

/* r = (X - a + d) mod X over h words (X = 2^(64h)). */
static void neg_plus(uint64_t *r, const uint64_t *a, uint64_t d, size_t h) {
    uint64_t borrow = 0, carry = 0;
    for (size_t i = 0; i < h; i++) r[i] = cuzk__sbb(0, a[i], &borrow);
    for (size_t i = 0; i < h; i++) r[i] = cuzk__adc(r[i], i == 0 ? d : 0, &carry);
}

/*
 * Below m, as halves a = a0 + a1 X of h = n/2 words (X = 2^(64h); Fp
 * 2^192, Fr 2^128) whose sum a0 + a1 sits at or near X. a1 is below m's
 * high half m1 (m1 - 1, m1 - 1 - small, uniform, carry-heavy limbs, 0 or
 * 1), so a < m for any a0, which is one of: all ones less a small value,
 * X - a1 (sum exactly X: the middle factor's low half is zero), X - a1 - 1
 * (sum X - 1: the largest without a carry), X - a1 + small (just above),
 * a1 itself (equal halves), a random value in the top quarter, carry-heavy
 * limbs or uniform. One draw in 16 is m - 1 - small instead (a1 = m1).
 */
static void rand_halves(uint64_t *r, const uint64_t *m, size_t n) {
    const size_t h = n / 2;
    uint64_t *a0 = r, *a1 = r + h;
    const uint64_t small = cuzk_test_rand64() & 0xfffff;
    if (cuzk_test_rand64() % 16 == 0) {
        sub_small(r, m, 1 + small, n);
        return;
    }
    switch (cuzk_test_rand64() % 6) {
    case 0: sub_small(a1, m + h, 1, h); break;
    case 1: sub_small(a1, m + h, 1 + small, h); break;
    case 2: rand_coord(a1, m + h, h); break;
    case 3: rand_carry_heavy(a1, m + h, h); break;
    case 4: memset(a1, 0, h * 8), a1[0] = 1; break;
    default: memset(a1, 0, h * 8); break;
    }
    switch (cuzk_test_rand64() % 9) {
    case 0:
        for (size_t i = 0; i < h; i++) a0[i] = ~0ULL;
        a0[0] -= small;
        break;
    case 1: neg_plus(a0, a1, 0, h); break;
    case 2: /* X - a1 - 1 */
        for (size_t i = 0; i < h; i++) a0[i] = ~a1[i];
        break;
    case 3: neg_plus(a0, a1, 1 + small, h); break;
    case 4: memcpy(a0, a1, h * 8); break;
    case 5:
        for (size_t i = 0; i < h; i++) a0[i] = cuzk_test_rand64();
        a0[h - 1] |= 3ULL << 62;
        break;
    case 6:
        memset(a0, 0, h * 8);
        for (size_t i = 0; i < 2 * h; i++) {
            const uint64_t y = cuzk_test_rand64();
            const uint32_t pick[5] = {0, 1, 0xffffffffu, 0xfffffffeu, (uint32_t)(y >> 32)};
            set_limb32(a0, i, pick[y % 5]);
        }
        break;
    default:
        for (size_t i = 0; i < h; i++) a0[i] = cuzk_test_rand64();
        break;
    }
}

/* Does a0 + a1 reach X (the middle factor's carry)? */
static bool halves_carry(const uint64_t *a, size_t n) {
    const size_t h = n / 2;
    uint64_t c = 0;
    for (size_t i = 0; i < h; i++) (void)cuzk__adc(a[i], a[h + i], &c);
    return c != 0;
}

/*
 * GPU mul against the CPU on 2^20 pairs: all pairs of the edge values (as
 * check_field), then pairs of which both, one (either side) or neither
 * operand is drawn by rand_halves, the rest uniform. For Fp also mul_pair,
 * the second product of element i being pair n-1-i.
 */
static void check_mul_halves(const field_desc *f, gpu_binary_fn gpu_mul, cpu_fn cpu_mul,
                           gpu_binary_fn gpu_mul_pair) {
    const size_t n = (size_t)1 << 20, w = f->words;
    uint64_t *a = malloc(n * w * 8), *b = malloc(n * w * 8), *got = malloc(n * w * 8);
    uint64_t *want = malloc(n * w * 8), *pa = malloc(2 * n * w * 8), *pb = malloc(2 * n * w * 8);
    uint64_t *pgot = malloc(2 * n * w * 8);
    CHECK(a && b && got && want && pa && pb && pgot);
    if (!(a && b && got && want && pa && pb && pgot)) goto out;
    for (size_t i = 0; i < n; i++) {
        const int mode = (int)(i % 4); /* 0: both, 1: a, 2: b, 3: both again */
        if (mode != 2) rand_halves(a + i * w, f->mod, w); else rand_coord(a + i * w, f->mod, w);
        if (mode != 1) rand_halves(b + i * w, f->mod, w); else rand_coord(b + i * w, f->mod, w);
    }
    put_edge_pairs(a, b, n, f);
    size_t both = 0;
    for (size_t i = 0; i < n; i++) {
        cpu_mul(want + i * w, a + i * w, b + i * w);
        both += halves_carry(a + i * w, w) && halves_carry(b + i * w, w);
    }
    printf("  %s: %zu of %zu pairs carry on both sides\n", f->name, both, n);
    CHECK(both > n / 64);
    memset(got, 0x5a, n * w * 8);
    cuzk_status st = gpu_mul(got, a, b, n);
    CHECK(st == CUZK_OK);
    if (st != CUZK_OK) {
        fprintf(stderr, "  %s carry-boundary halves: %s\n", f->name, cuzk__gpu_last_error());
        goto out;
    }
    char what[64];
    snprintf(what, sizeof what, "%s carry-boundary halves mul", f->name);
    size_t bad = count_differing(what, a, b, got, want, n, w);
    if (gpu_mul_pair) {
        for (size_t i = 0; i < n; i++) {
            memcpy(pa + 2 * i * w, a + i * w, w * 8);
            memcpy(pb + 2 * i * w, b + i * w, w * 8);
            memcpy(pa + (2 * i + 1) * w, a + (n - 1 - i) * w, w * 8);
            memcpy(pb + (2 * i + 1) * w, b + (n - 1 - i) * w, w * 8);
        }
        memset(pgot, 0xa5, 2 * n * w * 8);
        st = gpu_mul_pair(pgot, pa, pb, n);
        CHECK(st == CUZK_OK);
        if (st != CUZK_OK) {
            fprintf(stderr, "  %s carry-boundary halves mul_pair: %s\n", f->name, cuzk__gpu_last_error());
            goto out;
        }
        for (size_t i = 0; i < n; i++) {
            if (memcmp(pgot + 2 * i * w, want + i * w, w * 8) == 0 &&
                memcmp(pgot + (2 * i + 1) * w, want + (n - 1 - i) * w, w * 8) == 0)
                continue;
            if (bad++ < 3) {
                fprintf(stderr, "  %s carry-boundary halves mul_pair: element %zu differs\n", f->name, i);
                print_elem("a0  ", pa + 2 * i * w, w);
                print_elem("b0  ", pb + 2 * i * w, w);
                print_elem("gpu0", pgot + 2 * i * w, w);
                print_elem("cpu0", want + i * w, w);
                print_elem("a1  ", pa + (2 * i + 1) * w, w);
                print_elem("b1  ", pb + (2 * i + 1) * w, w);
                print_elem("gpu1", pgot + (2 * i + 1) * w, w);
                print_elem("cpu1", want + (n - 1 - i) * w, w);
            }
        }
    }
    if (bad) fprintf(stderr, "  %s carry-boundary halves: %zu mismatches\n", f->name, bad);
    CHECK(bad == 0);
out:
    free(a), free(b), free(got), free(want), free(pa), free(pb), free(pgot);
}

static void test_fp_mul_half_edges(void) {
    check_mul_halves(&fields[1], cuzk__gpu_fp_mul, cpu_fp_mul, cuzk__gpu_fp_mul_pair);
}
static void test_fr_mul_half_edges(void) {
    check_mul_halves(&fields[0], cuzk__gpu_fr_mul, cpu_fr_mul, NULL);
}

/* Bad arguments are refused, a failing CUDA call is reported (not fatal) and
 * leaves the device usable. */
static void test_errors(void) {
    cuzk_fr a = cuzk__fr_one, b = cuzk__fr_one, r;
    CHECK(cuzk__gpu_fr_mul(NULL, a.l, b.l, 1) == CUZK_ERR_INVALID_ARG);
    CHECK(cuzk__gpu_fr_mul(r.l, a.l, NULL, 1) == CUZK_ERR_INVALID_ARG);
    CHECK(cuzk__gpu_fr_mul(r.l, a.l, b.l, 0) == CUZK_OK);
    /* 2^40 elements (32 TiB): cudaMalloc fails before any host memory is read. */
    cuzk_status st = cuzk__gpu_fr_mul(r.l, a.l, b.l, (size_t)1 << 40);
    CHECK(st == CUZK_ERR_GPU);
    CHECK(strstr(cuzk__gpu_last_error(), "cudaMalloc") != NULL);
    printf("  expected failure recorded: %s\n", cuzk__gpu_last_error());
    int count = 0;
    CHECK(cuzk__gpu_device_count(&count) == CUZK_OK);
    char name[64];
    CHECK(cuzk__gpu_device_name(count, name, sizeof name, NULL) == CUZK_ERR_GPU);
    CHECK(strstr(cuzk__gpu_last_error(), "cudaErrorInvalidDevice") != NULL);
    /* still usable: one * one = one */
    r = a;
    st = cuzk__gpu_fr_mul(r.l, a.l, b.l, 1);
    CHECK(st == CUZK_OK);
    CHECK(cuzk_fr_is_one(&r));
}

/* ---- throughput --------------------------------------------------------- */

static void bench(void) {
    static const struct {
        cuzk__gpu_field f;
        const char *name;
        unsigned iters;
        double imad;   /* 32-bit multiply-adds per multiplication (ff.cuh) */
        unsigned warps; /* per SM (threads of 384 x SMs, 128 a block); 0: n = 2^24 */
    } rows[] = {
        {CUZK__GPU_FR, "Fr mul", 64, CUZK_TEST_FR_MUL_IMAD, 0},
        {CUZK__GPU_FP, "Fp mul", 32, CUZK_TEST_FP_MUL_IMAD, 0},
        {CUZK__GPU_FP2, "Fp2 mul", 16, 3 * CUZK_TEST_FP_MUL_IMAD, 0},
        /* two CIOS chains per thread; then probes (steps/s; IMAD/s 0 = not shown):
         * 288 FP64 FMAs alone, and beside one CIOS product */
        {CUZK__GPU_FR_CIOS2, "Fr 2cios", 64, CUZK_TEST_FR_MUL_IMAD, 0},
        {CUZK__GPU_FP64_PROBE, "fma288", 64, 0, 0},
        {CUZK__GPU_FR_CIOS_FP64_PROBE, "cios+288", 64, 0, 0},
        /* G1's level products (lazy), at full occupancy and at 12, 16 (the level
         * kernel's) and 24 warps an SM, one chain a thread or two through the paired
         * product */
        {CUZK__GPU_FP_LAZY, "Fp lazy", 32, CUZK_TEST_FP_MUL_IMAD, 0},
        {CUZK__GPU_FP_LAZY2, "Fp lazy2", 32, CUZK_TEST_FP_MUL_IMAD, 0},
        {CUZK__GPU_FP_LAZY, "lazy@12w", 4096, CUZK_TEST_FP_MUL_IMAD, 12},
        {CUZK__GPU_FP_LAZY2, "lazy2@12w", 4096, CUZK_TEST_FP_MUL_IMAD, 12},
        {CUZK__GPU_FP_LAZY, "lazy@16w", 4096, CUZK_TEST_FP_MUL_IMAD, 16},
        {CUZK__GPU_FP_LAZY2, "lazy2@16w", 4096, CUZK_TEST_FP_MUL_IMAD, 16},
        {CUZK__GPU_FP_LAZY, "lazy@24w", 2048, CUZK_TEST_FP_MUL_IMAD, 24},
    };
    const size_t n = (size_t)1 << 24;
    const unsigned reps = 10;
    char name[128];
    int sms = 0;
    if (cuzk__gpu_device_name(cuzk_gpu_test_dev, name, sizeof name, &sms) != CUZK_OK) return;
    printf("\nthroughput on %s (%d SMs): n = 2^24 elements, x = x*y chains, median of %u\n",
           name, sms, reps);
    printf("%-8s %6s %10s %10s %12s %10s\n", "op", "iters", "median ms", "min ms", "Gmul/s",
           "IMAD/s");
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        cuzk__gpu_bench_result res;
        /* the chains: n threads, n / 2 with two a thread */
        const size_t per = rows[i].f == CUZK__GPU_FP_LAZY2 ? 2 : 1;
        const size_t rn = rows[i].warps ? (size_t)rows[i].warps * 32 * (size_t)sms * per : n;
        cuzk_status st = cuzk__gpu_bench_mul(&res, rows[i].f, rn, rows[i].iters, reps);
        if (st != CUZK_OK) {
            printf("%-8s failed: %s\n", rows[i].name, cuzk__gpu_last_error());
            CHECK(st == CUZK_OK);
            continue;
        }
        printf("%-8s %6u %10.3f %10.3f %12.2f", rows[i].name, rows[i].iters, res.ms_median,
               res.ms_min, res.mul_per_s * 1e-9);
        if (rows[i].imad > 0)
            printf(" %9.2fT\n", res.mul_per_s * rows[i].imad * 1e-12);
        else
            printf(" %10s\n", "-");
    }
}

int main(int argc, char **argv) {
    cuzk_test_init(argc, argv);
    int need = cuzk_gpu_test_need_device(argc, argv);
    if (need != 0) return need;
    printf("CPU reference: %s\n", cuzk_cpu_features() & CUZK_CPU_ADX ? "ADX asm" : "portable C");
    RUN(test_fr);
    RUN(test_fp);
    RUN(test_fp2);
    RUN(test_fp_pairs);
    RUN(test_fr_carry_heavy);
    RUN(test_fr_sqr_vs_mul);
    RUN(test_fp_sqr_vs_mul);
    RUN(test_fp_mul_half_edges);
    RUN(test_fr_mul_half_edges);
    RUN(test_errors);
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--bench") == 0) RUN(bench);
    return cuzk_test_finish();
}
