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

#endif /* CUZK_UTIL_READFILE_H */
