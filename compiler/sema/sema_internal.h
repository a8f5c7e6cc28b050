/* sema_internal.h: what the files of sema share: the checking context and
 * the checker's functions. Not an interface to other stages: the checked
 * program's data model (types, symbols, scopes, tests) is in sema.h.
 * Everything lives in the compilation's arena; nothing is global. */
#ifndef OXL_SEMA_INTERNAL_H
#define OXL_SEMA_INTERNAL_H

#include "sema/sema.h"

/* The context of the function body being checked. */
typedef struct sema_loop {
    struct sema_loop *outer;
    bool had_break;
} sema_loop;

typedef struct sema_fnctx {
    sema_type *result;      /* NULL while inferring (spawn blocks) */
    sema_type *inferred;    /* union of return types while inferring */
    bool bare_return;
    sema_loop *loop;
    sema_sym *service;      /* inside a service's rpc/helper/on start */
} sema_fnctx;

typedef struct sema_cmap_entry {
    const ast_node *node;
    sema_const *val;
} sema_cmap_entry;

typedef struct sema_ctx {
    base_arena *arena;
    base_names *names;
    diag_sink *d;
    const sema_loader *loader;
    sema_options opt;
    sema_program *prog;

    sema_type *t_error, *t_never, *t_none, *t_int, *t_bool, *t_string, *t_bytes, *t_duration, *t_instant;
    sema_type *t_rpc_error;
    base_vec composite;     /* interned composite types */
    uint32_t next_id;

    sema_scope *universe;
    sema_scope *scope;      /* current scope */
    sema_pkg *pkg;          /* package being checked */
    sema_fnctx *fn;         /* NULL outside bodies (consts, defaults) */
    bool in_state_init;     /* a state's initial value: emitted once, in the service's init function */
    bool in_default;        /* a default: copied to each use that leaves it out, and charged there */
    sema_sym *service;      /* service whose members are being checked */
    base_vec pkg_stack;     /* packages being loaded, for cycle errors */
    unsigned depth;
    const ast_node *never_ok; /* the one type node that may say Never: a result being resolved */

    sema_cmap_entry *cmap;  /* folded constants by node */
    uint32_t cmap_len, cmap_cap;
    uint64_t const_work;    /* bytes of compile-time strings so far (SEMA_MAX_CONST_WORK) */
    bool const_work_reported;

    /* interned names used by the checker */
    const char *n_underscore, *n_deadline, *n_to, *n_nodes, *n_roles, *n_now, *n_cap, *n_main, *n_self;
    base_vec methods;       /* SYM_FN of methods declared (step 1), attached to their types after */
} sema_ctx;

/* ---- types.c ---- */
void sema_types_init(sema_ctx *c);
sema_type *ty_list(sema_ctx *c, sema_type *elem);
sema_type *ty_map(sema_ctx *c, sema_type *key, sema_type *val);
sema_type *ty_chan(sema_ctx *c, sema_type *elem);
sema_type *ty_task(sema_ctx *c, sema_type *elem);
sema_type *ty_fn(sema_ctx *c, sema_type **params, uint32_t n, sema_type *result);
sema_type *ty_union2(sema_ctx *c, sema_type *a, sema_type *b);
sema_type *ty_union(sema_ctx *c, sema_type **members, uint32_t n, base_span at);
sema_type *ty_optional(sema_ctx *c, sema_type *t);
sema_type *ty_struct(sema_ctx *c, const char *name, sema_sym *sym);
sema_type *ty_without(sema_ctx *c, sema_type *t, sema_type *remove);
bool ty_is_error(const sema_type *t);
bool ty_has_member(const sema_type *u, const sema_type *m);
bool ty_assignable(const sema_type *from, const sema_type *to);
bool ty_comparable(const sema_type *t);
bool ty_sendable(const sema_type *t, int depth);
bool ty_equatable(const sema_type *t);
bool ty_extern_ok(const sema_type *t);
const char *ty_str(sema_ctx *c, const sema_type *t);
sema_field *ty_field(const sema_type *t, const char *name);

/* A name a `use` put into a file's scope, and whether the file used it. */
typedef struct sema_import {
    const sema_sym *sym;
    const char *as;
    base_span at;
    bool used;
} sema_import;

/* ---- scope.c ---- */
sema_scope *scope_new(sema_ctx *c, sema_scope *parent);
sema_sym *sym_new(sema_ctx *c, sema_symkind kind, const char *name, ast_node *decl, base_span span);
sema_sym *scope_find_local(const sema_scope *s, const char *name);
/* Adds sym to s without the duplicate check (narrowed views, imports). */
void scope_add(sema_ctx *c, sema_scope *s, sema_sym *sym);
sema_sym *scope_lookup(const sema_scope *s, const char *name);
bool scope_declare(sema_ctx *c, sema_scope *s, sema_sym *sym);
void scope_push(sema_ctx *c);
void scope_pop(sema_ctx *c);
const char *sym_kind_name(const sema_sym *s);
bool sema_name_is_blank(const char *name);

/* ---- items.c ---- */
bool sema_resolve_sym(sema_ctx *c, sema_sym *s);
/* Checks package p (its four steps) and everything it imports. */
void sema_check_pkg(sema_ctx *c, sema_pkg *p);

/* ---- imports.c ---- */
/* Binds the names of `use` u in the file scope fs, loading the package. */
void sema_bind_use(sema_ctx *c, ast_node *u, sema_scope *fs);
void sema_warn_unused_imports(sema_ctx *c, const sema_pkg *p);
/* For "unknown name 'x'": " (std.test has it: `use std.test { x }`)" when
 * a standard package has an item x (or is named x), else "". */
const char *sema_import_hint(sema_ctx *c, const char *name);
/* Resolves a dotted name ("net.Foo") through modules; NULL when unknown
 * (*reported when it said why). */
sema_sym *sema_lookup_dotted(sema_ctx *c, const char *dotted, base_span at, bool *reported);

/* ---- layout.c ---- */
/* A map from pointers (interned names, nodes) to values: open addressing
 * on the address, for lookup only, never iterated (no order may depend on
 * an address). Zeroed to start. */
typedef struct sema_ptrmap {
    const void **keys;
    void **vals;
    uint32_t len, cap;
} sema_ptrmap;

/* Adds key -> val unless key is there; false when it was (val not set). */
bool sema_ptrmap_add(sema_ctx *c, sema_ptrmap *m, const void *key, void *val);
void *sema_ptrmap_get(const sema_ptrmap *m, const void *key);

/* What checking one package's tests has indexed (zeroed to start), so
 * that n tests cost O(n), not O(n * items). */
typedef struct sema_pkg_tests {
    sema_ptrmap names;       /* the tests' names, interned */
    sema_ptrmap roles;       /* interned role name -> its first AST_ROLE in the package's clusters */
    ast_node *first_cluster;
    bool scanned;            /* roles and first_cluster are filled */
} sema_pkg_tests;

void sema_check_cluster(sema_ctx *c, ast_node *it);
void sema_check_test(sema_ctx *c, ast_node *t, sema_pkg_tests *seen);
sema_type *sema_resolve_type(sema_ctx *c, ast_node *t);
sema_sym *sema_resolve_path(sema_ctx *c, ast_node *e, bool *failed);

/* ---- check_expr.c ---- */
/* Charges n bytes of compile-time string work done for e against the
 * program's budget; false (reported once) past it. */
bool sema_charge_const_work(sema_ctx *c, const ast_node *e, uint64_t n);
/* Whether a name used here is emitted where it is (a body or a state's
 * initial value) rather than folded (a constant) or copied to each use (a
 * default, charged there by sema_charge_default). */
static inline bool sema_emits_uses(const sema_ctx *c) { return c->fn || c->in_state_init; }
/* Charges, at `at`, one more copy of a default left out there (a call's
 * parameter, a struct literal's field); false past the budget. */
bool sema_charge_default(sema_ctx *c, const ast_node *at, const ast_node *dflt);
/* Checks a struct's field defaults once, before a literal that leaves
 * one out is charged for it. */
void sema_check_field_defaults(sema_ctx *c, sema_sym *s);
sema_type *sema_check_expr(sema_ctx *c, ast_node *e, sema_type *expected);
/* A name's value: its type (and e->sym), or an error for what is not a value. */
sema_type *sema_value_of_sym(sema_ctx *c, ast_node *e, sema_sym *s);
/* ": narrow it with `match` or `is` first", for a union used as a member. */
const char *sema_union_hint(sema_ctx *c, sema_type *t);
bool sema_coerce(sema_ctx *c, ast_node *e, sema_type *to, const char *what);
sema_type *sema_check_value(sema_ctx *c, ast_node *e, sema_type *to, const char *what);
const sema_const *sema_const_of(const sema_ctx *c, const ast_node *e);
void sema_set_const(sema_ctx *c, const ast_node *e, sema_const *v);
base_span sema_end_span(base_span s);
sema_type *sema_arith_result(sema_ctx *c, int op, sema_type *l, sema_type *r);
const char *sema_op_text(int op);

/* ---- check_call.c ---- */
sema_type *sema_check_call(sema_ctx *c, ast_node *e);
sema_type *sema_check_call_args(sema_ctx *c, ast_node *call, const sema_sig *sig, bool allow_deadline, uint32_t first_arg);
/* Checks the arguments of a call that already failed, for their own errors. */
void sema_check_args_loose(sema_ctx *c, ast_node *call);
/* The method `name` declared for struct type t, or NULL. */
sema_sym *sema_user_method(const sema_type *t, const char *name);

/* ---- builtins.c ---- */
/* The signature of recv's built-in method `name`, and its id, or NULL. */
sema_sig *sema_builtin_method(sema_ctx *c, sema_type *recv, const char *name, sema_method *id);
const char *sema_builtin_methods_of(const sema_type *recv);

/* ---- check_stmt.c ---- */
bool sema_check_block(sema_ctx *c, ast_node *block, bool new_scope);
bool sema_check_stmt(sema_ctx *c, ast_node *s);
void sema_check_body(sema_ctx *c, ast_node *body, sema_type *result, sema_sym *service);
sema_type *sema_check_spawn_block(sema_ctx *c, ast_node *block);
void sema_push_narrowing(sema_ctx *c, ast_node *cond, bool truth);
sema_type *sema_check_match(sema_ctx *c, ast_node *m, bool as_expr, bool *diverges);
/* The declared type of e when it is a narrowed name (§7.7), else NULL;
 * *name (when name is not NULL) gets the name. */
sema_type *sema_unnarrowed_type(const ast_node *e, const char **name);

#endif
