/*
 * h.h — the quotient polynomial H of Groth16 in its two conventions
 * (doc/formats.md, Two H conventions).
 *
 * Input for both: a, b, c hold the n = d->n evaluations of A, B, C on
 * <omega_n> in natural order (a[i] = A(omega_n^i), row i of the constraint
 * system, zero-padded to n), Montgomery form. c may be NULL: the function then
 * uses c = a∘b (pointwise; what snarkjs and rapidsnark do, and what any
 * satisfied system gives) and allocates those n elements itself (32*n bytes,
 * CUZK_ERR_NOMEM when that fails). Pass your own c buffer to avoid the
 * allocation. a, b and c are overwritten: the result goes to a, b and c hold
 * scratch values afterwards.
 *
 * snarkjs (.zkey, root 5^t): a[i] = A(x_i)B(x_i) - C(x_i) at the odd points
 * x_i = omega_2n^(2i+1) of the 2n domain, i = 0..n-1, no division by Z (Z is
 * -2 there and folded into the key's H bases). Per vector: inverse NTT,
 * coefficient j times omega_2n^j, forward NTT. Needs log_n <= 31.
 *
 * bellman (.params, root 7^t): a[j] = coefficient j of H = (AB - C)/Z, Z(x) =
 * x^n - 1, j = 0..n-1. For a satisfied system deg H <= n - 2, so a[n-1] = 0
 * and the prover uses a[0..n-2] (n - 1 scalars for the n - 1 bases
 * tau^j Z(tau)/delta). Per vector: inverse NTT, coset NTT with
 * g = CUZK_H_BELLMAN_COSET_GEN; then (AB - C)*(g^n - 1)^-1 on the coset and
 * a coset inverse NTT.
 *
 * The domain's root is the caller's business (the key says which); these
 * functions work with either. Threads, timing and cost as in ntt.h: 6 NTTs
 * (snarkjs) or 7 NTTs and a permutation pass (bellman), plus ~5n
 * multiplications, each done in place.
 *
 * Returns CUZK_ERR_INVALID_ARG for n != d->n, NULL a or b, or (snarkjs) a
 * domain of size 2^32.
 */
#ifndef CUZK_H_H
#define CUZK_H_H

#include <stddef.h>

#include "cuzk.h"
#include "ff/fr.h"
#include "poly/ntt.h"

/* bellman's coset shift: the multiplicative generator of Fr^* (doc/formats.md,
 * Two H conventions). */
#define CUZK_H_BELLMAN_COSET_GEN 7

CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_h_snarkjs(const cuzk_ntt_domain *d, cuzk_fr *a,
                                                   cuzk_fr *b, cuzk_fr *c, size_t n);
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk_h_bellman(const cuzk_ntt_domain *d, cuzk_fr *a,
                                                   cuzk_fr *b, cuzk_fr *c, size_t n);

#endif /* CUZK_H_H */
