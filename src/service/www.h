/*
 * www.h — the daemon's status page (src/service/www/: index.html,
 * status.js, status.css) and doc/openapi.json, compiled into the service
 * library as byte arrays.
 *
 * The C source behind this header is generated at build time by
 * cmake/embed_files.cmake from the files themselves (CMakeLists.txt, the
 * service library), so an edit to a file is in the next build. The page is
 * plain HTML, CSS and JavaScript with no external assets; it polls the API
 * (doc/api.md) with the token it reads from the URL's fragment.
 */
#ifndef CUZK_SERVICE_WWW_H
#define CUZK_SERVICE_WWW_H

#include <stddef.h>

typedef struct {
    const char *path;         /* as requested: "/", "/status.js", ... */
    const char *content_type; /* the Content-Type header's value */
    const unsigned char *data; /* len bytes, then a NUL not counted in len */
    size_t len;
} cuzk__www_file;

/*
 * The embedded file served at path (the request's path, without its query
 * string): "/" is index.html, "/status.js" and "/status.css" the page's
 * script and style, "/openapi.json" the API contract when the build found
 * doc/openapi.json. NULL for any other path, and for NULL. The answer is
 * static: never freed, valid for the life of the process.
 */
const cuzk__www_file *cuzk__www_find(const char *path);

#endif /* CUZK_SERVICE_WWW_H */
