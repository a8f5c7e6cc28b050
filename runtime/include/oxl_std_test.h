/* oxl_std_test.h: the C side of std.test (std/test/test.oxl). Generated
 * code calls these as the extern fns they declare; C tests may call them
 * from a task of a scheduler run. Durations and Instants are int64
 * nanoseconds; rates are Ints per mille (0..1000). */
#ifndef OXL_STD_TEST_H
#define OXL_STD_TEST_H

#include "oxl_rt.h"

#ifdef __cplusplus
extern "C" {
#endif
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

/* Virtual time 0 is 2026-01-01T00:00:00Z, in Unix nanoseconds. */
#define OXL_STD_EPOCH_NS INT64_C(1767225600000000000)

void oxl_std_test_net_latency(int64_t min, int64_t max);
void oxl_std_test_net_drop(int64_t permille);
void oxl_std_test_net_duplicate(int64_t permille);
void oxl_std_test_net_reorder(int64_t permille);
void oxl_std_test_net_partition(oxl_list a, oxl_list b, int64_t for_ns);
void oxl_std_test_net_block(oxl_string from, oxl_string to);
void oxl_std_test_net_heal(void);
bool oxl_std_test_net_isBlocked(oxl_string from, oxl_string to);

void oxl_std_test_node_kill(oxl_string name, int64_t after);
void oxl_std_test_node_restart(oxl_string name, int64_t after);
bool oxl_std_test_node_isUp(oxl_string name);

void oxl_std_test_disk_fail(oxl_string node, int64_t write_permille, int64_t sync_permille);

int64_t oxl_std_test_clock_now(void);
void oxl_std_test_clock_advance(int64_t d);
void oxl_std_test_clock_set(int64_t t);
void oxl_std_test_clock_skew(oxl_string node, int64_t by);

int64_t oxl_std_test_sim_seed(void);
int64_t oxl_std_test_sim_anyRand(void);
int64_t oxl_std_test_sim_randBelow(int64_t n);
int64_t oxl_std_test_sim_between(int64_t min, int64_t max);
void oxl_std_test_sim_note(oxl_string msg);
int64_t oxl_std_test_sim_traceHash(void);

oxl_list oxl_std_test_cluster_nodes(void);
oxl_string oxl_std_test_cluster_self(void);
oxl_string oxl_std_test_cluster_callerName(void);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif
#ifdef __cplusplus
}
#endif
#endif
