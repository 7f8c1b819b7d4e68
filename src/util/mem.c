/* mem.c — see mem.h. */
#include "util/mem.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#ifdef CUZK_HAVE_OPENMP
#include <omp.h>
#endif

#define HUGE_PAGE ((size_t)2 << 20)
/* From here on a buffer is rounded up to whole huge pages: 64 faults of
 * 4 KiB cost more than zeroing the rest of a 2 MiB page (doc/lessons.md). */
#define HUGE_FROM ((size_t)256 << 10)

void *cuzk__alloc_large(size_t n) {
    void *p = NULL;
    if (n < HUGE_FROM) return posix_memalign(&p, 64, n ? n : 1) == 0 ? p : NULL;
    if (n > SIZE_MAX - HUGE_PAGE) return NULL;
    const size_t whole = (n + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
    if (posix_memalign(&p, HUGE_PAGE, whole) != 0) return NULL;
#if defined(MADV_HUGEPAGE)
    (void)madvise(p, whole, MADV_HUGEPAGE); /* best effort */
#endif
#if defined(MADV_POPULATE_WRITE)
    (void)madvise(p, whole, MADV_POPULATE_WRITE); /* best effort */
#endif
    return p;
}

void *cuzk__calloc_large(size_t count, size_t size) {
    if (size != 0 && count > SIZE_MAX / size) return NULL;
    void *p = cuzk__alloc_large(count * size);
    if (p != NULL) memset(p, 0, count * size);
    return p;
}

/* memset through a volatile function pointer: the call cannot be proven
 * side-effect free, so it survives optimization (explicit_bzero is not in C11). */
static void *(*volatile wipe_memset)(void *, int, size_t) = memset;

void cuzk__wipe(void *p, size_t n) {
    if (p != NULL && n != 0) wipe_memset(p, 0, n);
}

char *cuzk__strdup(const char *s) {
    size_t n = strlen(s) + 1;
    char *r = malloc(n);
    if (r != NULL) memcpy(r, s, n);
    return r;
}

cuzk_status cuzk__aligned_view(const uint8_t **image, void **owned, const void *data, size_t size,
                               const char *name, cuzk_error *err) {
    static const uint64_t empty[1] = {0};
    *owned = NULL;
    if (data == NULL && size != 0)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "%s: NULL buffer", name);
    if (size == 0) {
        *image = (const uint8_t *)empty;
    } else if ((uintptr_t)data % 8 == 0) {
        *image = data;
    } else {
        *owned = malloc(size);
        if (*owned == NULL)
            return cuzk__fail(err, CUZK_ERR_NOMEM, "%s: out of memory copying %zu bytes", name,
                              size);
        memcpy(*owned, data, size);
        *image = *owned;
    }
    return CUZK_OK;
}

size_t cuzk__parallel_slices(size_t n, unsigned threads, size_t least, size_t *slice) {
#ifdef CUZK_HAVE_OPENMP
    size_t nt = threads ? threads : (size_t)omp_get_max_threads();
#else
    size_t nt = 1;
    (void)threads;
#endif
    if (nt > 16) nt = 16;
    if (nt > n / least) nt = n / least;
    if (nt < 1) nt = 1;
    *slice = ((n + nt - 1) / nt + 4095) & ~(size_t)4095;
    return nt;
}

void cuzk__memcpy_parallel(void *dst, const void *src, size_t n, unsigned threads) {
#ifdef CUZK_HAVE_OPENMP
    size_t slice;
    const size_t nt = cuzk__parallel_slices(n, threads, (size_t)1 << 18, &slice);
    if (nt > 1) {
        const int nti = (int)nt;
#pragma omp parallel for num_threads(nti) schedule(static)
        for (int i = 0; i < nti; i++) {
            const size_t lo = (size_t)i * slice < n ? (size_t)i * slice : n;
            const size_t hi = lo + slice < n ? lo + slice : n;
            if (lo < hi) memcpy((uint8_t *)dst + lo, (const uint8_t *)src + lo, hi - lo);
        }
        return;
    }
#else
    (void)threads;
#endif
    memcpy(dst, src, n);
}
