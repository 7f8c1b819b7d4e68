/* verify.c — verifying keys and verification (include/cuzk.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "ff/fr.h"
#include "ff/limbs.h"
#include "groth16/proof192.h"
#include "groth16/snarkjs_json.h"
#include "pairing/pairing.h"
#include "util/readfile.h"

struct cuzk_vk {
    cuzk_groth16_vk vk;
};

static cuzk_status vk_new(cuzk_vk **out, cuzk_error *err) {
    *out = calloc(1, sizeof(**out));
    return *out == NULL ? cuzk__fail(err, CUZK_ERR_NOMEM, "no memory for a verifying key")
                        : CUZK_OK;
}

cuzk_status cuzk_vk_from_key(cuzk_vk **out, const cuzk_key *key, cuzk_error *err) {
    cuzk__error_clear(err);
    if (out == NULL || key == NULL)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "vk_from_key: NULL argument");
    *out = NULL;
    cuzk_vk *v;
    cuzk_status st = vk_new(&v, err);
    if (st != CUZK_OK) return st;
    const cuzk_groth16_vk *src = &key->vk;
    v->vk = *src;
    v->vk.ic = malloc((src->n_public + 1) * sizeof(*src->ic));
    if (v->vk.ic == NULL) {
        free(v);
        return cuzk__fail(err, CUZK_ERR_NOMEM, "no memory for a verifying key");
    }
    memcpy(v->vk.ic, src->ic, (src->n_public + 1) * sizeof(*src->ic));
    *out = v;
    return CUZK_OK;
}

static int ends_with(const char *s, const char *suffix) {
    const size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* A bellman verifying key: a .vk file, or the head of a .params (whose
 * vectors stay in the file). */
static cuzk_status read_bellman(cuzk_groth16_vk *out, const char *path, cuzk_error *err) {
    cuzk_status st;
    if (!ends_with(path, ".params")) {
        cuzk_params_vk pvk;
        memset(&pvk, 0, sizeof(pvk));
        cuzk_error vk_err;
        cuzk__error_clear(&vk_err);
        st = cuzk_params_vk_open(&pvk, path, 0, &vk_err);
        if (st == CUZK_OK) {
            st = cuzk_groth16_vk_from_params(out, &pvk, err);
            cuzk_params_vk_free(&pvk);
            return st;
        }
        /* not a .vk: it may be parameters under another name */
        cuzk_params p;
        memset(&p, 0, sizeof(p));
        if (cuzk_params_open(&p, path, CUZK_PARAMS_DEFER_POINTS, NULL) != CUZK_OK) {
            if (err != NULL) *err = vk_err;
            return st;
        }
        st = cuzk_groth16_vk_from_params(out, &p.vk, err);
        cuzk_params_close(&p);
        return st;
    }
    cuzk_params p;
    memset(&p, 0, sizeof(p));
    if ((st = cuzk_params_open(&p, path, CUZK_PARAMS_DEFER_POINTS, err)) != CUZK_OK) return st;
    st = cuzk_groth16_vk_from_params(out, &p.vk, err);
    cuzk_params_close(&p);
    return st;
}

cuzk_status cuzk_vk_read(cuzk_vk **out, const char *path, cuzk_error *err) {
    cuzk__error_clear(err);
    if (out == NULL || path == NULL)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "vk_read: NULL argument");
    *out = NULL;
    /* JSON starts with '{' after blanks; the bellman forms are binary and
     * start with a point's flag byte */
    char head[64];
    const size_t got = cuzk__file_head(head, sizeof(head), path);
    size_t i = 0;
    while (i < got && (head[i] == ' ' || head[i] == '\t' || head[i] == '\n' || head[i] == '\r'))
        i++;
    const int json = i < got && head[i] == '{';
    cuzk_vk *v;
    cuzk_status st = vk_new(&v, err);
    if (st != CUZK_OK) return st;
    if (json)
        st = cuzk_snarkjs_vk_read(&v->vk, path, err);
    else
        st = read_bellman(&v->vk, path, err);
    if (st != CUZK_OK) {
        free(v);
        return st;
    }
    *out = v;
    return CUZK_OK;
}

size_t cuzk_vk_n_public(const cuzk_vk *vk) { return vk == NULL ? 0 : vk->vk.n_public; }

void cuzk_vk_free(cuzk_vk *vk) {
    if (vk == NULL) return;
    cuzk_groth16_vk_free(&vk->vk);
    free(vk);
}

/* Public inputs from bytes, each checked canonical. */
static cuzk_status pub_from_bytes(uint64_t (**out)[4], const uint8_t *in, size_t n,
                                  cuzk_error *err) {
    static const uint64_t order[4] = CUZK__FR_R;
    *out = malloc((n ? n : 1) * sizeof(**out));
    if (*out == NULL) return cuzk__fail(err, CUZK_ERR_NOMEM, "no memory for %zu public inputs", n);
    for (size_t i = 0; i < n; i++) {
        cuzk__scalar_from_bytes((*out)[i], in + 32 * i);
        if (!cuzk__lt_n((*out)[i], order, 4)) {
            free(*out);
            *out = NULL;
            return cuzk__fail(err, CUZK_ERR_NOT_CANONICAL,
                              "public input %zu is not below the group order r", i);
        }
    }
    return CUZK_OK;
}

cuzk_status cuzk_verify(const cuzk_vk *vk, const cuzk_proof *proof, const uint8_t *public_inputs,
                        size_t n_public, cuzk_error *err) {
    cuzk__error_clear(err);
    if (vk == NULL || proof == NULL || (public_inputs == NULL && n_public != 0))
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "verify: NULL argument");
    if (n_public != vk->vk.n_public) /* before reading that many */
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                          "public inputs: %zu given, the verifying key expects %zu", n_public,
                          vk->vk.n_public);
    cuzk_groth16_proof g;
    cuzk_status st = cuzk_proof192_decode(&g, proof->bytes, err);
    if (st != CUZK_OK) return st;
    uint64_t(*pub)[4] = NULL;
    if ((st = pub_from_bytes(&pub, public_inputs, n_public, err)) != CUZK_OK) return st;
    st = cuzk_groth16_verify(&vk->vk, (const uint64_t(*)[4])pub, n_public, &g, err);
    free(pub);
    return st;
}

cuzk_status cuzk_verify_partitions(const cuzk_vk *vk, size_t *failed, const cuzk_proof *proofs,
                                   size_t n, const uint8_t *public_inputs, size_t n_public,
                                   cuzk_error *err) {
    cuzk__error_clear(err);
    if (failed != NULL) *failed = n;
    if (vk == NULL || proofs == NULL || n == 0 || (public_inputs == NULL && n_public != 0))
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                          "verify_partitions: NULL argument or no partition");
    if (n_public != vk->vk.n_public)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                          "%zu public inputs a partition, the verifying key expects %zu",
                          n_public, vk->vk.n_public);
    if (n_public != 0 && n > SIZE_MAX / 32 / n_public)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "verify_partitions: %zu partitions: too many",
                          n);
    uint64_t(*pub)[4] = NULL;
    cuzk_status st = CUZK_OK;
    for (size_t i = 0; i < n && st == CUZK_OK; i++) { /* each partition's inputs canonical */
        uint64_t(*one)[4] = NULL;
        cuzk_error pe;
        st = pub_from_bytes(&one, public_inputs + i * n_public * 32, n_public, &pe);
        if (st != CUZK_OK) {
            if (failed != NULL) *failed = i;
            return cuzk__fail(err, st, "partition %zu: %s", i, cuzk__error_text(&pe));
        }
        free(one);
    }
    if ((st = pub_from_bytes(&pub, public_inputs, n * n_public, err)) != CUZK_OK) return st;
    st = cuzk_proof192_verify_partitions(&vk->vk, (const uint8_t *)proofs, n * CUZK_PROOF_BYTES,
                                         (const uint64_t(*)[4])pub, n_public, n, failed, err);
    free(pub);
    return st;
}

cuzk_status cuzk_vk_to_json(char **json, size_t *len, const cuzk_vk *vk, cuzk_error *err) {
    cuzk__error_clear(err);
    if (json == NULL || len == NULL || vk == NULL)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "vk_to_json: NULL argument");
    cuzk_fp12 alphabeta;
    cuzk_pairing(&alphabeta, &vk->vk.alpha1, &vk->vk.beta2);
    const cuzk_status st = cuzk_snarkjs_vk_format(json, len, &vk->vk, &alphabeta);
    return st == CUZK_OK ? st : cuzk__fail(err, st, "no memory for verification_key.json");
}
