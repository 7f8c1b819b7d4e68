/*
 * srs.c — create_SRS, evict_SRS, drop_SRS, clone_SRS (doc/formats.md §17.6).
 *
 * A handle points to a reference-counted body holding the whole .params
 * file, decoded (cuzk_params_open: every count against the file, flags and
 * canonical coordinates of every point, the verifying key and IC on the
 * curve and in the subgroup; stricter than upstream, which checks counts
 * only), the verifying key in the verifier's form, the CPU's NTT domain
 * once a CPU proof needs it, and the keys on the devices it has proved on
 * (device.c), which go with the body.
 * Upstream returns from create_SRS once the counts are read and decodes on
 * a thread of its own; here create_SRS returns with everything loaded.
 *
 * The cache (cache = true): the four most recently used bodies by path,
 * exactly as the string was given (no canonicalisation), most recent first,
 * under one mutex that a load does not hold (minutes for a 47 GB file, in
 * which hits and other paths' loads go on); a caller of a path being loaded
 * waits for that load, so that two callers of one path load it once. A hit
 * moves the entry to the front; a miss loads, then drops the least recently
 * used entry if four are held, and inserts the new one at the front. The
 * cache holds one reference, every handle another. A failed load leaves the
 * cache as it was (upstream drops its oldest entry first).
 * cache = false loads a private body the cache never sees (what bellperson
 * and Curio do).
 */
#include "supraseal/supraseal_impl.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "groth16/proof192.h"

#define CACHE_MAX 4

static pthread_mutex_t cache_mu = PTHREAD_MUTEX_INITIALIZER;
static cuzk__ss_srs *cache[CACHE_MAX]; /* most recently used first */
static int cache_n;

/* The paths being loaded for the cache (nodes on their loaders' stacks),
 * under cache_mu; cache_cv tells of each load's end. */
typedef struct loading {
    const char *path;
    struct loading *next;
} loading;
static loading *cache_loading;
static pthread_cond_t cache_cv = PTHREAD_COND_INITIALIZER;

static int being_loaded(const char *path) {
    for (const loading *l = cache_loading; l != NULL; l = l->next)
        if (strcmp(l->path, path) == 0) return 1;
    return 0;
}

const cuzk__ss_srs *cuzk__ss_srs_of(const cuzk_supraseal_srs *h, const char **why) {
    if (h == NULL) {
        *why = "the SRS handle is NULL";
        return NULL;
    }
    const cuzk__ss_srs *s = h->ptr;
    if (s == NULL) {
        *why = "the SRS handle is empty (no create_SRS, or dropped)";
        return NULL;
    }
    if (s->magic != CUZK__SS_SRS_MAGIC) {
        *why = "the SRS handle points to no loaded parameters (dropped, or not from create_SRS)";
        return NULL;
    }
    return s;
}

void cuzk__ss_srs_ref(const cuzk__ss_srs *s) {
    atomic_fetch_add(&((cuzk__ss_srs *)s)->refs, 1);
}

/* Frees what body s holds, and s (a load that failed part way too). */
static void body_free(cuzk__ss_srs *s) {
    s->magic = 0;
    cuzk__ss_devices_free(s->dev); /* before the parameters its keys borrow */
    cuzk_ntt_domain_free(&s->dom);
    pthread_mutex_destroy(&s->dom_mu);
    pthread_mutex_destroy(&s->check_mu);
    cuzk_groth16_vk_free(&s->vk);
    if (!s->borrowed) cuzk_params_close(&s->p);
    free(s->path);
    free(s);
}

void cuzk__ss_srs_unref(const cuzk__ss_srs *cs) {
    cuzk__ss_srs *s = (cuzk__ss_srs *)cs;
    if (atomic_fetch_sub(&s->refs, 1) != 1) return;
    body_free(s);
}

cuzk_status cuzk__ss_srs_cpu_domain(const cuzk__ss_srs *cs, const cuzk_ntt_domain **out,
                                    cuzk_error *err) {
    cuzk__ss_srs *s = (cuzk__ss_srs *)cs;
    cuzk_status st = CUZK_OK;
    pthread_mutex_lock(&s->dom_mu);
    if (!s->dom_ready) {
        st = cuzk_ntt_domain_init(&s->dom, s->p.log_domain_size, CUZK_NTT_ROOT7);
        if (st == CUZK_OK)
            s->dom_ready = 1;
        else
            cuzk__fail(err, st, "%s: cannot set up the 2^%u NTT domain", s->path,
                       s->p.log_domain_size);
    }
    pthread_mutex_unlock(&s->dom_mu);
    *out = st == CUZK_OK ? &s->dom : NULL;
    return st;
}

cuzk_status cuzk__ss_srs_check_points(const cuzk__ss_srs *cs, cuzk_error *err) {
    cuzk__ss_srs *s = (cuzk__ss_srs *)cs;
    pthread_mutex_lock(&s->check_mu);
    if (!s->checked) {
        cuzk_params chk;
        memset(&chk, 0, sizeof(chk));
        s->check_st = cuzk_params_open(&chk, s->path, CUZK_PARAMS_DEFER_POINTS, &s->check_err);
        if (s->check_st == CUZK_OK) s->check_st = cuzk_params_check_vectors(&chk, &s->check_err);
        cuzk_params_close(&chk);
        s->checked = 1;
    }
    const cuzk_status st = s->check_st;
    if (st != CUZK_OK && err != NULL) *err = s->check_err;
    pthread_mutex_unlock(&s->check_mu);
    return st;
}

/* A new body for path (copied), its mutexes made; NULL when out of memory. */
static cuzk__ss_srs *body_new(const char *path) {
    cuzk__ss_srs *s = calloc(1, sizeof(*s));
    char *copy = strdup(path);
    if (s == NULL || copy == NULL || pthread_mutex_init(&s->dom_mu, NULL) != 0) {
        free(s);
        free(copy);
        return NULL;
    }
    if (pthread_mutex_init(&s->check_mu, NULL) != 0) {
        pthread_mutex_destroy(&s->dom_mu);
        free(s);
        free(copy);
        return NULL;
    }
    s->path = copy;
    s->dev = cuzk__ss_devices_new(); /* NULL: this body proves on the CPU */
    return s;
}

/* Reads path into a new body with one reference. */
static cuzk_supraseal_error load(cuzk__ss_srs **out, const char *path) {
    *out = NULL;
    /* upstream's message and errno for a file it cannot open */
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        return cuzk__ss_fail(e, "open(\"%s\") failed: %s", path, strerror(e));
    }
    close(fd);

    cuzk__ss_srs *s = body_new(path);
    if (s == NULL) return cuzk__ss_fail(ENOMEM, "no memory for the SRS of %s", path);
    cuzk_error err;
    cuzk_status st = cuzk_params_open(&s->p, path, CUZK_PARAMS_PARALLEL, &err);
    if (st == CUZK_OK && (s->p.root != CUZK_NTT_ROOT7 || s->p.h_kind != CUZK_H_MONOMIAL))
        st = cuzk__fail(&err, CUZK_ERR_UNSUPPORTED, "%s: not bellman parameters", path);
    if (st == CUZK_OK) st = cuzk_groth16_vk_from_params(&s->vk, &s->p.vk, &err);
    if (st != CUZK_OK) {
        body_free(s);
        return cuzk__ss_from(&err, "create_SRS: ");
    }
    s->magic = CUZK__SS_SRS_MAGIC;
    atomic_init(&s->refs, 1);
    *out = s;
    return cuzk__ss_ok();
}

cuzk_supraseal_error cuzk__ss_srs_wrap(cuzk_supraseal_srs *ret, const cuzk_params *p,
                                       const char *name) {
    if (ret == NULL || p == NULL || name == NULL)
        return cuzk__ss_fail(EINVAL, "cuzk__ss_srs_wrap: NULL argument");
    ret->ptr = NULL;
    if (p->root != CUZK_NTT_ROOT7 || p->h_kind != CUZK_H_MONOMIAL || p->deferred)
        return cuzk__ss_fail(EINVAL, "%s: not bellman parameters with their points in memory",
                             name);
    cuzk__ss_srs *s = body_new(name);
    if (s == NULL) return cuzk__ss_fail(ENOMEM, "no memory for the SRS of %s", name);
    s->p = *p; /* a shallow copy: the arrays stay the caller's */
    s->borrowed = 1;
    cuzk_error err;
    if (cuzk_groth16_vk_from_params(&s->vk, &s->p.vk, &err) != CUZK_OK) {
        body_free(s);
        return cuzk__ss_from(&err, "cuzk__ss_srs_wrap: ");
    }
    s->magic = CUZK__SS_SRS_MAGIC;
    atomic_init(&s->refs, 1);
    ret->ptr = s;
    return cuzk__ss_ok();
}

/* Removes cache entry i and returns its body (the cache's reference with
 * it). Under cache_mu. */
static cuzk__ss_srs *cache_take(int i) {
    cuzk__ss_srs *s = cache[i];
    memmove(&cache[i], &cache[i + 1], (size_t)(cache_n - i - 1) * sizeof(cache[0]));
    cache[--cache_n] = NULL;
    return s;
}

cuzk_supraseal_error create_SRS(cuzk_supraseal_srs *ret, const char *srs_path, bool cache_it) {
    if (ret == NULL) return cuzk__ss_fail(EINVAL, "create_SRS: ret is NULL");
    ret->ptr = NULL;
    if (srs_path == NULL) return cuzk__ss_fail(EINVAL, "create_SRS: the path is NULL");
    if (!cache_it) {
        cuzk__ss_srs *s;
        cuzk_supraseal_error e = load(&s, srs_path);
        if (e.code == 0) ret->ptr = s;
        return e;
    }
    pthread_mutex_lock(&cache_mu);
    for (;;) {
        for (int i = 0; i < cache_n; i++)
            if (strcmp(cache[i]->path, srs_path) == 0) {
                cuzk__ss_srs *s = cache_take(i);
                memmove(&cache[1], &cache[0], (size_t)cache_n * sizeof(cache[0]));
                cache[0] = s;
                cache_n++;
                cuzk__ss_srs_ref(s);
                pthread_mutex_unlock(&cache_mu);
                ret->ptr = s;
                return cuzk__ss_ok();
            }
        if (!being_loaded(srs_path)) break;
        pthread_cond_wait(&cache_cv, &cache_mu); /* then a hit, or its load failed */
    }
    loading me = {srs_path, cache_loading};
    cache_loading = &me;
    pthread_mutex_unlock(&cache_mu);
    cuzk__ss_srs *s;
    cuzk_supraseal_error e = load(&s, srs_path);
    pthread_mutex_lock(&cache_mu);
    for (loading **l = &cache_loading; *l != NULL; l = &(*l)->next)
        if (*l == &me) {
            *l = me.next;
            break;
        }
    pthread_cond_broadcast(&cache_cv);
    if (e.code != 0) {
        pthread_mutex_unlock(&cache_mu);
        return e;
    }
    cuzk__ss_srs *old = cache_n == CACHE_MAX ? cache_take(CACHE_MAX - 1) : NULL;
    memmove(&cache[1], &cache[0], (size_t)cache_n * sizeof(cache[0]));
    cache[0] = s;
    cache_n++;
    cuzk__ss_srs_ref(s); /* the cache's and the handle's */
    pthread_mutex_unlock(&cache_mu);
    if (old != NULL) cuzk__ss_srs_unref(old);
    ret->ptr = s;
    return cuzk__ss_ok();
}

void evict_SRS(const cuzk_supraseal_srs *srs) {
    const char *why;
    const cuzk__ss_srs *s = cuzk__ss_srs_of(srs, &why);
    if (s == NULL) return;
    cuzk__ss_srs *gone = NULL;
    pthread_mutex_lock(&cache_mu);
    for (int i = 0; i < cache_n; i++)
        if (strcmp(cache[i]->path, s->path) == 0) {
            gone = cache_take(i);
            break;
        }
    pthread_mutex_unlock(&cache_mu);
    if (gone != NULL) cuzk__ss_srs_unref(gone);
}

void drop_SRS(const cuzk_supraseal_srs *srs) {
    const char *why;
    const cuzk__ss_srs *s = cuzk__ss_srs_of(srs, &why);
    if (s != NULL) cuzk__ss_srs_unref(s);
}

cuzk_supraseal_srs clone_SRS(const cuzk_supraseal_srs *srs) {
    const char *why;
    const cuzk__ss_srs *s = cuzk__ss_srs_of(srs, &why);
    cuzk_supraseal_srs out = {NULL};
    if (s != NULL) {
        cuzk__ss_srs_ref(s);
        out.ptr = s;
    }
    return out;
}
