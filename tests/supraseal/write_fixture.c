/*
 * write_fixture.c — supraseal_fixture DIR [N]: the files the shim crate's
 * test (contrib/supraseal-c2-shim/tests/prove.rs) proves from, so that the
 * Rust side needs nothing but std:
 *   DIR/porep.params  development parameters of a 2^10 porep-profile circuit
 *   DIR/fixture.bin   N circuits' assignments as bellperson holds them, with
 *                     their r, s and the proof our own prover makes of each
 *                     (verified here before it is written)
 * fixture.bin, every integer a little-endian u64, every scalar 32 bytes of
 * Montgomery limbs, every proof the 384 bytes of cuzk_supraseal_proof:
 *   "cuzkssfx", n, abc_size, n_inp, n_aux, popcount(a_aux), popcount(b_inp),
 *   popcount(b_aux); the a_aux, b_inp and b_aux words (ceil(bits / 64) each,
 *   the bits past each length set; one set for all circuits, which share
 *   the circuit); then per circuit a, b, c (abc_size scalars each), inputs,
 *   aux, r, s, proof.
 */
#include <stdio.h>
#include <stdlib.h>

#include "fixture.h"

static int put(FILE *f, const void *p, size_t n) { return fwrite(p, 1, n, f) == n; }

static int put_u64(FILE *f, uint64_t v) {
    uint8_t b[8];
    for (int i = 0; i < 8; i++) b[i] = (uint8_t)(v >> (8 * i));
    return put(f, b, 8);
}

/* scalars and words are stored as the host holds them: little-endian only */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "write_fixture.c writes host-order limbs: little-endian hosts only"
#endif

int main(int argc, char **argv) {
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: %s DIR [N]\n", argv[0]);
        return 2;
    }
    const char *dir = argv[1];
    size_t n = argc == 3 ? (size_t)strtoul(argv[2], NULL, 10) : 4;
    if (n == 0 || n > 64) {
        fprintf(stderr, "N must be 1..64\n");
        return 2;
    }
    char cmd[600];
    snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", dir);
    if (system(cmd) != 0) return 1;

    fixture fx;
    if (!fixture_make(&fx, CUZK_GEN_POREP, 10, "porep", dir)) return 1;
    char path[400];
    snprintf(path, sizeof(path), "%s/fixture.bin", dir);
    FILE *f = fopen(path, "wb");
    if (f == NULL) {
        perror(path);
        return 1;
    }
    int ok = 1;
    for (size_t i = 0; i < n && ok; i++) {
        assignment x;
        ok = assignment_make(&x, &fx, (unsigned)i);
        if (!ok) break;
        const cuzk_supraseal_assignment *as = &x.as;
        if (i == 0) {
            ok = put(f, "cuzkssfx", 8) && put_u64(f, n) && put_u64(f, as->abc_size) &&
                 put_u64(f, as->inp_assignment_size) && put_u64(f, as->aux_assignment_size) &&
                 put_u64(f, as->a_aux_popcount) && put_u64(f, as->b_inp_popcount) &&
                 put_u64(f, as->b_aux_popcount) &&
                 put(f, x.a_aux, 8 * ((as->a_aux_bit_len + 63) / 64)) &&
                 put(f, x.b_inp, 8 * ((as->b_inp_bit_len + 63) / 64)) &&
                 put(f, x.b_aux, 8 * ((as->b_aux_bit_len + 63) / 64));
        }
        uint64_t r[4], s[4];
        cuzk_supraseal_fr rm, sm;
        rs_of(i, r, s, &rm, &sm);
        cuzk_groth16_proof proof;
        ok = ok && reference_proof(&proof, &fx, &x, r, s);
        cuzk_supraseal_proof sp;
        memcpy(&sp, &proof, sizeof(sp));
        ok = ok && verifies(&fx, &x, &sp);
        ok = ok && put(f, x.a, 32 * as->abc_size) && put(f, x.b, 32 * as->abc_size) &&
             put(f, x.c, 32 * as->abc_size) && put(f, x.inp, 32 * as->inp_assignment_size) &&
             put(f, x.aux, 32 * as->aux_assignment_size) && put(f, &rm, 32) &&
             put(f, &sm, 32) && put(f, &sp, sizeof(sp));
        assignment_free(&x);
    }
    if (fclose(f) != 0) ok = 0;
    if (ok) printf("%s: %zu circuits of %s\n", path, n, fx.path);
    else fprintf(stderr, "%s: could not write the fixture\n", argv[0]);
    fixture_free(&fx);
    return ok ? 0 : 1;
}
