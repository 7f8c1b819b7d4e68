/*
 * setup_cmd.c — `cuzk setup`: a DEVELOPMENT Groth16 setup of one of our
 * circuit files, written as bellman/Filecoin .params (and optionally .vk)
 * (src/groth16/setup.h). NOT FOR PRODUCTION: this process draws the toxic
 * waste; with --seed anyone who knows the seed can forge proofs.
 *
 *   cuzk setup CIRCUIT -o OUT.params [--vk OUT.vk] [--threads N] [--seed HEX]
 *              [--backend cpu|gpu|auto]
 *
 * --backend gpu runs the fixed-base multiplications (nearly all of the work)
 * on CUDA device 0 through the setup's accelerator callbacks
 * (src/gpu/setup_gpu.h); the file is the same byte for byte. auto (the
 * default) takes the GPU when the build has CUDA, a device is present and the
 * domain is at least 2^CUZK_AUTO_GPU_MIN_LOG, as `cuzk prove` does.
 *
 * Exit status: 0 written, 2 usage error, unreadable circuit, a circuit with
 * no valid key, no GPU for --backend gpu, or a write error (the message says
 * which).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>

#include "groth16/backend.h"
#include "circuit/circuit.h"
#include "commands.h"
#include "cuzk.h"
#include "util/error.h"
#include "util/mem.h"
#include "io/params.h"
#include "util/atomic_write.h"
#include "groth16/setup.h"
#include "opt.h"

#if defined(CUZK_HAVE_CUDA)
#include "api/api.h"
#endif

int cuzk__cmd_setup(int argc, char **argv);

static int usage(void) {
    fprintf(stderr,
            "usage: cuzk setup CIRCUIT -o OUT.params [--vk OUT.vk] [--threads N] [--seed HEX]\n"
            "                  [--backend cpu|gpu|auto]\n"
            "  a development Groth16 setup of our circuit file in bellman/Filecoin layout.\n"
            "  NOT FOR PRODUCTION: the toxic waste is drawn here (from the OS random source,\n"
            "  or with --seed derived from HEX bytes: deterministic and INSECURE, for tests).\n"
            "  --backend gpu makes the points on CUDA device 0 (same file); auto (default)\n"
            "  does so when a device is present and the domain is at least 2^%d.\n",
            CUZK_AUTO_GPU_MIN_LOG);
    return 2;
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int cuzk__cmd_setup(int argc, char **argv) {
    const char *circ = NULL, *out = NULL, *vk_out = NULL, *seed_hex = NULL;
    const char *backend_name = "auto";
    unsigned threads = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage();
            return 0;
        }
        if (a[0] != '-' || a[1] == '\0') {
            if (circ != NULL) {
                fprintf(stderr, "cuzk setup: more than one circuit ('%s' and '%s')\n", circ, a);
                return 2;
            }
            circ = a;
            continue;
        }
        if (strcmp(a, "-o") != 0 && strcmp(a, "--output") != 0 && strcmp(a, "--vk") != 0 &&
            strcmp(a, "--threads") != 0 && strcmp(a, "--seed") != 0 &&
            strcmp(a, "--backend") != 0)
            return cuzk__opt_unknown("cuzk setup", a);
        const char *v = cuzk__opt_value("cuzk setup", argc, argv, &i);
        if (v == NULL) return 2;
        if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
            out = v;
        } else if (strcmp(a, "--vk") == 0) {
            vk_out = v;
        } else if (strcmp(a, "--threads") == 0) {
            if (!cuzk__opt_uint("cuzk setup", a, v, 0, 4096, &threads)) return 2;
        } else if (strcmp(a, "--seed") == 0) {
            seed_hex = v;
        } else {
            backend_name = v;
        }
    }
    if (circ == NULL) return cuzk__opt_fail("cuzk setup", "no CIRCUIT file given");
    if (out == NULL) return cuzk__opt_fail("cuzk setup", "-o OUT.params is required");

    cuzk_setup_toxic tw;
    if (seed_hex != NULL && !cuzk__cli_setup_seed(&tw, seed_hex)) {
        fprintf(stderr,
                "cuzk setup: --seed %s: must be an even number (2..%d) of hex digits, "
                "optionally after 0x\n",
                seed_hex, CUZK_CLI_SEED_HEX_MAX);
        return 2;
    }

    /* the name checked (and a build without CUDA refusing gpu) before any work */
    const cuzk_backend_ops *ops = cuzk__cli_backend(backend_name, "setup");
    if (ops == NULL) return 2;
    const cuzk__cli_files files[] = {
        {"-o", &out, 1, 1}, {"--vk", &vk_out, 1, 1}, {"circuit", &circ, 1, 0}};
    if (!cuzk__cli_files_ok("setup", files, 3)) return 2;
    cuzk_error err;
    cuzk_circuit c;
    double t0 = now_s();
    cuzk_status st = cuzk_circuit_open(&c, circ, 0, &err);
    if (st != CUZK_OK) {
        fprintf(stderr, "cuzk setup: %s\n", cuzk__error_text(&err));
        return 2;
    }
    double t_open = now_s() - t0;
    /* auto: small circuits stay on the CPU (bringing a device up costs more) */
    int use_gpu = ops != &cuzk_backend_cpu &&
                  (strcmp(backend_name, "auto") != 0 || c.domain_log >= CUZK_AUTO_GPU_MIN_LOG);
#if defined(CUZK_HAVE_CUDA)
    if (use_gpu) {
        char dev_name[128] = "";
        int sms = 0;
        /* without a device the setup itself reports why, below */
        if (cuzk__api_gpu_name(0, dev_name, sizeof(dev_name), &sms) == CUZK_OK)
            fprintf(stderr, "cuzk setup: fixed-base multiplications on the GPU (%s, %d SMs)\n",
                    dev_name, sms);
    }
#endif
    fprintf(stderr,
            "cuzk setup: WARNING: development SRS, not for production. This process knows the\n"
            "toxic waste of %s%s.\n",
            out,
            seed_hex != NULL ? "; it is derived from --seed (INSECURE, deterministic): anyone "
                               "with the seed can forge proofs"
                             : "");

    fprintf(stderr,
            "cuzk setup: %s: %llu constraints, %llu inputs (ONE included), %llu aux, domain 2^%u, "
            "nnz A/B/C %llu/%llu/%llu (opened in %.2f s)\n",
            circ, (unsigned long long)c.n_constraints, (unsigned long long)c.n_inputs,
            (unsigned long long)c.n_aux, c.domain_log, (unsigned long long)c.m[0].nnz,
            (unsigned long long)c.m[1].nnz, (unsigned long long)c.m[2].nnz, t_open);

    cuzk_params p;
    cuzk_setup_times tm;
    t0 = now_s();
    st = cuzk__cli_dev_setup(&p, &c, seed_hex != NULL ? &tw : NULL, threads, use_gpu, &tm, &err);
    double t_setup = now_s() - t0;
    cuzk_circuit_close(&c);
    cuzk__wipe(&tw, sizeof(tw));
    if (st != CUZK_OK) {
        fprintf(stderr, "cuzk setup: %s\n", cuzk__error_text(&err));
        return 2;
    }
    fprintf(stderr,
            "cuzk setup: points: IC %llu, h %llu, l %llu, a %llu, b_g1 %llu, b_g2 %llu\n"
            "cuzk setup: setup %.2f s (lagrange %.2f, qap %.2f, tables %.2f, G1 %.2f, G2 %.2f; "
            "points on the %s)\n",
            (unsigned long long)p.vk.n_ic, (unsigned long long)p.h.n, (unsigned long long)p.l.n,
            (unsigned long long)p.a.n, (unsigned long long)p.b_g1.n, (unsigned long long)p.b_g2.n,
            t_setup, tm.lagrange, tm.qap, tm.tables, tm.g1, tm.g2, use_gpu ? "GPU" : "CPU");

    /* the .params and the .vk as one set: neither replaces its file unless
     * both are complete (util/atomic_write.h) */
    t0 = now_s();
    cuzk__outset set;
    cuzk__out *po = NULL, *vo = NULL;
    cuzk__outset_init(&set);
    st = cuzk__outset_add(&set, &po, out, &err);
    if (st == CUZK_OK && vk_out != NULL) st = cuzk__outset_add(&set, &vo, vk_out, &err);
    if (st == CUZK_OK) st = cuzk__params_write_out(po, &p, CUZK_PARAMS_PARALLEL, &err);
    if (st == CUZK_OK && vo != NULL) st = cuzk__params_vk_write_out(vo, &p.vk, &err);
    if (st == CUZK_OK)
        st = cuzk__outset_commit(&set, &err);
    else
        cuzk__outset_abort(&set);
    if (st != CUZK_OK) {
        fprintf(stderr, "cuzk setup: %s\n", cuzk__error_text(&err));
        cuzk_params_close(&p);
        return 2;
    }
    fprintf(stderr, "cuzk setup: wrote %s (%llu bytes)%s%s in %.2f s\n", out,
            (unsigned long long)cuzk_params_encoded_size(&p), vk_out ? " and " : "",
            vk_out ? vk_out : "", now_s() - t0);
    cuzk_params_close(&p);
    return 0;
}
