/*
 * json.h — a small strict JSON (RFC 8259) reader and writer, no dependencies.
 *
 * Reader. cuzk_json_parse() checks the whole input first and then builds the
 * tree in ONE allocation (nodes, child tables and decoded strings), so the
 * tree is freed with a single cuzk_json_free(root) and a half-built tree never
 * exists. It rejects everything RFC 8259 does not allow:
 *   - trailing commas, comments, single quotes, unquoted keys, NaN/Infinity;
 *   - numbers with leading zeros ("01"), "+1", ".5", "1.", "1e", hex;
 *   - in strings: raw control characters (< 0x20), escapes other than
 *     \" \\ \/ \b \f \n \r \t \uXXXX, lone or reversed UTF-16 surrogates,
 *     and invalid UTF-8 (overlong forms, encoded surrogates, > U+10FFFF,
 *     truncated sequences);
 *   - a byte order mark, empty input, anything after the top-level value;
 *   - nesting deeper than limits.max_depth, input longer than limits.max_bytes.
 * Duplicate object keys are valid JSON and are kept, in order; callers that
 * care (snarkjs_json.c does) look them up with cuzk_json_count().
 * Numbers are kept as their source text (big decimal integers stay exact).
 * Errors are CUZK_ERR_BAD_ENCODING (syntax, depth) or CUZK_ERR_BAD_LENGTH
 * (size) or CUZK_ERR_NOMEM, with "line L, column C: reason" in *err
 * (1-based; the column counts bytes).
 *
 * Memory: one block of about 72 bytes per value plus the decoded strings.
 * The worst case ("[0,0,0,...") is ~36x the input size, so max_bytes bounds it.
 *
 * Writer. cuzk_json_writer builds a document into a growing buffer. With
 * indent n it lays out exactly like the bfj package snarkjs's CLI writes with
 * (`bfj.write(file, obj, {space: 1})`): the layout of
 * JSON.stringify(obj, null, n), except that an empty array or object is
 * written "[" newline indent "]" rather than "[]", and no final newline.
 * With indent 0 the output is compact. An allocation failure is sticky and
 * reported by cuzk_json_writer_finish().
 */
#ifndef CUZK_JSON_H
#define CUZK_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

#define CUZK_JSON_DEFAULT_MAX_DEPTH 64u
#define CUZK_JSON_DEFAULT_MAX_BYTES ((size_t)64 << 20)
/* The reader recurses once per level: larger max_depth values are clamped. */
#define CUZK_JSON_MAX_DEPTH_CAP 1000u

typedef enum {
    CUZK_JSON_NULL,
    CUZK_JSON_FALSE,
    CUZK_JSON_TRUE,
    CUZK_JSON_NUMBER,
    CUZK_JSON_STRING,
    CUZK_JSON_ARRAY,
    CUZK_JSON_OBJECT
} cuzk_json_type;

typedef struct cuzk_json cuzk_json;
struct cuzk_json {
    cuzk_json_type type;
    uint32_t line, col;  /* where the value starts (1-based; col in bytes) */
    const char *key;     /* member name when the parent is an object, else NULL */
    size_t key_len;      /* decoded bytes (a key may contain "\u0000") */
    const char *str;     /* STRING: decoded UTF-8; NUMBER: its source text;
                            both NUL-terminated. NULL otherwise. */
    size_t len;          /* STRING/NUMBER: bytes of str; ARRAY/OBJECT: children */
    cuzk_json **items;   /* ARRAY/OBJECT: the children in source order */
    cuzk_json *next;     /* the next sibling in the parent, or NULL */
};

/* Zero fields take the defaults above. max_bytes may not exceed UINT32_MAX.
 * max_values: the most values (of any kind, nesting ones included) the tree
 * may hold, counted before anything is allocated (a tree costs ~80 bytes a
 * value, many times the input for "[0,0,...]"); 0: no limit. */
typedef struct {
    size_t max_bytes;
    unsigned max_depth;
    size_t max_values;
} cuzk_json_limits;

/*
 * Parses text[0..len) (need not be NUL-terminated). On success *root is the
 * tree, to be released with cuzk_json_free(); on failure *root is NULL.
 * lim may be NULL (defaults).
 */
cuzk_status cuzk_json_parse(cuzk_json **root, const char *text, size_t len,
                            const cuzk_json_limits *lim, cuzk_error *err);
void cuzk_json_free(cuzk_json *root);

/* true when s[0..n) is well-formed UTF-8 (what a JSON string may hold). */
bool cuzk_json_utf8_valid(const char *s, size_t n);

/* "null", "false", "true", "number", "string", "array", "object". */
const char *cuzk_json_type_name(cuzk_json_type t);

/* The first member of obj named key (NUL-terminated), or NULL (also when obj
 * is NULL or not an object). */
const cuzk_json *cuzk_json_get(const cuzk_json *obj, const char *key);
/* How many members of obj are named key. */
size_t cuzk_json_count(const cuzk_json *obj, const char *key);
/* arr->items[i], or NULL when arr is not an array/object or i is out of range. */
const cuzk_json *cuzk_json_at(const cuzk_json *arr, size_t i);
/* true when v is a string equal to s (NUL-terminated). */
bool cuzk_json_is_string(const cuzk_json *v, const char *s);
/* A NUMBER that is a non-negative integer without fraction or exponent and
 * fits in 64 bits; false otherwise (*out untouched). */
bool cuzk_json_get_u64(const cuzk_json *v, uint64_t *out);

/* ---- writer ----------------------------------------------------------------- */

typedef struct {
    char *buf;
    size_t len, cap;
    unsigned indent;  /* spaces per level; 0 = compact */
    unsigned depth;
    bool need_comma;  /* a value was written at this level */
    bool after_key;   /* the next value follows "key": */
    bool nomem;       /* an allocation failed; everything after is dropped */
} cuzk_json_writer;

void cuzk_json_writer_init(cuzk_json_writer *w, unsigned indent);
void cuzk_json_begin_object(cuzk_json_writer *w);
void cuzk_json_end_object(cuzk_json_writer *w);
void cuzk_json_begin_array(cuzk_json_writer *w);
void cuzk_json_end_array(cuzk_json_writer *w);
/* The member name for the next value (escaped as a string). */
void cuzk_json_key(cuzk_json_writer *w, const char *key, size_t len);
/* A string value; s is UTF-8 (bytes are copied, ", \ and controls escaped as
 * JSON.stringify does; a byte that is not part of well-formed UTF-8 is
 * written as U+FFFD, so the document stays valid). */
void cuzk_json_string(cuzk_json_writer *w, const char *s, size_t len);
/* A value written verbatim: a number's text, or true/false/null. The caller
 * vouches that it is valid JSON. */
void cuzk_json_raw(cuzk_json_writer *w, const char *text, size_t len);
/* Writes a parsed tree (keys included). */
void cuzk_json_write_tree(cuzk_json_writer *w, const cuzk_json *v);
/*
 * Hands the NUL-terminated text to *out (free() it) and its length to *len,
 * and resets the writer. CUZK_ERR_NOMEM (nothing handed over) when an
 * allocation failed along the way.
 */
cuzk_status cuzk_json_writer_finish(cuzk_json_writer *w, char **out, size_t *len);
/* Releases the buffer without handing it over. */
void cuzk_json_writer_free(cuzk_json_writer *w);

#endif /* CUZK_JSON_H */
