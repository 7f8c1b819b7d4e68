/*
 * test_prove_circuit.c — the bellman-form prover over our CSR circuits
 * (prove_circuit.c) and the CPU backend (backend_cpu.c).
 *
 * Circuits are random but satisfiable by construction: a generator emits
 * constraints that each define one new variable from earlier ones (a bit b
 * with b * (b - 1) = 0, an AND of two bits, a product of two random linear
 * combinations), so any choice of the free values (inputs, bits, random
 * values) extends to a satisfying witness; about 80% of the aux values are
 * 0 or 1, like a PoRep circuit. The parameters come from the development
 * setup with fixed toxic waste; proofs are checked by the pairing verifier
 * (verify.c, proof192.c), which shares nothing with the prover but the curve
 * arithmetic. The first failing constraint of a broken witness is found by a
 * naive evaluation of the generator's own entry lists.
 *
 * Default sizes 2^10..2^14; `--slow` (the slow-labelled variant) adds one
 * 2^16 proof. `--write-fixture` writes files for the command-line test
 * (see write_fixture). With CUZK_SNARKJS_FIXTURES set, a snarkjs key also
 * goes through the backend (`--zkey-only` runs just that case).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "groth16/backend.h"
#include "circuit/circuit.h"
#include "groth16/groth16.h"
#include "harness.h"
#include "io/params.h"
#include "groth16/proof192.h"
#include "groth16/setup.h"
#include "test_util.h"
#include "circuit/witness.h"
#include "io/wtns.h"
#include "io/zkey.h"
#include "util/readfile.h"

static int slow;

/* ---- field helpers ----------------------------------------------------------- */

static void coeff_rand(cuzk_fr *r) {
    unsigned k = (unsigned)(cuzk_test_rand64() % 10);
    if (k < 6)
        cuzk_fr_set_one(r);
    else if (k < 8)
        cuzk_fr_neg(r, &cuzk__fr_one);
    else
        cuzk_test_rand_fr_nonzero(r);
}

/* ---- the generator ------------------------------------------------------------ */

enum { V_BIT, V_FREE, V_PROD };

typedef struct {
    uint64_t ni, na, nc;
    uint64_t *rp[3];
    uint32_t *col[3];
    cuzk_fr *cf[3];
    uint64_t nnz[3], cap[3];
    uint8_t *kind;    /* per variable (inputs: V_FREE or V_BIT, input 0 V_BIT) */
    uint64_t *defrow; /* per V_PROD variable: the row that defines it (C's first entry) */
    uint64_t cap_v;
    uint32_t *bits; /* indices of the V_BIT variables */
    uint64_t n_bits;
} gen;

static void gen_free(gen *g) {
    for (int j = 0; j < 3; j++) {
        free(g->rp[j]);
        free(g->col[j]);
        free(g->cf[j]);
    }
    free(g->kind);
    free(g->defrow);
    free(g->bits);
    memset(g, 0, sizeof(*g));
}

static void put(gen *g, int m, uint32_t col, const cuzk_fr *cf) {
    if (g->nnz[m] == g->cap[m]) {
        g->cap[m] = g->cap[m] ? 2 * g->cap[m] : 1024;
        g->col[m] = realloc(g->col[m], g->cap[m] * 4);
        g->cf[m] = realloc(g->cf[m], g->cap[m] * sizeof(cuzk_fr));
    }
    g->col[m][g->nnz[m]] = col;
    g->cf[m][g->nnz[m]] = *cf;
    g->nnz[m]++;
}

static uint32_t new_var(gen *g, int kind) {
    uint64_t v = g->ni + g->na++;
    if (v == g->cap_v) {
        g->cap_v *= 2;
        g->kind = realloc(g->kind, g->cap_v);
        g->defrow = realloc(g->defrow, g->cap_v * 8);
        g->bits = realloc(g->bits, g->cap_v * 4);
    }
    g->kind[v] = (uint8_t)kind;
    if (kind == V_BIT) g->bits[g->n_bits++] = (uint32_t)v;
    return (uint32_t)v;
}

/* A linear combination of 1..3 distinct existing variables. */
static void put_lc(gen *g, int m) {
    uint64_t nv = g->ni + g->na;
    unsigned k = 1 + (unsigned)(cuzk_test_rand64() % 3);
    uint32_t used[3];
    for (unsigned i = 0; i < k; i++) {
        uint32_t v;
        bool dup;
        do {
            /* favour recent variables, as synthesis does */
            uint64_t r = cuzk_test_rand64();
            v = (r & 1) && nv > 64 ? (uint32_t)(nv - 1 - (r >> 1) % 64) : (uint32_t)((r >> 1) % nv);
            dup = false;
            for (unsigned t = 0; t < i; t++) dup |= used[t] == v;
        } while (dup);
        used[i] = v;
        cuzk_fr c;
        coeff_rand(&c);
        put(g, m, v, &c);
    }
}

static void end_row(gen *g) {
    g->nc++;
    for (int m = 0; m < 3; m++) g->rp[m][g->nc] = g->nnz[m];
}

/* 1: only b * (b - 1) = 0 rows, so every aux is in A and B (the dense paths). */
static int gen_bits_only;

/* A circuit whose domain is 2^log_n: n_constraints = 2^log_n - ni - slack. */
static void gen_circuit(gen *g, unsigned log_n, uint64_t ni) {
    memset(g, 0, sizeof(*g));
    uint64_t target = ((uint64_t)1 << log_n) - ni - cuzk_test_rand64() % 4;
    g->ni = ni;
    g->cap_v = 1024;
    while (g->cap_v < ni + 1) g->cap_v *= 2;
    g->kind = malloc(g->cap_v);
    g->defrow = malloc(g->cap_v * 8);
    g->bits = malloc(g->cap_v * 4);
    g->kind[0] = V_BIT;
    for (uint64_t i = 1; i < ni; i++) g->kind[i] = (i & 1) ? V_FREE : V_BIT;
    for (int m = 0; m < 3; m++) {
        g->rp[m] = malloc((target + 1) * 8);
        g->rp[m][0] = 0;
    }
    cuzk_fr one, mone;
    cuzk_fr_set_one(&one);
    cuzk_fr_neg(&mone, &one);
    while (g->nc < target) {
        unsigned k = (unsigned)(cuzk_test_rand64() % 100);
        if (k < 55 || g->n_bits < 2 || gen_bits_only) { /* b * (b - 1) = 0 */
            uint32_t b = new_var(g, V_BIT);
            put(g, 0, b, &one);
            put(g, 1, b, &one);
            put(g, 1, 0, &mone);
        } else if (k < 85) { /* z = x AND y: x * y = z, a bit */
            uint32_t x = g->bits[cuzk_test_rand64() % g->n_bits], y;
            do y = g->bits[cuzk_test_rand64() % g->n_bits];
            while (y == x);
            put(g, 0, x, &one);
            put(g, 1, y, &one);
            uint32_t z = new_var(g, V_BIT);
            g->kind[z] = V_PROD; /* defined by this row; a bit, so it stays an operand */
            g->defrow[z] = g->nc;
            put(g, 2, z, &one);
        } else { /* (LC + f) * LC = z + c x with a fresh random f (made after the LCs,
                  * so no LC repeats it: a cancelled entry would leave f's point infinite) */
            put_lc(g, 0);
            put_lc(g, 1);
            uint32_t f = new_var(g, V_FREE);
            put(g, 0, f, &one);
            uint64_t nv = g->ni + g->na;
            uint32_t x = (uint32_t)(cuzk_test_rand64() % nv);
            uint32_t z = new_var(g, V_PROD);
            g->defrow[z] = g->nc;
            put(g, 2, z, &one);
            if (cuzk_test_rand64() & 1) {
                cuzk_fr c;
                coeff_rand(&c);
                put(g, 2, x, &c);
            }
        }
        end_row(g);
    }
}

static void eval_lc(cuzk_fr *out, const gen *g, int m, uint64_t row, const cuzk_fr *w,
                    uint64_t skip_first) {
    cuzk_fr acc, t;
    cuzk_fr_set_zero(&acc);
    for (uint64_t k = g->rp[m][row] + skip_first; k < g->rp[m][row + 1]; k++) {
        cuzk_fr_mul(&t, &g->cf[m][k], &w[g->col[m][k]]);
        cuzk_fr_add(&acc, &acc, &t);
    }
    *out = acc;
}

/* A satisfying assignment: plain limbs into plain[4 * nv] (mont: scratch). */
static void gen_witness(const gen *g, uint64_t *plain, cuzk_fr *mont) {
    uint64_t nv = g->ni + g->na;
    for (uint64_t v = 0; v < nv; v++) {
        if (v == 0) {
            cuzk_fr_set_one(&mont[v]);
        } else if (g->kind[v] == V_BIT) {
            if (cuzk_test_rand64() & 1)
                cuzk_fr_set_one(&mont[v]);
            else
                cuzk_fr_set_zero(&mont[v]);
        } else if (g->kind[v] == V_FREE) {
            cuzk_test_rand_fr_nonzero(&mont[v]);
        } else {
            cuzk_fr a, b, rest;
            uint64_t row = g->defrow[v];
            eval_lc(&a, g, 0, row, mont, 0);
            eval_lc(&b, g, 1, row, mont, 0);
            eval_lc(&rest, g, 2, row, mont, 1); /* C's other terms use earlier variables */
            cuzk_fr_mul(&a, &a, &b);
            cuzk_fr_sub(&mont[v], &a, &rest);
        }
    }
    for (uint64_t v = 0; v < nv; v++) cuzk_fr_to_limbs(plain + 4 * v, &mont[v]);
}

/* First row with <A,w><B,w> != <C,w>, UINT64_MAX when none (naive reference). */
static uint64_t first_failing_row(const gen *g, const uint64_t *plain) {
    uint64_t nv = g->ni + g->na;
    cuzk_fr *w = malloc(nv * sizeof(cuzk_fr));
    for (uint64_t v = 0; v < nv; v++) cuzk_fr_from_limbs(&w[v], plain + 4 * v);
    uint64_t bad = UINT64_MAX;
    for (uint64_t i = 0; i < g->nc && bad == UINT64_MAX; i++) {
        cuzk_fr a, b, c;
        eval_lc(&a, g, 0, i, w, 0);
        eval_lc(&b, g, 1, i, w, 0);
        eval_lc(&c, g, 2, i, w, 0);
        cuzk_fr_mul(&a, &a, &b);
        if (!cuzk_fr_eq(&a, &c)) bad = i;
    }
    free(w);
    return bad;
}

/* ---- fixtures ------------------------------------------------------------------ */

typedef struct {
    gen g;
    cuzk_circuit c;
    cuzk_params p;
    cuzk_groth16_vk vk;
    int ok;
} fixture;

static void fixture_free(fixture *f) {
    cuzk_groth16_vk_free(&f->vk);
    cuzk_params_close(&f->p);
    cuzk_circuit_close(&f->c);
    gen_free(&f->g);
}

static int fixture_make(fixture *f, unsigned log_n, uint64_t ni) {
    memset(f, 0, sizeof(*f));
    cuzk_error err;
    gen_circuit(&f->g, log_n, ni);
    cuzk_circuit_matrix_in in[3];
    for (int m = 0; m < 3; m++) {
        in[m].row_ptr = f->g.rp[m];
        in[m].col = f->g.col[m];
        in[m].coeff = f->g.cf[m];
    }
    char name[64];
    snprintf(name, sizeof(name), "random-2^%u", log_n);
    cuzk_status st = cuzk_circuit_build(&f->c, f->g.nc, f->g.ni, f->g.na, in, name, &err);
    CHECK_EQ_INT(st, CUZK_OK);
    if (st != CUZK_OK) {
        fprintf(stderr, "build: %s\n", err.msg);
        return 0;
    }
    CHECK_EQ_INT(f->c.domain_log, log_n);
    cuzk_setup_toxic tw;
    cuzk_test_rand_scalar_nonzero(tw.tau);
    cuzk_test_rand_scalar_nonzero(tw.alpha);
    cuzk_test_rand_scalar_nonzero(tw.beta);
    cuzk_test_rand_scalar_nonzero(tw.gamma);
    cuzk_test_rand_scalar_nonzero(tw.delta);
    st = cuzk_groth16_setup_dev(&f->p, &f->c, &tw, 0, &err);
    CHECK_EQ_INT(st, CUZK_OK);
    if (st != CUZK_OK) {
        fprintf(stderr, "setup: %s\n", err.msg);
        return 0;
    }
    st = cuzk_groth16_vk_from_params(&f->vk, &f->p.vk, &err);
    CHECK_EQ_INT(st, CUZK_OK);
    f->ok = st == CUZK_OK;
    return f->ok;
}

/* A witness object for a fresh satisfying assignment (plain copy in *plain_out
 * when not NULL, malloc'ed). */
static void fixture_witness(const fixture *f, cuzk_witness *w, uint64_t **plain_out,
                            const char *name) {
    uint64_t nv = f->g.ni + f->g.na;
    uint64_t *plain = malloc(nv * 32);
    cuzk_fr *mont = malloc(nv * sizeof(cuzk_fr));
    gen_witness(&f->g, plain, mont);
    cuzk_error err;
    cuzk_status st = cuzk_witness_from_values(w, plain, f->g.ni, f->g.na, name, &err);
    CHECK_EQ_INT(st, CUZK_OK);
    free(mont);
    if (plain_out)
        *plain_out = plain;
    else
        free(plain);
}

static void public_of(uint64_t (*out)[4], const cuzk_witness *w) {
    for (uint64_t i = 1; i < w->n_inputs; i++) memcpy(out[i - 1], w->values + 4 * i, 32);
}

/* ---- tests ---------------------------------------------------------------------- */

/* Proves n partitions of one circuit (direct API), verifies them, checks
 * tampering is caught and that the order of proving does not matter. */
static void prove_partitions(unsigned log_n, size_t n_part) {
    fixture f;
    if (!fixture_make(&f, log_n, 2 + cuzk_test_rand64() % 4)) {
        fixture_free(&f);
        return;
    }
    const size_t np = (size_t)f.c.n_inputs - 1;
    cuzk_witness *w = calloc(n_part, sizeof(*w));
    uint64_t(*r)[4] = malloc(n_part * 32), (*s)[4] = malloc(n_part * 32);
    uint64_t(*pub)[4] = malloc((n_part * np + 1) * 32);
    uint8_t *fwd = malloc(n_part * CUZK_PROOF192_BYTES), *rev = malloc(n_part * 192);
    for (size_t i = 0; i < n_part; i++) {
        char name[32];
        snprintf(name, sizeof(name), "w%zu", i);
        fixture_witness(&f, &w[i], NULL, name);
        public_of(pub + i * np, &w[i]);
        cuzk_test_rand_scalar_nonzero(r[i]);
        cuzk_test_rand_scalar_nonzero(s[i]);
    }
    cuzk_error err;
    size_t ones = 0, total = 0;
    for (int pass = 0; pass < (n_part > 1 ? 2 : 1); pass++) { /* forward, then reversed */
        uint8_t *dst = pass == 0 ? fwd : rev;
        for (size_t k = 0; k < n_part; k++) {
            size_t i = pass == 0 ? k : n_part - 1 - k;
            cuzk_groth16_partial part;
            cuzk_groth16_stage_times t;
            cuzk_status st =
                cuzk_groth16_prove_start_circuit(&part, &t, &f.c, &f.p, &w[i], 0, &err);
            CHECK_EQ_INT(st, CUZK_OK);
            if (st != CUZK_OK) {
                fprintf(stderr, "prove: %s\n", err.msg);
                goto out;
            }
            cuzk_groth16_proof proof;
            cuzk_groth16_prove_finish(&proof, &part, r[i], s[i]);
            cuzk_proof192_encode(dst + i * CUZK_PROOF192_BYTES, &proof);
            CHECK(t.total_ms >= t.msm_h_ms && t.spmv_ms >= 0);
        }
    }
    /* most aux values are bits: the classification must see them */
    for (size_t i = 0; i < n_part; i++)
        for (uint64_t v = f.c.n_inputs; v < cuzk_witness_n_vars(&w[i]); v++) {
            const uint64_t *x = w[i].values + 4 * v;
            ones += (x[1] | x[2] | x[3]) == 0 && x[0] <= 1;
            total++;
        }
    CHECK(ones * 10 >= total * 6);
    if (n_part > 1) CHECK_MEM(fwd, rev, n_part * CUZK_PROOF192_BYTES);

    size_t failed = 99;
    cuzk_status st = cuzk_proof192_verify_partitions(&f.vk, fwd, n_part * 192,
                                                     (const uint64_t(*)[4])pub, np, n_part,
                                                     &failed, &err);
    CHECK_EQ_INT(st, CUZK_OK);
    CHECK_EQ_INT(failed, n_part);
    if (st != CUZK_OK) fprintf(stderr, "verify 2^%u: %s\n", log_n, err.msg);

    /* A of the last partition negated (sign flag): a valid point, a wrong proof */
    size_t last = n_part - 1;
    memcpy(rev, fwd, n_part * 192);
    rev[last * 192] ^= 0x20;
    st = cuzk_proof192_verify_partitions(&f.vk, rev, n_part * 192, (const uint64_t(*)[4])pub,
                                         np, n_part, &failed, &err);
    CHECK_EQ_INT(st, CUZK_ERR_PROOF_INVALID);
    CHECK_EQ_INT(failed, last);
    /* a changed public input of partition 0 */
    if (np > 0) {
        pub[0][0] ^= 1;
        st = cuzk_proof192_verify_partitions(&f.vk, fwd, n_part * 192,
                                             (const uint64_t(*)[4])pub, np, n_part, &failed,
                                             &err);
        CHECK_EQ_INT(st, CUZK_ERR_PROOF_INVALID);
        CHECK_EQ_INT(failed, 0);
        pub[0][0] ^= 1;
    }
    /* C and A swapped in the first partition */
    memcpy(rev, fwd, n_part * 192);
    memcpy(rev, fwd + 144, 48);
    memcpy(rev + 144, fwd, 48);
    st = cuzk_proof192_verify_partitions(&f.vk, rev, n_part * 192, (const uint64_t(*)[4])pub,
                                         np, n_part, &failed, &err);
    CHECK(st != CUZK_OK);
    CHECK_EQ_INT(failed, 0);
out:
    for (size_t i = 0; i < n_part; i++) cuzk_witness_close(&w[i]);
    free(w);
    free(r);
    free(s);
    free(pub);
    free(fwd);
    free(rev);
    fixture_free(&f);
}

/* Every aux in A and B and no public input but the constant: the dense
 * (ungathered) scalar paths and a verifying key with one IC point. */
static void test_prove_dense_bits(void) {
    gen_bits_only = 1;
    fixture f;
    int ok = fixture_make(&f, 10, 1);
    gen_bits_only = 0;
    if (ok) {
        CHECK_EQ_INT(f.c.a_aux_count, f.c.n_aux);
        CHECK_EQ_INT(f.c.b_aux_count, f.c.n_aux);
        CHECK_EQ_INT(f.c.b_inp_count, f.c.n_inputs);
        cuzk_witness w;
        fixture_witness(&f, &w, NULL, "bits");
        cuzk_error err;
        cuzk_groth16_partial part;
        CHECK_EQ_INT(cuzk_groth16_prove_start_circuit(&part, NULL, &f.c, &f.p, &w, 0, &err),
                     CUZK_OK);
        uint64_t r[4], s[4];
        cuzk_test_rand_scalar_nonzero(r);
        cuzk_test_rand_scalar_nonzero(s);
        cuzk_groth16_proof proof;
        cuzk_groth16_prove_finish(&proof, &part, r, s);
        uint8_t b[192];
        cuzk_proof192_encode(b, &proof);
        size_t failed;
        CHECK_EQ_INT(cuzk_proof192_verify_partitions(&f.vk, b, 192, NULL, 0, 1, &failed, &err),
                     CUZK_OK);
        cuzk_witness_close(&w);
    }
    fixture_free(&f);
}

static void test_prove_2_10(void) { prove_partitions(10, 3); }
static void test_prove_2_12(void) { prove_partitions(12, 2); }
static void test_prove_2_14(void) { prove_partitions(14, 1); }

/* A witness that breaks constraints is refused, naming the first one. */
static void test_unsatisfied(void) {
    fixture f;
    if (!fixture_make(&f, 10, 3)) {
        fixture_free(&f);
        return;
    }
    cuzk_error err;
    for (int trial = 0; trial < 4; trial++) {
        cuzk_witness good;
        uint64_t *plain;
        fixture_witness(&f, &good, &plain, "good");
        cuzk_witness_close(&good);
        /* change one aux value (a bit becomes 2, any other value v becomes v + 1
         * mod r: flipping a low bit instead could leave r - 1 at or above r) */
        uint64_t v = f.c.n_inputs + cuzk_test_rand64() % f.c.n_aux;
        uint64_t *x = &plain[4 * v];
        if ((x[1] | x[2] | x[3]) == 0 && x[0] <= 1) {
            x[0] = 2;
        } else {
            cuzk_fr t;
            cuzk_fr_from_limbs(&t, x);
            cuzk_fr_add(&t, &t, &cuzk__fr_one);
            cuzk_fr_to_limbs(x, &t);
        }
        uint64_t want = first_failing_row(&f.g, plain);
        if (want == UINT64_MAX) { /* e.g. a changed f multiplied by a B that is 0 */
            free(plain);
            continue;
        }
        cuzk_witness bad;
        cuzk_status st = cuzk_witness_from_values(&bad, plain, f.g.ni, f.g.na, "bad.wit", &err);
        CHECK_EQ_INT(st, CUZK_OK);
        cuzk_groth16_partial part;
        st = cuzk_groth16_prove_start_circuit(&part, NULL, &f.c, &f.p, &bad, 0, &err);
        CHECK_EQ_INT(st, CUZK_ERR_WITNESS_UNSATISFIED);
        char needle[64];
        snprintf(needle, sizeof(needle), "constraint %llu ", (unsigned long long)want);
        if (strstr(err.msg, needle) == NULL || strstr(err.msg, "bad.wit") == NULL) {
            fprintf(stderr, "message \"%s\" lacks \"%s\" or the witness name\n", err.msg, needle);
            CHECK(0);
        }
        cuzk_witness_close(&bad);
        free(plain);
    }
    fixture_free(&f);
}

/* Parameters or witnesses of another circuit are refused with the count named. */
static void test_size_mismatch(void) {
    fixture f, g;
    int ok1 = fixture_make(&f, 10, 3), ok2 = ok1 && fixture_make(&g, 10, 4);
    if (!ok1 || !ok2) {
        fixture_free(&f);
        if (ok1) fixture_free(&g);
        return;
    }
    cuzk_error err;
    cuzk_groth16_partial part;
    cuzk_witness wf, wg;
    fixture_witness(&f, &wf, NULL, "wf");
    fixture_witness(&g, &wg, NULL, "wg");
    EXPECT_FAIL(cuzk_groth16_prove_start_circuit(&part, NULL, &f.c, &g.p, &wf, 0, &err),
                CUZK_ERR_INVALID_ARG, err, "input count", NULL);
    EXPECT_FAIL(cuzk_groth16_prove_start_circuit(&part, NULL, &f.c, &f.p, &wg, 0, &err),
                CUZK_ERR_INVALID_ARG, err, "witness of another circuit", NULL);
    /* one vector too short each (a shallow copy with a count changed) */
    cuzk_params q = f.p;
    q.a.n--;
    EXPECT_FAIL(cuzk_groth16_prove_start_circuit(&part, NULL, &f.c, &q, &wf, 0, &err),
                CUZK_ERR_INVALID_ARG, err, "vector a", NULL);
    q = f.p;
    q.b_g2.n--;
    EXPECT_FAIL(cuzk_groth16_prove_start_circuit(&part, NULL, &f.c, &q, &wf, 0, &err),
                CUZK_ERR_INVALID_ARG, err, "vector b_g2", NULL);
    q = f.p;
    q.n_aux++;
    EXPECT_FAIL(cuzk_groth16_prove_start_circuit(&part, NULL, &f.c, &q, &wf, 0, &err),
                CUZK_ERR_INVALID_ARG, err, "aux count", NULL);
    q = f.p;
    q.h.n = q.h.n / 2 - 1;
    q.domain_size /= 2;
    EXPECT_FAIL(cuzk_groth16_prove_start_circuit(&part, NULL, &f.c, &q, &wf, 0, &err),
                CUZK_ERR_INVALID_ARG, err, "domain", NULL);
    q = f.p;
    q.root = CUZK_NTT_ROOT5;
    EXPECT_FAIL(cuzk_groth16_prove_start_circuit(&part, NULL, &f.c, &q, &wf, 0, &err),
                CUZK_ERR_UNSUPPORTED, err, "bellman", NULL);
    /* the backend checks at prepare */
    cuzk_backend be;
    CHECK_EQ_INT(cuzk_backend_open(&be, &cuzk_backend_cpu, 0, -1, &err), CUZK_OK);
    cuzk_backend_key *key;
    EXPECT_FAIL(cuzk_backend_prepare(&be, &key, &f.c, &g.p, &err), CUZK_ERR_INVALID_ARG,
                err, "parameters of another circuit", NULL);
    CHECK(key == NULL);
    cuzk_backend_close(&be);
    cuzk_witness_close(&wf);
    cuzk_witness_close(&wg);
    fixture_free(&f);
    fixture_free(&g);
}

/* Through the backend: the job owns what finish needs (the key, the
 * parameters and the witness are gone before finish), and gives the same
 * bytes as the direct API with the same r, s. */
static void backend_case(unsigned log_n) {
    fixture f;
    if (!fixture_make(&f, log_n, 3)) {
        fixture_free(&f);
        return;
    }
    cuzk_error err;
    cuzk_backend be;
    CHECK_EQ_INT(cuzk_backend_open(&be, &cuzk_backend_cpu, 0, -1, &err), CUZK_OK);
    CHECK(strcmp(be.ops->name, "cpu") == 0);
    cuzk_backend_key *key = NULL;
    /* the CPU backend has no prepare_early: the dispatcher prepares the
     * whole key, and key_wait has nothing to wait for */
    cuzk_status st = cuzk_backend_prepare_early(&be, &key, &f.c, &f.p, &err);
    CHECK_EQ_INT(st, CUZK_OK);
    if (st != CUZK_OK) {
        cuzk_backend_close(&be);
        fixture_free(&f);
        return;
    }
    CHECK_EQ_INT(cuzk_backend_key_wait(&be, key, &err), CUZK_OK);
    CHECK_EQ_INT(key->n_public, f.c.n_inputs - 1);
    cuzk_witness w;
    fixture_witness(&f, &w, NULL, "w");
    uint64_t pub[8][4], r[4], s[4];
    public_of(pub, &w);
    cuzk_test_rand_scalar_nonzero(r);
    cuzk_test_rand_scalar_nonzero(s);

    uint8_t direct[192], via[192];
    cuzk_groth16_partial part;
    CHECK_EQ_INT(cuzk_groth16_prove_start_circuit(&part, NULL, &f.c, &f.p, &w, 0, &err),
                 CUZK_OK);
    cuzk_groth16_proof proof;
    cuzk_groth16_prove_finish(&proof, &part, r, s);
    cuzk_proof192_encode(direct, &proof);

    /* announcing is a no-op on the CPU, but a witness of another size is
     * refused here as on the GPU */
    CHECK_EQ_INT(cuzk_backend_stage(&be, key, &w, &err), CUZK_OK);
    cuzk_witness odd = w;
    odd.n_aux += 1;
    odd.path = "odd.wit";
    EXPECT_FAIL(cuzk_backend_stage(&be, key, &odd, &err), CUZK_ERR_INVALID_ARG, err, "odd.wit",
                "variables");
    cuzk_backend_withdraw(&be, key, &w);
    cuzk_backend_job *job = NULL;
    st = cuzk_backend_prove_start(&be, &job, key, &w, &err);
    CHECK_EQ_INT(st, CUZK_OK);
    /* everything but the job goes away before finish */
    cuzk_witness_close(&w);
    cuzk_backend_release_key(&be, key);
    cuzk_params_close(&f.p);
    if (st == CUZK_OK) {
        memset(&proof, 0, sizeof(proof));
        CHECK_EQ_INT(cuzk_backend_prove_finish(&be, &proof, job, r, s, &err), CUZK_OK);
        cuzk_proof192_encode(via, &proof);
        CHECK_MEM(direct, via, 192);
        const cuzk_groth16_stage_times *t = cuzk_backend_job_times(job);
        CHECK(t->finish_ms > 0 && t->total_ms >= t->finish_ms + t->msm_h_ms);
        printf("  2^%u via backend: spmv %.1f check %.1f ntt %.1f msm_h %.1f prep %.1f "
               "batch_add %.1f tail_msm %.1f b_g2_msm %.1f finish %.1f total %.1f ms\n",
               log_n, t->spmv_ms, t->check_ms, t->ntt_ms, t->msm_h_ms, t->prep_ms,
               t->batch_add_ms, t->tail_msm_ms, t->b_g2_msm_ms, t->finish_ms, t->total_ms);
        /* a second finish is refused */
        CHECK_EQ_INT(cuzk_backend_prove_finish(&be, &proof, job, r, s, &err),
                     CUZK_ERR_INVALID_ARG);
        size_t failed;
        st = cuzk_proof192_verify_partitions(&f.vk, via, 192, (const uint64_t(*)[4])pub,
                                             (size_t)f.vk.n_public, 1, &failed, &err);
        CHECK_EQ_INT(st, CUZK_OK);
    }
    cuzk_backend_release_job(&be, job);
    cuzk_backend_close(&be);
    fixture_free(&f);
}

/* The snarkjs fixture's key and witness paths (CUZK_SNARKJS_FIXTURES, the
 * fixtures of tests/interop/fixtures.sh): 0, with a line, without it. */
static int zkey_fixture(char zpath[1024], char wpath[1024]) {
    const char *dir = getenv("CUZK_SNARKJS_FIXTURES");
    if (dir == NULL) {
        printf("  (no CUZK_SNARKJS_FIXTURES: the zkey case is skipped)\n");
        return 0;
    }
    snprintf(zpath, 1024, "%s/multi_public/circuit.zkey", dir);
    snprintf(wpath, 1024, "%s/multi_public/witness.wtns", dir);
    return 1;
}

/* A snarkjs key through the same backend interface (skipped without the
 * fixtures): the same bytes as the direct zkey prover, the key closed
 * before finish, and valid. */
static void test_backend_zkey(void) {
    char zpath[1024], wpath[1024];
    if (!zkey_fixture(zpath, wpath)) return;
    cuzk_error err;
    cuzk_zkey zk;
    cuzk_wtns wt;
    cuzk_witness w;
    cuzk_groth16_vk vk;
    memset(&zk, 0, sizeof(zk));
    memset(&wt, 0, sizeof(wt));
    memset(&w, 0, sizeof(w));
    memset(&vk, 0, sizeof(vk));
    cuzk_backend be;
    cuzk_backend_key *key = NULL;
    cuzk_backend_job *job = NULL;
    CHECK_EQ_INT(cuzk_backend_open(&be, &cuzk_backend_cpu, 0, -1, &err), CUZK_OK);
    cuzk_status st = cuzk_zkey_open(&zk, zpath, 0, &err);
    if (st == CUZK_OK) st = cuzk_wtns_open(&wt, wpath, &err);
    if (st == CUZK_OK)
        st = cuzk_witness_from_values(&w, wt.values, (uint64_t)zk.n_public + 1,
                                      (uint64_t)zk.n_vars - zk.n_public - 1, wpath, &err);
    if (st == CUZK_OK) st = cuzk_groth16_vk_from_zkey(&vk, &zk, &err);
    CHECK_EQ_INT(st, CUZK_OK);
    if (st != CUZK_OK) {
        fprintf(stderr, "zkey fixture: %s\n", err.msg);
        goto out;
    }
    uint64_t r[4], s[4];
    cuzk_test_rand_scalar_nonzero(r);
    cuzk_test_rand_scalar_nonzero(s);
    cuzk_groth16_partial part;
    cuzk_groth16_proof direct, via;
    CHECK_EQ_INT(cuzk_groth16_prove_start_zkey(&part, &zk, (const uint64_t(*)[4])wt.values,
                                               wt.n_witness, 0, &err),
                 CUZK_OK);
    cuzk_groth16_prove_finish(&direct, &part, r, s);
    CHECK_EQ_INT(cuzk_backend_prepare_zkey(&be, &key, &zk, &err), CUZK_OK);
    if (key == NULL) goto out;
    CHECK_EQ_INT(key->n_public, zk.n_public);
    CHECK_EQ_INT(cuzk_backend_prove_start(&be, &job, key, &w, &err), CUZK_OK);
    cuzk_backend_release_key(&be, key);
    key = NULL;
    uint64_t(*pub)[4] = malloc(((size_t)zk.n_public + 1) * 32);
    for (uint32_t i = 0; i < zk.n_public; i++) memcpy(pub[i], w.values + 4 * (i + 1), 32);
    size_t npub = zk.n_public;
    cuzk_zkey_close(&zk);
    cuzk_witness_close(&w);
    if (job != NULL) {
        CHECK_EQ_INT(cuzk_backend_prove_finish(&be, &via, job, r, s, &err), CUZK_OK);
        CHECK(cuzk_g1_aff_eq(&direct.a, &via.a) && cuzk_g1_aff_eq(&direct.c, &via.c));
        CHECK_EQ_INT(cuzk_groth16_verify(&vk, (const uint64_t(*)[4])pub, npub, &via, &err),
                     CUZK_OK);
    }
    free(pub);
out:
    cuzk_backend_release_job(&be, job);
    cuzk_backend_release_key(&be, key);
    cuzk_backend_close(&be);
    cuzk_groth16_vk_free(&vk);
    cuzk_witness_close(&w);
    cuzk_wtns_close(&wt);
    cuzk_zkey_close(&zk);
}

/* A key whose coefficient records change after it was opened (the file
 * rewritten in place under its mapping; here a buffer it borrows): an index
 * out of range is refused at the proof, not written through. */
static void test_zkey_changed(void) {
    char zpath[1024], wpath[1024];
    if (!zkey_fixture(zpath, wpath)) return;
    cuzk_error err;
    uint8_t *buf = NULL;
    size_t size = 0;
    CHECK_EQ_INT(cuzk__read_file(zpath, SIZE_MAX, &buf, &size, &err), CUZK_OK);
    if (buf == NULL) return;
    cuzk_zkey zk;
    cuzk_wtns wt;
    memset(&wt, 0, sizeof(wt));
    CHECK_EQ_INT(cuzk_zkey_open_mem(&zk, buf, size, zpath, 0, &err), CUZK_OK);
    CHECK_EQ_INT(cuzk_wtns_open(&wt, wpath, &err), CUZK_OK);
    const size_t rec = (size_t)(zk.coef_bytes - buf) + 2 * CUZK_ZKEY_COEF_BYTES;
    for (int field = 1; field <= 2; field++) { /* the constraint, then the signal */
        uint8_t saved[4];
        memcpy(saved, buf + rec + 4 * field, 4);
        memset(buf + rec + 4 * field, 0xff, 4);
        cuzk_groth16_partial part;
        EXPECT_FAIL(cuzk_groth16_prove_start_zkey(&part, &zk, (const uint64_t(*)[4])wt.values,
                                                  wt.n_witness, 0, &err),
                    CUZK_ERR_KEY_CORRUPT, err, "coefficient 2", "changed after it was opened");
        memcpy(buf + rec + 4 * field, saved, 4);
    }
    cuzk_wtns_close(&wt);
    cuzk_zkey_close(&zk);
    free(buf);
}

static void test_backend(void) { backend_case(11); }
static void test_backend_2_16(void) { backend_case(16); }

/*
 * --write-fixture DIR LOG N: files for the command-line test
 * (tests/interop/check_prove_cli.sh): DIR/circuit.cuzk (a random 2^LOG
 * circuit), DIR/wI.wit and DIR/wI.inputs (its public inputs as 0x-hex
 * lines) for I < N, DIR/bad.wit (a witness that breaks constraint
 * DIR/bad.row, found by the naive evaluation).
 */
static int write_fixture(const char *dir, unsigned log_n, unsigned n) {
    gen g;
    gen_circuit(&g, log_n, 3);
    cuzk_circuit_matrix_in in[3];
    for (int m = 0; m < 3; m++) {
        in[m].row_ptr = g.rp[m];
        in[m].col = g.col[m];
        in[m].coeff = g.cf[m];
    }
    cuzk_error err;
    cuzk_circuit c;
    char path[1024];
    int rc = 1;
    uint64_t nv = g.ni + g.na;
    uint64_t *plain = malloc(nv * 32);
    cuzk_fr *mont = malloc(nv * sizeof(cuzk_fr));
    snprintf(path, sizeof(path), "%s/circuit.cuzk", dir);
    if (cuzk_circuit_build(&c, g.nc, g.ni, g.na, in, "fixture", &err) != CUZK_OK ||
        cuzk_circuit_write(&c, path, &err) != CUZK_OK)
        goto out;
    for (unsigned i = 0; i <= n; i++) {
        gen_witness(&g, plain, mont);
        if (i == n) { /* the bad one: an aux bit set to 2 */
            uint64_t v = g.ni;
            while (g.kind[v] != V_BIT) v++;
            plain[4 * v] = 2;
        }
        cuzk_witness w;
        if (i < n)
            snprintf(path, sizeof(path), "%s/w%u.wit", dir, i);
        else
            snprintf(path, sizeof(path), "%s/bad.wit", dir);
        if (cuzk_witness_from_values(&w, plain, g.ni, g.na, path, &err) != CUZK_OK) goto out;
        cuzk_status st = cuzk_witness_write(&w, path, &err);
        cuzk_witness_close(&w);
        if (st != CUZK_OK) goto out;
        FILE *f;
        if (i < n) {
            snprintf(path, sizeof(path), "%s/w%u.inputs", dir, i);
            if ((f = fopen(path, "w")) == NULL) goto out;
            fprintf(f, "# public inputs of w%u.wit\n", i);
            for (uint64_t k = 1; k < g.ni; k++)
                fprintf(f, "0x%016llx%016llx%016llx%016llx\n",
                        (unsigned long long)plain[4 * k + 3], (unsigned long long)plain[4 * k + 2],
                        (unsigned long long)plain[4 * k + 1], (unsigned long long)plain[4 * k]);
        } else {
            snprintf(path, sizeof(path), "%s/bad.row", dir);
            if ((f = fopen(path, "w")) == NULL) goto out;
            fprintf(f, "%llu\n", (unsigned long long)first_failing_row(&g, plain));
        }
        if (fclose(f) != 0) goto out;
    }
    rc = 0;
out:
    if (rc) fprintf(stderr, "--write-fixture: %s\n", err.msg);
    cuzk_circuit_close(&c);
    free(plain);
    free(mont);
    gen_free(&g);
    return rc;
}

int main(int argc, char **argv) {
    cuzk_test_init(argc, argv);
    if (argc >= 5 && strcmp(argv[1], "--write-fixture") == 0)
        return write_fixture(argv[2], (unsigned)atoi(argv[3]), (unsigned)atoi(argv[4]));
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--slow") == 0) slow = 1;
        if (strcmp(argv[i], "--zkey-only") == 0) {
            RUN(test_backend_zkey);
            RUN(test_zkey_changed);
            return cuzk_test_finish();
        }
    }
    RUN(test_prove_dense_bits);
    RUN(test_prove_2_10);
    RUN(test_prove_2_12);
    RUN(test_prove_2_14);
    RUN(test_unsatisfied);
    RUN(test_size_mismatch);
    RUN(test_backend);
    RUN(test_backend_zkey);
    RUN(test_zkey_changed);
    if (slow) RUN(test_backend_2_16);
    return cuzk_test_finish();
}
