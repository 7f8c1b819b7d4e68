/*
 * fuzz_config.c — libFuzzer target for the daemon's configuration file
 * (cuzk__daemon_config_parse, src/service/config.c).
 *
 * The input is the whole file; relative paths in it resolve against a
 * folder that does not exist. A refused input must give a status in range
 * and a message naming the input, and leave the defaults behind. An
 * accepted one must hold values in their documented ranges, and its dump
 * must parse back to the same dump (what the file said is what the
 * configuration holds). Leaks are caught by LeakSanitizer: every accepted
 * configuration is freed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "service/config.h"

#define BASE "/nonexistent-cuzk-fuzz"

static char *dump_defaults(void) {
    static cuzk__daemon_config d;
    cuzk__daemon_config_defaults(&d);
    return cuzk__daemon_config_dump(&d);
}

static void check_ranges(const cuzk__daemon_config *c) {
    FUZZ_ASSERT(c->unix_socket_mode <= 0777);
    FUZZ_ASSERT(strlen(c->unix_socket) <= CUZK__CONF_SOCKET_PATH_MAX);
    FUZZ_ASSERT(c->unix_socket[0] != '\0' || c->tcp_listen[0] != '\0');
    FUZZ_ASSERT((c->tcp_listen[0] == '\0') == (c->tcp_port == 0));
    FUZZ_ASSERT(c->tcp_port <= 65535);
    FUZZ_ASSERT(c->tcp_listen[0] == '\0' || (c->token_file[0] != '\0' &&
                                             strlen(c->token) >= CUZK__CONF_TOKEN_MIN));
    FUZZ_ASSERT(c->database[0] != '\0' && c->spool_dir[0] != '\0');
    FUZZ_ASSERT(c->backend == CUZK_BACKEND_AUTO || c->backend == CUZK_BACKEND_CPU ||
                c->backend == CUZK_BACKEND_GPU);
    FUZZ_ASSERT(c->n_devices <= CUZK_MAX_LANES);
    for (size_t i = 0; i < c->n_devices; i++) FUZZ_ASSERT(c->devices[i] >= 0);
    FUZZ_ASSERT(c->cpu_lanes <= CUZK_MAX_LANES && c->threads <= 4096);
    FUZZ_ASSERT(c->auto_gpu_min_log <= 40 && c->workers_per_device <= 16);
    FUZZ_ASSERT(c->self_check == 0 || c->self_check == 1);
    FUZZ_ASSERT(c->max_queued_partitions >= 1 && c->max_queued_partitions <= (1u << 24));
    FUZZ_ASSERT(c->n_keys <= CUZK__CONF_MAX_KEYS);
    for (size_t k = 0; k < c->n_keys; k++) {
        const cuzk__daemon_key *key = &c->keys[k];
        const size_t n = strlen(key->name);
        FUZZ_ASSERT(n >= 1 && n <= CUZK__CONF_KEY_NAME_MAX);
        const int z = key->path[CUZK__KEY_ZKEY] != NULL, r = key->path[CUZK__KEY_R1CS] != NULL,
                  ci = key->path[CUZK__KEY_CIRCUIT] != NULL,
                  p = key->path[CUZK__KEY_PARAMS] != NULL;
        FUZZ_ASSERT(z ? !ci && !p : ci && p && !r); /* one of the two forms */
        for (size_t f = 0; f < CUZK__KEY_N_FILES; f++)
            FUZZ_ASSERT(key->path[f] == NULL || key->path[f][0] == '/'); /* resolved */
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = (char *)fuzz_copy_input(data, size);
    if (text == NULL) return 0;
    cuzk__daemon_config c;
    cuzk_error e;
    memset(&e, 0, sizeof(e));
    const cuzk_status st = cuzk__daemon_config_parse(&c, text, size, NAME, BASE, &e);
    free(text);
    char *got = cuzk__daemon_config_dump(&c);
    if (got == NULL) { /* out of memory: nothing to check */
        cuzk__daemon_config_free(&c);
        return 0;
    }
    if (st != CUZK_OK) {
        check_error(st, &e);
        char *def = dump_defaults();
        FUZZ_ASSERT(def != NULL && strcmp(got, def) == 0 && c.n_keys == 0 && c.keys == NULL);
        free(def);
    } else {
        FUZZ_ASSERT(e.status == CUZK_OK);
        check_ranges(&c);
        cuzk__daemon_config again;
        const cuzk_status st2 = cuzk__daemon_config_parse(&again, got, strlen(got), NAME, BASE, &e);
        if (st2 != CUZK_OK) fprintf(stderr, "the dump was refused: %s\n%s", e.msg, got);
        FUZZ_ASSERT(st2 == CUZK_OK);
        char *got2 = cuzk__daemon_config_dump(&again);
        FUZZ_ASSERT(got2 == NULL || strcmp(got, got2) == 0);
        free(got2);
        cuzk__daemon_config_free(&again);
    }
    free(got);
    cuzk__daemon_config_free(&c);
    return 0;
}
