/*
 * groth16_cmd.c — the snarkjs-compatible subcommands:
 *   cuzk groth16 prove  circuit.zkey witness.wtns proof.json public.json
 *   cuzk groth16 verify verification_key.json public.json proof.json
 *   cuzk zkey export verificationkey circuit.zkey verification_key.json
 *   cuzk wtns check circuit.r1cs witness.wtns
 * Arguments are those of snarkjs and rapidsnark. Exit status: 0 success (a
 * valid proof for verify), 1 invalid proof or unsatisfied witness, 2 usage or
 * input error; errors are one line on stderr naming the file and the reason.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "groth16/backend.h"
#include "commands.h"
#include "cuzk.h"
#include "groth16/groth16.h"
#include "util/mem.h"
#include "pairing/pairing.h"
#include "io/r1cs.h"
#include "groth16/snarkjs_json.h"
#include "io/wtns.h"
#include "io/zkey.h"
#include "util/atomic_write.h"

#define EXIT_INVALID 1
#define EXIT_ERROR 2

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int fail(const char *cmd, const cuzk_error *err) {
    fprintf(stderr, "cuzk %s: %s\n", cmd, cuzk__error_text(err));
    if (err->status == CUZK_ERR_PROOF_INVALID || err->status == CUZK_ERR_WITNESS_UNSATISFIED)
        return EXIT_INVALID;
    return EXIT_ERROR;
}

/* Parses "--threads N"; returns the index of the first positional argument. */
static int parse_threads(int argc, char **argv, unsigned *threads, int *ok) {
    *ok = 1;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--threads") == 0) {
            if (i + 1 >= argc) {
                *ok = 0;
                return 0;
            }
            char *end;
            unsigned long v = strtoul(argv[i + 1], &end, 10);
            if (*end != '\0' || v > 4096) {
                *ok = 0;
                return 0;
            }
            *threads = (unsigned)v;
            memmove(&argv[i], &argv[i + 2], (size_t)(argc - i - 2) * sizeof(char *));
            return argc - 2;
        }
    }
    return argc;
}

/*
 * Writes proof.json and public.json (witness values 1..nPublic) as one set
 * (util/atomic_write.h): both complete and on disk before either replaces
 * its target, so a failure or a kill leaves both old files, never a new
 * proof beside an old public.json.
 */
static cuzk_status write_outputs(const char *proof_path, const char *public_path,
                                 const cuzk_groth16_proof *proof, const cuzk_wtns *w,
                                 uint32_t n_public, cuzk_error *err) {
    cuzk_fr *pub = malloc(sizeof(cuzk_fr) * (n_public ? n_public : 1));
    char *ptext = NULL, *utext = NULL;
    size_t plen = 0, ulen = 0;
    cuzk__outset set;
    cuzk__out *po = NULL, *uo = NULL;
    cuzk__outset_init(&set);
    cuzk_status st = CUZK_OK;
    if (pub == NULL) {
        st = cuzk__fail(err, CUZK_ERR_NOMEM, "no memory for public inputs");
    } else {
        for (uint32_t i = 0; i < n_public; i++)
            cuzk_fr_from_limbs(&pub[i], cuzk_wtns_value(w, i + 1));
        if (cuzk_snarkjs_proof_format(&ptext, &plen, proof) != CUZK_OK ||
            cuzk_snarkjs_public_format(&utext, &ulen, pub, n_public) != CUZK_OK)
            st = cuzk__fail(err, CUZK_ERR_NOMEM, "out of memory while formatting %s and %s",
                            proof_path, public_path);
    }
    if (st == CUZK_OK) st = cuzk__outset_add(&set, &po, proof_path, err);
    if (st == CUZK_OK) st = cuzk__outset_add(&set, &uo, public_path, err);
    if (st == CUZK_OK) st = cuzk__out_write(po, ptext, plen, err);
    if (st == CUZK_OK) st = cuzk__out_write(uo, utext, ulen, err);
    if (st == CUZK_OK)
        st = cuzk__outset_commit(&set, err);
    else
        cuzk__outset_abort(&set);
    free(ptext);
    free(utext);
    free(pub);
    return st;
}

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
        FILE *f = fopen(out, "rb");
        if (f != NULL) {
            fclose(f);
            return 1;
        }
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

/* An r1cs is only used to explain a failure when it is the key's circuit. */
static int r1cs_matches_zkey(const cuzk_r1cs *r, const cuzk_zkey *zk) {
    return r->n_wires == zk->n_vars && r->n_pub_out + r->n_pub_in == zk->n_public &&
           (uint64_t)r->n_constraints + zk->n_public + 1 == zk->n_rows;
}

/* One proof of a snarkjs key through a backend (the GPU one); *t gets the
 * stage times in the snarkjs view. */
static cuzk_status prove_on_backend(const cuzk_backend_ops *ops, const cuzk_zkey *zk,
                                    const cuzk_wtns *wt, unsigned threads, const uint64_t r[4],
                                    const uint64_t s[4], cuzk_groth16_proof *proof,
                                    cuzk_groth16_timings *t, cuzk_error *err) {
    cuzk_backend be;
    cuzk_backend_key *key = NULL;
    cuzk_backend_job *job = NULL;
    cuzk_witness w;
    memset(&w, 0, sizeof(w));
    memset(t, 0, sizeof(*t));
    cuzk_status st = cuzk_backend_open(&be, ops, threads, -1, err);
    if (st != CUZK_OK) return st;
    if ((st = cuzk_witness_from_values(&w, wt->values, 1, (uint64_t)wt->n_witness - 1,
                                       wt->file.path, err)) == CUZK_OK &&
        (st = cuzk_backend_prepare_zkey(&be, &key, zk, err)) == CUZK_OK &&
        (st = cuzk_backend_prove_start(&be, &job, key, &w, err)) == CUZK_OK &&
        (st = cuzk_backend_prove_finish(&be, proof, job, r, s, err)) == CUZK_OK) {
        const cuzk_groth16_stage_times *x = cuzk_backend_job_times(job);
        t->abc_ms = x->spmv_ms;
        t->ntt_ms = x->ntt_ms;
        t->msm_h_ms = x->msm_h_ms;
        t->msm_a_ms = x->prep_ms + x->batch_add_ms + x->tail_msm_ms; /* A, B1, C together */
        t->msm_b2_ms = x->b_g2_msm_ms;
        t->finish_ms = x->finish_ms;
        t->total_ms = x->total_ms;
    }
    cuzk_backend_release_job(&be, job);
    cuzk_backend_release_key(&be, key);
    cuzk_witness_close(&w);
    cuzk_backend_close(&be);
    return st;
}

/*
 * Proves, then verifies the proof against the key's own verifying key before
 * writing anything: a zkey has no C matrix, so an unsatisfying witness only
 * shows as a proof that fails (snarkjs would write it out silently).
 */
static int cmd_prove(int argc, char **argv) {
    unsigned threads = 0;
    int ok;
    argc = parse_threads(argc, argv, &threads, &ok);
    const char *r1cs_path = NULL, *backend_name = "auto";
    int verbose = 0;
    for (int i = 0; ok && i < argc;) { /* options may follow the positionals */
        if (strcmp(argv[i], "--backend") == 0 && i + 1 < argc) {
            backend_name = argv[i + 1];
            memmove(&argv[i], &argv[i + 2], (size_t)(argc - i - 2) * sizeof(char *));
            argc -= 2;
        } else if (strcmp(argv[i], "--r1cs") == 0 && i + 1 < argc) {
            r1cs_path = argv[i + 1];
            memmove(&argv[i], &argv[i + 2], (size_t)(argc - i - 2) * sizeof(char *));
            argc -= 2;
        } else if (strcmp(argv[i], "--verbose") == 0 || strcmp(argv[i], "-v") == 0) {
            verbose = 1;
            memmove(&argv[i], &argv[i + 1], (size_t)(argc - i - 1) * sizeof(char *));
            argc -= 1;
        } else {
            i++;
        }
    }
    if (!ok || argc != 4) {
        fprintf(stderr, "usage: cuzk groth16 prove <circuit.zkey> <witness.wtns> <proof.json> "
                        "<public.json> [--threads N] [--backend cpu|gpu|auto] [--r1cs circuit.r1cs] "
                        "[--verbose]\n");
        return EXIT_ERROR;
    }
    /* outputs neither inputs nor one file, checked before any work */
    const char *zkey_path = argv[0], *wtns_path = argv[1], *proof_path = argv[2],
               *public_path = argv[3];
    const cuzk__cli_files files[] = {{"<proof.json>", &proof_path, 1, 1},
                                     {"<public.json>", &public_path, 1, 1},
                                     {"<circuit.zkey>", &zkey_path, 1, 0},
                                     {"<witness.wtns>", &wtns_path, 1, 0},
                                     {"--r1cs", &r1cs_path, 1, 0}};
    if (!cuzk__cli_files_ok("groth16 prove", files, sizeof(files) / sizeof(files[0])))
        return EXIT_ERROR;
    const cuzk_backend_ops *ops = cuzk__cli_backend(backend_name, "groth16 prove");
    if (ops == NULL) return EXIT_ERROR; /* the reason is printed */
    cuzk_error err;
    cuzk__error_clear(&err);
    cuzk_zkey zk;
    cuzk_wtns w;
    memset(&zk, 0, sizeof(zk));
    memset(&w, 0, sizeof(w));
    cuzk_groth16_vk vk;
    memset(&vk, 0, sizeof(vk));
    uint64_t(*pub)[4] = NULL;
    int rc = EXIT_ERROR;
    const double t_open = now_ms();
    if (cuzk_zkey_open(&zk, argv[0], 0, &err) != CUZK_OK) goto out;
    if (cuzk_wtns_open(&w, argv[1], &err) != CUZK_OK) goto out;
    const double open_ms = now_ms() - t_open;
    if (w.n_witness != zk.n_vars) {
        cuzk__fail(&err, CUZK_ERR_INVALID_ARG,
                   "%s has %u values, but %s expects %u (nVars): witness of another circuit?",
                   argv[1], w.n_witness, argv[0], zk.n_vars);
        goto out;
    }
    /* auto: a device pays off only when the proof outweighs bringing the device
     * up and uploading the key (CUDA context creation alone is ~0.1-0.3 s). */
    if (strcmp(backend_name, "auto") == 0 && zk.log_domain_size < CUZK_AUTO_GPU_MIN_LOG)
        ops = &cuzk_backend_cpu;
    cuzk_groth16_partial part;
    cuzk_groth16_proof proof;
    uint64_t r[4], s[4];
    if (cuzk_groth16_random_scalar(r, &err) != CUZK_OK ||
        cuzk_groth16_random_scalar(s, &err) != CUZK_OK)
        goto out;
    if (ops == &cuzk_backend_cpu) {
        if (cuzk_groth16_prove_start_zkey(&part, &zk, (const uint64_t(*)[4])w.values,
                                          w.n_witness, threads, &err) != CUZK_OK)
            goto out;
        cuzk_groth16_prove_finish(&proof, &part, r, s);
    } else if (prove_on_backend(ops, &zk, &w, threads, r, s, &proof, &part.t, &err) != CUZK_OK) {
        goto out;
    }
    cuzk__wipe(r, sizeof(r));
    cuzk__wipe(s, sizeof(s));

    const double t_check = now_ms();
    if (cuzk_groth16_vk_from_zkey(&vk, &zk, &err) != CUZK_OK) goto out;
    pub = malloc(sizeof(*pub) * (zk.n_public ? zk.n_public : 1));
    if (pub == NULL) {
        cuzk__fail(&err, CUZK_ERR_NOMEM, "no memory for public inputs");
        goto out;
    }
    for (uint32_t i = 0; i < zk.n_public; i++) memcpy(pub[i], cuzk_wtns_value(&w, i + 1), 32);
    if (cuzk_groth16_verify(&vk, (const uint64_t(*)[4])pub, zk.n_public, &proof, &err) !=
        CUZK_OK) {
        if (err.status != CUZK_ERR_PROOF_INVALID) goto out;
        /* Name the constraint when the circuit is at hand: --r1cs, or the
         * circuit's .r1cs next to the key (see find_r1cs). */
        cuzk_r1cs rc1;
        memset(&rc1, 0, sizeof(rc1));
        cuzk_error cerr;
        cuzk__error_clear(&cerr);
        char guessed[4096];
        if (r1cs_path == NULL && find_r1cs(guessed, sizeof(guessed), argv[0]))
            r1cs_path = guessed;
        if (r1cs_path != NULL && cuzk_r1cs_open(&rc1, r1cs_path, &cerr) == CUZK_OK &&
            r1cs_matches_zkey(&rc1, &zk) &&
            cuzk_r1cs_check_witness(&rc1, w.values, w.n_witness, argv[1], NULL, &cerr) ==
                CUZK_ERR_WITNESS_UNSATISFIED) {
            cuzk__fail(&err, CUZK_ERR_WITNESS_UNSATISFIED, "%s; no proof written",
                       cuzk__error_text(&cerr));
        } else {
            cuzk__fail(&err, CUZK_ERR_WITNESS_UNSATISFIED,
                       "%s does not satisfy the circuit of %s (the proof failed its "
                       "self-check); no proof written. `cuzk wtns check circuit.r1cs %s` "
                       "names the failing constraint",
                       argv[1], argv[0], argv[1]);
        }
        cuzk_r1cs_close(&rc1);
        goto out;
    }
    const double check_ms = now_ms() - t_check;
    const double t_write = now_ms();
    if (write_outputs(argv[2], argv[3], &proof, &w, zk.n_public, &err) != CUZK_OK) goto out;
    const double write_ms = now_ms() - t_write;
    if (verbose) {
        const cuzk_groth16_timings *t = &part.t;
        fprintf(stderr,
                "cuzk groth16 prove: %s: nVars %u, domain 2^%u: %.1f ms (a,b,c %.1f, H %.1f, "
                "MSM A %.1f, B1 %.1f, B2 %.1f, C %.1f, H %.1f, finish %.1f); opening the "
                "files %.1f ms, self-check %.1f ms, writing %.1f ms\n",
                argv[0], zk.n_vars, zk.log_domain_size, t->total_ms, t->abc_ms, t->ntt_ms,
                t->msm_a_ms, t->msm_b1_ms, t->msm_b2_ms, t->msm_c_ms, t->msm_h_ms,
                t->finish_ms, open_ms, check_ms, write_ms);
    }
    rc = 0;
out:
    free(pub);
    cuzk_groth16_vk_free(&vk);
    cuzk_wtns_close(&w);
    cuzk_zkey_close(&zk);
    return rc == 0 ? 0 : fail("groth16 prove", &err);
}

static int cmd_verify(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: cuzk groth16 verify <verification_key.json> <public.json> "
                        "<proof.json>\n");
        return EXIT_ERROR;
    }
    cuzk_error err;
    cuzk__error_clear(&err);
    cuzk_groth16_vk vk;
    cuzk_groth16_proof proof;
    cuzk_fr *pub = NULL;
    size_t n_pub = 0;
    uint64_t(*plain)[4] = NULL;
    memset(&vk, 0, sizeof(vk));
    int rc = EXIT_ERROR;
    if (cuzk_snarkjs_vk_read(&vk, argv[0], &err) != CUZK_OK) goto out;
    if (cuzk_snarkjs_public_read(&pub, &n_pub, argv[1], &err) != CUZK_OK) goto out;
    if (cuzk_snarkjs_proof_read(&proof, argv[2], &err) != CUZK_OK) goto out;
    plain = malloc(sizeof(*plain) * (n_pub ? n_pub : 1));
    if (plain == NULL) {
        cuzk__fail(&err, CUZK_ERR_NOMEM, "no memory for public inputs");
        goto out;
    }
    for (size_t i = 0; i < n_pub; i++) cuzk_fr_to_limbs(plain[i], &pub[i]);
    if (cuzk_groth16_verify(&vk, (const uint64_t(*)[4])plain, n_pub, &proof, &err) != CUZK_OK)
        goto out;
    printf("OK: the proof is valid\n");
    rc = 0;
out:
    free(plain);
    free(pub);
    cuzk_groth16_vk_free(&vk);
    return rc == 0 ? 0 : fail("groth16 verify", &err);
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
    cuzk__error_clear(&err);
    cuzk_zkey zk;
    cuzk_groth16_vk vk;
    memset(&zk, 0, sizeof(zk));
    memset(&vk, 0, sizeof(vk));
    int rc = EXIT_ERROR;
    if (cuzk_zkey_open(&zk, argv[2], 0, &err) != CUZK_OK) goto out;
    if (cuzk_groth16_vk_from_zkey(&vk, &zk, &err) != CUZK_OK) goto out;
    cuzk_fp12 alphabeta;
    cuzk_pairing(&alphabeta, &vk.alpha1, &vk.beta2);
    if (cuzk_snarkjs_vk_write(argv[3], &vk, &alphabeta, &err) != CUZK_OK) goto out;
    rc = 0;
out:
    cuzk_groth16_vk_free(&vk);
    cuzk_zkey_close(&zk);
    return rc == 0 ? 0 : fail("zkey export verificationkey", &err);
}

int cuzk__cmd_wtns(int argc, char **argv) {
    if (argc != 3 || strcmp(argv[0], "check") != 0) {
        fprintf(stderr, "usage: cuzk wtns check <circuit.r1cs> <witness.wtns>\n");
        return EXIT_ERROR;
    }
    cuzk_error err;
    cuzk__error_clear(&err);
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
    return rc == 0 ? 0 : fail("wtns check", &err);
}
