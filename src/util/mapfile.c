/* mapfile.c — see mapfile.h. */
#include "util/mapfile.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

cuzk_status cuzk__map_file(cuzk__mapped *m, const char *path, unsigned flags, cuzk_error *err) {
    memset(m, 0, sizeof(*m));
    m->fd = -1;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return cuzk__fail(err, CUZK_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    struct stat sb;
    const char *why = NULL;
    int e = 0;
    if (fstat(fd, &sb) != 0) {
        e = errno;
        why = "cannot stat";
    } else if (!S_ISREG(sb.st_mode)) {
        why = "not a regular file";
    } else if ((uint64_t)sb.st_size > (uint64_t)SIZE_MAX) {
        why = "file too large to map";
    }
    if (why != NULL) {
        close(fd);
        if (flags & CUZK__MAP_BRIEF)
            return cuzk__fail(err, CUZK_ERR_IO, "%s: not a regular file that can be mapped", path);
        if (e != 0) return cuzk__fail(err, CUZK_ERR_IO, "%s: %s: %s", path, why, strerror(e));
        return cuzk__fail(err, CUZK_ERR_IO, "%s: %s", path, why);
    }
    uint64_t size = (uint64_t)sb.st_size;
    const int keep = (flags & CUZK__MAP_KEEP_FD) != 0;
    if (size == 0) {
        static const uint64_t empty[1] = {0};
        m->data = (const uint8_t *)empty;
        if (keep)
            m->fd = fd;
        else
            close(fd);
        return CUZK_OK;
    }
    int map_flags = MAP_PRIVATE;
#ifdef MAP_POPULATE
    if (!keep) map_flags |= MAP_POPULATE; /* fault everything in now; see mapfile.h */
#endif
    void *p = mmap(NULL, (size_t)size, PROT_READ, map_flags, fd, 0);
    e = errno;
    if (p == MAP_FAILED || !keep) close(fd);
    if (p == MAP_FAILED)
        return cuzk__fail(err, CUZK_ERR_IO, "%s: cannot map %llu bytes: %s", path,
                          (unsigned long long)size, strerror(e));
    if (keep) m->fd = fd;
    m->data = p;
    m->size = size;
    m->map = p;
    m->map_size = (size_t)size;
    return CUZK_OK;
}

void cuzk__unmap_file(void *map, size_t map_size) {
    if (map != NULL) munmap(map, map_size);
}
