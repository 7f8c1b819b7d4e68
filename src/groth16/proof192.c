/* proof192.c — 192-byte bellman proofs, partition concatenations and
 * verification against a bellman verifying key (proof192.h). */
#include "groth16/proof192.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ec/encode.h"

#define A_OFF 0u
#define B_OFF CUZK_G1_COMPRESSED_BYTES
#define C_OFF (CUZK_G1_COMPRESSED_BYTES + CUZK_G2_COMPRESSED_BYTES)

_Static_assert(C_OFF + CUZK_G1_COMPRESSED_BYTES == CUZK_PROOF192_BYTES, "192-byte layout");

void cuzk_proof192_encode(uint8_t out[CUZK_PROOF192_BYTES], const cuzk_groth16_proof *p) {
    cuzk_g1_to_zcash_compressed(out + A_OFF, &p->a);
    cuzk_g2_to_zcash_compressed(out + B_OFF, &p->b);
    cuzk_g1_to_zcash_compressed(out + C_OFF, &p->c);
}

void cuzk_proof192_encode_n(uint8_t *out, const cuzk_groth16_proof *p, size_t n) {
    for (size_t i = 0; i < n; i++) cuzk_proof192_encode(out + i * CUZK_PROOF192_BYTES, &p[i]);
}

static const char *why(cuzk_status st) {
    switch (st) {
    case CUZK_ERR_BAD_ENCODING: return "bad flag bits for a compressed zcash point";
    case CUZK_ERR_NOT_CANONICAL: return "x coordinate not canonical (>= p)";
    case CUZK_ERR_NOT_ON_CURVE: return "no curve point has this x coordinate";
    case CUZK_ERR_NOT_IN_SUBGROUP: return "point not in the prime-order subgroup";
    case CUZK_ERR_POINT_AT_INFINITY: return "the point at infinity (refused in proofs)";
    default: return cuzk_strerror(st);
    }
}

/* prefix is "proof" or "partition i (bytes a..b)". */
static cuzk_status decode_one(cuzk_groth16_proof *p, const uint8_t *in, const char *prefix,
                              cuzk_error *err) {
    cuzk_groth16_proof t;
    cuzk_status st = cuzk_g1_from_zcash(&t.a, in + A_OFF, CUZK_G1_COMPRESSED_BYTES, 0);
    if (st == CUZK_OK && cuzk_g1_aff_is_inf(&t.a)) st = CUZK_ERR_POINT_AT_INFINITY;
    if (st != CUZK_OK)
        return cuzk__fail(err, st, "%s: A (bytes %u..%u): %s", prefix, A_OFF, B_OFF - 1, why(st));
    st = cuzk_g2_from_zcash(&t.b, in + B_OFF, CUZK_G2_COMPRESSED_BYTES, 0);
    if (st == CUZK_OK && cuzk_g2_aff_is_inf(&t.b)) st = CUZK_ERR_POINT_AT_INFINITY;
    if (st != CUZK_OK)
        return cuzk__fail(err, st, "%s: B (bytes %u..%u): %s", prefix, B_OFF, C_OFF - 1, why(st));
    st = cuzk_g1_from_zcash(&t.c, in + C_OFF, CUZK_G1_COMPRESSED_BYTES, 0);
    if (st == CUZK_OK && cuzk_g1_aff_is_inf(&t.c)) st = CUZK_ERR_POINT_AT_INFINITY;
    if (st != CUZK_OK)
        return cuzk__fail(err, st, "%s: C (bytes %u..%u): %s", prefix, C_OFF,
                          CUZK_PROOF192_BYTES - 1, why(st));
    *p = t;
    return CUZK_OK;
}

cuzk_status cuzk_proof192_decode(cuzk_groth16_proof *p, const uint8_t in[CUZK_PROOF192_BYTES],
                                 cuzk_error *err) {
    cuzk__error_clear(err);
    if (p == NULL || in == NULL)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "cuzk_proof192_decode: NULL argument");
    return decode_one(p, in, "proof", err);
}

static void partition_prefix(char *buf, size_t cap, size_t i) {
    snprintf(buf, cap, "partition %zu (bytes %zu..%zu)", i, i * CUZK_PROOF192_BYTES,
             (i + 1) * CUZK_PROOF192_BYTES - 1);
}

static cuzk_status check_len(size_t len, size_t expect_n, bool fixed, cuzk_error *err) {
    if (fixed) {
        if (expect_n > SIZE_MAX / CUZK_PROOF192_BYTES || len != expect_n * CUZK_PROOF192_BYTES)
            return cuzk__fail(err, CUZK_ERR_BAD_LENGTH,
                              "proofs: %zu bytes, expected %zu partitions x %u = %zu", len,
                              expect_n, CUZK_PROOF192_BYTES,
                              expect_n <= SIZE_MAX / CUZK_PROOF192_BYTES
                                  ? expect_n * CUZK_PROOF192_BYTES
                                  : SIZE_MAX);
        return CUZK_OK;
    }
    if (len == 0 || len % CUZK_PROOF192_BYTES != 0)
        return cuzk__fail(err, CUZK_ERR_BAD_LENGTH,
                          "proofs: %zu bytes is not a positive multiple of %u (one 192-byte "
                          "proof per partition)",
                          len, CUZK_PROOF192_BYTES);
    return CUZK_OK;
}

cuzk_status cuzk_proof192_decode_n(cuzk_groth16_proof **out, size_t *n, const uint8_t *in,
                                   size_t len, cuzk_error *err) {
    cuzk__error_clear(err);
    if (out == NULL || n == NULL)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "cuzk_proof192_decode_n: NULL argument");
    *out = NULL;
    *n = 0;
    cuzk_status st = check_len(len, 0, false, err);
    if (st != CUZK_OK) return st;
    if (in == NULL) return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "proofs: NULL buffer");
    size_t cnt = len / CUZK_PROOF192_BYTES;
    cuzk_groth16_proof *v = malloc(cnt * sizeof(*v));
    if (v == NULL)
        return cuzk__fail(err, CUZK_ERR_NOMEM, "proofs: out of memory for %zu proofs", cnt);
    for (size_t i = 0; i < cnt; i++) {
        char prefix[96];
        partition_prefix(prefix, sizeof(prefix), i);
        if ((st = decode_one(&v[i], in + i * CUZK_PROOF192_BYTES, prefix, err)) != CUZK_OK) {
            free(v);
            return st;
        }
    }
    *out = v;
    *n = cnt;
    return CUZK_OK;
}

cuzk_status cuzk_groth16_vk_from_params(cuzk_groth16_vk *out, const cuzk_params_vk *vk,
                                        cuzk_error *err) {
    cuzk__error_clear(err);
    memset(out, 0, sizeof(*out));
    if (vk->n_ic == 0 || vk->ic == NULL)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                          "verifying key: IC is empty; it needs the point for the constant 1");
    if (vk->n_ic > SIZE_MAX / sizeof(cuzk_g1_aff))
        return cuzk__fail(err, CUZK_ERR_NOMEM, "verifying key: IC too large");
    out->ic = malloc((size_t)vk->n_ic * sizeof(cuzk_g1_aff));
    if (out->ic == NULL)
        return cuzk__fail(err, CUZK_ERR_NOMEM, "verifying key: out of memory for %llu IC points",
                          (unsigned long long)vk->n_ic);
    memcpy(out->ic, vk->ic, (size_t)vk->n_ic * sizeof(cuzk_g1_aff));
    out->alpha1 = vk->alpha1;
    out->beta2 = vk->beta2;
    out->gamma2 = vk->gamma2;
    out->delta2 = vk->delta2;
    out->n_public = (size_t)(vk->n_ic - 1);
    return CUZK_OK;
}

cuzk_status cuzk_proof192_verify_partitions(const cuzk_groth16_vk *vk, const uint8_t *proofs,
                                            size_t len, const uint64_t (*inputs)[4],
                                            size_t n_public, size_t n_partitions, size_t *failed,
                                            cuzk_error *err) {
    cuzk__error_clear(err);
    if (failed != NULL) *failed = n_partitions;
    if (vk == NULL || (proofs == NULL && len != 0) || (inputs == NULL && n_public != 0))
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                          "cuzk_proof192_verify_partitions: NULL argument");
    if (n_partitions == 0)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "proofs: no partitions to verify");
    cuzk_status st = check_len(len, n_partitions, true, err);
    if (st != CUZK_OK) return st;
    for (size_t i = 0; i < n_partitions; i++) {
        cuzk_error inner;
        cuzk__error_clear(&inner);
        cuzk_groth16_proof p;
        char prefix[96];
        partition_prefix(prefix, sizeof(prefix), i);
        st = decode_one(&p, proofs + i * CUZK_PROOF192_BYTES, prefix, &inner);
        if (st == CUZK_OK) {
            st = cuzk_groth16_verify(vk, inputs + i * n_public, n_public, &p, &inner);
            if (st != CUZK_OK) {
                if (failed != NULL) *failed = i;
                return cuzk__fail(err, st, "partition %zu: %s", i, cuzk__error_text(&inner));
            }
            continue;
        }
        if (failed != NULL) *failed = i;
        return cuzk__fail(err, st, "%s", cuzk__error_text(&inner)); /* already names it */
    }
    return CUZK_OK;
}
