/* tr_internal.h: what the files of the test runner share (test_runner.c:
 * options, plan and reports; tr_exec.c: processes; tr_util.c: text, files,
 * hashes and the binary cache). Not a public interface. */
#ifndef OXL_TR_INTERNAL_H
#define OXL_TR_INTERNAL_H

#include "test_runner.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#if defined(__GNUC__)
#define TR_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define TR_PRINTF(f, a)
#endif

#define TR_PATH 4096

/* ---- a growable byte buffer (aborts on out of memory, like the arenas) ---- */
typedef struct tr_buf {
    char *s;
    size_t len, cap;
} tr_buf;
void tr_buf_add(tr_buf *b, const char *s, size_t n);
void tr_buf_puts(tr_buf *b, const char *s);
void tr_buf_printf(tr_buf *b, const char *fmt, ...) TR_PRINTF(2, 3);
void tr_buf_free(tr_buf *b);
void *tr_xmalloc(size_t n);
void *tr_xrealloc(void *p, size_t n);
char *tr_xstrdup(const char *s);

/* Escapes for the output formats. Invalid UTF-8 becomes U+FFFD. */
void tr_json_str(tr_buf *b, const char *s);   /* "..." with JSON escapes */
void tr_xml_text(tr_buf *b, const char *s);   /* &amp; &lt; &gt; &quot;, no control characters */
void tr_shell_quote(tr_buf *b, const char *s); /* '...', ' written as '\'' */
void tr_shell_word(tr_buf *b, const char *s);  /* as is when safe, else quoted */

/* ---- files ---- */
/* snprintf into a path buffer; false when it did not fit. */
bool tr_pathf(char *buf, size_t cap, const char *fmt, ...) TR_PRINTF(3, 4);
/* The last max bytes of a file (NUL-terminated, malloc'd); *omitted gets
 * how many bytes came before them. NULL when unreadable. */
char *tr_read_tail(const char *path, size_t max, size_t *omitted);
/* A whole small file (at most max bytes); NULL when unreadable or larger. */
char *tr_read_all(const char *path, size_t max, size_t *len);
bool tr_write_file(const char *path, const char *data, size_t len, int mode);
bool tr_copy_file(const char *from, const char *to, int mode);
/* Removes a file or a directory tree (symbolic links are not followed). */
void tr_remove_tree(const char *path);
bool tr_mkdir_p(const char *path);

/* ---- hashes ---- */
typedef struct tr_sha256 {
    uint32_t h[8];
    uint64_t bytes;
    unsigned char block[64];
    size_t fill;
} tr_sha256;
void tr_sha256_init(tr_sha256 *c);
void tr_sha256_add(tr_sha256 *c, const void *data, size_t n);
void tr_sha256_done(tr_sha256 *c, unsigned char out[32]);
uint64_t tr_fnv1a64(uint64_t h, const void *data, size_t n);
#define TR_FNV_OFFSET 0xcbf29ce484222325ull

/* ---- the test binary cache ---- */
/* Fills key (64 hex digits) from the package sources, the std tree, the
 * compiler and the runtime. False (message printed) when the package
 * cannot be read. */
bool tr_cache_key(const char *pkg, const tr_hooks *h, int opt_level, char key[65]);
/* The cache directory (created); NULL when none can be made. */
const char *tr_cache_dir(char *buf, size_t cap);

/* ---- processes ---- */
typedef struct tr_server tr_server;

typedef struct tr_proc {
    pid_t pid;          /* 0 when not running */
    double start, end;  /* monotonic seconds */
    double deadline;    /* 0: none */
    int wstatus;
    bool timed_out;
    tr_server *srv;     /* a child of this fork server; NULL: spawned by the runner */
    bool ended;         /* srv: the server has told its status */
    bool lost;          /* srv: the server ended first; the child was killed, its result is unknown */
} tr_proc;

double tr_now(void);
/* Blocks SIGCHLD, SIGINT, SIGTERM and SIGHUP so the runner takes them with
 * tr_wait_event; tr_signals_restore undoes it. */
void tr_signals_block(void);
void tr_signals_restore(void);
/* Starts exe (argv[0] = exe, one more argument or NULL) in a process group
 * of its own, stdin from /dev/null, stdout and stderr into the files.
 * env: "NAME=value" to set, "NAME" to unset, NULL-terminated. */
bool tr_proc_start(tr_proc *p, const char *exe, const char *arg, const char *const *env, const char *out,
                   const char *err, double timeout);
/* True when p has ended (reaped; leftovers of its group killed). Kills and
 * reaps it when its deadline has passed. */
bool tr_proc_poll(tr_proc *p);
/* Kills the process group and reaps the process. */
void tr_proc_kill(tr_proc *p);
/* Sleeps until a child changes state, fd (when >= 0) is readable, a
 * signal arrives or timeout seconds pass. Returns false when SIGINT,
 * SIGTERM or SIGHUP arrived (then always, until tr_signals_block again). */
bool tr_wait_event(double timeout, int fd);
/* posix_spawn of exe (argv[0] = exe, one more argument or NULL) in a
 * process group of its own with the runner's signal mask and default
 * dispositions; stdin from in_fd (-1: /dev/null), stdout to out_fd or, when
 * it is -1, the file out, stderr to the file err. 0 or an errno value. */
int tr_spawn(pid_t *pid, const char *exe, const char *arg, const char *const *env, int in_fd, int out_fd,
             const char *out, const char *err);
/* ---- the fork server: the test binary's --serve (docs/test-binary.md) ---- */
/* Starts `exe --serve`, its stderr into the file err. NULL, with why
 * filled, when it cannot be started. */
tr_server *tr_server_start(const char *exe, const char *err, char *why, size_t cap);
/* Has the server fork a child for p, as tr_proc_start would start exe:
 * env may set or unset OXL_TEST_RUN, OXL_TEST_SEED, OXL_SIM_REPORT and
 * OXL_DATA_DIR (the server's own environment has none of them). False,
 * with why filled, when the server refused or failed: then nothing runs
 * and the caller starts the process another way. */
bool tr_server_run(tr_server *s, tr_proc *p, const char *const *env, const char *out, const char *err,
                   double timeout, char *why, size_t cap);
/* The descriptor to wait on for its answers; -1 once it has ended. */
int tr_server_fd(const tr_server *s);
/* Reads what the server has said without blocking. */
void tr_server_pump(tr_server *s);
/* Why it ended, when it did ("" while it runs). */
const char *tr_server_why(const tr_server *s);
/* Closes its input, waits for it to exit (kills it after a grace time),
 * frees it. Children still in flight are killed first. */
void tr_server_stop(tr_server *s);

/* "SIGSEGV", or "signal 40". */
const char *tr_signal_name(int sig, char *buf, size_t cap);

#endif
