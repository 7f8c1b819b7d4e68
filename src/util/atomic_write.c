/* atomic_write.c — see atomic_write.h. */
#include "util/atomic_write.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

cuzk_status cuzk__write_file_atomic(const char *path, const cuzk__write_piece *pieces,
                                    size_t n_pieces, cuzk_error *err) {
    size_t pl = strlen(path);
    char *tmp = malloc(pl + 5);
    if (tmp == NULL) return cuzk__fail(err, CUZK_ERR_NOMEM, "%s: out of memory", path);
    memcpy(tmp, path, pl);
    memcpy(tmp + pl, ".tmp", 5);
    cuzk_status st = CUZK_OK;
    FILE *f = fopen(tmp, "wb");
    if (f == NULL) {
        st = cuzk__fail(err, CUZK_ERR_IO, "%s: cannot create: %s", tmp, strerror(errno));
        free(tmp);
        return st;
    }
    /* fwrite in pieces: some libcs choke on single writes above 2 GiB. */
    for (size_t i = 0; i < n_pieces && st == CUZK_OK; i++) {
        const uint8_t *p = pieces[i].p;
        uint64_t left = pieces[i].n;
        while (left > 0 && st == CUZK_OK) {
            size_t piece = left > ((uint64_t)1 << 30) ? (size_t)1 << 30 : (size_t)left;
            if (fwrite(p, 1, piece, f) != piece)
                st = cuzk__fail(err, CUZK_ERR_IO, "%s: write failed: %s", tmp, strerror(errno));
            p += piece;
            left -= piece;
        }
    }
    if (st == CUZK_OK && (fflush(f) != 0 || fsync(fileno(f)) != 0))
        st = cuzk__fail(err, CUZK_ERR_IO, "%s: flush failed: %s", tmp, strerror(errno));
    if (fclose(f) != 0 && st == CUZK_OK)
        st = cuzk__fail(err, CUZK_ERR_IO, "%s: close failed: %s", tmp, strerror(errno));
    if (st == CUZK_OK && rename(tmp, path) != 0)
        st = cuzk__fail(err, CUZK_ERR_IO, "%s: cannot rename %s to it: %s", path, tmp,
                        strerror(errno));
    if (st != CUZK_OK) unlink(tmp);
    free(tmp);
    return st;
}
