/*
 * fuzz_json.c — libFuzzer target for the JSON reader/writer (src/io/json.h)
 * and the snarkjs JSON files (src/groth16/snarkjs_json.h).
 *
 * Input layout: byte 0 selects, the rest is the document.
 *   sel % 5   0 any JSON: cuzk_json_parse
 *             1 proof.json, 2 public.json, 3 verification_key.json
 *             4 one decimal field element (Fp when sel & 0x10, else Fr)
 * Properties checked (abort on violation, so libFuzzer reports a crash):
 *   - the status is a known one and a failure leaves a message and no tree;
 *   - an accepted document, written back (compact and indented), parses
 *     again and writes back to the same bytes (the writer's output is
 *     always valid JSON, and parse/write is a fixed point after one trip);
 *   - an accepted proof/public/vk file, formatted, reads back to the same
 *     values and formats to the same bytes;
 *   - an accepted decimal string prints back to exactly its input bytes
 *     (one canonical text per value).
 * ASan/LSan (the fuzz build) catch overruns and leaks.
 *
 * fuzz/replay_main.c turns this file into a corpus replayer for any compiler.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/json.h"
#include "groth16/snarkjs_json.h"
#include "fuzz_common.h"

#define SEL_JSON 0u
#define SEL_PROOF 1u
#define SEL_PUBLIC 2u
#define SEL_VK 3u
#define SEL_DECIMAL 4u
#define SEL_FP 0x10u

static void check_failure(cuzk_status st, const cuzk_error *err) {
    FUZZ_ASSERT((unsigned)st < CUZK_STATUS_COUNT);
    FUZZ_ASSERT(err->status == st && err->msg[0] != '\0');
}

static char *write_tree(const cuzk_json *root, unsigned indent, size_t *len) {
    cuzk_json_writer w;
    char *out = NULL;
    cuzk_json_writer_init(&w, indent);
    cuzk_json_write_tree(&w, root);
    FUZZ_ASSERT(cuzk_json_writer_finish(&w, &out, len) == CUZK_OK);
    return out;
}

static void fuzz_json(const char *in, size_t len) {
    cuzk_json *root = (cuzk_json *)1;
    cuzk_error err;
    cuzk__error_clear(&err);
    cuzk_status st = cuzk_json_parse(&root, in, len, NULL, &err);
    if (st != CUZK_OK) {
        check_failure(st, &err);
        FUZZ_ASSERT(root == NULL);
        return;
    }
    for (unsigned indent = 0; indent < 2; indent++) {
        size_t l1, l2;
        char *t1 = write_tree(root, indent, &l1);
        cuzk_json *again = NULL;
        FUZZ_ASSERT(cuzk_json_parse(&again, t1, l1, NULL, &err) == CUZK_OK);
        char *t2 = write_tree(again, indent, &l2);
        FUZZ_ASSERT(l1 == l2 && memcmp(t1, t2, l1) == 0);
        cuzk_json_free(again);
        free(t1);
        free(t2);
    }
    cuzk_json_free(root);
}

static void fuzz_proof(const char *in, size_t len) {
    cuzk_groth16_proof p, q;
    cuzk_error err;
    cuzk_status st = cuzk_snarkjs_proof_parse(&p, in, len, NULL, &err);
    if (st != CUZK_OK) {
        check_failure(st, &err);
        return;
    }
    char *t1, *t2;
    size_t l1, l2;
    FUZZ_ASSERT(cuzk_snarkjs_proof_format(&t1, &l1, &p) == CUZK_OK);
    FUZZ_ASSERT(cuzk_snarkjs_proof_parse(&q, t1, l1, NULL, &err) == CUZK_OK);
    FUZZ_ASSERT(cuzk_g1_aff_eq(&p.a, &q.a) && cuzk_g2_aff_eq(&p.b, &q.b) &&
                cuzk_g1_aff_eq(&p.c, &q.c));
    FUZZ_ASSERT(cuzk_snarkjs_proof_format(&t2, &l2, &q) == CUZK_OK);
    FUZZ_ASSERT(l1 == l2 && memcmp(t1, t2, l1) == 0);
    free(t1);
    free(t2);
}

static void fuzz_public(const char *in, size_t len) {
    cuzk_fr *a = NULL, *b = NULL;
    size_t n = 0, m = 0;
    cuzk_error err;
    cuzk_status st = cuzk_snarkjs_public_parse(&a, &n, in, len, NULL, &err);
    if (st != CUZK_OK) {
        check_failure(st, &err);
        FUZZ_ASSERT(a == NULL && n == 0);
        return;
    }
    char *t;
    size_t l;
    FUZZ_ASSERT(cuzk_snarkjs_public_format(&t, &l, a, n) == CUZK_OK);
    FUZZ_ASSERT(cuzk_snarkjs_public_parse(&b, &m, t, l, NULL, &err) == CUZK_OK);
    FUZZ_ASSERT(m == n);
    for (size_t i = 0; i < n; i++) FUZZ_ASSERT(cuzk_fr_eq(&a[i], &b[i]));
    free(t);
    free(a);
    free(b);
}

static void fuzz_vk(const char *in, size_t len) {
    cuzk_groth16_vk v, w;
    cuzk_error err;
    cuzk_status st = cuzk_snarkjs_vk_parse(&v, in, len, NULL, &err);
    if (st != CUZK_OK) {
        check_failure(st, &err);
        FUZZ_ASSERT(v.ic == NULL);
        return;
    }
    char *t1, *t2;
    size_t l1, l2;
    FUZZ_ASSERT(cuzk_snarkjs_vk_format(&t1, &l1, &v, NULL) == CUZK_OK);
    FUZZ_ASSERT(cuzk_snarkjs_vk_parse(&w, t1, l1, NULL, &err) == CUZK_OK);
    FUZZ_ASSERT(w.n_public == v.n_public);
    FUZZ_ASSERT(cuzk_g1_aff_eq(&v.alpha1, &w.alpha1) && cuzk_g2_aff_eq(&v.beta2, &w.beta2) &&
                cuzk_g2_aff_eq(&v.gamma2, &w.gamma2) && cuzk_g2_aff_eq(&v.delta2, &w.delta2));
    for (size_t i = 0; i <= v.n_public; i++) FUZZ_ASSERT(cuzk_g1_aff_eq(&v.ic[i], &w.ic[i]));
    FUZZ_ASSERT(cuzk_snarkjs_vk_format(&t2, &l2, &w, NULL) == CUZK_OK);
    FUZZ_ASSERT(l1 == l2 && memcmp(t1, t2, l1) == 0);
    free(t1);
    free(t2);
    cuzk_groth16_vk_free(&v);
    cuzk_groth16_vk_free(&w);
}

static void fuzz_decimal(const char *in, size_t len, int fp) {
    cuzk_error err;
    cuzk_status st;
    char out[CUZK_FP_DEC_BYTES];
    size_t n = 0;
    if (fp) {
        cuzk_fp x;
        st = cuzk_fp_from_dec_var(&x, in, len, &err);
        if (st == CUZK_OK) n = cuzk_fp_to_dec_var(out, &x);
    } else {
        cuzk_fr x;
        st = cuzk_fr_from_dec_var(&x, in, len, &err);
        if (st == CUZK_OK) n = cuzk_fr_to_dec_var(out, &x);
    }
    if (st != CUZK_OK) {
        FUZZ_ASSERT(st == CUZK_ERR_BAD_ENCODING || st == CUZK_ERR_NOT_CANONICAL);
        check_failure(st, &err);
        return;
    }
    FUZZ_ASSERT(n == len && memcmp(out, in, len) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size == 0) return 0;
    unsigned sel = data[0];
    /* Copy to an exact-size heap block so ASan sees any read past the end
     * (the readers must not rely on a NUL terminator). */
    size_t len = size - 1;
    char *in = malloc(len ? len : 1);
    if (in == NULL) return 0;
    memcpy(in, data + 1, len);
    switch (sel % 5u) {
    case SEL_JSON: fuzz_json(in, len); break;
    case SEL_PROOF: fuzz_proof(in, len); break;
    case SEL_PUBLIC: fuzz_public(in, len); break;
    case SEL_VK: fuzz_vk(in, len); break;
    default: fuzz_decimal(in, len, (sel & SEL_FP) != 0); break;
    }
    free(in);
    return 0;
}
