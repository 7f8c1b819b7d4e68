/*
 * The device field arithmetic (src/gpu/ff.cuh) on the host: the same source
 * compiled by a C++ compiler with its PTX carry chains modelled
 * (tests/unit/gpu_ff_model.cpp), against the CPU field code, bit for bit.
 * Every multiplier the kernels use: Fr mul, sqr and mul_pair; Fp mul, sqr,
 * mul_pair, sqr_pair; Fp2 mul and sqr. Inputs: all pairs of edge values,
 * carry-heavy values (limbs of 0, 1, 2^32-1, the modulus's limbs) and
 * uniform ones. tests/gpu/test_gpu_ff.c checks the compiled kernels on a GPU;
 * this one runs everywhere, CI included, and takes seconds.
 */
#include "fp2.h"
#include "fr.h"
#include "harness.h"
#include "field_cases.h"

void cuzk_model_fr_mul(uint64_t r[4], const uint64_t a[4], const uint64_t b[4]);
void cuzk_model_fr_sqr(uint64_t r[4], const uint64_t a[4]);
void cuzk_model_fr_mul_pair(uint64_t r[8], const uint64_t a[8], const uint64_t b[8]);
void cuzk_model_fp_mul(uint64_t r[6], const uint64_t a[6], const uint64_t b[6]);
void cuzk_model_fp_sqr(uint64_t r[6], const uint64_t a[6]);
void cuzk_model_fp_mul_pair(uint64_t r[12], const uint64_t a[12], const uint64_t b[12]);
void cuzk_model_fp_sqr_pair(uint64_t r[12], const uint64_t a[12]);
void cuzk_model_fp2_mul(uint64_t r[12], const uint64_t a[12], const uint64_t b[12]);
void cuzk_model_fp2_sqr(uint64_t r[12], const uint64_t a[12]);

/* One field: n coordinate words, its modulus and Montgomery one. */
typedef struct {
    const char *name;
    size_t n;
    const uint64_t *m, *one;
} field;

static const field FR = {"Fr", 4, cuzk__fr_r, cuzk__fr_one.l};
static const field FP = {"Fp", 6, cuzk__fp_p, cuzk__fp_one.l};

/* Input k of a run: the edge pairs first, then carry-heavy and uniform ones. */
static void pick(uint64_t *a, uint64_t *b, const field *f, size_t k, uint64_t edges[][6],
                 size_t ne) {
    if (k < ne * ne) {
        memcpy(a, edges[k / ne], f->n * 8);
        memcpy(b, edges[k % ne], f->n * 8);
    } else if (k % 2) {
        rand_carry_heavy(a, f->m, f->n);
        rand_carry_heavy(b, f->m, f->n);
    } else {
        rand_coord(a, f->m, f->n);
        rand_coord(b, f->m, f->n);
    }
}

static void report(const char *what, size_t k, const uint64_t *a, const uint64_t *b,
                   const uint64_t *got, const uint64_t *want, size_t n) {
    fprintf(stderr, "  %s differs at input %zu:\n", what, k);
    const uint64_t *v[4] = {a, b, got, want};
    const char *lab[4] = {"a", "b", "model", "cpu"};
    for (int i = 0; i < 4; i++) {
        fprintf(stderr, "    %-5s", lab[i]);
        for (size_t j = n; j-- > 0;) fprintf(stderr, " %016llx", (unsigned long long)v[i][j]);
        fprintf(stderr, "\n");
    }
}

/* mul, sqr and the pairs of one prime field over count inputs. */
static void check_prime(const field *f, size_t count) {
    uint64_t edges[MAX_COORDS][6];
    const size_t ne = edge_coords(edges, f->m, f->one, f->n);
    const bool fr = f->n == 4;
    size_t bad = 0;
    for (size_t k = 0; k < ne * ne + count && bad < 4; k++) {
        uint64_t a[12] = {0}, b[12] = {0}, got[12], want[12];
        pick(a, b, f, k, edges, ne);
        pick(a + f->n, b + f->n, f, (k * 7 + 3) % (ne * ne + count), edges, ne);
        /* mul */
        if (fr) {
            cuzk_model_fr_mul(got, a, b);
            cuzk_fr_mul((cuzk_fr *)want, (const cuzk_fr *)a, (const cuzk_fr *)b);
        } else {
            cuzk_model_fp_mul(got, a, b);
            cuzk_fp_mul((cuzk_fp *)want, (const cuzk_fp *)a, (const cuzk_fp *)b);
        }
        if (memcmp(got, want, f->n * 8) != 0) bad++, report("mul", k, a, b, got, want, f->n);
        /* sqr */
        if (fr) {
            cuzk_model_fr_sqr(got, a);
            cuzk_fr_sqr((cuzk_fr *)want, (const cuzk_fr *)a);
        } else {
            cuzk_model_fp_sqr(got, a);
            cuzk_fp_sqr((cuzk_fp *)want, (const cuzk_fp *)a);
        }
        if (memcmp(got, want, f->n * 8) != 0) bad++, report("sqr", k, a, a, got, want, f->n);
        /* the pairs: (a0, b0) and (a1, b1) at once */
        if (fr) {
            cuzk_model_fr_mul_pair(got, a, b);
            cuzk_fr_mul((cuzk_fr *)want, (const cuzk_fr *)a, (const cuzk_fr *)b);
            cuzk_fr_mul((cuzk_fr *)want + 1, (const cuzk_fr *)a + 1, (const cuzk_fr *)b + 1);
        } else {
            cuzk_model_fp_mul_pair(got, a, b);
            cuzk_fp_mul((cuzk_fp *)want, (const cuzk_fp *)a, (const cuzk_fp *)b);
            cuzk_fp_mul((cuzk_fp *)want + 1, (const cuzk_fp *)a + 1, (const cuzk_fp *)b + 1);
        }
        if (memcmp(got, want, 2 * f->n * 8) != 0)
            bad++, report("mul_pair", k, a, b, got, want, 2 * f->n);
        if (!fr) {
            cuzk_model_fp_sqr_pair(got, a);
            cuzk_fp_sqr((cuzk_fp *)want, (const cuzk_fp *)a);
            cuzk_fp_sqr((cuzk_fp *)want + 1, (const cuzk_fp *)a + 1);
            if (memcmp(got, want, 12 * 8) != 0)
                bad++, report("sqr_pair", k, a, a, got, want, 12);
        }
    }
    CHECK(bad == 0);
}

static void test_fr(void) { check_prime(&FR, 1000000 * cuzk_test_iters_scale); }
static void test_fp(void) { check_prime(&FP, 400000 * cuzk_test_iters_scale); }

/* Fp2 mul and sqr: coordinates from the same generators. */
static void test_fp2(void) {
    uint64_t edges[MAX_COORDS][6];
    const size_t ne = edge_coords(edges, FP.m, FP.one, FP.n);
    const size_t count = ne * ne + 100000 * cuzk_test_iters_scale;
    size_t bad = 0;
    for (size_t k = 0; k < count && bad < 4; k++) {
        uint64_t a[12], b[12], got[12], want[12];
        pick(a, b, &FP, k, edges, ne);
        pick(a + 6, b + 6, &FP, (k * 5 + 1) % count, edges, ne);
        cuzk_model_fp2_mul(got, a, b);
        cuzk_fp2_mul((cuzk_fp2 *)want, (const cuzk_fp2 *)a, (const cuzk_fp2 *)b);
        if (memcmp(got, want, sizeof got) != 0) bad++, report("fp2 mul", k, a, b, got, want, 12);
        cuzk_model_fp2_sqr(got, a);
        cuzk_fp2_sqr((cuzk_fp2 *)want, (const cuzk_fp2 *)a);
        if (memcmp(got, want, sizeof got) != 0) bad++, report("fp2 sqr", k, a, a, got, want, 12);
    }
    CHECK(bad == 0);
}

int main(int argc, char **argv) {
    cuzk_test_init(argc, argv);
    RUN(test_fr);
    RUN(test_fp);
    RUN(test_fp2);
    return cuzk_test_finish();
}
