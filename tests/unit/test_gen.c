/*
 * test_gen.c — synthetic circuits (src/circuit/gen.c).
 *
 * What is independent of the generator:
 *  - the circuit reader's full validation (checksum, bounds, bitmaps) of the
 *    written bytes (cuzk_circuit_open_mem);
 *  - satisfaction by the SpMV and check of src/circuit/spmv.c, on every
 *    profile and size, for several partitions, and a corrupted witness that
 *    must fail it (so the check can fail);
 *  - statistics recomputed here from the CSR arrays and the witness values
 *    (own loops and bitmaps), compared with the reference targets
 *    (the reference system's PoRep-32G figures) and with the generator's
 *    own report.
 * Determinism: same seed -> identical circuit and witness bytes for 1, 2 and
 * 3 threads; another seed -> another circuit.
 */
#include <math.h>
#include <unistd.h>

#include "harness.h"

#include "circuit/circuit.h"
#include "circuit/gen.h"
#include "circuit/witness.h"

static cuzk_gen *make(cuzk_gen_profile p, unsigned K, double F, uint64_t seed, unsigned threads) {
    cuzk_gen_params gp = {p, K, F, seed, threads};
    cuzk_gen *g = NULL;
    cuzk_error err;
    cuzk_status st = cuzk_gen_new(&g, &gp, &err);
    if (st != CUZK_OK) fprintf(stderr, "gen: %s\n", cuzk__error_text(&err));
    CHECK(st == CUZK_OK);
    return g;
}

static bool satisfied(const cuzk_circuit *c, const cuzk_witness *w, unsigned flags,
                      uint64_t *first_bad) {
    size_t n = (size_t)c->domain_size;
    cuzk_fr *a = malloc(n * sizeof(cuzk_fr)), *b = malloc(n * sizeof(cuzk_fr)),
            *cc = malloc(n * sizeof(cuzk_fr));
    cuzk_error err;
    cuzk_status st = cuzk_witness_abc_var(c, w, a, b, cc, flags, 0, first_bad, &err);
    free(a);
    free(b);
    free(cc);
    return st == CUZK_OK;
}

/* Statistics from the arrays, by the test's own loops. */
typedef struct {
    double per_row[3], a_aux, b_aux, boolean;
    uint64_t b_inp, min_len[3], max_len[3];
} mystats;

static void my_stats(const cuzk_circuit *c, const cuzk_witness *w, mystats *s) {
    memset(s, 0, sizeof(*s));
    uint64_t nv = c->n_inputs + c->n_aux;
    uint8_t *inA = calloc((size_t)nv, 1), *inB = calloc((size_t)nv, 1);
    for (int m = 0; m < 3; m++) {
        s->min_len[m] = UINT64_MAX;
        for (uint64_t i = 0; i < c->n_constraints; i++) {
            uint64_t len = c->m[m].row_ptr[i + 1] - c->m[m].row_ptr[i];
            if (len < s->min_len[m]) s->min_len[m] = len;
            if (len > s->max_len[m]) s->max_len[m] = len;
        }
        s->per_row[m] = (double)c->m[m].nnz / (double)c->n_constraints;
    }
    for (uint64_t k = 0; k < c->m[0].nnz; k++) inA[c->m[0].col[k]] = 1;
    for (uint64_t k = 0; k < c->m[1].nnz; k++) inB[c->m[1].col[k]] = 1;
    uint64_t na = 0, nb = 0, nbool = 0;
    for (uint64_t j = c->n_inputs; j < nv; j++) {
        na += inA[j];
        nb += inB[j];
    }
    for (uint64_t j = 0; j < c->n_inputs; j++) s->b_inp += inB[j];
    for (uint64_t j = 0; j < c->n_aux; j++) {
        const uint64_t *v = w->values + 4 * (c->n_inputs + j);
        nbool += (v[0] == 0 || v[0] == 1) && v[1] == 0 && v[2] == 0 && v[3] == 0;
    }
    s->a_aux = (double)na / (double)c->n_aux;
    s->b_aux = (double)nb / (double)c->n_aux;
    s->boolean = (double)nbool / (double)c->n_aux;
    CHECK_EQ_INT(na, c->a_aux_count);
    CHECK_EQ_INT(nb, c->b_aux_count);
    free(inA);
    free(inB);
}

static bool near(double got, double want, double tol, const char *what, unsigned K) {
    bool ok = fabs(got - want) <= tol;
    if (!ok)
        fprintf(stderr, "  2^%u %s: %.4f, target %.4f +- %.4f\n", K, what, got, want, tol);
    return ok;
}

/*
 * The band of a statistic that is a fraction of n draws (a_aux, b_aux: each
 * aux variable is in A or B or not): six binomial sigmas, plus what a small
 * circuit's handful of long packing rows shifts it by. Fixed bands failed
 * about one run in a hundred: over 150 seeds, b_aux at 2^10 (992 aux) had a
 * sigma of 0.0097 against its fixed +-0.03, and one draw at 2^11 came within
 * 0.0012 of the edge; A/row at 2^12 sat 2.7 sigmas inside its +-0.04.
 */
static double fraction_band(double p, uint64_t n, double bias) {
    return bias + 6.0 * sqrt(p * (1.0 - p) / (double)(n ? n : 1));
}

/*
 * Every variable a query lists must have a nonzero column after summing
 * repeated entries of a row: u_j, v_j are then nonzero polynomials (the
 * Lagrange basis is independent), so the setup's a / b points are not the
 * identity. Likewise every aux needs a nonzero column in A, B or C (its l
 * point). Returns the number of offending variables (0 when all is well).
 */
static uint64_t vanishing_columns(const cuzk_circuit *c) {
    uint64_t nv = cuzk_circuit_n_vars(c), bad = 0;
    uint8_t *live = calloc(nv ? nv : 1, 1); /* bit m: column nonzero in matrix m */
    uint64_t *seen = malloc((nv ? nv : 1) * sizeof(uint64_t));
    cuzk_fr *sum = malloc((nv ? nv : 1) * sizeof(cuzk_fr));
    for (uint64_t j = 0; j < nv; j++) seen[j] = UINT64_MAX;
    for (int m = 0; m < 3; m++) {
        const cuzk_csr *a = &c->m[m];
        for (uint64_t i = 0; i < c->n_constraints; i++) {
            uint64_t tag = i * 3 + (uint64_t)m;
            for (uint64_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; k++) {
                uint32_t j = a->col[k];
                if (seen[j] != tag) cuzk_fr_set_zero(&sum[j]), seen[j] = tag;
                cuzk_fr_add(&sum[j], &sum[j], &c->values[a->val[k]]);
            }
            for (uint64_t k = a->row_ptr[i]; k < a->row_ptr[i + 1]; k++)
                if (!cuzk_fr_is_zero(&sum[a->col[k]])) live[a->col[k]] |= (uint8_t)(1u << m);
        }
    }
    for (uint64_t j = 0; j < nv; j++) {
        bool aux = j >= c->n_inputs;
        uint64_t x = aux ? j - c->n_inputs : j;
        bool in_a = aux && ((c->a_aux[x / 64] >> (x % 64)) & 1);
        bool in_b = ((aux ? c->b_aux : c->b_inp)[x / 64] >> (x % 64)) & 1;
        if ((in_a && !(live[j] & 1)) || (in_b && !(live[j] & 2)) || (aux && live[j] == 0)) bad++;
    }
    free(live);
    free(seen);
    free(sum);
    return bad;
}

/* Every profile at 2^10..2^14: valid file, satisfied witnesses, statistics. */
static void test_profiles(void) {
    for (int p = 0; p < 3; p++) {
        cuzk_gen_targets tg;
        cuzk_gen_targets_for((cuzk_gen_profile)p, &tg);
        for (unsigned K = 10; K <= 14; K++) {
            uint64_t seed = cuzk_test_rand64();
            cuzk_gen *g = make((cuzk_gen_profile)p, K, -1, seed, 0);
            if (g == NULL) continue;
            const cuzk_circuit *c = cuzk_gen_circuit(g);
            CHECK_EQ_INT(c->domain_size, (uint64_t)1 << K);
            CHECK(c->n_constraints + c->n_inputs <= ((uint64_t)1 << K));
            /* the written bytes pass the reader's full validation */
            uint8_t *bytes;
            size_t n;
            cuzk_error err;
            CHECK(cuzk_circuit_to_bytes(c, &bytes, &n, &err) == CUZK_OK);
            cuzk_circuit back;
            cuzk_status st = cuzk_circuit_open_mem(&back, bytes, n, "gen", 0, &err);
            if (st != CUZK_OK) fprintf(stderr, "reopen: %s\n", cuzk__error_text(&err));
            CHECK(st == CUZK_OK);
            /* no listed variable has a column that sums to zero (setup refuses those) */
            uint64_t vanish = vanishing_columns(c);
            if (vanish)
                fprintf(stderr, "  %s 2^%u: %llu variables with vanishing columns\n",
                        cuzk_gen_profile_name((cuzk_gen_profile)p), K, (unsigned long long)vanish);
            CHECK(vanish == 0);
            cuzk_witness w[3];
            for (unsigned part = 0; part < 3; part++) {
                CHECK(cuzk_gen_witness(g, part, &w[part], &err) == CUZK_OK);
                uint64_t bad;
                CHECK(satisfied(&back, &w[part], CUZK_SPMV_DEFAULT, &bad));
                if (bad != UINT64_MAX)
                    fprintf(stderr, "  %s 2^%u w%u fails row %llu\n",
                            cuzk_gen_profile_name((cuzk_gen_profile)p), K, part,
                            (unsigned long long)bad);
            }
            /* the generic SpMV path agrees once per profile */
            if (K == 12) CHECK(satisfied(&back, &w[1], 0, NULL));
            /* partitions differ */
            CHECK(w[0].size == w[1].size &&
                  memcmp(w[0].values, w[1].values, (size_t)w[0].size - 32) != 0);
            CHECK(memcmp(w[1].values, w[2].values, (size_t)w[1].size - 32) != 0);
            /* a changed defined value breaks some constraint: pick the aux
             * value defined by the last row whose C starts with a new var */
            {
                uint64_t nvals = cuzk_witness_n_vars(&w[0]);
                uint64_t *vals = malloc((size_t)nvals * 32);
                memcpy(vals, w[0].values, (size_t)nvals * 32);
                uint64_t row = c->n_constraints - 1;
                while (row > 0 && c->m[2].row_ptr[row] == c->m[2].row_ptr[row + 1]) row--;
                uint32_t col = c->m[2].col[c->m[2].row_ptr[row]];
                vals[4 * col] ^= 2; /* stays < r: the low limb changes by 2 */
                cuzk_witness bad_w;
                CHECK(cuzk_witness_from_values(&bad_w, vals, w[0].n_inputs, w[0].n_aux, "bad",
                                               &err) == CUZK_OK);
                uint64_t first;
                CHECK(!satisfied(&back, &bad_w, CUZK_SPMV_DEFAULT, &first));
                CHECK(first != UINT64_MAX && first <= row);
                cuzk_witness_close(&bad_w);
                free(vals);
            }
            /* statistics */
            mystats ms;
            my_stats(&back, &w[0], &ms);
            cuzk_gen_stats gs;
            cuzk_gen_stats_of(&back, &gs, 0);
            for (int m = 0; m < 3; m++) CHECK(fabs(gs.nnz_per_row[m] - ms.per_row[m]) < 1e-12);
            CHECK(fabs(gs.a_aux - ms.a_aux) < 1e-12 && fabs(gs.b_aux - ms.b_aux) < 1e-12);
            CHECK(fabs(cuzk_gen_witness_boolean_fraction(&w[0], 0) - ms.boolean) < 1e-12);
            printf("  %-5s 2^%u: %llu rows %llu in %llu aux, nnz/row %.3f %.3f %.3f, a_aux %.4f "
                   "b_aux %.4f b_inp %llu, bool %.4f, +-1 %.3f, values %llu/%llu\n",
                   cuzk_gen_profile_name((cuzk_gen_profile)p), K,
                   (unsigned long long)c->n_constraints, (unsigned long long)c->n_inputs,
                   (unsigned long long)c->n_aux, ms.per_row[0], ms.per_row[1], ms.per_row[2],
                   ms.a_aux, ms.b_aux, (unsigned long long)ms.b_inp, ms.boolean,
                   gs.pm1_fraction, (unsigned long long)gs.values_used,
                   (unsigned long long)gs.n_values);
            if (p == CUZK_GEN_POREP) {
                /* small circuits hold a handful of long packing rows: a band
                 * that narrows with the circuit as A/row's spread does, like
                 * rows^-0.75 (0.031 at 2^10, 0.0126 at 2^12, 0.0030 at 2^14 over
                 * 350 seeds; one draw 0.108 off at 2^10): ~6 sigmas, 0.226 at
                 * 2^10, 0.080 at 2^12, 0.028 at 2^14 */
                const double rows = (double)c->n_constraints;
                CHECK(near(ms.per_row[0], tg.nnz_per_row[0], 40.0 / pow(rows, 0.75), "A/row",
                           K));
                CHECK(near(ms.per_row[1], tg.nnz_per_row[1], 0.01, "B/row", K));
                CHECK(near(ms.per_row[2], tg.nnz_per_row[2], 0.03, "C/row", K));
                CHECK(near(ms.a_aux, tg.a_aux, fraction_band(tg.a_aux, c->n_aux, 0.003), "a_aux",
                           K));
                CHECK(near(ms.b_aux, tg.b_aux, fraction_band(tg.b_aux, c->n_aux, 0.003), "b_aux",
                           K));
                CHECK(near(ms.boolean, tg.boolean_fraction, 0.006, "boolean", K));
                CHECK(near((double)c->n_aux / (double)c->n_constraints, tg.aux_per_row, 0.001,
                           "aux/row", K));
                CHECK_EQ_INT(ms.b_inp, 1);
                CHECK(gs.pm1_fraction > 0.75);
                if (K == 14) CHECK_EQ_INT(c->n_inputs, 328);
            } else if (p == CUZK_GEN_DENSE) {
                CHECK(ms.max_len[0] == 16 && ms.max_len[1] == 16 && ms.max_len[2] == 16);
                CHECK(ms.per_row[0] > 10 && ms.per_row[1] > 10 && ms.per_row[2] > 10);
                CHECK(ms.boolean < 0.15);
                CHECK(gs.pm1_fraction < 0.3);
            } else {
                CHECK(near(ms.boolean, tg.boolean_fraction, 0.005, "boolean", K));
                CHECK(ms.max_len[1] == 1 && ms.max_len[2] <= 3);
            }
            for (unsigned part = 0; part < 3; part++) cuzk_witness_close(&w[part]);
            cuzk_circuit_close(&back);
            free(bytes);
            cuzk_gen_free(g);
        }
    }
}

/* The boolean fraction is a parameter: the witness follows it. */
static void test_boolean_fraction(void) {
    const double fs[] = {0.8, 0.9, 0.99};
    for (size_t i = 0; i < sizeof(fs) / sizeof(fs[0]); i++) {
        for (int p = 0; p < 3; p += 2) {
            cuzk_gen *g = make((cuzk_gen_profile)p, 14, fs[i], cuzk_test_rand64(), 0);
            if (g == NULL) continue;
            cuzk_witness w;
            cuzk_error err;
            CHECK(cuzk_gen_witness(g, 0, &w, &err) == CUZK_OK);
            CHECK(satisfied(cuzk_gen_circuit(g), &w, CUZK_SPMV_DEFAULT, NULL));
            mystats ms;
            my_stats(cuzk_gen_circuit(g), &w, &ms);
            printf("  %-5s F=%.2f: bool %.4f, nnz/row %.3f %.3f %.3f\n",
                   cuzk_gen_profile_name((cuzk_gen_profile)p), fs[i], ms.boolean, ms.per_row[0],
                   ms.per_row[1], ms.per_row[2]);
            CHECK(near(ms.boolean, fs[i], 0.006, "boolean", 14));
            if (p == CUZK_GEN_POREP) {
                cuzk_gen_targets tg;
                cuzk_gen_targets_for(CUZK_GEN_POREP, &tg);
                CHECK(near(ms.per_row[0], tg.nnz_per_row[0], 0.04, "A/row", 14));
                CHECK(near(ms.per_row[2], tg.nnz_per_row[2], 0.03, "C/row", 14));
            }
            cuzk_witness_close(&w);
            cuzk_gen_free(g);
        }
    }
}

static bool same_bytes(const cuzk_gen *a, const cuzk_gen *b, bool witness) {
    uint8_t *x, *y;
    size_t nx, ny;
    cuzk_error err;
    bool same;
    if (!witness) {
        if (cuzk_circuit_to_bytes(cuzk_gen_circuit(a), &x, &nx, &err) != CUZK_OK) return false;
        if (cuzk_circuit_to_bytes(cuzk_gen_circuit(b), &y, &ny, &err) != CUZK_OK) return false;
    } else {
        cuzk_witness wa, wb;
        if (cuzk_gen_witness(a, 1, &wa, &err) != CUZK_OK) return false;
        if (cuzk_gen_witness(b, 1, &wb, &err) != CUZK_OK) return false;
        CHECK(cuzk_witness_to_bytes(&wa, &x, &nx, &err) == CUZK_OK);
        CHECK(cuzk_witness_to_bytes(&wb, &y, &ny, &err) == CUZK_OK);
        cuzk_witness_close(&wa);
        cuzk_witness_close(&wb);
    }
    same = nx == ny && memcmp(x, y, nx) == 0;
    free(x);
    free(y);
    return same;
}

/* Same seed: same bytes for 1 and 3 threads; another seed: other bytes.
 * 2^15 spans two chunks (2^14 rows), SHA's 2^18 two of 2^17. */
static void test_determinism(void) {
    for (int p = 0; p < 3; p++) {
        unsigned K = p == CUZK_GEN_SHA ? 18 : 15;
        uint64_t seed = cuzk_test_rand64();
        cuzk_gen *g1 = make((cuzk_gen_profile)p, K, -1, seed, 1);
        cuzk_gen *g3 = make((cuzk_gen_profile)p, K, -1, seed, 3);
        if (g1 && g3) {
            CHECK(same_bytes(g1, g3, false));
            CHECK(same_bytes(g1, g3, true));
        }
        cuzk_gen_free(g1);
        cuzk_gen_free(g3);
        cuzk_gen *a = make((cuzk_gen_profile)p, 12, -1, seed, 2);
        cuzk_gen *b = make((cuzk_gen_profile)p, 12, -1, seed ^ 1, 2);
        if (a && b) CHECK(!same_bytes(a, b, false));
        cuzk_gen_free(a);
        cuzk_gen_free(b);
    }
}

/* Through files: the writers' output opens with the file readers and holds. */
static void test_files(void) {
    char dir[256], path[300];
    const char *base = getenv("TMPDIR");
    snprintf(dir, sizeof(dir), "%s/cuzk_gen_XXXXXX", base && *base ? base : "/tmp");
    if (mkdtemp(dir) == NULL) {
        CHECK(0);
        return;
    }
    cuzk_gen *g = make(CUZK_GEN_POREP, 15, -1, cuzk_test_rand64(), 0);
    if (g == NULL) return;
    cuzk_error err;
    snprintf(path, sizeof(path), "%s/circuit.cuzk", dir);
    CHECK(cuzk_circuit_write(cuzk_gen_circuit(g), path, &err) == CUZK_OK);
    cuzk_circuit c;
    CHECK(cuzk_circuit_open(&c, path, 0, &err) == CUZK_OK);
    remove(path);
    cuzk_witness w;
    CHECK(cuzk_gen_witness(g, 4, &w, &err) == CUZK_OK);
    snprintf(path, sizeof(path), "%s/w4.wit", dir);
    CHECK(cuzk_witness_write(&w, path, &err) == CUZK_OK);
    cuzk_witness_close(&w);
    CHECK(cuzk_witness_open(&w, path, &err) == CUZK_OK);
    remove(path);
    CHECK(satisfied(&c, &w, CUZK_SPMV_DEFAULT, NULL));
    cuzk_witness_close(&w);
    cuzk_circuit_close(&c);
    cuzk_gen_free(g);
    rmdir(dir);
}

static void test_bad_params(void) {
    cuzk_gen *g = NULL;
    cuzk_error err;
    cuzk_gen_params p = {CUZK_GEN_POREP, 9, -1, 1, 0};
    CHECK(cuzk_gen_new(&g, &p, &err) == CUZK_ERR_INVALID_ARG && g == NULL);
    p.log_constraints = 28;
    CHECK(cuzk_gen_new(&g, &p, &err) == CUZK_ERR_INVALID_ARG && g == NULL);
    p.log_constraints = 12;
    p.boolean_fraction = 1.5;
    CHECK(cuzk_gen_new(&g, &p, &err) == CUZK_ERR_INVALID_ARG && g == NULL);
    p.boolean_fraction = NAN;
    CHECK(cuzk_gen_new(&g, &p, &err) == CUZK_ERR_INVALID_ARG && g == NULL);
    p.boolean_fraction = -1;
    p.profile = (cuzk_gen_profile)7;
    CHECK(cuzk_gen_new(&g, &p, &err) == CUZK_ERR_INVALID_ARG && g == NULL);
    CHECK(cuzk_gen_profile_from_name("porep") == CUZK_GEN_POREP);
    CHECK(cuzk_gen_profile_from_name("sha") == CUZK_GEN_SHA);
    CHECK(cuzk_gen_profile_from_name("dense") == CUZK_GEN_DENSE);
    CHECK(cuzk_gen_profile_from_name("PoRep") == -1);
}

int main(int argc, char **argv) {
    cuzk_test_init(argc, argv);
    RUN(test_bad_params);
    RUN(test_profiles);
    RUN(test_boolean_fraction);
    RUN(test_determinism);
    RUN(test_files);
    return cuzk_test_finish();
}
