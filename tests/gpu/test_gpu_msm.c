/*
 * GPU MSM, batch-add and classification (src/gpu/msm*.cu) against the CPU
 * (src/msm), for G1 and G2.
 *
 * Results are compared as points (both sides normalized to affine). Inputs:
 * bases from a random walk P_i+1 = P_i + S_j over 8 random multiples of the
 * generator, with the point at infinity, repeated bases and opposite bases
 * mixed in; fresh seeded random scalars below r with edge values (0, 1, 2,
 * r-1, (r-1)/2, 2^64, 2^254 - 1 ...) at random places; sizes 1, 2, 3, 100,
 * 2^10, 2^14, 2^18 (G2 up to 2^16); all-zero, all-equal (one hot bucket) and
 * all-one scalar vectors; masks; every window size 1..CUZK__GPU_MSM_MAX_C at
 * n = 1000 and 17..MAX_C at 2^14 (short runs, empty bins skipped, runs cut
 * by slice ends); scalars on the host and on the device; a scalar >= 2^255
 * is refused. Every MSM comparison (and every range refusal) runs the
 * defaults and the batch-affine knobs forced (affine levels down to single
 * points, one or two levels then XYZZ, few threads so that a thread's slice
 * spans many bins, one window per group) against the one CPU result; a
 * masked MSM sorts by atomics, an unmasked one by radix.
 * Short cases for the digit sorts, run by the defaults (test_*_sort_cases):
 * n = 1 (taking part, masked out, zero, >= 2^255), masks of none, half and
 * all points, all-zero and all-equal scalars, a refused scalar among many
 * and the same one masked out, windows whose bin count is a power of two
 * (the sentinel key then needs one bit more: c = 1, 17) or not (c = 9).
 * Targeted cases for the affine levels (test_*_ba_cases): runs of 1, 2, 3,
 * 4, 5, 8, 31, 64, 1000 equal scalars (hot buckets) over bases that are all
 * one point (doublings at every level), P and -P alternating (opposite
 * points), infinity and P alternating, all infinity, and a random mix; the
 * same base with opposite digit signs (scalars 1 and 2^c - 1); a few
 * repeated scalars.
 * Device-made random bases are checked on the curve and used in an MSM.
 * Smaller cards on this one (test_*_small_cards, gpu_msm.h smem_limit): the
 * level blocks an sm_86/89 card (99 KiB of shared memory a block) and an
 * sm_80 card (163 KiB) would run, and none at all (XYZZ alone), each with
 * its expected thread count, MSMs up to 2^16, masked ones and the
 * batch-affine cases against the CPU.
 * Exits 77 (skipped) without a CUDA device, unless CUZK_GPU_REQUIRED=1.
 *
 * --only S: only the tests whose names contain one of the comma-separated S
 * (with --quick too: e.g. --quick --only g1_ba under compute-sanitizer).
 * --quick: only test_*_sort_cases and test_*_ba_cases over 4096 bases (about
 * 30 s, the full run a few minutes).
 * --bench: median of 5 timed MSMs (after a warm-up) with bases resident and
 * scalars on the device, and with the scalar upload, G1 2^16..2^27 and G2
 * 2^16..2^26 (--bench-max LOG lowers the top; --bench-g2-max LOG, anywhere, sets G2's
 * alone, below 16 none), plus the batch-add; --copies K: G1's handle keeps K
 * shifted copies of its bases; --force-c C: every MSM's window; --profile:
 * one more MSM per row with its per-phase kernel times on stderr.
 */
#include <stdbool.h>
#include <time.h>

#include "ff/fr.h"
#include "ec/g1.h"
#include "ec/g2.h"
#include "gpu/gpu.h"
#include "gpu/gpu_msm.h"
#include "gpu_fixture.h"
#include "gpu_test.h"
#include "harness.h"
#include "msm/msm.h"

/* ---- inputs --------------------------------------------------------------- */

/* Edge scalar number e (mod the count). */
static void edge_scalar(uint64_t k[4], unsigned e) {
    memset(k, 0, 32);
    switch (e % 9) {
    case 0: break; /* 0 */
    case 1: k[0] = 1; break;
    case 2: k[0] = 2; break;
    case 3: /* r - 1 */
        memcpy(k, cuzk__fr_r, 32);
        k[0] -= 1;
        break;
    case 4: /* (r - 1) / 2 */
        for (int i = 0; i < 4; i++) k[i] = (cuzk__fr_r[i] >> 1) | (i < 3 ? cuzk__fr_r[i + 1] << 63 : 0);
        break;
    case 5: k[1] = 1; break; /* 2^64 */
    case 6: /* 2^254 - 1 */
        k[0] = k[1] = k[2] = ~0ULL;
        k[3] = 0x3fffffffffffffffULL;
        break;
    case 7: k[0] = 0xffff; break; /* every low digit at its extreme */
    case 8: k[3] = (uint64_t)1 << 62; break; /* 2^254: one top digit */
    }
}

/* n scalars: random with edge values at random places (about 1 in 8). */
static void make_scalars(uint64_t (*k)[4], size_t n) {
    for (size_t i = 0; i < n; i++) {
        if (cuzk_test_rand64() % 8 == 0)
            edge_scalar(k[i], (unsigned)(cuzk_test_rand64() % 9));
        else
            cuzk_test_rand_scalar(k[i]);
    }
}

static void rand_bitmap(uint64_t *bm, size_t n, unsigned percent) {
    size_t words = cuzk_msm_bitmap_words(n);
    memset(bm, 0, words * 8);
    for (size_t i = 0; i < n; i++)
        if (cuzk_test_rand64() % 100 < percent) bm[i / 64] |= (uint64_t)1 << (i % 64);
}

/* A device copy of an n-bit bitmap (NULL on failure), with the bits past n
 * of its last word set: the GPU must ignore them, as the CPU does. */
static uint64_t *device_bitmap(const uint64_t *bm, size_t n) {
    const size_t words = cuzk_msm_bitmap_words(n);
    uint64_t *tmp = malloc(words * 8), *d = NULL;
    if (tmp == NULL) return NULL;
    memcpy(tmp, bm, words * 8);
    if (n % 64) tmp[words - 1] |= ~(uint64_t)0 << (n % 64);
    if (cuzk__gpu_alloc((void **)&d, words * 8) != CUZK_OK) d = NULL;
    if (d != NULL && cuzk__gpu_upload(d, tmp, words * 8) != CUZK_OK) {
        cuzk__gpu_free(d);
        d = NULL;
    }
    free(tmp);
    return d;
}

/*
 * Batch-add bitmaps: random at 0, 1, 50 and 100% (each thread's share of the
 * set bits is then about even), all set bits in one run of an eighth of n
 * (most threads' shares lie in few words), the last point alone, and 50%
 * with every bit past n set in the last word (those must be ignored).
 * Returns the percentage for messages.
 */
#define BITMAP_PATTERNS 7
static unsigned pattern_bitmap(uint64_t *bm, size_t n, unsigned pat) {
    static const unsigned pct[BITMAP_PATTERNS] = {0, 1, 50, 100, 12, 0, 50};
    size_t words = cuzk_msm_bitmap_words(n);
    if (pat < 4 || pat == 6) rand_bitmap(bm, n, pct[pat]);
    if (pat == 4) {
        memset(bm, 0, words * 8);
        for (size_t i = n / 2; i < n / 2 + n / 8 + 1 && i < n; i++)
            bm[i / 64] |= (uint64_t)1 << (i % 64);
    }
    if (pat == 5) {
        memset(bm, 0, words * 8);
        bm[(n - 1) / 64] |= (uint64_t)1 << ((n - 1) % 64);
    }
    if (pat == 6 && n % 64) bm[words - 1] |= ~(uint64_t)0 << (n % 64);
    return pct[pat];
}

/*
 * The knob settings every MSM comparison runs (gpu_msm.h): the defaults,
 * then the batch-affine levels forced down to single points, capped to one
 * or two levels (the XYZZ accumulation finishes longer runs), run by few
 * threads (a thread's slots span many bins; even runs), one window per
 * group. Thread caps are kept moderate: a capped level runs its slices
 * serially per thread.
 */
typedef struct {
    uint64_t min_pairs;
    unsigned max_levels, max_threads;
    size_t budget;
    const char *name;
    size_t smem; /* the level blocks' shared-memory limit (0: the device's) */
} msm_cfg;
static const msm_cfg msm_cfgs[] = {
    {0, 0, 0, 0, "defaults", 0},
    {1, 0, 0, 0, "all levels", 0},
    {1, 0, 250, 0, "all levels, 250 threads", 0},
    {1, 1, 0, 1, "one level, one window per group", 0},
    {1, 2, 250, 1, "two levels, 250 threads, one window per group", 0},
    {1, 0, 0, 1, "all levels, one window per group", 0},
    {3, 0, 0, 0, "levels while >= 3 pairs", 0},
};
#define MSM_NCFG (sizeof msm_cfgs / sizeof msm_cfgs[0])
/* The settings the comparisons run (msm_cfgs, or test_*_small_cards' table),
 * and how many of them: all, except in the sort cases, which test the digit
 * sort and take the defaults only (the batch-affine knobs at forced c = 1
 * made them minutes long). */
static const msm_cfg *msm_table = msm_cfgs;
static size_t msm_ncfg = MSM_NCFG;
#define MSM_NCFG_DEFAULTS 1

/* The level blocks of smaller cards on this one (gpu_msm.h smem_limit):
 * their opt-in shared memory a block, and the threads a G1 and a G2 level
 * block then has (whole warps of 432- and 864-byte stages beside at most
 * 1 KiB of static shared memory, at most 512 and 128; the card's own
 * limit, when lower, rules). A limit no warp fits leaves XYZZ alone. */
typedef struct {
    size_t limit;
    unsigned g1_threads, g2_threads;
    const char *name;
} small_card;
static const small_card small_cards[] = {
    {101376, 224, 96, "sm_86/89 (99 KiB a block)"},
    {166912, 384, 128, "sm_80 (163 KiB a block)"},
    {1024, 0, 0, "no level block fits (1 KiB)"},
};
#define N_SMALL_CARDS (sizeof small_cards / sizeof small_cards[0])
/* Settings for one small card: the defaults, every level, few threads with
 * two levels and one window a group. */
static msm_cfg small_cfgs[3];
static void small_cfgs_for(const small_card *sc) {
    const msm_cfg c[3] = {{0, 0, 0, 0, "defaults", sc->limit},
                          {1, 0, 0, 0, "all levels", sc->limit},
                          {1, 2, 250, 1, "two levels, 250 threads, one window per group",
                           sc->limit}};
    memcpy(small_cfgs, c, sizeof c);
}

/* The window every checked MSM uses (the handle's configured window; 0:
 * the cost model's). */
static unsigned test_window;

/* h configured with setting c and test_window. */
static void msm_cfg_set(cuzk__gpu_msm_bases *h, const msm_cfg *c) {
    const cuzk__gpu_msm_config cfg = {test_window, c->min_pairs, c->max_levels, c->max_threads,
                                      c->budget,   0,            c->smem};
    cuzk__gpu_msm_bases_configure(h, &cfg);
}
static void msm_cfg_reset(cuzk__gpu_msm_bases *h) { msm_cfg_set(h, &msm_table[0]); }

#define REPORT(st, what)                                                                      \
    do {                                                                                      \
        if ((st) != CUZK_OK)                                                                  \
            fprintf(stderr, "%s: %s: %s\n", what, cuzk_status_name(st), cuzk__gpu_last_error()); \
    } while (0)

/*
 * Everything per group, stamped for G1 and G2 (g = g1 / g2, GG = the group
 * enum): bases, the GPU-vs-CPU comparisons, the random-base check.
 */
#define GPU_MSM_TESTS(g, GG, MAXLOG)                                                          \
    static cuzk_##g##_aff *g##_bases;                                                         \
    static size_t g##_nbases;                                                                 \
                                                                                              \
    /* the random walk (gpu_fixture.h: infinity at 2, a repeat of 3 at 5, its */              \
    /* opposite at 7), then a second repeat of 3 at 9 and infinity last (n >= 16) */          \
    static int g##_make_bases(size_t n) {                                                     \
        g##_bases = g##_walk(n);                                                              \
        if (!g##_bases) return 0;                                                             \
        if (n >= 16) {                                                                        \
            g##_bases[9] = g##_bases[3];                                                      \
            cuzk_##g##_aff_set_inf(&g##_bases[n - 1]);                                        \
        }                                                                                     \
        g##_nbases = n;                                                                       \
        return 1;                                                                             \
    }                                                                                         \
                                                                                              \
    /* GPU MSM of the first n bases bs (on the handle too) vs the CPU; mask may be NULL; */   \
    /* the GPU reads the scalars at gk and the mask at gmask (host or device), the CPU */     \
    /* at k and mask */                                                                       \
    static void g##_check_msm_src(cuzk__gpu_msm_bases *h, const cuzk_##g##_aff *bs,           \
                                  const uint64_t (*k)[4], const uint64_t *gk, size_t n,       \
                                  const uint64_t *mask, const uint64_t *gmask,                \
                                  const char *what) {                                         \
        cuzk_##g##_jac want, got;                                                             \
        cuzk_status st = cuzk_##g##_msm_var(&want, bs, k, n, mask, 0, NULL);                  \
        CHECK(st == CUZK_OK);                                                                 \
        /* every knob setting against the one CPU result */                                   \
        for (size_t ci = 0; ci < msm_ncfg; ci++) {                                            \
            msm_cfg_set(h, &msm_table[ci]);                                                   \
            memset(&got, 0x5a, sizeof got);                                                   \
            st = cuzk__gpu_msm(h, (uint64_t *)&got, gk, n, gmask);                            \
            REPORT(st, what);                                                                 \
            CHECK(st == CUZK_OK);                                                             \
            bool ok = st == CUZK_OK && g##_same(&want, &got);                                 \
            if (!ok)                                                                          \
                fprintf(stderr, "  %s %s n=%zu c=%u %s: GPU and CPU differ\n", #g, what, n,   \
                        cuzk__gpu_msm_bases_window(h, n, 0, n, NULL), msm_table[ci].name);    \
            CHECK(ok);                                                                        \
        }                                                                                     \
        msm_cfg_reset(h);                                                                     \
    }                                                                                         \
    static void g##_check_msm_on(cuzk__gpu_msm_bases *h, const cuzk_##g##_aff *bs,            \
                                 const uint64_t (*k)[4], size_t n, const uint64_t *mask,      \
                                 const char *what) {                                          \
        g##_check_msm_src(h, bs, k, (const uint64_t *)k, n, mask, mask, what);                \
    }                                                                                         \
    static void g##_check_msm(cuzk__gpu_msm_bases *h, const uint64_t (*k)[4], size_t n,       \
                              const uint64_t *mask, const char *what) {                       \
        g##_check_msm_on(h, g##_bases, k, n, mask, what);                                     \
    }                                                                                         \
    /* a scalar >= 2^255 takes part: every knob setting refuses the MSM */                    \
    static void g##_check_refused(cuzk__gpu_msm_bases *h, const uint64_t (*k)[4], size_t n,   \
                                  const uint64_t *mask, const char *what) {                   \
        for (size_t ci = 0; ci < msm_ncfg; ci++) {                                            \
            msm_cfg_set(h, &msm_table[ci]);                                                   \
            cuzk_##g##_jac got;                                                               \
            cuzk_status st = cuzk__gpu_msm(h, (uint64_t *)&got, (const uint64_t *)k, n, mask); \
            if (st != CUZK_ERR_INVALID_ARG)                                                   \
                fprintf(stderr, "  %s %s n=%zu %s: %s, not refused\n", #g, what, n,           \
                        msm_table[ci].name, cuzk_status_name(st));                            \
            CHECK(st == CUZK_ERR_INVALID_ARG);                                                \
        }                                                                                     \
        msm_cfg_reset(h);                                                                     \
    }                                                                                         \
                                                                                              \
    static void test_##g##_msm(void) {                                                        \
        size_t nmax = (size_t)1 << MAXLOG;                                                    \
        CHECK(g##_make_bases(nmax));                                                          \
        if (!g##_bases) return;                                                               \
        cuzk__gpu_msm_bases *h = NULL;                                                        \
        cuzk_status st = cuzk__gpu_msm_bases_upload(&h, GG, (const uint64_t *)g##_bases, nmax); \
        REPORT(st, "upload");                                                                 \
        CHECK(st == CUZK_OK);                                                                 \
        if (st != CUZK_OK) return;                                                            \
        uint64_t(*k)[4] = malloc(nmax * 32);                                                  \
        uint64_t *mask = malloc(cuzk_msm_bitmap_words(nmax) * 8);                             \
        CHECK(k && mask);                                                                     \
        if (!k || !mask) goto out;                                                            \
        static const unsigned logs[] = {10, 14, 18};                                          \
        size_t sizes[16], ns = 0;                                                             \
        sizes[ns++] = 1, sizes[ns++] = 2, sizes[ns++] = 3, sizes[ns++] = 100;                 \
        for (size_t i = 0; i < 3; i++)                                                        \
            if (logs[i] <= MAXLOG) sizes[ns++] = (size_t)1 << logs[i];                        \
        for (size_t s = 0; s < ns; s++) {                                                     \
            size_t n = sizes[s];                                                              \
            make_scalars(k, n);                                                               \
            g##_check_msm(h, (const uint64_t(*)[4])k, n, NULL, "random");                     \
            rand_bitmap(mask, n, 50);                                                         \
            g##_check_msm(h, (const uint64_t(*)[4])k, n, mask, "masked");                     \
        }                                                                                     \
        /* the same bases again at a small n: edge bases all take part */                     \
        size_t n = 1000 < nmax ? 1000 : nmax;                                                 \
        for (size_t i = 0; i < n; i++) edge_scalar(k[i], (unsigned)i);                        \
        g##_check_msm(h, (const uint64_t(*)[4])k, n, NULL, "edge scalars");                   \
        /* every window size */                                                               \
        make_scalars(k, n);                                                                   \
        for (unsigned c = 1; c <= CUZK__GPU_MSM_MAX_C; c++) {                                 \
            test_window = c;                                                                  \
            char what[32];                                                                    \
            snprintf(what, sizeof what, "forced c=%u", c);                                    \
            g##_check_msm(h, (const uint64_t(*)[4])k, n, NULL, what);                         \
        }                                                                                     \
        /* the large windows with many points per thread (empty bins skipped, runs cut) */    \
        {                                                                                     \
            size_t n2 = nmax < ((size_t)1 << 14) ? nmax : ((size_t)1 << 14);                  \
            make_scalars(k, n2);                                                              \
            for (unsigned c = 17; c <= CUZK__GPU_MSM_MAX_C; c++) {                            \
                test_window = c;                                                              \
                char what[40];                                                                \
                snprintf(what, sizeof what, "forced c=%u, 2^14", c);                          \
                g##_check_msm(h, (const uint64_t(*)[4])k, n2, NULL, what);                    \
            }                                                                                 \
        }                                                                                     \
        test_window = 0;                                                                      \
        /* all zero: infinity */                                                              \
        n = nmax < ((size_t)1 << 14) ? nmax : ((size_t)1 << 14);                              \
        memset(k, 0, n * 32);                                                                 \
        g##_check_msm(h, (const uint64_t(*)[4])k, n, NULL, "all zero");                       \
        {                                                                                     \
            cuzk_##g##_jac got;                                                               \
            st = cuzk__gpu_msm(h, (uint64_t *)&got, (const uint64_t *)k, n, NULL);            \
            CHECK(st == CUZK_OK && cuzk_##g##_jac_is_inf(&got));                              \
        }                                                                                     \
        /* all equal: one hot bucket per window */                                            \
        cuzk_test_rand_scalar(k[0]);                                                          \
        for (size_t i = 1; i < n; i++) memcpy(k[i], k[0], 32);                                \
        g##_check_msm(h, (const uint64_t(*)[4])k, n, NULL, "all equal");                      \
        for (size_t i = 0; i < n; i++) edge_scalar(k[i], 1);                                  \
        g##_check_msm(h, (const uint64_t(*)[4])k, n, NULL, "all one");                        \
        /* scalars on the device */                                                           \
        make_scalars(k, n);                                                                   \
        {                                                                                     \
            uint64_t *dk = NULL;                                                              \
            st = cuzk__gpu_msm_scalars_upload(&dk, (const uint64_t *)k, n);                   \
            CHECK(st == CUZK_OK);                                                             \
            if (st == CUZK_OK) {                                                              \
                g##_check_msm_src(h, g##_bases, (const uint64_t(*)[4])k, dk, n, NULL, NULL,   \
                                  "device scalars");                                          \
                rand_bitmap(mask, n, 50);                                                     \
                g##_check_msm_src(h, g##_bases, (const uint64_t(*)[4])k, dk, n, mask, mask,   \
                                  "device scalars, masked");                                  \
                /* the mask on the device too (garbage bits past n) */                        \
                uint64_t *dm = device_bitmap(mask, n - 1);                                    \
                CHECK(dm != NULL);                                                            \
                if (dm != NULL) {                                                             \
                    mask[(n - 1) / 64] &= ~((uint64_t)1 << ((n - 1) % 64));                   \
                    g##_check_msm_src(h, g##_bases, (const uint64_t(*)[4])k, dk, n - 1, mask, \
                                      dm, "device scalars and mask");                         \
                    g##_check_msm_src(h, g##_bases, (const uint64_t(*)[4])k,                  \
                                      (const uint64_t *)k, n - 1, mask, dm,                   \
                                      "host scalars, device mask");                           \
                    cuzk__gpu_free(dm);                                                       \
                }                                                                             \
                cuzk__gpu_msm_scalars_free(dk);                                               \
            }                                                                                 \
        }                                                                                     \
        /* a participating scalar >= 2^255 is refused; a masked-out one is not */             \
        k[n / 2][3] |= (uint64_t)1 << 63;                                                     \
        {                                                                                     \
            cuzk_##g##_jac got;                                                               \
            g##_check_refused(h, (const uint64_t(*)[4])k, n, NULL, "scalar >= 2^255");        \
            rand_bitmap(mask, n, 50);                                                         \
            mask[(n / 2) / 64] |= (uint64_t)1 << ((n / 2) % 64);                              \
            g##_check_refused(h, (const uint64_t(*)[4])k, n, mask,                            \
                              "scalar >= 2^255 in the mask");                                 \
            mask[(n / 2) / 64] &= ~((uint64_t)1 << ((n / 2) % 64));                           \
            g##_check_msm(h, (const uint64_t(*)[4])k, n, mask, "masked-out big scalar");      \
            st = cuzk__gpu_msm(h, (uint64_t *)&got, (const uint64_t *)k, nmax + 1, NULL);     \
            CHECK(st == CUZK_ERR_INVALID_ARG);                                                \
        }                                                                                     \
    out:                                                                                      \
        free(k);                                                                              \
        free(mask);                                                                           \
        cuzk__gpu_msm_bases_free(h);                                                          \
    }                                                                                         \
                                                                                              \
    /* shifted copies of the bases: MSMs that read them and ones that do not, one handle */   \
    static void test_##g##_copies(void) {                                                     \
        CHECK(g##_bases != NULL); /* made by test_*_msm or main */                            \
        if (!g##_bases) return;                                                               \
        const size_t nmax = g##_nbases < 4096 ? g##_nbases : 4096;                            \
        cuzk__gpu_msm_bases *h = NULL;                                                        \
        cuzk_status st = cuzk__gpu_msm_bases_upload(&h, GG, (const uint64_t *)g##_bases, nmax); \
        CHECK(st == CUZK_OK);                                                                 \
        if (st != CUZK_OK) return;                                                            \
        uint64_t(*k)[4] = malloc(nmax * 32);                                                  \
        uint64_t *mask = malloc(cuzk_msm_bitmap_words(nmax) * 8);                             \
        cuzk_##g##_aff *back = malloc(nmax * sizeof *back);                                   \
        CHECK(k && mask && back);                                                             \
        static const unsigned asked[] = {2, 3, 7, 64, 1};                                     \
        for (size_t a = 0; k && mask && back && a < sizeof asked / sizeof asked[0]; a++) {    \
            st = cuzk__gpu_msm_bases_precompute(h, asked[a]);                                 \
            REPORT(st, "precompute");                                                         \
            CHECK(st == CUZK_OK);                                                             \
            const unsigned made = cuzk__gpu_msm_bases_copies(h);                              \
            unsigned used = 0;                                                                \
            const unsigned c = cuzk__gpu_msm_bases_window(h, nmax, 0, nmax, &used);           \
            printf("  %s: %u copies asked, %u made, MSM of %zu: c = %u, %u copies read\n", #g, \
                   asked[a], made, nmax, c, used);                                            \
            /* the count is lowered to the windows' at most; at 4096 points they pay */       \
            CHECK(made >= 1 && made <= asked[a] && made <= (256 + c - 1) / c);                \
            CHECK(asked[a] == 1 ? made == 1 && used == 1 : made > 1 && used == made);         \
            /* copy 0 is the bases as uploaded */                                             \
            CHECK(cuzk__gpu_msm_bases_download(h, (uint64_t *)back, nmax) == CUZK_OK);        \
            CHECK(memcmp(back, g##_bases, nmax * sizeof *back) == 0);                         \
            char what[64];                                                                    \
            make_scalars(k, nmax);                                                            \
            snprintf(what, sizeof what, "%u copies, random", made);                           \
            g##_check_msm(h, (const uint64_t(*)[4])k, nmax, NULL, what);                      \
            rand_bitmap(mask, nmax, 50);                                                      \
            snprintf(what, sizeof what, "%u copies, masked", made);                           \
            g##_check_msm(h, (const uint64_t(*)[4])k, nmax, mask, what);                      \
            snprintf(what, sizeof what, "%u copies, 100 points", made);                       \
            g##_check_msm(h, (const uint64_t(*)[4])k, 100, NULL, what);                       \
            for (size_t i = 0; i < nmax; i++) edge_scalar(k[i], (unsigned)i);                 \
            snprintf(what, sizeof what, "%u copies, edge scalars", made);                     \
            g##_check_msm(h, (const uint64_t(*)[4])k, nmax, NULL, what);                      \
            for (size_t i = 1; i < nmax; i++) memcpy(k[i], k[3], 32);                         \
            snprintf(what, sizeof what, "%u copies, all equal", made);                        \
            g##_check_msm(h, (const uint64_t(*)[4])k, nmax, NULL, what);                      \
            k[nmax / 2][3] |= (uint64_t)1 << 63;                                              \
            snprintf(what, sizeof what, "%u copies, scalar >= 2^255", made);                  \
            g##_check_refused(h, (const uint64_t(*)[4])k, nmax, NULL, what);                  \
        }                                                                                     \
        CHECK(cuzk__gpu_msm_bases_precompute(h, 0) == CUZK_ERR_INVALID_ARG);                  \
        CHECK(cuzk__gpu_msm_bases_precompute(NULL, 2) == CUZK_ERR_INVALID_ARG);               \
        /* as many as pay and fit: all 4 beside nothing kept, none beside all */              \
        unsigned made = 0;                                                                    \
        const unsigned all = CUZK__GPU_MSM_SERVES_MSM;                                        \
        CHECK(cuzk__gpu_msm_bases_precompute(h, 1) == CUZK_OK);                               \
        st = cuzk__gpu_msm_bases_precompute_fit(h, 4, all, SIZE_MAX, &made);                  \
        CHECK(st == CUZK_OK && made == 1 && cuzk__gpu_msm_bases_copies(h) == 1);              \
        st = cuzk__gpu_msm_bases_precompute_fit(h, 4, all, 0, &made);                         \
        CHECK(st == CUZK_OK && made == 4 && cuzk__gpu_msm_bases_copies(h) == 4);              \
        if (k) {                                                                              \
            make_scalars(k, nmax);                                                            \
            g##_check_msm(h, (const uint64_t(*)[4])k, nmax, NULL, "4 copies, fitted");        \
        }                                                                                     \
        st = cuzk__gpu_msm_bases_precompute_fit(h, 8, all, 0, &made); /* has them: as is */   \
        CHECK(st == CUZK_OK && made == 4);                                                    \
        CHECK(cuzk__gpu_msm_bases_precompute_fit(h, 0, all, 0, &made) == CUZK_ERR_INVALID_ARG); \
        CHECK(cuzk__gpu_msm_bases_precompute_fit(h, 4, 4u, 0, &made) == CUZK_ERR_INVALID_ARG); \
        CHECK(cuzk__gpu_msm_bases_precompute_fit(NULL, 4, all, 0, &made) ==                   \
              CUZK_ERR_INVALID_ARG);                                                          \
        CHECK(cuzk__gpu_msm_bases_precompute_fit(h, 4, all, 0, NULL) == CUZK_ERR_INVALID_ARG); \
        /* a handle serving masked MSMs, none run yet: nothing to decide by */                \
        cuzk__gpu_msm_bases *h2 = NULL;                                                       \
        st = cuzk__gpu_msm_bases_upload(&h2, GG, (const uint64_t *)g##_bases, nmax);          \
        CHECK(st == CUZK_OK);                                                                 \
        if (st == CUZK_OK) {                                                                  \
            st = cuzk__gpu_msm_bases_precompute_fit(h2, 4, CUZK__GPU_MSM_SERVES_MASKED, 0,    \
                                                    &made);                                   \
            CHECK(st == CUZK_OK && made == 1 && cuzk__gpu_msm_bases_copies(h2) == 1);         \
        }                                                                                     \
        cuzk__gpu_msm_bases_free(h2);                                                         \
        free(k);                                                                              \
        free(mask);                                                                           \
        free(back);                                                                           \
        cuzk__gpu_msm_bases_free(h);                                                          \
    }                                                                                         \
                                                                                              \
    /* batch-add, classification and the classified MSM vs the CPU */                         \
    static void test_##g##_batch_add(void) {                                                  \
        CHECK(g##_bases != NULL); /* made by test_*_msm or main */                            \
        if (!g##_bases) return;                                                               \
        size_t nmax = g##_nbases;                                                             \
        cuzk__gpu_msm_bases *h = NULL;                                                        \
        cuzk_status st = cuzk__gpu_msm_bases_upload(&h, GG, (const uint64_t *)g##_bases, nmax); \
        CHECK(st == CUZK_OK);                                                                 \
        if (st != CUZK_OK) return;                                                            \
        size_t words = cuzk_msm_bitmap_words(nmax);                                           \
        uint64_t *bm = malloc(words * 8), *b3 = malloc(6 * words * 8);                        \
        uint64_t(*k)[4] = malloc(nmax * 32);                                                  \
        CHECK(bm && b3 && k);                                                                 \
        if (!bm || !b3 || !k) goto out;                                                       \
        static const size_t sizes[] = {1, 3, 65, 100, 1000, 16387, (size_t)1 << 18};          \
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {                         \
            size_t n = sizes[s];                                                              \
            if (n > nmax) continue;                                                           \
            for (unsigned pat = 0; pat < BITMAP_PATTERNS; pat++) {                            \
                const unsigned pct = pattern_bitmap(bm, n, pat);                              \
                /* way 0: host bitmap, 1: device bitmap, 2: all points */                     \
                uint64_t *dbm = device_bitmap(bm, n);                                         \
                CHECK(dbm != NULL);                                                           \
                for (int way = 0; way < 3; way++) {                                           \
                    const uint64_t *use = way == 2 ? NULL : bm;                               \
                    const uint64_t *guse = way == 0 ? bm : way == 1 ? dbm : NULL;             \
                    if (way == 1 && dbm == NULL) continue;                                    \
                    cuzk_##g##_jac want, got;                                                 \
                    CHECK(cuzk_##g##_batch_add_var(&want, g##_bases, n, use, 0, NULL) ==      \
                          CUZK_OK);                                                           \
                    st = cuzk__gpu_msm_batch_add(h, (uint64_t *)&got, n, guse);               \
                    REPORT(st, "batch-add");                                                  \
                    bool ok = st == CUZK_OK && g##_same(&want, &got);                         \
                    if (!ok)                                                                  \
                        fprintf(stderr, "  %s batch-add n=%zu %u%% %s differs\n", #g, n, pct, \
                                way == 0 ? "host bitmap" : way == 1 ? "device bitmap" : "all"); \
                    CHECK(ok);                                                                \
                }                                                                             \
                cuzk__gpu_free(dbm);                                                          \
            }                                                                                 \
            /* classification: 0 / 1 / other in about equal parts */                          \
            for (size_t i = 0; i < n; i++) {                                                  \
                unsigned r = (unsigned)(cuzk_test_rand64() % 3);                              \
                if (r < 2)                                                                    \
                    edge_scalar(k[i], r);                                                     \
                else                                                                          \
                    make_scalars(&k[i], 1);                                                   \
            }                                                                                 \
            size_t w = cuzk_msm_bitmap_words(n);                                              \
            cuzk_msm_counts cc;                                                               \
            cuzk__gpu_msm_counts gc;                                                          \
            memset(b3, 0xa5, 6 * words * 8);                                                  \
            cuzk_msm_classify_var(b3, b3 + w, b3 + 2 * w, &cc, (const uint64_t(*)[4])k, n, 0); \
            st = cuzk__gpu_msm_classify(b3 + 3 * w, b3 + 4 * w, b3 + 5 * w, &gc,              \
                                        (const uint64_t *)k, n);                              \
            REPORT(st, "classify");                                                           \
            CHECK(st == CUZK_OK);                                                             \
            CHECK_MEM(b3, b3 + 3 * w, 3 * w * 8);                                             \
            CHECK(gc.zero == cc.zero && gc.one == cc.one && gc.other == cc.other);            \
            /* into device bitmaps (the zeros' stays on the host) */                          \
            {                                                                                 \
                uint64_t *d1 = device_bitmap(bm, n), *d2 = device_bitmap(bm, n);              \
                CHECK(d1 != NULL && d2 != NULL);                                              \
                memset(b3 + 3 * w, 0xa5, 3 * w * 8);                                          \
                memset(&gc, 0xa5, sizeof gc);                                                 \
                st = d1 && d2 ? cuzk__gpu_msm_classify(b3 + 3 * w, d1, d2, &gc,               \
                                                       (const uint64_t *)k, n)                \
                              : CUZK_ERR_NOMEM;                                               \
                REPORT(st, "classify into device bitmaps");                                   \
                CHECK(st == CUZK_OK);                                                         \
                if (st == CUZK_OK) {                                                          \
                    CHECK(cuzk__gpu_download(b3 + 4 * w, d1, w * 8) == CUZK_OK);              \
                    CHECK(cuzk__gpu_download(b3 + 5 * w, d2, w * 8) == CUZK_OK);              \
                    CHECK_MEM(b3, b3 + 3 * w, 3 * w * 8);                                     \
                    CHECK(gc.zero == cc.zero && gc.one == cc.one && gc.other == cc.other);    \
                }                                                                             \
                cuzk__gpu_free(d1);                                                           \
                cuzk__gpu_free(d2);                                                           \
            }                                                                                 \
            cuzk_##g##_jac want, got;                                                         \
            CHECK(cuzk_##g##_msm_var(&want, g##_bases, (const uint64_t(*)[4])k, n, NULL, 0,   \
                                     NULL) == CUZK_OK);                                       \
            for (size_t ci = 0; ci < msm_ncfg; ci++) {                                        \
                msm_cfg_set(h, &msm_table[ci]);                                               \
                st = cuzk__gpu_msm_with_classification(h, (uint64_t *)&got, &gc,              \
                                                       (const uint64_t *)k, n);               \
                REPORT(st, "with classification");                                            \
                bool ok = st == CUZK_OK && g##_same(&want, &got) && gc.one == cc.one;         \
                if (!ok)                                                                      \
                    fprintf(stderr, "  %s classified MSM n=%zu %s differs\n", #g, n,          \
                            msm_table[ci].name);                                              \
                CHECK(ok);                                                                    \
            }                                                                                 \
            msm_cfg_reset(h);                                                                 \
        }                                                                                     \
    out:                                                                                      \
        free(bm);                                                                             \
        free(b3);                                                                             \
        free(k);                                                                              \
        cuzk__gpu_msm_bases_free(h);                                                          \
    }                                                                                         \
                                                                                              \
    /* device-made bases: on the curve, and an MSM over them agrees with the CPU */           \
    static void test_##g##_random_bases(void) {                                               \
        CHECK(g##_bases != NULL); /* made by test_*_msm or main */                            \
        if (!g##_bases) return;                                                               \
        const size_t n = 5000;                                                                \
        cuzk__gpu_msm_bases *h = NULL;                                                        \
        cuzk_status st = cuzk__gpu_msm_bases_random(&h, GG, (const uint64_t *)(g##_bases + 16), \
                                                    16, n, cuzk_test_rand64());               \
        REPORT(st, "random bases");                                                           \
        CHECK(st == CUZK_OK);                                                                 \
        if (st != CUZK_OK) return;                                                            \
        cuzk_##g##_aff *b = malloc(n * sizeof *b);                                            \
        uint64_t(*k)[4] = malloc(n * 32);                                                     \
        if (b && k && cuzk__gpu_msm_bases_download(h, (uint64_t *)b, n) == CUZK_OK) {         \
            size_t bad = 0;                                                                   \
            for (size_t i = 0; i < n; i++)                                                    \
                bad += !cuzk_##g##_aff_is_on_curve(&b[i]) || cuzk_##g##_aff_is_inf(&b[i]);    \
            CHECK(bad == 0);                                                                  \
            CHECK(memcmp(&b[0], &b[1], sizeof b[0]) != 0);                                    \
            make_scalars(k, n);                                                               \
            cuzk_##g##_jac want, got;                                                         \
            CHECK(cuzk_##g##_msm_var(&want, b, (const uint64_t(*)[4])k, n, NULL, 0, NULL) ==  \
                  CUZK_OK);                                                                   \
            st = cuzk__gpu_msm(h, (uint64_t *)&got, (const uint64_t *)k, n, NULL);            \
            CHECK(st == CUZK_OK && g##_same(&want, &got));                                    \
        } else {                                                                              \
            CHECK(0);                                                                         \
        }                                                                                     \
        free(b);                                                                              \
        free(k);                                                                              \
        cuzk__gpu_msm_bases_free(h);                                                          \
    }                                                                                         \
                                                                                              \
    /* short cases for the digit sorts, run by the defaults: one point, masks, */             \
    /* zero and equal scalars, refusals, bin counts that are powers of two (c = 1, 17) or not */ \
    static void test_##g##_sort_cases(void) {                                                 \
        CHECK(g##_bases != NULL); /* made by test_*_msm or main */                            \
        if (!g##_bases) return;                                                               \
        const size_t n = g##_nbases < 4096 ? g##_nbases : 4096;                               \
        cuzk__gpu_msm_bases *h = NULL;                                                        \
        cuzk_status st = cuzk__gpu_msm_bases_upload(&h, GG, (const uint64_t *)g##_bases, n);  \
        REPORT(st, "upload");                                                                 \
        CHECK(st == CUZK_OK);                                                                 \
        if (st != CUZK_OK) return;                                                            \
        uint64_t(*k)[4] = malloc(n * 32);                                                     \
        uint64_t *mask = malloc(cuzk_msm_bitmap_words(n) * 8);                                \
        CHECK(k && mask);                                                                     \
        msm_ncfg = MSM_NCFG_DEFAULTS;                                                         \
        if (k && mask) {                                                                      \
            const uint64_t(*kc)[4] = (const uint64_t(*)[4])k;                                 \
            cuzk_test_rand_scalar(k[0]);                                                      \
            g##_check_msm(h, kc, 1, NULL, "n = 1");                                           \
            mask[0] = 1;                                                                      \
            g##_check_msm(h, kc, 1, mask, "n = 1 in the mask");                               \
            mask[0] = 0;                                                                      \
            g##_check_msm(h, kc, 1, mask, "n = 1 masked out");                                \
            memset(k[0], 0, 32);                                                              \
            g##_check_msm(h, kc, 1, NULL, "n = 1 zero");                                      \
            k[0][3] = (uint64_t)1 << 63;                                                      \
            g##_check_refused(h, kc, 1, NULL, "n = 1, 2^255");                                \
            g##_check_msm(h, kc, 1, mask, "n = 1, 2^255 masked out");                         \
            make_scalars(k, n);                                                               \
            g##_check_msm(h, kc, n, NULL, "random");                                          \
            /* sparse masks: the window is sized to the points taking part */                 \
            static const unsigned pcts[] = {0, 1, 5, 50, 100};                                \
            for (size_t pi = 0; pi < 5; pi++) {                                               \
                char what[40];                                                                \
                rand_bitmap(mask, n, pcts[pi]);                                               \
                snprintf(what, sizeof what, "%u%% in the mask", pcts[pi]);                    \
                g##_check_msm(h, kc, n, mask, what);                                          \
            }                                                                                 \
            static const unsigned cs[] = {1, 9, 17};                                          \
            for (size_t ci = 0; ci < 3; ci++) {                                               \
                char what[40];                                                                \
                test_window = cs[ci];                                                         \
                snprintf(what, sizeof what, "forced c=%u", cs[ci]);                           \
                g##_check_msm(h, kc, n, NULL, what);                                          \
                rand_bitmap(mask, n, 50);                                                     \
                snprintf(what, sizeof what, "forced c=%u, masked", cs[ci]);                   \
                g##_check_msm(h, kc, n, mask, what);                                          \
            }                                                                                 \
            test_window = 0;                                                                  \
            memset(k, 0, n * 32);                                                             \
            g##_check_msm(h, kc, n, NULL, "all zero");                                        \
            cuzk_test_rand_scalar(k[0]);                                                      \
            for (size_t i = 1; i < n; i++) memcpy(k[i], k[0], 32);                            \
            g##_check_msm(h, kc, n, NULL, "all equal");                                       \
            rand_bitmap(mask, n, 50);                                                         \
            g##_check_msm(h, kc, n, mask, "all equal, masked");                               \
            make_scalars(k, n);                                                               \
            k[n - 1][3] |= (uint64_t)1 << 63;                                                 \
            g##_check_refused(h, kc, n, NULL, "last scalar >= 2^255");                        \
            mask[(n - 1) / 64] &= ~((uint64_t)1 << ((n - 1) % 64));                           \
            g##_check_msm(h, kc, n, mask, "last scalar >= 2^255 masked out");                 \
            /* a second handle on the first one's work area: alternate calls, then */         \
            /* the area outlives the handle that made it */                                   \
            cuzk__gpu_msm_bases *h2 = NULL;                                                   \
            st = cuzk__gpu_msm_bases_upload(&h2, GG, (const uint64_t *)g##_bases, n / 2);     \
            CHECK(st == CUZK_OK);                                                             \
            if (st == CUZK_OK) {                                                              \
                cuzk__gpu_msm_bases_share_work(h2, h);                                        \
                make_scalars(k, n);                                                           \
                g##_check_msm(h2, kc, n / 2, NULL, "shared area, second handle");             \
                g##_check_msm(h, kc, n, NULL, "shared area, first handle");                   \
                cuzk__gpu_msm_bases_free(h);                                                  \
                h = NULL;                                                                     \
                g##_check_msm(h2, kc, n / 2, NULL, "shared area, first handle freed");        \
                cuzk__gpu_msm_bases_free(h2);                                                 \
            }                                                                                 \
        }                                                                                     \
        msm_ncfg = MSM_NCFG;                                                                  \
        free(k);                                                                              \
        free(mask);                                                                           \
        cuzk__gpu_msm_bases_free(h);                                                          \
    }                                                                                         \
                                                                                              \
    /* batch-affine level cases: duplicates, opposites, infinity, run lengths */              \
    static void test_##g##_ba_cases(void) {                                                   \
        CHECK(g##_bases != NULL); /* made by test_*_msm or main */                            \
        if (!g##_bases) return;                                                               \
        const size_t nmax = 1024;                                                             \
        cuzk_##g##_aff *bs = malloc(nmax * sizeof *bs);                                       \
        uint64_t(*k)[4] = malloc(nmax * 32);                                                  \
        CHECK(bs && k);                                                                       \
        if (!bs || !k) {                                                                      \
            free(bs);                                                                         \
            free(k);                                                                          \
            return;                                                                           \
        }                                                                                     \
        cuzk_##g##_aff P = g##_bases[16], Q = g##_bases[17], nP, nQ, inf;                     \
        cuzk_##g##_aff_neg(&nP, &P);                                                          \
        cuzk_##g##_aff_neg(&nQ, &Q);                                                          \
        cuzk_##g##_aff_set_inf(&inf);                                                         \
        static const char *pats[] = {"all P", "P, -P", "inf, P", "all inf", "mix"};           \
        static const size_t sizes[] = {1, 2, 3, 4, 5, 8, 31, 64, 1000};                       \
        static const unsigned cs[] = {2, 9, 16};                                              \
        for (unsigned pat = 0; pat < 5; pat++) {                                              \
            for (size_t i = 0; i < nmax; i++) {                                               \
                const cuzk_##g##_aff *mix[5] = {&P, &nP, &Q, &nQ, &inf};                      \
                switch (pat) {                                                                \
                case 0: bs[i] = P; break;                                                     \
                case 1: bs[i] = i % 2 ? nP : P; break;                                        \
                case 2: bs[i] = i % 2 ? P : inf; break;                                       \
                case 3: bs[i] = inf; break;                                                   \
                default: bs[i] = *mix[cuzk_test_rand64() % 5]; break;                         \
                }                                                                             \
            }                                                                                 \
            cuzk__gpu_msm_bases *h = NULL;                                                    \
            cuzk_status st = cuzk__gpu_msm_bases_upload(&h, GG, (const uint64_t *)bs, nmax);  \
            REPORT(st, "upload");                                                             \
            CHECK(st == CUZK_OK);                                                             \
            if (st != CUZK_OK) continue;                                                      \
            uint64_t few[3][4];                                                               \
            for (int j = 0; j < 3; j++) cuzk_test_rand_scalar(few[j]);                        \
            for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {                  \
                const size_t m = sizes[si];                                                   \
                char what[96];                                                                \
                /* all equal: one hot bin per window */                                       \
                for (size_t i = 0; i < m; i++) memcpy(k[i], few[0], 32);                      \
                snprintf(what, sizeof what, "%s, %zu equal scalars", pats[pat], m);           \
                g##_check_msm_on(h, bs, (const uint64_t(*)[4])k, m, NULL, what);              \
                /* 1 and 2^c - 1: window-0 digits +1 and -1 of the same bin */                \
                for (size_t ci = 0; ci < sizeof cs / sizeof cs[0]; ci++) {                    \
                    for (size_t i = 0; i < m; i++) {                                          \
                        memset(k[i], 0, 32);                                                  \
                        k[i][0] = i % 2 ? ((uint64_t)1 << cs[ci]) - 1 : 1;                    \
                    }                                                                         \
                    test_window = cs[ci];                                                     \
                    snprintf(what, sizeof what, "%s, %zu of 1 / 2^%u - 1", pats[pat], m, cs[ci]); \
                    g##_check_msm_on(h, bs, (const uint64_t(*)[4])k, m, NULL, what);          \
                    test_window = 0;                                                          \
                }                                                                             \
                /* three scalars repeated: a few hot bins per window */                       \
                for (size_t i = 0; i < m; i++) memcpy(k[i], few[cuzk_test_rand64() % 3], 32); \
                snprintf(what, sizeof what, "%s, %zu of 3 scalars", pats[pat], m);            \
                g##_check_msm_on(h, bs, (const uint64_t(*)[4])k, m, NULL, what);              \
            }                                                                                 \
            cuzk__gpu_msm_bases_free(h);                                                      \
        }                                                                                     \
        free(bs);                                                                             \
        free(k);                                                                              \
    }                                                                                         \
                                                                                              \
    /* the level blocks of smaller cards (smem_limit): each limit gives the block the */      \
    /* card would have, and MSMs, masked ones, the batch-affine cases and the */               \
    /* classified MSM under it agree with the CPU; the device's own shape comes back */        \
    static void test_##g##_small_cards(void) {                                                \
        CHECK(g##_bases != NULL); /* made by test_*_msm or main */                            \
        if (!g##_bases) return;                                                               \
        const size_t nmax = g##_nbases < ((size_t)1 << 16) ? g##_nbases : ((size_t)1 << 16);  \
        cuzk__gpu_msm_bases *h = NULL;                                                        \
        cuzk_status st = cuzk__gpu_msm_bases_upload(&h, GG, (const uint64_t *)g##_bases, nmax); \
        REPORT(st, "upload");                                                                 \
        CHECK(st == CUZK_OK);                                                                 \
        uint64_t(*k)[4] = malloc(nmax * 32);                                                  \
        uint64_t *mask = malloc(cuzk_msm_bitmap_words(nmax) * 8);                             \
        CHECK(k && mask);                                                                     \
        if (st != CUZK_OK || !k || !mask) goto out;                                           \
        const unsigned own = cuzk__gpu_msm_bases_level_threads(h);                            \
        printf("  %s: level blocks of %u threads on this card\n", #g, own);                   \
        CHECK(own > 0);                                                                       \
        for (size_t ci = 0; ci < N_SMALL_CARDS; ci++) {                                       \
            const small_card *sc = &small_cards[ci];                                          \
            unsigned want = GG == CUZK__GPU_MSM_G1 ? sc->g1_threads : sc->g2_threads;         \
            if (want > own) want = own;                                                       \
            small_cfgs_for(sc);                                                               \
            msm_table = small_cfgs;                                                           \
            msm_ncfg = sizeof small_cfgs / sizeof small_cfgs[0];                              \
            msm_cfg_reset(h);                                                                 \
            const unsigned got_t = cuzk__gpu_msm_bases_level_threads(h);                      \
            printf("  %s, %s: %u threads a level block (expected %u)\n", #g, sc->name, got_t,  \
                   want);                                                                     \
            CHECK(got_t == want);                                                             \
            static const size_t ns[] = {1, 100, 1000, (size_t)1 << 14, (size_t)1 << 16};       \
            for (size_t si = 0; si < sizeof ns / sizeof ns[0]; si++) {                        \
                const size_t n = ns[si] < nmax ? ns[si] : nmax;                               \
                char what[96];                                                                \
                make_scalars(k, n);                                                           \
                snprintf(what, sizeof what, "%s, random", sc->name);                          \
                g##_check_msm(h, (const uint64_t(*)[4])k, n, NULL, what);                     \
                rand_bitmap(mask, n, 50);                                                     \
                snprintf(what, sizeof what, "%s, masked", sc->name);                          \
                g##_check_msm(h, (const uint64_t(*)[4])k, n, mask, what);                     \
            }                                                                                 \
            /* one hot bucket: the levels' doublings */                                       \
            cuzk_test_rand_scalar(k[0]);                                                      \
            for (size_t i = 1; i < nmax; i++) memcpy(k[i], k[0], 32);                         \
            g##_check_msm(h, (const uint64_t(*)[4])k, nmax, NULL, "small card, all equal");   \
            /* the batch-affine cases under this card's blocks (their handles are */          \
            /* configured by the table, which now holds this card's settings) */              \
            test_##g##_ba_cases();                                                            \
        }                                                                                     \
        msm_table = msm_cfgs;                                                                 \
        msm_ncfg = MSM_NCFG;                                                                  \
        msm_cfg_reset(h);                                                                     \
        CHECK(cuzk__gpu_msm_bases_level_threads(h) == own); /* the card's own shape again */  \
    out:                                                                                      \
        free(k);                                                                              \
        free(mask);                                                                           \
        cuzk__gpu_msm_bases_free(h);                                                          \
    }

#define G1_MAXLOG 18 /* the largest test MSM (bases made on the host) */
#define G2_MAXLOG 16
GPU_MSM_TESTS(g1, CUZK__GPU_MSM_G1, G1_MAXLOG)
GPU_MSM_TESTS(g2, CUZK__GPU_MSM_G2, G2_MAXLOG)

/* ---- benchmark -------------------------------------------------------------- */

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

#define BENCH_REPS 5

/* median ms of BENCH_REPS runs after a warm-up; kind 0 MSM, 1 batch-add (50%) */
static double bench_one(cuzk__gpu_msm_bases *h, const uint64_t *scalars, const uint64_t *bm,
                        size_t n, int kind) {
    double t[BENCH_REPS];
    uint64_t out[36];
    for (int r = -1; r < BENCH_REPS; r++) {
        double t0 = now_ms();
        cuzk_status st = kind == 0 ? cuzk__gpu_msm(h, out, scalars, n, NULL)
                                   : cuzk__gpu_msm_batch_add(h, out, n, bm);
        double t1 = now_ms();
        if (st != CUZK_OK) {
            printf("  failed at n=%zu: %s: %s\n", n, cuzk_status_name(st), cuzk__gpu_last_error());
            return -1;
        }
        if (r >= 0) t[r] = t1 - t0;
    }
    qsort(t, BENCH_REPS, sizeof t[0], cmp_double);
    return t[BENCH_REPS / 2];
}

/* --copies K: G1's bench handle keeps K shifted copies of its bases;
 * --force-c C: the bench handles' window; --profile: one more MSM per row
 * with the per-phase profile (stderr) */
static unsigned bench_copies = 1, bench_window = 0;
static int bench_profile = 0;

static void bench(int minlog, int maxlog1, int maxlog2) {
    char name[128];
    int sms = 0;
    if (cuzk__gpu_device_name(cuzk_gpu_test_dev, name, sizeof name, &sms) != CUZK_OK) return;
    printf("\nGPU MSM on %s (%d SMs): bases resident (made on the device), random scalars < r;"
           " median of %d after a warm-up, wall clock\n",
           name, sms, BENCH_REPS);
    printf("%-6s %5s %3s %6s %12s %14s %10s %14s\n", "group", "log2n", "c", "copies",
           "dev-scal ms", "+upload ms", "ns/point", "batch-add50 ms");
    size_t nmax = (size_t)1 << (maxlog1 > maxlog2 ? maxlog1 : maxlog2);
    uint64_t(*k)[4] = malloc(nmax * 32);
    uint64_t *bm = malloc(cuzk_msm_bitmap_words(nmax) * 8);
    if (!k || !bm) {
        printf("  no host memory for 2^%d scalars\n", maxlog1);
        free(k);
        free(bm);
        return;
    }
    for (size_t i = 0; i < nmax; i++) cuzk_test_rand_scalar(k[i]);
    rand_bitmap(bm, nmax, 50);
    for (int g = 1; g <= 2; g++) {
        int top = g == 1 ? maxlog1 : maxlog2;
        cuzk__gpu_msm_bases *h = NULL;
        const uint64_t *table = g == 1 ? (const uint64_t *)(g1_bases + 16)
                                       : (const uint64_t *)(g2_bases + 16);
        if (!table) continue;
        cuzk_status st = CUZK_ERR_GPU;
        /* the largest size that fits */
        for (; top >= 16; top--) {
            double t0 = now_ms();
            st = cuzk__gpu_msm_bases_random(&h, g == 1 ? CUZK__GPU_MSM_G1 : CUZK__GPU_MSM_G2,
                                            table, 16, (size_t)1 << top, 7);
            if (st == CUZK_OK) {
                printf("  %s: 2^%d bases made on the device in %.0f ms\n", g == 1 ? "G1" : "G2",
                       top, now_ms() - t0);
                break;
            }
            printf("  %s: 2^%d bases failed: %s\n", g == 1 ? "G1" : "G2", top,
                   cuzk__gpu_last_error());
        }
        if (st != CUZK_OK) continue;
        const cuzk__gpu_msm_config cfg = {bench_window, 0, 0, 0, 0, 0, 0};
        cuzk__gpu_msm_bases_configure(h, &cfg);
        if (g == 1 && bench_copies > 1) {
            double t0 = now_ms();
            st = cuzk__gpu_msm_bases_precompute(h, bench_copies);
            if (st == CUZK_OK)
                printf("  G1: %u copies (%u asked) made on the device in %.0f ms\n",
                       cuzk__gpu_msm_bases_copies(h), bench_copies, now_ms() - t0);
            else
                printf("  G1: %u copies failed: %s\n", bench_copies, cuzk__gpu_last_error());
        }
        uint64_t *dk = NULL;
        st = cuzk__gpu_msm_scalars_upload(&dk, (const uint64_t *)k, (size_t)1 << top);
        if (st != CUZK_OK) {
            printf("  scalar upload failed: %s\n", cuzk__gpu_last_error());
            cuzk__gpu_msm_bases_free(h);
            continue;
        }
        for (int lg = minlog; lg <= top; lg++) {
            size_t n = (size_t)1 << lg;
            double md = bench_one(h, dk, NULL, n, 0);
            double mu = bench_one(h, (const uint64_t *)k, NULL, n, 0);
            double mb = bench_one(h, NULL, bm, n, 1);
            if (bench_profile) {
                uint64_t out[36];
                cuzk__gpu_msm_config prof = cfg;
                prof.profile = 1;
                cuzk__gpu_msm_bases_configure(h, &prof);
                if (cuzk__gpu_msm(h, out, dk, n, NULL) != CUZK_OK) printf("  profile run failed\n");
                cuzk__gpu_msm_bases_configure(h, &cfg);
            }
            unsigned used = 0;
            const unsigned c = cuzk__gpu_msm_bases_window(h, n, 0, n, &used);
            printf("%-6s %5d %3u %6u %12.2f %14.2f %10.2f %14.2f\n", g == 1 ? "G1" : "G2", lg, c,
                   used, md, mu, md * 1e6 / (double)n, mb);
            fflush(stdout);
        }
        cuzk__gpu_msm_scalars_free(dk);
        cuzk__gpu_msm_bases_free(h);
    }
    free(k);
    free(bm);
}

/* --only S: only the tests whose name contains one of the comma-separated S */
static const char *only_tests;
static int wanted(const char *name) {
    if (!only_tests) return 1;
    for (const char *p = only_tests; *p;) {
        size_t len = strcspn(p, ",");
        for (const char *q = name; *q; q++)
            if (len && strncmp(q, p, len) == 0) return 1;
        p += len + (p[len] == ',');
    }
    return 0;
}
#define RUN_WANTED(fn)                                                                        \
    do {                                                                                      \
        if (wanted(#fn)) RUN(fn);                                                             \
    } while (0)

int main(int argc, char **argv) {
    cuzk_test_init(argc, argv);
    int need = cuzk_gpu_test_need_device(argc, argv);
    if (need != 0) return need;
    int do_bench = 0, min1 = 16, max1 = 27, max2 = -1, only_bench = 0, quick = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--bench") == 0) do_bench = 1;
        if (strcmp(argv[i], "--bench-only") == 0) do_bench = only_bench = 1;
        /* --quick: only the sort and batch-affine edge cases (a short run) */
        if (strcmp(argv[i], "--quick") == 0) quick = 1;
        if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) only_tests = argv[i + 1];
        if (strcmp(argv[i], "--bench-max") == 0 && i + 1 < argc) max1 = atoi(argv[i + 1]);
        /* --bench-min LOG: the bench table's first size (both groups) */
        if (strcmp(argv[i], "--bench-min") == 0 && i + 1 < argc) min1 = atoi(argv[i + 1]);
        /* --copies K: the bench's G1 bases with K shifted copies (bases_precompute) */
        if (strcmp(argv[i], "--copies") == 0 && i + 1 < argc)
            bench_copies = (unsigned)atoi(argv[i + 1]);
        /* --force-c C: the bench's window (the copies then unused) */
        if (strcmp(argv[i], "--force-c") == 0 && i + 1 < argc)
            bench_window = (unsigned)atoi(argv[i + 1]);
        if (strcmp(argv[i], "--profile") == 0) bench_profile = 1;
        /* --bench-g2-max LOG: G2's top (below 16: no G2 rows; default: G1's, at most 26) */
        if (strcmp(argv[i], "--bench-g2-max") == 0 && i + 1 < argc) max2 = atoi(argv[i + 1]);
    }
    if (max2 < 0) max2 = max1 < 26 ? max1 : 26;
    if (only_bench) { /* bases for the device tables only */
        CHECK(g1_make_bases(64));
        CHECK(g2_make_bases(64));
    } else if (quick) {
        CHECK(g1_make_bases(4096));
        CHECK(g2_make_bases(4096));
        RUN_WANTED(test_g1_sort_cases);
        RUN_WANTED(test_g1_ba_cases);
        RUN_WANTED(test_g2_sort_cases);
        RUN_WANTED(test_g2_ba_cases);
    } else {
        /* test_*_msm makes the bases the others use: without it (--only), here */
        if (!wanted("test_g1_msm")) CHECK(g1_make_bases((size_t)1 << G1_MAXLOG));
        if (!wanted("test_g2_msm")) CHECK(g2_make_bases((size_t)1 << G2_MAXLOG));
        RUN_WANTED(test_g1_msm);
        RUN_WANTED(test_g1_batch_add);
        RUN_WANTED(test_g1_copies);
        RUN_WANTED(test_g1_random_bases);
        RUN_WANTED(test_g1_sort_cases);
        RUN_WANTED(test_g1_ba_cases);
        RUN_WANTED(test_g1_small_cards);
        RUN_WANTED(test_g2_msm);
        RUN_WANTED(test_g2_batch_add);
        RUN_WANTED(test_g2_copies);
        RUN_WANTED(test_g2_random_bases);
        RUN_WANTED(test_g2_sort_cases);
        RUN_WANTED(test_g2_ba_cases);
        RUN_WANTED(test_g2_small_cards);
    }
    if (do_bench) bench(min1 < 16 ? 16 : min1, max1, max2);
    free(g1_bases);
    free(g2_bases);
    return cuzk_test_finish();
}
