/* cg_internal.h: what the files of the code generator share. Not an
 * interface (that is codegen.h). The checked program comes from sema.h,
 * sema's whole interface. */
#ifndef OXL_CG_INTERNAL_H
#define OXL_CG_INTERNAL_H

#include "codegen/codegen.h"
#include "sema/sema.h"

#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>

#define CG_MAX_LOCALS_INIT 16
#define CG_BLOCK_UNITS 128 /* statements and expressions in one straight-line block, about */
#define CG_O2_MAX_INSTRUCTIONS 30000 /* in one function that -O2 optimizes (target.c) */
#define CG_SCALAR_KINDS 4 /* Int, Bool, Duration, Instant: the members of an unboxed optional (optional.c) */

typedef struct cg_local {
    const ast_node *decl; /* AST_LET, AST_VAR, AST_FOR, AST_PARAM, AST_ARM, ... */
    LLVMValueRef slot;    /* alloca */
    int second;           /* the second variable of `for k, v in ...` */
} cg_local;

typedef struct cg_loop {
    struct cg_loop *outer;
    LLVMBasicBlockRef brk, cont;
} cg_loop;

/* ptrmap.c: pointers (syntax nodes) to small numbers, by identity only
 * (never iterated, so no output depends on an address) */
typedef struct cg_ptrmap {
    const void **keys;
    uint32_t *vals;
    uint32_t n, cap;
} cg_ptrmap;
bool cg_ptrmap_get(const cg_ptrmap *s, const void *key, uint32_t *val); /* val may be NULL */
void cg_ptrmap_put(cg_ptrmap *s, const void *key, uint32_t val);
void cg_ptrmap_free(cg_ptrmap *s);

typedef struct cg_file_name {
    uint32_t file;
    LLVMValueRef ptr;
} cg_file_name;

struct cg_module {
    diag_sink *d;
    const sema_program *prog;
    LLVMContextRef ctx;
    LLVMModuleRef mod;
    LLVMBuilderRef b;
    LLVMTargetMachineRef tm;
    struct cg_debug *dbg; /* debug.c's state, NULL until the first function */
    LLVMTypeRef t_i64, t_i32, t_i1, t_i8, t_ptr, t_void, t_sb;
    unsigned nstrings;
    cg_file_name *files;
    uint32_t nfiles, cap_files;
    bool failed;

    /* the function being generated */
    LLVMValueRef fn;
    const ast_node *fn_decl;
    LLVMBasicBlockRef entry;
    cg_local *locals;
    uint32_t nlocals, cap_locals;
    cg_loop *loop;
    uint32_t since_cut;   /* statements and expressions since the block was last cut */

    /* closure.c: the declarations of the `var`s that live in collected
     * cells (a spawn block or an escaping literal names them) */
    cg_ptrmap boxed;
    /* escape.c: each function literal decided so far, 1 when it stays in
     * the function that makes it (its environment is on the stack) */
    cg_ptrmap lits;
    unsigned nspawns;
    /* test.c: building a test binary (no main) */
    char *pkg_dir;        /* the package's real directory (owned), NULL outside test binaries */
    base_span at;         /* the construct being generated: where a check panics */

    /* per-type helper functions (formatting), defined when first used */
    struct cg_helper *helpers;
    uint32_t nhelpers, cap_helpers;
    /* service.c: every service of the program (AST_SERVICE), its id its index */
    const ast_node **services;
    uint32_t nservices, cap_services;
    /* optional.c: the LLVM type of each unboxed optional, made on first use */
    LLVMTypeRef t_opt[CG_SCALAR_KINDS];
    const sema_type *opt_member[CG_SCALAR_KINDS];
};

/* debug.c: DWARF (a subprogram per function, a location per statement and
 * expression, the locals); cg_debug_finish before the module is verified */
void cg_debug_function(cg_module *m, const ast_node *fn);
void cg_debug_loc(cg_module *m, base_span at);
void cg_debug_local(cg_module *m, const ast_node *decl, LLVMValueRef slot, bool second);
void cg_debug_finish(cg_module *m, const ast_node *main_fn);
void cg_debug_free(cg_module *m);

/* A generated helper for one type: kind 'f' is the function that formats
 * a value, 'w' the global that describes it for the wire (service.c). */
typedef struct cg_helper {
    int kind;
    const sema_type *t;
    LLVMValueRef fn;
} cg_helper;

/* module.c */
void cg_unsupported(cg_module *m, base_span at, const char *what);
LLVMValueRef cg_helper_find(cg_module *m, int kind, const sema_type *t);
void cg_helper_add(cg_module *m, int kind, const sema_type *t, LLVMValueRef v);
LLVMValueRef cg_runtime_fn(cg_module *m, const char *name, LLVMTypeRef result, LLVMTypeRef *params, unsigned n,
                           bool noreturn);
LLVMValueRef cg_cstring(cg_module *m, const char *bytes, size_t len);
LLVMValueRef cg_file_ptr(cg_module *m, base_span at);
LLVMValueRef cg_line(cg_module *m, base_span at);
char *cg_fn_symbol(cg_module *m, const ast_node *fn, const sema_pkg *pkg); /* malloc'd */
LLVMTypeRef cg_type(cg_module *m, const sema_type *t, base_span at, bool result);

/* function.c */
bool cg_function(cg_module *m, const ast_node *fn);
LLVMValueRef cg_entry_alloca(cg_module *m, LLVMTypeRef t, const char *name);
void cg_add_local(cg_module *m, const ast_node *decl, LLVMValueRef slot);
void cg_add_local2(cg_module *m, const ast_node *decl, LLVMValueRef slot); /* name2 of a for */
/* The slot of a local or parameter symbol (also the origin of a narrowed
 * view: it has the same declaration). */
LLVMValueRef cg_sym_slot(cg_module *m, const sema_sym *s);
/* Whether s is the second variable of a `for k, v` (it shares the decl). */
bool cg_sym_is_second(const sema_sym *s);
void cg_add_sym_local(cg_module *m, const ast_node *decl, bool second, LLVMValueRef slot);
bool cg_terminated(cg_module *m);
void cg_start_dead_block(cg_module *m);
/* Before a statement or an expression: ends a long straight-line block
 * with a branch to a fresh one (see function.c). */
void cg_cut_long_block(cg_module *m);

/* stmt.c */
LLVMValueRef cg_zero(cg_module *m, const sema_type *t, base_span at);
/* A loop body with break going to brk and continue to cont. */
bool cg_loop_body(cg_module *m, const ast_node *body, LLVMBasicBlockRef brk, LLVMBasicBlockRef cont);
bool cg_block(cg_module *m, const ast_node *block);
/* A match or select arm's body: a block, an expression or a statement. */
bool cg_arm_body(cg_module *m, const ast_node *body);
bool cg_stmt(cg_module *m, const ast_node *s);

/* expr.c */
LLVMValueRef cg_expr(cg_module *m, const ast_node *e);
LLVMValueRef cg_operand(cg_module *m, const ast_node *e, LLVMTypeRef want);
/* e converted to type `to` (cg_coerce): every place sema checks S into T. */
LLVMValueRef cg_value(cg_module *m, const ast_node *e, const sema_type *to);
/* The arguments of a call to sig, positional, labelled and defaults, in
 * parameter order; false when one could not be generated (reported). */
bool cg_call_args(cg_module *m, const ast_node *call, const sema_sig *sig, LLVMValueRef *vals);
/* The same for a remote call, whose deadline: and to: arguments (NULL when
 * absent) are left to the caller. */
bool cg_call_args_remote(cg_module *m, const ast_node *call, const sema_sig *sig, LLVMValueRef *vals,
                         const ast_node **deadline, const ast_node **to);
/* A method of a struct type (fn T.m(self, ...)). */
bool cg_is_method(const sema_sym *s);
/* The arguments of a call of the named function s, in parameter order: for
 * a method, the receiver (x in x.m(...)) first. */
bool cg_fn_args(cg_module *m, const ast_node *call, const sema_sym *s, LLVMValueRef *vals);
/* The LLVM function of a named OxL function (the declaration of an extern). */
LLVMValueRef cg_fn_of(cg_module *m, const sema_sym *s, base_span at);
/* The C ABI attributes of a call of the extern fn s (Bool is zeroext). */
void cg_extern_call_attrs(cg_module *m, const sema_sym *s, LLVMValueRef call);
/* Checked i64 + - * / % (overflow and division panics at `at`). */
LLVMValueRef cg_arith(cg_module *m, int op, LLVMValueRef a, LLVMValueRef b, base_span at);
LLVMValueRef cg_to_string(cg_module *m, const ast_node *e);
void cg_panic_call(cg_module *m, const char *rt_fn, base_span at);
LLVMValueRef cg_to_word(cg_module *m, LLVMValueRef v, const sema_type *t);
LLVMValueRef cg_from_word(cg_module *m, LLVMValueRef w, const sema_type *t);
LLVMValueRef cg_list_len(cg_module *m, LLVMValueRef list);
LLVMValueRef cg_list_at(cg_module *m, LLVMValueRef list, LLVMValueRef i, base_span at);
LLVMValueRef cg_list_push(cg_module *m, LLVMValueRef list, LLVMValueRef w, base_span at);

/* methods.c: the built-in methods of String, Bytes, lists and maps */
LLVMValueRef cg_method(cg_module *m, const ast_node *e);
/* Evaluates a method call's arguments (positional or labelled with the
 * names given) into vals, converted to the types given. */
bool cg_method_args(cg_module *m, const ast_node *e, const char *const *names, const sema_type *const *types,
                    unsigned n, LLVMValueRef *vals);
/* found ? the word as a `t` converted into `opt` : none. */
LLVMValueRef cg_optional(cg_module *m, LLVMValueRef found, LLVMValueRef word, const sema_type *t,
                         const sema_type *opt);

/* task.c: tasks, channels, select and time (docs/oxl-build.md) */
bool cg_task_call(cg_module *m, const ast_node *e, LLVMValueRef *out); /* handled here? */
LLVMValueRef cg_spawn(cg_module *m, const ast_node *e);
bool cg_select(cg_module *m, const ast_node *s);
bool cg_for_chan(cg_module *m, const ast_node *s);

/* closure.c: bodies of their own with an environment of words (spawn
 * blocks, function literals) and the values of function types */
/* Before a body is generated: decides which of its function literals stay
 * (escape.c) and finds the vars that spawn blocks and escaping literals
 * capture (they live in cells). */
void cg_task_prepare(cg_module *m, const ast_node *body);
bool cg_boxed(const cg_module *m, const ast_node *decl);
/* Storage of a local at its declaration: an entry alloca, or for a var a
 * body of its own captures, a fresh collected cell (a T*, like the alloca). */
LLVMValueRef cg_local_storage(cg_module *m, const ast_node *decl, LLVMTypeRef t, const char *name);
/* oxl_alloc(size) (noalias: fresh memory). */
LLVMValueRef cg_alloc(cg_module *m, LLVMValueRef size);
/* Any LLVM value codegen uses for OxL values, as a word and back. */
LLVMValueRef cg_llvm_to_word(cg_module *m, LLVMValueRef v);
LLVMValueRef cg_llvm_from_word(cg_module *m, LLVMValueRef w, LLVMTypeRef t);
/* The locals a body names that the function being generated has: their
 * declarations and storage (a cell's address for a captured var). */
typedef struct cg_capture {
    const ast_node *decl;
    LLVMValueRef slot;
    bool second; /* the second variable of `for i, x in ...` (same decl) */
    bool byref;  /* a var: the environment holds its storage's address (a cell, or
                    for a literal that stays, possibly the alloca), not its value */
} cg_capture;
typedef struct cg_captures {
    cg_capture *items;
    uint32_t n, cap;
} cg_captures;
void cg_captures_find(cg_module *m, const ast_node *body, cg_captures *out);
void cg_captures_free(cg_captures *c);
/* Stores the captures as words first.. of an environment; and, in the body's
 * function, loads them from there as its locals. */
void cg_captures_store(cg_module *m, const cg_captures *caps, LLVMValueRef words, uint32_t first);
void cg_captures_load(cg_module *m, const cg_captures *caps, LLVMValueRef words, uint32_t first);
/* A collected array of n words (n may be 0: a NULL environment); *words
 * is it as an i64*. */
LLVMValueRef cg_new_env(cg_module *m, uint32_t n, LLVMValueRef *words);
LLVMValueRef cg_env_slot(cg_module *m, LLVMValueRef words, uint32_t i);
/* The end of a body that can fall off (ret void, none, or unreachable). */
void cg_finish_body(cg_module *m);
/* escape.c: which function literals stay in the function that makes them
 * (only called there); cg_task_prepare runs the scan before a body. */
void cg_escape_scan(cg_module *m, const ast_node *body);
bool cg_lit_stays(const cg_module *m, const ast_node *lit);
/* The code type of a function value: R code(i8 *self, P...). */
LLVMTypeRef cg_fn_type(cg_module *m, const sema_type *ft, base_span at);
/* fn(...) { ... }: a closure object; a named function as a value: the
 * constant closure of its trampoline; f(args) for a function value f. */
LLVMValueRef cg_fn_lit(cg_module *m, const ast_node *e);
LLVMValueRef cg_fn_value(cg_module *m, const sema_sym *s, base_span at);
LLVMValueRef cg_call_value(cg_module *m, const ast_node *call, const ast_node *callee);
/* The function being generated, kept while another is made (a spawn
 * block's body, a service's entries) and given back after. */
typedef struct cg_fn_state {
    LLVMValueRef fn;
    const ast_node *fn_decl;
    LLVMBasicBlockRef entry, at;
    cg_local *locals;
    uint32_t nlocals, cap_locals;
    cg_loop *loop;
} cg_fn_state;
void cg_fn_save(cg_module *m, cg_fn_state *st);
void cg_fn_restore(cg_module *m, const cg_fn_state *st);
/* Generates a function `name` of type fnty whose body is block, with the
 * given locals (decl, value) stored at entry; keeps the current function's
 * state. result is the body's OxL result type (NULL: None). */
LLVMValueRef cg_body_function(cg_module *m, const char *name, LLVMTypeRef fnty, const ast_node *block,
                              const sema_type *result);

/* service.c: services, their tables, type descriptors and remote calls */
/* Pass 0 declares the service's table, pass 1 fills it (its fns are the
 * package's, generated by module.c). */
bool cg_service(cg_module *m, const ast_node *svc, int pass);
/* The service's oxl_service table, as an i8*. */
LLVMValueRef cg_service_ref(cg_module *m, const sema_sym *svc);
/* The oxl_type_desc of a sendable type, as an i8*. */
LLVMValueRef cg_type_desc(cg_module *m, const sema_type *t);
/* The word of a state in the running node's state of its service (an i64*). */
LLVMValueRef cg_state_slot(cg_module *m, const sema_sym *st, base_span at);
/* Service.rpc(...) from outside the service: a value of R | RpcError. */
LLVMValueRef cg_rpc_call(cg_module *m, const ast_node *e);
/* Its parts: the arguments in parameter order, the deadline (an Int, or
 * OXL_RPC_NO_DEADLINE) and the `to:` node (a String, or null)... */
bool cg_rpc_args(cg_module *m, const ast_node *e, LLVMValueRef *vals, LLVMValueRef *deadline, LLVMValueRef *to);
/* ...and the call made with them (in the function being generated). */
LLVMValueRef cg_rpc_invoke(cg_module *m, const ast_node *e, const LLVMValueRef *vals, LLVMValueRef deadline,
                           LLVMValueRef to);
/* void oxl.boot(): boots every service of the program on the process node
 * (outside a simulation), defined once. */
LLVMValueRef cg_boot_services(cg_module *m);

/* test.c: the test table and the C main of a test binary */
bool cg_emit_tests(cg_module *m);
/* A source's path as a test binary names it: relative to the package's
 * directory, the same for every spelling of it (into buf, or path). */
const char *cg_test_path(const cg_module *m, const char *path, char *buf, size_t cap);
/* map.c: maps */
/* The tags of the String and Bytes members of a union key type, as an i8*
 * to a constant array (NULL when none); *count gets how many. */
LLVMValueRef cg_key_tags(cg_module *m, const sema_type *k, unsigned *count);
LLVMValueRef cg_map_new(cg_module *m, const sema_type *t);
LLVMValueRef cg_map_lit(cg_module *m, const ast_node *e);
LLVMValueRef cg_map_at(cg_module *m, LLVMValueRef map, LLVMValueRef key_word, base_span at);
void cg_map_set(cg_module *m, LLVMValueRef map, LLVMValueRef key_word, LLVMValueRef val_word, base_span at);
/* A built-in method of a map, by sema's id (SM_MAP_*). */
LLVMValueRef cg_map_method_on(cg_module *m, const ast_node *e, sema_method id, LLVMValueRef map,
                              const sema_type *mt);
bool cg_for_map(cg_module *m, const ast_node *s);

/* struct.c: structs are pointers to GC memory of one word per field, in
 * declaration order */
LLVMValueRef cg_struct_lit(cg_module *m, const ast_node *e);
LLVMValueRef cg_field_ptr(cg_module *m, LLVMValueRef obj, const sema_type *st, const char *name);
LLVMValueRef cg_field_access(cg_module *m, const ast_node *e);

/* union.c: unions and optionals (a pointer to an oxl_box; none is NULL). */
/* v of type `from` where `to` is expected (sema allows it, or a narrowing
 * proved it): boxes a member into a union, keeps the box when widening,
 * checks the tag when narrowing (a wrong one panics "union mismatch:
 * expected T, got U" at m->at). */
LLVMValueRef cg_coerce(cg_module *m, LLVMValueRef v, const sema_type *from, const sema_type *to);
/* The tag of v (of type t): the member's type id; none is the id of None. */
LLVMValueRef cg_union_tag(cg_module *m, LLVMValueRef v, const sema_type *t);
/* True when the tag names a member of `set` (a type or a union). */
LLVMValueRef cg_tag_in(cg_module *m, LLVMValueRef tag, const sema_type *set);
/* The word of a box known to hold a non-None member. */
LLVMValueRef cg_box_word(cg_module *m, LLVMValueRef box);
/* == between comparable values of types lt and rt (one assignable to the
 * other): tags first, then the values. */
LLVMValueRef cg_values_eq(cg_module *m, LLVMValueRef l, const sema_type *lt, LLVMValueRef r, const sema_type *rt);
/* The type's name as OxL writes it (for messages); into buf. */
const char *cg_type_name(const sema_type *t, char *buf, size_t size);
/* `match` as a statement (result NULL) or an expression. */
LLVMValueRef cg_match(cg_module *m, const ast_node *s, bool as_expr);
bool cg_is_string_like(const sema_type *t);

/* optional.c: optionals of scalars (S | None, S one of Int, Bool, Duration,
 * Instant) are unboxed values { i64 word, i1 present }, boxed only where a
 * value must be one word (cg_to_word, cg_llvm_to_word). */
/* S when t is such an optional, else NULL. */
const sema_type *cg_scalar_opt(const sema_type *t);
/* The LLVM type of member? (member one of the four scalars). */
LLVMTypeRef cg_opt_type(cg_module *m, const sema_type *member);
/* The member of the unboxed optional whose LLVM type is t, or NULL. */
const sema_type *cg_opt_member_of(const cg_module *m, LLVMTypeRef t);
LLVMValueRef cg_opt_make(cg_module *m, LLVMTypeRef ot, LLVMValueRef word, LLVMValueRef present);
LLVMValueRef cg_opt_word(cg_module *m, LLVMValueRef v);
LLVMValueRef cg_opt_present(cg_module *m, LLVMValueRef v);
/* Boxing (none: NULL) and unboxing, where a word is needed. */
LLVMValueRef cg_opt_to_box(cg_module *m, LLVMValueRef v, const sema_type *member);
LLVMValueRef cg_opt_from_box(cg_module *m, LLVMValueRef box, LLVMTypeRef ot);
/* Whether v (of type t) is none. */
LLVMValueRef cg_is_none(cg_module *m, LLVMValueRef v, const sema_type *t);

/* fmt.c: the natural text form of every value (interpolation, print). */
/* Appends v (of type t) to the builder sb; top-level Strings unquoted. */
bool cg_fmt_append(cg_module *m, LLVMValueRef sb, LLVMValueRef v, const sema_type *t, base_span at);
LLVMValueRef cg_call(cg_module *m, LLVMValueRef f, LLVMValueRef *args, unsigned n);
/* An Int constant. */
LLVMValueRef cg_i64(cg_module *m, int64_t v);
/* A call of the runtime function `name` (declared on first use), and the
 * same for a predicate returning C bool (i8), as an i1. */
LLVMValueRef cg_rt(cg_module *m, const char *name, LLVMTypeRef res, LLVMTypeRef *ps, LLVMValueRef *args,
                  unsigned n);
LLVMValueRef cg_rt_bool(cg_module *m, const char *name, LLVMTypeRef *ps, LLVMValueRef *args, unsigned n);

/* target.c */
bool cg_target_init(cg_module *m);

#endif
