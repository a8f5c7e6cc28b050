/* node.c: NodeState, one logical node in one process, and its registries.
 *
 * A NodeState is a World node whose process hosts the node's tasks: its
 * boot spawns the node's boot task, its destruction (a crash) cancels every
 * task of the node and drops the node's registries. Tasks inherit the node
 * of the task that spawned them; the process node (NULL) is the default. */
#include "sched/sched_internal.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NODE_MAX_ROLES 64
#define NODE_MAX_LOCALS 256

typedef struct node_host {
    oxl_process base;
    oxl_sched *sched; /* outlives the NodeState while the run tears down */
    oxl_node *node;
} node_host;

/* A node's registries: a small table searched by key identity only. */
typedef struct local_table {
    const void *keys[NODE_MAX_LOCALS];
    void *objs[NODE_MAX_LOCALS];
    void (*finis[NODE_MAX_LOCALS])(void *obj);
    size_t count;
} local_table;

/* Finalized newest first, as a registry made by another's init may refer
 * to it. The table is detached first: a finalizer never sees it. */
void sched_locals_free(void **table) {
    local_table *t = *table;
    if (!t) return;
    *table = NULL;
    for (size_t i = t->count; i-- > 0;) {
        if (t->finis[i]) t->finis[i](t->objs[i]);
        free(t->objs[i]);
    }
    free(t);
}

static void *local_get(void **slot, const void *key, size_t size, void (*init)(void *), void (*fini)(void *)) {
    local_table *t = *slot;
    if (!t) t = *slot = sim_xcalloc(1, sizeof *t);
    for (size_t i = 0; i < t->count; i++)
        if (t->keys[i] == key) return t->objs[i];
    if (t->count == NODE_MAX_LOCALS)
        oxl_panic_at("(runtime)", 0, "more than %d node-local registries", NODE_MAX_LOCALS);
    void *obj = sim_xcalloc(1, size ? size : 1);
    if (init) init(obj);
    t = *slot; /* init may have made other registries: the table is the same one */
    t->keys[t->count] = key;
    t->objs[t->count] = obj;
    t->finis[t->count] = fini;
    t->count++;
    return obj;
}

void sched_node_link_task(oxl_node *n, oxl_task *t) {
    t->node_prev = NULL;
    t->node_next = n->tasks;
    if (n->tasks) n->tasks->node_prev = t;
    n->tasks = t;
}

void sched_node_unlink_task(oxl_node *n, oxl_task *t) {
    if (t->node_prev)
        t->node_prev->node_next = t->node_next;
    else if (n->tasks == t)
        n->tasks = t->node_next;
    if (t->node_next) t->node_next->node_prev = t->node_prev;
    t->node_prev = t->node_next = NULL;
}

static void host_start(oxl_process *self, oxl_ctx c) {
    oxl_node *n = ((node_host *)self)->node;
    if (n->boot) sched_spawn(n->sched, n, n->boot, n->boot_arg, "(boot)", 0);
}

/* Deliveries go to the node's message hook; a node without one (nobody
 * carries messages for it) drops them, as the World's trace shows. */
SIM_HOT static void host_message(oxl_process *self, oxl_ctx c, oxl_node_id from, const void *data, size_t len) {
    (void)c;
    oxl_node *n = ((node_host *)self)->node;
    if (n->hooks.message) n->hooks.message(n, from, data, len, n->hooks.arg);
}

/* A crash: tell the hook, cancel every task of the node and drop its
 * registries. */
static void host_destroy(oxl_process *self) {
    node_host *h = (node_host *)self;
    oxl_sched *s = h->sched;
    oxl_node *n = h->node;
    free(self);
    if (s->tearing_down) return;
    if (n->hooks.crash) n->hooks.crash(n, n->hooks.arg);
    /* Cancel in id order, so the trace does not depend on list order:
     * spawns link at the head with increasing ids, so the list runs from
     * the highest id down and the tail is the lowest. */
    while (n->tasks) {
        oxl_task *t = n->tasks;
        while (t->node_next) t = t->node_next;
        while (t) {
            oxl_task *prev = t->node_prev;
            assert(!prev || prev->id > t->id);
            sched_cancel_task(s, t); /* unlinks it from the node */
            t = prev;
        }
    }
    sched_locals_free(&n->locals);
}

static const oxl_process_ops host_ops = {host_start, host_message, host_destroy};

static oxl_process *host_new(oxl_ctx c, void *arg) {
    node_host *h = sim_xcalloc(1, sizeof *h);
    h->base.ops = &host_ops;
    h->node = arg;
    h->sched = h->node->sched;
    return &h->base;
}

static void node_free(oxl_node *n) {
    free(n->name);
    free(n->data_dir);
    for (size_t i = 0; i < n->nroles; i++) free(n->roles[i]);
    free(n->roles);
    sched_locals_free(&n->locals);
    free(n);
}

oxl_node *oxl_node_new(const oxl_node_config *cfg) {
    oxl_sched *s = sched_enter("oxl_node_new");
    if (!s) return NULL;
    if (!cfg || !cfg->name) oxl_panic_at("(runtime)", 0, "oxl_node_new: a node needs a name");
    if (cfg->nroles > NODE_MAX_ROLES || (cfg->nroles && !cfg->roles))
        oxl_panic_at("(runtime)", 0, "oxl_node_new: node %s has a bad role list", cfg->name);
    oxl_node *n = sim_xcalloc(1, sizeof *n);
    n->sched = s;
    n->name = sim_xstrdup(cfg->name);
    n->data_dir = cfg->data_dir ? sim_xstrdup(cfg->data_dir) : NULL;
    n->nroles = cfg->nroles;
    n->roles = sim_xcalloc(cfg->nroles ? cfg->nroles : 1, sizeof *n->roles);
    for (size_t i = 0; i < cfg->nroles; i++) n->roles[i] = sim_xstrdup(cfg->roles[i] ? cfg->roles[i] : "");
    n->boot = cfg->boot;
    n->boot_arg = cfg->boot_arg;
    n->panic_crashes = cfg->panic_crashes;
    n->world_id = oxl_world_add_node(s->world, cfg->name, host_new, n);
    if (n->world_id == OXL_NO_NODE) { /* bad or taken name: the World says why */
        char *why = sim_xstrdup(oxl_world_failure(s->world) ? oxl_world_failure(s->world) : "rejected");
        node_free(n);
        oxl_panic_at("(runtime)", 0, "oxl_node_new: %s", why);
    }
    if (!s->nodes_tail) s->nodes_tail = &s->nodes;
    *s->nodes_tail = n;
    s->nodes_tail = &n->next;
    sim_boot_now(s->world, n->world_id); /* up at once: tasks can be spawned on it */
    return n;
}

void sched_nodes_teardown(oxl_sched *s) {
    oxl_node *n = s->nodes;
    while (n) {
        oxl_node *next = n->next;
        /* A borrowed World outlives the run: its host processes must not
         * point at freed NodeStates. */
        if (oxl_world_is_up(s->world, n->world_id) && !s->own_world) oxl_world_kill(s->world, n->world_id);
        node_free(n);
        n = next;
    }
    s->nodes = NULL;
    s->nodes_tail = &s->nodes;
}

SIM_HOT oxl_node *oxl_node_current(void) {
    oxl_sched *s = sched_enter("oxl_node_current");
    return s ? s->current->node : NULL;
}

oxl_node *oxl_node_by_name(const char *name) {
    oxl_sched *s = sched_enter("oxl_node_by_name");
    if (!s || !name) return NULL;
    for (oxl_node *n = s->nodes; n; n = n->next)
        if (strcmp(n->name, name) == 0) return n;
    return NULL;
}

const char *oxl_node_name(const oxl_node *n) { return n ? n->name : "process"; }
const char *oxl_node_data_dir(const oxl_node *n) { return n ? n->data_dir : NULL; }
SIM_HOT oxl_node_id oxl_node_world_id(const oxl_node *n) { return n ? n->world_id : OXL_NO_NODE; }

size_t oxl_node_role_count(const oxl_node *n) { return n ? n->nroles : 0; }

const char *oxl_node_role(const oxl_node *n, size_t i) { return n && i < n->nroles ? n->roles[i] : NULL; }

bool oxl_node_has_role(const oxl_node *n, const char *role) {
    if (!n || !role) return false;
    for (size_t i = 0; i < n->nroles; i++)
        if (strcmp(n->roles[i], role) == 0) return true;
    return false;
}

bool oxl_node_is_up(const oxl_node *n) { return n == NULL || oxl_world_is_up(n->sched->world, n->world_id); }

void oxl_node_kill(oxl_node *n) {
    oxl_sched *s = sched_enter("oxl_node_kill");
    if (!s) return;
    if (!n) oxl_panic_at("(runtime)", 0, "node.kill of the process node");
    if (!oxl_world_is_up(s->world, n->world_id)) oxl_panic_at("(runtime)", 0, "node.kill: node %s is already down", n->name);
    oxl_world_kill(s->world, n->world_id);
    sched_check_self(s); /* a task that killed its own node ends here */
}

void oxl_node_restart(oxl_node *n) {
    oxl_sched *s = sched_enter("oxl_node_restart");
    if (!s) return;
    if (!n) oxl_panic_at("(runtime)", 0, "node.restart of the process node");
    oxl_world_restart(s->world, n->world_id);
    sched_check_self(s);
}

void *oxl_node_local_fini(const void *key, size_t size, void (*init)(void *obj), void (*fini)(void *obj)) {
    oxl_sched *s = sched_enter("oxl_node_local");
    if (!s) return NULL;
    oxl_node *n = s->current->node;
    return local_get(n ? &n->locals : &s->process_locals, key, size, init, fini);
}

void *oxl_node_local(const void *key, size_t size, void (*init)(void *obj)) {
    return oxl_node_local_fini(key, size, init, NULL);
}

void *oxl_run_local(const void *key, size_t size, void (*init)(void *obj), void (*fini)(void *obj)) {
    oxl_sched *s = sched_active();
    if (!s) sched_fatal("oxl_run_local called outside oxl_sched_run");
    return local_get(&s->run_locals, key, size, init, fini);
}

void oxl_node_set_hooks(oxl_node *n, const oxl_node_hooks *hooks) {
    if (!n) oxl_panic_at("(runtime)", 0, "oxl_node_set_hooks on the process node");
    n->hooks = hooks ? *hooks : (oxl_node_hooks){0};
}

bool oxl_node_panic_info(const oxl_node *n, uint64_t *task_id, const char **report) {
    if (!n || !n->panic_report) return false;
    if (task_id) *task_id = n->panic_task;
    if (report) *report = n->panic_report;
    return true;
}

oxl_node *oxl_node_next(const oxl_node *prev) {
    oxl_sched *s = sched_active();
    if (!s) return NULL;
    return prev ? prev->next : s->nodes;
}

FILE *oxl_sched_nodes_debug(void) {
    oxl_sched *s = sched_active();
    return s ? s->opt.nodes_debug : NULL;
}

/* OXL_SIM_NODES_DEBUG: the trace's boots, crashes, rpc events and drops,
 * as the trace formats them, so the two can never disagree. */
static void nodes_debug_event(const oxl_world *w, const oxl_trace_event *ev, void *arg) {
    switch (ev->kind) {
    case OXL_EV_START:
    case OXL_EV_RESTART:
    case OXL_EV_KILL:
    case OXL_EV_RPC:
    case OXL_EV_DROP: break;
    default: return;
    }
    char line[512];
    oxl_world_trace_format(w, ev, line, sizeof line);
    fprintf((FILE *)arg, "oxl-nodes: %s\n", line);
}

void sched_nodes_debug_begin(oxl_sched *s) {
    if (s->opt.nodes_debug) oxl_world_set_trace_hook(s->world, nodes_debug_event, s->opt.nodes_debug);
}

void sched_nodes_debug_end(oxl_sched *s) {
    if (s->opt.nodes_debug) oxl_world_set_trace_hook(s->world, NULL, NULL);
}

/* The running task panicked on a node that dies of it: the node crashes,
 * which cancels this task too, and the run goes on; its end reports the
 * first such panic (oxl_sched_run). */
void sched_node_panicked(oxl_sched *s, char *report) {
    oxl_task *self = s->current;
    oxl_node *n = self->node;
    assert(n && n->panic_crashes);
    if (!s->node_panic) {
        s->node_panic = sched_strf("panic on node %s (the node crashed and the run went on): %s", n->name,
                                   report + (strncmp(report, "panic: ", 7) == 0 ? 7 : 0));
    }
    oxl_ctx c = oxl_world_ctx(s->world, n->world_id);
    char *line = sim_xstrdup(report); /* one trace line: "... at f.oxl:3 (...)" */
    for (char *p = line, *w = line;; p++) {
        if (*p == '\n') {
            *w++ = ' ';
            while (p[1] == ' ') p++;
        } else if (!(*w++ = *p)) {
            break;
        }
    }
    oxl_ctx_trace(c, "%s", line);
    free(line);
    if (s->opt.nodes_debug) fprintf(s->opt.nodes_debug, "oxl-nodes: %s crashes: %s\n", n->name, report);
    n->panic_task = self->id;
    n->panic_report = report;
    if (oxl_world_is_up(s->world, n->world_id)) oxl_world_kill(s->world, n->world_id);
    n->panic_task = 0;
    n->panic_report = NULL;
    free(report);
    sched_check_self(s); /* the kill cancelled this task: it ends here */
    abort();             /* not reached */
}
