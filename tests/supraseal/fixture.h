/*
 * fixture.h — what tests/supraseal's programs share: a generated circuit
 * with development parameters written as a .params file, and per circuit
 * what bellperson's ProvingAssignment would hold (doc/formats.md §17.5):
 *   - a, b, c evaluated row by row from the matrices on the Montgomery
 *     assignment (a naive sum, not our SpMV), then one row input_j * 0 = 0
 *     per input (a = input_j, b = c = 0), abc_size = constraints + inputs;
 *   - densities by bellperson's rule (a variable counts where its
 *     coefficient is nonzero), Lsb0 u64 words, with the bits past each bit
 *     length SET (bitvec leaves them unspecified; nothing may read them);
 *   - both assignments in Montgomery form;
 * the fixed r, s of circuit i, and our own prover's proof of it
 * (cuzk_groth16_prove_start_circuit over the circuit and its plain witness).
 * Everything is static: each program includes it once.
 */
#ifndef CUZK_TEST_SUPRASEAL_FIXTURE_H
#define CUZK_TEST_SUPRASEAL_FIXTURE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk_supraseal.h"
#include "circuit/gen.h"
#include "circuit/witness.h"
#include "ff/fr.h"
#include "groth16/groth16.h"
#include "groth16/proof192.h"
#include "groth16/setup.h"
#include "io/params.h"

/* One circuit's assignment as bellperson holds it, and our own witness. */
typedef struct {
    cuzk_witness w;                  /* plain, for the reference prover */
    cuzk_fr *inp, *aux, *a, *b, *c;  /* Montgomery */
    uint64_t *a_aux, *b_inp, *b_aux; /* bitmaps, garbage past bit_len */
    cuzk_supraseal_assignment as;
} assignment;

typedef struct {
    cuzk_gen *g;
    const cuzk_circuit *c;
    cuzk_params p; /* in memory, what the file holds */
    cuzk_groth16_vk vk;
    char path[300];
} fixture;

/* bellperson's density: variable j (of n from col0) is in matrix m where an
 * entry has a nonzero coefficient; Lsb0 u64 words; the bits past n in the
 * last word set, as garbage. */
static uint64_t *density_of(const cuzk_circuit *c, int m, uint64_t col0, uint64_t n,
                            size_t *popcount) {
    size_t words = (size_t)((n + 63) / 64);
    uint64_t *w = calloc(words + 1, 8);
    if (w == NULL) return NULL;
    const cuzk_csr *mx = &c->m[m];
    for (uint64_t e = 0; e < mx->nnz; e++) {
        uint64_t col = mx->col[e];
        if (col < col0 || col >= col0 + n) continue;
        if (cuzk_fr_is_zero(&c->values[mx->val[e]])) continue;
        uint64_t j = col - col0;
        w[j / 64] |= (uint64_t)1 << (j % 64);
    }
    size_t pc = 0;
    for (size_t i = 0; i < words; i++) pc += (size_t)__builtin_popcountll(w[i]);
    *popcount = pc;
    if (n % 64) w[words - 1] |= ~(uint64_t)0 << (n % 64);
    return w;
}

/* <M_row, w> by the definition, coefficient times value per entry */
static void eval_row(cuzk_fr *out, const cuzk_circuit *c, int m, uint64_t row,
                     const cuzk_fr *wm) {
    const cuzk_csr *mx = &c->m[m];
    cuzk_fr_set_zero(out);
    for (uint64_t e = mx->row_ptr[row]; e < mx->row_ptr[row + 1]; e++) {
        cuzk_fr t;
        cuzk_fr_mul(&t, &c->values[mx->val[e]], &wm[mx->col[e]]);
        cuzk_fr_add(out, out, &t);
    }
}

static void assignment_free(assignment *x) {
    cuzk_witness_close(&x->w);
    free(x->inp);
    free(x->aux);
    free(x->a);
    free(x->b);
    free(x->c);
    free(x->a_aux);
    free(x->b_inp);
    free(x->b_aux);
    memset(x, 0, sizeof(*x));
}

static int assignment_make(assignment *x, const fixture *f, unsigned partition) {
    memset(x, 0, sizeof(*x));
    const cuzk_circuit *c = f->c;
    cuzk_error err;
    if (cuzk_gen_witness(f->g, partition, &x->w, &err) != CUZK_OK) {
        fprintf(stderr, "witness: %s\n", err.msg);
        return 0;
    }
    uint64_t ni = c->n_inputs, na = c->n_aux, nv = ni + na, nc = c->n_constraints;
    cuzk_fr *wm = malloc(nv * sizeof(cuzk_fr));
    x->a = calloc(nc + ni, sizeof(cuzk_fr));
    x->b = calloc(nc + ni, sizeof(cuzk_fr));
    x->c = calloc(nc + ni, sizeof(cuzk_fr));
    x->inp = malloc(ni * sizeof(cuzk_fr));
    x->aux = malloc((na ? na : 1) * sizeof(cuzk_fr));
    if (wm == NULL || x->a == NULL || x->b == NULL || x->c == NULL || x->inp == NULL ||
        x->aux == NULL) {
        free(wm);
        return 0;
    }
    for (uint64_t i = 0; i < nv; i++) cuzk_fr_from_limbs(&wm[i], x->w.values + 4 * i);
    memcpy(x->inp, wm, ni * sizeof(cuzk_fr));
    memcpy(x->aux, wm + ni, na * sizeof(cuzk_fr));
    for (uint64_t i = 0; i < nc; i++) {
        eval_row(&x->a[i], c, 0, i, wm);
        eval_row(&x->b[i], c, 1, i, wm);
        eval_row(&x->c[i], c, 2, i, wm);
    }
    for (uint64_t j = 0; j < ni; j++) x->a[nc + j] = wm[j]; /* input_j * 0 = 0 */
    free(wm);
    size_t pa, pbi, pba;
    x->a_aux = density_of(c, 0, ni, na, &pa);
    x->b_inp = density_of(c, 1, 0, ni, &pbi);
    x->b_aux = density_of(c, 1, ni, na, &pba);
    if (x->a_aux == NULL || x->b_inp == NULL || x->b_aux == NULL) return 0;
    cuzk_supraseal_assignment *s = &x->as;
    s->a_aux_density = x->a_aux;
    s->a_aux_bit_len = (size_t)na;
    s->a_aux_popcount = pa;
    s->b_inp_density = x->b_inp;
    s->b_inp_bit_len = (size_t)ni;
    s->b_inp_popcount = pbi;
    s->b_aux_density = x->b_aux;
    s->b_aux_bit_len = (size_t)na;
    s->b_aux_popcount = pba;
    s->a = (const cuzk_supraseal_fr *)x->a;
    s->b = (const cuzk_supraseal_fr *)x->b;
    s->c = (const cuzk_supraseal_fr *)x->c;
    s->abc_size = (size_t)(nc + ni);
    s->inp_assignment_data = (const cuzk_supraseal_fr *)x->inp;
    s->inp_assignment_size = (size_t)ni;
    s->aux_assignment_data = (const cuzk_supraseal_fr *)x->aux;
    s->aux_assignment_size = (size_t)na;
    return 1;
}

static void fixture_free(fixture *f) {
    cuzk_groth16_vk_free(&f->vk);
    cuzk_params_close(&f->p);
    cuzk_gen_free(f->g);
    memset(f, 0, sizeof(*f));
}

static int fixture_make(fixture *f, cuzk_gen_profile prof, unsigned log_n, const char *name,
                        const char *dir) {
    memset(f, 0, sizeof(*f));
    cuzk_gen_params gp = {prof, log_n, -1, 11, 0};
    cuzk_error err;
    if (cuzk_gen_new(&f->g, &gp, &err) != CUZK_OK) {
        fprintf(stderr, "gen: %s\n", err.msg);
        return 0;
    }
    f->c = cuzk_gen_circuit(f->g);
    cuzk_setup_toxic tw;
    cuzk__setup_toxic_from_seed(&tw, name, strlen(name));
    snprintf(f->path, sizeof(f->path), "%s/%s.params", dir, name);
    if (cuzk_groth16_setup_dev(&f->p, f->c, &tw, 0, &err) != CUZK_OK ||
        cuzk_params_write(f->path, &f->p, 0, &err) != CUZK_OK ||
        cuzk_groth16_vk_from_params(&f->vk, &f->p.vk, &err) != CUZK_OK) {
        fprintf(stderr, "setup: %s\n", err.msg);
        return 0;
    }
    return 1;
}

/* r and s of circuit i: fixed plain values, and their Montgomery forms */
static void rs_of(size_t i, uint64_t r[4], uint64_t s[4], cuzk_supraseal_fr *rm,
                  cuzk_supraseal_fr *sm) {
    uint64_t rr[4] = {0x1234567890abcdefULL + i, 0x0fedcba987654321ULL, 0x1111 * (i + 1),
                      0x0123456789abcdefULL};
    uint64_t ss[4] = {0xdeadbeefcafef00dULL, 0x5555aaaa5555aaaaULL + i, 0x77 + i,
                      0x1abcdef012345678ULL};
    memcpy(r, rr, 32);
    memcpy(s, ss, 32);
    cuzk_fr t;
    cuzk_fr_from_limbs(&t, r);
    memcpy(rm, &t, 32);
    cuzk_fr_from_limbs(&t, s);
    memcpy(sm, &t, 32);
}

/* our own prover's proof of x with r, s */
static int reference_proof(cuzk_groth16_proof *out, const fixture *f, const assignment *x,
                           const uint64_t r[4], const uint64_t s[4]) {
    cuzk_groth16_partial part;
    cuzk_error err;
    if (cuzk_groth16_prove_start_circuit(&part, NULL, f->c, &f->p, &x->w, 0, &err) != CUZK_OK) {
        fprintf(stderr, "reference: %s\n", err.msg);
        return 0;
    }
    cuzk_groth16_prove_finish(out, &part, r, s);
    return 1;
}

/* the check `cuzk verify` makes: 192-byte encoding, decoded, bellman vk */
static int verifies(const fixture *f, const assignment *x, const cuzk_supraseal_proof *p) {
    uint8_t enc[CUZK_PROOF192_BYTES];
    cuzk_groth16_proof q;
    memcpy(&q, p, sizeof(q));
    cuzk_proof192_encode(enc, &q);
    size_t np = (size_t)f->c->n_inputs - 1, failed;
    cuzk_error err;
    cuzk_status st = cuzk_proof192_verify_partitions(
        &f->vk, enc, sizeof(enc), (const uint64_t(*)[4])(x->w.values + 4), np, 1, &failed, &err);
    if (st != CUZK_OK) fprintf(stderr, "verify: %s\n", err.msg);
    return st == CUZK_OK;
}

#endif /* CUZK_TEST_SUPRASEAL_FIXTURE_H */
