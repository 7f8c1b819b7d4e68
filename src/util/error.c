/* error.c — see error.h. */
#include "util/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

cuzk_status cuzk__fail(cuzk_error *err, cuzk_status st, const char *fmt, ...) {
    if (err == NULL) return st;
    err->status = st;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
    va_end(ap);
    if (n < 0) {
        snprintf(err->msg, sizeof(err->msg), "%s", cuzk_strerror(st));
    } else if ((size_t)n >= sizeof(err->msg)) {
        memcpy(err->msg + sizeof(err->msg) - 4, "...", 4);
    }
    return st;
}

void cuzk__error_clear(cuzk_error *err) {
    if (err == NULL) return;
    err->status = CUZK_OK;
    err->msg[0] = '\0';
}

const char *cuzk__error_text(const cuzk_error *err) {
    if (err->msg[0] != '\0') return err->msg;
    return cuzk_strerror(err->status);
}

const char *cuzk_error_text(const cuzk_error *err) {
    if (err == NULL) return cuzk_strerror(CUZK_ERR_INVALID_ARG);
    return cuzk__error_text(err);
}
