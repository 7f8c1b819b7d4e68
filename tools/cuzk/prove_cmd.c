/*
 * prove_cmd.c — the bellman / Filecoin-form commands over our circuit files,
 * thin clients of the public API (include/cuzk.h):
 *
 *   cuzk prove --circuit C --params P --witness W0 [W1 ...] -o proof.bin
 *              [--threads N] [--backend cpu|gpu|auto] [--device N | --devices all|N,M,...]
 *              [--vram-limit SIZE] [--lanes N] [--no-verify] [--verbose]
 *     One partition per witness, in the order given: proof.bin is the
 *     N x 192-byte concatenation (cuzk_prove_partitions). Every proof is
 *     verified before anything is written (--no-verify skips that), and the
 *     file is written whole or not at all.
 *
 *   cuzk verify (--vk V | --params P) --inputs IN0 [IN1 ...] proof.bin
 *     Verifies every partition of proof.bin (the LAST file argument),
 *     partition i against the public inputs of INi (cuzk_public_read: one of
 *     our witness files, or text with one input per line).
 *
 * Exit status: 0 success (every partition valid), 1 an invalid proof or an
 * unsatisfied witness, 2 usage or input error (unreadable or malformed
 * files, a corrupt key, counts that disagree). Errors are one line on stderr
 * naming the file and the reason.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "cuzk.h"
#include "opt.h"

#define EXIT_INVALID 1
#define EXIT_ERROR 2

/* A proof file larger than this holds more partitions than anyone proves. */
#define PROOF_FILE_MAX_BYTES ((size_t)1 << 30)

static int is_option(const char *s) { return s[0] == '-' && s[1] != '\0'; }

static void log_line(void *user, const char *line) {
    fprintf(stderr, "cuzk %s: %s\n", (const char *)user, line);
}

/* ---- cuzk prove ---------------------------------------------------------- */

static int prove_usage(FILE *f) {
    fprintf(f,
            "usage: cuzk prove --circuit C --params P --witness W0 [W1 ...] -o proof.bin\n"
            "                  [--threads N] [--backend cpu|gpu|auto] [--device N | --devices "
            "all|N,M,...]\n"
            "                  [--vram-limit SIZE] [--lanes N] [--no-verify] [--verbose]\n"
            "  one 192-byte bellman proof per witness (partition), concatenated in the\n"
            "  order given; every proof is verified before the file is written\n"
            "  (--no-verify skips that). --device picks the GPU (default 0); --devices\n"
            "  proves the partitions on several GPUs at once, each holding its own copy\n"
            "  of the key (a GPU listed twice holds two, overlapping one partition's host\n"
            "  work with the other's kernels). --vram-limit SIZE (e.g. 24G) lets a key\n"
            "  take at most SIZE of each card: the GPU plans it resident, partly resident\n"
            "  or streaming within it (--verbose prints the plan). --lanes N (CPU backend)\n"
            "  proves N partitions at a time, the cores shared among them. Exit 0\n"
            "  written, 1 unsatisfied witness, 2 usage or input error (a corrupt key\n"
            "  included).\n"
            "       cuzk prove --addr A --key K --witness W0 [W1 ...] [-o PROOF] ...\n"
            "  the same through a running `cuzk daemon` (cuzk prove --addr A --help).\n");
    return f == stdout ? 0 : EXIT_ERROR;
}

int cuzk__cmd_prove(int argc, char **argv) {
    /* --addr: the daemon proves (client_cmd.c) */
    for (int i = 0; i < argc; i++)
        if (strcmp(argv[i], "--addr") == 0) return cuzk__client_prove(argc, argv);
    if (argc == 1 && (strcmp(argv[0], "--help") == 0 || strcmp(argv[0], "-h") == 0))
        return prove_usage(stdout);
    const char *circuit_path = NULL, *params_path = NULL, *out_path = NULL;
    const char *backend_name = "auto", *devices_arg = NULL;
    int devices_single = 0, verbose = 0;
    cuzk_options opt;
    cuzk_options_init(&opt);
    const char **wpaths = calloc((size_t)argc + 1, sizeof(char *));
    size_t n_w = 0;
    if (wpaths == NULL) return EXIT_ERROR;
    int rc = EXIT_ERROR;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        const int has = i + 1 < argc;
        if (strcmp(a, "--circuit") == 0 && has) {
            circuit_path = argv[++i];
        } else if (strcmp(a, "--params") == 0 && has) {
            params_path = argv[++i];
        } else if ((strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) && has) {
            out_path = argv[++i];
        } else if (strcmp(a, "--backend") == 0 && has) {
            backend_name = argv[++i];
        } else if ((strcmp(a, "--device") == 0 || strcmp(a, "--devices") == 0) && has) {
            if (devices_arg != NULL) {
                fprintf(stderr, "cuzk prove: give --device or --devices once\n");
                goto out;
            }
            devices_single = strcmp(a, "--device") == 0;
            devices_arg = argv[++i];
        } else if (strcmp(a, "--vram-limit") == 0 && has) {
            if (!cuzk__opt_size("cuzk prove", a, argv[++i], 0, (uint64_t)1 << 50,
                                &opt.device_memory_limit))
                goto out;
        } else if (strcmp(a, "--lanes") == 0 && has) {
            if (!cuzk__opt_uint("cuzk prove", a, argv[++i], 1, CUZK_MAX_LANES, &opt.cpu_lanes))
                goto out;
        } else if (strcmp(a, "--threads") == 0 && has) {
            if (!cuzk__opt_uint("cuzk prove", a, argv[++i], 0, 4096, &opt.threads)) goto out;
        } else if (strcmp(a, "--witness") == 0) {
            while (i + 1 < argc && !is_option(argv[i + 1])) wpaths[n_w++] = argv[++i];
        } else if (strcmp(a, "--no-verify") == 0) {
            opt.self_check = 0;
        } else if (strcmp(a, "--verbose") == 0 || strcmp(a, "-v") == 0) {
            verbose = 1;
        } else {
            if (strcmp(a, "--key") == 0 || strcmp(a, "--witness-path") == 0 ||
                strcmp(a, "--public") == 0 || strcmp(a, "--request-id") == 0)
                fprintf(stderr, "cuzk prove: %s is an option of the daemon's client: give "
                                "--addr A too\n", a);
            else if (!has && a[0] == '-' && strcmp(a, "--witness") != 0)
                fprintf(stderr, "cuzk prove: %s needs a value\n", a);
            else
                fprintf(stderr, "cuzk prove: unexpected argument '%s'\n", a);
            prove_usage(stderr);
            goto out;
        }
    }
    if (circuit_path == NULL || params_path == NULL || out_path == NULL || n_w == 0) {
        fprintf(stderr, "cuzk prove: missing %s\n",
                circuit_path == NULL ? "--circuit" : params_path == NULL ? "--params"
                                                   : out_path == NULL    ? "-o"
                                                                         : "--witness");
        prove_usage(stderr);
        goto out;
    }
    {
        const char *in1[] = {circuit_path}, *in2[] = {params_path}, *o[] = {out_path};
        const cuzk__cli_files files[] = {{"-o", o, 1, 1},
                                         {"--circuit", in1, 1, 0},
                                         {"--params", in2, 1, 0},
                                         {"--witness", wpaths, n_w, 0}};
        if (!cuzk__cli_files_ok("prove", files, sizeof(files) / sizeof(files[0]))) goto out;
    }
    if (!cuzk__cli_backend_kind("prove", backend_name, &opt.backend)) goto out;
    if (devices_arg != NULL && opt.backend != CUZK_BACKEND_GPU) {
        fprintf(stderr, "cuzk prove: --device/--devices need --backend gpu\n");
        goto out;
    }
    if (opt.device_memory_limit != 0 && opt.backend == CUZK_BACKEND_CPU) {
        fprintf(stderr, "cuzk prove: --vram-limit needs --backend gpu or auto\n");
        goto out;
    }
    if (opt.cpu_lanes > 0 && opt.backend != CUZK_BACKEND_CPU) {
        fprintf(stderr, "cuzk prove: --lanes needs --backend cpu (GPUs take --devices)\n");
        goto out;
    }
    if (devices_arg != NULL && !cuzk__cli_devices("prove", &opt, devices_arg, devices_single))
        goto out;
    if (verbose) {
        opt.log = log_line;
        opt.log_user = (void *)"prove";
    }

    cuzk_error err;
    memset(&err, 0, sizeof(err));
    cuzk_context *ctx = NULL;
    cuzk_key *key = NULL;
    cuzk_proof *proofs = calloc(n_w, sizeof(*proofs));
    cuzk_witness_input *in = calloc(n_w, sizeof(*in));
    if (proofs == NULL || in == NULL) {
        fprintf(stderr, "cuzk prove: no memory for %zu proofs\n", n_w);
        goto done;
    }
    for (size_t i = 0; i < n_w; i++) in[i].path = wpaths[i];
    if (cuzk_context_create(&ctx, &opt, &err) != CUZK_OK ||
        cuzk_key_open_params(ctx, &key, circuit_path, params_path, &err) != CUZK_OK) {
        rc = cuzk__cli_fail("prove", &err);
        goto done;
    }
    if (verbose) {
        cuzk_key_info ki;
        cuzk_key_get_info(key, &ki);
        fprintf(stderr,
                "cuzk prove: %s: %llu constraints, %llu variables (%llu public), domain 2^%u\n",
                circuit_path, (unsigned long long)ki.n_constraints,
                (unsigned long long)ki.n_vars, (unsigned long long)ki.n_public, ki.domain_log);
    }
    if (cuzk_prove_partitions(key, proofs, NULL, NULL, NULL, in, n_w, &err) != CUZK_OK) {
        const size_t m = strlen(err.msg);
        if (m + 20 < sizeof(err.msg)) memcpy(err.msg + m, "; no proof written", 19);
        rc = cuzk__cli_fail("prove", &err);
        goto done;
    }
    const cuzk_output o = {out_path, proofs, n_w * sizeof(*proofs)};
    if (cuzk_files_write(&o, 1, &err) != CUZK_OK) {
        rc = cuzk__cli_fail("prove", &err);
        goto done;
    }
    if (verbose)
        fprintf(stderr, "cuzk prove: wrote %zu partition%s (%zu bytes) to %s\n", n_w,
                n_w == 1 ? "" : "s", n_w * sizeof(*proofs), out_path);
    rc = 0;
done:
    cuzk_key_release(key);
    cuzk_context_destroy(ctx);
    free(in);
    free(proofs);
out:
    free(wpaths);
    return rc;
}

/* ---- cuzk verify --------------------------------------------------------- */

static int verify_usage(void) {
    fprintf(stderr,
            "usage: cuzk verify (--vk V | --params P) --inputs IN0 [IN1 ...] proof.bin\n"
            "  verifies each 192-byte partition of proof.bin (the last file) against the\n"
            "  public inputs of INi: one of our witness files, or text with one input per\n"
            "  line (decimal or 0x-hex, the constant 1 left out; '#' lines skipped).\n"
            "  Exit 0 all valid, 1 a partition does not verify (named), 2 input error.\n");
    return EXIT_ERROR;
}

int cuzk__cmd_verify(int argc, char **argv) {
    const char *vk_path = NULL, *params_path = NULL;
    const char **files = calloc((size_t)argc + 1, sizeof(char *));
    size_t n_files = 0;
    if (files == NULL) return EXIT_ERROR;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--vk") == 0 && i + 1 < argc) {
            vk_path = argv[++i];
        } else if (strcmp(a, "--params") == 0 && i + 1 < argc) {
            params_path = argv[++i];
        } else if (strcmp(a, "--inputs") == 0) {
            /* a marker: the files follow; the last file of all is the proof */
        } else if (!is_option(a)) {
            files[n_files++] = a;
        } else {
            if (i + 1 >= argc && (strcmp(a, "--vk") == 0 || strcmp(a, "--params") == 0))
                fprintf(stderr, "cuzk verify: %s needs a value\n", a);
            else
                fprintf(stderr, "cuzk verify: unexpected argument '%s'\n", a);
            free(files);
            return verify_usage();
        }
    }
    if ((vk_path == NULL) == (params_path == NULL) || n_files < 1) {
        fprintf(stderr, "cuzk verify: %s\n",
                vk_path != NULL && params_path != NULL ? "give --vk or --params, not both"
                : n_files < 1                          ? "missing the proof file"
                                                       : "missing --vk or --params");
        free(files);
        return verify_usage();
    }
    const char *proof_path = files[n_files - 1];
    const size_t n_in = n_files - 1;
    cuzk_error err;
    memset(&err, 0, sizeof(err));
    cuzk_vk *vk = NULL;
    uint8_t *bytes = NULL, *inputs = NULL;
    size_t len = 0, failed = 0;
    int rc = EXIT_ERROR;
    if (cuzk_vk_read(&vk, vk_path != NULL ? vk_path : params_path, &err) != CUZK_OK) goto out;
    if (cuzk_file_read(&bytes, &len, proof_path, PROOF_FILE_MAX_BYTES, &err) != CUZK_OK) goto out;
    if (len == 0 || len % CUZK_PROOF_BYTES != 0) {
        snprintf(err.msg, sizeof(err.msg),
                 "%s: %zu bytes is not a positive multiple of %d (192-byte partition proofs)",
                 proof_path, len, CUZK_PROOF_BYTES);
        err.status = CUZK_ERR_BAD_LENGTH;
        goto out;
    }
    const size_t n_part = len / CUZK_PROOF_BYTES;
    if (n_in != n_part) {
        snprintf(err.msg, sizeof(err.msg),
                 "%s holds %zu partition proof%s but %zu inputs file%s were given (one per "
                 "partition, in order, before the proof)",
                 proof_path, n_part, n_part == 1 ? "" : "s", n_in, n_in == 1 ? "" : "s");
        err.status = CUZK_ERR_INVALID_ARG;
        goto out;
    }
    const size_t np = cuzk_vk_n_public(vk);
    inputs = malloc(n_part * np * CUZK_SCALAR_BYTES + 1);
    if (inputs == NULL) {
        snprintf(err.msg, sizeof(err.msg), "no memory for the public inputs");
        err.status = CUZK_ERR_NOMEM;
        goto out;
    }
    for (size_t i = 0; i < n_part; i++)
        if (cuzk_public_read(inputs + i * np * CUZK_SCALAR_BYTES, np, files[i], &err) != CUZK_OK)
            goto out;
    if (cuzk_verify_partitions(vk, &failed, (const cuzk_proof *)bytes, n_part, inputs, np, &err) !=
        CUZK_OK) {
        if (failed < n_part) {
            const cuzk_error e2 = err;
            snprintf(err.msg, sizeof(err.msg), "%s (inputs %s): %s", proof_path, files[failed],
                     cuzk_error_text(&e2));
        }
        goto out;
    }
    printf("OK: %zu partition%s valid\n", n_part, n_part == 1 ? "" : "s");
    rc = 0;
out:
    free(inputs);
    cuzk_free(bytes);
    cuzk_vk_free(vk);
    free(files);
    return rc == 0 ? 0 : cuzk__cli_fail("verify", &err);
}
