/* oxl_rpc.h: OxL services on the nodes of a simulation, and the calls
 * between them (docs/services.md).
 *
 * A service is a table the compiler emits (oxl_service): its per-node
 * state, its `on start`, its rpcs as wire entries. A node serves the
 * services of its roles (oxl_rpc_serve, at the node's creation) and boots
 * them at every boot (oxl_service_boot: state made, `on start` spawned). A
 * call (oxl_rpc_call) runs in the caller's task when the caller's node
 * serves the service; otherwise it is a request to a live node that does,
 * chosen by a seeded draw, carried as a World message and answered by
 * another, so every network fault applies to both. Values cross in the
 * versioned wire format of wire.c, described by type descriptors
 * (oxl_type_desc) the compiler emits.
 *
 * Outcomes: OXL_RPC_OK with the result, or an RpcError of kind deadline
 * (no answer in time), unavailable (no live node serves the service),
 * crashed (the serving node died while the handler ran), panic (the
 * handler panicked: its node crashed of it). A malformed frame is dropped
 * and traced, never a crash. Prefix: oxl_rpc_ (calls), oxl_service_
 * (services), oxl_wire_ (values). Nothing here is thread-safe. */
#ifndef OXL_RPC_H
#define OXL_RPC_H

#include "oxl_rt.h"
#include "oxl_sched.h"

#ifdef __cplusplus
extern "C" {
#endif
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

/* ---- limits ---- */
#define OXL_RPC_MAX_FRAME OXL_SIM_MAX_MESSAGE /* bytes of one request or answer */
#define OXL_WIRE_MAX_DEPTH 1024               /* nesting of one value (a cycle ends here) */
#define OXL_RPC_MAX_PENDING 4096              /* calls a node has in flight */
#define OXL_RPC_MAX_RUNNING 4096              /* requests a node's handlers run at once */
#define OXL_RPC_MAX_SERVICES 64               /* services one node serves */
#define OXL_RPC_DEDUP 1024                    /* answered requests a node remembers */
#define OXL_RPC_DEFAULT_DEADLINE (1 * OXL_SEC)
#define OXL_WIRE_VERSION 1

/* ---- type descriptors: what a value is, for the wire ---- */
/* One descriptor per type, every field a word (the compiler emits them as
 * constants). items: a list's element; a map's key and value; a struct's
 * fields in declaration order; a union's members in the compiler's order,
 * with tags[i] the type id a box of member i carries (None's for None). */
typedef enum oxl_td_kind {
    OXL_TD_NONE = 0,
    OXL_TD_INT,
    OXL_TD_BOOL,
    OXL_TD_STRING,
    OXL_TD_BYTES,
    OXL_TD_DURATION,
    OXL_TD_INSTANT,
    OXL_TD_LIST,
    OXL_TD_MAP,
    OXL_TD_STRUCT,
    OXL_TD_UNION,
} oxl_td_kind;

typedef struct oxl_type_desc {
    int64_t kind;                              /* oxl_td_kind */
    int64_t n;                                 /* items */
    const struct oxl_type_desc *const *items;
    const int64_t *tags;                       /* union: a tag per member */
    const char *name;                          /* as OxL writes the type, for messages */
    const int64_t *str_tags;                   /* map with union keys: the String/Bytes members' */
    int64_t nstr_tags;                         /*   tags (oxl_map_new_union) */
} oxl_type_desc;

/* A growable byte buffer (malloc'd). */
typedef struct oxl_wire_buf {
    unsigned char *data;
    size_t len, cap;
} oxl_wire_buf;
void oxl_wire_buf_free(oxl_wire_buf *b);

/* Appends v (a value of type t, as a word) to b. False, with why in err,
 * when the value is nested deeper than OXL_WIRE_MAX_DEPTH or b would pass
 * OXL_RPC_MAX_FRAME. */
bool oxl_wire_encode(oxl_wire_buf *b, const oxl_type_desc *t, oxl_word v, char *err, size_t errcap);

/* Reads a value of type t from [*p, end) into *out (collected memory) and
 * advances *p. False, with why in err, on truncated or malformed input
 * (bad tag, bad UTF-8, a duplicate map key, a count past what is left, a
 * value nested too deeply); *out is then unspecified. Never crashes. */
bool oxl_wire_decode(const unsigned char **p, const unsigned char *end, const oxl_type_desc *t, oxl_word *out,
                     char *err, size_t errcap);

/* a == b for two values of type t, as OxL's == compares them (docs/
 * language.md §7.5): lists element by element, maps key by key in any
 * order, structs field by field, unions by tag then value, String and
 * Bytes by content. Values with cycles compare in finite time (a pair of
 * objects met again while it is being compared counts as equal). The
 * walk uses its own stack, so deep values do not deepen the C stack. */
bool oxl_wire_equal(const oxl_type_desc *t, oxl_word a, oxl_word b);

/* ---- services: what the compiler emits ---- */
/* A wire entry: the decoded arguments (one word each) to the result word
 * (0 for an rpc without result). It runs the handler in the calling task. */
typedef oxl_word (*oxl_rpc_entry)(const oxl_word *args);

typedef struct oxl_rpc_method {
    const char *name;                        /* "reserve" */
    oxl_rpc_entry entry;
    int64_t nparams;
    const oxl_type_desc *const *params;
    const oxl_type_desc *result;             /* None's descriptor for no result */
    const char *file;                        /* where the rpc is declared */
    int64_t line;
} oxl_rpc_method;

typedef struct oxl_service {
    const char *name;                        /* "Storage" */
    int64_t id;                              /* unique in the program: the wire names it so */
    int64_t nstate;                          /* words of per-node state */
    void (*init)(oxl_word *state);           /* the initial values, or NULL without state */
    void (*start)(void);                     /* `on start`, or NULL */
    int64_t nmethods;
    const oxl_rpc_method *methods;
} oxl_service;

/* The node n serves s from now on, in every incarnation (called once per
 * node and service, when the layout makes the node). */
void oxl_rpc_serve(oxl_node *n, const oxl_service *s);
/* At a boot of the running task's node: s's state is made and its `on
 * start` spawned in a task of the node. */
void oxl_service_boot(const oxl_service *s);
/* The running node's state words of s, made (init run) on first use in
 * the node's incarnation and dropped by its crash. */
oxl_word *oxl_service_state(const oxl_service *s, const char *file, int line);

/* ---- calls ---- */
enum {
    OXL_RPC_OK = 0,
    OXL_RPC_DEADLINE,    /* no answer within the deadline */
    OXL_RPC_UNAVAILABLE, /* no live node serves the service */
    OXL_RPC_CRASHED,     /* the serving node died while the handler ran */
    OXL_RPC_PANIC,       /* the handler panicked (its node crashed of it) */
};

#define OXL_RPC_NO_DEADLINE INT64_MIN /* the call gives none: the default applies */

/* Calls method `method` of s with args (nparams words, as the entry takes
 * them). deadline is a duration (OXL_RPC_NO_DEADLINE: 1 s); `to` (NULL = any) names the
 * node to ask, whatever its state. Returns OXL_RPC_OK with the result word
 * in *out, or another status with *out an RpcError struct {kind, message}
 * (collected memory, two words as OxL lays out its fields). Panics at
 * file:line on misuse: an unknown `to`, a negative deadline, a value too
 * big or too deep to send. */
int64_t oxl_rpc_call(const oxl_service *s, int64_t method, const oxl_word *args, int64_t deadline,
                     oxl_string to, oxl_word *out, const char *file, int line);

/* The running node's name (cluster.self()); "process" outside a layout. */
oxl_string oxl_rpc_self(void);
/* Inside a handler (also one run locally): the calling node's name, true;
 * false elsewhere (cluster.caller() is then none). */
bool oxl_rpc_caller(oxl_string *out);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif
#ifdef __cplusplus
}
#endif
#endif /* OXL_RPC_H */
