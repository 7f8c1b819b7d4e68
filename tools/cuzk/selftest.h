/* selftest.h — subcommands of the cuzk command, one per file in tools/cuzk. */
#ifndef CUZK_TOOLS_SELFTEST_H
#define CUZK_TOOLS_SELFTEST_H

int cuzk__selftest_main(int argc, char **argv);

#endif
