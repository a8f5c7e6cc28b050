/* bench/sched_ring: a token passed around a ring of 100 tasks over channels
 * for 200 rounds (20,000 hops), against the same ring in Python's stock
 * asyncio (python3 -c, in the same invocation) as the baseline. The same
 * ring in generated OxL code (bench/oxl_sched, a sim test built -O2 by the
 * oxl beside the benchmark) is timed beside the C one: its runs of 50 and
 * 5,000 rounds, each a process, and the difference of their best wall
 * times over the difference of their hops.
 *   bench_sched_ring [rounds]   (default 200) */
#include "bench_util.h"
#include "oxl_sched.h"

#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#ifndef OXL_SOURCE_DIR
#define OXL_SOURCE_DIR "."
#endif

enum { TASKS = 100 };

typedef struct ring {
    oxl_chan *ch[TASKS];
    long rounds;
    double ring_seconds; /* from the first send to the last join */
} ring;


typedef struct member {
    ring *r;
    int index;
} member;

static void *member_run(void *arg) {
    member *m = arg;
    oxl_chan *in = m->r->ch[m->index], *out = m->r->ch[(m->index + 1) % TASKS];
    long hops_total = m->r->rounds * TASKS;
    long token;
    while (oxl_chan_recv(in, &token) == OXL_CHAN_OK) {
        if (token >= hops_total) { /* the end: tell the next one and stop */
            oxl_chan_send(out, &token);
            return NULL;
        }
        token++;
        oxl_chan_send(out, &token);
    }
    return NULL;
}

static void *ring_root(void *arg) {
    ring *r = arg;
    member ms[TASKS];
    oxl_task *ts[TASKS];
    for (int i = 0; i < TASKS; i++) r->ch[i] = oxl_chan_new(1, sizeof(long));
    for (int i = 0; i < TASKS; i++) {
        ms[i] = (member){r, i};
        ts[i] = oxl_spawn(member_run, &ms[i]);
    }
    /* Timed like the asyncio baseline: tasks made, then the token goes. The
     * benchmark reads the wall clock; simulations never do. */
    double t0 = bench_now();
    long token = 0;
    oxl_chan_send(r->ch[0], &token);
    for (int i = 0; i < TASKS; i++) oxl_join(ts[i], NULL);
    r->ring_seconds = bench_now() - t0;
    return NULL;
}

static const char python_ring[] =
    "import asyncio, time, sys\n"
    "TASKS, ROUNDS = 100, int(sys.argv[1])\n"
    "async def member(i, chans, total):\n"
    "    inq, outq = chans[i], chans[(i + 1) % TASKS]\n"
    "    while True:\n"
    "        token = await inq.get()\n"
    "        if token >= total:\n"
    "            await outq.put(token)\n"
    "            return\n"
    "        await outq.put(token + 1)\n"
    "async def main():\n"
    "    chans = [asyncio.Queue(1) for _ in range(TASKS)]\n"
    "    total = TASKS * ROUNDS\n"
    "    tasks = [asyncio.create_task(member(i, chans, total)) for i in range(TASKS)]\n"
    "    t0 = time.perf_counter()\n"
    "    await chans[0].put(0)\n"
    "    await asyncio.gather(*tasks)\n"
    "    return time.perf_counter() - t0\n"
    "best = min(asyncio.run(main()) for _ in range(5))\n"
    "print(best * 1e9 / (TASKS * ROUNDS))\n";

/* ns per hop of the asyncio ring (python3 -c, argv only, no shell), or a
 * negative number when python3 does not run. */
static double python_ns_per_hop(long rounds) {
    int fds[2];
    if (pipe(fds) != 0) return -1;
    char rounds_arg[32];
    snprintf(rounds_arg, sizeof rounds_arg, "%ld", rounds);
    char *argv[] = {"python3", "-c", (char *)python_ring, rounds_arg, NULL};
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    pid_t pid;
    int rc = posix_spawnp(&pid, "python3", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    if (rc != 0) {
        close(fds[0]);
        return -1;
    }
    FILE *in = fdopen(fds[0], "r");
    double ns = -1;
    if (!in || fscanf(in, "%lf", &ns) != 1) ns = -1;
    if (in) fclose(in);
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? ns : -1;
}

/* Best ns per hop over 20 runs with one policy. */
static double measure(long rounds, oxl_policy policy, bool preempt, const char *name) {
    double best = 1e30, best_run = 1e30;
    for (int rep = 0; rep < 20; rep++) {
        ring r;
        memset(&r, 0, sizeof r);
        r.rounds = rounds;
        oxl_sched_options o;
        oxl_sched_options_default(&o, 42);
        o.policy = policy;
        o.preempt_on_wake = preempt;
        double t0 = bench_now();
        oxl_sched_result res = oxl_sched_run(ring_root, &r, &o);
        double dt = bench_now() - t0;
        if (res.status != OXL_SCHED_FINISHED) {
            fprintf(stderr, "bench_sched_ring: the ring did not finish: %s\n", res.report ? res.report : "?");
            exit(1);
        }
        if (rep == 0)
            printf("sched_ring.%s.switches_per_hop: %.2f\n", name, (double)res.switches / (double)(rounds * TASKS));
        oxl_sched_result_free(&res);
        if (r.ring_seconds < best) best = r.ring_seconds;
        if (dt < best_run) best_run = dt;
    }
    printf("sched_ring.%s.whole_run: %.1f us (with making the run, its 100 tasks and their stacks)\n", name,
           best_run * 1e6);
    return best * 1e9 / (double)(rounds * TASKS);
}

/* ns per hop of the OxL ring (tests 0 and 1 of bench/oxl_sched: 50 and
 * 5,000 rounds), or a negative number when it cannot be measured. */
static double oxl_ns_per_hop(void) {
    double cpu[2], wall[2];
    if (!bench_oxl_sched_pair(OXL_SOURCE_DIR, "bench_sched_ring", 0, 1, cpu, wall)) return -1;
    double hops = (double)((5000 - 50) * TASKS);
    printf("sched_ring.oxl.wall_ns_per_hop: %.1f ns (best wall times, disturbed by the machine's load)\n",
           (wall[1] - wall[0]) * 1e9 / hops);
    return (cpu[1] - cpu[0]) * 1e9 / hops;
}

int main(int argc, char **argv) {
    long rounds = 200;
    if (argc > 1) {
        char *end;
        rounds = strtol(argv[1], &end, 10);
        if (*end || rounds <= 0 || rounds > 1000000) {
            fprintf(stderr, "bench_sched_ring: bad round count '%s'\n", argv[1]);
            return 2;
        }
    }
    printf("sched_ring.hops: %ld hops\n", rounds * TASKS);
    double random_ns = measure(rounds, OXL_POLICY_RANDOM, false, "random");
    double fifo_ns = measure(rounds, OXL_POLICY_FIFO, false, "fifo");
    double preempt_ns = measure(rounds, OXL_POLICY_RANDOM, true, "preempt_on_wake");
    printf("sched_ring.ns_per_hop: %.1f ns (default random policy; target <= 50)\n", random_ns);
    printf("sched_ring.fifo.ns_per_hop: %.1f ns\n", fifo_ns);
    printf("sched_ring.preempt_on_wake.ns_per_hop: %.1f ns (random policy, a decision at every wakeup)\n", preempt_ns);
    double oxl_ns = oxl_ns_per_hop();
    if (oxl_ns > 0) {
        printf("sched_ring.oxl.ns_per_hop: %.1f ns (the ring in generated OxL code, a sim test: CPU time of 5,000 rounds less 50; target <= 40)\n", oxl_ns);
        printf("sched_ring.oxl_vs_c.ratio: %.2f x the C ring's time a hop\n", oxl_ns / random_ns);
    } else {
        printf("sched_ring.oxl.ns_per_hop: unavailable (the OxL ring could not be built or run)\n");
    }
    double py = python_ns_per_hop(rounds);
    if (py > 0) {
        printf("sched_ring.asyncio_ns_per_hop: %.1f ns\n", py);
        printf("sched_ring.vs_asyncio.ratio: %.1f x faster (random policy; target >= 75)\n", py / random_ns);
        printf("sched_ring.fifo.vs_asyncio.ratio: %.1f x faster\n", py / fifo_ns);
    } else {
        printf("sched_ring.asyncio_ns_per_hop: unavailable (python3 did not run)\n");
    }
    return 0;
}
