/*
 * error.h — a status plus a sentence saying what was wrong and where.
 *
 * Readers and other operations on caller input take a `cuzk_error *err`
 * (may be NULL) and fail with
 *     return cuzk__fail(err, CUZK_ERR_BAD_ENCODING, "%s: offset %zu: section 4: ...", path, off);
 * The message names the file, the offset or section and the reason, so a user
 * can act on it without a debugger. The status alone is what callers branch on.
 */
#ifndef CUZK_ERROR_H
#define CUZK_ERROR_H

#include "cuzk.h"

/* cuzk_error (status + message) is public: include/cuzk.h. */

/* Records st and the formatted message in *err (when err is not NULL) and
 * returns st. A message that does not fit is truncated with "...". */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
cuzk_status cuzk__fail(cuzk_error *err, cuzk_status st, const char *fmt, ...);

/* Sets *err to CUZK_OK with an empty message. */
void cuzk__error_clear(cuzk_error *err);

/* The message, or cuzk_strerror(status) when none was recorded. */
const char *cuzk__error_text(const cuzk_error *err);

#endif /* CUZK_ERROR_H */
