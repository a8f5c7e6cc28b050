/* imports.c: `use`: loading and checking the packages a file imports,
 * binding their names in the file's scope, warning about those never
 * used, and naming the standard package an unknown name comes from. */
#include "sema/sema_internal.h"

#include <stdio.h>
#include <string.h>

static const char *intern_str(sema_ctx *c, const char *s) { return base_intern(c->names, s, strlen(s)); }

static base_span name_at(const ast_node *n) { return n->name_span.len ? n->name_span : n->span; }

static sema_pkg *find_pkg(sema_ctx *c, const char *path) {
    for (uint32_t i = 0; i < c->prog->packages.len; i++) {
        sema_pkg *p = c->prog->packages.items[i];
        if (p->path == path)
            return p;
    }
    return NULL;
}

static void import_into(sema_ctx *c, sema_scope *fs, sema_sym *s, const char *as, base_span at) {
    sema_sym *own = scope_find_local(c->pkg->scope, as);
    if (own) {
        diag_report(c->d, DIAG_ERROR, at, "'%s' is imported here but also declared in this package", as);
        return;
    }
    sema_sym *prev = scope_find_local(fs, as);
    if (prev) {
        diag_report(c->d, DIAG_ERROR, at, "'%s' is already imported in this file", as);
        return;
    }
    scope_add(c, fs, s);
    sema_import *im = base_alloc(c->arena, sizeof *im);
    im->sym = s;
    im->as = as;
    im->at = at;
    base_vec_push(c->arena, &fs->imports, im);
}

/* Unused imports are warned about like unused variables. */
void sema_warn_unused_imports(sema_ctx *c, const sema_pkg *p) {
    if (!c->opt.warn_unused)
        return;
    for (uint32_t i = 0; i < p->file_scopes.len; i++) {
        const sema_scope *fs = p->file_scopes.items[i];
        for (uint32_t k = 0; k < fs->imports.len; k++) {
            const sema_import *im = fs->imports.items[k];
            if (im->used)
                continue;
            if (im->sym->kind == SYM_MODULE && im->sym->decl && im->sym->decl->kind == AST_USE && im->sym->pkg)
                diag_report(c->d, DIAG_WARNING, im->at, "unused import '%s'", im->sym->pkg->path);
            else
                diag_report(c->d, DIAG_WARNING, im->at, "unused import '%s'", im->as);
        }
    }
}

/* The standard packages an unknown name may come from, in the order
 * they are searched. */
static const char *const std_packages[] = {"std.test", "std.time", "std.store"};

static sema_pkg *load_quietly(sema_ctx *c, const char *path) {
    sema_pkg *p = find_pkg(c, path);
    if (p)
        return p->state == RS_DONE ? p : NULL;
    if (!c->loader || !c->loader->load || c->prog->packages.len >= SEMA_MAX_PACKAGES)
        return NULL;
    p = base_alloc(c->arena, sizeof *p);
    p->path = path;
    if (!c->loader->load(c->loader->ctx, path, &p->files))
        return NULL;
    base_vec_push(c->arena, &c->prog->packages, p);
    sema_fnctx *fn = c->fn;
    sema_sym *svc = c->service;
    c->fn = NULL;
    c->service = NULL;
    sema_check_pkg(c, p);
    c->fn = fn;
    c->service = svc;
    return p;
}

const char *sema_import_hint(sema_ctx *c, const char *name) {
    if (!name)
        return "";
    char buf[256];
    for (size_t i = 0; i < sizeof std_packages / sizeof std_packages[0]; i++) {
        const char *path = intern_str(c, std_packages[i]);
        const char *last = strrchr(path, '.') + 1;
        if (strcmp(last, name) == 0) {
            snprintf(buf, sizeof buf, " (the package %s: add `use %s`)", path, path);
            return base_strndup(c->arena, buf, strlen(buf));
        }
        sema_pkg *p = load_quietly(c, path);
        if (p && p->scope && scope_find_local(p->scope, name)) {
            snprintf(buf, sizeof buf, " (%s has it: add `use %s { %.64s }`)", path, path, name);
            return base_strndup(c->arena, buf, strlen(buf));
        }
    }
    return "";
}

void sema_bind_use(sema_ctx *c, ast_node *u, sema_scope *fs) {
    base_span at = name_at(u);
    if (!u->name) {
        DIAG_INTERNAL(c->d, "use without a path");
        return;
    }
    const char *path = intern_str(c, u->name);
    sema_pkg *p = find_pkg(c, path);
    if (p && p->state == RS_BUSY) {
        diag_report(c->d, DIAG_ERROR, at, "import cycle: package '%s' imports itself through '%s'", c->pkg->path,
                    path);
        return;
    }
    if (!p) {
        if (c->prog->packages.len >= SEMA_MAX_PACKAGES) {
            diag_report(c->d, DIAG_ERROR, at, "too many packages (at most %d)", SEMA_MAX_PACKAGES);
            return;
        }
        p = base_alloc(c->arena, sizeof *p);
        p->path = path;
        if (!c->loader || !c->loader->load || !c->loader->load(c->loader->ctx, path, &p->files)) {
            diag_report(c->d, DIAG_ERROR, at, "cannot find package '%s'", path);
            return;
        }
        base_vec_push(c->arena, &c->prog->packages, p);
        sema_check_pkg(c, p);
    }
    if (u->list.len == 0) {
        const char *last = strrchr(path, '.');
        const char *as = intern_str(c, last ? last + 1 : path);
        sema_sym *m = sym_new(c, SYM_MODULE, as, u, at);
        m->members = p->scope;
        m->state = RS_DONE;
        m->pkg = p;
        u->sym = m;
        import_into(c, fs, m, as, at);
        return;
    }
    for (uint32_t i = 0; i < u->list.len; i++) {
        ast_node *id = u->list.items[i];
        sema_sym *s = p->scope ? scope_find_local(p->scope, id->name) : NULL;
        if (!s) {
            diag_report(c->d, DIAG_ERROR, name_at(id), "package '%s' has no item '%s'", path, id->name);
            continue;
        }
        id->sym = s;
        import_into(c, fs, s, id->name, name_at(id));
    }
}

