/*
 * mapfile.h — a whole file mapped read-only, for the readers that parse in
 * place (binfile.c, circuit.c, witness.c).
 *
 * cuzk__map_file opens path, checks it is a regular file whose size fits in
 * size_t, maps it with MAP_PRIVATE | MAP_POPULATE and closes the descriptor.
 * The readers touch every byte at open (canonical checks, copies of
 * misaligned sections), so the whole mapping is faulted in at once: one page
 * fault per 4 KiB page cost 30-40 ms of a 22 MB key on a VM.
 *
 * An empty file maps nothing (mmap refuses length 0): data then points to a
 * static zero word, 8-byte aligned, and the reader reports the truncation.
 * Failures return CUZK_ERR_IO with a message naming path; by default the
 * message says which step failed (cannot stat / not a regular file / file too
 * large to map); CUZK__MAP_BRIEF reports those three as one "not a regular
 * file that can be mapped". On failure *m is zeroed (fd -1) and nothing stays
 * open.
 *
 * CUZK__MAP_KEEP_FD is for readers that parse only a file's head in place and
 * read its bulk later through the descriptor (params.c's deferred points):
 * the mapping is not populated (only the pages touched are read) and the
 * descriptor stays open in m->fd, the same file as the mapping, for pread;
 * the caller closes it. Without the flag m->fd is -1.
 */
#ifndef CUZK_MAPFILE_H
#define CUZK_MAPFILE_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

typedef struct {
    const uint8_t *data; /* the file's bytes; never NULL after success */
    uint64_t size;       /* its length */
    void *map;           /* what to unmap: the mmap base, NULL for an empty file */
    size_t map_size;
    int fd; /* CUZK__MAP_KEEP_FD: the open descriptor; else -1 */
} cuzk__mapped;

#define CUZK__MAP_BRIEF 1u   /* one message for every reason a file cannot be mapped */
#define CUZK__MAP_KEEP_FD 2u /* no MAP_POPULATE; keep the descriptor in m->fd */

cuzk_status cuzk__map_file(cuzk__mapped *m, const char *path, unsigned flags, cuzk_error *err);

/* Releases a mapping made by cuzk__map_file; map may be NULL (nothing mapped). */
void cuzk__unmap_file(void *map, size_t map_size);

#endif /* CUZK_MAPFILE_H */
