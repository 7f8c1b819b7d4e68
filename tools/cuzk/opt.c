/* opt.c — option parsing shared by the commands and the benchmarks (opt.h). */
#include "opt.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *cuzk__opt_value(const char *cmd, int argc, char **argv, int *i) {
    if (*i + 1 >= argc) {
        fprintf(stderr, "%s: %s: needs a value\n", cmd, argv[*i]);
        return NULL;
    }
    *i += 1;
    return argv[*i];
}

/* An unsigned integer, all of s, decimal or hex after 0x (a leading 0 is
 * no octal: 010 is ten), no sign; 0 when it is none or overflows. */
static int parse_u64(const char *s, uint64_t *v) {
    if (s == NULL || *s == '\0' || *s == '-' || *s == '+' || *s == ' ') return 0;
    const int hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
    if (hex && (s[2] == '\0' || s[2] == '-' || s[2] == '+' || s[2] == ' ')) return 0;
    char *end;
    errno = 0;
    unsigned long long x = strtoull(hex ? s + 2 : s, &end, hex ? 16 : 10);
    if (*end != '\0' || errno != 0) return 0;
    *v = (uint64_t)x;
    return 1;
}

int cuzk__opt_u64(const char *cmd, const char *opt, const char *val, uint64_t min, uint64_t max,
                  uint64_t *v) {
    uint64_t x;
    if (!parse_u64(val, &x) || x < min || x > max) {
        fprintf(stderr, "%s: %s %s: must be %llu..%llu\n", cmd, opt, val,
                (unsigned long long)min, (unsigned long long)max);
        return 0;
    }
    *v = x;
    return 1;
}

int cuzk__opt_uint(const char *cmd, const char *opt, const char *val, unsigned min, unsigned max,
                   unsigned *v) {
    uint64_t x;
    if (!cuzk__opt_u64(cmd, opt, val, min, max, &x)) return 0;
    *v = (unsigned)x;
    return 1;
}

int cuzk__opt_int(const char *cmd, const char *opt, const char *val, int min, int max, int *v) {
    uint64_t x;
    if (!cuzk__opt_u64(cmd, opt, val, min > 0 ? (uint64_t)min : 0, (uint64_t)max, &x)) return 0;
    *v = (int)x;
    return 1;
}

/* "64G" into bytes; 0 when s is no size or overflows. */
static int parse_size(const char *s, uint64_t *v) {
    if (s == NULL || *s < '0' || *s > '9') return 0;
    char *end;
    errno = 0;
    const unsigned long long x = strtoull(s, &end, 10);
    if (errno != 0) return 0;
    unsigned shift = 0;
    if (*end != '\0') {
        const char *units = "KMGT", *u = strchr(units, *end & ~0x20);
        if (u == NULL || *u == '\0' || end[1] != '\0') return 0;
        shift = 10u * (unsigned)(u - units + 1);
    }
    if (shift != 0 && x > (UINT64_MAX >> shift)) return 0;
    *v = (uint64_t)x << shift;
    return 1;
}

/* A size in the form the messages use: the largest binary suffix that divides it. */
static void size_words(char *buf, size_t len, uint64_t v) {
    static const char units[] = "KMGT";
    int k = -1;
    while (k < 3 && v != 0 && v % 1024 == 0) v /= 1024, k++;
    if (k < 0)
        snprintf(buf, len, "%llu", (unsigned long long)v);
    else
        snprintf(buf, len, "%llu%c", (unsigned long long)v, units[k]);
}

int cuzk__opt_size(const char *cmd, const char *opt, const char *val, uint64_t min, uint64_t max,
                   uint64_t *v) {
    uint64_t x;
    if (!parse_size(val, &x) || x < min || x > max) {
        char lo[32], hi[32];
        size_words(lo, sizeof lo, min);
        size_words(hi, sizeof hi, max);
        fprintf(stderr, "%s: %s %s: must be a size like 24G, %s..%s\n", cmd, opt,
                val != NULL ? val : "", lo, hi);
        return 0;
    }
    *v = x;
    return 1;
}

int cuzk__opt_double(const char *cmd, const char *opt, const char *val, double min, double max,
                     double *v) {
    char *end;
    double x = val != NULL && *val != '\0' ? strtod(val, &end) : 0;
    if (val == NULL || *val == '\0' || *end != '\0' || !(x >= min && x <= max)) {
        fprintf(stderr, "%s: %s %s: must be a number from %g to %g\n", cmd, opt,
                val != NULL ? val : "", min, max);
        return 0;
    }
    *v = x;
    return 1;
}

int cuzk__opt_choice(const char *cmd, const char *opt, const char *val, const char *const *names,
                     int n) {
    for (int k = 0; k < n; k++)
        if (strcmp(val, names[k]) == 0) return k;
    fprintf(stderr, "%s: %s %s: must be ", cmd, opt, val);
    for (int k = 0; k < n; k++)
        fprintf(stderr, "%s%s", names[k], k + 2 < n ? ", " : k + 1 < n ? " or " : "\n");
    return -1;
}

int cuzk__opt_unknown(const char *cmd, const char *arg) {
    if (arg[0] == '-')
        fprintf(stderr, "%s: unknown option '%s' (%s --help lists them)\n", cmd, arg, cmd);
    else
        fprintf(stderr, "%s: unexpected argument '%s' (%s --help lists them)\n", cmd, arg, cmd);
    return 2;
}

int cuzk__opt_fail(const char *cmd, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", cmd);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return 2;
}
