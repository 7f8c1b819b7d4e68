/*
 * groth16_cmd.c — the snarkjs-compatible subcommands, clients of the public
 * API (include/cuzk.h):
 *   cuzk groth16 prove  circuit.zkey witness.wtns proof.json public.json
 *   cuzk groth16 verify verification_key.json public.json proof.json
 *   cuzk zkey export verificationkey circuit.zkey verification_key.json
 *   cuzk wtns check circuit.r1cs witness.wtns
 * Arguments are those of snarkjs and rapidsnark. Exit status: 0 success (a
 * valid proof for verify), 1 invalid proof or unsatisfied witness, 2 usage or
 * input error (a corrupt key included); errors are one line on stderr naming
 * the file and the reason.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "cuzk.h"
#include "io/r1cs.h"
#include "io/wtns.h"
#include "opt.h"

#define EXIT_ERROR 2

/*
 * The circuit of a key, when it lies next to it: X.zkey, X_0001.zkey or
 * X_final.zkey -> X.r1cs (circom and snarkjs tutorials name files so).
 */
static int find_r1cs(char *out, size_t cap, const char *zkey_path) {
    size_t len = strlen(zkey_path);
    if (len < 5 || len + 1 > cap || strcmp(zkey_path + len - 5, ".zkey") != 0) return 0;
    size_t stem = len - 5;
    for (int attempt = 0; attempt < 2; attempt++) {
        memcpy(out, zkey_path, stem);
        memcpy(out + stem, ".r1cs", 6);
        if (access(out, R_OK) == 0) return 1;
        /* strip a "_final" or "_<digits>" suffix of the file name and retry */
        const char *slash = strrchr(zkey_path, '/');
        const char *name = slash ? slash + 1 : zkey_path;
        const char *us = NULL;
        for (const char *q = name; q < zkey_path + stem; q++)
            if (*q == '_') us = q;
        if (us == NULL || us == name) return 0;
        stem = (size_t)(us - zkey_path);
    }
    return 0;
}

static int prove_usage(void) {
    fprintf(stderr, "usage: cuzk groth16 prove <circuit.zkey> <witness.wtns> <proof.json> "
                    "<public.json> [--threads N] [--backend cpu|gpu|auto] [--r1cs circuit.r1cs] "
                    "[--verbose]\n");
    return EXIT_ERROR;
}

/*
 * Proves, verifies the proof against the key's own verifying key (the
 * API's self-check: a zkey has no C matrix, so an unsatisfying witness only
 * shows as a proof that fails; snarkjs would write it out silently), then
 * writes proof.json and public.json together.
 */
static int cmd_prove(int argc, char **argv) {
    const char *pos[4] = {NULL, NULL, NULL, NULL};
    const char *r1cs_path = NULL, *backend_name = "auto";
    int n_pos = 0, verbose = 0;
    cuzk_options opt;
    cuzk_options_init(&opt);
    for (int i = 0; i < argc; i++) { /* options may follow the positionals */
        const char *a = argv[i];
        if (strcmp(a, "--backend") == 0 || strcmp(a, "--r1cs") == 0 ||
            strcmp(a, "--threads") == 0) {
            const char *v = cuzk__opt_value("cuzk groth16 prove", argc, argv, &i);
            if (v == NULL) return prove_usage();
            if (a[2] == 'b') backend_name = v;
            else if (a[2] == 'r') r1cs_path = v;
            else if (!cuzk__opt_uint("cuzk groth16 prove", a, v, 0, 4096, &opt.threads))
                return EXIT_ERROR;
        } else if (strcmp(a, "--verbose") == 0 || strcmp(a, "-v") == 0) {
            verbose = 1;
        } else if (a[0] == '-' && a[1] != '\0') {
            cuzk__opt_unknown("cuzk groth16 prove", a);
            return prove_usage();
        } else if (n_pos < 4) {
            pos[n_pos++] = a;
        } else {
            fprintf(stderr, "cuzk groth16 prove: unexpected argument '%s' (four files: key, "
                            "witness, proof, public)\n", a);
            return prove_usage();
        }
    }
    if (n_pos != 4) {
        fprintf(stderr, "cuzk groth16 prove: %d of the four files given\n", n_pos);
        return prove_usage();
    }
    const char *zkey_path = pos[0], *wtns_path = pos[1], *proof_path = pos[2],
               *public_path = pos[3];
    /* outputs neither inputs nor one file, checked before any work */
    const cuzk__cli_files files[] = {{"<proof.json>", &proof_path, 1, 1},
                                     {"<public.json>", &public_path, 1, 1},
                                     {"<circuit.zkey>", &zkey_path, 1, 0},
                                     {"<witness.wtns>", &wtns_path, 1, 0},
                                     {"--r1cs", &r1cs_path, 1, 0}};
    if (!cuzk__cli_files_ok("groth16 prove", files, sizeof(files) / sizeof(files[0])))
        return EXIT_ERROR;
    if (!cuzk__cli_backend_kind("groth16 prove", backend_name, &opt.backend)) return EXIT_ERROR;

    cuzk_error err;
    memset(&err, 0, sizeof(err));
    cuzk_context *ctx = NULL;
    cuzk_key *key = NULL;
    uint8_t *pub = NULL;
    char *proof_json = NULL, *public_json = NULL;
    size_t proof_len = 0, public_len = 0;
    int rc = EXIT_ERROR;
    if (cuzk_context_create(&ctx, &opt, &err) != CUZK_OK ||
        cuzk_key_open_zkey(ctx, &key, zkey_path, &err) != CUZK_OK)
        goto out;
    /* the circuit names a failing constraint: --r1cs must be readable and the
     * key's; one found beside the key is used only when it is */
    char guessed[4096];
    if (r1cs_path != NULL) {
        if (cuzk_key_attach_r1cs(key, r1cs_path, &err) != CUZK_OK) goto out;
    } else if (find_r1cs(guessed, sizeof(guessed), zkey_path)) {
        cuzk_error ignored;
        if (cuzk_key_attach_r1cs(key, guessed, &ignored) != CUZK_OK) {
            /* not the key's circuit: failures are reported without it */
        }
    }
    cuzk_key_info info;
    cuzk_key_get_info(key, &info);
    pub = malloc(info.n_public * CUZK_SCALAR_BYTES + 1);
    if (pub == NULL) {
        snprintf(err.msg, sizeof(err.msg), "no memory for %llu public inputs",
                 (unsigned long long)info.n_public);
        err.status = CUZK_ERR_NOMEM;
        goto out;
    }
    cuzk_proof proof;
    cuzk_proof_times t;
    const cuzk_witness_input w = {.path = wtns_path};
    if (cuzk_prove(key, &proof, pub, &t, &w, &err) != CUZK_OK) {
        const size_t m = strlen(err.msg);
        if (m + 20 < sizeof(err.msg)) memcpy(err.msg + m, "; no proof written", 19);
        goto out;
    }
    if (cuzk_proof_to_json(&proof_json, &proof_len, &proof, &err) != CUZK_OK ||
        cuzk_public_to_json(&public_json, &public_len, pub, info.n_public, &err) != CUZK_OK)
        goto out;
    const cuzk_output outs[2] = {{proof_path, proof_json, proof_len},
                                 {public_path, public_json, public_len}};
    if (cuzk_files_write(outs, 2, &err) != CUZK_OK) goto out;
    if (verbose)
        fprintf(stderr,
                "cuzk groth16 prove: %s: %llu variables, domain 2^%u, %s: %.1f ms (a,b,c %.1f, "
                "H %.1f, MSM H %.1f, MSMs A/B1/C %.1f, MSM B2 %.1f, finish %.1f, self-check "
                "%.1f)\n",
                zkey_path, (unsigned long long)info.n_vars, info.domain_log,
                info.backend == CUZK_BACKEND_GPU ? "GPU" : "CPU", t.total_ms, t.abc_ms, t.ntt_ms,
                t.msm_h_ms, t.prep_ms + t.batch_add_ms + t.tail_msm_ms, t.b_g2_msm_ms,
                t.finish_ms, t.self_check_ms);
    rc = 0;
out:
    cuzk_free(proof_json);
    cuzk_free(public_json);
    free(pub);
    cuzk_key_release(key);
    cuzk_context_destroy(ctx);
    return rc == 0 ? 0 : cuzk__cli_fail("groth16 prove", &err);
}

static int cmd_verify(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: cuzk groth16 verify <verification_key.json> <public.json> "
                        "<proof.json>\n");
        return EXIT_ERROR;
    }
    cuzk_error err;
    memset(&err, 0, sizeof(err));
    cuzk_vk *vk = NULL;
    cuzk_proof proof;
    uint8_t *pub = NULL;
    size_t n_pub = 0;
    int rc = EXIT_ERROR;
    if (cuzk_vk_read(&vk, argv[0], &err) != CUZK_OK ||
        cuzk_public_read_json(&pub, &n_pub, argv[1], &err) != CUZK_OK ||
        cuzk_proof_read_json(&proof, argv[2], &err) != CUZK_OK ||
        cuzk_verify(vk, &proof, pub, n_pub, &err) != CUZK_OK)
        goto out;
    printf("OK: the proof is valid\n");
    rc = 0;
out:
    cuzk_free(pub);
    cuzk_vk_free(vk);
    return rc == 0 ? 0 : cuzk__cli_fail("groth16 verify", &err);
}

int cuzk__cmd_groth16(int argc, char **argv) {
    if (argc >= 1 && strcmp(argv[0], "prove") == 0) return cmd_prove(argc - 1, argv + 1);
    if (argc >= 1 && strcmp(argv[0], "verify") == 0) return cmd_verify(argc - 1, argv + 1);
    fprintf(stderr, "usage: cuzk groth16 prove|verify ...\n");
    return EXIT_ERROR;
}

int cuzk__cmd_zkey(int argc, char **argv) {
    if (argc != 4 || strcmp(argv[0], "export") != 0 || strcmp(argv[1], "verificationkey") != 0) {
        fprintf(stderr,
                "usage: cuzk zkey export verificationkey <circuit.zkey> <verification_key.json>\n");
        return EXIT_ERROR;
    }
    const char *zkey_path = argv[2], *vk_path = argv[3];
    const cuzk__cli_files files[] = {{"<verification_key.json>", &vk_path, 1, 1},
                                     {"<circuit.zkey>", &zkey_path, 1, 0}};
    if (!cuzk__cli_files_ok("zkey export verificationkey", files, 2)) return EXIT_ERROR;
    cuzk_error err;
    memset(&err, 0, sizeof(err));
    cuzk_options opt;
    cuzk_options_init(&opt);
    opt.backend = CUZK_BACKEND_CPU; /* nothing is proved: no device to bring up */
    cuzk_context *ctx = NULL;
    cuzk_key *key = NULL;
    cuzk_vk *vk = NULL;
    char *json = NULL;
    size_t len = 0;
    int rc = EXIT_ERROR;
    if (cuzk_context_create(&ctx, &opt, &err) != CUZK_OK ||
        cuzk_key_open_zkey(ctx, &key, zkey_path, &err) != CUZK_OK ||
        cuzk_vk_from_key(&vk, key, &err) != CUZK_OK ||
        cuzk_vk_to_json(&json, &len, vk, &err) != CUZK_OK)
        goto out;
    const cuzk_output out = {vk_path, json, len};
    if (cuzk_files_write(&out, 1, &err) != CUZK_OK) goto out;
    rc = 0;
out:
    cuzk_free(json);
    cuzk_vk_free(vk);
    cuzk_key_release(key);
    cuzk_context_destroy(ctx);
    return rc == 0 ? 0 : cuzk__cli_fail("zkey export verificationkey", &err);
}

/* A check of a witness against its circuit, no proof: the r1cs reader's. */
int cuzk__cmd_wtns(int argc, char **argv) {
    if (argc != 3 || strcmp(argv[0], "check") != 0) {
        fprintf(stderr, "usage: cuzk wtns check <circuit.r1cs> <witness.wtns>\n");
        return EXIT_ERROR;
    }
    cuzk_error err;
    memset(&err, 0, sizeof(err));
    cuzk_r1cs r;
    cuzk_wtns w;
    memset(&r, 0, sizeof(r));
    memset(&w, 0, sizeof(w));
    int rc = EXIT_ERROR;
    if (cuzk_r1cs_open(&r, argv[1], &err) != CUZK_OK) goto out;
    if (cuzk_wtns_open(&w, argv[2], &err) != CUZK_OK) goto out;
    if (cuzk_r1cs_check_witness(&r, w.values, w.n_witness, argv[2], NULL, &err) != CUZK_OK)
        goto out;
    printf("OK: %s satisfies all %u constraints of %s\n", argv[2], r.n_constraints, argv[1]);
    rc = 0;
out:
    cuzk_wtns_close(&w);
    cuzk_r1cs_close(&r);
    return rc == 0 ? 0 : cuzk__cli_fail("wtns check", &err);
}
