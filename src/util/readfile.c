/* readfile.c — see readfile.h. */
#include "util/readfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

cuzk_status cuzk__read_file(const char *path, size_t max, uint8_t **out, size_t *len,
                            cuzk_error *err) {
    *out = NULL;
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (f == NULL) return cuzk__fail(err, CUZK_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    struct stat sb;
    if (fstat(fileno(f), &sb) == 0 && S_ISDIR(sb.st_mode)) {
        fclose(f);
        return cuzk__fail(err, CUZK_ERR_IO, "%s: is a directory", path);
    }
    if (max > SIZE_MAX / 2) max = SIZE_MAX / 2; /* max + 1 and cap * 2 stay in range */
    size_t cap = 4096 < max + 1 ? 4096 : max + 1, n = 0;
    uint8_t *buf = malloc(cap + 1);
    while (buf != NULL) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap || n > max) break;
        /* grow, but never read more than one byte past the limit */
        const size_t next = cap * 2 > max + 1 ? max + 1 : cap * 2;
        uint8_t *nb = realloc(buf, next + 1);
        if (nb == NULL) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = nb;
        cap = next;
    }
    cuzk_status st = CUZK_OK;
    if (buf == NULL)
        st = cuzk__fail(err, CUZK_ERR_NOMEM, "%s: no memory to read it", path);
    else if (ferror(f))
        st = cuzk__fail(err, CUZK_ERR_IO, "%s: read error", path);
    else if (n > max)
        st = cuzk__fail(err, CUZK_ERR_BAD_LENGTH, "%s: larger than the limit of %zu bytes", path,
                        max);
    fclose(f);
    if (st != CUZK_OK) {
        free(buf);
        return st;
    }
    buf[n] = 0;
    *out = buf;
    *len = n;
    return CUZK_OK;
}

size_t cuzk__file_head(void *buf, size_t n, const char *path) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) return 0;
    const size_t got = fread(buf, 1, n, f);
    fclose(f);
    return got;
}
