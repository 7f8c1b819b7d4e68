/* http.c — the daemon's HTTP server on libmicrohttpd (http.h). */
#include "service/http.h"

#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <microhttpd.h>

#include "service/routes.h"
#include "service/www.h"
#include "util/error.h"

typedef struct {
    cuzk__http *h;
    int tcp; /* needs the token */
    struct MHD_Daemon *mhd;
} listener;

struct cuzk__http {
    cuzk__daemon *d;
    uint64_t max_body;
    char token[CUZK__CONF_TOKEN_MAX + 1];
    char unix_path[CUZK__CONF_SOCKET_PATH_MAX + 1];
    dev_t unix_dev;
    ino_t unix_ino;
    unsigned tcp_port;
    listener l[2];
    size_t n;
};

/* One request's state across the handler's calls. */
typedef struct {
    cuzk__body_kind kind;
    int json_submit;     /* a JSON submission (else multipart) */
    cuzk__submit_form *form;
    char *json;          /* a JSON body so far */
    size_t json_n;
    uint64_t body_bytes;
    int answered;        /* a response was queued at the first call (an error) */
    /* an error found in the body: libmicrohttpd queues a response only before
     * the body or after all of it, so the rest is read and dropped first */
    int failed;
    cuzk__response pending;
    uint64_t dropped;
} request_state;

/* Bytes of a refused body read and dropped before the connection is cut
 * instead (a client that keeps sending gets no answer). */
#define DROP_MAX ((uint64_t)64 << 20)

/* ---- responses ------------------------------------------------------------- */

static enum MHD_Result send_response(struct MHD_Connection *c, cuzk__response *r) {
    struct MHD_Response *resp;
    if (r->body == NULL || r->len == 0) {
        resp = MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
        if (!r->body_static) free(r->body);
        r->body = NULL;
        r->len = 0;
    } else if (r->body_static) {
        resp = MHD_create_response_from_buffer(r->len, r->body, MHD_RESPMEM_PERSISTENT);
    } else {
        resp = MHD_create_response_from_buffer(r->len, r->body, MHD_RESPMEM_MUST_FREE);
        if (resp == NULL) free(r->body);
    }
    if (resp == NULL) return MHD_NO;
    if (r->content_type != NULL && r->len != 0)
        MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, r->content_type);
    if (r->allow != NULL) MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, r->allow);
    if (r->code == 401) MHD_add_response_header(resp, MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer");
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    const enum MHD_Result ret = MHD_queue_response(c, r->code, resp);
    MHD_destroy_response(resp);
    return ret;
}

static enum MHD_Result send_error(struct MHD_Connection *c, unsigned code, cuzk_status st,
                                  const char *msg) {
    cuzk__response r;
    memset(&r, 0, sizeof(r));
    cuzk__response_error(&r, code, st, msg);
    return send_response(c, &r);
}

static enum MHD_Result send_err(struct MHD_Connection *c, const cuzk_error *err) {
    return send_error(c, cuzk__http_code(err->status), err->status, cuzk_error_text(err));
}

/* ---- the handler ---------------------------------------------------------------- */

/* The token, compared without leaking where it differs. */
static int token_ok(const cuzk__http *h, struct MHD_Connection *c) {
    const char *auth = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
    if (auth == NULL || strncasecmp(auth, "Bearer ", 7) != 0) return 0;
    const char *t = auth + 7;
    const size_t tl = strlen(t), kl = strlen(h->token);
    unsigned char diff = (unsigned char)(tl != kl);
    for (size_t i = 0; i < kl; i++) diff |= (unsigned char)(h->token[i] ^ (i < tl ? t[i] : 0));
    return diff == 0;
}

static const char *query_value(void *user, const char *name) {
    return MHD_lookup_connection_value(user, MHD_GET_ARGUMENT_KIND, name);
}

static int content_type_is(const char *ct, const char *what) {
    const size_t n = strlen(what);
    return ct != NULL && strncasecmp(ct, what, n) == 0 && (ct[n] == '\0' || ct[n] == ';' ||
                                                          ct[n] == ' ');
}

/* The first call: headers only. */
static enum MHD_Result begin(listener *l, struct MHD_Connection *c, const char *url,
                             const char *method, request_state *rs) {
    cuzk__http *h = l->h;
    if (l->tcp && cuzk__www_find(url) == NULL && !token_ok(h, c)) {
        rs->answered = 1;
        return send_error(c, 401, CUZK_ERR_INVALID_ARG,
                          "Authorization: a bearer token is needed over TCP (the daemon's "
                          "token_file)");
    }
    rs->kind = cuzk__route_body(method, url);
    if (rs->kind == CUZK__BODY_NONE) return MHD_YES;
    const char *len = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Length");
    if (len != NULL && strtoull(len, NULL, 10) > h->max_body) {
        rs->answered = 1;
        char msg[128];
        snprintf(msg, sizeof(msg), "body of %s bytes: more than max_body_bytes (%llu)", len,
                 (unsigned long long)h->max_body);
        return send_error(c, 413, CUZK_ERR_BAD_LENGTH, msg);
    }
    const char *ct = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Type");
    cuzk_error err;
    if (rs->kind == CUZK__BODY_SUBMIT && content_type_is(ct, "multipart/form-data")) {
        cuzk__witness_sink sink;
        cuzk__route_spool_sink(h->d, &sink);
        if (cuzk__submit_form_new(&rs->form, &sink, &err) != CUZK_OK ||
            cuzk__submit_form_multipart(rs->form, ct, &err) != CUZK_OK) {
            rs->answered = 1;
            return send_err(c, &err);
        }
        return MHD_YES;
    }
    if (content_type_is(ct, "application/json")) {
        rs->json_submit = rs->kind == CUZK__BODY_SUBMIT;
        return MHD_YES;
    }
    rs->answered = 1;
    char msg[160];
    snprintf(msg, sizeof(msg), "Content-Type \"%.64s\": this route takes %s", ct ? ct : "",
             rs->kind == CUZK__BODY_SUBMIT ? "multipart/form-data or application/json"
                                           : "application/json");
    return send_error(c, 400, CUZK_ERR_INVALID_ARG, msg);
}

/* Refuses the request once its body has been read (see request_state). */
static enum MHD_Result refuse(request_state *rs, unsigned code, cuzk_status st, const char *msg) {
    rs->failed = 1;
    cuzk__response_error(&rs->pending, code, st, msg);
    return MHD_YES;
}

/* A piece of the body. */
static enum MHD_Result body(cuzk__http *h, request_state *rs, const char *data, size_t n) {
    if (rs->failed) {
        rs->dropped += n;
        return rs->dropped <= DROP_MAX ? MHD_YES : MHD_NO;
    }
    rs->body_bytes += n;
    if (rs->body_bytes > h->max_body) {
        char msg[96];
        snprintf(msg, sizeof(msg), "body: more than max_body_bytes (%llu)",
                 (unsigned long long)h->max_body);
        return refuse(rs, 413, CUZK_ERR_BAD_LENGTH, msg);
    }
    if (rs->kind == CUZK__BODY_NONE) { /* read and dropped, never held: the route answers */
        rs->dropped += n;
        return rs->dropped <= DROP_MAX ? MHD_YES : MHD_NO;
    }
    if (rs->form != NULL) {
        cuzk_error err;
        if (cuzk__submit_form_feed(rs->form, data, n, &err) != CUZK_OK)
            return refuse(rs, cuzk__http_code(err.status), err.status, cuzk_error_text(&err));
        return MHD_YES;
    }
    if (n > CUZK__ROUTE_JSON_MAX - rs->json_n)
        return refuse(rs, 413, CUZK_ERR_BAD_LENGTH, "JSON body: more than 1 MiB");
    char *p = realloc(rs->json, rs->json_n + n + 1);
    if (p == NULL) return refuse(rs, 500, CUZK_ERR_NOMEM, "no memory for the body");
    memcpy(p + rs->json_n, data, n);
    rs->json = p;
    rs->json_n += n;
    return MHD_YES;
}

/* The body is complete: answer. */
static enum MHD_Result finish(cuzk__http *h, struct MHD_Connection *c, const char *url,
                              const char *method, request_state *rs) {
    cuzk_error err;
    if (rs->kind == CUZK__BODY_SUBMIT) {
        cuzk_status st;
        if (rs->form != NULL) {
            st = cuzk__submit_form_finish(rs->form, &err);
        } else {
            cuzk__witness_sink sink;
            cuzk__route_spool_sink(h->d, &sink);
            st = cuzk__submit_form_new(&rs->form, &sink, &err);
            if (st == CUZK_OK)
                st = cuzk__submit_form_json(rs->form, rs->json != NULL ? rs->json : "",
                                            rs->json_n, &err);
        }
        if (st != CUZK_OK) return send_err(c, &err);
    }
    const cuzk__request req = {method, url, query_value, c, rs->form,
                               rs->json != NULL ? rs->json : "", rs->json_n};
    cuzk__response resp;
    cuzk__route_handle(h->d, &req, &resp);
    return send_response(c, &resp);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version,
                                  const char *upload_data, size_t *upload_data_size,
                                  void **con_cls) {
    (void)version;
    listener *l = cls;
    request_state *rs = *con_cls;
    if (rs == NULL) {
        rs = calloc(1, sizeof(*rs));
        if (rs == NULL) return MHD_NO;
        *con_cls = rs;
        return begin(l, c, url, method, rs);
    }
    if (*upload_data_size != 0) {
        const size_t n = *upload_data_size;
        *upload_data_size = 0;
        if (rs->answered) return MHD_YES; /* what follows an early answer is dropped */
        return body(l->h, rs, upload_data, n);
    }
    if (rs->answered) return MHD_YES;
    rs->answered = 1;
    if (rs->failed) {
        const enum MHD_Result ret = send_response(c, &rs->pending);
        memset(&rs->pending, 0, sizeof(rs->pending)); /* handed over */
        return ret;
    }
    return finish(l->h, c, url, method, rs);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                         enum MHD_RequestTerminationCode toe) {
    (void)cls;
    (void)c;
    (void)toe;
    request_state *rs = *con_cls;
    if (rs == NULL) return;
    cuzk__submit_form_free(rs->form); /* spool files no job took are removed */
    cuzk__response_free(&rs->pending);
    free(rs->json);
    free(rs);
    *con_cls = NULL;
}

/* ---- listeners ---------------------------------------------------------------------- */

static cuzk_status bind_unix(cuzk__http *h, const cuzk__daemon_config *cfg, int *fd,
                             cuzk_error *err) {
    const char *path = cfg->unix_socket;
    struct sockaddr_un sa;
    memset(&sa, 0, sizeof(sa));
    sa.sun_family = AF_UNIX;
    if (strlen(path) >= sizeof(sa.sun_path))
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "unix_socket %s: path too long", path);
    memcpy(sa.sun_path, path, strlen(path) + 1);
    struct stat st;
    if (lstat(path, &st) == 0) {
        if (!S_ISSOCK(st.st_mode))
            return cuzk__fail(err, CUZK_ERR_IO, "unix_socket %s: exists and is not a socket",
                              path);
        const int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        const int live = probe >= 0 && connect(probe, (struct sockaddr *)&sa, sizeof(sa)) == 0;
        if (probe >= 0) close(probe);
        if (live)
            return cuzk__fail(err, CUZK_ERR_BUSY,
                              "unix_socket %s: another daemon is listening on it", path);
        if (unlink(path) != 0 && errno != ENOENT)
            return cuzk__fail(err, CUZK_ERR_IO, "unix_socket %s: removing the stale socket: %s",
                              path, strerror(errno));
    }
    *fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (*fd < 0) return cuzk__fail(err, CUZK_ERR_IO, "unix_socket %s: %s", path, strerror(errno));
    if (bind(*fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
        chmod(path, cfg->unix_socket_mode) != 0 || listen(*fd, 128) != 0) {
        const int e = errno;
        close(*fd);
        *fd = -1;
        return cuzk__fail(err, CUZK_ERR_IO, "unix_socket %s: %s", path, strerror(e));
    }
    if (stat(path, &st) == 0) {
        h->unix_dev = st.st_dev;
        h->unix_ino = st.st_ino;
    }
    memcpy(h->unix_path, path, strlen(path) + 1);
    return CUZK_OK;
}

static cuzk_status bind_tcp(cuzk__http *h, const cuzk__daemon_config *cfg, int *fd,
                            cuzk_error *err) {
    char port[16];
    snprintf(port, sizeof(port), "%u", cfg->tcp_port);
    struct addrinfo hints, *ai = NULL;
    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    const int gai = getaddrinfo(cfg->tcp_host[0] ? cfg->tcp_host : NULL, port, &hints, &ai);
    if (gai != 0)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "tcp_listen %s: %s", cfg->tcp_listen,
                          gai_strerror(gai));
    int e = 0;
    *fd = -1;
    for (const struct addrinfo *a = ai; a != NULL && *fd < 0; a = a->ai_next) {
        int s = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
        if (s < 0) {
            e = errno;
            continue;
        }
        const int one = 1;
        setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
        if (bind(s, a->ai_addr, a->ai_addrlen) != 0 || listen(s, 128) != 0) {
            e = errno;
            close(s);
            continue;
        }
        *fd = s;
    }
    freeaddrinfo(ai);
    if (*fd < 0)
        return cuzk__fail(err, CUZK_ERR_IO, "tcp_listen %s: %s", cfg->tcp_listen, strerror(e));
    struct sockaddr_storage ss;
    socklen_t sl = sizeof(ss);
    if (getsockname(*fd, (struct sockaddr *)&ss, &sl) == 0)
        h->tcp_port = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
                                                     : ((struct sockaddr_in *)&ss)->sin_port);
    return CUZK_OK;
}

static cuzk_status serve(cuzk__http *h, int fd, int tcp, unsigned timeout_s, cuzk_error *err) {
    listener *l = &h->l[h->n];
    l->h = h;
    l->tcp = tcp;
    l->mhd = MHD_start_daemon(
        MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL |
            MHD_USE_ITC,
        0, NULL, NULL, on_request, l, MHD_OPTION_LISTEN_SOCKET, fd, MHD_OPTION_CONNECTION_LIMIT,
        (unsigned)CUZK__HTTP_CONNECTIONS, MHD_OPTION_CONNECTION_TIMEOUT, timeout_s,
        MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL, MHD_OPTION_END);
    if (l->mhd == NULL) {
        close(fd);
        return cuzk__fail(err, CUZK_ERR_IO, "%s: the HTTP server did not start",
                          tcp ? "tcp_listen" : "unix_socket");
    }
    h->n++;
    return CUZK_OK;
}

cuzk_status cuzk__http_start(cuzk__http **out, cuzk__daemon *d, const cuzk__daemon_config *cfg,
                             cuzk_error *err) {
    cuzk__error_clear(err);
    *out = NULL;
    cuzk__http *h = calloc(1, sizeof(*h));
    if (h == NULL) return cuzk__fail(err, CUZK_ERR_NOMEM, "no memory for the HTTP server");
    h->d = d;
    h->max_body = cfg->max_body_bytes;
    memcpy(h->token, cfg->token, sizeof(h->token));
    cuzk_status st = CUZK_OK;
    int fd = -1;
    if (cfg->unix_socket[0] != '\0') {
        st = bind_unix(h, cfg, &fd, err);
        if (st == CUZK_OK) st = serve(h, fd, 0, cfg->request_timeout_s, err);
    }
    if (st == CUZK_OK && cfg->tcp_listen[0] != '\0') {
        st = bind_tcp(h, cfg, &fd, err);
        if (st == CUZK_OK) st = serve(h, fd, 1, cfg->request_timeout_s, err);
    }
    if (st != CUZK_OK) {
        cuzk__http_stop(h);
        return st;
    }
    *out = h;
    return CUZK_OK;
}

unsigned cuzk__http_tcp_port(const cuzk__http *h) { return h != NULL ? h->tcp_port : 0; }

void cuzk__http_stop(cuzk__http *h) {
    if (h == NULL) return;
    for (size_t i = 0; i < h->n; i++) {
        MHD_stop_daemon(h->l[i].mhd); /* closes the listening socket it was given */
    }
    struct stat st;
    if (h->unix_path[0] != '\0' && lstat(h->unix_path, &st) == 0 && st.st_dev == h->unix_dev &&
        st.st_ino == h->unix_ino)
        unlink(h->unix_path);
    memset(h->token, 0, sizeof(h->token));
    free(h);
}
