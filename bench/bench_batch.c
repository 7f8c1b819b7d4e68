/*
 * bench_batch.c — `cuzk bench batch`: many jobs through the engine, as a
 * proving service runs them (include/cuzk.h, "the engine").
 *
 *   cuzk bench batch (--zkey K --wtns W | --circuit C (--params P | --setup-seed HEX)
 *                     --witness W0 [W1 ...])
 *                    [--jobs J] [--partitions N] [--workers W] [--backend cpu|gpu|auto]
 *                    [--threads T] [--lanes L] [--vram-limit SIZE] [--svg FILE] [--json]
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
 *
 * From the engine's timeline: the milliseconds of each stage summed over
 * all partitions, and per GPU the fraction of its steady state (from the
 * end of its first partition's kernels to the end of its last one's) in
 * which it ran kernels, overlaps counted once. --svg draws the timeline.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "cli.h"
#include "commands.h"
#include "cuzk.h"
#include "api/api.h"
#include "engine/timeline.h"
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
                    "         [--threads T] [--lanes L] [--vram-limit SIZE] [--svg FILE] "
                    "[--json]\n");
    return 2;
}

/* ---- what the timeline says ---------------------------------------------- */

/* One partition's kernels on one device: where they end. */
typedef struct {
    uint64_t job;
    uint32_t part;
    double end;
} part_end;

static int cmp_part_end(const void *a, const void *b) {
    const part_end *x = a, *y = b;
    if (x->job != y->job) return x->job < y->job ? -1 : 1;
    return x->part < y->part ? -1 : x->part > y->part;
}

/* The steady state of device dev: from the end of its first partition's
 * kernels to the end of its last one's (a partition's kernels end with its
 * last kernel event). 0 when it proved fewer than two partitions, -1 when
 * out of memory. */
static int steady_window(const cuzk_timeline_event *ev, size_t n, int dev, double *from,
                         double *to) {
    part_end *p = malloc((n ? n : 1) * sizeof(*p));
    if (p == NULL) return -1;
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (ev[i].device == dev && cuzk__stage_is_kernel(ev[i].stage))
            p[m++] = (part_end){ev[i].job_id, ev[i].partition, ev[i].end_ms};
    qsort(p, m, sizeof(*p), cmp_part_end);
    size_t parts = 0;
    for (size_t i = 0; i < m;) {
        double end = p[i].end;
        size_t k = i + 1;
        for (; k < m && p[k].job == p[i].job && p[k].part == p[i].part; k++)
            if (p[k].end > end) end = p[k].end;
        if (parts == 0 || end < *from) *from = end;
        if (parts == 0 || end > *to) *to = end;
        parts++;
        i = k;
    }
    free(p);
    return parts >= 2 && *to > *from;
}

#define MAX_REPORTED_DEVICES 64

typedef struct {
    size_t n;
    double stage_ms[CUZK_STAGE_COUNT];
    int stage_seen[CUZK_STAGE_COUNT];
    size_t n_dev;
    int dev[MAX_REPORTED_DEVICES];
    double busy[MAX_REPORTED_DEVICES]; /* -1: no steady state (one partition) */
    double window_ms[MAX_REPORTED_DEVICES];
} timeline_report;

/* Stage sums and each GPU's busy fraction; 0 when out of memory. */
static int report_timeline(timeline_report *r, const cuzk_timeline_event *ev, size_t n) {
    memset(r, 0, sizeof(*r));
    r->n = n;
    for (size_t i = 0; i < n; i++) {
        if ((int)ev[i].stage < 0 || ev[i].stage >= CUZK_STAGE_COUNT) continue;
        r->stage_ms[ev[i].stage] += ev[i].end_ms - ev[i].start_ms;
        r->stage_seen[ev[i].stage] = 1;
        if (ev[i].device < 0 || !cuzk__stage_is_kernel(ev[i].stage)) continue;
        size_t d = 0;
        while (d < r->n_dev && r->dev[d] != ev[i].device) d++;
        if (d == r->n_dev && r->n_dev < MAX_REPORTED_DEVICES) r->dev[r->n_dev++] = ev[i].device;
    }
    for (size_t d = 0; d < r->n_dev; d++) {
        double from = 0, to = 0;
        const int w = steady_window(ev, n, r->dev[d], &from, &to);
        if (w < 0) return 0;
        r->busy[d] = -1;
        r->window_ms[d] = w ? to - from : 0;
        if (w == 0) continue;
        r->busy[d] = cuzk__timeline_busy(ev, n, r->dev[d], from, to);
        if (r->busy[d] < 0) return 0;
    }
    return 1;
}

static void print_timeline_json(const timeline_report *r, uint64_t dropped) {
    printf(", \"timeline_events\": %zu, \"timeline_dropped\": %llu, \"stage_ms\": {", r->n,
           (unsigned long long)dropped);
    const char *sep = "";
    for (int s = 0; s < CUZK_STAGE_COUNT; s++)
        if (r->stage_seen[s]) {
            printf("%s\"%s\": %.3f", sep, cuzk_stage_name((cuzk_stage)s), r->stage_ms[s]);
            sep = ", ";
        }
    printf("}, \"busy\": [");
    for (size_t d = 0; d < r->n_dev; d++) {
        printf("%s{\"device\": %d, \"fraction\": ", d ? ", " : "", r->dev[d]);
        if (r->busy[d] < 0) printf("null");
        else printf("%.4f", r->busy[d]);
        printf(", \"window_s\": %.4f}", r->window_ms[d] / 1000);
    }
    printf("]");
}

static void print_timeline_text(const timeline_report *r, uint64_t dropped) {
    if (r->n == 0) {
        printf("  no timeline events\n");
        return;
    }
    printf("  stage ms summed over partitions (%zu timeline events", r->n);
    if (dropped) printf(", the oldest %llu dropped", (unsigned long long)dropped);
    printf("):\n   ");
    int col = 3;
    for (int s = 0; s < CUZK_STAGE_COUNT; s++) {
        if (!r->stage_seen[s]) continue;
        char item[64];
        const int k = snprintf(item, sizeof item, " %s %.1f", cuzk_stage_name((cuzk_stage)s),
                               r->stage_ms[s]);
        if (col + k > 80) {
            printf("\n   ");
            col = 3;
        }
        printf("%s", item);
        col += k;
    }
    printf("\n");
    for (size_t d = 0; d < r->n_dev; d++) {
        if (r->busy[d] < 0)
            printf("  GPU %d: kernels of one partition only, no steady state\n", r->dev[d]);
        else
            printf("  GPU %d: kernels running %.1f%% of its steady state (%.3f s)\n", r->dev[d],
                   100 * r->busy[d], r->window_ms[d] / 1000);
    }
}

int cuzk__bench_batch(int argc, char **argv) {
    const char *zkey = NULL, *circuit = NULL, *params = NULL, *seed_hex = NULL, *backend = "auto";
    const char **wit = calloc((size_t)argc + 1, sizeof(char *));
    size_t n_wit = 0;
    unsigned jobs = 4, parts = 0, workers = 0, threads = 0, lanes = 0;
    uint64_t vram_limit = 0; /* 0: the card's */
    const char *svg = NULL;
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
            else if (strcmp(a, "--setup-seed") == 0) seed_hex = v;
            else if (strcmp(a, "--backend") == 0) backend = v;
            else if (strcmp(a, "--svg") == 0) svg = v;
            else if (strcmp(a, "--jobs") == 0) {
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
    cuzk_error err;
    /* a picture that cannot be written is refused before the run */
    if (svg != NULL && cuzk__out_check(svg, &err) != CUZK_OK) {
        rc = cuzk__cli_fail("bench batch", &err);
        goto out;
    }
    cuzk_context *ctx = NULL;
    cuzk_key *key = NULL;
    cuzk_engine *e = NULL;
    uint64_t *ids = calloc(jobs, sizeof(*ids));
    double *lat = calloc(jobs, sizeof(*lat));
    cuzk_witness_input *in = calloc(parts, sizeof(*in));
    cuzk_proof *proofs = calloc(parts, sizeof(*proofs));
    cuzk_timeline_event *tl = NULL;
    timeline_report *tr = malloc(sizeof(*tr));
    if (ids == NULL || lat == NULL || in == NULL || proofs == NULL || tr == NULL) {
        fprintf(stderr, CMD ": out of memory\n");
        goto done;
    }
    for (unsigned i = 0; i < parts; i++) in[i].path = wit[i % n_wit];
    cuzk_engine_options eo;
    cuzk_engine_options_init(&eo);
    if (workers != 0) eo.workers_per_device = workers;
    eo.max_queued_partitions = (size_t)jobs * parts;
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
    cuzk_engine_stats es;
    cuzk_engine_get_stats(e, &es);
    if (!report_timeline(tr, tl, n_tl)) {
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
        print_timeline_json(tr, es.timeline_dropped);
        printf("}\n");
    } else {
        printf(CMD ": %u jobs x %u partitions, domain 2^%u, %s backend\n"
                   "  wall %.3f s; %.4f s per proof overall, %.4f in the steady state\n"
                   "  job latency (submission to end): p50 %.3f s, p90 %.3f s, max %.3f s\n",
               jobs, parts, ki.domain_log, ki.backend == CUZK_BACKEND_GPU ? "GPU" : "CPU", wall,
               per_proof, steady, p50, p90, pmax);
        print_timeline_text(tr, es.timeline_dropped);
        if (svg != NULL) printf("  timeline drawn in %s\n", svg);
    }
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
    free(tl);
    free(tr);
out:
    free(wit);
    return rc;
}
