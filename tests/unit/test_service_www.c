/*
 * test_service_www.c — the status page and API contract compiled into the
 * service library (src/service/www.h, written by cmake/embed_files.cmake):
 * the paths served and their content types, every embedded file equal byte
 * for byte to its file in the tree (so the build embeds what is there now),
 * doc/openapi.json embedded exactly when the tree has it, paths that must
 * not match, and that the page's files name no asset outside themselves.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "service/www.h"

static char source_dir[PATH_MAX];

/* The whole file, malloc'd (NULL when it cannot be read). */
static unsigned char *read_file(const char *rel, size_t *len) {
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", source_dir, rel);
    FILE *f = fopen(path, "rb");
    if (f == NULL) return NULL;
    unsigned char *buf = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n == cap) {
            cap = cap ? 2 * cap : 1 << 16;
            unsigned char *b = realloc(buf, cap);
            if (b == NULL) break;
            buf = b;
        }
        const size_t got = fread(buf + n, 1, cap - n, f);
        if (got == 0) break;
        n += got;
    }
    const int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        return NULL;
    }
    *len = n;
    return buf != NULL ? buf : malloc(1);
}

/* The file served at path is rel in the tree, with a content type that
 * starts with type; its bytes end in the NUL www.h promises. */
static void check_served(const char *path, const char *rel, const char *type) {
    const cuzk__www_file *f = cuzk__www_find(path);
    CHECK(f != NULL);
    if (f == NULL) {
        fprintf(stderr, "  %s is not embedded\n", path);
        return;
    }
    CHECK(strcmp(f->path, path) == 0);
    CHECK(strncmp(f->content_type, type, strlen(type)) == 0);
    CHECK(cuzk__www_find(path) == f); /* static: the same entry every time */
    size_t len = 0;
    unsigned char *want = read_file(rel, &len);
    CHECK(want != NULL);
    if (want == NULL) return;
    CHECK(len > 0);
    CHECK_EQ_INT(f->len, len);
    if (f->len == len) CHECK_MEM(f->data, want, len);
    CHECK(f->data[f->len] == 0);
    CHECK_EQ_INT(strlen((const char *)f->data), f->len); /* text: no NUL inside */
    free(want);
}

static void test_page_files(void) {
    check_served("/", "src/service/www/index.html", "text/html");
    check_served("/status.js", "src/service/www/status.js", "text/javascript");
    check_served("/status.css", "src/service/www/status.css", "text/css");
    CHECK(strcmp(cuzk__www_find("/")->content_type, "text/html; charset=utf-8") == 0);
}

static void test_openapi(void) {
    size_t len = 0;
    unsigned char *in_tree = read_file("doc/openapi.json", &len);
    if (in_tree != NULL) {
        check_served("/openapi.json", "doc/openapi.json", "application/json");
        CHECK(strcmp(cuzk__www_find("/openapi.json")->content_type, "application/json") == 0);
        free(in_tree);
    } else {
        CHECK(cuzk__www_find("/openapi.json") == NULL);
    }
}

static void test_other_paths(void) {
    static const char *const none[] = {
        "",            "/index.html",  "index.html",   "status.js",     "/status.js?v=1",
        "/status.js/", "/STATUS.JS",   "/status.jsx",  "/status",       "//",
        "/www/status.js", "/v1/status", "/metrics",    "/../status.js", "/favicon.ico",
        "/ ",          "/status.css#", "/openapi",
    };
    CHECK(cuzk__www_find(NULL) == NULL);
    for (size_t i = 0; i < sizeof(none) / sizeof(none[0]); i++) {
        if (cuzk__www_find(none[i]) != NULL) {
            fprintf(stderr, "  \"%s\" should not be found\n", none[i]);
            CHECK(cuzk__www_find(none[i]) == NULL);
        }
    }
}

/* Every src= and href= of index.html names an embedded file (relative, as
 * the page may sit under a proxy's prefix) or is a data: URL; the style
 * loads nothing (no url(), no @import) and the script names no other host. */
static void test_self_contained(void) {
    const cuzk__www_file *html = cuzk__www_find("/");
    CHECK(html != NULL);
    if (html == NULL) return;
    const char *s = (const char *)html->data;
    int links = 0;
    for (const char *p = s; (p = strpbrk(p, "sh")) != NULL; p++) {
        size_t skip;
        if (strncmp(p, "src=\"", 5) == 0) skip = 5;
        else if (strncmp(p, "href=\"", 6) == 0) skip = 6;
        else continue;
        if (p > s && p[-1] != ' ' && p[-1] != '\n') continue; /* part of a longer name */
        const char *v = p + skip, *end = strchr(v, '"');
        CHECK(end != NULL);
        if (end == NULL) break;
        char val[128];
        const size_t n = (size_t)(end - v) < sizeof val - 1 ? (size_t)(end - v) : sizeof val - 1;
        memcpy(val, v, n);
        val[n] = '\0';
        char served[132];
        snprintf(served, sizeof served, "/%s", val);
        const int ok = strncmp(val, "data:", 5) == 0 ||
                       (strchr(val, ':') == NULL && val[0] != '/' && cuzk__www_find(served) != NULL);
        if (!ok) fprintf(stderr, "  index.html loads \"%s\"\n", val);
        CHECK(ok);
        links++;
    }
    CHECK(links >= 3); /* the icon, the style, the script */
    const cuzk__www_file *css = cuzk__www_find("/status.css");
    const cuzk__www_file *js = cuzk__www_find("/status.js");
    CHECK(css != NULL && js != NULL);
    if (css == NULL || js == NULL) return;
    CHECK(strstr((const char *)css->data, "url(") == NULL);
    CHECK(strstr((const char *)css->data, "@import") == NULL);
    CHECK(strstr((const char *)js->data, "http://") == NULL);
    CHECK(strstr((const char *)js->data, "https://") == NULL);
    CHECK(strstr((const char *)js->data, "import(") == NULL);
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
    RUN(test_page_files);
    RUN(test_openapi);
    RUN(test_other_paths);
    RUN(test_self_contained);
    return cuzk_test_finish();
}
