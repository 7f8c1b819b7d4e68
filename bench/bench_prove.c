/*
 * bench_prove.c — `cuzk bench prove`: times whole proofs stage by stage.
 *
 *   --zkey K --wtns W [--threads T] [--reps R] [--json]
 *     snarkjs keys: the stages of cuzk_groth16_timings, min and median over
 *     R repetitions (default 3) after one warm-up proof.
 *   --circuit C (--params P | --setup-seed HEX) --witness W0 [W1 ...]
 *     [--partitions N] [--backend cpu|gpu|auto] [--threads T] [--reps R] [--no-stage]
 *     [--copies-after K] [--vram-limit SIZE] [--chunk-bytes SIZE]
 *     [--level-budget SIZE] [--json]
 *     bellman parameters over our circuit files, through the backend
 *     interface: each repetition proves N partitions (default 1, witness
 *     i mod the number given), after one warm-up proof. Each proof's witness
 *     is announced (cuzk_backend_stage) before the previous proof starts, so
 *     a GPU copies it beside that proof as a pipeline would (--no-stage: each
 *     proof uploads its own); the header counts the proofs that found their
 *     witness pre-staged (a GPU without the room turns staging off). Stage
 *     times use the
 *     reference system's names (cuzk_groth16_stage_times), min and median
 *     over all N x R proofs; seconds per proof = wall time of a repetition
 *     / N (median over repetitions). Proofs are not verified (the prover's
 *     tests do that). --setup-seed makes the parameters in memory with the
 *     INSECURE development setup (as `cuzk setup --seed HEX`, on the GPU with
 *     --backend gpu) instead of reading a file: a 2^27 partition's 47 GB of
 *     parameters need no disk. --copies-after K (GPU): the key makes its
 *     shifted copies of the H and L bases after K proofs instead of the
 *     backend's 64 (backend_gpu.h; 0: never), so that a run of a few proofs
 *     times a key that has served many. --vram-limit SIZE (GPU, e.g. 24G):
 *     the key takes at most SIZE of the card, planned within it (resident,
 *     partly resident or streaming: src/gpu/plan.h), so that a large card
 *     times what a small one would; the plan's sentence is printed first.
 *     --chunk-bytes SIZE and --level-budget SIZE (GPU) replace the
 *     planner's largest chunk and the key's affine level budget
 *     (backend_gpu.h's hooks), to time the trade between the two.
 * Wall clock: the MSMs and NTTs run on all cores. Opening the files and
 * preparing the key are not timed (a daemon keeps them open).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "groth16/backend.h"
#include "bench.h"
#include "commands.h"
#include "cuzk.h"
#include "groth16/groth16.h"
#include "util/mem.h"
#include "io/params.h"
#include "circuit/witness.h"
#include "io/wtns.h"
#include "io/zkey.h"
#include "opt.h"
#include "gpu/plan.h"
#if CUZK_HAVE_CUDA
#include "gpu/backend_gpu.h"
#endif

#define MAX_REPS 64

static double median_of(double *v, int n) { return cuzk_bench_median(v, n); }

/* What the GPU backend's proofs have streamed from host memory so far (the
 * partly resident and streaming plans): bytes, and the copy stream's time
 * on them in µs; zeros elsewhere. */
static void streamed_so_far(const cuzk_backend *be, uint64_t *bytes, uint64_t *us) {
    *bytes = *us = 0;
#if CUZK_HAVE_CUDA
    cuzk__gpu_backend_upload_counts c;
    cuzk__gpu_backend_stats(be, &c);
    *bytes = c.streamed_bytes;
    *us = c.streamed_copy_us;
#else
    (void)be;
#endif
}

static double wall_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

#define MAX_PROOFS 4096

#define CMD "cuzk bench prove"

/* Whether option a takes a value; if it does and none follows, 1 after
 * printing which (the loops below then stop with status 2). */
static int value_missing(const char *a, int i, int argc) {
    static const char *const with_value[] = {"--circuit", "--params",  "--setup-seed",
                                             "--partitions", "--backend", "--threads",
                                             "--reps",    "--zkey",    "--wtns",
                                             "--copies-after", "--vram-limit",
                                             "--chunk-bytes", "--level-budget"};
    for (size_t k = 0; k < sizeof(with_value) / sizeof(with_value[0]); k++)
        if (strcmp(a, with_value[k]) == 0 && i + 1 >= argc) {
            fprintf(stderr, "%s: %s: needs a value\n", CMD, a);
            return 1;
        }
    return 0;
}

static int bench_circuit(int argc, char **argv) {
    const char *circuit_path = NULL, *params_path = NULL, *seed_hex = NULL, *backend = "cpu";
    const char **wpaths = calloc((size_t)argc + 1, sizeof(char *));
    size_t n_w = 0;
    unsigned threads = 0;
    int reps = 3, json = 0, parts = 1, stage = 1;
    unsigned copies_after = 0;
    int copies_after_set = 0; /* else the backend's own */
    uint64_t vram_limit = 0;  /* 0: the card's */
    uint64_t chunk_bytes = 0, level_budget = 0; /* 0: the backend's own */
    if (wpaths == NULL) return 2;
    for (int i = 0; i < argc; i++) {
        if (value_missing(argv[i], i, argc)) {
            free(wpaths);
            return 2;
        }
        if (strcmp(argv[i], "--circuit") == 0 && i + 1 < argc)
            circuit_path = argv[++i];
        else if (strcmp(argv[i], "--params") == 0 && i + 1 < argc)
            params_path = argv[++i];
        else if (strcmp(argv[i], "--setup-seed") == 0 && i + 1 < argc)
            seed_hex = argv[++i];
        else if (strcmp(argv[i], "--witness") == 0)
            while (i + 1 < argc && argv[i + 1][0] != '-') wpaths[n_w++] = argv[++i];
        else if (strcmp(argv[i], "--partitions") == 0 && i + 1 < argc) {
            if (!cuzk__opt_int(CMD, argv[i], argv[i + 1], 1, MAX_PROOFS, &parts)) {
                free(wpaths);
                return 2;
            }
            i++;
        }
        else if (strcmp(argv[i], "--backend") == 0 && i + 1 < argc)
            backend = argv[++i];
        else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
            if (!cuzk__opt_uint(CMD, argv[i], argv[i + 1], 0, 4096, &threads)) {
                free(wpaths);
                return 2;
            }
            i++;
        } else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
            if (!cuzk__opt_int(CMD, argv[i], argv[i + 1], 1, MAX_REPS, &reps)) {
                free(wpaths);
                return 2;
            }
            i++;
        } else if (strcmp(argv[i], "--json") == 0)
            json = 1;
        else if (strcmp(argv[i], "--no-stage") == 0)
            stage = 0;
        else if (strcmp(argv[i], "--copies-after") == 0 && i + 1 < argc) {
            if (!cuzk__opt_uint(CMD, argv[i], argv[i + 1], 0, 1000000, &copies_after)) {
                free(wpaths);
                return 2;
            }
            copies_after_set = 1;
            i++;
        } else if (strcmp(argv[i], "--vram-limit") == 0 && i + 1 < argc) {
            if (!cuzk__opt_size(CMD, argv[i], argv[i + 1], 0, (uint64_t)1 << 50, &vram_limit)) {
                free(wpaths);
                return 2;
            }
            i++;
        } else if ((strcmp(argv[i], "--chunk-bytes") == 0 ||
                    strcmp(argv[i], "--level-budget") == 0) &&
                   i + 1 < argc) {
            uint64_t *to = argv[i][2] == 'c' ? &chunk_bytes : &level_budget;
            if (!cuzk__opt_size(CMD, argv[i], argv[i + 1], (uint64_t)1 << 20, (uint64_t)1 << 40,
                                to)) {
                free(wpaths);
                return 2;
            }
            i++;
        } else {
            if (strcmp(argv[i], "-h") != 0 && strcmp(argv[i], "--help") != 0)
                cuzk__opt_unknown(CMD, argv[i]);
            fprintf(stderr, "usage: cuzk bench prove --circuit C (--params P | --setup-seed HEX) "
                            "--witness W0 [W1 ...] [--partitions N] [--backend cpu|gpu|auto] "
                            "[--threads T] [--reps R] [--no-stage] [--copies-after K] "
                            "[--vram-limit SIZE] [--chunk-bytes SIZE] [--level-budget SIZE] "
                            "[--json]\n");
            free(wpaths);
            return 2;
        }
    }
    if (circuit_path == NULL || (params_path == NULL) == (seed_hex == NULL) || n_w == 0 ||
        reps < 1 || reps > MAX_REPS || parts < 1 || (long)parts * reps > MAX_PROOFS) {
        fprintf(stderr, "cuzk bench prove: --circuit, one of --params or --setup-seed, and "
                        "--witness are required; 1 <= reps <= %d, partitions >= 1, partitions x "
                        "reps <= %d\n",
                MAX_REPS, MAX_PROOFS);
        free(wpaths);
        return 2;
    }
    const cuzk_backend_ops *ops = cuzk__cli_backend(backend, "bench prove");
    if (ops == NULL) {
        free(wpaths);
        return 2;
    }
    cuzk_setup_toxic tw;
    if (seed_hex != NULL && !cuzk__cli_setup_seed(&tw, seed_hex)) {
        fprintf(stderr, "cuzk bench prove: --setup-seed wants an even number (2..%d) of hex "
                        "digits, not '%s'\n", CUZK_CLI_SEED_HEX_MAX, seed_hex);
        free(wpaths);
        return 2;
    }
    cuzk_error err;
    cuzk__error_clear(&err);
    cuzk_circuit c;
    cuzk_params p;
    cuzk_backend be;
    memset(&c, 0, sizeof(c));
    memset(&p, 0, sizeof(p));
    memset(&be, 0, sizeof(be));
    cuzk_witness *w = calloc(n_w, sizeof(*w));
    cuzk_backend_key *key = NULL;
    cuzk_backend_job *job = NULL;
    /* start_ms: all of prove_start (for the GPU backend, the device's whole
     * share of a partition: the reference's gpu_total_ms). */
    enum { SPMV, CHECK, NTT, MSM_H, PREP, BATCH, TAIL, BG2, START, FINISH, TOTAL, NSTAGES };
    static const char *names[NSTAGES] = {"spmv_ms",     "check_ms",     "ntt_ms",
                                         "msm_h_ms",    "prep_ms",      "batch_add_ms",
                                         "tail_msm_ms", "b_g2_msm_ms",  "start_ms",
                                         "finish_ms",   "total_ms"};
    double(*v)[MAX_PROOFS] = malloc(sizeof(double[NSTAGES][MAX_PROOFS]));
    double per_proof[MAX_REPS];
    int rc = 2, n_done = 0, n_staged = 0; /* timed proofs; of them, found pre-staged */
    if (w == NULL || v == NULL) {
        fprintf(stderr, "cuzk bench prove: out of memory\n");
        goto out;
    }
    if (cuzk_circuit_open(&c, circuit_path, 0, &err) != CUZK_OK) goto fail;
    if (seed_hex != NULL) {
        cuzk_setup_times tm;
        const double t0 = wall_ms();
        if (cuzk__cli_dev_setup(&p, &c, &tw, threads, ops != &cuzk_backend_cpu, &tm, &err) !=
            CUZK_OK)
            goto fail;
        fprintf(stderr, "cuzk bench prove: development setup (INSECURE, from --setup-seed) in "
                        "%.2f s (G1 points %.2f s, G2 %.2f s, on the %s); not timed below\n",
                (wall_ms() - t0) / 1e3, tm.g1, tm.g2, ops != &cuzk_backend_cpu ? "GPU" : "CPU");
    } else if (cuzk_params_open(&p, params_path,
                                CUZK_PARAMS_PARALLEL |
                                    (ops->reads_deferred_points ? CUZK_PARAMS_DEFER_POINTS : 0),
                                &err) != CUZK_OK) { /* a GPU key decodes the points itself */
        goto fail;
    }
    if (cuzk_backend_open(&be, ops, threads, -1, &err) != CUZK_OK) goto fail;
    be.vram_limit = vram_limit;
#if CUZK_HAVE_CUDA
    if ((copies_after_set || chunk_bytes || level_budget) && ops == &cuzk_backend_gpu) {
        cuzk__gpu_backend_hooks hooks = CUZK__GPU_BACKEND_HOOKS_DEFAULT;
        if (copies_after_set) hooks.copies_after = copies_after;
        hooks.chunk_bytes = (size_t)chunk_bytes;
        hooks.level_budget = (size_t)level_budget;
        cuzk__gpu_backend_set_test_hooks(&be, &hooks);
    }
#else
    (void)copies_after;
    (void)copies_after_set;
#endif
    cuzk__plan plan;
    const char *plan_mode = "none"; /* the CPU: no device memory */
    if (be.ops->plan != NULL) {
        if (cuzk_backend_plan(&be, &plan, &c, &p, NULL, &err) != CUZK_OK) goto fail;
        plan_mode = cuzk__plan_rung_name(cuzk__plan_rung_of(&plan)); /* with where a, b, c are made */
        fprintf(stderr, "cuzk bench prove: memory plan: %s\n", plan.reason);
    }
    if (cuzk_backend_prepare(&be, &key, &c, &p, &err) != CUZK_OK) goto fail;
    for (size_t i = 0; i < n_w; i++)
        if (cuzk_witness_open(&w[i], wpaths[i], &err) != CUZK_OK) goto fail;
    /* proof j (0: the warm-up) proves witness ((j - 1) mod parts) mod n_w; with
     * staging, proof j + 1's witness is announced before proof j starts, as a
     * pipeline would, so its upload runs beside proof j */
    const int n_proofs = 1 + reps * parts;
#define WITNESS_OF(j) (&w[(size_t)((j) == 0 ? 0 : ((j) - 1) % parts) % n_w])
    if (stage && cuzk_backend_stage(&be, key, WITNESS_OF(0), &err) != CUZK_OK) goto fail;
    uint64_t sb0 = 0, su0 = 0, sb1 = 0, su1 = 0; /* streamed over the timed proofs */
    for (int rep = -1, j = 0; rep < reps; rep++) { /* rep -1: one warm-up proof */
        if (rep == 0) streamed_so_far(&be, &sb0, &su0);
        const double t0 = wall_ms();
        for (int k = 0; k < (rep < 0 ? 1 : parts); k++, j++) {
            uint64_t r[4], s[4];
            cuzk_groth16_proof proof;
            if (stage && j + 1 < n_proofs &&
                cuzk_backend_stage(&be, key, WITNESS_OF(j + 1), &err) != CUZK_OK)
                goto fail;
            if (cuzk_backend_prove_start(&be, &job, key, WITNESS_OF(j), &err) != CUZK_OK ||
                cuzk_groth16_random_scalar(r, &err) != CUZK_OK ||
                cuzk_groth16_random_scalar(s, &err) != CUZK_OK ||
                cuzk_backend_prove_finish(&be, &proof, job, r, s, &err) != CUZK_OK)
                goto fail;
            cuzk_bench_sink = proof.a.x.l[0];
            if (rep >= 0) {
                const cuzk_groth16_stage_times *t = cuzk_backend_job_times(job);
                const double x[NSTAGES] = {t->spmv_ms,      t->check_ms,    t->ntt_ms,
                                           t->msm_h_ms,     t->prep_ms,     t->batch_add_ms,
                                           t->tail_msm_ms,  t->b_g2_msm_ms,
                                           t->total_ms - t->finish_ms,
                                           t->finish_ms,    t->total_ms};
                for (int q = 0; q < NSTAGES; q++) v[q][n_done] = x[q];
                n_done++;
                n_staged += job->witness_staged != 0;
            }
            cuzk_backend_release_job(&be, job);
            job = NULL;
        }
        if (rep >= 0) per_proof[rep] = (wall_ms() - t0) / parts / 1e3;
    }
#undef WITNESS_OF
    streamed_so_far(&be, &sb1, &su1);
    /* a proof's streamed bytes (GB) and the rate its copies ran at (GB/s) */
    const double st_gb = n_done ? (double)(sb1 - sb0) / 1e9 / n_done : 0,
                 st_rate = su1 > su0 ? (double)(sb1 - sb0) / 1e3 / (double)(su1 - su0) : 0;
    const double sec = median_of(per_proof, reps);
    if (json) {
        printf("{\"bench\": \"prove\", \"circuit\": \"%s\", \"params\": \"%s\", \"backend\": "
               "\"%s\", \"constraints\": %llu, \"n_vars\": %llu, \"domain_log\": %u, "
               "\"threads\": %u, \"partitions\": %d, \"reps\": %d, \"staged\": %s, "
               "\"staged_proofs\": %d, \"vram_limit\": %llu, \"plan\": \"%s\"",
               circuit_path, params_path ? params_path : "(development setup in memory)",
               be.ops->name, (unsigned long long)c.n_constraints,
               (unsigned long long)cuzk_circuit_n_vars(&c), c.domain_log, threads, parts, reps,
               stage ? "true" : "false", n_staged, (unsigned long long)vram_limit, plan_mode);
        for (int q = 0; q < NSTAGES; q++)
            printf(", \"%s\": {\"min\": %.3f, \"median\": %.3f}", names[q],
                   cuzk_bench_min(v[q], n_done), median_of(v[q], n_done));
        printf(", \"streamed_gb_per_proof\": %.3f, \"stream_copy_gb_per_s\": %.2f",
               st_gb, st_rate);
        printf(", \"seconds_per_proof\": %.4f}\n", sec);
    } else {
        printf("cuzk bench prove: %s (%llu constraints, %llu variables, domain 2^%u), backend "
               "%s (memory plan: %s), %s threads, %d partition%s x %d reps + warm-up, "
               "witnesses %s (found pre-staged by %d of %d timed proofs)\n",
               circuit_path, (unsigned long long)c.n_constraints,
               (unsigned long long)cuzk_circuit_n_vars(&c), c.domain_log, be.ops->name,
               plan_mode, threads ? "explicit" : "all", parts, parts == 1 ? "" : "s", reps,
               stage ? "announced one proof ahead" : "uploaded by each proof", n_staged, n_done);
        printf("%-14s %12s %12s\n", "stage", "min ms", "median ms");
        for (int q = 0; q < NSTAGES; q++)
            printf("%-14s %12.3f %12.3f\n", names[q], cuzk_bench_min(v[q], n_done),
                   median_of(v[q], n_done));
        if (st_gb > 0)
            printf("streamed from host memory: %.3f GB a proof, copied at %.2f GB/s (the copy "
                   "stream's own time; %.0f ms of copies a proof)\n",
                   st_gb, st_rate, st_rate > 0 ? st_gb / st_rate * 1e3 : 0.0);
        printf("seconds per proof (median over reps): %.4f\n", sec);
    }
    rc = 0;
    goto out;
fail:
    fprintf(stderr, "cuzk bench prove: %s\n", cuzk__error_text(&err));
out:
    cuzk__wipe(&tw, sizeof(tw));
    if (be.ops != NULL) {
        cuzk_backend_release_job(&be, job);
        cuzk_backend_release_key(&be, key);
    }
    cuzk_backend_close(&be);
    for (size_t i = 0; w != NULL && i < n_w; i++) cuzk_witness_close(&w[i]);
    free(w);
    free(v);
    cuzk_params_close(&p);
    cuzk_circuit_close(&c);
    free(wpaths);
    return rc;
}

int cuzk__bench_prove(int argc, char **argv) {
    for (int i = 0; i < argc; i++)
        if (strcmp(argv[i], "--circuit") == 0) return bench_circuit(argc, argv);
    const char *zkey_path = NULL, *wtns_path = NULL;
    unsigned threads = 0;
    int reps = 3, json = 0;
    for (int i = 0; i < argc; i++) {
        if (value_missing(argv[i], i, argc)) return 2;
        if (strcmp(argv[i], "--zkey") == 0 && i + 1 < argc) {
            zkey_path = argv[++i];
        } else if (strcmp(argv[i], "--wtns") == 0 && i + 1 < argc) {
            wtns_path = argv[++i];
        } else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
            if (!cuzk__opt_uint(CMD, argv[i], argv[i + 1], 0, 4096, &threads)) return 2;
            i++;
        } else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
            if (!cuzk__opt_int(CMD, argv[i], argv[i + 1], 1, MAX_REPS, &reps)) return 2;
            i++;
        } else if (strcmp(argv[i], "--json") == 0) {
            json = 1;
        } else {
            if (strcmp(argv[i], "-h") != 0 && strcmp(argv[i], "--help") != 0)
                cuzk__opt_unknown(CMD, argv[i]);
            fprintf(stderr, "usage: cuzk bench prove --zkey K --wtns W [--threads T] "
                            "[--reps R] [--json]\n");
            return 2;
        }
    }
    if (zkey_path == NULL || wtns_path == NULL || reps < 1 || reps > MAX_REPS) {
        fprintf(stderr, "cuzk bench prove: --zkey and --wtns are required; 1 <= reps <= %d\n",
                MAX_REPS);
        return 2;
    }
    cuzk_error err;
    cuzk__error_clear(&err);
    cuzk_zkey zk;
    cuzk_wtns w;
    memset(&zk, 0, sizeof(zk));
    memset(&w, 0, sizeof(w));
    int rc = 2;
    if (cuzk_zkey_open(&zk, zkey_path, 0, &err) != CUZK_OK ||
        cuzk_wtns_open(&w, wtns_path, &err) != CUZK_OK) {
        fprintf(stderr, "cuzk bench prove: %s\n", cuzk__error_text(&err));
        goto out;
    }

    enum { ABC, NTT, MSM_A, MSM_B1, MSM_B2, MSM_C, MSM_H, FINISH, TOTAL, NSTAGES };
    static const char *names[NSTAGES] = {"abc_ms",    "ntt_ms",   "msm_a_ms",
                                         "msm_b1_ms", "msm_b2_ms", "msm_c_ms",
                                         "msm_h_ms",  "finish_ms", "total_ms"};
    double v[NSTAGES][MAX_REPS];
    for (int rep = -1; rep < reps; rep++) { /* rep -1 is the warm-up */
        cuzk_groth16_partial part;
        uint64_t r[4], s[4];
        if (cuzk_groth16_prove_start_zkey(&part, &zk, (const uint64_t(*)[4])w.values,
                                          w.n_witness, threads, &err) != CUZK_OK ||
            cuzk_groth16_random_scalar(r, &err) != CUZK_OK ||
            cuzk_groth16_random_scalar(s, &err) != CUZK_OK) {
            fprintf(stderr, "cuzk bench prove: %s\n", cuzk__error_text(&err));
            goto out;
        }
        cuzk_groth16_proof proof;
        cuzk_groth16_prove_finish(&proof, &part, r, s);
        cuzk_bench_sink = proof.a.x.l[0];
        if (rep < 0) continue;
        const cuzk_groth16_timings *t = &part.t;
        const double x[NSTAGES] = {t->abc_ms,    t->ntt_ms,   t->msm_a_ms,
                                   t->msm_b1_ms, t->msm_b2_ms, t->msm_c_ms,
                                   t->msm_h_ms,  t->finish_ms, t->total_ms};
        for (int k = 0; k < NSTAGES; k++) v[k][rep] = x[k];
    }
    if (json) {
        printf("{\"bench\": \"prove\", \"zkey\": \"%s\", \"n_vars\": %u, \"domain\": %u, "
               "\"threads\": %u, \"reps\": %d",
               zkey_path, zk.n_vars, zk.domain_size, threads, reps);
        for (int k = 0; k < NSTAGES; k++)
            printf(", \"%s\": {\"min\": %.3f, \"median\": %.3f}", names[k],
                   cuzk_bench_min(v[k], reps), median_of(v[k], reps));
        printf("}\n");
    } else {
        printf("cuzk bench prove: %s (nVars %u, domain 2^%u), %s threads, %d reps + warm-up\n",
               zkey_path, zk.n_vars, zk.log_domain_size, threads ? "explicit" : "all", reps);
        printf("%-12s %12s %12s\n", "stage", "min ms", "median ms");
        for (int k = 0; k < NSTAGES; k++)
            printf("%-12s %12.3f %12.3f\n", names[k], cuzk_bench_min(v[k], reps),
                   median_of(v[k], reps));
        printf("proofs/s (median): %.2f\n", 1000.0 / median_of(v[TOTAL], reps));
    }
    rc = 0;
out:
    cuzk_wtns_close(&w);
    cuzk_zkey_close(&zk);
    return rc;
}
