/*
 * race_rounds.h — a bounded job queue (max_backlog) raced by submitters
 * released together, round after round: the race that test_service_jobstore
 * (the SQLite store) and tests/service/test_store_pg (PostgreSQL) each run
 * over their own store through the callbacks of race_store.
 *
 * RACERS threads, each on the connection its open gave it, submit one job
 * of RACE_PARTS partitions under a bound of RACE_BOUND partitions each
 * round; the main thread then counts the jobs accepted, checks that the
 * queue holds exactly their partitions, and empties it for the next round.
 * Every round must let in exactly RACE_BOUND / RACE_PARTS jobs: more is the
 * bound passed by submitters that each saw room, fewer a refusal the bound
 * did not call for. Any answer but accepted or busy fails the race.
 *
 * Everything is static, as in harness.h, whose failure count is each
 * binary's own: the checks here count in the test that includes it.
 */
#ifndef CUZK_TEST_RACE_ROUNDS_H
#define CUZK_TEST_RACE_ROUNDS_H

#include <pthread.h>
#include <string.h>

#include "harness.h"

enum { RACE_BOUND = 10, RACERS = 8, RACE_ROUNDS = 25, RACE_PARTS = 3 };

typedef enum { RACE_ACCEPTED, RACE_BUSY, RACE_ERROR } race_outcome;

/* The store under race. user is passed to open, count_parts and empty. */
typedef struct {
    void *user;
    /* A racer's own connection (NULL when it cannot: every round an error). */
    void *(*open)(void *user);
    /* One job of RACE_PARTS partitions, max_backlog RACE_BOUND; an error
     * says why on stderr. */
    race_outcome (*submit)(void *conn);
    /* The partitions the queue holds, claimed or not (-1 on error). */
    long long (*count_parts)(void *user);
    /* Every job gone from the queue; nonzero when done. */
    int (*empty)(void *user);
    void (*close)(void *conn);
} race_store;

typedef struct {
    const race_store *store;
    pthread_barrier_t *go;
    int accepted[RACE_ROUNDS];
    int errors;
} race_racer;

/* Each round: waits for the others, submits, then waits while the round is
 * counted and the queue emptied. */
static void *race_thread(void *arg) {
    race_racer *r = arg;
    const race_store *st = r->store;
    void *conn = st->open(st->user);
    for (int round = 0; round < RACE_ROUNDS; round++) {
        pthread_barrier_wait(r->go);
        const race_outcome o = conn != NULL ? st->submit(conn) : RACE_ERROR;
        r->accepted[round] = o == RACE_ACCEPTED;
        r->errors += o == RACE_ERROR;
        pthread_barrier_wait(r->go); /* the round is counted, the queue emptied */
        pthread_barrier_wait(r->go);
    }
    if (conn != NULL) st->close(conn);
    return NULL;
}

/* The race, on a queue that starts empty and is left empty. */
static void race_rounds(const race_store *st) {
    pthread_barrier_t go;
    pthread_barrier_init(&go, NULL, RACERS + 1);
    race_racer r[RACERS];
    pthread_t th[RACERS];
    for (int i = 0; i < RACERS; i++) {
        memset(&r[i], 0, sizeof(r[i]));
        r[i].store = st;
        r[i].go = &go;
        pthread_create(&th[i], NULL, race_thread, &r[i]);
    }
    int worst = 0, short_rounds = 0;
    for (int round = 0; round < RACE_ROUNDS; round++) {
        pthread_barrier_wait(&go); /* go */
        pthread_barrier_wait(&go); /* all submitted */
        int in = 0;
        for (int i = 0; i < RACERS; i++) in += r[i].accepted[round];
        const long long parts = st->count_parts(st->user);
        CHECK(parts == (long long)in * RACE_PARTS);
        if (in > worst) worst = in;
        short_rounds += in < RACE_BOUND / RACE_PARTS;
        CHECK(st->empty(st->user));
        pthread_barrier_wait(&go); /* emptied */
    }
    for (int i = 0; i < RACERS; i++) {
        pthread_join(th[i], NULL);
        CHECK_EQ_INT(r[i].errors, 0);
    }
    pthread_barrier_destroy(&go);
    CHECK_EQ_INT(worst, RACE_BOUND / RACE_PARTS);
    CHECK_EQ_INT(short_rounds, 0);
}

#endif
