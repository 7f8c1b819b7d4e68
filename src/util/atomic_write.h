/*
 * atomic_write.h — a file written whole or not at all, for the writers of
 * our own formats (circuit.c, witness.c) and of proofs (`cuzk prove`).
 *
 * cuzk__write_file_atomic writes the pieces, in order, to "<path>.tmp",
 * flushes and fsyncs it, then renames it over path: a reader of path sees
 * either its old content or all of the new, never a truncated file, even
 * across a crash. On failure the temporary file is removed and path is left
 * as it was. Errors: CUZK_ERR_NOMEM ("<path>: out of memory") or
 * CUZK_ERR_IO naming the temporary file and the step that failed (cannot
 * create / write / flush / close failed), or path for the rename.
 */
#ifndef CUZK_ATOMIC_WRITE_H
#define CUZK_ATOMIC_WRITE_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

/* One run of bytes to write; n may exceed what one fwrite takes. */
typedef struct {
    const void *p;
    uint64_t n;
} cuzk__write_piece;

cuzk_status cuzk__write_file_atomic(const char *path, const cuzk__write_piece *pieces,
                                    size_t n_pieces, cuzk_error *err);

#endif /* CUZK_ATOMIC_WRITE_H */
