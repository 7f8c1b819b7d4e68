/*
 * The strict JSON reader/writer (src/io/json.c) and the snarkjs JSON files on
 * top of it (src/io/snarkjs_json.c).
 *
 * References that do not come from the code under test:
 *  - a table of JSONTestSuite-style inputs, each marked valid or invalid by
 *    hand from RFC 8259;
 *  - the expected layout of JSON.stringify(x, null, 1) / bfj, written out by
 *    hand (the proof text was produced by Python's json.dumps(indent=1),
 *    which lays out the same way);
 *  - decimal coordinates of the G1/G2 generators and of p and r computed with
 *    Python integers from the standard hex constants (the G2 x.c0 is the one
 *    FORMATS.md §6 quotes);
 *  - for random values, a decimal printer written here that works bit by bit
 *    (doubling a digit array), unrelated to the library's 10^9 division.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "io/json.h"
#include "groth16/snarkjs_json.h"
#include "test_util.h"

/* ---- decimal constants (Python) ---------------------------------------------- */

#define P_DEC                                                                                      \
    "4002409555221667393417789825735904156556882819939007885332058136124031650490837864442687629" \
    "129015664037894272559787"
#define P_MINUS_1_DEC                                                                              \
    "4002409555221667393417789825735904156556882819939007885332058136124031650490837864442687629" \
    "129015664037894272559786"
#define R_DEC "52435875175126190479447740508185965837690552500527637822603658699938581184513"
#define R_MINUS_1_DEC "52435875175126190479447740508185965837690552500527637822603658699938581184512"
#define GX                                                                                         \
    "3685416753713387016781088315183077757961620795782546409894578378688607592378376318836054947" \
    "676345821548104185464507"
#define GY                                                                                         \
    "1339506544944476473020471379941921221584933875938349620426543736416511423956333506472724655" \
    "353366534992391756441569"
#define NGY /* p - GY */                                                                           \
    "2662903010277190920397318445793982934971948944000658264905514399707520226534504357969962973" \
    "775649129045502516118218"
#define X0 /* FORMATS.md §6 */                                                                     \
    "3527010695874666181871391160110601448900299527927752402199086442397937857357150268733476003" \
    "43865175952761926303160"
#define X1                                                                                         \
    "3059144344244213709971259814753781636986470325476647558659373206291635324768958432433509563" \
    "104347017837885763365758"
#define Y0                                                                                         \
    "1985150602287291935568054521177171638300868978215655730859378665066344726373823718423869104" \
    "263333984641494340347905"
#define Y1                                                                                         \
    "9275536654923324557472019657760378807577401934535929700250279787939768770026755649809492897" \
    "27957565575433344219582"

/* proof.json exactly as snarkjs lays it out: A = G1, B = G2, C = -G1. */
static const char proof_text[] = "{\n"
                                 " \"pi_a\": [\n"
                                 "  \"" GX "\",\n"
                                 "  \"" GY "\",\n"
                                 "  \"1\"\n"
                                 " ],\n"
                                 " \"pi_b\": [\n"
                                 "  [\n"
                                 "   \"" X0 "\",\n"
                                 "   \"" X1 "\"\n"
                                 "  ],\n"
                                 "  [\n"
                                 "   \"" Y0 "\",\n"
                                 "   \"" Y1 "\"\n"
                                 "  ],\n"
                                 "  [\n"
                                 "   \"1\",\n"
                                 "   \"0\"\n"
                                 "  ]\n"
                                 " ],\n"
                                 " \"pi_c\": [\n"
                                 "  \"" GX "\",\n"
                                 "  \"" NGY "\",\n"
                                 "  \"1\"\n"
                                 " ],\n"
                                 " \"protocol\": \"groth16\",\n"
                                 " \"curve\": \"bls12381\"\n"
                                 "}";

#define G1_TXT(ind, y) ind " \"" GX "\",\n" ind " \"" y "\",\n" ind " \"1\"\n"
#define G2_TXT(ind)                                                                                \
    ind " [\n" ind "  \"" X0 "\",\n" ind "  \"" X1 "\"\n" ind " ],\n" ind " [\n" ind "  \"" Y0     \
        "\",\n" ind "  \"" Y1 "\"\n" ind " ],\n" ind " [\n" ind "  \"1\",\n" ind "  \"0\"\n" ind   \
        " ]\n"

/* verification_key.json in snarkjs's layout (without vk_alphabeta_12):
 * alpha = G1, beta = gamma = delta = G2, IC = [G1, -G1]. */
static const char vk_text[] = "{\n"
                              " \"protocol\": \"groth16\",\n"
                              " \"curve\": \"bls12381\",\n"
                              " \"nPublic\": 1,\n"
                              " \"vk_alpha_1\": [\n" G1_TXT(" ", GY) " ],\n"
                              " \"vk_beta_2\": [\n" G2_TXT(" ") " ],\n"
                              " \"vk_gamma_2\": [\n" G2_TXT(" ") " ],\n"
                              " \"vk_delta_2\": [\n" G2_TXT(" ") " ],\n"
                              " \"IC\": [\n"
                              "  [\n" G1_TXT("  ", GY) "  ],\n"
                              "  [\n" G1_TXT("  ", NGY) "  ]\n"
                              " ]\n"
                              "}";

/* ---- helpers -------------------------------------------------------------------- */

/* A copy of text with the first occurrence of from replaced by to (NULL if
 * from does not occur). */
static char *subst(const char *text, const char *from, const char *to) {
    const char *at = strstr(text, from);
    if (at == NULL) return NULL;
    size_t a = (size_t)(at - text), f = strlen(from), t = strlen(to), n = strlen(text);
    char *out = malloc(n - f + t + 1);
    if (out == NULL) return NULL;
    memcpy(out, text, a);
    memcpy(out + a, to, t);
    memcpy(out + a + t, at + f, n - a - f + 1);
    return out;
}

static cuzk_status parse_str(cuzk_json **root, const char *s, cuzk_error *err) {
    return cuzk_json_parse(root, s, strlen(s), NULL, err);
}

/* Reference decimal printer: value = sum of bits, built MSB first by doubling
 * a little-endian digit array. */
static void ref_dec(char *out, const uint64_t *l, size_t nlimbs) {
    unsigned char d[140] = {0};
    size_t nd = 1;
    for (size_t b = nlimbs * 64; b-- > 0;) {
        unsigned carry = (unsigned)((l[b / 64] >> (b % 64)) & 1);
        for (size_t i = 0; i < nd; i++) {
            unsigned v = d[i] * 2u + carry;
            d[i] = (unsigned char)(v % 10);
            carry = v / 10;
        }
        if (carry) d[nd++] = (unsigned char)carry;
    }
    for (size_t i = 0; i < nd; i++) out[i] = (char)('0' + d[nd - 1 - i]);
    out[nd] = '\0';
}

static void rand_below(uint64_t *out, const uint64_t *mod, size_t n) {
    do {
        for (size_t i = 0; i < n; i++) out[i] = cuzk_test_rand64();
        /* random bit length so that short values are covered too */
        unsigned bits = (unsigned)(cuzk_test_rand64() % (64 * n)) + 1;
        for (size_t i = 0; i < n; i++) {
            if (i * 64 >= bits)
                out[i] = 0;
            else if (bits - i * 64 < 64)
                out[i] &= (UINT64_C(1) << (bits - i * 64)) - 1;
        }
    } while (!cuzk__lt_n(out, mod, n));
}

/* A nonzero scalar below r (short ones included), so that k*G is finite:
 * verification keys must not hold the point at infinity. */
static void rand_fr_limbs(uint64_t k[4]) {
    static const uint64_t r[4] = CUZK__FR_R;
    do rand_below(k, r, 4);
    while (cuzk__is_zero_n(k, 4));
}

static void rand_g1(cuzk_g1_aff *out) {
    uint64_t k[4];
    rand_fr_limbs(k);
    cuzk_test_g1_gen_mul(out, k);
}

static void rand_g2(cuzk_g2_aff *out) {
    uint64_t k[4];
    rand_fr_limbs(k);
    cuzk_test_g2_gen_mul(out, k);
}

/* ---- the JSON table ------------------------------------------------------------- */

typedef struct {
    const char *text;
    size_t len; /* 0: strlen(text) */
    int valid;
} json_case;

static const json_case json_cases[] = {
    /* valid */
    {"[]", 0, 1},
    {"{}", 0, 1},
    {" \t\r\n[ 1 , 2 ]\n", 0, 1},
    {"[-0]", 0, 1},
    {"[0.5]", 0, 1},
    {"[1e5, 1E+2, -1.25e-3, 0e0, 1e999]", 0, 1},
    {"[123456789012345678901234567890]", 0, 1},
    {"\"abc\"", 0, 1},
    {"123", 0, 1},
    {"true", 0, 1},
    {"null", 0, 1},
    {"[false,true,null]", 0, 1},
    {"{\"a\":1,\"a\":2}", 0, 1},
    {"[\"\\u0000\"]", 0, 1},
    {"[\"\\ud83d\\ude00\"]", 0, 1},
    {"[\"\\uDBFF\\uDFFF\"]", 0, 1},
    {"[\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"]", 0, 1},
    {"[\"\xc3\xa9\xe2\x82\xac\xf0\x9d\x84\x9e\"]", 0, 1},
    {"[\"\\uFFFF\\u00e9\"]", 0, 1},
    {"[\"\x7f\"]", 0, 1},
    {"[\"\"]", 0, 1},
    {"{\"\":0}", 0, 1},
    {"[[[]]]", 0, 1},
    {"{\"a\":[{\"b\":null}],\"c\":{}}", 0, 1},
    {"[\"\xef\xbb\xbf\"]", 0, 1}, /* U+FEFF inside a string is fine */
    {"[\"\xf4\x8f\xbf\xbf\"]", 0, 1}, /* U+10FFFF */
    /* invalid */
    {"", 0, 0},
    {" ", 0, 0},
    {"[1,]", 0, 0},
    {"{\"a\":1,}", 0, 0},
    {"[1 2]", 0, 0},
    {"{\"a\" 1}", 0, 0},
    {"{a:1}", 0, 0},
    {"{'a':1}", 0, 0},
    {"['a']", 0, 0},
    {"[01]", 0, 0},
    {"[-01]", 0, 0},
    {"[+1]", 0, 0},
    {"[.5]", 0, 0},
    {"[1.]", 0, 0},
    {"[1e]", 0, 0},
    {"[1e+]", 0, 0},
    {"[-]", 0, 0},
    {"[0x10]", 0, 0},
    {"[NaN]", 0, 0},
    {"[Infinity]", 0, 0},
    {"[1.2.3]", 0, 0},
    {"[--1]", 0, 0},
    {"[1e1.5]", 0, 0},
    {"[1] x", 0, 0},
    {"[1]]", 0, 0},
    {"{\"a\":1}}", 0, 0},
    {"[", 0, 0},
    {"[1", 0, 0},
    {"{\"a\":", 0, 0},
    {"\"abc", 0, 0},
    {"[\"\\x\"]", 0, 0},
    {"[\"\\u12\"]", 0, 0},
    {"[\"\\u12G4\"]", 0, 0},
    {"[\"\\ud800\"]", 0, 0},
    {"[\"\\udc00\"]", 0, 0},
    {"[\"\\ude00\\ud83d\"]", 0, 0},
    {"[\"\\ud800\\u0041\"]", 0, 0},
    {"[\"\\ud800\\ue000\"]", 0, 0},
    {"[\"\\ud800\\udbff\"]", 0, 0},
    {"[\"\\ud800\\n\"]", 0, 0},
    {"[\"a\x01" "b\"]", 0, 0},
    {"[\"\t\"]", 0, 0},
    {"[\"a\nb\"]", 0, 0},
    {"[\"\xff\"]", 0, 0},
    {"[\"\xc0\xaf\"]", 0, 0},
    {"[\"\xe0\x80\xaf\"]", 0, 0},
    {"[\"\xf0\x80\x80\xaf\"]", 0, 0},
    {"[\"\xed\xa0\x80\"]", 0, 0},
    {"[\"\xf4\x90\x80\x80\"]", 0, 0},
    {"[\"\xc3\"]", 0, 0},
    {"[\"\x80\"]", 0, 0},
    {"[\"\xe2\x82\"]", 0, 0},
    {"\xef\xbb\xbf[]", 0, 0},
    {"[1]//c", 0, 0},
    {"/*c*/[1]", 0, 0},
    {"[tru]", 0, 0},
    {"[nul]", 0, 0},
    {"[True]", 0, 0},
    {"[1,,2]", 0, 0},
    {"[,1]", 0, 0},
    {"{,}", 0, 0},
    {"{\"a\":1 \"b\":2}", 0, 0},
    {"{\"a\"}", 0, 0},
    {"{\"a\":1,\"b\"}", 0, 0},
    {"{1:1}", 0, 0},
    {"[\0]", 3, 0},
    {"[1]\0", 4, 0},
    {"[\"a\0\"]", 6, 0},
    {"[1,\f2]", 0, 0},
    {"\xc2\xa0[]", 0, 0},
    {"[1]\n[2]", 0, 0},
};

static void test_table(void) {
    size_t n = sizeof(json_cases) / sizeof(json_cases[0]);
    for (size_t i = 0; i < n; i++) {
        const json_case *c = &json_cases[i];
        size_t len = c->len ? c->len : strlen(c->text);
        cuzk_json *root = (cuzk_json *)1;
        cuzk_error err;
        cuzk__error_clear(&err);
        cuzk_status st = cuzk_json_parse(&root, c->text, len, NULL, &err);
        if (c->valid) {
            if (st != CUZK_OK) fprintf(stderr, "case %zu should parse: %s\n", i, err.msg);
            CHECK_EQ_INT(st, CUZK_OK);
            CHECK(root != NULL);
        } else {
            if (st == CUZK_OK) fprintf(stderr, "case %zu should fail\n", i);
            CHECK_EQ_INT(st, CUZK_ERR_BAD_ENCODING);
            CHECK(root == NULL);
            CHECK(strncmp(err.msg, "line ", 5) == 0);
        }
        cuzk_json_free(root);
    }
}

/* Error positions and reasons. */
static void test_error_messages(void) {
    static const struct {
        const char *text, *msg;
    } cases[] = {
        {"{\n  \"a\": [1,\n  02]\n}", "line 3, column 3: number with a leading zero"},
        {"[1,\n 2,\n]", "line 2, column 3: trailing comma before ']'"},
        {"{\"a\":1,\n}", "line 1, column 7: trailing comma before '}'"},
        {"[\"\\ud800\"]", "line 1, column 3: lone high surrogate"},
        {"[\"\\udc00\"]", "line 1, column 3: lone low surrogate"},
        {"[\"a\x01\"]", "line 1, column 4: control character 0x01"},
        {"[\"\xc0\xaf\"]", "line 1, column 3: invalid UTF-8"},
        {"[1] x", "line 1, column 5: unexpected 'x' after the JSON value"},
        {"", "line 1, column 1: unexpected end of input"},
        {"[\"\\q\"]", "line 1, column 3: invalid escape"},
        {"\n\n   [1 2]", "line 3, column 7: expected ',' or ']'"},
        {"[1]//", "comments are not allowed"},
        {"\xef\xbb\xbf{}", "byte order mark"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cuzk_json *root;
        cuzk_error err;
        cuzk__error_clear(&err);
        CHECK_EQ_INT(parse_str(&root, cases[i].text, &err), CUZK_ERR_BAD_ENCODING);
        if (strstr(err.msg, cases[i].msg) == NULL) {
            fprintf(stderr, "case %zu: got \"%s\", want \"%s\"\n", i, err.msg, cases[i].msg);
            CHECK(0);
        }
    }
}

static void test_tree_access(void) {
    const char *text = "{\"n\": 42, \"s\": \"h\\u00e9\\ud83d\\ude00\\n\\u0000x\",\n"
                       " \"a\": [true, false, null, -0.0e+12, 123456789012345678901234567890],\n"
                       " \"n\": 7, \"big\": 18446744073709551615, \"over\": 18446744073709551616,\n"
                       " \"frac\": 1.0, \"neg\": -1}";
    cuzk_json *root;
    cuzk_error err;
    CHECK_EQ_INT(parse_str(&root, text, &err), CUZK_OK);
    if (root == NULL) return;
    CHECK_EQ_INT(root->type, CUZK_JSON_OBJECT);
    CHECK_EQ_INT(root->len, 8);
    CHECK_EQ_INT(cuzk_json_count(root, "n"), 2);
    CHECK_EQ_INT(cuzk_json_count(root, "zz"), 0);
    uint64_t v = 0;
    CHECK(cuzk_json_get_u64(cuzk_json_get(root, "n"), &v) && v == 42); /* the first "n" */
    CHECK(cuzk_json_get_u64(cuzk_json_get(root, "big"), &v) && v == UINT64_MAX);
    CHECK(!cuzk_json_get_u64(cuzk_json_get(root, "over"), &v));
    CHECK(!cuzk_json_get_u64(cuzk_json_get(root, "frac"), &v));
    CHECK(!cuzk_json_get_u64(cuzk_json_get(root, "neg"), &v));
    CHECK(!cuzk_json_get_u64(cuzk_json_get(root, "s"), &v));
    const cuzk_json *s = cuzk_json_get(root, "s");
    static const char want[] = "h\xc3\xa9\xf0\x9f\x98\x80\n\0x";
    CHECK(s != NULL && s->type == CUZK_JSON_STRING && s->len == sizeof(want) - 1 &&
          memcmp(s->str, want, sizeof(want)) == 0); /* NUL-terminated too */
    CHECK(s != NULL && s->line == 1 && s->col == 16);
    const cuzk_json *a = cuzk_json_get(root, "a");
    CHECK(a != NULL && a->type == CUZK_JSON_ARRAY && a->len == 5 && a->line == 2 && a->col == 7);
    CHECK_EQ_INT(cuzk_json_at(a, 0)->type, CUZK_JSON_TRUE);
    CHECK_EQ_INT(cuzk_json_at(a, 1)->type, CUZK_JSON_FALSE);
    CHECK_EQ_INT(cuzk_json_at(a, 2)->type, CUZK_JSON_NULL);
    CHECK(strcmp(cuzk_json_at(a, 3)->str, "-0.0e+12") == 0);
    CHECK(strcmp(cuzk_json_at(a, 4)->str, "123456789012345678901234567890") == 0);
    CHECK(cuzk_json_at(a, 5) == NULL);
    CHECK(cuzk_json_at(a, 0)->next == cuzk_json_at(a, 1) && cuzk_json_at(a, 4)->next == NULL);
    CHECK(cuzk_json_get(a, "x") == NULL);
    CHECK(cuzk_json_is_string(cuzk_json_get(root, "s"), "h\xc3\xa9\xf0\x9f\x98\x80\n") == 0);
    CHECK(strcmp(cuzk_json_type_name(CUZK_JSON_OBJECT), "object") == 0);
    cuzk_json_free(root);
}

static void nest(char *buf, unsigned depth, int object) {
    size_t n = 0;
    for (unsigned i = 0; i < depth; i++) {
        if (object) {
            memcpy(buf + n, "{\"a\":", 5);
            n += 5;
        } else {
            buf[n++] = '[';
        }
    }
    buf[n++] = '1';
    for (unsigned i = 0; i < depth; i++) buf[n++] = object ? '}' : ']';
    buf[n] = '\0';
}

static void test_limits(void) {
    static char buf[8000];
    cuzk_json *root;
    cuzk_error err;
    for (int object = 0; object < 2; object++) {
        nest(buf, 64, object);
        CHECK_EQ_INT(parse_str(&root, buf, &err), CUZK_OK);
        cuzk_json_free(root);
        nest(buf, 65, object);
        CHECK_EQ_INT(parse_str(&root, buf, &err), CUZK_ERR_BAD_ENCODING);
        CHECK(strstr(err.msg, "nesting deeper than 64") != NULL);
    }
    /* Custom limits; a deep document far past the cap fails cleanly. */
    cuzk_json_limits lim = {0, 3, 0};
    nest(buf, 3, 0);
    CHECK_EQ_INT(cuzk_json_parse(&root, buf, strlen(buf), &lim, &err), CUZK_OK);
    cuzk_json_free(root);
    nest(buf, 4, 0);
    CHECK_EQ_INT(cuzk_json_parse(&root, buf, strlen(buf), &lim, &err), CUZK_ERR_BAD_ENCODING);
    lim.max_depth = 100000;
    nest(buf, 3000, 0);
    CHECK_EQ_INT(cuzk_json_parse(&root, buf, strlen(buf), &lim, &err), CUZK_ERR_BAD_ENCODING);
    CHECK(strstr(err.msg, "1000") != NULL);
    lim.max_depth = 0;
    lim.max_bytes = 10;
    CHECK_EQ_INT(cuzk_json_parse(&root, "[1,2,3,4,5]", 11, &lim, &err), CUZK_ERR_BAD_LENGTH);
    CHECK(root == NULL);
    CHECK_EQ_INT(cuzk_json_parse(&root, "[1,2,3,45]", 10, &lim, &err), CUZK_OK);
    cuzk_json_free(root);
    /* values: counted before the tree is made (the array is one of them) */
    lim.max_values = 5;
    lim.max_bytes = 0;
    CHECK_EQ_INT(cuzk_json_parse(&root, "[1,2,3,45]", 10, &lim, &err), CUZK_OK);
    cuzk_json_free(root);
    CHECK_EQ_INT(cuzk_json_parse(&root, "[1,2,3,4,5]", 11, &lim, &err), CUZK_ERR_BAD_LENGTH);
    CHECK_EQ_INT(cuzk_json_parse(&root, "[[1],2,3]", 9, &lim, &err), CUZK_OK);
    cuzk_json_free(root);
    CHECK_EQ_INT(cuzk_json_parse(&root, "[[1,[]],2,3]", 12, &lim, &err), CUZK_ERR_BAD_LENGTH);
    CHECK(root == NULL);
    CHECK(strstr(err.msg, "6 values, more than the limit of 5") != NULL);
    lim.max_values = 0;
    /* A NULL error pointer is allowed. */
    CHECK_EQ_INT(cuzk_json_parse(&root, "[", 1, NULL, NULL), CUZK_ERR_BAD_ENCODING);
}

/* ---- writer --------------------------------------------------------------------- */

static char *write_sample(unsigned indent) {
    cuzk_json_writer w;
    cuzk_json_writer_init(&w, indent);
    cuzk_json_begin_object(&w);
    cuzk_json_key(&w, "a", 1);
    cuzk_json_begin_array(&w);
    cuzk_json_raw(&w, "1", 1);
    cuzk_json_string(&w, "x", 1);
    cuzk_json_begin_array(&w);
    cuzk_json_end_array(&w);
    cuzk_json_begin_object(&w);
    cuzk_json_key(&w, "k", 1);
    cuzk_json_raw(&w, "null", 4);
    cuzk_json_end_object(&w);
    cuzk_json_end_array(&w);
    cuzk_json_key(&w, "b", 1);
    cuzk_json_begin_object(&w);
    cuzk_json_end_object(&w);
    cuzk_json_key(&w, "c", 1);
    cuzk_json_string(&w, "q\"\\\b\f\n\r\t\x01\x1f\x7f\xc3\xa9/", 14);
    cuzk_json_end_object(&w);
    char *out = NULL;
    size_t len = 0;
    CHECK_EQ_INT(cuzk_json_writer_finish(&w, &out, &len), CUZK_OK);
    CHECK(out != NULL && strlen(out) == len);
    return out;
}

static void test_writer_layout(void) {
    /* JSON.stringify(x, null, 1) except the empty containers (bfj writes a
     * newline and the closing indent); escapes as JSON.stringify. */
    static const char want1[] = "{\n"
                                " \"a\": [\n"
                                "  1,\n"
                                "  \"x\",\n"
                                "  [\n"
                                "  ],\n"
                                "  {\n"
                                "   \"k\": null\n"
                                "  }\n"
                                " ],\n"
                                " \"b\": {\n"
                                " },\n"
                                " \"c\": \"q\\\"\\\\\\b\\f\\n\\r\\t\\u0001\\u001f\x7f\xc3\xa9/\"\n"
                                "}";
    static const char want0[] = "{\"a\":[1,\"x\",[],{\"k\":null}],\"b\":{},"
                                "\"c\":\"q\\\"\\\\\\b\\f\\n\\r\\t\\u0001\\u001f\x7f\xc3\xa9/\"}";
    char *s1 = write_sample(1), *s0 = write_sample(0);
    CHECK(s1 != NULL && strcmp(s1, want1) == 0);
    CHECK(s0 != NULL && strcmp(s0, want0) == 0);
    if (s1 && strcmp(s1, want1) != 0) fprintf(stderr, "got:\n%s\n", s1);
    /* Parsing and re-writing gives the same bytes. */
    const char *srcs[2] = {s0, s1};
    for (unsigned k = 0; k < 2; k++) {
        cuzk_json *root;
        cuzk_error err;
        if (srcs[k] == NULL) continue;
        CHECK_EQ_INT(parse_str(&root, srcs[k], &err), CUZK_OK);
        if (root == NULL) continue;
        for (unsigned ind = 0; ind < 2; ind++) {
            cuzk_json_writer w;
            char *out;
            size_t len;
            cuzk_json_writer_init(&w, ind);
            cuzk_json_write_tree(&w, root);
            CHECK_EQ_INT(cuzk_json_writer_finish(&w, &out, &len), CUZK_OK);
            CHECK(out != NULL && strcmp(out, ind ? want1 : want0) == 0);
            free(out);
        }
        cuzk_json_free(root);
    }
    free(s0);
    free(s1);
    /* Top-level scalars and the empty document. */
    cuzk_json_writer w;
    char *out;
    size_t len;
    cuzk_json_writer_init(&w, 1);
    cuzk_json_string(&w, "", 0);
    CHECK_EQ_INT(cuzk_json_writer_finish(&w, &out, &len), CUZK_OK);
    CHECK(out && strcmp(out, "\"\"") == 0 && len == 2);
    free(out);
    cuzk_json_writer_init(&w, 1);
    CHECK_EQ_INT(cuzk_json_writer_finish(&w, &out, &len), CUZK_OK);
    CHECK(out && out[0] == '\0' && len == 0);
    free(out);
    cuzk_json_writer_free(&w);
}

/* Random strings of UTF-8 text with every kind of byte that needs escaping. */
static size_t rand_string(char *s, size_t cap) {
    static const char *pieces[] = {"a", "Z", "0", " ", "\"", "\\", "/", "\b", "\f", "\n", "\r",
                                   "\t", "\x01", "\x1f", "\x7f", "\xc3\xa9", "\xe2\x82\xac",
                                   "\xf0\x9f\x98\x80", "\xef\xbf\xbf", "{", "]", ","};
    size_t n = 0, k = (size_t)(cuzk_test_rand64() % 12);
    for (size_t i = 0; i < k; i++) {
        if (cuzk_test_rand64() % 16 == 0) {
            if (n + 1 > cap) break;
            s[n++] = '\0';
            continue;
        }
        const char *p = pieces[cuzk_test_rand64() % (sizeof(pieces) / sizeof(pieces[0]))];
        size_t m = strlen(p);
        if (n + m > cap) break;
        memcpy(s + n, p, m);
        n += m;
    }
    return n;
}

/* Writes one random value into both writers (compact and indented). */
static void rand_value(cuzk_json_writer *w0, cuzk_json_writer *w1, unsigned depth) {
    static const char *nums[] = {"0", "-0", "1", "-12", "3.25", "1e10", "-2.5E-3",
                                 "340282366920938463463374607431768211456"};
    unsigned kind = (unsigned)(cuzk_test_rand64() % (depth < 4 ? 7 : 5));
    char s[64];
    size_t n;
    switch (kind) {
    case 0: cuzk_json_raw(w0, "null", 4); cuzk_json_raw(w1, "null", 4); break;
    case 1: cuzk_json_raw(w0, "true", 4); cuzk_json_raw(w1, "true", 4); break;
    case 2: {
        const char *t = nums[cuzk_test_rand64() % (sizeof(nums) / sizeof(nums[0]))];
        cuzk_json_raw(w0, t, strlen(t));
        cuzk_json_raw(w1, t, strlen(t));
        break;
    }
    case 3:
    case 4:
        n = rand_string(s, sizeof(s));
        cuzk_json_string(w0, s, n);
        cuzk_json_string(w1, s, n);
        break;
    case 5: {
        size_t k = (size_t)(cuzk_test_rand64() % 4);
        cuzk_json_begin_array(w0);
        cuzk_json_begin_array(w1);
        for (size_t i = 0; i < k; i++) rand_value(w0, w1, depth + 1);
        cuzk_json_end_array(w0);
        cuzk_json_end_array(w1);
        break;
    }
    default: {
        size_t k = (size_t)(cuzk_test_rand64() % 4);
        cuzk_json_begin_object(w0);
        cuzk_json_begin_object(w1);
        for (size_t i = 0; i < k; i++) {
            n = rand_string(s, sizeof(s));
            cuzk_json_key(w0, s, n);
            cuzk_json_key(w1, s, n);
            rand_value(w0, w1, depth + 1);
        }
        cuzk_json_end_object(w0);
        cuzk_json_end_object(w1);
        break;
    }
    }
}

/* Strings that are not UTF-8 still give valid JSON: each stray byte is
 * written as U+FFFD, well-formed sequences are kept. */
static void test_writer_not_utf8(void) {
    static const struct {
        const char *in, *out;
    } cases[] = {
        {"a\xafz", "\"a\xef\xbf\xbdz\""},
        {"\xc3\xa9t\xc3\xa9", "\"\xc3\xa9t\xc3\xa9\""},
        {"\xe2\x82", "\"\xef\xbf\xbd\xef\xbf\xbd\""}, /* truncated sequence */
        {"\xed\xa0\x80", "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\""}, /* a surrogate */
        {"\xf0\x9f\x98\x80", "\"\xf0\x9f\x98\x80\""},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cuzk_json_writer w;
        cuzk_json_writer_init(&w, 0);
        cuzk_json_string(&w, cases[i].in, strlen(cases[i].in));
        char *out = NULL;
        size_t len = 0;
        CHECK(cuzk_json_writer_finish(&w, &out, &len) == CUZK_OK);
        CHECK(out != NULL && strcmp(out, cases[i].out) == 0);
        cuzk_json *root = NULL;
        cuzk_error err;
        CHECK(cuzk_json_parse(&root, out, len, NULL, &err) == CUZK_OK);
        cuzk_json_free(root);
        CHECK(cuzk_json_utf8_valid(cases[i].in, strlen(cases[i].in)) == (i == 1 || i == 4));
        free(out);
    }
}

static void test_random_round_trip(void) {
    for (unsigned long it = 0; it < ITERS(300); it++) {
        cuzk_json_writer w0, w1;
        cuzk_json_writer_init(&w0, 0);
        cuzk_json_writer_init(&w1, 2);
        rand_value(&w0, &w1, 0);
        char *t0, *t1;
        size_t l0, l1;
        CHECK_EQ_INT(cuzk_json_writer_finish(&w0, &t0, &l0), CUZK_OK);
        CHECK_EQ_INT(cuzk_json_writer_finish(&w1, &t1, &l1), CUZK_OK);
        if (!t0 || !t1) continue;
        /* Parse each form and write it in the other form. */
        cuzk_json *r0, *r1;
        cuzk_error err;
        CHECK_EQ_INT(cuzk_json_parse(&r0, t0, l0, NULL, &err), CUZK_OK);
        CHECK_EQ_INT(cuzk_json_parse(&r1, t1, l1, NULL, &err), CUZK_OK);
        if (r0 && r1) {
            cuzk_json_writer_init(&w0, 0);
            cuzk_json_writer_init(&w1, 2);
            cuzk_json_write_tree(&w0, r1);
            cuzk_json_write_tree(&w1, r0);
            char *u0, *u1;
            size_t m0, m1;
            CHECK_EQ_INT(cuzk_json_writer_finish(&w0, &u0, &m0), CUZK_OK);
            CHECK_EQ_INT(cuzk_json_writer_finish(&w1, &u1, &m1), CUZK_OK);
            CHECK(u0 && m0 == l0 && memcmp(u0, t0, l0) == 0);
            CHECK(u1 && m1 == l1 && memcmp(u1, t1, l1) == 0);
            free(u0);
            free(u1);
        }
        cuzk_json_free(r0);
        cuzk_json_free(r1);
        free(t0);
        free(t1);
    }
    /* Strings: the decoded bytes are exactly what was written. */
    for (unsigned long it = 0; it < ITERS(500); it++) {
        char s[64];
        size_t n = rand_string(s, sizeof(s));
        cuzk_json_writer w;
        cuzk_json_writer_init(&w, 0);
        cuzk_json_string(&w, s, n);
        char *t;
        size_t l;
        CHECK_EQ_INT(cuzk_json_writer_finish(&w, &t, &l), CUZK_OK);
        cuzk_json *r;
        cuzk_error err;
        CHECK_EQ_INT(cuzk_json_parse(&r, t, l, NULL, &err), CUZK_OK);
        CHECK(r && r->type == CUZK_JSON_STRING && r->len == n && memcmp(r->str, s, n) == 0 &&
              r->str[n] == '\0');
        cuzk_json_free(r);
        free(t);
    }
}

/* ---- decimal strings ------------------------------------------------------------ */

static void test_decimal_fixed(void) {
    cuzk_fp x;
    cuzk_fr y;
    cuzk_error err;
    char buf[CUZK_FP_DEC_BYTES];
    CHECK_EQ_INT(cuzk_fp_from_dec_var(&x, "0", 1, &err), CUZK_OK);
    CHECK(cuzk_fp_is_zero(&x));
    CHECK_EQ_INT(cuzk_fp_from_dec_var(&x, "1", 1, &err), CUZK_OK);
    CHECK(cuzk_fp_is_one(&x));
    CHECK_EQ_INT(cuzk_fp_from_dec_var(&x, P_MINUS_1_DEC, strlen(P_MINUS_1_DEC), &err), CUZK_OK);
    cuzk_fp m1;
    cuzk_fp_set_one(&m1);
    cuzk_fp_neg(&m1, &m1);
    CHECK(cuzk_fp_eq(&x, &m1));
    CHECK_EQ_INT(cuzk_fp_to_dec_var(buf, &x), strlen(P_MINUS_1_DEC));
    CHECK(strcmp(buf, P_MINUS_1_DEC) == 0);
    CHECK_EQ_INT(cuzk_fp_from_dec_var(&x, P_DEC, strlen(P_DEC), &err), CUZK_ERR_NOT_CANONICAL);
    CHECK(strstr(err.msg, "not canonical") != NULL && strstr(err.msg, ">= p") != NULL);
    CHECK_EQ_INT(cuzk_fr_from_dec_var(&y, R_DEC, strlen(R_DEC), &err), CUZK_ERR_NOT_CANONICAL);
    CHECK(strstr(err.msg, ">= r") != NULL);
    CHECK_EQ_INT(cuzk_fr_from_dec_var(&y, R_MINUS_1_DEC, strlen(R_MINUS_1_DEC), &err), CUZK_OK);
    cuzk_fr fm1;
    cuzk_fr_set_one(&fm1);
    cuzk_fr_neg(&fm1, &fm1);
    CHECK(cuzk_fr_eq(&y, &fm1));
    char rb[CUZK_FR_DEC_BYTES];
    CHECK_EQ_INT(cuzk_fr_to_dec_var(rb, &y), strlen(R_MINUS_1_DEC));
    CHECK(strcmp(rb, R_MINUS_1_DEC) == 0);
    /* Values of r's size are fine in Fp. */
    CHECK_EQ_INT(cuzk_fp_from_dec_var(&x, R_DEC, strlen(R_DEC), &err), CUZK_OK);

    static const char *bad[] = {"", "01", "00", "+1", "-1", " 1", "1 ", "1a", "0x1", "1.0",
                                "1e3", "\xd9\xa1" /* Arabic-Indic one */};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        cuzk_fp keep = m1, t = m1;
        CHECK_EQ_INT(cuzk_fp_from_dec_var(&t, bad[i], strlen(bad[i]), &err),
                     CUZK_ERR_BAD_ENCODING);
        CHECK(cuzk_fp_eq(&t, &keep));
    }
    /* Far too long: not canonical, and the message is short. */
    char longdec[301];
    memset(longdec, '9', 300);
    longdec[300] = '\0';
    CHECK_EQ_INT(cuzk_fp_from_dec_var(&x, longdec, 300, &err), CUZK_ERR_NOT_CANONICAL);
    CHECK(strstr(err.msg, "9999999999...9999999999 (300 digits)") != NULL);
    CHECK_EQ_INT(cuzk_fr_from_dec_var(&y, P_DEC, strlen(P_DEC), &err), CUZK_ERR_NOT_CANONICAL);
    /* 2^384 + 5 and 2^256 + 5: the low limbs alone are small, so these catch
     * a reduction that drops the overflow limb. */
    static const char two384p5[] = "394020061963944792122790401001436138050797392704654466679482934"
                                   "04245721771497210611414266254884915640806627990306821";
    static const char two256p5[] =
        "115792089237316195423570985008687907853269984665640564039457584007913129639941";
    CHECK_EQ_INT(cuzk_fp_from_dec_var(&x, two384p5, strlen(two384p5), &err),
                 CUZK_ERR_NOT_CANONICAL);
    CHECK_EQ_INT(cuzk_fr_from_dec_var(&y, two256p5, strlen(two256p5), &err),
                 CUZK_ERR_NOT_CANONICAL);
    /* 2^64 - 1, 2^64, 10^k boundaries against the reference printer. */
    static const uint64_t vals[][6] = {
        {0}, {1}, {9}, {10}, {999999999}, {1000000000}, {UINT64_C(1000000000000000000)},
        {UINT64_C(9999999999999999999)}, {UINT64_MAX}, {0, 1}, {UINT64_MAX, UINT64_MAX},
        {0, 0, 0, 0, 0, 1},
    };
    for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
        char got[CUZK_FP_DEC_BYTES], want[140];
        uint64_t back[6];
        ref_dec(want, vals[i], 6);
        CHECK_EQ_INT(cuzk__limbs_to_dec_var(got, sizeof(got), vals[i], 6), strlen(want));
        CHECK(strcmp(got, want) == 0);
        CHECK_EQ_INT(cuzk__dec_to_limbs_var(back, cuzk__fp_p, 6, "p", want, strlen(want), &err),
                     CUZK_OK);
        CHECK_MEM(back, vals[i], sizeof(back));
    }
    /* Too small a buffer: 0. */
    uint64_t big[1] = {UINT64_C(12345)};
    CHECK_EQ_INT(cuzk__limbs_to_dec_var(buf, 5, big, 1), 0);
    CHECK_EQ_INT(cuzk__limbs_to_dec_var(buf, 6, big, 1), 5);
}

static void test_decimal_random(void) {
    cuzk_error err;
    for (unsigned long it = 0; it < ITERS(400); it++) {
        uint64_t l[6], back[6];
        char want[140], got[CUZK_FP_DEC_BYTES];
        rand_below(l, cuzk__fp_p, 6);
        ref_dec(want, l, 6);
        cuzk_fp x, y;
        cuzk_fp_from_limbs(&x, l);
        CHECK_EQ_INT(cuzk_fp_to_dec_var(got, &x), strlen(want));
        CHECK(strcmp(got, want) == 0);
        CHECK_EQ_INT(cuzk_fp_from_dec_var(&y, want, strlen(want), &err), CUZK_OK);
        CHECK(cuzk_fp_eq(&x, &y));
        /* value + p (not canonical) when it still has 116 digits or fewer */
        uint64_t s[7], carry = 0;
        for (int i = 0; i < 6; i++) s[i] = cuzk__adc(l[i], cuzk__fp_p[i], &carry);
        s[6] = carry;
        char over[160];
        ref_dec(over, s, 7);
        CHECK_EQ_INT(cuzk_fp_from_dec_var(&y, over, strlen(over), &err), CUZK_ERR_NOT_CANONICAL);

        uint64_t f[4];
        char fw[100], fg[CUZK_FR_DEC_BYTES];
        rand_below(f, cuzk__fr_r, 4);
        ref_dec(fw, f, 4);
        cuzk_fr a, b;
        cuzk_fr_from_limbs(&a, f);
        CHECK_EQ_INT(cuzk_fr_to_dec_var(fg, &a), strlen(fw));
        CHECK(strcmp(fg, fw) == 0);
        CHECK_EQ_INT(cuzk_fr_from_dec_var(&b, fw, strlen(fw), &err), CUZK_OK);
        CHECK(cuzk_fr_eq(&a, &b));
        (void)back;
    }
}

/* ---- snarkjs files -------------------------------------------------------------- */

static void gen_points(cuzk_g1_aff *g1, cuzk_g1_aff *ng1, cuzk_g2_aff *g2) {
    cuzk_g1_generator(g1);
    cuzk_g1_aff_neg(ng1, g1);
    cuzk_g2_generator(g2);
}

static void test_proof_read_write(void) {
    cuzk_groth16_proof pf;
    cuzk_error err;
    cuzk_g1_aff g1, ng1;
    cuzk_g2_aff g2;
    gen_points(&g1, &ng1, &g2);
    memset(&pf, 0, sizeof(pf));
    CHECK_EQ_INT(cuzk_snarkjs_proof_parse(&pf, proof_text, strlen(proof_text), NULL, &err),
                 CUZK_OK);
    CHECK(cuzk_g1_aff_eq(&pf.a, &g1));
    CHECK(cuzk_g2_aff_eq(&pf.b, &g2));
    CHECK(cuzk_g1_aff_eq(&pf.c, &ng1));
    char *out = NULL;
    size_t len = 0;
    CHECK_EQ_INT(cuzk_snarkjs_proof_format(&out, &len, &pf), CUZK_OK);
    CHECK(out && len == strlen(proof_text) && strcmp(out, proof_text) == 0);
    free(out);

    /* Tolerated variations: curve absent (rapidsnark) or spelt differently,
     * other key order, extra keys, compact layout; the infinity form. */
    static const char *ok_variants[][2] = {
        {",\n \"curve\": \"bls12381\"", ""},
        {"\"bls12381\"", "\"BLS12-381\""},
        {"\"bls12381\"", "\"bls12_381\""},
        {"{\n", "{\"extra\": [1, {\"x\": null}], "},
    };
    for (size_t i = 0; i < sizeof(ok_variants) / sizeof(ok_variants[0]); i++) {
        char *t = subst(proof_text, ok_variants[i][0], ok_variants[i][1]);
        CHECK(t != NULL);
        if (!t) continue;
        cuzk_groth16_proof q;
        cuzk_status st = cuzk_snarkjs_proof_parse(&q, t, strlen(t), NULL, &err);
        if (st != CUZK_OK) fprintf(stderr, "ok variant %zu: %s\n", i, err.msg);
        CHECK_EQ_INT(st, CUZK_OK);
        CHECK(cuzk_g1_aff_eq(&q.a, &g1) && cuzk_g2_aff_eq(&q.b, &g2));
        free(t);
    }
    {
        char *t = subst(proof_text, "  \"" GX "\",\n  \"" GY "\",\n  \"1\"",
                        "\"0\", \"1\", \"0\"");
        cuzk_groth16_proof q;
        CHECK(t && cuzk_snarkjs_proof_parse(&q, t, strlen(t), NULL, &err) == CUZK_OK);
        CHECK(t && cuzk_g1_aff_is_inf(&q.a));
        /* ...and infinity is written back in the same form. */
        char *o = NULL;
        size_t ol;
        CHECK(t && cuzk_snarkjs_proof_format(&o, &ol, &q) == CUZK_OK);
        CHECK(o && strstr(o, "\"pi_a\": [\n  \"0\",\n  \"1\",\n  \"0\"\n ]") != NULL);
        free(o);
        free(t);
    }
    {
        cuzk_groth16_proof q = pf;
        cuzk_g2_aff_set_inf(&q.b);
        char *o = NULL, *o2 = NULL;
        size_t ol, ol2;
        CHECK_EQ_INT(cuzk_snarkjs_proof_format(&o, &ol, &q), CUZK_OK);
        CHECK(o && strstr(o, "\"pi_b\": [\n  [\n   \"0\",\n   \"0\"\n  ],\n  [\n   \"1\",\n   "
                             "\"0\"\n  ],\n  [\n   \"0\",\n   \"0\"\n  ]\n ]") != NULL);
        cuzk_groth16_proof q2;
        CHECK(o && cuzk_snarkjs_proof_parse(&q2, o, ol, NULL, &err) == CUZK_OK);
        CHECK(cuzk_g2_aff_is_inf(&q2.b));
        CHECK(cuzk_snarkjs_proof_format(&o2, &ol2, &q2) == CUZK_OK);
        CHECK(o && o2 && strcmp(o, o2) == 0);
        free(o);
        free(o2);
    }
}

typedef struct {
    const char *from, *to;
    cuzk_status st;
    const char *needle1, *needle2;
} bad_variant;

static void check_bad(const char *what, const char *base, const bad_variant *v, size_t n,
                      int is_vk) {
    for (size_t i = 0; i < n; i++) {
        char *t = subst(base, v[i].from, v[i].to);
        if (t == NULL) {
            fprintf(stderr, "%s variant %zu: pattern not found\n", what, i);
            CHECK(0);
            continue;
        }
        cuzk_error err;
        cuzk__error_clear(&err);
        cuzk_status st;
        if (is_vk) {
            cuzk_groth16_vk vk;
            st = cuzk_snarkjs_vk_parse(&vk, t, strlen(t), "vk.json", &err);
            CHECK(vk.ic == NULL && vk.n_public == 0);
        } else {
            cuzk_groth16_proof pf;
            st = cuzk_snarkjs_proof_parse(&pf, t, strlen(t), "proof.json", &err);
        }
        int ok = st == v[i].st && strstr(err.msg, v[i].needle1) != NULL &&
                 (v[i].needle2 == NULL || strstr(err.msg, v[i].needle2) != NULL) &&
                 strncmp(err.msg, is_vk ? "vk.json:" : "proof.json:", is_vk ? 8 : 11) == 0;
        if (!ok)
            fprintf(stderr, "%s variant %zu: status %s, message \"%s\"\n", what, i,
                    cuzk_status_name(st), err.msg);
        CHECK(ok);
        free(t);
    }
}

/* A point on E(Fp) outside G1 (nearly every point is: the cofactor is large). */
static void g1_off_subgroup(cuzk_g1_aff *out) {
    cuzk_fp x, rhs, y, four;
    cuzk_fp_from_u64(&four, 4);
    for (;;) {
        uint64_t l[6];
        rand_below(l, cuzk__fp_p, 6);
        cuzk_fp_from_limbs(&x, l);
        cuzk_fp_sqr(&rhs, &x);
        cuzk_fp_mul(&rhs, &rhs, &x);
        cuzk_fp_add(&rhs, &rhs, &four);
        if (!cuzk_fp_sqrt(&y, &rhs)) continue;
        out->x = x;
        out->y = y;
        if (cuzk_g1_aff_is_on_curve(out) && !cuzk_g1_aff_in_subgroup_var(out)) return;
    }
}

static void g2_off_subgroup(cuzk_g2_aff *out) {
    cuzk_fp2 x, rhs, y, b;
    cuzk_fp_from_u64(&b.c0, 4);
    b.c1 = b.c0; /* 4(u + 1) */
    for (;;) {
        uint64_t l[6];
        rand_below(l, cuzk__fp_p, 6);
        cuzk_fp_from_limbs(&x.c0, l);
        rand_below(l, cuzk__fp_p, 6);
        cuzk_fp_from_limbs(&x.c1, l);
        cuzk_fp2_sqr(&rhs, &x);
        cuzk_fp2_mul(&rhs, &rhs, &x);
        cuzk_fp2_add(&rhs, &rhs, &b);
        if (!cuzk_fp2_sqrt_var(&y, &rhs)) continue;
        out->x = x;
        out->y = y;
        if (cuzk_g2_aff_is_on_curve(out) && !cuzk_g2_aff_in_subgroup_var(out)) return;
    }
}

/* The G1 generator's text in proof_text's pi_a, replaced by another point. */
static char *g1_text(const cuzk_g1_aff *p, const char *ind) {
    char x[CUZK_FP_DEC_BYTES], y[CUZK_FP_DEC_BYTES];
    cuzk_fp_to_dec_var(x, &p->x);
    cuzk_fp_to_dec_var(y, &p->y);
    char *s = malloc(400);
    if (s) snprintf(s, 400, "%s\"%s\",\n%s\"%s\",\n%s\"1\"", ind, x, ind, y, ind);
    return s;
}

static char *g2_text(const cuzk_g2_aff *p, const char *ind) {
    char d[4][CUZK_FP_DEC_BYTES];
    cuzk_fp_to_dec_var(d[0], &p->x.c0);
    cuzk_fp_to_dec_var(d[1], &p->x.c1);
    cuzk_fp_to_dec_var(d[2], &p->y.c0);
    cuzk_fp_to_dec_var(d[3], &p->y.c1);
    char *s = malloc(1000);
    if (s)
        snprintf(s, 1000, "%s[\"%s\", \"%s\"], [\"%s\", \"%s\"], [\"1\", \"0\"]", ind, d[0], d[1],
                 d[2], d[3]);
    return s;
}

static void test_proof_malformed(void) {
    static const bad_variant v[] = {
        {"\"groth16\"", "\"plonk\"", CUZK_ERR_UNSUPPORTED, "protocol", "plonk"},
        {" \"protocol\": \"groth16\",\n", "", CUZK_ERR_BAD_ENCODING, "protocol: missing", NULL},
        {"\"bls12381\"", "\"bn128\"", CUZK_ERR_UNSUPPORTED, "curve", "BN254"},
        {"\"bls12381\"", "\"bn254\"", CUZK_ERR_UNSUPPORTED, "curve", "not supported"},
        {"\"bls12381\"", "\"bls12377\"", CUZK_ERR_UNSUPPORTED, "curve", "unknown curve"},
        {"\"bls12381\"", "1", CUZK_ERR_BAD_ENCODING, "curve", "expected a string"},
        {"\"" Y0 "\"", "\"" P_DEC "\"", CUZK_ERR_NOT_CANONICAL, "pi_b[1][0]", "not canonical"},
        {"\"" X1 "\"", "\"0" X1 "\"", CUZK_ERR_BAD_ENCODING, "pi_b[0][1]", "leading zero"},
        {"\"" X1 "\"", "\"-1\"", CUZK_ERR_BAD_ENCODING, "pi_b[0][1]", "not a decimal"},
        {"\"" X1 "\"", "\" 1\"", CUZK_ERR_BAD_ENCODING, "pi_b[0][1]", "not a decimal"},
        {"\"" GY "\"", "\"" NGY "1\"", CUZK_ERR_NOT_CANONICAL, "pi_a[1]", "not canonical"},
        {"\"" GY "\"", "\"" GX "\"", CUZK_ERR_NOT_ON_CURVE, "pi_a: not on the curve", NULL},
        {"\"" GY "\"", "12", CUZK_ERR_BAD_ENCODING, "pi_a[1]", "expected a decimal string"},
        {"\"1\"\n ],\n \"pi_b\"", "\"2\"\n ],\n \"pi_b\"", CUZK_ERR_BAD_ENCODING, "pi_a[2]",
         "z must be"},
        {"\"1\",\n   \"0\"", "\"1\",\n   \"1\"", CUZK_ERR_BAD_ENCODING, "pi_b[2]", "z must be"},
        {",\n  \"1\"\n ],\n \"pi_b\"", "\n ],\n \"pi_b\"", CUZK_ERR_BAD_ENCODING, "pi_a",
         "got 2 elements"},
        {"  [\n   \"1\",\n   \"0\"\n  ]\n", "  [\n   \"1\",\n   \"0\", \"0\"\n  ]\n",
         CUZK_ERR_BAD_ENCODING, "pi_b[2]", "[c0, c1]"},
        {" \"pi_c\": [", " \"pi_x\": [", CUZK_ERR_BAD_ENCODING, "pi_c: missing", NULL},
        {" \"pi_c\": [", " \"pi_a\": [", CUZK_ERR_BAD_ENCODING, "pi_a: duplicate key", NULL},
        {" \"pi_c\": [", " \"pi_c\": 5, \"pi_c\": [", CUZK_ERR_BAD_ENCODING, "duplicate", NULL},
        {"\"pi_b\": [", "\"pi_b\": {", CUZK_ERR_BAD_ENCODING, "proof.json: line", NULL},
        {"\"0\"\n  ]\n ],\n \"pi_c\"", "\"0\"\n  ]\n ],,\n \"pi_c\"", CUZK_ERR_BAD_ENCODING,
         "proof.json: line 20, column 4", NULL},
        {"\"pi_b\": [", "\"pi_b\": \"x\", \"y\": [", CUZK_ERR_BAD_ENCODING, "pi_b",
         "expected a G2 point"},
        {"{\n", "[{\n", CUZK_ERR_BAD_ENCODING, "proof.json: line", NULL},
        /* infinity must use the exact form */
        {"  \"" GX "\",\n  \"" GY "\",\n  \"1\"", "\"0\", \"0\", \"0\"", CUZK_ERR_BAD_ENCODING,
         "pi_a", "must come as"},
        {"  \"" GX "\",\n  \"" GY "\",\n  \"1\"", "\"0\", \"0\", \"1\"", CUZK_ERR_NOT_ON_CURVE,
         "pi_a", NULL},
    };
    check_bad("proof", proof_text, v, sizeof(v) / sizeof(v[0]), 0);
    /* The top level must be an object. */
    cuzk_groth16_proof pf;
    cuzk_error err;
    CHECK_EQ_INT(cuzk_snarkjs_proof_parse(&pf, "[]", 2, "p.json", &err), CUZK_ERR_BAD_ENCODING);
    CHECK(strstr(err.msg, "p.json:1:1: expected an object") != NULL);

    /* On the curve, outside the subgroup. */
    cuzk_g1_aff bad1;
    cuzk_g2_aff bad2;
    g1_off_subgroup(&bad1);
    g2_off_subgroup(&bad2);
    char *p1 = g1_text(&bad1, "  "), *p2 = g2_text(&bad2, "");
    if (p1 && p2) {
        bad_variant w[] = {
            {"  \"" GX "\",\n  \"" NGY "\",\n  \"1\"", p1, CUZK_ERR_NOT_IN_SUBGROUP,
             "pi_c: not in the G1 subgroup", NULL},
            {"  [\n   \"" X0 "\",\n   \"" X1 "\"\n  ],\n  [\n   \"" Y0 "\",\n   \"" Y1
             "\"\n  ],\n  [\n   \"1\",\n   \"0\"\n  ]\n",
             p2, CUZK_ERR_NOT_IN_SUBGROUP, "pi_b: not in the G2 subgroup", NULL},
        };
        check_bad("proof subgroup", proof_text, w, 2, 0);
    }
    free(p1);
    free(p2);
}

/* public.json has proof.json's cap, 1 MiB: a document of exactly that
 * size is read (in memory and from a file), one byte more is refused. */
static void test_public_cap(void) {
    const size_t cap = (size_t)1 << 20;
    char *text = malloc(cap + 2);
    CHECK(text != NULL);
    if (text == NULL) return;
    cuzk_fr *pub = NULL;
    size_t n = 99;
    cuzk_error err;
    for (size_t extra = 0; extra <= 1; extra++) {
        size_t len = cap + extra;
        text[0] = '[';
        memset(text + 1, ' ', len - 2);
        text[len - 1] = ']';
        cuzk_status want = extra ? CUZK_ERR_BAD_LENGTH : CUZK_OK;
        CHECK_EQ_INT(cuzk_snarkjs_public_parse(&pub, &n, text, len, NULL, &err), want);
        CHECK(pub == NULL && n == 0);
        if (extra) CHECK(strstr(err.msg, "limit of 1048576") != NULL);
        char path[] = "/tmp/cuzk_test_public_XXXXXX";
        int fd = mkstemp(path);
        CHECK(fd >= 0);
        if (fd < 0) break;
        CHECK(write(fd, text, len) == (ssize_t)len);
        close(fd);
        CHECK_EQ_INT(cuzk_snarkjs_public_read(&pub, &n, path, &err), want);
        if (extra) CHECK(strstr(err.msg, "larger than the limit of 1048576 bytes") != NULL);
        unlink(path);
        free(pub);
        pub = NULL;
    }
    free(text);
}

static void test_public(void) {
    cuzk_fr *pub = NULL;
    size_t n = 99;
    cuzk_error err;
    const char *text = "[\n \"0\",\n \"1\",\n \"" R_MINUS_1_DEC "\"\n]";
    CHECK_EQ_INT(cuzk_snarkjs_public_parse(&pub, &n, text, strlen(text), NULL, &err), CUZK_OK);
    CHECK_EQ_INT(n, 3);
    if (pub && n == 3) {
        cuzk_fr m1;
        cuzk_fr_set_one(&m1);
        cuzk_fr_neg(&m1, &m1);
        CHECK(cuzk_fr_is_zero(&pub[0]) && cuzk_fr_is_one(&pub[1]) && cuzk_fr_eq(&pub[2], &m1));
        char *out;
        size_t len;
        CHECK_EQ_INT(cuzk_snarkjs_public_format(&out, &len, pub, n), CUZK_OK);
        CHECK(out && strcmp(out, text) == 0);
        free(out);
    }
    free(pub);
    /* Empty: bfj writes "[\n]"; both empty forms read back. */
    char *out;
    size_t len;
    CHECK_EQ_INT(cuzk_snarkjs_public_format(&out, &len, NULL, 0), CUZK_OK);
    CHECK(out && strcmp(out, "[\n]") == 0);
    free(out);
    CHECK_EQ_INT(cuzk_snarkjs_public_parse(&pub, &n, "[]", 2, NULL, &err), CUZK_OK);
    CHECK(n == 0 && pub == NULL);

    static const struct {
        const char *text;
        cuzk_status st;
        const char *needle;
    } bad[] = {
        {"[\"1\", \"" R_DEC "\"]", CUZK_ERR_NOT_CANONICAL, "public.json:1:7: [1]: not canonical"},
        {"[\"1\", 2]", CUZK_ERR_BAD_ENCODING, "[1]: expected a decimal string, got a number"},
        {"[\"01\"]", CUZK_ERR_BAD_ENCODING, "[0]: leading zero"},
        {"{\"a\": \"1\"}", CUZK_ERR_BAD_ENCODING, "expected an array"},
        {"[\"1\",]", CUZK_ERR_BAD_ENCODING, "public.json: line 1, column 5: trailing comma"},
        {"[[\"1\"]]", CUZK_ERR_BAD_ENCODING, "[0]: expected a decimal string, got an array"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        pub = (cuzk_fr *)&n; /* must be reset */
        CHECK_EQ_INT(cuzk_snarkjs_public_parse(&pub, &n, bad[i].text, strlen(bad[i].text), NULL,
                                               &err),
                     bad[i].st);
        CHECK(pub == NULL && n == 0);
        if (strstr(err.msg, bad[i].needle) == NULL) {
            fprintf(stderr, "public case %zu: \"%s\"\n", i, err.msg);
            CHECK(0);
        }
    }
    test_public_cap();
}

static void test_vk_read_write(void) {
    cuzk_groth16_vk vk;
    cuzk_error err;
    cuzk_g1_aff g1, ng1;
    cuzk_g2_aff g2;
    gen_points(&g1, &ng1, &g2);
    CHECK_EQ_INT(cuzk_snarkjs_vk_parse(&vk, vk_text, strlen(vk_text), NULL, &err), CUZK_OK);
    CHECK_EQ_INT(vk.n_public, 1);
    CHECK(vk.ic != NULL);
    if (vk.ic == NULL) return;
    CHECK(cuzk_g1_aff_eq(&vk.alpha1, &g1));
    CHECK(cuzk_g2_aff_eq(&vk.beta2, &g2) && cuzk_g2_aff_eq(&vk.gamma2, &g2) &&
          cuzk_g2_aff_eq(&vk.delta2, &g2));
    CHECK(cuzk_g1_aff_eq(&vk.ic[0], &g1) && cuzk_g1_aff_eq(&vk.ic[1], &ng1));
    char *out;
    size_t len;
    CHECK_EQ_INT(cuzk_snarkjs_vk_format(&out, &len, &vk, NULL), CUZK_OK);
    CHECK(out && strcmp(out, vk_text) == 0);
    if (out && strcmp(out, vk_text) != 0) fprintf(stderr, "vk got:\n%s\n", out);
    free(out);

    /* vk_alphabeta_12: written in the [2][3][2] layout, ignored when read. */
    cuzk_fp12 ab;
    cuzk_fp12_set_one(&ab);
    CHECK_EQ_INT(cuzk_snarkjs_vk_format(&out, &len, &vk, &ab), CUZK_OK);
    CHECK(out && strstr(out, " \"vk_alphabeta_12\": [\n  [\n   [\n    \"1\",\n    \"0\"\n   ],\n"
                             "   [\n    \"0\",\n    \"0\"\n   ],\n") != NULL);
    CHECK(out && strstr(out, "\"vk_delta_2\"") < strstr(out, "\"vk_alphabeta_12\"") &&
          strstr(out, "\"vk_alphabeta_12\"") < strstr(out, "\"IC\""));
    cuzk_groth16_vk vk2;
    CHECK(out && cuzk_snarkjs_vk_parse(&vk2, out, len, NULL, &err) == CUZK_OK);
    CHECK(vk2.n_public == 1 && vk2.ic && cuzk_g1_aff_eq(&vk2.ic[1], &ng1));
    cuzk_groth16_vk_free(&vk2);
    free(out);
    cuzk_groth16_vk_free(&vk);

    static const char *ok_variants[][2] = {
        {" \"IC\"", " \"vk_alphabeta_12\": [[[\"1\", \"2\"]], \"anything\"],\n \"IC\""},
        {"\"bls12381\"", "\"bls12-381\""},
        {"\"bls12381\"", "\"BLS12381\""},
        {"{\n", "{\"extra\": {}, "},
    };
    for (size_t i = 0; i < sizeof(ok_variants) / sizeof(ok_variants[0]); i++) {
        char *t = subst(vk_text, ok_variants[i][0], ok_variants[i][1]);
        CHECK(t != NULL);
        if (!t) continue;
        cuzk_status st = cuzk_snarkjs_vk_parse(&vk, t, strlen(t), NULL, &err);
        if (st != CUZK_OK) fprintf(stderr, "vk ok variant %zu: %s\n", i, err.msg);
        CHECK_EQ_INT(st, CUZK_OK);
        cuzk_groth16_vk_free(&vk);
        free(t);
    }
}

static void test_vk_malformed(void) {
    static const bad_variant v[] = {
        {"\"bls12381\"", "\"bn128\"", CUZK_ERR_UNSUPPORTED, "vk.json:3:11: curve", "BN254"},
        {"\"bls12381\"", "\"ALT_BN128\"", CUZK_ERR_UNSUPPORTED, "curve", "BN254"},
        {"\"bls12381\"", "\"\"", CUZK_ERR_UNSUPPORTED, "curve", "unknown"},
        {" \"curve\": \"bls12381\",\n", "", CUZK_ERR_BAD_ENCODING, "curve: missing", NULL},
        {"\"groth16\"", "\"plonk\"", CUZK_ERR_UNSUPPORTED, "protocol", NULL},
        {"\"groth16\"", "\"Groth16\"", CUZK_ERR_UNSUPPORTED, "protocol", NULL},
        {"\"nPublic\": 1", "\"nPublic\": 2", CUZK_ERR_BAD_ENCODING, "IC", "nPublic + 1"},
        {"\"nPublic\": 1", "\"nPublic\": 0", CUZK_ERR_BAD_ENCODING, "IC", "has 2 points"},
        {"\"nPublic\": 1", "\"nPublic\": \"1\"", CUZK_ERR_BAD_ENCODING, "nPublic",
         "non-negative integer"},
        {"\"nPublic\": 1", "\"nPublic\": -1", CUZK_ERR_BAD_ENCODING, "nPublic", "got -1"},
        {"\"nPublic\": 1", "\"nPublic\": 1.0", CUZK_ERR_BAD_ENCODING, "nPublic", NULL},
        {"\"nPublic\": 1", "\"nPublic\": 18446744073709551615", CUZK_ERR_BAD_ENCODING, "IC",
         NULL},
        {"\"nPublic\": 1", "\"nPublic\": 99999999999999999999999", CUZK_ERR_BAD_ENCODING,
         "nPublic", NULL},
        {" \"nPublic\": 1,\n", "", CUZK_ERR_BAD_ENCODING, "nPublic: missing", NULL},
        {"\"IC\": [", "\"IC\": {\"a\": 1}, \"x\": [", CUZK_ERR_BAD_ENCODING, "IC",
         "expected an array"},
        {"\"vk_gamma_2\"", "\"vk_gamma_3\"", CUZK_ERR_BAD_ENCODING, "vk_gamma_2: missing", NULL},
        {" \"IC\"", " \"vk_delta_2\": 1,\n \"IC\"", CUZK_ERR_BAD_ENCODING, "vk_delta_2: duplicate",
         NULL},
        {"\"" NGY "\"", "\"" GY "0\"", CUZK_ERR_NOT_CANONICAL, "IC[1][1]", "not canonical"},
        {"\"" NGY "\"", "\"" GX "\"", CUZK_ERR_NOT_ON_CURVE, "IC[1]: not on the curve", NULL},
        {"  \"" GX "\",\n  \"" GY "\",\n  \"1\"", "\"0\", \"1\", \"0\"",
         CUZK_ERR_POINT_AT_INFINITY, "vk_alpha_1", "infinity"},
        {"   \"" GX "\",\n   \"" NGY "\",\n   \"1\"", "\"0\", \"1\", \"0\"",
         CUZK_ERR_POINT_AT_INFINITY, "IC[1]", "infinity"},
        {"\"vk_delta_2\": [\n  [\n   \"" X0 "\"", "\"vk_delta_2\": [\n  [\n   \"" Y0 "\"",
         CUZK_ERR_NOT_ON_CURVE, "vk_delta_2: not on the curve", NULL},
        {"\"vk_beta_2\": [\n  [\n   \"" X0 "\",\n   \"" X1 "\"\n  ],\n  [\n   \"" Y0
         "\",\n   \"" Y1 "\"\n  ],\n  [\n   \"1\",\n   \"0\"\n  ]",
         "\"vk_beta_2\": [[\"0\", \"0\"], [\"1\", \"0\"], [\"0\", \"0\"]",
         CUZK_ERR_POINT_AT_INFINITY, "vk_beta_2", NULL},
        {"\"vk_gamma_2\": [\n  [\n   \"" X0 "\"", "\"vk_gamma_2\": [\n  [\n   7",
         CUZK_ERR_BAD_ENCODING, "vk.json:26:4: vk_gamma_2[0][0]", "decimal string"},
        {"}", "}}", CUZK_ERR_BAD_ENCODING, "vk.json: line", "after the JSON value"},
    };
    check_bad("vk", vk_text, v, sizeof(v) / sizeof(v[0]), 1);

    cuzk_g2_aff bad2;
    g2_off_subgroup(&bad2);
    char *p2 = g2_text(&bad2, "");
    if (p2) {
        bad_variant w[] = {
            {"\"vk_delta_2\": [\n  [\n   \"" X0 "\",\n   \"" X1 "\"\n  ],\n  [\n   \"" Y0
             "\",\n   \"" Y1 "\"\n  ],\n  [\n   \"1\",\n   \"0\"\n  ]\n",
             NULL, CUZK_ERR_NOT_IN_SUBGROUP, "vk_delta_2: not in the G2 subgroup", NULL},
        };
        char to[1100];
        snprintf(to, sizeof(to), "\"vk_delta_2\": [%s", p2);
        w[0].to = to;
        check_bad("vk subgroup", vk_text, w, 1, 1);
    }
    free(p2);
}

/* write -> read for random points and sizes, through real files. */
static void test_random_files(void) {
    char dir[] = "/tmp/cuzk_test_json_XXXXXX";
    if (mkdtemp(dir) == NULL) {
        CHECK(0);
        return;
    }
    char ppath[64], vpath[64], upath[64];
    snprintf(ppath, sizeof(ppath), "%s/proof.json", dir);
    snprintf(vpath, sizeof(vpath), "%s/vk.json", dir);
    snprintf(upath, sizeof(upath), "%s/public.json", dir);
    cuzk_error err;
    for (unsigned long it = 0; it < ITERS(4); it++) {
        cuzk_groth16_proof pf, pq;
        rand_g1(&pf.a);
        rand_g2(&pf.b);
        rand_g1(&pf.c);
        CHECK_EQ_INT(cuzk_snarkjs_proof_write(ppath, &pf, &err), CUZK_OK);
        CHECK_EQ_INT(cuzk_snarkjs_proof_read(&pq, ppath, &err), CUZK_OK);
        CHECK(cuzk_g1_aff_eq(&pf.a, &pq.a) && cuzk_g2_aff_eq(&pf.b, &pq.b) &&
              cuzk_g1_aff_eq(&pf.c, &pq.c));

        cuzk_groth16_vk vk, vr;
        vk.n_public = (size_t)(cuzk_test_rand64() % 4);
        vk.ic = malloc((vk.n_public + 1) * sizeof(cuzk_g1_aff));
        if (vk.ic == NULL) break;
        rand_g1(&vk.alpha1);
        rand_g2(&vk.beta2);
        rand_g2(&vk.gamma2);
        rand_g2(&vk.delta2);
        for (size_t i = 0; i <= vk.n_public; i++) rand_g1(&vk.ic[i]);
        CHECK_EQ_INT(cuzk_snarkjs_vk_write(vpath, &vk, NULL, &err), CUZK_OK);
        CHECK_EQ_INT(cuzk_snarkjs_vk_read(&vr, vpath, &err), CUZK_OK);
        CHECK(vr.n_public == vk.n_public && vr.ic != NULL);
        if (vr.ic) {
            CHECK(cuzk_g1_aff_eq(&vr.alpha1, &vk.alpha1) && cuzk_g2_aff_eq(&vr.beta2, &vk.beta2) &&
                  cuzk_g2_aff_eq(&vr.gamma2, &vk.gamma2) &&
                  cuzk_g2_aff_eq(&vr.delta2, &vk.delta2));
            for (size_t i = 0; i <= vk.n_public; i++) CHECK(cuzk_g1_aff_eq(&vr.ic[i], &vk.ic[i]));
        }
        cuzk_groth16_vk_free(&vr);
        cuzk_groth16_vk_free(&vk);

        size_t n = (size_t)(cuzk_test_rand64() % 20), m = 0;
        cuzk_fr pub[20], *back = NULL;
        for (size_t i = 0; i < n; i++) {
            static const uint64_t r[4] = CUZK__FR_R;
            uint64_t l[4];
            rand_below(l, r, 4); /* zero included: public values may be 0 */
            cuzk_fr_from_limbs(&pub[i], l);
        }
        CHECK_EQ_INT(cuzk_snarkjs_public_write(upath, pub, n, &err), CUZK_OK);
        CHECK_EQ_INT(cuzk_snarkjs_public_read(&back, &m, upath, &err), CUZK_OK);
        CHECK_EQ_INT(m, n);
        for (size_t i = 0; i < n && i < m; i++) CHECK(cuzk_fr_eq(&back[i], &pub[i]));
        free(back);
    }
    /* I/O errors name the file. */
    cuzk_groth16_proof pf;
    char missing[80];
    snprintf(missing, sizeof(missing), "%s/missing.json", dir);
    CHECK_EQ_INT(cuzk_snarkjs_proof_read(&pf, missing, &err), CUZK_ERR_IO);
    CHECK(strstr(err.msg, "missing.json: cannot open") != NULL);
    /* Syntax errors from files carry the path. */
    FILE *f = fopen(ppath, "wb");
    if (f) {
        fputs("{\"pi_a\": [1,]}", f);
        fclose(f);
        CHECK_EQ_INT(cuzk_snarkjs_proof_read(&pf, ppath, &err), CUZK_ERR_BAD_ENCODING);
        CHECK(strstr(err.msg, "proof.json: line 1, column 12: trailing comma") != NULL);
    }
    remove(ppath);
    remove(vpath);
    remove(upath);
    rmdir(dir);
}

int main(int argc, char **argv) {
    cuzk_test_init(argc, argv);
    RUN(test_table);
    RUN(test_error_messages);
    RUN(test_tree_access);
    RUN(test_limits);
    RUN(test_writer_layout);
    RUN(test_writer_not_utf8);
    RUN(test_random_round_trip);
    RUN(test_decimal_fixed);
    RUN(test_decimal_random);
    RUN(test_proof_read_write);
    RUN(test_proof_malformed);
    RUN(test_public);
    RUN(test_vk_read_write);
    RUN(test_vk_malformed);
    RUN(test_random_files);
    return cuzk_test_finish();
}
