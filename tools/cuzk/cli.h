/* cli.h — what the commands share over the public API (cli.c); option
 * parsing is opt.h. */
#ifndef CUZK_TOOLS_CLI_H
#define CUZK_TOOLS_CLI_H

#include "cuzk.h"

/* Prints "cuzk CMD: <err's message>" on stderr and returns the exit status
 * of the failure: 1 for a proof that does not verify or a witness that does
 * not satisfy its circuit, 2 for everything else (usage, unreadable or
 * malformed input, a corrupt key). */
int cuzk__cli_fail(const char *cmd, const cuzk_error *err);

/* --backend cpu|gpu|auto into *kind; else 0 after printing why (an unknown
 * name, or gpu in a build without CUDA). */
int cuzk__cli_backend_kind(const char *cmd, const char *name, cuzk_backend_kind *kind);

/* --device N (single) or --devices all|N,M,... (a GPU listed twice gets two
 * lanes): the ordinals appended to opt->devices; else 0 after printing why
 * ("cuzk CMD: --devices '0,x': all, or ordinals like 0,1", an ordinal past
 * the GPUs present, more than CUZK_MAX_LANES). The spelling of the whole
 * list is checked before any ordinal's range. */
int cuzk__cli_devices(const char *cmd, cuzk_options *opt, const char *s, int single);

#endif /* CUZK_TOOLS_CLI_H */
