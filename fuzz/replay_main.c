/*
 * replay_main.c — a main() for any fuzz target, so that its corpus can be
 * replayed without libFuzzer (gcc builds, debuggers, valgrind): every file
 * named on the command line, or found in a named folder, goes once through
 * LLVMFuzzerTestOneInput. Exit status 1 when a path could not be read or
 * nothing was replayed.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned long replayed;

static int replay_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        perror(path);
        return 1;
    }
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap);
    if (buf == NULL) {
        fclose(f);
        fprintf(stderr, "%s: out of memory\n", path);
        return 1;
    }
    for (;;) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap) break;
        uint8_t *bigger = realloc(buf, cap * 2);
        if (bigger == NULL) {
            free(buf);
            fclose(f);
            fprintf(stderr, "%s: out of memory\n", path);
            return 1;
        }
        buf = bigger;
        cap *= 2;
    }
    fclose(f);
    LLVMFuzzerTestOneInput(buf, n);
    free(buf);
    replayed++;
    return 0;
}

int main(int argc, char **argv) {
    int bad = 0;
    for (int i = 1; i < argc; i++) {
        struct stat sb;
        if (stat(argv[i], &sb) != 0) {
            perror(argv[i]);
            bad = 1;
            continue;
        }
        if (!S_ISDIR(sb.st_mode)) {
            bad |= replay_file(argv[i]);
            continue;
        }
        DIR *d = opendir(argv[i]);
        if (d == NULL) {
            perror(argv[i]);
            bad = 1;
            continue;
        }
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (e->d_name[0] == '.') continue;
            char path[4096];
            snprintf(path, sizeof(path), "%s/%s", argv[i], e->d_name);
            bad |= replay_file(path);
        }
        closedir(d);
    }
    printf("replayed %lu inputs\n", replayed);
    return bad || replayed == 0;
}
