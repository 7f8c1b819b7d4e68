/*
 * daemon_cmd.c — `cuzk daemon`: the proving service (doc/api.md). Reads the
 * configuration, applies the command line's overrides, opens the store
 * (SQLite, or a PostgreSQL queue shared with other daemons: doc/cluster.md),
 * resumes unfinished jobs, serves the HTTP API until SIGTERM or SIGINT,
 * then drains: intake and claims stop, what is claimed but unstarted goes
 * back, the partitions being proved finish, what is still queued stays in
 * the store for the next start (or the other daemons), and it exits 0. A
 * second signal during the drain exits at once (status 1); nothing
 * acknowledged is lost, since the store has it.
 */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "cuzk.h"
#include "service/config.h"
#include "service/daemon.h"
#include "service/http.h"

static void usage(FILE *f) {
    fprintf(f,
            "usage: cuzk daemon [--config FILE] [--SECTION.KEY VALUE]... [--print-config]\n"
            "\n"
            "Serves proofs over HTTP (doc/api.md) on a Unix socket and/or a TCP port,\n"
            "with jobs kept in a SQLite store across restarts, or in a PostgreSQL\n"
            "queue that daemons on several machines share ([store] store =\n"
            "postgres://..., doc/cluster.md). FILE is an INI file\n"
            "(contrib/cuzk.conf.example lists every setting); each --SECTION.KEY VALUE\n"
            "overrides one (--server.tcp_listen 127.0.0.1:0, --engine.backend cpu,\n"
            "--key.NAME.zkey PATH). --print-config prints the resulting configuration\n"
            "and exits. SIGTERM or SIGINT drains and exits 0.\n");
}

static pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;

static void log_line(void *user, const char *line) {
    (void)user;
    char ts[32];
    const time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", &tm);
    pthread_mutex_lock(&log_mu);
    fprintf(stderr, "%s cuzk daemon: %s\n", ts, line);
    fflush(stderr);
    pthread_mutex_unlock(&log_mu);
}

static void logf_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void logf_(const char *fmt, ...) {
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    log_line(NULL, line);
}

/* The signal thread: the first SIGTERM/SIGINT closes the daemon's intake at
 * once (sig_daemon, once it runs) and asks the main thread for a drain; a
 * second one exits at once. */
static pthread_mutex_t sig_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t sig_cv = PTHREAD_COND_INITIALIZER;
static int sig_seen;
static cuzk__daemon *sig_daemon;

static void *signal_main(void *arg) {
    const sigset_t *set = arg;
    for (;;) {
        int sig = 0;
        if (sigwait(set, &sig) != 0) continue;
        pthread_mutex_lock(&sig_mu);
        const int first = sig_seen == 0;
        if (first) cuzk__daemon_close_intake(sig_daemon); /* NULL before it runs: a no-op */
        sig_seen = sig;
        pthread_cond_broadcast(&sig_cv);
        pthread_mutex_unlock(&sig_mu);
        if (!first) {
            /* at once: not through log_line, whose lock a thread blocked on a
             * full stderr pipe may hold, and a write that cannot block */
            char line[256];
            const time_t now = time(NULL);
            struct tm tm;
            gmtime_r(&now, &tm);
            size_t n = strftime(line, sizeof(line), "%Y-%m-%dT%H:%M:%SZ", &tm);
            n += (size_t)snprintf(line + n, sizeof(line) - n,
                                  " cuzk daemon: %s again: exiting without waiting (queued and "
                                  "running jobs resume at the next start)\n",
                                  sig == SIGINT ? "SIGINT" : "SIGTERM");
            const int fl = fcntl(STDERR_FILENO, F_GETFL);
            if (fl >= 0) (void)fcntl(STDERR_FILENO, F_SETFL, fl | O_NONBLOCK);
            if (write(STDERR_FILENO, line, n < sizeof(line) ? n : sizeof(line) - 1) < 0) {
                /* nothing more to do: exiting */
            }
            _exit(1);
        }
    }
    return NULL;
}

/* Reads the configuration: the file, then the overrides. 2 on a usage error. */
static int configure(int argc, char **argv, cuzk__daemon_config *cfg, int *print) {
    const char *file = NULL;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--config") == 0 && i + 1 < argc) file = argv[++i];
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            exit(0);
        }
    }
    cuzk_error err;
    cuzk__daemon_config_defaults(cfg);
    if (file != NULL && cuzk__daemon_config_load(cfg, file, &err) != CUZK_OK) {
        fprintf(stderr, "cuzk daemon: %s\n", cuzk_error_text(&err));
        return 2;
    }
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--config") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, "cuzk daemon: --config needs a file\n");
                return 2;
            }
            i++;
        } else if (strcmp(argv[i], "--print-config") == 0) {
            *print = 1;
        } else if (strncmp(argv[i], "--", 2) == 0 && strchr(argv[i], '.') != NULL) {
            if (i + 1 >= argc) {
                fprintf(stderr, "cuzk daemon: %s needs a value\n", argv[i]);
                return 2;
            }
            if (cuzk__daemon_config_set(cfg, argv[i] + 2, argv[i + 1], &err) != CUZK_OK) {
                fprintf(stderr, "cuzk daemon: %s\n", cuzk_error_text(&err));
                return 2;
            }
            i++;
        } else {
            fprintf(stderr, "cuzk daemon: unknown argument %s\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }
    if (cuzk__daemon_config_check(cfg, &err) != CUZK_OK) {
        fprintf(stderr, "cuzk daemon: %s\n", cuzk_error_text(&err));
        return 2;
    }
    return 0;
}

int cuzk__cmd_daemon(int argc, char **argv) {
    cuzk__daemon_config cfg;
    int print = 0;
    int rc = configure(argc, argv, &cfg, &print);
    if (rc != 0) {
        cuzk__daemon_config_free(&cfg);
        return rc;
    }
    if (print) {
        char *text = cuzk__daemon_config_dump(&cfg);
        if (text != NULL) fputs(text, stdout);
        free(text);
        cuzk__daemon_config_free(&cfg);
        return text != NULL ? 0 : 1;
    }
    /* OpenMP threads that spin between parallel regions take the cores the
     * HTTP threads, the finisher and clients on the same machine need (on 2
     * cores the daemon proved 1.7x slower than the engine in process);
     * waiting threads sleep instead, unless the environment says otherwise.
     * Set before the OpenMP runtime starts, at the first parallel region. */
    setenv("OMP_WAIT_POLICY", "passive", 0);
    /* every thread started from here on leaves these signals to signal_main */
    static sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    signal(SIGPIPE, SIG_IGN);
    pthread_t sig_thread;
    if (pthread_create(&sig_thread, NULL, signal_main, &set) != 0) {
        fprintf(stderr, "cuzk daemon: cannot start the signal thread\n");
        cuzk__daemon_config_free(&cfg);
        return 1;
    }
    pthread_detach(sig_thread);

    cuzk_error err;
    cuzk__daemon *d = NULL;
    cuzk__http *h = NULL;
    logf_("cuzk %s starting: %s store, backend %s, %zu key%s", cuzk_version(),
          cuzk__daemon_config_shared(&cfg) ? "postgres" : "sqlite",
          cfg.backend == CUZK_BACKEND_CPU   ? "cpu"
          : cfg.backend == CUZK_BACKEND_GPU ? "gpu"
                                            : "auto",
          cfg.n_keys, cfg.n_keys == 1 ? "" : "s");
    if (cuzk__daemon_start(&d, &cfg, log_line, NULL, &err) != CUZK_OK ||
        cuzk__http_start(&h, d, &cfg, &err) != CUZK_OK) {
        logf_("%s", cuzk_error_text(&err));
        cuzk__daemon_stop(d);
        cuzk__daemon_config_free(&cfg);
        return 1;
    }
    {
        cuzk__jobstore *js = cuzk__daemon_jobstore(d);
        if (cuzk__jobstore_shared(js))
            logf_("store postgres %s: daemon %llu \"%s\", scratch under %s, lease %u ms",
                  cuzk__jobstore_where(js), (unsigned long long)cuzk__jobstore_self(js),
                  cuzk__daemon_name(d), cfg.spool_dir, cfg.lease_ms);
        else
            logf_("store sqlite %s, spool %s", cuzk__jobstore_where(js), cfg.spool_dir);
    }
    if (cfg.unix_socket[0] != '\0') logf_("listening on unix:%s", cfg.unix_socket);
    if (cfg.tcp_listen[0] != '\0') {
        const int v6 = strchr(cfg.tcp_host, ':') != NULL;
        logf_("listening on http://%s%s%s:%u", v6 ? "[" : "",
              cfg.tcp_host[0] ? cfg.tcp_host : "0.0.0.0", v6 ? "]" : "", cuzk__http_tcp_port(h));
    }
    pthread_mutex_lock(&sig_mu);
    sig_daemon = d;
    if (sig_seen != 0) cuzk__daemon_close_intake(d); /* a signal while it started */
    while (sig_seen == 0) pthread_cond_wait(&sig_cv, &sig_mu);
    const int sig = sig_seen;
    sig_daemon = NULL; /* only the first signal looks at it; d goes below */
    pthread_mutex_unlock(&sig_mu);
    logf_("%s: draining (no new jobs; the partitions being proved finish)",
          sig == SIGINT ? "SIGINT" : "SIGTERM");
    cuzk__daemon_drain(d);
    cuzk__http_stop(h);
    uint64_t counts[5] = {0};
    if (cuzk__daemon_job_counts(d, counts, &err) == CUZK_OK)
        logf_("stopped: %llu job%s %s",
              (unsigned long long)(counts[CUZK_JOB_QUEUED] + counts[CUZK_JOB_RUNNING]),
              counts[CUZK_JOB_QUEUED] + counts[CUZK_JOB_RUNNING] == 1 ? "" : "s",
              cuzk__jobstore_shared(cuzk__daemon_jobstore(d))
                  ? "unfinished in the shared store, for the other daemons"
                  : "queued for the next start");
    cuzk__daemon_stop(d);
    cuzk__daemon_config_free(&cfg);
    return 0;
}
