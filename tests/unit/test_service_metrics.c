/*
 * test_service_metrics.c — the engine's counts in the Prometheus text format
 * (src/service/metrics.c), checked line by line against the format's rules
 * after jobs of the snarkjs sample on the CPU: HELP and TYPE before every
 * family's samples, well-formed names, labels and values, cumulative
 * histogram buckets ending in le="+Inf" equal to _count, and the figures
 * equal to the engine's own counts.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk.h"
#include "harness.h"
#include "service/metrics.h"

static char zkey[1100], wtns[1100];

static int name_char(int c, int first) {
    return isalpha(c) || c == '_' || c == ':' || (!first && isdigit(c));
}

/* One sample line: name, its labels (copied into labels, "" if none) and
 * value; 0 when the line breaks the format. */
static int parse_sample(const char *line, char *name, size_t ncap, char *labels, size_t lcap,
                        double *value) {
    size_t i = 0;
    if (!name_char((unsigned char)line[0], 1)) return 0;
    while (name_char((unsigned char)line[i], i == 0)) i++;
    if (i >= ncap) return 0;
    memcpy(name, line, i);
    name[i] = '\0';
    labels[0] = '\0';
    if (line[i] == '{') {
        const size_t start = i;
        i++;
        while (line[i] != '}') { /* key="value" pairs, comma separated */
            if (!name_char((unsigned char)line[i], 1)) return 0;
            while (name_char((unsigned char)line[i], 0)) i++;
            if (line[i++] != '=' || line[i++] != '"') return 0;
            while (line[i] != '"') {
                if (line[i] == '\0' || line[i] == '\n') return 0;
                if (line[i] == '\\') i++;
                i++;
            }
            i++;
            if (line[i] == ',') i++;
            else if (line[i] != '}') return 0;
        }
        i++;
        if (i - start >= lcap) return 0;
        memcpy(labels, line + start, i - start);
        labels[i - start] = '\0';
    }
    if (line[i++] != ' ') return 0;
    char *end;
    *value = strtod(line + i, &end);
    return end != line + i && *end == '\0';
}

typedef struct {
    char types[64][64]; /* the families declared so far */
    size_t n_types;
    double proved, stage_msm_h_count;
    char last_hist[128];
    double last_cum;
    int hist_ok;
} seen;

static int declared(const seen *s, const char *family) {
    for (size_t i = 0; i < s->n_types; i++)
        if (strcmp(s->types[i], family) == 0) return 1;
    return 0;
}

/* Checks the whole text; returns the number of sample lines. */
static int check_text(char *text, seen *s) {
    int samples = 0;
    s->hist_ok = 1;
    for (char *line = strtok(text, "\n"); line != NULL; line = strtok(NULL, "\n")) {
        if (strncmp(line, "# HELP ", 7) == 0) continue;
        if (strncmp(line, "# TYPE ", 7) == 0) {
            char fam[64], type[32];
            CHECK(sscanf(line + 7, "%63s %31s", fam, type) == 2);
            CHECK(strcmp(type, "counter") == 0 || strcmp(type, "gauge") == 0 ||
                  strcmp(type, "histogram") == 0);
            CHECK(!declared(s, fam) && s->n_types < 64);
            if (s->n_types < 64) strcpy(s->types[s->n_types++], fam);
            continue;
        }
        CHECK(line[0] != '#');
        char name[128], labels[256];
        double v;
        const int ok = parse_sample(line, name, sizeof name, labels, sizeof labels, &v);
        CHECK(ok);
        if (!ok) {
            fprintf(stderr, "  bad line: %s\n", line);
            continue;
        }
        samples++;
        char fam[128];
        strcpy(fam, name);
        static const char *suffixes[] = {"_bucket", "_sum", "_count"};
        for (int k = 0; k < 3; k++) {
            const size_t n = strlen(fam), m = strlen(suffixes[k]);
            if (n > m && strcmp(fam + n - m, suffixes[k]) == 0 && !declared(s, fam)) {
                fam[n - m] = '\0';
                break;
            }
        }
        CHECK(declared(s, fam));
        CHECK(v >= 0 && !isnan(v));
        if (strcmp(name, "cuzk_partitions_proved_total") == 0) s->proved = v;
        if (strcmp(name, "cuzk_stage_seconds_bucket") == 0) {
            /* cumulative within a stage: labels {stage="x",le="y"} */
            char stage[64];
            CHECK(sscanf(labels, "{stage=\"%63[^\"]\"", stage) == 1);
            if (strcmp(stage, s->last_hist) != 0) {
                strcpy(s->last_hist, stage);
                s->last_cum = 0;
            }
            if (v < s->last_cum) s->hist_ok = 0;
            s->last_cum = v;
        }
        if (strcmp(name, "cuzk_stage_seconds_count") == 0) {
            if (v != s->last_cum) s->hist_ok = 0; /* le="+Inf" came just before */
            if (strstr(labels, "\"msm_h\"") != NULL) s->stage_msm_h_count = v;
        }
    }
    return samples;
}

static void test_render(void) {
    cuzk_options o;
    cuzk_options_init(&o);
    o.backend = CUZK_BACKEND_CPU;
    o.threads = 1;
    cuzk_context *ctx = NULL;
    cuzk_key *key = NULL;
    cuzk_engine *e = NULL;
    cuzk_error err;
    CHECK(cuzk_context_create(&ctx, &o, &err) == CUZK_OK);
    CHECK(ctx != NULL && cuzk_key_open_zkey(ctx, &key, zkey, &err) == CUZK_OK);
    CHECK(key != NULL && cuzk_engine_create(&e, ctx, NULL, &err) == CUZK_OK);
    if (e == NULL) {
        cuzk_key_release(key);
        cuzk_context_destroy(ctx);
        return;
    }
    /* before any job: every family present, zero counts */
    char *text = NULL;
    size_t len = 0;
    CHECK(cuzk__metrics_render(e, 60000, &text, &len, &err) == CUZK_OK);
    seen s0;
    memset(&s0, 0, sizeof(s0));
    CHECK(text != NULL && strlen(text) == len && check_text(text, &s0) > 50);
    CHECK(s0.proved == 0 && s0.hist_ok);
    free(text);

    const cuzk_witness_input in[3] = {{.path = wtns}, {.path = wtns}, {.path = wtns}};
    uint64_t id;
    CHECK(cuzk_engine_submit(e, &id, key, in, 3, CUZK_PRIORITY_NORMAL, NULL, -1, &err) ==
          CUZK_OK);
    CHECK(cuzk_engine_await(e, id, -1, NULL, NULL, NULL, &err) == CUZK_OK);
    CHECK(cuzk__metrics_render(e, 60000, &text, &len, &err) == CUZK_OK);
    seen s;
    memset(&s, 0, sizeof(s));
    CHECK(text != NULL && check_text(text, &s) > 50);
    CHECK(s.proved == 3 && s.stage_msm_h_count == 3 && s.hist_ok);
    free(text);
    CHECK(cuzk__metrics_render(e, 0, &text, &len, &err) == CUZK_ERR_INVALID_ARG);
    cuzk_engine_destroy(e);
    cuzk_key_release(key);
    cuzk_context_destroy(ctx);
}

int main(int argc, char **argv) {
    cuzk_test_init(argc, argv);
    const char *src = getenv("CUZK_SOURCE_DIR");
    snprintf(zkey, sizeof zkey, "%s/examples/sample/circuit.zkey", src ? src : ".");
    snprintf(wtns, sizeof wtns, "%s/examples/sample/witness.wtns", src ? src : ".");
    RUN(test_render);
    return cuzk_test_finish();
}
