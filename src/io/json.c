/*
 * json.c — strict RFC 8259 reader and a bfj/JSON.stringify-style writer
 * (json.h).
 *
 * The reader runs the same recursive descent twice. Pass 1 validates and
 * counts values and string bytes; pass 2 re-reads the (now known-good) input
 * and fills one exactly-sized block: [nodes][child pointers][strings]. So all
 * error handling lives in pass 1 and a failure never leaves a partial tree.
 * Recursion depth is bounded by max_depth (default 64).
 */
#include "io/json.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- reader ----------------------------------------------------------------- */

typedef struct {
    const unsigned char *p, *end;
    const unsigned char *line_start;
    uint32_t line;
    unsigned depth, max_depth;
    bool build;
    /* pass 1: counts; pass 2: cursors into the block */
    size_t n_nodes, n_bytes;
    cuzk_json *nodes;
    cuzk_json **slots;
    char *chars;
    size_t node_next, slot_next, char_next;
    cuzk_error *err;
} parser;

static uint32_t col_of(const parser *ps, const unsigned char *at) {
    return (uint32_t)(at - ps->line_start) + 1;
}

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static cuzk_status fail_at(parser *ps, const unsigned char *at, const char *fmt, ...) {
    char reason[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof(reason), fmt, ap);
    va_end(ap);
    return cuzk__fail(ps->err, CUZK_ERR_BAD_ENCODING, "line %u, column %u: %s",
                      (unsigned)ps->line, (unsigned)col_of(ps, at), reason);
}

/* A printable description of the byte at p for messages. */
static const char *describe(const parser *ps, const unsigned char *p, char buf[16]) {
    if (p >= ps->end) return "end of input";
    if (*p >= 0x21 && *p < 0x7f)
        snprintf(buf, 16, "'%c'", *p);
    else
        snprintf(buf, 16, "byte 0x%02x", *p);
    return buf;
}

/* RFC 8259 whitespace: space, tab, LF, CR. Newlines only occur here (strings
 * cannot hold a raw LF), so this is the one place that counts lines. */
static void skip_ws(parser *ps) {
    while (ps->p < ps->end) {
        unsigned char c = *ps->p;
        if (c == '\n') {
            ps->line++;
            ps->line_start = ps->p + 1;
        } else if (c != ' ' && c != '\t' && c != '\r') {
            return;
        }
        ps->p++;
    }
}

static cuzk_json *new_node(parser *ps, cuzk_json_type t, const unsigned char *at) {
    if (!ps->build) {
        ps->n_nodes++;
        return NULL;
    }
    cuzk_json *n = &ps->nodes[ps->node_next++];
    memset(n, 0, sizeof(*n));
    n->type = t;
    n->line = ps->line;
    n->col = col_of(ps, at);
    return n;
}

static int hexval(unsigned char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Reads the 4 hex digits after "\u" at p (p points at 'u'). */
static bool read_u16(parser *ps, const unsigned char *p, unsigned *out) {
    if (ps->end - p < 5) return false;
    unsigned v = 0;
    for (int i = 1; i <= 4; i++) {
        int h = hexval(p[i]);
        if (h < 0) return false;
        v = (v << 4) | (unsigned)h;
    }
    *out = v;
    return true;
}

static size_t put_utf8(unsigned char *o, unsigned cp) {
    if (cp < 0x80) {
        o[0] = (unsigned char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (unsigned char)(0xc0 | (cp >> 6));
        o[1] = (unsigned char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (unsigned char)(0xe0 | (cp >> 12));
        o[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
        o[2] = (unsigned char)(0x80 | (cp & 0x3f));
        return 3;
    }
    o[0] = (unsigned char)(0xf0 | (cp >> 18));
    o[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
    o[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
    o[3] = (unsigned char)(0x80 | (cp & 0x3f));
    return 4;
}

/*
 * Length of the well-formed UTF-8 sequence at p (lead byte >= 0x80), or 0.
 * Unicode 15, table 3-7: the second byte's range depends on the lead byte,
 * which excludes overlong forms (C0, C1, E0 80..9F, F0 80..8F), surrogates
 * (ED A0..BF) and code points above U+10FFFF (F4 90.., F5..FF).
 */
static size_t utf8_len(const unsigned char *p, const unsigned char *end) {
    unsigned char c = p[0], lo = 0x80, hi = 0xbf;
    size_t n;
    if (c >= 0xc2 && c <= 0xdf)
        n = 2;
    else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        if (c == 0xe0) lo = 0xa0;
        if (c == 0xed) hi = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        if (c == 0xf0) lo = 0x90;
        if (c == 0xf4) hi = 0x8f;
    } else
        return 0;
    if ((size_t)(end - p) < n) return 0;
    if (p[1] < lo || p[1] > hi) return 0;
    for (size_t i = 2; i < n; i++)
        if (p[i] < 0x80 || p[i] > 0xbf) return 0;
    return n;
}

bool cuzk_json_utf8_valid(const char *s, size_t n) {
    const unsigned char *p = (const unsigned char *)s, *end = p + n;
    while (p < end) {
        if (*p < 0x80) {
            p++;
            continue;
        }
        const size_t k = utf8_len(p, end);
        if (k == 0) return false;
        p += k;
    }
    return true;
}

/*
 * The string at ps->p (which is '"'). Pass 1 validates and sets *out_len to
 * the decoded length; pass 2 writes the decoded bytes plus a NUL into the
 * block and sets *out.
 */
static cuzk_status parse_string(parser *ps, const char **out, size_t *out_len) {
    const unsigned char *start = ps->p;
    const unsigned char *p = ps->p + 1;
    unsigned char *o = ps->build ? (unsigned char *)ps->chars + ps->char_next : NULL;
    size_t n = 0;
    for (;;) {
        if (p >= ps->end) return fail_at(ps, start, "unterminated string");
        unsigned char c = *p;
        if (c == '"') break;
        if (c == '\\') {
            if (p + 1 >= ps->end) return fail_at(ps, start, "unterminated string");
            unsigned char e = p[1], simple = 0;
            switch (e) {
            case '"': simple = '"'; break;
            case '\\': simple = '\\'; break;
            case '/': simple = '/'; break;
            case 'b': simple = '\b'; break;
            case 'f': simple = '\f'; break;
            case 'n': simple = '\n'; break;
            case 'r': simple = '\r'; break;
            case 't': simple = '\t'; break;
            case 'u': break;
            default: {
                char d[16];
                return fail_at(ps, p, "invalid escape \\%s", describe(ps, p + 1, d));
            }
            }
            if (simple) {
                if (o) o[n] = simple;
                n++;
                p += 2;
                continue;
            }
            unsigned cp;
            if (!read_u16(ps, p + 1, &cp))
                return fail_at(ps, p, "invalid \\u escape (needs 4 hex digits)");
            const unsigned char *esc = p;
            p += 6;
            if (cp >= 0xdc00 && cp <= 0xdfff)
                return fail_at(ps, esc, "lone low surrogate \\u%04x", cp);
            if (cp >= 0xd800 && cp <= 0xdbff) {
                unsigned lo;
                if (ps->end - p < 2 || p[0] != '\\' || p[1] != 'u' || !read_u16(ps, p + 1, &lo) ||
                    lo < 0xdc00 || lo > 0xdfff)
                    return fail_at(ps, esc, "lone high surrogate \\u%04x (no low surrogate follows)",
                                   cp);
                p += 6;
                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
            }
            unsigned char tmp[4];
            size_t k = put_utf8(o ? o + n : tmp, cp);
            n += k;
            continue;
        }
        if (c < 0x20)
            return fail_at(ps, p, "control character 0x%02x in a string (must be escaped)", c);
        if (c < 0x80) {
            if (o) o[n] = c;
            n++;
            p++;
            continue;
        }
        size_t k = utf8_len(p, ps->end);
        if (k == 0) return fail_at(ps, p, "invalid UTF-8 (byte 0x%02x) in a string", c);
        if (o) memcpy(o + n, p, k);
        n += k;
        p += k;
    }
    ps->p = p + 1;
    if (o) {
        o[n] = '\0';
        *out = (const char *)o;
        ps->char_next += n + 1;
    } else {
        ps->n_bytes += n + 1;
    }
    *out_len = n;
    return CUZK_OK;
}

static bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

/* number = [ minus ] int [ frac ] [ exp ]; int = zero / ( digit1-9 *DIGIT ) */
static cuzk_status parse_number(parser *ps, cuzk_json *node) {
    const unsigned char *s = ps->p, *p = ps->p, *e = ps->end;
    char d[16];
    if (*p == '-') p++;
    if (p >= e || !is_digit(*p))
        return fail_at(ps, p, "expected a digit after '-', got %s", describe(ps, p, d));
    if (*p == '0') {
        p++;
        if (p < e && is_digit(*p)) return fail_at(ps, s, "number with a leading zero");
    } else {
        while (p < e && is_digit(*p)) p++;
    }
    if (p < e && *p == '.') {
        p++;
        if (p >= e || !is_digit(*p))
            return fail_at(ps, p, "expected a digit after '.', got %s", describe(ps, p, d));
        while (p < e && is_digit(*p)) p++;
    }
    if (p < e && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < e && (*p == '+' || *p == '-')) p++;
        if (p >= e || !is_digit(*p))
            return fail_at(ps, p, "expected a digit in the exponent, got %s", describe(ps, p, d));
        while (p < e && is_digit(*p)) p++;
    }
    size_t n = (size_t)(p - s);
    if (ps->build) {
        char *o = ps->chars + ps->char_next;
        memcpy(o, s, n);
        o[n] = '\0';
        ps->char_next += n + 1;
        node->str = o;
        node->len = n;
    } else {
        ps->n_bytes += n + 1;
    }
    ps->p = p;
    return CUZK_OK;
}

static cuzk_status parse_value(parser *ps, cuzk_json **out);

/* Links the children (first..., count of them) into the container's slice of
 * the pointer table. */
static void attach(parser *ps, cuzk_json *node, cuzk_json *first, size_t count) {
    if (!ps->build) return;
    node->items = ps->slots + ps->slot_next;
    node->len = count;
    size_t i = 0;
    for (cuzk_json *c = first; c != NULL; c = c->next) node->items[i++] = c;
    ps->slot_next += count;
}

static cuzk_status enter(parser *ps, const unsigned char *at) {
    if (++ps->depth > ps->max_depth)
        return fail_at(ps, at, "nesting deeper than %u levels", ps->max_depth);
    return CUZK_OK;
}

/* An array ('[' values ']') or, with close '}', an object ('{' "key": value
 * pairs '}'): one walk over comma-separated members, an object's each after
 * its key. */
static cuzk_status parse_members(parser *ps, cuzk_json *node, unsigned char close) {
    const bool obj = close == '}';
    const char *what = obj ? "an object" : "an array";
    cuzk_status st = enter(ps, ps->p);
    if (st != CUZK_OK) return st;
    ps->p++; /* '[' or '{' */
    cuzk_json *first = NULL, *last = NULL;
    size_t count = 0;
    char d[16];
    skip_ws(ps);
    if (ps->p < ps->end && *ps->p == close) {
        ps->p++;
        ps->depth--;
        attach(ps, node, NULL, 0);
        return CUZK_OK;
    }
    for (;;) {
        const char *key = NULL;
        size_t key_len = 0;
        if (obj) {
            if (ps->p >= ps->end || *ps->p != '"')
                return fail_at(ps, ps->p, "expected a string key in an object, got %s",
                               describe(ps, ps->p, d));
            st = parse_string(ps, &key, &key_len);
            if (st != CUZK_OK) return st;
            skip_ws(ps);
            if (ps->p >= ps->end || *ps->p != ':')
                return fail_at(ps, ps->p, "expected ':' after a key, got %s",
                               describe(ps, ps->p, d));
            ps->p++;
        }
        cuzk_json *child = NULL;
        st = parse_value(ps, &child);
        if (st != CUZK_OK) return st;
        if (ps->build) {
            child->key = key;
            child->key_len = key_len;
            if (last) last->next = child; else first = child;
            last = child;
        }
        count++;
        skip_ws(ps);
        if (ps->p < ps->end && *ps->p == ',') {
            const unsigned char *comma = ps->p++, *comma_line = ps->line_start;
            uint32_t line = ps->line;
            skip_ws(ps);
            if (ps->p < ps->end && *ps->p == close) {
                ps->line = line; /* report the comma's own position */
                ps->line_start = comma_line;
                return fail_at(ps, comma, "trailing comma before '%c'", close);
            }
            continue;
        }
        if (ps->p < ps->end && *ps->p == close) {
            ps->p++;
            break;
        }
        return fail_at(ps, ps->p, "expected ',' or '%c' in %s, got %s", close, what,
                       describe(ps, ps->p, d));
    }
    ps->depth--;
    attach(ps, node, first, count);
    return CUZK_OK;
}

static cuzk_status parse_literal(parser *ps, const char *word, size_t n) {
    if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n) != 0)
        return fail_at(ps, ps->p, "invalid literal (expected %s)", word);
    ps->p += n;
    return CUZK_OK;
}

static cuzk_status parse_value(parser *ps, cuzk_json **out) {
    skip_ws(ps);
    const unsigned char *at = ps->p;
    char d[16];
    if (at >= ps->end) return fail_at(ps, at, "unexpected end of input, expected a value");
    cuzk_json *node;
    cuzk_status st;
    switch (*at) {
    case '{':
        node = new_node(ps, CUZK_JSON_OBJECT, at);
        st = parse_members(ps, node, '}');
        break;
    case '[':
        node = new_node(ps, CUZK_JSON_ARRAY, at);
        st = parse_members(ps, node, ']');
        break;
    case '"':
        node = new_node(ps, CUZK_JSON_STRING, at);
        if (ps->build) {
            st = parse_string(ps, &node->str, &node->len);
        } else {
            const char *s;
            size_t n;
            st = parse_string(ps, &s, &n);
        }
        break;
    case 't':
        node = new_node(ps, CUZK_JSON_TRUE, at);
        st = parse_literal(ps, "true", 4);
        break;
    case 'f':
        node = new_node(ps, CUZK_JSON_FALSE, at);
        st = parse_literal(ps, "false", 5);
        break;
    case 'n':
        node = new_node(ps, CUZK_JSON_NULL, at);
        st = parse_literal(ps, "null", 4);
        break;
    default:
        if (*at == '-' || is_digit(*at)) {
            node = new_node(ps, CUZK_JSON_NUMBER, at);
            st = parse_number(ps, node);
            break;
        }
        if (*at == ']' || *at == '}')
            return fail_at(ps, at, "expected a value, got %s", describe(ps, at, d));
        if (ps->end - at >= 3 && at[0] == 0xef && at[1] == 0xbb && at[2] == 0xbf)
            return fail_at(ps, at, "byte order mark (not allowed in JSON text)");
        if (*at == '/') return fail_at(ps, at, "comments are not allowed in JSON");
        if (*at == '\'') return fail_at(ps, at, "strings must use double quotes");
        return fail_at(ps, at, "unexpected %s, expected a value", describe(ps, at, d));
    }
    if (st != CUZK_OK) return st;
    *out = node;
    return CUZK_OK;
}

static cuzk_status run_pass(parser *ps, const char *text, size_t len, cuzk_json **root) {
    ps->p = (const unsigned char *)text;
    ps->end = ps->p + len;
    ps->line_start = ps->p;
    ps->line = 1;
    ps->depth = 0;
    cuzk_status st = parse_value(ps, root);
    if (st != CUZK_OK) return st;
    skip_ws(ps);
    if (ps->p != ps->end) {
        char d[16];
        if (*ps->p == '/') return fail_at(ps, ps->p, "comments are not allowed in JSON");
        return fail_at(ps, ps->p, "unexpected %s after the JSON value", describe(ps, ps->p, d));
    }
    return CUZK_OK;
}

cuzk_status cuzk_json_parse(cuzk_json **root, const char *text, size_t len,
                            const cuzk_json_limits *lim, cuzk_error *err) {
    *root = NULL;
    size_t max_bytes = lim && lim->max_bytes ? lim->max_bytes : CUZK_JSON_DEFAULT_MAX_BYTES;
    unsigned max_depth = lim && lim->max_depth ? lim->max_depth : CUZK_JSON_DEFAULT_MAX_DEPTH;
    if (max_depth > CUZK_JSON_MAX_DEPTH_CAP) max_depth = CUZK_JSON_MAX_DEPTH_CAP;
    if (max_bytes > UINT32_MAX) max_bytes = UINT32_MAX; /* line/column fit in 32 bits */
    if (text == NULL && len != 0) return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "no input");
    if (len > max_bytes)
        return cuzk__fail(err, CUZK_ERR_BAD_LENGTH,
                          "input is %zu bytes, more than the limit of %zu", len, max_bytes);
    if (text == NULL) text = "";

    parser ps;
    memset(&ps, 0, sizeof(ps));
    ps.max_depth = max_depth;
    ps.err = err;
    cuzk_json *unused = NULL;
    cuzk_status st = run_pass(&ps, text, len, &unused);
    if (st != CUZK_OK) return st;
    if (lim != NULL && lim->max_values != 0 && ps.n_nodes > lim->max_values)
        return cuzk__fail(err, CUZK_ERR_BAD_LENGTH, "%zu values, more than the limit of %zu",
                          ps.n_nodes, lim->max_values);

    /* nodes <= len and bytes <= len + nodes, with len <= 2^32: no overflow of
     * the sum below on 64-bit size_t; checked anyway for 32-bit hosts. */
    size_t n = ps.n_nodes, node_bytes = n * sizeof(cuzk_json), slot_bytes = n * sizeof(cuzk_json *);
    if (n != 0 && (node_bytes / n != sizeof(cuzk_json) || slot_bytes / n != sizeof(cuzk_json *) ||
                   node_bytes + slot_bytes < node_bytes ||
                   node_bytes + slot_bytes + ps.n_bytes < ps.n_bytes))
        return cuzk__fail(err, CUZK_ERR_NOMEM, "JSON tree too large for the address space");
    size_t total = node_bytes + slot_bytes + ps.n_bytes;
    unsigned char *block = malloc(total ? total : 1);
    if (block == NULL)
        return cuzk__fail(err, CUZK_ERR_NOMEM, "cannot allocate %zu bytes for the JSON tree",
                          total);
    ps.build = true;
    ps.nodes = (cuzk_json *)block;
    ps.slots = (cuzk_json **)(block + node_bytes);
    ps.chars = (char *)(block + node_bytes + slot_bytes);
    cuzk_json *r = NULL;
    st = run_pass(&ps, text, len, &r);
    if (st != CUZK_OK || r != ps.nodes || ps.node_next != n || ps.char_next != ps.n_bytes) {
        /* Cannot happen: pass 2 reads what pass 1 accepted. */
        free(block);
        return st != CUZK_OK ? st : cuzk__fail(err, CUZK_ERR_BAD_ENCODING, "internal JSON error");
    }
    *root = r;
    return CUZK_OK;
}

void cuzk_json_free(cuzk_json *root) { free(root); }

const char *cuzk_json_type_name(cuzk_json_type t) {
    switch (t) {
    case CUZK_JSON_NULL: return "null";
    case CUZK_JSON_FALSE: return "false";
    case CUZK_JSON_TRUE: return "true";
    case CUZK_JSON_NUMBER: return "number";
    case CUZK_JSON_STRING: return "string";
    case CUZK_JSON_ARRAY: return "array";
    case CUZK_JSON_OBJECT: return "object";
    }
    return "unknown";
}

static bool key_is(const cuzk_json *m, const char *key, size_t klen) {
    return m->key_len == klen && memcmp(m->key, key, klen) == 0;
}

const cuzk_json *cuzk_json_get(const cuzk_json *obj, const char *key) {
    if (obj == NULL || obj->type != CUZK_JSON_OBJECT) return NULL;
    size_t klen = strlen(key);
    for (size_t i = 0; i < obj->len; i++)
        if (key_is(obj->items[i], key, klen)) return obj->items[i];
    return NULL;
}

size_t cuzk_json_count(const cuzk_json *obj, const char *key) {
    if (obj == NULL || obj->type != CUZK_JSON_OBJECT) return 0;
    size_t klen = strlen(key), n = 0;
    for (size_t i = 0; i < obj->len; i++) n += key_is(obj->items[i], key, klen);
    return n;
}

const cuzk_json *cuzk_json_at(const cuzk_json *arr, size_t i) {
    if (arr == NULL || (arr->type != CUZK_JSON_ARRAY && arr->type != CUZK_JSON_OBJECT) ||
        i >= arr->len)
        return NULL;
    return arr->items[i];
}

bool cuzk_json_is_string(const cuzk_json *v, const char *s) {
    size_t n = strlen(s);
    return v != NULL && v->type == CUZK_JSON_STRING && v->len == n && memcmp(v->str, s, n) == 0;
}

bool cuzk_json_get_u64(const cuzk_json *v, uint64_t *out) {
    if (v == NULL || v->type != CUZK_JSON_NUMBER || v->len == 0) return false;
    uint64_t x = 0;
    for (size_t i = 0; i < v->len; i++) {
        unsigned char c = (unsigned char)v->str[i];
        if (!is_digit(c)) return false; /* '-', '.', 'e' */
        unsigned dgt = c - '0';
        if (x > (UINT64_MAX - dgt) / 10) return false;
        x = x * 10 + dgt;
    }
    *out = x;
    return true;
}

/* ---- writer ----------------------------------------------------------------- */

void cuzk_json_writer_init(cuzk_json_writer *w, unsigned indent) {
    memset(w, 0, sizeof(*w));
    w->indent = indent;
}

static bool reserve(cuzk_json_writer *w, size_t extra) {
    if (w->nomem) return false;
    if (w->cap - w->len > extra) return true; /* > not >=: room for the final NUL */
    size_t need = w->len + extra + 1;
    if (need < w->len) {
        w->nomem = true;
        return false;
    }
    size_t cap = w->cap ? w->cap : 256;
    while (cap < need) {
        if (cap > SIZE_MAX / 2) {
            cap = need;
            break;
        }
        cap *= 2;
    }
    char *b = realloc(w->buf, cap);
    if (b == NULL) {
        w->nomem = true;
        return false;
    }
    w->buf = b;
    w->cap = cap;
    return true;
}

static void put(cuzk_json_writer *w, const char *s, size_t n) {
    if (n == 0 || !reserve(w, n)) return;
    memcpy(w->buf + w->len, s, n);
    w->len += n;
}

static void put_c(cuzk_json_writer *w, char c) { put(w, &c, 1); }

static void newline_indent(cuzk_json_writer *w) {
    size_t n = (size_t)w->indent * w->depth;
    if (!reserve(w, n + 1)) return;
    w->buf[w->len++] = '\n';
    memset(w->buf + w->len, ' ', n);
    w->len += n;
}

/* What precedes a value or a key (bfj's before()). */
static void before(cuzk_json_writer *w) {
    if (w->after_key) {
        w->after_key = false;
        if (w->indent) put_c(w, ' ');
        return;
    }
    if (w->need_comma) put_c(w, ',');
    if (w->indent && w->depth) newline_indent(w);
}

static void begin(cuzk_json_writer *w, char c) {
    before(w);
    put_c(w, c);
    w->depth++;
    w->need_comma = false;
}

static void end(cuzk_json_writer *w, char c) {
    if (w->depth) w->depth--;
    if (w->indent) newline_indent(w);
    put_c(w, c);
    w->need_comma = true;
}

void cuzk_json_begin_object(cuzk_json_writer *w) { begin(w, '{'); }
void cuzk_json_end_object(cuzk_json_writer *w) { end(w, '}'); }
void cuzk_json_begin_array(cuzk_json_writer *w) { begin(w, '['); }
void cuzk_json_end_array(cuzk_json_writer *w) { end(w, ']'); }

static void put_escaped(cuzk_json_writer *w, const char *s, size_t n) {
    static const char hex[] = "0123456789abcdef";
    put_c(w, '"');
    size_t run = 0; /* bytes copied verbatim in one go */
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        const char *esc = NULL;
        char u[7];
        switch (c) {
        case '"': esc = "\\\""; break;
        case '\\': esc = "\\\\"; break;
        case '\b': esc = "\\b"; break;
        case '\f': esc = "\\f"; break;
        case '\n': esc = "\\n"; break;
        case '\r': esc = "\\r"; break;
        case '\t': esc = "\\t"; break;
        default:
            if (c < 0x20) {
                memcpy(u, "\\u00", 4);
                u[4] = hex[c >> 4];
                u[5] = hex[c & 15];
                u[6] = '\0';
                esc = u;
            } else if (c >= 0x80) {
                /* a well-formed sequence is copied; a stray byte becomes
                 * U+FFFD, so the output is always valid JSON */
                const size_t k = utf8_len((const unsigned char *)s + i,
                                          (const unsigned char *)s + n);
                if (k != 0) {
                    run += k;
                    i += k - 1;
                    continue;
                }
                esc = "\xef\xbf\xbd";
            }
        }
        if (esc == NULL) {
            run++;
            continue;
        }
        put(w, s + i - run, run);
        run = 0;
        put(w, esc, strlen(esc));
    }
    put(w, s + n - run, run);
    put_c(w, '"');
}

void cuzk_json_key(cuzk_json_writer *w, const char *key, size_t len) {
    before(w);
    w->need_comma = true;
    put_escaped(w, key, len);
    put_c(w, ':');
    w->after_key = true;
}

void cuzk_json_string(cuzk_json_writer *w, const char *s, size_t len) {
    bool member = w->after_key;
    before(w);
    if (!member) w->need_comma = true;
    put_escaped(w, s, len);
}

void cuzk_json_raw(cuzk_json_writer *w, const char *text, size_t len) {
    bool member = w->after_key;
    before(w);
    if (!member) w->need_comma = true;
    put(w, text, len);
}

void cuzk_json_write_tree(cuzk_json_writer *w, const cuzk_json *v) {
    if (v->key != NULL) cuzk_json_key(w, v->key, v->key_len);
    switch (v->type) {
    case CUZK_JSON_NULL: cuzk_json_raw(w, "null", 4); break;
    case CUZK_JSON_FALSE: cuzk_json_raw(w, "false", 5); break;
    case CUZK_JSON_TRUE: cuzk_json_raw(w, "true", 4); break;
    case CUZK_JSON_NUMBER: cuzk_json_raw(w, v->str, v->len); break;
    case CUZK_JSON_STRING: cuzk_json_string(w, v->str, v->len); break;
    case CUZK_JSON_ARRAY:
    case CUZK_JSON_OBJECT:
        begin(w, v->type == CUZK_JSON_ARRAY ? '[' : '{');
        for (size_t i = 0; i < v->len; i++) cuzk_json_write_tree(w, v->items[i]);
        end(w, v->type == CUZK_JSON_ARRAY ? ']' : '}');
        break;
    }
}

cuzk_status cuzk_json_writer_finish(cuzk_json_writer *w, char **out, size_t *len) {
    *out = NULL;
    if (len) *len = 0;
    if (!reserve(w, 0)) {
        cuzk_json_writer_free(w);
        return CUZK_ERR_NOMEM;
    }
    w->buf[w->len] = '\0';
    *out = w->buf;
    if (len) *len = w->len;
    unsigned indent = w->indent;
    cuzk_json_writer_init(w, indent);
    return CUZK_OK;
}

void cuzk_json_writer_free(cuzk_json_writer *w) {
    free(w->buf);
    unsigned indent = w->indent;
    cuzk_json_writer_init(w, indent);
}
