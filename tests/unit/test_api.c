/*
 * test_api.c — the public API of include/cuzk.h on the CPU backend: options,
 * keys of both kinds, one proof, the split form with fixed r and s, N
 * partitions over several lanes, verification, the encodings, and the
 * errors a caller can cause (each with the file, partition or offset named).
 * Fixtures: the snarkjs sample of examples/sample, and a synthetic porep
 * circuit with a development setup written to a temporary folder.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuzk.h"
#include "circuit/gen.h"
#include "circuit/witness.h"
#include "groth16/setup.h"
#include "harness.h"
#include "io/params.h"
#include "test_util.h"

static char sample[1024], tmpdir[256];

static void path_in(char *out, size_t cap, const char *dir, const char *name) {
    snprintf(out, cap, "%s/%s", dir, name);
}

static cuzk_context *cpu_context(unsigned lanes) {
    cuzk_options o;
    cuzk_options_init(&o);
    o.backend = CUZK_BACKEND_CPU;
    o.cpu_lanes = lanes;
    o.threads = 2;
    cuzk_context *ctx = NULL;
    cuzk_error e;
    CHECK(cuzk_context_create(&ctx, &o, &e) == CUZK_OK);
    return ctx;
}

static void test_options(void) {
    cuzk_options o;
    cuzk_options_init(&o);
    CHECK(o.struct_size == sizeof(o) && o.backend == CUZK_BACKEND_AUTO && o.self_check == 1);
    cuzk_context *ctx = NULL;
    cuzk_error e;
    o.struct_size = 8;
    CHECK(cuzk_context_create(&ctx, &o, &e) == CUZK_ERR_INVALID_ARG && ctx == NULL);
    CHECK(strstr(e.msg, "struct_size") != NULL);
    cuzk_options_init(&o);
    o.threads = 100000;
    CHECK(cuzk_context_create(&ctx, &o, &e) == CUZK_ERR_INVALID_ARG);
    CHECK(strstr(e.msg, "threads") != NULL);
    cuzk_options_init(&o);
    o.n_devices = 1;
    o.devices[0] = -3;
    CHECK(cuzk_context_create(&ctx, &o, &e) == CUZK_ERR_INVALID_ARG);
    CHECK(strstr(e.msg, "devices[0]") != NULL);
    if (cuzk_gpu_count() == 0) {
        cuzk_options_init(&o);
        o.backend = CUZK_BACKEND_GPU;
        CHECK(cuzk_context_create(&ctx, &o, &e) == CUZK_ERR_UNSUPPORTED);
    }
    CHECK(cuzk_context_create(&ctx, NULL, &e) == CUZK_OK && ctx != NULL);
    cuzk_context_destroy(ctx);
    cuzk_context_destroy(NULL);
    CHECK(strcmp(cuzk_status_name(CUZK_ERR_KEY_CORRUPT), "ERR_KEY_CORRUPT") == 0);
}

static void test_zkey_prove_verify(void) {
    char zkey[1100], wtns[1100], vkjson[1100];
    path_in(zkey, sizeof zkey, sample, "circuit.zkey");
    path_in(wtns, sizeof wtns, sample, "witness.wtns");
    path_in(vkjson, sizeof vkjson, sample, "verification_key.json");
    cuzk_context *ctx = cpu_context(0);
    cuzk_key *key = NULL;
    cuzk_error e;
    CHECK(cuzk_key_open_zkey(ctx, &key, zkey, &e) == CUZK_OK);
    if (key == NULL) return;
    cuzk_key_info info;
    cuzk_key_get_info(key, &info);
    CHECK(info.kind == CUZK_KEY_ZKEY && info.backend == CUZK_BACKEND_CPU && info.n_public > 0);
    const size_t np = (size_t)info.n_public;
    uint8_t *pub = malloc(np * 32), *pub2 = NULL;
    cuzk_proof proof, proof2;
    cuzk_proof_times t;
    const cuzk_witness_input w = {.path = wtns};
    CHECK(cuzk_prove(key, &proof, pub, &t, &w, &e) == CUZK_OK);
    CHECK(t.total_ms > 0 && t.self_check_ms > 0);

    cuzk_vk *vk1 = NULL, *vk2 = NULL;
    CHECK(cuzk_vk_from_key(&vk1, key, &e) == CUZK_OK);
    CHECK(cuzk_vk_read(&vk2, vkjson, &e) == CUZK_OK);
    CHECK(cuzk_vk_n_public(vk1) == np && cuzk_vk_n_public(vk2) == np);
    CHECK(cuzk_verify(vk1, &proof, pub, np, &e) == CUZK_OK);
    CHECK(cuzk_verify(vk2, &proof, pub, np, &e) == CUZK_OK);
    CHECK(cuzk_verify(vk2, &proof, pub, np - 1, &e) != CUZK_OK);
    {   /* one input too many: refused before any is read (ASan sees a read past these) */
        uint8_t *exact = malloc(np * 32 + 1);
        memcpy(exact, pub, np * 32);
        CHECK(cuzk_verify(vk2, &proof, exact, np + 1, &e) == CUZK_ERR_INVALID_ARG);
        CHECK(strstr(e.msg, "expects") != NULL);
        free(exact);
    }
    pub[0] ^= 1; /* another statement */
    CHECK(cuzk_verify(vk2, &proof, pub, np, &e) == CUZK_ERR_PROOF_INVALID);
    pub[0] ^= 1;

    /* the encodings round trip */
    char *json = NULL;
    size_t len = 0, n2 = 0;
    CHECK(cuzk_proof_to_json(&json, &len, &proof, &e) == CUZK_OK && strstr(json, "pi_a") != NULL);
    CHECK(cuzk_proof_from_json(&proof2, json, len, &e) == CUZK_OK);
    CHECK_MEM(proof.bytes, proof2.bytes, CUZK_PROOF_BYTES);
    cuzk_free(json);
    CHECK(cuzk_public_to_json(&json, &len, pub, np, &e) == CUZK_OK);
    CHECK(cuzk_public_from_json(&pub2, &n2, json, len, &e) == CUZK_OK && n2 == np);
    if (pub2 != NULL) CHECK_MEM(pub, pub2, np * 32);
    cuzk_free(json);
    cuzk_free(pub2);
    CHECK(cuzk_vk_to_json(&json, &len, vk1, &e) == CUZK_OK);
    cuzk_vk *vk3 = NULL;
    char vkout[300];
    path_in(vkout, sizeof vkout, tmpdir, "vk.json");
    const cuzk_output out = {vkout, json, len};
    CHECK(cuzk_files_write(&out, 1, &e) == CUZK_OK);
    CHECK(cuzk_vk_read(&vk3, vkout, &e) == CUZK_OK);
    CHECK(cuzk_verify(vk3, &proof, pub, np, &e) == CUZK_OK);
    cuzk_free(json);

    /* a proof that does not decode is the caller's input error */
    proof2 = proof;
    memset(proof2.bytes, 0xff, 48);
    CHECK(cuzk_verify(vk1, &proof2, pub, np, &e) != CUZK_OK);
    cuzk_vk_free(vk1);
    cuzk_vk_free(vk2);
    cuzk_vk_free(vk3);
    free(pub);
    cuzk_key_release(key);
    cuzk_context_destroy(ctx);
}

/* The sample zkey on the CPU, and its witness file read whole: values are
 * the .wtns's witness values (its last n_vars x 32 bytes). */
typedef struct {
    cuzk_context *ctx;
    cuzk_key *key;
    uint8_t *file, *values;
    size_t flen, nv;
} sample_key;

static int sample_open(sample_key *k) {
    char zkey[1100], wtns[1100];
    path_in(zkey, sizeof zkey, sample, "circuit.zkey");
    path_in(wtns, sizeof wtns, sample, "witness.wtns");
    memset(k, 0, sizeof(*k));
    k->ctx = cpu_context(0);
    cuzk_error e;
    CHECK(cuzk_key_open_zkey(k->ctx, &k->key, zkey, &e) == CUZK_OK);
    CHECK(cuzk_file_read(&k->file, &k->flen, wtns, (size_t)1 << 30, &e) == CUZK_OK);
    if (k->key == NULL || k->file == NULL) return 0;
    cuzk_key_info info;
    cuzk_key_get_info(k->key, &info);
    k->nv = (size_t)info.n_vars;
    CHECK(k->flen > k->nv * 32);
    k->values = k->file + k->flen - k->nv * 32;
    return 1;
}

static void sample_close(sample_key *k) {
    cuzk_free(k->file);
    cuzk_key_release(k->key);
    cuzk_context_destroy(k->ctx);
}

/* Fixed r, s give the same bytes, from a file or from memory, and a pending
 * proof outlives the release of its key. */
static void test_split_fixed_rs(void) {
    char wtns[1100];
    path_in(wtns, sizeof wtns, sample, "witness.wtns");
    sample_key k;
    if (!sample_open(&k)) return;
    cuzk_key *key = k.key;
    cuzk_error e;
    const cuzk_witness_input wf = {.path = wtns};
    const cuzk_witness_input wm = {.values = k.values, .n_values = k.nv};
    uint8_t r[32] = {7}, s[32] = {9}, zero[32] = {0};
    cuzk_pending_proof *p1 = NULL, *p2 = NULL;
    cuzk_proof a, b;
    CHECK(cuzk_prove_start(key, &p1, &wf, &e) == CUZK_OK);
    CHECK(cuzk_prove_start(key, &p2, &wm, &e) == CUZK_OK);
    cuzk_key_release(key); /* the pending proofs keep it */
    k.key = NULL;
    CHECK(cuzk_prove_finish_with_rs(p1, &a, NULL, NULL, zero, s, &e) == CUZK_ERR_INVALID_ARG);
    CHECK(cuzk_prove_finish_with_rs(p1, &a, NULL, NULL, r, s, &e) == CUZK_OK);
    CHECK(cuzk_prove_finish_with_rs(p2, &b, NULL, NULL, r, s, &e) == CUZK_OK);
    CHECK_MEM(a.bytes, b.bytes, CUZK_PROOF_BYTES);
    CHECK(cuzk_prove_finish_with_rs(p1, &a, NULL, NULL, r, s, &e) == CUZK_ERR_INVALID_ARG);
    cuzk_pending_proof_release(p1);
    cuzk_pending_proof_release(p2);
    sample_close(&k);
}

static void test_zkey_bad_witness(void) {
    char r1cs[1100], bad[300];
    path_in(r1cs, sizeof r1cs, sample, "circuit.r1cs");
    path_in(bad, sizeof bad, tmpdir, "bad.wtns");
    sample_key k;
    if (!sample_open(&k)) return;
    cuzk_key *key = k.key;
    cuzk_error e;
    const size_t nv = k.nv;
    uint8_t *values = k.values;
    cuzk_proof proof;
    cuzk_witness_input w = {.values = values, .n_values = nv - 1};
    CHECK(cuzk_prove(key, &proof, NULL, NULL, &w, &e) == CUZK_ERR_INVALID_ARG);
    CHECK(strstr(e.msg, "values") != NULL);
    w.n_values = nv;
    values[0] = 2; /* the constant signal must be 1 */
    CHECK(cuzk_prove(key, &proof, NULL, NULL, &w, &e) == CUZK_ERR_INVALID_ARG);
    CHECK(strstr(e.msg, "value 0 must be 1") != NULL);
    values[0] = 1;
    uint8_t saved[32];
    memcpy(saved, values + 5 * 32, 32);
    memset(values + 5 * 32, 0xff, 32); /* above r */
    CHECK(cuzk_prove(key, &proof, NULL, NULL, &w, &e) == CUZK_ERR_NOT_CANONICAL);
    CHECK(strstr(e.msg, "value 5 is not below") != NULL);
    memcpy(values + 5 * 32, saved, 32);
    values[(nv - 1) * 32] ^= 1; /* the last signal changed: unsatisfied */
    CHECK(cuzk_prove(key, &proof, NULL, NULL, &w, &e) == CUZK_ERR_WITNESS_UNSATISFIED);
    CHECK(strstr(e.msg, "does not satisfy") != NULL);
    CHECK(cuzk_test_write_file(bad, k.file, k.flen));
    const cuzk_witness_input wb = {.path = bad};
    /* with the circuit attached, the failing constraint is named */
    CHECK(cuzk_key_attach_r1cs(key, "/nonexistent/c.r1cs", &e) == CUZK_ERR_IO);
    CHECK(strstr(e.msg, "/nonexistent/c.r1cs") != NULL);
    CHECK(cuzk_key_attach_r1cs(key, r1cs, &e) == CUZK_OK);
    CHECK(cuzk_key_attach_r1cs(key, r1cs, &e) == CUZK_ERR_INVALID_ARG);
    CHECK(cuzk_prove(key, &proof, NULL, NULL, &wb, &e) == CUZK_ERR_WITNESS_UNSATISFIED);
    CHECK(strstr(e.msg, "constraint") != NULL && strstr(e.msg, bad) != NULL);
    sample_close(&k);
}

/* A synthetic porep circuit, its development parameters and n witnesses in
 * tmpdir: circuit.cuzk, circuit.params, w<i>.wit. */
static int write_params_fixture(unsigned n) {
    cuzk_gen_params gp;
    memset(&gp, 0, sizeof(gp));
    gp.profile = CUZK_GEN_POREP;
    gp.log_constraints = 10;
    gp.seed = 5;
    gp.boolean_fraction = -1;
    cuzk_gen *g = NULL;
    cuzk_error e;
    cuzk_params p;
    memset(&p, 0, sizeof(p));
    char path[300];
    int ok = cuzk_gen_new(&g, &gp, &e) == CUZK_OK;
    path_in(path, sizeof path, tmpdir, "circuit.cuzk");
    ok = ok && cuzk_circuit_write(cuzk_gen_circuit(g), path, &e) == CUZK_OK;
    ok = ok && cuzk_groth16_setup_dev(&p, cuzk_gen_circuit(g), NULL, 2, &e) == CUZK_OK;
    path_in(path, sizeof path, tmpdir, "circuit.params");
    ok = ok && cuzk_params_write(path, &p, 0, &e) == CUZK_OK;
    for (unsigned i = 0; ok && i < n; i++) {
        cuzk_witness w;
        char name[32];
        snprintf(name, sizeof name, "w%u.wit", i);
        path_in(path, sizeof path, tmpdir, name);
        ok = cuzk_gen_witness(g, i, &w, &e) == CUZK_OK;
        ok = ok && cuzk_witness_write(&w, path, &e) == CUZK_OK;
        cuzk_witness_close(&w);
    }
    if (!ok) fprintf(stderr, "fixture: %s\n", cuzk_error_text(&e));
    cuzk_params_close(&p);
    cuzk_gen_free(g);
    return ok;
}

static void test_params_partitions(void) {
    enum { N = 3 };
    if (!write_params_fixture(N)) {
        CHECK(0);
        return;
    }
    char circuit[300], params[300], wp[N][300];
    path_in(circuit, sizeof circuit, tmpdir, "circuit.cuzk");
    path_in(params, sizeof params, tmpdir, "circuit.params");
    cuzk_witness_input in[N];
    for (int i = 0; i < N; i++) {
        char name[32];
        snprintf(name, sizeof name, "w%d.wit", i);
        path_in(wp[i], sizeof wp[i], tmpdir, name);
        in[i] = (cuzk_witness_input){.path = wp[i]};
    }
    cuzk_context *ctx = cpu_context(2);
    cuzk_key *key = NULL;
    cuzk_error e;
    CHECK(cuzk_key_open_params(ctx, &key, circuit, params, &e) == CUZK_OK);
    if (key == NULL) return;
    CHECK(cuzk_key_prepare(key, &e) == CUZK_OK);
    cuzk_key_info info;
    cuzk_key_get_info(key, &info);
    CHECK(info.kind == CUZK_KEY_PARAMS);
    const size_t np = (size_t)info.n_public;
    cuzk_proof proofs[N];
    cuzk_proof_times times[N];
    uint8_t *pub = malloc(N * np * 32 + 1);
    size_t failed = 99;
    CHECK(cuzk_prove_partitions(key, proofs, pub, times, &failed, in, N, &e) == CUZK_OK);
    CHECK(failed == N);
    for (int i = 0; i < N; i++) CHECK(times[i].total_ms > 0);
    cuzk_vk *vk = NULL;
    CHECK(cuzk_vk_read(&vk, params, &e) == CUZK_OK);
    CHECK(cuzk_verify_partitions(vk, &failed, proofs, N, pub, np, &e) == CUZK_OK);
    /* the public inputs as `cuzk verify` reads them, from the witness files */
    uint8_t *pub_file = malloc(np * 32 + 1);
    CHECK(cuzk_public_read(pub_file, np, wp[1], &e) == CUZK_OK);
    CHECK_MEM(pub_file, pub + np * 32, np * 32);
    pub[2 * np * 32] ^= 1;
    CHECK(cuzk_verify_partitions(vk, &failed, proofs, N, pub, np, &e) == CUZK_ERR_PROOF_INVALID);
    CHECK(failed == 2 && strncmp(e.msg, "partition 2", 11) == 0);
    /* a witness of another circuit fails its partition, named */
    char zw[1100];
    path_in(zw, sizeof zw, sample, "witness.wtns");
    in[1].path = zw;
    CHECK(cuzk_prove_partitions(key, proofs, NULL, NULL, &failed, in, N, &e) != CUZK_OK);
    CHECK(failed == 1 && strstr(e.msg, "partition 1") != NULL && strstr(e.msg, zw) != NULL);
    in[1].path = wp[1];
    cuzk_key_release(key);

    /* a point of the parameters corrupted: the self-check blames the key and
     * names the offset */
    cuzk_params p;
    memset(&p, 0, sizeof(p));
    CHECK(cuzk_params_open(&p, params, CUZK_PARAMS_DEFER_POINTS, &e) == CUZK_OK);
    const uint64_t off = p.l.offset + 96 * 3 + 40; /* inside x of L[3] */
    cuzk_params_close(&p);
    uint8_t *bytes = NULL;
    size_t blen = 0;
    CHECK(cuzk_file_read(&bytes, &blen, params, (size_t)1 << 30, &e) == CUZK_OK);
    if (bytes != NULL && off < blen) {
        bytes[off] ^= 0x5a;
        const cuzk_output o = {params, bytes, blen};
        CHECK(cuzk_files_write(&o, 1, &e) == CUZK_OK);
        CHECK(cuzk_key_open_params(ctx, &key, circuit, params, &e) == CUZK_OK);
        cuzk_proof one;
        CHECK(cuzk_prove(key, &one, NULL, NULL, &in[0], &e) == CUZK_ERR_KEY_CORRUPT);
        CHECK(strstr(e.msg, params) != NULL && strstr(e.msg, "offset") != NULL);
        cuzk_key_release(key);
    }
    cuzk_free(bytes);
    free(pub_file);
    free(pub);
    cuzk_vk_free(vk);
    cuzk_context_destroy(ctx);
}

/* With a GPU, the same proofs bit for bit through the API for fixed r, s:
 * the zkey sample and the circuit key's partitions (the fixture above). */
static void test_gpu_equals_cpu(void) {
    if (cuzk_gpu_count() <= 0) {
        printf("  (no GPU: skipped)\n");
        return;
    }
    char zkey[1100], wtns[1100], circuit[300], params[300], w0[300];
    path_in(zkey, sizeof zkey, sample, "circuit.zkey");
    path_in(wtns, sizeof wtns, sample, "witness.wtns");
    if (!write_params_fixture(1)) {
        CHECK(0);
        return;
    }
    path_in(circuit, sizeof circuit, tmpdir, "circuit.cuzk");
    path_in(params, sizeof params, tmpdir, "circuit.params");
    path_in(w0, sizeof w0, tmpdir, "w0.wit");
    cuzk_options o;
    cuzk_options_init(&o);
    o.backend = CUZK_BACKEND_GPU;
    cuzk_context *gpu = NULL, *cpu = cpu_context(0);
    cuzk_error e;
    CHECK(cuzk_context_create(&gpu, &o, &e) == CUZK_OK);
    const uint8_t r[32] = {3, 1, 4, 1, 5}, s[32] = {2, 7, 1, 8, 2, 8};
    for (int kind = 0; kind < 2 && gpu != NULL; kind++) {
        cuzk_proof proof[2];
        const cuzk_witness_input w = {.path = kind == 0 ? wtns : w0};
        for (int b = 0; b < 2; b++) {
            cuzk_key *key = NULL;
            cuzk_context *ctx = b == 0 ? cpu : gpu;
            const cuzk_status st = kind == 0 ? cuzk_key_open_zkey(ctx, &key, zkey, &e)
                                             : cuzk_key_open_params(ctx, &key, circuit, params, &e);
            CHECK(st == CUZK_OK);
            cuzk_key_info info;
            cuzk_key_get_info(key, &info);
            CHECK(info.backend == (b == 0 ? CUZK_BACKEND_CPU : CUZK_BACKEND_GPU));
            cuzk_pending_proof *p = NULL;
            CHECK(cuzk_prove_start(key, &p, &w, &e) == CUZK_OK);
            CHECK(cuzk_prove_finish_with_rs(p, &proof[b], NULL, NULL, r, s, &e) == CUZK_OK);
            if (e.status != CUZK_OK) fprintf(stderr, "  %s\n", cuzk_error_text(&e));
            cuzk_pending_proof_release(p);
            cuzk_key_release(key);
        }
        CHECK_MEM(proof[0].bytes, proof[1].bytes, CUZK_PROOF_BYTES);
    }
    cuzk_context_destroy(gpu);
    cuzk_context_destroy(cpu);
}

static void test_public_read_text(void) {
    char path[300];
    path_in(path, sizeof path, tmpdir, "inputs.txt");
    cuzk_error e;
    uint8_t out[3 * 32];
    static const char good[] = "# two inputs\n5\n\n  0x10  \n7"; /* no final newline */
    CHECK(cuzk_test_write_file(path, good, sizeof good - 1));
    CHECK(cuzk_public_read(out, 3, path, &e) == CUZK_OK);
    CHECK(out[0] == 5 && out[32] == 16 && out[64] == 7);
    CHECK(cuzk_public_read(out, 2, path, &e) == CUZK_ERR_INVALID_ARG);
    static const char nul[] = "5\n1\0002\n3\n";
    CHECK(cuzk_test_write_file(path, nul, sizeof nul - 1));
    CHECK(cuzk_public_read(out, 3, path, &e) == CUZK_ERR_BAD_ENCODING);
    CHECK(strstr(e.msg, "line 2") != NULL && strstr(e.msg, "NUL") != NULL);
    static const char big[] =
        "52435875175126190479447740508185965837690552500527637822603658699938581184513\n";
    CHECK(cuzk_test_write_file(path, big, sizeof big - 1));
    CHECK(cuzk_public_read(out, 1, path, &e) == CUZK_ERR_NOT_CANONICAL);
    /* a pipe is read once: its first bytes are not lost to telling the kinds apart */
    int fds[2];
    CHECK(pipe(fds) == 0);
    CHECK(write(fds[1], good, sizeof good - 1) == (ssize_t)(sizeof good - 1));
    close(fds[1]);
    char dev[64];
    snprintf(dev, sizeof dev, "/dev/fd/%d", fds[0]);
    memset(out, 0, sizeof out);
    CHECK(cuzk_public_read(out, 3, dev, &e) == CUZK_OK);
    CHECK(out[0] == 5 && out[32] == 16 && out[64] == 7);
    close(fds[0]);
}

static void test_files_write(void) {
    char a[300], b[300];
    path_in(a, sizeof a, tmpdir, "a.out");
    path_in(b, sizeof b, tmpdir, "b.out");
    cuzk_error e;
    const cuzk_output two[2] = {{a, "first", 5}, {b, "second", 6}};
    CHECK(cuzk_files_write(two, 2, &e) == CUZK_OK);
    const cuzk_output same[2] = {{a, "x", 1}, {a, "y", 1}};
    CHECK(cuzk_files_write(same, 2, &e) == CUZK_ERR_INVALID_ARG);
    const cuzk_output missing[2] = {{a, "new", 3}, {"/nonexistent/dir/f", "z", 1}};
    CHECK(cuzk_files_write(missing, 2, &e) != CUZK_OK);
    uint8_t *got = NULL;
    size_t len = 0;
    CHECK(cuzk_file_read(&got, &len, a, 100, &e) == CUZK_OK && len == 5 &&
          memcmp(got, "first", 5) == 0); /* untouched by the failed set */
    cuzk_free(got);
    /* no limit at all (the largest size_t) */
    CHECK(cuzk_file_read(&got, &len, a, SIZE_MAX, &e) == CUZK_OK && len == 5 &&
          memcmp(got, "first", 5) == 0);
    cuzk_free(got);
}

int main(int argc, char **argv) {
    cuzk_test_init(argc, argv);
    const char *src = getenv("CUZK_SOURCE_DIR");
    snprintf(sample, sizeof sample, "%s/examples/sample", src != NULL ? src : ".");
    snprintf(tmpdir, sizeof tmpdir, "/tmp/cuzk-test-api-XXXXXX");
    if (mkdtemp(tmpdir) == NULL) return cuzk_test_skip("cannot make a temporary folder");
    RUN(test_options);
    RUN(test_zkey_prove_verify);
    RUN(test_split_fixed_rs);
    RUN(test_zkey_bad_witness);
    RUN(test_params_partitions);
    RUN(test_gpu_equals_cpu);
    RUN(test_public_read_text);
    RUN(test_files_write);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmpdir);
    return cuzk_test_finish();
}
