/*
 * test_gpu_level_runs.c — the level runs' host logic (src/gpu/level_runs.h):
 * the bounds partition a level's slots in proportion to the speeds, and the
 * speeds learned from simulated launches balance SMs of two speeds. The
 * device side (the claims, a block's warps over its run, runs left empty
 * by small levels) is checked by test_gpu_msm against the CPU.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/level_runs.h"
#include "harness.h"

#define MAX_K 600

/* runs[0, k] bound tout slots: from 0 to tout, nondecreasing, inner bounds
 * multiples of 32 (or tout itself). */
static bool bounds_ok(const uint32_t *runs, uint32_t k, uint32_t tout) {
    if (runs[0] != 0 || runs[k] != tout) return false;
    for (uint32_t i = 1; i <= k; i++) {
        if (runs[i] < runs[i - 1]) return false;
        if (i < k && runs[i] % 32 != 0 && runs[i] != tout) return false;
    }
    return true;
}

static double urand(void) { return (double)(cuzk_test_rand64() >> 11) / 9007199254740992.0; }

/* Runs in proportion to the speeds: each within the rounding of its
 * share (two bounds rounded down by less than 32 each). */
static void test_plan_speeds(void) {
    static uint32_t runs[MAX_K + 1];
    static float speed[MAX_K];
    for (unsigned it = 0; it < ITERS(2000); it++) {
        const uint32_t k = 1 + (uint32_t)(cuzk_test_rand64() % MAX_K);
        const uint32_t tout = it % 4 == 0 ? (uint32_t)(cuzk_test_rand64() % 4096)
                                          : (uint32_t)(cuzk_test_rand64() % 300000000u);
        double total = 0;
        for (uint32_t i = 0; i < k; i++) {
            speed[i] = CUZK__LEVEL_SPEED_MIN +
                       (float)urand() * (CUZK__LEVEL_SPEED_MAX - CUZK__LEVEL_SPEED_MIN);
            total += speed[i];
        }
        cuzk__level_runs_plan(runs, speed, k, tout);
        CHECK(bounds_ok(runs, k, tout));
        double cum = 0;
        for (uint32_t i = 0; i < k; i++) {
            cum += speed[i];
            const double want = tout * cum / total; /* where bound i + 1 belongs */
            if (i + 1 < k) CHECK(runs[i + 1] <= want + 1e-6 * tout && runs[i + 1] + 33 > want);
        }
    }
}

/* Every weight 0 (k = 1 included): even runs. */
static void test_plan_zero(void) {
    static uint32_t runs[MAX_K + 1];
    static float zero[MAX_K];
    for (uint32_t k = 1; k <= 64; k++) {
        const uint32_t tout = 32 * 1000 + k;
        cuzk__level_runs_plan(runs, zero, k, tout);
        CHECK(bounds_ok(runs, k, tout));
        for (uint32_t i = 0; i < k; i++)
            CHECK(fabs((double)(runs[i + 1] - runs[i]) - (double)tout / k) < 33);
    }
}

/*
 * Launches simulated: k runs on SMs of two speeds 9% apart (at random; a
 * block's time = its run over its SM's speed, ~12 slots a microsecond as
 * at level 0, with 0.2% noise and a fixed start), the runs planned from
 * the learned speeds each launch.
 * The first launch (even runs) ends with the slow SMs; after a few the
 * last end is within 1% of the mean, and the learned speeds rank the SMs.
 */
static void test_learn_balances(void) {
    enum { K = 132 };
    static uint32_t runs[K + 1];
    static unsigned long long clk[2 * K];
    static float speed[K];
    static double true_speed[K];
    for (unsigned rep = 0; rep < ITERS(20); rep++) {
        for (uint32_t i = 0; i < K; i++) {
            speed[i] = 1.0f;
            true_speed[i] = cuzk_test_rand64() % 2 ? 1.0 : 1.09;
        }
        const uint32_t tout = 100000000u + (uint32_t)(cuzk_test_rand64() % 1000000u);
        double first = 0, last = 0;
        for (unsigned launch = 0; launch < 10; launch++) {
            cuzk__level_runs_plan(runs, speed, K, tout);
            const unsigned long long t0 = 1000000000ull + cuzk_test_rand64() % 1000;
            double end_max = 0, end_sum = 0;
            for (uint32_t i = 0; i < K; i++) {
                const double ns = (runs[i + 1] - runs[i]) / (true_speed[i] * 0.012) *
                                      (1 + 0.002 * (2 * urand() - 1)) +
                                  20000;
                clk[2 * i] = t0 + cuzk_test_rand64() % 2000; /* the blocks start apart */
                clk[2 * i + 1] = t0 + (unsigned long long)ns;
                end_max = fmax(end_max, ns);
                end_sum += ns;
            }
            const double ratio = end_max / (end_sum / K);
            if (launch == 0) first = ratio;
            last = ratio;
            cuzk__level_speed_learn(speed, runs, clk, K);
        }
        CHECK(first > 1.02); /* even runs: the slow SMs end ~4% past the mean */
        CHECK(last < 1.01);
        for (uint32_t i = 0; i < K; i++)
            for (uint32_t j = 0; j < K; j++)
                if (true_speed[i] > true_speed[j]) CHECK(speed[i] > speed[j]);
    }
}

/*
 * Runs without slots (or without a clock) keep their speeds; the launch's
 * start is the first start of a run that ran (an empty run's earlier one
 * does not count: run 6, twice as long as the others, would then look
 * faster than they); a wild measurement moves only its own run, and by
 * at most the bounds' half.
 */
static void test_learn_edges(void) {
    enum { K = 8 };
    /* runs 0 and 3 empty; run 6 holds 2000 slots, the others 1000 */
    const uint32_t runs[K + 1] = {0, 0, 1000, 2000, 2000, 3000, 4000, 6000, 7000};
    unsigned long long clk[2 * K];
    float speed[K], before[K];
    for (uint32_t i = 0; i < K; i++) {
        const uint32_t len = runs[i + 1] - runs[i];
        clk[2 * i] = i == 2 ? 400 : 500; /* run 2 starts first: t0 = 400 */
        clk[2 * i + 1] = len ? 400 + len : 0; /* 1 slot a ns from t0 */
        speed[i] = before[i] = 0.6f + 0.2f * (float)i;
    }
    clk[0] = 1;                 /* the empty run 0's start: not t0 */
    clk[2 * 1 + 1] = 400 + 1000000; /* run 1: 1000x slower than the rest */
    clk[2 * 7 + 1] = 401;       /* run 7: 1000x faster */
    cuzk__level_speed_learn(speed, runs, clk, K);
    CHECK(speed[0] == before[0] && speed[3] == before[3]); /* no slots */
    CHECK(speed[1] == 0.5f * before[1] + 0.5f * CUZK__LEVEL_SPEED_MIN);
    CHECK(speed[7] == 0.5f * before[7] + 0.5f * CUZK__LEVEL_SPEED_MAX);
    for (uint32_t i = 2; i < 7; i++) /* at the median's rate: halfway to 1 */
        if (i != 3) CHECK(fabsf(speed[i] - (0.5f * before[i] + 0.5f)) < 1e-6f);
    /* nothing measured: nothing changes */
    memcpy(before, speed, sizeof before);
    memset(clk, 0, sizeof clk);
    cuzk__level_speed_learn(speed, runs, clk, K);
    CHECK(memcmp(before, speed, sizeof before) == 0);
}

/* One stray clock among 132 runs at one speed: the other runs keep theirs,
 * and the next launch's span stays within the stray run's doubled share. */
static void test_learn_stray(void) {
    enum { K = 132 };
    static uint32_t runs[K + 1];
    static unsigned long long clk[2 * K];
    static float speed[K];
    for (unsigned rep = 0; rep < ITERS(20); rep++) {
        const uint32_t stray = (uint32_t)(cuzk_test_rand64() % K);
        for (uint32_t i = 0; i < K; i++) speed[i] = 1.0f;
        const uint32_t tout = 100000000u;
        cuzk__level_runs_plan(runs, speed, K, tout);
        for (uint32_t i = 0; i < K; i++) {
            clk[2 * i] = 1000;
            clk[2 * i + 1] = 1000 + (unsigned long long)((runs[i + 1] - runs[i]) / 0.012);
        }
        clk[2 * stray + 1] = 1001 + cuzk_test_rand64() % 100; /* ends almost at once */
        cuzk__level_speed_learn(speed, runs, clk, K);
        for (uint32_t i = 0; i < K; i++)
            if (i != stray) CHECK(fabsf(speed[i] - 1.0f) < 0.01f); /* runs' rounding to 32 */
        CHECK(speed[stray] == 0.5f + 0.5f * CUZK__LEVEL_SPEED_MAX);
        cuzk__level_runs_plan(runs, speed, K, tout);
        const double share = (runs[stray + 1] - runs[stray]) / ((double)tout / K);
        CHECK(share > 1.4 && share < 1.6);
    }
}

int main(int argc, char **argv) {
    cuzk_test_init(argc, argv);
    RUN(test_plan_speeds);
    RUN(test_plan_zero);
    RUN(test_learn_balances);
    RUN(test_learn_edges);
    RUN(test_learn_stray);
    return cuzk_test_finish();
}
