/*
 * prove_cmd.c — the bellman / Filecoin-form commands over our circuit files:
 *
 *   cuzk prove --circuit C --params P --witness W0 [W1 ...] -o proof.bin
 *              [--threads N] [--backend cpu|gpu|auto] [--device N | --devices all|N,M,...]
 *              [--no-verify] [--verbose]
 *     One partition per witness, in the order given: proof.bin is the
 *     N x 192-byte concatenation (src/groth16/proof192.h). With --devices
 *     (GPU backend) the partitions are dealt to one lane per listed device,
 *     each lane a thread with its own backend instance and key, proving
 *     partitions d, d + D, ... and announcing its next witness early; the
 *     keys of different devices are prepared at once, those of lanes that
 *     share a device one at a time; the first failure stops the other lanes
 *     and the lowest failing partition among those tried is reported.
 *     --lanes N does the same on the CPU backend (N partitions at a time,
 *     the cores divided among them when --threads is not given). Each proof is
 *     verified against the parameters' verifying key before anything is
 *     written (--no-verify skips that), on a thread beside the lane's next
 *     partition (self_check); the file is written through
 *     proof.bin.tmp and a rename, so a failure leaves no proof behind.
 *     The parameters are read without the per-point curve and subgroup
 *     checks of their five vectors (seconds to minutes at PoRep size; the
 *     verifying key is always checked): a corrupted point gives a proof
 *     that fails the self-check, so nothing wrong is written. With a GPU the
 *     vectors stay in the file until each lane's key reads and decodes them
 *     on its device (params.h, deferred points), which also refuses a point
 *     off the curve, naming it.
 *
 *   cuzk verify (--vk V | --params P) --inputs IN0 [IN1 ...] proof.bin
 *     Verifies every partition of proof.bin (the LAST file argument),
 *     partition i against the public inputs of INi. An inputs file is
 *     either one of our witness files (its inputs after the constant 1 are
 *     taken) or text: one public input per line (the constant 1 left out),
 *     decimal or 0x-prefixed hex, each < r; blank lines and lines starting
 *     with '#' are skipped. The number of inputs files must equal the number
 *     of partitions. A failure names the partition.
 *
 * Exit status: 0 success (every partition valid), 1 an invalid proof or an
 * unsatisfied witness, 2 usage or input error (unreadable or malformed
 * files, a proof that does not decode, counts that disagree). Errors are one
 * line on stderr naming the file and the reason.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/atomic_write.h"
#include "groth16/backend.h"
#include "circuit/circuit.h"
#include "commands.h"
#include "cuzk.h"
#include "ff/fr.h"
#include "groth16/groth16.h"
#include "util/mem.h"
#include "io/params.h"
#include "groth16/proof192.h"
#include "circuit/witness.h"

#define EXIT_INVALID 1
#define EXIT_ERROR 2

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int fail(const char *cmd, const cuzk_error *err) {
    fprintf(stderr, "cuzk %s: %s\n", cmd, cuzk__error_text(err));
    if (err->status == CUZK_ERR_PROOF_INVALID || err->status == CUZK_ERR_WITNESS_UNSATISFIED)
        return EXIT_INVALID;
    return EXIT_ERROR;
}

static int is_option(const char *s) { return s[0] == '-' && s[1] != '\0'; }

static int parse_threads(const char *s, unsigned *v) {
    char *end;
    unsigned long x = strtoul(s, &end, 10);
    if (*s == '\0' || *end != '\0' || x > 4096) return 0;
    *v = (unsigned)x;
    return 1;
}


/* ---- cuzk prove ----------------------------------------------------------------- */

static int prove_usage(void) {
    fprintf(stderr,
            "usage: cuzk prove --circuit C --params P --witness W0 [W1 ...] -o proof.bin\n"
            "                  [--threads N] [--backend cpu|gpu|auto] [--device N | --devices "
            "all|N,M,...]\n"
            "                  [--lanes N] [--no-verify] [--verbose]\n"
            "  one 192-byte bellman proof per witness (partition), concatenated in the\n"
            "  order given; every proof is verified before the file is written\n"
            "  (--no-verify skips that). --device picks the GPU (default 0); --devices\n"
            "  proves the partitions on several GPUs at once, each holding its own copy\n"
            "  of the key (a GPU listed twice holds two, overlapping one partition's host\n"
            "  work with the other's kernels). --lanes N (CPU backend) proves N partitions\n"
            "  at a time, the cores shared among them. Exit 0 written, 1 unsatisfied\n"
            "  witness or failed self-check, 2 usage or input error.\n");
    return EXIT_ERROR;
}

#define PROVE_MAX_DEVICES 64

/* --device N / --devices all|N,M,...: the GPU ordinals in dev[], their count
 * (0 after printing why). An ordinal listed twice gets two lanes, each with
 * its own key on that device: twice the device memory, and one partition's
 * host-side work (witness, assembly, self-check) beside the other's kernels.
 * resolve 0 checks the spelling only ("all" counts as one); resolve 1 also
 * expands "all" and checks the ordinals against the devices present when
 * there are any (with none, opening the backend says so). */
static size_t parse_devices(const char *s, int single, int resolve, int dev[PROVE_MAX_DEVICES]) {
    const int count = resolve ? cuzk__cli_gpu_count() : 0;
    size_t n = 0;
    if (strcmp(s, "all") == 0 && !single) {
        if (!resolve) return 1;
        if (count <= 0) {
            fprintf(stderr, "cuzk prove: --devices all: no CUDA device present\n");
            return 0;
        }
        for (int d = 0; d < count && n < PROVE_MAX_DEVICES; d++) dev[n++] = d;
        return n;
    }
    for (const char *q = s;;) {
        char *end;
        errno = 0;
        const long d = *q >= '0' && *q <= '9' ? strtol(q, &end, 10) : -1;
        if (d < 0 || errno != 0 || d > 4095 || (*end != ',' && *end != '\0') ||
            (single && *end != '\0')) {
            fprintf(stderr, "cuzk prove: bad device %s '%s' (%s)\n", single ? "ordinal" : "list",
                    s, single ? "one ordinal like 1" : "all, or ordinals like 0,1");
            return 0;
        }
        if (count > 0 && d >= count) {
            fprintf(stderr, "cuzk prove: GPU %ld requested, %d present\n", d, count);
            return 0;
        }
        if (n == PROVE_MAX_DEVICES) {
            fprintf(stderr, "cuzk prove: more than %d devices in '%s'\n", PROVE_MAX_DEVICES, s);
            return 0;
        }
        dev[n++] = (int)d;
        if (*end == '\0') return n;
        q = end + 1;
    }
}

/* What every lane reads (nothing here changes while lanes run, except
 * proofs, whose slots are disjoint, and stop). */
typedef struct {
    const cuzk_backend_ops *ops;
    unsigned threads;
    const cuzk_circuit *c;
    const cuzk_params *p;
    const cuzk_groth16_vk *vk; /* NULL: --no-verify */
    const char *params_path;
    const char **wpaths;
    size_t n_w, n_pub;
    int verbose, multi; /* multi: several lanes (messages name their GPU, if any) */
    uint8_t *proofs;             /* n_w x 192 bytes */
    atomic_int stop;             /* a lane failed: the others stop at their next partition */
} prove_shared;

/* The self-check of one proof, run on a thread of its own beside the lane's
 * next partition: a Groth16 verification costs tens of milliseconds on the
 * CPU (50-70 ms with 328 public inputs), as much as a 2^22 partition on an
 * H200, and done in line it held the GPU idle (doc/perf.md, session 8). At
 * most one per lane is in flight; the lane waits for it before starting the
 * next one and before it finishes, so a failure is never missed. */
typedef struct {
    const prove_shared *sh;
    size_t index; /* the partition */
    cuzk_groth16_proof proof;
    uint64_t (*pub)[4];
    double ms;
    cuzk_error err;
    int failed;
    int running;
    pthread_t thread;
} self_check;

static void self_check_run(self_check *v) {
    const prove_shared *sh = v->sh;
    const double t = now_ms();
    cuzk__error_clear(&v->err);
    v->failed = cuzk_groth16_verify(sh->vk, (const uint64_t(*)[4])v->pub, sh->n_pub, &v->proof,
                                    &v->err) != CUZK_OK;
    if (v->failed) {
        /* any failure here (pairing, or a proof point off the curve from
         * corrupted parameters) is an invalid proof: exit 1 */
        cuzk_error e2 = v->err;
        cuzk__fail(&v->err, CUZK_ERR_PROOF_INVALID,
                   "the proof failed its self-check against %s (%s)", sh->params_path,
                   cuzk__error_text(&e2));
    }
    v->ms = now_ms() - t;
}

static void *self_check_main(void *arg) {
    self_check_run(arg);
    return NULL;
}

/* One lane: one backend instance (one GPU, or the CPU) proving partitions
 * first, first + stride, ... with its own key. */
typedef struct prove_lane {
    prove_shared *sh;
    int device; /* -1: the backend's default */
    /* Key preparation is serialized per device up to where proofs can
     * start (cuzk_backend_prepare_early: a GPU key's device memory is all
     * allocated by then, the vectors after h still loading beside the next
     * lane's preparation and the first proofs): lanes of one device would
     * otherwise allocate two keys at once, and CPU lanes (device -1) already
     * use every core for one. Lanes of different GPUs prepare side by side
     * (their uploads take separate links). */
    pthread_mutex_t prepare_mu;         /* owned by the device's first lane */
    struct prove_lane *prepare_owner;   /* the lane whose prepare_mu this one takes */
    char where[32]; /* " on GPU d" where several lanes run on GPUs, else "" */
    size_t first, stride;
    cuzk_error err;
    size_t failed; /* the partition that failed (n_w: none, or before any) */
    int rc;
    int stopped; /* gave up because another lane failed (not a failure itself) */
    pthread_t thread;
} prove_lane;

/* A finished check: its time (--verbose), or its failure recorded as the
 * lane's (partition and reason; the lane's exit then stops the others). */
static int self_check_report(self_check *v, prove_lane *L) {
    if (v->failed) {
        L->failed = v->index;
        L->err = v->err;
        return -1;
    }
    if (L->sh->verbose)
        fprintf(stderr, "cuzk prove: partition %zu%s: self-check %.1f ms\n", v->index, L->where,
                v->ms);
    return 0;
}

/* Waits for the lane's check in flight, if any, and reports it. */
static int self_check_wait(self_check *v, prove_lane *L) {
    if (!v->running) return 0;
    pthread_join(v->thread, NULL);
    v->running = 0;
    return self_check_report(v, L);
}

static void lane_prove(prove_lane *L) {
    prove_shared *sh = L->sh;
    cuzk_error *err = &L->err;
    cuzk_backend be;
    cuzk_witness ws[2]; /* partition i's witness beside the lane's next one */
    memset(&be, 0, sizeof(be));
    memset(ws, 0, sizeof(ws));
    cuzk_backend_key *key = NULL;
    cuzk_backend_job *job = NULL;
    self_check chk;
    memset(&chk, 0, sizeof(chk));
    chk.sh = sh;
    uint64_t(*pub)[4] = malloc((sh->n_pub ? sh->n_pub : 1) * sizeof(*pub));
    chk.pub = malloc((sh->n_pub ? sh->n_pub : 1) * sizeof(*pub));
    L->rc = EXIT_ERROR;
    L->failed = sh->n_w;
    if (pub == NULL || chk.pub == NULL) {
        cuzk__fail(err, CUZK_ERR_NOMEM, "no memory for %zu public inputs", sh->n_pub);
        goto out;
    }
    if (cuzk_backend_open(&be, sh->ops, sh->threads, L->device, err) != CUZK_OK) goto out;
    double t = now_ms();
    pthread_mutex_lock(&L->prepare_owner->prepare_mu);
    L->stopped = atomic_load(&sh->stop);
    const cuzk_status pst =
        L->stopped ? CUZK_OK : cuzk_backend_prepare_early(&be, &key, sh->c, sh->p, err);
    pthread_mutex_unlock(&L->prepare_owner->prepare_mu);
    if (L->stopped || pst != CUZK_OK) goto out;
    if (key == NULL) {
        cuzk__fail(err, CUZK_ERR_UNSUPPORTED, "the %s backend prepared no key", sh->ops->name);
        goto out;
    }
    if (sh->verbose)
        fprintf(stderr, "cuzk prove: prepare (%s%s) %.1f ms\n", sh->ops->name, L->where,
                now_ms() - t);
    size_t i = L->first;
    if (i < sh->n_w && cuzk_witness_open(&ws[0], sh->wpaths[i], err) != CUZK_OK) {
        L->failed = i;
        goto out;
    }
    for (size_t q = 0; i < sh->n_w; i += L->stride, q++) {
        if (atomic_load(&sh->stop)) {
            L->stopped = 1;
            goto out;
        }
        L->failed = i;
        cuzk_witness *w = &ws[q % 2], *next = &ws[(q + 1) % 2];
        const size_t in = i + L->stride;
        /* the lane's next witness is announced before this proof starts, so
         * that a GPU copies it while this one computes */
        if (in < sh->n_w && (cuzk_witness_open(next, sh->wpaths[in], err) != CUZK_OK ||
                             cuzk_backend_stage(&be, key, next, err) != CUZK_OK)) {
            L->failed = in;
            goto out;
        }
        if (cuzk_backend_prove_start(&be, &job, key, w, err) != CUZK_OK) goto out;
        for (size_t k = 0; k < sh->n_pub; k++) memcpy(pub[k], w->values + 4 * (k + 1), 32);
        cuzk_witness_close(w);
        uint64_t r[4], s[4];
        cuzk_groth16_proof proof;
        if (cuzk_groth16_random_scalar(r, err) != CUZK_OK ||
            cuzk_groth16_random_scalar(s, err) != CUZK_OK)
            goto out;
        cuzk_status st = cuzk_backend_prove_finish(&be, &proof, job, r, s, err);
        cuzk__wipe(r, sizeof(r));
        cuzk__wipe(s, sizeof(s));
        if (st != CUZK_OK) goto out;
        cuzk_proof192_encode(sh->proofs + i * CUZK_PROOF192_BYTES, &proof);
        if (sh->verbose) {
            const cuzk_groth16_stage_times *tm = cuzk_backend_job_times(job);
            fprintf(stderr,
                    "cuzk prove: partition %zu (%s)%s: total %.1f ms: spmv %.1f, check %.1f, "
                    "ntt %.1f, msm_h %.1f, prep %.1f, batch_add %.1f, tail_msm %.1f, "
                    "b_g2_msm %.1f, key_wait %.1f, finish %.1f; witness %s\n",
                    i, sh->wpaths[i], L->where, tm->total_ms, tm->spmv_ms, tm->check_ms,
                    tm->ntt_ms, tm->msm_h_ms, tm->prep_ms, tm->batch_add_ms, tm->tail_msm_ms,
                    tm->b_g2_msm_ms, tm->key_wait_ms, tm->finish_ms,
                    job->witness_staged ? "pre-staged" : "loaded by the proof");
        }
        cuzk_backend_release_job(&be, job);
        job = NULL;
        if (sh->vk != NULL) { /* the previous check first, then this one beside the next proof */
            if (self_check_wait(&chk, L) != 0) goto out;
            chk.index = i;
            chk.proof = proof;
            memcpy(chk.pub, pub, sh->n_pub * sizeof(*pub));
            if (pthread_create(&chk.thread, NULL, self_check_main, &chk) == 0) {
                chk.running = 1;
            } else { /* no thread: check in line */
                self_check_run(&chk);
                chk.running = 0;
                if (self_check_report(&chk, L) != 0) goto out;
            }
        }
    }
    if (self_check_wait(&chk, L) != 0) goto out;
    L->failed = sh->n_w;
    L->rc = 0;
out:
    /* A check still in flight is for an earlier partition than anything that
     * failed or stopped the lane since, so its failure is the lane's. */
    if (self_check_wait(&chk, L) != 0) L->stopped = 0;
    if (L->rc != 0 && !L->stopped) atomic_store(&sh->stop, 1);
    if (be.ops != NULL) { /* the key first: it stops copying an announced witness */
        cuzk_backend_release_job(&be, job);
        cuzk_backend_release_key(&be, key);
    }
    cuzk_witness_close(&ws[0]);
    cuzk_witness_close(&ws[1]);
    cuzk_backend_close(&be);
    free(pub);
    free(chk.pub);
}

static void *lane_main(void *arg) {
    lane_prove(arg);
    return NULL;
}

int cuzk__cmd_prove(int argc, char **argv) {
    const char *circuit_path = NULL, *params_path = NULL, *out_path = NULL;
    const char *backend_name = "auto", *devices_arg = NULL;
    int devices_single = 0;
    unsigned threads = 0, lanes_opt = 0;
    int verify = 1, verbose = 0;
    const char **wpaths = calloc((size_t)argc + 1, sizeof(char *));
    size_t n_w = 0;
    if (wpaths == NULL) return EXIT_ERROR;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        int has = i + 1 < argc;
        if (strcmp(a, "--circuit") == 0 && has) {
            circuit_path = argv[++i];
        } else if (strcmp(a, "--params") == 0 && has) {
            params_path = argv[++i];
        } else if ((strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) && has) {
            out_path = argv[++i];
        } else if (strcmp(a, "--backend") == 0 && has) {
            backend_name = argv[++i];
        } else if ((strcmp(a, "--device") == 0 || strcmp(a, "--devices") == 0) && has) {
            if (devices_arg != NULL) {
                fprintf(stderr, "cuzk prove: give --device or --devices once\n");
                free(wpaths);
                return EXIT_ERROR;
            }
            devices_single = strcmp(a, "--device") == 0;
            devices_arg = argv[++i];
        } else if (strcmp(a, "--lanes") == 0 && has) {
            if (!parse_threads(argv[++i], &lanes_opt) || lanes_opt == 0 ||
                lanes_opt > PROVE_MAX_DEVICES) {
                fprintf(stderr, "cuzk prove: --lanes takes 1..%d\n", PROVE_MAX_DEVICES);
                free(wpaths);
                return EXIT_ERROR;
            }
        } else if (strcmp(a, "--threads") == 0 && has) {
            if (!parse_threads(argv[++i], &threads)) {
                free(wpaths);
                return prove_usage();
            }
        } else if (strcmp(a, "--witness") == 0) {
            while (i + 1 < argc && !is_option(argv[i + 1])) wpaths[n_w++] = argv[++i];
        } else if (strcmp(a, "--no-verify") == 0) {
            verify = 0;
        } else if (strcmp(a, "--verbose") == 0 || strcmp(a, "-v") == 0) {
            verbose = 1;
        } else {
            fprintf(stderr, "cuzk prove: unexpected argument '%s'\n", a);
            free(wpaths);
            return prove_usage();
        }
    }
    if (circuit_path == NULL || params_path == NULL || out_path == NULL || n_w == 0) {
        free(wpaths);
        return prove_usage();
    }
    if (!cuzk__cli_output_ok(out_path, "prove")) {
        free(wpaths);
        return EXIT_ERROR;
    }
    /* the lanes: one per listed GPU, --lanes on the CPU, else one; the
     * options' spelling is checked before the backend is looked up */
    int dev[PROVE_MAX_DEVICES];
    size_t n_dev = 1;
    dev[0] = -1;
    const char *why = devices_arg != NULL && strcmp(backend_name, "gpu") != 0
                          ? "--device/--devices need --backend gpu"
                      : lanes_opt > 0 && strcmp(backend_name, "cpu") != 0
                          ? "--lanes needs --backend cpu (GPUs take --devices)"
                          : NULL;
    if (why != NULL) fprintf(stderr, "cuzk prove: %s\n", why);
    const cuzk_backend_ops *ops = NULL;
    if (why == NULL && (devices_arg == NULL || parse_devices(devices_arg, devices_single, 0, dev)))
        ops = cuzk__cli_backend(backend_name, "prove");
    if (ops != NULL && devices_arg != NULL) {
        n_dev = parse_devices(devices_arg, devices_single, 1, dev);
        if (n_dev == 0) ops = NULL;
    } else if (ops != NULL && lanes_opt > 0) {
        n_dev = lanes_opt;
        for (size_t l = 0; l < n_dev; l++) dev[l] = -1;
    }
    if (ops == NULL) {
        free(wpaths);
        return EXIT_ERROR;
    }

    cuzk_error err;
    cuzk__error_clear(&err);
    cuzk_circuit c;
    cuzk_params p;
    cuzk_groth16_vk vk;
    memset(&c, 0, sizeof(c));
    memset(&p, 0, sizeof(p));
    memset(&vk, 0, sizeof(vk));
    uint8_t *proofs = NULL;
    prove_lane *lanes = NULL;
    size_t n_lanes = 0, started = 0;
    prove_shared sh;
    memset(&sh, 0, sizeof(sh));
    size_t mu_ok = 0; /* lanes whose prepare_mu is initialized */
    int rc = EXIT_ERROR;

    double t = now_ms();
    if (cuzk_circuit_open(&c, circuit_path, 0, &err) != CUZK_OK) goto out;
    /* auto: small circuits stay on the CPU (bringing a device up costs more) */
    if (strcmp(backend_name, "auto") == 0 && c.domain_log < CUZK_AUTO_GPU_MIN_LOG)
        ops = &cuzk_backend_cpu;
    /* a GPU key reads the five vectors from the file itself and decodes them
     * on the device (params.h, deferred points): the host never holds them */
    const unsigned pflags =
        CUZK_PARAMS_PARALLEL | (ops->reads_deferred_points ? CUZK_PARAMS_DEFER_POINTS : 0);
    if (cuzk_params_open(&p, params_path, pflags, &err) != CUZK_OK) goto out;
    const double open_ms = now_ms() - t;
    if (verify && cuzk_groth16_vk_from_params(&vk, &p.vk, &err) != CUZK_OK) goto out;
    proofs = malloc(n_w * CUZK_PROOF192_BYTES);
    n_lanes = n_dev < n_w ? n_dev : n_w; /* a device with no partition stays idle */
    lanes = calloc(n_lanes, sizeof(*lanes));
    if (proofs == NULL || lanes == NULL) {
        cuzk__fail(&err, CUZK_ERR_NOMEM, "no memory for %zu proofs", n_w);
        goto out;
    }
    for (; mu_ok < n_lanes; mu_ok++)
        if (pthread_mutex_init(&lanes[mu_ok].prepare_mu, NULL) != 0) {
            cuzk__fail(&err, CUZK_ERR_NOMEM, "cannot create a mutex");
            goto out;
        }
    sh.ops = ops;
    sh.threads = threads;
    if (threads == 0 && lanes_opt > 1) { /* CPU lanes share the cores */
        const long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
        sh.threads = ncpu > (long)lanes_opt ? (unsigned)(ncpu / (long)lanes_opt) : 1;
    }
    sh.c = &c;
    sh.p = &p;
    sh.vk = verify ? &vk : NULL;
    sh.params_path = params_path;
    sh.wpaths = wpaths;
    sh.n_w = n_w;
    sh.n_pub = (size_t)c.n_inputs - 1;
    sh.verbose = verbose;
    sh.multi = n_lanes > 1;
    sh.proofs = proofs;
    atomic_init(&sh.stop, 0);
    if (verbose)
        fprintf(stderr,
                "cuzk prove: %s: %llu constraints, %llu inputs, %llu aux, domain 2^%u; "
                "opening %.1f ms; %zu partition%s in %zu lane%s\n",
                circuit_path, (unsigned long long)c.n_constraints,
                (unsigned long long)c.n_inputs, (unsigned long long)c.n_aux, c.domain_log,
                open_ms, n_w, n_w == 1 ? "" : "s", n_lanes, n_lanes == 1 ? "" : "s");
    for (size_t l = 0; l < n_lanes; l++) {
        lanes[l].sh = &sh;
        lanes[l].device = dev[l];
        lanes[l].prepare_owner = &lanes[l];
        for (size_t o = 0; o < l; o++)
            if (dev[o] == dev[l]) {
                lanes[l].prepare_owner = &lanes[o];
                break;
            }
        if (sh.multi && dev[l] >= 0)
            snprintf(lanes[l].where, sizeof lanes[l].where, " on GPU %d", dev[l]);
        lanes[l].first = l;
        lanes[l].stride = n_lanes;
        cuzk__error_clear(&lanes[l].err);
    }
    if (n_lanes == 1) {
        lane_prove(&lanes[0]);
        started = 1;
    } else {
        for (; started < n_lanes; started++)
            if (pthread_create(&lanes[started].thread, NULL, lane_main, &lanes[started]) != 0) {
                atomic_store(&sh.stop, 1);
                cuzk__fail(&err, CUZK_ERR_NOMEM, "cannot start the thread of lane %zu",
                           started);
                break;
            }
        for (size_t l = 0; l < started; l++) pthread_join(lanes[l].thread, NULL);
        if (started < n_lanes) goto out;
    }
    /* The failed lane with the lowest partition speaks for the run (the lowest
     * among the partitions tried: a stopped lane does not reach its later
     * ones). Lanes that only stopped because of it are not failures. */
    const prove_lane *bad = NULL;
    for (size_t l = 0; l < n_lanes; l++)
        if (lanes[l].rc != 0 && !lanes[l].stopped &&
            (bad == NULL || lanes[l].failed < bad->failed))
            bad = &lanes[l];
    if (bad != NULL) {
        cuzk_error e = bad->err;
        if (e.status == CUZK_OK) /* cannot happen: every failing path records why */
            cuzk__fail(&e, CUZK_ERR_UNSUPPORTED, "internal: a lane failed without saying why");
        if (bad->failed < n_w && (n_w > 1 || sh.multi || e.status == CUZK_ERR_PROOF_INVALID))
            cuzk__fail(&err, e.status, "partition %zu (%s)%s: %s; no proof written", bad->failed,
                       wpaths[bad->failed], bad->where, cuzk__error_text(&e));
        else if (bad->where[0] != '\0')
            cuzk__fail(&err, e.status, "GPU %d: %s; no proof written", bad->device,
                       cuzk__error_text(&e));
        else
            err = e;
        goto out;
    }
    for (size_t l = 0; l < n_lanes; l++)
        if (lanes[l].rc != 0) { /* stopped with no failed lane: cannot happen either */
            cuzk__fail(&err, CUZK_ERR_UNSUPPORTED,
                       "internal: lane %zu stopped without a failure", l);
            goto out;
        }
    const cuzk__write_piece piece = {proofs, (uint64_t)n_w * CUZK_PROOF192_BYTES};
    if (cuzk__write_file_atomic(out_path, &piece, 1, &err) != CUZK_OK) goto out;
    if (verbose)
        fprintf(stderr, "cuzk prove: wrote %zu partition%s (%zu bytes) to %s\n", n_w,
                n_w == 1 ? "" : "s", n_w * CUZK_PROOF192_BYTES, out_path);
    rc = 0;
out:
    for (size_t l = 0; l < mu_ok; l++) pthread_mutex_destroy(&lanes[l].prepare_mu);
    free(lanes);
    cuzk_groth16_vk_free(&vk);
    cuzk_params_close(&p);
    cuzk_circuit_close(&c);
    free(proofs);
    free(wpaths);
    return rc == 0 ? 0 : fail("prove", &err);
}

/* ---- cuzk verify ------------------------------------------------------------------ */

/* x = x * 10 + d (or * 16) on 4 limbs; 0 on overflow past 2^256. */
static int mul_add_small(uint64_t x[4], unsigned base, unsigned d) {
    unsigned __int128 carry = d;
    for (int i = 0; i < 4; i++) {
        unsigned __int128 v = (unsigned __int128)x[i] * base + carry;
        x[i] = (uint64_t)v;
        carry = v >> 64;
    }
    return carry == 0;
}

/* One number: decimal, or hex after 0x. */
static int parse_scalar(uint64_t out[4], const char *s, size_t n) {
    unsigned base = 10;
    memset(out, 0, 32);
    if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s += 2;
        n -= 2;
    }
    if (n == 0) return 0;
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];
        unsigned d;
        if (ch >= '0' && ch <= '9')
            d = (unsigned)(ch - '0');
        else if (base == 16 && ch >= 'a' && ch <= 'f')
            d = (unsigned)(ch - 'a' + 10);
        else if (base == 16 && ch >= 'A' && ch <= 'F')
            d = (unsigned)(ch - 'A' + 10);
        else
            return 0;
        if (!mul_add_small(out, base, d)) return 0;
    }
    return 1;
}

/* The public inputs of one partition from path (see the top of this file). */
static cuzk_status read_inputs(uint64_t (*out)[4], size_t n_public, const char *path,
                               cuzk_error *err) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) return cuzk__fail(err, CUZK_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    char magic[8];
    size_t got = fread(magic, 1, sizeof(magic), f);
    if (got == sizeof(magic) && memcmp(magic, CUZK_WITNESS_MAGIC, 8) == 0) {
        fclose(f);
        cuzk_witness w;
        cuzk_status st = cuzk_witness_open(&w, path, err);
        if (st != CUZK_OK) return st;
        if (w.n_inputs - 1 != n_public) {
            st = cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                            "%s: the witness has %llu public inputs, the verifying key expects "
                            "%zu",
                            path, (unsigned long long)(w.n_inputs - 1), n_public);
        } else {
            for (size_t k = 0; k < n_public; k++) memcpy(out[k], w.values + 4 * (k + 1), 32);
        }
        cuzk_witness_close(&w);
        return st;
    }
    rewind(f);
    static const uint64_t r[4] = CUZK__FR_R;
    char line[256];
    size_t count = 0, lineno = 0;
    cuzk_status st = CUZK_OK;
    while (st == CUZK_OK && fgets(line, sizeof(line), f) != NULL) {
        lineno++;
        size_t len = strlen(line);
        if (len == sizeof(line) - 1 && line[len - 1] != '\n') {
            st = cuzk__fail(err, CUZK_ERR_BAD_ENCODING, "%s: line %zu: too long", path, lineno);
            break;
        }
        char *b = line, *e = line + len;
        while (b < e && (*b == ' ' || *b == '\t')) b++;
        while (e > b && (e[-1] == '\n' || e[-1] == '\r' || e[-1] == ' ' || e[-1] == '\t')) e--;
        if (b == e || *b == '#') continue;
        uint64_t v[4];
        if (!parse_scalar(v, b, (size_t)(e - b))) {
            st = cuzk__fail(err, CUZK_ERR_BAD_ENCODING,
                            "%s: line %zu: not a decimal or 0x-hex number: '%.*s'", path, lineno,
                            (int)(e - b > 80 ? 80 : e - b), b);
        } else if (!cuzk__lt_n(v, r, 4)) {
            st = cuzk__fail(err, CUZK_ERR_NOT_CANONICAL,
                            "%s: line %zu: public input not below the group order r", path,
                            lineno);
        } else if (count >= n_public) {
            st = cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                            "%s: more than the %zu public inputs the verifying key expects",
                            path, n_public);
        } else {
            memcpy(out[count++], v, 32);
        }
    }
    if (st == CUZK_OK && ferror(f))
        st = cuzk__fail(err, CUZK_ERR_IO, "%s: read error", path);
    if (st == CUZK_OK && count != n_public)
        st = cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                        "%s: %zu public inputs, the verifying key expects %zu", path, count,
                        n_public);
    fclose(f);
    return st;
}

static cuzk_status read_whole(uint8_t **out, size_t *n, const char *path, cuzk_error *err) {
    *out = NULL;
    *n = 0;
    FILE *f = fopen(path, "rb");
    if (f == NULL) return cuzk__fail(err, CUZK_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    size_t cap = 4096, len = 0;
    uint8_t *buf = malloc(cap);
    cuzk_status st = CUZK_OK;
    while (buf != NULL) {
        len += fread(buf + len, 1, cap - len, f);
        if (len < cap) break;
        if (cap >= ((size_t)1 << 30)) {
            st = cuzk__fail(err, CUZK_ERR_BAD_LENGTH, "%s: too large for a proof file", path);
            break;
        }
        uint8_t *nb = realloc(buf, cap * 2);
        if (nb == NULL) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = nb;
        cap *= 2;
    }
    if (buf == NULL && st == CUZK_OK) st = cuzk__fail(err, CUZK_ERR_NOMEM, "%s: no memory", path);
    if (st == CUZK_OK && ferror(f)) st = cuzk__fail(err, CUZK_ERR_IO, "%s: read error", path);
    fclose(f);
    if (st != CUZK_OK) {
        free(buf);
        return st;
    }
    *out = buf;
    *n = len;
    return CUZK_OK;
}

static int verify_usage(void) {
    fprintf(stderr,
            "usage: cuzk verify (--vk V | --params P) --inputs IN0 [IN1 ...] proof.bin\n"
            "  verifies each 192-byte partition of proof.bin (the last file) against the\n"
            "  public inputs of INi: one of our witness files, or text with one input per\n"
            "  line (decimal or 0x-hex, the constant 1 left out; '#' lines skipped).\n"
            "  Exit 0 all valid, 1 a partition does not verify (named), 2 input error.\n");
    return EXIT_ERROR;
}

int cuzk__cmd_verify(int argc, char **argv) {
    const char *vk_path = NULL, *params_path = NULL;
    const char **files = calloc((size_t)argc + 1, sizeof(char *));
    size_t n_files = 0;
    if (files == NULL) return EXIT_ERROR;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--vk") == 0 && i + 1 < argc) {
            vk_path = argv[++i];
        } else if (strcmp(a, "--params") == 0 && i + 1 < argc) {
            params_path = argv[++i];
        } else if (strcmp(a, "--inputs") == 0) {
            /* a marker: the files follow; the last file of all is the proof */
        } else if (!is_option(a)) {
            files[n_files++] = a;
        } else {
            fprintf(stderr, "cuzk verify: unexpected argument '%s'\n", a);
            free(files);
            return verify_usage();
        }
    }
    if ((vk_path == NULL) == (params_path == NULL) || n_files < 1) {
        free(files);
        return verify_usage();
    }
    const char *proof_path = files[n_files - 1];
    const size_t n_in = n_files - 1;
    cuzk_error err;
    cuzk__error_clear(&err);
    cuzk_params_vk pvk;
    cuzk_params p;
    cuzk_groth16_vk vk;
    memset(&pvk, 0, sizeof(pvk));
    memset(&p, 0, sizeof(p));
    memset(&vk, 0, sizeof(vk));
    uint8_t *proofs = NULL;
    size_t len = 0;
    uint64_t(*inputs)[4] = NULL;
    int rc = EXIT_ERROR;
    if (vk_path != NULL) {
        if (cuzk_params_vk_open(&pvk, vk_path, 0, &err) != CUZK_OK) goto out;
        if (cuzk_groth16_vk_from_params(&vk, &pvk, &err) != CUZK_OK) goto out;
    } else {
        /* only the verifying key is needed: the vectors stay in the file
         * (deferred points; decoding them took ~9 s and 47 GB at 2^27) */
        if (cuzk_params_open(&p, params_path, CUZK_PARAMS_DEFER_POINTS, &err) != CUZK_OK)
            goto out;
        if (cuzk_groth16_vk_from_params(&vk, &p.vk, &err) != CUZK_OK) goto out;
        cuzk_params_close(&p);
    }
    if (read_whole(&proofs, &len, proof_path, &err) != CUZK_OK) goto out;
    if (len == 0 || len % CUZK_PROOF192_BYTES != 0) {
        cuzk__fail(&err, CUZK_ERR_BAD_LENGTH,
                   "%s: %zu bytes is not a positive multiple of %u (192-byte partition proofs)",
                   proof_path, len, CUZK_PROOF192_BYTES);
        goto out;
    }
    const size_t n_part = len / CUZK_PROOF192_BYTES;
    if (n_in != n_part) {
        cuzk__fail(&err, CUZK_ERR_INVALID_ARG,
                   "%s holds %zu partition proof%s but %zu inputs file%s were given (one per "
                   "partition, in order, before the proof)",
                   proof_path, n_part, n_part == 1 ? "" : "s", n_in, n_in == 1 ? "" : "s");
        goto out;
    }
    const size_t np = vk.n_public;
    inputs = malloc((n_part * np + 1) * sizeof(*inputs));
    if (inputs == NULL) {
        cuzk__fail(&err, CUZK_ERR_NOMEM, "no memory for the public inputs");
        goto out;
    }
    for (size_t i = 0; i < n_part; i++)
        if (read_inputs(inputs + i * np, np, files[i], &err) != CUZK_OK) goto out;
    size_t failed = n_part;
    if (cuzk_proof192_verify_partitions(&vk, proofs, len, (const uint64_t(*)[4])inputs, np,
                                        n_part, &failed, &err) != CUZK_OK) {
        if (failed < n_part) {
            cuzk_error e2 = err;
            cuzk__fail(&err, e2.status, "%s (inputs %s): %s", proof_path, files[failed],
                       cuzk__error_text(&e2));
        }
        goto out;
    }
    printf("OK: %zu partition%s valid\n", n_part, n_part == 1 ? "" : "s");
    rc = 0;
out:
    free(inputs);
    free(proofs);
    cuzk_groth16_vk_free(&vk);
    cuzk_params_vk_free(&pvk);
    cuzk_params_close(&p);
    free(files);
    return rc == 0 ? 0 : fail("verify", &err);
}
