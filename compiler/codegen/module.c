/* module.c: the LLVM module of a package: its functions, the runtime's
 * declarations, constant strings, and the C-ABI main. */
#define _XOPEN_SOURCE 700 /* realpath */
#include "codegen/cg_internal.h"

#include <llvm-c/Analysis.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cg_unsupported(cg_module *m, base_span at, const char *what) {
    diag_report(m->d, DIAG_ERROR, at, "code generation does not support %s yet", what);
    m->failed = true;
}

LLVMValueRef cg_runtime_fn(cg_module *m, const char *name, LLVMTypeRef result, LLVMTypeRef *params, unsigned n,
                           bool noreturn) {
    LLVMValueRef f = LLVMGetNamedFunction(m->mod, name);
    if (f) return f;
    f = LLVMAddFunction(m->mod, name, LLVMFunctionType(result, params, n, 0));
    if (noreturn) {
        unsigned k = LLVMGetEnumAttributeKindForName("noreturn", 8);
        LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(m->ctx, k, 0));
        unsigned c = LLVMGetEnumAttributeKindForName("cold", 4);
        LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(m->ctx, c, 0));
    }
    return f;
}

/* A private constant array of the bytes plus a NUL; returns an i8* to it. */
LLVMValueRef cg_call(cg_module *m, LLVMValueRef f, LLVMValueRef *args, unsigned n) {
    return LLVMBuildCall2(m->b, LLVMGetElementType(LLVMTypeOf(f)), f, args, n, "");
}

LLVMValueRef cg_rt(cg_module *m, const char *name, LLVMTypeRef res, LLVMTypeRef *ps, LLVMValueRef *args,
                  unsigned n) {
    return cg_call(m, cg_runtime_fn(m, name, res, ps, n, false), args, n);
}

LLVMValueRef cg_rt_bool(cg_module *m, const char *name, LLVMTypeRef *ps, LLVMValueRef *args, unsigned n) {
    return LLVMBuildICmp(m->b, LLVMIntNE, cg_rt(m, name, m->t_i8, ps, args, n), LLVMConstInt(m->t_i8, 0, 0), "");
}

LLVMValueRef cg_i64(cg_module *m, int64_t v) { return LLVMConstInt(m->t_i64, (unsigned long long)v, 1); }

LLVMValueRef cg_helper_find(cg_module *m, int kind, const sema_type *t) {
    for (uint32_t i = 0; i < m->nhelpers; i++)
        if (m->helpers[i].kind == kind && m->helpers[i].t == t) return m->helpers[i].fn;
    return NULL;
}

void cg_helper_add(cg_module *m, int kind, const sema_type *t, LLVMValueRef v) {
    if (m->nhelpers == m->cap_helpers) {
        m->cap_helpers = m->cap_helpers ? m->cap_helpers * 2 : 16;
        cg_helper *h = realloc(m->helpers, m->cap_helpers * sizeof *h);
        if (!h) {
            fputs("oxl: out of memory\n", stderr);
            abort();
        }
        m->helpers = h;
    }
    m->helpers[m->nhelpers++] = (cg_helper){kind, t, v};
}

LLVMValueRef cg_cstring(cg_module *m, const char *bytes, size_t len) {
    LLVMValueRef init = LLVMConstStringInContext(m->ctx, bytes, (unsigned)len, 0);
    char name[32];
    snprintf(name, sizeof name, ".str.%u", m->nstrings++);
    LLVMValueRef g = LLVMAddGlobal(m->mod, LLVMTypeOf(init), name);
    LLVMSetInitializer(g, init);
    LLVMSetGlobalConstant(g, 1);
    LLVMSetLinkage(g, LLVMPrivateLinkage);
    LLVMSetUnnamedAddress(g, LLVMGlobalUnnamedAddr);
    LLVMSetAlignment(g, 1);
    LLVMValueRef zero = LLVMConstInt(m->t_i32, 0, 0);
    LLVMValueRef idx[2] = {zero, zero};
    return LLVMConstInBoundsGEP2(LLVMTypeOf(init), g, idx, 2);
}

LLVMValueRef cg_file_ptr(cg_module *m, base_span at) {
    for (uint32_t i = 0; i < m->nfiles; i++)
        if (m->files[i].file == at.file) return m->files[i].ptr;
    const base_source *src = diag_source(m->d, at.file);
    const char *path = src ? src->path : "?";
    char rel[PATH_MAX];
    if (m->pkg_dir) path = cg_test_path(m, path, rel, sizeof rel);
    LLVMValueRef p = cg_cstring(m, path, strlen(path));
    if (m->nfiles == m->cap_files) {
        m->cap_files = m->cap_files ? m->cap_files * 2 : 8;
        cg_file_name *f = realloc(m->files, m->cap_files * sizeof *f);
        if (!f) {
            fputs("oxl: out of memory\n", stderr);
            abort();
        }
        m->files = f;
    }
    m->files[m->nfiles].file = at.file;
    m->files[m->nfiles].ptr = p;
    m->nfiles++;
    return p;
}

LLVMValueRef cg_line(cg_module *m, base_span at) {
    return LLVMConstInt(m->t_i32, diag_position(m->d, at).line, 0);
}

/* oxl.<package>.<mod>...<name>: unique per function of the program; a
 * method's name has its type's before it (oxl.main.Account.deposit). */
char *cg_fn_symbol(cg_module *m, const ast_node *fn, const sema_pkg *pkg) {
    (void)m;
    const sema_sym *s = fn->sym;
    if (!pkg && s) pkg = s->pkg;
    const char *p = pkg && pkg->path ? pkg->path : "main";
    const char *mods[SEMA_MAX_NESTING];
    int nmods = 0;
    const char *type = fn->flags & AST_F_METHOD && fn->name2 ? fn->name2 : NULL;
    size_t n = strlen("oxl.") + strlen(p) + 1 + strlen(fn->name) + 1 + (type ? strlen(type) + 1 : 0);
    for (const sema_scope *sc = s ? s->scope : NULL; sc && nmods < SEMA_MAX_NESTING; sc = sc->parent)
        if (sc->owner && (sc->owner->kind == SYM_MODULE || sc->owner->kind == SYM_SERVICE) && sc->owner->name) {
            mods[nmods++] = sc->owner->name;
            n += strlen(sc->owner->name) + 1;
        }
    char *out = malloc(n);
    if (!out) {
        fputs("oxl: out of memory\n", stderr);
        abort();
    }
    size_t len = (size_t)snprintf(out, n, "oxl.%s.", p);
    while (nmods-- > 0) len += (size_t)snprintf(out + len, n - len, "%s.", mods[nmods]);
    if (type) len += (size_t)snprintf(out + len, n - len, "%s.", type);
    snprintf(out + len, n - len, "%s", fn->name);
    return out;
}

LLVMTypeRef cg_type(cg_module *m, const sema_type *t, base_span at, bool result) {
    if (!t) {
        if (result) return m->t_void;
        cg_unsupported(m, at, "values without a type");
        return NULL;
    }
    switch (t->kind) {
    case TY_INT:
    case TY_DURATION:
    case TY_INSTANT: return m->t_i64;
    case TY_BOOL: return m->t_i1;
    case TY_UNION:
        if (cg_scalar_opt(t)) return cg_opt_type(m, cg_scalar_opt(t)); /* unboxed: optional.c */
        return m->t_ptr;
    /* pointers to GC memory; a union is a pointer to its box, none NULL */
    case TY_STRING:
    case TY_BYTES:
    case TY_LIST:
    case TY_MAP:
    case TY_CHAN:
    case TY_TASK:
    case TY_STRUCT:
    case TY_FN: return m->t_ptr;
    case TY_NONE: return result ? m->t_void : m->t_ptr;
    case TY_NEVER:
        if (result) return m->t_void;
        break;
    default: break; /* TY_ERROR: sema reported it */
    }
    cg_unsupported(m, at, "values of this type");
    return NULL;
}

/* Declares one function (all are declared before any is generated). */
static bool declare_fn(cg_module *m, const ast_node *fn, const sema_pkg *pkg) {
    if (fn->flags & AST_F_EXTERN || !fn->b) return true; /* reported when called */
    const sema_sym *s = fn->sym;
    const sema_sig *sig = s ? s->sig : NULL;
    if (!sig) {
        DIAG_INTERNAL(m->d, "function '%s' has no signature", fn->name);
        return false;
    }
    LLVMTypeRef res = cg_type(m, sig->result, fn->a ? fn->a->span : fn->name_span, true);
    if (!res) return false;
    LLVMTypeRef params[SEMA_MAX_PARAMS + 1];
    for (uint32_t i = 0; i < sig->nparams && i <= SEMA_MAX_PARAMS; i++) {
        const ast_node *pd = sig->params[i].decl;
        params[i] = cg_type(m, sig->params[i].type, pd ? pd->span : fn->name_span, false);
        if (!params[i]) return false;
    }
    char *name = cg_fn_symbol(m, fn, pkg);
    LLVMValueRef f = LLVMAddFunction(m->mod, name, LLVMFunctionType(res, params, sig->nparams, 0));
    free(name);
    LLVMSetLinkage(f, LLVMInternalLinkage);
    if (sig->result && sig->result->kind == TY_NEVER) { /* `-> Never`: sema proved it never returns */
        unsigned k = LLVMGetEnumAttributeKindForName("noreturn", 8);
        LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(m->ctx, k, 0));
    }
    return true;
}

static bool fns_of(cg_module *m, const base_vec *items, const sema_pkg *pkg, int pass) {
    bool ok = true;
    for (uint32_t k = 0; k < items->len; k++) {
        const ast_node *it = items->items[k];
        if (it->kind == AST_MOD) {
            ok = fns_of(m, &it->list, pkg, pass) && ok;
            continue;
        }
        if (it->kind == AST_SERVICE) { /* its rpcs and helpers, then its table */
            ok = fns_of(m, &it->list, pkg, pass) && ok;
            if (ok) ok = cg_service(m, it, pass);
            continue;
        }
        if (it->kind != AST_FN || (it->flags & AST_F_EXTERN) || !it->b || !it->sym) continue;
        ok = (pass == 0 ? declare_fn(m, it, pkg) : cg_function(m, it)) && ok;
    }
    return ok;
}

/* void oxl.main(): the program's services boot, then main runs. */
static LLVMValueRef boot_then(cg_module *m, LLVMValueRef oxl_main) {
    LLVMValueRef boot = cg_boot_services(m);
    LLVMValueRef f = LLVMAddFunction(m->mod, "oxl.main", LLVMFunctionType(m->t_void, NULL, 0, 0));
    LLVMSetLinkage(f, LLVMInternalLinkage);
    LLVMPositionBuilderAtEnd(m->b, LLVMAppendBasicBlockInContext(m->ctx, f, "entry"));
    cg_call(m, boot, NULL, 0);
    cg_call(m, oxl_main, NULL, 0);
    LLVMBuildRetVoid(m->b);
    return f;
}

/* main runs as the root task of a real-time scheduler run (oxl_rt_main),
 * so tasks, channels and sleeps work in every program. */
static void emit_c_main(cg_module *m, LLVMValueRef oxl_main) {
    oxl_main = boot_then(m, oxl_main);
    LLVMTypeRef pargs[2] = {m->t_i32, LLVMPointerType(m->t_ptr, 0)};
    LLVMValueRef f = LLVMAddFunction(m->mod, "main", LLVMFunctionType(m->t_i32, pargs, 2, 0));
    LLVMBasicBlockRef bb = LLVMAppendBasicBlockInContext(m->ctx, f, "entry");
    LLVMPositionBuilderAtEnd(m->b, bb);
    LLVMTypeRef ps[1] = {LLVMTypeOf(oxl_main)};
    LLVMValueRef rt_main = cg_runtime_fn(m, "oxl_rt_main", m->t_i32, ps, 1, false);
    LLVMValueRef st = cg_call(m, rt_main, &oxl_main, 1);
    LLVMBuildRet(m->b, st);
}

static cg_module *build(diag_sink *d, const sema_program *prog, const char *module_name, const char *pkg_dir,
                        bool tests);

cg_module *cg_build(diag_sink *d, const sema_program *prog, const char *module_name) {
    return build(d, prog, module_name, NULL, false);
}

cg_module *cg_build_tests(diag_sink *d, const sema_program *prog, const char *module_name, const char *pkg_dir) {
    return build(d, prog, module_name, pkg_dir, true);
}

static cg_module *build(diag_sink *d, const sema_program *prog, const char *module_name, const char *pkg_dir,
                        bool tests) {
    cg_module *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    m->d = d;
    m->prog = prog;
    if (pkg_dir) {
        /* a test binary is the same for every spelling of its package:
         * sources are named from its real directory (test.c), and the
         * module after that directory */
        m->pkg_dir = realpath(pkg_dir, NULL);
        if (!m->pkg_dir) m->pkg_dir = strdup(pkg_dir);
        if (!m->pkg_dir) {
            free(m);
            return NULL;
        }
        const char *slash = strrchr(m->pkg_dir, '/');
        if (slash && slash[1]) module_name = slash + 1;
    }
    m->ctx = LLVMContextCreate();
    m->mod = LLVMModuleCreateWithNameInContext(module_name, m->ctx);
    LLVMSetSourceFileName(m->mod, module_name, strlen(module_name));
    m->b = LLVMCreateBuilderInContext(m->ctx);
    m->t_i64 = LLVMInt64TypeInContext(m->ctx);
    m->t_i32 = LLVMInt32TypeInContext(m->ctx);
    m->t_i1 = LLVMInt1TypeInContext(m->ctx);
    m->t_i8 = LLVMInt8TypeInContext(m->ctx);
    m->t_ptr = LLVMPointerType(m->t_i8, 0);
    m->t_void = LLVMVoidTypeInContext(m->ctx);
    LLVMTypeRef sbf[3] = {m->t_ptr, m->t_i64, m->t_i64};
    m->t_sb = LLVMStructTypeInContext(m->ctx, sbf, 3, 0);

    if (!cg_target_init(m)) {
        cg_free(m);
        return NULL;
    }
    const sema_pkg *root = prog->root;
    const ast_node *main_fn = NULL;
    bool ok = true;
    for (uint32_t i = 0; i < root->files.len; i++) {
        const ast_node *file = root->files.items[i];
        for (uint32_t k = 0; k < file->list.len; k++) {
            const ast_node *it = file->list.items[k];
            if (it->kind == AST_FN && it->name && strcmp(it->name, "main") == 0 && it->b) main_fn = it;
        }
    }
    /* every function of every package (imported ones and `mod`s too):
     * declared first, so calls may go forward */
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t pi = 0; pi < prog->packages.len; pi++) {
            const sema_pkg *pkg = prog->packages.items[pi];
            for (uint32_t i = 0; i < pkg->files.len; i++) {
                const ast_node *file = pkg->files.items[i];
                ok = fns_of(m, &file->list, pkg, pass) && ok;
            }
        }
        if (!ok || m->failed || diag_errors(d)) break;
    }
    if (tests) {
        if (ok && !m->failed && !diag_errors(d)) ok = cg_emit_tests(m);
    } else if (ok && !m->failed && !main_fn) {
        base_span none = {BASE_NO_FILE, 0, 0};
        diag_report(d, DIAG_ERROR, none, "package '%s' has no 'fn main()' to build", root->path ? root->path : "main");
        ok = false;
    } else if (ok && !m->failed && (main_fn->list.len || main_fn->a)) {
        diag_report(d, DIAG_ERROR, main_fn->name_span, "'fn main()' takes no parameters and returns nothing");
        ok = false;
    }
    if (!ok || m->failed || diag_errors(d)) {
        cg_free(m);
        return NULL;
    }
    if (!tests) {
        char *mname = cg_fn_symbol(m, main_fn, root);
        emit_c_main(m, LLVMGetNamedFunction(m->mod, mname));
        free(mname);
    }
    cg_debug_finish(m, tests ? NULL : main_fn);

    /* A verifier failure is a bug of this generator: name the function. */
    for (LLVMValueRef f = LLVMGetFirstFunction(m->mod); f; f = LLVMGetNextFunction(f)) {
        if (LLVMCountBasicBlocks(f) == 0) continue;
        /* A frame larger than a page touches each page as it grows, so a
         * function too big for its task's stack faults in the guard page
         * (a "stack overflow" panic) instead of far below it (a crash). */
        LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
                                LLVMCreateStringAttribute(m->ctx, "probe-stack", 11, "inline-asm", 10));
        if (LLVMVerifyFunction(f, LLVMReturnStatusAction)) {
            size_t n;
            DIAG_INTERNAL(d, "generated LLVM IR of function '%s' does not verify", LLVMGetValueName2(f, &n));
            cg_free(m);
            return NULL;
        }
    }
    char *msg = NULL;
    if (LLVMVerifyModule(m->mod, LLVMReturnStatusAction, &msg)) {
        DIAG_INTERNAL(d, "generated LLVM module does not verify: %s", msg ? msg : "?");
        LLVMDisposeMessage(msg);
        cg_free(m);
        return NULL;
    }
    LLVMDisposeMessage(msg);
    return m;
}

bool cg_write_ir(cg_module *m, const char *path) {
    char *err = NULL;
    if (LLVMPrintModuleToFile(m->mod, path, &err)) {
        fprintf(stderr, "oxl: cannot write '%s': %s\n", path, err ? err : "?");
        LLVMDisposeMessage(err);
        return false;
    }
    return true;
}

void cg_free(cg_module *m) {
    if (!m) return;
    if (m->tm) LLVMDisposeTargetMachine(m->tm);
    cg_debug_free(m);
    LLVMDisposeBuilder(m->b);
    LLVMDisposeModule(m->mod);
    LLVMContextDispose(m->ctx);
    free(m->files);
    free(m->pkg_dir);
    free(m->locals);
    cg_ptrmap_free(&m->boxed);
    cg_ptrmap_free(&m->lits);
    free(m->helpers);
    free(m->services);
    free(m);
}
