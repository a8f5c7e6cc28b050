/* tr_util.c: the test runner's text buffers and escapes, file helpers,
 * SHA-256 (the binary cache's key) and FNV-1a (the shard hash). */
#define _XOPEN_SOURCE 700 /* realpath */
#include "tr_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- memory and buffers ---- */

void *tr_xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) {
        fputs("oxl: out of memory\n", stderr);
        abort();
    }
    return p;
}

void *tr_xrealloc(void *p, size_t n) {
    void *q = realloc(p, n ? n : 1);
    if (!q) {
        fputs("oxl: out of memory\n", stderr);
        abort();
    }
    return q;
}

char *tr_xstrdup(const char *s) {
    size_t n = strlen(s);
    char *d = tr_xmalloc(n + 1);
    memcpy(d, s, n + 1);
    return d;
}

void tr_buf_add(tr_buf *b, const char *s, size_t n) {
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n + 1) cap *= 2;
        b->s = tr_xrealloc(b->s, cap);
        b->cap = cap;
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

void tr_buf_puts(tr_buf *b, const char *s) { tr_buf_add(b, s, strlen(s)); }

void tr_buf_printf(tr_buf *b, const char *fmt, ...) {
    char small[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n < sizeof small) {
        tr_buf_add(b, small, (size_t)n);
        return;
    }
    char *big = tr_xmalloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    tr_buf_add(b, big, (size_t)n);
    free(big);
}

void tr_buf_free(tr_buf *b) {
    free(b->s);
    b->s = NULL;
    b->len = b->cap = 0;
}

/* ---- escapes ---- */

/* Length of the valid UTF-8 sequence at s (1..4), or 0 when invalid. */
static int utf8_len(const unsigned char *s) {
    unsigned c = s[0];
    if (c < 0x80) return 1;
    int n;
    unsigned min;
    if ((c & 0xe0) == 0xc0) n = 2, min = 0x80;
    else if ((c & 0xf0) == 0xe0) n = 3, min = 0x800;
    else if ((c & 0xf8) == 0xf0) n = 4, min = 0x10000;
    else return 0;
    unsigned cp = c & (0x3f >> (n - 1));
    for (int i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80) return 0;
        cp = cp << 6 | (s[i] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
    return n;
}

void tr_json_str(tr_buf *b, const char *s) {
    tr_buf_add(b, "\"", 1);
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        unsigned c = *p;
        if (c == '"' || c == '\\') {
            char e[2] = {'\\', (char)c};
            tr_buf_add(b, e, 2);
            p++;
        } else if (c == '\n') {
            tr_buf_add(b, "\\n", 2), p++;
        } else if (c == '\t') {
            tr_buf_add(b, "\\t", 2), p++;
        } else if (c == '\r') {
            tr_buf_add(b, "\\r", 2), p++;
        } else if (c < 0x20 || c == 0x7f) {
            tr_buf_printf(b, "\\u%04x", c), p++;
        } else {
            int n = utf8_len(p);
            if (n == 0) {
                tr_buf_puts(b, "\\ufffd");
                p++;
            } else {
                tr_buf_add(b, (const char *)p, (size_t)n);
                p += n;
            }
        }
    }
    tr_buf_add(b, "\"", 1);
}

void tr_xml_text(tr_buf *b, const char *s) {
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        unsigned c = *p;
        if (c == '&') tr_buf_puts(b, "&amp;"), p++;
        else if (c == '<') tr_buf_puts(b, "&lt;"), p++;
        else if (c == '>') tr_buf_puts(b, "&gt;"), p++;
        else if (c == '"') tr_buf_puts(b, "&quot;"), p++;
        else if (c == '\n' || c == '\t' || c == '\r') tr_buf_add(b, (const char *)p, 1), p++;
        else if (c < 0x20 || c == 0x7f) tr_buf_printf(b, "\\x%02x", c), p++; /* not allowed in XML 1.0 */
        else {
            int n = utf8_len(p);
            if (n == 0) {
                tr_buf_puts(b, "\xef\xbf\xbd");
                p++;
            } else {
                tr_buf_add(b, (const char *)p, (size_t)n);
                p += n;
            }
        }
    }
}

/* With a control character, $'...' (bash, zsh, ksh; POSIX 2024 sh): raw
 * in '...', an escape sequence would act on the terminal that shows the
 * line and a newline would split it, so the line could not be pasted. */
static void ansi_c_quote(tr_buf *b, const char *s) {
    tr_buf_puts(b, "$'");
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '\'' || *p == '\\') tr_buf_printf(b, "\\%c", *p);
        else if (*p == '\n') tr_buf_puts(b, "\\n");
        else if (*p == '\t') tr_buf_puts(b, "\\t");
        else if (*p < 0x20 || *p == 0x7f) tr_buf_printf(b, "\\x%02x", *p);
        else tr_buf_add(b, (const char *)p, 1);
    }
    tr_buf_add(b, "'", 1);
}

void tr_shell_quote(tr_buf *b, const char *s) {
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p < 0x20 || *p == 0x7f) {
            ansi_c_quote(b, s);
            return;
        }
    tr_buf_add(b, "'", 1);
    for (const char *p = s; *p; p++) {
        if (*p == '\'') tr_buf_puts(b, "'\\''");
        else tr_buf_add(b, p, 1);
    }
    tr_buf_add(b, "'", 1);
}

void tr_shell_word(tr_buf *b, const char *s) {
    bool safe = *s != '\0';
    for (const char *p = s; *p && safe; p++)
        safe = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
               strchr("/._-+,:=@%", *p);
    if (safe) tr_buf_puts(b, s);
    else tr_shell_quote(b, s);
}

/* As --list writes a name; other control characters (which --list passes
 * through) as \xNN, so a name never moves the terminal's cursor. */
void tr_name_escape(tr_buf *b, const char *s) {
    tr_buf_add(b, "", 0);
    for (; *s; s++) {
        if ((unsigned char)*s < 0x20 && *s != '\t' && *s != '\n') {
            tr_buf_printf(b, "\\x%02x", (unsigned char)*s);
            continue;
        }
        if (*s == '\\') tr_buf_puts(b, "\\\\");
        else if (*s == '\t') tr_buf_puts(b, "\\t");
        else if (*s == '\n') tr_buf_puts(b, "\\n");
        else tr_buf_add(b, s, 1);
    }
}

static int hex_digit(char c) {
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

char *tr_name_unescape(const char *s, size_t n, bool hex, bool *ok) {
    char *d = tr_xmalloc(n + 1), *q = d;
    *ok = true;
    for (size_t i = 0; i < n; i++) {
        if (s[i] != '\\') {
            *q++ = s[i];
            continue;
        }
        char c = i + 1 < n ? s[++i] : '\0';
        if (c == '\\') *q++ = '\\';
        else if (c == 't') *q++ = '\t';
        else if (c == 'n') *q++ = '\n';
        else if (c == 'x' && hex && i + 2 < n && hex_digit(s[i + 1]) >= 0 && hex_digit(s[i + 2]) >= 0 &&
                 (hex_digit(s[i + 1]) | hex_digit(s[i + 2])) != 0) {
            *q++ = (char)(hex_digit(s[i + 1]) << 4 | hex_digit(s[i + 2])); /* never \x00: a name ends at a NUL */
            i += 2;
        } else *ok = false;
    }
    *q = '\0';
    return d;
}

/* ---- files ---- */

bool tr_pathf(char *buf, size_t cap, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, cap, fmt, ap);
    va_end(ap);
    return n >= 0 && (size_t)n < cap;
}

char *tr_read_tail(const char *path, size_t max, size_t *omitted) {
    *omitted = 0;
    int fd = open(path, O_RDONLY);
    if (fd < 0) return NULL;
    struct stat st;
    if (fstat(fd, &st) != 0) {
        close(fd);
        return NULL;
    }
    size_t size = (size_t)st.st_size, from = 0;
    if (size > max) from = size - max;
    char *buf = tr_xmalloc(size - from + 1);
    size_t n = 0;
    if (lseek(fd, (off_t)from, SEEK_SET) >= 0) {
        while (n < size - from) {
            ssize_t got = read(fd, buf + n, size - from - n);
            if (got < 0 && errno == EINTR) continue;
            if (got <= 0) break;
            n += (size_t)got;
        }
    }
    close(fd);
    buf[n] = '\0';
    if (from > 0) {
        /* start at a line when one begins close by, not mid-line */
        char *nl = memchr(buf, '\n', n < 1024 ? n : 1024);
        if (nl) {
            size_t cut = (size_t)(nl + 1 - buf);
            memmove(buf, buf + cut, n - cut + 1);
            n -= cut;
            from += cut;
        }
    }
    *omitted = from;
    /* a NUL in the output would cut it short: show it as a space */
    for (size_t i = 0; i < n; i++)
        if (buf[i] == '\0') buf[i] = ' ';
    return buf;
}

char *tr_read_all(const char *path, size_t max, size_t *len) {
    size_t omitted;
    char *s = tr_read_tail(path, max, &omitted);
    if (s && omitted) {
        free(s);
        return NULL;
    }
    if (s && len) *len = strlen(s);
    return s;
}

bool tr_write_all(int fd, const char *data, size_t len) {
    while (len) {
        ssize_t n = write(fd, data, len);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        data += n;
        len -= (size_t)n;
    }
    return true;
}

bool tr_write_file(const char *path, const char *data, size_t len, int mode) {
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
    if (fd < 0) return false;
    bool ok = tr_write_all(fd, data, len);
    return close(fd) == 0 && ok;
}

bool tr_write_file_synced(const char *path, const char *data, size_t len, int mode) {
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
    if (fd < 0) return false;
    bool ok = tr_write_all(fd, data, len) && fsync(fd) == 0;
    int e = errno;
    if (close(fd) != 0) ok = false;
    else errno = e;
    return ok;
}

static bool copy_file(const char *from, const char *to, int mode, bool synced);

bool tr_copy_file(const char *from, const char *to, int mode) { return copy_file(from, to, mode, false); }

bool tr_copy_file_synced(const char *from, const char *to, int mode) { return copy_file(from, to, mode, true); }

static bool copy_file(const char *from, const char *to, int mode, bool synced) {
    int in = open(from, O_RDONLY);
    if (in < 0) return false;
    int out = open(to, O_WRONLY | O_CREAT | O_TRUNC, mode);
    if (out < 0) {
        int e = errno;
        close(in);
        errno = e;
        return false;
    }
    char buf[1 << 16];
    bool ok = true;
    for (;;) {
        ssize_t n = read(in, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) ok = false;
        if (n <= 0) break;
        if (!tr_write_all(out, buf, (size_t)n)) {
            ok = false;
            break;
        }
    }
    close(in);
    if (ok && synced && fsync(out) != 0) ok = false;
    int e = errno;
    if (close(out) != 0) ok = false;
    else errno = e;
    if (ok) chmod(to, (mode_t)mode);
    return ok;
}

void tr_remove_tree(const char *path) {
    struct stat st;
    if (lstat(path, &st) != 0) return;
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        if (d) {
            struct dirent *e;
            char sub[TR_PATH];
            while ((e = readdir(d))) {
                if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
                if ((size_t)snprintf(sub, sizeof sub, "%s/%s", path, e->d_name) >= sizeof sub) continue;
                tr_remove_tree(sub);
            }
            closedir(d);
        }
        /* a test may have left a directory without write permission */
        if (rmdir(path) != 0 && errno == EACCES) {
            chmod(path, 0700);
            tr_remove_tree(path);
        }
    } else {
        unlink(path);
    }
}

bool tr_mkdir_p(const char *path) {
    char buf[TR_PATH];
    if ((size_t)snprintf(buf, sizeof buf, "%s", path) >= sizeof buf) return false;
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(buf, 0755) != 0 && errno != EEXIST) return false;
        *p = '/';
    }
    return mkdir(buf, 0755) == 0 || errno == EEXIST;
}

/* ---- SHA-256 (FIPS 180-4) ---- */

static const uint32_t sha_k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

static uint32_t ror(uint32_t x, int n) { return x >> n | x << (32 - n); }

static void sha_block(tr_sha256 *c, const unsigned char *p) {
    uint32_t w[64];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = c->h[0], b = c->h[1], cc = c->h[2], d = c->h[3], e = c->h[4], f = c->h[5], g = c->h[6], h = c->h[7];
    for (int i = 0; i < 64; i++) {
        uint32_t t1 = h + (ror(e, 6) ^ ror(e, 11) ^ ror(e, 25)) + ((e & f) ^ (~e & g)) + sha_k[i] + w[i];
        uint32_t t2 = (ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) + ((a & b) ^ (a & cc) ^ (b & cc));
        h = g, g = f, f = e, e = d + t1, d = cc, cc = b, b = a, a = t1 + t2;
    }
    c->h[0] += a, c->h[1] += b, c->h[2] += cc, c->h[3] += d;
    c->h[4] += e, c->h[5] += f, c->h[6] += g, c->h[7] += h;
}

void tr_sha256_init(tr_sha256 *c) {
    static const uint32_t iv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    memcpy(c->h, iv, sizeof iv);
    c->bytes = 0;
    c->fill = 0;
}

void tr_sha256_add(tr_sha256 *c, const void *data, size_t n) {
    const unsigned char *p = data;
    c->bytes += n;
    while (n) {
        if (c->fill == 0 && n >= 64) {
            sha_block(c, p);
            p += 64, n -= 64;
            continue;
        }
        size_t k = 64 - c->fill < n ? 64 - c->fill : n;
        memcpy(c->block + c->fill, p, k);
        c->fill += k, p += k, n -= k;
        if (c->fill == 64) {
            sha_block(c, c->block);
            c->fill = 0;
        }
    }
}

void tr_sha256_done(tr_sha256 *c, unsigned char out[32]) {
    uint64_t bits = c->bytes * 8;
    unsigned char pad = 0x80;
    tr_sha256_add(c, &pad, 1);
    unsigned char zero = 0;
    while (c->fill != 56) tr_sha256_add(c, &zero, 1);
    unsigned char len[8];
    for (int i = 0; i < 8; i++) len[i] = (unsigned char)(bits >> (56 - 8 * i));
    tr_sha256_add(c, len, 8);
    for (int i = 0; i < 8; i++)
        for (int k = 0; k < 4; k++) out[4 * i + k] = (unsigned char)(c->h[i] >> (24 - 8 * k));
}

uint64_t tr_fnv1a64(uint64_t h, const void *data, size_t n) {
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

/* ---- the cache key ---- */

typedef struct file_list {
    char **paths; /* relative to the root */
    size_t n, cap;
    bool too_many, unreadable;
} file_list;

enum { MAX_KEY_FILES = 100000, MAX_KEY_DEPTH = 32 };

/* Collects the regular files under root/rel (only the package's sources,
 * *.oxl and the *.c of its extern fns, when oxl_only);
 * directories starting with '.' are skipped, symbolic links to
 * directories are not followed (no cycles). */
static void collect(const char *root, const char *rel, bool oxl_only, int depth, file_list *fl) {
    char dir[TR_PATH];
    if ((size_t)snprintf(dir, sizeof dir, "%s%s%s", root, *rel ? "/" : "", rel) >= sizeof dir) return;
    DIR *d = opendir(dir);
    if (!d) {
        fl->unreadable = true;
        return;
    }
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char sub[TR_PATH], full[TR_PATH];
        if ((size_t)snprintf(sub, sizeof sub, "%s%s%s", rel, *rel ? "/" : "", e->d_name) >= sizeof sub) continue;
        if ((size_t)snprintf(full, sizeof full, "%s/%s", root, sub) >= sizeof full) continue;
        struct stat st;
        if (lstat(full, &st) != 0) continue;
        if (S_ISDIR(st.st_mode)) {
            if (depth < MAX_KEY_DEPTH) collect(root, sub, oxl_only, depth + 1, fl);
            continue;
        }
        if (S_ISLNK(st.st_mode) && (stat(full, &st) != 0 || !S_ISREG(st.st_mode))) continue;
        if (!S_ISREG(st.st_mode)) continue;
        size_t len = strlen(e->d_name);
        bool source = (len > 4 && strcmp(e->d_name + len - 4, ".oxl") == 0) ||
                      (len > 2 && strcmp(e->d_name + len - 2, ".c") == 0);
        if (oxl_only && !source) continue;
        if (fl->n == MAX_KEY_FILES) {
            fl->too_many = true;
            break;
        }
        if (fl->n == fl->cap) {
            fl->cap = fl->cap ? fl->cap * 2 : 64;
            fl->paths = tr_xrealloc(fl->paths, fl->cap * sizeof *fl->paths);
        }
        fl->paths[fl->n++] = tr_xstrdup(sub);
    }
    closedir(d);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Adds a tagged file to the hash: tag, name, NUL, size, content. */
static bool hash_file(tr_sha256 *c, char tag, const char *name, const char *path) {
    tr_sha256_add(c, &tag, 1);
    tr_sha256_add(c, name, strlen(name) + 1);
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        tr_sha256_add(c, "missing", 8);
        return false;
    }
    char buf[1 << 16];
    uint64_t total = 0;
    for (;;) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        tr_sha256_add(c, buf, (size_t)n);
        total += (uint64_t)n;
    }
    close(fd);
    tr_sha256_add(c, &total, sizeof total);
    return true;
}

static bool hash_tree(tr_sha256 *c, char tag, const char *root, bool oxl_only) {
    file_list fl = {0};
    collect(root, "", oxl_only, 0, &fl);
    if (fl.n) qsort(fl.paths, fl.n, sizeof *fl.paths, cmp_str); /* an empty package: no array */
    bool ok = !fl.too_many;
    for (size_t i = 0; i < fl.n; i++) {
        char full[TR_PATH];
        snprintf(full, sizeof full, "%s/%s", root, fl.paths[i]);
        if (!hash_file(c, tag, fl.paths[i], full)) ok = false;
        free(fl.paths[i]);
    }
    free(fl.paths);
    uint64_t n = fl.n;
    tr_sha256_add(c, &n, sizeof n);
    return ok && !fl.unreadable;
}

bool tr_cache_key(const char *pkg, const tr_hooks *h, int opt_level, char key[65]) {
    tr_sha256 c;
    tr_sha256_init(&c);
    const char *head = "oxl test binary 1";
    tr_sha256_add(&c, head, strlen(head) + 1);
    tr_sha256_add(&c, &opt_level, sizeof opt_level);
    /* the binary names its sources by path, so the same sources elsewhere
     * are another binary */
    char abs[TR_PATH];
    if (!realpath(pkg, abs)) snprintf(abs, sizeof abs, "%s", pkg);
    tr_sha256_add(&c, abs, strlen(abs) + 1);
    if (!hash_tree(&c, 'P', pkg, true)) {
        fprintf(stderr, "oxl test: cannot read every file of the package '%s'\n", pkg);
        return false;
    }
    if (h->std_root) hash_tree(&c, 'S', h->std_root, false);
    if (h->compiler_exe) hash_file(&c, 'C', "compiler", h->compiler_exe);
    if (h->runtime_lib) hash_file(&c, 'R', "runtime", h->runtime_lib);
    unsigned char d[32];
    tr_sha256_done(&c, d);
    for (int i = 0; i < 32; i++) snprintf(key + 2 * i, 3, "%02x", d[i]);
    return true;
}
