/* store_log.c: std.store outside a simulation: an append-only log per node
 * directory, replayed into an in-memory index at first use.
 *
 * The file (docs/language.md §13): a 16-byte header ("OXLSTORE", u32
 * version 1, u32 zero), then records, each u32 payload length, u32 CRC-32
 * of the length's 4 bytes and the payload, then the payload: u8 op (1 put,
 * 2 delete), u8 kind ('S' String, 'B' Bytes, 'I' Int; 0 for a delete), u16
 * key length, the key, the value. Integers are little-endian. Replay stops
 * at the first record that is not whole and valid (a write torn by a
 * crash, corrupt bytes) and cuts the file there, so later appends extend a
 * valid log. Every write goes at the end of the valid log with pwrite(2),
 * and a failed one is cut off again. sync is fsync(2) of the log (and,
 * after it was created, of its directories). A failed fsync makes the
 * store refuse every later write and sync: the kernel may have dropped the
 * unsynced pages, so what the file holds is unknown until it is replayed.
 * When dead records outweigh live ones (past STORE_COMPACT_MIN) the log is
 * rewritten to a temporary file, synced and renamed over the old one. */
#include "store_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct store_file {
    char *dir, *path;
    int fd;
    uint64_t end;        /* the end of the valid log: where the next record goes */
    uint64_t live;       /* bytes of the records that hold the live entries */
    size_t unsynced;     /* writes since the last successful sync */
    bool dirs_unsynced;  /* the log (or its directory) was created: sync the directories too */
    bool parent_unsynced;
    char *broken;        /* set by a failed fsync or cut: every later write and sync fails */
    store_entry *slots;
    size_t cap, count;
};

/* ---- small helpers ---- */

static char *xstrdup_n(const char *s, size_t n) {
    char *p = malloc(n + 1);
    if (!p) abort();
    if (n) memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

static char *textf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *textf(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *p = malloc((size_t)(n > 0 ? n : 0) + 1);
    if (!p) abort();
    va_start(ap, fmt);
    vsnprintf(p, (size_t)(n > 0 ? n : 0) + 1, fmt, ap);
    va_end(ap);
    return p;
}

static uint32_t get_u32(const unsigned char *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put_u32(unsigned char *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i));
}

uint32_t store_crc32(uint32_t crc, const void *data, size_t len) {
    static uint32_t table[256];
    static bool ready;
    if (!ready) {
        for (uint32_t i = 0; i < 256; i++) {
            uint32_t c = i;
            for (int k = 0; k < 8; k++) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
            table[i] = c;
        }
        ready = true;
    }
    const unsigned char *p = data;
    crc = ~crc;
    for (size_t i = 0; i < len; i++) crc = table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
    return ~crc;
}

/* ---- records ---- */

size_t store_record_encode(unsigned char *out, uint8_t op, uint8_t kind, const char *key, size_t klen,
                           const void *val, size_t vlen) {
    size_t n = STORE_PAYLOAD_HEAD + klen + vlen;
    unsigned char *p = out + STORE_RECORD_HEAD;
    p[0] = op;
    p[1] = kind;
    p[2] = (unsigned char)klen;
    p[3] = (unsigned char)(klen >> 8);
    memcpy(p + STORE_PAYLOAD_HEAD, key, klen);
    if (vlen) memcpy(p + STORE_PAYLOAD_HEAD + klen, val, vlen);
    put_u32(out, (uint32_t)n);
    put_u32(out + 4, store_crc32(store_crc32(0, out, 4), p, n));
    return STORE_RECORD_HEAD + n;
}

size_t store_record_parse(const unsigned char *buf, size_t avail, store_record *out) {
    if (avail < STORE_RECORD_HEAD) return 0;
    uint32_t n = get_u32(buf), crc = get_u32(buf + 4);
    if (n < STORE_PAYLOAD_HEAD || n > STORE_MAX_PAYLOAD || avail - STORE_RECORD_HEAD < n) return 0;
    const unsigned char *p = buf + STORE_RECORD_HEAD;
    if (store_crc32(store_crc32(0, buf, 4), p, n) != crc) return 0;
    size_t klen = (size_t)p[2] | (size_t)p[3] << 8;
    if (klen == 0 || klen > OXL_STORE_MAX_KEY || klen > n - STORE_PAYLOAD_HEAD) return 0;
    const char *key = (const char *)p + STORE_PAYLOAD_HEAD;
    if (memchr(key, '\0', klen) || !oxl_utf8_valid(key, (int64_t)klen, NULL)) return 0;
    size_t vlen = n - STORE_PAYLOAD_HEAD - klen;
    const unsigned char *val = p + STORE_PAYLOAD_HEAD + klen;
    uint8_t op = p[0], kind = p[1];
    if (op == OXL_STORE_LOG_DELETE) {
        if (kind != 0 || vlen != 0) return 0;
    } else if (op == OXL_STORE_LOG_PUT) {
        if (vlen > OXL_STORE_MAX_VALUE) return 0;
        if (kind == OXL_STORE_INT) {
            if (vlen != 8) return 0;
        } else if (kind == OXL_STORE_STRING) {
            if (!oxl_utf8_valid(val, (int64_t)vlen, NULL)) return 0;
        } else if (kind != OXL_STORE_BYTES) {
            return 0;
        }
    } else {
        return 0;
    }
    *out = (store_record){op, kind, key, klen, val, vlen};
    return STORE_RECORD_HEAD + n;
}

static size_t record_size(size_t klen, size_t vlen) { return STORE_RECORD_HEAD + STORE_PAYLOAD_HEAD + klen + vlen; }

/* ---- the index: open addressing, linear probing, backward-shift delete;
 * hashed by content with a fixed function, so nothing depends on an
 * address ---- */

static uint64_t key_hash(const char *key, size_t klen) {
    uint64_t h = 0xcbf29ce484222325u; /* FNV-1a */
    for (size_t i = 0; i < klen; i++) h = (h ^ (unsigned char)key[i]) * 0x100000001b3u;
    return h;
}

static size_t find_slot(const store_file *f, const char *key, size_t klen, uint64_t h) {
    size_t mask = f->cap - 1, i = (size_t)h & mask;
    while (f->slots[i].key &&
           !(f->slots[i].hash == h && f->slots[i].klen == klen && memcmp(f->slots[i].key, key, klen) == 0))
        i = (i + 1) & mask;
    return i;
}

static void grow(store_file *f) {
    size_t ncap = f->cap ? f->cap * 2 : 64;
    store_entry *old = f->slots;
    size_t ocap = f->cap;
    f->slots = calloc(ncap, sizeof *f->slots);
    if (!f->slots) abort();
    f->cap = ncap;
    for (size_t i = 0; i < ocap; i++)
        if (old[i].key) f->slots[find_slot(f, old[i].key, old[i].klen, old[i].hash)] = old[i];
    free(old);
}

static void entry_free(store_entry *e) {
    free(e->key);
    free(e->val);
    memset(e, 0, sizeof *e);
}

static void index_remove_at(store_file *f, size_t i) {
    size_t mask = f->cap - 1;
    f->live -= record_size(f->slots[i].klen, f->slots[i].vlen);
    entry_free(&f->slots[i]);
    f->count--;
    /* shift back the entries of the probe run that follows */
    for (size_t j = (i + 1) & mask; f->slots[j].key; j = (j + 1) & mask) {
        size_t home = (size_t)f->slots[j].hash & mask;
        bool movable = i <= j ? (home <= i || home > j) : (home <= i && home > j);
        if (movable) {
            f->slots[i] = f->slots[j];
            memset(&f->slots[j], 0, sizeof f->slots[j]);
            i = j;
        }
    }
}

/* Applies one record to the index (a put of a new key past the key limit
 * is refused: the writer never makes one, so the log is corrupt there). */
static bool index_apply(store_file *f, uint8_t kind, const char *key, size_t klen, const void *val, size_t vlen) {
    uint64_t h = key_hash(key, klen);
    if (!f->cap) grow(f);
    size_t i = find_slot(f, key, klen, h);
    if (kind == 0) {
        if (f->slots[i].key) index_remove_at(f, i);
        return true;
    }
    unsigned char *copy = malloc(vlen ? vlen : 1);
    if (!copy) abort();
    if (vlen) memcpy(copy, val, vlen);
    if (f->slots[i].key) {
        store_entry *e = &f->slots[i];
        f->live -= record_size(e->klen, e->vlen);
        free(e->val);
        e->val = copy;
        e->vlen = vlen;
        e->kind = kind;
        f->live += record_size(klen, vlen);
        return true;
    }
    if (f->count >= OXL_STORE_MAX_KEYS) {
        free(copy);
        return false;
    }
    if ((f->count + 1) * 4 > f->cap * 3) {
        grow(f);
        i = find_slot(f, key, klen, h);
    }
    f->slots[i] = (store_entry){xstrdup_n(key, klen), klen, h, kind, copy, vlen};
    f->count++;
    f->live += record_size(klen, vlen);
    return true;
}

/* ---- file I/O ---- */

static bool write_all(int fd, const void *buf, size_t len, uint64_t at) {
    const unsigned char *p = buf;
    while (len) {
        ssize_t k = pwrite(fd, p, len, (off_t)at);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) {
            if (k == 0) errno = EIO;
            return false;
        }
        p += k;
        len -= (size_t)k;
        at += (uint64_t)k;
    }
    return true;
}

static bool fsync_path(const char *path) {
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return false;
    int rc;
    do rc = fsync(fd);
    while (rc < 0 && errno == EINTR);
    int saved = errno;
    close(fd);
    errno = saved;
    return rc == 0;
}

static void header(unsigned char out[OXL_STORE_LOG_HEADER]) {
    memcpy(out, OXL_STORE_LOG_MAGIC, 8);
    put_u32(out + 8, OXL_STORE_LOG_VERSION);
    put_u32(out + 12, 0);
}

/* The whole file into a malloc'd buffer. */
static unsigned char *read_file(int fd, size_t *len) {
    struct stat st;
    if (fstat(fd, &st) != 0) return NULL;
    size_t cap = (size_t)st.st_size, n = 0;
    unsigned char *buf = malloc(cap ? cap : 1);
    if (!buf) abort();
    while (n < cap) {
        ssize_t k = pread(fd, buf + n, cap - n, (off_t)n);
        if (k < 0 && errno == EINTR) continue;
        if (k < 0) {
            free(buf);
            return NULL;
        }
        if (k == 0) break; /* shrank meanwhile: parse what is there */
        n += (size_t)k;
    }
    *len = n;
    return buf;
}

/* Cuts the file back to f->end; a failure breaks the store (what lies past
 * the end could be replayed after later records). */
static void cut(store_file *f) {
    int rc;
    do rc = ftruncate(f->fd, (off_t)f->end);
    while (rc < 0 && errno == EINTR);
    if (rc != 0 && !f->broken) f->broken = textf("cutting %s back after a failed write failed: %s", f->path, strerror(errno));
}

/* Replays buf into the index; returns the end of the valid log. */
static uint64_t replay(store_file *f, const unsigned char *buf, size_t len) {
    size_t at = OXL_STORE_LOG_HEADER;
    store_record r;
    for (size_t k; (k = store_record_parse(buf + at, len - at, &r)) != 0; at += k)
        if (!index_apply(f, r.op == OXL_STORE_LOG_PUT ? r.kind : 0, r.key, r.klen, r.val, r.vlen)) break;
    return at;
}

static bool compact(store_file *f);

store_file *store_file_open(const char *dir, char **why) {
    store_file *f = calloc(1, sizeof *f);
    if (!f) abort();
    f->fd = -1;
    f->dir = xstrdup_n(dir, strlen(dir));
    f->path = textf("%s/%s", dir, OXL_STORE_LOG_FILE);
    struct stat st;
    if (stat(dir, &st) != 0) {
        if (errno != ENOENT || mkdir(dir, 0777) != 0) {
            *why = textf("cannot make the node directory '%s': %s", dir, strerror(errno));
            goto fail;
        }
        f->parent_unsynced = true;
    } else if (!S_ISDIR(st.st_mode)) {
        *why = textf("'%s' is not a directory", dir);
        goto fail;
    }
    f->fd = open(f->path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (f->fd < 0) {
        *why = textf("cannot open '%s': %s", f->path, strerror(errno));
        goto fail;
    }
    size_t len = 0;
    unsigned char *buf = read_file(f->fd, &len);
    if (!buf) {
        *why = textf("cannot read '%s': %s", f->path, strerror(errno));
        goto fail;
    }
    unsigned char head[OXL_STORE_LOG_HEADER];
    header(head);
    if (len < OXL_STORE_LOG_HEADER) {
        /* new, or a header torn by a crash before the first sync */
        if (memcmp(buf, head, len) != 0) {
            free(buf);
            *why = textf("'%s' is not a std.store log (it does not start with %s)", f->path, OXL_STORE_LOG_MAGIC);
            goto fail;
        }
        free(buf);
        if (!write_all(f->fd, head, sizeof head, 0)) {
            *why = textf("cannot write '%s': %s", f->path, strerror(errno));
            goto fail;
        }
        f->end = OXL_STORE_LOG_HEADER;
        cut(f);
        f->dirs_unsynced = true; /* the next sync makes the header and the file's name durable */
    } else {
        if (memcmp(buf, OXL_STORE_LOG_MAGIC, 8) != 0 || get_u32(buf + 12) != 0) {
            *why = textf("'%s' is not a std.store log (%s)", f->path,
                         memcmp(buf, OXL_STORE_LOG_MAGIC, 8) != 0 ? "it does not start with " OXL_STORE_LOG_MAGIC
                                                                  : "its header's last 4 bytes are not zero");
            free(buf);
            goto fail;
        }
        if (get_u32(buf + 8) != OXL_STORE_LOG_VERSION) {
            *why = textf("'%s' is a std.store log of version %u; this runtime reads version %u", f->path,
                         get_u32(buf + 8), OXL_STORE_LOG_VERSION);
            free(buf);
            goto fail;
        }
        f->end = replay(f, buf, len);
        free(buf);
        if (f->end < len) cut(f); /* a torn or corrupt tail */
    }
    if (f->broken) {
        *why = f->broken;
        f->broken = NULL;
        goto fail;
    }
    if (f->end - OXL_STORE_LOG_HEADER - f->live > STORE_COMPACT_MIN && f->end - OXL_STORE_LOG_HEADER > 2 * f->live)
        compact(f);
    return f;
fail:
    store_file_close(f);
    return NULL;
}

void store_file_close(store_file *f) {
    if (!f) return;
    if (f->fd >= 0) close(f->fd);
    for (size_t i = 0; i < f->cap; i++)
        if (f->slots[i].key) entry_free(&f->slots[i]);
    free(f->slots);
    free(f->broken);
    free(f->dir);
    free(f->path);
    free(f);
}

const char *store_file_path(const store_file *f) { return f->path; }
size_t store_file_count(const store_file *f) { return f->count; }
size_t store_file_unsynced(const store_file *f) { return f->unsynced; }
size_t store_file_capacity(const store_file *f) { return f->cap; }
const store_entry *store_file_slot(const store_file *f, size_t i) { return &f->slots[i]; }

const store_entry *store_file_get(const store_file *f, const char *key, size_t klen) {
    if (!f->cap) return NULL;
    size_t i = find_slot(f, key, klen, key_hash(key, klen));
    return f->slots[i].key ? &f->slots[i] : NULL;
}

bool store_file_write(store_file *f, const char *key, size_t klen, uint8_t kind, const void *val, size_t vlen,
                      char **why) {
    if (f->broken) {
        *why = textf("%s (the store refuses writes until the program restarts)", f->broken);
        return false;
    }
    size_t size = record_size(klen, vlen);
    unsigned char *rec = malloc(size);
    if (!rec) abort();
    store_record_encode(rec, kind ? OXL_STORE_LOG_PUT : OXL_STORE_LOG_DELETE, kind, key, klen, val, vlen);
    bool ok = write_all(f->fd, rec, size, f->end);
    free(rec);
    if (!ok) {
        *why = textf("write to %s failed: %s", f->path, strerror(errno));
        cut(f);
        return false;
    }
    f->end += size;
    f->unsynced++;
    if (!index_apply(f, kind, key, klen, val, vlen)) abort(); /* the caller checked the key limit */
    return true;
}

bool store_file_sync(store_file *f, char **why) {
    if (f->broken) {
        *why = textf("%s (the store refuses syncs until the program restarts)", f->broken);
        return false;
    }
    if (f->unsynced == 0 && !f->dirs_unsynced) return true;
    int rc;
    do rc = fsync(f->fd);
    while (rc < 0 && errno == EINTR);
    if (rc != 0) {
        f->broken = textf("fsync of %s failed: %s", f->path, strerror(errno));
        *why = textf("%s", f->broken);
        return false;
    }
    if (f->dirs_unsynced) {
        if (!fsync_path(f->dir)) {
            *why = textf("fsync of the directory %s failed: %s", f->dir, strerror(errno));
            return false;
        }
        if (f->parent_unsynced) {
            char *parent = textf("%s/..", f->dir);
            bool pok = fsync_path(parent);
            int saved = errno;
            free(parent);
            if (!pok) {
                *why = textf("fsync of the parent of %s failed: %s", f->dir, strerror(saved));
                return false;
            }
            f->parent_unsynced = false;
        }
        f->dirs_unsynced = false;
    }
    f->unsynced = 0;
    if (f->end - OXL_STORE_LOG_HEADER - f->live > STORE_COMPACT_MIN && f->end - OXL_STORE_LOG_HEADER > 2 * f->live)
        compact(f);
    return true;
}

/* Rewrites the live entries (all durable: this runs after a replay or a
 * sync) into <log>.tmp, syncs it and renames it over the log. A failure on
 * the way leaves the old log, which is still valid, in place. */
static bool compact(store_file *f) {
    char *tmp = textf("%s.tmp", f->path);
    int fd = open(tmp, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    bool ok = fd >= 0;
    unsigned char head[OXL_STORE_LOG_HEADER];
    header(head);
    uint64_t at = 0;
    if (ok) ok = write_all(fd, head, sizeof head, at);
    at += sizeof head;
    for (size_t i = 0; ok && i < f->cap; i++) {
        const store_entry *e = &f->slots[i];
        if (!e->key) continue;
        size_t size = record_size(e->klen, e->vlen);
        unsigned char *rec = malloc(size);
        if (!rec) abort();
        store_record_encode(rec, OXL_STORE_LOG_PUT, e->kind, e->key, e->klen, e->val, e->vlen);
        ok = write_all(fd, rec, size, at);
        free(rec);
        at += size;
    }
    if (ok) ok = fsync(fd) == 0;
    if (ok) ok = rename(tmp, f->path) == 0;
    if (ok) fsync_path(f->dir); /* the rename is done either way; a crash before this keeps either log */
    if (!ok) {
        if (fd >= 0) close(fd);
        unlink(tmp);
        free(tmp);
        return false;
    }
    close(f->fd);
    f->fd = fd;
    f->end = at;
    free(tmp);
    return true;
}
