/* http_client.c — see http_client.h. */
#include "http_client.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "cuzk.h"

#define DEFAULT_TIMEOUT_MS 60000
#define FILE_CHUNK ((size_t)64 << 10)

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int say(char *msg, size_t n, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, n, fmt, ap);
    va_end(ap);
    return 0;
}

/* ---- addresses ------------------------------------------------------------ */

int cuzk__http_addr_parse(cuzk__http_addr *a, const char *s, char *msg, size_t msg_len) {
    memset(a, 0, sizeof(*a));
    if (strlen(s) >= sizeof(a->text)) return say(msg, msg_len, "%.60s...: too long", s);
    strcpy(a->text, s);
    if (strncmp(s, "unix:", 5) == 0) {
        const char *p = s + 5;
        if (*p == '\0') return say(msg, msg_len, "%s: no socket path after unix:", s);
        if (strlen(p) > CUZK_HTTP_UNIX_PATH_MAX)
            return say(msg, msg_len, "%s: a socket path is at most %d bytes", s,
                       CUZK_HTTP_UNIX_PATH_MAX);
        a->is_unix = 1;
        strcpy(a->path, p);
        return 1;
    }
    if (strncmp(s, "http://", 7) != 0)
        return say(msg, msg_len, "%s: must be unix:/PATH or http://HOST:PORT", s);
    const char *h = s + 7, *end;
    size_t hl;
    if (*h == '[') { /* [v6] */
        end = strchr(h, ']');
        if (end == NULL) return say(msg, msg_len, "%s: no ']' after the IPv6 address", s);
        h++;
        hl = (size_t)(end - h);
        end++;
    } else {
        end = h + strcspn(h, ":/");
        hl = (size_t)(end - h);
    }
    if (hl == 0 || hl >= sizeof(a->host)) return say(msg, msg_len, "%s: no host", s);
    memcpy(a->host, h, hl);
    a->host[hl] = '\0';
    for (size_t i = 0; i < hl; i++)
        if ((unsigned char)a->host[i] <= ' ' || a->host[i] == '@' || a->host[i] == '[')
            return say(msg, msg_len, "%s: a bad character in the host", s);
    strcpy(a->port, "80");
    if (*end == ':') {
        const char *p = end + 1;
        size_t pl = strspn(p, "0123456789");
        long port = pl > 0 && pl <= 5 ? strtol(p, NULL, 10) : -1;
        if (port < 1 || port > 65535)
            return say(msg, msg_len, "%s: the port must be 1..65535", s);
        snprintf(a->port, sizeof(a->port), "%ld", port);
        end = p + pl;
    }
    if (!(*end == '\0' || (end[0] == '/' && end[1] == '\0')))
        return say(msg, msg_len, "%s: nothing may follow the port but '/'", s);
    return 1;
}

/* ---- connecting ----------------------------------------------------------- */

static int set_nonblock(int fd) {
    const int fl = fcntl(fd, F_GETFL);
    return fl >= 0 && fcntl(fd, F_SETFL, fl | O_NONBLOCK) == 0;
}

/* A Unix socket connects blocking, bounded by SO_SNDTIMEO (a non-blocking
 * connect to a full backlog fails at once with EAGAIN instead of waiting). */
static int connect_unix(const cuzk__http_client *c, int tmo, char *msg, size_t n) {
    const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return say(msg, n, "%s: socket: %s", c->addr.text, strerror(errno)) - 1;
    struct sockaddr_un sa;
    memset(&sa, 0, sizeof(sa));
    sa.sun_family = AF_UNIX;
    memcpy(sa.sun_path, c->addr.path, strlen(c->addr.path));
    const struct timeval tv = {tmo / 1000, (tmo % 1000) * 1000};
    int r;
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    do r = connect(fd, (const struct sockaddr *)&sa, sizeof(sa));
    while (r != 0 && errno == EINTR);
    if (r != 0) {
        const int e = errno;
        close(fd);
        if (e == EAGAIN)
            return say(msg, n, "%s: connect: no room in the server's backlog within %g s",
                       c->addr.text, tmo / 1000.0) - 1;
        return say(msg, n, "%s: connect: %s", c->addr.text, strerror(e)) - 1;
    }
    const struct timeval zero = {0, 0};
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &zero, sizeof(zero));
    if (!set_nonblock(fd)) {
        close(fd);
        return say(msg, n, "%s: fcntl: %s", c->addr.text, strerror(errno)) - 1;
    }
    return fd;
}

/* One TCP address, non-blocking, waiting at most tmo ms; the socket or -1
 * with errno set (ETIMEDOUT for the wait). */
static int connect_one(const struct addrinfo *ai, int tmo) {
    const int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK,
                          ai->ai_protocol);
    if (fd < 0) return -1;
    if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) return fd;
    if (errno != EINPROGRESS && errno != EINTR) goto fail;
    struct pollfd p = {fd, POLLOUT, 0};
    int r;
    do r = poll(&p, 1, tmo);
    while (r < 0 && errno == EINTR);
    if (r == 0) errno = ETIMEDOUT;
    if (r <= 0) goto fail;
    int e = 0;
    socklen_t el = sizeof(e);
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el) != 0) goto fail;
    if (e == 0) return fd;
    errno = e;
fail:;
    const int e2 = errno;
    close(fd);
    errno = e2;
    return -1;
}

/* Every address the name resolves to, in getaddrinfo's order; the error of
 * the last one tried when none connects. */
static int connect_tcp(const cuzk__http_client *c, int tmo, char *msg, size_t n) {
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    const int g = getaddrinfo(c->addr.host, c->addr.port, &hints, &res);
    if (g != 0)
        return say(msg, n, "%s: cannot resolve '%s': %s", c->addr.text, c->addr.host,
                   g == EAI_SYSTEM ? strerror(errno) : gai_strerror(g)) - 1;
    int fd = -1, e = ECONNREFUSED;
    for (const struct addrinfo *ai = res; ai != NULL && fd < 0; ai = ai->ai_next) {
        fd = connect_one(ai, tmo);
        if (fd < 0) e = errno;
    }
    freeaddrinfo(res);
    if (fd >= 0) return fd;
    if (e == ETIMEDOUT)
        return say(msg, n, "%s: connect: no answer within %g s", c->addr.text, tmo / 1000.0) - 1;
    return say(msg, n, "%s: connect: %s", c->addr.text, strerror(e)) - 1;
}

/* ---- the connection: a socket and what was read from it -------------------- */

typedef struct {
    int fd, tmo;
    const char *addr;
    char *buf; /* bytes received and not yet consumed: buf[pos..len) */
    size_t len, cap, pos;
    int eof;
    char *msg;
    size_t msg_len;
} conn;

/* Waits for ev on the socket; 1 ready, 0 after setting the error. */
static int wait_for(conn *k, short ev, const char *step) {
    struct pollfd p = {k->fd, ev, 0};
    int r;
    do r = poll(&p, 1, k->tmo);
    while (r < 0 && errno == EINTR);
    if (r > 0) return 1;
    if (r == 0) return say(k->msg, k->msg_len, "%s: %s %g s", k->addr, step, k->tmo / 1000.0);
    return say(k->msg, k->msg_len, "%s: poll: %s", k->addr, strerror(errno));
}

/* Reads more into buf: 1 some bytes, 0 the end of the stream, -1 an error
 * (the message set); step says what a timeout means ("no response within"). */
static int fill(conn *k, const char *step) {
    if (k->eof) return 0;
    if (k->pos > 0 && k->pos == k->len) k->pos = k->len = 0;
    if (k->cap - k->len < FILE_CHUNK) {
        const size_t cap = k->len + FILE_CHUNK;
        char *nb = realloc(k->buf, cap);
        if (nb == NULL) return say(k->msg, k->msg_len, "%s: out of memory", k->addr) - 1;
        k->buf = nb;
        k->cap = cap;
    }
    for (;;) {
        const ssize_t r = recv(k->fd, k->buf + k->len, k->cap - k->len, 0);
        if (r > 0) {
            k->len += (size_t)r;
            return 1;
        }
        if (r == 0) {
            k->eof = 1;
            return 0;
        }
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
            if (!wait_for(k, POLLIN, step)) return -1;
            continue;
        }
        return say(k->msg, k->msg_len, "%s: receive: %s", k->addr, strerror(errno)) - 1;
    }
}

/* ---- sending ---------------------------------------------------------------- */

/* Sends n bytes. 1 sent; 0 an error (message set); 2 the server answered
 * (or closed) first: stop sending, read the answer. */
static int send_all(conn *k, const char *p, size_t n) {
    while (n > 0) {
        struct pollfd pf = {k->fd, POLLOUT | POLLIN, 0};
        int r;
        do r = poll(&pf, 1, k->tmo);
        while (r < 0 && errno == EINTR);
        if (r == 0)
            return say(k->msg, k->msg_len, "%s: send: the server took nothing for %g s",
                       k->addr, k->tmo / 1000.0);
        if (r < 0) return say(k->msg, k->msg_len, "%s: poll: %s", k->addr, strerror(errno));
        if (pf.revents & (POLLIN | POLLHUP | POLLERR)) return 2;
        const ssize_t w = send(k->fd, p, n, MSG_NOSIGNAL);
        if (w < 0) {
            if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) continue;
            if (errno == EPIPE || errno == ECONNRESET) return 2;
            return say(k->msg, k->msg_len, "%s: send: %s", k->addr, strerror(errno));
        }
        p += w;
        n -= (size_t)w;
    }
    return 1;
}

/* Sends the file of piece pc, which must still be size bytes long. */
static int send_file(conn *k, const cuzk__http_piece *pc, uint64_t size, char *chunk) {
    const int fd = open(pc->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return say(k->msg, k->msg_len, "%s: cannot open: %s", pc->path, strerror(errno));
    uint64_t left = size;
    int rc = 1;
    while (rc == 1) {
        const ssize_t r = read(fd, chunk, FILE_CHUNK);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {
            rc = say(k->msg, k->msg_len, "%s: read: %s", pc->path, strerror(errno));
        } else if ((uint64_t)r > left || (r == 0 && left > 0)) {
            rc = say(k->msg, k->msg_len, "%s: changed size while being sent", pc->path);
        } else if (r == 0) {
            break;
        } else {
            left -= (uint64_t)r;
            rc = send_all(k, chunk, (size_t)r);
        }
    }
    close(fd);
    return rc;
}

/* The request line and headers. */
static char *request_head(const cuzk__http_client *c, const cuzk__http_request *rq,
                          uint64_t body_len, int has_body, size_t *n) {
    char host[300];
    if (c->addr.is_unix)
        snprintf(host, sizeof(host), "localhost");
    else if (strchr(c->addr.host, ':') != NULL)
        snprintf(host, sizeof(host), "[%s]:%s", c->addr.host, c->addr.port);
    else
        snprintf(host, sizeof(host), "%s:%s", c->addr.host, c->addr.port);
    const size_t cap = strlen(rq->target) + strlen(c->token) +
                       (rq->content_type ? strlen(rq->content_type) : 0) + 1024;
    char *h = malloc(cap);
    if (h == NULL) return NULL;
    int m = snprintf(h, cap, "%s %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: cuzk/%s\r\n", rq->method,
                     rq->target, host, cuzk_version());
    if (c->token[0] != '\0')
        m += snprintf(h + m, cap - (size_t)m, "Authorization: Bearer %s\r\n", c->token);
    if (rq->content_type != NULL)
        m += snprintf(h + m, cap - (size_t)m, "Content-Type: %s\r\n", rq->content_type);
    if (has_body || strcmp(rq->method, "POST") == 0 || strcmp(rq->method, "PUT") == 0)
        m += snprintf(h + m, cap - (size_t)m, "Content-Length: %llu\r\n",
                      (unsigned long long)body_len);
    m += snprintf(h + m, cap - (size_t)m, "Connection: close\r\n\r\n");
    *n = (size_t)m;
    return h;
}

/* No CR, LF or other control byte may reach a header line. */
static int header_safe(const char *s) {
    for (; s != NULL && *s != '\0'; s++)
        if ((unsigned char)*s < ' ' || *s == 0x7f) return 0;
    return 1;
}

/* ---- reading the answer ------------------------------------------------------ */

/* Finds the end of the header block in buf[pos..len): the index after the
 * blank line, or 0 when it has not arrived. */
static size_t head_end(const conn *k) {
    for (size_t i = k->pos; i + 1 < k->len; i++) {
        if (k->buf[i] != '\n') continue;
        if (k->buf[i + 1] == '\n') return i + 2;
        if (i + 2 < k->len && k->buf[i + 1] == '\r' && k->buf[i + 2] == '\n') return i + 3;
    }
    return 0;
}

/* Case-insensitive prefix match of a header name, followed by ':'. */
static const char *header_value(const char *line, const char *name) {
    const size_t n = strlen(name);
    if (strncasecmp(line, name, n) != 0 || line[n] != ':') return NULL;
    line += n + 1;
    while (*line == ' ' || *line == '\t') line++;
    return line;
}

typedef struct {
    int status;
    int chunked;
    int has_length;
    uint64_t length;
    char content_type[128];
} head_info;

/* Parses the header block buf[pos..end) (NUL-terminated in place). */
static int parse_head(conn *k, size_t end, head_info *h) {
    memset(h, 0, sizeof(*h));
    char *s = k->buf + k->pos;
    k->buf[end - 1] = '\0';
    k->pos = end;
    int major = 0, minor = 0, st = 0, used = 0;
    if (sscanf(s, "HTTP/%d.%d %3d%n", &major, &minor, &st, &used) != 3 || major != 1 ||
        st < 100 || st > 599 || (s[used] != ' ' && s[used] != '\r' && s[used] != '\n'))
        return say(k->msg, k->msg_len, "%s: not an HTTP/1 response: '%.*s'", k->addr,
                   (int)(strcspn(s, "\r\n") < 40 ? strcspn(s, "\r\n") : 40), s);
    h->status = st;
    for (char *line = strchr(s, '\n'); line != NULL && line[1] != '\0';) {
        line++;
        char *nl = strchr(line, '\n');
        if (nl != NULL) *nl = '\0';
        const size_t ll = strlen(line);
        if (ll > 0 && line[ll - 1] == '\r') line[ll - 1] = '\0';
        const char *v;
        if ((v = header_value(line, "Content-Length")) != NULL) {
            char *e;
            errno = 0;
            const unsigned long long x = strtoull(v, &e, 10);
            while (*e == ' ' || *e == '\t') e++;
            if (*v < '0' || *v > '9' || *e != '\0' || errno != 0 ||
                (h->has_length && h->length != x))
                return say(k->msg, k->msg_len, "%s: a bad Content-Length '%s'", k->addr, v);
            h->has_length = 1;
            h->length = x;
        } else if ((v = header_value(line, "Transfer-Encoding")) != NULL) {
            /* chunked must be the last coding; no other is understood */
            const size_t vl = strlen(v);
            h->chunked = vl >= 7 && strncasecmp(v + vl - 7, "chunked", 7) == 0;
            if (!h->chunked || strchr(v, ',') != NULL)
                return say(k->msg, k->msg_len, "%s: a Transfer-Encoding not understood: '%s'",
                           k->addr, v);
        } else if ((v = header_value(line, "Content-Type")) != NULL) {
            snprintf(h->content_type, sizeof(h->content_type), "%s", v);
        }
        line = nl;
    }
    return 1;
}

/* The body so far, growing up to max bytes. */
typedef struct {
    char *p;
    size_t n, cap, max;
} body_buf;

static int body_add(conn *k, body_buf *b, const char *p, size_t n) {
    if (n > b->max - b->n)
        return say(k->msg, k->msg_len, "%s: the response is over %zu bytes", k->addr, b->max);
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->n + n + 1) cap *= 2;
        char *nb = realloc(b->p, cap);
        if (nb == NULL) return say(k->msg, k->msg_len, "%s: out of memory", k->addr);
        b->p = nb;
        b->cap = cap;
    }
    memcpy(b->p + b->n, p, n);
    b->n += n;
    b->p[b->n] = '\0';
    return 1;
}

/* Moves n body bytes (all of them until the end of the stream when
 * until_eof) from the connection to b. */
static int read_exact(conn *k, body_buf *b, uint64_t n, int until_eof) {
    while (n > 0 || until_eof) {
        if (k->pos == k->len) {
            const int r = fill(k, "the response stopped for");
            if (r < 0) return 0;
            if (r == 0) {
                if (until_eof) return 1;
                return say(k->msg, k->msg_len, "%s: the connection closed mid-response", k->addr);
            }
        }
        size_t take = k->len - k->pos;
        if (!until_eof && take > n) take = (size_t)n;
        if (b != NULL && !body_add(k, b, k->buf + k->pos, take)) return 0;
        k->pos += take;
        if (!until_eof) n -= take;
    }
    return 1;
}

/* One line (CRLF or LF ended) of a chunked body into line[0..cap). */
static int read_line(conn *k, char *line, size_t cap) {
    for (;;) {
        char *nl = memchr(k->buf + k->pos, '\n', k->len - k->pos);
        if (nl != NULL) {
            size_t n = (size_t)(nl - (k->buf + k->pos));
            if (n >= cap) break;
            memcpy(line, k->buf + k->pos, n);
            if (n > 0 && line[n - 1] == '\r') n--;
            line[n] = '\0';
            k->pos += (size_t)(nl - (k->buf + k->pos)) + 1;
            return 1;
        }
        if (k->len - k->pos >= cap) break;
        const int r = fill(k, "the response stopped for");
        if (r < 0) return 0;
        if (r == 0) return say(k->msg, k->msg_len, "%s: the connection closed mid-chunk", k->addr);
    }
    return say(k->msg, k->msg_len, "%s: a chunk line over %zu bytes", k->addr, cap);
}

static int read_chunked(conn *k, body_buf *b) {
    char line[1024];
    for (;;) {
        if (!read_line(k, line, sizeof(line))) return 0;
        char *e;
        errno = 0;
        const unsigned long long n = strtoull(line, &e, 16);
        if (e == line || errno != 0 || (*e != '\0' && *e != ';' && *e != ' ' && *e != '\t'))
            return say(k->msg, k->msg_len, "%s: a bad chunk size '%.40s'", k->addr, line);
        if (n == 0) break;
        if (!read_exact(k, b, n, 0) || !read_line(k, line, sizeof(line))) return 0;
        if (line[0] != '\0')
            return say(k->msg, k->msg_len, "%s: no line end after a chunk", k->addr);
    }
    do /* trailers, up to the blank line */
        if (!read_line(k, line, sizeof(line))) return 0;
    while (line[0] != '\0');
    return 1;
}

/* Reads one response (after any 1xx) into *rs. */
static int read_response(conn *k, const cuzk__http_request *rq, size_t max,
                         cuzk__http_response *rs) {
    head_info h;
    for (;;) {
        size_t end;
        while ((end = head_end(k)) == 0) {
            if (k->len - k->pos > CUZK_HTTP_MAX_HEADER_BYTES)
                return say(k->msg, k->msg_len, "%s: response headers over %zu bytes", k->addr,
                           CUZK_HTTP_MAX_HEADER_BYTES);
            const int r = fill(k, "no response within");
            if (r < 0) return 0;
            if (r == 0)
                return say(k->msg, k->msg_len, "%s: the connection closed %s", k->addr,
                           k->len == 0 ? "without a response" : "mid-response");
        }
        if (!parse_head(k, end, &h)) return 0;
        if (h.status >= 200 || h.status == 101) break; /* 1xx: informational */
    }
    if (h.status == 101)
        return say(k->msg, k->msg_len, "%s: the server switched protocols", k->addr);
    body_buf b = {NULL, 0, 0, max};
    if (!body_add(k, &b, "", 0)) return 0; /* the NUL of an empty body */
    int ok = 1;
    if (strcmp(rq->method, "HEAD") == 0 || h.status == 204 || h.status == 304)
        ok = 1;
    else if (h.chunked)
        ok = read_chunked(k, &b);
    else if (h.has_length)
        ok = h.length > max ? say(k->msg, k->msg_len, "%s: the response is over %zu bytes",
                                  k->addr, max)
                            : read_exact(k, &b, h.length, 0);
    else
        ok = read_exact(k, &b, 0, 1);
    if (!ok) {
        free(b.p);
        return 0;
    }
    rs->status = h.status;
    memcpy(rs->content_type, h.content_type, sizeof(rs->content_type));
    rs->body = b.p;
    rs->len = b.n;
    return 1;
}

/* ---- a request ------------------------------------------------------------- */

int cuzk__http_do(const cuzk__http_client *c, const cuzk__http_request *rq,
                  cuzk__http_response *rs, char *msg, size_t msg_len) {
    memset(rs, 0, sizeof(*rs));
    const int tmo = c->timeout_ms > 0 ? c->timeout_ms : DEFAULT_TIMEOUT_MS;
    const size_t max = c->max_body ? c->max_body : CUZK_HTTP_DEFAULT_MAX_BODY;
    if (!header_safe(c->token) || !header_safe(rq->target) || !header_safe(rq->content_type))
        return say(msg, msg_len, "%s: a control character in the token or request",
                   c->addr.text);
    /* the files' sizes first: a missing witness fails before any connection */
    uint64_t total = 0;
    uint64_t *sizes = calloc(rq->n_body + 1, sizeof(*sizes));
    if (sizes == NULL) return say(msg, msg_len, "%s: out of memory", c->addr.text);
    for (size_t i = 0; i < rq->n_body; i++) {
        const cuzk__http_piece *pc = &rq->body[i];
        struct stat st;
        if (pc->path == NULL) {
            sizes[i] = pc->n;
        } else if (stat(pc->path, &st) != 0) {
            free(sizes);
            return say(msg, msg_len, "%s: %s", pc->path, strerror(errno));
        } else if (!S_ISREG(st.st_mode)) {
            free(sizes);
            return say(msg, msg_len, "%s: not a regular file", pc->path);
        } else {
            sizes[i] = (uint64_t)st.st_size;
        }
        total += sizes[i];
    }
    size_t head_len = 0;
    char *head = request_head(c, rq, total, rq->n_body > 0, &head_len);
    char *chunk = malloc(FILE_CHUNK);
    conn k = {-1, tmo, c->addr.text, NULL, 0, 0, 0, 0, msg, msg_len};
    int ok = 0;
    if (head == NULL || chunk == NULL) {
        say(msg, msg_len, "%s: out of memory", c->addr.text);
        goto out;
    }
    k.fd = c->addr.is_unix ? connect_unix(c, tmo, msg, msg_len)
                           : connect_tcp(c, tmo, msg, msg_len);
    if (k.fd < 0) goto out;
    int sent = send_all(&k, head, head_len);
    for (size_t i = 0; sent == 1 && i < rq->n_body; i++)
        sent = rq->body[i].path != NULL ? send_file(&k, &rq->body[i], sizes[i], chunk)
                                        : send_all(&k, rq->body[i].p, rq->body[i].n);
    if (sent == 0) goto out;
    if (sent == 2) {
        /* an early answer (401, 413) explains the refusal better than EPIPE */
        char first[CUZK_HTTP_ERR_MAX];
        snprintf(first, sizeof(first), "%s: send: the server closed the connection",
                 c->addr.text);
        ok = read_response(&k, rq, max, rs);
        if (!ok) snprintf(msg, msg_len, "%s", first);
        goto out;
    }
    ok = read_response(&k, rq, max, rs);
out:
    if (k.fd >= 0) close(k.fd);
    free(k.buf);
    free(chunk);
    free(head);
    free(sizes);
    if (!ok) memset(rs, 0, sizeof(*rs));
    return ok;
}

void cuzk__http_response_free(cuzk__http_response *rs) {
    free(rs->body);
    memset(rs, 0, sizeof(*rs));
}

const char *cuzk__http_reason(int status) {
    switch (status) {
    case 200: return "OK";
    case 201: return "Created";
    case 202: return "Accepted";
    case 204: return "No Content";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 409: return "Conflict";
    case 413: return "Payload Too Large";
    case 500: return "Internal Server Error";
    case 503: return "Service Unavailable";
    default: return "";
    }
}
