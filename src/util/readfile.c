/* readfile.c — see readfile.h. */
#include "util/readfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/mem.h"

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

cuzk_status cuzk__open_regular(const char *path, int *fd, uint64_t *size, cuzk_error *err) {
    *fd = -1;
    *size = 0;
    const int f = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (f < 0) return cuzk__fail(err, CUZK_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    struct stat sb;
    if (fstat(f, &sb) != 0) {
        const int e = errno;
        close(f);
        return cuzk__fail(err, CUZK_ERR_IO, "%s: %s", path, strerror(e));
    }
    if (!S_ISREG(sb.st_mode)) {
        close(f);
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "%s: not a regular file", path);
    }
    *fd = f;
    *size = (uint64_t)sb.st_size;
    return CUZK_OK;
}

/* Bytes [lo, hi) of fd into buf + lo: 0, or the errno of the failure (EIO
 * standing for an end of file before hi). */
static int pread_range(int fd, uint8_t *buf, size_t lo, size_t hi) {
    while (lo < hi) {
        const size_t want = hi - lo < ((size_t)1 << 30) ? hi - lo : (size_t)1 << 30;
        const ssize_t got = pread(fd, buf + lo, want, (off_t)lo);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) return errno;
        if (got == 0) return EIO;
        lo += (size_t)got;
    }
    return 0;
}

cuzk_status cuzk__pread_all(int fd, void *buf, size_t size, unsigned threads, const char *path,
                            cuzk_error *err) {
    int failed = 0;
#ifdef CUZK_HAVE_OPENMP
    size_t slice;
    const size_t nt = cuzk__parallel_slices(size, threads, (size_t)16 << 20, &slice);
    if (nt > 1) {
        const int nti = (int)nt;
#pragma omp parallel for num_threads(nti) schedule(static) reduction(| : failed)
        for (int i = 0; i < nti; i++) {
            const size_t lo = (size_t)i * slice < size ? (size_t)i * slice : size;
            const size_t hi = lo + slice < size ? lo + slice : size;
            failed |= pread_range(fd, buf, lo, hi) != 0;
        }
        if (failed) failed = pread_range(fd, buf, 0, size); /* again in one piece, for its errno */
    } else
#else
    (void)threads;
#endif
    {
        failed = pread_range(fd, buf, 0, size);
    }
    if (failed == EIO)
        return cuzk__fail(err, CUZK_ERR_IO, "%s: ended before %zu bytes (changed while read?)",
                          path, size);
    if (failed != 0)
        return cuzk__fail(err, CUZK_ERR_IO, "%s: read error: %s", path, strerror(failed));
    return CUZK_OK;
}
