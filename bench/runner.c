/* bench_runner: how many seeds per second `oxl test` runs, and what the
 * runner adds to each seed's process, against a bare fork.
 *
 * It writes a package with two sim tests of 1,000 seeds each: a trivial one
 * (one assert) and one where five tasks pass a message around a ring 1,000
 * times, each hop delayed 1..20 ms of virtual time and 5 percent of them
 * dropped and resent after a 50 ms timeout (net.latency and net.drop are
 * set too; the hops are channels inside the node, so the test draws the
 * delays and drops itself with sim.rand); and it takes examples/bank's sim
 * test at --seeds 2000. It times `oxl test` on each at -j 1 and -j 2 (best
 * of RUNS, binary already cached), the trivial one also with
 * OXL_TEST_FORK_SERVER=0 (posix_spawn per seed), and three baselines, one
 * seed after the other: a bare fork+exit+wait of this small process, the
 * test binary spawned directly, and its --serve driven directly (one
 * request at a time, output to /dev/null). Prints
 *   runner.fork.bare_us                     fork + _exit + waitpid
 *   runner.fork.bare_cpu_us                 its CPU time (parent and child)
 *   runner.<test>_j<N>.cpu_us_per_seed      CPU time of oxl test, its server
 *                                           and seeds, per seed (best run)
 *   runner.<test>_j1_vs_fork_cpu.ratio      the same against the bare fork
 *   runner.<test>_j<N>.seeds_per_sec        through oxl test, fork server
 *   runner.<test>_j<N>.us_per_seed          the same as a cost per seed
 *   runner.trivial_spawn_j1.seeds_per_sec   through oxl test, posix_spawn
 *   runner.<test>.direct_seeds_per_sec      the bare binary spawned
 *   runner.<test>.served_us_per_seed        the bare binary's --serve
 *   runner.<test>.overhead_us_per_seed      (oxl test -j 1 - served) per
 *                                           seed: what the runner adds
 *   runner.trivial_j1.marginal_us_per_seed  (a -j 1 run of 1,000 seeds -
 *                                           one of 1 seed) / 999: a seed's
 *                                           own cost, without the run's
 *                                           start (cache, listing, server)
 *   runner.trivial_j1_marginal_vs_fork.ratio  that over the bare fork
 *   runner.trivial_j1_vs_fork_paired.ratio  the median of the -j 1 runs'
 *                                           marginal cost, each over bare
 *                                           forks timed just before and
 *                                           after it
 *   runner.<test>_j1_vs_fork.ratio          oxl test -j 1 per seed / bare
 *                                           fork (target for trivial: <= 2)
 *   runner.<test>.j2_vs_j1.ratio
 *   runner.trivial.fork_vs_spawn_j1.ratio
 *   runner.trivial_spread_j1.us_per_seed    -j 1 with OXL_TEST_SPREAD_FORKS=1
 *   runner.trivial.spread_vs_kept_j1.ratio  that over the default
 *   runner.bank_inproc_j<N>.seeds_per_sec   the bank's 20,000 seeds with
 *                                           --in-process (and its CPU)
 *   runner.bank_inproc_vs_process_j<N>.ratio per seed, process mode over
 *                                           --in-process (target: >= 10)
 *   runner.bank_inproc.canary_cost_{cpu,wall}_pct  a canary every 100
 *                                           seeds against none
 * The machine's load (its 1-minute load average) is printed first and last:
 * the figures are only as quiet as the machine was.
 *
 *   bench_runner [path/to/oxl]   (default: the oxl beside build/bench/) */
#define _XOPEN_SOURCE 700
#define _DEFAULT_SOURCE /* wait4 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <signal.h>

extern char **environ;

#ifndef OXL_SOURCE_DIR
#define OXL_SOURCE_DIR "."
#endif

#define SEEDS 1000
#define RUNS 3

static const char package[] =
    "use std.test { sim, net }\n"
    "use std.time { sleep }\n"
    "\n"
    "test sim \"trivial\" seeds 1..=1000 {\n"
    "  assert 1 + 1 == 2\n"
    "}\n"
    "\n"
    "fn hop_delay() -> Duration {\n"
    "  var r = sim.rand() % 1000\n"
    "  if r < 0 {\n"
    "    r = -r\n"
    "  }\n"
    "  if r < 50 {\n"
    "    return 50ms + (1 + r % 20) * 1ms\n"
    "  }\n"
    "  return (1 + r % 20) * 1ms\n"
    "}\n"
    "\n"
    "fn relay(from: Chan[Int], to: Chan[Int], done: Chan[Int], last: Int) {\n"
    "  while true {\n"
    "    let got = from.recv()\n"
    "    if got is Int {\n"
    "      if got >= last {\n"
    "        done.send(got)\n"
    "        return\n"
    "      }\n"
    "      sleep(hop_delay())\n"
    "      to.send(got + 1)\n"
    "    } else {\n"
    "      return\n"
    "    }\n"
    "  }\n"
    "}\n"
    "\n"
    "test sim \"messages\" seeds 1..=1000 {\n"
    "  net.latency(1ms, 20ms)\n"
    "  net.drop(50)\n"
    "  let c0 = Chan[Int](1)\n"
    "  let c1 = Chan[Int](1)\n"
    "  let c2 = Chan[Int](1)\n"
    "  let c3 = Chan[Int](1)\n"
    "  let c4 = Chan[Int](1)\n"
    "  let done = Chan[Int](5)\n"
    "  spawn { relay(c0, c1, done, 1000) }\n"
    "  spawn { relay(c1, c2, done, 1000) }\n"
    "  spawn { relay(c2, c3, done, 1000) }\n"
    "  spawn { relay(c3, c4, done, 1000) }\n"
    "  spawn { relay(c4, c0, done, 1000) }\n"
    "  c0.send(1)\n"
    "  assert done.recv() == 1000\n"
    "}\n";

/* The best times start unset: a failed run never counts as one. */
#define UNSET 1e30
static bool have(double best) { return best < UNSET; }

/* Prints NAME: value unit, or NAME: unavailable (and marks the bench failed)
 * when a time the figure needs was never measured. */
static void figure(int *status, bool avail, const char *test, const char *metric, int prec, double v,
                   const char *unit) {
    if (!avail) {
        printf("runner.%s%s: unavailable\n", test, metric);
        *status = 1;
    } else {
        printf("runner.%s%s: %.*f %s\n", test, metric, prec, v, unit);
    }
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double last_cpu; /* CPU seconds of the last run() and its descendants */

/* Spawns argv with stdout and stderr to /dev/null; returns its status. */
static int run(char *const argv[], char *const envp[]) {
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    int e = posix_spawn(&pid, argv[0], &fa, NULL, argv, envp ? envp : environ);
    posix_spawn_file_actions_destroy(&fa);
    if (e != 0) {
        fprintf(stderr, "bench_runner: cannot run %s: %s\n", argv[0], strerror(e));
        return -1;
    }
    int st;
    struct rusage ru;
    while (wait4(pid, &st, 0, &ru) < 0 && errno == EINTR) {
    }
    /* its CPU time and that of everything it waited for (the fork
     * server and its seeds): a figure the machine's load moves less */
    last_cpu = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Seconds for seeds seeds of test index idx spawned one after the other. */
static double direct(const char *bin, int idx, const char *data, int seeds) {
    char run_var[32], seed_var[32], data_var[PATH_MAX + 64];
    char *envp[] = {run_var, seed_var, data_var, "OXL_SIM_REPORT=1", NULL};
    char *argv[] = {(char *)bin, NULL};
    snprintf(run_var, sizeof run_var, "OXL_TEST_RUN=%d", idx);
    snprintf(data_var, sizeof data_var, "OXL_DATA_DIR=%s", data);
    double t0 = now_s();
    for (int s = 1; s <= seeds; s++) {
        snprintf(seed_var, sizeof seed_var, "OXL_TEST_SEED=%d", s);
        if (run(argv, envp) != 0) {
            fprintf(stderr, "bench_runner: the test binary failed test %d seed %d\n", idx, s);
            return -1;
        }
    }
    return now_s() - t0;
}

/* Seconds for a bare fork+_exit+waitpid of this process, n times. */
static double bare_forks(int n) {
    double t0 = now_s();
    for (int i = 0; i < n; i++) {
        pid_t pid = fork();
        if (pid < 0) return -1;
        if (pid == 0) _exit(0);
        int st;
        while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
        }
    }
    return now_s() - t0;
}

/* CPU seconds of this process and of the children it has waited for. */
static double cpu_now(void) {
    struct rusage a, b;
    getrusage(RUSAGE_SELF, &a);
    getrusage(RUSAGE_CHILDREN, &b);
    return (double)(a.ru_utime.tv_sec + a.ru_stime.tv_sec + b.ru_utime.tv_sec + b.ru_stime.tv_sec) +
           (double)(a.ru_utime.tv_usec + a.ru_stime.tv_usec + b.ru_utime.tv_usec + b.ru_stime.tv_usec) * 1e-6;
}

static double load_avg(void) {
    double l = -1;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf", &l) != 1) l = -1;
        fclose(f);
    }
    return l;
}

/* Seconds for seeds seeds of test idx run one after the other by the
 * binary's --serve (a lazy request of docs/test-binary.md, one at a
 * time: each waits for its answers). */
static double served(const char *bin, int idx, const char *data, int seeds) {
    int in[2], out[2];
    if (pipe(in) != 0 || pipe(out) != 0) return -1;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in[0], 0);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    posix_spawn_file_actions_addclose(&fa, in[1]);
    posix_spawn_file_actions_addclose(&fa, out[0]);
    char *argv[] = {(char *)bin, "--serve", NULL};
    pid_t pid;
    int e = posix_spawn(&pid, bin, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(in[0]);
    close(out[1]);
    if (e != 0) return -1;
    FILE *answers = fdopen(out[0], "r");
    char line[1024];
    bool ok = answers && fgets(line, sizeof line, answers) && strcmp(line, "ready\n") == 0;
    double t0 = now_s();
    for (int s = 1; s <= seeds && ok; s++) {
        char req[PATH_MAX + 128];
        /* a lazy request, as oxl test sends: passing, it writes no file */
        int n = snprintf(req, sizeof req, "%d\t%d\t1\t%s.out\t%s.err\t%s/seed\t-\tlazy\n", idx, s, data, data, data);
        ok = write(in[1], req, (size_t)n) == n && fgets(line, sizeof line, answers) && strncmp(line, "pid ", 4) == 0 &&
             fgets(line, sizeof line, answers) && strncmp(line, "status ", 7) == 0;
        if (ok) {
            long cpid;
            int st;
            ok = sscanf(line, "status %ld %d", &cpid, &st) == 2 && st == 0;
        }
    }
    double t = now_s() - t0;
    close(in[1]);
    if (answers) fclose(answers);
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {
    }
    if (!ok) fprintf(stderr, "bench_runner: the test binary's --serve failed test %d: %s", idx, line);
    return ok ? t : -1;
}

int main(int argc, char **argv) {
    char oxl[PATH_MAX + 16];
    if (argc > 1) {
        snprintf(oxl, sizeof oxl, "%s", argv[1]);
    } else {
        char self[PATH_MAX - 16];
        ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
        if (n <= 0) return 2;
        self[n] = '\0';
        char *slash = strrchr(self, '/');
        if (slash) *slash = '\0';
        snprintf(oxl, sizeof oxl, "%s/../oxl", self);
    }
    if (access(oxl, X_OK) != 0) {
        fprintf(stderr, "bench_runner: no oxl at %s\n", oxl);
        return 2;
    }
    const char *tmp = getenv("TMPDIR");
    char dir[PATH_MAX - 64], path[PATH_MAX + 32], cache[PATH_MAX + 32], bin[PATH_MAX + 32], data[PATH_MAX + 32];
    snprintf(dir, sizeof dir, "%s/oxl-bench-runner-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        perror("bench_runner: mkdtemp");
        return 2;
    }
    snprintf(path, sizeof path, "%s/pkg", dir);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/pkg/bench.oxl", dir);
    FILE *f = fopen(path, "w");
    if (!f || fputs(package, f) < 0 || fclose(f) != 0) {
        fprintf(stderr, "bench_runner: cannot write %s\n", path);
        return 2;
    }
    snprintf(path, sizeof path, "%s/pkg", dir);
    snprintf(cache, sizeof cache, "%s/cache", dir);
    snprintf(bin, sizeof bin, "%s/bench.test", dir);
    snprintf(data, sizeof data, "%s/data", dir);
    mkdir(data, 0755);
    setenv("OXL_CACHE_DIR", cache, 1);
    setenv("OXL_TEST_KEEP_BINARY", bin, 1);
    unsetenv("TEST_TOTAL_SHARDS");
    unsetenv("TEST_SHARD_INDEX");
    unsetenv("XML_OUTPUT_FILE");

    /* build once (the cache serves every timed run) */
    char *list_argv[] = {oxl, "test", path, "--list", NULL};
    if (run(list_argv, NULL) != 0) {
        fprintf(stderr, "bench_runner: oxl test --list failed on %s\n", path);
        return 1;
    }
    char bank[PATH_MAX], bank_bin[PATH_MAX + 32];
    snprintf(bank, sizeof bank, "%s/examples/bank", OXL_SOURCE_DIR);
    snprintf(bank_bin, sizeof bank_bin, "%s/bank.test", dir);
    setenv("OXL_TEST_KEEP_BINARY", bank_bin, 1);
    char *bank_list[] = {oxl, "test", bank, "--list", NULL};
    if (run(bank_list, NULL) != 0) {
        fprintf(stderr, "bench_runner: oxl test --list failed on %s\n", bank);
        return 1;
    }
    unsetenv("OXL_TEST_KEEP_BINARY");

    int status = 0;
    printf("runner.load_before: %.2f (1-minute load average; 2 cores)\n", load_avg());
    double fork_best = UNSET;
    for (int r = 0; r < RUNS * 3; r++) {
        double t = bare_forks(2000);
        if (t > 0 && t < fork_best) fork_best = t;
    }
    double fork_us = fork_best / 2000 * 1e6;
    figure(&status, have(fork_best), "fork", ".bare_us", 1, fork_us, "us");
    double c0 = cpu_now();
    double forks = bare_forks(2000);
    double fork_cpu_us = (cpu_now() - c0) / 2000 * 1e6;
    figure(&status, forks > 0, "fork", ".bare_cpu_us", 1, fork_cpu_us, "us");

    static const struct {
        const char *name, *exact, *seeds;
        int index, nseeds;
        bool bank;
    } tests[] = {
        {"trivial", "trivial", NULL, 0, SEEDS, false},
        {"messages", "messages", NULL, 1, SEEDS, false},
        {"bank", "concurrent transfers keep the books balanced", "2000", 1, 2000, true},
    };
    double bank_best[3] = {UNSET, UNSET, UNSET}, bank_cpu[3] = {UNSET, UNSET, UNSET};
    /* each -j 1 run of the trivial test against bare forks timed just
     * before and after it: the host's pace moves between the first figure
     * and the runs several times over, a pair's ratio much less */
    double pair_ratio[RUNS];
    int npairs = 0;
    for (int t = 0; t < 3; t++) {
        /* [server?][jobs]: oxl test; direct and served: the baselines */
        double best[2][3] = {{UNSET, UNSET, UNSET}, {UNSET, UNSET, UNSET}}, best_direct = UNSET, best_served = UNSET,
               best_spread = UNSET;
        double cpu[3] = {UNSET, UNSET, UNSET};
        const char *pkg = tests[t].bank ? bank : path, *tbin = tests[t].bank ? bank_bin : bin;
        int n = tests[t].nseeds;
        /* the trivial test's one seed: what a run costs besides its seeds
         * (the build's cache, the listing, the server's start) */
        double best_one = UNSET;
        for (int r = 0; t == 0 && r < RUNS; r++) {
            char *targv[] = {oxl, "test", (char *)pkg, "--exact", (char *)tests[t].exact, "-j", "1", "--seeds", "1", NULL};
            double t0 = now_s();
            int st = run(targv, NULL);
            double sec = now_s() - t0;
            if (st != 0) status = 1;
            else if (sec < best_one) best_one = sec;
        }
        for (int r = 0; r < RUNS; r++) {
            for (int srv = 1; srv >= 0; srv--) {
                if (!srv && t != 0) continue; /* posix_spawn per seed: the trivial test tells enough */
                setenv("OXL_TEST_FORK_SERVER", srv ? "1" : "0", 1);
                for (int j = 1; j <= 2; j++) {
                    if (!srv && j == 2) continue;
                    char jobs[8];
                    snprintf(jobs, sizeof jobs, "%d", j);
                    char *targv[] = {oxl, "test", (char *)pkg, "--exact", (char *)tests[t].exact, "-j", jobs,
                                     tests[t].seeds ? "--seeds" : NULL, (char *)tests[t].seeds, NULL};
                    bool paired = t == 0 && srv && j == 1;
                    double fork_before = paired ? bare_forks(1000) : 0;
                    double t0 = now_s();
                    int st = run(targv, NULL);
                    double sec = now_s() - t0;
                    if (paired && st == 0 && fork_before > 0 && have(best_one)) {
                        double fork_after = bare_forks(1000);
                        if (fork_after > 0)
                            pair_ratio[npairs++] = ((sec - best_one) / (n - 1)) / ((fork_before + fork_after) / 2000);
                    }
                    if (st != 0) {
                        fprintf(stderr, "bench_runner: oxl test --exact '%s' -j %d exited %d\n", tests[t].exact, j,
                                st);
                        status = 1;
                    } else {
                        if (sec < best[srv][j]) best[srv][j] = sec;
                        if (srv && last_cpu < cpu[j]) cpu[j] = last_cpu;
                    }
                }
            }
            unsetenv("OXL_TEST_FORK_SERVER");
            if (t == 0) {
                /* every seed left to the kernel's placement: the baseline
                 * of a seed kept on its server's CPU */
                setenv("OXL_TEST_SPREAD_FORKS", "1", 1);
                char *targv[] = {oxl, "test", (char *)pkg, "--exact", (char *)tests[t].exact, "-j", "1", NULL};
                double t0 = now_s();
                int st = run(targv, NULL);
                double sec = now_s() - t0;
                unsetenv("OXL_TEST_SPREAD_FORKS");
                if (st != 0) {
                    fprintf(stderr, "bench_runner: oxl test --exact '%s' -j 1 with OXL_TEST_SPREAD_FORKS=1 exited %d\n",
                            tests[t].exact, st);
                    status = 1;
                } else if (sec < best_spread) {
                    best_spread = sec;
                }
            }
            if (t == 0) {
                double d = direct(tbin, tests[t].index, data, n);
                if (d < 0) status = 1;
                else if (d < best_direct) best_direct = d;
            }
            double d = served(tbin, tests[t].index, data, n);
            if (d < 0) status = 1;
            else if (d < best_served) best_served = d;
        }
        const char *nm = tests[t].name;
        double us1 = best[1][1] / n * 1e6, us2 = best[1][2] / n * 1e6;
        figure(&status, have(best[1][1]), nm, "_j1.seeds_per_sec", 0, n / best[1][1], "seeds/s");
        figure(&status, have(best[1][2]), nm, "_j2.seeds_per_sec", 0, n / best[1][2], "seeds/s");
        figure(&status, have(best[1][1]), nm, "_j1.us_per_seed", 0, us1, "us");
        figure(&status, have(best[1][2]), nm, "_j2.us_per_seed", 0, us2, "us");
        figure(&status, have(cpu[1]), nm, "_j1.cpu_us_per_seed", 0, cpu[1] / n * 1e6, "us");
        figure(&status, have(cpu[2]), nm, "_j2.cpu_us_per_seed", 0, cpu[2] / n * 1e6, "us");
        figure(&status, have(best_served), nm, ".served_us_per_seed", 0, best_served / n * 1e6, "us");
        figure(&status, have(best[1][1]) && have(best_served), nm, ".overhead_us_per_seed", 0,
               (best[1][1] - best_served) / n * 1e6, "us");
        figure(&status, have(best[1][1]) && have(fork_best), nm, "_j1_vs_fork.ratio", 2, us1 / fork_us, "x");
        figure(&status, have(cpu[1]) && fork_cpu_us > 0, nm, "_j1_vs_fork_cpu.ratio", 2, cpu[1] / n * 1e6 / fork_cpu_us,
               "x");
        if (t == 0) {
            double marginal = (best[1][1] - best_one) / (n - 1) * 1e6;
            figure(&status, have(best[1][1]) && have(best_one), nm, "_j1.marginal_us_per_seed", 0, marginal, "us");
            figure(&status, have(best[1][1]) && have(best_one) && have(fork_best), nm, "_j1_marginal_vs_fork.ratio", 2,
                   marginal / fork_us, "x");
            /* the median pair (the middle of RUNS after sorting) */
            for (int a = 1; a < npairs; a++)
                for (int b = a; b > 0 && pair_ratio[b] < pair_ratio[b - 1]; b--) {
                    double x = pair_ratio[b];
                    pair_ratio[b] = pair_ratio[b - 1];
                    pair_ratio[b - 1] = x;
                }
            figure(&status, npairs == RUNS, nm, "_j1_vs_fork_paired.ratio", 2, npairs ? pair_ratio[npairs / 2] : 0, "x");
        }
        figure(&status, have(best[1][1]) && have(best[1][2]), nm, ".j2_vs_j1.ratio", 2, best[1][1] / best[1][2],
               "x");
        if (tests[t].bank) {
            for (int j = 1; j <= 2; j++) {
                bank_best[j] = best[1][j];
                bank_cpu[j] = cpu[j];
            }
        }
        if (t == 0) {
            figure(&status, have(best[0][1]), nm, "_spawn_j1.seeds_per_sec", 0, n / best[0][1], "seeds/s");
            figure(&status, have(best_direct), nm, ".direct_seeds_per_sec", 0, n / best_direct, "seeds/s");
            figure(&status, have(best[0][1]) && have(best[1][1]), nm, ".fork_vs_spawn_j1.ratio", 2,
                   best[0][1] / best[1][1], "x");
            figure(&status, have(best_spread), nm, "_spread_j1.us_per_seed", 0, best_spread / n * 1e6,
                   "us (OXL_TEST_SPREAD_FORKS=1: no seed kept on its server's CPU)");
            figure(&status, have(best_spread) && have(best[1][1]), nm, ".spread_vs_kept_j1.ratio", 2,
                   best_spread / best[1][1], "x");
        }
    }
    /* --in-process on the bank: 20,000 seeds, so the run's start is a small
     * part; with the canary every 100 seeds (the default) and never */
    {
        enum { INPROC_SEEDS = 20000 };
        double ibest[3] = {UNSET, UNSET, UNSET}, icpu[3] = {UNSET, UNSET, UNSET}, nocanary = UNSET,
               nocanary_cpu = UNSET;
        for (int r = 0; r < RUNS; r++) {
            for (int j = 1; j <= 3; j++) {
                /* j == 3: -j 1 without the canary */
                char jobs[8];
                snprintf(jobs, sizeof jobs, "%d", j == 3 ? 1 : j);
                if (j == 3) setenv("OXL_TEST_CANARY_EVERY", "1000000000", 1);
                char *targv[] = {oxl, "test", bank, "--exact", "concurrent transfers keep the books balanced", "-j",
                                 jobs, "--seeds", "20000", "--in-process", NULL};
                double t0 = now_s();
                int st = run(targv, NULL);
                double sec = now_s() - t0;
                unsetenv("OXL_TEST_CANARY_EVERY");
                if (st != 0) {
                    fprintf(stderr, "bench_runner: oxl test --in-process -j %s exited %d\n", jobs, st);
                    status = 1;
                } else if (j == 3) {
                    if (sec < nocanary) nocanary = sec;
                    if (last_cpu < nocanary_cpu) nocanary_cpu = last_cpu;
                } else {
                    if (sec < ibest[j]) ibest[j] = sec;
                    if (last_cpu < icpu[j]) icpu[j] = last_cpu;
                }
            }
        }
        figure(&status, have(ibest[1]), "bank_inproc", "_j1.seeds_per_sec", 0, INPROC_SEEDS / ibest[1], "seeds/s");
        figure(&status, have(ibest[2]), "bank_inproc", "_j2.seeds_per_sec", 0, INPROC_SEEDS / ibest[2], "seeds/s");
        figure(&status, have(icpu[1]), "bank_inproc", "_j1.cpu_us_per_seed", 1, icpu[1] / INPROC_SEEDS * 1e6, "us");
        figure(&status, have(icpu[2]), "bank_inproc", "_j2.cpu_us_per_seed", 1, icpu[2] / INPROC_SEEDS * 1e6, "us");
        figure(&status, have(ibest[1]) && have(bank_best[1]), "bank_inproc", "_vs_process_j1.ratio", 1,
               (bank_best[1] / 2000) / (ibest[1] / INPROC_SEEDS), "x");
        figure(&status, have(ibest[2]) && have(bank_best[2]), "bank_inproc", "_vs_process_j2.ratio", 1,
               (bank_best[2] / 2000) / (ibest[2] / INPROC_SEEDS), "x");
        figure(&status, have(icpu[1]) && have(bank_cpu[1]), "bank_inproc", "_vs_process_cpu_j1.ratio", 1,
               (bank_cpu[1] / 2000) / (icpu[1] / INPROC_SEEDS), "x");
        /* the canary's runs are 1 in 101: its cost in CPU time (the wall
         * time of a loaded machine moves more than that) */
        figure(&status, have(icpu[1]) && have(nocanary_cpu), "bank_inproc", ".canary_cost_cpu_pct", 1,
               (icpu[1] - nocanary_cpu) / nocanary_cpu * 100, "% (a canary every 100 seeds against none, -j 1)");
        figure(&status, have(ibest[1]) && have(nocanary), "bank_inproc", ".canary_cost_wall_pct", 1,
               (ibest[1] - nocanary) / nocanary * 100, "%");
    }
    printf("runner.load_after: %.2f (1-minute load average; 2 cores)\n", load_avg());
    char cmd[PATH_MAX + 32];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "bench_runner: could not remove %s\n", dir);
    return status;
}
