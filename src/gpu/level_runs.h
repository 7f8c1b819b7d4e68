/*
 * level_runs.h — how a batch-affine level launch divides its slots among
 * its blocks, each block claiming a run for the SM it landed on (msm_levels.cu
 * ba_level_kernel): the runs' bounds from the SMs' speeds, and the speeds
 * from what a launch measured.
 *
 * Why: a level launch is one wave with the same work in every SM, and it
 * ends with its slowest SM; the SMs of one GPU can run a level at speeds
 * several percent apart. The work of a batch-affine chain must be fixed
 * before its forward pass starts, so the sizes come from the speeds that
 * earlier launches of the same level measured.
 *
 * Host code, C and C++ (msm_levels.cu and the unit test share it); no allocation.
 */
#ifndef CUZK_GPU_LEVEL_RUNS_H
#define CUZK_GPU_LEVEL_RUNS_H

#include <stdint.h>

/* Speeds are relative (median ~1). A measurement is held to [MIN, MAX]
 * before it is blended in, so one stray clock can at most halve or
 * double its own run's share next launch (the SMs differ by ~9%). */
#define CUZK__LEVEL_SPEED_MIN 0.5f
#define CUZK__LEVEL_SPEED_MAX 2.0f

/*
 * The bounds of k >= 1 runs over tout slots: runs[0] = 0, runs[k] = tout,
 * nondecreasing, run i in proportion to speed[i]. Inner bounds are
 * multiples of 32, so that a warp's accesses stay aligned to whole sectors.
 * All speeds 0: even runs.
 */
static inline void cuzk__level_runs_plan(uint32_t *runs, const float *speed, uint32_t k,
                                         uint32_t tout) {
    double total = 0;
    for (uint32_t i = 0; i < k; i++) total += speed[i];
    double cum = 0;
    runs[0] = 0;
    for (uint32_t i = 1; i < k; i++) {
        cum += speed[i - 1];
        const double f = total > 0 ? cum / total : (double)i / k;
        const double at = f * tout;
        uint32_t r = at >= tout ? tout : (uint32_t)at & ~31u;
        runs[i] = r < runs[i - 1] ? runs[i - 1] : r;
    }
    runs[k] = tout;
}

/* Slots a nanosecond of run i from t0 (0: no slots, or no clock). */
static inline double cuzk__level_run_rate(const uint32_t *runs, const unsigned long long *clk,
                                          uint32_t i, unsigned long long t0) {
    const uint32_t len = runs[i + 1] - runs[i];
    const unsigned long long end = clk[2 * i + 1];
    return len != 0 && end > t0 ? len / (double)(end - t0) : 0.0;
}

/*
 * The median of the k runs' nonzero rates from t0 (0: none), by bisection
 * between the least and the greatest (no scratch memory; 64 halvings leave
 * it within rounding of the lower median).
 */
static inline double cuzk__level_rate_median(const uint32_t *runs, const unsigned long long *clk,
                                             uint32_t k, unsigned long long t0) {
    double lo = 0, hi = 0;
    uint32_t m = 0;
    for (uint32_t i = 0; i < k; i++) {
        const double r = cuzk__level_run_rate(runs, clk, i, t0);
        if (r <= 0) continue;
        if (m == 0 || r < lo) lo = r;
        if (m == 0 || r > hi) hi = r;
        m++;
    }
    if (m == 0) return 0;
    const uint32_t rank = (m + 1) / 2; /* the lower median: the rank-th least */
    for (int it = 0; it < 64 && lo < hi; it++) {
        const double mid = lo + (hi - lo) / 2;
        uint32_t at_most = 0;
        for (uint32_t i = 0; i < k; i++) {
            const double r = cuzk__level_run_rate(runs, clk, i, t0);
            at_most += r > 0 && r <= mid;
        }
        if (at_most >= rank)
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}

/*
 * What a launch over k runs measured (clk: each run's block start and last
 * warp's end, 0 where it had no slots): each run's slots a nanosecond from
 * the launch's first start, relative to the median run's (so a stray clock
 * moves no other run), held to [MIN, MAX] and blended half and half into
 * speed[i]. The SMs' speeds are steady, their measurements a little noisy:
 * halving the error each launch converges in a few launches. Runs without
 * slots keep their speeds.
 */
static inline void cuzk__level_speed_learn(float *speed, const uint32_t *runs,
                                           const unsigned long long *clk, uint32_t k) {
    unsigned long long t0 = ~0ull;
    for (uint32_t i = 0; i < k; i++)
        if (clk[2 * i + 1] != 0 && clk[2 * i] < t0) t0 = clk[2 * i];
    const double med = cuzk__level_rate_median(runs, clk, k, t0);
    if (med <= 0) return;
    for (uint32_t i = 0; i < k; i++) {
        const double r = cuzk__level_run_rate(runs, clk, i, t0) / med;
        if (r <= 0) continue;
        const float v = r < CUZK__LEVEL_SPEED_MIN   ? CUZK__LEVEL_SPEED_MIN
                        : r > CUZK__LEVEL_SPEED_MAX ? CUZK__LEVEL_SPEED_MAX
                                                    : (float)r;
        speed[i] = 0.5f * speed[i] + 0.5f * v;
    }
}

#endif /* CUZK_GPU_LEVEL_RUNS_H */
