/* sema_internal.h: what the files of sema share: types, symbols, scopes and
 * the checking context. Not an interface to other stages (that is sema.h).
 * Everything lives in the compilation's arena; nothing is global. */
#ifndef OXL_SEMA_INTERNAL_H
#define OXL_SEMA_INTERNAL_H

#include "sema/sema.h"

/* ---- limits ---- */
#define SEMA_MAX_PACKAGES 256      /* packages loaded by one compilation */
#define SEMA_MAX_PARAMS 255        /* parameters of one function */
#define SEMA_MAX_UNION 64          /* members of one union */
#define SEMA_MAX_NESTING BASE_MAX_NESTING
#define SEMA_MAX_SEED 0x7fffffffffffffffLL

/* ---- types ---- */
typedef enum sema_tkind {
    TY_ERROR,    /* an expression already reported: suppresses cascades */
    TY_NEVER,    /* the type of panic(...): assignable to anything */
    TY_NONE,     /* None, the type of `none` and of a function without result */
    TY_INT,
    TY_BOOL,
    TY_STRING,
    TY_BYTES,
    TY_DURATION,
    TY_INSTANT,
    TY_LIST,     /* elem */
    TY_MAP,      /* key, elem */
    TY_CHAN,     /* elem */
    TY_TASK,     /* elem */
    TY_STRUCT,   /* nominal: name, sym, fields */
    TY_UNION,    /* items: members, flattened, sorted by id, at least two */
    TY_FN,       /* items: parameter types; elem: result */
} sema_tkind;

typedef struct sema_type sema_type;
typedef struct sema_sym sema_sym;
typedef struct sema_scope sema_scope;
typedef struct sema_pkg sema_pkg;

typedef struct sema_field {
    const char *name;
    sema_type *type;
    ast_node *decl; /* AST_FIELD */
} sema_field;

struct sema_type {
    sema_tkind kind;
    uint32_t id;         /* creation order: canonical order of union members */
    sema_type *elem;
    sema_type *key;
    sema_type **items;
    uint32_t nitems;
    sema_type **shown;   /* union members in the order first written, for messages */
    /* structs */
    const char *name;
    sema_sym *sym;
    sema_field *fields;
    uint32_t nfields;
};

/* ---- constant values (folded at compile time) ---- */
typedef enum sema_ckind { CV_INT, CV_BOOL, CV_STRING, CV_NONE } sema_ckind;
typedef struct sema_const {
    sema_ckind kind;
    int64_t i;          /* Int, Duration (ns), Bool (0/1) */
    const char *s;      /* String */
    size_t slen;
} sema_const;

/* ---- signatures: functions, rpcs, built-in methods ---- */
typedef struct sema_param {
    const char *name;
    sema_type *type;
    ast_node *dflt;     /* default value or NULL */
    ast_node *decl;     /* AST_PARAM or NULL for built-ins */
} sema_param;

typedef struct sema_sig {
    const char *what;   /* for messages: "f", "net.partition", "method push" */
    sema_param *params;
    uint32_t nparams;
    sema_type *result;
} sema_sig;

/* ---- symbols ---- */
typedef enum sema_symkind {
    SYM_LOCAL,    /* let, var, loop variable, match/select binding */
    SYM_PARAM,
    SYM_CONST,
    SYM_FN,       /* fn, extern fn, rpc, service helper */
    SYM_TYPE,     /* struct, alias or built-in type */
    SYM_MODULE,   /* mod, or a package imported by `use a.b` */
    SYM_SERVICE,
    SYM_CLUSTER,
    SYM_STATE,    /* a service's per-node state */
    SYM_BUILTIN,  /* print, panic */
    SYM_TEST,
} sema_symkind;

enum { BI_NONE, BI_PRINT, BI_PANIC };
enum { GEN_NONE, GEN_MAP, GEN_CHAN, GEN_TASK };
enum { RS_TODO, RS_BUSY, RS_DONE };

struct sema_sym {
    sema_symkind kind;
    const char *name;
    ast_node *decl;
    base_span span;         /* where the name is written */
    sema_type *type;        /* value type, or the declared type of SYM_TYPE */
    sema_sig *sig;          /* SYM_FN */
    sema_scope *members;    /* SYM_MODULE, SYM_SERVICE: the namespace */
    sema_scope *scope;      /* where the declaration's names resolve */
    sema_pkg *pkg;
    sema_sym *owner;        /* the service of an rpc/state/helper; the origin of a narrowed local */
    const char *cname;      /* extern fn: the C symbol */
    sema_const *cval;       /* SYM_CONST once evaluated */
    int state;              /* RS_*: lazy resolution with cycle detection */
    int builtin;            /* BI_* for SYM_BUILTIN, GEN_* for generic built-in types */
    bool is_var;            /* assignable: var, state */
    bool used;
    bool is_rpc, is_extern;
};

struct sema_scope {
    sema_scope *parent;
    base_vec syms;
    /* Past a few symbols (a package's items), an open-addressing index of
     * name -> newest symbol position + 1. It keys on the interned name's
     * pointer: lookup identity only, never iterated, so no order can
     * depend on an address. */
    uint32_t *index;
    uint32_t index_cap;
    sema_sym *owner;        /* service or module whose namespace this is, or NULL */
    bool is_block;          /* local block: unused-variable warnings on exit */
};

struct sema_pkg {
    const char *path;       /* dotted path; the root package's name, or "main" */
    base_vec files;         /* AST_FILE */
    sema_scope *scope;      /* package items */
    base_vec file_scopes;   /* one per file: its imports, parent = scope */
    int state;              /* RS_* */
    bool is_root;
};

/* A test as codegen needs it. */
typedef struct sema_test {
    ast_node *decl;
    bool sim;
    int64_t seed_first, seed_last; /* inclusive */
    int64_t nodes;                 /* with cluster(nodes:), 0 when absent */
    base_vec roles;                /* with cluster(roles:): AST_STRING nodes, every node serves each;
                                      without the clause (nodes 0): the first cluster's AST_ROLE
                                      nodes, one node <role>-0 each */
} sema_test;

struct sema_program {
    base_vec packages;      /* sema_pkg*, root first */
    sema_pkg *root;
    base_vec tests;         /* sema_test* of the root package */
};

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
    sema_sym *service;      /* service whose members are being checked */
    base_vec pkg_stack;     /* packages being loaded, for cycle errors */
    unsigned depth;

    sema_cmap_entry *cmap;  /* folded constants by node */
    uint32_t cmap_len, cmap_cap;

    /* interned names used by the checker */
    const char *n_underscore, *n_deadline, *n_nodes, *n_roles, *n_now, *n_cap, *n_main;
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
bool ty_subset(const sema_type *sub, const sema_type *of);
bool ty_assignable(const sema_type *from, const sema_type *to);
bool ty_comparable(const sema_type *t);
bool ty_sendable(const sema_type *t, int depth);
bool ty_extern_ok(const sema_type *t);
const char *ty_str(sema_ctx *c, const sema_type *t);
sema_field *ty_field(const sema_type *t, const char *name);

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
sema_type *sema_resolve_type(sema_ctx *c, ast_node *t);
sema_sym *sema_resolve_path(sema_ctx *c, ast_node *e, bool *failed);

/* ---- check_expr.c ---- */
sema_type *sema_check_expr(sema_ctx *c, ast_node *e, sema_type *expected);
bool sema_coerce(sema_ctx *c, ast_node *e, sema_type *to, const char *what);
sema_type *sema_check_value(sema_ctx *c, ast_node *e, sema_type *to, const char *what);
sema_type *sema_check_call_args(sema_ctx *c, ast_node *call, const sema_sig *sig, bool allow_deadline, uint32_t first_arg);
const sema_const *sema_const_of(const sema_ctx *c, const ast_node *e);
void sema_set_const(sema_ctx *c, const ast_node *e, sema_const *v);
base_span sema_end_span(base_span s);
sema_type *sema_arith_result(sema_ctx *c, int op, sema_type *l, sema_type *r);
const char *sema_op_text(int op);

/* ---- builtins.c ---- */
sema_sig *sema_builtin_method(sema_ctx *c, sema_type *recv, const char *name);
const char *sema_builtin_methods_of(const sema_type *recv);

/* ---- check_stmt.c ---- */
bool sema_check_block(sema_ctx *c, ast_node *block, bool new_scope);
bool sema_check_stmt(sema_ctx *c, ast_node *s);
void sema_check_body(sema_ctx *c, ast_node *body, sema_type *result, sema_sym *service);
sema_type *sema_check_spawn_block(sema_ctx *c, ast_node *block);
void sema_push_narrowing(sema_ctx *c, ast_node *cond, bool truth);
sema_type *sema_check_match(sema_ctx *c, ast_node *m, bool as_expr, bool *diverges);

#endif
