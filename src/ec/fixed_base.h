/*
 * fixed_base.h — many scalar multiplications of one fixed point:
 * out[i] = k[i]·G in G1 or G2, for trusted setups (the dev powers of tau,
 * ptau.h; later `cuzk setup`), where millions of points are multiples of the
 * generator.
 *
 * VARIABLE TIME: the table index is the scalar's digit. Use it for public
 * scalars or where the scalars' timing is accepted to leak (a development
 * setup whose toxic waste is printed anyway). A production ceremony needs a
 * constant-time lookup (scan a whole table row per window).
 *
 * Method: fixed windows with signed (Booth) digits, the "BGMW"/Lim-Lee idea of
 * precomputing every window's multiples so that no doubling is left per
 * scalar. With c-bit windows and nwin = floor(256/c) + 1 windows,
 *   k = sum_j d_j 2^(jc),  d_j in [-2^(c-1), 2^(c-1)],
 * where d_j reads bits jc-1 .. jc+c-1 of k (bit -1 = 0):
 *   w = those c+1 bits, d_j = (w >> 1) + (w & 1) - 2^c (w >> c).
 * The sum is exact for every k < 2^256, because bit nwin·c - 1 >= 256 is 0.
 * The table holds T[j][d-1] = d·2^(jc)·G for d = 1..2^(c-1), in affine form,
 * so a scalar costs at most nwin mixed additions (Jacobian + affine,
 * madd-2007-bl, 7M + 4S each; G2 counts are in Fp2) and no doubling; negative
 * digits add the negated entry (y -> -y, free). The results of a chunk of
 * scalars are made affine together with one field inversion
 * (cuzk_g*_jac_batch_to_aff_var: 3M + 1S per point more).
 * Table: nwin·2^(c-1) points, built with one mixed addition per entry plus
 * one batch inversion per window. c = 12: 22 windows, 45 056 points,
 * 4.3 MB (G1) / 8.7 MB (G2).
 *
 * Scalars are plain (non-Montgomery) little-endian 4 x 64-bit limbs, any
 * 256-bit value (not reduced mod r: k and k + r give the same point only
 * because G has order r). The _fr variants take Montgomery-form cuzk_fr.
 *
 * Threads: `threads` OpenMP threads (0 = omp_get_max_threads()); results do
 * not depend on it. Without OpenMP everything runs on the caller.
 */
#ifndef CUZK_FIXED_BASE_H
#define CUZK_FIXED_BASE_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk.h"
#include "ff/fr.h"
#include "ec/g1.h"
#include "ec/g2.h"

/* Largest window accepted by the init functions (2^15 points per window). */
#define CUZK_FIXED_BASE_MAX_C 16
/* Largest window chosen automatically (cache: see above). */
#define CUZK_FIXED_BASE_AUTO_MAX_C 12

typedef struct {
    unsigned c;         /* window bits */
    unsigned nwin;      /* floor(256 / c) + 1 */
    size_t per_win;     /* 2^(c-1) */
    cuzk_g1_aff *tbl;   /* tbl[j * per_win + d - 1] = d 2^(jc) G */
} cuzk_g1_fixed_base;

typedef struct {
    unsigned c, nwin;
    size_t per_win;
    cuzk_g2_aff *tbl;
} cuzk_g2_fixed_base;

/* The window that minimizes (n + 2^(c-1)) (floor(256/c) + 1), the additions
 * for n scalars plus the table, for c in 2..CUZK_FIXED_BASE_AUTO_MAX_C. */
unsigned cuzk_fixed_base_window_bits(size_t n);

/*
 * Builds the table of g for c-bit windows (c = 0: cuzk_fixed_base_window_bits(n_hint)).
 * CUZK_ERR_INVALID_ARG for c outside 2..CUZK_FIXED_BASE_MAX_C or a NULL
 * argument, CUZK_ERR_NOMEM when the table cannot be allocated; *t is then
 * zeroed (safe to free). g may be infinity (every product is then infinity).
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_g1_fixed_base_init(cuzk_g1_fixed_base *t,
                                                            const cuzk_g1_aff *g, unsigned c,
                                                            size_t n_hint, unsigned threads);
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_g2_fixed_base_init(cuzk_g2_fixed_base *t,
                                                            const cuzk_g2_aff *g, unsigned c,
                                                            size_t n_hint, unsigned threads);
/* Frees the table and zeroes *t; safe on a zeroed table. */
void cuzk_g1_fixed_base_free(cuzk_g1_fixed_base *t);
void cuzk_g2_fixed_base_free(cuzk_g2_fixed_base *t);

/* r = k·g for one plain 256-bit scalar (Jacobian result). */
void cuzk_g1_fixed_base_mul_var(const cuzk_g1_fixed_base *t, cuzk_g1_jac *r, const uint64_t k[4]);
void cuzk_g2_fixed_base_mul_var(const cuzk_g2_fixed_base *t, cuzk_g2_jac *r, const uint64_t k[4]);

/*
 * out[i] = k[i]·g for i < n, affine (infinity as (0, 0)). out must not
 * overlap k. CUZK_ERR_INVALID_ARG for NULL arrays with n > 0 or an empty
 * table, CUZK_ERR_NOMEM when the per-thread buffers (a few hundred KB)
 * cannot be allocated.
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_g1_fixed_base_mul_batch_var(const cuzk_g1_fixed_base *t,
                                                                     cuzk_g1_aff *out,
                                                                     const uint64_t (*k)[4],
                                                                     size_t n, unsigned threads);
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_g2_fixed_base_mul_batch_var(const cuzk_g2_fixed_base *t,
                                                                     cuzk_g2_aff *out,
                                                                     const uint64_t (*k)[4],
                                                                     size_t n, unsigned threads);
/* The same with Montgomery-form Fr scalars. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_g1_fixed_base_mul_batch_fr_var(
    const cuzk_g1_fixed_base *t, cuzk_g1_aff *out, const cuzk_fr *k, size_t n, unsigned threads);
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_g2_fixed_base_mul_batch_fr_var(
    const cuzk_g2_fixed_base *t, cuzk_g2_aff *out, const cuzk_fr *k, size_t n, unsigned threads);

/* The signed digit of window j (see above) of a 256-bit scalar, for tests. */
static inline int cuzk__fixed_base_digit(const uint64_t k[4], unsigned j, unsigned c) {
    uint64_t mask = ((uint64_t)1 << (c + 1)) - 1, w;
    if (j == 0) {
        w = (k[0] << 1) & mask;
    } else {
        unsigned s = j * c - 1, limb = s / 64, off = s % 64;
        if (limb >= 4) return 0;
        w = k[limb] >> off;
        if (off + c + 1 > 64 && limb + 1 < 4) w |= k[limb + 1] << (64 - off);
        w &= mask;
    }
    return (int)((w >> 1) + (w & 1)) - (int)((w >> c) << c);
}

#endif /* CUZK_FIXED_BASE_H */
