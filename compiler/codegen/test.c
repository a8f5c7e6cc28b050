/* test.c: the test binary of a package (docs/test-binary.md): each test
 * block becomes a function `void oxl.test.<i>()`, and a table of
 * oxl_test_case (runtime/include/oxl_test.h: eleven words per test, with
 * the sim test's layout of nodes and roles) in source order goes to the
 * runtime's oxl_test_main, which the C main calls. */
#define _XOPEN_SOURCE 700 /* realpath */
#include "codegen/cg_internal.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A source's path as a test binary names it (the test table, panics):
 * relative to the package's real directory for a file in it (`main.oxl`,
 * `sub/x.oxl`), else its real path (std). It is the same for every
 * spelling of the package (`pkg`, `./pkg/`, `/abs/pkg`) and from any
 * working directory, as `oxl test`'s cache, which serves one binary to
 * them all, needs. */
const char *cg_test_path(const cg_module *m, const char *path, char *buf, size_t cap) {
    char real[PATH_MAX];
    if (!realpath(path, real)) return path;
    size_t n = m->pkg_dir ? strlen(m->pkg_dir) : 0;
    const char *p = real;
    if (n && strncmp(real, m->pkg_dir, n) == 0 && real[n] == '/') p = real + n + 1;
    if ((size_t)snprintf(buf, cap, "%s", p) >= cap) return path;
    return buf;
}

/* A private constant array of n values of type t, as a pointer to its
 * first element of type elem_ptr (NULL when n is 0). */
static LLVMValueRef table(cg_module *m, const char *name, LLVMTypeRef t, LLVMValueRef *vals, unsigned n) {
    if (!n) return LLVMConstNull(LLVMPointerType(t, 0));
    LLVMValueRef init = LLVMConstArray(t, vals, n);
    LLVMValueRef g = LLVMAddGlobal(m->mod, LLVMTypeOf(init), name);
    LLVMSetInitializer(g, init);
    LLVMSetGlobalConstant(g, 1);
    LLVMSetLinkage(g, LLVMPrivateLinkage);
    LLVMValueRef zero = LLVMConstInt(m->t_i32, 0, 0);
    LLVMValueRef idx[2] = {zero, zero};
    return LLVMConstInBoundsGEP2(LLVMTypeOf(init), g, idx, 2);
}

/* The nodes of a sim test (oxl_test_node rows, each with its
 * oxl_test_role rows: the role's name and its service's table). */
static LLVMValueRef layout_table(cg_module *m, const sema_test *t, uint32_t index, LLVMTypeRef node_ty) {
    LLVMTypeRef role_f[2] = {m->t_ptr, m->t_ptr};
    LLVMTypeRef role_ty = LLVMStructTypeInContext(m->ctx, role_f, 2, 0);
    uint32_t n = t->layout.len;
    LLVMValueRef *nodes = calloc(n ? n : 1, sizeof *nodes);
    if (!nodes) {
        fputs("oxl: out of memory\n", stderr);
        abort();
    }
    for (uint32_t i = 0; i < n; i++) {
        const sema_node *nd = t->layout.items[i];
        uint32_t nr = nd->roles.len;
        LLVMValueRef *roles = calloc(nr ? nr : 1, sizeof *roles);
        if (!roles) {
            fputs("oxl: out of memory\n", stderr);
            abort();
        }
        for (uint32_t k = 0; k < nr; k++) {
            const ast_node *r = nd->roles.items[k];
            LLVMValueRef f[2] = {cg_cstring(m, r->name, strlen(r->name)), cg_service_ref(m, r->sym)};
            roles[k] = LLVMConstStructInContext(m->ctx, f, 2, 0);
        }
        char name[64];
        snprintf(name, sizeof name, "oxl.test.%u.node.%u.roles", index, i);
        LLVMValueRef f[3] = {cg_cstring(m, nd->name, strlen(nd->name)), cg_i64(m, nr),
                             LLVMConstBitCast(table(m, name, role_ty, roles, nr), m->t_ptr)};
        nodes[i] = LLVMConstNamedStruct(node_ty, f, 3);
        free(roles);
    }
    char name[48];
    snprintf(name, sizeof name, "oxl.test.%u.layout", index);
    LLVMValueRef g = LLVMConstBitCast(table(m, name, node_ty, nodes, n), m->t_ptr);
    free(nodes);
    return g;
}

/* A unit test runs as a program does: the program's services boot on
 * the process node first. */
static LLVMValueRef unit_body(cg_module *m, LLVMValueRef body, uint32_t index) {
    if (!m->nservices) return body;
    char name[48];
    snprintf(name, sizeof name, "oxl.test.%u.boot", index);
    LLVMValueRef boot = cg_boot_services(m);
    LLVMValueRef f = LLVMAddFunction(m->mod, name, LLVMFunctionType(m->t_void, NULL, 0, 0));
    LLVMSetLinkage(f, LLVMInternalLinkage);
    LLVMPositionBuilderAtEnd(m->b, LLVMAppendBasicBlockInContext(m->ctx, f, "entry"));
    cg_call(m, boot, NULL, 0);
    cg_call(m, body, NULL, 0);
    LLVMBuildRetVoid(m->b);
    return f;
}

bool cg_emit_tests(cg_module *m) {
    const base_vec *tests = &m->prog->tests;
    uint32_t n = tests->len;
    LLVMTypeRef body_ty = LLVMFunctionType(m->t_void, NULL, 0, 0);
    LLVMTypeRef fields[11] = {m->t_ptr, m->t_i64, m->t_ptr, m->t_i64, m->t_i64, m->t_i64,
                              m->t_i64, m->t_i64, LLVMPointerType(body_ty, 0), m->t_i64, m->t_ptr};
    LLVMTypeRef case_ty = LLVMStructTypeInContext(m->ctx, fields, 11, 0);
    LLVMTypeRef node_f[3] = {m->t_ptr, m->t_i64, m->t_ptr};
    LLVMTypeRef node_ty = LLVMStructTypeInContext(m->ctx, node_f, 3, 0);
    LLVMValueRef *rows = calloc(n ? n : 1, sizeof *rows);
    if (!rows) {
        fputs("oxl: out of memory\n", stderr);
        abort();
    }
    bool ok = true;
    for (uint32_t i = 0; i < n && ok; i++) {
        const sema_test *t = tests->items[i];
        const ast_node *decl = t->decl;
        char name[48];
        snprintf(name, sizeof name, "oxl.test.%u", i);
        LLVMValueRef body = cg_body_function(m, name, body_ty, decl->b, NULL);
        if (!body) {
            ok = false;
            break;
        }
        const base_source *src = diag_source(m->d, decl->span.file);
        char rel[PATH_MAX];
        const char *file = cg_test_path(m, src ? src->path : "?", rel, sizeof rel);
        base_pos pos = diag_position(m->d, decl->span);
        const char *tname = decl->name ? decl->name : "";
        size_t tlen = decl->ival > 0 ? (size_t)decl->ival : strlen(tname);
        if (!t->sim) body = unit_body(m, body, i);
        LLVMValueRef vals[11] = {cg_cstring(m, tname, tlen),
                                 cg_i64(m, (int64_t)tlen),
                                 cg_cstring(m, file, strlen(file)),
                                 cg_i64(m, (int64_t)pos.line),
                                 cg_i64(m, (int64_t)pos.col),
                                 cg_i64(m, t->sim ? 1 : 0),
                                 cg_i64(m, t->sim ? t->seed_first : 0),
                                 cg_i64(m, t->sim ? t->seed_last : 0),
                                 body,
                                 cg_i64(m, (int64_t)t->layout.len),
                                 layout_table(m, t, i, node_ty)};
        rows[i] = LLVMConstNamedStruct(case_ty, vals, 11);
    }
    if (!ok) {
        free(rows);
        return false;
    }
    LLVMTypeRef arr_ty = LLVMArrayType(case_ty, n ? n : 1);
    LLVMValueRef init;
    if (n) {
        init = LLVMConstArray(case_ty, rows, n);
    } else { /* an empty package still gets a table: one unused zero row */
        LLVMValueRef z = LLVMConstNull(case_ty);
        init = LLVMConstArray(case_ty, &z, 1);
    }
    free(rows);
    LLVMValueRef table = LLVMAddGlobal(m->mod, arr_ty, "oxl.tests");
    LLVMSetInitializer(table, init);
    LLVMSetGlobalConstant(table, 1);
    LLVMSetLinkage(table, LLVMPrivateLinkage);

    /* int main(int argc, char **argv) { return oxl_test_main(argc, argv, tests, n); } */
    LLVMTypeRef pargs[2] = {m->t_i32, LLVMPointerType(m->t_ptr, 0)};
    LLVMValueRef f = LLVMAddFunction(m->mod, "main", LLVMFunctionType(m->t_i32, pargs, 2, 0));
    LLVMPositionBuilderAtEnd(m->b, LLVMAppendBasicBlockInContext(m->ctx, f, "entry"));
    LLVMTypeRef ps[4] = {m->t_i32, LLVMPointerType(m->t_ptr, 0), LLVMPointerType(case_ty, 0), m->t_i64};
    LLVMValueRef tm = cg_runtime_fn(m, "oxl_test_main", m->t_i32, ps, 4, false);
    LLVMValueRef zero = LLVMConstInt(m->t_i32, 0, 0);
    LLVMValueRef idx[2] = {zero, zero};
    LLVMValueRef args[4] = {LLVMGetParam(f, 0), LLVMGetParam(f, 1), LLVMConstInBoundsGEP2(arr_ty, table, idx, 2),
                            cg_i64(m, n)};
    LLVMValueRef st = cg_call(m, tm, args, 4);
    LLVMBuildRet(m->b, st);
    return true;
}
