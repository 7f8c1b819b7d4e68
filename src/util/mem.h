/*
 * mem.h — large buffers that are cheap to touch.
 *
 * A fresh multi-megabyte allocation faults in one 4 KiB page at a time on
 * first write; on a virtual machine each fault costs microseconds, which made
 * a 22 MB key's open and a proof's scratch vectors spend tens of ms in the
 * kernel (doc/lessons.md). cuzk__alloc_large asks for transparent huge pages
 * and faults the whole buffer in with one call where Linux allows it. The
 * memory is uninitialized, 64-byte aligned at least, and released with free().
 * Returns NULL when the allocation fails (nothing is retried).
 */
#ifndef CUZK_MEM_H
#define CUZK_MEM_H

#include <stddef.h>

void *cuzk__alloc_large(size_t n);

/* The same as calloc(count, size) (zeroed; NULL on overflow or failure). */
void *cuzk__calloc_large(size_t count, size_t size);

#endif /* CUZK_MEM_H */
