/* scope.c: symbols and nested scopes. A block's scope is small and a walk
 * of its array is fastest; a scope that grows past SCOPE_INDEX_AT symbols
 * (a package's items) gets a hash index, so a 100,000-line package does
 * not pay a linear search per name. */
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

#define SCOPE_INDEX_AT 16

static uint32_t name_slot(const char *name, uint32_t mask) {
    uint64_t h = (uint64_t)(uintptr_t)name * UINT64_C(0x9E3779B97F4A7C15);
    return (uint32_t)(h >> 32) & mask;
}

/* Points name at symbol position pos (newest wins). */
static void index_put(sema_scope *s, const char *name, uint32_t pos) {
    uint32_t mask = s->index_cap - 1, i = name_slot(name, mask);
    while (s->index[i]) {
        const sema_sym *at = s->syms.items[s->index[i] - 1];
        if (at->name == name) break;
        i = (i + 1) & mask;
    }
    s->index[i] = pos + 1;
}

static void index_rebuild(sema_ctx *c, sema_scope *s) {
    uint32_t cap = 64;
    while (cap < s->syms.len * 2) cap *= 2;
    s->index = base_alloc(c->arena, cap * sizeof *s->index);
    s->index_cap = cap;
    for (uint32_t i = 0; i < s->syms.len; i++) {
        const sema_sym *sym = s->syms.items[i];
        if (sym->name) index_put(s, sym->name, i);
    }
}

void scope_add(sema_ctx *c, sema_scope *s, sema_sym *sym) {
    base_vec_push(c->arena, &s->syms, sym);
    if (s->index && s->syms.len * 2 <= s->index_cap) {
        if (sym->name) index_put(s, sym->name, s->syms.len - 1);
    } else if (s->syms.len >= SCOPE_INDEX_AT) {
        index_rebuild(c, s);
    }
}

sema_sym *scope_find_local(const sema_scope *s, const char *name) {
    if (s->index) {
        uint32_t mask = s->index_cap - 1, i = name_slot(name, mask);
        while (s->index[i]) {
            sema_sym *sym = s->syms.items[s->index[i] - 1];
            if (sym->name == name) return sym;
            i = (i + 1) & mask;
        }
        return NULL;
    }
    /* newest first: a narrowed view of a local shadows it */
    for (uint32_t i = s->syms.len; i-- > 0;) {
        sema_sym *sym = s->syms.items[i];
        if (sym->name == name)
            return sym;
    }
    return NULL;
}

/* A name found among a file's imports marks the import used. */
static void mark_import(const sema_scope *s, const sema_sym *sym) {
    for (uint32_t i = 0; i < s->imports.len; i++) {
        sema_import *im = s->imports.items[i];
        if (im->sym == sym)
            im->used = true;
    }
}

sema_sym *scope_lookup(const sema_scope *s, const char *name) {
    for (; s; s = s->parent) {
        sema_sym *sym = scope_find_local(s, name);
        if (sym) {
            if (s->imports.len)
                mark_import(s, sym);
            return sym;
        }
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
    scope_add(c, s, sym);
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
