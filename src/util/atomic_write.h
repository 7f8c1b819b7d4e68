/*
 * atomic_write.h — the one writer of every file cuzk writes: proofs
 * (proof.bin, proof.json, public.json), keys (.params, .vk,
 * verification_key.json, .ptau), circuit and witness files.
 *
 * Replacing a file. An output whose target is a regular file, or does not
 * exist yet, is written to a fresh temporary file beside the target,
 * ".<name>.XXXXXX" in the target's folder (created with O_EXCL and a random
 * suffix, so two writers of one target never share it), then flushed,
 * fsynced, closed and renamed over the target, and the folder is fsynced.
 * A reader of the target sees its old content or all of the new, never a
 * truncated file, across a full disk, an error, a kill -9 or a crash; two
 * concurrent writers leave one complete version (the last rename wins). On
 * any failure the temporary is removed and the target is left as it was. A
 * process killed mid-write leaves at most its own temporaries behind (never
 * anything under the target's name); later writers neither need nor delete
 * them, since they may belong to a writer that is still running.
 *
 * The new file takes the old one's permission bits (and, where allowed, its
 * owner); a file that did not exist gets 0666 less the umask. Other hard
 * links to the old file keep the old content.
 *
 * Targets that are not regular files are never replaced or deleted:
 *   - /dev/stdout, /dev/stderr, /dev/fd/N and /proc/self/fd/N are written
 *     through the process's own descriptor (a dup of 1, 2 or N), so a shell
 *     redirection `> f`, `>> f` or `| cmd` gets the bytes as from any tool;
 *   - any other character device or FIFO (-o /dev/null, a named pipe, a
 *     terminal) is opened and written in place (opening a FIFO waits for a
 *     reader, as a shell redirection does);
 *   - a directory, a block device or a socket is refused
 *     (CUZK_ERR_INVALID_ARG), and so is a path ending in '/'.
 * Bytes written in place cannot be taken back: an aborted set has already
 * sent them. In-place targets are not fsynced.
 *
 * Symbolic links are followed: a link to a regular file (or a dangling
 * link) gets the file it names replaced (or created), in that file's
 * folder, and the link itself stays, as `cp` or a shell redirection write
 * through a link. A relative link is read from the link's folder; more than
 * 40 links in a row is ELOOP.
 *
 * Several outputs of one command (proof.json and public.json, .params and
 * .vk, a circuit and its witnesses) form a set. Commit first completes every
 * output (flush, fsync, close) and only when all of them succeeded renames
 * them, in the order they were added, then fsyncs their folders. So an
 * error or a kill while writing (a full disk, a failing producer, an
 * unsatisfied witness found late) replaces no target. POSIX has no rename
 * of several files at once: a crash, or a rename error (rare: every
 * temporary is complete and lies in its target's own folder), during the
 * renames can leave the first outputs new and the others old; the error
 * then names the outputs already replaced.
 *
 * Errors name the target as given, the step (create, write, flush, fsync,
 * close, rename, folder fsync) and strerror: CUZK_ERR_IO; CUZK_ERR_NOMEM;
 * CUZK_ERR_INVALID_ARG for a target that cannot be written (a directory).
 *
 * A set belongs to one thread at a time; distinct sets may be used on
 * distinct threads at once.
 */
#ifndef CUZK_ATOMIC_WRITE_H
#define CUZK_ATOMIC_WRITE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/error.h"

/* One run of bytes to write; n may exceed what one fwrite takes. */
typedef struct {
    const void *p;
    uint64_t n;
} cuzk__write_piece;

/* One output of a set (opaque). */
typedef struct cuzk__out cuzk__out;

/* The outputs of one command, committed together or not at all. */
typedef struct {
    cuzk__out **outs;
    size_t n, cap;
} cuzk__outset;

/* An empty set. Commit and abort leave the set empty again. */
void cuzk__outset_init(cuzk__outset *s);

/*
 * Adds the output path to the set: creates its temporary (or opens an
 * in-place target) and sets *o to it; *o stays valid until the set is
 * committed or aborted. On failure *o is NULL and the set is unchanged (the
 * caller still aborts it to drop the outputs added before).
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__outset_add(cuzk__outset *s, cuzk__out **o,
                                                     const char *path, cuzk_error *err);

/* The stream to write o through (fully buffered, 1 MiB); a write error on it
 * is reported by cuzk__out_finish or commit. NULL once o is finished. */
FILE *cuzk__out_file(cuzk__out *o);

/* The target as given to cuzk__outset_add, for messages. */
const char *cuzk__out_path(const cuzk__out *o);

/* Appends n bytes (any size) or the pieces, in order, to o. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__out_write(cuzk__out *o, const void *p, uint64_t n,
                                                    cuzk_error *err);
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__out_write_pieces(cuzk__out *o,
                                                           const cuzk__write_piece *pieces,
                                                           size_t n_pieces, cuzk_error *err);

/*
 * Completes o now (flush, fsync, close; no rename): a set of many outputs
 * written one after another (a circuit and a thousand witnesses) keeps one
 * descriptor open at a time. Commit completes the outputs not finished.
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__out_finish(cuzk__out *o, cuzk_error *err);

/*
 * Completes every output, then renames each temporary over its target and
 * fsyncs the targets' folders (see the top of this file for what a failure
 * leaves). The set is empty afterwards, whatever the outcome.
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__outset_commit(cuzk__outset *s, cuzk_error *err);

/* Closes every output and removes every temporary; no target is touched.
 * The set is empty afterwards. */
void cuzk__outset_abort(cuzk__outset *s);

/* A set of one: the pieces, in order, to path. */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__write_file_atomic(const char *path,
                                                            const cuzk__write_piece *pieces,
                                                            size_t n_pieces, cuzk_error *err);

/* ---- checks before the work ---------------------------------------------- */

/* 1 when path would be written in place (a descriptor name, a character
 * device or a FIFO), else 0. */
int cuzk__out_in_place(const char *path);

/*
 * What cuzk__outset_add would refuse, found before a long computation: a
 * directory, block device or socket, a path ending in '/', a link loop, or,
 * for a target that gets a temporary, a folder that is missing or not
 * writable ("<path>: cannot write in folder <dir>: <strerror>").
 */
CUZK_WARN_UNUSED_RESULT cuzk_status cuzk__out_check(const char *path, cuzk_error *err);

/*
 * 1 when a and b name the same file: the same device and inode when both
 * exist; when neither exists, the same absolute path once the links of the
 * path and of its folder are followed and "." and ".." are resolved. 0
 * otherwise (one exists and the other does not).
 */
int cuzk__same_file(const char *a, const char *b);

/*
 * What names path's file, as a string (malloc'd; NULL when out of memory):
 * "@DEV:INO" when it exists, else its absolute path as cuzk__same_file
 * resolves it. Two paths name one file when theirs are equal, so that many
 * paths are compared by sorting these rather than pair by pair.
 */
char *cuzk__file_identity(const char *path);

#endif /* CUZK_ATOMIC_WRITE_H */
