/* fixed_base.c — fixed-base multiplication in G1 and G2 (fixed_base.h):
 * fixed_base_impl.h stamped twice. VARIABLE TIME. */
#include "ec/fixed_base.h"

#include <stdlib.h>
#include <string.h>

#if defined(CUZK_HAVE_OPENMP)
#include <omp.h>
#endif

static unsigned fb_threads(unsigned threads) {
#if defined(CUZK_HAVE_OPENMP)
    if (threads == 0) threads = (unsigned)omp_get_max_threads();
    return threads == 0 ? 1 : threads;
#else
    (void)threads;
    return 1;
#endif
}

unsigned cuzk_fixed_base_window_bits(size_t n) {
    unsigned best = 2;
    double best_cost = 0;
    for (unsigned c = 2; c <= CUZK_FIXED_BASE_AUTO_MAX_C; c++) {
        double cost = ((double)n + (double)((size_t)1 << (c - 1))) * (double)(256 / c + 1);
        if (c == 2 || cost < best_cost) {
            best = c;
            best_cost = cost;
        }
    }
    return best;
}

#define CUZK__EC(name) cuzk_g1_##name
#define CUZK__FE cuzk_fp
#define FB_S(name) fb_g1_##name
#include "ec/fixed_base_impl.h"
#undef CUZK__EC
#undef CUZK__FE
#undef FB_S

#define CUZK__EC(name) cuzk_g2_##name
#define CUZK__FE cuzk_fp2
#define FB_S(name) fb_g2_##name
#include "ec/fixed_base_impl.h"
#undef CUZK__EC
#undef CUZK__FE
#undef FB_S
