/*
 * fuzz_circuit.c — libFuzzer target for our circuit file reader
 * (src/circuit/circuit.h, doc/formats.md §1) and the SpMV over what it accepts.
 *
 * The input is the file, copied to an exact-size heap block and opened with
 * cuzk_circuit_open_mem twice: with the checksum (which random mutations
 * almost never pass) and with CUZK_CIRCUIT_SKIP_CHECKSUM, so the structural
 * checks behind it get exercised. Accepted with the checksum implies accepted
 * without. A refused input must give a status in range and a message naming
 * the input, and leave the object zeroed. An accepted one must satisfy every
 * invariant the evaluator relies on, re-checked here naively: row pointers
 * from 0 to nnz and non-decreasing, columns < n_vars, value indices <
 * n_values, values canonical with +1, -1 first, the domain, the density
 * bitmaps and popcounts recomputed from the columns. Small accepted circuits
 * are then evaluated on a witness drawn from the input bytes with every
 * flag combination (all must agree, input rows and padding as specified),
 * checked (OK, or a failing row < n_constraints), and written back: the bytes
 * must equal the input except for the checksum, and reopen with it.
 * fuzz/replay_main.c turns this file into a corpus replayer for any compiler.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "circuit/circuit.h"
#include "fuzz_common.h"

static bool bit(const uint64_t *bm, uint64_t i) { return bm[i / 64] >> (i % 64) & 1; }

static void check_density(const cuzk_circuit *c) {
    uint64_t ni = c->n_inputs, na = c->n_aux, nv = ni + na;
    uint8_t *in = calloc(nv ? nv : 1, 1);
    FUZZ_ASSERT(in != NULL);
    for (int j = 0; j < 2; j++) {
        memset(in, 0, nv ? nv : 1);
        for (uint64_t k = 0; k < c->m[j].nnz; k++) in[c->m[j].col[k]] = 1;
        uint64_t cnt_i = 0, cnt_a = 0;
        for (uint64_t v = 0; v < na; v++) {
            FUZZ_ASSERT(bit(j == 0 ? c->a_aux : c->b_aux, v) == in[ni + v]);
            cnt_a += in[ni + v];
        }
        FUZZ_ASSERT(cnt_a == (j == 0 ? c->a_aux_count : c->b_aux_count));
        if (j == 1) {
            for (uint64_t v = 0; v < ni; v++) {
                FUZZ_ASSERT(bit(c->b_inp, v) == in[v]);
                cnt_i += in[v];
            }
            FUZZ_ASSERT(cnt_i == c->b_inp_count);
        }
    }
    free(in);
}

static void check_accepted(const cuzk_circuit *c, const uint8_t *data, size_t size) {
    uint64_t nv = c->n_inputs + c->n_aux, nc = c->n_constraints;
    FUZZ_ASSERT(c->n_inputs >= 1 && c->size == size);
    FUZZ_ASSERT(c->domain_size >= nc + c->n_inputs && c->domain_size == (uint64_t)1 << c->domain_log);
    FUZZ_ASSERT(c->domain_size == 1 || c->domain_size / 2 < nc + c->n_inputs);
    cuzk_fr m1;
    cuzk_fr_neg(&m1, &cuzk__fr_one);
    FUZZ_ASSERT(c->n_values >= 2 && cuzk_fr_is_one(&c->values[0]) &&
                cuzk_fr_eq(&c->values[1], &m1));
    for (uint64_t i = 0; i < c->n_values; i++)
        FUZZ_ASSERT(cuzk__lt_n(c->values[i].l, cuzk__fr_r, CUZK_FR_LIMBS));
    for (int j = 0; j < 3; j++) {
        const cuzk_csr *m = &c->m[j];
        FUZZ_ASSERT(m->row_ptr[0] == 0 && m->row_ptr[nc] == m->nnz);
        for (uint64_t i = 0; i < nc; i++) FUZZ_ASSERT(m->row_ptr[i] <= m->row_ptr[i + 1]);
        for (uint64_t k = 0; k < m->nnz; k++)
            FUZZ_ASSERT(m->col[k] < nv && m->val[k] < c->n_values);
        /* Every view lies inside the input. */
        FUZZ_ASSERT((const uint8_t *)(m->val + m->nnz) <= data + size);
    }
    check_density(c);
}

/* Evaluates small circuits under every flag combination. */
static void check_spmv(const cuzk_circuit *c, const uint8_t *data, size_t size) {
    uint64_t nv = c->n_inputs + c->n_aux, dom = c->domain_size;
    if (dom > 4096 || nv > 16384) return;
    cuzk_fr *w = malloc(nv * sizeof(cuzk_fr)), *out[4][3];
    FUZZ_ASSERT(w != NULL);
    cuzk_fr_set_one(&w[0]);
    for (uint64_t v = 1; v < nv; v++) {
        uint8_t x = size ? data[v % size] : 0;
        switch (x % 4) {
        case 0: cuzk_fr_set_zero(&w[v]); break;
        case 1: cuzk_fr_set_one(&w[v]); break;
        case 2: cuzk_fr_neg(&w[v], &cuzk__fr_one); break;
        default: cuzk_fr_from_u64(&w[v], (uint64_t)x * 0x9e3779b97f4a7c15ULL + v); break;
        }
    }
    for (unsigned f = 0; f < 4; f++) {
        for (int j = 0; j < 3; j++) {
            out[f][j] = malloc(dom * sizeof(cuzk_fr));
            FUZZ_ASSERT(out[f][j] != NULL);
            memset(out[f][j], 0x5a, dom * sizeof(cuzk_fr));
        }
        FUZZ_ASSERT(cuzk_circuit_abc_var(c, out[f][0], out[f][1], out[f][2], w, f, 1) == CUZK_OK);
        for (int j = 0; j < 3; j++)
            FUZZ_ASSERT(memcmp(out[f][j], out[0][j], dom * sizeof(cuzk_fr)) == 0);
    }
    for (uint64_t i = c->n_constraints; i < dom; i++) {
        bool inp = i < c->n_constraints + c->n_inputs;
        FUZZ_ASSERT(inp ? cuzk_fr_eq(&out[0][0][i], &w[i - c->n_constraints])
                        : cuzk_fr_is_zero(&out[0][0][i]));
        FUZZ_ASSERT(cuzk_fr_is_zero(&out[0][1][i]) && cuzk_fr_is_zero(&out[0][2][i]));
    }
    uint64_t bad = 0;
    cuzk_error e;
    cuzk_status st = cuzk_circuit_check_abc(c, out[0][0], out[0][1], out[0][2], "w", 1, &bad, &e);
    FUZZ_ASSERT(st == CUZK_OK ? bad == UINT64_MAX
                              : st == CUZK_ERR_WITNESS_UNSATISFIED && bad < c->n_constraints);
    for (unsigned f = 0; f < 4; f++)
        for (int j = 0; j < 3; j++) free(out[f][j]);
    free(w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    uint8_t *in = fuzz_copy_input(data, size);
    if (in == NULL) return 0;
    cuzk_circuit c;
    cuzk_error e;
    memset(&e, 0, sizeof(e));
    cuzk_status full = cuzk_circuit_open_mem(&c, in, size, NAME, 0, &e);
    if (full != CUZK_OK) {
        check_error(full, &e);
        FUZZ_ASSERT(all_zero(&c, sizeof(c)));
    } else {
        cuzk_circuit_close(&c);
    }
    cuzk_status st = cuzk_circuit_open_mem(&c, in, size, NAME, CUZK_CIRCUIT_SKIP_CHECKSUM, &e);
    FUZZ_ASSERT(full != CUZK_OK || st == CUZK_OK);
    if (st != CUZK_OK) {
        check_error(st, &e);
        FUZZ_ASSERT(all_zero(&c, sizeof(c)));
    } else {
        check_accepted(&c, in, size);
        check_spmv(&c, in, size);
        uint8_t *out;
        size_t n;
        FUZZ_ASSERT(cuzk_circuit_to_bytes(&c, &out, &n, &e) == CUZK_OK);
        FUZZ_ASSERT(n == size && memcmp(out, in, size - 8) == 0);
        FUZZ_ASSERT(full != CUZK_OK || memcmp(out, in, size) == 0);
        cuzk_circuit d;
        FUZZ_ASSERT(cuzk_circuit_open_mem(&d, out, n, NAME, 0, &e) == CUZK_OK);
        cuzk_circuit_close(&d);
        free(out);
        cuzk_circuit_close(&c);
        FUZZ_ASSERT(all_zero(&c, sizeof(c)));
    }
    free(in);
    return 0;
}
