/*
 * bench_msm.c — `cuzk bench msm`: milliseconds per CPU multi-scalar
 * multiplication (src/msm/msm.h), G1 and G2, one thread and all threads, plus
 * the bitmap batch-add.
 *
 *   cuzk bench msm [--log N]... [--g1] [--g2] [--threads T] [--reps R] [--no-batch-add]
 *                  [--path auto|xyzz|affine] [--c BITS] [--glv auto|on|off]
 *                  [--reduce tree|sum] [--backend cpu|gpu] [--copies K] [--profile]
 *
 * Defaults: G1 at 2^10..2^18, G2 at 2^10..2^14; threads 1 and all cores
 * (--threads T: only T; 0 = all); R = 3 runs per row after one warm-up run,
 * min and median reported. One-thread rows are timed on the thread's CPU clock
 * (bench.h: the machine's load does not count), multi-thread rows on the wall
 * clock. Inputs: bases from a random walk P_i+1 = P_i + S_j (8 random steps
 * S_j), uniform scalars below r from a fixed-seed generator (bench_field.c's),
 * so runs compare like with like; bench/blst/bench_blst.c (`msm` mode) times
 * blst_p1s_mult_pippenger on the same sizes with the same columns.
 * --path forces the bucket accumulation (msm.h: XYZZ mixed additions or
 * batch-affine additions); the default picks by window size. --c forces the
 * window (tuning only; the printed c is then the forced one). --glv forces
 * the G1 MSM's GLV route on or off at every size, --reduce the affine
 * buckets' reduction (trees or the plain running sum), for A/B timings. These
 * go to the MSM as a cuzk_msm_opts (msm.h), scratch sized for them.
 * --backend gpu (CUDA builds only): the same rows on the GPU (src/gpu/gpu_msm.h),
 * bases uploaded once per group, scalars from the host (their upload is timed),
 * wall clock; --c then forces the GPU window. --copies K (GPU): the handle
 * keeps K shifted copies of its bases (gpu_msm.h: cuzk__gpu_msm_bases_precompute),
 * made once before the rows; the c column is then the window each row uses.
 * --profile (GPU): each MSM also reports on stderr the GPU time of each of
 * its phases (gpu_msm.h cuzk__gpu_msm_config.profile).
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "cuzk.h"
#include "ff/fr.h"
#include "ec/g1.h"
#include "ec/g2.h"
#include "msm/msm.h"
#include "opt.h"
#if CUZK_HAVE_CUDA
#include "gpu/gpu.h"
#include "gpu/gpu_msm.h"
#endif

static uint64_t msm_rng = 0x243f6a8885a308d3ULL;

static uint64_t msm_rand64(void) {
    uint64_t z = (msm_rng += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static void msm_rand_scalar(uint64_t k[4]) {
    do {
        for (int i = 0; i < 4; i++) k[i] = msm_rand64();
        k[3] &= 0x7fffffffffffffffULL;
    } while (!cuzk__lt_n(k, cuzk__fr_r, 4));
}

static double now_ms(clockid_t clk) {
    struct timespec ts;
    clock_gettime(clk, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Stamped for G1 and G2: make_bases_g?, run_g? */
#define MSM_BENCH_GROUP(g, fe_t)                                                              \
    static int make_bases_##g(cuzk_##g##_aff *out, size_t n) {                                \
        cuzk_##g##_aff gen;                                                                   \
        cuzk_##g##_jac gj, steps[8], cur;                                                     \
        cuzk_##g##_generator(&gen);                                                           \
        cuzk_##g##_aff_to_jac(&gj, &gen);                                                     \
        for (int j = 0; j < 8; j++) {                                                         \
            uint64_t k[4];                                                                    \
            msm_rand_scalar(k);                                                               \
            cuzk_##g##_jac_mul_var(&steps[j], &gj, k, 4);                                     \
        }                                                                                     \
        cur = steps[0];                                                                       \
        size_t chunk = 4096;                                                                  \
        cuzk_##g##_jac *tmp = malloc(chunk * sizeof(*tmp));                                   \
        fe_t *scr = malloc(chunk * sizeof(*scr));                                             \
        if (!tmp || !scr) {                                                                   \
            free(tmp);                                                                        \
            free(scr);                                                                        \
            return 0;                                                                         \
        }                                                                                     \
        for (size_t i0 = 0; i0 < n; i0 += chunk) {                                            \
            size_t m = n - i0 < chunk ? n - i0 : chunk;                                       \
            for (size_t i = 0; i < m; i++) {                                                  \
                cuzk_##g##_jac_add_var(&cur, &cur, &steps[msm_rand64() % 8]);                 \
                tmp[i] = cur;                                                                 \
            }                                                                                 \
            cuzk_##g##_jac_batch_to_aff_var(out + i0, tmp, m, scr);                           \
        }                                                                                     \
        free(tmp);                                                                            \
        free(scr);                                                                            \
        return 1;                                                                             \
    }                                                                                         \
    /* min and median ms of reps runs (after one warm-up); kind 0 = MSM, 1 = batch-add */     \
    static int run_##g(double *min_ms, double *med_ms, const cuzk_##g##_aff *bases,           \
                       const uint64_t(*k)[4], size_t n, unsigned threads, int reps, int kind, \
                       const cuzk_msm_opts *opts) {                                           \
        clockid_t clk = threads == 1 ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC;             \
        size_t bytes = kind == 0 ? cuzk_##g##_msm_scratch_sizeof_opts(n, threads, opts)       \
                                 : cuzk_##g##_batch_add_scratch_sizeof(threads);              \
        void *scratch = malloc(bytes);                                                        \
        double t[CUZK_BENCH_MAX_BATCHES];                                                     \
        if (!scratch) return 0;                                                               \
        for (int r = -1; r < reps; r++) {                                                     \
            cuzk_##g##_jac out;                                                               \
            double t0 = now_ms(clk);                                                          \
            cuzk_status st =                                                                  \
                kind == 0                                                                     \
                    ? cuzk_##g##_msm_opts_var(&out, bases, k, n, NULL, threads, scratch, opts) \
                    : cuzk_##g##_batch_add_var(&out, bases, n, NULL, threads, scratch);       \
            double t1 = now_ms(clk);                                                          \
            if (st != CUZK_OK) {                                                              \
                free(scratch);                                                                \
                return 0;                                                                     \
            }                                                                                 \
            cuzk_bench_sink ^= *(const uint64_t *)&out; /* keep the result */                 \
            if (r >= 0) t[r] = t1 - t0;                                                       \
        }                                                                                     \
        free(scratch);                                                                        \
        *min_ms = cuzk_bench_min(t, reps);                                                    \
        *med_ms = cuzk_bench_median(t, reps);                                                 \
        return 1;                                                                             \
    }

MSM_BENCH_GROUP(g1, cuzk_fp)
MSM_BENCH_GROUP(g2, cuzk_fp2)

#if CUZK_HAVE_CUDA
/* min and median ms of reps GPU runs after one warm-up (wall clock, host scalars). */
static int run_gpu(double *min_ms, double *med_ms, cuzk__gpu_msm_bases *h, const uint64_t (*k)[4],
                   size_t n, int reps, int kind) {
    double t[CUZK_BENCH_MAX_BATCHES];
    for (int r = -1; r < reps; r++) {
        uint64_t out[36]; /* a G2 Jacobian point */
        double t0 = now_ms(CLOCK_MONOTONIC);
        cuzk_status st = kind == 0 ? cuzk__gpu_msm(h, out, (const uint64_t *)k, n, NULL)
                                   : cuzk__gpu_msm_batch_add(h, out, n, NULL);
        double t1 = now_ms(CLOCK_MONOTONIC);
        if (st != CUZK_OK) {
            fprintf(stderr, "gpu msm: %s: %s\n", cuzk_status_name(st), cuzk__gpu_last_error());
            return 0;
        }
        cuzk_bench_sink ^= out[0];
        if (r >= 0) t[r] = t1 - t0;
    }
    *min_ms = cuzk_bench_min(t, reps);
    *med_ms = cuzk_bench_median(t, reps);
    return 1;
}
#endif

static int usage(void) {
    fprintf(stderr, "usage: cuzk bench msm [--log N]... [--g1] [--g2] [--threads T] [--reps R] "
                    "[--no-batch-add] [--path auto|xyzz|affine] [--c BITS] [--glv auto|on|off] "
                    "[--reduce tree|sum] [--backend cpu|gpu] [--copies K] [--profile]\n");
    return 2;
}

#define CMD "cuzk bench msm"

/* Option a takes a value and none follows: 1 after printing which. */
static int value_missing(const char *a, int i, int argc) {
    static const char *const with_value[] = {"--log",    "--threads", "--reps",    "--path",
                                             "--glv",    "--reduce",  "--c",       "--backend",
                                             "--copies"};
    for (size_t k = 0; k < sizeof(with_value) / sizeof(with_value[0]); k++)
        if (strcmp(a, with_value[k]) == 0 && i + 1 >= argc) {
            fprintf(stderr, "%s: %s: needs a value\n", CMD, a);
            return 1;
        }
    return 0;
}

/* "CMD: OPT VAL: must be WHAT" (WHAT formatted) and the usage error status. */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int bad_value(const char *opt, const char *val, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: %s %s: must be ", CMD, opt, val);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return 2;
}

int cuzk__bench_msm(int argc, char **argv) {
    int logs[32], nlogs = 0, want_g1 = 0, want_g2 = 0, reps = 3, batch_add = 1, gpu = 0;
    int profile = 0;
    unsigned copies = 1;
    long threads_opt = -1;
    cuzk_msm_opts opts = {0, CUZK_MSM_PATH_AUTO, CUZK_MSM_REDUCE_TREE, CUZK_MSM_GLV_AUTO};
    for (int i = 0; i < argc; i++) {
        char *end;
        if (value_missing(argv[i], i, argc)) return 2;
        if (strcmp(argv[i], "--log") == 0 && nlogs >= 32)
            return bad_value(argv[i], argv[i + 1], "given at most 32 times");
        if (strcmp(argv[i], "--log") == 0 && i + 1 < argc && nlogs < 32) {
            long v = strtol(argv[++i], &end, 0);
            if (*end || v < 0 || v > 26) return bad_value("--log", argv[i], "0..26");
            logs[nlogs++] = (int)v;
        } else if (strcmp(argv[i], "--g1") == 0) {
            want_g1 = 1;
        } else if (strcmp(argv[i], "--g2") == 0) {
            want_g2 = 1;
        } else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
            threads_opt = strtol(argv[++i], &end, 0);
            if (*end || threads_opt < 0 || threads_opt > 4096)
                return bad_value("--threads", argv[i], "0..4096 (0 = all cores)");
        } else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
            reps = (int)strtol(argv[++i], &end, 0);
            if (*end || reps < 1 || reps > CUZK_BENCH_MAX_BATCHES)
                return bad_value("--reps", argv[i], "1..%d", CUZK_BENCH_MAX_BATCHES);
        } else if (strcmp(argv[i], "--path") == 0 && i + 1 < argc) {
            i++;
            if (strcmp(argv[i], "auto") == 0)
                opts.path = CUZK_MSM_PATH_AUTO;
            else if (strcmp(argv[i], "xyzz") == 0)
                opts.path = CUZK_MSM_PATH_XYZZ;
            else if (strcmp(argv[i], "affine") == 0)
                opts.path = CUZK_MSM_PATH_AFFINE;
            else
                return bad_value("--path", argv[i], "auto, xyzz or affine");
        } else if (strcmp(argv[i], "--glv") == 0 && i + 1 < argc) {
            i++;
            if (strcmp(argv[i], "auto") == 0)
                opts.glv = CUZK_MSM_GLV_AUTO;
            else if (strcmp(argv[i], "on") == 0)
                opts.glv = CUZK_MSM_GLV_ON;
            else if (strcmp(argv[i], "off") == 0)
                opts.glv = CUZK_MSM_GLV_OFF;
            else
                return bad_value("--glv", argv[i], "auto, on or off");
        } else if (strcmp(argv[i], "--reduce") == 0 && i + 1 < argc) {
            i++;
            if (strcmp(argv[i], "tree") == 0)
                opts.reduce = CUZK_MSM_REDUCE_TREE;
            else if (strcmp(argv[i], "sum") == 0)
                opts.reduce = CUZK_MSM_REDUCE_RUNNING;
            else
                return bad_value("--reduce", argv[i], "tree or sum");
        } else if (strcmp(argv[i], "--c") == 0 && i + 1 < argc) {
            long v = strtol(argv[++i], &end, 0);
            if (*end || v < 0 || v > CUZK_MSM_MAX_C)
                return bad_value("--c", argv[i], "0..%d (0 = by size)", CUZK_MSM_MAX_C);
            opts.c = (unsigned)v;
        } else if (strcmp(argv[i], "--backend") == 0 && i + 1 < argc) {
            i++;
            if (strcmp(argv[i], "cpu") == 0)
                gpu = 0;
            else if (strcmp(argv[i], "gpu") == 0)
                gpu = 1;
            else
                return bad_value("--backend", argv[i], "cpu or gpu");
        } else if (strcmp(argv[i], "--copies") == 0 && i + 1 < argc) {
            long v = strtol(argv[++i], &end, 0);
            if (*end || v < 1 || v > 256) return bad_value("--copies", argv[i], "1..256");
            copies = (unsigned)v;
        } else if (strcmp(argv[i], "--no-batch-add") == 0) {
            batch_add = 0;
        } else if (strcmp(argv[i], "--profile") == 0) {
            profile = 1;
        } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage();
            return 0;
        } else {
            cuzk__opt_unknown(CMD, argv[i]);
            return usage();
        }
    }
    if (!want_g1 && !want_g2) want_g1 = want_g2 = 1;
#if !CUZK_HAVE_CUDA
    (void)copies;
    (void)profile;
    if (gpu) {
        fprintf(stderr, "cuzk bench msm: --backend gpu needs a CUDA build\n");
        return 2;
    }
#endif
    unsigned all = cuzk_msm_threads(0);
    unsigned tl[2];
    int ntl = 0;
    if (threads_opt >= 0) {
        tl[ntl++] = (unsigned)threads_opt;
    } else {
        tl[ntl++] = 1;
        if (all > 1) tl[ntl++] = 0;
    }
    int g1_logs[32], g2_logs[32], n1 = 0, n2 = 0;
    if (nlogs) {
        for (int i = 0; i < nlogs; i++) g1_logs[n1++] = g2_logs[n2++] = logs[i];
    } else {
        for (int lg = 10; lg <= 18; lg += 2) g1_logs[n1++] = lg;
        for (int lg = 10; lg <= 14; lg += 2) g2_logs[n2++] = lg;
    }
    int maxlog = 0;
    for (int i = 0; i < n1; i++) maxlog = g1_logs[i] > maxlog ? g1_logs[i] : maxlog;
    for (int i = 0; i < n2; i++) maxlog = g2_logs[i] > maxlog ? g2_logs[i] : maxlog;
    size_t nmax = (size_t)1 << maxlog;

    uint64_t(*k)[4] = malloc(nmax * sizeof(*k));
    if (!k) return 1;
    for (size_t i = 0; i < nmax; i++) msm_rand_scalar(k[i]);

    printf("cuzk bench msm (field kernels: %s; %u OpenMP threads; min / median of %d runs "
           "after a warm-up; 1 thread: thread-cpu clock, more: wall clock)\n",
           cuzk_cpu_kernels(), all, reps);
    printf("%-10s %5s %9s %7s %3s %11s %11s %10s\n", "operation", "log2n", "n", "threads", "c",
           "min ms", "median ms", "ns/point");
    int rc = 0;
    for (int g = 1; g <= 2; g++) {
        if ((g == 1 && !want_g1) || (g == 2 && !want_g2)) continue;
        const int *lgs = g == 1 ? g1_logs : g2_logs;
        int nl = g == 1 ? n1 : n2;
        int top = 0;
        for (int i = 0; i < nl; i++) top = lgs[i] > top ? lgs[i] : top;
        size_t ntop = (size_t)1 << top;
        void *bases = malloc(ntop * (g == 1 ? sizeof(cuzk_g1_aff) : sizeof(cuzk_g2_aff)));
        if (!bases) {
            free(k);
            return 1;
        }
        int ok = g == 1 ? make_bases_g1(bases, ntop) : make_bases_g2(bases, ntop);
#if CUZK_HAVE_CUDA
        if (ok && gpu) {
            cuzk__gpu_msm_bases *h = NULL;
            cuzk_status st = cuzk__gpu_msm_bases_upload(
                &h, g == 1 ? CUZK__GPU_MSM_G1 : CUZK__GPU_MSM_G2, bases, ntop);
            if (st != CUZK_OK) {
                fprintf(stderr, "gpu upload: %s\n", cuzk__gpu_last_error());
                rc = 1;
            }
            const cuzk__gpu_msm_config cfg = {opts.c, 0, 0, 0, 0, profile, 0}; /* --c: the window */
            cuzk__gpu_msm_bases_configure(h, &cfg);
            if (st == CUZK_OK && copies > 1) {
                double t0 = now_ms(CLOCK_MONOTONIC);
                st = cuzk__gpu_msm_bases_precompute(h, copies);
                if (st != CUZK_OK) {
                    fprintf(stderr, "gpu copies: %s\n", cuzk__gpu_last_error());
                    rc = 1;
                } else {
                    printf("%s: %u copies of the bases made on the device in %.0f ms\n",
                           g == 1 ? "g1" : "g2", cuzk__gpu_msm_bases_copies(h),
                           now_ms(CLOCK_MONOTONIC) - t0);
                }
            }
            for (int kind = 0; st == CUZK_OK && kind < 1 + batch_add; kind++) {
                for (int i = 0; i < nl; i++) {
                    size_t n = (size_t)1 << lgs[i];
                    double mn = 0, md = 0;
                    if (!run_gpu(&mn, &md, h, (const uint64_t(*)[4])k, n, reps, kind)) {
                        rc = 1;
                        continue;
                    }
                    char name[32], c[8] = "-";
                    snprintf(name, sizeof name, "%s_%s", g == 1 ? "g1" : "g2",
                             kind == 0 ? "msm" : "batch_add");
                    if (kind == 0)
                        snprintf(c, sizeof c, "%u", cuzk__gpu_msm_bases_window(h, n, 0, n, NULL));
                    printf("%-10s %5d %9zu %7s %3s %11.3f %11.3f %10.1f\n", name, lgs[i], n, "gpu",
                           c, mn, md, mn * 1e6 / (double)n);
                    fflush(stdout);
                }
            }
            cuzk__gpu_msm_bases_free(h);
            free(bases);
            continue;
        }
#endif
        for (int kind = 0; ok && kind < 1 + batch_add; kind++) {
            for (int i = 0; i < nl; i++) {
                size_t n = (size_t)1 << lgs[i];
                for (int ti = 0; ti < ntl; ti++) {
                    double mn = 0, md = 0;
                    int good = g == 1 ? run_g1(&mn, &md, bases, (const uint64_t(*)[4])k, n,
                                               tl[ti], reps, kind, &opts)
                                      : run_g2(&mn, &md, bases, (const uint64_t(*)[4])k, n,
                                               tl[ti], reps, kind, &opts);
                    if (!good) {
                        rc = 1;
                        continue;
                    }
                    char name[32];
                    snprintf(name, sizeof name, "%s_%s", g == 1 ? "g1" : "g2",
                             kind == 0 ? "msm" : "batch_add");
                    char c[8] = "-";
                    if (kind == 0)
                        snprintf(c, sizeof c, "%u",
                                 opts.c ? opts.c : cuzk_msm_window_bits(n, tl[ti]));
                    printf("%-10s %5d %9zu %7u %3s %11.3f %11.3f %10.1f\n", name, lgs[i], n,
                           cuzk_msm_threads(tl[ti]), c, mn, md, mn * 1e6 / (double)n);
                    fflush(stdout);
                }
            }
        }
        if (!ok) rc = 1;
        free(bases);
    }
    free(k);
    return rc;
}
