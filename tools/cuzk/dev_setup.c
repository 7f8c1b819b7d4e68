/*
 * dev_setup.c — the development setup as the commands run it: `cuzk setup`
 * (which writes the result) and `cuzk bench prove --setup-seed` (which keeps
 * it in memory, so a 2^27 benchmark needs no 47 GB file). The fixed-base
 * multiplications go to the GPU when asked and built with CUDA
 * (src/api/dev_setup.c). */
#include <stdio.h>
#include <string.h>

#include "api/api.h"
#include "commands.h"
#include "util/mem.h"
#include "groth16/setup.h"


static int hexval(char ch) {
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    return -1;
}

int cuzk__cli_setup_seed(cuzk_setup_toxic *tw, const char *hex) {
    uint8_t seed[CUZK_CLI_SEED_HEX_MAX / 2];
    if (hex[0] == '0' && (hex[1] == 'x' || hex[1] == 'X')) hex += 2;
    size_t len = strlen(hex);
    if (len == 0 || len % 2 != 0 || len > CUZK_CLI_SEED_HEX_MAX) return 0;
    for (size_t i = 0; i < len / 2; i++) {
        int hi = hexval(hex[2 * i]), lo = hexval(hex[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            cuzk__wipe(seed, sizeof(seed));
            return 0;
        }
        seed[i] = (uint8_t)(hi << 4 | lo);
    }
    cuzk__setup_toxic_from_seed(tw, seed, len / 2);
    cuzk__wipe(seed, sizeof(seed));
    return 1;
}

cuzk_status cuzk__cli_dev_setup(cuzk_params *p, const cuzk_circuit *c, const cuzk_setup_toxic *tw,
                                unsigned threads, int use_gpu, cuzk_setup_times *tm,
                                cuzk_error *err) {
    return cuzk__api_dev_setup(p, c, tw, threads, use_gpu, tm, err);
}
