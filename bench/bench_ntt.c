/*
 * bench_ntt.c — `cuzk bench ntt`: milliseconds per NTT over Fr, by size and
 * thread count, next to the arithmetic floor.
 *
 *   cuzk bench ntt [--log N|A-B]... [--threads T] [--reps R] [--all] [--clock C] [--json]
 *                  [--backend cpu|gpu]
 *
 * --log may repeat (or take "A-B"); the default list is 16..22. --all adds a
 * coset transform and the two H computations to the three transforms timed
 * by default (forward NR and NN, inverse NN). --threads
 * sets the OpenMP thread count (default: omp_get_max_threads()). Each
 * operation runs once as warm-up, then R times (default 5, fewer above 2^22);
 * min and median are printed. The clock is the wall clock when more than one
 * thread works, else the thread's CPU clock, which on a shared, busy machine
 * leaves out the time spent waiting for a core (bench.h); --clock wall|cpu
 * overrides. The Fr mul/add latencies are taken on the same clock.
 *
 * The floor: a radix-2 transform of size n does (n/2)*log2(n) butterflies,
 * each one Fr multiplication plus an addition and a subtraction. floor_ms
 * counts the multiplications only, at the Fr mul latency measured here on one
 * thread, divided by the thread count; bfly_ms adds the addition and the
 * subtraction. Memory traffic is not in the floor: at ~25 ns per butterfly a
 * core needs ~2.5 GB/s, far below what it gets, so the transform is bound by
 * the multiplier.
 *
 * --backend gpu (builds with CUDA only): the same operations plus the coset
 * inverse on the GPU (src/gpu/ntt.cu), data resident on the device, timed
 * with CUDA events (median and min of R runs, default 10, after a warm-up);
 * floor_ms there is (n/2)*log2(n) Fr muls at 50.3e9 Fr mul/s (an H200's
 * Montgomery Fr product rate), per NTT.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "opt.h"
#include "cuzk.h"
#include "ff/fr.h"
#include "poly/h.h"
#include "poly/ntt.h"

#if CUZK_HAVE_CUDA
#include "gpu/gpu.h"
#include "gpu/gpu_ntt.h"
#endif

#if defined(CUZK_HAVE_OPENMP) && defined(_OPENMP)
#include <omp.h>
#define BENCH_HAVE_OMP 1
#else
#define BENCH_HAVE_OMP 0
#endif


#define MAX_LOGS 33
#define MAX_REPS 64

static uint64_t ntt_rng = 0x452821e638d01377ULL;

static uint64_t rand64(void) {
    uint64_t z = (ntt_rng += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static void rand_fr(cuzk_fr *r) {
    uint64_t l[CUZK_FR_LIMBS];
    do {
        for (int i = 0; i < CUZK_FR_LIMBS; i++) l[i] = rand64();
        l[CUZK_FR_LIMBS - 1] &= 0x7fffffffffffffffULL;
    } while (!cuzk__lt_n(l, cuzk__fr_r, CUZK_FR_LIMBS));
    cuzk_fr_from_limbs(r, l);
}

/* ns per Fr mul and per Fr add on one thread (chained, min of 5 runs). */
static void fr_latency(double *mul_ns, double *add_ns) {
    cuzk_fr x, y;
    rand_fr(&x);
    rand_fr(&y);
    const int n = 1 << 20;
    double best_m = 1e9, best_a = 1e9;
    for (int r = 0; r < 5; r++) {
        uint64_t t0 = cuzk_bench_now_ns();
        for (int i = 0; i < n; i++) cuzk_fr_mul(&x, &x, &y);
        uint64_t t1 = cuzk_bench_now_ns();
        for (int i = 0; i < n; i++) cuzk_fr_add(&x, &x, &y);
        uint64_t t2 = cuzk_bench_now_ns();
        double m = (double)(t1 - t0) / n, a = (double)(t2 - t1) / n;
        if (m < best_m) best_m = m;
        if (a < best_a) best_a = a;
    }
    cuzk_bench_sink ^= x.l[0];
    *mul_ns = best_m;
    *add_ns = best_a;
}

typedef struct {
    const char *name;
    double min_ms, med_ms;
} op_result;

enum { OP_FWD_NR, OP_FWD_NN, OP_INV_NN, OP_COSET_FWD, OP_H_SNARKJS, OP_H_BELLMAN, OP_COUNT };
static const char *op_names[OP_COUNT] = {"fwd_nr", "fwd_nn", "inv_nn", "coset_fwd_nn",
                                         "h_snarkjs", "h_bellman"};

/* One run of op on v (3n elements for H); returns nonzero on failure. */
static int run_op(int op, const cuzk_ntt_domain *d, cuzk_fr *v) {
    size_t n = d->n;
    cuzk_fr g;
    cuzk_fr_from_u64(&g, 7);
    switch (op) {
    case OP_FWD_NR: return cuzk_ntt_forward(d, v, n, CUZK_NTT_NR) != CUZK_OK;
    case OP_FWD_NN: return cuzk_ntt_forward(d, v, n, CUZK_NTT_NN) != CUZK_OK;
    case OP_INV_NN: return cuzk_ntt_inverse(d, v, n, CUZK_NTT_NN) != CUZK_OK;
    case OP_COSET_FWD: return cuzk_ntt_coset_forward(d, v, n, CUZK_NTT_NN, &g) != CUZK_OK;
    case OP_H_SNARKJS: return cuzk_h_snarkjs(d, v, v + n, v + 2 * n, n) != CUZK_OK;
    case OP_H_BELLMAN: return cuzk_h_bellman(d, v, v + n, v + 2 * n, n) != CUZK_OK;
    }
    return 1;
}

/* --log N or A-B; -1 after printing what is wrong. */
static int parse_logs(const char *s, unsigned *logs, int *count) {
    char *end;
    long a = strtol(s, &end, 10), b = a;
    if (end != s && *end == '-') b = strtol(end + 1, &end, 10);
    if (end == s || *end != '\0' || a < 0 || b < a || b > CUZK_NTT_MAX_LOG) {
        fprintf(stderr, "cuzk bench ntt: --log %s: must be N or A-B with 0 <= A <= B <= %d\n", s,
                CUZK_NTT_MAX_LOG);
        return -1;
    }
    for (long k = a; k <= b; k++) {
        if (*count >= MAX_LOGS) {
            fprintf(stderr, "cuzk bench ntt: --log %s: more than %d sizes in all\n", s,
                    MAX_LOGS);
            return -1;
        }
        logs[(*count)++] = (unsigned)k;
    }
    return 0;
}

#if CUZK_HAVE_CUDA
/* --backend gpu: every operation of gpu_ntt.h's bench list per size. */
static int bench_ntt_gpu(const unsigned *logs, int nlogs, int reps, int json) {
    static const char *names[CUZK__GPU_BENCH_COUNT] = {
        "fwd_nr", "fwd_nn", "inv_nn", "coset_fwd_nn", "coset_inv_nn", "h_snarkjs", "h_bellman"};
    static const double ntts[CUZK__GPU_BENCH_COUNT] = {1, 1, 1, 1, 1, 6, 7};
    int count = 0, rc = 0, first = 1;
    if (cuzk__gpu_device_count(&count) != CUZK_OK || count == 0) {
        fprintf(stderr, "cuzk bench ntt: no CUDA device (%s)\n", cuzk__gpu_last_error());
        return 1;
    }
    char name[128] = "";
    int sms = 0;
    if (cuzk__gpu_device_name(0, name, sizeof name, &sms) != CUZK_OK) name[0] = '\0';
    if (json)
        printf("{\"bench\":\"ntt\",\"backend\":\"gpu\",\"device\":\"%s\",\"unit\":\"ms\","
               "\"results\":[",
               name);
    else
        printf("cuzk bench ntt --backend gpu (%s, %d SMs; CUDA events, data on the device)\n"
               "%-4s %-13s %5s %10s %10s %10s\n",
               name, sms, "log", "operation", "reps", "min ms", "median ms", "floor ms");
    for (int li = 0; li < nlogs; li++) {
        unsigned k = logs[li];
        cuzk__gpu_ntt_domain *d = NULL;
        if (k > CUZK__GPU_NTT_MAX_LOG || cuzk__gpu_ntt_domain_create(&d, k, 5) != CUZK_OK) {
            fprintf(stderr, "cuzk bench ntt: 2^%u: %s\n", k,
                    k > CUZK__GPU_NTT_MAX_LOG ? "too large for the GPU" : cuzk__gpu_last_error());
            rc = 1;
            continue;
        }
        double n = (double)((size_t)1 << k);
        for (int op = 0; op < CUZK__GPU_BENCH_COUNT; op++) {
            cuzk__gpu_ntt_bench_result res;
            if (cuzk__gpu_ntt_bench(&res, d, (cuzk__gpu_ntt_bench_op)op, (unsigned)reps) !=
                CUZK_OK) {
                fprintf(stderr, "cuzk bench ntt: %s 2^%u: %s\n", names[op], k,
                        cuzk__gpu_last_error());
                rc = 1;
                continue;
            }
            double floor_ms = ntts[op] * n / 2 * k / 50.3e9 * 1e3;
            if (json) {
                printf("%s\n  {\"log\":%u,\"op\":\"%s\",\"reps\":%d,\"min_ms\":%.3f,"
                       "\"median_ms\":%.3f,\"floor_ms\":%.3f}",
                       first ? "" : ",", k, names[op], reps, res.ms_min, res.ms_median, floor_ms);
                first = 0;
            } else {
                printf("%-4u %-13s %5d %10.3f %10.3f %10.2f\n", k, names[op], reps, res.ms_min,
                       res.ms_median, floor_ms);
            }
            fflush(stdout);
        }
        cuzk__gpu_ntt_domain_destroy(d);
    }
    if (json) printf("\n]}\n");
    return rc;
}
#endif

int cuzk__bench_ntt(int argc, char **argv) {
    unsigned logs[MAX_LOGS];
    int nlogs = 0, threads = 0, reps_arg = 0, json = 0, all_ops = 0, gpu = 0;
    const char *clk = NULL;
    static const char cmd[] = "cuzk bench ntt";
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) goto bad;
        if (strcmp(a, "--json") == 0) {
            json = 1;
            continue;
        }
        if (strcmp(a, "--all") == 0) {
            all_ops = 1;
            continue;
        }
        if (strcmp(a, "--log") != 0 && strcmp(a, "--threads") != 0 && strcmp(a, "--reps") != 0 &&
            strcmp(a, "--clock") != 0 && strcmp(a, "--backend") != 0) {
            cuzk__opt_unknown(cmd, a);
            goto bad;
        }
        const char *v = cuzk__opt_value(cmd, argc, argv, &i);
        if (v == NULL) return 2;
        if (strcmp(a, "--log") == 0) {
            if (parse_logs(v, logs, &nlogs) != 0) return 2;
        } else if (strcmp(a, "--threads") == 0) {
            if (!cuzk__opt_int(cmd, a, v, 1, 4096, &threads)) return 2;
        } else if (strcmp(a, "--reps") == 0) {
            if (!cuzk__opt_int(cmd, a, v, 1, MAX_REPS, &reps_arg)) return 2;
        } else if (strcmp(a, "--clock") == 0) {
            static const char *const clocks[] = {"wall", "cpu"};
            if (cuzk__opt_choice(cmd, a, v, clocks, 2) < 0) return 2;
            clk = v;
        } else {
            static const char *const backends[] = {"cpu", "gpu"};
            int k = cuzk__opt_choice(cmd, a, v, backends, 2);
            if (k < 0) return 2;
            gpu = k == 1;
        }
    }
    if (nlogs == 0)
        for (unsigned k = 16; k <= 22; k++) logs[nlogs++] = k;
    if (gpu) {
#if CUZK_HAVE_CUDA
        return bench_ntt_gpu(logs, nlogs, reps_arg ? reps_arg : 10, json);
#else
        fprintf(stderr, "cuzk bench ntt: built without CUDA: --backend gpu is not available\n");
        return 2;
#endif
    }
#if BENCH_HAVE_OMP
    if (threads) omp_set_num_threads(threads);
    threads = omp_get_max_threads();
#else
    if (threads > 1) fprintf(stderr, "cuzk bench ntt: built without OpenMP, using 1 thread\n");
    threads = 1;
#endif
    if (clk)
        cuzk_bench_clock = strcmp(clk, "cpu") == 0 ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC;
    else
        cuzk_bench_clock = threads == 1 ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC;
    int nops = all_ops ? OP_COUNT : OP_INV_NN + 1;

    double mul_ns, add_ns;
    fr_latency(&mul_ns, &add_ns);
    const char *kernels = cuzk_cpu_kernels();
    if (json) {
        printf("{\"bench\":\"ntt\",\"kernels\":\"%s\",\"threads\":%d,\"clock\":\"%s\","
               "\"fr_mul_ns\":%.2f,\"fr_add_ns\":%.2f,\"unit\":\"ms\",\"results\":[",
               kernels, threads, cuzk_bench_clock_name(), mul_ns, add_ns);
    } else {
        printf("cuzk bench ntt (field kernels: %s; %d thread%s; %s clock; Fr mul %.1f ns, "
               "add %.1f ns on one thread)\n",
               kernels, threads, threads == 1 ? "" : "s", cuzk_bench_clock_name(), mul_ns, add_ns);
        printf("floor_ms = (n/2)*log2(n) Fr muls / threads; bfly_ms adds the add and sub\n");
        printf("%-4s %-13s %5s %10s %10s %10s %10s %7s %s\n", "log", "operation", "reps", "min ms",
               "median ms", "floor ms", "bfly ms", "min/flr", "");
    }

    int first = 1, rc = 0;
    for (int li = 0; li < nlogs; li++) {
        unsigned k = logs[li];
        cuzk_ntt_domain d;
        uint64_t t0 = cuzk_bench_now_ns();
        cuzk_status st = cuzk_ntt_domain_init(&d, k, CUZK_NTT_ROOT5);
        double init_ms = (double)(cuzk_bench_now_ns() - t0) / 1e6;
        if (st != CUZK_OK) {
            fprintf(stderr, "cuzk bench ntt: 2^%u: %s\n", k, cuzk_strerror(st));
            rc = 1;
            continue;
        }
        size_t n = d.n;
        size_t elems = all_ops ? 3 * n : n;
        cuzk_fr *v = aligned_alloc(64, (elems * sizeof(cuzk_fr) + 63) & ~(size_t)63);
        if (!v) {
            fprintf(stderr, "cuzk bench ntt: 2^%u: out of memory\n", k);
            cuzk_ntt_domain_free(&d);
            rc = 1;
            continue;
        }
        for (size_t i = 0; i < elems; i++) rand_fr(&v[i]);
        double bfly = (double)n / 2 * (double)k;
        double floor_ms = bfly * mul_ns / threads / 1e6;
        double bfly_ms = bfly * (mul_ns + 2 * add_ns) / threads / 1e6;
        int reps = reps_arg ? reps_arg : (k <= 22 ? 5 : 3);
        if (!json)
            printf("%-4u %-13s %5s %10.2f %10s %10s %10s %7s (n = %zu, %.0f MiB twiddles)\n", k,
                   "domain_init", "1", init_ms, "", "", "", "", n,
                   (double)cuzk_ntt_domain_sizeof(k) / (1 << 20));
        for (int op = 0; op < nops; op++) {
            double ms[MAX_REPS];
            int bad = run_op(op, &d, v); /* warm-up */
            for (int r = 0; r < reps && !bad; r++) {
                uint64_t s0 = cuzk_bench_now_ns();
                bad |= run_op(op, &d, v);
                ms[r] = (double)(cuzk_bench_now_ns() - s0) / 1e6;
            }
            if (bad) {
                fprintf(stderr, "cuzk bench ntt: %s failed\n", op_names[op]);
                rc = 1;
                continue;
            }
            double mn = cuzk_bench_min(ms, reps), md = cuzk_bench_median(ms, reps);
            /* the floor is per NTT; H does 6 (snarkjs) or 7 (bellman) */
            double per = op == OP_H_SNARKJS ? 6 : op == OP_H_BELLMAN ? 7 : 1;
            if (json) {
                printf("%s\n  {\"log\":%u,\"op\":\"%s\",\"reps\":%d,\"min_ms\":%.3f,"
                       "\"median_ms\":%.3f,\"floor_ms\":%.3f,\"bfly_ms\":%.3f}",
                       first ? "" : ",", k, op_names[op], reps, mn, md, floor_ms * per,
                       bfly_ms * per);
                first = 0;
            } else {
                printf("%-4u %-13s %5d %10.2f %10.2f %10.2f %10.2f %7.2f\n", k, op_names[op], reps,
                       mn, md, floor_ms * per, bfly_ms * per, mn / (floor_ms * per));
            }
            fflush(stdout);
        }
        cuzk_bench_sink ^= v[0].l[0];
        free(v);
        cuzk_ntt_domain_free(&d);
    }
    if (json) printf("\n]}\n");
    return rc;

bad:
    fprintf(stderr, "usage: cuzk bench ntt [--log N|A-B]... [--threads T] [--reps R] [--all] "
                    "[--clock wall|cpu] [--json] [--backend cpu|gpu]\n");
    return 2;
}
