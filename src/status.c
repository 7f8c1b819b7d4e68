/* status.c — status strings and version, generated from CUZK_STATUS_MAP. */
#include "cuzk.h"

#include <stdlib.h>

const char *cuzk_strerror(cuzk_status st) {
    switch (st) {
#define CUZK__STATUS_MSG(name, msg) \
    case CUZK_##name:               \
        return msg;
        CUZK_STATUS_MAP(CUZK__STATUS_MSG)
#undef CUZK__STATUS_MSG
    default:
        return "unknown status";
    }
}

const char *cuzk_status_name(cuzk_status st) {
    switch (st) {
#define CUZK__STATUS_NAME(name, msg) \
    case CUZK_##name:                \
        return #name;
        CUZK_STATUS_MAP(CUZK__STATUS_NAME)
#undef CUZK__STATUS_NAME
    default:
        return "UNKNOWN";
    }
}

#define CUZK__STR2(x) #x
#define CUZK__STR(x) CUZK__STR2(x)
const char *cuzk_version(void) {
    return CUZK__STR(CUZK_VERSION_MAJOR) "." CUZK__STR(CUZK_VERSION_MINOR) "." CUZK__STR(
        CUZK_VERSION_PATCH);
}

void cuzk_free(void *p) { free(p); }
