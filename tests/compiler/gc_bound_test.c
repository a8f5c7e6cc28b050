/* gc_bound_test: a long-running, allocation-heavy OxL program stays in
 * bounded memory. The program (built with `oxl build`) runs eight tasks
 * that for many rounds build strings, lists and maps, keep a little of each
 * round alive (a rolling window in a map) and sleep between rounds: about
 * 1 GB allocated in all (by a rough count), a few hundred kB live at
 * any time. The test reads
 * the process's peak resident size from wait4 and requires it to stay far
 * below what it allocated (ASan's shadow memory and quarantine get a larger
 * bound). A second program that keeps everything it allocates must exceed
 * the bound, so the measurement can fail.
 *
 *   gc_bound_test OXL */
#define _DEFAULT_SOURCE /* wait4 */
#include "cmd.h"
#include "tap.h"

#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>

extern char **environ;

/* One round: ~75 kB of strings, a 500-element list and a 100-entry map.
 * Normally only each task's last round stays reachable; with KEEP_ALL
 * every round's list is kept (the control that must exceed the bound). */
static const char program[] =
    "use std.time { sleep }\n"
    "\n"
    "const KEEP_ALL: Bool = %s\n"
    "\n"
    "fn round(task: Int, r: Int) -> [String] {\n"
    "  var parts: [String] = []\n"
    "  let m = Map[Int, String]()\n"
    "  for i in 0..500 {\n"
    "    let s = \"task {task} round {r} item {i} \" + \"padding padding padding padding padding\"\n"
    "    parts.push(s)\n"
    "    if i %% 5 == 0 {\n"
    "      m[i] = s.toUpper()\n"
    "    }\n"
    "  }\n"
    "  assert m.len() == 100 && parts.len() == 500\n"
    "  return parts\n"
    "}\n"
    "\n"
    "fn worker(task: Int, rounds: Int, window: Map[Int, [[String]]]) {\n"
    "  for r in 0..rounds {\n"
    "    let parts = round(task, r)\n"
    "    let kept = window.get(task)\n"
    "    if KEEP_ALL && kept != none {\n"
    "      kept.push(parts)\n"
    "    } else {\n"
    "      window[task] = [parts]\n"
    "    }\n"
    "    sleep(1us)\n"
    "  }\n"
    "}\n"
    "\n"
    "fn main() {\n"
    "  let window = Map[Int, [[String]]]()\n"
    "  var tasks: [Task[None]] = []\n"
    "  for t in 0..8 {\n"
    "    tasks.push(spawn worker(t, %d, window))\n"
    "  }\n"
    "  for t in tasks {\n"
    "    t.join()\n"
    "  }\n"
    "  print(\"done {window.len()}\")\n"
    "}\n";

/* Runs exe; returns its exit status and its peak RSS in kB. */
static int run_measured(const char *exe, long *max_rss_kb) {
    pid_t pid;
    char *argv[] = {(char *)exe, NULL};
    posix_spawn_file_actions_t fa; /* its "done" line is not TAP */
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    int rc = posix_spawn(&pid, exe, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) return -1;
    int st;
    struct rusage ru;
    if (wait4(pid, &st, 0, &ru) != pid) return -1;
    *max_rss_kb = ru.ru_maxrss;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

#ifdef OXL_TEST_SANITIZE
enum { BOUND_KB = 512 * 1024, KEEP_ROUNDS = 0 }; /* ASan: shadow memory and quarantine */
#else
enum { BOUND_KB = 64 * 1024, KEEP_ROUNDS = 250 };
#endif
enum { ROUNDS = 1700 }; /* 8 tasks x 1,700 rounds x ~75 kB: about 1 GB */

/* Builds the program with KEEP_ALL = keep_all and `rounds` rounds a task;
 * runs it; returns its status and peak RSS. */
static int build_and_run(const char *oxl, const char *dir, bool keep_all, int rounds, long *rss_kb) {
    char src[4096], path[512], exe[512];
    snprintf(src, sizeof src, program, keep_all ? "true" : "false", rounds);
    snprintf(path, sizeof path, "%s/main.oxl", dir);
    snprintf(exe, sizeof exe, "%s/prog", dir);
    cmd_write(path, src);
    char *out = NULL;
    int st = cmd_run(&out, "'%s' build -O2 '%s' -o '%s'", oxl, path, exe);
    if (st != 0) {
        tap_diag("oxl build failed (%d): %s", st, out ? out : "");
        free(out);
        return -1;
    }
    free(out);
    return run_measured(exe, rss_kb);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: gc_bound_test OXL\n");
        return 2;
    }
    const char *oxl = argv[1];
    char *dir = cmd_tempdir("gcbound");
    long rss = 0;
    int st = build_and_run(oxl, dir, false, ROUNDS, &rss);
    tap_is_int(st, 0, "8 tasks allocating about 1 GB in all run to the end");
    tap_ok(rss > 0 && rss < BOUND_KB, "their peak resident size, %ld kB, stays under %d kB", rss, BOUND_KB);
    if (KEEP_ROUNDS > 0) {
        st = build_and_run(oxl, dir, true, KEEP_ROUNDS, &rss);
        tap_is_int(st, 0, "the control program that keeps every round runs too");
        tap_ok(rss > BOUND_KB, "and its peak, %ld kB, exceeds the bound: the measurement can fail", rss);
    } else {
        tap_skip("under ASan its bound is loose", "the keep-everything control");
    }
    cmd_remove_tree(dir);
    free(dir);
    return tap_done();
}
