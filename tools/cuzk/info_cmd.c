/*
 * info_cmd.c — `cuzk info [options] FILE`: what a supported file holds, its
 * size and checksum, and what is wrong with it if anything.
 *
 * The kind is taken from the content, not the name:
 *   - our circuit file (magic "cuzkcirc") and witness file ("cuzkwitn");
 *   - the iden3 containers (zkey, wtns, r1cs, ptau);
 *   - snarkjs JSON (verification key, proof, public signals);
 *   - bellman .params and .vk, which have no header: a file that starts
 *     with an uncompressed, finite zcash point (top three bits of byte 0
 *     clear). It is a .vk when its name ends in .vk, or when nothing follows
 *     the IC points its count at offset 864 announces; a .params otherwise.
 * Every file is opened with the reader the prover uses, so the checks and
 * the messages (file, offset, part, reason) are the prover's. A .params is
 * opened with deferred points: the verifying key and IC are decoded and
 * fully checked, the counts and shape too, but the five vectors (nearly all
 * of a large file) are not decoded unless --check-points asks; that streams
 * them in chunks through the reader and checks every point for its curve
 * and subgroup, in memory proportional to a chunk.
 *
 * Output: the summary on stdout; a problem as one line
 * "cuzk info: <the reader's message>" on stderr, exit status 2 (1 when
 * --circuit finds that a witness does not satisfy the circuit). The
 * checksum is XXH64 over 1 MiB blocks (the circuit file's scheme,
 * doc/formats.md §1.4) of the whole file, for comparing copies; a circuit
 * file also stores one of everything before its last 8 bytes, which the
 * reader verifies.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "circuit/circuit.h"
#include "circuit/witness.h"
#include "commands.h"
#include "ec/encode.h"
#include "groth16/snarkjs_json.h"
#include "io/binfile.h"
#include "io/params.h"
#include "io/r1cs.h"
#include "io/wtns.h"
#include "io/zkey.h"
#include "opt.h"
#include "util/mem.h"

#if defined(CUZK_HAVE_OPENMP)
#include <omp.h>
#endif

#define CMD "cuzk info"

typedef unsigned long long ull;

typedef struct {
    int check_points;    /* .params: decode and check every vector point */
    int no_checksum;     /* skip hashing the whole file */
    const char *circuit; /* witness: check it against this circuit file */
} info_opts;

/* ---- size and checksum ---------------------------------------------------------- */

/* Blocks read per batch: 64 MiB, hashed on all threads. */
#define SUM_BATCH_BLOCKS 64u

/*
 * XXH64 of the concatenated little-endian XXH64 digests of the file's 1 MiB
 * blocks, as cuzk__circuit_checksum computes over a buffer, but read in
 * batches with pread so that a file of any size needs 64 MiB of memory.
 */
static cuzk_status file_checksum(const char *path, uint64_t *sum, cuzk_error *err) {
    const uint64_t blk = CUZK_CIRCUIT_BLOCK_BYTES;
    int fd = open(path, O_RDONLY);
    if (fd < 0) return cuzk__fail(err, CUZK_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        close(fd);
        return cuzk__fail(err, CUZK_ERR_IO, "%s: cannot stat: %s", path, strerror(errno));
    }
    uint64_t size = (uint64_t)sb.st_size, nb = size / blk + (size % blk != 0);
    uint8_t *dig = malloc(nb ? nb * 8 : 1);
    uint8_t *buf = malloc((size_t)(SUM_BATCH_BLOCKS * blk));
    cuzk_status st = CUZK_OK;
    if (dig == NULL || buf == NULL)
        st = cuzk__fail(err, CUZK_ERR_NOMEM, "%s: no memory to hash the file", path);
    for (uint64_t b0 = 0; st == CUZK_OK && b0 < nb; b0 += SUM_BATCH_BLOCKS) {
        uint64_t off = b0 * blk, len = size - off;
        if (len > SUM_BATCH_BLOCKS * blk) len = SUM_BATCH_BLOCKS * blk;
        for (uint64_t got = 0; got < len;) {
            ssize_t r = pread(fd, buf + got, (size_t)(len - got), (off_t)(off + got));
            if (r < 0 && errno == EINTR) continue;
            if (r <= 0) {
                st = cuzk__fail(err, CUZK_ERR_IO, "%s: offset %llu: cannot read: %s", path,
                                (ull)(off + got), r < 0 ? strerror(errno) : "the file shrank");
                break;
            }
            got += (uint64_t)r;
        }
        if (st != CUZK_OK) break;
        int64_t m = (int64_t)((len + blk - 1) / blk);
#if defined(CUZK_HAVE_OPENMP)
#pragma omp parallel for schedule(static) if (m > 1)
#endif
        for (int64_t i = 0; i < m; i++) {
            uint64_t lo = (uint64_t)i * blk, n = len - lo < blk ? len - lo : blk;
            uint64_t h = cuzk__xxh64(buf + lo, (size_t)n, 0);
            uint8_t *d = dig + 8 * (b0 + (uint64_t)i);
            for (int k = 0; k < 8; k++) d[k] = (uint8_t)(h >> (8 * k));
        }
    }
    if (st == CUZK_OK) *sum = cuzk__xxh64(dig, (size_t)(nb * 8), 0);
    free(buf);
    free(dig);
    close(fd);
    return st;
}

/* The lines every kind ends with: size and checksum. */
static void print_size_checksum(const char *path, uint64_t size, const info_opts *o) {
    printf("  size                   %llu bytes\n", (ull)size);
    if (o->no_checksum) return;
    cuzk_error err;
    uint64_t sum = 0;
    cuzk__error_clear(&err);
    if (file_checksum(path, &sum, &err) == CUZK_OK)
        printf("  checksum               0x%016llx (XXH64 of 1 MiB blocks, whole file)\n",
               (ull)sum);
    else
        printf("  checksum               none: %s\n", cuzk__error_text(&err));
}

static uint64_t file_size(const char *path) {
    struct stat sb;
    return stat(path, &sb) == 0 ? (uint64_t)sb.st_size : 0;
}

/* ---- the iden3 containers and snarkjs JSON --------------------------------------- */

static void print_sections(const cuzk_binfile *bf) {
    printf("  sections:");
    for (uint32_t i = 0; i < bf->n_sections; i++)
        printf(" %u(%llu B%s)", bf->sections[i].id, (ull)bf->sections[i].size,
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
           (ull)zk.ic.n, (ull)zk.a.n, (ull)zk.b1.n, (ull)zk.b2.n, (ull)zk.c.n, (ull)zk.h.n);
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
    printf("  0 / 1 / other          %llu / %llu / %llu\n", (ull)zeros, (ull)ones,
           (ull)(w.n_witness - zeros - ones));
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
           (ull)r.n_terms);
    printf("  wires                  %u (public outputs %u, public inputs %u, private "
           "inputs %u)\n",
           r.n_wires, r.n_pub_out, r.n_pub_in, r.n_prv_in);
    printf("  labels                 %llu%s\n", (ull)r.n_labels,
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

/* ---- our circuit file ------------------------------------------------------------- */

static void print_circuit(const char *path, const cuzk_circuit *c, int checksum_ok) {
    printf("%s: cuzk circuit file (v%u), BLS12-381 R1CS in CSR form\n", path, c->version);
    printf("  constraints            %llu\n", (ull)c->n_constraints);
    printf("  inputs                 %llu (ONE and %llu public)\n", (ull)c->n_inputs,
           (ull)(c->n_inputs - 1));
    printf("  aux                    %llu (%llu variables in all)\n", (ull)c->n_aux,
           (ull)cuzk_circuit_n_vars(c));
    printf("  domain                 2^%u = %llu rows (%llu used: constraints + inputs)\n",
           c->domain_log, (ull)c->domain_size, (ull)(c->n_constraints + c->n_inputs));
    printf("  non-zeros              A %llu, B %llu, C %llu\n", (ull)c->m[0].nnz,
           (ull)c->m[1].nnz, (ull)c->m[2].nnz);
    printf("  coefficient table      %llu distinct values (+1 and -1 first)\n",
           (ull)c->n_values);
    printf("  density                a_aux %llu of %llu, b_inp %llu of %llu, b_aux %llu of "
           "%llu\n",
           (ull)c->a_aux_count, (ull)c->n_aux, (ull)c->b_inp_count, (ull)c->n_inputs,
           (ull)c->b_aux_count, (ull)c->n_aux);
    const uint8_t *im = c->image;
#define OFF(p) (ull)((const uint8_t *)(const void *)(p) - im)
    printf("  layout (offsets)       header 0, value table %llu\n", OFF(c->values));
    for (int m = 0; m < 3; m++)
        printf("                         %c: row pointers %llu, columns %llu, value indices "
               "%llu\n",
               "ABC"[m], OFF(c->m[m].row_ptr), OFF(c->m[m].col), OFF(c->m[m].val));
    printf("                         bitmaps a_aux %llu, b_inp %llu, b_aux %llu; checksum "
           "%llu\n",
           OFF(c->a_aux), OFF(c->b_inp), OFF(c->b_aux), (ull)(c->size - 8));
#undef OFF
    printf("  stored checksum        0x%016llx (%s)\n", (ull)c->checksum,
           checksum_ok ? "matches the contents" : "does NOT match the contents");
    printf("  checked                header, sizes, %scoefficients < r, indices, padding, "
           "densities\n",
           checksum_ok ? "checksum, " : "");
}

/*
 * The reader stops at the first problem, and checks the checksum before the
 * structure. When it fails, a second open without the checksum says whether
 * the structure holds (then only bytes the checks cannot tell from valid
 * ones changed) or names the structural problem too.
 */
static cuzk_status info_circuit(const char *path, const info_opts *o, cuzk_error *err) {
    cuzk_circuit c;
    cuzk_status st = cuzk_circuit_open(&c, path, 0, err);
    if (st == CUZK_OK) {
        print_circuit(path, &c, 1);
        print_size_checksum(path, c.size, o);
        cuzk_circuit_close(&c);
        return CUZK_OK;
    }
    cuzk_error e2;
    cuzk__error_clear(&e2);
    if (cuzk_circuit_open(&c, path, CUZK_CIRCUIT_SKIP_CHECKSUM, &e2) == CUZK_OK) {
        print_circuit(path, &c, 0);
        print_size_checksum(path, c.size, o);
        cuzk_circuit_close(&c);
        printf("  problem                the structure checks pass: the change is in bytes "
               "they cannot tell from valid ones (a coefficient, column or value index)\n");
        return st;
    }
    printf("%s: cuzk circuit file (unreadable)\n", path);
    print_size_checksum(path, file_size(path), o);
    if (strcmp(e2.msg, err->msg) != 0) { /* both problems, the checksum's first */
        fprintf(stderr, "%s: %s\n", CMD, cuzk__error_text(err));
        *err = e2;
        st = e2.status;
    }
    return st;
}

/* ---- our witness file ------------------------------------------------------------- */

/* Satisfaction against the circuit file cpath (--circuit). */
static cuzk_status witness_vs_circuit(const cuzk_witness *w, const char *cpath, cuzk_error *err) {
    cuzk_circuit c;
    cuzk_status st = cuzk_circuit_open(&c, cpath, 0, err);
    if (st != CUZK_OK) return st;
    const uint64_t dom = c.domain_size;
    cuzk_fr *abc = NULL;
    if (w->n_inputs != c.n_inputs || w->n_aux != c.n_aux) {
        st = cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                        "%s: %llu inputs + %llu aux, but the circuit %s has %llu + %llu", w->path,
                        (ull)w->n_inputs, (ull)w->n_aux, cpath, (ull)c.n_inputs, (ull)c.n_aux);
    } else if (dom > SIZE_MAX / (3 * sizeof(cuzk_fr)) ||
               (abc = cuzk__alloc_large((size_t)(3 * dom) * sizeof(cuzk_fr))) == NULL) {
        st = cuzk__fail(err, CUZK_ERR_NOMEM, "no memory to check %s against %s", w->path, cpath);
    } else {
        uint64_t first_bad = 0;
        st = cuzk_witness_abc_var(&c, w, abc, abc + dom, abc + 2 * dom, CUZK_SPMV_DEFAULT, 0,
                                  &first_bad, err);
        if (st == CUZK_OK)
            printf("  satisfies              %s: all %llu constraints hold\n", cpath,
                   (ull)c.n_constraints);
    }
    free(abc);
    cuzk_circuit_close(&c);
    return st;
}

static cuzk_status info_witness(const char *path, const info_opts *o, cuzk_error *err) {
    cuzk_witness w;
    cuzk_status st = cuzk_witness_open(&w, path, err);
    if (st != CUZK_OK) {
        printf("%s: cuzk witness file (unreadable)\n", path);
        print_size_checksum(path, file_size(path), o);
        return st;
    }
    uint64_t n = cuzk_witness_n_vars(&w), zeros = 0, ones = 0;
    for (uint64_t i = 0; i < n; i++) {
        const uint64_t *v = w.values + 4 * i;
        uint64_t hi = v[1] | v[2] | v[3];
        zeros += hi == 0 && v[0] == 0;
        ones += hi == 0 && v[0] == 1;
    }
    printf("%s: cuzk witness file (v%u), BLS12-381 scalars\n", path, w.version);
    printf("  values                 %llu (inputs %llu: ONE and %llu public; aux %llu)\n",
           (ull)n, (ull)w.n_inputs, (ull)(w.n_inputs - 1), (ull)w.n_aux);
    printf("  0 / 1 / other          %llu / %llu / %llu\n", (ull)zeros, (ull)ones,
           (ull)(n - zeros - ones));
    printf("  layout (offsets)       header 0 (%u B), inputs %u, aux %llu (32 B per value)\n",
           CUZK_WITNESS_HEADER_BYTES, CUZK_WITNESS_HEADER_BYTES,
           (ull)(CUZK_WITNESS_HEADER_BYTES + 32 * w.n_inputs));
    printf("  checked                size exact, every value < r, input 0 = 1\n"
           "                         (no checksum in the file: --circuit C checks the values\n"
           "                         against a circuit)\n");
    print_size_checksum(path, w.size, o);
    if (o->circuit != NULL) st = witness_vs_circuit(&w, o->circuit, err);
    cuzk_witness_close(&w);
    return st;
}

/* ---- bellman .params and .vk ------------------------------------------------------- */

/* Whether a headerless file is a .vk rather than a .params (see the top). */
static int bellman_is_vk(const char *path, const unsigned char *head, size_t got) {
    size_t len = strlen(path);
    if (len >= 3 && strcmp(path + len - 3, ".vk") == 0) return 1;
    if (len >= 7 && strcmp(path + len - 7, ".params") == 0) return 0;
    if (got < CUZK_PARAMS_VK_HEAD_BYTES + 4) return 0;
    const unsigned char *c = head + CUZK_PARAMS_VK_HEAD_BYTES;
    uint64_t n_ic = (uint64_t)c[0] << 24 | (uint64_t)c[1] << 16 | (uint64_t)c[2] << 8 | c[3];
    return file_size(path) <= CUZK_PARAMS_VK_HEAD_BYTES + 4 + n_ic * 96u /* uncompressed G1 points */;
}

static cuzk_status info_vk(const char *path, const info_opts *o, cuzk_error *err) {
    cuzk_params_vk vk;
    cuzk_status st = cuzk_params_vk_open(&vk, path, CUZK_PARAMS_PARALLEL, err);
    if (st != CUZK_OK) {
        printf("%s: bellman Groth16 verifying key (.vk; unreadable)\n", path);
        print_size_checksum(path, file_size(path), o);
        return st;
    }
    printf("%s: bellman Groth16 verifying key (.vk), BLS12-381, zcash uncompressed points\n",
           path);
    printf("  inputs (IC)            %llu (ONE and %llu public)\n", (ull)vk.n_ic,
           (ull)(vk.n_ic - 1));
    printf("  layout (offsets)       alpha_g1 0, beta_g1 96, beta_g2 192, gamma_g2 384,\n"
           "                         delta_g1 576, delta_g2 672, IC count %u, IC %u\n",
           CUZK_PARAMS_VK_HEAD_BYTES, CUZK_PARAMS_VK_HEAD_BYTES + 4);
    printf("  checked                every point canonical, on its curve, in its subgroup, "
           "not at infinity\n");
    print_size_checksum(path, file_size(path), o);
    cuzk_params_vk_free(&vk);
    return CUZK_OK;
}

static cuzk_status info_params(const char *path, const info_opts *o, cuzk_error *err) {
    cuzk_params p;
    cuzk_status st = cuzk_params_open(&p, path, CUZK_PARAMS_DEFER_POINTS, err);
    if (st != CUZK_OK) {
        printf("%s: bellman Groth16 parameters (.params; unreadable)\n", path);
        print_size_checksum(path, file_size(path), o);
        return st;
    }
    printf("%s: bellman Groth16 parameters (.params), BLS12-381, zcash uncompressed points\n",
           path);
    printf("  inputs (IC)            %llu (ONE and %llu public)\n", (ull)p.n_inputs,
           (ull)(p.n_inputs - 1));
    printf("  aux (vector l)         %llu\n", (ull)p.n_aux);
    printf("  domain                 2^%u = %llu rows (vector h has %llu points)\n",
           p.log_domain_size, (ull)p.domain_size, (ull)p.h.n);
    printf("  points                 IC %llu, h %llu, l %llu, a %llu, b_g1 %llu, b_g2 %llu "
           "(G2)\n",
           (ull)p.vk.n_ic, (ull)p.h.n, (ull)p.l.n, (ull)p.a.n, (ull)p.b_g1.n, (ull)p.b_g2.n);
    printf("  layout (offsets)       vk 0 (%u B), IC %u, h %llu, l %llu, a %llu,\n"
           "                         b_g1 %llu, b_g2 %llu (each after its u32 count)\n",
           CUZK_PARAMS_VK_HEAD_BYTES, CUZK_PARAMS_VK_HEAD_BYTES + 4, (ull)p.h.offset,
           (ull)p.l.offset, (ull)p.a.offset, (ull)p.b_g1.offset, (ull)p.b_g2.offset);
    printf("  conventions            root 7^t, H monomial (N - 1 points, coset shift 7)\n");
    if (o->check_points) st = cuzk_params_check_vectors(&p, err);
    printf("  checked                counts and shape; vk and IC: every point on its curve\n"
           "                         and in its subgroup; the vectors: %s\n",
           !o->check_points ? "not decoded (--check-points checks every point)"
           : st == CUZK_OK  ? "every point on its curve and in its subgroup"
                            : "a bad point (below)");
    print_size_checksum(path, file_size(path), o);
    cuzk_params_close(&p);
    return st;
}

/* ---- the command ------------------------------------------------------------------- */

static int usage(FILE *f) {
    fprintf(f,
            "usage: cuzk info [--check-points] [--circuit C] [--no-checksum] FILE\n"
            "  what FILE holds, its size and checksum, and what is wrong with it, if\n"
            "  anything (the reader's message, with the offset). FILE: our circuit (.cuzk)\n"
            "  or witness (.wit), bellman .params or .vk, a snarkjs zkey, wtns, r1cs or\n"
            "  ptau, or snarkjs JSON (verification key, proof, public signals).\n"
            "  --check-points  .params: decode every point of the five vectors and check\n"
            "                  its curve and subgroup (streamed; by default only the vk and\n"
            "                  IC points are)\n"
            "  --circuit C     witness: check that it satisfies circuit file C\n"
            "  --no-checksum   do not hash the whole file\n"
            "  exit status: 0 fine, 1 the witness does not satisfy C, 2 anything else wrong\n");
    return f == stdout ? 0 : 2;
}

/* The options into *o and the file into *path; -1 to go on, else the exit
 * status (after --help or a refusal). */
static int parse_args(int argc, char **argv, info_opts *o, const char **path) {
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) return usage(stdout);
        if (strcmp(a, "--check-points") == 0) {
            o->check_points = 1;
        } else if (strcmp(a, "--no-checksum") == 0) {
            o->no_checksum = 1;
        } else if (strcmp(a, "--circuit") == 0) {
            if ((o->circuit = cuzk__opt_value(CMD, argc, argv, &i)) == NULL) return 2;
        } else if (a[0] == '-' && a[1] != '\0') {
            return cuzk__opt_unknown(CMD, a);
        } else if (*path != NULL) {
            fprintf(stderr, "%s: one FILE at a time ('%s' and '%s')\n", CMD, *path, a);
            return 2;
        } else {
            *path = a;
        }
    }
    if (*path == NULL) return cuzk__opt_fail(CMD, "no FILE given (cuzk info --help)");
    return -1;
}

static int is_json_space(int c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

/* The first cap bytes of path into head (*got of them) and its first
 * character after JSON whitespace (*first, EOF when none); 0 when the file
 * cannot be opened (errno says why), -1 when it is not a regular file. */
static int read_head(const char *path, unsigned char *head, size_t cap, size_t *got,
                     int *first) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) return 0;
    struct stat sb;
    if (fstat(fileno(f), &sb) != 0 || !S_ISREG(sb.st_mode)) {
        fclose(f);
        return -1;
    }
    *got = fread(head, 1, cap, f);
    size_t k = 0;
    while (k < *got && is_json_space(head[k])) k++;
    *first = k < *got ? head[k] : EOF;
    if (k == *got && *got == cap) { /* all whitespace so far: read on */
        do *first = fgetc(f);
        while (is_json_space(*first));
    }
    fclose(f);
    return 1;
}

int cuzk__cmd_info(int argc, char **argv) {
    info_opts o = {0, 0, NULL};
    const char *path = NULL;
    int rc = parse_args(argc, argv, &o, &path);
    if (rc >= 0) return rc;
    cuzk_error err;
    cuzk__error_clear(&err);
    unsigned char head[CUZK_PARAMS_VK_HEAD_BYTES + 4];
    size_t got = 0;
    int c = EOF;
    const int opened = read_head(path, head, sizeof(head), &got, &c);
    if (opened <= 0) {
        if (opened == 0)
            fprintf(stderr, "%s: %s: cannot open: %s\n", CMD, path, strerror(errno));
        else
            fprintf(stderr, "%s: %s: not a regular file\n", CMD, path);
        return 2;
    }
    if (o.circuit != NULL && !(got >= 8 && memcmp(head, CUZK_WITNESS_MAGIC, 8) == 0)) {
        fprintf(stderr, "%s: --circuit %s: applies to a cuzk witness file only\n", CMD,
                o.circuit);
        return 2;
    }
    const int json = c == '{' || c == '[';
    const int bellman = !json && got >= 1 && ((head[0] & 0xe0) == 0 || head[0] == 0x40);
    cuzk_status st;
    if (got == 0)
        st = cuzk__fail(&err, CUZK_ERR_BAD_LENGTH, "%s: empty file (0 bytes)", path);
    else if (got >= 8 && memcmp(head, CUZK_CIRCUIT_MAGIC, 8) == 0)
        st = info_circuit(path, &o, &err);
    else if (got >= 8 && memcmp(head, CUZK_WITNESS_MAGIC, 8) == 0)
        st = info_witness(path, &o, &err);
    else if (got >= 4 && memcmp(head, "zkey", 4) == 0)
        st = info_zkey(path, &err);
    else if (got >= 4 && memcmp(head, "wtns", 4) == 0)
        st = info_wtns(path, &err);
    else if (got >= 4 && memcmp(head, "r1cs", 4) == 0)
        st = info_r1cs(path, &err);
    else if (got >= 4 && memcmp(head, "ptau", 4) == 0)
        st = info_container(path, &err);
    else if (json)
        st = info_json(path, &err);
    else if (bellman)
        st = bellman_is_vk(path, head, got) ? info_vk(path, &o, &err)
                                            : info_params(path, &o, &err);
    else
        st = cuzk__fail(&err, CUZK_ERR_UNSUPPORTED,
                        "%s: unknown format (expected our circuit or witness file, bellman "
                        ".params or .vk, a zkey, wtns, r1cs or ptau container, or snarkjs JSON)",
                        path);
    if (st == CUZK_OK) {
        if (!bellman && !json && got >= 4 && memcmp(head, "cuzk", 4) != 0)
            print_size_checksum(path, file_size(path), &o); /* the iden3 containers */
        if (json) print_size_checksum(path, file_size(path), &o);
        if (o.check_points && !bellman)
            fprintf(stderr, "%s: note: --check-points applies to .params files only\n", CMD);
        return 0;
    }
    fprintf(stderr, "%s: %s\n", CMD, cuzk__error_text(&err));
    return st == CUZK_ERR_WITNESS_UNSATISFIED ? 1 : 2;
}
