/*
 * The AVX-512 IFMA batch of G1 affine additions (src/ec/g1_ifma.c) against
 * the scalar code, bit for bit: batches of 1 to 1100 pairs (lane and
 * 512-pair chunk boundaries) of random buckets and points, the outputs in
 * place, elsewhere, and over the inputs as a reduction tree level writes
 * them (the header's aliasing contract); small multiples of G and their
 * negations; and coordinates that are not curve points at all but the
 * field's edge values (0, 1, p - 1, limb boundaries, carry-heavy limbs),
 * against the affine formulas in Fp (the kernel never uses the curve).
 * Exits 77 (skipped) on a CPU without AVX-512 IFMA.
 */
#include "cuzk.h"
#include "ec/g1.h"
#include "ec/g1_ifma.h"
#include "harness.h"
#include "test_util.h"
#include "field_cases.h"

static void *scratch;

/* A subgroup point k G with k random. */
static void rand_point(cuzk_g1_aff *r) {
    uint64_t k[4];
    cuzk_test_rand_scalar_nonzero(k);
    cuzk_test_g1_gen_mul(r, k);
}

static void expect_sum(const cuzk_g1_aff *got, const cuzk_g1_aff *a, const cuzk_g1_aff *b,
                       size_t m, size_t k) {
    cuzk_g1_jac j;
    cuzk_g1_aff want;
    cuzk_g1_aff_to_jac(&j, a);
    cuzk_g1_jac_add_aff_var(&j, &j, b);
    cuzk_g1_jac_to_aff_var(&want, &j);
    if (memcmp(got, &want, sizeof want) != 0) {
        fprintf(stderr, "  batch of %zu: pair %zu differs\n", m, k);
        CHECK(0);
    }
}

/* m pairs into a pool of buckets at distinct random indices. */
static void check_batch(size_t m, const cuzk_g1_aff *pool, size_t npool) {
    cuzk_g1_aff *buckets = malloc(npool * sizeof(*buckets)), *pts = malloc(m * sizeof(*pts));
    cuzk_g1_aff *before = malloc(npool * sizeof(*before));
    uint32_t *idx = malloc(npool * sizeof(*idx)), *aidx = malloc(m * sizeof(*aidx));
    memcpy(buckets, pool, npool * sizeof(*buckets));
    for (size_t i = 0; i < npool; i++) idx[i] = (uint32_t)i;
    for (size_t i = 0; i < m; i++) { /* partial shuffle: distinct indices */
        size_t j = i + cuzk_test_rand64() % (npool - i);
        uint32_t t = idx[i];
        idx[i] = idx[j];
        idx[j] = t;
        aidx[i] = idx[i];
        /* the kernel's precondition: x coordinates differ */
        size_t pick = cuzk_test_rand64() % npool;
        while (cuzk_fp_eq(&pool[pick].x, &buckets[aidx[i]].x)) pick = (pick + 1) % npool;
        pts[i] = pool[pick];
    }
    memcpy(before, buckets, npool * sizeof(*before));
    cuzk_g1_aff **out = calloc(m, sizeof(*out));
    const cuzk_g1_aff **a = calloc(m, sizeof(*a)), **b = calloc(m, sizeof(*b));
    for (size_t k = 0; k < m; k++) out[k] = &buckets[aidx[k]], a[k] = out[k], b[k] = &pts[k];
    cuzk__g1_add_batch_ifma(out, a, b, m, scratch);
    free(out), free(a), free(b);
    for (size_t k = 0; k < m; k++) expect_sum(&buckets[aidx[k]], &before[aidx[k]], &pts[k], m, k);
    /* buckets outside the batch are untouched */
    size_t touched = 0;
    for (size_t i = 0; i < npool; i++)
        if (memcmp(&buckets[i], &before[i], sizeof(*buckets)) != 0) touched++;
    CHECK(touched <= m);
    free(buckets), free(pts), free(before), free(idx), free(aidx);
}

static void test_batches(void) {
    enum { NPOOL = 1200 };
    cuzk_g1_aff *pool = malloc(NPOOL * sizeof(*pool));
    for (size_t i = 0; i < NPOOL; i++) rand_point(&pool[i]);
    static const size_t sizes[] = {1, 2, 7, 8, 9, 15, 16, 17, 64, 100, 511, 512, 513, 1024, 1100};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (unsigned r = 0; r < cuzk_test_iters_scale; r++) check_batch(sizes[s], pool, NPOOL);
    free(pool);
}

/* Sums whose inputs or results have coordinates at the field's edges: the
 * points +-G, +-2G, ... (small multiples give small and p-1-ish y after
 * negation), added to random buckets and to each other. */
static void test_edges(void) {
    enum { N = 64 };
    cuzk_g1_aff pool[N], g;
    cuzk_g1_generator(&g);
    cuzk_g1_jac acc;
    cuzk_g1_aff_to_jac(&acc, &g);
    for (int i = 0; i < N; i += 2) { /* i/2+1 times G and its negation */
        cuzk_g1_jac_to_aff_var(&pool[i], &acc);
        pool[i + 1] = pool[i];
        cuzk_fp_neg(&pool[i + 1].y, &pool[i].y);
        cuzk_g1_jac_add_aff_var(&acc, &acc, &g);
    }
    for (size_t m = 1; m <= 24; m++) check_batch(m, pool, N);
}

/* A tree level over v[0 .. 2m): out[k] = &v[k], a = &v[2k], b = &v[2k + 1],
 * written over its inputs; and the same sums into a separate array. */
static void test_aliasing(void) {
    enum { M = 300 };
    cuzk_g1_aff *v = malloc(2 * M * sizeof(*v)), *orig = malloc(2 * M * sizeof(*v));
    cuzk_g1_aff *sep = malloc(M * sizeof(*sep));
    cuzk_g1_aff **out = calloc(M, sizeof(*out)), **out2 = calloc(M, sizeof(*out2));
    const cuzk_g1_aff **a = calloc(M, sizeof(*a)), **b = calloc(M, sizeof(*b));
    for (size_t i = 0; i < 2 * M; i++) rand_point(&v[i]);
    memcpy(orig, v, 2 * M * sizeof(*v));
    for (size_t k = 0; k < M; k++)
        out[k] = &v[k], out2[k] = &sep[k], a[k] = &v[2 * k], b[k] = &v[2 * k + 1];
    cuzk__g1_add_batch_ifma(out2, a, b, M, scratch); /* elsewhere: inputs untouched */
    CHECK(memcmp(v, orig, 2 * M * sizeof(*v)) == 0);
    cuzk__g1_add_batch_ifma(out, a, b, M, scratch); /* in place, as a tree level */
    for (size_t k = 0; k < M; k++) {
        expect_sum(&sep[k], &orig[2 * k], &orig[2 * k + 1], M, k);
        expect_sum(&v[k], &orig[2 * k], &orig[2 * k + 1], M, k);
    }
    free(v), free(orig), free(sep), free(out), free(out2), free(a), free(b);
}

/* The affine formulas in Fp: l = (by - ay)/(bx - ax), x3 = l^2 - ax - bx,
 * y3 = l (ax - x3) - ay. */
static void affine_sum(cuzk_g1_aff *r, const cuzk_g1_aff *p, const cuzk_g1_aff *q) {
    cuzk_fp d, l, t, x3;
    cuzk_fp_sub(&d, &q->x, &p->x);
    cuzk_fp_inv_var(&d, &d);
    cuzk_fp_sub(&t, &q->y, &p->y);
    cuzk_fp_mul(&l, &t, &d);
    cuzk_fp_sqr(&x3, &l);
    cuzk_fp_sub(&x3, &x3, &p->x);
    cuzk_fp_sub(&x3, &x3, &q->x);
    cuzk_fp_sub(&t, &p->x, &x3);
    cuzk_fp_mul(&r->y, &l, &t);
    cuzk_fp_sub(&r->y, &r->y, &p->y);
    r->x = x3;
}

/* Edge and carry-heavy coordinates (tests/field_cases.h), any x != x'. */
static void test_field_edges(void) {
    uint64_t edges[MAX_COORDS][6];
    const size_t ne = edge_coords(edges, cuzk__fp_p, cuzk__fp_one.l, 6);
    enum { M = 1000 };
    cuzk_g1_aff *pa = malloc(M * sizeof(*pa)), *pb = malloc(M * sizeof(*pb));
    cuzk_g1_aff *res = malloc(M * sizeof(*res));
    cuzk_g1_aff **out = calloc(M, sizeof(*out));
    const cuzk_g1_aff **a = calloc(M, sizeof(*a)), **b = calloc(M, sizeof(*b));
    for (size_t k = 0; k < M; k++) {
        cuzk_fp *c[4] = {&pa[k].x, &pa[k].y, &pb[k].x, &pb[k].y};
        do {
            for (int j = 0; j < 4; j++) {
                const uint64_t pick = cuzk_test_rand64() % 3;
                if (pick == 0)
                    memcpy(c[j]->l, edges[cuzk_test_rand64() % ne], 48);
                else if (pick == 1)
                    rand_carry_heavy(c[j]->l, cuzk__fp_p, 6);
                else
                    rand_coord(c[j]->l, cuzk__fp_p, 6);
            }
        } while (cuzk_fp_eq(&pa[k].x, &pb[k].x));
        out[k] = &res[k], a[k] = &pa[k], b[k] = &pb[k];
    }
    cuzk__g1_add_batch_ifma(out, a, b, M, scratch);
    size_t bad = 0;
    for (size_t k = 0; k < M; k++) {
        cuzk_g1_aff want;
        affine_sum(&want, &pa[k], &pb[k]);
        if (memcmp(&res[k], &want, sizeof want) != 0 && bad++ < 3)
            fprintf(stderr, "  edge pair %zu differs\n", k);
    }
    CHECK(bad == 0);
    free(pa), free(pb), free(res), free(out), free(a), free(b);
}

int main(int argc, char **argv) {
    cuzk_test_init(argc, argv);
    if (!(cuzk_cpu_features() & CUZK_CPU_IFMA)) {
        printf("no AVX-512 IFMA on this CPU (or CUZK_NO_ASM set): skipped\n");
        return 77;
    }
    scratch = malloc(cuzk__g1_add_batch_ifma_scratch());
    RUN(test_batches);
    RUN(test_edges);
    RUN(test_aliasing);
    RUN(test_field_edges);
    free(scratch);
    return cuzk_test_finish();
}
