/*
 * http.h — the daemon's HTTP server: libmicrohttpd on a Unix socket and/or
 * a TCP port ([server] of the config), each request read off its socket and
 * answered by routes.h.
 *
 * One thread per connection, at most CUZK__HTTP_CONNECTIONS at once, so a
 * long poll holds only its own thread. Bodies are capped by max_body_bytes
 * and streamed: a submission's witnesses go to the spool as they arrive.
 * Over TCP every request but the status page's files must carry the bearer
 * token, compared in constant time; the Unix socket's file mode decides who
 * may connect to it.
 */
#ifndef CUZK_SERVICE_HTTP_H
#define CUZK_SERVICE_HTTP_H

#include "cuzk.h"
#include "service/config.h"
#include "service/daemon.h"

#define CUZK__HTTP_CONNECTIONS 256

typedef struct cuzk__http cuzk__http;

/*
 * Binds the listeners of cfg and serves d. A Unix socket path that exists
 * is replaced only when it is a socket nobody listens on (a daemon that
 * died); anything else there is refused. A TCP port of 0 takes a free port
 * (cuzk__http_tcp_port says which). Errors name the listener.
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__http_start(cuzk__http **out, cuzk__daemon *d,
                                                     const cuzk__daemon_config *cfg,
                                                     cuzk_error *err);

/* The TCP port listened on (0 without TCP). */
unsigned cuzk__http_tcp_port(const cuzk__http *h);

/* Stops listening, closes the connections (their requests answered first)
 * and removes the Unix socket. NULL is a no-op. */
void cuzk__http_stop(cuzk__http *h);

#endif /* CUZK_SERVICE_HTTP_H */
