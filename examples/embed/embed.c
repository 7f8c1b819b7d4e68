/*
 * embed.c — prove and verify with libcuzk: a snarkjs key and witness in,
 * a checked proof and its public inputs out as snarkjs JSON.
 *
 *   embed circuit.zkey witness.wtns verification_key.json proof.json public.json
 */
#include <stdio.h>
#include <stdlib.h>

#include <cuzk.h>

static int fail(const char *what, const cuzk_error *err) {
    fprintf(stderr, "embed: %s: %s\n", what, cuzk_error_text(err));
    return 1;
}

int main(int argc, char **argv) {
    if (argc != 6) {
        fprintf(stderr, "usage: embed KEY.zkey WITNESS.wtns VK.json PROOF.json PUBLIC.json\n");
        return 2;
    }
    cuzk_error err;
    cuzk_context *ctx = NULL;
    cuzk_key *key = NULL;
    cuzk_vk *vk = NULL;
    if (cuzk_context_create(&ctx, NULL, &err) != CUZK_OK) return fail("context", &err);
    if (cuzk_key_open_zkey(ctx, &key, argv[1], &err) != CUZK_OK) return fail("key", &err);

    cuzk_key_info info;
    cuzk_key_get_info(key, &info);
    uint8_t *pub = malloc(info.n_public * CUZK_SCALAR_BYTES + 1);
    cuzk_proof proof;
    const cuzk_witness_input w = {.path = argv[2]};
    if (pub == NULL || cuzk_prove(key, &proof, pub, NULL, &w, &err) != CUZK_OK)
        return fail("prove", &err);

    /* verify against the verifying key snarkjs exported, then write JSON */
    if (cuzk_vk_read(&vk, argv[3], &err) != CUZK_OK) return fail("vk", &err);
    if (cuzk_verify(vk, &proof, pub, info.n_public, &err) != CUZK_OK) return fail("verify", &err);
    char *proof_json = NULL, *public_json = NULL;
    size_t proof_len = 0, public_len = 0;
    if (cuzk_proof_to_json(&proof_json, &proof_len, &proof, &err) != CUZK_OK ||
        cuzk_public_to_json(&public_json, &public_len, pub, info.n_public, &err) != CUZK_OK)
        return fail("encode", &err);
    const cuzk_output out[2] = {{argv[4], proof_json, proof_len}, {argv[5], public_json, public_len}};
    if (cuzk_files_write(out, 2, &err) != CUZK_OK) return fail("write", &err);
    printf("embed: cuzk %s proved and verified %s (%llu public inputs)\n", cuzk_version(),
           argv[1], (unsigned long long)info.n_public);

    cuzk_free(proof_json);
    cuzk_free(public_json);
    free(pub);
    cuzk_vk_free(vk);
    cuzk_key_release(key);
    cuzk_context_destroy(ctx);
    return 0;
}
