/*
 * prove.c — the Groth16 prover for snarkjs keys, split as prove_start (all
 * heavy work: witness products, H, the five MSMs) and prove_finish (assembly
 * with the secret blinding scalars r, s), the split the engine and the GPU
 * backend reuse.
 *
 * Scalars: the witness arrives plain (.wtns); the key's coefficients are
 * v*R^2, so one Montgomery product with a plain witness value gives v*w in
 * Montgomery form (doc/formats.md, zkey coefficients). a, b, c and H are
 * Montgomery; H is converted to plain limbs for its MSM; the witness MSMs use
 * the witness as is.
 */
#include "groth16/groth16.h"
#include "util/clock.h"

#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "poly/h.h"
#include "util/mem.h"
#include "msm/msm.h"
#include "poly/ntt.h"

cuzk_status cuzk_groth16_random_scalar(uint64_t out[4], cuzk_error *err) {
    static const uint64_t r[4] = CUZK__FR_R;
    for (int tries = 0; tries < 1000; tries++) {
        uint64_t k[4];
        size_t got = 0;
        while (got < sizeof(k)) {
            ssize_t n = getrandom((uint8_t *)k + got, sizeof(k) - got, 0);
            if (n < 0)
                return cuzk__fail(err, CUZK_ERR_IO, "the OS random source (getrandom) failed");
            got += (size_t)n;
        }
        k[3] &= 0x7fffffffffffffffULL; /* r < 2^255: rejection sampling keeps it uniform */
        if (cuzk__lt_n(k, r, 4) && !cuzk__is_zero_n(k, 4)) {
            memcpy(out, k, sizeof(k));
            return CUZK_OK;
        }
    }
    return cuzk__fail(err, CUZK_ERR_IO, "the OS random source returned no usable scalar");
}

cuzk_status cuzk_groth16_vk_from_zkey(cuzk_groth16_vk *vk, const cuzk_zkey *zk,
                                      cuzk_error *err) {
    memset(vk, 0, sizeof(*vk));
    vk->ic = malloc(sizeof(cuzk_g1_aff) * ((size_t)zk->n_public + 1));
    if (vk->ic == NULL)
        return cuzk__fail(err, CUZK_ERR_NOMEM, "%s: no memory for %u IC points", zk->file.path,
                          zk->n_public + 1);
    memcpy(vk->ic, zk->ic.p, sizeof(cuzk_g1_aff) * ((size_t)zk->n_public + 1));
    vk->n_public = zk->n_public;
    vk->alpha1 = zk->alpha1;
    vk->beta2 = zk->beta2;
    vk->gamma2 = zk->gamma2;
    vk->delta2 = zk->delta2;
    return CUZK_OK;
}

/* a[row] += v*w and b[row] += v*w over the coefficient records (serial: the
 * records come in no particular order and may repeat a (matrix, row)). The
 * records are read from the key's mapping, checked when it opened; each
 * index is checked again here, since the file may have been rewritten in
 * place since (two compares against a write out of bounds). */
static cuzk_status witness_products(cuzk_fr *a, cuzk_fr *b, const cuzk_zkey *zk,
                                    const uint64_t (*w)[4], cuzk_error *err) {
    for (uint32_t i = 0; i < zk->n_coefs; i++) {
        cuzk_zkey_coef rec;
        cuzk_zkey_coef_get(zk, i, &rec);
        if (rec.signal >= zk->n_vars || rec.constraint >= zk->domain_size || rec.matrix > 1)
            return cuzk__fail(err, CUZK_ERR_KEY_CORRUPT,
                              "%s: coefficient %u (matrix %u, row %u, signal %u) is out of "
                              "range: the file changed after it was opened?",
                              zk->file.path, i, rec.matrix, rec.constraint, rec.signal);
        cuzk_fr v, x;
        memcpy(v.l, rec.value, sizeof(v.l));
        memcpy(x.l, w[rec.signal], sizeof(x.l));
        cuzk_fr_mul(&x, &v, &x); /* (v R^2)(w) R^-1 = (v w) R */
        cuzk_fr *dst = rec.matrix == 0 ? &a[rec.constraint] : &b[rec.constraint];
        cuzk_fr_add(dst, dst, &x);
    }
    return CUZK_OK;
}

cuzk_status cuzk__groth16_zkey_abc(const cuzk_zkey *zk, const uint64_t (*witness)[4],
                                   size_t n_witness, cuzk_fr *abc, cuzk_error *err) {
    static const uint64_t r_limbs[4] = CUZK__FR_R;
    if (n_witness != zk->n_vars)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                          "witness has %zu values, the key %s expects %u (nVars)", n_witness,
                          zk->file.path, zk->n_vars);
    static const uint64_t one[4] = {1, 0, 0, 0};
    if (n_witness == 0 || memcmp(witness[0], one, sizeof(one)) != 0)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                          "witness value 0 must be 1 (the constant signal)");
    for (size_t i = 0; i < n_witness; i++)
        if (!cuzk__lt_n(witness[i], r_limbs, 4))
            return cuzk__fail(err, CUZK_ERR_NOT_CANONICAL,
                              "witness value %zu is not below the group order r", i);
    if (zk->root != CUZK_NTT_ROOT5 || zk->h_kind != CUZK_H_ODD_COSET_LAGRANGE)
        return cuzk__fail(err, CUZK_ERR_UNSUPPORTED,
                          "%s: only snarkjs keys (root 5^t, odd-coset H) are proved here",
                          zk->file.path);
    const size_t n = zk->domain_size;
    cuzk_fr *a = abc, *b = abc + n, *c = abc + 2 * n;
    memset(abc, 0, 3 * n * sizeof(cuzk_fr));
    const cuzk_status st = witness_products(a, b, zk, witness, err);
    if (st != CUZK_OK) return st;
    for (size_t i = 0; i < n; i++) cuzk_fr_mul(&c[i], &a[i], &b[i]);
    return CUZK_OK;
}

cuzk_status cuzk_groth16_prove_start_zkey(cuzk_groth16_partial *out, const cuzk_zkey *zk,
                                          const uint64_t (*witness)[4], size_t n_witness,
                                          unsigned threads, cuzk_error *err) {
    const double t0 = cuzk__now_ms();
    cuzk_status st = CUZK_OK;
    memset(out, 0, sizeof(*out));
    cuzk__error_clear(err);

    const size_t n = zk->domain_size;
    cuzk_ntt_domain dom;
    memset(&dom, 0, sizeof(dom));
    cuzk_fr *abc = cuzk__alloc_large(3 * n * sizeof(cuzk_fr));
    uint64_t(*h_plain)[4] = cuzk__alloc_large(n * sizeof(*h_plain));
    if (abc == NULL || h_plain == NULL) {
        st = cuzk__fail(err, CUZK_ERR_NOMEM, "no memory for the %zu-point domain vectors", n);
        goto done;
    }
    cuzk_fr *a = abc, *b = abc + n, *c = abc + 2 * n;

    double t = cuzk__now_ms();
    st = cuzk__groth16_zkey_abc(zk, witness, n_witness, abc, err);
    out->t.abc_ms = cuzk__now_ms() - t;
    if (st != CUZK_OK) goto done;

    t = cuzk__now_ms();
    if ((st = cuzk_ntt_domain_init(&dom, zk->log_domain_size, CUZK_NTT_ROOT5)) != CUZK_OK) {
        cuzk__fail(err, st, "cannot set up the 2^%u NTT domain", zk->log_domain_size);
        goto done;
    }
    if ((st = cuzk_h_snarkjs(&dom, a, b, c, n)) != CUZK_OK) {
        cuzk__fail(err, st, "H computation failed");
        goto done;
    }
    for (size_t i = 0; i < n; i++) cuzk_fr_to_limbs(h_plain[i], &a[i]);
    out->t.ntt_ms = cuzk__now_ms() - t;

    /* The witness MSMs see mostly 0/1 scalars in circuits built from bits:
     * classify, batch-add the ones, Pippenger over the rest. */
    cuzk_msm_counts counts;
    t = cuzk__now_ms();
    st = cuzk_g1_msm_with_classification_var(&out->msm_a, &counts, zk->a.p, witness, n_witness,
                                             threads);
    out->t.msm_a_ms = cuzk__now_ms() - t;
    if (st != CUZK_OK) goto msm_failed;
    t = cuzk__now_ms();
    st = cuzk_g1_msm_with_classification_var(&out->msm_b1, &counts, zk->b1.p, witness,
                                             n_witness, threads);
    out->t.msm_b1_ms = cuzk__now_ms() - t;
    if (st != CUZK_OK) goto msm_failed;
    t = cuzk__now_ms();
    st = cuzk_g2_msm_with_classification_var(&out->msm_b2, &counts, zk->b2.p, witness,
                                             n_witness, threads);
    out->t.msm_b2_ms = cuzk__now_ms() - t;
    if (st != CUZK_OK) goto msm_failed;
    cuzk_g1_jac msm_c, msm_h;
    t = cuzk__now_ms();
    const size_t first_private = (size_t)zk->n_public + 1;
    st = cuzk_g1_msm_with_classification_var(&msm_c, &counts, zk->c.p, witness + first_private,
                                             n_witness - first_private, threads);
    out->t.msm_c_ms = cuzk__now_ms() - t;
    if (st != CUZK_OK) goto msm_failed;
    t = cuzk__now_ms();
    st = cuzk_g1_msm_var(&msm_h, zk->h.p, (const uint64_t(*)[4])h_plain, n, NULL, threads, NULL);
    out->t.msm_h_ms = cuzk__now_ms() - t;
    if (st != CUZK_OK) goto msm_failed;
    cuzk_g1_jac_add_var(&out->msm_ch, &msm_c, &msm_h);

    out->alpha1 = zk->alpha1;
    out->beta1 = zk->beta1;
    out->delta1 = zk->delta1;
    out->beta2 = zk->beta2;
    out->delta2 = zk->delta2;
    goto done;

msm_failed:
    cuzk__fail(err, st, "multi-scalar multiplication failed: %s", cuzk_strerror(st));
done:
    cuzk_ntt_domain_free(&dom);
    free(abc);
    free(h_plain);
    out->t.total_ms = cuzk__now_ms() - t0;
    return st;
}

void cuzk_groth16_prove_finish(cuzk_groth16_proof *proof, cuzk_groth16_partial *p,
                               const uint64_t r[4], const uint64_t s[4]) {
    const double t0 = cuzk__now_ms();
    cuzk_g1_jac acc, term, delta1, pa;
    cuzk_g2_jac acc2, term2, delta2;
    cuzk_fr rf, sf;
    uint64_t rs[4];

    /* rs = r*s mod r */
    cuzk_fr_from_limbs(&rf, r);
    cuzk_fr_from_limbs(&sf, s);
    cuzk_fr_mul(&rf, &rf, &sf);
    cuzk_fr_to_limbs(rs, &rf);

    cuzk_g1_aff_to_jac(&delta1, &p->delta1);
    cuzk_g2_aff_to_jac(&delta2, &p->delta2);

    /* A = alpha1 + msm_a + r delta1 */
    cuzk_g1_jac_add_aff(&acc, &p->msm_a, &p->alpha1);
    cuzk_g1_jac_mul(&term, &delta1, r, 4);
    cuzk_g1_jac_add(&pa, &acc, &term);
    cuzk_g1_jac_to_aff(&proof->a, &pa);

    /* B = beta2 + msm_b2 + s delta2 */
    cuzk_g2_jac_add_aff(&acc2, &p->msm_b2, &p->beta2);
    cuzk_g2_jac_mul(&term2, &delta2, s, 4);
    cuzk_g2_jac_add(&acc2, &acc2, &term2);
    cuzk_g2_jac_to_aff(&proof->b, &acc2);

    /* C = msm_ch + s A + r B1' - r s delta1, B1' = beta1 + msm_b1 + s delta1 */
    cuzk_g1_jac b1;
    cuzk_g1_jac_add_aff(&b1, &p->msm_b1, &p->beta1);
    cuzk_g1_jac_mul(&term, &delta1, s, 4);
    cuzk_g1_jac_add(&b1, &b1, &term);
    cuzk_g1_jac_mul(&acc, &pa, s, 4);
    cuzk_g1_jac_add(&acc, &acc, &p->msm_ch);
    cuzk_g1_jac_mul(&term, &b1, r, 4);
    cuzk_g1_jac_add(&acc, &acc, &term);
    cuzk_g1_jac_mul(&term, &delta1, rs, 4);
    cuzk_g1_jac_neg(&term, &term);
    cuzk_g1_jac_add(&acc, &acc, &term);
    cuzk_g1_jac_to_aff(&proof->c, &acc);

    p->t.finish_ms = cuzk__now_ms() - t0;
    p->t.total_ms += p->t.finish_ms;
}
