/* builtins.c: the methods of the core types, one table line each. A
 * signature is spelled with one letter per type, relative to the
 * receiver: I Int, B Bool, S String, Y Bytes, N None (no result),
 * T the element (list, Chan, Task), O element?, L [element],
 * A [String], K key, V value, P value?, X [key], W [value].
 * docs/language.md (Semantics, built-in methods) lists the same methods. */
#include "sema/sema_internal.h"

#include <string.h>

typedef struct method_spec {
    sema_method id;
    const char *name;
    const char *params; /* "name:C name:C" */
    char result;
} method_spec;

static const method_spec string_methods[] = {
    {SM_STR_LEN, "len", "", 'I'},
    {SM_STR_CONTAINS, "contains", "s:S", 'B'},
    {SM_STR_STARTS_WITH, "startsWith", "prefix:S", 'B'},
    {SM_STR_ENDS_WITH, "endsWith", "suffix:S", 'B'},
    {SM_STR_SPLIT, "split", "sep:S", 'A'},
    {SM_STR_TRIM, "trim", "", 'S'},
    {SM_STR_TO_UPPER, "toUpper", "", 'S'},
    {SM_STR_TO_LOWER, "toLower", "", 'S'},
    {SM_STR_BYTES, "bytes", "", 'Y'},
    {SM_NONE, NULL, NULL, 0},
};

static const method_spec bytes_methods[] = {
    {SM_BYTES_LEN, "len", "", 'I'},
    {SM_NONE, NULL, NULL, 0},
};

static const method_spec list_methods[] = {
    {SM_LIST_LEN, "len", "", 'I'},
    {SM_LIST_PUSH, "push", "x:T", 'N'},
    {SM_LIST_POP, "pop", "", 'O'},
    {SM_LIST_GET, "get", "i:I", 'O'},
    {SM_LIST_CONTAINS, "contains", "x:T", 'B'},
    {SM_LIST_INSERT, "insert", "i:I x:T", 'N'},
    {SM_LIST_REMOVE, "remove", "i:I", 'T'},
    {SM_LIST_SLICE, "slice", "from:I to:I", 'L'},
    {SM_NONE, NULL, NULL, 0},
};

static const method_spec map_methods[] = {
    {SM_MAP_LEN, "len", "", 'I'},
    {SM_MAP_GET, "get", "k:K", 'P'},
    {SM_MAP_HAS, "has", "k:K", 'B'},
    {SM_MAP_SET, "set", "k:K v:V", 'N'},
    {SM_MAP_REMOVE, "remove", "k:K", 'P'},
    {SM_MAP_KEYS, "keys", "", 'X'},
    {SM_MAP_VALUES, "values", "", 'W'},
    {SM_NONE, NULL, NULL, 0},
};

static const method_spec chan_methods[] = {
    {SM_CHAN_SEND, "send", "v:T", 'N'},
    {SM_CHAN_RECV, "recv", "", 'O'},
    {SM_CHAN_CLOSE, "close", "", 'N'},
    {SM_CHAN_LEN, "len", "", 'I'},
    {SM_NONE, NULL, NULL, 0},
};

static const method_spec task_methods[] = {
    {SM_TASK_JOIN, "join", "", 'T'},
    {SM_TASK_CANCEL, "cancel", "", 'N'},
    {SM_NONE, NULL, NULL, 0},
};

static const method_spec *methods_for(const sema_type *t) {
    switch (t->kind) {
    case TY_STRING: return string_methods;
    case TY_BYTES: return bytes_methods;
    case TY_LIST: return list_methods;
    case TY_MAP: return map_methods;
    case TY_CHAN: return chan_methods;
    case TY_TASK: return task_methods;
    default: return NULL;
    }
}

static sema_type *code_type(sema_ctx *c, const sema_type *recv, char code) {
    sema_type *elem = recv->elem;
    switch (code) {
    case 'I': return c->t_int;
    case 'B': return c->t_bool;
    case 'S': return c->t_string;
    case 'Y': return c->t_bytes;
    case 'N': return c->t_none;
    case 'T': return elem;
    case 'O': return ty_optional(c, elem);
    case 'L': return ty_list(c, elem);
    case 'A': return ty_list(c, c->t_string);
    case 'K': return recv->key;
    case 'V': return elem;
    case 'P': return ty_optional(c, elem);
    case 'X': return ty_list(c, recv->key);
    case 'W': return ty_list(c, elem);
    default: return c->t_error;
    }
}

sema_sig *sema_builtin_method(sema_ctx *c, sema_type *recv, const char *name, sema_method *id) {
    const method_spec *m = methods_for(recv);
    if (!m || !name)
        return NULL;
    for (; m->name; m++) {
        if (strcmp(m->name, name) != 0)
            continue;
        if (id)
            *id = m->id;
        sema_sig *sig = base_alloc(c->arena, sizeof *sig);
        size_t wl = strlen(name) + 8;
        char *what = base_alloc(c->arena, wl);
        snprintf(what, wl, "%s()", name);
        sig->what = what;
        sig->params = base_alloc(c->arena, sizeof(sema_param) * 2);
        const char *p = m->params;
        while (*p && sig->nparams < 2) {
            const char *colon = strchr(p, ':');
            if (!colon)
                break;
            sema_param *pa = &sig->params[sig->nparams++];
            pa->name = base_intern(c->names, p, (size_t)(colon - p));
            pa->type = code_type(c, recv, colon[1]);
            p = colon + 2;
            while (*p == ' ')
                p++;
        }
        sig->result = code_type(c, recv, m->result);
        return sig;
    }
    return NULL;
}

const char *sema_builtin_methods_of(const sema_type *recv) {
    switch (recv->kind) {
    case TY_STRING: return "len, contains, startsWith, endsWith, split, trim, toUpper, toLower, bytes";
    case TY_BYTES: return "len";
    case TY_LIST: return "len, push, pop, get, contains, insert, remove, slice";
    case TY_MAP: return "len, get, has, set, remove, keys, values";
    case TY_CHAN: return "send, recv, close, len";
    case TY_TASK: return "join, cancel";
    default: return NULL;
    }
}
