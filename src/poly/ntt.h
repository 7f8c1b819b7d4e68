/*
 * ntt.h — number-theoretic transforms over Fr (BLS12-381 scalar field) on
 * power-of-two domains, for the Groth16 H computation (h.h) and anything else
 * that needs polynomial arithmetic.
 *
 * Domain. A cuzk_ntt_domain of size n = 2^k is the group <omega_n> of n-th
 * roots of unity, with omega_n taken from one of two fixed roots of order 2^32
 * (the 2-adicity of r - 1), because the proving key fixes which one:
 *   CUZK_NTT_ROOT5: omega_2^32 = 5^t  (snarkjs/ffjavascript .zkey)
 *   CUZK_NTT_ROOT7: omega_2^32 = 7^t  (bellman/zkcrypto/blstrs .params)
 * with t = (r - 1)/2^32, and omega_n = omega_2^32^(2^(32-k)). Using the wrong
 * root gives invalid proofs, never an error, so each key records its root
 * (doc/formats.md, zkey domain and root of unity).
 *
 * Transforms. Every transform works in place on n elements in Montgomery
 * form. "Forward" maps coefficients p_0..p_{n-1} of p(x) = sum p_j x^j to the
 * values p(omega_n^i), i = 0..n-1; "inverse" maps values back to coefficients
 * (the 1/n is included). The order argument names the layout of the input
 * array, then of the output array: N = natural (index i holds item i), R =
 * bit-reversed (index i holds item bitrev_k(i)). The coset variants evaluate
 * at g*omega_n^i (forward) or interpolate from those points (inverse) for any
 * nonzero shift g.
 *
 * Algorithm. Radix-2 Gentleman-Sande (decimation in frequency: natural in,
 * bit-reversed out) and Cooley-Tukey (decimation in time: bit-reversed in,
 * natural out) butterflies, grouped radix-2^K style for the cache: a size-m
 * transform with m > 2^12 does its top K <= 10 stages in one pass over column
 * strips (2^K rows x 8 columns, <= 256 KiB), after which the 2^K contiguous
 * blocks of size m/2^K are independent transforms, done recursively until a
 * block (<= 2^12 elements, 128 KiB) fits in L2. So a 2^22 transform makes two
 * passes over memory instead of 22. Cost: (n/2)*log2(n) butterflies of one Fr
 * multiplication, one addition and one subtraction each, minus the ~n
 * butterflies whose twiddle is 1; the inverse adds n multiplications (1/n),
 * a coset transform 2n (the powers of g), an N<->R reorder one cache-blocked
 * permutation pass. Twiddles come from one table per butterfly span h
 * (T_h[j] = omega_2h^j, j < h), so every stage reads its twiddles
 * sequentially; the inverse uses the same tables, omega_2h^-j =
 * -T_h[h - j], the sign folded into the butterfly.
 *
 * Threads. The transforms and the H helpers run on OpenMP threads when
 * OpenMP is available (CUZK_HAVE_OPENMP), as many as omp_get_max_threads()
 * says in the calling thread (set with omp_set_num_threads or OMP_NUM_THREADS);
 * below 2^13 elements they stay on the calling thread. The results do not
 * depend on the thread count. Without OpenMP everything runs on the caller.
 *
 * Timing. Control flow and memory indices depend only on n, the order and the
 * direction, never on the element values, so the transforms are constant-time
 * in the data (the coset shift g is treated as public).
 *
 * Memory. A domain holds n - 1 twiddles of 32 bytes (the tables T_n/2, T_n/4,
 * ..., T_1): 32*n bytes (2^20: 32 MiB, 2^24: 512 MiB, 2^27: 4 GiB), plus the
 * struct. Half of that would do (T_n/2 holds every other table strided), but
 * strided reads cost a TLB miss per twiddle at large n. The transforms
 * allocate nothing; the H helpers allocate only when c is NULL (h.h).
 */
#ifndef CUZK_NTT_H
#define CUZK_NTT_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk.h"
#include "ff/fr.h"

/* Largest supported log2 size: the 2-adicity of r - 1. */
#define CUZK_NTT_MAX_LOG CUZK__FR_TWO_ADICITY

/* Which root of order 2^32 the domain is built from (the value is the base). */
typedef enum {
    CUZK_NTT_ROOT5 = 5, /* snarkjs / ffjavascript keys (.zkey) */
    CUZK_NTT_ROOT7 = 7  /* bellman / Filecoin keys (.params) */
} cuzk_ntt_root;

/* Layout of input, then output: N natural, R bit-reversed. */
typedef enum {
    CUZK_NTT_NN = 0, /* natural -> natural (one extra permutation pass) */
    CUZK_NTT_NR = 1, /* natural -> bit-reversed (no permutation) */
    CUZK_NTT_RN = 2, /* bit-reversed -> natural (no permutation) */
    CUZK_NTT_RR = 3  /* bit-reversed -> bit-reversed (one extra permutation pass) */
} cuzk_ntt_order;

typedef struct {
    unsigned log_n;     /* k: n = 2^k, 0 <= k <= CUZK_NTT_MAX_LOG */
    size_t n;
    cuzk_ntt_root root; /* the convention the domain was built for */
    cuzk_fr omega;      /* omega_n, a primitive n-th root of unity */
    cuzk_fr omega_inv;  /* omega_n^-1 */
    cuzk_fr n_inv;      /* 1/n */
    cuzk_fr omega_2n;   /* omega_2n with omega_2n^2 = omega_n; zero when k = 32
                         * (no 2^33-th root exists): snarkjs H then refuses */
    cuzk_fr *tw;        /* n - 1 twiddles: tw[n - 2h + j] = omega_2h^j for j < h,
                         * h = n/2, n/4, ..., 1; so tw[j] = omega_n^j for
                         * j < n/2 (NULL when n = 1) */
} cuzk_ntt_domain;

/*
 * Builds the domain of size 2^log_n for the given root, including the twiddle
 * tables (32*n bytes; n/2 products and n/2 copies on OpenMP threads). Returns CUZK_ERR_INVALID_ARG
 * for log_n > CUZK_NTT_MAX_LOG or an unknown root (d is then zeroed, safe to
 * free), CUZK_ERR_NOMEM when the table cannot be allocated.
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_ntt_domain_init(cuzk_ntt_domain *d, unsigned log_n,
                                                         cuzk_ntt_root root);
/* Frees the table; d is zeroed. Safe on a zeroed or failed domain. */
void cuzk_ntt_domain_free(cuzk_ntt_domain *d);

/* Bytes cuzk_ntt_domain_init allocates for size 2^log_n (0 for log_n = 0). */
size_t cuzk_ntt_domain_sizeof(unsigned log_n);

/*
 * In-place transforms of n = d->n elements. They return CUZK_ERR_INVALID_ARG
 * when n != d->n, a is NULL, order is unknown or (coset) g is NULL or zero;
 * otherwise CUZK_OK.
 *   forward:         a[j] = p_j            ->  a[i] = p(omega^i)
 *   inverse:         a[i] = p(omega^i)     ->  a[j] = p_j
 *   coset_forward:   a[j] = p_j            ->  a[i] = p(g*omega^i)
 *   coset_inverse:   a[i] = p(g*omega^i)   ->  a[j] = p_j
 * (each index in the layout the order names: input side first).
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_ntt_forward(const cuzk_ntt_domain *d, cuzk_fr *a,
                                                     size_t n, cuzk_ntt_order order);
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_ntt_inverse(const cuzk_ntt_domain *d, cuzk_fr *a,
                                                     size_t n, cuzk_ntt_order order);
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_ntt_coset_forward(const cuzk_ntt_domain *d, cuzk_fr *a,
                                                           size_t n, cuzk_ntt_order order,
                                                           const cuzk_fr *g);
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_ntt_coset_inverse(const cuzk_ntt_domain *d, cuzk_fr *a,
                                                           size_t n, cuzk_ntt_order order,
                                                           const cuzk_fr *g);

/* Reorders a (2^log_n elements) by bit reversal of the index, in place; an
 * involution. Cache-blocked above 2^12 elements, on OpenMP threads. */
void cuzk_ntt_bitrev_permute(cuzk_fr *a, unsigned log_n);

/*
 * Building blocks for callers that fuse steps (h.c does): all in place,
 * no argument checks (d and a valid, n = d->n).
 *   dif:  natural -> bit-reversed, no 1/n   (inverse = 1: roots omega^-1)
 *   dit:  bit-reversed -> natural, no 1/n
 *   scale_natural: a[j] *= c * s^j
 *   scale_bitrev:  a[bitrev(j)] *= c * s^j  (coefficients stored bit-reversed)
 */
void cuzk__ntt_dif(const cuzk_ntt_domain *d, cuzk_fr *a, int inverse);
void cuzk__ntt_dit(const cuzk_ntt_domain *d, cuzk_fr *a, int inverse);
void cuzk__ntt_scale_natural(cuzk_fr *a, size_t n, const cuzk_fr *c, const cuzk_fr *s);
void cuzk__ntt_scale_bitrev(cuzk_fr *a, unsigned log_n, const cuzk_fr *c, const cuzk_fr *s);

/* Tests only (not thread-safe): blocks of <= 2^leaf_log elements use plain
 * loops, a column pass does <= kmax stages, transforms below 2^par_min_log
 * stay on one thread. 0 restores a default (12, 10, 13). Lets small sizes
 * exercise the deep recursion and threaded paths of big ones. */
void cuzk__ntt_tune(unsigned leaf_log, unsigned kmax, unsigned par_min_log);

#endif /* CUZK_NTT_H */
