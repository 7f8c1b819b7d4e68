/*
 * device.c — an SRS's keys on the devices (supraseal_impl.h): the SRS made
 * resident on a device at its first proof there (src/gpu/gpu_abc.h), when
 * the device has the room, and freed with the SRS; a device without the
 * room, or one that fails during a call, leaves its circuits to the CPU,
 * with the reason on stderr (once per SRS and device). Also the settings
 * and counts the tests read, the environment (CUZK_SUPRASEAL_GPU=0: the CPU
 * only; CUZK_SUPRASEAL_TIMING=1: stage times on stderr) and the device
 * count.
 *
 * The first call that needs a device makes the key there (without holding
 * the set's lock; calls for the same device wait for it). A key is used by
 * one call at a time on its device (the key's lock), and counted while in
 * use: a key whose device failed is marked dead (no new
 * use) and freed when its last use ends, so a call that still holds it is
 * never pulled from under. Without CUDA every function here says "no
 * device", and a body's set stays empty.
 */
#include "supraseal/supraseal_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/clock.h"

#if defined(CUZK_HAVE_CUDA)
#include "gpu/gpu.h"
#include "gpu/gpu_abc.h"
#endif

/* One device's slot of a body. */
typedef struct {
    void *key;     /* struct cuzk__gpu_abc_key *, or NULL */
    int making;    /* a call is making the key (outside the lock): others wait */
    int tried;     /* a key was made or refused: no second attempt */
    int dead;      /* the device failed: no new use, freed at the last */
    unsigned uses; /* calls holding the key */
} slot;

struct cuzk__ss_devices {
    pthread_mutex_t mu; /* the slots */
    pthread_cond_t cv;  /* a key made (or refused) */
    slot s[CUZK__SS_MAX_DEVICES];
};

/* ---- settings and counts ----------------------------------------------------------- */

static pthread_mutex_t settings_mu = PTHREAD_MUTEX_INITIALIZER;
static cuzk__ss_settings settings = {-1, 0, 0, 0};
static cuzk__ss_counts counts;

void cuzk__ss_set_settings(const cuzk__ss_settings *s) {
    const cuzk__ss_settings dflt = {-1, 0, 0, 0};
    pthread_mutex_lock(&settings_mu);
    settings = s != NULL ? *s : dflt;
    pthread_mutex_unlock(&settings_mu);
}

static cuzk__ss_settings settings_now(void) {
    pthread_mutex_lock(&settings_mu);
    const cuzk__ss_settings s = settings;
    pthread_mutex_unlock(&settings_mu);
    return s;
}

static void count(uint64_t *c, uint64_t n) { __atomic_fetch_add(c, n, __ATOMIC_RELAXED); }

void cuzk__ss_count_circuits(int on_gpu, uint64_t n) {
    count(on_gpu ? &counts.gpu_circuits : &counts.cpu_circuits, n);
}

void cuzk__ss_get_counts(cuzk__ss_counts *out) {
    const uint64_t *src = (const uint64_t *)&counts;
    uint64_t *dst = (uint64_t *)out;
    for (size_t i = 0; i < sizeof(*out) / sizeof(uint64_t); i++)
        dst[i] = __atomic_load_n(&src[i], __ATOMIC_RELAXED);
}

/* ---- the device count ----------------------------------------------------------------- */

/* The environment, read once. */
static pthread_once_t env_once = PTHREAD_ONCE_INIT;
static int env_gpu_off; /* CUZK_SUPRASEAL_GPU=0 */
static int env_timing;  /* CUZK_SUPRASEAL_TIMING=1 */

static void read_env(void) {
    const char *gpu = getenv("CUZK_SUPRASEAL_GPU"), *timing = getenv("CUZK_SUPRASEAL_TIMING");
    env_gpu_off = gpu != NULL && strcmp(gpu, "0") == 0;
    env_timing = timing != NULL && strcmp(timing, "1") == 0;
}

int cuzk__ss_timing(void) {
    (void)pthread_once(&env_once, read_env);
    return env_timing || settings_now().timing;
}

#if defined(CUZK_HAVE_CUDA)
static pthread_once_t count_once = PTHREAD_ONCE_INIT;
static int n_devices; /* CUDA's, capped */

static void count_devices(void) {
    int n = 0;
    if (cuzk__gpu_device_count(&n) != CUZK_OK) n = 0;
    n_devices = n < CUZK__SS_MAX_DEVICES ? n : CUZK__SS_MAX_DEVICES;
}
#endif

int cuzk__ss_device_count(void) {
#if defined(CUZK_HAVE_CUDA)
    const cuzk__ss_settings st = settings_now();
    if (st.gpu == 0) return 0;
    (void)pthread_once(&env_once, read_env);
    if (st.gpu < 0 && env_gpu_off) return 0;
    (void)pthread_once(&count_once, count_devices);
    return n_devices;
#else
    return 0;
#endif
}

/* ---- a body's keys -------------------------------------------------------------------- */

cuzk__ss_devices *cuzk__ss_devices_new(void) {
    cuzk__ss_devices *d = calloc(1, sizeof(*d));
    if (d == NULL) return NULL;
    if (pthread_mutex_init(&d->mu, NULL) != 0) {
        free(d);
        return NULL;
    }
    if (pthread_cond_init(&d->cv, NULL) != 0) {
        pthread_mutex_destroy(&d->mu);
        free(d);
        return NULL;
    }
    return d;
}

static void key_free(void *key) {
#if defined(CUZK_HAVE_CUDA)
    cuzk__gpu_abc_key_free(key);
#else
    (void)key;
#endif
}

void cuzk__ss_devices_free(cuzk__ss_devices *d) {
    if (d == NULL) return;
    for (int i = 0; i < CUZK__SS_MAX_DEVICES; i++) key_free(d->s[i].key);
    pthread_cond_destroy(&d->cv);
    pthread_mutex_destroy(&d->mu);
    free(d);
}

#if defined(CUZK_HAVE_CUDA)
/* s's key on device, or NULL with the reason logged (no lock held: an
 * upload of the SRS takes seconds at 2^27). */
static void *key_make(const cuzk__ss_srs *s, int device) {
    const cuzk__ss_settings st = settings_now();
    const cuzk__gpu_abc_opts o = {st.mem_limit, 0, st.one_assignment};
    cuzk_error err;
    cuzk__error_clear(&err);
    const double t0 = cuzk__now_ms();
    cuzk__gpu_abc_key *k = NULL;
    const cuzk_status rc = cuzk__gpu_abc_key_new(&k, device, &s->p, &o, &err);
    if (rc != CUZK_OK) {
        count(&counts.keys_refused, 1);
        fprintf(stderr, "cuzk_supraseal: GPU %d: not used for %s, proving on the CPU: %s\n",
                device, s->path, cuzk__error_text(&err));
        return NULL;
    }
    count(&counts.keys_made, 1);
    fprintf(stderr,
            "cuzk_supraseal: GPU %d: %s resident (%.0f MiB of device memory, made in %.2f "
            "s%s)\n",
            device, s->path, (double)cuzk__gpu_abc_key_device_bytes(k) / (1 << 20),
            (cuzk__now_ms() - t0) / 1e3,
            cuzk__gpu_abc_key_overlaps_assignment(k) ? "" : "; no room to overlap assignments");
    return k;
}
#endif

void *cuzk__ss_device_acquire(const cuzk__ss_srs *s, int device) {
#if defined(CUZK_HAVE_CUDA)
    cuzk__ss_devices *d = s->dev;
    if (d == NULL || device < 0 || device >= CUZK__SS_MAX_DEVICES) return NULL;
    pthread_mutex_lock(&d->mu);
    slot *sl = &d->s[device];
    while (sl->making) pthread_cond_wait(&d->cv, &d->mu);
    if (!sl->tried) { /* made once, by the first call; the others wait for it */
        sl->making = 1;
        pthread_mutex_unlock(&d->mu);
        void *made = key_make(s, device);
        pthread_mutex_lock(&d->mu);
        sl->key = made;
        sl->making = 0;
        sl->tried = 1;
        pthread_cond_broadcast(&d->cv);
    }
    void *key = sl->dead ? NULL : sl->key;
    if (key != NULL) sl->uses++;
    pthread_mutex_unlock(&d->mu);
    return key;
#else
    (void)s;
    (void)device;
    return NULL;
#endif
}

void cuzk__ss_device_release(const cuzk__ss_srs *s, int device, const cuzk_error *failure) {
    cuzk__ss_devices *d = s->dev;
    if (d == NULL || device < 0 || device >= CUZK__SS_MAX_DEVICES) return;
    void *gone = NULL;
    pthread_mutex_lock(&d->mu);
    slot *sl = &d->s[device];
    if (failure != NULL && !sl->dead) {
        sl->dead = 1;
        count(&counts.device_failures, 1);
        fprintf(stderr,
                "cuzk_supraseal: GPU %d failed proving with %s; it is not used for it again, "
                "the CPU proves its circuits: %s\n",
                device, s->path, cuzk__error_text(failure));
    }
    if (sl->uses > 0) sl->uses--;
    if (sl->dead && sl->uses == 0) {
        gone = sl->key;
        sl->key = NULL;
    }
    pthread_mutex_unlock(&d->mu);
    key_free(gone); /* outside the lock: it waits for the device */
}
