/*
 * key_cache.c — keys by name (include/cuzk.h, "keys by name"): a job on a
 * named key keeps the name, and each of its partitions takes the key from
 * here, opening it again if it was evicted meanwhile. Open keys count their
 * files' sizes against key_cache_bytes; opening one closes the least
 * recently used keys that nothing proves with until it fits.
 *
 * Every call holds the engine's mutex except while files are opened or a
 * key prepared or freed; an entry's `loading` keeps a second thread from
 * opening it meanwhile (it waits on `changed`).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "engine/engine_impl.h"
#include "util/mem.h"

static cache_entry *find(cuzk_engine *e, const char *name) {
    for (cache_entry *c = e->keys; c != NULL; c = c->next)
        if (strcmp(c->name, name) == 0) return c;
    return NULL;
}

/* Closes ce's key (COLD); the lock is dropped while it is freed. */
static void close_entry(cuzk_engine *e, cache_entry *ce) {
    cuzk_key *k = ce->key;
    ce->key = NULL;
    ce->tier = CUZK_KEY_COLD;
    e->cache_used -= ce->bytes;
    ce->evictions++;
    pthread_mutex_unlock(&e->mu);
    cuzk__api_log(e->ctx, "engine: key %s closed", ce->name);
    cuzk__key_unref(k); /* its lanes and files go with the last reference */
    pthread_mutex_lock(&e->mu);
}

/* Closes idle keys, least recently used first, until `need` more bytes fit
 * the budget (or no idle key is left). */
static void make_room(cuzk_engine *e, const cache_entry *self, uint64_t need) {
    const uint64_t budget = e->opt.key_cache_bytes;
    while (budget != 0 && e->cache_used + need > budget) {
        cache_entry *lru = NULL;
        for (cache_entry *c = e->keys; c != NULL; c = c->next)
            if (c != self && c->key != NULL && c->running == 0 && !c->loading &&
                (lru == NULL || c->last_used_ms < lru->last_used_ms))
                lru = c;
        if (lru == NULL) return;
        close_entry(e, lru);
    }
}

static cuzk_status open_files(cuzk_engine *e, const cache_entry *ce, cuzk_key **out,
                              cuzk_error *err) {
    if (ce->zkey == NULL) return cuzk_key_open_params(e->ctx, out, ce->circuit, ce->params, err);
    cuzk_status st = cuzk_key_open_zkey(e->ctx, out, ce->zkey, err);
    if (st == CUZK_OK && ce->r1cs != NULL && (st = cuzk_key_attach_r1cs(*out, ce->r1cs, err)) !=
                                                 CUZK_OK) {
        cuzk_key_release(*out);
        *out = NULL;
    }
    return st;
}

/* ce open (WARM or HOT) on return with CUZK_OK. */
static cuzk_status ensure_open(cuzk_engine *e, cache_entry *ce, cuzk_error *err) {
    while (ce->key == NULL && ce->loading) pthread_cond_wait(&e->changed, &e->mu);
    if (ce->key != NULL) return CUZK_OK;
    ce->loading = 1;
    make_room(e, ce, ce->bytes);
    /* counted while it opens, so that a key opening beside it makes its
     * own room rather than taking the same */
    e->cache_used += ce->bytes;
    pthread_mutex_unlock(&e->mu);
    cuzk_key *k = NULL;
    const cuzk_status st = open_files(e, ce, &k, err);
    pthread_mutex_lock(&e->mu);
    ce->loading = 0;
    if (st == CUZK_OK) {
        ce->key = k;
        ce->tier = CUZK_KEY_WARM;
        ce->loads++;
    } else {
        e->cache_used -= ce->bytes;
    }
    pthread_cond_broadcast(&e->changed);
    return st;
}

cuzk_status cuzk__cache_acquire(cuzk_engine *e, job *j, cuzk_key **out, cuzk_error *err) {
    *out = NULL;
    if (j->ce == NULL) {
        atomic_fetch_add(&j->key->refs, 1);
        *out = j->key;
        return CUZK_OK;
    }
    const cuzk_status st = ensure_open(e, j->ce, err);
    if (st != CUZK_OK) return st;
    /* reopened from its files, which may have changed since the job was
     * submitted: the job's buffers are sized by the key it was checked with */
    const cuzk_key *k = j->ce->key;
    if (k->n_vars != j->n_vars || k->n_public != j->n_public)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                          "key %s: reopened with %llu variables and %llu public inputs, the "
                          "job was submitted for %llu and %llu (its files changed?)",
                          j->ce->name, (unsigned long long)k->n_vars,
                          (unsigned long long)k->n_public, (unsigned long long)j->n_vars,
                          (unsigned long long)j->n_public);
    atomic_fetch_add(&j->ce->key->refs, 1);
    *out = j->ce->key;
    j->ce->running++;
    return CUZK_OK;
}

void cuzk__cache_release(cuzk_engine *e, job *j, int proved) {
    cache_entry *ce = j->ce;
    if (ce == NULL) return;
    ce->running--;
    ce->last_used_ms = cuzk__engine_now(e);
    if (ce->key != NULL && proved) ce->tier = CUZK_KEY_HOT;
}

void cuzk__cache_unprepared(cuzk_engine *e, const cuzk_key *key) {
    for (cache_entry *c = e->keys; c != NULL; c = c->next)
        if (c->key == key && c->tier == CUZK_KEY_HOT) c->tier = CUZK_KEY_WARM;
}

static void entry_free(cache_entry *c) {
    if (c == NULL) return;
    cuzk__key_unref(c->key);
    free(c->name);
    free(c->zkey);
    free(c->r1cs);
    free(c->circuit);
    free(c->params);
    free(c);
}

void cuzk__cache_free(cuzk_engine *e) {
    while (e->keys != NULL) {
        cache_entry *c = e->keys;
        e->keys = c->next;
        entry_free(c);
    }
}

/* ---- the public calls ------------------------------------------------------ */

static cuzk_status file_bytes(uint64_t *total, const char *path, cuzk_error *err) {
    struct stat sb;
    if (stat(path, &sb) != 0)
        return cuzk__fail(err, CUZK_ERR_IO, "%s: %s", path, strerror(errno));
    if (!S_ISREG(sb.st_mode)) return cuzk__fail(err, CUZK_ERR_IO, "%s: not a regular file", path);
    *total += (uint64_t)sb.st_size;
    return CUZK_OK;
}

static int dup_opt(char **out, const char *s) {
    *out = NULL;
    return s == NULL || (*out = cuzk__strdup(s)) != NULL;
}

cuzk_status cuzk_engine_key_add(cuzk_engine *e, const char *name, const cuzk_key_source *src,
                                cuzk_error *err) {
    cuzk__error_clear(err);
    if (e == NULL || name == NULL || src == NULL || name[0] == '\0')
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "engine_key_add: NULL argument or no name");
    const int zk = src->zkey != NULL, circ = src->circuit != NULL && src->params != NULL;
    if (zk == circ || (zk && (src->circuit || src->params)) || (!zk && src->r1cs))
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG,
                          "engine_key_add: key %s: give a zkey (and an r1cs), or a circuit and "
                          "its params",
                          name);
    uint64_t bytes = 0;
    cuzk_status st = CUZK_OK;
    const char *paths[] = {src->zkey, src->r1cs, src->circuit, src->params};
    for (size_t i = 0; i < 4 && st == CUZK_OK; i++)
        if (paths[i] != NULL) st = file_bytes(&bytes, paths[i], err);
    if (st != CUZK_OK) return st;
    cache_entry *c = calloc(1, sizeof(*c));
    if (c == NULL || !dup_opt(&c->name, name) || !dup_opt(&c->zkey, src->zkey) ||
        !dup_opt(&c->r1cs, src->r1cs) || !dup_opt(&c->circuit, src->circuit) ||
        !dup_opt(&c->params, src->params)) {
        entry_free(c);
        return cuzk__fail(err, CUZK_ERR_NOMEM, "no memory for key %s", name);
    }
    c->bytes = bytes;
    pthread_mutex_lock(&e->mu);
    if (find(e, name) != NULL) {
        pthread_mutex_unlock(&e->mu);
        entry_free(c);
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "engine_key_add: key %s exists", name);
    }
    c->next = e->keys;
    e->keys = c;
    pthread_mutex_unlock(&e->mu);
    return CUZK_OK;
}

/* The entry of name, open, with the lock held (CUZK_OK), else unlocked. */
static cuzk_status open_named(cuzk_engine *e, const char *name, cache_entry **out,
                              cuzk_error *err) {
    pthread_mutex_lock(&e->mu);
    cache_entry *c = find(e, name);
    cuzk_status st = c != NULL ? ensure_open(e, c, err)
                               : cuzk__fail(err, CUZK_ERR_NOT_FOUND, "key %s: no such key", name);
    if (st != CUZK_OK) pthread_mutex_unlock(&e->mu);
    *out = c;
    return st;
}

cuzk_status cuzk_engine_key_check_witness(cuzk_engine *e, const char *name, const char *path,
                                          cuzk_error *err) {
    cuzk__error_clear(err);
    if (e == NULL || name == NULL || path == NULL)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "engine_key_check_witness: NULL argument");
    cache_entry *c;
    cuzk_status st = open_named(e, name, &c, err);
    if (st != CUZK_OK) return st;
    cuzk_key *k = c->key;
    atomic_fetch_add(&k->refs, 1); /* kept while the file is read, evicted or not */
    pthread_mutex_unlock(&e->mu);
    st = cuzk__witness_check_head(k, path, err);
    cuzk__key_unref(k);
    return st;
}

cuzk_status cuzk_engine_key_preload(cuzk_engine *e, const char *name, cuzk_key_tier tier,
                                    cuzk_error *err) {
    cuzk__error_clear(err);
    if (e == NULL || name == NULL || tier < CUZK_KEY_COLD || tier > CUZK_KEY_HOT)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "engine_key_preload: bad argument");
    if (tier == CUZK_KEY_COLD) return CUZK_OK;
    cache_entry *c;
    cuzk_status st = open_named(e, name, &c, err);
    if (st != CUZK_OK) return st;
    if (tier == CUZK_KEY_HOT && c->tier != CUZK_KEY_HOT) {
        cuzk_key *k = c->key;
        atomic_fetch_add(&k->refs, 1);
        c->running++; /* not closed while it prepares */
        pthread_mutex_unlock(&e->mu);
        st = cuzk_key_prepare(k, err);
        pthread_mutex_lock(&e->mu);
        c->running--;
        if (st == CUZK_OK && c->key == k) c->tier = CUZK_KEY_HOT;
        c->last_used_ms = cuzk__engine_now(e);
        pthread_mutex_unlock(&e->mu);
        cuzk__key_unref(k);
        return st;
    }
    c->last_used_ms = cuzk__engine_now(e);
    pthread_mutex_unlock(&e->mu);
    return CUZK_OK;
}

cuzk_status cuzk_engine_key_evict(cuzk_engine *e, const char *name, cuzk_error *err) {
    cuzk__error_clear(err);
    if (e == NULL || name == NULL)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "engine_key_evict: NULL argument");
    pthread_mutex_lock(&e->mu);
    cache_entry *c = find(e, name);
    cuzk_status st = CUZK_OK;
    if (c == NULL)
        st = cuzk__fail(err, CUZK_ERR_NOT_FOUND, "key %s: no such key", name);
    else if (c->running != 0 || c->loading)
        st = cuzk__fail(err, CUZK_ERR_BUSY, "key %s: %zu partitions are being proved with it",
                        name, c->running);
    else if (c->key != NULL)
        close_entry(e, c);
    pthread_mutex_unlock(&e->mu);
    return st;
}

cuzk_status cuzk_engine_key_get_info(cuzk_engine *e, const char *name, cuzk_engine_key_info *info,
                                     cuzk_error *err) {
    cuzk__error_clear(err);
    if (e == NULL || name == NULL || info == NULL)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "engine_key_get_info: NULL argument");
    memset(info, 0, sizeof(*info));
    pthread_mutex_lock(&e->mu);
    const cache_entry *c = find(e, name);
    if (c != NULL) {
        info->tier = c->tier;
        info->bytes = c->bytes;
        info->running = c->running;
        info->loads = c->loads;
        info->evictions = c->evictions;
        info->last_used_ms = c->last_used_ms;
    }
    pthread_mutex_unlock(&e->mu);
    return c != NULL ? CUZK_OK : cuzk__fail(err, CUZK_ERR_NOT_FOUND, "key %s: no such key", name);
}

cuzk_status cuzk_engine_submit_named(cuzk_engine *e, uint64_t *job_id, const char *key_name,
                                     const cuzk_witness_input *witnesses, size_t n,
                                     cuzk_priority priority, const char *request_id,
                                     int timeout_ms, cuzk_error *err) {
    cuzk__error_clear(err);
    if (e == NULL || key_name == NULL)
        return cuzk__fail(err, CUZK_ERR_INVALID_ARG, "engine_submit_named: NULL argument");
    cache_entry *c;
    cuzk_status st = open_named(e, key_name, &c, err);
    if (st != CUZK_OK) return st;
    /* its counts: the key may close while the submission waits for room */
    const cuzk__key_shape shape = cuzk__shape_of(c->key);
    pthread_mutex_unlock(&e->mu);
    return cuzk__engine_submit(e, job_id, NULL, c, &shape, witnesses, n, priority, request_id,
                               timeout_ms, err);
}
