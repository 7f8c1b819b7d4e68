/*
 * client_cmd.c — the daemon's client (doc/api.md), over http_client.c:
 *
 *   cuzk submit [--addr A] [--token-file F] --key K [--priority P] [--request-id R]
 *               (--witness FILE.. | --witness-path SERVER_PATH..)... [--json]
 *   cuzk await  [--addr A] [--token-file F] ID [--timeout S] [-o PROOF] [--public PUBLIC] [--json]
 *   cuzk prove  --addr A ... (the same as submit, then await)
 *   cuzk cancel [--addr A] [--token-file F] ID [--json]
 *   cuzk jobs   [--addr A] [--token-file F] [--state S[,S]] [--after ID] [--limit N] [--json]
 *   cuzk status [--addr A] [--token-file F] [--cluster] [--json]
 *
 * The address is --addr, else $CUZK_ADDR, else unix:/run/cuzk/cuzk.sock; the
 * token --token-file, else $CUZK_TOKEN. Outputs of a done job (await, prove)
 * are checked before anything is asked of the server and written together or
 * not at all (cuzk_files_write): a snarkjs key's proof.json and public.json,
 * re-encoded here from the 192-byte proof and the inputs so that they are
 * exactly what `cuzk groth16 prove` writes (and a point or input the server
 * got wrong is refused); a bellman key's N x 192-byte proofs from
 * ?format=binary and, with --public, each partition's inputs one per line
 * (what `cuzk verify --inputs` reads). With N > 1 partitions a per-partition
 * file gets "-<i>" before its extension (proof-0.json, proof-1.json).
 *
 * Exit status: 0 done (or the request succeeded), 1 the job failed or was
 * cancelled (its error printed), 3 still not done at --timeout, 2 usage, a
 * refused request or no connection (one line naming the address).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "cuzk.h"
#include "io/json.h"
#include "opt.h"
#include "util/atomic_write.h"

#define EXIT_ENDED_BADLY 1
#define EXIT_USAGE 2
#define EXIT_TIMEOUT 3
#define ID_MAX ((uint64_t)1 << 53)
/* How long one long poll asks the server to hold it (the API allows up to
 * an hour): a connection that dies silently is noticed within a minute and
 * a half, and the poll is then simply made again. */
#define POLL_HOLD_MS 60000.0
/* How much longer than the server's hold the client waits for its answer. */
#define WAIT_SLACK_MS 30000

/* ---- setup ------------------------------------------------------------------- */

double cuzk__client_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* The token: the file's text less its final line break and blanks. */
static int read_token(cuzk__http_client *c, const char *cmd, const char *path) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        fprintf(stderr, "%s: --token-file %s: %s\n", cmd, path, strerror(errno));
        return 0;
    }
    const size_t n = fread(c->token, 1, sizeof(c->token) - 1, f);
    const int more = fgetc(f) != EOF, bad = ferror(f);
    fclose(f);
    size_t len = n;
    while (len > 0 && (c->token[len - 1] == '\n' || c->token[len - 1] == '\r' ||
                       c->token[len - 1] == ' ' || c->token[len - 1] == '\t'))
        len--;
    c->token[len] = '\0';
    if (bad || more || len == 0) {
        fprintf(stderr, "%s: --token-file %s: %s\n", cmd, path,
                bad    ? "cannot read it"
                : more ? "longer than 1024 bytes"
                       : "empty");
        return 0;
    }
    return 1;
}

static int token_ok(const char *cmd, const char *t, const char *from) {
    for (const char *p = t; *p; p++)
        if ((unsigned char)*p < ' ' || (unsigned char)*p > '~') {
            fprintf(stderr, "%s: the token of %s holds a byte that is not printable ASCII\n",
                    cmd, from);
            return 0;
        }
    return 1;
}

int cuzk__client_setup(cuzk__http_client *c, const char *cmd, const char *addr,
                       const char *token_file) {
    memset(c, 0, sizeof(*c));
    const char *from = "--addr";
    if (addr == NULL) {
        addr = getenv("CUZK_ADDR");
        from = "$CUZK_ADDR";
        if (addr == NULL || *addr == '\0') addr = CUZK_CLIENT_DEFAULT_ADDR;
    }
    char msg[CUZK_HTTP_ERR_MAX];
    if (!cuzk__http_addr_parse(&c->addr, addr, msg, sizeof(msg))) {
        fprintf(stderr, "%s: %s %s\n", cmd, from, msg);
        return 0;
    }
    if (token_file != NULL) {
        if (!read_token(c, cmd, token_file)) return 0;
        return token_ok(cmd, c->token, token_file);
    }
    const char *env = getenv("CUZK_TOKEN");
    if (env != NULL && *env != '\0') {
        if (strlen(env) > CUZK_HTTP_TOKEN_MAX) {
            fprintf(stderr, "%s: $CUZK_TOKEN is longer than %d bytes\n", cmd,
                    CUZK_HTTP_TOKEN_MAX);
            return 0;
        }
        strcpy(c->token, env);
        return token_ok(cmd, c->token, "$CUZK_TOKEN");
    }
    return 1;
}

/* ---- submissions ---------------------------------------------------------------- */

static int is_option(const char *s) { return s[0] == '-' && s[1] != '\0'; }

int cuzk__client_job_opt(cuzk__client_job *job, const char *cmd, int argc, char **argv, int *i) {
    const char *a = argv[*i];
    const int on_server = strcmp(a, "--witness-path") == 0;
    if (on_server || strcmp(a, "--witness") == 0) {
        if (*i + 1 >= argc || is_option(argv[*i + 1])) {
            fprintf(stderr, "%s: %s: needs a value\n", cmd, a);
            return -1;
        }
        while (*i + 1 < argc && !is_option(argv[*i + 1])) {
            const char *p = argv[++*i];
            if (on_server && p[0] != '/') {
                fprintf(stderr, "%s: --witness-path %s: must be an absolute path on the server\n",
                        cmd, p);
                return -1;
            }
            job->w[job->n++] = (cuzk__client_witness){p, on_server};
        }
        return 1;
    }
    const char **slot = strcmp(a, "--key") == 0          ? &job->key
                        : strcmp(a, "--priority") == 0   ? &job->priority
                        : strcmp(a, "--request-id") == 0 ? &job->request_id
                                                         : NULL;
    if (slot == NULL) return 0;
    const char *v = cuzk__opt_value(cmd, argc, argv, i);
    if (v == NULL) return -1;
    if (slot == &job->priority) {
        static const char *const names[] = {"low", "normal", "high", "critical"};
        if (cuzk__opt_choice(cmd, a, v, names, 4) < 0) return -1;
    }
    if (*v == '\0') {
        fprintf(stderr, "%s: %s: must not be empty\n", cmd, a);
        return -1;
    }
    *slot = v;
    return 1;
}

int cuzk__client_job_ok(const cuzk__client_job *job, const char *cmd) {
    if (job->key == NULL || job->n == 0) {
        fprintf(stderr, "%s: missing %s\n", cmd,
                job->key == NULL ? "--key" : "--witness FILE or --witness-path SERVER_PATH");
        return 0;
    }
    /* an upload that cannot be read is named before any connection */
    for (size_t i = 0; i < job->n; i++) {
        struct stat st;
        const char *p = job->w[i].path;
        if (job->w[i].on_server) continue;
        if (stat(p, &st) != 0 || access(p, R_OK) != 0) {
            fprintf(stderr, "%s: --witness %s: %s\n", cmd, p, strerror(errno));
            return 0;
        }
        if (!S_ISREG(st.st_mode)) {
            fprintf(stderr, "%s: --witness %s: not a regular file\n", cmd, p);
            return 0;
        }
    }
    return 1;
}

/* A piece of text the body owns; 0 when out of memory. */
static int add_text(cuzk__client_body *b, char *s) {
    if (s == NULL) return 0;
    b->pieces[b->n++] = (cuzk__http_piece){s, strlen(s), NULL};
    return 1;
}

static char *str_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *str_printf(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    const int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (s == NULL) return NULL;
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

/* A text part "name" of a multipart body; its value must not hold the
 * boundary (it cannot: values are the user's option strings and the
 * boundary holds 32 random hex digits, checked below). */
static char *text_part(const char *boundary, const char *name, const char *value) {
    return str_printf("--%s\r\nContent-Disposition: form-data; name=\"%s\"\r\n\r\n%s\r\n",
                      boundary, name, value);
}

/* The file name of a witness part: its base name, without quotes or
 * control bytes, which the header could not carry. */
static char *file_part(const char *boundary, const char *path) {
    const char *base = strrchr(path, '/');
    base = base != NULL && base[1] != '\0' ? base + 1 : path;
    char name[256];
    size_t n = 0;
    for (; *base && n + 1 < sizeof(name); base++)
        name[n++] = (unsigned char)*base < ' ' || *base == '"' || *base == '\\' ? '_' : *base;
    name[n] = '\0';
    return str_printf("--%s\r\nContent-Disposition: form-data; name=\"witness\"; "
                      "filename=\"%s\"\r\nContent-Type: application/octet-stream\r\n\r\n",
                      boundary, name);
}

static int make_json(cuzk__client_body *b, const cuzk__client_job *job) {
    cuzk_json_writer w;
    cuzk_json_writer_init(&w, 0);
    cuzk_json_begin_object(&w);
    cuzk_json_key(&w, "key", 3);
    cuzk_json_string(&w, job->key, strlen(job->key));
    if (job->priority != NULL) {
        cuzk_json_key(&w, "priority", 8);
        cuzk_json_string(&w, job->priority, strlen(job->priority));
    }
    if (job->request_id != NULL) {
        cuzk_json_key(&w, "request_id", 10);
        cuzk_json_string(&w, job->request_id, strlen(job->request_id));
    }
    cuzk_json_key(&w, "witness_paths", 13);
    cuzk_json_begin_array(&w);
    for (size_t i = 0; i < job->n; i++) cuzk_json_string(&w, job->w[i].path, strlen(job->w[i].path));
    cuzk_json_end_array(&w);
    cuzk_json_end_object(&w);
    char *text;
    size_t len;
    if (cuzk_json_writer_finish(&w, &text, &len) != CUZK_OK) return 0;
    b->pieces[b->n++] = (cuzk__http_piece){text, len, NULL};
    snprintf(b->content_type, sizeof(b->content_type), "application/json");
    return 1;
}

/* 16 random bytes as hex (the boundary of a multipart body). */
static void random_hex(char out[33]) {
    unsigned char r[16];
    FILE *f = fopen("/dev/urandom", "rb");
    size_t got = f != NULL ? fread(r, 1, sizeof(r), f) : 0;
    if (f != NULL) fclose(f);
    if (got != sizeof(r)) { /* no /dev/urandom: the clock and the process */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        uint64_t x = (uint64_t)ts.tv_nsec * 0x9E3779B97F4A7C15ull ^ (uint64_t)ts.tv_sec ^
                     (uint64_t)getpid() << 32;
        for (size_t i = 0; i < sizeof(r); i++) {
            x ^= x >> 33;
            x *= 0xff51afd7ed558ccdull;
            r[i] = (unsigned char)(x >> 56);
        }
    }
    for (size_t i = 0; i < sizeof(r); i++) snprintf(out + 2 * i, 3, "%02x", r[i]);
}

int cuzk__client_body_make(cuzk__client_body *b, const cuzk__client_job *job) {
    memset(b, 0, sizeof(*b));
    /* per witness a header, the file and its line break; key, priority,
     * request id, the end */
    b->pieces = calloc(3 * job->n + 4, sizeof(*b->pieces));
    if (b->pieces == NULL) return 0;
    int files = 0;
    for (size_t i = 0; i < job->n; i++) files |= !job->w[i].on_server;
    if (!files) {
        if (make_json(b, job)) return 1;
        cuzk__client_body_free(b);
        return 0;
    }
    char boundary[48] = "cuzk-";
    random_hex(boundary + 5);
    snprintf(b->content_type, sizeof(b->content_type), "multipart/form-data; boundary=%s",
             boundary);
    int ok = add_text(b, text_part(boundary, "key", job->key));
    if (ok && job->priority) ok = add_text(b, text_part(boundary, "priority", job->priority));
    if (ok && job->request_id)
        ok = add_text(b, text_part(boundary, "request_id", job->request_id));
    for (size_t i = 0; ok && i < job->n; i++) {
        if (job->w[i].on_server) {
            ok = add_text(b, text_part(boundary, "witness_path", job->w[i].path));
            continue;
        }
        /* the file, then the line break before the next boundary */
        ok = add_text(b, file_part(boundary, job->w[i].path));
        if (ok) b->pieces[b->n++] = (cuzk__http_piece){NULL, 0, job->w[i].path};
        if (ok) ok = add_text(b, str_printf("\r\n"));
    }
    if (ok) ok = add_text(b, str_printf("--%s--\r\n", boundary));
    if (!ok) cuzk__client_body_free(b);
    return ok;
}

void cuzk__client_body_free(cuzk__client_body *b) {
    for (size_t i = 0; b->pieces != NULL && i < b->n; i++)
        if (b->pieces[i].path == NULL) free((void *)b->pieces[i].p);
    free(b->pieces);
    memset(b, 0, sizeof(*b));
}

/* ---- answers ---------------------------------------------------------------------- */

static cuzk_json *parse_json(const cuzk__http_response *rs) {
    cuzk_json *root = NULL;
    cuzk_json_limits lim = {rs->len + 1, 0, 0};
    if (cuzk_json_parse(&root, rs->body, rs->len, &lim, NULL) != CUZK_OK) return NULL;
    return root;
}

const char *cuzk__client_error(const cuzk__http_response *rs, char *buf, size_t n) {
    cuzk_json *root = rs->body != NULL ? parse_json(rs) : NULL;
    const cuzk_json *e = cuzk_json_get(root, "error");
    const cuzk_json *st = cuzk_json_get(e, "status"), *m = cuzk_json_get(e, "message");
    if (m != NULL && m->type == CUZK_JSON_STRING) {
        snprintf(buf, n, "%d %s: %s", rs->status,
                 st != NULL && st->type == CUZK_JSON_STRING ? st->str
                                                            : cuzk__http_reason(rs->status),
                 m->str);
    } else { /* not the API's error form: the start of the body, printable */
        char text[201];
        size_t k = 0;
        for (size_t i = 0; i < rs->len && k + 1 < sizeof(text); i++)
            text[k++] = (unsigned char)rs->body[i] < ' ' ? ' ' : rs->body[i];
        while (k > 0 && text[k - 1] == ' ') k--;
        text[k] = '\0';
        snprintf(buf, n, "HTTP %d %s%s%s", rs->status, cuzk__http_reason(rs->status),
                 k ? ": " : "", text);
    }
    cuzk_json_free(root);
    return buf;
}

/* Sends a request without a body; 1 with *rs, else 0 after printing why. */
static int call(const char *cmd, const cuzk__http_client *c, const char *method,
                const char *target, cuzk__http_response *rs) {
    const cuzk__http_request rq = {method, target, NULL, NULL, 0};
    char msg[CUZK_HTTP_ERR_MAX];
    if (cuzk__http_do(c, &rq, rs, msg, sizeof(msg))) return 1;
    fprintf(stderr, "%s: %s\n", cmd, msg);
    return 0;
}

/* The JSON of a 2xx answer; else NULL after printing why (*rs freed). */
static cuzk_json *answer_json(const char *cmd, const cuzk__http_client *c,
                              cuzk__http_response *rs, const char *what) {
    if (rs->status < 200 || rs->status > 299) {
        char e[CUZK_HTTP_ERR_MAX];
        fprintf(stderr, "%s: %s: %s%s\n", cmd, c->addr.text, what,
                cuzk__client_error(rs, e, sizeof(e)));
        cuzk__http_response_free(rs);
        return NULL;
    }
    cuzk_json *root = parse_json(rs);
    if (root == NULL || root->type != CUZK_JSON_OBJECT) {
        fprintf(stderr, "%s: %s: %sthe answer (HTTP %d) is not a JSON object\n", cmd,
                c->addr.text, what, rs->status);
        cuzk_json_free(root);
        cuzk__http_response_free(rs);
        return NULL;
    }
    return root;
}

static const char *jstr(const cuzk_json *o, const char *k) {
    const cuzk_json *v = cuzk_json_get(o, k);
    return v != NULL && v->type == CUZK_JSON_STRING ? v->str : NULL;
}

static uint64_t ju64(const cuzk_json *o, const char *k) {
    uint64_t x = 0;
    return cuzk_json_get_u64(cuzk_json_get(o, k), &x) ? x : 0;
}

static double jnum(const cuzk_json *o, const char *k) {
    const cuzk_json *v = cuzk_json_get(o, k);
    return v != NULL && v->type == CUZK_JSON_NUMBER ? strtod(v->str, NULL) : 0;
}

static int job_ended(const cuzk_json *job) {
    const char *s = jstr(job, "state");
    return s != NULL &&
           (strcmp(s, "done") == 0 || strcmp(s, "failed") == 0 || strcmp(s, "cancelled") == 0);
}

/* The tree, laid out with an indent of 2, on stdout. */
static void print_tree(const cuzk_json *v) {
    cuzk_json_writer w;
    cuzk_json_writer_init(&w, 2);
    cuzk_json_write_tree(&w, v);
    char *text;
    size_t len;
    if (cuzk_json_writer_finish(&w, &text, &len) != CUZK_OK) {
        fprintf(stderr, "cuzk: out of memory printing JSON\n");
        return;
    }
    printf("%s\n", text);
    free(text);
}

int cuzk__client_await(const cuzk__http_client *c, uint64_t id, double deadline_ms,
                       cuzk__http_response *rs, char *msg, size_t msg_len) {
    for (;;) {
        double wait = POLL_HOLD_MS;
        if (deadline_ms > 0) {
            wait = deadline_ms - cuzk__client_now_ms();
            if (wait < 0) wait = 0;
            if (wait > POLL_HOLD_MS) wait = POLL_HOLD_MS;
        }
        char target[96];
        snprintf(target, sizeof(target), "/v1/jobs/%llu/await?timeout_ms=%.0f",
                 (unsigned long long)id, wait);
        cuzk__http_client cw = *c;
        cw.timeout_ms = (int)wait + WAIT_SLACK_MS;
        const cuzk__http_request rq = {"GET", target, NULL, NULL, 0};
        const double t0 = cuzk__client_now_ms();
        if (!cuzk__http_do(&cw, &rq, rs, msg, msg_len)) return -1;
        if (rs->status != 200) {
            char e[CUZK_HTTP_ERR_MAX];
            snprintf(msg, msg_len, "%s: job %llu: %s", c->addr.text, (unsigned long long)id,
                     cuzk__client_error(rs, e, sizeof(e)));
            const int status = rs->status;
            cuzk__http_response_free(rs);
            rs->status = status;
            return -1;
        }
        cuzk_json *job = parse_json(rs);
        const int ended = job_ended(job), valid = job != NULL && jstr(job, "state") != NULL;
        cuzk_json_free(job);
        if (!valid) {
            snprintf(msg, msg_len, "%s: job %llu: the answer holds no job", c->addr.text,
                     (unsigned long long)id);
            cuzk__http_response_free(rs);
            return -1;
        }
        if (ended) return 1;
        const double now = cuzk__client_now_ms();
        if (deadline_ms > 0 && now >= deadline_ms) return 0;
        /* a server that answers at once must not spin us */
        if (now - t0 < 100 && wait >= 200) nanosleep(&(struct timespec){0, 100000000}, NULL);
        cuzk__http_response_free(rs);
    }
}

/* ---- outputs of a done job ------------------------------------------------------- */

typedef struct {
    const char *proof, *pub; /* -o, --public (NULL: not written) */
    double timeout_s;        /* --timeout (0: none) */
    int json;
    /* files the command reads, which no output may be: --witness uploads, --token-file */
    const char **uploads;
    size_t n_uploads;
    const char *token_file;
} out_opts;

/* The files of o's command that are read (for cuzk__cli_files_ok). */
static void read_files(const out_opts *o, cuzk__cli_files f[2]) {
    f[0] = (cuzk__cli_files){"--witness", o->uploads, o->n_uploads, 0};
    f[1] = (cuzk__cli_files){"--token-file", &o->token_file, o->token_file != NULL, 0};
}

/* path with "-<i>" before its extension when there are n > 1 partitions. */
static char *part_path(const char *p, size_t i, size_t n) {
    if (n == 1) return str_printf("%s", p);
    const char *base = strrchr(p, '/');
    base = base != NULL ? base + 1 : p;
    const char *dot = strrchr(base, '.');
    if (dot == NULL || dot == base) dot = p + strlen(p);
    return str_printf("%.*s-%zu%s", (int)(dot - p), p, i, dot);
}

static int hex_digit(char ch) {
    return ch >= '0' && ch <= '9'   ? ch - '0'
           : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
           : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10
                                    : -1;
}

static int unhex(uint8_t *out, size_t n, const char *s) {
    if (s == NULL || strlen(s) != 2 * n) return 0;
    for (size_t i = 0; i < n; i++) {
        const int h = hex_digit(s[2 * i]), l = hex_digit(s[2 * i + 1]);
        if (h < 0 || l < 0) return 0;
        out[i] = (uint8_t)(h << 4 | l);
    }
    return 1;
}

/* The outputs being assembled: paths and contents, all freed at the end. */
typedef struct {
    cuzk_output *o;
    char **paths;
    void **data;
    unsigned char *is_pub; /* named by --public, else by -o */
    size_t n;
} outs;

static int outs_add(outs *s, char *path, void *data, size_t len, int is_pub) {
    s->is_pub[s->n] = (unsigned char)is_pub;
    s->paths[s->n] = path;
    s->data[s->n] = data;
    s->o[s->n] = (cuzk_output){path, data, len};
    s->n++;
    return path != NULL && data != NULL;
}

/* A snarkjs partition: proof.json from the 192 bytes, public.json from the
 * inputs, both through the library's encoders (which check them). */
static int snarkjs_part(const char *cmd, outs *s, const out_opts *o, const cuzk_json *pr, size_t i,
                        size_t n) {
    cuzk_error err;
    memset(&err, 0, sizeof(err));
    if (o->proof != NULL) {
        cuzk_proof proof;
        char *json = NULL;
        size_t len = 0;
        if (!unhex(proof.bytes, sizeof(proof.bytes), jstr(pr, "proof"))) {
            fprintf(stderr, "%s: partition %zu: the proof is not 384 hex digits\n", cmd, i);
            return 0;
        }
        if (cuzk_proof_to_json(&json, &len, &proof, &err) != CUZK_OK) {
            fprintf(stderr, "%s: partition %zu: %s\n", cmd, i, cuzk_error_text(&err));
            return 0;
        }
        char *copy = malloc(len + 1);
        if (copy != NULL) memcpy(copy, json, len + 1);
        cuzk_free(json);
        if (!outs_add(s, part_path(o->proof, i, n), copy, len, 0)) return 0;
    }
    if (o->pub != NULL) {
        /* the inputs as a JSON array, read and written back by the library */
        const cuzk_json *pub = cuzk_json_get(pr, "public");
        if (pub == NULL || pub->type != CUZK_JSON_ARRAY) {
            fprintf(stderr, "%s: partition %zu: the result holds no public inputs\n", cmd, i);
            return 0;
        }
        cuzk_json_writer w;
        cuzk_json_writer_init(&w, 0);
        cuzk_json_begin_array(&w); /* the items: the tree of pub would carry its key */
        for (size_t k = 0; k < pub->len; k++) cuzk_json_write_tree(&w, pub->items[k]);
        cuzk_json_end_array(&w);
        char *text = NULL, *json = NULL;
        size_t tl = 0, len = 0, np = 0;
        uint8_t *inputs = NULL;
        if (cuzk_json_writer_finish(&w, &text, &tl) != CUZK_OK) return 0;
        const cuzk_status st = cuzk_public_from_json(&inputs, &np, text, tl, &err);
        free(text);
        if (st != CUZK_OK || cuzk_public_to_json(&json, &len, inputs, np, &err) != CUZK_OK) {
            fprintf(stderr, "%s: partition %zu: public inputs: %s\n", cmd, i,
                    cuzk_error_text(&err));
            cuzk_free(inputs);
            return 0;
        }
        cuzk_free(inputs);
        char *copy = malloc(len + 1);
        if (copy != NULL) memcpy(copy, json, len + 1);
        cuzk_free(json);
        if (!outs_add(s, part_path(o->pub, i, n), copy, len, 1)) return 0;
    }
    return 1;
}

/* A bellman partition's inputs, one decimal a line. */
static int bellman_public(const char *cmd, outs *s, const out_opts *o, const cuzk_json *pr,
                          size_t i, size_t n) {
    const cuzk_json *pub = cuzk_json_get(pr, "public");
    size_t len = 0;
    for (size_t k = 0; pub != NULL && pub->type == CUZK_JSON_ARRAY && k < pub->len; k++) {
        const cuzk_json *v = pub->items[k];
        if (v->type != CUZK_JSON_STRING || v->len == 0 || strspn(v->str, "0123456789") != v->len)
            pub = NULL;
        else
            len += v->len + 1;
    }
    if (pub == NULL || pub->type != CUZK_JSON_ARRAY) {
        fprintf(stderr, "%s: partition %zu: the public inputs are not decimal strings\n", cmd, i);
        return 0;
    }
    char *text = malloc(len + 1), *q = text;
    for (size_t k = 0; text != NULL && k < pub->len; k++)
        q += sprintf(q, "%s\n", pub->items[k]->str);
    return outs_add(s, part_path(o->pub, i, n), text, len, 1);
}

/* The bellman proofs, N x 192 bytes back to back (GET ...?format=binary). */
static int bellman_proofs(const char *cmd, const cuzk__http_client *c, outs *s,
                          const out_opts *o, uint64_t id, size_t n) {
    char target[80];
    snprintf(target, sizeof(target), "/v1/jobs/%llu/result?format=binary",
             (unsigned long long)id);
    cuzk__http_response rs;
    if (!call(cmd, c, "GET", target, &rs)) return 0;
    if (rs.status != 200) {
        char e[CUZK_HTTP_ERR_MAX];
        fprintf(stderr, "%s: %s: job %llu: %s\n", cmd, c->addr.text, (unsigned long long)id,
                cuzk__client_error(&rs, e, sizeof(e)));
        cuzk__http_response_free(&rs);
        return 0;
    }
    if (rs.len != n * CUZK_PROOF_BYTES) {
        fprintf(stderr, "%s: %s: job %llu: %zu bytes of proofs for %zu partitions (not %zu x %d)\n",
                cmd, c->addr.text, (unsigned long long)id, rs.len, n, n, CUZK_PROOF_BYTES);
        cuzk__http_response_free(&rs);
        return 0;
    }
    return outs_add(s, str_printf("%s", o->proof), rs.body, rs.len, 0);
}

/* Writes the outputs of done job id from its result (the JSON of
 * GET /v1/jobs/ID/result); 0 after printing why. */
static int write_outputs(const char *cmd, const cuzk__http_client *c, uint64_t id,
                         const cuzk_json *result, const out_opts *o) {
    const char *format = jstr(result, "format");
    const cuzk_json *proofs = cuzk_json_get(result, "proofs");
    const size_t n = proofs != NULL && proofs->type == CUZK_JSON_ARRAY ? proofs->len : 0;
    const int snarkjs = format != NULL && strcmp(format, "snarkjs") == 0;
    if (n == 0 || ju64(result, "partitions") != n || format == NULL ||
        (!snarkjs && strcmp(format, "bellman") != 0)) {
        fprintf(stderr, "%s: %s: job %llu: the result is not snarkjs or bellman proofs of its "
                        "partitions\n",
                cmd, c->addr.text, (unsigned long long)id);
        return 0;
    }
    for (size_t i = 0; i < n; i++)
        if (ju64(proofs->items[i], "partition") != i) {
            fprintf(stderr, "%s: job %llu: the result's proofs are not in partition order\n", cmd,
                    (unsigned long long)id);
            return 0;
        }
    /* one file per partition: a device or FIFO cannot take them */
    const char *dev = snarkjs && o->proof && cuzk__out_in_place(o->proof) ? o->proof
                      : o->pub && cuzk__out_in_place(o->pub)              ? o->pub
                                                                          : NULL;
    if (n > 1 && dev != NULL) {
        fprintf(stderr, "%s: %s: %zu partitions need a file each, not one device\n", cmd, dev, n);
        return 0;
    }
    const size_t cap = 2 * n + 1;
    outs s = {calloc(cap, sizeof(cuzk_output)), calloc(cap, sizeof(char *)),
              calloc(cap, sizeof(void *)), calloc(cap, 1), 0};
    int ok = s.o != NULL && s.paths != NULL && s.data != NULL && s.is_pub != NULL;
    if (!ok) fprintf(stderr, "%s: out of memory\n", cmd);
    if (ok && !snarkjs && o->proof != NULL) ok = bellman_proofs(cmd, c, &s, o, id, n);
    for (size_t i = 0; ok && i < n; i++)
        ok = snarkjs ? snarkjs_part(cmd, &s, o, proofs->items[i], i, n)
                     : o->pub == NULL || bellman_public(cmd, &s, o, proofs->items[i], i, n);
    if (ok && s.n > 0) {
        /* the per-partition names may meet each other or the other option's */
        const char **paths = calloc(s.n, sizeof(char *));
        if (paths == NULL) {
            fprintf(stderr, "%s: out of memory\n", cmd);
            ok = 0;
        } else {
            size_t n_proof = 0, np = 0;
            for (int pub = 0; pub < 2; pub++)
                for (size_t i = 0; i < s.n; i++)
                    if (s.is_pub[i] == pub) paths[np++] = s.paths[i];
            for (size_t i = 0; i < s.n; i++) n_proof += !s.is_pub[i];
            cuzk__cli_files f[4] = {{"-o", paths, n_proof, 1},
                                    {"--public", paths + n_proof, s.n - n_proof, 1}};
            read_files(o, f + 2);
            const char *name = strchr(cmd, ' ') != NULL ? strchr(cmd, ' ') + 1 : cmd;
            ok = cuzk__cli_files_ok(name, f, 4);
        }
        free(paths);
    }
    if (ok && s.n > 0) {
        cuzk_error err;
        memset(&err, 0, sizeof(err));
        if (cuzk_files_write(s.o, s.n, &err) != CUZK_OK) {
            fprintf(stderr, "%s: %s\n", cmd, cuzk_error_text(&err));
            ok = 0;
        }
    }
    for (size_t i = 0; i < s.n; i++) {
        free(s.paths[i]);
        free(s.data[i]);
    }
    free(s.o);
    free(s.paths);
    free(s.data);
    free(s.is_pub);
    return ok;
}

/* The outcome of a job that answered: outputs written, a line said, the exit
 * status returned. job may carry its result (POST /v1/prove). */
static int job_outcome(const char *cmd, const cuzk__http_client *c, const cuzk_json *job,
                       const out_opts *o) {
    const uint64_t id = ju64(job, "id");
    const char *state = jstr(job, "state");
    if (state == NULL || id == 0) {
        fprintf(stderr, "%s: %s: the answer holds no job\n", cmd, c->addr.text);
        return EXIT_USAGE;
    }
    if (!job_ended(job)) {
        fprintf(stderr, "%s: job %llu is still %s after %g s (cuzk await %llu waits on)\n", cmd,
                (unsigned long long)id, state, o->timeout_s, (unsigned long long)id);
        if (o->json) print_tree(job);
        return EXIT_TIMEOUT;
    }
    if (strcmp(state, "done") != 0) {
        const cuzk_json *e = cuzk_json_get(job, "error");
        const char *st = jstr(e, "status"), *m = jstr(e, "message");
        fprintf(stderr, "%s: job %llu %s%s%s%s%s\n", cmd, (unsigned long long)id, state,
                m || st ? ": " : "", st ? st : "", st && m ? ": " : "", m ? m : "");
        if (o->json) print_tree(job);
        return EXIT_ENDED_BADLY;
    }
    if (o->proof != NULL || o->pub != NULL) {
        const cuzk_json *result = cuzk_json_get(job, "result");
        cuzk__http_response rs = {0};
        cuzk_json *fetched = NULL;
        if (result == NULL) {
            char target[64];
            snprintf(target, sizeof(target), "/v1/jobs/%llu/result", (unsigned long long)id);
            if (!call(cmd, c, "GET", target, &rs)) return EXIT_USAGE;
            fetched = answer_json(cmd, c, &rs, "result: ");
            if (fetched == NULL) return EXIT_USAGE;
            result = fetched;
        }
        const int ok = write_outputs(cmd, c, id, result, o);
        cuzk_json_free(fetched);
        cuzk__http_response_free(&rs);
        if (!ok) {
            fprintf(stderr, "%s: job %llu is done; cuzk await %llu -o ... writes its proofs\n",
                    cmd, (unsigned long long)id, (unsigned long long)id);
            return EXIT_USAGE;
        }
    }
    if (o->json) {
        print_tree(job);
    } else {
        const uint64_t parts = ju64(job, "partitions");
        const double ms = jnum(job, "finished_ms") - jnum(job, "created_ms");
        printf("job %llu done: %llu partition%s in %.3f s\n", (unsigned long long)id,
               (unsigned long long)parts, parts == 1 ? "" : "s", ms > 0 ? ms / 1000 : 0.0);
    }
    return 0;
}

/* ---- the commands' shared options ----------------------------------------------- */

typedef struct {
    const char *addr, *token_file;
    int json, help;
} common_opts;

/* --addr, --token-file, --json, --help: 1 taken, 0 not one of them, -1 bad. */
static int common_opt(common_opts *co, const char *cmd, int argc, char **argv, int *i) {
    const char *a = argv[*i];
    if (strcmp(a, "--json") == 0) return co->json = 1;
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) return co->help = 1;
    const char **slot = strcmp(a, "--addr") == 0         ? &co->addr
                        : strcmp(a, "--token-file") == 0 ? &co->token_file
                                                         : NULL;
    if (slot == NULL) return 0;
    *slot = cuzk__opt_value(cmd, argc, argv, i);
    return *slot != NULL ? 1 : -1;
}

/* -o, --public, --timeout: 1 taken, 0 not one of them, -1 bad. */
static int out_opt(out_opts *o, const char *cmd, int argc, char **argv, int *i) {
    const char *a = argv[*i];
    const int is_o = strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0;
    if (!is_o && strcmp(a, "--public") != 0 && strcmp(a, "--timeout") != 0) return 0;
    const char *v = cuzk__opt_value(cmd, argc, argv, i);
    if (v == NULL) return -1;
    if (is_o) o->proof = v;
    else if (strcmp(a, "--public") == 0) o->pub = v;
    else if (!cuzk__opt_double(cmd, a, v, 0.001, 1e9, &o->timeout_s)) return -1;
    return 1;
}

/* -o and --public can be written, are not one file, and are none of the
 * files the command reads. */
static int outs_ok(const char *cmd, const out_opts *o) {
    const char *p[] = {o->proof}, *q[] = {o->pub};
    cuzk__cli_files f[4] = {{"-o", p, 1, 1}, {"--public", q, 1, 1}};
    read_files(o, f + 2);
    return cuzk__cli_files_ok(cmd, f, 4);
}

static int parse_id(const char *cmd, const char *s, uint64_t *id) {
    return cuzk__opt_u64(cmd, "ID", s, 1, ID_MAX, id);
}

#define ADDR_HELP                                                                               \
    "  --addr A         unix:/PATH or http://HOST:PORT ([v6] in brackets); default\n"        \
    "                   $CUZK_ADDR, else " CUZK_CLIENT_DEFAULT_ADDR "\n"                      \
    "  --token-file F   the bearer token (TCP); default $CUZK_TOKEN\n"
#define JOB_HELP                                                                                \
    "  --key K          the daemon's key (a [key K] of its configuration)\n"                  \
    "  --priority P     low, normal (the default), high or critical\n"                        \
    "  --request-id R   a resubmission with the same R returns the first job\n"               \
    "  --witness F..    witness files (.wtns or ours) uploaded, one per partition\n"          \
    "  --witness-path P..  witnesses already on the server (absolute paths)\n"                \
    "                   (the two mix; partitions follow the order given)\n"
#define OUT_HELP                                                                                \
    "  -o PROOF         snarkjs key: proof.json; bellman key: the N x 192-byte proofs\n"      \
    "  --public PUBLIC  snarkjs key: public.json; bellman key: inputs, one a line\n"         \
    "                   (with N > 1 partitions, per-partition files get -<i> before\n"       \
    "                   the extension: proof-0.json, proof-1.json)\n"                         \
    "  --timeout S      give up waiting after S seconds (exit 3); default none\n"

static int help(int usage_error, const char *text) {
    fputs(text, usage_error ? stderr : stdout);
    return usage_error ? EXIT_USAGE : 0;
}

/* ---- cuzk submit ---------------------------------------------------------------- */

static const char submit_help[] =
    "usage: cuzk submit [--addr A] [--token-file F] --key K [--priority P] [--request-id R]\n"
    "                   (--witness FILE.. | --witness-path SERVER_PATH..)... [--json]\n"
    "  submits a job to the daemon (POST /v1/jobs) and prints its id (--json: the job)\n" ADDR_HELP
        JOB_HELP;

/* POSTs job to target; 1 with *rs (any status), else 0 after printing why. */
static int post_job(const char *cmd, const cuzk__http_client *c, const char *target,
                    const cuzk__client_job *job, cuzk__http_response *rs) {
    cuzk__client_body b;
    if (!cuzk__client_body_make(&b, job)) {
        fprintf(stderr, "%s: out of memory\n", cmd);
        return 0;
    }
    const cuzk__http_request rq = {"POST", target, b.content_type, b.pieces, b.n};
    char msg[CUZK_HTTP_ERR_MAX];
    const int ok = cuzk__http_do(c, &rq, rs, msg, sizeof(msg));
    if (!ok) fprintf(stderr, "%s: %s\n", cmd, msg);
    cuzk__client_body_free(&b);
    return ok;
}

/* The parse of a submission's command line (submit, prove --addr). */
static int parse_job_cmd(const char *cmd, int argc, char **argv, common_opts *co,
                         cuzk__client_job *job, out_opts *o) {
    for (int i = 0; i < argc; i++) {
        int r = common_opt(co, cmd, argc, argv, &i);
        if (r == 0) r = cuzk__client_job_opt(job, cmd, argc, argv, &i);
        if (r == 0 && o != NULL) r = out_opt(o, cmd, argc, argv, &i);
        if (r < 0) return 0;
        if (r == 0) {
            cuzk__opt_unknown(cmd, argv[i]);
            return 0;
        }
        if (co->help) return 1;
    }
    return 1;
}

int cuzk__cmd_submit(int argc, char **argv) {
    const char *cmd = "cuzk submit";
    common_opts co = {0};
    cuzk__client_job job = {0};
    job.w = calloc((size_t)argc + 1, sizeof(*job.w));
    if (job.w == NULL) return EXIT_USAGE;
    int rc = EXIT_USAGE;
    cuzk__http_client c;
    cuzk__http_response rs;
    if (!parse_job_cmd(cmd, argc, argv, &co, &job, NULL)) goto out;
    if (co.help) {
        rc = help(0, submit_help);
        goto out;
    }
    if (!cuzk__client_job_ok(&job, cmd) || !cuzk__client_setup(&c, cmd, co.addr, co.token_file) ||
        !post_job(cmd, &c, "/v1/jobs", &job, &rs))
        goto out;
    cuzk_json *j = answer_json(cmd, &c, &rs, "");
    if (j == NULL) goto out;
    const uint64_t id = ju64(j, "id");
    if (id == 0) {
        fprintf(stderr, "%s: %s: the answer holds no job id\n", cmd, c.addr.text);
    } else {
        if (co.json) print_tree(j);
        else printf("%llu\n", (unsigned long long)id);
        rc = 0;
    }
    cuzk_json_free(j);
    cuzk__http_response_free(&rs);
out:
    free(job.w);
    return rc;
}

/* ---- cuzk await ----------------------------------------------------------------- */

static const char await_help[] =
    "usage: cuzk await [--addr A] [--token-file F] ID [--timeout S] [-o PROOF] [--public PUBLIC]\n"
    "                  [--json]\n"
    "  waits for job ID to end; when it is done writes its proofs. Exit 0 done,\n"
    "  1 failed or cancelled (its error printed), 3 not done at --timeout, 2 an\n"
    "  error of the request\n" ADDR_HELP OUT_HELP;

/* Waits for job id and takes its outcome (await, and prove on 202). */
static int await_and_finish(const char *cmd, const cuzk__http_client *c, uint64_t id,
                            double deadline, const out_opts *o) {
    cuzk__http_response rs;
    char msg[CUZK_HTTP_ERR_MAX];
    if (cuzk__client_await(c, id, deadline, &rs, msg, sizeof(msg)) < 0) {
        fprintf(stderr, "%s: %s\n", cmd, msg);
        return EXIT_USAGE;
    }
    cuzk_json *job = parse_json(&rs);
    const int rc = job_outcome(cmd, c, job, o);
    cuzk_json_free(job);
    cuzk__http_response_free(&rs);
    return rc;
}

int cuzk__cmd_await(int argc, char **argv) {
    const char *cmd = "cuzk await", *id_arg = NULL;
    common_opts co = {0};
    out_opts o = {0};
    for (int i = 0; i < argc; i++) {
        int r = common_opt(&co, cmd, argc, argv, &i);
        if (r == 0) r = out_opt(&o, cmd, argc, argv, &i);
        if (r < 0) return EXIT_USAGE;
        if (co.help) return help(0, await_help);
        if (r == 1) continue;
        if (is_option(argv[i]) || id_arg != NULL) return cuzk__opt_unknown(cmd, argv[i]);
        id_arg = argv[i];
    }
    uint64_t id;
    if (id_arg == NULL) return help(1, await_help);
    o.token_file = co.token_file;
    if (!parse_id(cmd, id_arg, &id) || !outs_ok("await", &o)) return EXIT_USAGE;
    o.json = co.json;
    cuzk__http_client c;
    if (!cuzk__client_setup(&c, cmd, co.addr, co.token_file)) return EXIT_USAGE;
    const double deadline = o.timeout_s > 0 ? cuzk__client_now_ms() + o.timeout_s * 1e3 : 0;
    return await_and_finish(cmd, &c, id, deadline, &o);
}

/* ---- cuzk prove --addr ------------------------------------------------------------- */

static const char prove_help[] =
    "usage: cuzk prove --addr A [--token-file F] --key K [--priority P] [--request-id R]\n"
    "                  (--witness FILE.. | --witness-path SERVER_PATH..)...\n"
    "                  [--timeout S] [-o PROOF] [--public PUBLIC] [--json]\n"
    "  the daemon proves (POST /v1/prove, then awaits the job if it takes longer)\n"
    "  and the proofs are written as by cuzk await. Exit 0 done, 1 failed or\n"
    "  cancelled, 3 not done at --timeout, 2 an error of the request\n" ADDR_HELP JOB_HELP
        OUT_HELP;

int cuzk__client_prove(int argc, char **argv) {
    const char *cmd = "cuzk prove";
    common_opts co = {0};
    out_opts o = {0};
    cuzk__client_job job = {0};
    job.w = calloc((size_t)argc + 1, sizeof(*job.w));
    if (job.w == NULL) return EXIT_USAGE;
    int rc = EXIT_USAGE;
    cuzk__http_client c;
    cuzk__http_response rs;
    static const char *const local[] = {"--circuit", "--params", "--backend", "--device",
                                        "--devices", "--lanes",  "--threads", "--no-verify"};
    for (int i = 0; i < argc; i++)
        for (size_t k = 0; k < sizeof(local) / sizeof(local[0]); k++)
            if (strcmp(argv[i], local[k]) == 0) {
                fprintf(stderr, "%s: %s is an option of the local prover; with --addr the "
                                "daemon proves with its own key (--key K)\n",
                        cmd, argv[i]);
                goto out;
            }
    if (!parse_job_cmd(cmd, argc, argv, &co, &job, &o)) goto out;
    if (co.help) {
        rc = help(0, prove_help);
        goto out;
    }
    o.json = co.json;
    o.token_file = co.token_file;
    o.uploads = calloc(job.n + 1, sizeof(*o.uploads));
    if (o.uploads == NULL) goto out;
    for (size_t i = 0; i < job.n; i++)
        if (!job.w[i].on_server) o.uploads[o.n_uploads++] = job.w[i].path;
    if (!cuzk__client_job_ok(&job, cmd) || !outs_ok("prove", &o) ||
        !cuzk__client_setup(&c, cmd, co.addr, co.token_file))
        goto out;
    const double deadline = o.timeout_s > 0 ? cuzk__client_now_ms() + o.timeout_s * 1e3 : 0;
    double wait = o.timeout_s > 0 ? o.timeout_s * 1e3 : POLL_HOLD_MS;
    if (wait > POLL_HOLD_MS) wait = POLL_HOLD_MS;
    char target[64];
    snprintf(target, sizeof(target), "/v1/prove?timeout_ms=%.0f", wait);
    c.timeout_ms = (int)wait + WAIT_SLACK_MS;
    if (!post_job(cmd, &c, target, &job, &rs)) goto out;
    cuzk_json *j = answer_json(cmd, &c, &rs, "");
    if (j == NULL) goto out;
    const uint64_t id = ju64(j, "id");
    const int waiting = rs.status == 202 && id != 0 && !job_ended(j) &&
                        (deadline == 0 || cuzk__client_now_ms() < deadline);
    c.timeout_ms = 0;
    rc = waiting ? await_and_finish(cmd, &c, id, deadline, &o) : job_outcome(cmd, &c, j, &o);
    cuzk_json_free(j);
    cuzk__http_response_free(&rs);
out:
    free(o.uploads);
    free(job.w);
    return rc;
}

/* ---- cuzk cancel ----------------------------------------------------------------- */

static const char cancel_help[] =
    "usage: cuzk cancel [--addr A] [--token-file F] ID [--json]\n"
    "  cancels a queued or running job (a job that has ended stays as it ended)\n" ADDR_HELP;

/* A command of one job id and the common options; 0 and the id, or the exit
 * status after printing why (*id 0). */
static int id_cmd(const char *cmd, const char *usage, int argc, char **argv, common_opts *co,
                  uint64_t *id) {
    const char *id_arg = NULL;
    *id = 0;
    for (int i = 0; i < argc; i++) {
        const int r = common_opt(co, cmd, argc, argv, &i);
        if (r < 0) return EXIT_USAGE;
        if (co->help) return help(0, usage);
        if (r == 1) continue;
        if (is_option(argv[i]) || id_arg != NULL) return cuzk__opt_unknown(cmd, argv[i]);
        id_arg = argv[i];
    }
    if (id_arg == NULL) return help(1, usage);
    return parse_id(cmd, id_arg, id) ? 0 : EXIT_USAGE;
}

int cuzk__cmd_cancel(int argc, char **argv) {
    const char *cmd = "cuzk cancel";
    common_opts co = {0};
    uint64_t id;
    const int rc = id_cmd(cmd, cancel_help, argc, argv, &co, &id);
    if (id == 0) return rc;
    cuzk__http_client c;
    cuzk__http_response rs;
    char target[64];
    snprintf(target, sizeof(target), "/v1/jobs/%llu/cancel", (unsigned long long)id);
    if (!cuzk__client_setup(&c, cmd, co.addr, co.token_file) || !call(cmd, &c, "POST", target, &rs))
        return EXIT_USAGE;
    char what[48];
    snprintf(what, sizeof(what), "job %llu: ", (unsigned long long)id);
    cuzk_json *j = answer_json(cmd, &c, &rs, what);
    if (j == NULL) return EXIT_USAGE;
    if (co.json) print_tree(j);
    else printf("job %llu: %s\n", (unsigned long long)id, jstr(j, "state") ? jstr(j, "state") : "?");
    cuzk_json_free(j);
    cuzk__http_response_free(&rs);
    return 0;
}

/* ---- cuzk jobs ------------------------------------------------------------------- */

static const char jobs_help[] =
    "usage: cuzk jobs [--addr A] [--token-file F] [--state S[,S]] [--after ID] [--limit N]\n"
    "                 [--json]\n"
    "  lists jobs by id: S of queued, running, done, failed, cancelled; ids above\n"
    "  --after; at most N (1..1000; default every job, page by page)\n" ADDR_HELP;

static void print_job_row(const cuzk_json *j, int key_w) {
    const char *key = jstr(j, "key"), *state = jstr(j, "state"), *pri = jstr(j, "priority");
    const char *rid = jstr(j, "request_id");
    char parts[48], when[32] = "-";
    snprintf(parts, sizeof(parts), "%llu/%llu", (unsigned long long)ju64(j, "partitions_done"),
             (unsigned long long)ju64(j, "partitions"));
    const time_t t = (time_t)(jnum(j, "created_ms") / 1000);
    struct tm tm;
    if (t > 0 && localtime_r(&t, &tm) != NULL) strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
    const cuzk_json *e = cuzk_json_get(j, "error");
    printf("%-8llu %-10s %-9s %-*s %-9s %-20s %s%s%s\n", (unsigned long long)ju64(j, "id"),
           state ? state : "?", pri ? pri : "?", key_w, key ? key : "?", parts, when,
           rid ? rid : "-", jstr(e, "status") ? "  " : "", jstr(e, "status") ? jstr(e, "status") : "");
}

int cuzk__cmd_jobs(int argc, char **argv) {
    const char *cmd = "cuzk jobs", *states = NULL;
    common_opts co = {0};
    uint64_t after = 0, limit = 0;
    for (int i = 0; i < argc; i++) {
        int r = common_opt(&co, cmd, argc, argv, &i);
        if (r < 0) return EXIT_USAGE;
        if (co.help) return help(0, jobs_help);
        if (r == 1) continue;
        const char *a = argv[i];
        if (strcmp(a, "--state") != 0 && strcmp(a, "--after") != 0 && strcmp(a, "--limit") != 0)
            return cuzk__opt_unknown(cmd, a);
        const char *v = cuzk__opt_value(cmd, argc, argv, &i);
        if (v == NULL) return EXIT_USAGE;
        if (strcmp(a, "--state") == 0) states = v;
        else if (strcmp(a, "--after") == 0 && !cuzk__opt_u64(cmd, a, v, 0, ID_MAX, &after))
            return EXIT_USAGE;
        else if (strcmp(a, "--limit") == 0 && !cuzk__opt_u64(cmd, a, v, 1, 1000, &limit))
            return EXIT_USAGE;
    }
    /* each state named, so the query needs no escaping */
    for (const char *s = states; s != NULL;) {
        static const char *const names[] = {"queued", "running", "done", "failed", "cancelled"};
        const size_t len = strcspn(s, ",");
        int known = 0;
        for (int k = 0; k < 5; k++) known |= strlen(names[k]) == len && strncmp(s, names[k], len) == 0;
        if (!known)
            return cuzk__opt_fail(cmd, "--state %s: each must be queued, running, done, failed or "
                                       "cancelled", states);
        s = s[len] == ',' ? s + len + 1 : NULL;
    }
    cuzk__http_client c;
    if (!cuzk__client_setup(&c, cmd, co.addr, co.token_file)) return EXIT_USAGE;
    cuzk_json_writer w;
    cuzk_json_writer_init(&w, 2);
    cuzk_json_begin_object(&w);
    cuzk_json_key(&w, "jobs", 4);
    cuzk_json_begin_array(&w);
    int rc = EXIT_USAGE, header = 0;
    uint64_t next = 0;
    int more = 0; /* the last page named a next_after */
    for (;;) { /* one page a request; with --limit just the one */
        char target[160];
        snprintf(target, sizeof(target), "/v1/jobs?after=%llu&limit=%llu%s%s",
                 (unsigned long long)after, (unsigned long long)(limit ? limit : 1000),
                 states ? "&state=" : "", states ? states : "");
        cuzk__http_response rs;
        if (!call(cmd, &c, "GET", target, &rs)) goto out;
        cuzk_json *j = answer_json(cmd, &c, &rs, "");
        if (j == NULL) goto out;
        const cuzk_json *list = cuzk_json_get(j, "jobs");
        more = cuzk_json_get_u64(cuzk_json_get(j, "next_after"), &next);
        if (list == NULL || list->type != CUZK_JSON_ARRAY || (more && !limit && next <= after)) {
            fprintf(stderr, "%s: %s: the answer is not a page of jobs\n", cmd, c.addr.text);
            cuzk_json_free(j);
            cuzk__http_response_free(&rs);
            goto out;
        }
        int key_w = 6;
        for (size_t i = 0; i < list->len; i++) {
            const char *k = jstr(list->items[i], "key");
            if (k != NULL && (int)strlen(k) > key_w) key_w = (int)strlen(k);
        }
        for (size_t i = 0; i < list->len; i++) {
            if (co.json) {
                cuzk_json_write_tree(&w, list->items[i]);
                continue;
            }
            if (!header++)
                printf("%-8s %-10s %-9s %-*s %-9s %-20s %s\n", "ID", "STATE", "PRIORITY", key_w,
                       "KEY", "PARTS", "CREATED", "REQUEST_ID");
            print_job_row(list->items[i], key_w);
        }
        cuzk_json_free(j);
        cuzk__http_response_free(&rs);
        if (!more || limit) break;
        after = next;
    }
    cuzk_json_end_array(&w);
    if (co.json) {
        char num[24];
        cuzk_json_key(&w, "next_after", 10);
        const int n = more ? snprintf(num, sizeof(num), "%llu", (unsigned long long)next)
                           : snprintf(num, sizeof(num), "null");
        cuzk_json_raw(&w, num, (size_t)n);
        cuzk_json_end_object(&w);
        char *text;
        size_t len;
        if (cuzk_json_writer_finish(&w, &text, &len) != CUZK_OK) {
            fprintf(stderr, "%s: out of memory\n", cmd);
            return EXIT_USAGE;
        }
        printf("%s\n", text);
        free(text);
    } else if (!header) {
        printf("no jobs\n");
    }
    rc = 0;
out:
    cuzk_json_writer_free(&w);
    return rc;
}

/* ---- cuzk status ----------------------------------------------------------------- */

static const char status_help[] =
    "usage: cuzk status [--addr A] [--token-file F] [--cluster] [--json]\n"
    "  the daemon's state: uptime, backend, devices, keys, jobs, engine counters;\n"
    "  --cluster: the daemons sharing its PostgreSQL store instead (GET /v1/cluster):\n"
    "  each one's heartbeat, what it is and what it holds, and this one's counts\n" ADDR_HELP;

/* n bytes as "12.1 KiB". */
static const char *bytes_text(char *buf, size_t n, double b) {
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (b >= 1024 && u < 4) b /= 1024, u++;
    snprintf(buf, n, u ? "%.1f %s" : "%.0f %s", b, unit[u]);
    return buf;
}

static void print_status(const char *addr, const cuzk_json *s) {
    const double up = jnum(s, "uptime_s");
    const long long secs = (long long)up;
    printf("cuzk %s at %s: up %lldd %02lld:%02lld:%02lld, %s backend%s\n",
           jstr(s, "version") ? jstr(s, "version") : "?", addr, secs / 86400, secs / 3600 % 24,
           secs / 60 % 60, secs % 60, jstr(s, "backend") ? jstr(s, "backend") : "?",
           cuzk_json_get(s, "draining") && cuzk_json_get(s, "draining")->type == CUZK_JSON_TRUE
               ? ", draining"
               : "");
    const cuzk_json *devs = cuzk_json_get(s, "devices");
    char b1[32], b2[32];
    if (devs == NULL || devs->type != CUZK_JSON_ARRAY || devs->len == 0) printf("devices: none\n");
    for (size_t i = 0; devs != NULL && devs->type == CUZK_JSON_ARRAY && i < devs->len; i++) {
        const cuzk_json *d = devs->items[i];
        printf("GPU %llu: %s, %s free of %s\n", (unsigned long long)ju64(d, "index"),
               jstr(d, "name") ? jstr(d, "name") : "?",
               bytes_text(b1, sizeof(b1), jnum(d, "memory_free")),
               bytes_text(b2, sizeof(b2), jnum(d, "memory_total")));
    }
    const cuzk_json *jobs = cuzk_json_get(s, "jobs");
    printf("jobs: %llu queued, %llu running, %llu done, %llu failed, %llu cancelled\n",
           (unsigned long long)ju64(jobs, "queued"), (unsigned long long)ju64(jobs, "running"),
           (unsigned long long)ju64(jobs, "done"), (unsigned long long)ju64(jobs, "failed"),
           (unsigned long long)ju64(jobs, "cancelled"));
    const cuzk_json *keys = cuzk_json_get(s, "keys");
    const size_t nk = keys != NULL && keys->type == CUZK_JSON_ARRAY ? keys->len : 0;
    int w = 4;
    for (size_t i = 0; i < nk; i++) {
        const char *n = jstr(keys->items[i], "name");
        if (n != NULL && (int)strlen(n) > w) w = (int)strlen(n);
    }
    printf("keys:%s\n", nk ? "" : " none");
    if (nk)
        printf("  %-*s %-8s %-5s %10s %7s %8s %6s %9s\n", w, "NAME", "FORMAT", "TIER", "SIZE",
               "QUEUED", "RUNNING", "LOADS", "EVICTIONS");
    for (size_t i = 0; i < nk; i++) {
        const cuzk_json *k = keys->items[i];
        printf("  %-*s %-8s %-5s %10s %7llu %8llu %6llu %9llu\n", w,
               jstr(k, "name") ? jstr(k, "name") : "?", jstr(k, "format") ? jstr(k, "format") : "?",
               jstr(k, "tier") ? jstr(k, "tier") : "?", bytes_text(b1, sizeof(b1), jnum(k, "bytes")),
               (unsigned long long)ju64(k, "queued_partitions"),
               (unsigned long long)ju64(k, "running_partitions"),
               (unsigned long long)ju64(k, "loads"), (unsigned long long)ju64(k, "evictions"));
    }
    const cuzk_json *e = cuzk_json_get(s, "engine");
    const uint64_t workers = ju64(e, "workers"), slots = ju64(e, "lane_slots");
    printf("engine: %llu worker%s over %llu lane slot%s; partitions %llu queued, %llu running\n"
           "  %llu proofs, %llu verified, %llu failed partitions; %llu faults, %llu retries, "
           "%llu lane resets, %llu stepped down\n"
           "  host memory %s of %s",
           (unsigned long long)workers, workers == 1 ? "" : "s", (unsigned long long)slots,
           slots == 1 ? "" : "s",
           (unsigned long long)ju64(e, "queued_partitions"),
           (unsigned long long)ju64(e, "running_partitions"), (unsigned long long)ju64(e, "proofs"),
           (unsigned long long)ju64(e, "verified"), (unsigned long long)ju64(e, "failed_partitions"),
           (unsigned long long)ju64(e, "faults"), (unsigned long long)ju64(e, "retries"),
           (unsigned long long)ju64(e, "lane_resets"),
           (unsigned long long)ju64(e, "lane_step_downs"),
           bytes_text(b1, sizeof(b1), jnum(e, "host_bytes_used")),
           bytes_text(b2, sizeof(b2), jnum(e, "host_bytes_budget")));
    const cuzk_json *busy = cuzk_json_get(e, "busy");
    for (size_t i = 0; busy != NULL && busy->type == CUZK_JSON_ARRAY && i < busy->len; i++)
        if (busy->items[i]->type == CUZK_JSON_NUMBER)
            printf("%s%.0f%%", i ? ", " : "; busy ", 100 * strtod(busy->items[i]->str, NULL));
    printf("\n");
}

/* GET /v1/cluster as a table: the store, every daemon, this one's counts. */
static void print_cluster(const char *addr, const cuzk_json *s) {
    const cuzk_json *me = cuzk_json_get(s, "self");
    const char *store = jstr(s, "store") ? jstr(s, "store") : "?";
    printf("cluster of %s: %s store %s; this daemon %s (id %llu)\n", addr, store,
           jstr(s, "where") ? jstr(s, "where") : "?", jstr(me, "name") ? jstr(me, "name") : "?",
           (unsigned long long)ju64(me, "id"));
    const cuzk_json *ds = cuzk_json_get(s, "daemons");
    const size_t n = ds != NULL && ds->type == CUZK_JSON_ARRAY ? ds->len : 0;
    if (n == 0) printf("daemons: none registered (a %s store has one daemon)\n", store);
    int w = 4;
    for (size_t i = 0; i < n; i++) {
        const char *name = jstr(ds->items[i], "name");
        if (name != NULL && (int)strlen(name) > w) w = (int)strlen(name);
    }
    if (n != 0) printf("  %6s  %-*s %10s %5s  %s\n", "ID", w, "NAME", "HEARTBEAT", "HELD", "WHAT");
    for (size_t i = 0; i < n; i++) {
        const cuzk_json *d = ds->items[i];
        char age[32];
        snprintf(age, sizeof(age), "%.1f s ago", jnum(d, "heartbeat_age_ms") / 1000.0);
        printf("  %6llu  %-*s %10s %5llu  %s\n", (unsigned long long)ju64(d, "id"), w,
               jstr(d, "name") ? jstr(d, "name") : "?", age, (unsigned long long)ju64(d, "held"),
               jstr(d, "info") ? jstr(d, "info") : "");
    }
    const cuzk_json *cost = cuzk_json_get(me, "queue_cost_ms");
    printf("this daemon: holds %llu; %llu claimed, %llu recorded, %llu failed, %llu fenced, "
           "%llu lost, %llu ended, %llu given back; %llu put back for others; %llu store "
           "errors, %llu reconnects\n"
           "  the queue's cost a partition (claim, lease, result): %.2f ms median, %.2f ms p99 "
           "(%llu partitions)\n",
           (unsigned long long)ju64(me, "held"), (unsigned long long)ju64(me, "claimed"),
           (unsigned long long)ju64(me, "recorded"), (unsigned long long)ju64(me, "failed"),
           (unsigned long long)ju64(me, "fenced"), (unsigned long long)ju64(me, "lost"),
           (unsigned long long)ju64(me, "ended"), (unsigned long long)ju64(me, "released"),
           (unsigned long long)ju64(me, "requeued"), (unsigned long long)ju64(me, "store_errors"),
           (unsigned long long)ju64(me, "reconnects"), jnum(cost, "median"), jnum(cost, "p99"),
           (unsigned long long)ju64(cost, "samples"));
}

int cuzk__cmd_status(int argc, char **argv) {
    const char *cmd = "cuzk status";
    common_opts co = {0};
    int cluster = 0;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--cluster") == 0) {
            cluster = 1;
            continue;
        }
        const int r = common_opt(&co, cmd, argc, argv, &i);
        if (r < 0) return EXIT_USAGE;
        if (co.help) return help(0, status_help);
        if (r == 0) return cuzk__opt_unknown(cmd, argv[i]);
    }
    cuzk__http_client c;
    cuzk__http_response rs;
    if (!cuzk__client_setup(&c, cmd, co.addr, co.token_file) ||
        !call(cmd, &c, "GET", cluster ? "/v1/cluster" : "/v1/status", &rs))
        return EXIT_USAGE;
    cuzk_json *j = answer_json(cmd, &c, &rs, "");
    if (j == NULL) return EXIT_USAGE;
    if (co.json) print_tree(j);
    else if (cluster) print_cluster(c.addr.text, j);
    else print_status(c.addr.text, j);
    cuzk_json_free(j);
    cuzk__http_response_free(&rs);
    return 0;
}
