/*
 * test_service_config.c — the daemon's configuration (src/service/config.h):
 * the defaults against the library's option defaults, a file that sets
 * everything (quotes, comments, CRLF, suffixes, both key forms), every class
 * of error with the line and key it must name and the defaults left behind,
 * the size limits at their edges, the token file's checks, command-line
 * overrides, relative paths, a dump that parses back to itself, the options
 * handed to the library (and accepted by it), and contrib/cuzk.conf.example:
 * it parses, states the real defaults, sets every key, and its commented key
 * sections parse too.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "service/config.h"
#include "test_util.h"

static char tmpdir[256];
static char source_dir[PATH_MAX];

static cuzk_status parse(cuzk__daemon_config *c, const char *text, cuzk_error *e) {
    return cuzk__daemon_config_parse(c, text, strlen(text), "t.conf", tmpdir, e);
}

static void tmp_path(char *out, size_t cap, const char *name) {
    snprintf(out, cap, "%s/%s", tmpdir, name);
}

static void write_text(const char *path, const char *text, mode_t mode) {
    CHECK(cuzk_test_write_file(path, text, strlen(text)));
    CHECK(chmod(path, mode) == 0);
}

static bool dump_equals(const cuzk__daemon_config *a, const cuzk__daemon_config *b) {
    char *da = cuzk__daemon_config_dump(a), *db = cuzk__daemon_config_dump(b);
    const bool eq = da != NULL && db != NULL && strcmp(da, db) == 0;
    if (!eq) fprintf(stderr, "--- dump\n%s--- differs from\n%s---\n", da ? da : "", db ? db : "");
    free(da);
    free(db);
    return eq;
}

/* A refused text leaves the defaults. */
static bool is_defaults(const cuzk__daemon_config *c) {
    cuzk__daemon_config d;
    cuzk__daemon_config_defaults(&d);
    bool lines = true;
    for (size_t i = 0; i < CUZK__CONF_N_SETTINGS; i++) lines &= c->line[i] == 0;
    return c->n_keys == 0 && c->keys == NULL && c->token[0] == '\0' && lines && dump_equals(c, &d);
}

/* ---- defaults -------------------------------------------------------------- */

static void test_defaults(void) {
    cuzk__daemon_config c;
    cuzk__daemon_config_defaults(&c);
    CHECK(strcmp(c.unix_socket, "/run/cuzk/cuzk.sock") == 0);
    CHECK_EQ_INT(c.unix_socket_mode, 0660);
    CHECK(c.tcp_listen[0] == '\0' && c.token_file[0] == '\0' && c.tcp_port == 0);
    CHECK(c.max_body_bytes == 64u << 20);
    CHECK_EQ_INT(c.request_timeout_s, 60);
    CHECK(strcmp(c.database, "/var/lib/cuzk/cuzk.db") == 0);
    CHECK(strcmp(c.spool_dir, "/var/lib/cuzk/spool") == 0);
    CHECK_EQ_INT(c.result_retention_s, 86400);
    CHECK(c.n_keys == 0 && c.n_devices == 0 && !c.devices_all);

    /* the engine's defaults are the library's */
    cuzk_options co, lo;
    cuzk_engine_options eo, leo;
    cuzk__daemon_config_to_options(&c, &co, &eo);
    cuzk_options_init(&lo);
    cuzk_engine_options_init(&leo);
    CHECK(co.struct_size == sizeof(co) && eo.struct_size == sizeof(eo));
    CHECK_EQ_INT(co.backend, lo.backend);
    CHECK_EQ_INT(co.n_devices, lo.n_devices);
    CHECK_EQ_INT(co.cpu_lanes, lo.cpu_lanes);
    CHECK_EQ_INT(co.threads, lo.threads);
    CHECK_EQ_INT(co.auto_gpu_min_log, lo.auto_gpu_min_log);
    CHECK(co.device_memory_limit == lo.device_memory_limit);
    CHECK(co.host_memory_limit == lo.host_memory_limit);
    CHECK_EQ_INT(co.self_check, lo.self_check);
    CHECK_EQ_INT(eo.workers_per_device, leo.workers_per_device);
    CHECK_EQ_INT(eo.max_queued_partitions, leo.max_queued_partitions);
    CHECK(eo.host_memory_budget == leo.host_memory_budget);
    CHECK_EQ_INT(eo.max_retries, leo.max_retries);
    CHECK(eo.key_cache_bytes == leo.key_cache_bytes);
    CHECK_EQ_INT(eo.timeline_events, leo.timeline_events);
    CHECK_EQ_INT(eo.batch_wait_ms, leo.batch_wait_ms);
    CHECK(eo.fault_stage == NULL && eo.start_paused == 0);

    /* an empty file is the defaults */
    cuzk_error e;
    CHECK(cuzk__daemon_config_parse(&c, "", 0, "t.conf", tmpdir, &e) == CUZK_OK);
    CHECK(is_defaults(&c));
    CHECK(strcmp(c.source, "t.conf") == 0);
    cuzk__daemon_config_free(&c);
    const char *comments = "# only a comment\n\n  ; another\n\t\n";
    CHECK(cuzk__daemon_config_parse(&c, comments, strlen(comments), "t.conf", NULL, &e) ==
          CUZK_OK);
    CHECK(is_defaults(&c));
    cuzk__daemon_config_free(&c);
}

/* ---- a file that sets everything -------------------------------------------- */

static const char *full_text =
    "\xef\xbb\xbf# every setting, none at its default\n"               /* 1 */
    "; a comment of the other kind\n"                                  /* 2 */
    "[server]   # the HTTP side\n"                                     /* 3 */
    "unix_socket = \"run dir/cuzk #1.sock\"   # quoted: a space and #\n" /* 4 */
    "\tunix_socket_mode = 600\r\n"                                     /* 5 */
    "tcp_listen = [::1]:8443 ; IPv6\n"                                 /* 6 */
    "token_file = token\n"                                             /* 7 */
    "max_body_bytes = 2GiB\n"                                          /* 8 */
    "request_timeout_s = 120\n"                                        /* 9 */
    "\n"                                                               /* 10 */
    "[store]\n"                                                        /* 11 */
    "database = db/cuzk.db\n"                                          /* 12 */
    "spool_dir = /srv/spool#x;y\n"                                     /* 13 */
    "result_retention_s=3600\n"                                        /* 14 */
    "store = \"postgres://prover@db.example:5433/curio\"\n"              /* 15 */
    "[ engine ]\n"                                                     /* 16 */
    "backend = GPU\n"                                                  /* 17 */
    "devices = 1, 0,3\n"                                               /* 18 */
    "cpu_lanes = 4\n"                                                  /* 19 */
    "threads = 8\n"                                                    /* 20 */
    "auto_gpu_min_log = 20\n"                                          /* 21 */
    "device_memory_limit = 40G\n"                                      /* 22 */
    "self_check = no\n"                                                /* 23 */
    "workers_per_device = 3\n"                                         /* 24 */
    "max_queued_partitions = 64\n"                                     /* 25 */
    "host_memory_budget = 512m\n"                                      /* 26 */
    "key_cache_bytes = 1T\n"                                           /* 27 */
    "max_retries = 0\n"                                                /* 28 */
    "timeline_events = 0\n"                                            /* 29 */
    "batch_wait_ms = 250\n"                                            /* 30 */
    "[cluster]\n"                                                      /* 31 */
    "name = \"node a\"\n"                                               /* 32 */
    "lease_ms = 5000\n"                                                /* 33 */
    "heartbeat_ms = 1000\n"                                            /* 34 */
    "poll_ms = 250\n"                                                  /* 35 */
    "fetchers = 3\n"                                                   /* 36 */
    "[key sha256]\n"                                                   /* 37 */
    "zkey = keys/sha.zkey\n"                                           /* 38 */
    "r1cs = /abs/sha.r1cs\n"                                           /* 39 */
    "[key   porep-32g.v1_a]\n"                                         /* 40 */
    "params = \"p q.params\"\n"                                        /* 41 */
    "circuit = c.cuzk"; /* 42, no newline at the end */

static void test_full_file(void) {
    char tok[300], want[600];
    tmp_path(tok, sizeof tok, "token");
    write_text(tok, "  0123456789abcdef-TOKEN_x\n", 0600);
    cuzk__daemon_config c;
    cuzk_error e;
    CHECK(parse(&c, full_text, &e) == CUZK_OK);
    if (e.status != CUZK_OK) fprintf(stderr, "  %s\n", e.msg);
    snprintf(want, sizeof want, "%s/run dir/cuzk #1.sock", tmpdir);
    CHECK(strcmp(c.unix_socket, want) == 0);
    CHECK_EQ_INT(c.unix_socket_mode, 0600);
    CHECK(strcmp(c.tcp_listen, "[::1]:8443") == 0);
    CHECK(strcmp(c.tcp_host, "::1") == 0);
    CHECK_EQ_INT(c.tcp_port, 8443);
    CHECK(strcmp(c.token_file, tok) == 0);
    CHECK(strcmp(c.token, "0123456789abcdef-TOKEN_x") == 0);
    CHECK(c.max_body_bytes == 2ull << 30);
    CHECK_EQ_INT(c.request_timeout_s, 120);
    snprintf(want, sizeof want, "%s/db/cuzk.db", tmpdir);
    CHECK(strcmp(c.database, want) == 0);
    CHECK(strcmp(c.spool_dir, "/srv/spool#x;y") == 0); /* no whitespace before #: no comment */
    CHECK_EQ_INT(c.result_retention_s, 3600);
    CHECK_EQ_INT(c.backend, CUZK_BACKEND_GPU);
    CHECK(c.n_devices == 3 && c.devices[0] == 1 && c.devices[1] == 0 && c.devices[2] == 3);
    CHECK(!c.devices_all);
    CHECK_EQ_INT(c.cpu_lanes, 4);
    CHECK_EQ_INT(c.threads, 8);
    CHECK_EQ_INT(c.auto_gpu_min_log, 20);
    CHECK(c.device_memory_limit == 40ull << 30);
    CHECK_EQ_INT(c.self_check, 0);
    CHECK_EQ_INT(c.workers_per_device, 3);
    CHECK_EQ_INT(c.max_queued_partitions, 64);
    CHECK(c.host_memory_budget == 512ull << 20);
    CHECK(c.key_cache_bytes == 1ull << 40);
    CHECK_EQ_INT(c.max_retries, 0);
    CHECK_EQ_INT(c.timeline_events, 0);
    CHECK_EQ_INT(c.batch_wait_ms, 250);
    CHECK(strcmp(c.store, "postgres://prover@db.example:5433/curio") == 0);
    CHECK(cuzk__daemon_config_shared(&c));
    CHECK(strcmp(c.cluster_name, "node a") == 0);
    CHECK_EQ_INT(c.lease_ms, 5000);
    CHECK_EQ_INT(c.heartbeat_ms, 1000);
    CHECK_EQ_INT(c.poll_ms, 250);
    CHECK_EQ_INT(c.fetchers, 3);
    /* where each came from */
    for (size_t i = 0; i < CUZK__CONF_N_SETTINGS; i++)
        CHECK_EQ_INT(c.line[i], i < 6 ? i + 4 : i < 10 ? i + 6 : i < 24 ? i + 7 : i + 8);
    CHECK(c.n_keys == 2);
    if (c.n_keys == 2) {
        const cuzk__daemon_key *k = &c.keys[0];
        CHECK(strcmp(k->name, "sha256") == 0 && k->line == 37);
        snprintf(want, sizeof want, "%s/keys/sha.zkey", tmpdir);
        CHECK(strcmp(k->path[CUZK__KEY_ZKEY], want) == 0);
        CHECK(strcmp(k->path[CUZK__KEY_R1CS], "/abs/sha.r1cs") == 0);
        CHECK(k->path[CUZK__KEY_CIRCUIT] == NULL && k->path[CUZK__KEY_PARAMS] == NULL);
        CHECK(k->path_line[CUZK__KEY_ZKEY] == 38 && k->path_line[CUZK__KEY_R1CS] == 39);
        cuzk_key_source src;
        cuzk__daemon_key_source(k, &src);
        CHECK(src.zkey == k->path[CUZK__KEY_ZKEY] && src.r1cs == k->path[CUZK__KEY_R1CS] &&
              src.circuit == NULL && src.params == NULL);
        k = &c.keys[1];
        CHECK(strcmp(k->name, "porep-32g.v1_a") == 0 && k->line == 40);
        snprintf(want, sizeof want, "%s/p q.params", tmpdir);
        CHECK(strcmp(k->path[CUZK__KEY_PARAMS], want) == 0);
        snprintf(want, sizeof want, "%s/c.cuzk", tmpdir);
        CHECK(strcmp(k->path[CUZK__KEY_CIRCUIT], want) == 0);
        CHECK(k->path[CUZK__KEY_ZKEY] == NULL && k->path[CUZK__KEY_R1CS] == NULL);
        CHECK(k->path_line[CUZK__KEY_PARAMS] == 41 && k->path_line[CUZK__KEY_CIRCUIT] == 42);
        cuzk_key_source src2;
        cuzk__daemon_key_source(k, &src2);
        CHECK(src2.circuit == k->path[CUZK__KEY_CIRCUIT] &&
              src2.params == k->path[CUZK__KEY_PARAMS] && src2.zkey == NULL);
    }

    /* into the library's options */
    cuzk_options co;
    cuzk_engine_options eo;
    cuzk__daemon_config_to_options(&c, &co, &eo);
    CHECK_EQ_INT(co.backend, CUZK_BACKEND_GPU);
    CHECK(co.n_devices == 3 && co.devices[0] == 1 && co.devices[1] == 0 && co.devices[2] == 3);
    CHECK_EQ_INT(co.cpu_lanes, 4);
    CHECK_EQ_INT(co.threads, 8);
    CHECK_EQ_INT(co.auto_gpu_min_log, 20);
    CHECK(co.device_memory_limit == 40ull << 30);
    CHECK_EQ_INT(co.self_check, 0);
    CHECK_EQ_INT(eo.workers_per_device, 3);
    CHECK_EQ_INT(eo.max_queued_partitions, 64);
    CHECK(eo.host_memory_budget == 512ull << 20);
    CHECK_EQ_INT(eo.max_retries, 0);
    CHECK(eo.key_cache_bytes == 1ull << 40);
    CHECK_EQ_INT(eo.timeline_events, 0);
    CHECK_EQ_INT(eo.batch_wait_ms, 250);

    /* the dump parses back to the same configuration */
    char *d = cuzk__daemon_config_dump(&c);
    CHECK(d != NULL);
    if (d != NULL) {
        cuzk__daemon_config c2;
        CHECK(cuzk__daemon_config_parse(&c2, d, strlen(d), "dump", "/elsewhere", &e) == CUZK_OK);
        CHECK(dump_equals(&c, &c2));
        CHECK(strcmp(c2.token, c.token) == 0);
        CHECK(strstr(d, "0123456789abcdef") == NULL); /* the token itself is not written */
        CHECK(strstr(d, "max_body_bytes = 2G\n") != NULL);
        CHECK(strstr(d, "unix_socket_mode = 0600\n") != NULL);
        CHECK(strstr(d, "devices = 1,0,3\n") != NULL);
        cuzk__daemon_config_free(&c2);
        free(d);
    }
    cuzk__daemon_config_free(&c);
    CHECK(is_defaults(&c)); /* free wipes the token and leaves the defaults */
}

/* ---- errors ---------------------------------------------------------------- */

typedef struct {
    const char *text;
    const char *want1, *want2;
} bad_case;

static void test_errors(void) {
    static const bad_case cases[] = {
        /* sections */
        {"[servre]\n", "t.conf:1: [servre]: unknown section", "did you mean [server]?"},
        {"\n[server x]\n", "t.conf:2: [server x]: [server] takes no name", NULL},
        {"[engine]\n[store]\n[engine]\n", "t.conf:3: [engine]: opened twice (first at line 1)",
         NULL},
        {"[engine\n", "t.conf:1:", "a section header without its ]"},
        {"[engine] threads = 1\n", "t.conf:1: text after the section header's ]", NULL},
        {"[key]\n", "t.conf:1: [key]: a key section needs a name", NULL},
        {"[key bad/name]\n", "t.conf:1: [key bad/name]: a key's name is 1 to 64", NULL},
        {"[key aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa]\n",
         "t.conf:1: [key aaaa", "a key's name is 1 to 64"},
        {"[key x]\nzkey = a\n[key x]\nzkey = b\n", "t.conf:3: [key x]: opened twice (first at line 1)",
         NULL},
        /* keys */
        {"[engine]\nworkers_per_devise = 2\n",
         "t.conf:2: [engine] workers_per_devise: unknown key (did you mean workers_per_device?",
         "known: backend, devices, cpu_lanes, threads"},
        {"[server]\nbind = x\n", "t.conf:2: [server] bind: unknown key (known: unix_socket,", NULL},
        {"[key x]\nzkey = a\npath = b\n", "t.conf:3: [key x] path: unknown key",
         "known: zkey, r1cs, circuit, params"},
        {"[engine]\nthreads = 1\n\nthreads = 2\n",
         "t.conf:4: [engine] threads: given twice (first at line 2)", NULL},
        {"[key x]\nzkey = a\nzkey = a\n", "t.conf:3: [key x] zkey: given twice (first at line 2)",
         NULL},
        {"threads = 1\n", "t.conf:1: threads: a key before any [section]", NULL},
        {"[engine]\nthreads\n", "t.conf:2:", "expected key = value"},
        {"[engine]\n = 3\n", "t.conf:2: a value without a key", NULL},
        {"[engine]\nthr eads = 3\n", "t.conf:2: \"thr eads\": not a key name", NULL},
        /* numbers and ranges */
        {"[engine]\nthreads = 4097\n", "t.conf:2: [engine] threads: 4097: out of range 0..4096",
         NULL},
        {"[engine]\nworkers_per_device = 17\n",
         "t.conf:2: [engine] workers_per_device: 17: out of range 0..16", NULL},
        {"[engine]\ncpu_lanes = 65\n", "[engine] cpu_lanes: 65: out of range 0..64", NULL},
        {"[engine]\nauto_gpu_min_log = 41\n", "auto_gpu_min_log: 41: out of range 0..40", NULL},
        {"[engine]\nmax_queued_partitions = 0\n",
         "max_queued_partitions: 0: out of range 1..16777216", NULL},
        {"[engine]\nmax_queued_partitions = 16777217\n", "out of range 1..16777216", NULL},
        {"[engine]\ntimeline_events = 16777217\n", "timeline_events: 16777217: out of range", NULL},
        {"[engine]\nmax_retries = 17\n", "max_retries: 17: out of range 0..16", NULL},
        {"[server]\nrequest_timeout_s = 0\n", "request_timeout_s: 0: out of range 1..86400", NULL},
        {"[store]\nresult_retention_s = 0\n", "result_retention_s: 0: out of range 1..315360000",
         NULL},
        {"[engine]\nthreads = 12x\n", "t.conf:2: [engine] threads: \"12x\": not a number (0..4096)",
         NULL},
        /* the store and the cluster */
        {"[store]\nstore = mysql://secret@h/db\n",
         "t.conf:2: [store] store: neither sqlite nor a PostgreSQL connection string", NULL},
        {"[cluster]\nlease_ms = 99\n", "t.conf:2: [cluster] lease_ms: 99: out of range 100..",
         NULL},
        {"[cluster]\npoll_ms = 5\n", "[cluster] poll_ms: 5: out of range 10..600000", NULL},
        {"[cluster]\nlease_ms = 3000\nheartbeat_ms = 3000\n",
         "t.conf:3: [cluster] heartbeat_ms: 3000: not shorter than lease_ms (3000)", NULL},
        {"[cluster]\nnodes = 3\n", "t.conf:2: [cluster] nodes: unknown key",
         "known: name, lease_ms, heartbeat_ms, poll_ms, fetchers"},
        {"[cluster]\nfetchers = 0\n", "[cluster] fetchers: 0: out of range 1..16", NULL},
        {"[engine]\nthreads = -1\n", "\"-1\": not a number", NULL},
        {"[engine]\nthreads = \n", "threads: \"\": not a number", NULL},
        {"[engine]\nthreads = 99999999999999999999999\n",
         "threads: 99999999999999999999999: out of range 0..4096", NULL},
        /* booleans, sizes, enumerations */
        {"[engine]\nself_check = maybe\n",
         "t.conf:2: [engine] self_check: \"maybe\": not a boolean (true, false, yes, no, 1 or 0)",
         NULL},
        {"[engine]\nself_check = on\n", "\"on\": not a boolean", NULL},
        {"[engine]\nhost_memory_budget = 4X\n",
         "t.conf:2: [engine] host_memory_budget: \"4X\": not a size", "in 0..1024T"},
        {"[engine]\nhost_memory_budget = 4GB\n", "\"4GB\": not a size", NULL},
        {"[engine]\nhost_memory_budget = G\n", "\"G\": not a size", NULL},
        {"[engine]\nkey_cache_bytes = 4 G\n", "\"4 G\": not a size", NULL},
        {"[engine]\nkey_cache_bytes = 1025T\n", "key_cache_bytes: 1025T: out of range 0..1024T",
         NULL},
        {"[engine]\ndevice_memory_limit = 18014398509481984K\n", "out of range 0..1024T", NULL},
        {"[server]\nmax_body_bytes = 1023\n", "max_body_bytes: 1023: out of range 1K..1T", NULL},
        {"[engine]\nbackend = tpu\n", "t.conf:2: [engine] backend: \"tpu\": must be auto, cpu or gpu",
         NULL},
        {"[engine]\ndevices = 0,,1\n", "t.conf:2: [engine] devices: \"0,,1\": not a list of GPU",
         NULL},
        {"[engine]\ndevices = 0,1,\n", "not a list of GPU ordinals", NULL},
        {"[engine]\ndevices = 256\n", "not a list of GPU ordinals (0..255", NULL},
        {"[engine]\ndevices = 0 1\n", "not a list of GPU ordinals", NULL},
        {"[server]\nunix_socket_mode = 0778\n",
         "t.conf:2: [server] unix_socket_mode: \"0778\": not an octal mode", NULL},
        {"[server]\nunix_socket_mode = 1777\n", "\"1777\": not an octal mode in 0000..0777", NULL},
        /* listeners and paths */
        {"[server]\ntcp_listen = ::1:80\n", "t.conf:2: [server] tcp_listen:",
         "an IPv6 address goes in brackets"},
        {"[server]\ntcp_listen = localhost\n", "needs HOST:PORT", NULL},
        {"[server]\ntcp_listen = :8080\n", "no host", NULL},
        {"[server]\ntcp_listen = [::1]8080\n", "needs :PORT after the ]", NULL},
        {"[server]\ntcp_listen = host:70000\n", "the port must be a number in 0..65535", NULL},
        {"[server]\ntcp_listen = ho st:80\n", "not a host name or address", NULL},
        {"[server]\ntcp_listen = 127.0.0.1:8080\n",
         "t.conf:2: [server] tcp_listen: needs token_file", NULL},
        {"[server]\nunix_socket = \"\"\n",
         "t.conf: [server]: unix_socket and tcp_listen are both empty", NULL},
        {"[server]\nunix_socket = /run/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
         "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.sock\n",
         "t.conf:2: [server] unix_socket:", "longer than 107 bytes (what a socket address holds)"},
        {"[store]\ndatabase =\n", "t.conf:2: [store] database: empty: a path is needed", NULL},
        {"[store]\nspool_dir = # nothing\n", "t.conf:2: [store] spool_dir: empty", NULL},
        {"[key x]\nzkey =\n", "t.conf:2: [key x] zkey: empty: a path is needed", NULL},
        /* quotes */
        {"[store]\ndatabase = \"/a b\n", "t.conf:2: [store] database: unterminated quote", NULL},
        {"[store]\ndatabase = \"\n", "t.conf:2: [store] database: unterminated quote", NULL},
        {"[store]\ndatabase = \"/a\" b\n", "t.conf:2: [store] database: text after the closing quote",
         NULL},
        {"[store]\ndatabase = /a\"b\n", "t.conf:2: [store] database: a double quote inside a value",
         NULL},
        /* key sections' forms */
        {"[key x]\nzkey = a.zkey\ncircuit = c.cuzk\nparams = p\n",
         "t.conf:3: [key x] circuit: a key is a zkey (r1cs optional) or a circuit with its params",
         "not both (zkey at line 2)"},
        {"[key x]\nparams = p\nzkey = a.zkey\n", "t.conf:2: [key x] params: a key is a zkey",
         "(zkey at line 3)"},
        {"[key x]\ncircuit = c\n", "t.conf:2: [key x] circuit: needs params", NULL},
        {"[key x]\nparams = p\n", "t.conf:2: [key x] params: needs circuit", NULL},
        {"[key x]\nr1cs = r\ncircuit = c\nparams = p\n", "t.conf:2: [key x] r1cs: goes with a zkey",
         NULL},
        {"[key y]\nzkey = z\n[key x]\n", "t.conf:3: [key x]: no files", NULL},
        /* bytes */
        {"[engine]\nthreads = 1\x01\n", "t.conf:2: control byte 0x01 at column 12", NULL},
        {"[engine]\r\nthreads = 1\r\r\n", "t.conf:2: control byte 0x0d at column 12", NULL},
        {"[engine]\nthreads = \x7f\n", "t.conf:2: control byte 0x7f", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cuzk__daemon_config c;
        cuzk_error e;
        e.status = CUZK_OK;
        EXPECT_FAIL(parse(&c, cases[i].text, &e), CUZK_ERR_INVALID_ARG, e, cases[i].want1,
                    cases[i].want2);
        CHECK(e.status == CUZK_ERR_INVALID_ARG);
        CHECK(strstr(e.msg, "secret") == NULL); /* a connection string is never echoed */
        if (!is_defaults(&c)) {
            CHECK(!"a refused file left something behind");
            fprintf(stderr, "  case %zu: %s\n", i, cases[i].text);
        }
        cuzk__daemon_config_free(&c);
    }

    /* a NUL byte, which a C string cannot carry */
    cuzk__daemon_config c;
    cuzk_error e;
    static const char nul[] = "[engine]\nthreads = 1\0\n";
    EXPECT_FAIL(cuzk__daemon_config_parse(&c, nul, sizeof nul - 1, "t.conf", NULL, &e),
                CUZK_ERR_INVALID_ARG, e, "t.conf:2: a NUL byte at column 12", NULL);
    CHECK(is_defaults(&c));
    /* the same text up to the NUL is fine */
    CHECK(cuzk__daemon_config_parse(&c, nul, sizeof nul - 3, "t.conf", NULL, &e) == CUZK_OK &&
          c.threads == 1);
    cuzk__daemon_config_free(&c);
    /* the text is read only as far as len: the same bytes past it are not seen */
    static const char cut[] = "[engine]\nthreads = 1\nbogus";
    CHECK(cuzk__daemon_config_parse(&c, cut, sizeof cut - 1 - 5, "t.conf", NULL, &e) == CUZK_OK);
    cuzk__daemon_config_free(&c);
    EXPECT_FAIL(cuzk__daemon_config_parse(&c, cut, sizeof cut - 1, "t.conf", NULL, &e),
                CUZK_ERR_INVALID_ARG, e, "t.conf:3:", "expected key = value");
    EXPECT_FAIL(cuzk__daemon_config_parse(&c, NULL, 3, "t.conf", NULL, &e), CUZK_ERR_INVALID_ARG,
                e, "t.conf", NULL);
}

/* ---- limits ---------------------------------------------------------------- */

static char *repeat(const char *head, char ch, size_t n, const char *tail) {
    const size_t hl = strlen(head), tl = strlen(tail);
    char *s = malloc(hl + n + tl + 1);
    if (s == NULL) abort();
    memcpy(s, head, hl);
    memset(s + hl, ch, n);
    memcpy(s + hl + n, tail, tl + 1);
    return s;
}

static void test_limits(void) {
    cuzk__daemon_config c;
    cuzk_error e;
    /* a line of 4096 bytes (and its CR), then one of 4097 */
    const char *head = "database = /";
    char *ok = repeat("[store]\ndatabase = /", 'x', 4096 - strlen(head), "\r\n");
    CHECK(parse(&c, ok, &e) == CUZK_OK && strlen(c.database) == 4096 - strlen(head) + 1);
    cuzk__daemon_config_free(&c);
    char *over = repeat("[store]\ndatabase = /", 'x', 4097 - strlen(head), "\n");
    EXPECT_FAIL(parse(&c, over, &e), CUZK_ERR_INVALID_ARG, e, "t.conf:2: longer than 4096 bytes",
                NULL);
    free(ok);
    free(over);
    /* the longest path that fits a line but not the buffer with the folder before it */
    char *rel = repeat("[store]\ndatabase = ", 'y', 4096 - strlen("database = "), "\n");
    EXPECT_FAIL(parse(&c, rel, &e), CUZK_ERR_INVALID_ARG, e, "t.conf:2: [store] database:",
                "longer than 4095 bytes");
    free(rel);

    /* 1 MiB of text, then one byte more */
    const size_t mib = CUZK__CONF_MAX_BYTES;
    char *big = repeat("#", 'c', mib - 2, "\n");
    for (size_t i = 1000; i < mib - 3; i += 1000) { /* lines of comments */
        big[i] = '\n';
        big[i + 1] = '#';
    }
    CHECK(cuzk__daemon_config_parse(&c, big, mib, "t.conf", NULL, &e) == CUZK_OK);
    cuzk__daemon_config_free(&c);
    char *bigger = repeat("#", 'c', mib - 1, "\n");
    for (size_t i = 1000; i < mib - 2; i += 1000) {
        bigger[i] = '\n';
        bigger[i + 1] = '#';
    }
    EXPECT_FAIL(cuzk__daemon_config_parse(&c, bigger, mib + 1, "t.conf", NULL, &e),
                CUZK_ERR_BAD_LENGTH, e, "t.conf: 1048577 bytes: larger than the limit", NULL);
    char path[300];
    tmp_path(path, sizeof path, "big.conf");
    CHECK(cuzk_test_write_file(path, bigger, mib + 1));
    EXPECT_FAIL(cuzk__daemon_config_load(&c, path, &e), CUZK_ERR_BAD_LENGTH, e, path,
                "larger than the limit");
    CHECK(cuzk_test_write_file(path, big, mib));
    CHECK(cuzk__daemon_config_load(&c, path, &e) == CUZK_OK);
    cuzk__daemon_config_free(&c);
    free(big);
    free(bigger);

    /* 1024 key sections, then 1025 */
    cuzk_test_buf b = {0};
    char line[100];
    for (unsigned i = 0; i < CUZK__CONF_MAX_KEYS; i++) {
        snprintf(line, sizeof line, "[key k%u]\nzkey = k%u.zkey\n", i, i);
        cuzk_test_put(&b, line, strlen(line));
    }
    CHECK(cuzk__daemon_config_parse(&c, (const char *)b.p, b.n, "t.conf", NULL, &e) == CUZK_OK);
    CHECK(c.n_keys == CUZK__CONF_MAX_KEYS &&
          strcmp(c.keys[CUZK__CONF_MAX_KEYS - 1].name, "k1023") == 0 &&
          strcmp(c.keys[CUZK__CONF_MAX_KEYS - 1].path[CUZK__KEY_ZKEY], "k1023.zkey") == 0);
    cuzk__daemon_config_free(&c);
    cuzk_test_put(&b, "[key one-more]\n", 15);
    EXPECT_FAIL(cuzk__daemon_config_parse(&c, (const char *)b.p, b.n, "t.conf", NULL, &e),
                CUZK_ERR_INVALID_ARG, e, "t.conf:2049: [key one-more]: more than 1024 key sections",
                NULL);
    CHECK(is_defaults(&c));
    free(b.p);

    /* 64 devices, then 65 */
    cuzk_test_buf d = {0};
    cuzk_test_put(&d, "[engine]\ndevices = 0", 20);
    for (int i = 1; i < CUZK_MAX_LANES; i++) {
        snprintf(line, sizeof line, ",%d", i % 8);
        cuzk_test_put(&d, line, strlen(line));
    }
    CHECK(cuzk__daemon_config_parse(&c, (const char *)d.p, d.n, "t.conf", NULL, &e) == CUZK_OK &&
          c.n_devices == CUZK_MAX_LANES && c.devices[63] == 7);
    cuzk__daemon_config_free(&c);
    cuzk_test_put(&d, ",1", 2);
    EXPECT_FAIL(cuzk__daemon_config_parse(&c, (const char *)d.p, d.n, "t.conf", NULL, &e),
                CUZK_ERR_INVALID_ARG, e, "t.conf:2: [engine] devices:", "more than 64 devices");
    free(d.p);
}

/* ---- the token file -------------------------------------------------------- */

static void test_token_file(void) {
    cuzk__daemon_config c;
    cuzk_error e;
    char tok[300];
    tmp_path(tok, sizeof tok, "tok");
    const char *text = "[server]\ntcp_listen = 127.0.0.1:9000\ntoken_file = tok\n";
    write_text(tok, "0123456789abcdef0123\n", 0644);
    EXPECT_FAIL(parse(&c, text, &e), CUZK_ERR_INVALID_ARG, e, "t.conf:3: [server] token_file:",
                "mode 0644 lets group or others at the token");
    CHECK(cuzk_test_msg_has(&e, tok));
    CHECK(is_defaults(&c));
    CHECK(chmod(tok, 0640) == 0);
    EXPECT_FAIL(parse(&c, text, &e), CUZK_ERR_INVALID_ARG, e, "mode 0640", NULL);
    CHECK(chmod(tok, 0602) == 0); /* writable by others: the token could be changed */
    EXPECT_FAIL(parse(&c, text, &e), CUZK_ERR_INVALID_ARG, e, "mode 0602", NULL);
    CHECK(chmod(tok, 0400) == 0);
    CHECK(parse(&c, text, &e) == CUZK_OK);
    CHECK(strcmp(c.token, "0123456789abcdef0123") == 0);
    CHECK(strcmp(c.tcp_host, "127.0.0.1") == 0 && c.tcp_port == 9000);
    CHECK(strcmp(c.unix_socket, "/run/cuzk/cuzk.sock") == 0); /* both listeners */
    cuzk__daemon_config_free(&c);
    CHECK(c.token[0] == '\0');

    /* the token: 16..1024 printable characters, one word */
    CHECK(chmod(tok, 0600) == 0);
    write_text(tok, "0123456789abcde\n", 0600);
    EXPECT_FAIL(parse(&c, text, &e), CUZK_ERR_INVALID_ARG, e, "t.conf:3: [server] token_file:",
                "16 to 1024 characters (it has 15)");
    write_text(tok, "0123456789 abcdef\n", 0600);
    EXPECT_FAIL(parse(&c, text, &e), CUZK_ERR_INVALID_ARG, e, "one word of printable ASCII", NULL);
    write_text(tok, "\n\n", 0600);
    EXPECT_FAIL(parse(&c, text, &e), CUZK_ERR_INVALID_ARG, e, "(it has 0)", NULL);
    char *long_tok = repeat("", 't', 1025, "\n");
    write_text(tok, long_tok, 0600);
    EXPECT_FAIL(parse(&c, text, &e), CUZK_ERR_INVALID_ARG, e, "(it has 1025)", NULL);
    long_tok[1024] = '\n';
    write_text(tok, long_tok, 0600);
    CHECK(parse(&c, text, &e) == CUZK_OK && strlen(c.token) == 1024);
    cuzk__daemon_config_free(&c);
    free(long_tok);
    char *huge = repeat("", 'h', 10000, "");
    write_text(tok, huge, 0600);
    EXPECT_FAIL(parse(&c, text, &e), CUZK_ERR_INVALID_ARG, e, "or more)", NULL);
    free(huge);

    /* missing, not a file, and a TCP listener without one */
    EXPECT_FAIL(parse(&c, "[server]\ntcp_listen = h:1\ntoken_file = none\n", &e), CUZK_ERR_IO, e,
                "t.conf:3: [server] token_file:", "cannot open");
    EXPECT_FAIL(parse(&c, "[server]\ntcp_listen = h:1\ntoken_file = .\n", &e),
                CUZK_ERR_INVALID_ARG, e, "not a regular file", NULL);
    EXPECT_FAIL(parse(&c, "[server]\ntoken_file = /dev/null\n", &e), CUZK_ERR_INVALID_ARG, e,
                "t.conf:2: [server] token_file: /dev/null: not a regular file", NULL);
    EXPECT_FAIL(parse(&c, "[server]\nunix_socket =\ntcp_listen = [::]:80\n", &e),
                CUZK_ERR_INVALID_ARG, e, "t.conf:3: [server] tcp_listen: needs token_file", NULL);
    /* TCP alone, no Unix socket */
    write_text(tok, "abcdefghijklmnopq", 0600);
    CHECK(parse(&c, "[server]\nunix_socket = \"\"\ntcp_listen = [::]:80\ntoken_file = tok\n", &e) ==
          CUZK_OK);
    CHECK(c.unix_socket[0] == '\0' && strcmp(c.tcp_host, "::") == 0 && c.tcp_port == 80 &&
          strcmp(c.token, "abcdefghijklmnopq") == 0);
    cuzk__daemon_config_free(&c);
}

/* ---- overrides ------------------------------------------------------------- */

static void test_overrides(void) {
    cuzk__daemon_config c;
    cuzk_error e;
    char tok[300], want[PATH_MAX + 50], cwd[PATH_MAX];
    tmp_path(tok, sizeof tok, "tok2");
    write_text(tok, "override-token-0123456789\n", 0600);
    CHECK(parse(&c, "[engine]\nthreads = 2\nworkers_per_device = 1\n[key k]\nzkey = k.zkey\n", &e) ==
          CUZK_OK);
    CHECK(cuzk__daemon_config_set(&c, "engine.threads", "8", &e) == CUZK_OK);
    CHECK(c.threads == 8 && c.line[CUZK__CONF_THREADS] == CUZK__CONF_OVERRIDE);
    CHECK(cuzk__daemon_config_set(&c, "engine.threads", " 9\t", &e) == CUZK_OK && c.threads == 9);
    /* the same checks as a file's value, named by the flag; nothing changes */
    EXPECT_FAIL(cuzk__daemon_config_set(&c, "engine.workers_per_device", "17", &e),
                CUZK_ERR_INVALID_ARG, e, "--engine.workers_per_device: 17: out of range 0..16",
                NULL);
    CHECK(c.workers_per_device == 1 && c.line[CUZK__CONF_WORKERS_PER_DEVICE] == 3);
    CHECK(cuzk__daemon_config_set(&c, "engine.workers_per_device", "2", &e) == CUZK_OK &&
          c.workers_per_device == 2);
    EXPECT_FAIL(cuzk__daemon_config_set(&c, "engine.workers_per_devise", "2", &e),
                CUZK_ERR_INVALID_ARG, e, "--engine.workers_per_devise: unknown key",
                "did you mean workers_per_device?");
    EXPECT_FAIL(cuzk__daemon_config_set(&c, "engin.threads", "2", &e), CUZK_ERR_INVALID_ARG, e,
                "--engin.threads: unknown setting", NULL);
    EXPECT_FAIL(cuzk__daemon_config_set(&c, "threads", "2", &e), CUZK_ERR_INVALID_ARG, e,
                "--threads: unknown setting", NULL);
    EXPECT_FAIL(cuzk__daemon_config_set(&c, "engine.self_check", "off", &e), CUZK_ERR_INVALID_ARG,
                e, "--engine.self_check: \"off\": not a boolean", NULL);
    CHECK(c.self_check == 1);
    CHECK(cuzk__daemon_config_set(&c, "engine.self_check", "No", &e) == CUZK_OK &&
          c.self_check == 0);
    EXPECT_FAIL(cuzk__daemon_config_set(&c, "engine.host_memory_budget", "3Q", &e),
                CUZK_ERR_INVALID_ARG, e, "--engine.host_memory_budget: \"3Q\": not a size", NULL);
    CHECK(cuzk__daemon_config_set(&c, "engine.devices", "all", &e) == CUZK_OK && c.devices_all);
    CHECK(cuzk__daemon_config_set(&c, "engine.devices", "2,3", &e) == CUZK_OK &&
          !c.devices_all && c.n_devices == 2 && c.devices[1] == 3);
    EXPECT_FAIL(cuzk__daemon_config_set(&c, "store.database", "/a\"b", &e), CUZK_ERR_INVALID_ARG,
                e, "--store.database: a double quote", NULL);
    EXPECT_FAIL(cuzk__daemon_config_set(&c, "store.database", "/a\nb", &e), CUZK_ERR_INVALID_ARG,
                e, "--store.database: control byte 0x0a", NULL);
    EXPECT_FAIL(cuzk__daemon_config_set(&c, "store.database", "", &e), CUZK_ERR_INVALID_ARG, e,
                "--store.database: empty: a path is needed", NULL);
    EXPECT_FAIL(cuzk__daemon_config_set(&c, NULL, "", &e), CUZK_ERR_INVALID_ARG, e, NULL, NULL);

    /* a relative path from the command line is relative to the working folder */
    CHECK(getcwd(cwd, sizeof cwd) != NULL);
    CHECK(cuzk__daemon_config_set(&c, "store.database", "rel/x.db", &e) == CUZK_OK);
    snprintf(want, sizeof want, "%s/rel/x.db", cwd);
    CHECK(strcmp(c.database, want) == 0);

    /* checks across settings wait for _check, and name the flags */
    CHECK(cuzk__daemon_config_set(&c, "server.tcp_listen", "0.0.0.0:1234", &e) == CUZK_OK);
    CHECK(c.tcp_port == 1234 && strcmp(c.tcp_host, "0.0.0.0") == 0);
    EXPECT_FAIL(cuzk__daemon_config_check(&c, &e), CUZK_ERR_INVALID_ARG, e,
                "--server.tcp_listen: needs token_file", NULL);
    CHECK(cuzk__daemon_config_set(&c, "server.token_file", tok, &e) == CUZK_OK);
    CHECK(cuzk__daemon_config_check(&c, &e) == CUZK_OK);
    CHECK(strcmp(c.token, "override-token-0123456789") == 0);
    CHECK(chmod(tok, 0644) == 0);
    EXPECT_FAIL(cuzk__daemon_config_check(&c, &e), CUZK_ERR_INVALID_ARG, e,
                "--server.token_file: ", "mode 0644");
    CHECK(c.token[0] == '\0'); /* a refused check leaves no token behind */
    CHECK(cuzk__daemon_config_set(&c, "server.tcp_listen", "", &e) == CUZK_OK && c.tcp_port == 0);
    CHECK(cuzk__daemon_config_set(&c, "server.token_file", "", &e) == CUZK_OK);
    CHECK(cuzk__daemon_config_check(&c, &e) == CUZK_OK);

    /* key sections: a new one by name (dots allowed in it), forms checked by _check */
    CHECK(cuzk__daemon_config_set(&c, "key.a.b.zkey", "/k.zkey", &e) == CUZK_OK);
    CHECK(c.n_keys == 2 && strcmp(c.keys[1].name, "a.b") == 0 &&
          c.keys[1].line == CUZK__CONF_OVERRIDE);
    CHECK(cuzk__daemon_config_set(&c, "key.a.b.circuit", "/c.cuzk", &e) == CUZK_OK);
    EXPECT_FAIL(cuzk__daemon_config_check(&c, &e), CUZK_ERR_INVALID_ARG, e,
                "--key.a.b.circuit: a key is a zkey", "not both (zkey on the command line)");
    CHECK(cuzk__daemon_config_set(&c, "key.a.b.zkey", "", &e) == CUZK_OK); /* removes it */
    CHECK(c.keys[1].path[CUZK__KEY_ZKEY] == NULL);
    EXPECT_FAIL(cuzk__daemon_config_check(&c, &e), CUZK_ERR_INVALID_ARG, e,
                "--key.a.b.circuit: needs params", NULL);
    CHECK(cuzk__daemon_config_set(&c, "key.a.b.params", "p.params", &e) == CUZK_OK);
    CHECK(cuzk__daemon_config_check(&c, &e) == CUZK_OK);
    snprintf(want, sizeof want, "%s/p.params", cwd);
    CHECK(strcmp(c.keys[1].path[CUZK__KEY_PARAMS], want) == 0);
    /* the file's key gains an r1cs; no new section */
    CHECK(cuzk__daemon_config_set(&c, "key.k.r1cs", "/k.r1cs", &e) == CUZK_OK && c.n_keys == 2);
    CHECK(strcmp(c.keys[0].path[CUZK__KEY_R1CS], "/k.r1cs") == 0 &&
          c.keys[0].path_line[CUZK__KEY_ZKEY] == 5);
    /* refused: nothing added */
    EXPECT_FAIL(cuzk__daemon_config_set(&c, "key.new.foo", "x", &e), CUZK_ERR_INVALID_ARG, e,
                "--key.new.foo: unknown key", "known: zkey, r1cs, circuit, params");
    EXPECT_FAIL(cuzk__daemon_config_set(&c, "key.bad/name.zkey", "x", &e), CUZK_ERR_INVALID_ARG,
                e, "--key.bad/name.zkey: a key's name is", NULL);
    EXPECT_FAIL(cuzk__daemon_config_set(&c, "key.zkey", "x", &e), CUZK_ERR_INVALID_ARG, e,
                "--key.zkey: a key's file is set as key.NAME.FILE", NULL);
    CHECK(c.n_keys == 2);
    /* an override's empty new key has no files */
    CHECK(cuzk__daemon_config_set(&c, "key.empty.zkey", "", &e) == CUZK_OK && c.n_keys == 3);
    EXPECT_FAIL(cuzk__daemon_config_check(&c, &e), CUZK_ERR_INVALID_ARG, e,
                "--key.empty: no files", NULL);

    /* overrides reach the options */
    cuzk_options co;
    cuzk_engine_options eo;
    cuzk__daemon_config_to_options(&c, &co, &eo);
    CHECK(co.threads == 9 && co.self_check == 0 && co.n_devices == 2 && co.devices[0] == 2);
    CHECK(eo.workers_per_device == 2);
    cuzk__daemon_config_free(&c);
}

/* ---- relative paths -------------------------------------------------------- */

static void test_relative_paths(void) {
    cuzk__daemon_config c;
    cuzk_error e;
    const char *text = "[server]\nunix_socket = s.sock\n[store]\ndatabase = rel/x.db\n"
                       "spool_dir = /abs/spool\n[key k]\nzkey = ../k.zkey\n";
    CHECK(cuzk__daemon_config_parse(&c, text, strlen(text), "t.conf", "/base/dir", &e) ==
          CUZK_OK);
    CHECK(strcmp(c.unix_socket, "/base/dir/s.sock") == 0);
    CHECK(strcmp(c.database, "/base/dir/rel/x.db") == 0);
    CHECK(strcmp(c.spool_dir, "/abs/spool") == 0);
    CHECK(c.n_keys == 1 && strcmp(c.keys[0].path[CUZK__KEY_ZKEY], "/base/dir/../k.zkey") == 0);
    cuzk__daemon_config_free(&c);
    CHECK(cuzk__daemon_config_parse(&c, text, strlen(text), "t.conf", "/", &e) == CUZK_OK);
    CHECK(strcmp(c.database, "/rel/x.db") == 0);
    cuzk__daemon_config_free(&c);
    CHECK(cuzk__daemon_config_parse(&c, text, strlen(text), "t.conf", NULL, &e) == CUZK_OK);
    CHECK(strcmp(c.database, "rel/x.db") == 0 && strcmp(c.unix_socket, "s.sock") == 0);
    cuzk__daemon_config_free(&c);

    /* load: against the file's folder, made absolute, whatever the working folder */
    char sub[300], path[400], real[PATH_MAX], want[PATH_MAX + 50], cwd[PATH_MAX];
    tmp_path(sub, sizeof sub, "sub");
    CHECK(mkdir(sub, 0700) == 0);
    snprintf(path, sizeof path, "%s/cuzk.conf", sub);
    write_text(path, text, 0644);
    CHECK(realpath(sub, real) != NULL);
    CHECK(cuzk__daemon_config_load(&c, path, &e) == CUZK_OK);
    snprintf(want, sizeof want, "%s/rel/x.db", real);
    CHECK(strcmp(c.database, want) == 0);
    CHECK(strcmp(c.source, path) == 0);
    cuzk__daemon_config_free(&c);
    CHECK(getcwd(cwd, sizeof cwd) != NULL);
    CHECK(chdir(tmpdir) == 0);
    CHECK(cuzk__daemon_config_load(&c, "sub/cuzk.conf", &e) == CUZK_OK);
    CHECK(strcmp(c.database, want) == 0);
    cuzk__daemon_config_free(&c);
    CHECK(chdir(sub) == 0);
    CHECK(cuzk__daemon_config_load(&c, "cuzk.conf", &e) == CUZK_OK);
    CHECK(strcmp(c.database, want) == 0);
    cuzk__daemon_config_free(&c);
    /* a message names the file as it was given */
    write_text("cuzk.conf", "[store]\n\ndatabse = x\n", 0644);
    EXPECT_FAIL(cuzk__daemon_config_load(&c, "cuzk.conf", &e), CUZK_ERR_INVALID_ARG, e,
                "cuzk.conf:3: [store] databse: unknown key (did you mean database?", NULL);
    CHECK(chdir(cwd) == 0);
    EXPECT_FAIL(cuzk__daemon_config_load(&c, "/nonexistent/cuzk.conf", &e), CUZK_ERR_IO, e,
                "/nonexistent/cuzk.conf", "cannot open");
    CHECK(is_defaults(&c));
}

/* ---- what the library makes of the ranges ----------------------------------- */

static void test_ranges_accepted(void) {
    /* the largest values the file takes are ones the library takes */
    cuzk__daemon_config c;
    cuzk_error e;
    const char *text = "[engine]\nbackend = cpu\ncpu_lanes = 64\nthreads = 4096\n"
                       "auto_gpu_min_log = 40\nworkers_per_device = 16\n";
    CHECK(parse(&c, text, &e) == CUZK_OK);
    cuzk_options co;
    cuzk_engine_options eo;
    cuzk__daemon_config_to_options(&c, &co, &eo);
    cuzk_context *ctx = NULL;
    CHECK(cuzk_context_create(&ctx, &co, &e) == CUZK_OK);
    cuzk_context_destroy(ctx);
    cuzk__daemon_config_free(&c);
    CHECK(parse(&c, "[engine]\nbackend = cpu\nworkers_per_device = 16\n", &e) == CUZK_OK);
    cuzk__daemon_config_to_options(&c, &co, &eo);
    ctx = NULL;
    cuzk_engine *eng = NULL;
    CHECK(cuzk_context_create(&ctx, &co, &e) == CUZK_OK);
    CHECK(ctx != NULL && cuzk_engine_create(&eng, ctx, &eo, &e) == CUZK_OK);
    cuzk_engine_destroy(eng);
    cuzk_context_destroy(ctx);
    cuzk__daemon_config_free(&c);
    /* ... and one past them is what the library refuses too */
    cuzk_options_init(&co);
    co.threads = 4097;
    CHECK(cuzk_context_create(&ctx, &co, &e) == CUZK_ERR_INVALID_ARG);
    cuzk_options_init(&co);
    co.cpu_lanes = 65;
    CHECK(cuzk_context_create(&ctx, &co, &e) == CUZK_ERR_INVALID_ARG);
    /* "all": every GPU present */
    CHECK(parse(&c, "[engine]\ndevices = ALL\n", &e) == CUZK_OK && c.devices_all);
    cuzk__daemon_config_to_options(&c, &co, &eo);
    const int n = cuzk_gpu_count();
    CHECK_EQ_INT(co.n_devices, n > CUZK_MAX_LANES ? CUZK_MAX_LANES : n);
    for (size_t i = 0; i < co.n_devices; i++) CHECK_EQ_INT(co.devices[i], i);
    cuzk__daemon_config_free(&c);
}

/* ---- the shipped example ---------------------------------------------------- */

static char *read_text(const char *path) {
    uint8_t *data = NULL;
    size_t len = 0;
    cuzk_error e;
    if (cuzk_file_read(&data, &len, path, 1 << 20, &e) != CUZK_OK) {
        fprintf(stderr, "  %s\n", e.msg);
        return NULL;
    }
    char *s = malloc(len + 1);
    if (s != NULL) {
        memcpy(s, data, len);
        s[len] = '\0';
    }
    cuzk_free(data);
    return s;
}

static void test_example(void) {
    char path[PATH_MAX + 50];
    snprintf(path, sizeof path, "%s/contrib/cuzk.conf.example", source_dir);
    cuzk__daemon_config c, d;
    cuzk_error e;
    const cuzk_status st = cuzk__daemon_config_load(&c, path, &e);
    CHECK(st == CUZK_OK);
    if (st != CUZK_OK) {
        fprintf(stderr, "  %s\n", e.msg);
        return;
    }
    /* it states the real defaults, and sets every setting */
    cuzk__daemon_config_defaults(&d);
    CHECK(dump_equals(&c, &d));
    for (size_t i = 0; i < CUZK__CONF_N_SETTINGS; i++)
        if (c.line[i] == CUZK__CONF_DEFAULT) {
            CHECK(!"a setting missing from the example");
            fprintf(stderr, "  %s\n", cuzk__daemon_config_name(i));
        }
    CHECK(c.n_keys == 0);
    cuzk__daemon_config_free(&c);

    /* its commented key sections (`#` then no space) parse, and name every file */
    char *text = read_text(path);
    CHECK(text != NULL);
    if (text == NULL) return;
    cuzk_test_buf b = {0};
    for (char *line = text; *line != '\0';) {
        char *nl = strchr(line, '\n');
        const size_t n = nl ? (size_t)(nl - line) + 1 : strlen(line);
        const int disabled = line[0] == '#' && n > 1 && line[1] != ' ' && line[1] != '\n';
        cuzk_test_put(&b, line + disabled, n - (size_t)disabled);
        line += n;
    }
    CHECK(cuzk__daemon_config_parse(&c, (const char *)b.p, b.n, "example", tmpdir, &e) ==
          CUZK_OK);
    CHECK(c.n_keys >= 2);
    for (size_t f = 0; f < CUZK__KEY_N_FILES; f++) {
        bool seen = false;
        for (size_t k = 0; k < c.n_keys; k++) seen |= c.keys[k].path[f] != NULL;
        if (!seen) {
            CHECK(!"a key file missing from the example");
            fprintf(stderr, "  %s\n", cuzk__daemon_config_name(CUZK__CONF_N_SETTINGS + f));
        }
    }
    cuzk__daemon_config_free(&c);
    free(b.p);

    /* the names match the parser's keys, and doc/formats.md documents each */
    snprintf(path, sizeof path, "%s/doc/formats.md", source_dir);
    char *doc = read_text(path);
    CHECK(doc != NULL);
    const char *sect = doc ? strstr(doc, "The daemon's configuration") : NULL;
    CHECK(sect != NULL);
    size_t i = 0;
    for (const char *name; (name = cuzk__daemon_config_name(i)) != NULL; i++) {
        const char *dot = strchr(name, '.');
        CHECK(dot != NULL);
        if (dot == NULL) continue;
        char want[100];
        snprintf(want, sizeof want, "\n%s =", dot + 1);
        if (strstr(text, want) == NULL) { /* a key section's file: commented out */
            snprintf(want, sizeof want, "\n#%s =", dot + 1);
            CHECK(i >= CUZK__CONF_N_SETTINGS && strstr(text, want) != NULL);
        }
        snprintf(want, sizeof want, "`%s`", dot + 1);
        if (sect != NULL && strstr(sect, want) == NULL) {
            CHECK(!"a key missing from doc/formats.md");
            fprintf(stderr, "  %s\n", name);
        }
        /* a fixed section's name is what _set takes */
        if (i < CUZK__CONF_N_SETTINGS) {
            cuzk__daemon_config_defaults(&c);
            const cuzk_status s2 = cuzk__daemon_config_set(&c, name, "x", &e);
            CHECK(s2 == CUZK_OK || !cuzk_test_msg_has(&e, "unknown"));
            cuzk__daemon_config_free(&c);
        }
    }
    CHECK_EQ_INT(i, CUZK__CONF_N_SETTINGS + CUZK__KEY_N_FILES);
    free(doc);
    free(text);
}

int main(int argc, char **argv) {
    cuzk_test_init(argc, argv);
    const char *src = getenv("CUZK_SOURCE_DIR");
    if (src != NULL) {
        snprintf(source_dir, sizeof source_dir, "%s", src);
    } else { /* this file is tests/unit/ of the source tree */
        snprintf(source_dir, sizeof source_dir, "%s", __FILE__);
        for (int up = 0; up < 3; up++) {
            char *slash = strrchr(source_dir, '/');
            if (slash != NULL) *slash = '\0';
        }
    }
    snprintf(tmpdir, sizeof tmpdir, "/tmp/cuzk-test-config-XXXXXX");
    if (mkdtemp(tmpdir) == NULL) return cuzk_test_skip("cannot make a temporary folder");
    RUN(test_defaults);
    RUN(test_full_file);
    RUN(test_errors);
    RUN(test_limits);
    RUN(test_token_file);
    RUN(test_overrides);
    RUN(test_relative_paths);
    RUN(test_ranges_accepted);
    RUN(test_example);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmpdir);
    return cuzk_test_finish();
}
