/*
 * config.c — the daemon's configuration file (config.h; the format in
 * doc/formats.md, "The daemon's configuration").
 *
 * One table describes every setting of the fixed sections: its section and
 * key, how its value is read (a path, a number in a range, a size, ...) and
 * where it lives in the struct. The file's lines and the command-line
 * overrides go through the same apply(), so an override gets every check a
 * file's value gets. Values are read into temporaries and stored only once
 * they pass, so a refused override leaves the configuration as it was.
 */
#include "service/config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/mem.h"
#include "util/readfile.h"

/* ---- the settings ---------------------------------------------------------- */

typedef enum {
    K_PATH,    /* a path, resolved; empty only where `empty_ok` */
    K_MODE,    /* octal permission bits */
    K_LISTEN,  /* host:port or [v6]:port, empty: off */
    K_UINT,    /* a decimal number in [min, max] */
    K_SIZE,    /* bytes, with an optional binary K/M/G/T suffix, in [min, max] */
    K_BOOL,
    K_BACKEND, /* auto, cpu or gpu */
    K_DEVICES, /* "", "all" or a comma list of GPU ordinals */
    K_STORE,   /* "sqlite" or a PostgreSQL connection string */
    K_NAME     /* a line of printable text, "" allowed */
} kind;

typedef struct {
    const char *section, *key;
    kind kind;
    size_t off, width; /* the field in cuzk__daemon_config */
    uint64_t min, max;
    int empty_ok;
} setting;

#define FIELD(f) offsetof(cuzk__daemon_config, f), sizeof(((cuzk__daemon_config *)0)->f)
#define KiB 1024ull
#define GiB (1024ull * 1024 * 1024)
#define TiB (1024ull * GiB)
#define MEM_MAX (1024ull * TiB) /* 1024T: sizes of memory */
#define DEVICE_ORDINAL_MAX 255
#define THREADS_MAX 4096        /* cuzk_context_create's check */
#define QUEUED_MAX (1u << 24)   /* cuzk_engine_create's check */
#define WORKERS_MAX 16          /* ... and include/cuzk.h */
#define TIMELINE_MAX (1u << 24)
#define RETRIES_MAX 16
#define RETENTION_MAX 315360000ull /* ten years */
#define BATCH_WAIT_MAX 3600000u      /* an hour */
#define LEASE_MIN 100u               /* ms */
#define LEASE_MAX 86400000u          /* a day (store_pg.h) */
#define POLL_MAX 600000u
#define FETCHERS_MAX 16u /* CUZK__DAEMON_FETCHERS_MAX */

static const setting SETTINGS[CUZK__CONF_N_SETTINGS] = {
    [CUZK__CONF_UNIX_SOCKET] = {"server", "unix_socket", K_PATH, FIELD(unix_socket), 0, 0, 1},
    [CUZK__CONF_UNIX_SOCKET_MODE] = {"server", "unix_socket_mode", K_MODE,
                                     FIELD(unix_socket_mode), 0, 0777, 0},
    [CUZK__CONF_TCP_LISTEN] = {"server", "tcp_listen", K_LISTEN, FIELD(tcp_listen), 0, 0, 1},
    [CUZK__CONF_TOKEN_FILE] = {"server", "token_file", K_PATH, FIELD(token_file), 0, 0, 1},
    [CUZK__CONF_MAX_BODY_BYTES] = {"server", "max_body_bytes", K_SIZE, FIELD(max_body_bytes), KiB,
                                   TiB, 0},
    [CUZK__CONF_REQUEST_TIMEOUT_S] = {"server", "request_timeout_s", K_UINT,
                                      FIELD(request_timeout_s), 1, 86400, 0},
    [CUZK__CONF_DATABASE] = {"store", "database", K_PATH, FIELD(database), 0, 0, 0},
    [CUZK__CONF_SPOOL_DIR] = {"store", "spool_dir", K_PATH, FIELD(spool_dir), 0, 0, 0},
    [CUZK__CONF_RESULT_RETENTION_S] = {"store", "result_retention_s", K_UINT,
                                       FIELD(result_retention_s), 1, RETENTION_MAX, 0},
    [CUZK__CONF_STORE] = {"store", "store", K_STORE, FIELD(store), 0, 0, 0},
    [CUZK__CONF_BACKEND] = {"engine", "backend", K_BACKEND, FIELD(backend), 0, 0, 0},
    [CUZK__CONF_DEVICES] = {"engine", "devices", K_DEVICES, FIELD(devices), 0, DEVICE_ORDINAL_MAX,
                            1},
    [CUZK__CONF_CPU_LANES] = {"engine", "cpu_lanes", K_UINT, FIELD(cpu_lanes), 0, CUZK_MAX_LANES,
                              0},
    [CUZK__CONF_THREADS] = {"engine", "threads", K_UINT, FIELD(threads), 0, THREADS_MAX, 0},
    [CUZK__CONF_AUTO_GPU_MIN_LOG] = {"engine", "auto_gpu_min_log", K_UINT,
                                     FIELD(auto_gpu_min_log), 0, 40, 0},
    [CUZK__CONF_DEVICE_MEMORY_LIMIT] = {"engine", "device_memory_limit", K_SIZE,
                                        FIELD(device_memory_limit), 0, MEM_MAX, 0},
    [CUZK__CONF_SELF_CHECK] = {"engine", "self_check", K_BOOL, FIELD(self_check), 0, 1, 0},
    [CUZK__CONF_WORKERS_PER_DEVICE] = {"engine", "workers_per_device", K_UINT,
                                       FIELD(workers_per_device), 0, WORKERS_MAX, 0},
    [CUZK__CONF_MAX_QUEUED_PARTITIONS] = {"engine", "max_queued_partitions", K_UINT,
                                          FIELD(max_queued_partitions), 1, QUEUED_MAX, 0},
    [CUZK__CONF_HOST_MEMORY_BUDGET] = {"engine", "host_memory_budget", K_SIZE,
                                       FIELD(host_memory_budget), 0, MEM_MAX, 0},
    [CUZK__CONF_KEY_CACHE_BYTES] = {"engine", "key_cache_bytes", K_SIZE, FIELD(key_cache_bytes),
                                    0, MEM_MAX, 0},
    [CUZK__CONF_MAX_RETRIES] = {"engine", "max_retries", K_UINT, FIELD(max_retries), 0,
                                RETRIES_MAX, 0},
    [CUZK__CONF_TIMELINE_EVENTS] = {"engine", "timeline_events", K_UINT, FIELD(timeline_events),
                                    0, TIMELINE_MAX, 0},
    [CUZK__CONF_BATCH_WAIT_MS] = {"engine", "batch_wait_ms", K_UINT, FIELD(batch_wait_ms), 0,
                                  BATCH_WAIT_MAX, 0},
    [CUZK__CONF_CLUSTER_NAME] = {"cluster", "name", K_NAME, FIELD(cluster_name), 0, 0, 1},
    [CUZK__CONF_LEASE_MS] = {"cluster", "lease_ms", K_UINT, FIELD(lease_ms), LEASE_MIN, LEASE_MAX,
                             0},
    [CUZK__CONF_HEARTBEAT_MS] = {"cluster", "heartbeat_ms", K_UINT, FIELD(heartbeat_ms), 0,
                                 LEASE_MAX, 0},
    [CUZK__CONF_POLL_MS] = {"cluster", "poll_ms", K_UINT, FIELD(poll_ms), 10, POLL_MAX, 0},
    [CUZK__CONF_FETCHERS] = {"cluster", "fetchers", K_UINT, FIELD(fetchers), 1, FETCHERS_MAX, 0},
};

static const char *const SECTIONS[] = {"server", "store", "engine", "cluster"};
#define N_FIXED 4
#define SEC_KEY N_FIXED /* [key NAME] */
static const char *const KEY_FILES[CUZK__KEY_N_FILES] = {"zkey", "r1cs", "circuit", "params"};

static const char *const NAMES[CUZK__CONF_N_SETTINGS + CUZK__KEY_N_FILES] = {
    "server.unix_socket",         "server.unix_socket_mode",    "server.tcp_listen",
    "server.token_file",          "server.max_body_bytes",      "server.request_timeout_s",
    "store.database",             "store.spool_dir",            "store.result_retention_s",
    "store.store",                "engine.backend",             "engine.devices",
    "engine.cpu_lanes",           "engine.threads",             "engine.auto_gpu_min_log",
    "engine.device_memory_limit", "engine.self_check",          "engine.workers_per_device",
    "engine.max_queued_partitions", "engine.host_memory_budget", "engine.key_cache_bytes",
    "engine.max_retries",         "engine.timeline_events",     "engine.batch_wait_ms",
    "cluster.name",               "cluster.lease_ms",           "cluster.heartbeat_ms",
    "cluster.poll_ms",            "cluster.fetchers",           "key.zkey",
    "key.r1cs",                   "key.circuit",                "key.params"};

const char *cuzk__daemon_config_name(size_t i) {
    return i < sizeof(NAMES) / sizeof(NAMES[0]) ? NAMES[i] : NULL;
}

static void put_u64(cuzk__daemon_config *cfg, const setting *s, uint64_t v) {
    char *p = (char *)cfg + s->off;
    if (s->width == sizeof(uint32_t)) {
        const uint32_t w = (uint32_t)v;
        memcpy(p, &w, sizeof(w));
    } else {
        memcpy(p, &v, sizeof(v));
    }
}

static uint64_t get_u64(const cuzk__daemon_config *cfg, const setting *s) {
    const char *p = (const char *)cfg + s->off;
    if (s->width == sizeof(uint32_t)) {
        uint32_t w;
        memcpy(&w, p, sizeof(w));
        return w;
    }
    uint64_t v;
    memcpy(&v, p, sizeof(v));
    return v;
}

void cuzk__daemon_config_defaults(cuzk__daemon_config *cfg) {
    memset(cfg, 0, sizeof(*cfg));
    snprintf(cfg->unix_socket, sizeof(cfg->unix_socket), "/run/cuzk/cuzk.sock");
    cfg->unix_socket_mode = 0660;
    cfg->max_body_bytes = 64 * KiB * KiB;
    cfg->request_timeout_s = 60;
    snprintf(cfg->database, sizeof(cfg->database), "/var/lib/cuzk/cuzk.db");
    snprintf(cfg->spool_dir, sizeof(cfg->spool_dir), "/var/lib/cuzk/spool");
    cfg->result_retention_s = 86400;
    /* the engine: what cuzk_options_init and cuzk_engine_options_init say */
    cfg->backend = CUZK_BACKEND_AUTO;
    cfg->auto_gpu_min_log = 16;
    cfg->self_check = 1;
    cfg->max_queued_partitions = 1024;
    cfg->max_retries = 1;
    cfg->timeline_events = 65536;
    cfg->batch_wait_ms = 10000;
    snprintf(cfg->store, sizeof(cfg->store), "sqlite");
    cfg->lease_ms = 30000;
    cfg->poll_ms = 1000;
    cfg->fetchers = 2;
}

bool cuzk__daemon_config_shared(const cuzk__daemon_config *cfg) {
    return strcmp(cfg->store, "sqlite") != 0;
}

/* ---- messages -------------------------------------------------------------- */

/* Where a value came from: "cuzk.conf:12: [engine] workers_per_device" for a
 * line of the file, "--engine.workers_per_device" for an override, "cuzk.conf:
 * [engine] workers_per_device" for a default. kname: the key section's name
 * (sec "key"); key may be NULL (the section itself). */
static void where(char *buf, size_t cap, const cuzk__daemon_config *cfg, unsigned line,
                  const char *sec, const char *kname, const char *key) {
    if (line == CUZK__CONF_OVERRIDE) {
        snprintf(buf, cap, "--%s%s%s%s%s", sec, kname ? "." : "", kname ? kname : "",
                 key ? "." : "", key ? key : "");
        return;
    }
    char at[1100] = "";
    if (cfg->source[0] != '\0' && line != CUZK__CONF_DEFAULT)
        snprintf(at, sizeof(at), "%s:%u: ", cfg->source, line);
    else if (cfg->source[0] != '\0')
        snprintf(at, sizeof(at), "%s: ", cfg->source);
    snprintf(buf, cap, "%s[%s%s%s]%s%s", at, sec, kname ? " " : "", kname ? kname : "",
             key ? " " : "", key ? key : "");
}

/* " at line N" or " on the command line", for a second value a message
 * points back to. */
static const char *at_line(char *buf, size_t cap, unsigned line) {
    if (line == CUZK__CONF_OVERRIDE)
        snprintf(buf, cap, " on the command line");
    else
        snprintf(buf, cap, " at line %u", line);
    return buf;
}

/* Edit distance of two short words (each cut at 64 bytes). */
static size_t distance(const char *a, const char *b) {
    size_t na = strlen(a), nb = strlen(b);
    if (na > 64) na = 64;
    if (nb > 64) nb = 64;
    size_t row[65];
    for (size_t j = 0; j <= nb; j++) row[j] = j;
    for (size_t i = 1; i <= na; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= nb; j++) {
            const size_t up = row[j];
            size_t best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best) best = up + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[nb];
}

/* The candidate within two edits of word (the nearest), or NULL. */
static const char *nearest(const char *word, const char *const *cand, size_t n) {
    const char *best = NULL;
    size_t best_d = 3;
    for (size_t i = 0; i < n; i++) {
        const size_t d = distance(word, cand[i]);
        if (d < best_d && d < strlen(word)) {
            best = cand[i];
            best_d = d;
        }
    }
    return best;
}

/* ---- values ---------------------------------------------------------------- */

/* A decimal number: 1 read, 0 not a number, -1 too large for 64 bits. */
static int read_u64(const char *v, size_t n, uint64_t *out) {
    if (n == 0) return 0;
    uint64_t x = 0;
    for (size_t i = 0; i < n; i++) {
        if (v[i] < '0' || v[i] > '9') return 0;
        const unsigned d = (unsigned)(v[i] - '0');
        if (x > (UINT64_MAX - d) / 10) return -1;
        x = x * 10 + d;
    }
    *out = x;
    return 1;
}

/* A size for messages: the largest binary suffix that divides it ("64M"). */
static void fmt_size(char *buf, size_t cap, uint64_t v) {
    static const char suffix[] = "KMGT";
    int k = -1;
    while (k < 3 && v != 0 && v % 1024 == 0) {
        v /= 1024;
        k++;
    }
    if (k < 0)
        snprintf(buf, cap, "%llu", (unsigned long long)v);
    else
        snprintf(buf, cap, "%llu%c", (unsigned long long)v, suffix[k]);
}

/* A number with an optional K, M, G or T (binary; "KiB" etc. too): 1 read,
 * 0 not a size, -1 too large. */
static int read_size(const char *v, uint64_t *out) {
    size_t n = 0;
    while (v[n] >= '0' && v[n] <= '9') n++;
    uint64_t x;
    const int r = read_u64(v, n, &x);
    if (r <= 0) return r;
    const char *suf = v + n;
    unsigned shift = 0;
    if (*suf != '\0') {
        static const char units[] = "KMGT";
        const char u = (char)(suf[0] & ~0x20);
        const char *p = u != '\0' ? strchr(units, u) : NULL;
        if (p == NULL) return 0;
        shift = 10u * (unsigned)(p - units + 1);
        if (suf[1] != '\0' && strcmp(suf + 1, "iB") != 0) return 0;
    }
    if (shift != 0 && x > (UINT64_MAX >> shift)) return -1;
    *out = x << shift;
    return 1;
}

static int read_bool(const char *v, int *out) {
    static const char *const yes[] = {"true", "yes", "1"}, *const no[] = {"false", "no", "0"};
    for (int i = 0; i < 3; i++) {
        if (strcasecmp(v, yes[i]) == 0) {
            *out = 1;
            return 1;
        }
        if (strcasecmp(v, no[i]) == 0) {
            *out = 0;
            return 1;
        }
    }
    return 0;
}

/* host:port or [v6]:port into host (no brackets) and port; why on failure. */
static int read_listen(const char *v, char *host, size_t hcap, unsigned *port, char *why,
                       size_t wcap) {
    const char *h, *he, *p;
    if (v[0] == '[') {
        h = v + 1;
        he = strchr(h, ']');
        if (he == NULL) {
            snprintf(why, wcap, "\"%s\": an IPv6 address without its ]", v);
            return 0;
        }
        for (const char *c = h; c < he; c++)
            if (!((*c >= '0' && *c <= '9') || ((*c | 0x20) >= 'a' && (*c | 0x20) <= 'f') ||
                  *c == ':' || *c == '.')) {
                snprintf(why, wcap, "\"%s\": not an IPv6 address in brackets", v);
                return 0;
            }
        if (he[1] != ':') {
            snprintf(why, wcap, "\"%s\": needs :PORT after the ]", v);
            return 0;
        }
        p = he + 2;
    } else {
        const char *colon = strrchr(v, ':');
        if (colon == NULL) {
            snprintf(why, wcap, "\"%s\": needs HOST:PORT (as 127.0.0.1:8080)", v);
            return 0;
        }
        if (memchr(v, ':', (size_t)(colon - v)) != NULL) {
            snprintf(why, wcap, "\"%s\": an IPv6 address goes in brackets, as [::1]:8080", v);
            return 0;
        }
        h = v;
        he = colon;
        for (const char *c = h; c < he; c++)
            if (!((*c >= '0' && *c <= '9') || ((*c | 0x20) >= 'a' && (*c | 0x20) <= 'z') ||
                  *c == '.' || *c == '-')) {
                snprintf(why, wcap, "\"%s\": not a host name or address", v);
                return 0;
            }
        p = colon + 1;
    }
    if (he == h) {
        snprintf(why, wcap, "\"%s\": no host (0.0.0.0:PORT or [::]:PORT listens everywhere)", v);
        return 0;
    }
    if ((size_t)(he - h) > 253 || (size_t)(he - h) >= hcap) {
        snprintf(why, wcap, "\"%.64s...\": the host is longer than 253 bytes", v);
        return 0;
    }
    uint64_t pn;
    if (read_u64(p, strlen(p), &pn) != 1 || pn > 65535) {
        snprintf(why, wcap, "\"%s\": the port must be a number in 0..65535 (0: any free port)", v);
        return 0;
    }
    memcpy(host, h, (size_t)(he - h));
    host[he - h] = '\0';
    *port = (unsigned)pn;
    return 1;
}

/* "", "all" or "0,1,...": 1 read, 0 refused (why set). */
static int read_devices(const char *v, int *dev, size_t *n, int *all, char *why, size_t wcap) {
    *n = 0;
    *all = 0;
    if (v[0] == '\0') return 1;
    if (strcasecmp(v, "all") == 0) {
        *all = 1;
        return 1;
    }
    const char *p = v;
    for (;;) {
        while (*p == ' ' || *p == '\t') p++;
        size_t len = 0;
        while (p[len] != '\0' && p[len] != ',' && p[len] != ' ' && p[len] != '\t') len++;
        const char *q = p + len;
        while (*q == ' ' || *q == '\t') q++;
        uint64_t d;
        if (len == 0 || (*q != ',' && *q != '\0') || read_u64(p, len, &d) != 1 ||
            d > DEVICE_ORDINAL_MAX) {
            snprintf(why, wcap,
                     "\"%s\": not a list of GPU ordinals (0..%d, as 0,1), \"all\" or empty", v,
                     DEVICE_ORDINAL_MAX);
            return 0;
        }
        if (*n == CUZK_MAX_LANES) {
            snprintf(why, wcap, "\"%.64s...\": more than %d devices", v, CUZK_MAX_LANES);
            return 0;
        }
        dev[(*n)++] = (int)d;
        if (*q == '\0') return 1;
        p = q + 1;
    }
}

/* v resolved against base (NULL or "": as written) into out; 0 when it
 * does not fit cap. */
static int resolve(char *out, size_t cap, const char *v, const char *base) {
    int n;
    if (v[0] == '\0' || v[0] == '/' || base == NULL || base[0] == '\0')
        n = snprintf(out, cap, "%s", v);
    else
        n = snprintf(out, cap, "%s%s%s", base, base[strlen(base) - 1] == '/' ? "" : "/", v);
    return n >= 0 && (size_t)n < cap;
}

static const char *backend_name(cuzk_backend_kind b) {
    return b == CUZK_BACKEND_CPU ? "cpu" : b == CUZK_BACKEND_GPU ? "gpu" : "auto";
}

/* ---- applying one value ---------------------------------------------------- */

static cuzk_status unknown_key(const cuzk__daemon_config *cfg, unsigned line, int sec,
                               const char *kname, const char *key, cuzk_error *err) {
    const char *cand[CUZK__CONF_N_SETTINGS];
    size_t n = 0;
    if (sec == SEC_KEY) {
        for (; n < CUZK__KEY_N_FILES; n++) cand[n] = KEY_FILES[n];
    } else {
        for (size_t i = 0; i < CUZK__CONF_N_SETTINGS; i++)
            if (strcmp(SETTINGS[i].section, SECTIONS[sec]) == 0) cand[n++] = SETTINGS[i].key;
    }
    char known[400] = "";
    size_t used = 0;
    for (size_t i = 0; i < n && used < sizeof(known); i++)
        used += (size_t)snprintf(known + used, sizeof(known) - used, "%s%s", i ? ", " : "",
                                 cand[i]);
    char w[1400], hint[100] = "";
    const char *near = nearest(key, cand, n);
    if (near != NULL) snprintf(hint, sizeof(hint), "did you mean %s? ", near);
    where(w, sizeof(w), cfg, line, sec == SEC_KEY ? "key" : SECTIONS[sec], kname, key);
    return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "%s: unknown key (%sknown: %s)", w, hint, known);
}

/* A value for a fixed section's setting s: checked, then stored. */
static cuzk_status apply_setting(cuzk__daemon_config *cfg, size_t si, const char *v,
                                 unsigned line, const char *base, cuzk_error *err) {
    const setting *s = &SETTINGS[si];
    char w[1400], why[700] = "", lo[32], hi[32];
    where(w, sizeof(w), cfg, line, s->section, NULL, s->key);
    if (line != CUZK__CONF_OVERRIDE && cfg->line[si] != CUZK__CONF_DEFAULT)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "%s: given twice (first at line %u)", w,
                          cfg->line[si]);
    switch (s->kind) {
    case K_PATH: {
        char path[CUZK__CONF_PATH_MAX];
        if (v[0] == '\0' && !s->empty_ok)
            return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "%s: empty: a path is needed", w);
        if (!resolve(path, sizeof(path), v, base) || strlen(path) >= s->width)
            return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "%s: \"%.64s...\": longer than %zu bytes%s",
                              w, path, s->width - 1,
                              si == CUZK__CONF_UNIX_SOCKET ? " (what a socket address holds)" : "");
        memcpy((char *)cfg + s->off, path, strlen(path) + 1);
        break;
    }
    case K_MODE: {
        uint64_t m = 0;
        size_t n = strlen(v);
        bool ok = n > 0 && n <= 4;
        for (size_t i = 0; ok && i < n; i++) {
            ok = v[i] >= '0' && v[i] <= '7';
            m = m * 8 + (uint64_t)(v[i] - '0');
        }
        if (!ok || m > s->max)
            return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                              "%s: \"%s\": not an octal mode in 0000..0777 (as 0660)", w, v);
        put_u64(cfg, s, m);
        break;
    }
    case K_LISTEN: {
        char host[CUZK__CONF_PATH_MAX];
        unsigned port = 0;
        if (strlen(v) >= s->width)
            return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "%s: longer than %zu bytes", w,
                              s->width - 1);
        if (v[0] == '\0') {
            host[0] = '\0';
        } else if (!read_listen(v, host, sizeof(host), &port, why, sizeof(why))) {
            return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "%s: %s", w, why);
        }
        memcpy(cfg->tcp_listen, v, strlen(v) + 1);
        memcpy(cfg->tcp_host, host, strlen(host) + 1);
        cfg->tcp_port = port;
        break;
    }
    case K_UINT: {
        uint64_t x = 0;
        const int r = read_u64(v, strlen(v), &x);
        if (r == 0)
            return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "%s: \"%s\": not a number (%llu..%llu)",
                              w, v, (unsigned long long)s->min, (unsigned long long)s->max);
        if (r < 0 || x < s->min || x > s->max)
            return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "%s: %s: out of range %llu..%llu", w, v,
                              (unsigned long long)s->min, (unsigned long long)s->max);
        put_u64(cfg, s, x);
        break;
    }
    case K_SIZE: {
        uint64_t x = 0;
        const int r = read_size(v, &x);
        fmt_size(lo, sizeof(lo), s->min);
        fmt_size(hi, sizeof(hi), s->max);
        if (r == 0)
            return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                              "%s: \"%s\": not a size (bytes, or a number with K, M, G or T: "
                              "binary, 1K = 1024) in %s..%s",
                              w, v, lo, hi);
        if (r < 0 || x < s->min || x > s->max)
            return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "%s: %s: out of range %s..%s", w, v, lo,
                              hi);
        put_u64(cfg, s, x);
        break;
    }
    case K_BOOL: {
        int b;
        if (!read_bool(v, &b))
            return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                              "%s: \"%s\": not a boolean (true, false, yes, no, 1 or 0)", w, v);
        cfg->self_check = b;
        break;
    }
    case K_BACKEND: {
        cuzk_backend_kind b;
        if (strcasecmp(v, "auto") == 0)
            b = CUZK_BACKEND_AUTO;
        else if (strcasecmp(v, "cpu") == 0)
            b = CUZK_BACKEND_CPU;
        else if (strcasecmp(v, "gpu") == 0)
            b = CUZK_BACKEND_GPU;
        else
            return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "%s: \"%s\": must be auto, cpu or gpu",
                              w, v);
        cfg->backend = b;
        break;
    }
    case K_DEVICES: {
        int dev[CUZK_MAX_LANES];
        size_t n;
        int all;
        if (!read_devices(v, dev, &n, &all, why, sizeof(why)))
            return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "%s: %s", w, why);
        memcpy(cfg->devices, dev, n * sizeof(dev[0]));
        cfg->n_devices = n;
        cfg->devices_all = all;
        break;
    }
    case K_STORE: {
        /* the value is not echoed: a connection string may hold a password */
        const int pg = strncmp(v, "postgres://", 11) == 0 || strncmp(v, "postgresql://", 13) == 0 ||
                       strchr(v, '=') != NULL;
        if (strcmp(v, "sqlite") != 0 && !pg)
            return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                              "%s: neither sqlite nor a PostgreSQL connection string "
                              "(postgres://USER@HOST:PORT/DB, or host=... dbname=...)",
                              w);
        if (strlen(v) >= s->width)
            return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "%s: longer than %zu bytes", w,
                              s->width - 1);
        memcpy((char *)cfg + s->off, v, strlen(v) + 1);
        break;
    }
    case K_NAME: {
        if (strlen(v) >= s->width)
            return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "%s: longer than %zu bytes", w,
                              s->width - 1);
        memcpy((char *)cfg + s->off, v, strlen(v) + 1);
        break;
    }
    }
    cfg->line[si] = line;
    return CUZK_OK;
}

/* A file of key section k. An empty value removes the file (overrides
 * only: a file must name one). */
static cuzk_status apply_key_file(cuzk__daemon_config *cfg, cuzk__daemon_key *k, const char *key,
                                  const char *v, unsigned line, const char *base,
                                  cuzk_error *err) {
    size_t f = 0;
    while (f < CUZK__KEY_N_FILES && strcmp(key, KEY_FILES[f]) != 0) f++;
    if (f == CUZK__KEY_N_FILES) return unknown_key(cfg, line, SEC_KEY, k->name, key, err);
    char w[1400];
    where(w, sizeof(w), cfg, line, "key", k->name, key);
    if (line != CUZK__CONF_OVERRIDE && k->path[f] != NULL)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "%s: given twice (first at line %u)", w,
                          k->path_line[f]);
    if (v[0] == '\0' && line != CUZK__CONF_OVERRIDE)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "%s: empty: a path is needed", w);
    char *copy = NULL;
    if (v[0] != '\0') {
        char path[CUZK__CONF_PATH_MAX];
        if (!resolve(path, sizeof(path), v, base))
            return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "%s: longer than %u bytes", w,
                              CUZK__CONF_PATH_MAX - 1);
        copy = cuzk__strdup(path);
        if (copy == NULL) return cuzk__fail(err, CUZK_ERR_NOMEM, "%s: no memory", w);
    }
    free(k->path[f]);
    k->path[f] = copy;
    k->path_line[f] = copy != NULL ? line : CUZK__CONF_DEFAULT;
    return CUZK_OK;
}

static bool key_name_ok(const char *s, size_t n) {
    if (n == 0 || n > CUZK__CONF_KEY_NAME_MAX) return false;
    for (size_t i = 0; i < n; i++) {
        const char c = s[i];
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '-'))
            return false;
    }
    return true;
}

bool cuzk__daemon_key_name_ok(const char *s) { return key_name_ok(s, strlen(s)); }

static cuzk__daemon_key *find_key(cuzk__daemon_config *cfg, const char *name, size_t n) {
    for (size_t i = 0; i < cfg->n_keys; i++)
        if (strlen(cfg->keys[i].name) == n && memcmp(cfg->keys[i].name, name, n) == 0)
            return &cfg->keys[i];
    return NULL;
}

/* A new key section (the name checked by the caller). */
static cuzk_status add_key(cuzk__daemon_config *cfg, const char *name, size_t n, unsigned line,
                           const char *w, cuzk__daemon_key **out, cuzk_error *err) {
    if (cfg->n_keys == CUZK__CONF_MAX_KEYS)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "%s: more than %u key sections", w,
                          CUZK__CONF_MAX_KEYS);
    if (cfg->n_keys == cfg->cap_keys) {
        const size_t cap = cfg->cap_keys ? 2 * cfg->cap_keys : 8;
        cuzk__daemon_key *k = realloc(cfg->keys, cap * sizeof(*k));
        if (k == NULL) return cuzk__fail(err, CUZK_ERR_NOMEM, "%s: no memory", w);
        cfg->keys = k;
        cfg->cap_keys = cap;
    }
    cuzk__daemon_key *k = &cfg->keys[cfg->n_keys++];
    memset(k, 0, sizeof(*k));
    memcpy(k->name, name, n);
    k->line = line;
    *out = k;
    return CUZK_OK;
}

/* ---- the file -------------------------------------------------------------- */

typedef struct {
    cuzk__daemon_config *cfg;
    const char *base;
    int sec;           /* -1 before the first header, 0..2 a fixed section, SEC_KEY */
    size_t key;        /* the key section, when sec is SEC_KEY */
    unsigned opened[N_FIXED];
} parser;

static bool is_space(char c) { return c == ' ' || c == '\t'; }

static cuzk_status header(parser *p, unsigned line, const char *s, size_t n, cuzk_error *err) {
    cuzk__daemon_config *cfg = p->cfg;
    const char *src = cfg->source;
    const char *close = memchr(s, ']', n);
    if (close == NULL)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                          "%s:%u: \"%.*s\": a section header without its ]", src, line,
                          (int)(n < 64 ? n : 64), s);
    for (const char *c = close + 1; c < s + n; c++) {
        if (*c == '#' || *c == ';') break;
        if (!is_space(*c))
            return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                              "%s:%u: text after the section header's ]", src, line);
    }
    const char *a = s + 1, *b = close;
    while (a < b && is_space(*a)) a++;
    while (b > a && is_space(b[-1])) b--;
    const char *we = a;
    while (we < b && !is_space(*we)) we++;
    const char *arg = we;
    while (arg < b && is_space(*arg)) arg++;
    const size_t wl = (size_t)(we - a), al = (size_t)(b - arg);
    for (int i = 0; i < N_FIXED; i++) {
        if (wl != strlen(SECTIONS[i]) || memcmp(a, SECTIONS[i], wl) != 0) continue;
        if (al != 0)
            return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                              "%s:%u: [%s %.*s]: [%s] takes no name", src, line, SECTIONS[i],
                              (int)(al < 64 ? al : 64), arg, SECTIONS[i]);
        if (p->opened[i] != 0)
            return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                              "%s:%u: [%s]: opened twice (first at line %u)", src, line,
                              SECTIONS[i], p->opened[i]);
        p->opened[i] = line;
        p->sec = i;
        return CUZK_OK;
    }
    if (wl == 3 && memcmp(a, "key", 3) == 0) {
        if (al == 0)
            return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                              "%s:%u: [key]: a key section needs a name: [key NAME]", src, line);
        if (!key_name_ok(arg, al))
            return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                              "%s:%u: [key %.*s]: a key's name is 1 to %u of A-Z a-z 0-9 . _ -",
                              src, line, (int)(al < 64 ? al : 64), arg, CUZK__CONF_KEY_NAME_MAX);
        const cuzk__daemon_key *old = find_key(cfg, arg, al);
        if (old != NULL)
            return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                              "%s:%u: [key %s]: opened twice (first at line %u)", src, line,
                              old->name, old->line);
        char w[1200];
        snprintf(w, sizeof(w), "%s:%u: [key %.*s]", src, line, (int)al, arg);
        cuzk__daemon_key *k;
        cuzk_status st = add_key(cfg, arg, al, line, w, &k, err);
        if (st != CUZK_OK) return st;
        p->sec = SEC_KEY;
        p->key = cfg->n_keys - 1;
        return CUZK_OK;
    }
    char word[65];
    snprintf(word, sizeof(word), "%.*s", (int)(wl < 64 ? wl : 64), a);
    static const char *const all[] = {"server", "store", "engine", "cluster", "key"};
    const char *near = nearest(word, all, 5);
    char hint[80] = "";
    if (near != NULL) snprintf(hint, sizeof(hint), "did you mean [%s%s]? ", near,
                               strcmp(near, "key") == 0 ? " NAME" : "");
    return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                      "%s:%u: [%.64s]: unknown section (%sknown: [server], [store], [engine], "
                      "[cluster], [key NAME])",
                      src, line, word, hint);
}

static cuzk_status assignment(parser *p, unsigned line, const char *s, size_t n,
                              cuzk_error *err) {
    cuzk__daemon_config *cfg = p->cfg;
    const char *src = cfg->source;
    const char *eq = memchr(s, '=', n);
    if (eq == NULL)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                          "%s:%u: \"%.*s\": expected key = value, or a [section]", src, line,
                          (int)(n < 64 ? n : 64), s);
    size_t kl = (size_t)(eq - s);
    while (kl > 0 && is_space(s[kl - 1])) kl--;
    if (kl == 0)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "%s:%u: a value without a key", src, line);
    for (size_t i = 0; i < kl; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
              (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
            return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                              "%s:%u: \"%.*s\": not a key name (letters, digits and _)", src,
                              line, (int)(kl < 64 ? kl : 64), s);
    char key[65];
    snprintf(key, sizeof(key), "%.*s", (int)(kl < 64 ? kl : 64), s);
    if (p->sec < 0)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "%s:%u: %s: a key before any [section]",
                          src, line, key);
    /* the value: quoted, or up to a comment that follows whitespace */
    const char *v = eq + 1, *end = s + n;
    while (v < end && is_space(*v)) v++;
    const char *ve;
    if (v < end && *v == '"') {
        v++;
        ve = memchr(v, '"', (size_t)(end - v));
        const char *sec = p->sec == SEC_KEY ? "key" : SECTIONS[p->sec];
        const char *kname = p->sec == SEC_KEY ? cfg->keys[p->key].name : NULL;
        char w[1400];
        if (ve == NULL) {
            where(w, sizeof(w), cfg, line, sec, kname, key);
            return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "%s: unterminated quote", w);
        }
        for (const char *c = ve + 1; c < end; c++) {
            if (*c == '#' || *c == ';') break;
            if (!is_space(*c)) {
                where(w, sizeof(w), cfg, line, sec, kname, key);
                return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "%s: text after the closing quote",
                                  w);
            }
        }
    } else {
        ve = v;
        while (ve < end && !((*ve == '#' || *ve == ';') && is_space(ve[-1]))) ve++;
        while (ve > v && is_space(ve[-1])) ve--;
        if (memchr(v, '"', (size_t)(ve - v)) != NULL) {
            char w[1400];
            where(w, sizeof(w), cfg, line, p->sec == SEC_KEY ? "key" : SECTIONS[p->sec],
                  p->sec == SEC_KEY ? cfg->keys[p->key].name : NULL, key);
            return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                              "%s: a double quote inside a value (a quoted value cannot hold one "
                              "either)",
                              w);
        }
    }
    char val[CUZK__CONF_MAX_LINE + 1];
    memcpy(val, v, (size_t)(ve - v));
    val[ve - v] = '\0';
    if (p->sec == SEC_KEY)
        return apply_key_file(cfg, &cfg->keys[p->key], key, val, line, p->base, err);
    for (size_t i = 0; i < CUZK__CONF_N_SETTINGS; i++)
        if (strcmp(SETTINGS[i].section, SECTIONS[p->sec]) == 0 &&
            strcmp(SETTINGS[i].key, key) == 0)
            return apply_setting(cfg, i, val, line, p->base, err);
    return unknown_key(cfg, line, p->sec, NULL, key, err);
}

static cuzk_status parse_lines(parser *p, const char *text, size_t len, cuzk_error *err) {
    const char *src = p->cfg->source;
    size_t pos = 0;
    unsigned line = 0;
    if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0) pos = 3; /* a UTF-8 byte order mark */
    while (pos < len) {
        line++;
        const char *s = text + pos;
        const char *nl = memchr(s, '\n', len - pos);
        size_t n = nl != NULL ? (size_t)(nl - s) : len - pos;
        pos += n + (nl != NULL);
        if (n > 0 && s[n - 1] == '\r') n--;
        if (n > CUZK__CONF_MAX_LINE)
            return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "%s:%u: longer than %u bytes", src, line,
                              CUZK__CONF_MAX_LINE);
        for (size_t i = 0; i < n; i++) {
            const unsigned char c = (unsigned char)s[i];
            if (c == 0)
                return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "%s:%u: a NUL byte at column %zu",
                                  src, line, i + 1);
            if ((c < 0x20 && c != '\t') || c == 0x7f)
                return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                                  "%s:%u: control byte 0x%02x at column %zu", src, line, c, i + 1);
        }
        while (n > 0 && is_space(*s)) {
            s++;
            n--;
        }
        while (n > 0 && is_space(s[n - 1])) n--;
        if (n == 0 || *s == '#' || *s == ';') continue;
        const cuzk_status st =
            *s == '[' ? header(p, line, s, n, err) : assignment(p, line, s, n, err);
        if (st != CUZK_OK) return st;
    }
    return CUZK_OK;
}

cuzk_status cuzk__daemon_config_parse(cuzk__daemon_config *cfg, const char *text, size_t len,
                                      const char *name, const char *base_dir, cuzk_error *err) {
    cuzk__error_clear(err);
    cuzk__daemon_config_defaults(cfg);
    snprintf(cfg->source, sizeof(cfg->source), "%s", name != NULL ? name : "config");
    cuzk_status st;
    if (text == NULL && len != 0)
        st = cuzk__fail(err, CUZK_ERR_INVALID_ARG, "%s: no text", cfg->source);
    else if (len > CUZK__CONF_MAX_BYTES)
        st = cuzk__fail(err, CUZK_ERR_BAD_LENGTH, "%s: %zu bytes: larger than the limit of %u",
                        cfg->source, len, CUZK__CONF_MAX_BYTES);
    else {
        parser p = {.cfg = cfg, .base = base_dir, .sec = -1};
        st = parse_lines(&p, text, len, err);
        if (st == CUZK_OK) st = cuzk__daemon_config_check(cfg, err);
    }
    if (st != CUZK_OK) cuzk__daemon_config_free(cfg);
    return st;
}

cuzk_status cuzk__daemon_config_load(cuzk__daemon_config *cfg, const char *path,
                                     cuzk_error *err) {
    cuzk__error_clear(err);
    cuzk__daemon_config_defaults(cfg);
    if (path == NULL) return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "config_load: NULL path");
    uint8_t *text;
    size_t len;
    cuzk_status st = cuzk__read_file(path, CUZK__CONF_MAX_BYTES, &text, &len, err);
    if (st != CUZK_OK) return st;
    /* relative paths in it are relative to its folder, made absolute */
    char dir[CUZK__CONF_PATH_MAX], base[PATH_MAX];
    snprintf(dir, sizeof(dir), "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash == NULL)
        snprintf(dir, sizeof(dir), ".");
    else if (slash == dir)
        dir[1] = '\0';
    else
        *slash = '\0';
    const char *b = realpath(dir, base) != NULL ? base : dir;
    st = cuzk__daemon_config_parse(cfg, (const char *)text, len, path, b, err);
    free(text);
    return st;
}

/* ---- overrides ------------------------------------------------------------- */

cuzk_status cuzk__daemon_config_set(cuzk__daemon_config *cfg, const char *name,
                                    const char *value, cuzk_error *err) {
    cuzk__error_clear(err);
    if (cfg == NULL || name == NULL || value == NULL)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "config_set: NULL argument");
    const size_t vl = strlen(value);
    if (vl > CUZK__CONF_MAX_LINE)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "--%.64s: longer than %u bytes", name,
                          CUZK__CONF_MAX_LINE);
    for (size_t i = 0; i < vl; i++) {
        const unsigned char c = (unsigned char)value[i];
        if ((c < 0x20 && c != '\t') || c == 0x7f)
            return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "--%.64s: control byte 0x%02x in the value",
                              name, c);
        if (c == '"')
            return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                              "--%.64s: a double quote in the value (no value holds one)", name);
    }
    /* values are trimmed, as in a file */
    char val[CUZK__CONF_MAX_LINE + 1];
    const char *v = value;
    while (is_space(*v)) v++;
    size_t n = strlen(v);
    while (n > 0 && is_space(v[n - 1])) n--;
    memcpy(val, v, n);
    val[n] = '\0';
    char cwd[PATH_MAX];
    const char *base = getcwd(cwd, sizeof(cwd));

    const char *dot = strchr(name, '.');
    const size_t sl = dot != NULL ? (size_t)(dot - name) : strlen(name);
    for (size_t i = 0; dot != NULL && i < CUZK__CONF_N_SETTINGS; i++)
        if (strlen(SETTINGS[i].section) == sl && memcmp(SETTINGS[i].section, name, sl) == 0 &&
            strcmp(SETTINGS[i].key, dot + 1) == 0)
            return apply_setting(cfg, i, val, CUZK__CONF_OVERRIDE, base, err);
    for (int s = 0; dot != NULL && s < N_FIXED; s++)
        if (strlen(SECTIONS[s]) == sl && memcmp(SECTIONS[s], name, sl) == 0)
            return unknown_key(cfg, CUZK__CONF_OVERRIDE, s, NULL, dot + 1, err);
    if (dot != NULL && sl == 3 && memcmp(name, "key", 3) == 0) {
        const char *kn = dot + 1, *last = strrchr(kn, '.');
        if (last == NULL || last == kn)
            return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                              "--%.64s: a key's file is set as key.NAME.FILE (FILE: zkey, r1cs, "
                              "circuit or params)",
                              name);
        const size_t kl = (size_t)(last - kn);
        if (!key_name_ok(kn, kl))
            return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                              "--%.64s: a key's name is 1 to %u of A-Z a-z 0-9 . _ -", name,
                              CUZK__CONF_KEY_NAME_MAX);
        cuzk__daemon_key *k = find_key(cfg, kn, kl);
        const int added = k == NULL;
        if (added) {
            char w[200];
            snprintf(w, sizeof(w), "--%.64s", name);
            cuzk_status st = add_key(cfg, kn, kl, CUZK__CONF_OVERRIDE, w, &k, err);
            if (st != CUZK_OK) return st;
        }
        cuzk_status st = apply_key_file(cfg, k, last + 1, val, CUZK__CONF_OVERRIDE, base, err);
        if (st != CUZK_OK && added) cfg->n_keys--; /* as it was: a new key holds no file yet */
        return st;
    }
    return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                      "--%.64s: unknown setting (SECTION.KEY, SECTION one of server, store, "
                      "engine, cluster; or key.NAME.FILE)",
                      name);
}

/* ---- checks across settings ------------------------------------------------ */

static cuzk_status read_token(cuzk__daemon_config *cfg, cuzk_error *err) {
    char w[1400];
    where(w, sizeof(w), cfg, cfg->line[CUZK__CONF_TOKEN_FILE], "server", NULL, "token_file");
    const char *path = cfg->token_file;
    /* O_NONBLOCK: a FIFO must not hang the open; it is refused below */
    const int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0)
        return cuzk__fail(err, CUZK_ERR_IO, "%s: %s: cannot open: %s", w, path, strerror(errno));
    struct stat sb;
    cuzk_status st = CUZK_OK;
    char buf[CUZK__CONF_TOKEN_MAX * 4 + 1];
    size_t n = 0;
    if (fstat(fd, &sb) != 0) {
        st = cuzk__fail(err, CUZK_ERR_IO, "%s: %s: cannot stat: %s", w, path, strerror(errno));
    } else if (!S_ISREG(sb.st_mode)) {
        st = cuzk__fail(err, CUZK_ERR_INVALID_ARG, "%s: %s: not a regular file", w, path);
    } else if ((sb.st_mode & 077) != 0) {
        st = cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                        "%s: %s: mode %04o lets group or others at the token (chmod 600 it)", w,
                        path, (unsigned)(sb.st_mode & 07777));
    } else {
        for (;;) {
            const ssize_t r = read(fd, buf + n, sizeof(buf) - 1 - n);
            if (r < 0 && errno == EINTR) continue;
            if (r < 0) {
                st = cuzk__fail(err, CUZK_ERR_IO, "%s: %s: read error: %s", w, path,
                                strerror(errno));
                break;
            }
            if (r == 0 || (n += (size_t)r) == sizeof(buf) - 1) break;
        }
    }
    close(fd);
    if (st == CUZK_OK) {
        size_t a = 0, b = n;
        while (a < b && (is_space(buf[a]) || buf[a] == '\r' || buf[a] == '\n')) a++;
        while (b > a && (is_space(buf[b - 1]) || buf[b - 1] == '\r' || buf[b - 1] == '\n')) b--;
        bool printable = true;
        for (size_t i = a; i < b; i++) printable &= buf[i] > 0x20 && buf[i] < 0x7f;
        if (n == sizeof(buf) - 1 || b - a > CUZK__CONF_TOKEN_MAX || b - a < CUZK__CONF_TOKEN_MIN)
            st = cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                            "%s: %s: the token must be %u to %u characters (it has %zu%s)", w,
                            path, CUZK__CONF_TOKEN_MIN, CUZK__CONF_TOKEN_MAX, b - a,
                            n == sizeof(buf) - 1 ? " or more" : "");
        else if (!printable)
            st = cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                            "%s: %s: the token must be one word of printable ASCII", w, path);
        else {
            memcpy(cfg->token, buf + a, b - a);
            cfg->token[b - a] = '\0';
        }
    }
    cuzk__wipe(buf, sizeof(buf));
    return st;
}

static cuzk_status check_key(const cuzk__daemon_config *cfg, const cuzk__daemon_key *k,
                             cuzk_error *err) {
    char w[1400], at[40];
    const bool z = k->path[CUZK__KEY_ZKEY] != NULL, r = k->path[CUZK__KEY_R1CS] != NULL,
               c = k->path[CUZK__KEY_CIRCUIT] != NULL, p = k->path[CUZK__KEY_PARAMS] != NULL;
    if (!z && !r && !c && !p) {
        where(w, sizeof(w), cfg, k->line, "key", k->name, NULL);
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                          "%s: no files: zkey = FILE (r1cs = FILE optional), or circuit = FILE "
                          "and params = FILE",
                          w);
    }
    if (z && (c || p)) {
        const size_t f = c ? CUZK__KEY_CIRCUIT : CUZK__KEY_PARAMS;
        where(w, sizeof(w), cfg, k->path_line[f], "key", k->name, KEY_FILES[f]);
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                          "%s: a key is a zkey (r1cs optional) or a circuit with its params, not "
                          "both (zkey%s)",
                          w, at_line(at, sizeof(at), k->path_line[CUZK__KEY_ZKEY]));
    }
    if (r && !z) {
        where(w, sizeof(w), cfg, k->path_line[CUZK__KEY_R1CS], "key", k->name, "r1cs");
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                          "%s: goes with a zkey (a circuit key's constraints are in its circuit)",
                          w);
    }
    if (c != p) {
        const size_t f = c ? CUZK__KEY_CIRCUIT : CUZK__KEY_PARAMS;
        where(w, sizeof(w), cfg, k->path_line[f], "key", k->name, KEY_FILES[f]);
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "%s: needs %s too", w,
                          c ? "params (the circuit's bellman .params)"
                            : "circuit (the circuit the params were made for)");
    }
    return CUZK_OK;
}

cuzk_status cuzk__daemon_config_check(cuzk__daemon_config *cfg, cuzk_error *err) {
    cuzk__error_clear(err);
    char w[1400];
    cuzk__wipe(cfg->token, sizeof(cfg->token));
    if (cfg->unix_socket[0] == '\0' && cfg->tcp_listen[0] == '\0') {
        where(w, sizeof(w), cfg, CUZK__CONF_DEFAULT, "server", NULL, NULL);
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                          "%s: unix_socket and tcp_listen are both empty: nothing to listen on", w);
    }
    if (cfg->tcp_listen[0] != '\0' && cfg->token_file[0] == '\0') {
        where(w, sizeof(w), cfg, cfg->line[CUZK__CONF_TCP_LISTEN], "server", NULL, "tcp_listen");
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                          "%s: needs token_file (a file of mode 0600 holding the bearer token "
                          "that clients send)",
                          w);
    }
    if (cfg->token_file[0] != '\0') {
        const cuzk_status st = read_token(cfg, err);
        if (st != CUZK_OK) return st;
    }
    for (size_t i = 0; i < cfg->n_keys; i++) {
        const cuzk_status st = check_key(cfg, &cfg->keys[i], err);
        if (st != CUZK_OK) return st;
    }
    /* a heartbeat must come within the lease it renews */
    if (cfg->heartbeat_ms != 0 && cfg->heartbeat_ms >= cfg->lease_ms) {
        unsigned line = cfg->line[CUZK__CONF_HEARTBEAT_MS];
        where(w, sizeof(w), cfg, line, "cluster", NULL, "heartbeat_ms");
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                          "%s: %u: not shorter than lease_ms (%u); a third of it is usual", w,
                          cfg->heartbeat_ms, cfg->lease_ms);
    }
    return CUZK_OK;
}

void cuzk__daemon_config_free(cuzk__daemon_config *cfg) {
    if (cfg == NULL) return;
    for (size_t i = 0; i < cfg->n_keys; i++)
        for (size_t f = 0; f < CUZK__KEY_N_FILES; f++) free(cfg->keys[i].path[f]);
    free(cfg->keys);
    cuzk__wipe(cfg->token, sizeof(cfg->token));
    cuzk__daemon_config_defaults(cfg);
}

/* ---- uses ------------------------------------------------------------------ */

void cuzk__daemon_config_to_options(const cuzk__daemon_config *cfg, cuzk_options *ctx_opt,
                                    cuzk_engine_options *eng_opt) {
    cuzk_options_init(ctx_opt);
    cuzk_engine_options_init(eng_opt);
    ctx_opt->backend = cfg->backend;
    if (cfg->devices_all) {
        const int count = cuzk_gpu_count();
        for (int d = 0; d < count && d < CUZK_MAX_LANES; d++) ctx_opt->devices[d] = d;
        ctx_opt->n_devices = count < 0 ? 0 : count > CUZK_MAX_LANES ? CUZK_MAX_LANES : (size_t)count;
    } else {
        memcpy(ctx_opt->devices, cfg->devices, cfg->n_devices * sizeof(cfg->devices[0]));
        ctx_opt->n_devices = cfg->n_devices;
    }
    ctx_opt->cpu_lanes = cfg->cpu_lanes;
    ctx_opt->threads = cfg->threads;
    ctx_opt->auto_gpu_min_log = cfg->auto_gpu_min_log;
    ctx_opt->device_memory_limit = cfg->device_memory_limit;
    ctx_opt->self_check = cfg->self_check;
    eng_opt->workers_per_device = cfg->workers_per_device;
    eng_opt->max_queued_partitions = cfg->max_queued_partitions;
    eng_opt->host_memory_budget = cfg->host_memory_budget;
    eng_opt->max_retries = cfg->max_retries;
    eng_opt->key_cache_bytes = cfg->key_cache_bytes;
    eng_opt->timeline_events = cfg->timeline_events;
    eng_opt->batch_wait_ms = cfg->batch_wait_ms;
}

void cuzk__daemon_key_source(const cuzk__daemon_key *k, cuzk_key_source *src) {
    src->zkey = k->path[CUZK__KEY_ZKEY];
    src->r1cs = k->path[CUZK__KEY_R1CS];
    src->circuit = k->path[CUZK__KEY_CIRCUIT];
    src->params = k->path[CUZK__KEY_PARAMS];
}

typedef struct {
    char *p;
    size_t n, cap;
    bool failed;
} text_buf;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void put(text_buf *t, const char *fmt, ...) {
    if (t->failed) return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        const int k = vsnprintf(t->p + t->n, t->cap - t->n, fmt, ap);
        va_end(ap);
        if (k < 0) {
            t->failed = true;
            return;
        }
        if ((size_t)k < t->cap - t->n) {
            t->n += (size_t)k;
            return;
        }
        const size_t cap = 2 * t->cap + (size_t)k;
        char *p = realloc(t->p, cap);
        if (p == NULL) {
            t->failed = true;
            return;
        }
        t->p = p;
        t->cap = cap;
    }
}

char *cuzk__daemon_config_dump(const cuzk__daemon_config *cfg) {
    text_buf t = {malloc(4096), 0, 4096, false};
    if (t.p == NULL) return NULL;
    const char *sec = "";
    for (size_t i = 0; i < CUZK__CONF_N_SETTINGS; i++) {
        const setting *s = &SETTINGS[i];
        if (strcmp(sec, s->section) != 0) {
            put(&t, "%s[%s]\n", i ? "\n" : "", s->section);
            sec = s->section;
        }
        put(&t, "%s = ", s->key);
        char v[32];
        switch (s->kind) {
        case K_PATH:
        case K_LISTEN:
            put(&t, "\"%s\"\n", (const char *)cfg + s->off);
            break;
        case K_MODE:
            put(&t, "0%03llo\n", (unsigned long long)get_u64(cfg, s));
            break;
        case K_UINT:
            put(&t, "%llu\n", (unsigned long long)get_u64(cfg, s));
            break;
        case K_SIZE:
            fmt_size(v, sizeof(v), get_u64(cfg, s));
            put(&t, "%s\n", v);
            break;
        case K_BOOL:
            put(&t, "%s\n", cfg->self_check ? "true" : "false");
            break;
        case K_BACKEND:
            put(&t, "%s\n", backend_name(cfg->backend));
            break;
        case K_STORE:
        case K_NAME:
            put(&t, "\"%s\"\n", (const char *)cfg + s->off);
            break;
        case K_DEVICES:
            if (cfg->devices_all) put(&t, "all");
            for (size_t d = 0; !cfg->devices_all && d < cfg->n_devices; d++)
                put(&t, "%s%d", d ? "," : "", cfg->devices[d]);
            put(&t, "\n");
            break;
        }
    }
    for (size_t i = 0; i < cfg->n_keys; i++) {
        const cuzk__daemon_key *k = &cfg->keys[i];
        put(&t, "\n[key %s]\n", k->name);
        for (size_t f = 0; f < CUZK__KEY_N_FILES; f++)
            if (k->path[f] != NULL) put(&t, "%s = \"%s\"\n", KEY_FILES[f], k->path[f]);
    }
    if (t.failed) {
        free(t.p);
        return NULL;
    }
    return t.p;
}
