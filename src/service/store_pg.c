/*
 * store_pg.c — the shared job queue on PostgreSQL (store_pg.h): one libpq
 * connection per handle behind one mutex, every call one transaction run
 * by transact(), which reconnects and retries as the header says.
 *
 * Locks, and why nothing deadlocks. Calls that end a partition or a job
 * (complete, fail, cancel) lock the job's row first (SELECT ... FOR
 * UPDATE), then its partitions. Claim and reap lock partition rows only,
 * with SKIP LOCKED, so they never wait; renew, release and leave lock only
 * their owner's claimed rows and never a job's. So completions of one job
 * are serialised by the job row (the one that records the last partition
 * sees every other proof, and makes the job done once), and no
 * transaction waits for a job row while holding a partition another waits
 * for. Deadlocks (40P01) are still retried, as serialization failures are.
 *
 * Values. Parameters go as text (numbers written here, names as given,
 * arrays as literals with every element quoted) and bytea as binary;
 * results come as text, except the two reads of bytea (results, witness
 * chunks), which ask for binary and decode big-endian integers.
 */
#include "service/store_pg.h"

#include <errno.h>
#include <libpq-fe.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/error.h"

#define DEFAULT_RECONNECT_MS 5000
/* Statements run through q() take at most this many parameters. */
#define P_MAX 12
/* Jobs collected per transaction by cuzk__store_pg_expire. */
#define EXPIRE_BATCH 256
/* Deadlock / serialization retries of one call. */
#define CONFLICT_RETRIES 3

/* Unix milliseconds of a timestamptz expression, as SQL text. */
#define MS(x) "(extract(epoch FROM " x ") * 1000)::bigint"

/* ---- the schema ---------------------------------------------------------- */

/* Migration v (1-based) is MIGRATION[v - 1]: statements run in order, in
 * the transaction that records the version. Never edit one that shipped:
 * add the next. */
static const char *const MIGRATION_1[] = {
    "CREATE TABLE cuzk.daemons ("
    " id bigserial PRIMARY KEY,"
    " name text NOT NULL,"
    " started_at timestamptz NOT NULL DEFAULT now(),"
    " heartbeat_at timestamptz NOT NULL DEFAULT now())",
    "CREATE TABLE cuzk.jobs ("
    " id bigserial PRIMARY KEY,"
    " request_id text UNIQUE,"
    " key_name text NOT NULL,"
    " priority smallint NOT NULL CHECK (priority BETWEEN 0 AND 3),"
    " n_partitions integer NOT NULL CHECK (n_partitions > 0),"
    " state smallint NOT NULL DEFAULT 0 CHECK (state IN (0, 2, 3, 4)),"
    " created_at timestamptz NOT NULL DEFAULT now(),"
    " updated_at timestamptz NOT NULL DEFAULT now(),"
    " finished_at timestamptz,"
    " error_status integer NOT NULL DEFAULT 0,"
    " error text)",
    "CREATE INDEX jobs_live ON cuzk.jobs (key_name, priority DESC, created_at, id)"
    " WHERE state = 0",
    "CREATE INDEX jobs_finished ON cuzk.jobs (finished_at) WHERE finished_at IS NOT NULL",
    "CREATE TABLE cuzk.witnesses ("
    " id bigserial PRIMARY KEY,"
    " job_id bigint REFERENCES cuzk.jobs(id) ON DELETE CASCADE,"
    " bytes bigint NOT NULL DEFAULT 0,"
    " chunk_bytes integer NOT NULL CHECK (chunk_bytes > 0),"
    " complete boolean NOT NULL DEFAULT false,"
    " touched_at timestamptz NOT NULL DEFAULT now())",
    "CREATE INDEX witnesses_job ON cuzk.witnesses (job_id)",
    "CREATE INDEX witnesses_loose ON cuzk.witnesses (touched_at) WHERE job_id IS NULL",
    "CREATE TABLE cuzk.witness_chunks ("
    " witness_id bigint NOT NULL REFERENCES cuzk.witnesses(id) ON DELETE CASCADE,"
    " seq integer NOT NULL CHECK (seq >= 0),"
    " data bytea NOT NULL,"
    " PRIMARY KEY (witness_id, seq))",
    "ALTER TABLE cuzk.witness_chunks ALTER COLUMN data SET STORAGE EXTERNAL",
    "CREATE TABLE cuzk.partitions ("
    " job_id bigint NOT NULL REFERENCES cuzk.jobs(id) ON DELETE CASCADE,"
    " idx integer NOT NULL CHECK (idx >= 0),"
    " state smallint NOT NULL DEFAULT 0 CHECK (state BETWEEN 0 AND 3),"
    " owner bigint,"
    " lease_expires timestamptz,"
    " generation bigint NOT NULL DEFAULT 0,"
    " witness_id bigint REFERENCES cuzk.witnesses(id) ON DELETE SET NULL,"
    " witness_path text,"
    " proof bytea,"
    " public_inputs bytea,"
    " PRIMARY KEY (job_id, idx))",
    "CREATE INDEX partitions_queued ON cuzk.partitions (job_id, idx) WHERE state = 0",
    "CREATE INDEX partitions_leases ON cuzk.partitions (lease_expires) WHERE state = 1",
    "CREATE INDEX partitions_owner ON cuzk.partitions (owner) WHERE state = 1",
};

/* 2: what each daemon is (backend, devices, workers, keys), for the
 * cluster's view. */
static const char *const MIGRATION_2[] = {
    "ALTER TABLE cuzk.daemons ADD COLUMN info text NOT NULL DEFAULT ''",
};

/* 3: the keys each daemon claims, so that a job's place in the queue
 * counts only the jobs its daemons would take first. */
static const char *const MIGRATION_3[] = {
    "ALTER TABLE cuzk.daemons ADD COLUMN keys text[] NOT NULL DEFAULT '{}'",
};

static const struct {
    const char *const *sql;
    size_t n;
} MIGRATIONS[] = {
    {MIGRATION_1, sizeof(MIGRATION_1) / sizeof(MIGRATION_1[0])},
    {MIGRATION_2, sizeof(MIGRATION_2) / sizeof(MIGRATION_2[0])},
    {MIGRATION_3, sizeof(MIGRATION_3) / sizeof(MIGRATION_3[0])},
};

_Static_assert(sizeof(MIGRATIONS) / sizeof(MIGRATIONS[0]) == CUZK__PG_SCHEMA_VERSION,
               "one migration per schema version");

/* Partition states in the table. */
enum { P_QUEUED = 0, P_CLAIMED = 1, P_DONE = 2, P_DROPPED = 3 };

static const char CHANNEL_END[] = "cuzk_job_end";
static const char CHANNEL_NEW[] = "cuzk_job_new";

/* ---- the handle ---------------------------------------------------------- */

struct cuzk__store_pg {
    pthread_mutex_t mu; /* held for a whole call */
    PGconn *conn;
    char *conninfo;      /* as given: holds the password, never printed */
    char *password;      /* the parsed password (NULL: none), scrubbed from messages */
    char where[400];     /* user@host:port/db */
    uint32_t chunk_bytes, reconnect_ms;
    unsigned listening;  /* CUZK__PG_CHANNEL_* */
    int broken;          /* reset the connection before its next use */
    int resync;          /* reconnected since the last wait */
    int commit_sent;     /* the current transaction's COMMIT went out */
    int lost;            /* the last failure was a lost connection */
    char sqlstate[6];    /* the last failure's SQLSTATE, "" for none */
    uint64_t reconnects; /* atomic: read without mu */
    const char *op;      /* the call in progress: messages */
};

struct cuzk__store_pg_writer {
    cuzk__store_pg *s;
    uint64_t id;
    uint8_t *buf;
    size_t fill;
    uint32_t seq;
    uint64_t total;
};

const char *cuzk__store_pg_where(const cuzk__store_pg *s) { return s->where; }

/* Read without the handle's mutex, which a wait holds for its whole timeout. */
uint64_t cuzk__store_pg_reconnects(cuzk__store_pg *s) {
    return __atomic_load_n(&s->reconnects, __ATOMIC_RELAXED);
}

const char *cuzk__store_pg_outcome_name(cuzk__store_pg_outcome o) {
    switch (o) {
    case CUZK__PG_RECORDED: return "recorded";
    case CUZK__PG_FENCED: return "fenced";
    case CUZK__PG_ENDED: return "ended";
    }
    return "?";
}

/* ---- messages ------------------------------------------------------------ */

/*
 * Copies msg into out (cap bytes) with line breaks and the indentation
 * after them folded into one space, trailing blanks dropped, and anything
 * that could be the password masked: the password's text wherever it
 * occurs, a URI's "user:secret@" and a "password=secret" pair (for
 * strings that did not parse, whose password is not known).
 */
static void scrub(char *out, size_t cap, const char *msg, const char *password) {
    size_t o = 0;
    const size_t pl = password != NULL ? strlen(password) : 0;
    if (cap == 0) return;
    for (const char *p = msg; *p != '\0' && o + 1 < cap;) {
        if (pl > 0 && strncmp(p, password, pl) == 0) {
            for (const char *m = "***"; *m && o + 1 < cap; m++) out[o++] = *m;
            p += pl;
            continue;
        }
        if (strncmp(p, "://", 3) == 0) {
            /* scheme://user:secret@host: mask from the first ':' to the '@' */
            const char *at = strpbrk(p + 3, "@/ \"'");
            const char *colon = strchr(p + 3, ':');
            if (at != NULL && *at == '@' && colon != NULL && colon < at) {
                for (const char *c = p; c <= colon && o + 1 < cap; c++) out[o++] = *c;
                for (const char *m = "***"; *m && o + 1 < cap; m++) out[o++] = *m;
                p = at;
                continue;
            }
        }
        if (strncmp(p, "password", 8) == 0) {
            const char *v = p + 8;
            while (*v == ' ') v++;
            if (*v == '=') {
                v++;
                while (*v == ' ') v++;
                const char *e = v;
                if (*e == '\'') {
                    for (e++; *e != '\0' && *e != '\''; e++)
                        if (*e == '\\' && e[1] != '\0') e++;
                    if (*e == '\'') e++;
                } else {
                    while (*e != '\0' && *e != ' ' && *e != '"' && *e != '\n') e++;
                }
                for (const char *m = "password=***"; *m && o + 1 < cap; m++) out[o++] = *m;
                p = e;
                continue;
            }
        }
        if (*p == '\n' || *p == '\r') {
            while (*p == '\n' || *p == '\r' || *p == '\t' || *p == ' ') p++;
            if (*p != '\0' && o > 0 && out[o - 1] != ' ') out[o++] = ' ';
            continue;
        }
        out[o++] = *p++;
    }
    while (o > 0 && (out[o - 1] == ' ' || out[o - 1] == '\t')) o--;
    out[o] = '\0';
}

/* SQLSTATEs of a connection that is gone or going: class 08, and the
 * server shutting down or being restarted under the session (57P01..03). */
static int sqlstate_lost(const char *st) {
    return strncmp(st, "08", 2) == 0 || strcmp(st, "57P01") == 0 || strcmp(st, "57P02") == 0 ||
           strcmp(st, "57P03") == 0;
}

/* A failed statement (r may be NULL): records the SQLSTATE and whether
 * the connection is lost, and fails with "<op>: postgres <where>: <step>:
 * <message> (SQLSTATE x)". */
static cuzk_status pg_fail(cuzk__store_pg *s, const PGresult *r, const char *step,
                           cuzk_error *err) {
    const char *state = r != NULL ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;
    const char *primary = r != NULL ? PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY) : NULL;
    snprintf(s->sqlstate, sizeof(s->sqlstate), "%s", state != NULL ? state : "");
    const char *text = primary;
    if (text == NULL || *text == '\0') text = r != NULL ? PQresultErrorMessage(r) : "";
    if (text == NULL || *text == '\0') text = PQerrorMessage(s->conn);
    if (text == NULL || *text == '\0') text = "no message";
    s->lost = PQstatus(s->conn) == CONNECTION_BAD || sqlstate_lost(s->sqlstate);
    if (s->lost) s->broken = 1;
    char clean[CUZK_ERROR_MSG_BYTES];
    scrub(clean, sizeof(clean), text, s->password);
    const cuzk_status st = r == NULL && !s->lost && strstr(text, "out of memory") != NULL
                               ? CUZK_ERR_NOMEM
                               : CUZK_ERR_IO;
    if (s->sqlstate[0] != '\0')
        return cuzk__fail(err, st, "%s: postgres %s: %s: %s (SQLSTATE %s)", s->op, s->where,
                          step, clean, s->sqlstate);
    return cuzk__fail(err, st, "%s: postgres %s: %s: %s", s->op, s->where, step, clean);
}

/* ---- statements ---------------------------------------------------------- */

typedef struct {
    int n;
    const char *v[P_MAX];
    int len[P_MAX], fmt[P_MAX];
    char num[P_MAX][24];
} params;

static void p_u64(params *p, uint64_t x) {
    snprintf(p->num[p->n], sizeof(p->num[0]), "%llu", (unsigned long long)x);
    p->v[p->n] = p->num[p->n];
    p->len[p->n] = p->fmt[p->n] = 0;
    p->n++;
}

static void p_i64(params *p, int64_t x) {
    snprintf(p->num[p->n], sizeof(p->num[0]), "%lld", (long long)x);
    p->v[p->n] = p->num[p->n];
    p->len[p->n] = p->fmt[p->n] = 0;
    p->n++;
}

/* Text (NULL: SQL NULL). */
static void p_text(params *p, const char *t) {
    p->v[p->n] = t;
    p->len[p->n] = p->fmt[p->n] = 0;
    p->n++;
}

/* Binary bytes (bytea). */
static void p_bytes(params *p, const void *b, size_t n) {
    static const char empty[1] = {0};
    p->v[p->n] = n > 0 ? (const char *)b : empty;
    p->len[p->n] = (int)n;
    p->fmt[p->n] = 1;
    p->n++;
}

/* Runs sql with p (may be NULL); *out (may be NULL) the result, to
 * PQclear. Results are text unless binary. */
static cuzk_status q(cuzk__store_pg *s, const char *step, const char *sql, const params *p,
                     int binary, PGresult **out, cuzk_error *err) {
    if (out != NULL) *out = NULL;
    PGresult *r = PQexecParams(s->conn, sql, p ? p->n : 0, NULL, p ? p->v : NULL,
                               p ? p->len : NULL, p ? p->fmt : NULL, binary);
    const ExecStatusType t = r != NULL ? PQresultStatus(r) : PGRES_FATAL_ERROR;
    if (t == PGRES_COMMAND_OK || t == PGRES_TUPLES_OK) {
        if (out != NULL)
            *out = r;
        else
            PQclear(r);
        return CUZK_OK;
    }
    const cuzk_status st = pg_fail(s, r, step, err);
    PQclear(r);
    return st;
}

/* Text-format integer cell (NULL reads 0). */
static int64_t gi(const PGresult *r, int row, int col) {
    if (PQgetisnull(r, row, col)) return 0;
    return strtoll(PQgetvalue(r, row, col), NULL, 10);
}

static uint64_t gu(const PGresult *r, int row, int col) {
    if (PQgetisnull(r, row, col)) return 0;
    return strtoull(PQgetvalue(r, row, col), NULL, 10);
}

static void gs(char *dst, size_t cap, const PGresult *r, int row, int col) {
    snprintf(dst, cap, "%s", PQgetisnull(r, row, col) ? "" : PQgetvalue(r, row, col));
}

/* Binary-format integer cell (int2, int4 or int8, big-endian; NULL 0). */
static int64_t bi(const PGresult *r, int row, int col) {
    if (PQgetisnull(r, row, col)) return 0;
    const unsigned char *b = (const unsigned char *)PQgetvalue(r, row, col);
    const int n = PQgetlength(r, row, col);
    uint64_t v = 0;
    for (int i = 0; i < n && i < 8; i++) v = (v << 8) | b[i];
    if (n == 2) return (int16_t)v;
    if (n == 4) return (int32_t)v;
    return (int64_t)v;
}

/* ---- text arrays --------------------------------------------------------- */

typedef struct {
    char *p;
    size_t n, cap;
    int oom;
} sbuf;

static void sb_put(sbuf *b, const char *t, size_t n) {
    if (b->oom) return;
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap < b->n + n + 1) cap *= 2;
        char *p = realloc(b->p, cap);
        if (p == NULL) {
            b->oom = 1;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->n, t, n);
    b->n += n;
    b->p[b->n] = '\0';
}

static void sb_str(sbuf *b, const char *t) { sb_put(b, t, strlen(t)); }

/* An array element, double-quoted with '\' and '"' escaped (NULL: NULL). */
static void sb_elem(sbuf *b, const char *t) {
    if (t == NULL) {
        sb_str(b, "NULL");
        return;
    }
    sb_put(b, "\"", 1);
    for (const char *c = t; *c != '\0'; c++) {
        if (*c == '\\' || *c == '"') sb_put(b, "\\", 1);
        sb_put(b, c, 1);
    }
    sb_put(b, "\"", 1);
}

/* ---- the connection ------------------------------------------------------ */

static void ignore_notice(void *arg, const char *msg) {
    (void)arg;
    (void)msg;
}

static void sleep_ms(unsigned ms) {
    struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

static int64_t mono_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* LISTENs on the channels of s->listening (after a reconnect). */
static cuzk_status relisten(cuzk__store_pg *s, cuzk_error *err) {
    cuzk_status st = CUZK_OK;
    if (s->listening & CUZK__PG_CHANNEL_END)
        st = q(s, "listen", "LISTEN cuzk_job_end", NULL, 0, NULL, err);
    if (st == CUZK_OK && (s->listening & CUZK__PG_CHANNEL_NEW))
        st = q(s, "listen", "LISTEN cuzk_job_new", NULL, 0, NULL, err);
    return st;
}

/* A usable connection: the current one, or a new one after a loss, tried
 * for up to reconnect_ms with growing pauses. */
static cuzk_status ensure(cuzk__store_pg *s, cuzk_error *err) {
    if (!s->broken && PQstatus(s->conn) == CONNECTION_OK) return CUZK_OK;
    const int64_t deadline = mono_ms() + s->reconnect_ms;
    unsigned pause = 50;
    for (;;) {
        PQreset(s->conn);
        if (PQstatus(s->conn) == CONNECTION_OK) {
            s->broken = 0;
            __atomic_add_fetch(&s->reconnects, 1, __ATOMIC_RELAXED);
            if (s->listening != 0) {
                s->resync = 1;
                cuzk_status st = relisten(s, err);
                if (st != CUZK_OK) return st;
            }
            return CUZK_OK;
        }
        if (mono_ms() + pause > deadline) break;
        sleep_ms(pause);
        if (pause < 500) pause *= 2;
    }
    char clean[CUZK_ERROR_MSG_BYTES];
    scrub(clean, sizeof(clean), PQerrorMessage(s->conn), s->password);
    return cuzk__fail(err, CUZK_ERR_IO, "%s: postgres %s: the connection was lost and could not "
                      "be made again within %u ms: %s", s->op, s->where, s->reconnect_ms, clean);
}

typedef cuzk_status (*body_fn)(cuzk__store_pg *s, void *ctx, cuzk_error *err);

enum {
    TX_READ = 1,       /* REPEATABLE READ READ ONLY; safe to run again */
    TX_IDEMPOTENT = 2, /* a change that is safe to run again after a lost commit */
};

/*
 * Runs body in one transaction (BEGIN .. COMMIT) under the handle's
 * mutex: a lost connection is made again, and the call run once more when
 * its COMMIT had not been sent (or it is safe to repeat); deadlocks and
 * serialization failures are run again up to CONFLICT_RETRIES times. The
 * body resets its outputs first (it may run more than once) and frees
 * what it allocated when it fails.
 */
static cuzk_status transact(cuzk__store_pg *s, const char *op, unsigned flags, body_fn body,
                            void *ctx, cuzk_error *err) {
    cuzk_error e;
    cuzk__error_clear(&e);
    pthread_mutex_lock(&s->mu);
    s->op = op;
    cuzk_status st;
    int lost_retries = 0, conflicts = 0;
    for (;;) {
        st = ensure(s, &e);
        if (st != CUZK_OK) break;
        s->commit_sent = s->lost = 0;
        s->sqlstate[0] = '\0';
        st = q(s, "begin",
               (flags & TX_READ) ? "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY" : "BEGIN",
               NULL, 0, NULL, &e);
        if (st == CUZK_OK) st = body(s, ctx, &e);
        if (st == CUZK_OK) {
            s->commit_sent = 1;
            st = q(s, "commit", "COMMIT", NULL, 0, NULL, &e);
        }
        if (st == CUZK_OK) break;
        if (!s->lost && PQtransactionStatus(s->conn) != PQTRANS_IDLE) {
            PGresult *r = PQexec(s->conn, "ROLLBACK");
            if (PQresultStatus(r) != PGRES_COMMAND_OK) s->broken = 1;
            PQclear(r);
        }
        if (s->lost) {
            const int safe = !s->commit_sent || (flags & (TX_READ | TX_IDEMPOTENT));
            if (safe && lost_retries++ == 0) continue;
            if (s->commit_sent && !safe) {
                char was[CUZK_ERROR_MSG_BYTES];
                snprintf(was, sizeof(was), "%s", e.msg);
                st = cuzk__fail(&e, CUZK_ERR_IO, "%s: postgres %s: the connection was lost "
                                "while committing; the change may or may not have been made "
                                "(%s)", op, s->where, was);
            }
            break;
        }
        if ((strcmp(s->sqlstate, "40001") == 0 || strcmp(s->sqlstate, "40P01") == 0) &&
            conflicts++ < CONFLICT_RETRIES)
            continue;
        break;
    }
    s->op = NULL;
    pthread_mutex_unlock(&s->mu);
    if (st != CUZK_OK) return cuzk__fail(err, st, "%s", e.msg);
    return CUZK_OK;
}

/* ---- open, migrate, close ------------------------------------------------ */

typedef struct {
    int applied;
} migrate_ctx;

static cuzk_status migrate_body(cuzk__store_pg *s, void *ctx, cuzk_error *err) {
    migrate_ctx *m = ctx;
    m->applied = 0;
    params p = {0};
    p_i64(&p, CUZK__PG_MIGRATION_LOCK);
    cuzk_status st = q(s, "take the migration lock", "SELECT pg_advisory_xact_lock($1::bigint)",
                       &p, 0, NULL, err);
    PGresult *r = NULL;
    /* looked up before CREATE ... IF NOT EXISTS, which needs the CREATE
     * privilege even when the object exists */
    if (st == CUZK_OK)
        st = q(s, "look for the schema",
               "SELECT (SELECT count(*) FROM pg_namespace WHERE nspname = 'cuzk'),"
               " to_regclass('cuzk.schema_version') IS NOT NULL",
               NULL, 0, &r, err);
    if (st != CUZK_OK) return st;
    const int have_schema = gi(r, 0, 0) > 0;
    const int have_table = strcmp(PQgetvalue(r, 0, 1), "t") == 0;
    PQclear(r);
    if (!have_schema) st = q(s, "create the schema", "CREATE SCHEMA cuzk", NULL, 0, NULL, err);
    if (st == CUZK_OK && !have_table)
        st = q(s, "create the version table",
               "CREATE TABLE cuzk.schema_version (version integer PRIMARY KEY,"
               " applied_at timestamptz NOT NULL DEFAULT now())",
               NULL, 0, NULL, err);
    if (st == CUZK_OK)
        st = q(s, "read the schema version",
               "SELECT coalesce(max(version), 0) FROM cuzk.schema_version", NULL, 0, &r, err);
    if (st != CUZK_OK) return st;
    const int64_t version = gi(r, 0, 0);
    PQclear(r);
    if (version > CUZK__PG_SCHEMA_VERSION)
        return cuzk__fail(err, CUZK_ERR_UNSUPPORTED,
                          "%s: postgres %s: the job queue's schema is at version %lld, newer "
                          "than this cuzk's (%d)",
                          s->op, s->where, (long long)version, CUZK__PG_SCHEMA_VERSION);
    for (int64_t v = version + 1; st == CUZK_OK && v <= CUZK__PG_SCHEMA_VERSION; v++) {
        char step[64];
        snprintf(step, sizeof(step), "migration %lld", (long long)v);
        for (size_t i = 0; st == CUZK_OK && i < MIGRATIONS[v - 1].n; i++)
            st = q(s, step, MIGRATIONS[v - 1].sql[i], NULL, 0, NULL, err);
        params pv = {0};
        p_i64(&pv, v);
        if (st == CUZK_OK)
            st = q(s, step, "INSERT INTO cuzk.schema_version (version) VALUES ($1)", &pv, 0, NULL,
                   err);
        if (st == CUZK_OK) m->applied++;
    }
    return st;
}

/* "user@host:port/db" from a parsed connection string (no password). */
static void describe(cuzk__store_pg *s, const PQconninfoOption *opts) {
    const char *user = NULL, *host = NULL, *hostaddr = NULL, *port = NULL, *db = NULL;
    for (const PQconninfoOption *o = opts; o != NULL && o->keyword != NULL; o++) {
        if (o->val == NULL || *o->val == '\0') continue;
        if (strcmp(o->keyword, "user") == 0) user = o->val;
        if (strcmp(o->keyword, "host") == 0) host = o->val;
        if (strcmp(o->keyword, "hostaddr") == 0) hostaddr = o->val;
        if (strcmp(o->keyword, "port") == 0) port = o->val;
        if (strcmp(o->keyword, "dbname") == 0) db = o->val;
        if (strcmp(o->keyword, "password") == 0 && s->password == NULL) {
            s->password = malloc(strlen(o->val) + 1);
            if (s->password != NULL) strcpy(s->password, o->val);
        }
    }
    char raw[sizeof(s->where)];
    snprintf(raw, sizeof(raw), "%s%s%s:%s/%s", user ? user : "", user ? "@" : "",
             host ? host : hostaddr ? hostaddr : "(default host)", port ? port : "(default port)",
             db ? db : "(default database)");
    scrub(s->where, sizeof(s->where), raw, s->password);
}

cuzk_status cuzk__store_pg_open(cuzk__store_pg **out, const char *conninfo,
                                const cuzk__store_pg_options *opts, int *migrated,
                                cuzk_error *err) {
    if (out == NULL) return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "postgres: out is NULL");
    *out = NULL;
    if (migrated != NULL) *migrated = 0;
    if (conninfo == NULL || *conninfo == '\0')
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "postgres: no connection string");
    uint32_t chunk = opts != NULL && opts->chunk_bytes != 0 ? opts->chunk_bytes
                                                            : CUZK__PG_CHUNK_DEFAULT;
    if (chunk < CUZK__PG_CHUNK_MIN || chunk > CUZK__PG_CHUNK_MAX)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "postgres: chunk_bytes %u is out of range "
                          "(%u..%u)", chunk, CUZK__PG_CHUNK_MIN, CUZK__PG_CHUNK_MAX);
    char *perr = NULL;
    PQconninfoOption *parsed = PQconninfoParse(conninfo, &perr);
    if (parsed == NULL) {
        char clean[CUZK_ERROR_MSG_BYTES];
        scrub(clean, sizeof(clean), perr != NULL ? perr : "out of memory", NULL);
        PQfreemem(perr);
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                          "postgres: the connection string does not parse: %s", clean);
    }
    cuzk__store_pg *s = calloc(1, sizeof(*s));
    if (s == NULL) {
        PQconninfoFree(parsed);
        return cuzk__fail(err, CUZK_ERR_NOMEM, "postgres: out of memory");
    }
    pthread_mutex_init(&s->mu, NULL);
    s->chunk_bytes = chunk;
    s->reconnect_ms =
        opts != NULL && opts->reconnect_ms != 0 ? opts->reconnect_ms : DEFAULT_RECONNECT_MS;
    describe(s, parsed);
    PQconninfoFree(parsed);
    s->op = "open";
    s->conninfo = malloc(strlen(conninfo) + 1);
    if (s->conninfo == NULL) {
        cuzk__store_pg_close(s);
        return cuzk__fail(err, CUZK_ERR_NOMEM, "postgres: out of memory");
    }
    strcpy(s->conninfo, conninfo);
    /* keywords before dbname are defaults the connection string overrides */
    const char *const kw[] = {"fallback_application_name", "connect_timeout", "dbname", NULL};
    const char *const val[] = {"cuzk", "10", s->conninfo, NULL};
    s->conn = PQconnectdbParams(kw, val, 1);
    if (s->conn == NULL) {
        cuzk__store_pg_close(s);
        return cuzk__fail(err, CUZK_ERR_NOMEM, "postgres: out of memory");
    }
    PQsetNoticeProcessor(s->conn, ignore_notice, NULL);
    cuzk_status st = CUZK_OK;
    if (PQstatus(s->conn) != CONNECTION_OK) {
        char clean[CUZK_ERROR_MSG_BYTES];
        scrub(clean, sizeof(clean), PQerrorMessage(s->conn), s->password);
        st = cuzk__fail(err, CUZK_ERR_IO, "postgres %s: cannot connect: %s", s->where, clean);
    } else if (PQserverVersion(s->conn) < 100000) {
        st = cuzk__fail(err, CUZK_ERR_UNSUPPORTED,
                        "postgres %s: the server is version %d; the job queue needs "
                        "PostgreSQL 10 or later",
                        s->where, PQserverVersion(s->conn));
    }
    migrate_ctx m = {0};
    if (st == CUZK_OK) st = transact(s, "migrate the job queue's schema", 0, migrate_body, &m, err);
    if (st != CUZK_OK) {
        cuzk__store_pg_close(s);
        return st;
    }
    if (migrated != NULL) *migrated = m.applied;
    *out = s;
    return CUZK_OK;
}

void cuzk__store_pg_close(cuzk__store_pg *s) {
    if (s == NULL) return;
    if (s->conn != NULL) PQfinish(s->conn);
    pthread_mutex_destroy(&s->mu);
    if (s->password != NULL) {
        volatile char *p = s->password;
        while (*p) *p++ = 0;
        free(s->password);
    }
    if (s->conninfo != NULL) {
        volatile char *p = s->conninfo;
        while (*p) *p++ = 0;
        free(s->conninfo);
    }
    free(s);
}

/* ---- checks -------------------------------------------------------------- */

static size_t bounded_len(const char *t, size_t max) {
    size_t n = 0;
    while (n <= max && t[n] != '\0') n++;
    return n;
}

static cuzk_status check_name(const char *what, const char *name, cuzk_error *err) {
    if (name == NULL) return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "%s: no name", what);
    const size_t n = bounded_len(name, CUZK__STORE_NAME_MAX);
    if (n == 0 || n > CUZK__STORE_NAME_MAX)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "%s: the name has %s bytes (1..%d)", what,
                          n == 0 ? "0" : "too many", CUZK__STORE_NAME_MAX);
    return CUZK_OK;
}

static cuzk_status check_lease(const char *what, uint32_t lease_ms, cuzk_error *err) {
    if (lease_ms == 0 || lease_ms > CUZK__PG_MAX_LEASE_MS)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "%s: lease of %u ms (1..%d)", what, lease_ms,
                          CUZK__PG_MAX_LEASE_MS);
    return CUZK_OK;
}

static cuzk_status check_ref(const char *what, const cuzk__store_pg_ref *ref, cuzk_error *err) {
    if (ref == NULL) return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "%s: no lease", what);
    if (ref->owner == 0 || ref->job_id == 0 || ref->generation == 0 ||
        ref->owner > INT64_MAX || ref->job_id > INT64_MAX || ref->generation > INT64_MAX ||
        ref->index >= CUZK__STORE_MAX_PARTITIONS)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                          "%s: not a lease (owner %llu, job %llu, partition %u, generation %llu)",
                          what, (unsigned long long)ref->owner, (unsigned long long)ref->job_id,
                          ref->index, (unsigned long long)ref->generation);
    return CUZK_OK;
}

/* ---- daemons ------------------------------------------------------------- */

typedef struct {
    const char *name;
    uint64_t id;
    size_t count;
    cuzk__store_pg_daemon *v;
    const char *info;
    const char *keys; /* a text[] literal */
    int64_t age_ms;
} daemon_ctx;

static cuzk_status register_body(cuzk__store_pg *s, void *ctx, cuzk_error *err) {
    daemon_ctx *c = ctx;
    params p = {0};
    p_text(&p, c->name);
    PGresult *r;
    cuzk_status st = q(s, "add the daemon",
                       "INSERT INTO cuzk.daemons (name) VALUES ($1) RETURNING id", &p, 0, &r,
                       err);
    if (st != CUZK_OK) return st;
    c->id = gu(r, 0, 0);
    PQclear(r);
    return CUZK_OK;
}

cuzk_status cuzk__store_pg_register(cuzk__store_pg *s, const char *name, uint64_t *daemon_id,
                                    cuzk_error *err) {
    if (daemon_id == NULL) return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "register: NULL id");
    *daemon_id = 0;
    cuzk_status st = check_name("register", name, err);
    if (st != CUZK_OK) return st;
    daemon_ctx c = {.name = name};
    st = transact(s, "register", 0, register_body, &c, err);
    if (st == CUZK_OK) *daemon_id = c.id;
    return st;
}

static cuzk_status leave_body(cuzk__store_pg *s, void *ctx, cuzk_error *err) {
    daemon_ctx *c = ctx;
    c->count = 0;
    params p = {0};
    p_u64(&p, c->id);
    PGresult *r;
    cuzk_status st = q(s, "release its partitions",
                       "UPDATE cuzk.partitions p SET"
                       " state = CASE WHEN j.state = 0 THEN 0 ELSE 3 END,"
                       " owner = NULL, lease_expires = NULL, generation = p.generation + 1"
                       " FROM cuzk.jobs j"
                       " WHERE p.owner = $1 AND p.state = 1 AND j.id = p.job_id",
                       &p, 0, &r, err);
    if (st != CUZK_OK) return st;
    c->count = (size_t)strtoull(PQcmdTuples(r), NULL, 10);
    PQclear(r);
    st = q(s, "remove the daemon", "DELETE FROM cuzk.daemons WHERE id = $1", &p, 0, &r, err);
    if (st != CUZK_OK) return st;
    const int gone = strcmp(PQcmdTuples(r), "0") == 0;
    PQclear(r);
    if (gone)
        return cuzk__fail(err, CUZK_ERR_NOT_FOUND, "leave: no daemon %llu is registered",
                          (unsigned long long)c->id);
    return CUZK_OK;
}

cuzk_status cuzk__store_pg_leave(cuzk__store_pg *s, uint64_t daemon_id, size_t *released,
                                 cuzk_error *err) {
    if (released != NULL) *released = 0;
    if (daemon_id == 0 || daemon_id > INT64_MAX)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "leave: daemon id %llu",
                          (unsigned long long)daemon_id);
    daemon_ctx c = {.id = daemon_id};
    cuzk_status st = transact(s, "leave", 0, leave_body, &c, err);
    if (st == CUZK_OK && released != NULL) *released = c.count;
    return st;
}

static cuzk_status daemons_body(cuzk__store_pg *s, void *ctx, cuzk_error *err) {
    daemon_ctx *c = ctx;
    free(c->v);
    c->v = NULL;
    c->count = 0;
    PGresult *r;
    cuzk_status st = q(s, "list the daemons",
                       "SELECT d.id, d.name, " MS("d.started_at") ", " MS("d.heartbeat_at") ","
                       " (extract(epoch FROM now() - d.heartbeat_at) * 1000)::bigint,"
                       " (SELECT count(*) FROM cuzk.partitions p WHERE p.owner = d.id"
                       "  AND p.state = 1), d.info"
                       " FROM cuzk.daemons d ORDER BY d.id",
                       NULL, 0, &r, err);
    if (st != CUZK_OK) return st;
    const int n = PQntuples(r);
    if (n > 0 && (c->v = calloc((size_t)n, sizeof(*c->v))) == NULL) {
        PQclear(r);
        return cuzk__fail(err, CUZK_ERR_NOMEM, "daemons: out of memory");
    }
    for (int i = 0; i < n; i++) {
        cuzk__store_pg_daemon *d = &c->v[i];
        d->id = gu(r, i, 0);
        gs(d->name, sizeof(d->name), r, i, 1);
        d->started_ms = gi(r, i, 2);
        d->heartbeat_ms = gi(r, i, 3);
        d->heartbeat_age_ms = gi(r, i, 4);
        d->held = (size_t)gu(r, i, 5);
        gs(d->info, sizeof(d->info), r, i, 6);
    }
    c->count = (size_t)n;
    PQclear(r);
    return CUZK_OK;
}

cuzk_status cuzk__store_pg_daemons(cuzk__store_pg *s, cuzk__store_pg_daemon **v, size_t *n,
                                   cuzk_error *err) {
    if (v == NULL || n == NULL) return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "daemons: NULL");
    *v = NULL;
    *n = 0;
    daemon_ctx c = {0};
    cuzk_status st = transact(s, "daemons", TX_READ, daemons_body, &c, err);
    if (st != CUZK_OK) {
        free(c.v);
        return st;
    }
    *v = c.v;
    *n = c.count;
    return CUZK_OK;
}

static cuzk_status describe_body(cuzk__store_pg *s, void *ctx, cuzk_error *err) {
    daemon_ctx *c = ctx;
    params p = {0};
    p_u64(&p, c->id);
    p_text(&p, c->info);
    PGresult *r;
    cuzk_status st = q(s, "describe the daemon", "UPDATE cuzk.daemons SET info = $2 WHERE id = $1",
                       &p, 0, &r, err);
    if (st != CUZK_OK) return st;
    const int none = strcmp(PQcmdTuples(r), "0") == 0;
    PQclear(r);
    if (none)
        return cuzk__fail(err, CUZK_ERR_NOT_FOUND, "describe: no daemon %llu is registered",
                          (unsigned long long)c->id);
    return CUZK_OK;
}

cuzk_status cuzk__store_pg_describe(cuzk__store_pg *s, uint64_t daemon_id, const char *info,
                                    cuzk_error *err) {
    if (info == NULL) return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "describe: NULL info");
    if (strlen(info) >= CUZK__PG_INFO_BYTES)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "describe: info of %zu bytes (at most %d)",
                          strlen(info), CUZK__PG_INFO_BYTES - 1);
    daemon_ctx c = {.id = daemon_id, .info = info};
    return transact(s, "describe", TX_IDEMPOTENT, describe_body, &c, err);
}

static cuzk_status serve_body(cuzk__store_pg *s, void *ctx, cuzk_error *err) {
    daemon_ctx *c = ctx;
    params p = {0};
    p_u64(&p, c->id);
    p_text(&p, c->keys);
    PGresult *r;
    cuzk_status st = q(s, "record the daemon's keys",
                       "UPDATE cuzk.daemons SET keys = $2::text[] WHERE id = $1", &p, 0, &r, err);
    if (st != CUZK_OK) return st;
    const int none = strcmp(PQcmdTuples(r), "0") == 0;
    PQclear(r);
    if (none)
        return cuzk__fail(err, CUZK_ERR_NOT_FOUND, "serve: no daemon %llu is registered",
                          (unsigned long long)c->id);
    return CUZK_OK;
}

/* keys[0..n) as a text[] literal in b (names checked, what names the
 * call in messages); CUZK_ERR_NOMEM when b could not grow. */
static cuzk_status key_array(sbuf *b, const char *what, const char *const *keys, size_t n,
                             cuzk_error *err) {
    sb_str(b, "{");
    for (size_t i = 0; i < n; i++) {
        cuzk_status st = check_name(what, keys[i], err);
        if (st != CUZK_OK) return st;
        if (i > 0) sb_str(b, ",");
        sb_elem(b, keys[i]);
    }
    sb_str(b, "}");
    if (b->oom) return cuzk__fail(err, CUZK_ERR_NOMEM, "%s: out of memory", what);
    return CUZK_OK;
}

cuzk_status cuzk__store_pg_serve(cuzk__store_pg *s, uint64_t daemon_id, const char *const *keys,
                                 size_t nkeys, cuzk_error *err) {
    if (nkeys > CUZK__PG_MAX_KEYS || (nkeys > 0 && keys == NULL))
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "serve: %zu keys (0..%d)", nkeys,
                          CUZK__PG_MAX_KEYS);
    sbuf k = {0};
    cuzk_status st = key_array(&k, "serve: key", keys, nkeys, err);
    if (st == CUZK_OK) {
        daemon_ctx c = {.id = daemon_id, .keys = k.p};
        st = transact(s, "serve", TX_IDEMPOTENT, serve_body, &c, err);
    }
    free(k.p);
    return st;
}

static cuzk_status forget_body(cuzk__store_pg *s, void *ctx, cuzk_error *err) {
    daemon_ctx *c = ctx;
    c->count = 0;
    params p = {0};
    p_i64(&p, c->age_ms);
    PGresult *r;
    cuzk_status st = q(s, "remove silent daemons",
                       "DELETE FROM cuzk.daemons d"
                       " WHERE d.heartbeat_at < now() - $1 * interval '1 millisecond'"
                       " AND NOT EXISTS (SELECT 1 FROM cuzk.partitions p"
                       " WHERE p.owner = d.id AND p.state = 1)",
                       &p, 0, &r, err);
    if (st != CUZK_OK) return st;
    c->count = (size_t)strtoull(PQcmdTuples(r), NULL, 10);
    PQclear(r);
    return CUZK_OK;
}

cuzk_status cuzk__store_pg_forget(cuzk__store_pg *s, int64_t age_ms, size_t *removed,
                                  cuzk_error *err) {
    if (removed != NULL) *removed = 0;
    if (age_ms < 0) return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "forget: age %lld ms",
                                      (long long)age_ms);
    daemon_ctx c = {.age_ms = age_ms};
    cuzk_status st = transact(s, "forget", TX_IDEMPOTENT, forget_body, &c, err);
    if (st == CUZK_OK && removed != NULL) *removed = c.count;
    return st;
}

/* ---- witness payloads ---------------------------------------------------- */

typedef struct {
    uint64_t id, offset, bytes, chunk;
    const void *data;
    size_t n, cap, got;
    uint32_t seq;
    void *buf;
    size_t removed;
    int64_t age_ms;
} witness_ctx;

static cuzk_status witness_new_body(cuzk__store_pg *s, void *ctx, cuzk_error *err) {
    witness_ctx *c = ctx;
    params p = {0};
    p_u64(&p, s->chunk_bytes);
    PGresult *r;
    cuzk_status st = q(s, "add the witness",
                       "INSERT INTO cuzk.witnesses (chunk_bytes) VALUES ($1) RETURNING id", &p, 0,
                       &r, err);
    if (st != CUZK_OK) return st;
    c->id = gu(r, 0, 0);
    PQclear(r);
    return CUZK_OK;
}

cuzk_status cuzk__store_pg_witness_begin(cuzk__store_pg *s, cuzk__store_pg_writer **w,
                                         cuzk_error *err) {
    if (w == NULL) return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "witness: w is NULL");
    *w = NULL;
    cuzk__store_pg_writer *x = calloc(1, sizeof(*x));
    if (x == NULL || (x->buf = malloc(s->chunk_bytes)) == NULL) {
        free(x);
        return cuzk__fail(err, CUZK_ERR_NOMEM, "witness: out of memory");
    }
    x->s = s;
    witness_ctx c = {0};
    cuzk_status st = transact(s, "witness upload", 0, witness_new_body, &c, err);
    if (st != CUZK_OK) {
        free(x->buf);
        free(x);
        return st;
    }
    x->id = c.id;
    *w = x;
    return CUZK_OK;
}

/* One chunk, written again as it is when repeated (idempotent). */
static cuzk_status chunk_body(cuzk__store_pg *s, void *ctx, cuzk_error *err) {
    witness_ctx *c = ctx;
    params p = {0};
    p_u64(&p, c->id);
    p_u64(&p, c->seq);
    p_bytes(&p, c->data, c->n);
    PGresult *r;
    cuzk_status st = q(s, "write a chunk",
                       "WITH w AS (UPDATE cuzk.witnesses SET touched_at = now()"
                       "  WHERE id = $1 AND NOT complete RETURNING id)"
                       " INSERT INTO cuzk.witness_chunks (witness_id, seq, data)"
                       " SELECT id, $2, $3 FROM w"
                       " ON CONFLICT (witness_id, seq) DO UPDATE SET data = EXCLUDED.data",
                       &p, 0, &r, err);
    if (st != CUZK_OK) return st;
    const int none = strcmp(PQcmdTuples(r), "0") == 0;
    PQclear(r);
    if (none)
        return cuzk__fail(err, CUZK_ERR_NOT_FOUND,
                          "witness upload: witness %llu is gone (swept as abandoned?)",
                          (unsigned long long)c->id);
    return CUZK_OK;
}

static cuzk_status writer_flush(cuzk__store_pg_writer *w, cuzk_error *err) {
    if (w->fill == 0) return CUZK_OK;
    witness_ctx c = {.id = w->id, .seq = w->seq, .data = w->buf, .n = w->fill};
    cuzk_status st = transact(w->s, "witness upload", TX_IDEMPOTENT, chunk_body, &c, err);
    if (st != CUZK_OK) return st;
    w->seq++;
    w->fill = 0;
    return CUZK_OK;
}

cuzk_status cuzk__store_pg_witness_append(cuzk__store_pg_writer *w, const void *p, size_t n,
                                          cuzk_error *err) {
    if (n == 0) return CUZK_OK;
    if (w == NULL || p == NULL)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "witness upload: NULL argument");
    const uint8_t *b = p;
    const size_t chunk = w->s->chunk_bytes;
    while (n > 0) {
        if ((uint64_t)w->seq * chunk + w->fill >= (uint64_t)INT32_MAX * chunk)
            return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "witness upload: too large");
        size_t take = chunk - w->fill;
        if (take > n) take = n;
        memcpy(w->buf + w->fill, b, take);
        w->fill += take;
        w->total += take;
        b += take;
        n -= take;
        if (w->fill == chunk) {
            cuzk_status st = writer_flush(w, err);
            if (st != CUZK_OK) return st;
        }
    }
    return CUZK_OK;
}

static cuzk_status seal_body(cuzk__store_pg *s, void *ctx, cuzk_error *err) {
    witness_ctx *c = ctx;
    params p = {0};
    p_u64(&p, c->id);
    p_u64(&p, c->bytes);
    PGresult *r;
    /* a repeat after a lost commit finds it complete with the same size */
    cuzk_status st = q(s, "complete the witness",
                       "UPDATE cuzk.witnesses SET complete = true, bytes = $2, touched_at = now()"
                       " WHERE id = $1 AND job_id IS NULL AND (NOT complete OR bytes = $2)",
                       &p, 0, &r, err);
    if (st != CUZK_OK) return st;
    const int none = strcmp(PQcmdTuples(r), "0") == 0;
    PQclear(r);
    if (none)
        return cuzk__fail(err, CUZK_ERR_NOT_FOUND,
                          "witness upload: witness %llu is gone (swept as abandoned?)",
                          (unsigned long long)c->id);
    return CUZK_OK;
}

static cuzk_status remove_body(cuzk__store_pg *s, void *ctx, cuzk_error *err) {
    witness_ctx *c = ctx;
    params p = {0};
    p_u64(&p, c->id);
    PGresult *r;
    cuzk_status st = q(s, "look up the witness",
                       "SELECT job_id FROM cuzk.witnesses WHERE id = $1 FOR UPDATE", &p, 0, &r,
                       err);
    if (st != CUZK_OK) return st;
    const int rows = PQntuples(r);
    const uint64_t job = rows > 0 ? gu(r, 0, 0) : 0;
    PQclear(r);
    if (rows == 0) return CUZK_OK; /* already gone */
    if (job != 0)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "witness %llu belongs to job %llu",
                          (unsigned long long)c->id, (unsigned long long)job);
    return q(s, "remove the witness", "DELETE FROM cuzk.witnesses WHERE id = $1", &p, 0, NULL,
             err);
}

cuzk_status cuzk__store_pg_witness_commit(cuzk__store_pg_writer *w, uint64_t *witness_id,
                                          cuzk_error *err) {
    if (witness_id != NULL) *witness_id = 0;
    if (w == NULL) return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "witness upload: w is NULL");
    if (witness_id == NULL) {
        cuzk__store_pg_witness_abort(w);
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "witness upload: NULL id");
    }
    cuzk_status st = writer_flush(w, err);
    witness_ctx c = {.id = w->id, .bytes = w->total};
    if (st == CUZK_OK) st = transact(w->s, "witness upload", TX_IDEMPOTENT, seal_body, &c, err);
    if (st == CUZK_OK) {
        *witness_id = w->id;
        free(w->buf);
        free(w);
        return CUZK_OK;
    }
    cuzk__store_pg_witness_abort(w);
    return st;
}

void cuzk__store_pg_witness_abort(cuzk__store_pg_writer *w) {
    if (w == NULL) return;
    witness_ctx c = {.id = w->id};
    cuzk_error e;
    (void)transact(w->s, "witness abort", TX_IDEMPOTENT, remove_body, &c, &e); /* else the sweep */
    free(w->buf);
    free(w);
}

cuzk_status cuzk__store_pg_witness_remove(cuzk__store_pg *s, uint64_t witness_id,
                                          cuzk_error *err) {
    if (witness_id == 0 || witness_id > INT64_MAX)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "witness remove: id %llu",
                          (unsigned long long)witness_id);
    witness_ctx c = {.id = witness_id};
    return transact(s, "witness remove", TX_IDEMPOTENT, remove_body, &c, err);
}

/* The payload's size and chunk size, checked complete (under a read). */
static cuzk_status witness_meta(cuzk__store_pg *s, witness_ctx *c, cuzk_error *err) {
    params p = {0};
    p_u64(&p, c->id);
    PGresult *r;
    cuzk_status st = q(s, "look up the witness",
                       "SELECT bytes, chunk_bytes, complete FROM cuzk.witnesses WHERE id = $1", &p,
                       0, &r, err);
    if (st != CUZK_OK) return st;
    if (PQntuples(r) == 0) {
        PQclear(r);
        return cuzk__fail(err, CUZK_ERR_NOT_FOUND,
                          "witness %llu: no such payload (unknown, or its job ended)",
                          (unsigned long long)c->id);
    }
    c->bytes = gu(r, 0, 0);
    c->chunk = gu(r, 0, 1);
    const int complete = strcmp(PQgetvalue(r, 0, 2), "t") == 0;
    PQclear(r);
    if (!complete)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "witness %llu is still being written",
                          (unsigned long long)c->id);
    if (c->chunk == 0)
        return cuzk__fail(err, CUZK_ERR_IO, "witness %llu: chunk size 0 in the database",
                          (unsigned long long)c->id);
    return CUZK_OK;
}

static cuzk_status size_body(cuzk__store_pg *s, void *ctx, cuzk_error *err) {
    return witness_meta(s, ctx, err);
}

cuzk_status cuzk__store_pg_witness_size(cuzk__store_pg *s, uint64_t witness_id, uint64_t *bytes,
                                        cuzk_error *err) {
    if (bytes == NULL) return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "witness size: NULL");
    *bytes = 0;
    if (witness_id == 0 || witness_id > INT64_MAX)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "witness size: id %llu",
                          (unsigned long long)witness_id);
    witness_ctx c = {.id = witness_id};
    cuzk_status st = transact(s, "witness size", TX_READ, size_body, &c, err);
    if (st == CUZK_OK) *bytes = c.bytes;
    return st;
}

static cuzk_status read_body(cuzk__store_pg *s, void *ctx, cuzk_error *err) {
    witness_ctx *c = ctx;
    c->got = 0;
    cuzk_status st = witness_meta(s, c, err);
    if (st != CUZK_OK) return st;
    uint64_t off = c->offset;
    while (c->got < c->cap && off < c->bytes) {
        const uint64_t seq = off / c->chunk, within = off % c->chunk;
        uint64_t take = c->chunk - within;
        if (take > c->cap - c->got) take = c->cap - c->got;
        if (take > c->bytes - off) take = c->bytes - off;
        params p = {0};
        p_u64(&p, c->id);
        p_u64(&p, seq);
        p_u64(&p, within + 1);
        p_u64(&p, take);
        PGresult *r;
        st = q(s, "read a chunk",
               "SELECT substring(data FROM $3::integer FOR $4::integer) FROM cuzk.witness_chunks"
               " WHERE witness_id = $1 AND seq = $2",
               &p, 1, &r, err);
        if (st != CUZK_OK) return st;
        if (PQntuples(r) != 1 || (uint64_t)PQgetlength(r, 0, 0) != take) {
            PQclear(r);
            return cuzk__fail(err, CUZK_ERR_IO,
                              "witness %llu: chunk %llu is missing or short in the database",
                              (unsigned long long)c->id, (unsigned long long)seq);
        }
        memcpy((uint8_t *)c->buf + c->got, PQgetvalue(r, 0, 0), (size_t)take);
        PQclear(r);
        c->got += (size_t)take;
        off += take;
    }
    return CUZK_OK;
}

cuzk_status cuzk__store_pg_witness_read(cuzk__store_pg *s, uint64_t witness_id, uint64_t offset,
                                        void *buf, size_t cap, size_t *got, cuzk_error *err) {
    if (got == NULL || (buf == NULL && cap > 0))
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "witness read: NULL argument");
    *got = 0;
    if (witness_id == 0 || witness_id > INT64_MAX)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "witness read: id %llu",
                          (unsigned long long)witness_id);
    witness_ctx c = {.id = witness_id, .offset = offset, .buf = buf, .cap = cap};
    cuzk_status st = transact(s, "witness read", TX_READ, read_body, &c, err);
    if (st == CUZK_OK) *got = c.got;
    return st;
}

static cuzk_status sweep_body(cuzk__store_pg *s, void *ctx, cuzk_error *err) {
    witness_ctx *c = ctx;
    c->removed = 0;
    params p = {0};
    p_i64(&p, c->age_ms);
    PGresult *r;
    cuzk_status st = q(s, "remove abandoned witnesses",
                       "DELETE FROM cuzk.witnesses WHERE job_id IS NULL"
                       " AND touched_at < now() - $1 * interval '1 millisecond'",
                       &p, 0, &r, err);
    if (st != CUZK_OK) return st;
    c->removed = (size_t)strtoull(PQcmdTuples(r), NULL, 10);
    PQclear(r);
    return CUZK_OK;
}

cuzk_status cuzk__store_pg_sweep_witnesses(cuzk__store_pg *s, int64_t age_ms, size_t *removed,
                                           cuzk_error *err) {
    if (removed != NULL) *removed = 0;
    if (age_ms < 0) return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "sweep: negative age");
    witness_ctx c = {.age_ms = age_ms};
    cuzk_status st = transact(s, "sweep witnesses", TX_IDEMPOTENT, sweep_body, &c, err);
    if (st == CUZK_OK && removed != NULL) *removed = c.removed;
    return st;
}

typedef struct {
    const char *ids; /* a bigint[] literal */
} touch_ctx;

static cuzk_status touch_body(cuzk__store_pg *s, void *ctx, cuzk_error *err) {
    params p = {0};
    p_text(&p, ((touch_ctx *)ctx)->ids);
    return q(s, "touch uploads",
             "UPDATE cuzk.witnesses SET touched_at = now()"
             " WHERE job_id IS NULL AND id = ANY($1::bigint[])",
             &p, 0, NULL, err);
}

cuzk_status cuzk__store_pg_witness_touch(cuzk__store_pg *s, const uint64_t *ids, size_t n,
                                         cuzk_error *err) {
    if (n == 0) return CUZK_OK;
    if (ids == NULL) return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "touch uploads: NULL ids");
    sbuf b = {0};
    sb_str(&b, "{");
    for (size_t i = 0; i < n; i++) {
        char num[24];
        snprintf(num, sizeof(num), "%s%llu", i ? "," : "", (unsigned long long)ids[i]);
        sb_str(&b, num);
    }
    sb_str(&b, "}");
    cuzk_status st = b.oom ? cuzk__fail(err, CUZK_ERR_NOMEM, "touch uploads: out of memory")
                           : transact(s, "touch uploads", TX_IDEMPOTENT, touch_body,
                                      &(touch_ctx){b.p}, err);
    free(b.p);
    return st;
}

/* ---- submit -------------------------------------------------------------- */

typedef struct {
    const cuzk__store_pg_job *job;
    const char *ids;   /* witness ids, an int8[] literal with NULLs */
    const char *paths; /* a text[] literal with NULLs */
    const char *wanted; /* the distinct witness ids, an int8[] literal */
    size_t n_wanted;
    uint64_t id;
    int existed;
} submit_ctx;

static cuzk_status notify(cuzk__store_pg *s, const char *channel, const char *payload,
                          cuzk_error *err) {
    params p = {0};
    p_text(&p, channel);
    p_text(&p, payload);
    return q(s, "notify", "SELECT pg_notify($1, $2)", &p, 0, NULL, err);
}

/*
 * job->max_backlog, made atomic: every bounded submission takes one
 * transaction-level advisory lock before it counts, so the count and the
 * insert that follows are one step among them (READ COMMITTED: the count,
 * a statement after the lock, sees what the lock's last holder committed).
 * A request id that names a job already is answered with that job, as an
 * unbounded submission would be.
 */
static cuzk_status check_room(cuzk__store_pg *s, const cuzk__store_pg_job *job, cuzk_error *err) {
    params pl = {0};
    p_i64(&pl, CUZK__PG_SUBMIT_LOCK);
    cuzk_status st = q(s, "take the submission lock", "SELECT pg_advisory_xact_lock($1::bigint)",
                       &pl, 0, NULL, err);
    if (st != CUZK_OK) return st;
    params p = {0};
    p_text(&p, job->request_id);
    PGresult *r;
    st = q(s, "count the partitions to prove",
           "SELECT (SELECT count(*) FROM cuzk.jobs j JOIN cuzk.partitions p ON p.job_id = j.id"
           " WHERE j.state = 0 AND p.state IN (0, 1)),"
           " EXISTS (SELECT 1 FROM cuzk.jobs WHERE request_id = $1)",
           &p, 0, &r, err);
    if (st != CUZK_OK) return st;
    const size_t backlog = (size_t)gu(r, 0, 0);
    const int known = strcmp(PQgetvalue(r, 0, 1), "t") == 0;
    PQclear(r);
    if (known || backlog + job->n_partitions <= job->max_backlog) return CUZK_OK;
    return cuzk__fail(err, CUZK_ERR_BUSY,
                      "submit: postgres %s: the queue holds %zu partitions not yet proved: %zu "
                      "more would pass its bound of %zu",
                      s->where, backlog, job->n_partitions, job->max_backlog);
}

static cuzk_status submit_body(cuzk__store_pg *s, void *ctx, cuzk_error *err) {
    submit_ctx *c = ctx;
    const cuzk__store_pg_job *job = c->job;
    c->id = 0;
    c->existed = 0;
    cuzk_status st = job->max_backlog != 0 ? check_room(s, job, err) : CUZK_OK;
    if (st != CUZK_OK) return st;
    PGresult *r = NULL;
    params p = {0};
    p_text(&p, job->request_id);
    p_text(&p, job->key_name);
    p_i64(&p, (int64_t)job->priority);
    p_u64(&p, job->n_partitions);
    /* a concurrent submission with the same request id waits here for the
     * other's commit, then finds its row */
    st = q(s, "record the job",
           "INSERT INTO cuzk.jobs (request_id, key_name, priority, n_partitions)"
           " VALUES ($1, $2, $3, $4) ON CONFLICT (request_id) DO NOTHING RETURNING id",
           &p, 0, &r, err);
    if (st != CUZK_OK) return st;
    if (PQntuples(r) == 1) {
        c->id = gu(r, 0, 0);
        PQclear(r);
    } else {
        PQclear(r);
        params pr = {0};
        p_text(&pr, job->request_id);
        st = q(s, "look up the request id",
               "SELECT id, key_name, n_partitions FROM cuzk.jobs WHERE request_id = $1", &pr, 0,
               &r, err);
        if (st != CUZK_OK) return st;
        if (PQntuples(r) != 1) {
            PQclear(r);
            /* collected between the two statements: run the call again */
            snprintf(s->sqlstate, sizeof(s->sqlstate), "40001");
            return cuzk__fail(err, CUZK_ERR_IO, "submit: request id \"%s\" changed meanwhile",
                              job->request_id);
        }
        const uint64_t old = gu(r, 0, 0);
        const int64_t n = gi(r, 0, 2);
        char key[CUZK__STORE_NAME_MAX + 1];
        gs(key, sizeof(key), r, 0, 1);
        PQclear(r);
        if (strcmp(key, job->key_name) != 0 || n != (int64_t)job->n_partitions)
            return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                              "request id \"%s\" is job %llu (key \"%s\", %lld partitions); "
                              "this submission has key \"%s\" and %zu partitions",
                              job->request_id, (unsigned long long)old, key, (long long)n,
                              job->key_name, job->n_partitions);
        c->id = old;
        c->existed = 1;
        return CUZK_OK;
    }
    if (c->n_wanted > 0) {
        params pw = {0};
        p_u64(&pw, c->id);
        p_text(&pw, c->wanted);
        st = q(s, "take the witnesses",
               "UPDATE cuzk.witnesses SET job_id = $1"
               " WHERE id = ANY($2::bigint[]) AND complete AND job_id IS NULL",
               &pw, 0, &r, err);
        if (st != CUZK_OK) return st;
        const size_t took = (size_t)strtoull(PQcmdTuples(r), NULL, 10);
        PQclear(r);
        if (took != c->n_wanted) {
            /* name one that was not available, and why */
            params pb = {0};
            p_text(&pb, c->wanted);
            p_u64(&pb, c->id);
            st = q(s, "look up the witnesses",
                   "SELECT u.id, w.id IS NULL, coalesce(w.complete, false), w.job_id"
                   " FROM unnest($1::bigint[]) AS u(id) LEFT JOIN cuzk.witnesses w ON w.id = u.id"
                   " WHERE w.id IS NULL OR NOT w.complete OR w.job_id IS DISTINCT FROM $2"
                   " ORDER BY u.id LIMIT 1",
                   &pb, 0, &r, err);
            if (st != CUZK_OK) return st;
            if (PQntuples(r) == 0) {
                PQclear(r);
                return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "job: a witness is not available");
            }
            const uint64_t wid = gu(r, 0, 0);
            const int missing = strcmp(PQgetvalue(r, 0, 1), "t") == 0;
            const int complete = strcmp(PQgetvalue(r, 0, 2), "t") == 0;
            const uint64_t other = gu(r, 0, 3);
            PQclear(r);
            if (missing)
                return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "job: witness %llu does not exist",
                                  (unsigned long long)wid);
            if (!complete)
                return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                                  "job: witness %llu is still being written (commit it first)",
                                  (unsigned long long)wid);
            return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                              "job: witness %llu already belongs to job %llu",
                              (unsigned long long)wid, (unsigned long long)other);
        }
    }
    params pp = {0};
    p_u64(&pp, c->id);
    p_text(&pp, c->ids);
    p_text(&pp, c->paths);
    st = q(s, "record the partitions",
           "INSERT INTO cuzk.partitions (job_id, idx, witness_id, witness_path)"
           " SELECT $1, t.o - 1, t.w, t.p"
           " FROM unnest($2::bigint[], $3::text[]) WITH ORDINALITY AS t(w, p, o)",
           &pp, 0, NULL, err);
    if (st != CUZK_OK) return st;
    char payload[CUZK__STORE_NAME_MAX + 32];
    snprintf(payload, sizeof(payload), "%llu %s", (unsigned long long)c->id, job->key_name);
    return notify(s, CHANNEL_NEW, payload, err);
}

static int cmp_u64(const void *a, const void *b) {
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

cuzk_status cuzk__store_pg_submit(cuzk__store_pg *s, const cuzk__store_pg_job *job, uint64_t *id,
                                  int *existed, cuzk_error *err) {
    if (id == NULL || existed == NULL || job == NULL)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "submit: NULL argument");
    *id = 0;
    *existed = 0;
    cuzk_status st = check_name("job: key", job->key_name, err);
    if (st != CUZK_OK) return st;
    if (job->request_id != NULL &&
        (st = check_name("job: request id", job->request_id, err)) != CUZK_OK)
        return st;
    if ((unsigned)job->priority > CUZK_PRIORITY_CRITICAL)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "job: priority %d is out of range (0..3)",
                          (int)job->priority);
    if (job->n_partitions == 0 || job->n_partitions > CUZK__STORE_MAX_PARTITIONS)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "job: %zu partitions (1..%d)",
                          job->n_partitions, CUZK__STORE_MAX_PARTITIONS);
    if (job->witnesses == NULL) return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "job: no witnesses");
    uint64_t *wanted = malloc(job->n_partitions * sizeof(*wanted));
    if (wanted == NULL) return cuzk__fail(err, CUZK_ERR_NOMEM, "submit: out of memory");
    size_t nw = 0;
    for (size_t i = 0; i < job->n_partitions; i++) {
        const cuzk__store_pg_witness *w = &job->witnesses[i];
        if ((w->witness_id == 0) == (w->path == NULL)) {
            free(wanted);
            return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                              "job: partition %zu: the witness needs a payload or a path, not %s",
                              i, w->path == NULL ? "neither" : "both");
        }
        if (w->witness_id > INT64_MAX) {
            free(wanted);
            return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "job: partition %zu: witness id %llu",
                              i, (unsigned long long)w->witness_id);
        }
        if (w->path != NULL && (w->path[0] != '/' || bounded_len(w->path, PATH_MAX) >= PATH_MAX)) {
            free(wanted);
            return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                              "job: partition %zu: the witness path \"%.200s\" is not an "
                              "absolute path (or is too long)", i, w->path);
        }
        if (w->witness_id != 0) wanted[nw++] = w->witness_id;
    }
    qsort(wanted, nw, sizeof(*wanted), cmp_u64);
    for (size_t i = 1; i < nw; i++)
        if (wanted[i] == wanted[i - 1]) {
            const uint64_t dup = wanted[i];
            free(wanted);
            return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                              "job: witness %llu is named by two partitions",
                              (unsigned long long)dup);
        }
    sbuf ids = {0}, paths = {0}, want = {0};
    char num[24];
    sb_str(&ids, "{");
    sb_str(&paths, "{");
    sb_str(&want, "{");
    for (size_t i = 0; i < job->n_partitions; i++) {
        const cuzk__store_pg_witness *w = &job->witnesses[i];
        if (i > 0) {
            sb_str(&ids, ",");
            sb_str(&paths, ",");
        }
        if (w->witness_id != 0) {
            snprintf(num, sizeof(num), "%llu", (unsigned long long)w->witness_id);
            sb_str(&ids, num);
        } else {
            sb_str(&ids, "NULL");
        }
        sb_elem(&paths, w->path);
    }
    for (size_t i = 0; i < nw; i++) {
        snprintf(num, sizeof(num), "%s%llu", i ? "," : "", (unsigned long long)wanted[i]);
        sb_str(&want, num);
    }
    sb_str(&ids, "}");
    sb_str(&paths, "}");
    sb_str(&want, "}");
    free(wanted);
    if (ids.oom || paths.oom || want.oom) {
        st = cuzk__fail(err, CUZK_ERR_NOMEM, "submit: out of memory");
    } else {
        submit_ctx c = {.job = job, .ids = ids.p, .paths = paths.p, .wanted = want.p,
                        .n_wanted = nw};
        st = transact(s, "submit", 0, submit_body, &c, err);
        if (st == CUZK_OK) {
            *id = c.id;
            *existed = c.existed;
        }
    }
    free(ids.p);
    free(paths.p);
    free(want.p);
    return st;
}

/* ---- claim and renew ----------------------------------------------------- */

typedef struct {
    uint64_t owner;
    const char *keys; /* a text[] literal */
    size_t max;
    uint32_t lease_ms;
    cuzk__store_pg_part *claims;
    size_t n;
} claim_ctx;

/* The daemon's heartbeat; NOT_FOUND for one not registered. */
static cuzk_status heartbeat(cuzk__store_pg *s, uint64_t owner, cuzk_error *err) {
    params p = {0};
    p_u64(&p, owner);
    PGresult *r;
    cuzk_status st = q(s, "heartbeat", "UPDATE cuzk.daemons SET heartbeat_at = now() WHERE id = $1",
                       &p, 0, &r, err);
    if (st != CUZK_OK) return st;
    const int none = strcmp(PQcmdTuples(r), "0") == 0;
    PQclear(r);
    if (none)
        return cuzk__fail(err, CUZK_ERR_NOT_FOUND, "%s: no daemon %llu is registered", s->op,
                          (unsigned long long)owner);
    return CUZK_OK;
}

static cuzk_status claim_body(cuzk__store_pg *s, void *ctx, cuzk_error *err) {
    claim_ctx *c = ctx;
    c->n = 0;
    cuzk_status st = heartbeat(s, c->owner, err);
    if (st != CUZK_OK) return st;
    params p = {0};
    p_u64(&p, c->owner);
    p_text(&p, c->keys);
    p_u64(&p, c->max);
    p_u64(&p, c->lease_ms);
    PGresult *r;
    /* FOR UPDATE re-checks state = 0 on the row's newest version once it
     * is locked, so a row another claim took meanwhile drops out */
    st = q(s, "take queued partitions",
           "WITH c AS ("
           " SELECT p.job_id, p.idx FROM cuzk.partitions p JOIN cuzk.jobs j ON j.id = p.job_id"
           " WHERE p.state = 0 AND j.state = 0 AND j.key_name = ANY($2::text[])"
           " ORDER BY j.priority DESC, j.created_at, j.id, p.idx"
           " LIMIT $3 FOR UPDATE OF p SKIP LOCKED),"
           " u AS (UPDATE cuzk.partitions p SET state = 1, owner = $1,"
           " generation = p.generation + 1,"
           " lease_expires = now() + $4 * interval '1 millisecond'"
           " FROM c, cuzk.jobs j WHERE p.job_id = c.job_id AND p.idx = c.idx AND j.id = p.job_id"
           " RETURNING p.job_id, p.idx, p.generation, j.priority, j.key_name, j.n_partitions,"
           " coalesce(p.witness_id, 0) AS wid,"
           " coalesce((SELECT w.bytes FROM cuzk.witnesses w WHERE w.id = p.witness_id), 0)"
           " AS wbytes, p.witness_path, j.created_at, p.lease_expires)"
           " SELECT job_id, idx, generation, priority, key_name, n_partitions, wid, wbytes,"
           " witness_path, " MS("created_at") ", " MS("lease_expires") " FROM u"
           " ORDER BY priority DESC, created_at, job_id, idx",
           &p, 0, &r, err);
    if (st != CUZK_OK) return st;
    const int n = PQntuples(r);
    for (int i = 0; i < n && (size_t)i < c->max; i++) {
        cuzk__store_pg_part *k = &c->claims[i];
        memset(k, 0, sizeof(*k));
        k->ref.owner = c->owner;
        k->ref.job_id = gu(r, i, 0);
        k->ref.index = (uint32_t)gu(r, i, 1);
        k->ref.generation = gu(r, i, 2);
        k->priority = (cuzk_priority)gi(r, i, 3);
        gs(k->key_name, sizeof(k->key_name), r, i, 4);
        k->n_partitions = (size_t)gu(r, i, 5);
        k->witness_id = gu(r, i, 6);
        k->witness_bytes = gu(r, i, 7);
        gs(k->witness_path, sizeof(k->witness_path), r, i, 8);
        k->created_ms = gi(r, i, 9);
        k->lease_expires_ms = gi(r, i, 10);
        c->n++;
    }
    PQclear(r);
    return CUZK_OK;
}

cuzk_status cuzk__store_pg_claim(cuzk__store_pg *s, uint64_t owner, const char *const *keys,
                                 size_t nkeys, size_t max, uint32_t lease_ms,
                                 cuzk__store_pg_part *claims, size_t *n, cuzk_error *err) {
    if (n == NULL || claims == NULL || keys == NULL)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "claim: NULL argument");
    *n = 0;
    if (owner == 0 || owner > INT64_MAX)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "claim: owner %llu",
                          (unsigned long long)owner);
    if (nkeys == 0 || nkeys > CUZK__PG_MAX_KEYS)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "claim: %zu keys (1..%d)", nkeys,
                          CUZK__PG_MAX_KEYS);
    if (max == 0 || max > CUZK__PG_MAX_CLAIM)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "claim: at most %zu partitions (1..%d)", max,
                          CUZK__PG_MAX_CLAIM);
    cuzk_status st = check_lease("claim", lease_ms, err);
    if (st != CUZK_OK) return st;
    sbuf k = {0};
    if ((st = key_array(&k, "claim: key", keys, nkeys, err)) != CUZK_OK) {
        free(k.p);
        return st;
    }
    claim_ctx c = {.owner = owner, .keys = k.p, .max = max, .lease_ms = lease_ms,
                   .claims = claims};
    st = transact(s, "claim", 0, claim_body, &c, err);
    free(k.p);
    if (st != CUZK_OK) return st;
    *n = c.n;
    return CUZK_OK;
}

typedef struct {
    uint64_t owner;
    uint32_t lease_ms;
    cuzk__store_pg_lease *held;
    size_t n;
    const char *jobs, *idxs, *gens; /* int8[], int4[] and int8[] literals of held */
    size_t renewed;
} renew_ctx;

static cuzk_status renew_body(cuzk__store_pg *s, void *ctx, cuzk_error *err) {
    renew_ctx *c = ctx;
    c->renewed = 0;
    cuzk_status st = heartbeat(s, c->owner, err);
    if (st != CUZK_OK) return st;
    PGresult *r;
    if (c->n != 0) {
        /* only the leases the owner lists: a claim it has forgotten (its
         * release or failure not recorded, a claim whose commit it never
         * heard of) lapses and is reaped, not kept while the owner lives */
        params p = {0};
        p_u64(&p, c->owner);
        p_u64(&p, c->lease_ms);
        p_text(&p, c->jobs);
        p_text(&p, c->idxs);
        p_text(&p, c->gens);
        st = q(s, "extend the leases",
               "UPDATE cuzk.partitions p SET lease_expires = now() + $2 * interval '1 millisecond'"
               " FROM cuzk.jobs j, unnest($3::bigint[], $4::integer[], $5::bigint[]) AS t(job, idx,"
               " gen) WHERE p.owner = $1 AND p.state = 1 AND p.job_id = t.job AND p.idx = t.idx"
               " AND p.generation = t.gen AND j.id = p.job_id AND j.state = 0",
               &p, 0, &r, err);
        if (st != CUZK_OK) return st;
        c->renewed = (size_t)strtoull(PQcmdTuples(r), NULL, 10);
        PQclear(r);
    }
    params pd = {0};
    p_u64(&pd, c->owner);
    st = q(s, "drop partitions of ended jobs",
           "UPDATE cuzk.partitions p SET state = 3, lease_expires = NULL"
           " FROM cuzk.jobs j WHERE p.owner = $1 AND p.state = 1 AND j.id = p.job_id"
           " AND j.state <> 0",
           &pd, 0, NULL, err);
    if (st != CUZK_OK || c->n == 0) return st;
    params ph = {0};
    p_text(&ph, c->jobs);
    p_text(&ph, c->idxs);
    st = q(s, "look up the leases",
           "SELECT t.o, p.state, p.owner, p.generation, j.state"
           " FROM unnest($1::bigint[], $2::integer[]) WITH ORDINALITY AS t(job, idx, o)"
           " JOIN cuzk.partitions p ON p.job_id = t.job AND p.idx = t.idx"
           " JOIN cuzk.jobs j ON j.id = p.job_id",
           &ph, 0, &r, err);
    if (st != CUZK_OK) return st;
    for (size_t i = 0; i < c->n; i++) c->held[i].state = CUZK__PG_LOST; /* gone: lost */
    for (int i = 0; i < PQntuples(r); i++) {
        const uint64_t o = gu(r, i, 0);
        if (o == 0 || o > c->n) continue;
        cuzk__store_pg_lease *l = &c->held[o - 1];
        const int pstate = (int)gi(r, i, 1);
        const uint64_t owner = gu(r, i, 2), gen = gu(r, i, 3);
        const int jstate = (int)gi(r, i, 4);
        const int mine = owner == c->owner && gen == l->ref.generation && l->ref.owner == c->owner;
        if (mine && pstate == P_CLAIMED && jstate == 0)
            l->state = CUZK__PG_HELD;
        else if (mine && (pstate == P_DROPPED || pstate == P_CLAIMED) && jstate != 0)
            l->state = CUZK__PG_JOB_ENDED;
        else
            l->state = CUZK__PG_LOST;
    }
    PQclear(r);
    return CUZK_OK;
}

cuzk_status cuzk__store_pg_renew(cuzk__store_pg *s, uint64_t owner, uint32_t lease_ms,
                                 cuzk__store_pg_lease *held, size_t n, size_t *renewed,
                                 cuzk_error *err) {
    if (renewed != NULL) *renewed = 0;
    if (owner == 0 || owner > INT64_MAX)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "renew: owner %llu",
                          (unsigned long long)owner);
    if (n > 0 && held == NULL) return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "renew: NULL leases");
    cuzk_status st = check_lease("renew", lease_ms, err);
    if (st != CUZK_OK) return st;
    sbuf jobs = {0}, idxs = {0}, gens = {0};
    char num[24];
    sb_str(&jobs, "{");
    sb_str(&idxs, "{");
    sb_str(&gens, "{");
    for (size_t i = 0; i < n; i++) {
        snprintf(num, sizeof(num), "%s%llu", i ? "," : "",
                 (unsigned long long)(held[i].ref.generation <= INT64_MAX ? held[i].ref.generation
                                                                          : 0));
        sb_str(&gens, num);
        snprintf(num, sizeof(num), "%s%llu", i ? "," : "",
                 (unsigned long long)(held[i].ref.job_id <= INT64_MAX ? held[i].ref.job_id : 0));
        sb_str(&jobs, num);
        snprintf(num, sizeof(num), "%s%u", i ? "," : "",
                 held[i].ref.index < CUZK__STORE_MAX_PARTITIONS ? held[i].ref.index : 0u);
        sb_str(&idxs, num);
    }
    sb_str(&jobs, "}");
    sb_str(&idxs, "}");
    sb_str(&gens, "}");
    if (jobs.oom || idxs.oom || gens.oom) {
        st = cuzk__fail(err, CUZK_ERR_NOMEM, "renew: out of memory");
    } else {
        renew_ctx c = {.owner = owner, .lease_ms = lease_ms, .held = held, .n = n,
                       .jobs = jobs.p, .idxs = idxs.p, .gens = gens.p};
        st = transact(s, "renew", TX_IDEMPOTENT, renew_body, &c, err);
        if (st == CUZK_OK && renewed != NULL) *renewed = c.renewed;
    }
    free(jobs.p);
    free(idxs.p);
    free(gens.p);
    return st;
}

/* ---- complete, release, fail, cancel, reap ------------------------------- */

typedef struct {
    const cuzk__store_pg_ref *ref;
    uint64_t job_id;
    const cuzk_proof *proof;
    const uint8_t *pub;
    size_t pub_bytes;
    cuzk_status status;
    const char *msg;
    cuzk__store_pg_outcome outcome;
    int job_done;
    cuzk_job_state state;
    size_t count;
    int64_t age_ms;
} end_ctx;

/* Locks the job's row: *state its stored state, *n its partitions;
 * NOT_FOUND for none. */
static cuzk_status lock_job(cuzk__store_pg *s, uint64_t id, int *state, int64_t *n,
                            cuzk_error *err) {
    params p = {0};
    p_u64(&p, id);
    PGresult *r;
    cuzk_status st = q(s, "lock the job",
                       "SELECT state, n_partitions FROM cuzk.jobs WHERE id = $1 FOR UPDATE", &p, 0,
                       &r, err);
    if (st != CUZK_OK) return st;
    if (PQntuples(r) == 0) {
        PQclear(r);
        return cuzk__fail(err, CUZK_ERR_NOT_FOUND, "%s: no job %llu", s->op,
                          (unsigned long long)id);
    }
    *state = (int)gi(r, 0, 0);
    if (n != NULL) *n = gi(r, 0, 1);
    PQclear(r);
    return CUZK_OK;
}

/* Locks a partition's row: its state, owner and generation. */
static cuzk_status lock_partition(cuzk__store_pg *s, const cuzk__store_pg_ref *ref, int *state,
                                  uint64_t *owner, uint64_t *gen, cuzk_error *err) {
    params p = {0};
    p_u64(&p, ref->job_id);
    p_u64(&p, ref->index);
    PGresult *r;
    cuzk_status st = q(s, "lock the partition",
                       "SELECT state, owner, generation FROM cuzk.partitions"
                       " WHERE job_id = $1 AND idx = $2 FOR UPDATE",
                       &p, 0, &r, err);
    if (st != CUZK_OK) return st;
    if (PQntuples(r) == 0) {
        PQclear(r);
        return cuzk__fail(err, CUZK_ERR_NOT_FOUND, "%s: job %llu has no partition %u", s->op,
                          (unsigned long long)ref->job_id, ref->index);
    }
    *state = (int)gi(r, 0, 0);
    *owner = gu(r, 0, 1);
    *gen = gu(r, 0, 2);
    PQclear(r);
    return CUZK_OK;
}

static cuzk_status set_partition(cuzk__store_pg *s, const cuzk__store_pg_ref *ref, int state,
                                 cuzk_error *err) {
    params p = {0};
    p_u64(&p, ref->job_id);
    p_u64(&p, ref->index);
    p_i64(&p, state);
    return q(s, "drop the partition",
             "UPDATE cuzk.partitions SET state = $3, lease_expires = NULL"
             " WHERE job_id = $1 AND idx = $2",
             &p, 0, NULL, err);
}

/* The job's end in this transaction: its state, queued partitions
 * dropped, witnesses released, cuzk_job_end notified. */
static cuzk_status end_job(cuzk__store_pg *s, uint64_t id, cuzk_job_state state,
                           cuzk_status status, const char *msg, cuzk_error *err) {
    params p = {0};
    p_u64(&p, id);
    p_i64(&p, (int64_t)state);
    p_i64(&p, (int64_t)status);
    p_text(&p, msg);
    cuzk_status st = q(s, "end the job",
                       "UPDATE cuzk.jobs SET state = $2, error_status = $3, error = $4,"
                       " updated_at = now(), finished_at = now() WHERE id = $1",
                       &p, 0, NULL, err);
    params pj = {0};
    p_u64(&pj, id);
    if (st == CUZK_OK)
        st = q(s, "drop queued partitions",
               "UPDATE cuzk.partitions SET state = 3 WHERE job_id = $1 AND state = 0", &pj, 0,
               NULL, err);
    if (st == CUZK_OK)
        st = q(s, "release the witnesses", "DELETE FROM cuzk.witnesses WHERE job_id = $1", &pj, 0,
               NULL, err);
    if (st != CUZK_OK) return st;
    char payload[48];
    snprintf(payload, sizeof(payload), "%llu %s", (unsigned long long)id,
             cuzk__store_state_name(state));
    return notify(s, CHANNEL_END, payload, err);
}

static cuzk_status complete_body(cuzk__store_pg *s, void *ctx, cuzk_error *err) {
    end_ctx *c = ctx;
    const cuzk__store_pg_ref *ref = c->ref;
    c->outcome = CUZK__PG_FENCED;
    c->job_done = 0;
    int jstate = 0, pstate = 0;
    int64_t n = 0;
    uint64_t owner = 0, gen = 0;
    cuzk_status st = lock_job(s, ref->job_id, &jstate, &n, err);
    if (st == CUZK_OK) st = lock_partition(s, ref, &pstate, &owner, &gen, err);
    if (st != CUZK_OK) return st;
    if (owner != ref->owner || gen != ref->generation) return CUZK_OK; /* fenced */
    if (pstate == P_DONE) {
        c->outcome = CUZK__PG_RECORDED; /* this lease recorded it already */
        return CUZK_OK;
    }
    if (pstate == P_DROPPED) {
        c->outcome = CUZK__PG_ENDED; /* dropped under this lease: its job ended */
        return CUZK_OK;
    }
    if (pstate != P_CLAIMED) return CUZK_OK;
    if (jstate != CUZK_JOB_QUEUED) {
        c->outcome = CUZK__PG_ENDED;
        return set_partition(s, ref, P_DROPPED, err);
    }
    params p = {0};
    p_u64(&p, ref->job_id);
    p_u64(&p, ref->index);
    p_bytes(&p, c->proof->bytes, CUZK_PROOF_BYTES);
    p_bytes(&p, c->pub, c->pub_bytes);
    st = q(s, "record the proof",
           "UPDATE cuzk.partitions SET state = 2, proof = $3, public_inputs = $4,"
           " lease_expires = NULL WHERE job_id = $1 AND idx = $2",
           &p, 0, NULL, err);
    params pj = {0};
    p_u64(&pj, ref->job_id);
    PGresult *r;
    if (st == CUZK_OK)
        st = q(s, "count the partitions left",
               "SELECT count(*) FROM cuzk.partitions WHERE job_id = $1 AND state <> 2", &pj, 0,
               &r, err);
    if (st != CUZK_OK) return st;
    const int64_t left = gi(r, 0, 0);
    PQclear(r);
    c->outcome = CUZK__PG_RECORDED;
    if (left > 0)
        return q(s, "touch the job", "UPDATE cuzk.jobs SET updated_at = now() WHERE id = $1",
                 &pj, 0, NULL, err);
    c->job_done = 1;
    return end_job(s, ref->job_id, CUZK_JOB_DONE, CUZK_OK, NULL, err);
}

cuzk_status cuzk__store_pg_complete(cuzk__store_pg *s, const cuzk__store_pg_ref *ref,
                                    const cuzk_proof *proof, const uint8_t *public_inputs,
                                    size_t public_bytes, cuzk__store_pg_outcome *outcome,
                                    int *job_done, cuzk_error *err) {
    if (job_done != NULL) *job_done = 0;
    if (outcome == NULL || proof == NULL || (public_inputs == NULL && public_bytes > 0))
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "complete: NULL argument");
    *outcome = CUZK__PG_FENCED;
    cuzk_status st = check_ref("complete", ref, err);
    if (st != CUZK_OK) return st;
    if (public_bytes > (64u << 20))
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "complete: %zu bytes of public inputs",
                          public_bytes);
    end_ctx c = {.ref = ref, .proof = proof, .pub = public_inputs, .pub_bytes = public_bytes};
    st = transact(s, "complete", 0, complete_body, &c, err);
    if (st != CUZK_OK) return st;
    *outcome = c.outcome;
    if (job_done != NULL) *job_done = c.job_done;
    return CUZK_OK;
}

static cuzk_status release_body(cuzk__store_pg *s, void *ctx, cuzk_error *err) {
    end_ctx *c = ctx;
    const cuzk__store_pg_ref *ref = c->ref;
    c->outcome = CUZK__PG_FENCED;
    params p = {0};
    p_u64(&p, ref->job_id);
    p_u64(&p, ref->index);
    p_u64(&p, ref->owner);
    p_u64(&p, ref->generation);
    PGresult *r;
    cuzk_status st = q(s, "give the partition back",
                       "UPDATE cuzk.partitions p SET"
                       " state = CASE WHEN j.state = 0 THEN 0 ELSE 3 END,"
                       " owner = NULL, lease_expires = NULL, generation = p.generation + 1"
                       " FROM cuzk.jobs j WHERE p.job_id = $1 AND p.idx = $2 AND p.owner = $3"
                       " AND p.generation = $4 AND p.state = 1 AND j.id = p.job_id"
                       " RETURNING p.state",
                       &p, 0, &r, err);
    if (st != CUZK_OK) return st;
    if (PQntuples(r) == 1)
        c->outcome = gi(r, 0, 0) == P_QUEUED ? CUZK__PG_RECORDED : CUZK__PG_ENDED;
    PQclear(r);
    return CUZK_OK;
}

cuzk_status cuzk__store_pg_release(cuzk__store_pg *s, const cuzk__store_pg_ref *ref,
                                   cuzk__store_pg_outcome *outcome, cuzk_error *err) {
    if (outcome == NULL) return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "release: NULL outcome");
    *outcome = CUZK__PG_FENCED;
    cuzk_status st = check_ref("release", ref, err);
    if (st != CUZK_OK) return st;
    end_ctx c = {.ref = ref};
    st = transact(s, "release", 0, release_body, &c, err);
    if (st == CUZK_OK) *outcome = c.outcome;
    return st;
}

static cuzk_status fail_body(cuzk__store_pg *s, void *ctx, cuzk_error *err) {
    end_ctx *c = ctx;
    c->outcome = CUZK__PG_FENCED;
    int jstate = 0;
    cuzk_status st = lock_job(s, c->job_id, &jstate, NULL, err);
    if (st != CUZK_OK) return st;
    if (c->ref != NULL) {
        int pstate = 0;
        uint64_t owner = 0, gen = 0;
        st = lock_partition(s, c->ref, &pstate, &owner, &gen, err);
        if (st != CUZK_OK) return st;
        if (owner != c->ref->owner || gen != c->ref->generation ||
            (pstate != P_CLAIMED && pstate != P_DROPPED))
            return CUZK_OK; /* fenced */
        if (pstate == P_CLAIMED && (st = set_partition(s, c->ref, P_DROPPED, err)) != CUZK_OK)
            return st;
    }
    if (jstate != CUZK_JOB_QUEUED) {
        c->outcome = CUZK__PG_ENDED;
        return CUZK_OK;
    }
    c->outcome = CUZK__PG_RECORDED;
    return end_job(s, c->job_id, CUZK_JOB_FAILED, c->status, c->msg, err);
}

cuzk_status cuzk__store_pg_fail(cuzk__store_pg *s, uint64_t job_id, const cuzk__store_pg_ref *by,
                                cuzk_status status, const char *msg,
                                cuzk__store_pg_outcome *outcome, cuzk_error *err) {
    if (outcome == NULL) return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "fail: NULL outcome");
    *outcome = CUZK__PG_FENCED;
    if (job_id == 0 || job_id > INT64_MAX)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "fail: job id %llu",
                          (unsigned long long)job_id);
    if (status == CUZK_OK || (unsigned)status >= CUZK_STATUS_COUNT)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "fail: status %d is not a failure",
                          (int)status);
    if (by != NULL) {
        cuzk_status st = check_ref("fail", by, err);
        if (st != CUZK_OK) return st;
        if (by->job_id != job_id)
            return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "fail: the lease is of job %llu, not %llu",
                              (unsigned long long)by->job_id, (unsigned long long)job_id);
    }
    char text[CUZK_ERROR_MSG_BYTES];
    snprintf(text, sizeof(text), "%s", msg != NULL ? msg : cuzk_strerror(status));
    end_ctx c = {.job_id = job_id, .ref = by, .status = status, .msg = text};
    cuzk_status st = transact(s, "fail", 0, fail_body, &c, err);
    if (st == CUZK_OK) *outcome = c.outcome;
    return st;
}

static cuzk_status cancel_body(cuzk__store_pg *s, void *ctx, cuzk_error *err) {
    end_ctx *c = ctx;
    int jstate = 0;
    cuzk_status st = lock_job(s, c->job_id, &jstate, NULL, err);
    if (st != CUZK_OK) return st;
    if (jstate != CUZK_JOB_QUEUED) {
        c->state = (cuzk_job_state)jstate;
        return CUZK_OK;
    }
    c->state = CUZK_JOB_CANCELLED;
    return end_job(s, c->job_id, CUZK_JOB_CANCELLED, CUZK_ERR_CANCELLED, NULL, err);
}

cuzk_status cuzk__store_pg_cancel(cuzk__store_pg *s, uint64_t job_id, cuzk_job_state *state,
                                  cuzk_error *err) {
    if (job_id == 0 || job_id > INT64_MAX) /* never made: as SQLite answers */
        return cuzk__fail(err, CUZK_ERR_NOT_FOUND, "job %llu: no such job",
                          (unsigned long long)job_id);
    end_ctx c = {.job_id = job_id};
    cuzk_status st = transact(s, "cancel", 0, cancel_body, &c, err);
    if (st == CUZK_OK && state != NULL) *state = c.state;
    return st;
}

static cuzk_status reap_body(cuzk__store_pg *s, void *ctx, cuzk_error *err) {
    end_ctx *c = ctx;
    c->count = 0;
    PGresult *r;
    /* SKIP LOCKED: a lease being completed or renewed right now is not
     * waited for (the row re-checked once locked, so a renewal that
     * committed meanwhile keeps its partition) */
    cuzk_status st = q(s, "requeue expired leases",
                       "WITH x AS (SELECT job_id, idx FROM cuzk.partitions"
                       " WHERE state = 1 AND lease_expires < now() FOR UPDATE SKIP LOCKED)"
                       " UPDATE cuzk.partitions p SET"
                       " state = CASE WHEN j.state = 0 THEN 0 ELSE 3 END,"
                       " owner = NULL, lease_expires = NULL, generation = p.generation + 1"
                       " FROM x, cuzk.jobs j WHERE p.job_id = x.job_id AND p.idx = x.idx"
                       " AND j.id = p.job_id RETURNING p.state",
                       NULL, 0, &r, err);
    if (st != CUZK_OK) return st;
    for (int i = 0; i < PQntuples(r); i++)
        if (gi(r, i, 0) == P_QUEUED) c->count++;
    PQclear(r);
    /* a partition requeued just as its job ended is dropped here */
    return q(s, "drop queued partitions of ended jobs",
             "UPDATE cuzk.partitions p SET state = 3 FROM cuzk.jobs j"
             " WHERE p.state = 0 AND j.id = p.job_id AND j.state <> 0",
             NULL, 0, NULL, err);
}

cuzk_status cuzk__store_pg_reap(cuzk__store_pg *s, size_t *requeued, cuzk_error *err) {
    if (requeued != NULL) *requeued = 0;
    end_ctx c = {0};
    cuzk_status st = transact(s, "reap", TX_IDEMPOTENT, reap_body, &c, err);
    if (st == CUZK_OK && requeued != NULL) *requeued = c.count;
    return st;
}

/* ---- status -------------------------------------------------------------- */

/* The job columns with counts and the derived state, for WHERE clauses
 * on "d" (the derived state). */
#define JOB_SELECT                                                                               \
    "SELECT * FROM (SELECT j.id, j.request_id, j.key_name, j.priority, j.n_partitions,"          \
    " CASE WHEN j.state = 0 AND k.nc + k.nd > 0 THEN 1 ELSE j.state END AS d,"                   \
    " " MS("j.created_at") ", " MS("j.updated_at") ", coalesce(" MS("j.finished_at") ", 0),"     \
    " j.error_status, j.error, k.nq, k.nc, k.nd, k.nx"                                          \
    " FROM cuzk.jobs j, LATERAL (SELECT count(*) FILTER (WHERE p.state = 0) AS nq,"             \
    " count(*) FILTER (WHERE p.state = 1) AS nc, count(*) FILTER (WHERE p.state = 2) AS nd,"     \
    " count(*) FILTER (WHERE p.state = 3) AS nx"                                                 \
    " FROM cuzk.partitions p WHERE p.job_id = j.id) k"

static void read_job(const PGresult *r, int i, cuzk__store_pg_job_info *out) {
    memset(out, 0, sizeof(*out));
    cuzk__store_job_info *info = &out->job;
    info->id = gu(r, i, 0);
    info->has_request_id = !PQgetisnull(r, i, 1);
    gs(info->request_id, sizeof(info->request_id), r, i, 1);
    gs(info->key_name, sizeof(info->key_name), r, i, 2);
    info->priority = (cuzk_priority)gi(r, i, 3);
    info->n_partitions = (size_t)gu(r, i, 4);
    info->state = (cuzk_job_state)gi(r, i, 5);
    info->created_ms = gi(r, i, 6);
    info->updated_ms = gi(r, i, 7);
    info->finished_ms = gi(r, i, 8);
    info->error_status = info->state == CUZK_JOB_FAILED ? (cuzk_status)gi(r, i, 9) : CUZK_OK;
    if (info->state == CUZK_JOB_FAILED) gs(info->error, sizeof(info->error), r, i, 10);
    out->queued = (size_t)gu(r, i, 11);
    out->claimed = (size_t)gu(r, i, 12);
    out->done = (size_t)gu(r, i, 13);
    out->dropped = (size_t)gu(r, i, 14);
    info->n_done = out->done;
}

typedef struct {
    uint64_t id, after;
    unsigned mask;
    size_t limit;
    cuzk__store_pg_job_info *one;
    cuzk__store_pg_job_info *many;
    size_t n;
    uint64_t counts[5];
    cuzk_proof *proofs;
    uint64_t *owners;
    size_t cap;
    uint8_t **pub;
    size_t pub_bytes;
    int64_t age_ms;
} read_ctx;

static cuzk_status get_body(cuzk__store_pg *s, void *ctx, cuzk_error *err) {
    read_ctx *c = ctx;
    params p = {0};
    p_u64(&p, c->id);
    PGresult *r;
    cuzk_status st = q(s, "read the job", JOB_SELECT " WHERE j.id = $1) t", &p, 0, &r, err);
    if (st != CUZK_OK) return st;
    if (PQntuples(r) == 0) {
        PQclear(r);
        return cuzk__fail(err, CUZK_ERR_NOT_FOUND, "job %llu: no such job",
                          (unsigned long long)c->id);
    }
    read_job(r, 0, c->one);
    PQclear(r);
    return CUZK_OK;
}

cuzk_status cuzk__store_pg_get(cuzk__store_pg *s, uint64_t id, cuzk__store_pg_job_info *info,
                               cuzk_error *err) {
    if (info == NULL) return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "get: NULL info");
    memset(info, 0, sizeof(*info));
    if (id == 0 || id > INT64_MAX)
        return cuzk__fail(err, CUZK_ERR_NOT_FOUND, "job %llu: no such job",
                          (unsigned long long)id);
    read_ctx c = {.id = id, .one = info};
    return transact(s, "get", TX_READ, get_body, &c, err);
}

static cuzk_status ahead_body(cuzk__store_pg *s, void *ctx, cuzk_error *err) {
    read_ctx *c = ctx;
    params p = {0};
    p_u64(&p, c->id);
    PGresult *r;
    /* the claim order; other keys only where one daemon claims both */
    cuzk_status st = q(s, "count the partitions ahead",
                       "SELECT count(*) FROM cuzk.jobs me, cuzk.jobs j"
                       " JOIN cuzk.partitions p ON p.job_id = j.id"
                       " WHERE me.id = $1 AND p.state = 0 AND j.state = 0"
                       " AND (j.priority > me.priority OR (j.priority = me.priority"
                       " AND (j.created_at, j.id) < (me.created_at, me.id)))"
                       " AND (j.key_name = me.key_name OR j.key_name IN (SELECT unnest(d.keys)"
                       " FROM cuzk.daemons d WHERE me.key_name = ANY(d.keys)))",
                       &p, 0, &r, err);
    if (st != CUZK_OK) return st;
    c->n = (size_t)gu(r, 0, 0);
    PQclear(r);
    return CUZK_OK;
}

static cuzk_status backlog_body(cuzk__store_pg *s, void *ctx, cuzk_error *err) {
    read_ctx *c = ctx;
    PGresult *r;
    cuzk_status st = q(s, "count the partitions to prove",
                       "SELECT count(*) FROM cuzk.jobs j JOIN cuzk.partitions p ON p.job_id = j.id"
                       " WHERE j.state = 0 AND p.state IN (0, 1)",
                       NULL, 0, &r, err);
    if (st != CUZK_OK) return st;
    c->n = (size_t)gu(r, 0, 0);
    PQclear(r);
    return CUZK_OK;
}

cuzk_status cuzk__store_pg_backlog(cuzk__store_pg *s, size_t *n, cuzk_error *err) {
    if (n == NULL) return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "backlog: NULL n");
    *n = 0;
    read_ctx c = {0};
    cuzk_status st = transact(s, "backlog", TX_READ, backlog_body, &c, err);
    if (st == CUZK_OK) *n = c.n;
    return st;
}

cuzk_status cuzk__store_pg_ahead(cuzk__store_pg *s, uint64_t id, size_t *n, cuzk_error *err) {
    if (n == NULL) return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "ahead: NULL n");
    *n = 0;
    if (id == 0 || id > INT64_MAX) return CUZK_OK;
    read_ctx c = {.id = id};
    cuzk_status st = transact(s, "ahead", TX_READ, ahead_body, &c, err);
    if (st == CUZK_OK) *n = c.n;
    return st;
}

static cuzk_status results_body(cuzk__store_pg *s, void *ctx, cuzk_error *err) {
    read_ctx *c = ctx;
    c->pub_bytes = 0;
    if (c->pub != NULL) {
        free(*c->pub);
        *c->pub = NULL;
    }
    params p = {0};
    p_u64(&p, c->id);
    PGresult *r;
    cuzk_status st = q(s, "read the job",
                       "SELECT state, n_partitions FROM cuzk.jobs WHERE id = $1", &p, 0, &r, err);
    if (st != CUZK_OK) return st;
    if (PQntuples(r) == 0) {
        PQclear(r);
        return cuzk__fail(err, CUZK_ERR_NOT_FOUND, "job %llu: no such job",
                          (unsigned long long)c->id);
    }
    const int state = (int)gi(r, 0, 0);
    const size_t n = (size_t)gu(r, 0, 1);
    PQclear(r);
    if (state != CUZK_JOB_DONE)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "job %llu is %s, not done: no results",
                          (unsigned long long)c->id,
                          cuzk__store_state_name((cuzk_job_state)state));
    if (n > c->cap)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                          "job %llu has %zu partitions; room for %zu results",
                          (unsigned long long)c->id, n, c->cap);
    st = q(s, "read the proofs",
           "SELECT idx, owner, proof, public_inputs FROM cuzk.partitions"
           " WHERE job_id = $1 AND state = 2 ORDER BY idx",
           &p, 1, &r, err);
    if (st != CUZK_OK) return st;
    const int rows = PQntuples(r);
    size_t pb = 0;
    for (int i = 0; i < rows; i++) {
        const int plen = PQgetlength(r, i, 3);
        if (bi(r, i, 0) != i || PQgetlength(r, i, 2) != CUZK_PROOF_BYTES ||
            (i > 0 && (size_t)plen != pb)) {
            PQclear(r);
            return cuzk__fail(err, CUZK_ERR_IO,
                              "job %llu: partition %d's result is missing or malformed in the "
                              "database", (unsigned long long)c->id, i);
        }
        pb = (size_t)plen;
    }
    if ((size_t)rows != n) {
        PQclear(r);
        return cuzk__fail(err, CUZK_ERR_IO, "job %llu is done with %d of %zu proofs",
                          (unsigned long long)c->id, rows, n);
    }
    uint8_t *pub = NULL;
    if (c->pub != NULL && pb > 0 && (pub = malloc(pb * n)) == NULL) {
        PQclear(r);
        return cuzk__fail(err, CUZK_ERR_NOMEM, "results: out of memory");
    }
    for (int i = 0; i < rows; i++) {
        memcpy(c->proofs[i].bytes, PQgetvalue(r, i, 2), CUZK_PROOF_BYTES);
        if (c->owners != NULL) c->owners[i] = (uint64_t)bi(r, i, 1);
        if (pub != NULL) memcpy(pub + (size_t)i * pb, PQgetvalue(r, i, 3), pb);
    }
    PQclear(r);
    c->pub_bytes = pb;
    if (c->pub != NULL) *c->pub = pub;
    return CUZK_OK;
}

cuzk_status cuzk__store_pg_results(cuzk__store_pg *s, uint64_t id, cuzk_proof *proofs,
                                   uint64_t *owners, size_t cap, uint8_t **public_inputs,
                                   size_t *public_bytes, cuzk_error *err) {
    if (public_inputs != NULL) *public_inputs = NULL;
    if (public_bytes != NULL) *public_bytes = 0;
    if (proofs == NULL) return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "results: NULL proofs");
    if (id == 0 || id > INT64_MAX)
        return cuzk__fail(err, CUZK_ERR_NOT_FOUND, "job %llu: no such job",
                          (unsigned long long)id);
    read_ctx c = {.id = id, .proofs = proofs, .owners = owners, .cap = cap, .pub = public_inputs};
    cuzk_status st = transact(s, "results", TX_READ, results_body, &c, err);
    if (st == CUZK_OK && public_bytes != NULL) *public_bytes = c.pub_bytes;
    return st;
}

static cuzk_status list_body(cuzk__store_pg *s, void *ctx, cuzk_error *err) {
    read_ctx *c = ctx;
    free(c->many);
    c->many = NULL;
    c->n = 0;
    params p = {0};
    p_u64(&p, c->after);
    p_u64(&p, c->mask);
    if (c->limit > 0)
        p_u64(&p, c->limit);
    else
        p_text(&p, NULL); /* LIMIT NULL: no limit */
    PGresult *r;
    cuzk_status st = q(s, "list the jobs",
                       JOB_SELECT " WHERE j.id > $1) t WHERE (($2::bigint >> d) & 1) = 1"
                                  " ORDER BY id LIMIT $3",
                       &p, 0, &r, err);
    if (st != CUZK_OK) return st;
    const int n = PQntuples(r);
    if (n > 0 && (c->many = calloc((size_t)n, sizeof(*c->many))) == NULL) {
        PQclear(r);
        return cuzk__fail(err, CUZK_ERR_NOMEM, "list: out of memory");
    }
    for (int i = 0; i < n; i++) read_job(r, i, &c->many[i]);
    c->n = (size_t)n;
    PQclear(r);
    return CUZK_OK;
}

cuzk_status cuzk__store_pg_list(cuzk__store_pg *s, unsigned state_mask, uint64_t after_id,
                                size_t limit, cuzk__store_pg_job_info **jobs, size_t *n,
                                cuzk_error *err) {
    if (jobs == NULL || n == NULL) return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "list: NULL");
    *jobs = NULL;
    *n = 0;
    if (after_id > INT64_MAX) return CUZK_OK;
    read_ctx c = {.after = after_id, .mask = state_mask ? state_mask & 31u : 31u,
                  .limit = limit};
    cuzk_status st = transact(s, "list", TX_READ, list_body, &c, err);
    if (st != CUZK_OK) {
        free(c.many);
        return st;
    }
    *jobs = c.many;
    *n = c.n;
    return CUZK_OK;
}

static cuzk_status counts_body(cuzk__store_pg *s, void *ctx, cuzk_error *err) {
    read_ctx *c = ctx;
    memset(c->counts, 0, sizeof(c->counts));
    PGresult *r;
    cuzk_status st = q(s, "count the jobs",
                       "SELECT CASE WHEN j.state = 0 AND EXISTS (SELECT 1 FROM cuzk.partitions p"
                       " WHERE p.job_id = j.id AND p.state IN (1, 2)) THEN 1 ELSE j.state END"
                       " AS d, count(*) FROM cuzk.jobs j GROUP BY d",
                       NULL, 0, &r, err);
    if (st != CUZK_OK) return st;
    for (int i = 0; i < PQntuples(r); i++) {
        const int64_t d = gi(r, i, 0);
        if (d >= 0 && d < 5) c->counts[d] = gu(r, i, 1);
    }
    PQclear(r);
    return CUZK_OK;
}

cuzk_status cuzk__store_pg_counts(cuzk__store_pg *s, uint64_t counts[5], cuzk_error *err) {
    if (counts == NULL) return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "counts: NULL");
    memset(counts, 0, 5 * sizeof(counts[0]));
    read_ctx c = {0};
    cuzk_status st = transact(s, "counts", TX_READ, counts_body, &c, err);
    if (st == CUZK_OK) memcpy(counts, c.counts, sizeof(c.counts));
    return st;
}

static cuzk_status collect_body(cuzk__store_pg *s, void *ctx, cuzk_error *err) {
    read_ctx *c = ctx;
    int state = 0;
    cuzk_status st = lock_job(s, c->id, &state, NULL, err);
    if (st != CUZK_OK) return st;
    if (state == CUZK_JOB_QUEUED)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                          "collect: job %llu has not ended (cancel it first)",
                          (unsigned long long)c->id);
    params p = {0};
    p_u64(&p, c->id);
    return q(s, "delete the job", "DELETE FROM cuzk.jobs WHERE id = $1", &p, 0, NULL, err);
}

cuzk_status cuzk__store_pg_collect(cuzk__store_pg *s, uint64_t id, cuzk_error *err) {
    if (id == 0 || id > INT64_MAX)
        return cuzk__fail(err, CUZK_ERR_NOT_FOUND, "collect: no job %llu",
                          (unsigned long long)id);
    read_ctx c = {.id = id};
    return transact(s, "collect", 0, collect_body, &c, err);
}

static cuzk_status expire_body(cuzk__store_pg *s, void *ctx, cuzk_error *err) {
    read_ctx *c = ctx;
    c->n = 0;
    params p = {0};
    p_i64(&p, c->age_ms);
    p_u64(&p, EXPIRE_BATCH);
    PGresult *r;
    cuzk_status st = q(s, "delete ended jobs",
                       "DELETE FROM cuzk.jobs WHERE id IN (SELECT id FROM cuzk.jobs"
                       " WHERE state <> 0 AND finished_at < now() - $1 * interval '1 millisecond'"
                       " ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED)",
                       &p, 0, &r, err);
    if (st != CUZK_OK) return st;
    c->n = (size_t)strtoull(PQcmdTuples(r), NULL, 10);
    PQclear(r);
    return CUZK_OK;
}

cuzk_status cuzk__store_pg_expire(cuzk__store_pg *s, int64_t age_ms, size_t *removed,
                                  cuzk_error *err) {
    if (removed != NULL) *removed = 0;
    if (age_ms < 0) return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "expire: negative age");
    size_t total = 0;
    for (;;) {
        read_ctx c = {.age_ms = age_ms};
        cuzk_status st = transact(s, "expire", TX_IDEMPOTENT, expire_body, &c, err);
        if (st != CUZK_OK) return st;
        total += c.n;
        if (removed != NULL) *removed = total;
        if (c.n < EXPIRE_BATCH) return CUZK_OK;
    }
}

/* ---- notifications ------------------------------------------------------- */

typedef struct {
    unsigned mask;
} listen_ctx;

static cuzk_status listen_body(cuzk__store_pg *s, void *ctx, cuzk_error *err) {
    listen_ctx *c = ctx;
    cuzk_status st = CUZK_OK;
    if (c->mask & CUZK__PG_CHANNEL_END)
        st = q(s, "listen", "LISTEN cuzk_job_end", NULL, 0, NULL, err);
    if (st == CUZK_OK && (c->mask & CUZK__PG_CHANNEL_NEW))
        st = q(s, "listen", "LISTEN cuzk_job_new", NULL, 0, NULL, err);
    return st;
}

cuzk_status cuzk__store_pg_listen(cuzk__store_pg *s, unsigned mask, cuzk_error *err) {
    mask &= CUZK__PG_CHANNEL_END | CUZK__PG_CHANNEL_NEW;
    if (mask == 0) return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "listen: no channel");
    listen_ctx c = {.mask = mask};
    cuzk_status st = transact(s, "listen", TX_IDEMPOTENT, listen_body, &c, err);
    if (st == CUZK_OK) {
        pthread_mutex_lock(&s->mu);
        s->listening |= mask;
        pthread_mutex_unlock(&s->mu);
    }
    return st;
}

/* An event from a notification of ours; 0 for one that is not. */
static int parse_event(const PGnotify *n, cuzk__store_pg_event *ev) {
    memset(ev, 0, sizeof(*ev));
    char *end = NULL;
    const unsigned long long id = strtoull(n->extra, &end, 10);
    if (end == n->extra || *end != ' ' || id == 0) return 0;
    ev->job_id = id;
    if (strcmp(n->relname, CHANNEL_NEW) == 0) {
        ev->kind = CUZK__PG_EVENT_JOB_NEW;
        snprintf(ev->key_name, sizeof(ev->key_name), "%s", end + 1);
        return 1;
    }
    if (strcmp(n->relname, CHANNEL_END) != 0) return 0;
    ev->kind = CUZK__PG_EVENT_JOB_END;
    for (int st = CUZK_JOB_DONE; st <= CUZK_JOB_CANCELLED; st++)
        if (strcmp(end + 1, cuzk__store_state_name((cuzk_job_state)st)) == 0) {
            ev->state = (cuzk_job_state)st;
            return 1;
        }
    return 0;
}

cuzk_status cuzk__store_pg_wait(cuzk__store_pg *s, int timeout_ms, cuzk__store_pg_event *ev,
                                int *got, cuzk_error *err) {
    if (ev == NULL || got == NULL) return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "wait: NULL");
    *got = 0;
    memset(ev, 0, sizeof(*ev));
    if (timeout_ms < 0) timeout_ms = 0;
    const int64_t deadline = mono_ms() + timeout_ms;
    cuzk_error e;
    cuzk__error_clear(&e);
    cuzk_status st = CUZK_OK;
    pthread_mutex_lock(&s->mu);
    s->op = "wait";
    for (;;) {
        st = ensure(s, &e);
        if (st != CUZK_OK) break;
        if (s->resync) {
            s->resync = 0;
            ev->kind = CUZK__PG_EVENT_RESYNC;
            *got = 1;
            break;
        }
        PGnotify *n;
        int found = 0;
        while (!found && (n = PQnotifies(s->conn)) != NULL) {
            found = parse_event(n, ev);
            PQfreemem(n);
        }
        if (found) {
            *got = 1;
            break;
        }
        const int64_t left = deadline - mono_ms();
        struct pollfd pfd = {.fd = PQsocket(s->conn), .events = POLLIN};
        const int rc = poll(&pfd, 1, left > 0 ? (int)left : 0);
        if (rc < 0 && errno == EINTR) continue;
        if (rc < 0) {
            st = cuzk__fail(&e, CUZK_ERR_IO, "wait: postgres %s: poll: %s", s->where,
                            strerror(errno));
            break;
        }
        if (rc == 0) break; /* timed out */
        if (!PQconsumeInput(s->conn)) s->broken = 1; /* reconnected above, then RESYNC */
    }
    s->op = NULL;
    pthread_mutex_unlock(&s->mu);
    if (st != CUZK_OK) return cuzk__fail(err, st, "%s", e.msg);
    return CUZK_OK;
}
