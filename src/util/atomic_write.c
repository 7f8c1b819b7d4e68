/* atomic_write.c — see atomic_write.h. */
#include "util/atomic_write.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Links followed in a row before ELOOP (Linux's own limit). */
#define MAX_LINKS 40
/* The temporary's name keeps at most this much of the target's, so that
 * ".<name>.XXXXXX" stays within NAME_MAX (255) for any target name. */
#define TMP_NAME_KEEP 200
/* Tries at a free temporary name (a clash of 36 random bits is already rare). */
#define TMP_TRIES 64
/* The largest single fwrite: some libcs fail single writes above 2 GiB. */
#define WRITE_CHUNK ((uint64_t)1 << 30)
/* Each output's stdio buffer. */
#define STREAM_BUFFER ((size_t)1 << 20)

struct cuzk__out {
    char *path;   /* as given: messages */
    char *target; /* the file replaced (links followed); NULL in place */
    char *dir;    /* target's folder, fsynced after the rename; NULL in place */
    char *tmp;    /* the temporary beside target; NULL in place */
    FILE *f;      /* NULL once finished */
    char *buf;    /* f's buffer */
    int in_place;
    int renamed;
};

/* ---- paths --------------------------------------------------------------- */

static char *dup_str(const char *s) {
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d != NULL) memcpy(d, s, n);
    return d;
}

/* "a" + "b" (+ "c"), malloc'd. */
static char *cat3(const char *a, size_t na, const char *b, const char *c) {
    size_t nb = strlen(b), nc = c ? strlen(c) : 0;
    char *r = malloc(na + nb + nc + 1);
    if (r == NULL) return NULL;
    memcpy(r, a, na);
    memcpy(r + na, b, nb);
    if (nc) memcpy(r + na + nb, c, nc);
    r[na + nb + nc] = '\0';
    return r;
}

/* The descriptor a name stands for: /dev/stdout 1, /dev/stderr 2,
 * /dev/fd/N and /proc/self/fd/N N; -1 for any other path. */
static int fd_name(const char *path) {
    if (strcmp(path, "/dev/stdout") == 0) return 1;
    if (strcmp(path, "/dev/stderr") == 0) return 2;
    const char *d = NULL;
    if (strncmp(path, "/dev/fd/", 8) == 0)
        d = path + 8;
    else if (strncmp(path, "/proc/self/fd/", 14) == 0)
        d = path + 14;
    if (d == NULL || *d == '\0') return -1;
    long v = 0;
    for (; *d != '\0'; d++) {
        if (*d < '0' || *d > '9' || v > 1000000) return -1;
        v = v * 10 + (*d - '0');
    }
    return (int)v;
}

/* Length of the folder part of path including its last '/', 0 without one. */
static size_t dir_len(const char *path) {
    const char *slash = strrchr(path, '/');
    return slash ? (size_t)(slash - path) + 1 : 0;
}

/*
 * path with its symbolic links followed, as open(2) would: the last link's
 * target, which may not exist. NULL with *e set on a loop (ELOOP), an
 * unreadable link or no memory. A lstat failure other than "is no link"
 * ends the walk: the open or create that follows reports it.
 */
static char *follow_links(const char *path, int *e) {
    char *cur = dup_str(path);
    char *buf = malloc(PATH_MAX);
    for (int hop = 0; cur != NULL && buf != NULL; hop++) {
        struct stat st;
        if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode)) {
            free(buf);
            return cur;
        }
        if (hop == MAX_LINKS) {
            *e = ELOOP;
            break;
        }
        ssize_t k = readlink(cur, buf, PATH_MAX - 1);
        if (k < 0) {
            *e = errno;
            break;
        }
        buf[k] = '\0';
        char *next = buf[0] == '/' ? dup_str(buf) : cat3(cur, dir_len(cur), buf, NULL);
        free(cur);
        cur = next;
    }
    if (cur == NULL || buf == NULL) *e = ENOMEM;
    free(cur);
    free(buf);
    return NULL;
}

/* The folder of a target for access(2) and fsync: "." when it has none. */
static char *dir_of(const char *target) {
    size_t n = dir_len(target);
    if (n == 0) return dup_str(".");
    return cat3(target, n > 1 ? n - 1 : 1, "", NULL); /* "/x" -> "/" */
}

static uint64_t random_word(void) {
    uint64_t r;
    if (getrandom(&r, sizeof(r), GRND_NONBLOCK) == (ssize_t)sizeof(r)) return r;
    static atomic_uint_fast64_t counter;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    r = ((uint64_t)getpid() << 32) ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20) ^
        atomic_fetch_add(&counter, 0x9e3779b97f4a7c15ULL);
    r = (r ^ (r >> 30)) * 0xbf58476d1ce4e5b9ULL; /* splitmix64's finalizer */
    r = (r ^ (r >> 27)) * 0x94d049bb133111ebULL;
    return r ^ (r >> 31);
}

/* ---- one output ---------------------------------------------------------- */

static cuzk_status fail_step(cuzk_error *err, const cuzk__out *o, const char *step, int e) {
    return cuzk__fail(err, CUZK_ERR_IO, "%s: %s failed: %s", o->path, step, strerror(e ? e : EIO));
}

static const char *kind_name(mode_t m) {
    if (S_ISBLK(m)) return "block device";
    if (S_ISSOCK(m)) return "socket";
    return "special file";
}

static void out_free(cuzk__out *o) {
    if (o == NULL) return;
    if (o->f != NULL) fclose(o->f);
    if (o->tmp != NULL && !o->renamed) (void)unlink(o->tmp);
    free(o->buf);
    free(o->path);
    free(o->target);
    free(o->dir);
    free(o->tmp);
    free(o);
}

/* The target's temporary: created O_EXCL beside it, with the old file's
 * owner and mode (st when it exists); *fd receives its descriptor. */
static cuzk_status create_tmp(cuzk__out *o, const struct stat *st, int *fd, cuzk_error *err) {
    static const char digits[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    size_t dl = dir_len(o->target), bl = strlen(o->target + dl);
    if (bl > TMP_NAME_KEEP) bl = TMP_NAME_KEEP;
    *fd = -1;
    o->tmp = malloc(dl + bl + 10);
    if (o->tmp == NULL) return cuzk__fail(err, CUZK_ERR_NOMEM, "%s: out of memory", o->path);
    memcpy(o->tmp, o->target, dl);
    o->tmp[dl] = '.';
    memcpy(o->tmp + dl + 1, o->target + dl, bl);
    o->tmp[dl + 1 + bl] = '.';
    char *suffix = o->tmp + dl + bl + 2;
    int e = EEXIST;
    for (int t = 0; t < TMP_TRIES && *fd < 0 && e == EEXIST; t++) {
        uint64_t r = random_word();
        for (int i = 0; i < 6; i++, r /= 62) suffix[i] = digits[r % 62];
        suffix[6] = '\0';
        *fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        e = *fd < 0 ? errno : 0;
    }
    if (*fd < 0) {
        cuzk_status st_c = cuzk__fail(err, CUZK_ERR_IO, "%s: cannot create the temporary %s: %s",
                                      o->path, o->tmp, strerror(e));
        free(o->tmp);
        o->tmp = NULL;
        return st_c;
    }
    if (st != NULL) {
        /* root replacing a user's file keeps the user as its owner */
        if ((st->st_uid != geteuid() || st->st_gid != getegid()) &&
            fchown(*fd, st->st_uid, st->st_gid) != 0) {
            /* not allowed: the new file stays ours */
        }
        if (fchmod(*fd, st->st_mode & 07777) != 0) {
            e = errno;
            close(*fd);
            *fd = -1; /* out_free removes the temporary */
            return cuzk__fail(err, CUZK_ERR_IO, "%s: cannot set the mode of the temporary %s: %s",
                              o->path, o->tmp, strerror(e));
        }
    }
    return CUZK_OK;
}

void cuzk__outset_init(cuzk__outset *s) {
    s->outs = NULL;
    s->n = s->cap = 0;
}

static cuzk_status outset_add(cuzk__outset *s, cuzk__out **o_out, const char *path,
                              cuzk_error *err);

cuzk_status cuzk__outset_add(cuzk__outset *s, cuzk__out **o_out, const char *path,
                             cuzk_error *err) {
    const cuzk_status st = outset_add(s, o_out, path, err);
    if (st != CUZK_OK && s->n == 0) { /* a set still empty holds nothing to abort */
        free(s->outs);
        cuzk__outset_init(s);
    }
    return st;
}

static cuzk_status outset_add(cuzk__outset *s, cuzk__out **o_out, const char *path,
                              cuzk_error *err) {
    *o_out = NULL;
    if (path == NULL || *path == '\0')
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "an output path is empty");
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 4;
        cuzk__out **outs = realloc(s->outs, cap * sizeof(*outs));
        if (outs == NULL) return cuzk__fail(err, CUZK_ERR_NOMEM, "%s: out of memory", path);
        s->outs = outs;
        s->cap = cap;
    }
    cuzk__out *o = calloc(1, sizeof(*o));
    if (o == NULL || (o->path = dup_str(path)) == NULL) {
        free(o);
        return cuzk__fail(err, CUZK_ERR_NOMEM, "%s: out of memory", path);
    }
    cuzk_status st_add = CUZK_OK;
    int fd = -1, nfd = fd_name(path);
    struct stat st;
    if (nfd >= 0) {
        o->in_place = 1;
        fd = fcntl(nfd, F_DUPFD_CLOEXEC, 3);
        if (fd < 0)
            st_add = cuzk__fail(err, CUZK_ERR_IO, "%s: cannot open: descriptor %d: %s", path,
                                nfd, strerror(errno));
    } else if (stat(path, &st) == 0 && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))) {
        o->in_place = 1;
        fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
            st_add = cuzk__fail(err, CUZK_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    } else {
        /* a directory or the like is refused; a folder that is missing or
         * not writable (CUZK_ERR_IO) is left to the create to report */
        int exists = stat(path, &st) == 0, e = 0;
        st_add = cuzk__out_check(path, err);
        if (st_add == CUZK_ERR_IO) st_add = CUZK_OK;
        if (st_add != CUZK_OK) {
            /* refused */
        } else if ((o->target = follow_links(path, &e)) == NULL) {
            st_add = cuzk__fail(err, e == ENOMEM ? CUZK_ERR_NOMEM : CUZK_ERR_IO, "%s: %s", path,
                                strerror(e));
        } else if ((o->dir = dir_of(o->target)) == NULL) {
            st_add = cuzk__fail(err, CUZK_ERR_NOMEM, "%s: out of memory", path);
        } else {
            st_add = create_tmp(o, exists ? &st : NULL, &fd, err);
        }
    }
    if (fd >= 0) {
        o->f = fdopen(fd, "wb");
        if (o->f == NULL) {
            st_add = cuzk__fail(err, CUZK_ERR_NOMEM, "%s: cannot open a stream: %s", path,
                                strerror(errno));
            close(fd);
        } else {
            /* glibc takes the size only with a buffer given: without one it
             * buffers st_blksize (4 KiB) */
            if ((o->buf = malloc(STREAM_BUFFER)) != NULL)
                setvbuf(o->f, o->buf, _IOFBF, STREAM_BUFFER);
            st_add = CUZK_OK;
            if (err != NULL) cuzk__error_clear(err);
        }
    }
    if (o->f == NULL) {
        out_free(o);
        return st_add != CUZK_OK ? st_add : CUZK_ERR_IO;
    }
    s->outs[s->n++] = o;
    *o_out = o;
    return CUZK_OK;
}

FILE *cuzk__out_file(cuzk__out *o) { return o->f; }

const char *cuzk__out_path(const cuzk__out *o) { return o->path; }

cuzk_status cuzk__out_write(cuzk__out *o, const void *p, uint64_t n, cuzk_error *err) {
    if (o->f == NULL)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "%s: written after it was finished",
                          o->path);
    const uint8_t *b = p;
    while (n > 0) {
        size_t k = (size_t)(n > WRITE_CHUNK ? WRITE_CHUNK : n);
        errno = 0;
        if (fwrite(b, 1, k, o->f) != k) return fail_step(err, o, "write", errno);
        b += k;
        n -= k;
    }
    return CUZK_OK;
}

cuzk_status cuzk__out_write_pieces(cuzk__out *o, const cuzk__write_piece *pieces,
                                   size_t n_pieces, cuzk_error *err) {
    for (size_t i = 0; i < n_pieces; i++) {
        cuzk_status st = cuzk__out_write(o, pieces[i].p, pieces[i].n, err);
        if (st != CUZK_OK) return st;
    }
    return CUZK_OK;
}

cuzk_status cuzk__out_finish(cuzk__out *o, cuzk_error *err) {
    FILE *f = o->f;
    if (f == NULL) return CUZK_OK;
    o->f = NULL;
    cuzk_status st = CUZK_OK;
    int e = errno;
    if (ferror(f))
        st = fail_step(err, o, "write", e); /* a producer's fwrite failed; errno is its */
    else if (fflush(f) != 0)
        st = fail_step(err, o, "flush", errno);
    else if (!o->in_place && fsync(fileno(f)) != 0)
        st = fail_step(err, o, "fsync", errno);
    if (fclose(f) != 0 && st == CUZK_OK) st = fail_step(err, o, "close", errno);
    free(o->buf);
    o->buf = NULL;
    return st;
}

/* ---- the set ------------------------------------------------------------- */

void cuzk__outset_abort(cuzk__outset *s) {
    for (size_t i = 0; i < s->n; i++) out_free(s->outs[i]);
    free(s->outs);
    cuzk__outset_init(s);
}

/* fsync of a folder; file systems that cannot (EINVAL) are not an error. */
static int fsync_dir(const char *dir) {
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return errno;
    int e = fsync(fd) != 0 && errno != EINVAL ? errno : 0;
    close(fd);
    return e;
}

cuzk_status cuzk__outset_commit(cuzk__outset *s, cuzk_error *err) {
    cuzk_status st = CUZK_OK;
    /* every output complete and on disk before the first rename */
    for (size_t i = 0; i < s->n && st == CUZK_OK; i++) st = cuzk__out_finish(s->outs[i], err);
    size_t i = 0;
    for (; i < s->n && st == CUZK_OK; i++) {
        cuzk__out *o = s->outs[i];
        if (o->in_place) continue;
        if (rename(o->tmp, o->target) != 0) {
            int e = errno;
            char done[512] = "";
            size_t used = 0;
            for (size_t j = 0; j < i && used < sizeof(done); j++) {
                if (!s->outs[j]->renamed) continue;
                int k = snprintf(done + used, sizeof(done) - used, "%s%s", used ? ", " : "",
                                 s->outs[j]->path);
                if (k > 0) used += (size_t)k;
            }
            st = cuzk__fail(err, CUZK_ERR_IO, "%s: rename of %s over it failed: %s%s%s%s",
                            o->path, o->tmp, strerror(e), used ? " (already replaced: " : "",
                            done, used ? ")" : "");
            break;
        }
        o->renamed = 1;
    }
    /* the renames on disk: each folder once */
    for (size_t k = 0; k < s->n && st == CUZK_OK; k++) {
        cuzk__out *o = s->outs[k];
        if (!o->renamed) continue;
        int seen = 0;
        for (size_t j = 0; j < k && !seen; j++)
            seen = s->outs[j]->renamed && strcmp(s->outs[j]->dir, o->dir) == 0;
        int e = seen ? 0 : fsync_dir(o->dir);
        if (e != 0)
            st = cuzk__fail(err, CUZK_ERR_IO,
                            "%s: written, but the fsync of its folder %s failed: %s", o->path,
                            o->dir, strerror(e));
    }
    cuzk__outset_abort(s); /* closes and removes what is left */
    return st;
}

cuzk_status cuzk__write_file_atomic(const char *path, const cuzk__write_piece *pieces,
                                    size_t n_pieces, cuzk_error *err) {
    cuzk__outset s;
    cuzk__out *o;
    cuzk__outset_init(&s);
    cuzk_status st = cuzk__outset_add(&s, &o, path, err);
    if (st == CUZK_OK) st = cuzk__out_write_pieces(o, pieces, n_pieces, err);
    if (st == CUZK_OK) return cuzk__outset_commit(&s, err);
    cuzk__outset_abort(&s);
    return st;
}

/* ---- checks before the work ---------------------------------------------- */

int cuzk__out_in_place(const char *path) {
    struct stat st;
    if (path == NULL || *path == '\0') return 0;
    return fd_name(path) >= 0 ||
           (stat(path, &st) == 0 && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)));
}

cuzk_status cuzk__out_check(const char *path, cuzk_error *err) {
    if (path == NULL || *path == '\0')
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "an output path is empty");
    if (fd_name(path) >= 0) return CUZK_OK;
    struct stat st;
    if (stat(path, &st) == 0) {
        if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) return CUZK_OK;
        if (S_ISDIR(st.st_mode))
            return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "%s: is a directory, not a file", path);
        if (!S_ISREG(st.st_mode))
            return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                              "%s: is a %s; an output is a file, a character device or a FIFO",
                              path, kind_name(st.st_mode));
    } else if (errno == ELOOP) {
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "%s: %s", path, strerror(ELOOP));
    }
    int e = 0;
    char *target = follow_links(path, &e);
    if (target == NULL)
        return cuzk__fail(err, e == ENOMEM ? CUZK_ERR_NOMEM : CUZK_ERR_INVALID_ARG, "%s: %s",
                          path, strerror(e));
    cuzk_status st_out = CUZK_OK;
    char *dir = NULL;
    if (target[dir_len(target)] == '\0') {
        st_out = cuzk__fail(err, CUZK_ERR_INVALID_ARG, "%s: names a folder, not a file", path);
    } else if ((dir = dir_of(target)) == NULL) {
        st_out = cuzk__fail(err, CUZK_ERR_NOMEM, "%s: out of memory", path);
    } else if (access(dir, W_OK | X_OK) != 0) {
        st_out = cuzk__fail(err, CUZK_ERR_IO, "cannot write %s: folder %s: %s", path, dir,
                            strerror(errno));
    }
    free(dir);
    free(target);
    return st_out;
}

/* The absolute, normalized form of a path that does not exist: links of the
 * path followed, its folder through realpath when that exists, else "." and
 * ".." removed by hand. NULL when out of memory. */
static char *canonical_new(const char *path) {
    int e = 0;
    char *target = follow_links(path, &e);
    if (target == NULL) return NULL;
    char *dir = dir_of(target), *rd = dir ? realpath(dir, NULL) : NULL, *out = NULL;
    const char *base = target + dir_len(target);
    if (rd != NULL) {
        out = cat3(rd, strlen(rd), "/", base);
    } else if (dir != NULL) {
        /* lexical: cwd + path, then drop "", "." and "x/.." */
        char cwd[PATH_MAX];
        char *abs = target[0] == '/' ? dup_str(target)
                    : getcwd(cwd, sizeof(cwd)) ? cat3(cwd, strlen(cwd), "/", target)
                                               : dup_str(target);
        out = abs ? malloc(strlen(abs) + 2) : NULL;
        if (out != NULL) {
            size_t n = 0;
            char *save = NULL;
            for (char *tok = strtok_r(abs, "/", &save); tok != NULL;
                 tok = strtok_r(NULL, "/", &save)) {
                if (strcmp(tok, ".") == 0) continue;
                if (strcmp(tok, "..") == 0) {
                    while (n > 0 && out[n - 1] != '/') n--;
                    if (n > 0) n--;
                    continue;
                }
                out[n++] = '/';
                size_t k = strlen(tok);
                memcpy(out + n, tok, k);
                n += k;
            }
            if (n == 0) out[n++] = '/';
            out[n] = '\0';
        }
        free(abs);
    }
    free(rd);
    free(dir);
    free(target);
    return out;
}

char *cuzk__file_identity(const char *path) {
    struct stat sb;
    if (stat(path, &sb) == 0) {
        char id[64];
        snprintf(id, sizeof(id), "@%ju:%ju", (uintmax_t)sb.st_dev, (uintmax_t)sb.st_ino);
        return dup_str(id);
    }
    return canonical_new(path);
}

int cuzk__same_file(const char *a, const char *b) {
    if (a == NULL || b == NULL) return 0;
    /* an existing file's "@DEV:INO" never equals a path, which starts '/' */
    char *ia = cuzk__file_identity(a), *ib = cuzk__file_identity(b);
    const int same = ia != NULL && ib != NULL ? strcmp(ia, ib) == 0 : strcmp(a, b) == 0;
    free(ia);
    free(ib);
    return same;
}
