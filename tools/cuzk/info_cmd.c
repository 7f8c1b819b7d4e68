/*
 * info_cmd.c — `cuzk info FILE`: what a supported file holds. The kind is
 * taken from the content, not the name: the iden3 container magic (zkey,
 * wtns, r1cs, ptau) or, for text, the snarkjs JSON shapes (verification key,
 * proof, public signals). Every file is opened with the same checks the
 * prover uses, so a file `info` accepts is one the prover can read.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/binfile.h"
#include "commands.h"
#include "io/r1cs.h"
#include "io/snarkjs_json.h"
#include "io/wtns.h"
#include "io/zkey.h"

static void print_sections(const cuzk_binfile *bf) {
    printf("  sections:");
    for (uint32_t i = 0; i < bf->n_sections; i++)
        printf(" %u(%llu B%s)", bf->sections[i].id, (unsigned long long)bf->sections[i].size,
               bf->sections[i].offset % 8 ? ", unaligned" : "");
    printf("\n");
}

static cuzk_status info_zkey(const char *path, cuzk_error *err) {
    cuzk_zkey zk;
    memset(&zk, 0, sizeof(zk));
    cuzk_status st = cuzk_zkey_open(&zk, path, CUZK_ZKEY_CHECK_CURVE, err);
    if (st != CUZK_OK) return st;
    printf("%s: snarkjs Groth16 proving key (zkey v%u), BLS12-381\n", path, zk.file.version);
    printf("  signals (nVars)        %u (1 constant, %u public, %u private)\n", zk.n_vars,
           zk.n_public, zk.n_vars - zk.n_public - 1);
    printf("  domain                 2^%u = %u rows (%u used: constraints + public rows)\n",
           zk.log_domain_size, zk.domain_size, zk.n_rows);
    printf("  coefficients (A, B)    %u\n", zk.n_coefs);
    printf("  points                 IC %llu, A %llu, B1 %llu, B2 %llu (G2), C %llu, H %llu\n",
           (unsigned long long)zk.ic.n, (unsigned long long)zk.a.n, (unsigned long long)zk.b1.n,
           (unsigned long long)zk.b2.n, (unsigned long long)zk.c.n, (unsigned long long)zk.h.n);
    printf("  conventions            root of unity 5^t, H on the odd coset (Lagrange)\n");
    printf("  checked                coordinates canonical, every point on its curve\n");
    print_sections(&zk.file);
    cuzk_zkey_close(&zk);
    return CUZK_OK;
}

static cuzk_status info_wtns(const char *path, cuzk_error *err) {
    cuzk_wtns w;
    memset(&w, 0, sizeof(w));
    cuzk_status st = cuzk_wtns_open(&w, path, err);
    if (st != CUZK_OK) return st;
    printf("%s: circom witness (wtns v%u), BLS12-381 scalars\n", path, w.file.version);
    printf("  values                 %u (all canonical)\n", w.n_witness);
    uint64_t zeros = 0, ones = 0;
    for (uint32_t i = 0; i < w.n_witness; i++) {
        const uint64_t *v = cuzk_wtns_value(&w, i);
        uint64_t hi = v[1] | v[2] | v[3];
        zeros += hi == 0 && v[0] == 0;
        ones += hi == 0 && v[0] == 1;
    }
    printf("  0 / 1 / other          %llu / %llu / %llu\n", (unsigned long long)zeros,
           (unsigned long long)ones, (unsigned long long)(w.n_witness - zeros - ones));
    cuzk_wtns_close(&w);
    return CUZK_OK;
}

static cuzk_status info_r1cs(const char *path, cuzk_error *err) {
    cuzk_r1cs r;
    memset(&r, 0, sizeof(r));
    cuzk_status st = cuzk_r1cs_open(&r, path, err);
    if (st != CUZK_OK) return st;
    printf("%s: circom constraint system (r1cs v%u), BLS12-381\n", path, r.file.version);
    printf("  constraints            %u (%llu terms in A, B, C)\n", r.n_constraints,
           (unsigned long long)r.n_terms);
    printf("  wires                  %u (public outputs %u, public inputs %u, private "
           "inputs %u)\n",
           r.n_wires, r.n_pub_out, r.n_pub_in, r.n_prv_in);
    printf("  labels                 %llu%s\n", (unsigned long long)r.n_labels,
           r.wire2label ? " (wire-to-label map present)" : "");
    cuzk_r1cs_close(&r);
    return CUZK_OK;
}

static cuzk_status info_container(const char *path, cuzk_error *err) {
    cuzk_binfile bf;
    memset(&bf, 0, sizeof(bf));
    cuzk_status st = cuzk_binfile_open(&bf, path, "ptau", 0, UINT32_MAX, err);
    if (st != CUZK_OK) return st;
    printf("%s: iden3 binary container '%s' v%u, %u sections (not a format cuzk proves "
           "with)\n",
           path, bf.magic, bf.version, bf.n_sections);
    print_sections(&bf);
    cuzk_binfile_close(&bf);
    return CUZK_OK;
}

static cuzk_status info_json(const char *path, cuzk_error *err) {
    cuzk_groth16_vk vk;
    cuzk_groth16_proof proof;
    cuzk_fr *pub = NULL;
    size_t n = 0;
    cuzk_error e1, e2, e3;
    memset(&vk, 0, sizeof(vk));
    if (cuzk_snarkjs_vk_read(&vk, path, &e1) == CUZK_OK) {
        printf("%s: snarkjs Groth16 verification key, BLS12-381\n", path);
        printf("  public signals         %zu (IC has %zu points; all points checked)\n",
               vk.n_public, vk.n_public + 1);
        cuzk_groth16_vk_free(&vk);
        return CUZK_OK;
    }
    if (cuzk_snarkjs_proof_read(&proof, path, &e2) == CUZK_OK) {
        printf("%s: snarkjs Groth16 proof, BLS12-381 (points on the curve)\n", path);
        return CUZK_OK;
    }
    if (cuzk_snarkjs_public_read(&pub, &n, path, &e3) == CUZK_OK) {
        printf("%s: snarkjs public signals: %zu values (all canonical)\n", path, n);
        free(pub);
        return CUZK_OK;
    }
    return cuzk__fail(err, CUZK_ERR_UNSUPPORTED,
                      "%s: not a verification key (%s), a proof (%s) or public signals (%s)",
                      path, cuzk__error_text(&e1), cuzk__error_text(&e2), cuzk__error_text(&e3));
}

int cuzk__cmd_info(int argc, char **argv) {
    if (argc != 1) {
        fprintf(stderr, "usage: cuzk info FILE\n");
        return 2;
    }
    const char *path = argv[0];
    cuzk_error err;
    cuzk__error_clear(&err);
    unsigned char head[4] = {0};
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        fprintf(stderr, "cuzk info: %s: cannot open\n", path);
        return 2;
    }
    size_t got = fread(head, 1, sizeof(head), f);
    int c = got > 0 ? head[0] : EOF;
    /* skip leading JSON whitespace to tell text from the binary formats */
    while (c == ' ' || c == '\n' || c == '\r' || c == '\t') c = fgetc(f);
    fclose(f);
    cuzk_status st;
    if (got == 4 && memcmp(head, "zkey", 4) == 0)
        st = info_zkey(path, &err);
    else if (got == 4 && memcmp(head, "wtns", 4) == 0)
        st = info_wtns(path, &err);
    else if (got == 4 && memcmp(head, "r1cs", 4) == 0)
        st = info_r1cs(path, &err);
    else if (got == 4 && memcmp(head, "ptau", 4) == 0)
        st = info_container(path, &err);
    else if (c == '{' || c == '[')
        st = info_json(path, &err);
    else
        st = cuzk__fail(&err, CUZK_ERR_UNSUPPORTED,
                        "%s: unknown format (expected a zkey, wtns, r1cs or ptau container, or "
                        "snarkjs JSON)",
                        path);
    if (st != CUZK_OK) {
        fprintf(stderr, "cuzk info: %s\n", cuzk__error_text(&err));
        return 2;
    }
    return 0;
}
