/*
 * bench_batch.c — `cuzk bench batch`: many jobs through the engine, as a
 * proving service runs them (include/cuzk.h, "the engine").
 *
 *   cuzk bench batch (--zkey K --wtns W | --circuit C (--params P | --setup-seed HEX)
 *                     --witness W0 [W1 ...])
 *                    [--jobs J] [--partitions N] [--workers W] [--backend cpu|gpu|auto]
 *                    [--threads T] [--lanes L] [--devices all|N,M,...] [--vram-limit SIZE]
 *                    [--fault STAGE:N[:nomem]] [--svg FILE] [--json] [--log]
 *
 * J jobs (default 4) of N partitions each (default: one per witness given;
 * witnesses are reused in turn when N is larger) are submitted at once, at
 * NORMAL priority, to an engine of W workers per GPU or CPU lane (default:
 * the engine's); the key is prepared before the clock starts. Prints the
 * wall time, the seconds per proof over the whole batch and in the steady
 * state (from the first job's end to the last's), and the job latencies
 * (submission to end) at the 50th, 90th and 100th percentiles. Every proof
 * is self-checked by the engine. --setup-seed makes the circuit's parameters
 * in memory (a development setup, INSECURE, as `cuzk bench prove` does) for
 * sizes whose .params would not fit the disk. --vram-limit SIZE (e.g. 24G):
 * a key takes at most SIZE of each card (the context's device_memory_limit;
 * the GPU plans it within it: doc/gpu.md, "The memory planner").
 * --devices (--backend gpu): the GPUs of the engine's context, as for
 * `cuzk prove`. --fault STAGE:N: the Nth launch of that kernel stage fails
 * as a device error (the engine's fault_stage and fault_nth), so that a
 * run shows the partition retried on another lane and every job done;
 * STAGE:N:nomem: as a device out of memory (fault_status), so that the
 * lane steps down a memory plan and the partition is proved again.
 * --log: the library's log lines on stderr (each device's memory plan with
 * its reason, the key's preparation, every partition's stages).
 *
 * Every job is awaited, a failed one named on stderr; the report counts the
 * jobs completed and failed, the proofs returned (and how many of them are
 * distinct and nonzero within their job), and the engine's counts (proofs
 * self-checked, faults, retries). From the engine's timeline
 * (batch_timeline.h): the stage sums, per GPU its partitions and the
 * fraction of its steady state (from the end of its first partition's
 * kernels to the end of its last one's) in which it ran kernels, per lane
 * slot its partitions, and the partitions retried on another lane. --svg
 * draws the timeline. Exit status: that of the first failed job, 1 when a
 * proof came back missing or twice, else 0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "batch_timeline.h"
#include "bench.h"
#include "cli.h"
#include "commands.h"
#include "cuzk.h"
#include "api/api.h"
#include "opt.h"
#include "util/atomic_write.h"

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
    fprintf(stderr, "usage: " CMD " (--zkey K --wtns W | --circuit C (--params P | --setup-seed "
                    "HEX) --witness W0 [W1 ...])\n"
                    "         [--jobs J] [--partitions N] [--workers W] [--backend cpu|gpu|auto]\n"
                    "         [--threads T] [--lanes L] [--devices all|N,M,...] [--vram-limit "
                    "SIZE]\n"
                    "         [--fault STAGE:N[:nomem]] [--svg FILE] [--json] [--log]\n");
    return 2;
}

/* --fault STAGE:N[:nomem] into stage (len bytes), *nth and *nomem: the
 * stages the backends count (include/cuzk.h, fault_stage); 0 after
 * printing why. */
static int parse_fault(const char *v, char *stage, size_t len, unsigned *nth, int *nomem) {
    static const char *const stages[] = {"spmv",      "ntt",      "msm_h",
                                         "batch_add", "tail_msm", "b_g2_msm"};
    const char *colon = strchr(v, ':');
    const size_t k = colon != NULL ? (size_t)(colon - v) : 0;
    int known = 0;
    for (size_t i = 0; i < sizeof(stages) / sizeof(stages[0]); i++)
        if (k != 0 && strlen(stages[i]) == k && strncmp(v, stages[i], k) == 0) known = 1;
    if (!known || k >= len) {
        fprintf(stderr, CMD ": --fault %s: must be STAGE:N[:nomem], STAGE one of spmv, ntt, "
                        "msm_h, batch_add, tail_msm or b_g2_msm\n", v);
        return 0;
    }
    const char *d = colon + 1;
    char *end = NULL;
    const unsigned long x = *d >= '0' && *d <= '9' ? strtoul(d, &end, 10) : 0;
    *nomem = end != NULL && strcmp(end, ":nomem") == 0;
    if (x < 1 || x > 1000000 || end == NULL || (*end != '\0' && !*nomem)) {
        fprintf(stderr, CMD ": --fault %s: N (the launch that fails) must be 1..1000000, "
                        "then :nomem or nothing\n", v);
        return 0;
    }
    memcpy(stage, v, k);
    stage[k] = '\0';
    *nth = (unsigned)x;
    return 1;
}

/* The proofs of one job that are nonzero and unlike every other of it: all
 * n when nothing is missing or repeated. */
static size_t distinct_proofs(const cuzk_proof *p, size_t n) {
    static const cuzk_proof zero;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        int unique = memcmp(&p[i], &zero, sizeof(zero)) != 0;
        for (size_t j = 0; j < n && unique; j++)
            if (j != i && memcmp(&p[i], &p[j], sizeof(zero)) == 0) unique = 0;
        k += (size_t)unique;
    }
    return k;
}

/* What the run gave, besides its times: the jobs and proofs, and the
 * engine's own counts. */
typedef struct {
    unsigned completed, failed;
    size_t returned, distinct;
    cuzk_engine_stats es;
} batch_counts;

static void print_counts_json(const batch_counts *c, const cuzk_options *o, const char *fault,
                              unsigned nth, int nomem) {
    printf(", \"jobs_completed\": %u, \"jobs_failed\": %u, \"proofs_returned\": %zu, "
           "\"proofs_distinct\": %zu, \"lane_slots\": %zu, \"workers\": %zu, \"devices\": ",
           c->completed, c->failed, c->returned, c->distinct, c->es.lane_slots, c->es.workers);
    if (o->n_devices == 0) printf("null");
    for (size_t d = 0; d < o->n_devices; d++)
        printf("%s%d%s", d ? ", " : "[", o->devices[d], d + 1 == o->n_devices ? "]" : "");
    if (fault[0] != '\0') printf(", \"fault\": \"%s:%u%s\"", fault, nth, nomem ? ":nomem" : "");
    else printf(", \"fault\": null");
    printf(", \"engine\": {\"proofs\": %llu, \"verified\": %llu, \"failed_partitions\": %llu, "
           "\"faults\": %llu, \"retries\": %llu, \"lane_resets\": %llu, "
           "\"lane_step_downs\": %llu}",
           (unsigned long long)c->es.proofs, (unsigned long long)c->es.verified,
           (unsigned long long)c->es.failed_partitions, (unsigned long long)c->es.faults,
           (unsigned long long)c->es.retries, (unsigned long long)c->es.lane_resets,
           (unsigned long long)c->es.lane_step_downs);
}

static void print_counts_text(const batch_counts *c, const char *fault, unsigned nth,
                              int nomem) {
    printf("  jobs: %u completed, %u failed; %zu proofs returned, %zu distinct; the engine "
           "proved %llu, self-checked %llu\n",
           c->completed, c->failed, c->returned, c->distinct, (unsigned long long)c->es.proofs,
           (unsigned long long)c->es.verified);
    if (fault[0] == '\0' && c->es.faults == 0 && c->es.lane_step_downs == 0) return;
    printf("  device faults %llu", (unsigned long long)c->es.faults);
    if (fault[0] != '\0') printf(" (--fault %s:%u%s)", fault, nth, nomem ? ":nomem" : "");
    printf(", partitions retried %llu, lanes reset %llu, stepped down %llu\n",
           (unsigned long long)c->es.retries, (unsigned long long)c->es.lane_resets,
           (unsigned long long)c->es.lane_step_downs);
}

/* The library's log lines (--log), from whichever thread logs. */
static void log_line(void *user, const char *line) {
    (void)user;
    fprintf(stderr, CMD ": %s\n", line);
}

int cuzk__bench_batch(int argc, char **argv) {
    const char *zkey = NULL, *circuit = NULL, *params = NULL, *seed_hex = NULL, *backend = "auto";
    const char *devices = NULL;
    const char **wit = calloc((size_t)argc + 1, sizeof(char *));
    size_t n_wit = 0;
    unsigned jobs = 4, parts = 0, workers = 0, threads = 0, lanes = 0, fault_nth = 0;
    int fault_nomem = 0;
    char fault[16] = "";
    uint64_t vram_limit = 0; /* 0: the card's */
    const char *svg = NULL;
    int json = 0, log = 0, rc = 2;
    if (wit == NULL) return 2;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--json") == 0) {
            json = 1;
        } else if (strcmp(a, "--log") == 0) {
            log = 1;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            (void)usage();
            rc = 0;
            goto out;
        } else if (strcmp(a, "--witness") == 0) {
            while (i + 1 < argc && argv[i + 1][0] != '-') wit[n_wit++] = argv[++i];
        } else {
            const char *v = cuzk__opt_value(CMD, argc, argv, &i);
            if (v == NULL) goto out;
            if (strcmp(a, "--zkey") == 0) zkey = v;
            else if (strcmp(a, "--wtns") == 0) wit[n_wit++] = v;
            else if (strcmp(a, "--circuit") == 0) circuit = v;
            else if (strcmp(a, "--params") == 0) params = v;
            else if (strcmp(a, "--setup-seed") == 0) seed_hex = v;
            else if (strcmp(a, "--backend") == 0) backend = v;
            else if (strcmp(a, "--svg") == 0) svg = v;
            else if (strcmp(a, "--devices") == 0) devices = v;
            else if (strcmp(a, "--fault") == 0) {
                if (!parse_fault(v, fault, sizeof fault, &fault_nth, &fault_nomem)) goto out;
            } else if (strcmp(a, "--jobs") == 0) {
                if (!cuzk__opt_uint(CMD, a, v, 1, MAX_JOBS, &jobs)) goto out;
            } else if (strcmp(a, "--partitions") == 0) {
                if (!cuzk__opt_uint(CMD, a, v, 1, 64, &parts)) goto out;
            } else if (strcmp(a, "--workers") == 0) {
                if (!cuzk__opt_uint(CMD, a, v, 1, 16, &workers)) goto out;
            } else if (strcmp(a, "--threads") == 0) {
                if (!cuzk__opt_uint(CMD, a, v, 0, 4096, &threads)) goto out;
            } else if (strcmp(a, "--lanes") == 0) {
                if (!cuzk__opt_uint(CMD, a, v, 1, CUZK_MAX_LANES, &lanes)) goto out;
            } else if (strcmp(a, "--vram-limit") == 0) {
                if (!cuzk__opt_size(CMD, a, v, 0, (uint64_t)1 << 50, &vram_limit)) goto out;
            } else {
                cuzk__opt_unknown(CMD, a);
                usage();
                goto out;
            }
        }
    }
    if ((zkey == NULL) == (circuit == NULL) ||
        (circuit != NULL && (params == NULL) == (seed_hex == NULL)) || n_wit == 0) {
        fprintf(stderr, CMD ": give --zkey and --wtns, or --circuit, one of --params and "
                            "--setup-seed, and --witness\n");
        usage();
        goto out;
    }
    cuzk_setup_toxic tw;
    if (seed_hex != NULL && !cuzk__cli_setup_seed(&tw, seed_hex)) {
        fprintf(stderr, CMD ": --setup-seed wants an even number (2..%d) of hex digits, not '%s'\n",
                CUZK_CLI_SEED_HEX_MAX, seed_hex);
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
    o.device_memory_limit = vram_limit;
    if (log) o.log = log_line;
    if (devices != NULL && o.backend != CUZK_BACKEND_GPU) {
        fprintf(stderr, CMD ": --devices needs --backend gpu (CPU lanes take --lanes)\n");
        goto out;
    }
    if (devices != NULL && !cuzk__cli_devices("bench batch", &o, devices, 0)) goto out;
    cuzk_error err;
    /* a picture that cannot be written, or would replace an input, is
     * refused before the run */
    if (svg != NULL) {
        const char *out_svg[] = {svg}, *keys[] = {zkey, circuit, params};
        const cuzk__cli_files f[] = {{"--svg", out_svg, 1, 1},
                                     {"--zkey", keys, 1, 0},
                                     {"--circuit", keys + 1, 1, 0},
                                     {"--params", keys + 2, 1, 0},
                                     {"--witness", wit, n_wit, 0}};
        if (!cuzk__cli_files_ok("bench batch", f, sizeof(f) / sizeof(f[0]))) goto out;
    }
    cuzk_context *ctx = NULL;
    cuzk_key *key = NULL;
    cuzk_engine *e = NULL;
    uint64_t *ids = calloc(jobs, sizeof(*ids));
    double *lat = calloc(jobs, sizeof(*lat));
    cuzk_witness_input *in = calloc(parts, sizeof(*in));
    cuzk_proof *proofs = calloc(parts, sizeof(*proofs));
    cuzk_timeline_event *tl = NULL;
    cuzk__batch_report *tr = malloc(sizeof(*tr));
    if (ids == NULL || lat == NULL || in == NULL || proofs == NULL || tr == NULL) {
        fprintf(stderr, CMD ": out of memory\n");
        goto done;
    }
    for (unsigned i = 0; i < parts; i++) in[i].path = wit[i % n_wit];
    cuzk_engine_options eo;
    cuzk_engine_options_init(&eo);
    if (workers != 0) eo.workers_per_device = workers;
    eo.max_queued_partitions = (size_t)jobs * parts;
    if (fault[0] != '\0') {
        eo.fault_stage = fault;
        eo.fault_nth = fault_nth;
        eo.fault_status = fault_nomem ? CUZK_ERR_DEVICE_NOMEM : CUZK_ERR_GPU;
    }
    if (cuzk_context_create(&ctx, &o, &err) != CUZK_OK ||
        (zkey        ? cuzk_key_open_zkey(ctx, &key, zkey, &err)
         : seed_hex ? cuzk__key_open_dev(ctx, &key, circuit, &tw, &err)
                    : cuzk_key_open_params(ctx, &key, circuit, params, &err)) != CUZK_OK ||
        cuzk_key_prepare(key, &err) != CUZK_OK || cuzk_engine_create(&e, ctx, &eo, &err) != CUZK_OK)
        goto fail;
    const double t0 = now_s();
    for (unsigned j = 0; j < jobs; j++)
        if (cuzk_engine_submit(e, &ids[j], key, in, parts, CUZK_PRIORITY_NORMAL, NULL, -1, &err) !=
            CUZK_OK)
            goto fail;
    /* jobs of one priority end in submission order: awaiting in order times
     * each; a failed job is named and the others still awaited */
    batch_counts c;
    memset(&c, 0, sizeof(c));
    int job_rc = 0;
    for (unsigned j = 0; j < jobs; j++) {
        memset(proofs, 0, parts * sizeof(*proofs));
        const cuzk_status st = cuzk_engine_await(e, ids[j], -1, proofs, NULL, NULL, &err);
        lat[j] = now_s() - t0;
        if (st == CUZK_OK) {
            c.completed++;
            c.returned += parts;
            c.distinct += distinct_proofs(proofs, parts);
            continue;
        }
        c.failed++;
        char what[48];
        snprintf(what, sizeof what, "bench batch: job %u of %u", j + 1, jobs);
        const int r = cuzk__cli_fail(what, &err);
        if (job_rc == 0) job_rc = r;
    }
    const double wall = now_s() - t0;
    const double per_proof = wall / ((double)jobs * parts);
    const double steady = jobs > 1 ? (lat[jobs - 1] - lat[0]) / ((double)(jobs - 1) * parts) : per_proof;
    qsort(lat, jobs, sizeof(*lat), cmp_double);
    const double p50 = lat[(jobs - 1) / 2], p90 = lat[(size_t)((jobs - 1) * 0.9)],
                 pmax = lat[jobs - 1];
    /* the newest timeline_events events, which the engine keeps */
    size_t n_tl = 0;
    if (eo.timeline_events > 0) {
        tl = calloc(eo.timeline_events, sizeof(*tl));
        if (tl == NULL) {
            fprintf(stderr, CMD ": out of memory for %zu timeline events\n", eo.timeline_events);
            goto done;
        }
        n_tl = cuzk_engine_timeline(e, tl, eo.timeline_events);
    }
    cuzk_engine_get_stats(e, &c.es);
    if (!cuzk__batch_report_make(tr, tl, n_tl, c.es.lane_slots)) {
        fprintf(stderr, CMD ": out of memory for the timeline's report\n");
        goto done;
    }
    if (svg != NULL && cuzk_timeline_write_svg(tl, n_tl, svg, &err) != CUZK_OK) goto fail;
    cuzk_key_info ki;
    cuzk_key_get_info(key, &ki);
    if (json) {
        printf("{\"bench\": \"batch\", \"jobs\": %u, \"partitions\": %u, \"backend\": \"%s\", "
               "\"domain_log\": %u, \"wall_s\": %.4f, \"seconds_per_proof\": %.4f, "
               "\"steady_seconds_per_proof\": %.4f, \"latency_s\": {\"p50\": %.4f, \"p90\": %.4f, "
               "\"max\": %.4f}",
               jobs, parts, ki.backend == CUZK_BACKEND_GPU ? "gpu" : "cpu", ki.domain_log, wall,
               per_proof, steady, p50, p90, pmax);
        print_counts_json(&c, &o, fault, fault_nth, fault_nomem);
        cuzk__batch_report_json(tr, c.es.timeline_dropped);
        printf("}\n");
    } else {
        printf(CMD ": %u jobs x %u partitions, domain 2^%u, %s backend\n"
                   "  wall %.3f s; %.4f s per proof overall, %.4f in the steady state\n"
                   "  job latency (submission to end): p50 %.3f s, p90 %.3f s, max %.3f s\n",
               jobs, parts, ki.domain_log, ki.backend == CUZK_BACKEND_GPU ? "GPU" : "CPU", wall,
               per_proof, steady, p50, p90, pmax);
        print_counts_text(&c, fault, fault_nth, fault_nomem);
        cuzk__batch_report_text(tr, c.es.timeline_dropped);
        if (svg != NULL) printf("  timeline drawn in %s\n", svg);
    }
    rc = job_rc;
    if (rc == 0 && c.distinct != c.returned) {
        fprintf(stderr, CMD ": %zu of the %zu proofs returned are zero or repeated within "
                            "their job\n", c.returned - c.distinct, c.returned);
        rc = 1;
    }
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
    free(tl);
    free(tr);
out:
    free(wit);
    return rc;
}
