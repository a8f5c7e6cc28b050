/* scope.c: symbols and nested scopes. Scopes are small (a block, a
 * package's items), so lookups walk arrays of interned-name pointers. */
#include "sema/sema_internal.h"

sema_scope *scope_new(sema_ctx *c, sema_scope *parent) {
    sema_scope *s = base_alloc(c->arena, sizeof *s);
    s->parent = parent;
    return s;
}

sema_sym *sym_new(sema_ctx *c, sema_symkind kind, const char *name, ast_node *decl, base_span span) {
    sema_sym *s = base_alloc(c->arena, sizeof *s);
    s->kind = kind;
    s->name = name;
    s->decl = decl;
    s->span = span;
    s->pkg = c->pkg;
    return s;
}

sema_sym *scope_find_local(const sema_scope *s, const char *name) {
    /* newest first: a narrowed view of a local shadows it */
    for (uint32_t i = s->syms.len; i-- > 0;) {
        sema_sym *sym = s->syms.items[i];
        if (sym->name == name)
            return sym;
    }
    return NULL;
}

sema_sym *scope_lookup(const sema_scope *s, const char *name) {
    for (; s; s = s->parent) {
        sema_sym *sym = scope_find_local(s, name);
        if (sym)
            return sym;
    }
    return NULL;
}

const char *sym_kind_name(const sema_sym *s) {
    switch (s->kind) {
    case SYM_LOCAL: return "variable";
    case SYM_PARAM: return "parameter";
    case SYM_CONST: return "constant";
    case SYM_FN: return s->is_rpc ? "rpc" : "function";
    case SYM_TYPE: return "type";
    case SYM_MODULE: return "module";
    case SYM_SERVICE: return "service";
    case SYM_CLUSTER: return "cluster";
    case SYM_STATE: return "state";
    case SYM_BUILTIN: return "built-in function";
    case SYM_TEST: return "test";
    }
    return "name";
}

bool sema_name_is_blank(const char *name) { return name == NULL || name[0] == '_'; }

/* Declares sym in s; a second declaration of the same name in the same
 * scope is an error at the second one, with a note at the first. */
bool scope_declare(sema_ctx *c, sema_scope *s, sema_sym *sym) {
    if (!sym->name)
        return false;
    sema_sym *prev = scope_find_local(s, sym->name);
    if (prev) {
        diag_report(c->d, DIAG_ERROR, sym->span, "'%s' is already declared in this scope", sym->name);
        if (prev->span.len)
            diag_report(c->d, DIAG_NOTE, prev->span, "'%s' was declared here", sym->name);
        return false;
    }
    base_vec_push(c->arena, &s->syms, sym);
    return true;
}

void scope_push(sema_ctx *c) {
    sema_scope *s = scope_new(c, c->scope);
    s->is_block = true;
    c->scope = s;
}

/* Leaves a block scope; its never-read locals get a warning (names that
 * start with '_' opt out, as in Rust). */
void scope_pop(sema_ctx *c) {
    sema_scope *s = c->scope;
    if (!s) {
        DIAG_INTERNAL(c->d, "scope_pop without a scope");
        return;
    }
    if (s->is_block && c->opt.warn_unused) {
        for (uint32_t i = 0; i < s->syms.len; i++) {
            sema_sym *sym = s->syms.items[i];
            if (sym->kind == SYM_LOCAL && !sym->used && !sym->owner && !sema_name_is_blank(sym->name))
                diag_report(c->d, DIAG_WARNING, sym->span, "unused variable '%s'", sym->name);
        }
    }
    c->scope = s->parent;
}
