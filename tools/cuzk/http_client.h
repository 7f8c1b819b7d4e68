/*
 * http_client.h — the HTTP/1.1 client of the daemon's commands (`cuzk submit`,
 * `await`, `prove --addr`, `bench stress`; doc/api.md), on plain sockets.
 *
 * One request per connection (the request says "Connection: close"), so a
 * request never waits behind another and a thread needs nothing but its own
 * stack. A request body is a list of pieces, each bytes in memory or a whole
 * file; files are sent in 64 KiB reads (a multipart upload of a large witness
 * is never in memory) and their sizes are taken when the request starts, so
 * the Content-Length is exact and a file that changes size meanwhile fails
 * the request. The response body is read whole into memory (Content-Length,
 * chunked, or until the close), up to a cap.
 *
 * Timeouts: every wait for the socket (connect, each send, each receive)
 * gives up after timeout_ms without progress. A long poll that the server
 * holds for T ms needs a timeout above T.
 *
 * A server may answer before it has read the whole body (401, 413) and close
 * the connection: the client stops sending when the answer arrives and
 * returns it, rather than the broken pipe.
 *
 * Errors are one sentence naming the address and the step, for the command
 * to print after its name:
 *   "unix:/tmp/x.sock: connect: No such file or directory"
 *   "http://127.0.0.1:9: connect: Connection refused"
 *   "http://[::1]:8080: no response within 60 s"
 * Every function is thread-safe on distinct arguments.
 */
#ifndef CUZK_TOOLS_HTTP_CLIENT_H
#define CUZK_TOOLS_HTTP_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#define CUZK_HTTP_ERR_MAX 512
/* Default cap on a response body, and on its headers. */
#define CUZK_HTTP_DEFAULT_MAX_BODY ((size_t)64 << 20)
#define CUZK_HTTP_MAX_HEADER_BYTES ((size_t)64 << 10)
/* The longest Unix socket path (sockaddr_un's sun_path less its NUL). */
#define CUZK_HTTP_UNIX_PATH_MAX 107
/* The longest bearer token (the daemon's token_file holds 16..1024). */
#define CUZK_HTTP_TOKEN_MAX 1024

/* Where the daemon listens: "unix:/path/to.sock", "http://host:port",
 * "http://[v6]:port" (port 80 when left out; a trailing "/" is allowed). */
typedef struct {
    int is_unix;
    char path[CUZK_HTTP_UNIX_PATH_MAX + 1]; /* unix: the socket's path */
    char host[256];                         /* http: name or address, no brackets */
    char port[8];                           /* http: decimal */
    char text[400];                         /* the address as given, for messages */
} cuzk__http_addr;

/* Parses s into *a; else 0 with why in msg ("must be unix:/PATH or
 * http://HOST:PORT", "port 99999 is out of range"). */
int cuzk__http_addr_parse(cuzk__http_addr *a, const char *s, char *msg, size_t msg_len);

typedef struct {
    cuzk__http_addr addr;
    char token[CUZK_HTTP_TOKEN_MAX + 1]; /* "": no Authorization header */
    int timeout_ms;  /* the longest wait without progress; <= 0: 60 s */
    size_t max_body; /* cap on the response body; 0: CUZK_HTTP_DEFAULT_MAX_BODY */
} cuzk__http_client;

/* One piece of a request body: n bytes at p, or (path not NULL) the whole
 * file at path. */
typedef struct {
    const void *p;
    size_t n;
    const char *path;
} cuzk__http_piece;

typedef struct {
    const char *method;       /* "GET", "POST", "DELETE" */
    const char *target;       /* "/v1/jobs?state=done", already escaped */
    const char *content_type; /* NULL without a body */
    const cuzk__http_piece *body;
    size_t n_body;
} cuzk__http_request;

typedef struct {
    int status;              /* 200, 404, ... */
    char content_type[128];  /* "" when the server sent none */
    char *body;              /* NUL-terminated (free with cuzk__http_response_free) */
    size_t len;              /* bytes of body, the NUL left out */
} cuzk__http_response;

/*
 * Sends rq to c->addr and reads the answer into *rs (whatever its status).
 * 1 on an answer; else 0 with the reason in msg (CUZK_HTTP_ERR_MAX bytes is
 * enough), naming the address, or the body file that could not be read.
 * *rs is empty after a failure and needs no freeing.
 */
int cuzk__http_do(const cuzk__http_client *c, const cuzk__http_request *rq,
                  cuzk__http_response *rs, char *msg, size_t msg_len);

void cuzk__http_response_free(cuzk__http_response *rs);

/* The reason phrase of a status ("Not Found"), "" for one it does not know. */
const char *cuzk__http_reason(int status);

#endif /* CUZK_TOOLS_HTTP_CLIENT_H */
