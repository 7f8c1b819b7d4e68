/*
 * gen.h — synthetic circuits and satisfying witnesses at any size from 2^10
 * to 2^27 constraints (`cuzk gen-circuit`), for benchmarks and tests of the
 * SpMV, the NTTs and the MSMs without a real PoRep partition.
 *
 * Profiles:
 *   POREP  the statistics of a PoRep-32G partition (the reference system's):
 *          n_constraints = 130,278,869 / 2^27 of the domain, 328 inputs,
 *          one new aux per constraint (130,169,893 / 130,278,869), nnz per row
 *          A 2.375, B 1.000, C 2.170, a_aux 99.7%, b_inp = {ONE}, b_aux 25.4%,
 *          mostly boolean aux values (boolean_fraction).
 *   DENSE  8..16 entries per row in each matrix with random field
 *          coefficients (a table of up to 2^20 random constants), operands
 *          spread over the whole variable range, few booleans: the worst case
 *          for the SpMV gathers and the MSMs. A fifth of its aux (1 per 4
 *          rows) are free field values without a defining row, so that rows
 *          can reach any chunk's variables.
 *   SHA    the structure of SHA-256 compressions on bits: message schedule,
 *          Σ/σ rotations, ch, maj, additions mod 2^32 by ripple-carry full
 *          adders (no round constants K_t; IV and message are free bits), and
 *          a few 32-bit packings for the non-boolean share.
 *
 * Every constraint is satisfied by construction: a constraint either
 * introduces a free bit b with (1 - b) * b = 0, or defines one fresh variable
 * z that is the first entry of its C row with coefficient +-1, from operands
 * that already have values (inputs, free variables, variables defined by
 * earlier rows of the same chunk). The witness is computed by solving those
 * rows in order (z = +-(<A,w><B,w> - rest of C)), chunk by chunk in parallel.
 *
 * Determinism: rows are generated in chunks of a fixed size, each with its
 * own random stream derived from (seed, profile, K, boolean fraction, chunk),
 * so the circuit bytes do not depend on the thread count; witness values use
 * streams derived from (seed, partition, chunk).
 *
 * Memory: the CSR arrays are sized exactly by a counting pass, filled in
 * place, then copied once into the circuit image (cuzk_circuit_build_indexed):
 * peak about 2x the circuit file; a witness needs 2x its file on top.
 * Measured at 2^27 on 16 cores (H200 host): POREP 27 s, 17.5 GB peak for an
 * 8.9 GB circuit + 4.2 GB witness; SHA 25 s, 16.4 GB; DENSE 120 s, 75 GB
 * for 38.6 GB + 5.2 GB.
 */
#ifndef CUZK_GEN_H
#define CUZK_GEN_H

#include <stdint.h>

#include "circuit/circuit.h"
#include "util/error.h"
#include "circuit/witness.h"

typedef enum { CUZK_GEN_POREP = 0, CUZK_GEN_DENSE = 1, CUZK_GEN_SHA = 2 } cuzk_gen_profile;

#define CUZK_GEN_MIN_LOG 10u
#define CUZK_GEN_MAX_LOG 27u

typedef struct {
    cuzk_gen_profile profile;
    unsigned log_constraints; /* K: the domain is 2^K */
    double boolean_fraction;  /* < 0: the profile's default */
    uint64_t seed;
    unsigned threads; /* 0 = all cores */
} cuzk_gen_params;

/* Reference statistics a profile aims at (POREP: the reference system's figures). */
typedef struct {
    double nnz_per_row[3];   /* A, B, C; 0 = no target */
    double a_aux, b_aux;     /* densities; < 0 = no target */
    double aux_per_row;      /* n_aux / n_constraints; 0 = no target */
    double boolean_fraction; /* the profile's default */
    uint64_t b_inp_count;    /* 0 = no target */
} cuzk_gen_targets;

/* Statistics measured from a circuit alone. */
typedef struct {
    uint64_t n_constraints, n_inputs, n_aux, domain_size, nnz[3], n_values;
    double nnz_per_row[3];
    double a_aux, b_aux; /* popcount / n_aux */
    uint64_t b_inp_count;
    double pm1_fraction;   /* entries whose coefficient is +1 or -1 (all matrices) */
    uint64_t values_used;  /* distinct value-table entries referenced */
    uint64_t max_row_len;  /* longest row over A, B, C */
} cuzk_gen_stats;

typedef struct cuzk_gen cuzk_gen;

/* Profile by name ("porep", "dense", "sha"); -1 when unknown. */
int cuzk_gen_profile_from_name(const char *name);
const char *cuzk_gen_profile_name(cuzk_gen_profile p);
void cuzk_gen_targets_for(cuzk_gen_profile p, cuzk_gen_targets *t);

/*
 * Builds the circuit of p (ERR_INVALID_ARG for a K outside 10..27, an unknown
 * profile or a boolean fraction outside [0, 1]; ERR_NOMEM). The generator
 * keeps what the witness solver needs (one byte per constraint).
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_gen_new(cuzk_gen **g, const cuzk_gen_params *p,
                                                 cuzk_error *err);
void cuzk_gen_free(cuzk_gen *g);
const cuzk_circuit *cuzk_gen_circuit(const cuzk_gen *g);
/* The boolean fraction actually used (the default resolved). */
double cuzk_gen_boolean_fraction_used(const cuzk_gen *g);

/*
 * The witness of partition `partition`: fresh random inputs, free bits and
 * free field values, then every defining row solved. Satisfies the circuit
 * by construction (checked by the tests with cuzk_witness_abc_var, not here).
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_gen_witness(const cuzk_gen *g, unsigned partition,
                                                     cuzk_witness *w, cuzk_error *err);

void cuzk_gen_stats_of(const cuzk_circuit *c, cuzk_gen_stats *s, unsigned threads);
/* Fraction of the aux values of w that are 0 or 1. */
double cuzk_gen_witness_boolean_fraction(const cuzk_witness *w, unsigned threads);

#endif /* CUZK_GEN_H */
