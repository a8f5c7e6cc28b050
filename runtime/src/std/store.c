/* store.c: the C side of std.store (std/store/store.oxl): the extern fns,
 * the limits they share, and the choice of backend at every call: the
 * current node's simulated disk inside a simulation, its file log
 * (store_log.c) otherwise. On the simulated disk a value is its kind tag
 * (one byte, OXL_STORE_STRING / _BYTES / _INT) followed by its bytes; an
 * Int is 8 bytes, little-endian. A failure comes back to OxL as [kind,
 * message]; a panic names the OxL caller's line. */
#include "oxl_rt.h"
#include "oxl_sched.h"
#include "oxl_std_store.h"
#include "store_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define STORE_AT(at) (at).file, (at).line

/* ---- results for the OxL side ---- */

static oxl_list no_failure(void) { return oxl_list_new(0); }

static oxl_list failure(const char *kind, oxl_string message) {
    oxl_list l = oxl_list_new(2);
    oxl_list_push(l, oxl_word_from_str(oxl_str_from_cstr(kind)), "(std.store)", 0);
    oxl_list_push(l, oxl_word_from_str(message), "(std.store)", 0);
    return l;
}

static oxl_list one(oxl_word w) {
    oxl_list l = oxl_list_new(1);
    oxl_list_push(l, w, "(std.store)", 0);
    return l;
}

static void sb_c(oxl_sb *b, const char *s) { oxl_sb_lit(b, s, (int64_t)strlen(s)); }

/* `put "k": ` and the like: the operation and, when it is printable in a
 * line, the key. */
static void sb_op(oxl_sb *b, const char *op, oxl_string key) {
    sb_c(b, op);
    if (key && oxl_str_len(key) > 0 && oxl_str_len(key) <= OXL_STORE_MAX_KEY) {
        sb_c(b, " ");
        oxl_sb_quoted(b, key);
    }
    sb_c(b, ": ");
}

static oxl_list failed(const char *kind, const char *op, oxl_string key, const char *what) {
    oxl_sb b;
    oxl_sb_init(&b);
    sb_op(&b, op, key);
    sb_c(&b, what);
    return failure(kind, oxl_sb_finish(&b));
}

static const char *kind_name(int kind) {
    switch (kind) {
    case OXL_STORE_STRING: return "a String";
    case OXL_STORE_BYTES: return "Bytes";
    case OXL_STORE_INT: return "an Int";
    default: return "a value std.store did not write";
    }
}

static const char *reader_of(int kind) {
    switch (kind) {
    case OXL_STORE_STRING: return "get";
    case OXL_STORE_BYTES: return "getBytes";
    default: return "getInt";
    }
}

/* ---- the backend of this call ---- */

typedef struct backend {
    oxl_disk *disk;   /* in a simulation */
    store_file *file; /* otherwise */
} backend;

static struct {
    store_file *files[OXL_STORE_MAX_OPEN];
    size_t n;
} open_files;

void oxl_std_store_close_all(void) {
    for (size_t i = 0; i < open_files.n; i++) store_file_close(open_files.files[i]);
    open_files.n = 0;
}

static bool in_simulation(void) {
    return oxl_sched_active() && oxl_sched_world() && !oxl_sched_is_real_time();
}

/* The node's directory: its data_dir, else $OXL_DATA_DIR/<node>. */
static const char *node_dir(const char *fn, oxl_call_site at) {
    oxl_node *node = oxl_sched_active() ? oxl_node_current() : NULL;
    const char *own = oxl_node_data_dir(node), *name = oxl_node_name(node);
    if (own && *own) return own;
    const char *root = getenv("OXL_DATA_DIR");
    if (!root || !*root)
        oxl_panic_at(STORE_AT(at),
                     "std.store.%s: OXL_DATA_DIR is %s: outside a simulation the store of node '%s' is a file in "
                     "$OXL_DATA_DIR/%s/ (set it to a directory)",
                     fn, root ? "empty" : "not set", name, name);
    struct stat st;
    /* made on first use: `oxl test` names a fresh directory for each
     * process and makes none, so a process that stores nothing costs no
     * file-system object (its parent must exist) */
    if (stat(root, &st) != 0 && (errno != ENOENT || (mkdir(root, 0700) != 0 && errno != EEXIST) || stat(root, &st) != 0))
        oxl_panic_at(STORE_AT(at), "std.store.%s: OXL_DATA_DIR '%s' is not usable: %s", fn, root, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        oxl_panic_at(STORE_AT(at), "std.store.%s: OXL_DATA_DIR '%s' is not usable: not a directory", fn, root);
    oxl_sb b;
    oxl_sb_init(&b);
    sb_c(&b, root);
    sb_c(&b, "/");
    sb_c(&b, name);
    return oxl_str_cstr(oxl_sb_finish(&b));
}

static store_file *file_store(const char *fn, oxl_call_site at) {
    const char *dir = node_dir(fn, at);
    char *path = malloc(strlen(dir) + sizeof "/" OXL_STORE_LOG_FILE);
    if (!path) abort();
    strcpy(path, dir);
    strcat(path, "/" OXL_STORE_LOG_FILE);
    for (size_t i = 0; i < open_files.n; i++)
        if (strcmp(store_file_path(open_files.files[i]), path) == 0) {
            free(path);
            return open_files.files[i];
        }
    free(path);
    if (open_files.n == OXL_STORE_MAX_OPEN)
        oxl_panic_at(STORE_AT(at), "std.store.%s: %d node stores are open, the limit", fn, OXL_STORE_MAX_OPEN);
    char *why = NULL;
    store_file *f = store_file_open(dir, &why);
    if (!f) {
        oxl_sb b;
        oxl_sb_init(&b);
        sb_c(&b, why);
        free(why);
        oxl_panic_at(STORE_AT(at), "std.store.%s: %s", fn, oxl_str_cstr(oxl_sb_finish(&b)));
    }
    open_files.files[open_files.n++] = f;
    return f;
}

/* Reads the call site first (the task cannot switch before it is used). */
static backend current(const char *fn, oxl_call_site at) {
    backend be = {NULL, NULL};
    if (!in_simulation()) {
        be.file = file_store(fn, at);
        return be;
    }
    oxl_node *node = oxl_node_current();
    if (!node)
        oxl_panic_at(STORE_AT(at),
                     "std.store.%s: this task runs on the process node, which has no simulated disk: call it from a "
                     "task of a simulated node",
                     fn);
    oxl_world *w = oxl_sched_world();
    be.disk = oxl_ctx_disk(oxl_world_ctx(w, oxl_node_world_id(node)));
    return be;
}

/* ---- keys and limits ---- */

/* A key std.store can hold: 1..=255 bytes, no NUL (the simulated disk's
 * keys are C strings). */
static const char *key_problem(oxl_string key) {
    if (oxl_str_len(key) == 0) return "the key is empty";
    if (oxl_str_len(key) > OXL_STORE_MAX_KEY) return "the key is over 255 bytes";
    if (memchr(oxl_str_cstr(key), '\0', (size_t)oxl_str_len(key))) return "the key contains a NUL byte";
    return NULL;
}

static bool has_key(const backend *be, oxl_string key) {
    if (be->file) return store_file_get(be->file, oxl_str_cstr(key), (size_t)oxl_str_len(key)) != NULL;
    return oxl_disk_get(be->disk, oxl_str_cstr(key), NULL, NULL) == OXL_DISK_OK;
}

static size_t key_count(const backend *be) {
    return be->file ? store_file_count(be->file) : oxl_disk_key_count(be->disk);
}

static size_t unsynced(const backend *be) {
    return be->file ? store_file_unsynced(be->file) : oxl_disk_unsynced(be->disk);
}

/* The limit a write would pass, as a StoreError message, or NULL. */
static oxl_list limit_failure(const backend *be, const char *op, oxl_string key, size_t vlen, bool adds) {
    char what[160];
    if (vlen > OXL_STORE_MAX_VALUE) {
        snprintf(what, sizeof what, "the value is %zu bytes, over the limit of %u", vlen, OXL_STORE_MAX_VALUE);
        return failed("limit", op, key, what);
    }
    if (adds && key_count(be) >= OXL_STORE_MAX_KEYS && !has_key(be, key)) {
        snprintf(what, sizeof what, "the store holds %u keys, the limit", OXL_STORE_MAX_KEYS);
        return failed("limit", op, key, what);
    }
    if (unsynced(be) >= OXL_STORE_MAX_UNSYNCED) {
        snprintf(what, sizeof what, "%u writes are not synced, the limit (call sync)", OXL_STORE_MAX_UNSYNCED);
        return failed("limit", op, key, what);
    }
    return NULL;
}

static oxl_list disk_failure(const char *op, oxl_string key, int rc, size_t pending) {
    char what[160];
    if (rc == OXL_DISK_EIO && pending)
        snprintf(what, sizeof what, "%s (disk.fail); %zu writes stay unsynced", oxl_disk_strerror(rc), pending);
    else if (rc == OXL_DISK_EIO)
        snprintf(what, sizeof what, "%s (disk.fail)", oxl_disk_strerror(rc));
    else
        snprintf(what, sizeof what, "%s", oxl_disk_strerror(rc));
    return failed(rc == OXL_DISK_ELIMIT ? "limit" : "io", op, key, what);
}

/* ---- writes ---- */

static oxl_list put(const char *op, oxl_call_site at, oxl_string key, uint8_t kind, const void *val, size_t vlen) {
    backend be = current(op, at);
    const char *bad = key_problem(key);
    if (bad) return failed("limit", op, key, bad);
    oxl_list lim = limit_failure(&be, op, key, vlen, true);
    if (lim) return lim;
    if (be.file) {
        char *why = NULL;
        if (store_file_write(be.file, oxl_str_cstr(key), (size_t)oxl_str_len(key), kind, val, vlen, &why))
            return no_failure();
        oxl_list l = failed("io", op, key, why);
        free(why);
        return l;
    }
    unsigned char *buf = malloc(vlen + 1);
    if (!buf) abort();
    buf[0] = kind;
    if (vlen) memcpy(buf + 1, val, vlen);
    int rc = oxl_disk_put(be.disk, oxl_str_cstr(key), buf, vlen + 1);
    free(buf);
    return rc == OXL_DISK_OK ? no_failure() : disk_failure(op, key, rc, 0);
}

oxl_list oxl_std_store_native_putString(oxl_string key, oxl_string value) {
    oxl_call_site at = oxl_extern_caller("(std.store)");
    return put("put", at, key, OXL_STORE_STRING, oxl_str_cstr(value), (size_t)oxl_str_len(value));
}

oxl_list oxl_std_store_native_putBytes(oxl_string key, oxl_bytes value) {
    oxl_call_site at = oxl_extern_caller("(std.store)");
    return put("putBytes", at, key, OXL_STORE_BYTES, oxl_str_cstr(value), (size_t)oxl_bytes_len(value));
}

static void int_bytes(int64_t v, unsigned char out[8]) {
    for (int i = 0; i < 8; i++) out[i] = (unsigned char)((uint64_t)v >> (8 * i));
}

static int64_t bytes_int(const unsigned char *p) {
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
    return (int64_t)v;
}

oxl_list oxl_std_store_native_putInt(oxl_string key, int64_t value) {
    oxl_call_site at = oxl_extern_caller("(std.store)");
    unsigned char b[8];
    int_bytes(value, b);
    return put("putInt", at, key, OXL_STORE_INT, b, sizeof b);
}

oxl_list oxl_std_store_native_delete(oxl_string key) {
    oxl_call_site at = oxl_extern_caller("(std.store)");
    backend be = current("delete", at);
    if (key_problem(key) || !has_key(&be, key)) return no_failure(); /* nothing to delete */
    oxl_list lim = limit_failure(&be, "delete", key, 0, false);
    if (lim) return lim;
    if (be.file) {
        char *why = NULL;
        if (store_file_write(be.file, oxl_str_cstr(key), (size_t)oxl_str_len(key), 0, NULL, 0, &why))
            return no_failure();
        oxl_list l = failed("io", "delete", key, why);
        free(why);
        return l;
    }
    int rc = oxl_disk_del(be.disk, oxl_str_cstr(key));
    return rc == OXL_DISK_OK ? no_failure() : disk_failure("delete", key, rc, 0);
}

oxl_list oxl_std_store_native_sync(void) {
    oxl_call_site at = oxl_extern_caller("(std.store)");
    backend be = current("sync", at);
    if (be.file) {
        char *why = NULL;
        if (store_file_sync(be.file, &why)) return no_failure();
        oxl_list l = failed("io", "sync", NULL, why);
        free(why);
        return l;
    }
    int rc = oxl_disk_sync(be.disk);
    return rc == OXL_DISK_OK ? no_failure() : disk_failure("sync", NULL, rc, oxl_disk_unsynced(be.disk));
}

/* ---- reads ---- */

/* The stored value of key as kind `want`: false when absent; another kind
 * panics, naming the key and both kinds. */
static bool lookup(const char *fn, oxl_call_site at, oxl_string key, uint8_t want, const unsigned char **val,
                   size_t *vlen) {
    backend be = current(fn, at);
    if (key_problem(key)) return false;
    uint8_t kind;
    if (be.file) {
        const store_entry *e = store_file_get(be.file, oxl_str_cstr(key), (size_t)oxl_str_len(key));
        if (!e) return false;
        kind = e->kind;
        *val = e->val;
        *vlen = e->vlen;
    } else {
        const void *v;
        size_t n;
        if (oxl_disk_get(be.disk, oxl_str_cstr(key), &v, &n) != OXL_DISK_OK) return false;
        kind = n ? *(const unsigned char *)v : 0;
        if (kind == OXL_STORE_INT && n != 9) kind = 0;
        *val = (const unsigned char *)v + (n ? 1 : 0);
        *vlen = n ? n - 1 : 0;
    }
    if (kind == want) return true;
    oxl_sb b;
    oxl_sb_init(&b);
    oxl_sb_quoted(&b, key);
    const char *shown = oxl_str_cstr(oxl_sb_finish(&b));
    if (kind != OXL_STORE_STRING && kind != OXL_STORE_BYTES && kind != OXL_STORE_INT)
        oxl_panic_at(STORE_AT(at), "std.store.%s: key %s holds a value std.store did not write (kind byte %u)", fn,
                     shown, kind);
    oxl_panic_at(STORE_AT(at), "std.store.%s: key %s holds %s, not %s (read it with %s)", fn, shown,
                 kind_name(kind), kind_name(want), reader_of(kind));
}

oxl_list oxl_std_store_native_getString(oxl_string key) {
    oxl_call_site at = oxl_extern_caller("(std.store)");
    const unsigned char *v;
    size_t n;
    if (!lookup("get", at, key, OXL_STORE_STRING, &v, &n)) return oxl_list_new(0);
    return one(oxl_word_from_str(oxl_str_from_bytes(v, (int64_t)n, STORE_AT(at))));
}

oxl_list oxl_std_store_native_getBytes(oxl_string key) {
    oxl_call_site at = oxl_extern_caller("(std.store)");
    const unsigned char *v;
    size_t n;
    if (!lookup("getBytes", at, key, OXL_STORE_BYTES, &v, &n)) return oxl_list_new(0);
    /* Bytes share the string layout; the trusted constructor copies any bytes */
    return one(oxl_word_from_str(oxl_str_from_lit((const char *)v, (int64_t)n)));
}

oxl_list oxl_std_store_native_getInt(oxl_string key) {
    oxl_call_site at = oxl_extern_caller("(std.store)");
    const unsigned char *v;
    size_t n;
    if (!lookup("getInt", at, key, OXL_STORE_INT, &v, &n)) return oxl_list_new(0);
    return one((oxl_word)bytes_int(v));
}

static int cmp_keys(const void *a, const void *b) {
    return oxl_str_cmp(*(const oxl_string *)a, *(const oxl_string *)b);
}

oxl_list oxl_std_store_keys(void) {
    oxl_call_site at = oxl_extern_caller("(std.store)");
    backend be = current("keys", at);
    size_t n = key_count(&be);
    oxl_list l = oxl_list_new((int64_t)n);
    if (be.disk) { /* already in bytewise order */
        for (size_t i = 0; i < n; i++) {
            const char *k = oxl_disk_key_at(be.disk, i);
            oxl_list_push(l, oxl_word_from_str(oxl_str_from_bytes(k, (int64_t)strlen(k), STORE_AT(at))), STORE_AT(at));
        }
        return l;
    }
    oxl_string *keys = oxl_alloc((n ? n : 1) * sizeof *keys); /* collected and scanned: it holds strings */
    size_t k = 0;
    for (size_t i = 0; i < store_file_capacity(be.file); i++) {
        const store_entry *e = store_file_slot(be.file, i);
        if (e->key) keys[k++] = oxl_str_from_lit(e->key, (int64_t)e->klen); /* checked when replayed or put */
    }
    qsort(keys, k, sizeof *keys, cmp_keys);
    for (size_t i = 0; i < k; i++) oxl_list_push(l, oxl_word_from_str(keys[i]), STORE_AT(at));
    return l;
}
