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

#endif /* CUZK_TOOLS_CLI_H */
