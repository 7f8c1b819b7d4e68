/*
 * bench.h — timing helpers shared by the benchmarks (the `cuzk bench ...`
 * subcommands and the side-by-side harnesses under bench/, which include this
 * file on its own, so it depends on nothing but libc).
 *
 * Method (doc/bench.md): an operation is a function that runs n chained
 * repetitions and returns a word derived from its last result. Timing first
 * calibrates n so that one batch lasts about cfg.batch_ns (the calibration
 * runs double as warm-up), then times cfg.batches batches of n and reports the
 * minimum and the median of the per-batch ns/op. Under load the minimum is the
 * most repeatable figure (noise only ever adds time); the median shows how
 * noisy the run was. Single-threaded benches time on the thread's CPU clock
 * (see cuzk_bench_clock below), so time spent waiting for a core on a busy
 * machine is not counted.
 *
 * Every word an operation returns goes to a volatile sink, and operations
 * chain each result into the next input, so the compiler can neither drop the
 * work nor overlap independent repetitions.
 */
#ifndef CUZK_BENCH_H
#define CUZK_BENCH_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Entry points of the bench subcommands (tools/cuzk/main.c dispatches). */
int cuzk__bench_field(int argc, char **argv); /* bench_field.c */
int cuzk__bench_ntt(int argc, char **argv);   /* bench_ntt.c */
int cuzk__bench_msm(int argc, char **argv);   /* bench_msm.c */
int cuzk__bench_prove(int argc, char **argv); /* bench_prove.c */
int cuzk__bench_batch(int argc, char **argv); /* bench_batch.c */
int cuzk__bench_stress(int argc, char **argv); /* tools/cuzk/stress_cmd.c */

#define CUZK_BENCH_MAX_BATCHES 64
#define CUZK_BENCH_DEFAULT_ITERS 10
/* One unit of CUZK_BENCH_ITERS / --iters is this much time per batch. */
#define CUZK_BENCH_NS_PER_ITER 4000000.0

typedef struct {
    double batch_ns; /* target length of one timed batch */
    int batches;     /* timed batches per operation (>= 7 for a useful median) */
    long iters;      /* the scale it came from, for the report */
    int json;        /* print one JSON object instead of the table */
    char bad[160];   /* after cuzk_bench_cfg_init returned -1: what was wrong */
} cuzk_bench_cfg;

typedef struct {
    const char *name; /* stable machine name, e.g. "fp_mul" */
    const char *desc; /* human description */
    double min_ns, median_ns; /* per operation */
    uint64_t n;       /* operations per batch */
    int ran;          /* 0: not available in this build */
} cuzk_bench_result;

/* Runs n chained repetitions of one operation; returns a word of the result. */
typedef uint64_t (*cuzk_bench_fn)(void *ctx, uint64_t n);

static volatile uint64_t cuzk_bench_sink;

/* The clock of cuzk_bench_now_ns: CLOCK_MONOTONIC (wall time) by default;
 * single-threaded benches default to CLOCK_THREAD_CPUTIME_ID, which does not
 * advance while the thread waits for a core. On a shared, oversubscribed
 * machine that removes most of the noise (doc/bench.md); it stays wrong for
 * anything multi-threaded or waiting on I/O or a GPU. */
static clockid_t cuzk_bench_clock = CLOCK_MONOTONIC;

static inline const char *cuzk_bench_clock_name(void) {
    return cuzk_bench_clock == CLOCK_THREAD_CPUTIME_ID ? "thread-cpu" : "wall";
}

static inline uint64_t cuzk_bench_now_ns(void) {
    struct timespec ts;
    clock_gettime(cuzk_bench_clock, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cuzk_bench_cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static inline double cuzk_bench_min(const double *v, int n) {
    double m = v[0];
    for (int i = 1; i < n; i++)
        if (v[i] < m) m = v[i];
    return m;
}

/* Median of n values (the mean of the middle two when n is even); v is sorted in place. */
static inline double cuzk_bench_median(double *v, int n) {
    qsort(v, (size_t)n, sizeof(double), cuzk_bench_cmp_double);
    return (n & 1) ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Parses the common options; a flag beats the environment beats the default.
 *   --iters N / CUZK_BENCH_ITERS=N   each batch lasts N * 4 ms (default 40 ms);
 *                                    9 batches per operation
 *   --clock wall|cpu / CUZK_BENCH_CLOCK   the clock (default: default_clock)
 *   --json                           one JSON object instead of the table
 * Consumes those from argv; returns -1 on a bad argument (cfg->bad then says
 * which and what it accepts, e.g. "--iters 0: must be 1..100000"), else the
 * number of arguments left in argv (compacted). */
static inline int cuzk_bench_cfg_init(cuzk_bench_cfg *cfg, int argc, char **argv,
                                      clockid_t default_clock) {
    long iters = CUZK_BENCH_DEFAULT_ITERS;
    const char *iters_from = "CUZK_BENCH_ITERS", *clk_from = "CUZK_BENCH_CLOCK";
    const char *iters_s = getenv("CUZK_BENCH_ITERS");
    const char *clk = getenv("CUZK_BENCH_CLOCK");
    cfg->json = 0;
    cfg->bad[0] = '\0';
    int out = 0;
    for (int i = 0; i < argc; i++) {
        int takes_value = strcmp(argv[i], "--clock") == 0 || strcmp(argv[i], "--iters") == 0;
        if (takes_value && i + 1 >= argc) {
            snprintf(cfg->bad, sizeof(cfg->bad), "%s: needs a value", argv[i]);
            return -1;
        }
        if (strcmp(argv[i], "--json") == 0) {
            cfg->json = 1;
        } else if (strcmp(argv[i], "--clock") == 0) {
            clk_from = argv[i];
            clk = argv[++i];
        } else if (strcmp(argv[i], "--iters") == 0) {
            iters_from = argv[i];
            iters_s = argv[++i];
        } else {
            argv[out++] = argv[i];
        }
    }
    if (iters_s && *iters_s) {
        char *end;
        iters = strtol(iters_s, &end, 0);
        if (*end != '\0' || iters < 1 || iters > 100000) {
            snprintf(cfg->bad, sizeof(cfg->bad), "%s%s%s: must be 1..100000", iters_from,
                     iters_from[0] == '-' ? " " : "=", iters_s);
            return -1;
        }
    }
    if (!clk || !*clk) {
        cuzk_bench_clock = default_clock;
    } else if (strcmp(clk, "cpu") == 0) {
        cuzk_bench_clock = CLOCK_THREAD_CPUTIME_ID;
    } else if (strcmp(clk, "wall") == 0) {
        cuzk_bench_clock = CLOCK_MONOTONIC;
    } else {
        snprintf(cfg->bad, sizeof(cfg->bad), "%s%s%s: must be cpu or wall", clk_from,
                 clk_from[0] == '-' ? " " : "=", clk);
        return -1;
    }
    cfg->iters = iters;
    cfg->batch_ns = CUZK_BENCH_NS_PER_ITER * (double)iters;
    cfg->batches = 9;
    return out;
}

/* Calibrates, warms up and times one operation (see the top of this file). */
static inline void cuzk_bench_time(const cuzk_bench_cfg *cfg, cuzk_bench_result *res,
                                   cuzk_bench_fn fn, void *ctx) {
    uint64_t n = 1, t;
    /* Calibration: grow n until one batch reaches the target length. Each
     * step aims 10% past the target from the last rate, at most 100x at once,
     * so a slow first run (cold caches, page faults) cannot overshoot far. */
    for (;;) {
        uint64_t t0 = cuzk_bench_now_ns();
        cuzk_bench_sink ^= fn(ctx, n);
        t = cuzk_bench_now_ns() - t0;
        if ((double)t >= cfg->batch_ns) break;
        double want = t ? (double)n * cfg->batch_ns * 1.1 / (double)t : (double)n * 100;
        if (want > (double)n * 100) want = (double)n * 100;
        uint64_t next = (uint64_t)want;
        n = next > n ? next : n + 1;
    }
    /* The calibration's last batch was the warm-up; now the timed batches. */
    double per_op[CUZK_BENCH_MAX_BATCHES];
    int b = cfg->batches < CUZK_BENCH_MAX_BATCHES ? cfg->batches : CUZK_BENCH_MAX_BATCHES;
    for (int i = 0; i < b; i++) {
        uint64_t t0 = cuzk_bench_now_ns();
        cuzk_bench_sink ^= fn(ctx, n);
        t = cuzk_bench_now_ns() - t0;
        per_op[i] = (double)t / (double)n;
    }
    res->n = n;
    res->min_ns = cuzk_bench_min(per_op, b);
    res->median_ns = cuzk_bench_median(per_op, b);
    res->ran = 1;
}

/* Output, shared so that every bench prints the same columns:
 *   operation  min ns/op  median ns/op  ops/batch  description      */
static inline void cuzk_bench_print_header(const char *title, const char *kernels,
                                           const cuzk_bench_cfg *cfg) {
    printf("%s (field kernels: %s; %d batches of ~%.0f ms per operation, iters=%ld, %s clock)\n",
           title, kernels, cfg->batches, cfg->batch_ns / 1e6, cfg->iters, cuzk_bench_clock_name());
    printf("%-20s %14s %14s %10s  %s\n", "operation", "min ns/op", "median ns/op", "ops/batch",
           "description");
}

static inline void cuzk_bench_print_row(const cuzk_bench_result *r) {
    if (!r->ran) {
        printf("%-20s %14s %14s %10s  %s\n", r->name, "-", "-", "-", r->desc);
        return;
    }
    printf("%-20s %14.1f %14.1f %10llu  %s\n", r->name, r->min_ns, r->median_ns,
           (unsigned long long)r->n, r->desc);
    fflush(stdout);
}

/* One JSON object; operations not available in this build are left out. */
static inline void cuzk_bench_print_json(const char *bench, const char *impl, const char *kernels,
                                         const cuzk_bench_cfg *cfg, const cuzk_bench_result *r,
                                         int count) {
    printf("{\"bench\":\"%s\",\"impl\":\"%s\",\"kernels\":\"%s\",\"iters\":%ld,"
           "\"batches\":%d,\"batch_ms\":%.1f,\"clock\":\"%s\",\"unit\":\"ns/op\",\"results\":[",
           bench, impl, kernels, cfg->iters, cfg->batches, cfg->batch_ns / 1e6,
           cuzk_bench_clock_name());
    int first = 1;
    for (int i = 0; i < count; i++) {
        if (!r[i].ran) continue;
        printf("%s\n  {\"op\":\"%s\",\"min_ns\":%.2f,\"median_ns\":%.2f,\"ops_per_batch\":%llu}",
               first ? "" : ",", r[i].name, r[i].min_ns, r[i].median_ns,
               (unsigned long long)r[i].n);
        first = 0;
    }
    printf("\n]}\n");
}

#endif /* CUZK_BENCH_H */
