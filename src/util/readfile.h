/*
 * readfile.h — a whole file into memory under a size limit, and a file's
 * first bytes (for telling formats apart before reading them).
 */
#ifndef CUZK_UTIL_READFILE_H
#define CUZK_UTIL_READFILE_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

/*
 * Reads path (a regular file, a pipe or a device) into *out, a malloc'd
 * buffer NUL-terminated past *len, reading at most one byte past max.
 * Errors name the file: CUZK_ERR_IO (cannot open, a directory, a read
 * error), CUZK_ERR_BAD_LENGTH ("larger than the limit of MAX bytes"),
 * CUZK_ERR_NOMEM. On failure *out is NULL and *len 0.
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__read_file(const char *path, size_t max, uint8_t **out,
                                                    size_t *len, cuzk_error *err);

/* Up to n first bytes of path into buf: the count read (0 when it cannot be
 * opened; the reader that follows names the reason). */
size_t cuzk__file_head(void *buf, size_t n, const char *path);

/*
 * Opens path for reading without waiting on it (a FIFO's open returns at
 * once) and keeps it only when it is a regular file: *fd and its size
 * (*fd -1 on failure). Errors name the file: CUZK_ERR_IO (cannot open),
 * CUZK_ERR_INVALID_ARG (not a regular file). For files that others may
 * change: the caller reads them with cuzk__pread_all, never mapping them,
 * since a mapped file truncated under a reader kills the process (SIGBUS).
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__open_regular(const char *path, int *fd, uint64_t *size,
                                                       cuzk_error *err);

/* The first size bytes of fd into buf, in slices read side by side by up to
 * threads threads (0: all cores, at most 16); CUZK_ERR_IO naming path on a
 * read error or a file that ended early (it shrank meanwhile). */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__pread_all(int fd, void *buf, size_t size,
                                                    unsigned threads, const char *path,
                                                    cuzk_error *err);

#endif /* CUZK_UTIL_READFILE_H */
