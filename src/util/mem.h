/*
 * mem.h — large buffers that are cheap to touch.
 *
 * A fresh multi-megabyte allocation faults in one 4 KiB page at a time on
 * first write; on a virtual machine each fault costs microseconds, which made
 * a 22 MB key's open and a proof's scratch vectors spend tens of ms in the
 * kernel (doc/lessons.md). cuzk__alloc_large asks for transparent huge pages
 * from 256 KiB on (the buffer rounded up to whole 2 MiB pages) and faults the
 * whole buffer in with one call where Linux allows it. The memory is
 * uninitialized, 64-byte aligned at least, and released with free().
 * Returns NULL when the allocation fails (nothing is retried).
 */
#ifndef CUZK_MEM_H
#define CUZK_MEM_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

#ifdef __cplusplus
extern "C" {
#endif

void *cuzk__alloc_large(size_t n);

/* The same as calloc(count, size) (zeroed; NULL on overflow or failure). */
void *cuzk__calloc_large(size_t count, size_t size);

/* Zeroes n bytes of secret data (r, s, witness-derived values) in a way the
 * compiler may not remove as a dead store before free() or return. */
void cuzk__wipe(void *p, size_t n);

/*
 * memcpy(dst, src, n) split over up to `threads` threads (0: OpenMP's
 * default; at most 16, and at least 256 KiB each, since a few threads
 * saturate host memory): one thread's memcpy is far below the PCIe rate that
 * the GPU code's pinned staging buffers are filled for or emptied at. A plain
 * memcpy without OpenMP. The regions must not overlap.
 */
void cuzk__memcpy_parallel(void *dst, const void *src, size_t n, unsigned threads);

/* How n bytes split for up to threads threads (0: OpenMP's count; at most
 * 16), each slice least bytes at least: the thread count (1 or more) and
 * each slice's bytes in *slice (a multiple of 4 KiB; the last is shorter). */
size_t cuzk__parallel_slices(size_t n, unsigned threads, size_t least, size_t *slice);

/* A malloc'd copy of the NUL-terminated string s (NULL when out of memory). */
char *cuzk__strdup(const char *s);

/*
 * An 8-byte aligned view of a caller's buffer for the readers that parse in
 * place: data itself when it is aligned, a malloc'd copy (returned in *owned,
 * to free) when it is not, a static zero word when size is 0. name is for
 * messages; fails with CUZK_ERR_INVALID_ARG for a NULL buffer of nonzero size
 * and CUZK_ERR_NOMEM when the copy cannot be made.
 */
cuzk_status cuzk__aligned_view(const uint8_t **image, void **owned, const void *data, size_t size,
                               const char *name, cuzk_error *err);

#ifdef __cplusplus
}
#endif

#endif /* CUZK_MEM_H */
