/* test.c: the test binary of a package (docs/test-binary.md): each test
 * block becomes a function `void oxl.test.<i>()`, and a table of
 * oxl_test_case (runtime/include/oxl_test.h: ten words per test) in source
 * order goes to the runtime's oxl_test_main, which the C main calls. */
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

/* The role names of `with cluster(roles: [...])` as an array of C strings,
 * or a null pointer without roles. */
static LLVMValueRef roles_array(cg_module *m, const sema_test *t, uint32_t index) {
    if (!t->roles.len) return LLVMConstNull(LLVMPointerType(m->t_ptr, 0));
    LLVMValueRef *names = calloc(t->roles.len, sizeof *names);
    if (!names) {
        fputs("oxl: out of memory\n", stderr);
        abort();
    }
    for (uint32_t k = 0; k < t->roles.len; k++) {
        const ast_node *r = t->roles.items[k];
        names[k] = cg_cstring(m, r->name, r->kind == AST_STRING ? (size_t)r->ival : strlen(r->name));
    }
    LLVMTypeRef arr_ty = LLVMArrayType(m->t_ptr, t->roles.len);
    char gname[48];
    snprintf(gname, sizeof gname, "oxl.test.%u.roles", index);
    LLVMValueRef g = LLVMAddGlobal(m->mod, arr_ty, gname);
    LLVMSetInitializer(g, LLVMConstArray(m->t_ptr, names, t->roles.len));
    LLVMSetGlobalConstant(g, 1);
    LLVMSetLinkage(g, LLVMPrivateLinkage);
    free(names);
    LLVMValueRef zero = LLVMConstInt(m->t_i32, 0, 0);
    LLVMValueRef idx[2] = {zero, zero};
    return LLVMConstInBoundsGEP2(arr_ty, g, idx, 2);
}

bool cg_emit_tests(cg_module *m) {
    const base_vec *tests = &m->prog->tests;
    uint32_t n = tests->len;
    LLVMTypeRef body_ty = LLVMFunctionType(m->t_void, NULL, 0, 0);
    LLVMTypeRef fields[12] = {m->t_ptr, m->t_i64, m->t_ptr, m->t_i64, m->t_i64,
                              m->t_i64, m->t_i64, m->t_i64, m->t_i64, LLVMPointerType(body_ty, 0),
                              LLVMPointerType(m->t_ptr, 0), m->t_i64};
    LLVMTypeRef case_ty = LLVMStructTypeInContext(m->ctx, fields, 12, 0);
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
        LLVMValueRef vals[12] = {cg_cstring(m, tname, tlen),
                                 cg_i64(m, (int64_t)tlen),
                                 cg_cstring(m, file, strlen(file)),
                                 cg_i64(m, (int64_t)pos.line),
                                 cg_i64(m, (int64_t)pos.col),
                                 cg_i64(m, t->sim ? 1 : 0),
                                 cg_i64(m, t->sim ? t->seed_first : 0),
                                 cg_i64(m, t->sim ? t->seed_last : 0),
                                 cg_i64(m, t->nodes),
                                 body,
                                 roles_array(m, t, i),
                                 cg_i64(m, (int64_t)t->roles.len)};
        rows[i] = LLVMConstNamedStruct(case_ty, vals, 12);
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
