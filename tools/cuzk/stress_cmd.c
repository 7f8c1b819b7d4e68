/*
 * stress_cmd.c — `cuzk bench stress`: many clients proving through a daemon
 * at once, as a proving market's workers would (doc/api.md):
 *
 *   cuzk bench stress [--addr A] [--token-file F] --clients C --jobs J --key K
 *                     (--witness FILE.. | --witness-path P..)... [--priority P]
 *                     [--via jobs|prove] [--json]
 *
 * C threads take the J jobs in turn, the witnesses uploaded again for every
 * job, as separate provers would. --via jobs (the default) is what a market's
 * worker does: POST /v1/jobs (its latency, from sending the request to the
 * 201, is the submission's), long polls of GET /v1/jobs/ID/await until the
 * job ends, then GET /v1/jobs/ID/result, whose proofs must be one per
 * partition. --via prove is one POST /v1/prove per job, awaited by id when
 * the daemon answers 202. Prints the throughput over the wall time (jobs and
 * partitions a second, counting done jobs), the latency of done jobs (from
 * the request to the end: the result in hand) and, --via jobs, of the
 * submissions that were accepted, each at the 50th, 90th and 99th
 * percentiles and the largest, and the errors counted by HTTP status
 * (transport errors, failed and cancelled jobs apart), with the first message
 * of each kind. --json prints the same as one object, the same members either
 * way ("submitted" and "submit_latency_ms" are null --via prove). Exit 0 when
 * every job was done, 1 when any was not, 2 usage.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "commands.h"
#include "io/json.h"
#include "opt.h"

#define CMD "cuzk bench stress"
#define MAX_CLIENTS 1024
#define MAX_JOBS 1000000
#define MAX_KINDS 16
/* Kinds of error that are not an HTTP status. */
#define KIND_TRANSPORT 0
#define KIND_FAILED (-1)
#define KIND_CANCELLED (-2)
#define KIND_OTHER (-3) /* an answer that holds no job */

typedef struct {
    int kind; /* an HTTP status, or KIND_* */
    unsigned count;
    char first[CUZK_HTTP_ERR_MAX];
} err_kind;

typedef struct {
    const cuzk__http_client *c;
    const cuzk__client_body *body;
    int via_prove; /* POST /v1/prove; else POST /v1/jobs, await, result */
    unsigned jobs;
    atomic_uint next;
    pthread_mutex_t mu; /* guards what follows */
    double *lat;        /* seconds of each done job */
    size_t n_done;
    double *sub_lat;    /* milliseconds of each accepted submission (--via jobs) */
    size_t n_sub;
    uint64_t partitions;
    err_kind errs[MAX_KINDS];
    size_t n_errs;
} shared;

static void count_error(shared *sh, int kind, const char *msg) {
    pthread_mutex_lock(&sh->mu);
    size_t i = 0;
    while (i < sh->n_errs && sh->errs[i].kind != kind) i++;
    if (i == sh->n_errs && sh->n_errs < MAX_KINDS) {
        sh->errs[i].kind = kind;
        snprintf(sh->errs[i].first, sizeof(sh->errs[i].first), "%s", msg);
        sh->n_errs++;
    }
    if (i < sh->n_errs) sh->errs[i].count++;
    pthread_mutex_unlock(&sh->mu);
}

/* Counts how job ended: done, with its partitions and its latency from t0
 * (cuzk__client_now_ms when its request was sent); failed or cancelled (or an
 * answer in no known state), as an error. */
static void count_end(shared *sh, const cuzk_json *job, double t0) {
    const cuzk_json *st = cuzk_json_get(job, "state");
    uint64_t parts = 0;
    if (cuzk_json_is_string(st, "done") &&
        cuzk_json_get_u64(cuzk_json_get(job, "partitions"), &parts)) {
        const double s = (cuzk__client_now_ms() - t0) / 1e3;
        pthread_mutex_lock(&sh->mu);
        sh->lat[sh->n_done++] = s;
        sh->partitions += parts;
        pthread_mutex_unlock(&sh->mu);
    } else if (cuzk_json_is_string(st, "failed") || cuzk_json_is_string(st, "cancelled")) {
        const cuzk_json *e = cuzk_json_get(job, "error");
        const cuzk_json *m = cuzk_json_get(e, "message");
        char msg[CUZK_HTTP_ERR_MAX];
        snprintf(msg, sizeof(msg), "%s", m != NULL && m->str != NULL ? m->str : st->str);
        count_error(sh, cuzk_json_is_string(st, "failed") ? KIND_FAILED : KIND_CANCELLED, msg);
    } else {
        count_error(sh, KIND_OTHER, "an answer without a job in a known state");
    }
}

static cuzk_json *parse(const cuzk__http_response *rs) {
    cuzk_json *root = NULL;
    cuzk_json_limits lim = {rs->len + 1, 0, 0};
    (void)cuzk_json_parse(&root, rs->body, rs->len, &lim, NULL);
    return root;
}

/* --via jobs: POST /v1/jobs, await, GET the result. */
static void run_job_via_jobs(shared *sh) {
    char msg[CUZK_HTTP_ERR_MAX], target[96];
    const double t0 = cuzk__client_now_ms();
    const cuzk__http_request rq = {"POST", "/v1/jobs", sh->body->content_type, sh->body->pieces,
                                   sh->body->n};
    cuzk__http_response rs;
    if (!cuzk__http_do(sh->c, &rq, &rs, msg, sizeof(msg))) {
        count_error(sh, KIND_TRANSPORT, msg);
        return;
    }
    const double submitted = cuzk__client_now_ms();
    if (rs.status != 201) { /* 200 would be a job submitted before: none is, no request id */
        count_error(sh, rs.status, cuzk__client_error(&rs, msg, sizeof(msg)));
        cuzk__http_response_free(&rs);
        return;
    }
    cuzk_json *job = parse(&rs);
    cuzk__http_response_free(&rs);
    uint64_t id = 0;
    if (!cuzk_json_get_u64(cuzk_json_get(job, "id"), &id) || id == 0) {
        count_error(sh, KIND_OTHER, "a 201 without a job id");
        cuzk_json_free(job);
        return;
    }
    cuzk_json_free(job);
    pthread_mutex_lock(&sh->mu);
    sh->sub_lat[sh->n_sub++] = submitted - t0;
    pthread_mutex_unlock(&sh->mu);
    if (cuzk__client_await(sh->c, id, 0, &rs, msg, sizeof(msg)) < 0) {
        count_error(sh, rs.status, msg); /* status 0: no answer */
        return;
    }
    job = parse(&rs);
    cuzk__http_response_free(&rs);
    uint64_t parts = 0;
    if (cuzk_json_is_string(cuzk_json_get(job, "state"), "done") &&
        cuzk_json_get_u64(cuzk_json_get(job, "partitions"), &parts)) {
        snprintf(target, sizeof(target), "/v1/jobs/%llu/result", (unsigned long long)id);
        const cuzk__http_request rr = {"GET", target, NULL, NULL, 0};
        if (!cuzk__http_do(sh->c, &rr, &rs, msg, sizeof(msg))) {
            count_error(sh, KIND_TRANSPORT, msg);
            cuzk_json_free(job);
            return;
        }
        if (rs.status != 200) {
            count_error(sh, rs.status, cuzk__client_error(&rs, msg, sizeof(msg)));
            cuzk__http_response_free(&rs);
            cuzk_json_free(job);
            return;
        }
        cuzk_json *res = parse(&rs);
        cuzk__http_response_free(&rs);
        const cuzk_json *proofs = cuzk_json_get(res, "proofs");
        const int whole = proofs != NULL && proofs->type == CUZK_JSON_ARRAY &&
                          (uint64_t)proofs->len == parts;
        cuzk_json_free(res);
        if (!whole) {
            snprintf(msg, sizeof(msg), "job %llu: a result without one proof per partition",
                     (unsigned long long)id);
            count_error(sh, KIND_OTHER, msg);
            cuzk_json_free(job);
            return;
        }
    }
    count_end(sh, job, t0);
    cuzk_json_free(job);
}

/* --via prove: one POST /v1/prove, awaited by id on a 202. */
static void run_job_via_prove(shared *sh) {
    const double t0 = cuzk__client_now_ms();
    const cuzk__http_request rq = {"POST", "/v1/prove?timeout_ms=60000", sh->body->content_type,
                                   sh->body->pieces, sh->body->n};
    cuzk__http_response rs;
    char msg[CUZK_HTTP_ERR_MAX];
    if (!cuzk__http_do(sh->c, &rq, &rs, msg, sizeof(msg))) {
        count_error(sh, KIND_TRANSPORT, msg);
        return;
    }
    if (rs.status != 200 && rs.status != 202) {
        count_error(sh, rs.status, cuzk__client_error(&rs, msg, sizeof(msg)));
        cuzk__http_response_free(&rs);
        return;
    }
    cuzk_json *job = parse(&rs);
    uint64_t id = 0;
    const cuzk_json *st = cuzk_json_get(job, "state");
    if (rs.status == 202 && cuzk_json_get_u64(cuzk_json_get(job, "id"), &id) &&
        !cuzk_json_is_string(st, "done") && !cuzk_json_is_string(st, "failed") &&
        !cuzk_json_is_string(st, "cancelled")) {
        cuzk_json_free(job);
        cuzk__http_response_free(&rs);
        job = NULL;
        cuzk__http_client cw = *sh->c;
        cw.timeout_ms = 0;
        if (cuzk__client_await(&cw, id, 0, &rs, msg, sizeof(msg)) < 0) {
            count_error(sh, rs.status, msg); /* status 0: no answer */
            return;
        }
        job = parse(&rs);
    }
    count_end(sh, job, t0);
    cuzk_json_free(job);
    cuzk__http_response_free(&rs);
}

static void *client_thread(void *arg) {
    shared *sh = arg;
    while (atomic_fetch_add(&sh->next, 1) < sh->jobs) {
        if (sh->via_prove) run_job_via_prove(sh);
        else run_job_via_jobs(sh);
    }
    return NULL;
}

static int cmp_double(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The nearest-rank percentile p (0..1] of n sorted values. */
static double pct(const double *v, size_t n, double p) {
    size_t k = (size_t)(p * (double)n + 0.999999);
    return v[k == 0 ? 0 : k - 1];
}

static const char *kind_name(char *buf, size_t n, int kind) {
    if (kind == KIND_TRANSPORT) return "transport";
    if (kind == KIND_FAILED) return "failed";
    if (kind == KIND_CANCELLED) return "cancelled";
    if (kind == KIND_OTHER) return "bad_answer";
    snprintf(buf, n, "%d", kind);
    return buf;
}

/* p50, p90, p99 and the largest of n sorted values (n > 0). */
static void quartet(double q[4], const double *v, size_t n) {
    q[0] = pct(v, n, 0.5);
    q[1] = pct(v, n, 0.9);
    q[2] = pct(v, n, 0.99);
    q[3] = v[n - 1];
}

/* `"p50": .., "p90": .., "p99": .., "max": ..` of n sorted values, or null. */
static void json_quartet(const double *v, size_t n) {
    if (n == 0) {
        printf("null");
        return;
    }
    double q[4];
    quartet(q, v, n);
    printf("{\"p50\": %.4f, \"p90\": %.4f, \"p99\": %.4f, \"max\": %.4f}", q[0], q[1], q[2],
           q[3]);
}

static void report(const shared *sh, const char *addr, unsigned clients, double wall, int json) {
    const size_t n = sh->n_done;
    const char *via = sh->via_prove ? "prove" : "jobs";
    double q[4];
    char b[16];
    if (json) {
        printf("{\"bench\": \"stress\", \"via\": \"%s\", \"clients\": %u, \"jobs\": %u, "
               "\"done\": %zu, \"partitions\": %llu, \"wall_s\": %.4f, \"jobs_per_s\": %.4f, "
               "\"partitions_per_s\": %.4f, \"latency_s\": ",
               via, clients, sh->jobs, n, (unsigned long long)sh->partitions, wall,
               (double)n / wall, (double)sh->partitions / wall);
        json_quartet(sh->lat, n);
        if (sh->via_prove) {
            printf(", \"submitted\": null, \"submit_latency_ms\": null");
        } else {
            printf(", \"submitted\": %zu, \"submit_latency_ms\": ", sh->n_sub);
            json_quartet(sh->sub_lat, sh->n_sub);
        }
        printf(", \"errors\": {");
        for (size_t i = 0; i < sh->n_errs; i++)
            printf("%s\"%s\": %u", i ? ", " : "", kind_name(b, sizeof(b), sh->errs[i].kind),
                   sh->errs[i].count);
        printf("}}\n");
        return;
    }
    printf(CMD ": %u jobs from %u client%s at %s, via POST /v1/%s\n"
               "  wall %.3f s: %zu done, %.3f jobs/s, %.3f partitions/s\n",
           sh->jobs, clients, clients == 1 ? "" : "s", addr, via, wall, n, (double)n / wall,
           (double)sh->partitions / wall);
    if (!sh->via_prove && sh->n_sub > 0) {
        quartet(q, sh->sub_lat, sh->n_sub);
        printf("  submit latency (request to 201, %zu accepted): p50 %.1f ms, p90 %.1f ms, "
               "p99 %.1f ms, max %.1f ms\n",
               sh->n_sub, q[0], q[1], q[2], q[3]);
    }
    if (n > 0) {
        quartet(q, sh->lat, n);
        printf("  latency (request to %s, done jobs): p50 %.3f s, p90 %.3f s, p99 %.3f s, "
               "max %.3f s\n",
               sh->via_prove ? "end" : "result", q[0], q[1], q[2], q[3]);
    }
    if (sh->n_errs == 0) printf("  errors: none\n");
    for (size_t i = 0; i < sh->n_errs; i++)
        printf("  errors %s: %u (first: %s)\n", kind_name(b, sizeof(b), sh->errs[i].kind),
               sh->errs[i].count, sh->errs[i].first);
}

static int usage(void) {
    fprintf(stderr,
            "usage: " CMD " [--addr A] [--token-file F] --clients C --jobs J --key K\n"
            "         (--witness FILE.. | --witness-path P..)... [--priority P]\n"
            "         [--via jobs|prove] [--json]\n"
            "  C client threads (1..%d) prove J jobs (1..%d) in all through the daemon.\n"
            "  --via jobs (the default): each job is submitted (POST /v1/jobs), long-polled\n"
            "  (GET /v1/jobs/ID/await) and its result fetched (GET /v1/jobs/ID/result);\n"
            "  --via prove: one POST /v1/prove a job. Prints jobs and partitions a second,\n"
            "  latency percentiles of done jobs (request to result) and, via jobs, of the\n"
            "  submissions (request to 201, ms), and errors by HTTP status. --addr,\n"
            "  --token-file as for cuzk submit ($CUZK_ADDR, $CUZK_TOKEN)\n",
            MAX_CLIENTS, MAX_JOBS);
    return 2;
}

int cuzk__bench_stress(int argc, char **argv) {
    const char *addr = NULL, *token_file = NULL;
    unsigned clients = 0, jobs = 0;
    int json = 0, rc = 2;
    cuzk__client_job job = {0};
    cuzk__client_body body = {0};
    pthread_t *th = NULL;
    shared sh;
    memset(&sh, 0, sizeof(sh));
    job.w = calloc((size_t)argc + 1, sizeof(*job.w));
    if (job.w == NULL) return 2;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage();
            goto out;
        }
        if (strcmp(a, "--json") == 0) {
            json = 1;
            continue;
        }
        const int r = cuzk__client_job_opt(&job, CMD, argc, argv, &i);
        if (r < 0) goto out;
        if (r > 0) continue;
        const char *v = cuzk__opt_value(CMD, argc, argv, &i);
        if (v == NULL) goto out;
        if (strcmp(a, "--addr") == 0) addr = v;
        else if (strcmp(a, "--token-file") == 0) token_file = v;
        else if (strcmp(a, "--via") == 0) {
            static const char *const vias[] = {"jobs", "prove"};
            const int k = cuzk__opt_choice(CMD, a, v, vias, 2);
            if (k < 0) goto out;
            sh.via_prove = k == 1;
        } else if (strcmp(a, "--clients") == 0) {
            if (!cuzk__opt_uint(CMD, a, v, 1, MAX_CLIENTS, &clients)) goto out;
        } else if (strcmp(a, "--jobs") == 0) {
            if (!cuzk__opt_uint(CMD, a, v, 1, MAX_JOBS, &jobs)) goto out;
        } else {
            cuzk__opt_unknown(CMD, a);
            goto out;
        }
    }
    if (clients == 0 || jobs == 0) {
        cuzk__opt_fail(CMD, "missing %s", clients == 0 ? "--clients" : "--jobs");
        usage();
        goto out;
    }
    if (job.request_id != NULL) {
        cuzk__opt_fail(CMD, "--request-id would make every job one; the jobs go without");
        goto out;
    }
    cuzk__http_client c;
    if (!cuzk__client_job_ok(&job, CMD) || !cuzk__client_setup(&c, CMD, addr, token_file)) goto out;
    /* the daemon holds a prove up to 60 s, then 202; a submission waits up to
     * 10 s for room in the queue (long polls set their own) */
    c.timeout_ms = sh.via_prove ? 60000 + 30000 : 60000;
    sh.c = &c;
    sh.body = &body;
    sh.jobs = jobs;
    atomic_init(&sh.next, 0);
    sh.lat = calloc(jobs, sizeof(double));
    sh.sub_lat = calloc(jobs, sizeof(double));
    th = calloc(clients, sizeof(*th));
    if (sh.lat == NULL || sh.sub_lat == NULL || th == NULL ||
        !cuzk__client_body_make(&body, &job) || pthread_mutex_init(&sh.mu, NULL) != 0) {
        fprintf(stderr, CMD ": out of memory\n");
        goto out;
    }
    const double t0 = cuzk__client_now_ms();
    unsigned started = 0;
    for (; started < clients; started++)
        if (pthread_create(&th[started], NULL, client_thread, &sh) != 0) break;
    if (started == 0) {
        fprintf(stderr, CMD ": cannot start a client thread\n");
        pthread_mutex_destroy(&sh.mu);
        goto out;
    }
    for (unsigned i = 0; i < started; i++) pthread_join(th[i], NULL);
    const double wall = (cuzk__client_now_ms() - t0) / 1e3;
    pthread_mutex_destroy(&sh.mu);
    qsort(sh.lat, sh.n_done, sizeof(double), cmp_double);
    qsort(sh.sub_lat, sh.n_sub, sizeof(double), cmp_double);
    report(&sh, c.addr.text, started, wall, json);
    rc = sh.n_done == jobs ? 0 : 1;
out:
    cuzk__client_body_free(&body);
    free(sh.lat);
    free(sh.sub_lat);
    free(th);
    free(job.w);
    return rc;
}
