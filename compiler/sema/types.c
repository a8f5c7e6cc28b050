/* types.c: the static types of OxL. Composite types are interned, so two
 * types are equal exactly when their pointers are; unions are flattened,
 * deduplicated and sorted by creation id, which makes `A | B` and `B | A`
 * the same type. Structs are nominal: one type per declaration. */
#include "sema/sema_internal.h"

#include <string.h>

static sema_type *ty_new(sema_ctx *c, sema_tkind kind) {
    sema_type *t = base_alloc(c->arena, sizeof *t);
    t->kind = kind;
    t->id = c->next_id++;
    return t;
}

void sema_types_init(sema_ctx *c) {
    /* Creation order fixes the order in which union members print. */
    c->t_error = ty_new(c, TY_ERROR);
    c->t_never = ty_new(c, TY_NEVER);
    c->t_int = ty_new(c, TY_INT);
    c->t_bool = ty_new(c, TY_BOOL);
    c->t_string = ty_new(c, TY_STRING);
    c->t_bytes = ty_new(c, TY_BYTES);
    c->t_duration = ty_new(c, TY_DURATION);
    c->t_instant = ty_new(c, TY_INSTANT);
    c->t_none = ty_new(c, TY_NONE);
}

/* Finds an interned composite type equal to the probe, or interns it. */
static sema_type *intern(sema_ctx *c, sema_type *probe) {
    for (uint32_t i = 0; i < c->composite.len; i++) {
        sema_type *t = c->composite.items[i];
        if (t->kind != probe->kind || t->elem != probe->elem || t->key != probe->key || t->nitems != probe->nitems)
            continue;
        bool same = true;
        for (uint32_t k = 0; k < t->nitems && same; k++)
            same = t->items[k] == probe->items[k];
        if (same)
            return t;
    }
    sema_type *t = ty_new(c, probe->kind);
    t->elem = probe->elem;
    t->key = probe->key;
    t->nitems = probe->nitems;
    if (probe->nitems) {
        t->items = base_alloc(c->arena, sizeof(sema_type *) * probe->nitems);
        memcpy(t->items, probe->items, sizeof(sema_type *) * probe->nitems);
    }
    base_vec_push(c->arena, &c->composite, t);
    return t;
}

static sema_type *ty_simple(sema_ctx *c, sema_tkind kind, sema_type *elem, sema_type *key) {
    if (ty_is_error(elem) || (key && ty_is_error(key)))
        return c->t_error;
    sema_type probe = {.kind = kind, .elem = elem, .key = key};
    return intern(c, &probe);
}

sema_type *ty_list(sema_ctx *c, sema_type *elem) { return ty_simple(c, TY_LIST, elem, NULL); }
sema_type *ty_map(sema_ctx *c, sema_type *key, sema_type *val) { return ty_simple(c, TY_MAP, val, key); }
sema_type *ty_chan(sema_ctx *c, sema_type *elem) { return ty_simple(c, TY_CHAN, elem, NULL); }
sema_type *ty_task(sema_ctx *c, sema_type *elem) { return ty_simple(c, TY_TASK, elem, NULL); }

sema_type *ty_fn(sema_ctx *c, sema_type **params, uint32_t n, sema_type *result) {
    for (uint32_t i = 0; i < n; i++)
        if (ty_is_error(params[i]))
            return c->t_error;
    if (ty_is_error(result))
        return c->t_error;
    sema_type probe = {.kind = TY_FN, .elem = result, .items = params, .nitems = n};
    return intern(c, &probe);
}

sema_type *ty_struct(sema_ctx *c, const char *name, sema_sym *sym) {
    sema_type *t = ty_new(c, TY_STRUCT);
    t->name = name;
    t->sym = sym;
    return t;
}

bool ty_is_error(const sema_type *t) { return t == NULL || t->kind == TY_ERROR; }

static void add_member(sema_type **out, uint32_t *n, uint32_t cap, sema_type *m, bool *overflow) {
    for (uint32_t i = 0; i < *n; i++)
        if (out[i] == m)
            return;
    if (*n >= cap) {
        *overflow = true;
        return;
    }
    /* insertion keeps members sorted by id */
    uint32_t i = *n;
    while (i > 0 && out[i - 1]->id > m->id) {
        out[i] = out[i - 1];
        i--;
    }
    out[i] = m;
    (*n)++;
}

static void add_shown(sema_type **out, uint32_t *n, sema_type *m) {
    for (uint32_t i = 0; i < *n; i++)
        if (out[i] == m)
            return;
    if (*n < SEMA_MAX_UNION)
        out[(*n)++] = m;
}

static sema_type *union_of(sema_ctx *c, sema_type **members, uint32_t n, base_span at, bool report) {
    sema_type *buf[SEMA_MAX_UNION], *shown[SEMA_MAX_UNION];
    uint32_t count = 0, nshown = 0;
    bool overflow = false;
    for (uint32_t i = 0; i < n; i++) {
        sema_type *m = members[i];
        if (ty_is_error(m))
            return c->t_error;
        if (m->kind == TY_NEVER)
            continue;
        if (m->kind == TY_UNION) {
            for (uint32_t k = 0; k < m->nitems; k++) {
                add_member(buf, &count, SEMA_MAX_UNION, m->items[k], &overflow);
                add_shown(shown, &nshown, m->shown ? m->shown[k] : m->items[k]);
            }
        } else {
            add_member(buf, &count, SEMA_MAX_UNION, m, &overflow);
            add_shown(shown, &nshown, m);
        }
    }
    if (overflow) {
        if (report)
            diag_report(c->d, DIAG_ERROR, at, "a union has at most %d members", SEMA_MAX_UNION);
        return c->t_error;
    }
    if (count == 0)
        return c->t_never;
    if (count == 1)
        return buf[0];
    sema_type probe = {.kind = TY_UNION, .items = buf, .nitems = count};
    sema_type *t = intern(c, &probe);
    if (!t->shown && nshown == count) {
        t->shown = base_alloc(c->arena, sizeof(sema_type *) * count);
        memcpy(t->shown, shown, sizeof(sema_type *) * count);
    }
    return t;
}

sema_type *ty_union(sema_ctx *c, sema_type **members, uint32_t n, base_span at) {
    return union_of(c, members, n, at, true);
}

sema_type *ty_union2(sema_ctx *c, sema_type *a, sema_type *b) {
    sema_type *m[2] = {a, b};
    base_span none = {0, 0, 0};
    return union_of(c, m, 2, none, false);
}

sema_type *ty_optional(sema_ctx *c, sema_type *t) { return ty_union2(c, t, c->t_none); }

static uint32_t members_of(const sema_type *t, sema_type *const **out) {
    static sema_type *const empty[1] = {NULL};
    if (t->kind == TY_UNION) {
        *out = t->items;
        return t->nitems;
    }
    if (t->kind == TY_NEVER) {
        *out = empty;
        return 0;
    }
    /* a lone type is a one-member set: the caller reads out[0] == t */
    *out = NULL;
    return 1;
}

static const sema_type *member_at(const sema_type *t, sema_type *const *items, uint32_t i) {
    return items ? items[i] : t;
}

bool ty_has_member(const sema_type *u, const sema_type *m) {
    sema_type *const *items;
    uint32_t n = members_of(u, &items);
    for (uint32_t i = 0; i < n; i++)
        if (member_at(u, items, i) == m)
            return true;
    return false;
}

bool ty_subset(const sema_type *sub, const sema_type *of) {
    sema_type *const *items;
    uint32_t n = members_of(sub, &items);
    for (uint32_t i = 0; i < n; i++)
        if (!ty_has_member(of, member_at(sub, items, i)))
            return false;
    return true;
}

sema_type *ty_without(sema_ctx *c, sema_type *t, sema_type *remove) {
    sema_type *const *items;
    uint32_t n = members_of(t, &items);
    sema_type *buf[SEMA_MAX_UNION];
    uint32_t k = 0;
    for (uint32_t i = 0; i < n && k < SEMA_MAX_UNION; i++) {
        const sema_type *m = t->kind == TY_UNION && t->shown ? t->shown[i] : member_at(t, items, i);
        if (!ty_has_member(remove, m))
            buf[k++] = (sema_type *)m;
    }
    base_span none = {0, 0, 0};
    return union_of(c, buf, k, none, false);
}

bool ty_assignable(const sema_type *from, const sema_type *to) {
    if (from == to || ty_is_error(from) || ty_is_error(to) || from->kind == TY_NEVER)
        return true;
    if (to->kind != TY_UNION)
        return false;
    return ty_subset(from, to);
}

bool ty_comparable(const sema_type *t) {
    switch (t->kind) {
    case TY_ERROR: case TY_NEVER: case TY_NONE: case TY_INT: case TY_BOOL: case TY_STRING:
    case TY_BYTES: case TY_DURATION: case TY_INSTANT:
        return true;
    case TY_UNION:
        for (uint32_t i = 0; i < t->nitems; i++)
            if (!ty_comparable(t->items[i]))
                return false;
        return true;
    default:
        return false;
    }
}

/* Values that can travel in an rpc message: no channels, tasks or
 * functions anywhere inside. Recursive structs stop at the depth limit.
 * The same values are the ones == compares (ty_equatable). */
bool ty_sendable(const sema_type *t, int depth) {
    if (depth > 32)
        return true;
    switch (t->kind) {
    case TY_CHAN: case TY_TASK: case TY_FN:
        return false;
    case TY_LIST:
        return ty_sendable(t->elem, depth + 1);
    case TY_MAP:
        return ty_sendable(t->key, depth + 1) && ty_sendable(t->elem, depth + 1);
    case TY_UNION:
        for (uint32_t i = 0; i < t->nitems; i++)
            if (!ty_sendable(t->items[i], depth + 1))
                return false;
        return true;
    case TY_STRUCT:
        for (uint32_t i = 0; i < t->nfields; i++)
            if (t->fields[i].type && !ty_sendable(t->fields[i].type, depth + 1))
                return false;
        return true;
    default:
        return true;
    }
}

/* == compares plain data: scalars, and lists, maps, structs and unions
 * of plain data, structurally (docs/language.md §7.5). Channels, tasks
 * and functions have no ==, nor do values holding them. */
bool ty_equatable(const sema_type *t) { return ty_sendable(t, 0); }

/* Types an extern fn may take or return: the runtime's scalar ABI (int64_t
 * for Int, Duration, Instant; bool; oxl strings and bytes) and lists of
 * those (the runtime's list handle). */
bool ty_extern_ok(const sema_type *t) {
    switch (t->kind) {
    case TY_ERROR: case TY_INT: case TY_BOOL: case TY_STRING: case TY_BYTES: case TY_DURATION: case TY_INSTANT:
        return true;
    case TY_LIST:
        return ty_extern_ok(t->elem);
    default:
        return false;
    }
}

sema_field *ty_field(const sema_type *t, const char *name) {
    if (t->kind != TY_STRUCT)
        return NULL;
    for (uint32_t i = 0; i < t->nfields; i++)
        if (t->fields[i].name == name)
            return &t->fields[i];
    return NULL;
}

/* ---- printing ---- */
/* Type names in messages are cut at 512 bytes (base_text marks the cut). */

static void ty_print(base_text *b, const sema_type *t, int depth) {
    if (depth > 8) {
        base_text_add(b, "...");
        return;
    }
    switch (t->kind) {
    case TY_ERROR: base_text_add(b, "<error>"); return;
    case TY_NEVER: base_text_add(b, "Never"); return;
    case TY_NONE: base_text_add(b, "None"); return;
    case TY_INT: base_text_add(b, "Int"); return;
    case TY_BOOL: base_text_add(b, "Bool"); return;
    case TY_STRING: base_text_add(b, "String"); return;
    case TY_BYTES: base_text_add(b, "Bytes"); return;
    case TY_DURATION: base_text_add(b, "Duration"); return;
    case TY_INSTANT: base_text_add(b, "Instant"); return;
    case TY_LIST:
    case TY_MAP:
    case TY_CHAN:
    case TY_TASK: /* [T], Map[K, V], Chan[T], Task[T] */
        base_text_add(b, t->kind == TY_LIST ? "[" : t->kind == TY_MAP ? "Map[" : t->kind == TY_CHAN ? "Chan[" : "Task[");
        if (t->kind == TY_MAP) {
            ty_print(b, t->key, depth + 1);
            base_text_add(b, ", ");
        }
        ty_print(b, t->elem, depth + 1);
        base_text_add(b, "]");
        return;
    case TY_STRUCT:
        base_text_add(b, t->name);
        return;
    case TY_FN:
        base_text_add(b, "fn(");
        for (uint32_t i = 0; i < t->nitems; i++) {
            if (i)
                base_text_add(b, ", ");
            ty_print(b, t->items[i], depth + 1);
        }
        base_text_add(b, ")");
        if (t->elem->kind != TY_NONE) {
            base_text_add(b, " -> ");
            ty_print(b, t->elem, depth + 1);
        }
        return;
    case TY_UNION: {
        /* `T?` for a two-member union with None, as written */
        bool has_none = false;
        for (uint32_t i = 0; i < t->nitems; i++)
            has_none = has_none || t->items[i]->kind == TY_NONE;
        if (has_none && t->nitems == 2) {
            const sema_type *other = t->items[0]->kind == TY_NONE ? t->items[1] : t->items[0];
            bool paren = other->kind == TY_FN;
            if (paren)
                base_text_add(b, "(");
            ty_print(b, other, depth + 1);
            if (paren)
                base_text_add(b, ")");
            base_text_add(b, "?");
            return;
        }
        for (uint32_t i = 0; i < t->nitems; i++) {
            if (i)
                base_text_add(b, " | ");
            ty_print(b, t->shown ? t->shown[i] : t->items[i], depth + 1);
        }
        return;
    }
    }
}

const char *ty_str(sema_ctx *c, const sema_type *t) {
    char text[512];
    base_text b;
    base_text_init(&b, text, sizeof text);
    if (!t)
        return "<error>";
    ty_print(&b, t, 0);
    return base_strndup(c->arena, b.buf, b.len);
}
