/* fuzz_replay.c: the main of a fuzz target's replay build: it runs the
 * target's LLVMFuzzerTestOneInput on each file given, and on each file of
 * each directory given (in name order), for ctest. A crash, a sanitizer
 * report or an abort of the target ends the process; otherwise it prints
 * the count and exits 0 when at least one input ran. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "fuzz replay: cannot read %s\n", path);
        return 1;
    }
    size_t cap = 4096, n = 0;
    uint8_t *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) buf = realloc(buf, cap *= 2);
    }
    fclose(f);
    if (!buf) return 1;
    LLVMFuzzerTestOneInput(buf, n);
    free(buf);
    return 0;
}

static int cmp(const void *x, const void *y) { return strcmp(*(char *const *)x, *(char *const *)y); }

int main(int argc, char **argv) {
    int files = 0, failed = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "fuzz replay: no such file %s\n", argv[i]);
            failed++;
            continue;
        }
        if (!S_ISDIR(st.st_mode)) {
            failed += replay_file(argv[i]);
            files++;
            continue;
        }
        DIR *dir = opendir(argv[i]);
        if (!dir) {
            failed++;
            continue;
        }
        char **names = NULL;
        size_t count = 0;
        struct dirent *e;
        while ((e = readdir(dir))) {
            if (e->d_name[0] == '.') continue;
            names = realloc(names, (count + 1) * sizeof *names);
            names[count++] = strdup(e->d_name);
        }
        closedir(dir);
        qsort(names, count, sizeof *names, cmp);
        for (size_t k = 0; k < count; k++) {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", argv[i], names[k]);
            failed += replay_file(path);
            files++;
            free(names[k]);
        }
        free(names);
    }
    /* every input ran to the end without a crash, a sanitizer report or an
     * internal compiler error (those abort before this line) */
    printf("fuzz replay: %d passed, %d failed\n", files - failed, failed);
    return failed || files == 0 ? 1 : 0;
}
