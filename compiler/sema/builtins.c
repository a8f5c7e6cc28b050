/* builtins.c: the methods of the core types, one table line each. A
 * signature is spelled with one letter per type, relative to the
 * receiver: I Int, B Bool, S String, Y Bytes, N None (no result),
 * T the element (list, Chan, Task), O element?, L [element],
 * A [String], K key, V value, P value?, X [key], W [value].
 * docs/language.md (Semantics, built-in methods) lists the same methods. */
#include "sema/sema_internal.h"

#include <string.h>

typedef struct method_spec {
    const char *name;
    const char *params; /* "name:C name:C" */
    char result;
} method_spec;

static const method_spec string_methods[] = {
    {"len", "", 'I'},
    {"contains", "s:S", 'B'},
    {"startsWith", "prefix:S", 'B'},
    {"endsWith", "suffix:S", 'B'},
    {"split", "sep:S", 'A'},
    {"trim", "", 'S'},
    {"toUpper", "", 'S'},
    {"toLower", "", 'S'},
    {"bytes", "", 'Y'},
    {NULL, NULL, 0},
};

static const method_spec bytes_methods[] = {
    {"len", "", 'I'},
    {NULL, NULL, 0},
};

static const method_spec list_methods[] = {
    {"len", "", 'I'},
    {"push", "x:T", 'N'},
    {"pop", "", 'O'},
    {"get", "i:I", 'O'},
    {"contains", "x:T", 'B'},
    {"insert", "i:I x:T", 'N'},
    {"remove", "i:I", 'T'},
    {"slice", "from:I to:I", 'L'},
    {NULL, NULL, 0},
};

static const method_spec map_methods[] = {
    {"len", "", 'I'},
    {"get", "k:K", 'P'},
    {"has", "k:K", 'B'},
    {"set", "k:K v:V", 'N'},
    {"remove", "k:K", 'P'},
    {"keys", "", 'X'},
    {"values", "", 'W'},
    {NULL, NULL, 0},
};

static const method_spec chan_methods[] = {
    {"send", "v:T", 'N'},
    {"recv", "", 'O'},
    {"close", "", 'N'},
    {"len", "", 'I'},
    {NULL, NULL, 0},
};

static const method_spec task_methods[] = {
    {"join", "", 'T'},
    {"cancel", "", 'N'},
    {NULL, NULL, 0},
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

sema_sig *sema_builtin_method(sema_ctx *c, sema_type *recv, const char *name) {
    const method_spec *m = methods_for(recv);
    if (!m || !name)
        return NULL;
    for (; m->name; m++) {
        if (strcmp(m->name, name) != 0)
            continue;
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
