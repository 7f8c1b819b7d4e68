/*
 * bench_batch.c — `cuzk bench batch`: many jobs through the engine, as a
 * proving service runs them (include/cuzk.h, "the engine").
 *
 *   cuzk bench batch (--zkey K --wtns W | --circuit C --params P --witness W0 [W1 ...])
 *                    [--jobs J] [--partitions N] [--workers W] [--backend cpu|gpu|auto]
 *                    [--threads T] [--lanes L] [--json]
 *
 * J jobs (default 4) of N partitions each (default: one per witness given;
 * witnesses are reused in turn when N is larger) are submitted at once, at
 * NORMAL priority, to an engine of W workers (default: the context's lanes);
 * the key is prepared before the clock starts. Prints the wall time, the
 * seconds per proof over the whole batch and in the steady state (from the
 * first job's end to the last's), and the job latencies (submission to end)
 * at the 50th, 90th and 100th percentiles. Every proof is self-checked by
 * the engine.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "cli.h"
#include "cuzk.h"
#include "opt.h"

#define CMD "cuzk bench batch"
#define MAX_JOBS 4096

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int usage(void) {
    fprintf(stderr, "usage: " CMD " (--zkey K --wtns W | --circuit C --params P --witness W0 "
                    "[W1 ...])\n"
                    "         [--jobs J] [--partitions N] [--workers W] [--backend cpu|gpu|auto]\n"
                    "         [--threads T] [--lanes L] [--json]\n");
    return 2;
}

int cuzk__bench_batch(int argc, char **argv) {
    const char *zkey = NULL, *circuit = NULL, *params = NULL, *backend = "auto";
    const char **wit = calloc((size_t)argc + 1, sizeof(char *));
    size_t n_wit = 0;
    unsigned jobs = 4, parts = 0, workers = 0, threads = 0, lanes = 0;
    int json = 0, rc = 2;
    if (wit == NULL) return 2;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--json") == 0) {
            json = 1;
        } else if (strcmp(a, "--witness") == 0) {
            while (i + 1 < argc && argv[i + 1][0] != '-') wit[n_wit++] = argv[++i];
        } else {
            const char *v = cuzk__opt_value(CMD, argc, argv, &i);
            if (v == NULL) goto out;
            if (strcmp(a, "--zkey") == 0) zkey = v;
            else if (strcmp(a, "--wtns") == 0) wit[n_wit++] = v;
            else if (strcmp(a, "--circuit") == 0) circuit = v;
            else if (strcmp(a, "--params") == 0) params = v;
            else if (strcmp(a, "--backend") == 0) backend = v;
            else if (strcmp(a, "--jobs") == 0) {
                if (!cuzk__opt_uint(CMD, a, v, 1, MAX_JOBS, &jobs)) goto out;
            } else if (strcmp(a, "--partitions") == 0) {
                if (!cuzk__opt_uint(CMD, a, v, 1, 64, &parts)) goto out;
            } else if (strcmp(a, "--workers") == 0) {
                if (!cuzk__opt_uint(CMD, a, v, 1, 256, &workers)) goto out;
            } else if (strcmp(a, "--threads") == 0) {
                if (!cuzk__opt_uint(CMD, a, v, 0, 4096, &threads)) goto out;
            } else if (strcmp(a, "--lanes") == 0) {
                if (!cuzk__opt_uint(CMD, a, v, 1, CUZK_MAX_LANES, &lanes)) goto out;
            } else {
                cuzk__opt_unknown(CMD, a);
                usage();
                goto out;
            }
        }
    }
    if ((zkey == NULL) == (circuit == NULL) || (circuit != NULL && params == NULL) || n_wit == 0) {
        fprintf(stderr, CMD ": give --zkey and --wtns, or --circuit, --params and --witness\n");
        usage();
        goto out;
    }
    if (parts == 0) parts = (unsigned)n_wit;
    cuzk_options o;
    cuzk_options_init(&o);
    static const char *const kinds[] = {"auto", "cpu", "gpu"};
    const int k = cuzk__opt_choice(CMD, "--backend", backend, kinds, 3);
    if (k < 0) goto out;
    o.backend = (cuzk_backend_kind)k; /* AUTO, CPU, GPU in that order */
    o.threads = threads;
    o.cpu_lanes = lanes;
    cuzk_error err;
    cuzk_context *ctx = NULL;
    cuzk_key *key = NULL;
    cuzk_engine *e = NULL;
    uint64_t *ids = calloc(jobs, sizeof(*ids));
    double *lat = calloc(jobs, sizeof(*lat));
    cuzk_witness_input *in = calloc(parts, sizeof(*in));
    cuzk_proof *proofs = calloc(parts, sizeof(*proofs));
    if (ids == NULL || lat == NULL || in == NULL || proofs == NULL) {
        fprintf(stderr, CMD ": out of memory\n");
        goto done;
    }
    for (unsigned i = 0; i < parts; i++) in[i].path = wit[i % n_wit];
    cuzk_engine_options eo;
    cuzk_engine_options_init(&eo);
    eo.workers = workers;
    eo.max_queued_partitions = (size_t)jobs * parts;
    if (cuzk_context_create(&ctx, &o, &err) != CUZK_OK ||
        (zkey ? cuzk_key_open_zkey(ctx, &key, zkey, &err)
              : cuzk_key_open_params(ctx, &key, circuit, params, &err)) != CUZK_OK ||
        cuzk_key_prepare(key, &err) != CUZK_OK || cuzk_engine_create(&e, ctx, &eo, &err) != CUZK_OK)
        goto fail;
    const double t0 = now_s();
    for (unsigned j = 0; j < jobs; j++)
        if (cuzk_engine_submit(e, &ids[j], key, in, parts, CUZK_PRIORITY_NORMAL, NULL, -1, &err) !=
            CUZK_OK)
            goto fail;
    /* jobs of one priority end in submission order: awaiting in order times each */
    for (unsigned j = 0; j < jobs; j++) {
        if (cuzk_engine_await(e, ids[j], -1, proofs, NULL, NULL, &err) != CUZK_OK) goto fail;
        lat[j] = now_s() - t0;
    }
    const double wall = now_s() - t0;
    const double per_proof = wall / ((double)jobs * parts);
    const double steady = jobs > 1 ? (lat[jobs - 1] - lat[0]) / ((double)(jobs - 1) * parts) : per_proof;
    qsort(lat, jobs, sizeof(*lat), cmp_double);
    const double p50 = lat[(jobs - 1) / 2], p90 = lat[(size_t)((jobs - 1) * 0.9)],
                 pmax = lat[jobs - 1];
    cuzk_key_info ki;
    cuzk_key_get_info(key, &ki);
    if (json)
        printf("{\"bench\": \"batch\", \"jobs\": %u, \"partitions\": %u, \"backend\": \"%s\", "
               "\"domain_log\": %u, \"wall_s\": %.4f, \"seconds_per_proof\": %.4f, "
               "\"steady_seconds_per_proof\": %.4f, \"latency_s\": {\"p50\": %.4f, \"p90\": %.4f, "
               "\"max\": %.4f}}\n",
               jobs, parts, ki.backend == CUZK_BACKEND_GPU ? "gpu" : "cpu", ki.domain_log, wall,
               per_proof, steady, p50, p90, pmax);
    else
        printf(CMD ": %u jobs x %u partitions, domain 2^%u, %s backend\n"
                   "  wall %.3f s; %.4f s per proof overall, %.4f in the steady state\n"
                   "  job latency (submission to end): p50 %.3f s, p90 %.3f s, max %.3f s\n",
               jobs, parts, ki.domain_log, ki.backend == CUZK_BACKEND_GPU ? "GPU" : "CPU", wall,
               per_proof, steady, p50, p90, pmax);
    rc = 0;
    goto done;
fail:
    rc = cuzk__cli_fail("bench batch", &err);
done:
    cuzk_engine_destroy(e);
    cuzk_key_release(key);
    cuzk_context_destroy(ctx);
    free(ids);
    free(lat);
    free(in);
    free(proofs);
out:
    free(wit);
    return rc;
}
