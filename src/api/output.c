/* output.c — several files written together or not at all (cuzk_files_write
 * over the writer of util/atomic_write.h). */
#include <string.h>

#include "api/api.h"
#include "util/atomic_write.h"

cuzk_status cuzk_files_write(const cuzk_output *outputs, size_t n, cuzk_error *err) {
    cuzk__error_clear(err);
    if (outputs == NULL && n != 0)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "files_write: NULL outputs");
    for (size_t i = 0; i < n; i++) {
        if (outputs[i].path == NULL || (outputs[i].data == NULL && outputs[i].len != 0))
            return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "files_write: output %zu: NULL", i);
        /* one target named twice would be written twice and renamed over
         * itself; a device named twice (/dev/null) is harmless */
        if (cuzk__out_in_place(outputs[i].path)) continue;
        for (size_t j = 0; j < i; j++)
            if (cuzk__same_file(outputs[i].path, outputs[j].path))
                return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "%s and %s are the same file",
                                  outputs[j].path, outputs[i].path);
    }
    /* files first, each complete on disk (not yet renamed); devices and
     * FIFOs, whose bytes cannot be taken back, only once all of them are */
    cuzk__outset set;
    cuzk__outset_init(&set);
    cuzk_status st = CUZK_OK;
    for (int in_place = 0; in_place < 2; in_place++)
        for (size_t i = 0; i < n && st == CUZK_OK; i++) {
            if (cuzk__out_in_place(outputs[i].path) != in_place) continue;
            cuzk__out *o = NULL;
            st = cuzk__outset_add(&set, &o, outputs[i].path, err);
            if (st == CUZK_OK) st = cuzk__out_write(o, outputs[i].data, outputs[i].len, err);
            if (st == CUZK_OK && !in_place) st = cuzk__out_finish(o, err);
        }
    if (st != CUZK_OK) {
        cuzk__outset_abort(&set);
        return st;
    }
    return cuzk__outset_commit(&set, err);
}
