/*
 * opt.h — option parsing shared by the commands and the benchmarks (opt.c).
 *
 * Every refusal is one line on stderr that names the command, the option and
 * what it accepts, so a user can fix the command line without the usage text:
 *   cuzk ptau new: --power 99: must be 1..28
 *   cuzk setup: --threads: needs a value
 *   cuzk gen-circuit: --profile foo: must be porep, dense or sha
 *   cuzk info: unknown option '--bogus' (cuzk info --help lists them)
 * The functions return 0 (or NULL, -1) after printing; the caller exits with
 * status 2 (a usage error).
 */
#ifndef CUZK_TOOLS_OPT_H
#define CUZK_TOOLS_OPT_H

#include <stdint.h>

/* The value of option argv[*i]: argv[*i + 1], and *i advances past it; NULL
 * after printing "CMD: OPT: needs a value" when argv ends there. */
const char *cuzk__opt_value(const char *cmd, int argc, char **argv, int *i);

/* An unsigned integer (decimal, or hex with 0x) in [min, max] into *v; else 0
 * after printing "CMD: OPT VAL: must be MIN..MAX". cuzk__opt_int takes
 * min >= 0. */
int cuzk__opt_u64(const char *cmd, const char *opt, const char *val, uint64_t min, uint64_t max,
                  uint64_t *v);
int cuzk__opt_uint(const char *cmd, const char *opt, const char *val, unsigned min, unsigned max,
                   unsigned *v);
int cuzk__opt_int(const char *cmd, const char *opt, const char *val, int min, int max, int *v);

/* A size in bytes: decimal digits and an optional binary suffix K, M, G or
 * T (either case: "24G" is 24 GiB), in [min, max], into *v; else 0 after
 * printing "CMD: OPT VAL: must be a size like 24G, 0..1024T". */
int cuzk__opt_size(const char *cmd, const char *opt, const char *val, uint64_t min, uint64_t max,
                   uint64_t *v);

/* A decimal number in [min, max] into *v; else 0 after printing
 * "CMD: OPT VAL: must be a number from MIN to MAX". */
int cuzk__opt_double(const char *cmd, const char *opt, const char *val, double min, double max,
                     double *v);

/* The index of val among names (n of them); else -1 after printing
 * "CMD: OPT VAL: must be A, B or C". */
int cuzk__opt_choice(const char *cmd, const char *opt, const char *val, const char *const *names,
                     int n);

/* Prints "CMD: unknown option 'ARG' (CMD --help lists them)" ("unexpected
 * argument" when ARG does not start with '-') and returns 2. */
int cuzk__opt_unknown(const char *cmd, const char *arg);

/* Prints "CMD: WHAT" (a missing required option, a bad combination) and
 * returns 2. */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
int cuzk__opt_fail(const char *cmd, const char *fmt, ...);

#endif /* CUZK_TOOLS_OPT_H */
