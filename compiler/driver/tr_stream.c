/* tr_stream.c: --no-capture: each process's stdout and stderr copied to
 * the runner's as they grow (one process at a time, so lines of two
 * processes never mix), under a line naming the process. The capture
 * files stay whole: the report still reads them. In the tap and json
 * formats everything goes to stderr, so stdout stays the report. */
#include "tr_internal.h"

#include <fcntl.h>
#include <inttypes.h>
#include <unistd.h>

static void copy_new(const char *path, off_t *off, FILE *to) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    char buf[8192];
    ssize_t n;
    while ((n = pread(fd, buf, sizeof buf, *off)) > 0) {
        fwrite(buf, 1, (size_t)n, to);
        *off += n;
    }
    close(fd);
    fflush(to);
}

void tr_stream_begin(tr_runner *r, const tr_item *it) {
    tr_clear_progress(r);
    FILE *to = r->o.format == TR_FMT_HUMAN ? stdout : stderr;
    if (it->test->sim)
        fprintf(to, "=== sim %s, seed %" PRIu64 "%s\n", it->test->shown, it->seed,
                r->own_server ? " (the determinism re-run)" : "");
    else fprintf(to, "=== unit %s\n", it->test->shown);
    fflush(to);
}

void tr_stream_files(tr_runner *r, const char *out, const char *err, off_t *out_off, off_t *err_off) {
    copy_new(out, out_off, r->o.format == TR_FMT_HUMAN ? stdout : stderr);
    copy_new(err, err_off, stderr);
}
