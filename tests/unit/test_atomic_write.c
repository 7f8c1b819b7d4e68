/*
 * test_atomic_write.c — the writer of every output (src/util/atomic_write.h):
 * whole or not at all across a kill -9, a file size limit and a producer's
 * failure; sets committed together; a unique temporary per writer (several
 * processes writing one target at once); targets that are not regular files
 * (FIFO, character device, /dev/fd/N) written in place; symbolic links
 * written through; the mode kept; errors naming the file and the step; the
 * same-file test used to refuse an output that is an input.
 *
 * Runs in a fresh folder under $TMPDIR (or /tmp), removed at the end.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "util/atomic_write.h"

static char g_dir[256];

static void at(char *out, size_t cap, const char *name) {
    snprintf(out, cap, "%s/%s", g_dir, name);
}

static int put(const char *path, const void *p, size_t n) {
    FILE *f = fopen(path, "wb");
    if (f == NULL) return 0;
    int ok = fwrite(p, 1, n, f) == n;
    return fclose(f) == 0 && ok;
}

/* The file's bytes (malloc'd, *n its size), or NULL. */
static uint8_t *slurp(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    *n = 0;
    if (f == NULL) return NULL;
    size_t cap = 1 << 16;
    uint8_t *b = malloc(cap);
    size_t k;
    while (b != NULL && (k = fread(b + *n, 1, cap - *n, f)) > 0) {
        *n += k;
        if (*n == cap) b = realloc(b, cap *= 2);
    }
    fclose(f);
    return b;
}

static int has_content(const char *path, const char *text) {
    size_t n;
    uint8_t *b = slurp(path, &n);
    int same = b != NULL && n == strlen(text) && memcmp(b, text, n) == 0;
    free(b);
    return same;
}

static int contains(const cuzk_error *e, const char *s) {
    return strstr(cuzk__error_text(e), s) != NULL;
}

/* Entries of dir beginning with '.', other than "." and "..": temporaries. */
static int count_temps(const char *dir) {
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while (d != NULL && (e = readdir(d)) != NULL)
        if (e->d_name[0] == '.' && strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            n++;
    if (d != NULL) closedir(d);
    return n;
}

/* The first temporary of dir (a dot file), as a full path; 0 when none. */
static int find_temp(char *out, size_t cap, const char *dir) {
    DIR *d = opendir(dir);
    struct dirent *e;
    int found = 0;
    while (!found && d != NULL && (e = readdir(d)) != NULL)
        if (e->d_name[0] == '.' && strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
            snprintf(out, cap, "%s/%s", dir, e->d_name);
            found = 1;
        }
    if (d != NULL) closedir(d);
    return found;
}

static cuzk_status write_text(const char *path, const char *text, cuzk_error *err) {
    const cuzk__write_piece piece = {text, strlen(text)};
    return cuzk__write_file_atomic(path, &piece, 1, err);
}

/* fork, the child counting its own failed checks (child_exit reports them). */
static pid_t fork_child(void) {
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) cuzk_test_checks_failed = 0;
    return pid;
}

/* A child's checks end its process: 0 when all held. */
static int child_exit(void) {
    fflush(stdout);
    fflush(stderr);
    _exit(cuzk_test_checks_failed ? 1 : 0);
}

static int child_ok(pid_t pid) {
    int ws;
    return waitpid(pid, &ws, 0) == pid && WIFEXITED(ws) && WEXITSTATUS(ws) == 0;
}

/* ---- one file ------------------------------------------------------------- */

static void test_replace_and_mode(void) {
    char p[1024];
    cuzk_error e;
    at(p, sizeof(p), "plain.bin");
    mode_t old = umask(022);
    CHECK_EQ_INT(write_text(p, "first", &e), CUZK_OK);
    CHECK(has_content(p, "first"));
    struct stat st;
    CHECK(stat(p, &st) == 0 && (st.st_mode & 07777) == 0644);
    /* a replaced file keeps its mode */
    CHECK(chmod(p, 0600) == 0);
    CHECK_EQ_INT(write_text(p, "second, longer", &e), CUZK_OK);
    CHECK(has_content(p, "second, longer"));
    CHECK(stat(p, &st) == 0 && (st.st_mode & 07777) == 0600);
    /* pieces in order, an empty piece included */
    const cuzk__write_piece pieces[3] = {{"ab", 2}, {"", 0}, {"cd", 2}};
    CHECK_EQ_INT(cuzk__write_file_atomic(p, pieces, 3, &e), CUZK_OK);
    CHECK(has_content(p, "abcd"));
    unlink(p);
    /* a name of 250 bytes: the temporary's name stays within NAME_MAX */
    char longname[251];
    memset(longname, 'n', 250);
    longname[250] = '\0';
    at(p, sizeof(p), longname);
    CHECK_EQ_INT(write_text(p, "long", &e), CUZK_OK);
    CHECK(has_content(p, "long"));
    unlink(p);
    umask(old);
    CHECK_EQ_INT(count_temps(g_dir), 0);
}

static void test_refusals_and_errors(void) {
    char p[1024], d[1024];
    cuzk_error e;
    /* a missing folder: the create step, naming the target */
    at(p, sizeof(p), "none/x.bin");
    CHECK_EQ_INT(write_text(p, "x", &e), CUZK_ERR_IO);
    CHECK(contains(&e, p) && contains(&e, "cannot create") &&
          contains(&e, "No such file or directory"));
    CHECK_EQ_INT(cuzk__out_check(p, &e), CUZK_ERR_IO);
    CHECK(contains(&e, "folder"));
    /* a directory is refused and stays */
    at(d, sizeof(d), "adir");
    CHECK(mkdir(d, 0755) == 0);
    CHECK_EQ_INT(write_text(d, "x", &e), CUZK_ERR_INVALID_ARG);
    CHECK(contains(&e, "is a directory"));
    CHECK_EQ_INT(cuzk__out_check(d, &e), CUZK_ERR_INVALID_ARG);
    struct stat st;
    CHECK(stat(d, &st) == 0 && S_ISDIR(st.st_mode));
    CHECK_EQ_INT(count_temps(d), 0);
    /* a path ending in '/' names a folder */
    at(p, sizeof(p), "newdir/");
    CHECK_EQ_INT(write_text(p, "x", &e), CUZK_ERR_INVALID_ARG);
    CHECK(contains(&e, "folder"));
    CHECK(rmdir(d) == 0);
    CHECK_EQ_INT(write_text("", "x", &e), CUZK_ERR_INVALID_ARG);
    CHECK_EQ_INT(count_temps(g_dir), 0);
}

/* RLIMIT_FSIZE makes writes past 4 KiB fail with EFBIG (SIGXFSZ ignored),
 * as a full disk fails them with ENOSPC: the error names the file and the
 * step, the old content stays, no temporary is left. */
static void test_file_size_limit(void) {
    char p[1024];
    at(p, sizeof(p), "limited.bin");
    CHECK(put(p, "previous", 8));
    pid_t pid = fork_child();
    if (pid == 0) {
        signal(SIGXFSZ, SIG_IGN);
        struct rlimit rl = {4096, 4096};
        CHECK(setrlimit(RLIMIT_FSIZE, &rl) == 0);
        size_t n = 64 << 10;
        uint8_t *big = calloc(1, n);
        cuzk_error e;
        const cuzk__write_piece piece = {big, n};
        CHECK_EQ_INT(cuzk__write_file_atomic(p, &piece, 1, &e), CUZK_ERR_IO);
        CHECK(contains(&e, p) && contains(&e, "File too large"));
        CHECK(contains(&e, "write failed") || contains(&e, "flush failed"));
        if (!contains(&e, p)) fprintf(stderr, "message: %s\n", cuzk__error_text(&e));
        free(big);
        child_exit();
    }
    CHECK(child_ok(pid));
    CHECK(has_content(p, "previous"));
    CHECK_EQ_INT(count_temps(g_dir), 0);
    unlink(p);
}

/* ---- sets ----------------------------------------------------------------- */

static void test_set_all_or_nothing(void) {
    char a[1024], b[1024];
    cuzk_error e;
    at(a, sizeof(a), "set_a.json");
    at(b, sizeof(b), "set_b.json");
    CHECK(put(a, "A0", 2) && put(b, "B0", 2));
    cuzk__outset s;
    cuzk__out *oa, *ob;
    /* the producer fails after the first output: abort, nothing replaced */
    cuzk__outset_init(&s);
    CHECK_EQ_INT(cuzk__outset_add(&s, &oa, a, &e), CUZK_OK);
    CHECK_EQ_INT(cuzk__outset_add(&s, &ob, b, &e), CUZK_OK);
    CHECK_EQ_INT(cuzk__out_write(oa, "A1", 2, &e), CUZK_OK);
    CHECK_EQ_INT(count_temps(g_dir), 2);
    cuzk__outset_abort(&s);
    CHECK(has_content(a, "A0") && has_content(b, "B0"));
    CHECK_EQ_INT(count_temps(g_dir), 0);
    /* both written: both replaced, through the FILE * and through pieces */
    cuzk__outset_init(&s);
    CHECK_EQ_INT(cuzk__outset_add(&s, &oa, a, &e), CUZK_OK);
    CHECK_EQ_INT(cuzk__outset_add(&s, &ob, b, &e), CUZK_OK);
    CHECK(strcmp(cuzk__out_path(oa), a) == 0);
    CHECK(fputs("A1", cuzk__out_file(oa)) >= 0);
    CHECK_EQ_INT(cuzk__out_finish(oa, &e), CUZK_OK);
    CHECK(cuzk__out_file(oa) == NULL);
    CHECK_EQ_INT(cuzk__out_write(oa, "x", 1, &e), CUZK_ERR_INVALID_ARG); /* after finish */
    CHECK(has_content(a, "A0")); /* finished is not committed */
    CHECK_EQ_INT(cuzk__out_write(ob, "B1", 2, &e), CUZK_OK);
    CHECK_EQ_INT(cuzk__outset_commit(&s, &e), CUZK_OK);
    CHECK(has_content(a, "A1") && has_content(b, "B1"));
    CHECK_EQ_INT(count_temps(g_dir), 0);
    CHECK(s.n == 0 && s.outs == NULL);
    /* the second output fails at commit (a size limit): the first, already
     * complete, is not renamed either */
    pid_t pid = fork_child();
    if (pid == 0) {
        signal(SIGXFSZ, SIG_IGN);
        struct rlimit rl = {4096, 4096};
        CHECK(setrlimit(RLIMIT_FSIZE, &rl) == 0);
        static uint8_t big[16384];
        cuzk__outset_init(&s);
        CHECK_EQ_INT(cuzk__outset_add(&s, &oa, a, &e), CUZK_OK);
        CHECK_EQ_INT(cuzk__outset_add(&s, &ob, b, &e), CUZK_OK);
        CHECK_EQ_INT(cuzk__out_write(oa, "A2", 2, &e), CUZK_OK);
        CHECK_EQ_INT(cuzk__out_write(ob, big, sizeof(big), &e), CUZK_OK); /* buffered */
        CHECK_EQ_INT(cuzk__outset_commit(&s, &e), CUZK_ERR_IO);
        CHECK(contains(&e, b) && contains(&e, "File too large"));
        child_exit();
    }
    CHECK(child_ok(pid));
    CHECK(has_content(a, "A1") && has_content(b, "B1"));
    CHECK_EQ_INT(count_temps(g_dir), 0);
    unlink(a);
    unlink(b);
}

/* A rename that fails after another succeeded (its temporary removed from
 * under it): the error names the output and the ones already replaced. */
static void test_set_rename_failure(void) {
    char d1[1024], d2[1024], a[1100], b[1100], tmp[1400];
    cuzk_error e;
    at(d1, sizeof(d1), "r1");
    at(d2, sizeof(d2), "r2");
    CHECK(mkdir(d1, 0755) == 0 && mkdir(d2, 0755) == 0);
    snprintf(a, sizeof(a), "%s/a", d1);
    snprintf(b, sizeof(b), "%s/b", d2);
    CHECK(put(a, "A0", 2) && put(b, "B0", 2));
    cuzk__outset s;
    cuzk__out *oa, *ob;
    cuzk__outset_init(&s);
    CHECK_EQ_INT(cuzk__outset_add(&s, &oa, a, &e), CUZK_OK);
    CHECK_EQ_INT(cuzk__outset_add(&s, &ob, b, &e), CUZK_OK);
    CHECK_EQ_INT(cuzk__out_write(oa, "A1", 2, &e), CUZK_OK);
    CHECK_EQ_INT(cuzk__out_write(ob, "B1", 2, &e), CUZK_OK);
    CHECK(find_temp(tmp, sizeof(tmp), d2) && unlink(tmp) == 0);
    CHECK_EQ_INT(cuzk__outset_commit(&s, &e), CUZK_ERR_IO);
    CHECK(contains(&e, b) && contains(&e, "rename") && contains(&e, "already replaced"));
    CHECK(has_content(a, "A1") && has_content(b, "B0"));
    CHECK_EQ_INT(count_temps(d1) + count_temps(d2), 0);
    unlink(a);
    unlink(b);
    rmdir(d1);
    rmdir(d2);
}

/* ---- temporaries: concurrent writers, kill -9 ----------------------------- */

/* Writers in several processes replace one target at once, many times: each
 * succeeds (its own temporary), and the target is always one whole version. */
static void test_concurrent_writers(void) {
    enum { WRITERS = 6, ROUNDS = 8, SIZE = 1 << 20 };
    char p[1024];
    at(p, sizeof(p), "shared.bin");
    pid_t pids[WRITERS];
    for (int w = 0; w < WRITERS; w++) {
        pids[w] = fork_child();
        if (pids[w] == 0) {
            uint8_t *buf = malloc(SIZE);
            cuzk_error e;
            for (int r = 0; r < ROUNDS; r++) {
                memset(buf, 1 + w * ROUNDS + r, SIZE);
                cuzk__write_piece pieces[256];
                for (int k = 0; k < 256; k++)
                    pieces[k] = (cuzk__write_piece){buf + k * (SIZE / 256), SIZE / 256};
                cuzk_status st = cuzk__write_file_atomic(p, pieces, 256, &e);
                CHECK_EQ_INT(st, CUZK_OK);
                if (st != CUZK_OK) fprintf(stderr, "writer %d: %s\n", w, cuzk__error_text(&e));
            }
            free(buf);
            child_exit();
        }
    }
    for (int w = 0; w < WRITERS; w++) CHECK(child_ok(pids[w]));
    size_t n;
    uint8_t *b = slurp(p, &n);
    CHECK(b != NULL && n == SIZE);
    int whole = b != NULL && n == SIZE;
    for (size_t i = 1; whole && i < n; i++) whole = b[i] == b[0];
    CHECK(whole);
    free(b);
    CHECK_EQ_INT(count_temps(g_dir), 0);
    unlink(p);
}

/* A writer killed (SIGKILL) in the middle of a slow write: the target keeps
 * its content, one temporary is left, and a later writer succeeds without
 * touching it (it could belong to a writer still running). */
static void test_kill_mid_write(void) {
    char p[1100], d[1024];
    at(d, sizeof(d), "kill");
    CHECK(mkdir(d, 0755) == 0);
    snprintf(p, sizeof(p), "%s/target.bin", d);
    CHECK(put(p, "previous", 8));
    int fds[2];
    CHECK(pipe(fds) == 0);
    pid_t pid = fork_child();
    if (pid == 0) {
        close(fds[0]);
        static uint8_t chunk[1 << 16];
        memset(chunk, 0xab, sizeof(chunk));
        cuzk__outset s;
        cuzk__out *o;
        cuzk_error e;
        cuzk__outset_init(&s);
        if (cuzk__outset_add(&s, &o, p, &e) != CUZK_OK) _exit(2);
        for (int i = 0;; i++) { /* slowly, forever: only the kill ends it */
            if (cuzk__out_write(o, chunk, sizeof(chunk), &e) != CUZK_OK) _exit(3);
            if (i == 40 && (fflush(cuzk__out_file(o)) != 0 || write(fds[1], "x", 1) != 1))
                _exit(4);
            usleep(1000);
        }
    }
    close(fds[1]);
    char c;
    CHECK(read(fds[0], &c, 1) == 1); /* 2.6 MB are in the temporary */
    close(fds[0]);
    CHECK(kill(pid, SIGKILL) == 0);
    int ws;
    CHECK(waitpid(pid, &ws, 0) == pid && WIFSIGNALED(ws) && WTERMSIG(ws) == SIGKILL);
    CHECK(has_content(p, "previous"));
    CHECK_EQ_INT(count_temps(d), 1);
    char tmp[1400];
    struct stat st;
    CHECK(find_temp(tmp, sizeof(tmp), d) && stat(tmp, &st) == 0 && st.st_size > (1 << 20));
    /* ".target.bin.XXXXXX" */
    const char *base = strrchr(tmp, '/') + 1;
    CHECK(strncmp(base, ".target.bin.", 12) == 0 && strlen(base) == 18);
    cuzk_error e;
    CHECK_EQ_INT(write_text(p, "later", &e), CUZK_OK);
    CHECK(has_content(p, "later"));
    CHECK_EQ_INT(count_temps(d), 1);
    CHECK(access(tmp, F_OK) == 0);
    unlink(tmp);
    unlink(p);
    rmdir(d);
}

/* ---- targets that are not regular files ---------------------------------- */

static void test_fifo_in_place(void) {
    char f[1024], got[1024];
    at(f, sizeof(f), "out.fifo");
    at(got, sizeof(got), "fifo.got");
    CHECK(mkfifo(f, 0644) == 0);
    pid_t pid = fork_child();
    if (pid == 0) { /* the reader: copies the FIFO into got */
        size_t n = 0;
        uint8_t buf[256];
        FILE *in = fopen(f, "rb");
        if (in != NULL) n = fread(buf, 1, sizeof(buf), in);
        if (in != NULL) fclose(in);
        _exit(put(got, buf, n) ? 0 : 1);
    }
    cuzk_error e;
    CHECK_EQ_INT(write_text(f, "through the pipe", &e), CUZK_OK);
    struct stat st;
    int fifo = lstat(f, &st) == 0 && S_ISFIFO(st.st_mode);
    CHECK(fifo);
    if (!fifo) kill(pid, SIGKILL); /* replaced: the reader would wait forever */
    CHECK(child_ok(pid));
    CHECK(has_content(got, "through the pipe"));
    CHECK(cuzk__out_in_place(f));
    CHECK_EQ_INT(cuzk__out_check(f, &e), CUZK_OK);
    CHECK_EQ_INT(count_temps(g_dir), 0);
    unlink(f);
    unlink(got);
}

static void test_char_device_in_place(void) {
    char d[1024];
    cuzk_error e;
    at(d, sizeof(d), "null");
    if (mknod(d, S_IFCHR | 0666, makedev(1, 3)) != 0) {
        printf("  (no mknod here: the device twin of /dev/null is skipped)\n");
    } else {
        CHECK_EQ_INT(write_text(d, "into the void", &e), CUZK_OK);
        struct stat st;
        CHECK(lstat(d, &st) == 0 && S_ISCHR(st.st_mode));
        unlink(d);
    }
    /* the real /dev/null is only looked at */
    CHECK(cuzk__out_in_place("/dev/null"));
    CHECK(cuzk__out_in_place("/dev/stdout"));
    CHECK_EQ_INT(cuzk__out_check("/dev/null", &e), CUZK_OK);
    CHECK_EQ_INT(count_temps(g_dir), 0);
}

/* /dev/fd/N and /proc/self/fd/N write through descriptor N: a file opened
 * for appending gets the bytes after what it holds. */
static void test_fd_names(void) {
    char p[1024], name[64];
    cuzk_error e;
    at(p, sizeof(p), "appended.txt");
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
    CHECK(fd >= 0 && write(fd, "head;", 5) == 5);
    snprintf(name, sizeof(name), "/dev/fd/%d", fd);
    CHECK_EQ_INT(write_text(name, "one;", &e), CUZK_OK);
    snprintf(name, sizeof(name), "/proc/self/fd/%d", fd);
    CHECK_EQ_INT(write_text(name, "two", &e), CUZK_OK);
    close(fd);
    CHECK(has_content(p, "head;one;two"));
    CHECK_EQ_INT(count_temps(g_dir), 0);
    unlink(p);
}

/* A link to a file in another folder: that file is replaced (its temporary
 * in its own folder), the link stays; a dangling link creates its target;
 * a loop is an error. */
static void test_symlinks(void) {
    char d1[1024], d2[1024], real[1100], link[1100], loop1[1100], loop2[1100];
    cuzk_error e;
    at(d1, sizeof(d1), "s_real");
    at(d2, sizeof(d2), "s_link");
    CHECK(mkdir(d1, 0755) == 0 && mkdir(d2, 0755) == 0);
    snprintf(real, sizeof(real), "%s/k.params", d1);
    snprintf(link, sizeof(link), "%s/k.params", d2);
    CHECK(put(real, "old", 3));
    CHECK(symlink("../s_real/k.params", link) == 0);
    CHECK_EQ_INT(write_text(link, "new", &e), CUZK_OK);
    struct stat st;
    CHECK(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));
    CHECK(has_content(real, "new"));
    CHECK(cuzk__same_file(link, real));
    /* dangling: the named file is created */
    CHECK(unlink(real) == 0);
    CHECK_EQ_INT(write_text(link, "created", &e), CUZK_OK);
    CHECK(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));
    CHECK(has_content(real, "created"));
    CHECK_EQ_INT(count_temps(d1) + count_temps(d2), 0);
    /* a loop */
    snprintf(loop1, sizeof(loop1), "%s/l1", d2);
    snprintf(loop2, sizeof(loop2), "%s/l2", d2);
    CHECK(symlink("l2", loop1) == 0 && symlink("l1", loop2) == 0);
    CHECK(write_text(loop1, "x", &e) != CUZK_OK);
    CHECK(contains(&e, "symbolic links"));
    CHECK(lstat(loop1, &st) == 0 && S_ISLNK(st.st_mode));
    unlink(loop1);
    unlink(loop2);
    unlink(link);
    unlink(real);
    rmdir(d1);
    rmdir(d2);
}

/* ---- the same file -------------------------------------------------------- */

static void test_same_file(void) {
    char a[1024], hard[1024], soft[1024], dot[1100], sub[1024], viasub[1100], lex[1100], other[1024];
    at(a, sizeof(a), "same.in");
    at(hard, sizeof(hard), "same.hard");
    at(soft, sizeof(soft), "same.soft");
    at(sub, sizeof(sub), "same_sub");
    at(other, sizeof(other), "same.other");
    snprintf(dot, sizeof(dot), "%s/./same.in", g_dir);
    CHECK(put(a, "x", 1) && put(other, "x", 1));
    CHECK(link(a, hard) == 0 && symlink("same.in", soft) == 0 && mkdir(sub, 0755) == 0);
    CHECK(cuzk__same_file(a, a));
    CHECK(cuzk__same_file(a, dot));
    CHECK(cuzk__same_file(a, hard));
    CHECK(cuzk__same_file(soft, a));
    CHECK(!cuzk__same_file(a, other));
    /* neither exists: by normalized path */
    char n1[1024], n2[1100];
    at(n1, sizeof(n1), "new.out");
    snprintf(n2, sizeof(n2), "%s/same_sub/../new.out", g_dir);
    snprintf(viasub, sizeof(viasub), "%s/same_sub/new.out", g_dir);
    snprintf(lex, sizeof(lex), "%s/gone/../new.out", g_dir); /* "gone" does not exist */
    CHECK(cuzk__same_file(n1, n2));
    CHECK(cuzk__same_file(n1, lex));
    CHECK(!cuzk__same_file(n1, viasub));
    /* one exists, the other not */
    CHECK(!cuzk__same_file(a, n1));
    /* relative and absolute spellings of one new file */
    char cwd[512];
    CHECK(getcwd(cwd, sizeof(cwd)) != NULL);
    CHECK(chdir(g_dir) == 0);
    CHECK(cuzk__same_file("new.out", n1));
    CHECK(cuzk__same_file("./x/../new.out", "new.out"));
    CHECK(cuzk__same_file("same.soft", "same.in"));
    CHECK(chdir(cwd) == 0);
    unlink(a);
    unlink(hard);
    unlink(soft);
    unlink(other);
    rmdir(sub);
}

int main(int argc, char **argv) {
    cuzk_test_init(argc, argv);
    const char *t = getenv("TMPDIR");
    snprintf(g_dir, sizeof(g_dir), "%s/cuzk_atomic_XXXXXX", t && *t ? t : "/tmp");
    char *real = mkdtemp(g_dir) ? realpath(g_dir, NULL) : NULL;
    if (real == NULL) {
        perror(g_dir);
        return 1;
    }
    snprintf(g_dir, sizeof(g_dir), "%s", real); /* paths compared below are physical */
    free(real);
    RUN(test_replace_and_mode);
    RUN(test_refusals_and_errors);
    RUN(test_file_size_limit);
    RUN(test_set_all_or_nothing);
    RUN(test_set_rename_failure);
    RUN(test_concurrent_writers);
    RUN(test_kill_mid_write);
    RUN(test_fifo_in_place);
    RUN(test_char_device_in_place);
    RUN(test_fd_names);
    RUN(test_symlinks);
    RUN(test_same_file);
    CHECK_EQ_INT(count_temps(g_dir), 0);
    if (rmdir(g_dir) != 0) fprintf(stderr, "%s: %s\n", g_dir, strerror(errno));
    return cuzk_test_finish();
}
