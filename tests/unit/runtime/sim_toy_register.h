/* sim_toy_register.h: an ABD replicated register (majority quorums, reads
 * with write-back, durable replica state) written against oxl_sim.h, plus
 * deliberately buggy variants. A complete small example of a protocol, its
 * faults, its oracles and its sweep; docs/simulation.md walks through it. */
#ifndef OXL_SIM_TOY_REGISTER_H
#define OXL_SIM_TOY_REGISTER_H

#include "oxl_sim.h"

typedef enum abd_variant {
    ABD_CORRECT = 0,
    ABD_BUG_NO_WRITE_BACK, /* a read returns without writing its value back */
    ABD_BUG_EARLY_ACK,     /* a write completes after the first replica's ack */
    ABD_BUG_UNSYNCED_ACK,  /* a replica acks a store it has not synced */
} abd_variant;

#define ABD_MAX_REPLICAS 7
#define ABD_MAX_CLIENTS 8
#define ABD_MAX_KEYS 8

typedef struct abd_config {
    abd_variant variant;
    int replicas;       /* 1..ABD_MAX_REPLICAS */
    int clients;        /* 1..ABD_MAX_CLIENTS */
    int keys;           /* 1..ABD_MAX_KEYS */
    int ops_per_client;
    bool faults;        /* drops, duplicates, reordering, partitions, crashes, disk errors */
    uint64_t checker_budget;
} abd_config;

abd_config abd_config_default(abd_variant variant);
const char *abd_variant_name(abd_variant v);

/* A sweep body (oxl_sweep_body): builds the cluster and the fault schedule
 * for the world's seed, runs it, and checks the clients' history with
 * oxl_check_register. Returns NULL or the failure text. arg: abd_config*. */
const char *abd_scenario(oxl_world *w, void *arg);

#endif
