/*
 * config.h — the daemon's configuration: an INI file (doc/formats.md, "The
 * daemon's configuration"; every key with its default in
 * contrib/cuzk.conf.example) read into one struct, with command-line
 * overrides that go through the same checks.
 *
 * The syntax: `[section]` or `[key NAME]` headers, `key = value` lines,
 * whole-line comments starting with `#` or `;`, trailing comments after
 * whitespace, values trimmed or in double quotes (for spaces, `#` or `;`;
 * no escapes, and no value holds a `"`), one line per value. A file holds
 * at most CUZK__CONF_MAX_BYTES with lines of at most CUZK__CONF_MAX_LINE
 * bytes, no NUL or other control bytes (tabs excepted). Unknown sections
 * and keys, a key given twice in a section and a section opened twice are
 * refused: a typo is never ignored. Every message names where the value
 * came from: `cuzk.conf:12: [engine] workers_per_device: ...` for a file,
 * `--engine.workers_per_device: ...` for an override.
 *
 * Use:
 *     cuzk__daemon_config cfg;
 *     cuzk__daemon_config_load(&cfg, "cuzk.conf", &err);        (or _defaults)
 *     cuzk__daemon_config_set(&cfg, "engine.workers_per_device", "2", &err);
 *     cuzk__daemon_config_check(&cfg, &err);                   (after overrides)
 *     cuzk__daemon_config_to_options(&cfg, &ctx_opt, &eng_opt);
 *     ...
 *     cuzk__daemon_config_free(&cfg);
 */
#ifndef CUZK_SERVICE_CONFIG_H
#define CUZK_SERVICE_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

#define CUZK__CONF_MAX_BYTES (1u << 20) /* a configuration file */
#define CUZK__CONF_MAX_LINE 4096u       /* a line, without its newline */
#define CUZK__CONF_PATH_MAX 4096u       /* a path, with its NUL */
#define CUZK__CONF_SOCKET_PATH_MAX 107u /* a socket address's sun_path, without its NUL */
#define CUZK__CONF_KEY_NAME_MAX 64u     /* [key NAME]: [A-Za-z0-9._-]{1,64} */
#define CUZK__CONF_MAX_KEYS 1024u       /* [key NAME] sections */
#define CUZK__CONF_TOKEN_MIN 16u        /* the bearer token's length, trimmed */
#define CUZK__CONF_TOKEN_MAX 1024u
#define CUZK__CONF_NAME_MAX 255u        /* [cluster] name */

/* The settings of the fixed sections, in the order of the example file;
 * each has an entry in `line` below and a name ("server.unix_socket") from
 * cuzk__daemon_config_name. */
typedef enum {
    CUZK__CONF_UNIX_SOCKET,
    CUZK__CONF_UNIX_SOCKET_MODE,
    CUZK__CONF_TCP_LISTEN,
    CUZK__CONF_TOKEN_FILE,
    CUZK__CONF_MAX_BODY_BYTES,
    CUZK__CONF_REQUEST_TIMEOUT_S,
    CUZK__CONF_DATABASE,
    CUZK__CONF_SPOOL_DIR,
    CUZK__CONF_RESULT_RETENTION_S,
    CUZK__CONF_STORE,
    CUZK__CONF_BACKEND,
    CUZK__CONF_DEVICES,
    CUZK__CONF_CPU_LANES,
    CUZK__CONF_THREADS,
    CUZK__CONF_AUTO_GPU_MIN_LOG,
    CUZK__CONF_DEVICE_MEMORY_LIMIT,
    CUZK__CONF_SELF_CHECK,
    CUZK__CONF_WORKERS_PER_DEVICE,
    CUZK__CONF_MAX_QUEUED_PARTITIONS,
    CUZK__CONF_HOST_MEMORY_BUDGET,
    CUZK__CONF_KEY_CACHE_BYTES,
    CUZK__CONF_MAX_RETRIES,
    CUZK__CONF_TIMELINE_EVENTS,
    CUZK__CONF_BATCH_WAIT_MS,
    CUZK__CONF_CLUSTER_NAME,
    CUZK__CONF_LEASE_MS,
    CUZK__CONF_HEARTBEAT_MS,
    CUZK__CONF_POLL_MS,
    CUZK__CONF_FETCHERS,
    CUZK__CONF_N_SETTINGS
} cuzk__conf_setting;

/* The files of a [key NAME] section, as indices of cuzk__daemon_key.path. */
typedef enum {
    CUZK__KEY_ZKEY = 0,
    CUZK__KEY_R1CS = 1,
    CUZK__KEY_CIRCUIT = 2,
    CUZK__KEY_PARAMS = 3,
    CUZK__KEY_N_FILES = 4
} cuzk__key_file;

/* `line` values besides a line number: */
#define CUZK__CONF_DEFAULT 0u           /* not set: the default */
#define CUZK__CONF_OVERRIDE 0xffffffffu /* set by cuzk__daemon_config_set */

/* One [key NAME] section: a zkey (r1cs optional) or a circuit and its
 * params (cuzk_key_source). path[i] is malloc'd, NULL when absent. */
typedef struct {
    char name[CUZK__CONF_KEY_NAME_MAX + 1];
    unsigned line;                     /* the section's header (or CUZK__CONF_OVERRIDE) */
    char *path[CUZK__KEY_N_FILES];     /* resolved: see "paths" below */
    unsigned path_line[CUZK__KEY_N_FILES];
} cuzk__daemon_key;

/*
 * The configuration. Paths are resolved when read: a relative path in a
 * file against the file's folder, one from an override against the
 * working directory (a parse with no base_dir keeps them as written).
 * Strings are empty when off. Numbers carry the ranges documented in
 * contrib/cuzk.conf.example (for the engine's, those of include/cuzk.h).
 */
typedef struct {
    /* [server] */
    char unix_socket[CUZK__CONF_SOCKET_PATH_MAX + 1]; /* "": no Unix socket */
    unsigned unix_socket_mode;                        /* 0..0777, default 0660 */
    char tcp_listen[CUZK__CONF_PATH_MAX];             /* "host:port", "[v6]:port"; "": off */
    char tcp_host[CUZK__CONF_PATH_MAX];               /* ... its host (no brackets) */
    unsigned tcp_port;                                /* ... and port (0 when off) */
    char token_file[CUZK__CONF_PATH_MAX];
    char token[CUZK__CONF_TOKEN_MAX + 1]; /* the token_file's content, read by _check */
    uint64_t max_body_bytes;
    unsigned request_timeout_s;
    /* [store] */
    char database[CUZK__CONF_PATH_MAX];
    char spool_dir[CUZK__CONF_PATH_MAX];
    uint64_t result_retention_s;
    char store[CUZK__CONF_PATH_MAX]; /* "sqlite", or a PostgreSQL connection string */
    /* [engine]: cuzk_options ... */
    cuzk_backend_kind backend;
    int devices[CUZK_MAX_LANES]; /* n_devices 0 and devices_all 0: device 0 */
    size_t n_devices;
    int devices_all; /* "all": every GPU present, listed by _to_options */
    unsigned cpu_lanes, threads, auto_gpu_min_log;
    uint64_t device_memory_limit;
    int self_check;
    /* ... and cuzk_engine_options */
    unsigned workers_per_device;
    size_t max_queued_partitions;
    uint64_t host_memory_budget, key_cache_bytes;
    unsigned max_retries;
    size_t timeline_events;
    unsigned batch_wait_ms;
    /* [cluster]: daemons sharing a PostgreSQL store */
    char cluster_name[CUZK__CONF_NAME_MAX + 1]; /* "": hostname:pid */
    unsigned lease_ms, heartbeat_ms;            /* heartbeat 0: a third of the lease */
    unsigned poll_ms;                           /* claims and awaits look this often */
    unsigned fetchers; /* uploaded witnesses copied from the store at once */
    /* [key NAME] sections, in the order given */
    cuzk__daemon_key *keys;
    size_t n_keys, cap_keys;
    /* where each setting came from: a line of `source`, or the two values above */
    unsigned line[CUZK__CONF_N_SETTINGS];
    char source[1024]; /* the file's name in messages ("" for none) */
} cuzk__daemon_config;

/* The defaults (no file): a Unix socket at /run/cuzk/cuzk.sock, no TCP,
 * the SQLite store under /var/lib/cuzk, the engine's defaults, no keys. */
void cuzk__daemon_config_defaults(cuzk__daemon_config *cfg);

/*
 * Reads path (at most CUZK__CONF_MAX_BYTES) and parses it as
 * cuzk__daemon_config_parse does, with path in the messages and relative
 * paths resolved against the file's folder.
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__daemon_config_load(cuzk__daemon_config *cfg,
                                                             const char *path, cuzk_error *err);

/*
 * The defaults, then every line of text (len bytes, no NUL needed after
 * them), then cuzk__daemon_config_check. name is the file's name in
 * messages; base_dir (NULL or "": none) the folder relative paths are
 * resolved against. CUZK_ERR_INVALID_ARG for anything wrong in the text,
 * CUZK_ERR_BAD_LENGTH for text over CUZK__CONF_MAX_BYTES, CUZK_ERR_IO for a
 * token file that cannot be read, CUZK_ERR_NOMEM. On failure cfg holds the
 * defaults (nothing to free).
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__daemon_config_parse(cuzk__daemon_config *cfg,
                                                              const char *text, size_t len,
                                                              const char *name,
                                                              const char *base_dir,
                                                              cuzk_error *err);

/*
 * One setting from the command line: "section.key" ("engine.devices") or
 * "key.NAME.file" ("key.porep.zkey", which adds the key section when it is
 * new; an empty value removes that file), with the checks a file's value
 * gets and messages naming "--section.key". Replaces what the file said.
 * Checks across settings (a TCP listener's token, a key's form) wait for
 * cuzk__daemon_config_check. On failure cfg is unchanged.
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__daemon_config_set(cuzk__daemon_config *cfg,
                                                            const char *name, const char *value,
                                                            cuzk_error *err);

/*
 * What no single value can say: some listener is on (unix_socket or
 * tcp_listen); tcp_listen has a token_file; the token file, when named, is
 * a regular file with no permission for group or others, holding one token
 * of CUZK__CONF_TOKEN_MIN..MAX printable characters (surrounding
 * whitespace dropped), which it reads into cfg->token; each key section
 * is a zkey (r1cs optional) or a circuit with its params. _parse and _load
 * end with it; call it again after overrides.
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__daemon_config_check(cuzk__daemon_config *cfg,
                                                              cuzk_error *err);

/* Frees the key sections and wipes the token; cfg then holds the
 * defaults. */
void cuzk__daemon_config_free(cuzk__daemon_config *cfg);

/* Initializes both with cuzk_options_init / cuzk_engine_options_init and
 * fills them from [engine] ("all" devices: every GPU cuzk_gpu_count sees). */
void cuzk__daemon_config_to_options(const cuzk__daemon_config *cfg, cuzk_options *ctx_opt,
                                    cuzk_engine_options *eng_opt);

/* 1 when s is a key's name as [key NAME] takes it: 1 to 64 of A-Z a-z
 * 0-9 . _ - */
bool cuzk__daemon_key_name_ok(const char *s);

/* A key section's files as the engine takes them (cuzk_engine_key_add);
 * borrowed from k. */
void cuzk__daemon_key_source(const cuzk__daemon_key *k, cuzk_key_source *src);

/* The configuration as a file that parses back to it (every setting,
 * strings quoted, then the key sections); malloc'd, NUL-terminated; NULL
 * when out of memory. The token is not in it (its file is). */
char *cuzk__daemon_config_dump(const cuzk__daemon_config *cfg);

/* 1 when the configuration's store is PostgreSQL (store is not "sqlite"). */
bool cuzk__daemon_config_shared(const cuzk__daemon_config *cfg);

/* "server.unix_socket", ... for each setting s < CUZK__CONF_N_SETTINGS;
 * "key.zkey", "key.r1cs", "key.circuit", "key.params" for
 * CUZK__CONF_N_SETTINGS + f (f < CUZK__KEY_N_FILES); NULL past them. */
const char *cuzk__daemon_config_name(size_t i);

#endif /* CUZK_SERVICE_CONFIG_H */
