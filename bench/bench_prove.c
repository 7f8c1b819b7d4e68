/*
 * bench_prove.c — `cuzk bench prove --zkey K --wtns W [--threads T]
 * [--reps R] [--json]`: times whole proofs for a snarkjs key, stage by stage
 * (the stages of cuzk_groth16_timings), and prints min and median over R
 * repetitions (default 3) after one warm-up proof. Wall clock: the MSMs and
 * NTTs run on all cores. Opening the files is not timed (the keys are
 * memory-mapped; a daemon keeps them open).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cuzk.h"
#include "groth16.h"
#include "wtns.h"
#include "zkey.h"

#define MAX_REPS 64

static double median_of(double *v, int n) { return cuzk_bench_median(v, n); }

int cuzk__bench_prove(int argc, char **argv) {
    const char *zkey_path = NULL, *wtns_path = NULL;
    unsigned threads = 0;
    int reps = 3, json = 0;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--zkey") == 0 && i + 1 < argc)
            zkey_path = argv[++i];
        else if (strcmp(argv[i], "--wtns") == 0 && i + 1 < argc)
            wtns_path = argv[++i];
        else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc)
            threads = (unsigned)strtoul(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (strcmp(argv[i], "--json") == 0)
            json = 1;
        else {
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
