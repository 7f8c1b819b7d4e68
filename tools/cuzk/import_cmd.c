/*
 * import_cmd.c — `cuzk import`: a circom circuit (.r1cs) and its witnesses
 * (.wtns) into our circuit and witness files, so any circom circuit runs
 * through the Filecoin path (setup, prove, verify) too.
 *
 *   cuzk import CIRCUIT.r1cs -o OUT.cuzk [WITNESS.wtns -w OUT.wit]...
 *
 * Wire w becomes variable w (inputs: ONE, the public outputs and inputs;
 * aux: every other wire), so a circom witness keeps its order
 * (cuzk_circuit_from_r1cs, cuzk_witness_from_wtns). Each witness is checked
 * against the circuit before it is written: one that does not satisfy it is
 * refused naming the constraint. Exit status: 0 written, 1 a witness does
 * not satisfy the circuit, 2 usage, input or write error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "circuit/circuit.h"
#include "commands.h"
#include "cuzk.h"
#include "ff/fr.h"
#include "util/mem.h"
#include "io/r1cs.h"
#include "circuit/witness.h"
#include "io/wtns.h"
#include "opt.h"
#include "util/atomic_write.h"

static int usage(void) {
    fprintf(stderr, "usage: cuzk import CIRCUIT.r1cs -o OUT.cuzk [WITNESS.wtns -w OUT.wit]...\n"
                    "  circom circuit and witnesses -> our circuit and witness files\n");
    return 2;
}

static int fail(const cuzk_error *err) {
    fprintf(stderr, "cuzk import: %s\n", cuzk__error_text(err));
    return err->status == CUZK_ERR_WITNESS_UNSATISFIED ? 1 : 2;
}

/* One .wtns -> our witness file (o, an output of the command's set), after
 * the satisfaction check. */
static int import_witness(const cuzk_circuit *c, const char *in, cuzk__out *o) {
    cuzk_error err;
    cuzk__error_clear(&err);
    cuzk_wtns wt;
    cuzk_witness w;
    memset(&wt, 0, sizeof(wt));
    memset(&w, 0, sizeof(w));
    int rc = 2;
    const uint64_t dom = c->domain_size;
    cuzk_fr *abc = NULL;
    if (cuzk_wtns_open(&wt, in, &err) != CUZK_OK ||
        cuzk_witness_from_wtns(&w, c, &wt, &err) != CUZK_OK)
        goto out;
    abc = cuzk__alloc_large(3 * dom * sizeof(cuzk_fr));
    if (abc == NULL) {
        cuzk__fail(&err, CUZK_ERR_NOMEM, "no memory to check %s", in);
        goto out;
    }
    if (cuzk_witness_abc_var(c, &w, abc, abc + dom, abc + 2 * dom, CUZK_SPMV_DEFAULT, 0, NULL,
                             &err) != CUZK_OK ||
        cuzk__witness_write_out(o, &w, &err) != CUZK_OK ||
        cuzk__out_finish(o, &err) != CUZK_OK)
        goto out;
    rc = 0;
out:
    free(abc);
    cuzk_witness_close(&w);
    cuzk_wtns_close(&wt);
    return rc == 0 ? 0 : fail(&err);
}

int cuzk__cmd_import(int argc, char **argv) {
    const char *r1cs_path = NULL, *out = NULL;
    const char **win = calloc((size_t)argc + 1, sizeof(char *));
    const char **wout = calloc((size_t)argc + 1, sizeof(char *));
    size_t nw = 0;
    int rc = 2;
    if (win == NULL || wout == NULL) goto done;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage();
            rc = 0;
            goto done;
        } else if (strcmp(a, "-o") == 0 || strcmp(a, "-w") == 0) {
            const char *v = cuzk__opt_value("cuzk import", argc, argv, &i);
            if (v == NULL) goto done;
            if (a[1] == 'o') {
                out = v;
            } else if (nw == 0 || wout[nw - 1] != NULL) { /* -w must follow a .wtns */
                fprintf(stderr, "cuzk import: -w %s: must follow the WITNESS.wtns it is for\n", v);
                goto done;
            } else {
                wout[nw - 1] = v;
            }
        } else if (a[0] == '-') {
            rc = cuzk__opt_unknown("cuzk import", a);
            goto done;
        } else if (r1cs_path == NULL) {
            r1cs_path = a;
        } else {
            win[nw++] = a;
        }
    }
    if (r1cs_path == NULL || out == NULL) {
        rc = cuzk__opt_fail("cuzk import", "%s",
                            r1cs_path == NULL ? "no CIRCUIT.r1cs given"
                                              : "-o OUT.cuzk is required");
        goto done;
    }
    for (size_t k = 0; k < nw; k++)
        if (wout[k] == NULL) {
            fprintf(stderr, "cuzk import: %s has no -w OUT.wit after it\n", win[k]);
            goto done;
        }
    const cuzk__cli_files files[] = {{"-o", &out, 1, 1},
                                     {"-w", wout, nw, 1},
                                     {"circuit", &r1cs_path, 1, 0},
                                     {"witness", win, nw, 0}};
    if (!cuzk__cli_files_ok("import", files, 4)) goto done;

    cuzk_error err;
    cuzk__error_clear(&err);
    cuzk_r1cs r;
    cuzk_circuit c;
    memset(&r, 0, sizeof(r));
    memset(&c, 0, sizeof(c));
    /* the circuit and every witness as one set: no file is replaced unless
     * all of them converted, checked and written (util/atomic_write.h) */
    cuzk__outset set;
    cuzk__out *o = NULL;
    cuzk__outset_init(&set);
    if (cuzk_r1cs_open(&r, r1cs_path, &err) != CUZK_OK ||
        cuzk_circuit_from_r1cs(&c, &r, &err) != CUZK_OK ||
        cuzk__outset_add(&set, &o, out, &err) != CUZK_OK ||
        cuzk__circuit_write_out(o, &c, &err) != CUZK_OK ||
        cuzk__out_finish(o, &err) != CUZK_OK) {
        rc = fail(&err);
    } else {
        rc = 0;
        fprintf(stderr,
                "cuzk import: %s: %llu constraints, %llu inputs (ONE included), %llu aux, "
                "domain 2^%u -> %s\n",
                r1cs_path, (unsigned long long)c.n_constraints, (unsigned long long)c.n_inputs,
                (unsigned long long)c.n_aux, c.domain_log, out);
        for (size_t k = 0; k < nw && rc == 0; k++) {
            if (cuzk__outset_add(&set, &o, wout[k], &err) != CUZK_OK) {
                rc = fail(&err);
                break;
            }
            rc = import_witness(&c, win[k], o);
            if (rc == 0) fprintf(stderr, "cuzk import: %s -> %s\n", win[k], wout[k]);
        }
        if (rc == 0 && cuzk__outset_commit(&set, &err) != CUZK_OK) rc = fail(&err);
    }
    cuzk__outset_abort(&set); /* after a failure: nothing replaced, temporaries removed */
    cuzk_circuit_close(&c);
    cuzk_r1cs_close(&r);
done:
    free(win);
    free(wout);
    return rc;
}
