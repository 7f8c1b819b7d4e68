/*
 * fixed_base_impl.h — fixed-base multiplication (fixed_base.h), written once
 * over the group and stamped for G1 and G2 by fixed_base.c, as ec_impl.h is.
 * The including file defines
 *   CUZK__EC(name)   the group's prefix (cuzk_g1_##name)
 *   CUZK__FE         the coordinate field type
 *   FB_S(name)       a unique name for this stamping's statics
 * VARIABLE TIME throughout.
 */

typedef CUZK__EC(aff) FB_S(aff);
typedef CUZK__EC(jac) FB_S(jac);
typedef CUZK__EC(fixed_base) FB_S(tbl);

/* Builds window j: row[d-1] = d·B for d = 1..per_win, with B = 2^(jc)·g given
 * in Jacobian form; work holds per_win Jacobian points, scratch per_win field
 * elements. */
static void FB_S(build_row)(FB_S(aff) *row, const FB_S(jac) *b, size_t per_win, FB_S(jac) *work,
                            CUZK__FE *scratch) {
    FB_S(aff) ba;
    CUZK__EC(jac_to_aff_var)(&ba, b);
    work[0] = *b;
    for (size_t d = 1; d < per_win; d++) CUZK__EC(jac_add_aff_var)(&work[d], &work[d - 1], &ba);
    CUZK__EC(jac_batch_to_aff_var)(row, work, per_win, scratch);
}

cuzk_status CUZK__EC(fixed_base_init)(FB_S(tbl) *t, const FB_S(aff) *g, unsigned c, size_t n_hint,
                                      unsigned threads) {
    if (t == NULL) return CUZK_ERR_INVALID_ARG;
    memset(t, 0, sizeof(*t));
    if (g == NULL) return CUZK_ERR_INVALID_ARG;
    if (c == 0) c = cuzk_fixed_base_window_bits(n_hint);
    if (c < 2 || c > CUZK_FIXED_BASE_MAX_C) return CUZK_ERR_INVALID_ARG;
    unsigned nwin = 256 / c + 1;
    size_t per_win = (size_t)1 << (c - 1);
    FB_S(aff) *tbl = malloc((size_t)nwin * per_win * sizeof(FB_S(aff)));
    FB_S(jac) *bases = malloc((size_t)nwin * sizeof(FB_S(jac)));
    if (tbl == NULL || bases == NULL) {
        free(tbl);
        free(bases);
        return CUZK_ERR_NOMEM;
    }
    /* B_j = 2^(jc) g: nwin·c doublings, sequential and cheap. */
    CUZK__EC(aff_to_jac)(&bases[0], g);
    for (unsigned j = 1; j < nwin; j++) {
        bases[j] = bases[j - 1];
        for (unsigned i = 0; i < c; i++) CUZK__EC(jac_dbl)(&bases[j], &bases[j]);
    }
    int nomem = 0;
    unsigned nt = fb_threads(threads);
    (void)nt;
#if defined(CUZK_HAVE_OPENMP)
#pragma omp parallel num_threads(nt) if (nt > 1 && nwin * per_win >= 4096)
#endif
    {
        FB_S(jac) *work = malloc(per_win * sizeof(FB_S(jac)));
        CUZK__FE *scratch = malloc(per_win * sizeof(CUZK__FE));
        int ok = work != NULL && scratch != NULL;
        if (!ok) {
#if defined(CUZK_HAVE_OPENMP)
#pragma omp atomic write
#endif
            nomem = 1;
        }
        /* Every thread reaches the worksharing loop (OpenMP requires it); one
         * without buffers takes no row and the call fails afterwards. */
#if defined(CUZK_HAVE_OPENMP)
#pragma omp for schedule(dynamic, 1)
#endif
        for (unsigned j = 0; j < nwin; j++)
            if (ok) FB_S(build_row)(&tbl[(size_t)j * per_win], &bases[j], per_win, work, scratch);
        free(work);
        free(scratch);
    }
    free(bases);
    if (nomem) {
        free(tbl);
        return CUZK_ERR_NOMEM;
    }
    t->c = c;
    t->nwin = nwin;
    t->per_win = per_win;
    t->tbl = tbl;
    return CUZK_OK;
}

void CUZK__EC(fixed_base_free)(FB_S(tbl) *t) {
    if (t == NULL) return;
    free(t->tbl);
    memset(t, 0, sizeof(*t));
}

/* At most nwin mixed additions, no doubling (fixed_base.h). */
void CUZK__EC(fixed_base_mul_var)(const FB_S(tbl) *t, FB_S(jac) *r, const uint64_t k[4]) {
    FB_S(jac) acc;
    FB_S(aff) neg;
    CUZK__EC(jac_set_inf)(&acc);
    for (unsigned j = 0; j < t->nwin; j++) {
        int d = cuzk__fixed_base_digit(k, j, t->c);
        if (d == 0) continue;
        const FB_S(aff) *p = &t->tbl[(size_t)j * t->per_win + (size_t)(d > 0 ? d : -d) - 1];
        if (d < 0) {
            CUZK__EC(aff_neg)(&neg, p);
            p = &neg;
        }
        CUZK__EC(jac_add_aff_var)(&acc, &acc, p);
    }
    *r = acc;
}

/* Scalars per affine normalization (one inversion each). */
#define FB_CHUNK 256

static cuzk_status FB_S(mul_batch)(const FB_S(tbl) *t, FB_S(aff) *out, const uint64_t (*k)[4],
                                   const cuzk_fr *kfr, size_t n, unsigned threads) {
    if (t == NULL || t->tbl == NULL) return CUZK_ERR_INVALID_ARG;
    if (n == 0) return CUZK_OK;
    if (out == NULL || (k == NULL && kfr == NULL)) return CUZK_ERR_INVALID_ARG;
    size_t nchunks = (n + FB_CHUNK - 1) / FB_CHUNK;
    unsigned nt = fb_threads(threads);
    if (nt > nchunks) nt = (unsigned)nchunks;
    int nomem = 0;
    (void)nt;
#if defined(CUZK_HAVE_OPENMP)
#pragma omp parallel num_threads(nt) if (nt > 1)
#endif
    {
        FB_S(jac) *work = malloc(FB_CHUNK * sizeof(FB_S(jac)));
        CUZK__FE *scratch = malloc(FB_CHUNK * sizeof(CUZK__FE));
        int ok = work != NULL && scratch != NULL;
        if (!ok) {
#if defined(CUZK_HAVE_OPENMP)
#pragma omp atomic write
#endif
            nomem = 1;
        }
#if defined(CUZK_HAVE_OPENMP)
#pragma omp for schedule(dynamic, 1)
#endif
        for (size_t ch = 0; ch < nchunks; ch++) {
            if (!ok) continue; /* as in init: every thread reaches the loop */
            size_t lo = ch * FB_CHUNK, m = n - lo < FB_CHUNK ? n - lo : FB_CHUNK;
            for (size_t i = 0; i < m; i++) {
                uint64_t plain[4];
                const uint64_t *ki = plain;
                if (k != NULL)
                    ki = k[lo + i];
                else
                    cuzk_fr_to_limbs(plain, &kfr[lo + i]);
                CUZK__EC(fixed_base_mul_var)(t, &work[i], ki);
            }
            CUZK__EC(jac_batch_to_aff_var)(&out[lo], work, m, scratch);
        }
        free(work);
        free(scratch);
    }
    return nomem ? CUZK_ERR_NOMEM : CUZK_OK;
}

cuzk_status CUZK__EC(fixed_base_mul_batch_var)(const FB_S(tbl) *t, FB_S(aff) *out,
                                               const uint64_t (*k)[4], size_t n, unsigned threads) {
    if (n > 0 && k == NULL) return CUZK_ERR_INVALID_ARG;
    return FB_S(mul_batch)(t, out, k, NULL, n, threads);
}

cuzk_status CUZK__EC(fixed_base_mul_batch_fr_var)(const FB_S(tbl) *t, FB_S(aff) *out,
                                                  const cuzk_fr *k, size_t n, unsigned threads) {
    if (n > 0 && k == NULL) return CUZK_ERR_INVALID_ARG;
    return FB_S(mul_batch)(t, out, NULL, k, n, threads);
}

#undef FB_CHUNK
