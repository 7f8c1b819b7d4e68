/*
 * spmv.c — witness -> a, b, c: three sparse matrix-vector products over the
 * CSR matrices (circuit.h), and the satisfaction check a∘b = c.
 *
 * Cost per entry: one gather of a 32-byte witness value, then
 *   generic path                 1 Montgomery multiplication + 1 addition
 *   coefficient +-1 (index 0/1)  1 addition or subtraction
 *   witness 0                    nothing
 *   witness 1                    1 addition (of the coefficient)
 * In a PoRep partition most aux values are bits and most coefficients are
 * +-1, so the multiplication is the exception and the loop is bound by the
 * gathers (memory), not by arithmetic.
 *
 * Threads take blocks of ROW_BLOCK rows dynamically (rows differ in length);
 * each block writes only its own rows of a, b, c, so there is no sharing.
 * The zero padding up to the domain is written by the same loop, in parallel.
 */
#include "circuit/circuit.h"

#include <string.h>

#if defined(CUZK_HAVE_OPENMP)
#include <omp.h>
#endif

#define ROW_BLOCK 4096

/* <M_row, w> with the paths selected by flags; flags is a constant at every
 * call site, so each combination compiles to its own loop. */
static inline __attribute__((always_inline)) void row_eval(cuzk_fr *out, const cuzk_csr *m,
                                                           uint64_t row, const cuzk_fr *values,
                                                           const cuzk_fr *w, unsigned flags) {
    uint64_t k = m->row_ptr[row], e = m->row_ptr[row + 1];
    cuzk_fr acc, t;
    cuzk_fr_set_zero(&acc);
    for (; k < e; k++) {
        uint32_t v = m->val[k];
        const cuzk_fr *x = &w[m->col[k]];
        if (flags & CUZK_SPMV_WITNESS_01) {
            if (cuzk_fr_is_zero(x)) continue;
            if (cuzk_fr_is_one(x)) {
                cuzk_fr_add(&acc, &acc, &values[v]);
                continue;
            }
        }
        if ((flags & CUZK_SPMV_COEFF_PM1) && v == CUZK_CIRCUIT_VAL_ONE) {
            cuzk_fr_add(&acc, &acc, x);
        } else if ((flags & CUZK_SPMV_COEFF_PM1) && v == CUZK_CIRCUIT_VAL_MINUS_ONE) {
            cuzk_fr_sub(&acc, &acc, x);
        } else {
            cuzk_fr_mul(&t, &values[v], x);
            cuzk_fr_add(&acc, &acc, &t);
        }
    }
    *out = acc;
}

static inline __attribute__((always_inline)) void rows_eval(const cuzk_circuit *c, cuzk_fr *a,
                                                            cuzk_fr *b, cuzk_fr *cc,
                                                            const cuzk_fr *w, uint64_t lo,
                                                            uint64_t hi, unsigned flags) {
    for (uint64_t i = lo; i < hi; i++) {
        row_eval(&a[i], &c->m[CUZK_CIRCUIT_A], i, c->values, w, flags);
        row_eval(&b[i], &c->m[CUZK_CIRCUIT_B], i, c->values, w, flags);
        row_eval(&cc[i], &c->m[CUZK_CIRCUIT_C], i, c->values, w, flags);
    }
}

static void rows_dispatch(const cuzk_circuit *c, cuzk_fr *a, cuzk_fr *b, cuzk_fr *cc,
                          const cuzk_fr *w, uint64_t lo, uint64_t hi, unsigned flags) {
    switch (flags & CUZK_SPMV_DEFAULT) {
    case 0: rows_eval(c, a, b, cc, w, lo, hi, 0); break;
    case CUZK_SPMV_COEFF_PM1: rows_eval(c, a, b, cc, w, lo, hi, CUZK_SPMV_COEFF_PM1); break;
    case CUZK_SPMV_WITNESS_01: rows_eval(c, a, b, cc, w, lo, hi, CUZK_SPMV_WITNESS_01); break;
    default: rows_eval(c, a, b, cc, w, lo, hi, CUZK_SPMV_DEFAULT); break;
    }
}

cuzk_status cuzk_circuit_abc_var(const cuzk_circuit *c, cuzk_fr *a, cuzk_fr *b, cuzk_fr *cc,
                                 const cuzk_fr *w, unsigned flags, unsigned threads) {
    if (c == NULL || a == NULL || b == NULL || cc == NULL || w == NULL || c->image == NULL)
        return CUZK_ERR_INVALID_ARG;
    uint64_t nc = c->n_constraints, ni = c->n_inputs, dom = c->domain_size;
    int64_t nblocks = (int64_t)((dom + ROW_BLOCK - 1) / ROW_BLOCK);
    int t = (int)cuzk_circuit_threads(threads);
    (void)t;
#if defined(CUZK_HAVE_OPENMP)
#pragma omp parallel for num_threads(t) schedule(dynamic, 1)
#endif
    for (int64_t blk = 0; blk < nblocks; blk++) {
        uint64_t lo = (uint64_t)blk * ROW_BLOCK, hi = lo + ROW_BLOCK < dom ? lo + ROW_BLOCK : dom;
        /* Constraint rows. */
        uint64_t e = hi < nc ? hi : nc;
        if (lo < e) rows_dispatch(c, a, b, cc, w, lo, e, flags);
        /* bellman's input rows: input_j * 0 = 0. */
        uint64_t s = lo > nc ? lo : nc;
        e = hi < nc + ni ? hi : nc + ni;
        for (uint64_t i = s; i < e; i++) {
            a[i] = w[i - nc];
            cuzk_fr_set_zero(&b[i]);
            cuzk_fr_set_zero(&cc[i]);
        }
        /* Padding. */
        s = lo > nc + ni ? lo : nc + ni;
        if (s < hi) {
            size_t bytes = (size_t)(hi - s) * sizeof(cuzk_fr);
            memset(&a[s], 0, bytes);
            memset(&b[s], 0, bytes);
            memset(&cc[s], 0, bytes);
        }
    }
    return CUZK_OK;
}

cuzk_status cuzk_circuit_check_abc(const cuzk_circuit *c, const cuzk_fr *a, const cuzk_fr *b,
                                   const cuzk_fr *cc, const char *wname, unsigned threads,
                                   uint64_t *first_bad, cuzk_error *err) {
    if (first_bad != NULL) *first_bad = UINT64_MAX;
    if (c == NULL || a == NULL || b == NULL || cc == NULL)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "cuzk_circuit_check_abc: NULL argument");
    int64_t n = (int64_t)c->n_constraints, best = n;
    int t = (int)cuzk_circuit_threads(threads);
    (void)t;
#if defined(CUZK_HAVE_OPENMP)
#pragma omp parallel for num_threads(t) schedule(static) reduction(min : best)
#endif
    for (int64_t i = 0; i < n; i++) {
        if (i >= best) continue;
        cuzk_fr p;
        cuzk_fr_mul(&p, &a[i], &b[i]);
        if (!cuzk_fr_eq(&p, &cc[i])) best = i;
    }
    if (best == n) return CUZK_OK;
    if (first_bad != NULL) *first_bad = (uint64_t)best;
    return cuzk__fail(err, CUZK_ERR_WITNESS_UNSATISFIED,
                      "%s: witness %s does not satisfy constraint %lld (A*B != C)",
                      c->path ? c->path : "(circuit)", wname ? wname : "(assignment)",
                      (long long)best);
}
