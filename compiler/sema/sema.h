/* sema.h: semantic analysis of a package: names, imports, types, services,
 * clusters and tests, and the checked program it leaves for the code
 * generator (types and symbols in ast_node.type / .sym, the data model
 * below). Errors and warnings go to the diagnostics sink. Prefix: sema_
 * (ty_ for types). */
#ifndef OXL_SEMA_H
#define OXL_SEMA_H

#include "base/base.h"
#include "parse/ast.h"

/* How sema finds the packages a `use` names. The driver implements it:
 * "std.test" is the directory std/test of the standard library; any other
 * dotted path is a directory relative to the package root. */
typedef struct sema_loader {
    /* Parses every .oxl file of the package at the dotted path into files
     * (AST_FILE nodes, sources registered in the sink). Returns false when
     * there is no such package (sema reports it at the `use`). */
    bool (*load)(void *ctx, const char *dotted_path, base_vec *files);
    void *ctx;
} sema_loader;

typedef struct sema_options {
    bool warn_unused;      /* warnings for unused variables (default on) */
    bool warn_unreachable; /* warnings for unreachable code (default on) */
} sema_options;


/* ---- the checked program, as the code generator reads it ----
 * Everything below lives in the compilation's arena and is read-only once
 * sema_check_package returns. */

/* ---- limits ---- */
#define SEMA_MAX_PACKAGES 256      /* packages loaded by one compilation */
#define SEMA_MAX_PARAMS 255        /* parameters of one function */
#define SEMA_MAX_UNION 64          /* members of one union */
#define SEMA_MAX_NESTING BASE_MAX_NESTING
#define SEMA_MAX_SEED 0x7fffffffffffffffLL
/* Compile-time strings: one String constant value (a literal or a folded
 * one) has at most SEMA_MAX_CONST_STRING bytes, and one compilation spends
 * at most SEMA_MAX_CONST_WORK bytes on them: every folded concatenation's
 * result, every folded comparison's bytes, and every use of a String
 * constant or default, in code or as an element of a list or map constant
 * (code generation emits each use). */
#define SEMA_MAX_CONST_STRING (16u << 20)
#define SEMA_MAX_CONST_WORK (64u << 20)

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
typedef struct sema_program sema_program; /* the checked package and what it imports */

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
    bool defaults_checked;
};

/* ---- constant values (folded at compile time) ---- */
/* CV_LIST and CV_MAP mark a literal of constants (`const WORKERS =
 * ["w1", "w2"]`); their value is the literal itself, made afresh where
 * it is used. */
typedef enum sema_ckind { CV_INT, CV_BOOL, CV_STRING, CV_NONE, CV_LIST, CV_MAP } sema_ckind;
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

/* ---- built-in methods (docs/language.md §10) ----
 * One id per method of a built-in type (builtins.c's table has the same
 * list); sema records a call's in its callee, AST_FIELD_ACCESS.ival, so
 * codegen switches on the id. */
#define SEMA_BUILTIN_METHODS(X)                                                                                    \
    X(STR_LEN) X(STR_CONTAINS) X(STR_STARTS_WITH) X(STR_ENDS_WITH) X(STR_SPLIT) X(STR_TRIM) X(STR_TO_UPPER)     \
    X(STR_TO_LOWER) X(STR_BYTES)                                                                               \
    X(BYTES_LEN)                                                                                               \
    X(LIST_LEN) X(LIST_PUSH) X(LIST_POP) X(LIST_GET) X(LIST_CONTAINS) X(LIST_INSERT) X(LIST_REMOVE)            \
    X(LIST_SLICE)                                                                                              \
    X(MAP_LEN) X(MAP_GET) X(MAP_HAS) X(MAP_SET) X(MAP_REMOVE) X(MAP_KEYS) X(MAP_VALUES)                        \
    X(CHAN_SEND) X(CHAN_RECV) X(CHAN_CLOSE) X(CHAN_LEN)                                                        \
    X(TASK_JOIN) X(TASK_CANCEL)
typedef enum sema_method {
    SM_NONE = 0,
#define SEMA_METHOD_ENUM(name) SM_##name,
    SEMA_BUILTIN_METHODS(SEMA_METHOD_ENUM)
#undef SEMA_METHOD_ENUM
} sema_method;

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
    sema_scope *members;    /* SYM_MODULE, SYM_SERVICE: the namespace; a struct's SYM_TYPE: its methods */
    sema_scope *scope;      /* where the declaration's names resolve */
    sema_pkg *pkg;
    sema_sym *owner;        /* the service of an rpc/state/helper; the struct type (SYM_TYPE) of a
                               method; the origin of a narrowed local */
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
    base_vec imports;       /* a file's scope: its `use` names (sema_import*), marked when used */
};

struct sema_pkg {
    const char *path;       /* dotted path; the root package's name, or "main" */
    base_vec files;         /* AST_FILE */
    sema_scope *scope;      /* package items */
    base_vec file_scopes;   /* one per file: its imports, parent = scope */
    int state;              /* RS_* */
    bool is_root;
};

/* A simulated node of a sim test: its name and the roles it serves. */
typedef struct sema_node {
    const char *name;              /* "api-0", "n2" (interned) */
    base_vec roles;                /* AST_ROLE nodes: name is the role, sym its service */
} sema_node;

/* A test as codegen needs it. */
typedef struct sema_test {
    ast_node *decl;
    bool sim;
    int64_t seed_first, seed_last; /* inclusive */
    base_vec layout;               /* sim: sema_node*, the body on the first (layout.c) */
} sema_test;

struct sema_program {
    base_vec packages;      /* sema_pkg*, root first */
    sema_pkg *root;
    base_vec tests;         /* sema_test* of the root package */
};

/* Every member of union (or type) sub is a member of of. */
bool ty_subset(const sema_type *sub, const sema_type *of);

/* Checks the package made of `files` (AST_FILE nodes). Returns the program,
 * or NULL only when memory runs out; check diag_errors for the verdict. */
sema_program *sema_check_package(base_arena *arena, base_names *names, diag_sink *diags, const base_vec *files,
                                 const sema_loader *loader, const sema_options *opt);

#endif
