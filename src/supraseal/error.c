/*
 * error.c — errors as sppark's RustError::by_value carries them: an int32
 * code and a message that the caller frees with free() (sppark built with
 * TAKE_RESPONSIBILITY_FOR_ERROR_MESSAGE, which both supra_seal's and Curio's
 * build scripts define; doc/formats.md §17.9). Never a static string: Rust's
 * Drop for sppark::Error hands every non-NULL message to libc's free.
 */
#include "supraseal/supraseal_impl.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

cuzk_supraseal_error cuzk__ss_ok(void) {
    cuzk_supraseal_error e = {0, NULL};
    return e;
}

cuzk_supraseal_error cuzk__ss_fail(int code, const char *fmt, ...) {
    cuzk_supraseal_error e = {code, NULL};
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) return e;
    e.message = malloc((size_t)n + 1);
    if (e.message == NULL) return e;
    va_start(ap, fmt);
    vsnprintf(e.message, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return e;
}

int cuzk__ss_code(cuzk_status st) {
    switch (st) {
    case CUZK_OK:
        return 0;
    case CUZK_ERR_NOMEM:
    case CUZK_ERR_DEVICE_NOMEM:
        return ENOMEM;
    case CUZK_ERR_IO:
        return EIO;
    case CUZK_ERR_PROOF_INVALID:
    case CUZK_ERR_KEY_CORRUPT:
        return EBADMSG;
    default:
        return EINVAL;
    }
}

cuzk_supraseal_error cuzk__ss_from(const cuzk_error *err, const char *prefix) {
    return cuzk__ss_fail(cuzk__ss_code(err->status), "%s%s", prefix ? prefix : "",
                         cuzk__error_text(err));
}
