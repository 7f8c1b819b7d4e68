/*
 * jobstore_pg.c — the job store on the PostgreSQL queue (store_pg.h) that
 * daemons on many machines share.
 *
 * Connections. One handle per kind of work, so none waits behind another:
 * api (the HTTP API's calls and uploads), claim (claims and releases),
 * finish (results and failures), beat (heartbeats, reaping), listen
 * (notifications; cuzk__store_pg_wait holds its handle), and one per
 * fetcher (payload copies, each holding its handle for a whole copy: a
 * copy of gigabytes never holds up a claim).
 *
 * The daemon's identity. It registers at open under its name, with its
 * description and keys, and keeps the id; should the cluster forget it
 * (silent for longer than forget_ms, say while the machine was
 * suspended), claim and renew find it unregistered and it registers again
 * under a new id, with the latest description and keys; its old leases are
 * lost then, as they would have been anyway.
 *
 * Uploads go straight into payload rows (cuzk__store_pg_witness_*), named
 * "pgw-<id>" to the submission form. The first bytes of each (UPLOAD_HEAD)
 * and its size are kept until the payload is submitted or removed, so the
 * witness check before a submission reads a sparse local file with the
 * same header and size instead of the payload.
 *
 * The scratch folder is spool_dir/pg-<id>: copies of the payloads of the
 * partitions this daemon proves ("claim-<job>-<index>-<generation>") and
 * the check files ("check-<id>"). A daemon removes, at open, the folders of
 * daemons that are no longer registered.
 */
#include <dirent.h>
#include <stdarg.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "service/jobstore_impl.h"
#include "service/store_pg.h"
#include "util/error.h"

#define UPLOAD_HEAD (64u << 10) /* bytes of an upload kept for the witness check */
#define MAX_UPLOADS 4096        /* uploads awaiting their submission at once */
#define FETCH_BLOCK (4u << 20)  /* bytes read from a payload per call */
#define UPLOAD_PREFIX "pgw-"
#define FORGET_MIN_MS 60000     /* a daemon's row outlives 10 leases and this */
#define SWEEP_AGE_S 60          /* scratch folders older than this may go */
#define SCRATCH_LOCK ".lock"    /* in a scratch folder: locked by its daemon while it lives */
#define LOOSE_UPLOAD_MS 3600000 /* an upload no job took is removed after this */
#define MAX_FETCHERS 64         /* fetch connections at most */

typedef struct {
    uint64_t id, size;
    uint8_t *head;
    size_t head_len;
} upload;

typedef struct {
    cuzk__store_pg *api, *claim, *finish, *beat, *listen;
    cuzk__store_pg *fetch[MAX_FETCHERS]; /* n_fetch of them */
    size_t n_fetch;
    cuzk__jobstore_log log;
    void *log_user;
    char name[CUZK__STORE_NAME_MAX + 1];
    uint32_t lease_ms;
    char spool[PATH_MAX], scratch[PATH_MAX];
    int scratch_lock; /* holds an flock on scratch/.lock while the process lives; -1: none */
    pthread_mutex_t mu; /* self, info, keys, listening, uploads, fetch_busy */
    pthread_mutex_t reg_mu; /* one registration again at a time (reregister) */
    pthread_cond_t fetch_free; /* a fetch connection was given back */
    int fetch_busy[MAX_FETCHERS];
    uint64_t self;
    char info[CUZK__PG_INFO_BYTES];
    char **keys; /* the keys the daemon claims, n_keys of them */
    size_t n_keys;
    int listening;
    upload *up;
    size_t n_up, cap_up;
} pg;

typedef struct {
    pg *p;
    cuzk__store_pg_writer *w;
    uint8_t head[UPLOAD_HEAD];
    size_t head_len;
    uint64_t size;
} pg_writer;

static void logf_(pg *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void logf_(pg *p, const char *fmt, ...) {
    if (p->log == NULL) return;
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    p->log(p->log_user, line);
}

static uint64_t self_of(pg *p) {
    pthread_mutex_lock(&p->mu);
    const uint64_t id = p->self;
    pthread_mutex_unlock(&p->mu);
    return id;
}

/* Gives daemon id (on handle s) the latest description and keys. */
static cuzk_status send_description(pg *p, cuzk__store_pg *s, uint64_t id, cuzk_error *err) {
    pthread_mutex_lock(&p->mu);
    char info[CUZK__PG_INFO_BYTES];
    memcpy(info, p->info, sizeof(info));
    const size_t n = p->n_keys;
    char **keys = n ? malloc(n * sizeof(*keys)) : NULL;
    size_t k = 0;
    for (size_t i = 0; keys != NULL && i < n; i++)
        if ((keys[k] = strdup(p->keys[i])) != NULL) k++;
    pthread_mutex_unlock(&p->mu);
    cuzk_status st = CUZK_OK;
    if (k != n)
        st = cuzk__fail(err, CUZK_ERR_NOMEM, "describe: no memory for %zu keys", n);
    if (st == CUZK_OK && info[0] != '\0') st = cuzk__store_pg_describe(s, id, info, err);
    if (st == CUZK_OK) st = cuzk__store_pg_serve(s, id, (const char *const *)keys, n, err);
    for (size_t i = 0; i < k; i++) free(keys[i]);
    free(keys);
    return st;
}

/* Registers again after the cluster forgot this daemon (was id). */
static cuzk_status reregister(pg *p, uint64_t was, cuzk_error *err) {
    /* the claimer and the heartbeat may both find the daemon forgotten:
     * one registers, the other then sees the new id */
    pthread_mutex_lock(&p->reg_mu);
    pthread_mutex_lock(&p->mu);
    const uint64_t now = p->self;
    pthread_mutex_unlock(&p->mu);
    if (now != was) { /* another thread did */
        pthread_mutex_unlock(&p->reg_mu);
        return CUZK_OK;
    }
    uint64_t id = 0;
    cuzk_status st = cuzk__store_pg_register(p->beat, p->name, &id, err);
    if (st == CUZK_OK) st = send_description(p, p->beat, id, err);
    if (st != CUZK_OK) {
        pthread_mutex_unlock(&p->reg_mu);
        return st;
    }
    pthread_mutex_lock(&p->mu);
    p->self = id;
    pthread_mutex_unlock(&p->mu);
    pthread_mutex_unlock(&p->reg_mu);
    logf_(p, "the cluster had forgotten this daemon (id %llu): registered again as %llu",
          (unsigned long long)was, (unsigned long long)id);
    return CUZK_OK;
}

/* ---- the scratch folder ------------------------------------------------------------ */

static cuzk_status make_dir(const char *path, cuzk_error *err) {
    char tmp[PATH_MAX];
    snprintf(tmp, sizeof(tmp), "%s", path);
    for (char *s = tmp + 1; *s != '\0'; s++) {
        if (*s != '/') continue;
        *s = '\0';
        if (mkdir(tmp, 0700) != 0 && errno != EEXIST)
            return cuzk__fail(err, CUZK_ERR_IO, "%s: cannot make the folder: %s", tmp,
                              strerror(errno));
        *s = '/';
    }
    if (mkdir(tmp, 0700) != 0 && errno != EEXIST)
        return cuzk__fail(err, CUZK_ERR_IO, "%s: cannot make the folder: %s", tmp,
                          strerror(errno));
    return CUZK_OK;
}

/* Removes a scratch folder's files (only names this code makes) and the
 * folder. */
static void remove_scratch(const char *dir) {
    DIR *d = opendir(dir);
    if (d == NULL) return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, "claim-", 6) != 0 && strncmp(e->d_name, "check-", 6) != 0 &&
            strcmp(e->d_name, SCRATCH_LOCK) != 0)
            continue;
        char path[PATH_MAX];
        if (snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) < (int)sizeof(path))
            (void)unlink(path);
    }
    closedir(d);
    (void)rmdir(dir);
}

/* Locks dir's lock file (made if missing) without waiting: its descriptor,
 * or -1 when the file cannot be opened or another process holds it. */
static int lock_scratch(const char *dir, int create) {
    char path[PATH_MAX];
    if (snprintf(path, sizeof(path), "%s/%s", dir, SCRATCH_LOCK) >= (int)sizeof(path)) return -1;
    const int fd = open(path, O_RDWR | O_CLOEXEC | (create ? O_CREAT : 0), 0600);
    if (fd < 0) return -1;
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* The scratch folders left by daemons of this machine that died: a folder
 * whose lock no process holds (a daemon holds its own while it lives, so a
 * restart finds its predecessor's at once); one without a lock file (a
 * daemon making it this moment) only once its daemon is no longer
 * registered and the folder has aged. */
static void sweep_scratch(pg *p) {
    cuzk__store_pg_daemon *v = NULL;
    size_t n = 0;
    cuzk_error err;
    if (cuzk__store_pg_daemons(p->api, &v, &n, &err) != CUZK_OK) return;
    DIR *d = opendir(p->spool);
    size_t removed = 0;
    struct dirent *e;
    while (d != NULL && (e = readdir(d)) != NULL) {
        char *end = NULL;
        if (strncmp(e->d_name, "pg-", 3) != 0) continue;
        const unsigned long long id = strtoull(e->d_name + 3, &end, 10);
        if (end == e->d_name + 3 || *end != '\0') continue;
        if (id == p->self) continue;
        char path[PATH_MAX], lock[PATH_MAX];
        if (snprintf(path, sizeof(path), "%s/%s", p->spool, e->d_name) >= (int)sizeof(path) ||
            snprintf(lock, sizeof(lock), "%s/%s", path, SCRATCH_LOCK) >= (int)sizeof(lock))
            continue;
        struct stat sb;
        if (stat(lock, &sb) == 0) {
            const int fd = lock_scratch(path, 0);
            if (fd < 0) continue; /* its daemon lives */
            remove_scratch(path);
            close(fd);
            removed++;
            continue;
        }
        int live = 0;
        for (size_t i = 0; i < n && !live; i++) live = v[i].id == id;
        if (live || stat(path, &sb) != 0 || sb.st_mtime > time(NULL) - SWEEP_AGE_S) continue;
        remove_scratch(path);
        removed++;
    }
    if (d != NULL) closedir(d);
    free(v);
    if (removed != 0)
        logf_(p, "removed %zu scratch folder%s of daemons that are gone", removed,
              removed == 1 ? "" : "s");
}

/* ---- open and close ---------------------------------------------------------------- */

/* Replaces the keys kept for the daemon's row (mu held). */
static cuzk_status keep_keys(pg *p, const char *const *keys, size_t n, cuzk_error *err) {
    char **v = n ? calloc(n, sizeof(*v)) : NULL;
    if (n != 0 && v == NULL) return cuzk__fail(err, CUZK_ERR_NOMEM, "describe: no memory");
    for (size_t i = 0; i < n; i++)
        if ((v[i] = strdup(keys[i])) == NULL) {
            for (size_t j = 0; j < i; j++) free(v[j]);
            free(v);
            return cuzk__fail(err, CUZK_ERR_NOMEM, "describe: no memory for %zu keys", n);
        }
    for (size_t i = 0; i < p->n_keys; i++) free(p->keys[i]);
    free(p->keys);
    p->keys = v;
    p->n_keys = n;
    return CUZK_OK;
}

static void pg_close(void *impl) {
    pg *p = impl;
    if (p->scratch[0] != '\0') remove_scratch(p->scratch);
    if (p->scratch_lock >= 0) close(p->scratch_lock); /* after: no one takes it meanwhile */
    cuzk__store_pg_close(p->api);
    cuzk__store_pg_close(p->claim);
    cuzk__store_pg_close(p->finish);
    cuzk__store_pg_close(p->beat);
    cuzk__store_pg_close(p->listen);
    for (size_t i = 0; i < p->n_fetch; i++) cuzk__store_pg_close(p->fetch[i]);
    for (size_t i = 0; i < p->n_up; i++) free(p->up[i].head);
    free(p->up);
    for (size_t i = 0; i < p->n_keys; i++) free(p->keys[i]);
    free(p->keys);
    pthread_cond_destroy(&p->fetch_free);
    pthread_mutex_destroy(&p->mu);
    pthread_mutex_destroy(&p->reg_mu);
    free(p);
}

static const char *pg_where(const void *impl) {
    return cuzk__store_pg_where(((const pg *)impl)->api);
}

static uint64_t pg_self(void *impl) { return self_of(impl); }

static uint64_t pg_reconnects(void *impl) {
    pg *p = impl;
    uint64_t n = cuzk__store_pg_reconnects(p->api) + cuzk__store_pg_reconnects(p->claim) +
                 cuzk__store_pg_reconnects(p->finish) + cuzk__store_pg_reconnects(p->beat) +
                 cuzk__store_pg_reconnects(p->listen);
    for (size_t i = 0; i < p->n_fetch; i++) n += cuzk__store_pg_reconnects(p->fetch[i]);
    return n;
}

/* ---- uploads ----------------------------------------------------------------------- */

static int upload_id(const char *name, uint64_t *id) {
    if (name == NULL || strncmp(name, UPLOAD_PREFIX, 4) != 0) return 0;
    char *end = NULL;
    errno = 0;
    const unsigned long long v = strtoull(name + 4, &end, 10);
    if (end == name + 4 || *end != '\0' || errno != 0 || v == 0 || v > INT64_MAX) return 0;
    *id = v;
    return 1;
}

/* Forgets an upload's head (mu held). */
static void upload_drop(pg *p, uint64_t id) {
    for (size_t i = 0; i < p->n_up; i++)
        if (p->up[i].id == id) {
            free(p->up[i].head);
            p->up[i] = p->up[--p->n_up];
            return;
        }
}

static cuzk_status sink_begin(void *user, void **writer, cuzk_error *err) {
    pg *p = user;
    pg_writer *x = calloc(1, sizeof(*x));
    if (x == NULL) return cuzk__fail(err, CUZK_ERR_NOMEM, "upload: no memory");
    x->p = p;
    cuzk_status st = cuzk__store_pg_witness_begin(p->api, &x->w, err);
    if (st != CUZK_OK) {
        free(x);
        return st;
    }
    *writer = x;
    return CUZK_OK;
}

static cuzk_status sink_append(void *writer, const void *b, size_t n, cuzk_error *err) {
    pg_writer *x = writer;
    if (x->head_len < UPLOAD_HEAD && n > 0) {
        const size_t k = n < UPLOAD_HEAD - x->head_len ? n : UPLOAD_HEAD - x->head_len;
        memcpy(x->head + x->head_len, b, k);
        x->head_len += k;
    }
    x->size += n;
    return cuzk__store_pg_witness_append(x->w, b, n, err);
}

static cuzk_status sink_commit(void *writer, char *name, size_t cap, cuzk_error *err) {
    pg_writer *x = writer;
    pg *p = x->p;
    uint64_t id = 0;
    cuzk_status st = cuzk__store_pg_witness_commit(x->w, &id, err);
    uint8_t *head = st == CUZK_OK ? malloc(x->head_len ? x->head_len : 1) : NULL;
    if (st == CUZK_OK && head == NULL) st = cuzk__fail(err, CUZK_ERR_NOMEM, "upload: no memory");
    if (st == CUZK_OK) {
        memcpy(head, x->head, x->head_len);
        pthread_mutex_lock(&p->mu);
        if (p->n_up == MAX_UPLOADS) {
            st = cuzk__fail(err, CUZK_ERR_BUSY, "upload: %d uploads wait for their submission",
                            MAX_UPLOADS);
        } else if (p->n_up == p->cap_up) {
            const size_t c = p->cap_up ? 2 * p->cap_up : 16;
            upload *v = realloc(p->up, c * sizeof(*v));
            if (v == NULL)
                st = cuzk__fail(err, CUZK_ERR_NOMEM, "upload: no memory");
            else {
                p->up = v;
                p->cap_up = c;
            }
        }
        if (st == CUZK_OK) p->up[p->n_up++] = (upload){id, x->size, head, x->head_len};
        pthread_mutex_unlock(&p->mu);
        if (st != CUZK_OK) free(head);
    }
    if (st == CUZK_OK && snprintf(name, cap, UPLOAD_PREFIX "%llu", (unsigned long long)id) >= (int)cap)
        st = cuzk__fail(err, CUZK_ERR_INVALID_ARG, "upload: the name buffer is too small");
    if (st != CUZK_OK && id != 0) {
        cuzk_error rerr;
        if (cuzk__store_pg_witness_remove(p->api, id, &rerr) != CUZK_OK) {
            /* left for cuzk__store_pg_sweep_witnesses */
        }
    }
    free(x);
    return st;
}

static void sink_abort(void *writer) {
    pg_writer *x = writer;
    if (x == NULL) return;
    cuzk__store_pg_witness_abort(x->w);
    free(x);
}

static void sink_remove(void *user, const char *name) {
    pg *p = user;
    uint64_t id;
    if (!upload_id(name, &id)) return;
    cuzk_error err;
    if (cuzk__store_pg_witness_remove(p->api, id, &err) != CUZK_OK) {
        /* referenced (a job took it) or gone: nothing to remove */
    }
    pthread_mutex_lock(&p->mu);
    upload_drop(p, id);
    pthread_mutex_unlock(&p->mu);
}

static void pg_sink(void *impl, cuzk__witness_sink *sink) {
    sink->begin = sink_begin;
    sink->append = sink_append;
    sink->commit = sink_commit;
    sink->abort = sink_abort;
    sink->remove = sink_remove;
    sink->user = impl;
}

static cuzk_status pg_check_file(void *impl, const char *name, char *path, size_t cap,
                                 int *temporary, cuzk_error *err) {
    pg *p = impl;
    uint64_t id;
    if (!upload_id(name, &id))
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "%.64s: not an upload's name", name);
    if (snprintf(path, cap, "%s/check-%llu", p->scratch, (unsigned long long)id) >= (int)cap)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "upload %llu: the path is too long",
                          (unsigned long long)id);
    pthread_mutex_lock(&p->mu);
    const upload *u = NULL;
    for (size_t i = 0; i < p->n_up && u == NULL; i++)
        if (p->up[i].id == id) u = &p->up[i];
    cuzk_status st = CUZK_OK;
    const int fd = u != NULL ? open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600) : -1;
    if (u == NULL)
        st = cuzk__fail(err, CUZK_ERR_INVALID_ARG, "upload %llu: unknown to this daemon",
                        (unsigned long long)id);
    else if (fd < 0 || write(fd, u->head, u->head_len) != (ssize_t)u->head_len ||
             ftruncate(fd, (off_t)u->size) != 0)
        st = cuzk__fail(err, CUZK_ERR_IO, "%s: cannot write the check file: %s", path,
                        strerror(errno));
    pthread_mutex_unlock(&p->mu);
    if (fd >= 0) close(fd);
    if (st != CUZK_OK) {
        if (u != NULL) (void)unlink(path);
        return st;
    }
    *temporary = 1;
    return CUZK_OK;
}

/* ---- the client side --------------------------------------------------------------- */

static cuzk_status pg_submit(void *impl, const cuzk__store_job *job, uint64_t *id, int *existed,
                             cuzk_error *err) {
    pg *p = impl;
    const size_t n = job->n_partitions;
    if (n == 0 || n > CUZK__STORE_MAX_PARTITIONS || job->witnesses == NULL)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "submit: %zu partitions (1..%d)", n,
                          CUZK__STORE_MAX_PARTITIONS);
    cuzk__store_pg_witness *w = calloc(n, sizeof(*w));
    if (w == NULL) return cuzk__fail(err, CUZK_ERR_NOMEM, "submit: no memory");
    cuzk_status st = CUZK_OK;
    for (size_t i = 0; st == CUZK_OK && i < n; i++) {
        const cuzk__store_witness *x = &job->witnesses[i];
        if ((x->spool == NULL) == (x->path == NULL))
            st = cuzk__fail(err, CUZK_ERR_INVALID_ARG, "witness %zu: an upload or a path, not %s",
                            i, x->spool != NULL ? "both" : "neither");
        else if (x->spool != NULL && !upload_id(x->spool, &w[i].witness_id))
            st = cuzk__fail(err, CUZK_ERR_INVALID_ARG, "witness %zu: %.64s: not an upload", i,
                            x->spool);
        else
            w[i].path = x->path;
    }
    const cuzk__store_pg_job pj = {job->request_id, job->key_name, job->priority, n, w,
                                   job->max_backlog};
    if (st == CUZK_OK) st = cuzk__store_pg_submit(p->api, &pj, id, existed, err);
    if (st == CUZK_OK && !*existed) { /* the payloads are the job's now */
        pthread_mutex_lock(&p->mu);
        for (size_t i = 0; i < n; i++)
            if (w[i].witness_id != 0) upload_drop(p, w[i].witness_id);
        pthread_mutex_unlock(&p->mu);
    }
    free(w);
    return st;
}

static void job_of(const cuzk__store_pg_job_info *in, cuzk__jobstore_job *out) {
    memset(out, 0, sizeof(*out));
    out->rec = in->job;
    out->claimed = in->claimed;
}

static cuzk_status pg_get(void *impl, uint64_t id, cuzk__jobstore_job *job, cuzk_error *err) {
    pg *p = impl;
    cuzk__store_pg_job_info info;
    cuzk_status st = cuzk__store_pg_get(p->api, id, &info, err);
    if (st != CUZK_OK) return st;
    job_of(&info, job);
    if (!cuzk__store_state_ended(info.job.state) && info.queued > 0)
        return cuzk__store_pg_ahead(p->api, id, &job->ahead, err);
    return CUZK_OK;
}

static cuzk_status pg_list(void *impl, unsigned mask, uint64_t after, size_t limit,
                           cuzk__jobstore_job **jobs, size_t *n, cuzk_error *err) {
    pg *p = impl;
    cuzk__store_pg_job_info *v = NULL;
    size_t m = 0;
    cuzk_status st = cuzk__store_pg_list(p->api, mask, after, limit, &v, &m, err);
    if (st != CUZK_OK || m == 0) return st;
    cuzk__jobstore_job *out = calloc(m, sizeof(*out));
    if (out == NULL) {
        free(v);
        return cuzk__fail(err, CUZK_ERR_NOMEM, "list: no memory for %zu jobs", m);
    }
    for (size_t i = 0; i < m; i++) job_of(&v[i], &out[i]);
    free(v);
    *jobs = out;
    *n = m;
    return CUZK_OK;
}

static cuzk_status pg_counts(void *impl, uint64_t counts[5], cuzk_error *err) {
    return cuzk__store_pg_counts(((pg *)impl)->api, counts, err);
}

static cuzk_status pg_backlog(void *impl, size_t *n, cuzk_error *err) {
    return cuzk__store_pg_backlog(((pg *)impl)->api, n, err);
}

static cuzk_status pg_cancel(void *impl, uint64_t id, cuzk_job_state *state, cuzk_error *err) {
    return cuzk__store_pg_cancel(((pg *)impl)->api, id, state, err);
}

static cuzk_status pg_collect(void *impl, uint64_t id, cuzk_error *err) {
    return cuzk__store_pg_collect(((pg *)impl)->api, id, err);
}

static cuzk_status pg_results(void *impl, uint64_t id, cuzk_proof *proofs, uint64_t *owners,
                              size_t cap, uint8_t **pub, size_t *pub_bytes, cuzk_error *err) {
    return cuzk__store_pg_results(((pg *)impl)->api, id, proofs, owners, cap, pub, pub_bytes, err);
}

static cuzk_status pg_expire(void *impl, int64_t age_ms, size_t *removed, cuzk_error *err) {
    pg *p = impl;
    cuzk_status st = cuzk__store_pg_expire(p->api, age_ms, removed, err);
    /* payloads uploaded but never submitted (their daemon died between):
     * those this daemon holds for a form still arriving are kept fresh */
    pthread_mutex_lock(&p->mu);
    const size_t n_up = p->n_up;
    uint64_t *held = n_up ? malloc(n_up * sizeof(*held)) : NULL;
    for (size_t i = 0; held != NULL && i < n_up; i++) held[i] = p->up[i].id;
    pthread_mutex_unlock(&p->mu);
    if (st == CUZK_OK && n_up != 0)
        st = held != NULL ? cuzk__store_pg_witness_touch(p->api, held, n_up, err)
                          : cuzk__fail(err, CUZK_ERR_NOMEM, "expiry: no memory");
    free(held);
    size_t loose = 0;
    if (st == CUZK_OK) st = cuzk__store_pg_sweep_witnesses(p->api, LOOSE_UPLOAD_MS, &loose, err);
    if (st == CUZK_OK && loose != 0)
        logf_(p, "removed %zu uploaded witness%s no job took", loose, loose == 1 ? "" : "es");
    return st;
}

/* ---- the work side ----------------------------------------------------------------- */

static cuzk_status pg_claim(void *impl, const char *const *keys, size_t nkeys, size_t max,
                            cuzk__jobstore_part *parts, size_t *n, cuzk_error *err) {
    pg *p = impl;
    if (max > CUZK__PG_MAX_CLAIM) max = CUZK__PG_MAX_CLAIM;
    cuzk__store_pg_part *v = malloc(max * sizeof(*v));
    if (v == NULL) return cuzk__fail(err, CUZK_ERR_NOMEM, "claim: no memory");
    size_t m = 0;
    uint64_t self = self_of(p);
    cuzk_status st = cuzk__store_pg_claim(p->claim, self, keys, nkeys, max, p->lease_ms, v, &m, err);
    if (st == CUZK_ERR_NOT_FOUND && reregister(p, self, err) == CUZK_OK) {
        self = self_of(p);
        st = cuzk__store_pg_claim(p->claim, self, keys, nkeys, max, p->lease_ms, v, &m, err);
    }
    for (size_t i = 0; st == CUZK_OK && i < m; i++) {
        cuzk__jobstore_part *o = &parts[i];
        memset(o, 0, sizeof(*o));
        o->ref.owner = v[i].ref.owner;
        o->ref.job_id = v[i].ref.job_id;
        o->ref.index = v[i].ref.index;
        o->ref.generation = v[i].ref.generation;
        o->priority = v[i].priority;
        memcpy(o->key_name, v[i].key_name, sizeof(o->key_name));
        o->n_partitions = v[i].n_partitions;
        o->payload = v[i].witness_id;
        o->payload_bytes = v[i].witness_bytes;
        snprintf(o->path, sizeof(o->path), "%s", v[i].witness_path);
    }
    free(v);
    if (st == CUZK_OK) *n = m;
    return st;
}

static cuzk_status pg_describe(void *impl, const char *info, const char *const *keys,
                               size_t nkeys, cuzk_error *err) {
    pg *p = impl;
    if (info != NULL && strlen(info) >= sizeof(p->info))
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "describe: info of %zu bytes (at most %zu)",
                          strlen(info), sizeof(p->info) - 1);
    pthread_mutex_lock(&p->mu);
    cuzk_status st = keep_keys(p, keys, nkeys, err);
    if (st == CUZK_OK && info != NULL) snprintf(p->info, sizeof(p->info), "%s", info);
    pthread_mutex_unlock(&p->mu);
    const uint64_t self = self_of(p);
    if (st == CUZK_OK) st = send_description(p, p->api, self, err);
    if (st == CUZK_ERR_NOT_FOUND) st = reregister(p, self, err); /* it sends them */
    return st;
}

/* A fetch connection of this call's own, waited for while all are busy. */
static size_t fetch_take(pg *p) {
    pthread_mutex_lock(&p->mu);
    for (;;) {
        for (size_t i = 0; i < p->n_fetch; i++)
            if (!p->fetch_busy[i]) {
                p->fetch_busy[i] = 1;
                pthread_mutex_unlock(&p->mu);
                return i;
            }
        pthread_cond_wait(&p->fetch_free, &p->mu);
    }
}

static void fetch_give(pg *p, size_t i) {
    pthread_mutex_lock(&p->mu);
    p->fetch_busy[i] = 0;
    pthread_cond_signal(&p->fetch_free);
    pthread_mutex_unlock(&p->mu);
}

static cuzk_status pg_fetch(void *impl, cuzk__jobstore_part *part, int (*stop)(void *),
                            void *stop_user, cuzk_error *err) {
    pg *p = impl;
    const cuzk__jobstore_ref *r = &part->ref;
    if (snprintf(part->path, sizeof(part->path), "%s/claim-%llu-%u-%llu", p->scratch,
                 (unsigned long long)r->job_id, r->index, (unsigned long long)r->generation) >=
        (int)sizeof(part->path))
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "job %llu: the scratch path is too long",
                          (unsigned long long)r->job_id);
    uint8_t *buf = malloc(FETCH_BLOCK);
    FILE *f = buf != NULL ? fopen(part->path, "wbe") : NULL;
    cuzk_status st = CUZK_OK;
    if (buf == NULL)
        st = cuzk__fail(err, CUZK_ERR_NOMEM, "fetch: no memory");
    else if (f == NULL)
        st = cuzk__fail(err, CUZK_ERR_IO, "%s: cannot create: %s", part->path, strerror(errno));
    const size_t conn = st == CUZK_OK ? fetch_take(p) : 0;
    for (uint64_t off = 0; st == CUZK_OK;) {
        size_t got = 0;
        if (stop != NULL && stop(stop_user)) {
            st = cuzk__fail(err, CUZK_ERR_CANCELLED,
                            "job %llu partition %u: the copy of its witness was stopped after "
                            "%llu bytes",
                            (unsigned long long)r->job_id, r->index, (unsigned long long)off);
            break;
        }
        st = cuzk__store_pg_witness_read(p->fetch[conn], part->payload, off, buf, FETCH_BLOCK,
                                         &got, err);
        if (st != CUZK_OK || got == 0) break;
        if (fwrite(buf, 1, got, f) != got)
            st = cuzk__fail(err, CUZK_ERR_IO, "%s: write error: %s", part->path, strerror(errno));
        off += got;
        if (got < FETCH_BLOCK) break;
    }
    if (buf != NULL && f != NULL) fetch_give(p, conn);
    if (f != NULL && fclose(f) != 0 && st == CUZK_OK)
        st = cuzk__fail(err, CUZK_ERR_IO, "%s: write error: %s", part->path, strerror(errno));
    free(buf);
    if (st != CUZK_OK) {
        (void)unlink(part->path);
        part->path[0] = '\0';
        return st;
    }
    part->temporary = 1;
    return CUZK_OK;
}

static void pg_ref(const cuzk__jobstore_ref *in, cuzk__store_pg_ref *out) {
    out->owner = in->owner;
    out->job_id = in->job_id;
    out->index = in->index;
    out->generation = in->generation;
}

static cuzk__jobstore_outcome outcome_of(cuzk__store_pg_outcome o) {
    return o == CUZK__PG_RECORDED ? CUZK__JS_RECORDED
           : o == CUZK__PG_ENDED  ? CUZK__JS_ENDED
                                  : CUZK__JS_FENCED;
}

static cuzk_status pg_complete(void *impl, const cuzk__jobstore_ref *ref, const cuzk_proof *proof,
                               const uint8_t *pub, size_t pub_bytes,
                               cuzk__jobstore_outcome *outcome, int *job_done, cuzk_error *err) {
    cuzk__store_pg_ref r;
    pg_ref(ref, &r);
    cuzk__store_pg_outcome o = CUZK__PG_FENCED;
    cuzk_status st = cuzk__store_pg_complete(((pg *)impl)->finish, &r, proof, pub, pub_bytes, &o,
                                             job_done, err);
    /* a partition or job collected meanwhile: its job ended */
    if (st == CUZK_ERR_NOT_FOUND) {
        *outcome = CUZK__JS_ENDED;
        return CUZK_OK;
    }
    if (st == CUZK_OK) *outcome = outcome_of(o);
    return st;
}

static cuzk_status pg_fail(void *impl, const cuzk__jobstore_ref *ref, cuzk_status status,
                           const char *msg, cuzk__jobstore_outcome *outcome, cuzk_error *err) {
    cuzk__store_pg_ref r;
    pg_ref(ref, &r);
    cuzk__store_pg_outcome o = CUZK__PG_FENCED;
    cuzk_status st = cuzk__store_pg_fail(((pg *)impl)->finish, ref->job_id, &r, status, msg, &o,
                                         err);
    if (st == CUZK_ERR_NOT_FOUND) {
        *outcome = CUZK__JS_ENDED;
        return CUZK_OK;
    }
    if (st == CUZK_OK) *outcome = outcome_of(o);
    return st;
}

static cuzk_status pg_release(void *impl, const cuzk__jobstore_ref *ref,
                              cuzk__jobstore_outcome *outcome, cuzk_error *err) {
    cuzk__store_pg_ref r;
    pg_ref(ref, &r);
    cuzk__store_pg_outcome o = CUZK__PG_FENCED;
    cuzk_status st = cuzk__store_pg_release(((pg *)impl)->claim, &r, &o, err);
    if (st == CUZK_ERR_NOT_FOUND) {
        *outcome = CUZK__JS_ENDED;
        return CUZK_OK;
    }
    if (st == CUZK_OK) *outcome = outcome_of(o);
    return st;
}

static cuzk_status pg_renew(void *impl, cuzk__jobstore_lease *held, size_t n, cuzk_error *err) {
    pg *p = impl;
    cuzk__store_pg_lease *v = n ? malloc(n * sizeof(*v)) : NULL;
    if (n != 0 && v == NULL) return cuzk__fail(err, CUZK_ERR_NOMEM, "renew: no memory");
    const uint64_t self = self_of(p);
    for (size_t i = 0; i < n; i++) pg_ref(&held[i].ref, &v[i].ref);
    cuzk_status st = cuzk__store_pg_renew(p->beat, self, p->lease_ms, v, n, NULL, err);
    if (st == CUZK_ERR_NOT_FOUND) {
        /* forgotten: what it held is lost (reaped); it joins again */
        st = reregister(p, self, err);
        for (size_t i = 0; i < n; i++) v[i].state = CUZK__PG_LOST;
    }
    for (size_t i = 0; st == CUZK_OK && i < n; i++)
        held[i].state = v[i].state == CUZK__PG_HELD   ? CUZK__JS_HELD
                        : v[i].state == CUZK__PG_LOST ? CUZK__JS_LOST
                                                      : CUZK__JS_JOB_ENDED;
    free(v);
    return st;
}

static cuzk_status pg_reap(void *impl, size_t *requeued, cuzk_error *err) {
    pg *p = impl;
    cuzk_status st = cuzk__store_pg_reap(p->beat, requeued, err);
    int64_t age = 10 * (int64_t)p->lease_ms;
    if (age < FORGET_MIN_MS) age = FORGET_MIN_MS;
    size_t forgot = 0;
    if (st == CUZK_OK) st = cuzk__store_pg_forget(p->beat, age, &forgot, err);
    if (st == CUZK_OK && forgot != 0)
        logf_(p, "forgot %zu daemon%s silent for over %lld s", forgot, forgot == 1 ? "" : "s",
              (long long)(age / 1000));
    return st;
}

static cuzk_status pg_leave(void *impl, size_t *released, cuzk_error *err) {
    pg *p = impl;
    return cuzk__store_pg_leave(p->beat, self_of(p), released, err);
}

static cuzk_status pg_wait(void *impl, int timeout_ms, cuzk__jobstore_event *ev, uint64_t *job_id,
                           int *got, cuzk_error *err) {
    pg *p = impl;
    if (!p->listening) { /* only the listener thread calls wait */
        cuzk_status st = cuzk__store_pg_listen(p->listen, CUZK__PG_CHANNEL_END | CUZK__PG_CHANNEL_NEW,
                                               err);
        if (st != CUZK_OK) return st;
        p->listening = 1;
        *ev = CUZK__JS_EVENT_RESYNC; /* what came before the LISTEN was missed */
        *got = 1;
        return CUZK_OK;
    }
    cuzk__store_pg_event e;
    cuzk_status st = cuzk__store_pg_wait(p->listen, timeout_ms, &e, got, err);
    if (st != CUZK_OK || !*got) return st;
    *job_id = e.job_id;
    *ev = e.kind == CUZK__PG_EVENT_JOB_END   ? CUZK__JS_EVENT_END
          : e.kind == CUZK__PG_EVENT_JOB_NEW ? CUZK__JS_EVENT_NEW
                                             : CUZK__JS_EVENT_RESYNC;
    return CUZK_OK;
}

static cuzk_status pg_daemons(void *impl, cuzk__jobstore_daemon **out, size_t *n,
                              cuzk_error *err) {
    pg *p = impl;
    cuzk__store_pg_daemon *v = NULL;
    size_t m = 0;
    cuzk_status st = cuzk__store_pg_daemons(p->api, &v, &m, err);
    if (st != CUZK_OK || m == 0) return st;
    cuzk__jobstore_daemon *d = calloc(m, sizeof(*d));
    if (d == NULL) {
        free(v);
        return cuzk__fail(err, CUZK_ERR_NOMEM, "daemons: no memory");
    }
    for (size_t i = 0; i < m; i++) {
        d[i].id = v[i].id;
        memcpy(d[i].name, v[i].name, sizeof(d[i].name));
        snprintf(d[i].info, sizeof(d[i].info), "%s", v[i].info);
        d[i].started_ms = v[i].started_ms;
        d[i].heartbeat_age_ms = v[i].heartbeat_age_ms;
        d[i].held = v[i].held;
    }
    free(v);
    *out = d;
    *n = m;
    return CUZK_OK;
}

static const cuzk__jobstore_ops PG_OPS = {
    .kind = "postgres",
    .shared = 1,
    .close = pg_close,
    .where = pg_where,
    .self = pg_self,
    .reconnects = pg_reconnects,
    .sink = pg_sink,
    .upload_check_file = pg_check_file,
    .submit = pg_submit,
    .get = pg_get,
    .list = pg_list,
    .counts = pg_counts,
    .backlog = pg_backlog,
    .cancel = pg_cancel,
    .collect = pg_collect,
    .results = pg_results,
    .expire = pg_expire,
    .claim = pg_claim,
    .describe = pg_describe,
    .fetch = pg_fetch,
    .complete = pg_complete,
    .fail = pg_fail,
    .release = pg_release,
    .renew = pg_renew,
    .reap = pg_reap,
    .leave = pg_leave,
    .wait = pg_wait,
    .daemons = pg_daemons,
};

cuzk_status cuzk__jobstore_open_pg(const cuzk__jobstore_ops **ops, void **impl,
                                   const cuzk__jobstore_options *opt, cuzk__jobstore_log log,
                                   void *log_user, cuzk_error *err) {
    pg *p = calloc(1, sizeof(*p));
    if (p == NULL) return cuzk__fail(err, CUZK_ERR_NOMEM, "no memory for the job store");
    pthread_mutex_init(&p->mu, NULL);
    pthread_mutex_init(&p->reg_mu, NULL);
    p->scratch_lock = -1;
    pthread_cond_init(&p->fetch_free, NULL);
    p->log = log;
    p->log_user = log_user;
    p->lease_ms = opt->lease_ms;
    snprintf(p->name, sizeof(p->name), "%s", opt->name != NULL ? opt->name : "cuzk");
    snprintf(p->info, sizeof(p->info), "%s", opt->info != NULL ? opt->info : "");
    snprintf(p->spool, sizeof(p->spool), "%s", opt->spool_dir);
    int migrated = 0, more = 0;
    cuzk_status st = CUZK_OK;
    if (opt->fetchers > MAX_FETCHERS)
        st = cuzk__fail(err, CUZK_ERR_INVALID_ARG, "job store: %u fetchers (at most %d)",
                        opt->fetchers, MAX_FETCHERS);
    if (st == CUZK_OK) st = keep_keys(p, opt->keys, opt->n_keys, err);
    if (st == CUZK_OK) st = cuzk__store_pg_open(&p->api, opt->store, NULL, &migrated, err);
    cuzk__store_pg **rest[] = {&p->claim, &p->finish, &p->beat, &p->listen};
    for (size_t i = 0; st == CUZK_OK && i < 4; i++) {
        st = cuzk__store_pg_open(rest[i], opt->store, NULL, &more, err);
        migrated += more;
    }
    const size_t n_fetch = opt->fetchers != 0 ? opt->fetchers : 1;
    for (; st == CUZK_OK && p->n_fetch < n_fetch; p->n_fetch++) {
        st = cuzk__store_pg_open(&p->fetch[p->n_fetch], opt->store, NULL, &more, err);
        migrated += more;
        if (st != CUZK_OK) break;
    }
    if (st == CUZK_OK && migrated != 0)
        logf_(p, "postgres %s: applied %d schema migration%s (now version %d)",
              cuzk__store_pg_where(p->api), migrated, migrated == 1 ? "" : "s",
              CUZK__PG_SCHEMA_VERSION);
    if (st == CUZK_OK) st = cuzk__store_pg_register(p->api, p->name, &p->self, err);
    if (st == CUZK_OK) st = send_description(p, p->api, p->self, err);
    if (st == CUZK_OK) st = make_dir(p->spool, err);
    if (st == CUZK_OK &&
        snprintf(p->scratch, sizeof(p->scratch), "%s/pg-%llu", p->spool,
                 (unsigned long long)p->self) >= (int)sizeof(p->scratch))
        st = cuzk__fail(err, CUZK_ERR_INVALID_ARG, "%s: the scratch folder's path is too long",
                        p->spool);
    if (st == CUZK_OK) st = make_dir(p->scratch, err);
    if (st == CUZK_OK && (p->scratch_lock = lock_scratch(p->scratch, 1)) < 0)
        st = cuzk__fail(err, CUZK_ERR_IO, "%s/%s: cannot lock it: %s", p->scratch, SCRATCH_LOCK,
                        strerror(errno));
    if (st != CUZK_OK) {
        if (p->self != 0) {
            cuzk_error lerr;
            if (cuzk__store_pg_leave(p->api, p->self, NULL, &lerr) != CUZK_OK) {
                /* its row stays until the cluster forgets it */
            }
        }
        p->scratch[0] = '\0';
        pg_close(p);
        return st;
    }
    sweep_scratch(p);
    *ops = &PG_OPS;
    *impl = p;
    return CUZK_OK;
}
