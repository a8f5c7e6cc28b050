/* cg_internal.h: what the files of the code generator share. Not an
 * interface (that is codegen.h). For now the generator reads sema's types
 * and symbols through sema_internal.h. */
#ifndef OXL_CG_INTERNAL_H
#define OXL_CG_INTERNAL_H

#include "codegen/codegen.h"
#include "sema/sema_internal.h"

#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>

#define CG_MAX_LOCALS_INIT 16

typedef struct cg_local {
    const ast_node *decl; /* AST_LET, AST_VAR, AST_FOR or AST_PARAM */
    LLVMValueRef slot;    /* alloca */
} cg_local;

typedef struct cg_loop {
    struct cg_loop *outer;
    LLVMBasicBlockRef brk, cont;
} cg_loop;

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
    LLVMValueRef sb_slot; /* oxl_sb in the entry block, created on first use */
};

/* debug.c: DWARF (a subprogram per function, a location per statement and
 * expression, the locals); cg_debug_finish before the module is verified */
void cg_debug_function(cg_module *m, const ast_node *fn);
void cg_debug_loc(cg_module *m, base_span at);
void cg_debug_local(cg_module *m, const ast_node *decl, LLVMValueRef slot);
void cg_debug_finish(cg_module *m, const ast_node *main_fn);
void cg_debug_free(cg_module *m);

/* module.c */
void cg_unsupported(cg_module *m, base_span at, const char *what);
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
LLVMValueRef cg_local_slot(cg_module *m, const ast_node *decl);
void cg_add_local(cg_module *m, const ast_node *decl, LLVMValueRef slot);
bool cg_terminated(cg_module *m);
void cg_start_dead_block(cg_module *m);

/* stmt.c */
bool cg_block(cg_module *m, const ast_node *block);
bool cg_stmt(cg_module *m, const ast_node *s);

/* expr.c */
LLVMValueRef cg_expr(cg_module *m, const ast_node *e);
LLVMValueRef cg_operand(cg_module *m, const ast_node *e, LLVMTypeRef want);
LLVMValueRef cg_to_string(cg_module *m, const ast_node *e);
void cg_panic_call(cg_module *m, const char *rt_fn, base_span at);
LLVMValueRef cg_to_word(cg_module *m, LLVMValueRef v, const sema_type *t);
LLVMValueRef cg_from_word(cg_module *m, LLVMValueRef w, const sema_type *t);
LLVMValueRef cg_list_len(cg_module *m, LLVMValueRef list);
LLVMValueRef cg_list_at(cg_module *m, LLVMValueRef list, LLVMValueRef i, base_span at);

/* target.c */
bool cg_target_init(cg_module *m);

#endif
