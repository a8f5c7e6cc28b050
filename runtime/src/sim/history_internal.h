/* history_internal.h: what the history files share. history.c records
 * operations and runs the checker, lin_search.c decides whether one key's
 * operations are linearizable, lin_witness.c finds the small failing
 * sub-history a violation report names. Internal: prefixed sim_lin_, hidden
 * from the library's exports. Depends on libc and oxl_sim.h only. */
#ifndef OXL_HISTORY_INTERNAL_H
#define OXL_HISTORY_INTERNAL_H

#include "oxl_sim.h"

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- limits ---------------------------------------------------------------------------- */
#define HISTORY_MAX_OPS (1u << 20)             /* ops per history */
#define HISTORY_NO_OP UINT32_MAX                /* invoke's answer when it refuses */
#define LIN_DEFAULT_BUDGET UINT64_C(1000000)    /* states per key when budget == 0 */
#define MEMO_MAX_BYTES ((size_t)512 << 20)      /* memo memory per search */
#define SHRINK_BUDGET_FACTOR 8                  /* shrinking may spend 8 budgets of work */
#define REPORT_MAX_OPS 200                      /* op lines printed in a report */
#define MISUSE_TEXT_MAX 160                     /* bytes of the first misuse's description */

static_assert(2ull * HISTORY_MAX_OPS + 2 < UINT32_MAX, "event numbers and list nodes fit uint32");

/* ---- the history ------------------------------------------------------------------------ */
typedef enum op_status { OP_PENDING, OP_OK, OP_FAIL, OP_INFO } op_status;

typedef struct op_record {
    uint64_t key;
    int64_t a, b;      /* write: a = value; cas: a = expected, b = new */
    int64_t value;     /* ok: read -> value read; cas -> 1 swapped, 0 failed */
    oxl_time_ns t_invoke, t_done;
    uint32_t invoke_seq; /* position of the invoke event in call order */
    uint32_t done_seq;   /* position of the completion event (if any) */
    int32_t client;
    uint8_t kind;        /* oxl_op_kind */
    uint8_t status;      /* op_status */
} op_record;

struct oxl_history {
    op_record *ops;
    uint32_t count, cap;
    uint32_t next_seq;  /* events so far: invokes and completions */
    uint64_t misuses;   /* misuse calls; any makes the history malformed */
    char first_misuse[MISUSE_TEXT_MAX];
};

/* ---- deciding one key ---------------------------------------------------------------------- */
typedef enum sim_lin_outcome { SIM_LIN_OK, SIM_LIN_VIOLATION, SIM_LIN_BUDGET, SIM_LIN_MEMORY } sim_lin_outcome;

/* A cut no event reaches: the whole history. */
#define SIM_LIN_NO_CUT UINT32_MAX

/* Decides whether the ops ids (one key, invoke order, none failed) are
 * linearizable as they stood just after event `cut`: ops invoked after it
 * are left out, and an op completed after it counts as still running
 * (outcome unknown). initial NULL asks whether they are linearizable from
 * some starting value. budget bounds the search states (all starting
 * values together); visited gets the states explored. */
sim_lin_outcome sim_lin_check(const oxl_history *h, const uint32_t *ids, size_t n, uint32_t cut,
                              const int64_t *initial, uint64_t budget, uint64_t *visited);

/* ---- the failing sub-history a report names --------------------------------------------------- */
typedef struct sim_lin_witness {
    uint32_t *ids;      /* malloc'd, invoke order */
    size_t n;
    uint32_t first;     /* the op whose completion ends the shortest failing prefix
                           of the key's whole history (HISTORY_NO_OP: not found) */
    uint32_t end;       /* the op whose completion ends the witness's own shortest
                           failing prefix: `first`, unless a smaller set failing
                           earlier was found (HISTORY_NO_OP: shrinking gave up) */
    uint32_t cut;       /* that completion's event: later completions count as unknown */
    bool needs_initial; /* fails from `initial` only; otherwise from any starting value */
    bool minimal;       /* removing any one op makes it linearizable */
} sim_lin_witness;

/* Finds the witness of a key whose ops (ids, n) are not linearizable from
 * initial. Work is bounded by SHRINK_BUDGET_FACTOR budgets; past it the
 * witness is the failing set reached so far (minimal false). False when
 * memory ran out (nothing is allocated then). */
bool sim_lin_witness_find(const oxl_history *h, const uint32_t *ids, size_t n, int64_t initial, uint64_t budget,
                          sim_lin_witness *out);

#endif
