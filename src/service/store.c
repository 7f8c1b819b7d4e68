/*
 * store.c — the durable job store (store.h): one SQLite connection behind
 * one mutex, statements prepared once at open, every change one
 * transaction; the spool folder beside it, written through
 * util/atomic_write.h.
 *
 * Schema (user_version 1, application_id 'czks'):
 *   jobs(id INTEGER PRIMARY KEY AUTOINCREMENT, request_id UNIQUE, key_name,
 *        priority, n_partitions, state, created_ms, updated_ms, finished_ms,
 *        error_status, error)
 *   partitions(job_id -> jobs ON DELETE CASCADE, idx, spool UNIQUE, path,
 *              proof, public; PRIMARY KEY (job_id, idx))
 * A partition's witness is its spool file's name (spool, NULL once the
 * job ended and the file was released) or the client's path (path).
 */
#include "service/store.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/atomic_write.h"
#include "util/error.h"

#define SCHEMA_VERSION 1
#define APPLICATION_ID 0x637a6b73 /* "czks" */
#define BUSY_TIMEOUT_MS 5000
#define LOCK_NAME ".lock"
#define SPOOL_PREFIX "wit-"
#define SPOOL_HEX 32
/* Jobs collected per transaction by cuzk__store_expire. */
#define EXPIRE_BATCH 256

static const char *const SCHEMA[] = {
    "CREATE TABLE jobs ("
    " id INTEGER PRIMARY KEY AUTOINCREMENT,"
    " request_id TEXT UNIQUE,"
    " key_name TEXT NOT NULL,"
    " priority INTEGER NOT NULL,"
    " n_partitions INTEGER NOT NULL CHECK (n_partitions > 0),"
    " state INTEGER NOT NULL,"
    " created_ms INTEGER NOT NULL,"
    " updated_ms INTEGER NOT NULL,"
    " finished_ms INTEGER,"
    " error_status INTEGER NOT NULL DEFAULT 0,"
    " error TEXT)",
    "CREATE TABLE partitions ("
    " job_id INTEGER NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,"
    " idx INTEGER NOT NULL,"
    " spool TEXT UNIQUE,"
    " path TEXT,"
    " proof BLOB,"
    " public BLOB,"
    " PRIMARY KEY (job_id, idx))",
    "CREATE INDEX jobs_by_state ON jobs(state, id)",
    "CREATE INDEX jobs_by_finish ON jobs(finished_ms) WHERE finished_ms IS NOT NULL",
};

#define JOB_COLUMNS                                                                          \
    "id, request_id, key_name, priority, n_partitions, state, created_ms, updated_ms, "     \
    "finished_ms, error_status, error, (SELECT count(*) FROM partitions p"                   \
    " WHERE p.job_id = jobs.id AND p.proof IS NOT NULL)"

/* The statements, prepared once (text below, same order). */
enum {
    Q_BEGIN,
    Q_BEGIN_READ,
    Q_COMMIT,
    Q_ROLLBACK,
    Q_FIND_REQUEST,
    Q_INSERT_JOB,
    Q_INSERT_PART,
    Q_SPOOL_USED,
    Q_GET,
    Q_LIST,
    Q_STATE,
    Q_SET_STATE,
    Q_SET_RESULT,
    Q_WITNESSES,
    Q_SPOOLS_OF,
    Q_RELEASE,
    Q_RESULTS,
    Q_DELETE_PARTS,
    Q_DELETE_JOB,
    Q_COUNTS,
    Q_REQUEUE,
    Q_EXPIRABLE,
    Q_PENDING,
    Q_RECORD,
    Q_PROVED,
    Q_LEFT,
    Q_AHEAD,
    Q_BACKLOG,
    Q_COUNT
};

static const char *const QUERY[Q_COUNT] = {
    [Q_BEGIN] = "BEGIN IMMEDIATE",
    [Q_BEGIN_READ] = "BEGIN",
    [Q_COMMIT] = "COMMIT",
    [Q_ROLLBACK] = "ROLLBACK",
    [Q_FIND_REQUEST] = "SELECT id, key_name, n_partitions FROM jobs WHERE request_id = ?1",
    [Q_INSERT_JOB] = "INSERT INTO jobs (request_id, key_name, priority, n_partitions, state,"
                     " created_ms, updated_ms) VALUES (?1, ?2, ?3, ?4, 0, ?5, ?5)",
    [Q_INSERT_PART] = "INSERT INTO partitions (job_id, idx, spool, path) VALUES (?1, ?2, ?3, ?4)",
    [Q_SPOOL_USED] = "SELECT job_id FROM partitions WHERE spool = ?1",
    [Q_GET] = "SELECT " JOB_COLUMNS " FROM jobs WHERE id = ?1",
    [Q_LIST] = "SELECT " JOB_COLUMNS " FROM jobs WHERE id > ?1 AND ((?2 >> state) & 1) = 1"
               " ORDER BY id LIMIT ?3",
    [Q_STATE] = "SELECT state, n_partitions FROM jobs WHERE id = ?1",
    [Q_SET_STATE] = "UPDATE jobs SET state = ?2, updated_ms = ?3, finished_ms = ?4,"
                    " error_status = ?5, error = ?6 WHERE id = ?1",
    [Q_SET_RESULT] = "UPDATE partitions SET proof = ?3, public = ?4 WHERE job_id = ?1 AND idx = ?2",
    [Q_WITNESSES] = "SELECT idx, spool, path FROM partitions WHERE job_id = ?1 ORDER BY idx",
    [Q_SPOOLS_OF] = "SELECT spool FROM partitions WHERE job_id = ?1 AND spool IS NOT NULL",
    [Q_RELEASE] = "UPDATE partitions SET spool = NULL WHERE job_id = ?1",
    [Q_RESULTS] = "SELECT idx, proof, public FROM partitions WHERE job_id = ?1 ORDER BY idx",
    [Q_DELETE_PARTS] = "DELETE FROM partitions WHERE job_id = ?1",
    [Q_DELETE_JOB] = "DELETE FROM jobs WHERE id = ?1",
    [Q_COUNTS] = "SELECT state, count(*) FROM jobs GROUP BY state",
    [Q_REQUEUE] = "UPDATE jobs SET state = 0, updated_ms = ?1 WHERE state = 1",
    [Q_EXPIRABLE] = "SELECT id FROM jobs WHERE state >= 2 AND finished_ms < ?1 ORDER BY id"
                    " LIMIT ?2",
    [Q_PENDING] = "SELECT p.job_id, p.idx, j.priority, j.state, j.key_name, j.n_partitions,"
                  " p.spool, p.path FROM jobs j JOIN partitions p ON p.job_id = j.id"
                  " WHERE j.state <= 1 AND p.proof IS NULL"
                  " ORDER BY j.priority DESC, j.id, p.idx LIMIT ?1",
    [Q_RECORD] = "UPDATE partitions SET proof = ?3, public = ?4"
                 " WHERE job_id = ?1 AND idx = ?2 AND proof IS NULL",
    [Q_PROVED] = "SELECT proof IS NOT NULL FROM partitions WHERE job_id = ?1 AND idx = ?2",
    [Q_LEFT] = "SELECT count(*) FROM partitions WHERE job_id = ?1 AND proof IS NULL",
    [Q_AHEAD] = "SELECT count(*) FROM jobs j JOIN partitions p ON p.job_id = j.id"
                " WHERE j.state <= 1 AND p.proof IS NULL"
                " AND (j.priority > ?1 OR (j.priority = ?1 AND j.id < ?2))",
    [Q_BACKLOG] = "SELECT count(*) FROM jobs j JOIN partitions p ON p.job_id = j.id"
                  " WHERE j.state <= 1 AND p.proof IS NULL",
};

struct cuzk__store {
    pthread_mutex_t mu; /* guards db and the statements for a whole call */
    sqlite3 *db;
    sqlite3_stmt *q[Q_COUNT];
    unsigned long used; /* statements used in the current call (reset at unlock) */
    char *db_path;      /* as given: messages */
    char *spool;        /* the spool folder, absolute */
    int lock_fd;        /* "<spool>/.lock", flocked */
    struct timespec opened; /* the lock file's mtime at open: the sweep's horizon */
};

struct cuzk__spool_writer {
    cuzk__outset set;
    cuzk__out *out;
    uint64_t size;
    char name[CUZK__STORE_SPOOL_NAME_BYTES];
};

/* Spool files to unlink after a commit: their full paths. */
typedef struct {
    char **v;
    size_t n, cap;
} pathlist;

const char *cuzk__store_spool_dir(const cuzk__store *s) { return s->spool; }

int64_t cuzk__store_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

const char *cuzk__store_state_name(cuzk_job_state state) {
    static const char *const names[] = {"queued", "running", "done", "failed", "cancelled"};
    return (unsigned)state < 5 ? names[state] : "?";
}

int cuzk__store_state_ended(cuzk_job_state state) {
    return state >= CUZK_JOB_DONE && state <= CUZK_JOB_CANCELLED;
}

/* ---- names and paths ---------------------------------------------------- */

/* 1 for "wit-" followed by 32 lowercase hex digits and nothing else. */
static int is_spool_name(const char *name) {
    if (strncmp(name, SPOOL_PREFIX, sizeof(SPOOL_PREFIX) - 1) != 0) return 0;
    const char *h = name + sizeof(SPOOL_PREFIX) - 1;
    for (int i = 0; i < SPOOL_HEX; i++)
        if (!((h[i] >= '0' && h[i] <= '9') || (h[i] >= 'a' && h[i] <= 'f'))) return 0;
    return h[SPOOL_HEX] == '\0';
}

/* 1 for a spool writer's temporary: ".wit-<hex>.XXXXXX" (atomic_write's). */
static int is_spool_temporary(const char *name) {
    if (name[0] != '.' || strncmp(name + 1, SPOOL_PREFIX, sizeof(SPOOL_PREFIX) - 1) != 0) return 0;
    const char *dot = strchr(name + 1, '.');
    if (dot == NULL || (size_t)(dot - (name + 1)) != sizeof(SPOOL_PREFIX) - 1 + SPOOL_HEX)
        return 0;
    char base[CUZK__STORE_SPOOL_NAME_BYTES];
    memcpy(base, name + 1, (size_t)(dot - (name + 1)));
    base[dot - (name + 1)] = '\0';
    return is_spool_name(base) && strlen(dot + 1) == 6;
}

/* dir + "/" + name, malloc'd. */
static char *join(const char *dir, const char *name) {
    size_t a = strlen(dir), b = strlen(name);
    char *p = malloc(a + b + 2);
    if (p == NULL) return NULL;
    memcpy(p, dir, a);
    p[a] = '/';
    memcpy(p + a + 1, name, b + 1);
    return p;
}

static void pathlist_free(pathlist *l) {
    for (size_t i = 0; i < l->n; i++) free(l->v[i]);
    free(l->v);
    l->v = NULL;
    l->n = l->cap = 0;
}

static int pathlist_add(pathlist *l, char *p) {
    if (p == NULL) return 0;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 8;
        char **v = realloc(l->v, cap * sizeof(*v));
        if (v == NULL) {
            free(p);
            return 0;
        }
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = p;
    return 1;
}

/* Unlinks every file of l (after the commit that dropped their rows); a
 * failure leaves a file that nothing references, for the sweep. */
static void unlink_all(pathlist *l) {
    for (size_t i = 0; i < l->n; i++) (void)unlink(l->v[i]);
    pathlist_free(l);
}

/* ---- the connection ------------------------------------------------------ */

static cuzk_status db_fail(cuzk__store *s, cuzk_error *err, const char *what) {
    const int rc = sqlite3_extended_errcode(s->db);
    return cuzk__fail(err, (rc & 0xff) == SQLITE_NOMEM ? CUZK_ERR_NOMEM : CUZK_ERR_IO,
                      "%s: %s: %s", s->db_path, what, sqlite3_errmsg(s->db));
}

static void lock(cuzk__store *s) {
    pthread_mutex_lock(&s->mu);
    s->used = 0;
}

/* Resets the statements the call used (a stepped SELECT keeps its read
 * transaction until reset), rolls back a transaction left open by a
 * failure, and lets the next call in. */
static void unlock(cuzk__store *s) {
    for (int i = 0; i < Q_COUNT; i++)
        if (s->used & (1ul << i)) sqlite3_reset(s->q[i]);
    if (!sqlite3_get_autocommit(s->db)) {
        sqlite3_reset(s->q[Q_ROLLBACK]);
        (void)sqlite3_step(s->q[Q_ROLLBACK]);
        sqlite3_reset(s->q[Q_ROLLBACK]);
    }
    pthread_mutex_unlock(&s->mu);
}

/* The end of a call that may release spool files: the lock goes, then the
 * files the committed change released are unlinked (only once no row names
 * them); after a failure nothing was committed and they stay. Returns st. */
static cuzk_status end_call(cuzk__store *s, cuzk_status st, pathlist *l) {
    unlock(s);
    if (st == CUZK_OK)
        unlink_all(l);
    else
        pathlist_free(l);
    return st;
}

/* Statement i, reset with no bindings, for the call holding the lock. */
static sqlite3_stmt *use(cuzk__store *s, int i) {
    sqlite3_stmt *q = s->q[i];
    sqlite3_reset(q);
    sqlite3_clear_bindings(q);
    s->used |= 1ul << i;
    return q;
}

/* Runs a statement that returns no rows (BEGIN, COMMIT, an UPDATE). */
static cuzk_status run(cuzk__store *s, sqlite3_stmt *q, const char *what, cuzk_error *err) {
    const int rc = sqlite3_step(q);
    if (rc != SQLITE_DONE) {
        cuzk_status st = db_fail(s, err, what);
        sqlite3_reset(q);
        return st;
    }
    sqlite3_reset(q);
    return CUZK_OK;
}

static cuzk_status begin(cuzk__store *s, cuzk_error *err) {
    return run(s, use(s, Q_BEGIN), "begin a transaction", err);
}

static cuzk_status begin_read(cuzk__store *s, cuzk_error *err) {
    return run(s, use(s, Q_BEGIN_READ), "begin a read", err);
}

/* COMMIT: with synchronous=FULL it returns once the WAL is fsynced. On
 * failure unlock rolls back. */
static cuzk_status commit(cuzk__store *s, cuzk_error *err) {
    return run(s, use(s, Q_COMMIT), "commit", err);
}

static cuzk_status exec_text(cuzk__store *s, const char *sql, const char *what, cuzk_error *err) {
    char *msg = NULL;
    if (sqlite3_exec(s->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        cuzk_status st = cuzk__fail(err, CUZK_ERR_IO, "%s: %s: %s", s->db_path, what,
                                    msg ? msg : sqlite3_errmsg(s->db));
        sqlite3_free(msg);
        return st;
    }
    return CUZK_OK;
}

/* The integer a one-row statement gives (a PRAGMA) in *v. */
static cuzk_status query_int(cuzk__store *s, const char *sql, int64_t *v, cuzk_error *err) {
    sqlite3_stmt *q = NULL;
    *v = 0;
    if (sqlite3_prepare_v2(s->db, sql, -1, &q, NULL) != SQLITE_OK) return db_fail(s, err, sql);
    cuzk_status st = CUZK_OK;
    if (sqlite3_step(q) == SQLITE_ROW)
        *v = sqlite3_column_int64(q, 0);
    else
        st = db_fail(s, err, sql);
    sqlite3_finalize(q);
    return st;
}

/* Creates the schema in a fresh database, or checks an existing one's. */
static cuzk_status schema(cuzk__store *s, cuzk_error *err) {
    cuzk_status st = exec_text(s, "BEGIN IMMEDIATE", "begin a transaction", err);
    if (st != CUZK_OK) return st;
    int64_t version = 0, app = 0, tables = 0;
    st = query_int(s, "PRAGMA user_version", &version, err);
    if (st == CUZK_OK) st = query_int(s, "PRAGMA application_id", &app, err);
    if (st == CUZK_OK) st = query_int(s, "SELECT count(*) FROM sqlite_master", &tables, err);
    if (st != CUZK_OK) {
        /* err says what */
    } else if (version == 0 ? tables != 0 || (app != 0 && app != APPLICATION_ID)
                            : app != APPLICATION_ID) {
        st = cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                        "%s: a SQLite database of another program, not a cuzk job store",
                        s->db_path);
    } else if (version > SCHEMA_VERSION) {
        st = cuzk__fail(err, CUZK_ERR_UNSUPPORTED,
                        "%s: job store schema version %lld, newer than this cuzk's (%d)",
                        s->db_path, (long long)version, SCHEMA_VERSION);
    } else if (version == 0) {
        for (size_t i = 0; st == CUZK_OK && i < sizeof(SCHEMA) / sizeof(SCHEMA[0]); i++)
            st = exec_text(s, SCHEMA[i], "create the schema", err);
        char sql[96]; /* constants only: no user data in this text */
        snprintf(sql, sizeof(sql), "PRAGMA user_version = %d; PRAGMA application_id = %d",
                 SCHEMA_VERSION, APPLICATION_ID);
        if (st == CUZK_OK) st = exec_text(s, sql, "set the schema version", err);
    }
    /* version == SCHEMA_VERSION: nothing to migrate yet */
    if (st == CUZK_OK) return exec_text(s, "COMMIT", "commit the schema", err);
    (void)sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
    return st;
}

/* The connection's settings: WAL, synchronous=FULL, foreign keys, the
 * busy timeout (each checked, since a PRAGMA that cannot apply is silent). */
static cuzk_status settings(cuzk__store *s, cuzk_error *err) {
    sqlite3_busy_timeout(s->db, BUSY_TIMEOUT_MS);
    sqlite3_stmt *q = NULL;
    if (sqlite3_prepare_v2(s->db, "PRAGMA journal_mode = WAL", -1, &q, NULL) != SQLITE_OK)
        return db_fail(s, err, "set journal_mode=WAL");
    const int rc = sqlite3_step(q);
    const char *mode = rc == SQLITE_ROW ? (const char *)sqlite3_column_text(q, 0) : NULL;
    const int wal = mode != NULL && strcmp(mode, "wal") == 0;
    cuzk_status st = CUZK_OK;
    if (rc != SQLITE_ROW)
        st = db_fail(s, err, "set journal_mode=WAL");
    else if (!wal)
        st = cuzk__fail(err, CUZK_ERR_IO, "%s: the database cannot use a write-ahead log "
                        "(journal_mode is %s)", s->db_path, mode ? mode : "?");
    sqlite3_finalize(q);
    if (st != CUZK_OK) return st;
    st = exec_text(s, "PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON",
                   "set synchronous and foreign_keys", err);
    if (st != CUZK_OK) return st;
    int64_t sync = 0, fk = 0;
    st = query_int(s, "PRAGMA synchronous", &sync, err);
    if (st == CUZK_OK) st = query_int(s, "PRAGMA foreign_keys", &fk, err);
    if (st != CUZK_OK) return st;
    if (sync != 2 || fk != 1)
        return cuzk__fail(err, CUZK_ERR_IO, "%s: SQLite refused synchronous=FULL or foreign_keys",
                          s->db_path);
    return CUZK_OK;
}

/* ---- open and close ------------------------------------------------------ */

static void fsync_dir(const char *dir) {
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return;
    (void)fsync(fd);
    close(fd);
}

/* mkdir -p path, mode 0700 for what it creates; the parent of each folder
 * made is fsynced, so the folder survives a power loss with its entries. */
static cuzk_status make_dirs(const char *path, cuzk_error *err) {
    char *p = malloc(strlen(path) + 1);
    if (p == NULL) return cuzk__fail(err, CUZK_ERR_NOMEM, "%s: out of memory", path);
    strcpy(p, path);
    cuzk_status st = CUZK_OK;
    for (char *c = p + 1; st == CUZK_OK; c++) {
        if (*c != '/' && *c != '\0') continue;
        const char saved = *c;
        *c = '\0';
        if (mkdir(p, 0700) == 0) {
            char *slash = strrchr(p, '/');
            if (slash == NULL) {
                fsync_dir(".");
            } else if (slash == p) {
                fsync_dir("/");
            } else {
                *slash = '\0';
                fsync_dir(p);
                *slash = '/';
            }
        } else if (errno != EEXIST) {
            st = cuzk__fail(err, CUZK_ERR_IO, "%s: cannot create the spool folder (at %s): %s",
                            path, p, strerror(errno));
        }
        *c = saved;
        if (saved == '\0') break;
    }
    free(p);
    struct stat sb;
    if (st == CUZK_OK && (stat(path, &sb) != 0 || !S_ISDIR(sb.st_mode)))
        st = cuzk__fail(err, CUZK_ERR_INVALID_ARG, "%s: the spool path is not a folder", path);
    return st;
}

/* Takes "<spool>/.lock" (flock, exclusive) and stamps its mtime: the
 * sweep's horizon. */
static cuzk_status take_lock(cuzk__store *s, cuzk_error *err) {
    char *p = join(s->spool, LOCK_NAME);
    if (p == NULL) return cuzk__fail(err, CUZK_ERR_NOMEM, "%s: out of memory", s->spool);
    cuzk_status st = CUZK_OK;
    struct stat sb;
    s->lock_fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (s->lock_fd < 0) {
        st = cuzk__fail(err, CUZK_ERR_IO, "%s: cannot write in the spool folder: %s", p,
                        strerror(errno));
    } else if (flock(s->lock_fd, LOCK_EX | LOCK_NB) != 0) {
        st = errno == EWOULDBLOCK
                 ? cuzk__fail(err, CUZK_ERR_BUSY,
                              "%s: the spool folder is in use by another job store (%s is locked)",
                              s->spool, p)
                 : cuzk__fail(err, CUZK_ERR_IO, "%s: cannot lock: %s", p, strerror(errno));
    } else if (futimens(s->lock_fd, NULL) != 0 || fstat(s->lock_fd, &sb) != 0) {
        st = cuzk__fail(err, CUZK_ERR_IO, "%s: cannot stamp the lock file: %s", p,
                        strerror(errno));
    } else {
        s->opened = sb.st_mtim;
    }
    free(p);
    return st;
}

cuzk_status cuzk__store_open(cuzk__store **out, const char *db_path, const char *spool_dir,
                             cuzk_error *err) {
    if (out == NULL) return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "store: out is NULL");
    *out = NULL;
    if (db_path == NULL || *db_path == '\0' || spool_dir == NULL || *spool_dir == '\0')
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "store: the database and spool paths are "
                                                     "required");
    struct stat sb;
    if (stat(db_path, &sb) == 0 && S_ISDIR(sb.st_mode))
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "%s: is a folder, not a database file",
                          db_path);
    cuzk_status st = make_dirs(spool_dir, err);
    if (st != CUZK_OK) return st;
    cuzk__store *s = calloc(1, sizeof(*s));
    if (s == NULL) return cuzk__fail(err, CUZK_ERR_NOMEM, "%s: out of memory", db_path);
    s->lock_fd = -1;
    pthread_mutex_init(&s->mu, NULL);
    if ((s->db_path = malloc(strlen(db_path) + 1)) == NULL) {
        cuzk__store_close(s);
        return cuzk__fail(err, CUZK_ERR_NOMEM, "%s: out of memory", db_path);
    }
    strcpy(s->db_path, db_path);
    if ((s->spool = realpath(spool_dir, NULL)) == NULL) {
        st = cuzk__fail(err, CUZK_ERR_IO, "%s: %s", spool_dir, strerror(errno));
    } else if (access(s->spool, W_OK | X_OK) != 0) {
        st = cuzk__fail(err, CUZK_ERR_IO, "%s: cannot write in the spool folder: %s", spool_dir,
                        strerror(errno));
    } else {
        st = take_lock(s, err);
    }
    if (st == CUZK_OK &&
        sqlite3_open_v2(db_path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
                                              SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
        const int e = s->db ? sqlite3_system_errno(s->db) : 0;
        st = cuzk__fail(err, CUZK_ERR_IO, "%s: cannot open the job database: %s%s%s%s", db_path,
                        s->db ? sqlite3_errmsg(s->db) : "out of memory", e ? " (" : "",
                        e ? strerror(e) : "", e ? ")" : "");
    }
    if (st == CUZK_OK) {
        sqlite3_extended_result_codes(s->db, 1);
        st = settings(s, err);
    }
    if (st == CUZK_OK) st = schema(s, err);
    for (int i = 0; st == CUZK_OK && i < Q_COUNT; i++)
        if (sqlite3_prepare_v3(s->db, QUERY[i], -1, SQLITE_PREPARE_PERSISTENT, &s->q[i], NULL) !=
            SQLITE_OK)
            st = db_fail(s, err, "prepare a statement");
    if (st != CUZK_OK) {
        cuzk__store_close(s);
        return st;
    }
    *out = s;
    return CUZK_OK;
}

void cuzk__store_close(cuzk__store *s) {
    if (s == NULL) return;
    for (int i = 0; i < Q_COUNT; i++) sqlite3_finalize(s->q[i]);
    if (s->db != NULL) sqlite3_close(s->db);
    if (s->lock_fd >= 0) close(s->lock_fd); /* releases the flock */
    pthread_mutex_destroy(&s->mu);
    free(s->db_path);
    free(s->spool);
    free(s);
}

/* ---- the spool ------------------------------------------------------------- */

cuzk_status cuzk__store_spool_begin(cuzk__store *s, cuzk__spool_writer **w, cuzk_error *err) {
    if (w == NULL) return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "spool: w is NULL");
    *w = NULL;
    uint8_t r[SPOOL_HEX / 2];
    if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
        return cuzk__fail(err, CUZK_ERR_IO, "%s: cannot draw a spool file name: %s", s->spool,
                          strerror(errno));
    cuzk__spool_writer *x = calloc(1, sizeof(*x));
    if (x == NULL) return cuzk__fail(err, CUZK_ERR_NOMEM, "%s: out of memory", s->spool);
    static const char hex[] = "0123456789abcdef";
    memcpy(x->name, SPOOL_PREFIX, sizeof(SPOOL_PREFIX) - 1);
    char *h = x->name + sizeof(SPOOL_PREFIX) - 1;
    for (size_t i = 0; i < sizeof(r); i++) {
        h[2 * i] = hex[r[i] >> 4];
        h[2 * i + 1] = hex[r[i] & 15];
    }
    h[SPOOL_HEX] = '\0';
    char *path = join(s->spool, x->name);
    if (path == NULL) {
        free(x);
        return cuzk__fail(err, CUZK_ERR_NOMEM, "%s: out of memory", s->spool);
    }
    cuzk__outset_init(&x->set);
    cuzk_status st = cuzk__outset_add(&x->set, &x->out, path, err);
    free(path);
    if (st != CUZK_OK) {
        cuzk__outset_abort(&x->set);
        free(x);
        return st;
    }
    *w = x;
    return CUZK_OK;
}

cuzk_status cuzk__store_spool_append(cuzk__spool_writer *w, const void *p, size_t n,
                                     cuzk_error *err) {
    if (n == 0) return CUZK_OK;
    if (p == NULL) return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "spool: NULL bytes to append");
    cuzk_status st = cuzk__out_write(w->out, p, n, err);
    if (st == CUZK_OK) w->size += n;
    return st;
}

uint64_t cuzk__store_spool_size(const cuzk__spool_writer *w) { return w->size; }

cuzk_status cuzk__store_spool_commit(cuzk__spool_writer *w, char *name, size_t cap,
                                     cuzk_error *err) {
    if (name == NULL || cap < CUZK__STORE_SPOOL_NAME_BYTES) {
        cuzk__store_spool_abort(w);
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "spool: the name buffer holds %zu bytes, "
                          "%d needed", name ? cap : 0, CUZK__STORE_SPOOL_NAME_BYTES);
    }
    name[0] = '\0';
    cuzk_status st = cuzk__outset_commit(&w->set, err);
    if (st == CUZK_OK) memcpy(name, w->name, sizeof(w->name));
    free(w);
    return st;
}

void cuzk__store_spool_abort(cuzk__spool_writer *w) {
    if (w == NULL) return;
    cuzk__outset_abort(&w->set);
    free(w);
}

/* The job referencing spool file name (0: none) in *job_id. Under the lock. */
static cuzk_status spool_owner(cuzk__store *s, const char *name, uint64_t *job_id,
                               cuzk_error *err) {
    sqlite3_stmt *q = use(s, Q_SPOOL_USED);
    sqlite3_bind_text(q, 1, name, -1, SQLITE_STATIC);
    const int rc = sqlite3_step(q);
    *job_id = rc == SQLITE_ROW ? (uint64_t)sqlite3_column_int64(q, 0) : 0;
    cuzk_status st = CUZK_OK;
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) st = db_fail(s, err, "look up a spool file");
    sqlite3_reset(q);
    return st;
}

cuzk_status cuzk__store_spool_remove(cuzk__store *s, const char *name, cuzk_error *err) {
    if (name == NULL || !is_spool_name(name))
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "%s: not a spool file name",
                          name ? name : "(null)");
    char *path = join(s->spool, name);
    if (path == NULL) return cuzk__fail(err, CUZK_ERR_NOMEM, "%s: out of memory", s->spool);
    lock(s);
    uint64_t owner = 0;
    cuzk_status st = spool_owner(s, name, &owner, err);
    if (st == CUZK_OK && owner != 0)
        st = cuzk__fail(err, CUZK_ERR_INVALID_ARG, "%s: the spool file belongs to job %llu", path,
                        (unsigned long long)owner);
    /* unlinked under the lock: a submission naming it waits, then finds it gone */
    if (st == CUZK_OK && unlink(path) != 0 && errno != ENOENT)
        st = cuzk__fail(err, CUZK_ERR_IO, "%s: cannot remove: %s", path, strerror(errno));
    unlock(s);
    free(path);
    return st;
}

static int older(const struct timespec *a, const struct timespec *b) {
    return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

cuzk_status cuzk__store_sweep_spool(cuzk__store *s, size_t *removed, cuzk_error *err) {
    if (removed != NULL) *removed = 0;
    DIR *d = opendir(s->spool);
    if (d == NULL)
        return cuzk__fail(err, CUZK_ERR_IO, "%s: cannot list the spool folder: %s", s->spool,
                          strerror(errno));
    cuzk_status st = CUZK_OK;
    size_t k = 0;
    struct dirent *e;
    while (st == CUZK_OK && (e = readdir(d)) != NULL) {
        const int spool = is_spool_name(e->d_name);
        if (!spool && !is_spool_temporary(e->d_name)) continue; /* not ours */
        struct stat sb;
        if (fstatat(dirfd(d), e->d_name, &sb, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(sb.st_mode) ||
            !older(&sb.st_mtim, &s->opened))
            continue; /* gone, not a file, or possibly this store's own */
        uint64_t owner = 0;
        if (spool) {
            lock(s);
            st = spool_owner(s, e->d_name, &owner, err);
            unlock(s);
        }
        if (st == CUZK_OK && owner == 0 && unlinkat(dirfd(d), e->d_name, 0) == 0) k++;
    }
    closedir(d);
    if (removed != NULL) *removed = k;
    return st;
}

/* ---- jobs ------------------------------------------------------------------ */

static size_t bounded_len(const char *s, size_t max) {
    size_t n = 0;
    while (n <= max && s[n] != '\0') n++;
    return n;
}

static cuzk_status check_job(const cuzk__store_job *job, cuzk_error *err) {
    if (job->key_name == NULL) return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "job: no key name");
    const size_t kl = bounded_len(job->key_name, CUZK__STORE_NAME_MAX);
    if (kl == 0 || kl > CUZK__STORE_NAME_MAX)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "job: the key name has %s bytes (1..%d)",
                          kl == 0 ? "0" : "too many", CUZK__STORE_NAME_MAX);
    if (job->request_id != NULL) {
        const size_t rl = bounded_len(job->request_id, CUZK__STORE_NAME_MAX);
        if (rl == 0 || rl > CUZK__STORE_NAME_MAX)
            return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                              "job: the request id has %s bytes (1..%d; NULL for none)",
                              rl == 0 ? "0" : "too many", CUZK__STORE_NAME_MAX);
    }
    if ((unsigned)job->priority > CUZK_PRIORITY_CRITICAL)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "job: priority %d is out of range (0..3)",
                          (int)job->priority);
    if (job->n_partitions == 0 || job->n_partitions > CUZK__STORE_MAX_PARTITIONS)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "job: %zu partitions (1..%d)",
                          job->n_partitions, CUZK__STORE_MAX_PARTITIONS);
    if (job->witnesses == NULL)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "job: no witnesses");
    for (size_t i = 0; i < job->n_partitions; i++) {
        const cuzk__store_witness *w = &job->witnesses[i];
        if ((w->spool == NULL) == (w->path == NULL))
            return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                              "job: partition %zu: the witness needs a spool file or a path, "
                              "not %s", i, w->spool == NULL ? "neither" : "both");
        if (w->spool != NULL && !is_spool_name(w->spool))
            return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                              "job: partition %zu: \"%.64s\" is not a spool file name", i,
                              w->spool);
        if (w->path != NULL && (w->path[0] != '/' || bounded_len(w->path, PATH_MAX) >= PATH_MAX))
            return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                              "job: partition %zu: the witness path \"%.200s\" is not an absolute "
                              "path (or is too long)", i, w->path);
    }
    return CUZK_OK;
}

/* job->max_backlog, checked inside the submission's transaction (the
 * store's mutex and BEGIN IMMEDIATE make the count and the insert one
 * step). */
static cuzk_status check_room(cuzk__store *s, const cuzk__store_job *job, cuzk_error *err) {
    sqlite3_stmt *q = use(s, Q_BACKLOG);
    if (sqlite3_step(q) != SQLITE_ROW) return db_fail(s, err, "count the partitions to prove");
    const size_t backlog = (size_t)sqlite3_column_int64(q, 0);
    if (backlog + job->n_partitions <= job->max_backlog) return CUZK_OK;
    return cuzk__fail(err, CUZK_ERR_BUSY,
                      "%s: the queue holds %zu partitions not yet proved: %zu more would pass "
                      "its bound of %zu",
                      s->db_path, backlog, job->n_partitions, job->max_backlog);
}

cuzk_status cuzk__store_submit(cuzk__store *s, const cuzk__store_job *job, uint64_t *id,
                               int *existed, cuzk_error *err) {
    if (id == NULL || existed == NULL || job == NULL)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "submit: NULL argument");
    *id = 0;
    *existed = 0;
    cuzk_status st = check_job(job, err);
    if (st != CUZK_OK) return st;
    lock(s);
    st = begin(s, err);
    if (st == CUZK_OK && job->request_id != NULL) {
        sqlite3_stmt *q = use(s, Q_FIND_REQUEST);
        sqlite3_bind_text(q, 1, job->request_id, -1, SQLITE_STATIC);
        const int rc = sqlite3_step(q);
        if (rc == SQLITE_ROW) {
            const uint64_t old = (uint64_t)sqlite3_column_int64(q, 0);
            const char *key = (const char *)sqlite3_column_text(q, 1);
            const int64_t n = sqlite3_column_int64(q, 2);
            if (key == NULL || strcmp(key, job->key_name) != 0 || n != (int64_t)job->n_partitions) {
                st = cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                                "request id \"%s\" is job %llu (key \"%s\", %lld partitions); "
                                "this submission has key \"%s\" and %zu partitions",
                                job->request_id, (unsigned long long)old, key ? key : "",
                                (long long)n, job->key_name, job->n_partitions);
            } else {
                *id = old;
                *existed = 1;
            }
            unlock(s); /* rolls the empty transaction back */
            return st;
        }
        if (rc != SQLITE_DONE) st = db_fail(s, err, "look up the request id");
    }
    if (st == CUZK_OK && job->max_backlog != 0) st = check_room(s, job, err);
    for (size_t i = 0; st == CUZK_OK && i < job->n_partitions; i++) {
        const char *name = job->witnesses[i].spool;
        if (name == NULL) continue;
        char *p = join(s->spool, name);
        struct stat sb;
        if (p == NULL)
            st = cuzk__fail(err, CUZK_ERR_NOMEM, "%s: out of memory", s->spool);
        else if (lstat(p, &sb) != 0 || !S_ISREG(sb.st_mode))
            st = cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                            "job: partition %zu: spool file %s does not exist (commit it first)",
                            i, p);
        free(p);
    }
    uint64_t job_id = 0;
    if (st == CUZK_OK) {
        sqlite3_stmt *q = use(s, Q_INSERT_JOB);
        if (job->request_id != NULL) sqlite3_bind_text(q, 1, job->request_id, -1, SQLITE_STATIC);
        sqlite3_bind_text(q, 2, job->key_name, -1, SQLITE_STATIC);
        sqlite3_bind_int(q, 3, (int)job->priority);
        sqlite3_bind_int64(q, 4, (sqlite3_int64)job->n_partitions);
        sqlite3_bind_int64(q, 5, cuzk__store_now_ms());
        st = run(s, q, "record the job", err);
        job_id = (uint64_t)sqlite3_last_insert_rowid(s->db);
    }
    for (size_t i = 0; st == CUZK_OK && i < job->n_partitions; i++) {
        const cuzk__store_witness *w = &job->witnesses[i];
        sqlite3_stmt *q = use(s, Q_INSERT_PART);
        sqlite3_bind_int64(q, 1, (sqlite3_int64)job_id);
        sqlite3_bind_int64(q, 2, (sqlite3_int64)i);
        if (w->spool != NULL) sqlite3_bind_text(q, 3, w->spool, -1, SQLITE_STATIC);
        if (w->path != NULL) sqlite3_bind_text(q, 4, w->path, -1, SQLITE_STATIC);
        const int rc = sqlite3_step(q);
        if (rc == SQLITE_CONSTRAINT_UNIQUE || rc == SQLITE_CONSTRAINT_PRIMARYKEY)
            st = cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                            "job: partition %zu: spool file %s already belongs to a job", i,
                            w->spool ? w->spool : "?");
        else if (rc != SQLITE_DONE)
            st = db_fail(s, err, "record a partition");
        sqlite3_reset(q);
    }
    if (st == CUZK_OK) st = commit(s, err);
    if (st == CUZK_OK) *id = job_id;
    unlock(s);
    return st;
}

static void copy_text(char *dst, size_t cap, sqlite3_stmt *q, int col) {
    const char *t = (const char *)sqlite3_column_text(q, col);
    snprintf(dst, cap, "%s", t ? t : "");
}

/* The row of a JOB_COLUMNS statement. */
static void read_info(sqlite3_stmt *q, cuzk__store_job_info *info) {
    memset(info, 0, sizeof(*info));
    info->id = (uint64_t)sqlite3_column_int64(q, 0);
    info->has_request_id = sqlite3_column_type(q, 1) != SQLITE_NULL;
    copy_text(info->request_id, sizeof(info->request_id), q, 1);
    copy_text(info->key_name, sizeof(info->key_name), q, 2);
    info->priority = (cuzk_priority)sqlite3_column_int(q, 3);
    info->n_partitions = (size_t)sqlite3_column_int64(q, 4);
    info->state = (cuzk_job_state)sqlite3_column_int(q, 5);
    info->created_ms = sqlite3_column_int64(q, 6);
    info->updated_ms = sqlite3_column_int64(q, 7);
    info->finished_ms = sqlite3_column_int64(q, 8); /* NULL reads 0 */
    info->error_status = (cuzk_status)sqlite3_column_int(q, 9);
    copy_text(info->error, sizeof(info->error), q, 10);
    info->n_done = (size_t)sqlite3_column_int64(q, 11);
}

static cuzk_status not_found(cuzk_error *err, uint64_t id) {
    return cuzk__fail(err, CUZK_ERR_NOT_FOUND, "job %llu: no such job (never submitted, or "
                      "collected)", (unsigned long long)id);
}

cuzk_status cuzk__store_get(cuzk__store *s, uint64_t id, cuzk__store_job_info *info,
                            cuzk_error *err) {
    if (info == NULL) return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "get: info is NULL");
    memset(info, 0, sizeof(*info));
    if (id == 0 || id > INT64_MAX) return not_found(err, id);
    lock(s);
    sqlite3_stmt *q = use(s, Q_GET);
    sqlite3_bind_int64(q, 1, (sqlite3_int64)id);
    const int rc = sqlite3_step(q);
    cuzk_status st = CUZK_OK;
    if (rc == SQLITE_ROW)
        read_info(q, info);
    else if (rc == SQLITE_DONE)
        st = not_found(err, id);
    else
        st = db_fail(s, err, "read a job");
    unlock(s);
    return st;
}

/* The job's state and partition count (CUZK_ERR_NOT_FOUND). Under the lock. */
static cuzk_status load_state(cuzk__store *s, uint64_t id, int *state, size_t *n,
                              cuzk_error *err) {
    if (id == 0 || id > INT64_MAX) return not_found(err, id);
    sqlite3_stmt *q = use(s, Q_STATE);
    sqlite3_bind_int64(q, 1, (sqlite3_int64)id);
    const int rc = sqlite3_step(q);
    cuzk_status st = CUZK_OK;
    if (rc == SQLITE_ROW) {
        *state = sqlite3_column_int(q, 0);
        *n = (size_t)sqlite3_column_int64(q, 1);
    } else {
        st = rc == SQLITE_DONE ? not_found(err, id) : db_fail(s, err, "read a job");
    }
    sqlite3_reset(q);
    return st;
}

cuzk_status cuzk__store_witness_paths(cuzk__store *s, uint64_t id, char ***paths, size_t *n,
                                      cuzk_error *err) {
    if (paths == NULL || n == NULL)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "witness_paths: NULL argument");
    *paths = NULL;
    *n = 0;
    lock(s);
    int state = 0;
    size_t count = 0;
    char **tmp = NULL;
    cuzk_status st = begin_read(s, err);
    if (st == CUZK_OK) st = load_state(s, id, &state, &count, err);
    if (st == CUZK_OK && (tmp = calloc(count, sizeof(*tmp))) == NULL)
        st = cuzk__fail(err, CUZK_ERR_NOMEM, "job %llu: out of memory", (unsigned long long)id);
    size_t rows = 0, bytes = count * sizeof(char *);
    if (st == CUZK_OK) {
        sqlite3_stmt *q = use(s, Q_WITNESSES);
        sqlite3_bind_int64(q, 1, (sqlite3_int64)id);
        int rc = SQLITE_DONE;
        while (st == CUZK_OK && (rc = sqlite3_step(q)) == SQLITE_ROW) {
            const int64_t idx = sqlite3_column_int64(q, 0);
            const char *spool = (const char *)sqlite3_column_text(q, 1);
            const char *path = (const char *)sqlite3_column_text(q, 2);
            if (idx < 0 || (uint64_t)idx >= count || tmp[idx] != NULL) {
                st = cuzk__fail(err, CUZK_ERR_IO, "%s: job %llu: partition %lld is out of place",
                                s->db_path, (unsigned long long)id, (long long)idx);
                break;
            }
            rows++;
            if (spool == NULL && path == NULL) continue; /* released */
            char *p = spool != NULL ? join(s->spool, spool) : malloc(strlen(path) + 1);
            if (p == NULL) {
                st = cuzk__fail(err, CUZK_ERR_NOMEM, "job %llu: out of memory",
                                (unsigned long long)id);
                break;
            }
            if (spool == NULL) strcpy(p, path);
            tmp[idx] = p;
            bytes += strlen(p) + 1;
        }
        if (st == CUZK_OK && rc != SQLITE_DONE) st = db_fail(s, err, "read the witnesses");
        if (st == CUZK_OK && rows != count)
            st = cuzk__fail(err, CUZK_ERR_IO, "%s: job %llu has %zu of its %zu partitions",
                            s->db_path, (unsigned long long)id, rows, count);
    }
    unlock(s);
    char **block = NULL;
    if (st == CUZK_OK && (block = malloc(bytes ? bytes : 1)) == NULL)
        st = cuzk__fail(err, CUZK_ERR_NOMEM, "job %llu: out of memory", (unsigned long long)id);
    if (st == CUZK_OK) {
        char *c = (char *)(block + count);
        for (size_t i = 0; i < count; i++) {
            block[i] = NULL;
            if (tmp[i] == NULL) continue;
            const size_t l = strlen(tmp[i]) + 1;
            memcpy(c, tmp[i], l);
            block[i] = c;
            c += l;
        }
        *paths = block;
        *n = count;
    }
    for (size_t i = 0; tmp != NULL && i < count; i++) free(tmp[i]);
    free(tmp);
    return st;
}

/* Sets the job's state and its fields (finished_ms 0: NULL; error NULL:
 * none). Under the lock, in a transaction. */
static cuzk_status set_state(cuzk__store *s, uint64_t id, int state, int64_t now,
                             int64_t finished, cuzk_status status, const char *error,
                             cuzk_error *err) {
    sqlite3_stmt *q = use(s, Q_SET_STATE);
    sqlite3_bind_int64(q, 1, (sqlite3_int64)id);
    sqlite3_bind_int(q, 2, state);
    sqlite3_bind_int64(q, 3, now);
    if (finished != 0) sqlite3_bind_int64(q, 4, finished);
    sqlite3_bind_int(q, 5, (int)status);
    if (error != NULL)
        sqlite3_bind_text(q, 6, error, (int)bounded_len(error, CUZK_ERROR_MSG_BYTES - 1),
                          SQLITE_STATIC);
    return run(s, q, "change a job's state", err);
}

/* Adds the job's spool files to l (full paths) and, when clear, drops them
 * from its rows. Under the lock, in a transaction. */
static cuzk_status take_spool(cuzk__store *s, uint64_t id, int clear, pathlist *l,
                              cuzk_error *err) {
    sqlite3_stmt *q = use(s, Q_SPOOLS_OF);
    sqlite3_bind_int64(q, 1, (sqlite3_int64)id);
    int rc;
    while ((rc = sqlite3_step(q)) == SQLITE_ROW)
        if (!pathlist_add(l, join(s->spool, (const char *)sqlite3_column_text(q, 0)))) {
            sqlite3_reset(q);
            return cuzk__fail(err, CUZK_ERR_NOMEM, "job %llu: out of memory",
                              (unsigned long long)id);
        }
    if (rc != SQLITE_DONE) return db_fail(s, err, "read a job's spool files");
    sqlite3_reset(q);
    if (!clear) return CUZK_OK;
    q = use(s, Q_RELEASE);
    sqlite3_bind_int64(q, 1, (sqlite3_int64)id);
    return run(s, q, "release a job's spool files", err);
}

static cuzk_status has_ended(cuzk_error *err, uint64_t id, int state) {
    return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "job %llu has already ended (%s)",
                      (unsigned long long)id, cuzk__store_state_name((cuzk_job_state)state));
}

cuzk_status cuzk__store_set_running(cuzk__store *s, uint64_t id, cuzk_error *err) {
    lock(s);
    int state = 0;
    size_t n = 0;
    cuzk_status st = begin(s, err);
    if (st == CUZK_OK) st = load_state(s, id, &state, &n, err);
    if (st == CUZK_OK && cuzk__store_state_ended(state)) st = has_ended(err, id, state);
    if (st == CUZK_OK && state == CUZK_JOB_QUEUED) {
        st = set_state(s, id, CUZK_JOB_RUNNING, cuzk__store_now_ms(), 0, CUZK_OK, NULL, err);
        if (st == CUZK_OK) st = commit(s, err);
    }
    unlock(s);
    return st;
}

cuzk_status cuzk__store_finish(cuzk__store *s, uint64_t id, const cuzk_proof *proofs, size_t n,
                               const uint8_t *public_inputs, size_t public_bytes,
                               cuzk_error *err) {
    if (proofs == NULL || (public_bytes != 0 && public_inputs == NULL))
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "finish: job %llu: NULL results",
                          (unsigned long long)id);
    if (public_bytes > (size_t)INT32_MAX)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "finish: job %llu: %zu public bytes per "
                          "partition", (unsigned long long)id, public_bytes);
    pathlist l = {0};
    lock(s);
    int state = 0;
    size_t count = 0;
    cuzk_status st = begin(s, err);
    if (st == CUZK_OK) st = load_state(s, id, &state, &count, err);
    if (st == CUZK_OK && cuzk__store_state_ended(state)) st = has_ended(err, id, state);
    if (st == CUZK_OK && n != count)
        st = cuzk__fail(err, CUZK_ERR_INVALID_ARG, "finish: job %llu has %zu partitions, %zu "
                        "results given", (unsigned long long)id, count, n);
    for (size_t i = 0; st == CUZK_OK && i < n; i++) {
        sqlite3_stmt *q = use(s, Q_SET_RESULT);
        sqlite3_bind_int64(q, 1, (sqlite3_int64)id);
        sqlite3_bind_int64(q, 2, (sqlite3_int64)i);
        sqlite3_bind_blob(q, 3, proofs[i].bytes, CUZK_PROOF_BYTES, SQLITE_STATIC);
        if (public_bytes != 0)
            sqlite3_bind_blob(q, 4, public_inputs + i * public_bytes, (int)public_bytes,
                              SQLITE_STATIC);
        else
            sqlite3_bind_zeroblob(q, 4, 0);
        st = run(s, q, "record a proof", err);
        if (st == CUZK_OK && sqlite3_changes(s->db) != 1)
            st = cuzk__fail(err, CUZK_ERR_IO, "%s: job %llu has no partition %zu", s->db_path,
                            (unsigned long long)id, i);
    }
    const int64_t now = cuzk__store_now_ms();
    if (st == CUZK_OK) st = take_spool(s, id, 1, &l, err);
    if (st == CUZK_OK) st = set_state(s, id, CUZK_JOB_DONE, now, now, CUZK_OK, NULL, err);
    if (st == CUZK_OK) st = commit(s, err);
    return end_call(s, st, &l);
}

/* QUEUED or RUNNING -> state (FAILED or CANCELLED), spool released. *was:
 * the state found. An ended job: CUZK_OK, nothing changed. */
static cuzk_status end_job(cuzk__store *s, uint64_t id, int state, cuzk_status status,
                           const char *msg, int *was, cuzk_error *err) {
    pathlist l = {0};
    lock(s);
    size_t count = 0;
    cuzk_status st = begin(s, err);
    if (st == CUZK_OK) st = load_state(s, id, was, &count, err);
    if (st == CUZK_OK && !cuzk__store_state_ended(*was)) {
        const int64_t now = cuzk__store_now_ms();
        st = take_spool(s, id, 1, &l, err);
        if (st == CUZK_OK) st = set_state(s, id, state, now, now, status, msg, err);
        if (st == CUZK_OK) st = commit(s, err);
    }
    return end_call(s, st, &l);
}

cuzk_status cuzk__store_fail(cuzk__store *s, uint64_t id, cuzk_status status, const char *msg,
                             cuzk_error *err) {
    if (status == CUZK_OK || (unsigned)status >= CUZK_STATUS_COUNT)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "fail: job %llu: status %d is not an error",
                          (unsigned long long)id, (int)status);
    int was = 0;
    cuzk_status st = end_job(s, id, CUZK_JOB_FAILED, status,
                             msg != NULL ? msg : cuzk_strerror(status), &was, err);
    if (st == CUZK_OK && cuzk__store_state_ended(was)) return has_ended(err, id, was);
    return st;
}

cuzk_status cuzk__store_cancel(cuzk__store *s, uint64_t id, cuzk_job_state *state,
                               cuzk_error *err) {
    int was = 0;
    cuzk_status st = end_job(s, id, CUZK_JOB_CANCELLED, CUZK_OK, NULL, &was, err);
    if (state != NULL && st == CUZK_OK)
        *state = cuzk__store_state_ended(was) ? (cuzk_job_state)was : CUZK_JOB_CANCELLED;
    return st;
}

cuzk_status cuzk__store_results(cuzk__store *s, uint64_t id, cuzk_proof *proofs, size_t cap,
                                uint8_t **public_inputs, size_t *public_bytes,
                                cuzk_error *err) {
    if (public_inputs != NULL) *public_inputs = NULL;
    if (public_bytes != NULL) *public_bytes = 0;
    if (proofs == NULL)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "results: job %llu: proofs is NULL",
                          (unsigned long long)id);
    lock(s);
    int state = 0;
    size_t count = 0, per = 0, rows = 0;
    uint8_t *pub = NULL;
    cuzk_status st = begin_read(s, err);
    if (st == CUZK_OK) st = load_state(s, id, &state, &count, err);
    if (st == CUZK_OK && state != CUZK_JOB_DONE)
        st = cuzk__fail(err, CUZK_ERR_INVALID_ARG, "job %llu is %s, not done",
                        (unsigned long long)id, cuzk__store_state_name((cuzk_job_state)state));
    if (st == CUZK_OK && cap < count)
        st = cuzk__fail(err, CUZK_ERR_INVALID_ARG, "results: job %llu has %zu proofs, room for "
                        "%zu", (unsigned long long)id, count, cap);
    if (st == CUZK_OK) {
        sqlite3_stmt *q = use(s, Q_RESULTS);
        sqlite3_bind_int64(q, 1, (sqlite3_int64)id);
        int rc = SQLITE_DONE;
        while (st == CUZK_OK && (rc = sqlite3_step(q)) == SQLITE_ROW) {
            const int64_t idx = sqlite3_column_int64(q, 0);
            const void *proof = sqlite3_column_blob(q, 1);
            const int proof_len = sqlite3_column_bytes(q, 1);
            const void *p = sqlite3_column_blob(q, 2);
            const size_t pl = (size_t)sqlite3_column_bytes(q, 2);
            if (idx < 0 || (uint64_t)idx >= count || proof == NULL ||
                proof_len != CUZK_PROOF_BYTES || (rows > 0 && pl != per)) {
                st = cuzk__fail(err, CUZK_ERR_IO, "%s: job %llu: the results of partition %lld "
                                "are malformed", s->db_path, (unsigned long long)id,
                                (long long)idx);
                break;
            }
            if (rows++ == 0) {
                per = pl;
                if (public_inputs != NULL && per != 0 && (pub = malloc(count * per)) == NULL)
                    st = cuzk__fail(err, CUZK_ERR_NOMEM, "job %llu: out of memory",
                                    (unsigned long long)id);
            }
            memcpy(proofs[idx].bytes, proof, CUZK_PROOF_BYTES);
            if (pub != NULL) memcpy(pub + (size_t)idx * per, p, per);
        }
        if (st == CUZK_OK && rc != SQLITE_DONE) st = db_fail(s, err, "read the results");
        if (st == CUZK_OK && rows != count)
            st = cuzk__fail(err, CUZK_ERR_IO, "%s: job %llu has %zu of its %zu results",
                            s->db_path, (unsigned long long)id, rows, count);
    }
    unlock(s);
    if (st != CUZK_OK) {
        free(pub);
        return st;
    }
    if (public_inputs != NULL) *public_inputs = pub;
    if (public_bytes != NULL) *public_bytes = per;
    return CUZK_OK;
}

/* The jobs of the mask after after_id, at most limit (0: all). Under the lock. */
static cuzk_status list_locked(cuzk__store *s, unsigned mask, uint64_t after_id, size_t limit,
                               cuzk__store_job_info **jobs, size_t *n, cuzk_error *err) {
    if (after_id > INT64_MAX) return CUZK_OK;
    sqlite3_stmt *q = use(s, Q_LIST);
    sqlite3_bind_int64(q, 1, (sqlite3_int64)after_id);
    sqlite3_bind_int(q, 2, (int)(mask ? mask & 0x1f : 0x1f));
    sqlite3_bind_int64(q, 3, limit == 0 || limit > INT64_MAX ? -1 : (sqlite3_int64)limit);
    cuzk__store_job_info *v = NULL;
    size_t k = 0, cap = 0;
    int rc;
    cuzk_status st = CUZK_OK;
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
        if (k == cap) {
            cap = cap ? 2 * cap : 16;
            cuzk__store_job_info *w = realloc(v, cap * sizeof(*v));
            if (w == NULL) {
                st = cuzk__fail(err, CUZK_ERR_NOMEM, "list: out of memory");
                break;
            }
            v = w;
        }
        read_info(q, &v[k++]);
    }
    if (st == CUZK_OK && rc != SQLITE_DONE) st = db_fail(s, err, "list the jobs");
    sqlite3_reset(q);
    if (st != CUZK_OK) {
        free(v);
        return st;
    }
    *jobs = v;
    *n = k;
    return CUZK_OK;
}

cuzk_status cuzk__store_list(cuzk__store *s, unsigned state_mask, uint64_t after_id,
                             size_t limit, cuzk__store_job_info **jobs, size_t *n,
                             cuzk_error *err) {
    if (jobs == NULL || n == NULL)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "list: NULL argument");
    *jobs = NULL;
    *n = 0;
    lock(s);
    cuzk_status st = list_locked(s, state_mask, after_id, limit, jobs, n, err);
    unlock(s);
    return st;
}

cuzk_status cuzk__store_counts(cuzk__store *s, uint64_t counts[5], cuzk_error *err) {
    for (int i = 0; i < 5; i++) counts[i] = 0;
    lock(s);
    sqlite3_stmt *q = use(s, Q_COUNTS);
    int rc;
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
        const int state = sqlite3_column_int(q, 0);
        if (state >= 0 && state < 5) counts[state] = (uint64_t)sqlite3_column_int64(q, 1);
    }
    cuzk_status st = rc == SQLITE_DONE ? CUZK_OK : db_fail(s, err, "count the jobs");
    unlock(s);
    return st;
}

cuzk_status cuzk__store_recover(cuzk__store *s, cuzk__store_job_info **jobs, size_t *n,
                                cuzk_error *err) {
    if (jobs == NULL || n == NULL)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "recover: NULL argument");
    *jobs = NULL;
    *n = 0;
    lock(s);
    cuzk_status st = begin(s, err);
    if (st == CUZK_OK) {
        sqlite3_stmt *q = use(s, Q_REQUEUE);
        sqlite3_bind_int64(q, 1, cuzk__store_now_ms());
        st = run(s, q, "requeue the running jobs", err);
    }
    cuzk__store_job_info *v = NULL;
    size_t k = 0;
    if (st == CUZK_OK) st = list_locked(s, 1u << CUZK_JOB_QUEUED, 0, 0, &v, &k, err);
    if (st == CUZK_OK) st = commit(s, err);
    unlock(s);
    if (st != CUZK_OK) {
        free(v);
        return st;
    }
    *jobs = v;
    *n = k;
    return CUZK_OK;
}

/* Deletes the job's rows, its spool files added to l. Under the lock, in a
 * transaction. */
static cuzk_status delete_job(cuzk__store *s, uint64_t id, pathlist *l, cuzk_error *err) {
    cuzk_status st = take_spool(s, id, 0, l, err);
    if (st == CUZK_OK) {
        sqlite3_stmt *q = use(s, Q_DELETE_PARTS);
        sqlite3_bind_int64(q, 1, (sqlite3_int64)id);
        st = run(s, q, "delete a job's partitions", err);
    }
    if (st == CUZK_OK) {
        sqlite3_stmt *q = use(s, Q_DELETE_JOB);
        sqlite3_bind_int64(q, 1, (sqlite3_int64)id);
        st = run(s, q, "delete a job", err);
    }
    return st;
}

cuzk_status cuzk__store_collect(cuzk__store *s, uint64_t id, cuzk_error *err) {
    pathlist l = {0};
    lock(s);
    int state = 0;
    size_t count = 0;
    cuzk_status st = begin(s, err);
    if (st == CUZK_OK) st = load_state(s, id, &state, &count, err);
    if (st == CUZK_OK) st = delete_job(s, id, &l, err);
    if (st == CUZK_OK) st = commit(s, err);
    return end_call(s, st, &l);
}

cuzk_status cuzk__store_expire(cuzk__store *s, int64_t finished_before_ms, size_t *removed,
                               cuzk_error *err) {
    size_t total = 0;
    cuzk_status st = CUZK_OK;
    for (;;) {
        uint64_t ids[EXPIRE_BATCH];
        size_t k = 0;
        pathlist l = {0};
        lock(s);
        st = begin(s, err);
        if (st == CUZK_OK) {
            sqlite3_stmt *q = use(s, Q_EXPIRABLE);
            sqlite3_bind_int64(q, 1, finished_before_ms);
            sqlite3_bind_int(q, 2, EXPIRE_BATCH);
            int rc = SQLITE_DONE;
            while (k < EXPIRE_BATCH && (rc = sqlite3_step(q)) == SQLITE_ROW)
                ids[k++] = (uint64_t)sqlite3_column_int64(q, 0);
            if (k < EXPIRE_BATCH && rc != SQLITE_DONE) st = db_fail(s, err, "find expired jobs");
            sqlite3_reset(q);
        }
        for (size_t i = 0; st == CUZK_OK && i < k; i++) st = delete_job(s, ids[i], &l, err);
        if (st == CUZK_OK && k > 0) st = commit(s, err);
        unlock(s);
        if (st != CUZK_OK) {
            pathlist_free(&l);
            break;
        }
        unlink_all(&l);
        total += k;
        if (k < EXPIRE_BATCH) break;
    }
    if (removed != NULL) *removed = total;
    return st;
}

/* ---- partitions one at a time -------------------------------------------------- */

cuzk_status cuzk__store_pending(cuzk__store *s, size_t limit, cuzk__store_part *parts, size_t *n,
                                cuzk_error *err) {
    if (parts == NULL || n == NULL)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "pending: NULL argument");
    *n = 0;
    if (limit == 0) return CUZK_OK;
    lock(s);
    sqlite3_stmt *q = use(s, Q_PENDING);
    sqlite3_bind_int64(q, 1, limit > INT64_MAX ? INT64_MAX : (sqlite3_int64)limit);
    int rc;
    size_t k = 0;
    cuzk_status st = CUZK_OK;
    while (k < limit && (rc = sqlite3_step(q)) == SQLITE_ROW) {
        cuzk__store_part *p = &parts[k];
        memset(p, 0, sizeof(*p));
        p->job_id = (uint64_t)sqlite3_column_int64(q, 0);
        p->index = (uint32_t)sqlite3_column_int64(q, 1);
        p->priority = (cuzk_priority)sqlite3_column_int(q, 2);
        p->job_state = (cuzk_job_state)sqlite3_column_int(q, 3);
        copy_text(p->key_name, sizeof(p->key_name), q, 4);
        p->n_partitions = (size_t)sqlite3_column_int64(q, 5);
        const char *spool = (const char *)sqlite3_column_text(q, 6);
        const char *path = (const char *)sqlite3_column_text(q, 7);
        const int len = spool != NULL ? snprintf(p->path, sizeof(p->path), "%s/%s", s->spool, spool)
                                      : snprintf(p->path, sizeof(p->path), "%s", path ? path : "");
        if (len < 0 || (size_t)len >= sizeof(p->path)) {
            st = cuzk__fail(err, CUZK_ERR_IO, "%s: job %llu: partition %u: its witness path is "
                            "longer than %zu bytes", s->db_path, (unsigned long long)p->job_id,
                            p->index, sizeof(p->path) - 1);
            break;
        }
        k++;
    }
    if (st == CUZK_OK && k < limit && rc != SQLITE_DONE)
        st = db_fail(s, err, "read the partitions to prove");
    unlock(s);
    if (st == CUZK_OK) *n = k;
    return st;
}

cuzk_status cuzk__store_record(cuzk__store *s, uint64_t id, size_t index, const cuzk_proof *proof,
                               const uint8_t *public_inputs, size_t public_bytes, int *job_done,
                               cuzk_error *err) {
    if (job_done != NULL) *job_done = 0;
    if (proof == NULL || (public_bytes != 0 && public_inputs == NULL))
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "record: job %llu: NULL results",
                          (unsigned long long)id);
    if (public_bytes > (size_t)INT32_MAX)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "record: job %llu: %zu public bytes",
                          (unsigned long long)id, public_bytes);
    pathlist l = {0};
    lock(s);
    int state = 0;
    size_t count = 0;
    int done = 0;
    cuzk_status st = begin(s, err);
    if (st == CUZK_OK) st = load_state(s, id, &state, &count, err);
    if (st == CUZK_OK && cuzk__store_state_ended(state)) st = has_ended(err, id, state);
    if (st == CUZK_OK && index >= count)
        st = cuzk__fail(err, CUZK_ERR_NOT_FOUND, "record: job %llu has no partition %zu",
                        (unsigned long long)id, index);
    if (st == CUZK_OK) {
        sqlite3_stmt *q = use(s, Q_RECORD);
        sqlite3_bind_int64(q, 1, (sqlite3_int64)id);
        sqlite3_bind_int64(q, 2, (sqlite3_int64)index);
        sqlite3_bind_blob(q, 3, proof->bytes, CUZK_PROOF_BYTES, SQLITE_STATIC);
        if (public_bytes != 0)
            sqlite3_bind_blob(q, 4, public_inputs, (int)public_bytes, SQLITE_STATIC);
        else
            sqlite3_bind_zeroblob(q, 4, 0);
        st = run(s, q, "record a proof", err);
    }
    /* no row changed: proved already (left as it was), or missing */
    if (st == CUZK_OK && sqlite3_changes(s->db) == 0) {
        sqlite3_stmt *q = use(s, Q_PROVED);
        sqlite3_bind_int64(q, 1, (sqlite3_int64)id);
        sqlite3_bind_int64(q, 2, (sqlite3_int64)index);
        if (sqlite3_step(q) != SQLITE_ROW)
            st = cuzk__fail(err, CUZK_ERR_IO, "%s: job %llu has no partition %zu", s->db_path,
                            (unsigned long long)id, index);
        sqlite3_reset(q);
    }
    int64_t left = 0;
    if (st == CUZK_OK) {
        sqlite3_stmt *q = use(s, Q_LEFT);
        sqlite3_bind_int64(q, 1, (sqlite3_int64)id);
        if (sqlite3_step(q) == SQLITE_ROW)
            left = sqlite3_column_int64(q, 0);
        else
            st = db_fail(s, err, "count the partitions left");
        sqlite3_reset(q);
    }
    const int64_t now = cuzk__store_now_ms();
    if (st == CUZK_OK && left == 0) {
        st = take_spool(s, id, 1, &l, err);
        if (st == CUZK_OK) st = set_state(s, id, CUZK_JOB_DONE, now, now, CUZK_OK, NULL, err);
        done = 1;
    } else if (st == CUZK_OK) {
        st = set_state(s, id, CUZK_JOB_RUNNING, now, 0, CUZK_OK, NULL, err);
    }
    if (st == CUZK_OK) st = commit(s, err);
    st = end_call(s, st, &l);
    if (st == CUZK_OK && job_done != NULL) *job_done = done;
    return st;
}

cuzk_status cuzk__store_ahead(cuzk__store *s, cuzk_priority priority, uint64_t id, size_t *n,
                              cuzk_error *err) {
    if (n == NULL) return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "ahead: NULL argument");
    *n = 0;
    lock(s);
    sqlite3_stmt *q = use(s, Q_AHEAD);
    sqlite3_bind_int(q, 1, (int)priority);
    sqlite3_bind_int64(q, 2, id > INT64_MAX ? INT64_MAX : (sqlite3_int64)id);
    cuzk_status st = CUZK_OK;
    if (sqlite3_step(q) == SQLITE_ROW)
        *n = (size_t)sqlite3_column_int64(q, 0);
    else
        st = db_fail(s, err, "count the partitions ahead");
    unlock(s);
    return st;
}

cuzk_status cuzk__store_backlog(cuzk__store *s, size_t *n, cuzk_error *err) {
    if (n == NULL) return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "backlog: NULL argument");
    *n = 0;
    lock(s);
    sqlite3_stmt *q = use(s, Q_BACKLOG);
    cuzk_status st = CUZK_OK;
    if (sqlite3_step(q) == SQLITE_ROW)
        *n = (size_t)sqlite3_column_int64(q, 0);
    else
        st = db_fail(s, err, "count the partitions to prove");
    unlock(s);
    return st;
}
