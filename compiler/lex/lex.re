/* lex.re: the OxL lexer; re2c turns it into lex.c in the build tree.
 *
 * The input is the source text followed by its NUL terminator (the
 * sentinel): no rule's wildcard matches "\x00", so every scanner stops on
 * it, and the action tells the real end (cursor at the limit) from a NUL
 * byte inside the file (an error). Bytes >= 0x80 are only accepted as
 * complete UTF-8 sequences, in strings and comments.
 *
 * Brackets are kept on a stack (bounded by BASE_MAX_NESTING) because the
 * stack decides where a `}` resumes an interpolated string and when the
 * input is too deeply nested to go on. Newlines follow Go's rule alone:
 * a newline ends a statement when the line's last token can end one,
 * inside brackets too (so a list that spans lines ends its lines with a
 * comma, and a missing ')' is caught at the end of its line). */
#include "lex/lex.h"

#include <string.h>

enum { FRAME_PAREN = 1, FRAME_BRACKET, FRAME_BRACE, FRAME_INTERP };

typedef struct lex_frame {
    uint8_t kind;
    uint32_t off; /* where it was opened (for an INTERP: the string's quote) */
} lex_frame;

struct lex_state {
    base_arena *arena;
    base_names *names;
    diag_sink *diags;
    const base_source *src;
    const unsigned char *base, *cur, *limit;
    lex_frame frames[BASE_MAX_NESTING];
    uint32_t depth;
    uint32_t interps;         /* INTERP frames on the stack */
    uint16_t prev;            /* kind of the last token returned */
    bool can_end;             /* the last token may end a statement */
    uint32_t last_end;        /* where the last token ended: a NEWLINE is placed there */
    bool stopped;
    bool at_eof;
    /* scratch buffer for decoding strings (grows in the arena) */
    char *buf;
    size_t buf_len, buf_cap;
    const char *kw_names[LEX_KIND_COUNT];
};

static const char *const kind_names[LEX_KIND_COUNT] = {
    [LEX_EOF] = "EOF", [LEX_NEWLINE] = "NEWLINE", [LEX_SEMI] = "SEMI", [LEX_IDENT] = "IDENT",
    [LEX_UNDERSCORE] = "UNDERSCORE", [LEX_INT] = "INT", [LEX_DURATION] = "DURATION",
    [LEX_STRING] = "STRING", [LEX_STR_BEGIN] = "STR_BEGIN", [LEX_STR_MID] = "STR_MID",
    [LEX_STR_END] = "STR_END", [LEX_LPAREN] = "LPAREN", [LEX_RPAREN] = "RPAREN",
    [LEX_LBRACKET] = "LBRACKET", [LEX_RBRACKET] = "RBRACKET", [LEX_LBRACE] = "LBRACE",
    [LEX_RBRACE] = "RBRACE", [LEX_COMMA] = "COMMA", [LEX_COLON] = "COLON", [LEX_DOT] = "DOT",
    [LEX_DOTDOT] = "DOTDOT", [LEX_DOTDOTEQ] = "DOTDOTEQ", [LEX_ASSIGN] = "ASSIGN",
    [LEX_PLUSEQ] = "PLUSEQ", [LEX_MINUSEQ] = "MINUSEQ", [LEX_STAREQ] = "STAREQ", [LEX_EQ] = "EQ",
    [LEX_NE] = "NE", [LEX_LT] = "LT", [LEX_LE] = "LE", [LEX_GT] = "GT", [LEX_GE] = "GE",
    [LEX_PLUS] = "PLUS", [LEX_MINUS] = "MINUS", [LEX_STAR] = "STAR", [LEX_SLASH] = "SLASH",
    [LEX_PERCENT] = "PERCENT", [LEX_NOT] = "NOT", [LEX_ANDAND] = "ANDAND", [LEX_OROR] = "OROR",
    [LEX_PIPE] = "PIPE", [LEX_QUESTION] = "QUESTION", [LEX_QQ] = "QQ", [LEX_FATARROW] = "FATARROW",
    [LEX_ARROW] = "ARROW", [LEX_KW_FN] = "KW_FN", [LEX_KW_LET] = "KW_LET", [LEX_KW_VAR] = "KW_VAR",
    [LEX_KW_IF] = "KW_IF", [LEX_KW_ELSE] = "KW_ELSE", [LEX_KW_WHILE] = "KW_WHILE",
    [LEX_KW_FOR] = "KW_FOR", [LEX_KW_IN] = "KW_IN", [LEX_KW_BREAK] = "KW_BREAK",
    [LEX_KW_CONTINUE] = "KW_CONTINUE", [LEX_KW_RETURN] = "KW_RETURN", [LEX_KW_MATCH] = "KW_MATCH",
    [LEX_KW_IS] = "KW_IS", [LEX_KW_ASSERT] = "KW_ASSERT", [LEX_KW_SPAWN] = "KW_SPAWN",
    [LEX_KW_SELECT] = "KW_SELECT", [LEX_KW_AFTER] = "KW_AFTER", [LEX_KW_TYPE] = "KW_TYPE",
    [LEX_KW_CONST] = "KW_CONST", [LEX_KW_MOD] = "KW_MOD", [LEX_KW_USE] = "KW_USE",
    [LEX_KW_PACKAGE] = "KW_PACKAGE", [LEX_KW_EXTERN] = "KW_EXTERN", [LEX_KW_SERVICE] = "KW_SERVICE",
    [LEX_KW_TEST] = "KW_TEST", [LEX_KW_TRUE] = "KW_TRUE", [LEX_KW_FALSE] = "KW_FALSE",
    [LEX_KW_NONE] = "KW_NONE", [LEX_KW_PUB] = "KW_PUB", [LEX_KW_STATE] = "KW_STATE",
    [LEX_KW_ON] = "KW_ON", [LEX_KW_START] = "KW_START", [LEX_KW_RPC] = "KW_RPC",
    [LEX_KW_CLUSTER] = "KW_CLUSTER", [LEX_KW_ROLE] = "KW_ROLE", [LEX_KW_SIM] = "KW_SIM",
    [LEX_KW_SEEDS] = "KW_SEEDS", [LEX_KW_WITH] = "KW_WITH",
};

static const char *const kind_descs[LEX_KIND_COUNT] = {
    [LEX_EOF] = "end of file", [LEX_NEWLINE] = "end of line", [LEX_SEMI] = "';'",
    [LEX_IDENT] = "identifier", [LEX_UNDERSCORE] = "'_'", [LEX_INT] = "integer",
    [LEX_DURATION] = "duration", [LEX_STRING] = "string", [LEX_STR_BEGIN] = "string",
    [LEX_STR_MID] = "'}' of an interpolation", [LEX_STR_END] = "'}' of an interpolation",
    [LEX_LPAREN] = "'('", [LEX_RPAREN] = "')'", [LEX_LBRACKET] = "'['", [LEX_RBRACKET] = "']'",
    [LEX_LBRACE] = "'{'", [LEX_RBRACE] = "'}'", [LEX_COMMA] = "','", [LEX_COLON] = "':'",
    [LEX_DOT] = "'.'", [LEX_DOTDOT] = "'..'", [LEX_DOTDOTEQ] = "'..='", [LEX_ASSIGN] = "'='",
    [LEX_PLUSEQ] = "'+='", [LEX_MINUSEQ] = "'-='", [LEX_STAREQ] = "'*='", [LEX_EQ] = "'=='",
    [LEX_NE] = "'!='", [LEX_LT] = "'<'", [LEX_LE] = "'<='", [LEX_GT] = "'>'", [LEX_GE] = "'>='",
    [LEX_PLUS] = "'+'", [LEX_MINUS] = "'-'", [LEX_STAR] = "'*'", [LEX_SLASH] = "'/'",
    [LEX_PERCENT] = "'%'", [LEX_NOT] = "'!'", [LEX_ANDAND] = "'&&'", [LEX_OROR] = "'||'",
    [LEX_PIPE] = "'|'", [LEX_QUESTION] = "'?'", [LEX_QQ] = "'?" "?'", [LEX_FATARROW] = "'=>'", [LEX_ARROW] = "'->'",
    [LEX_KW_FN] = "'fn'", [LEX_KW_LET] = "'let'", [LEX_KW_VAR] = "'var'", [LEX_KW_IF] = "'if'",
    [LEX_KW_ELSE] = "'else'", [LEX_KW_WHILE] = "'while'", [LEX_KW_FOR] = "'for'",
    [LEX_KW_IN] = "'in'", [LEX_KW_BREAK] = "'break'", [LEX_KW_CONTINUE] = "'continue'",
    [LEX_KW_RETURN] = "'return'", [LEX_KW_MATCH] = "'match'", [LEX_KW_IS] = "'is'",
    [LEX_KW_ASSERT] = "'assert'", [LEX_KW_SPAWN] = "'spawn'", [LEX_KW_SELECT] = "'select'",
    [LEX_KW_AFTER] = "'after'", [LEX_KW_TYPE] = "'type'", [LEX_KW_CONST] = "'const'",
    [LEX_KW_MOD] = "'mod'", [LEX_KW_USE] = "'use'", [LEX_KW_PACKAGE] = "'package'",
    [LEX_KW_EXTERN] = "'extern'", [LEX_KW_SERVICE] = "'service'", [LEX_KW_TEST] = "'test'",
    [LEX_KW_TRUE] = "'true'", [LEX_KW_FALSE] = "'false'", [LEX_KW_NONE] = "'none'",
    [LEX_KW_PUB] = "'pub'", [LEX_KW_STATE] = "'state'", [LEX_KW_ON] = "'on'",
    [LEX_KW_START] = "'start'", [LEX_KW_RPC] = "'rpc'", [LEX_KW_CLUSTER] = "'cluster'",
    [LEX_KW_ROLE] = "'role'", [LEX_KW_SIM] = "'sim'", [LEX_KW_SEEDS] = "'seeds'",
    [LEX_KW_WITH] = "'with'",
};

const char *lex_kind_name(lex_kind k) { return k < LEX_KIND_COUNT && kind_names[k] ? kind_names[k] : "?"; }
const char *lex_kind_desc(lex_kind k) { return k < LEX_KIND_COUNT && kind_descs[k] ? kind_descs[k] : "?"; }

lex_state *lex_new(base_arena *arena, base_names *names, diag_sink *diags, const base_source *src) {
    lex_state *L = base_alloc(arena, sizeof *L);
    L->arena = arena;
    L->names = names;
    L->diags = diags;
    L->src = src;
    L->base = L->cur = (const unsigned char *)src->text;
    L->limit = L->base + src->len;
    L->prev = LEX_NEWLINE;
    for (int k = LEX_FIRST_KEYWORD; k < LEX_KIND_COUNT; k++) {
        const char *d = kind_descs[k]; /* "'fn'": the spelling between the quotes */
        L->kw_names[k] = base_intern(names, d + 1, strlen(d) - 2);
    }
    return L;
}

bool lex_stopped(const lex_state *L) { return L->stopped; }

static uint32_t off_of(const lex_state *L, const unsigned char *p) { return (uint32_t)(p - L->base); }

static base_span span_of(const lex_state *L, const unsigned char *b, const unsigned char *e) {
    base_span s = {L->src->id, off_of(L, b), (uint32_t)(e - b)};
    return s;
}

static void error_at(lex_state *L, const unsigned char *b, const unsigned char *e, const char *fmt, ...) BASE_PRINTF(4, 5);
static void error_at(lex_state *L, const unsigned char *b, const unsigned char *e, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    diag_vreport(L->diags, DIAG_ERROR, span_of(L, b, e), fmt, ap);
    va_end(ap);
}

/* Which tokens may end a statement when a newline follows them. */
static bool ends_statement(uint16_t k) {
    switch (k) {
    case LEX_IDENT: case LEX_UNDERSCORE: case LEX_INT: case LEX_DURATION: case LEX_STRING:
    case LEX_STR_END: case LEX_RPAREN: case LEX_RBRACKET: case LEX_RBRACE: case LEX_QUESTION:
    case LEX_KW_BREAK: case LEX_KW_CONTINUE: case LEX_KW_RETURN: case LEX_KW_TRUE:
    case LEX_KW_FALSE: case LEX_KW_NONE:
        return true;
    default:
        /* a contextual keyword may be a name, and a name ends a statement */
        return k >= LEX_FIRST_CONTEXTUAL && k < LEX_KIND_COUNT;
    }
}

/* ---- the bracket stack ---- */

static bool push_frame(lex_state *L, uint8_t kind, const unsigned char *at) {
    if (L->depth == BASE_MAX_NESTING) {
        error_at(L, at, at + 1, "too deeply nested (more than %d levels of brackets, blocks and strings)",
                 BASE_MAX_NESTING);
        L->stopped = true;
        return false;
    }
    L->frames[L->depth].kind = kind;
    L->frames[L->depth].off = off_of(L, at);
    L->depth++;
    if (kind == FRAME_INTERP) L->interps++;
    return true;
}

static void pop_frames_to(lex_state *L, uint32_t depth) {
    while (L->depth > depth) {
        L->depth--;
        if (L->frames[L->depth].kind == FRAME_INTERP) L->interps--;
    }
}

/* A closing bracket pops to its opener when one is open above the nearest
 * interpolation; otherwise the stack is left alone and the parser reports
 * the stray bracket. Returns the frame kind it closed (0: none). */
static uint8_t close_frame(lex_state *L, uint8_t kind) {
    for (uint32_t i = L->depth; i-- > 0;) {
        uint8_t k = L->frames[i].kind;
        if (k == kind || (kind == FRAME_BRACE && k == FRAME_INTERP)) {
            pop_frames_to(L, i + 1);
            if (k == FRAME_INTERP) return k; /* the caller pops it after reading the string on */
            L->depth--;
            return k;
        }
        if (k == FRAME_INTERP) return 0;
    }
    return 0;
}

/* ---- string decoding into the scratch buffer ---- */

static void buf_put(lex_state *L, const void *p, size_t n) {
    if (L->buf_len + n + 1 > L->buf_cap) {
        size_t cap = L->buf_cap ? L->buf_cap : 256;
        while (cap < L->buf_len + n + 1) cap *= 2;
        char *b = base_alloc(L->arena, cap);
        if (L->buf_len) memcpy(b, L->buf, L->buf_len);
        L->buf = b;
        L->buf_cap = cap;
    }
    memcpy(L->buf + L->buf_len, p, n);
    L->buf_len += n;
}

static void buf_put_utf8(lex_state *L, uint32_t cp) {
    unsigned char b[4];
    size_t n;
    if (cp < 0x80) b[0] = (unsigned char)cp, n = 1;
    else if (cp < 0x800) b[0] = (unsigned char)(0xc0 | cp >> 6), b[1] = (unsigned char)(0x80 | (cp & 0x3f)), n = 2;
    else if (cp < 0x10000)
        b[0] = (unsigned char)(0xe0 | cp >> 12), b[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f)),
        b[2] = (unsigned char)(0x80 | (cp & 0x3f)), n = 3;
    else
        b[0] = (unsigned char)(0xf0 | cp >> 18), b[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3f)),
        b[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f)), b[3] = (unsigned char)(0x80 | (cp & 0x3f)), n = 4;
    buf_put(L, b, n);
}

/*!re2c
    re2c:define:YYCTYPE = "unsigned char";
    re2c:define:YYCURSOR = cur;
    re2c:define:YYMARKER = mar;
    re2c:yyfill:enable = 0;
    re2c:indent:string = "    ";

    u2 = [\xc2-\xdf][\x80-\xbf];
    u3 = "\xe0"[\xa0-\xbf][\x80-\xbf] | [\xe1-\xec\xee\xef][\x80-\xbf]{2} | "\xed"[\x80-\x9f][\x80-\xbf];
    u4 = "\xf0"[\x90-\xbf][\x80-\xbf]{2} | [\xf1-\xf3][\x80-\xbf]{3} | "\xf4"[\x80-\x8f][\x80-\xbf]{2};
    utf8 = u2 | u3 | u4;
*/

/* Reports a byte that starts no valid UTF-8 sequence; the continuation
 * bytes after it belong to the same bad sequence (one error, not three). */
static void bad_utf8(lex_state *L, const unsigned char *at) {
    error_at(L, at, at + 1, "invalid UTF-8 byte 0x%02x", *at);
}

static void nul_byte(lex_state *L, const unsigned char *at) { error_at(L, at, at + 1, "NUL byte in source"); }

/* Skips a line comment's text up to (not including) its newline. */
static void skip_line_comment(lex_state *L) {
    const unsigned char *cur = L->cur, *mar = cur, *tok;
    (void)mar;
    for (;;) {
        tok = cur;
        /*!re2c
            [^\n\x00\x80-\xff]+ { continue; }
            utf8 { continue; }
            "\n" { cur = tok; break; }
            "\x00" { if (tok == L->limit) { cur = tok; break; } nul_byte(L, tok); continue; }
            [\x80-\xff][\x80-\xbf]* { bad_utf8(L, tok); continue; }
        */
    }
    L->cur = cur;
}

/* Skips a block comment after its opening; returns whether it held a newline
 * (then it ends a statement as a newline would). */
static bool skip_block_comment(lex_state *L, const unsigned char *start) {
    const unsigned char *cur = L->cur, *mar = cur, *tok;
    (void)mar;
    bool newline = false;
    for (;;) {
        tok = cur;
        /*!re2c
            "*" "/" { break; }
            [^*\n\x00\x80-\xff]+ | "*" { continue; }
            "\n" { newline = true; continue; }
            utf8 { continue; }
            "\x00" {
                if (tok == L->limit) {
                    error_at(L, start, start + 2, "unterminated block comment");
                    cur = tok;
                    break;
                }
                nul_byte(L, tok);
                continue;
            }
            [\x80-\xff][\x80-\xbf]* { bad_utf8(L, tok); continue; }
        */
    }
    L->cur = cur;
    return newline;
}

/* Reads string text from L->cur up to the closing quote, an interpolation
 * `{`, or the end of the line (unterminated). `first` tells a segment that
 * began at the opening quote from one that began at an interpolation's
 * `}`. Fills the token: STRING / STR_BEGIN / STR_MID / STR_END. */
static void lex_string(lex_state *L, lex_token *t, const unsigned char *start, bool first, uint32_t quote_off) {
    const unsigned char *cur = L->cur, *mar = cur, *tok;
    (void)mar;
    L->buf_len = 0;
    bool interp = false;
    for (;;) {
        tok = cur;
        /*!re2c
            "\"" { break; }
            "{" { interp = true; break; }
            [^"{\\\n\x00\x80-\xff]+ { buf_put(L, tok, (size_t)(cur - tok)); continue; }
            utf8 { buf_put(L, tok, (size_t)(cur - tok)); continue; }
            "\\n" { buf_put(L, "\n", 1); continue; }
            "\\t" { buf_put(L, "\t", 1); continue; }
            "\\r" { buf_put(L, "\r", 1); continue; }
            "\\0" { buf_put(L, "", 1); continue; }
            "\\\\" { buf_put(L, "\\", 1); continue; }
            "\\\"" { buf_put(L, "\"", 1); continue; }
            "\\{" { buf_put(L, "{", 1); continue; }
            "\\}" { buf_put(L, "}", 1); continue; }
            "\\u{" [0-9a-fA-F]+ "}" {
                const unsigned char *h1 = tok + 3, *h2 = cur - 1;
                uint32_t cp = 0;
                bool big = h2 - h1 > 6;
                for (const unsigned char *p = h1; p < h2 && !big; p++)
                    cp = cp * 16 + (uint32_t)(*p <= '9' ? *p - '0' : (*p | 0x20) - 'a' + 10);
                if (big || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
                    error_at(L, tok, cur, "invalid Unicode escape: not a Unicode scalar value");
                else
                    buf_put_utf8(L, cp);
                continue;
            }
            "\\u" {
                error_at(L, tok, cur, "invalid Unicode escape: write \\u{1F600} with 1 to 6 hex digits");
                continue;
            }
            "\\" [\x01-\x09\x0b-\x7f] {
                if (tok[1] >= 0x20 && tok[1] < 0x7f)
                    error_at(L, tok, cur, "unknown escape sequence '\\%c'", tok[1]);
                else
                    error_at(L, tok, cur, "unknown escape sequence");
                continue;
            }
            "\\" { error_at(L, tok, tok + 1, "unknown escape sequence"); continue; }
            "\n" {
                cur = tok;
                error_at(L, L->base + quote_off, L->base + quote_off + 1, "unterminated string literal");
                break;
            }
            "\x00" {
                if (tok == L->limit) {
                    cur = tok;
                    error_at(L, L->base + quote_off, L->base + quote_off + 1, "unterminated string literal");
                    break;
                }
                nul_byte(L, tok);
                continue;
            }
            [\x80-\xff][\x80-\xbf]* { bad_utf8(L, tok); continue; }
        */
    }
    L->cur = cur;
    t->span = span_of(L, start, cur);
    t->text = base_strndup(L->arena, L->buf ? L->buf : "", L->buf_len);
    t->len = (uint32_t)L->buf_len;
    if (interp) {
        t->kind = first ? LEX_STR_BEGIN : LEX_STR_MID;
        /* the interpolation is a frame: its `}` brings the string back */
        if (L->interps == LEX_MAX_INTERP_NESTING) {
            error_at(L, cur - 1, cur, "string interpolation nested too deeply (more than %d levels)",
                     LEX_MAX_INTERP_NESTING);
            L->stopped = true;
            return;
        }
        if (push_frame(L, FRAME_INTERP, L->base + quote_off)) return;
        return;
    }
    t->kind = first ? LEX_STRING : LEX_STR_END;
}

/* Value of a decimal or hexadecimal literal, ignoring `_`. False on overflow. */
static bool int_value(const unsigned char *b, const unsigned char *e, uint64_t *out) {
    uint64_t v = 0;
    unsigned radix = 10;
    if (e - b > 2 && b[0] == '0' && (b[1] | 0x20) == 'x') radix = 16, b += 2;
    for (; b < e; b++) {
        unsigned d;
        if (*b == '_') continue;
        if (*b <= '9') d = *b - '0';
        else d = (unsigned)((*b | 0x20) - 'a' + 10);
        if (v > (UINT64_MAX - d) / radix) return false;
        v = v * radix + d;
    }
    *out = v;
    return true;
}

static void number(lex_state *L, lex_token *t, const unsigned char *b, const unsigned char *e, int64_t unit_ns) {
    t->kind = unit_ns ? LEX_DURATION : LEX_INT;
    t->ival = 0;
    const unsigned char *digits_end = e;
    if (unit_ns) {
        while (digits_end > b && !(digits_end[-1] >= '0' && digits_end[-1] <= '9')) digits_end--;
    }
    if (b[0] == '0' && digits_end - b > 1 && (b[1] | 0x20) != 'x') {
        error_at(L, b, e, "integer literal with a leading zero (write %s without it)",
                 unit_ns ? "the number" : "a decimal number");
        return;
    }
    uint64_t v;
    if (!int_value(b, digits_end, &v) || v > INT64_MAX) {
        error_at(L, b, e, "integer literal does not fit in Int (64 bits)");
        return;
    }
    if (unit_ns) {
        if (v > (uint64_t)INT64_MAX / (uint64_t)unit_ns) {
            error_at(L, b, e, "duration literal overflows (more than 9223372036854775807ns)");
            return;
        }
        v *= (uint64_t)unit_ns;
    }
    t->ival = (int64_t)v;
}

/* A run of digits, letters and `_` that is no valid literal. */
static void bad_number(lex_state *L, lex_token *t, const unsigned char *b, const unsigned char *e) {
    const unsigned char *p = b;
    t->kind = LEX_INT;
    t->ival = 0;
    if (e - b >= 2 && b[0] == '0' && (b[1] | 0x20) == 'x') {
        error_at(L, b, e, "malformed hexadecimal literal");
        return;
    }
    while (p < e && ((*p >= '0' && *p <= '9') || *p == '_')) p++;
    const unsigned char *q = p;
    while (q < e && ((*q | 0x20) >= 'a' && (*q | 0x20) <= 'z')) q++;
    if (p > b && p[-1] != '_' && q == e && p < e) {
        t->kind = LEX_DURATION;
        error_at(L, p, e, "unknown duration unit '%.*s' (expected ns, us, ms, s, m or h)", (int)(e - p), p);
        return;
    }
    error_at(L, b, e, "malformed integer literal ('_' goes between digits)");
}

static void word(lex_state *L, lex_token *t, const unsigned char *b, const unsigned char *e) {
    if (e - b > LEX_MAX_IDENT_BYTES)
        error_at(L, b, e, "identifier too long (more than %d bytes)", LEX_MAX_IDENT_BYTES);
    t->kind = LEX_IDENT;
    t->text = base_intern(L->names, (const char *)b, (size_t)(e - b));
}

/* A keyword, except right after '.', where it names a field or method
 * (`x.type`, `std.test`). */
static void keyword(lex_state *L, lex_token *t, lex_kind k) {
    t->kind = L->prev == LEX_DOT ? LEX_IDENT : (uint16_t)k;
    t->text = L->kw_names[k];
}

/* Code point at p for a message about an unexpected character. */
static uint32_t decode_point(const unsigned char *p, const unsigned char *e) {
    uint32_t c = *p;
    int n = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
    c &= 0x3fu >> (n - 1);
    for (int i = 1; i < n && p + i < e; i++) c = (c << 6) | (p[i] & 0x3f);
    return c;
}

/* The end of the input: close what the file left open, then one last
 * NEWLINE if the last line could end a statement, then EOF. */
static bool at_end(lex_state *L, lex_token *t) {
    const unsigned char *e = L->limit;
    if (L->limit > L->base && L->limit[-1] == '\n') e--; /* point at the end of the last line */
    t->span = span_of(L, e, e);
    if (L->interps) {
        /* an interpolation left open: the (outermost) string is unterminated */
        uint32_t i = 0;
        while (L->frames[i].kind != FRAME_INTERP) i++;
        uint32_t quote = L->frames[i].off;
        pop_frames_to(L, i);
        error_at(L, L->base + quote, L->base + quote + 1, "unterminated string literal");
        t->kind = LEX_STR_END;
        t->text = "";
        return true;
    }
    if (L->can_end) {
        t->kind = LEX_NEWLINE;
        t->span.off = L->last_end;
        return true;
    }
    t->kind = LEX_EOF;
    L->at_eof = true;
    return true;
}

/* A newline in the middle of an interpolation ends the string there. */
static void newline_in_interp(lex_state *L, lex_token *t, const unsigned char *nl) {
    uint32_t i = 0;
    while (L->frames[i].kind != FRAME_INTERP) i++; /* the outermost interpolation */
    uint32_t quote = L->frames[i].off;
    pop_frames_to(L, i);
    error_at(L, L->base + quote, L->base + quote + 1, "unterminated string literal (a newline inside its interpolation)");
    t->kind = LEX_STR_END;
    t->text = "";
    t->span = span_of(L, nl, nl);
}

static void scan(lex_state *L, lex_token *t) {
    const unsigned char *cur = L->cur, *mar = cur, *tok;
    (void)mar;
    for (;;) {
        tok = cur;
        t->text = NULL;
        t->len = 0;
        t->ival = 0;
        /*!re2c
            dec = [0-9]+ ("_" [0-9]+)*;
            hex = "0" [xX] "_"? [0-9a-fA-F]+ ("_" [0-9a-fA-F]+)*;

            "\x00" {
                if (tok == L->limit) { cur = tok; L->cur = cur; at_end(L, t); return; }
                nul_byte(L, tok);
                continue;
            }
            [ \t\r\f\v]+ { continue; }
            "\n" {
                if (L->interps) { cur = tok; L->cur = cur; newline_in_interp(L, t, tok); return; }
                if (L->can_end) { t->kind = LEX_NEWLINE; break; }
                continue;
            }
            "//" { L->cur = cur; skip_line_comment(L); cur = L->cur; continue; }
            "/*" {
                L->cur = cur;
                bool nl = skip_block_comment(L, tok);
                cur = L->cur;
                if (nl && L->interps == 0 && L->can_end) { t->kind = LEX_NEWLINE; break; }
                continue;
            }

            "fn" { keyword(L, t, LEX_KW_FN); break; }
            "let" { keyword(L, t, LEX_KW_LET); break; }
            "var" { keyword(L, t, LEX_KW_VAR); break; }
            "if" { keyword(L, t, LEX_KW_IF); break; }
            "else" { keyword(L, t, LEX_KW_ELSE); break; }
            "while" { keyword(L, t, LEX_KW_WHILE); break; }
            "for" { keyword(L, t, LEX_KW_FOR); break; }
            "in" { keyword(L, t, LEX_KW_IN); break; }
            "break" { keyword(L, t, LEX_KW_BREAK); break; }
            "continue" { keyword(L, t, LEX_KW_CONTINUE); break; }
            "return" { keyword(L, t, LEX_KW_RETURN); break; }
            "match" { keyword(L, t, LEX_KW_MATCH); break; }
            "is" { keyword(L, t, LEX_KW_IS); break; }
            "assert" { keyword(L, t, LEX_KW_ASSERT); break; }
            "spawn" { keyword(L, t, LEX_KW_SPAWN); break; }
            "select" { keyword(L, t, LEX_KW_SELECT); break; }
            "after" { keyword(L, t, LEX_KW_AFTER); break; }
            "type" { keyword(L, t, LEX_KW_TYPE); break; }
            "const" { keyword(L, t, LEX_KW_CONST); break; }
            "mod" { keyword(L, t, LEX_KW_MOD); break; }
            "use" { keyword(L, t, LEX_KW_USE); break; }
            "package" { keyword(L, t, LEX_KW_PACKAGE); break; }
            "extern" { keyword(L, t, LEX_KW_EXTERN); break; }
            "service" { keyword(L, t, LEX_KW_SERVICE); break; }
            "test" { keyword(L, t, LEX_KW_TEST); break; }
            "true" { keyword(L, t, LEX_KW_TRUE); break; }
            "false" { keyword(L, t, LEX_KW_FALSE); break; }
            "none" { keyword(L, t, LEX_KW_NONE); break; }
            "pub" { keyword(L, t, LEX_KW_PUB); break; }
            "state" { keyword(L, t, LEX_KW_STATE); break; }
            "on" { keyword(L, t, LEX_KW_ON); break; }
            "start" { keyword(L, t, LEX_KW_START); break; }
            "rpc" { keyword(L, t, LEX_KW_RPC); break; }
            "cluster" { keyword(L, t, LEX_KW_CLUSTER); break; }
            "role" { keyword(L, t, LEX_KW_ROLE); break; }
            "sim" { keyword(L, t, LEX_KW_SIM); break; }
            "seeds" { keyword(L, t, LEX_KW_SEEDS); break; }
            "with" { keyword(L, t, LEX_KW_WITH); break; }

            "_" { t->kind = LEX_UNDERSCORE; break; }
            [a-zA-Z_][a-zA-Z0-9_]* { word(L, t, tok, cur); break; }

            dec "ns" { number(L, t, tok, cur, 1); break; }
            dec "us" { number(L, t, tok, cur, 1000); break; }
            dec "ms" { number(L, t, tok, cur, 1000000); break; }
            dec "s" { number(L, t, tok, cur, 1000000000); break; }
            dec "m" { number(L, t, tok, cur, INT64_C(60000000000)); break; }
            dec "h" { number(L, t, tok, cur, INT64_C(3600000000000)); break; }
            dec | hex { number(L, t, tok, cur, 0); break; }
            [0-9][0-9a-zA-Z_]* { bad_number(L, t, tok, cur); break; }

            "\"" {
                L->cur = cur;
                lex_string(L, t, tok, true, off_of(L, tok));
                cur = L->cur;
                break;
            }

            "(" { if (!push_frame(L, FRAME_PAREN, tok)) { at_end(L, t); return; } t->kind = LEX_LPAREN; break; }
            "[" { if (!push_frame(L, FRAME_BRACKET, tok)) { at_end(L, t); return; } t->kind = LEX_LBRACKET; break; }
            "{" { if (!push_frame(L, FRAME_BRACE, tok)) { at_end(L, t); return; } t->kind = LEX_LBRACE; break; }
            ")" { close_frame(L, FRAME_PAREN); t->kind = LEX_RPAREN; break; }
            "]" { close_frame(L, FRAME_BRACKET); t->kind = LEX_RBRACKET; break; }
            "}" {
                if (close_frame(L, FRAME_BRACE) == FRAME_INTERP) {
                    uint32_t quote = L->frames[L->depth - 1].off;
                    pop_frames_to(L, L->depth - 1);
                    L->cur = cur;
                    lex_string(L, t, tok, false, quote);
                    cur = L->cur;
                    break;
                }
                t->kind = LEX_RBRACE;
                break;
            }
            "," { t->kind = LEX_COMMA; break; }
            ":" { t->kind = LEX_COLON; break; }
            ";" { t->kind = LEX_SEMI; break; }
            "." { t->kind = LEX_DOT; break; }
            ".." { t->kind = LEX_DOTDOT; break; }
            "..=" { t->kind = LEX_DOTDOTEQ; break; }
            "=" { t->kind = LEX_ASSIGN; break; }
            "+=" { t->kind = LEX_PLUSEQ; break; }
            "-=" { t->kind = LEX_MINUSEQ; break; }
            "*=" { t->kind = LEX_STAREQ; break; }
            "==" { t->kind = LEX_EQ; break; }
            "!=" { t->kind = LEX_NE; break; }
            "<" { t->kind = LEX_LT; break; }
            "<=" { t->kind = LEX_LE; break; }
            ">" { t->kind = LEX_GT; break; }
            ">=" { t->kind = LEX_GE; break; }
            "+" { t->kind = LEX_PLUS; break; }
            "-" { t->kind = LEX_MINUS; break; }
            "*" { t->kind = LEX_STAR; break; }
            "/" { t->kind = LEX_SLASH; break; }
            "%" { t->kind = LEX_PERCENT; break; }
            "!" { t->kind = LEX_NOT; break; }
            "&&" { t->kind = LEX_ANDAND; break; }
            "||" { t->kind = LEX_OROR; break; }
            "|" { t->kind = LEX_PIPE; break; }
            "?" { t->kind = LEX_QUESTION; break; }
            "??" { t->kind = LEX_QQ; break; }
            "=>" { t->kind = LEX_FATARROW; break; }
            "->" { t->kind = LEX_ARROW; break; }

            "&" { error_at(L, tok, cur, "unexpected character '&' (did you mean '&&'?)"); continue; }
            utf8 {
                error_at(L, tok, cur, "unexpected character U+%04X (names are ASCII; other text belongs in strings)",
                         (unsigned)decode_point(tok, cur));
                continue;
            }
            [\x80-\xff][\x80-\xbf]* { bad_utf8(L, tok); continue; }
            [^\x00] {
                if (*tok >= 0x20 && *tok < 0x7f) error_at(L, tok, cur, "unexpected character '%c'", *tok);
                else error_at(L, tok, cur, "unexpected control character 0x%02x", *tok);
                continue;
            }
        */
    }
    if (t->kind == LEX_NEWLINE) {
        /* "unexpected end of line" points just after the line's last token */
        t->span.file = L->src->id;
        t->span.off = L->last_end;
        t->span.len = 0;
    } else if (t->kind != LEX_STRING && t->kind != LEX_STR_BEGIN && t->kind != LEX_STR_MID && t->kind != LEX_STR_END) {
        t->span = span_of(L, tok, cur);
    }
    L->cur = cur;
}

lex_token lex_next(lex_state *L) {
    lex_token t;
    memset(&t, 0, sizeof t);
    if (L->stopped || L->at_eof) {
        const unsigned char *e = L->limit;
        if (L->limit > L->base && L->limit[-1] == '\n') e--;
        t.kind = LEX_EOF;
        t.span = span_of(L, e, e);
        return t;
    }
    scan(L, &t);
    if (L->stopped) {
        t.kind = LEX_EOF;
        t.text = NULL;
    }
    L->prev = t.kind;
    L->can_end = ends_statement(t.kind);
    if (t.kind != LEX_NEWLINE && t.kind != LEX_EOF) L->last_end = t.span.off + t.span.len;
    return t;
}

/* Writes s[0..n) in double quotes with the escapes of the language. */
static void put_quoted(FILE *out, const char *s, size_t n) {
    fputc('"', out);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        switch (c) {
        case '\n': fputs("\\n", out); break;
        case '\t': fputs("\\t", out); break;
        case '\r': fputs("\\r", out); break;
        case '\0': fputs("\\0", out); break;
        case '\\': fputs("\\\\", out); break;
        case '"': fputs("\\\"", out); break;
        case '{': fputs("\\{", out); break;
        case '}': fputs("\\}", out); break;
        default:
            if (c < 0x20 || c == 0x7f) fprintf(out, "\\u{%X}", c);
            else fputc(c, out);
        }
    }
    fputc('"', out);
}

void lex_dump_token(const diag_sink *d, const lex_token *t, FILE *out) {
    base_pos p = diag_position(d, t->span);
    fprintf(out, "%u:%u %s", p.line, p.col, lex_kind_name(t->kind));
    switch (t->kind) {
    case LEX_IDENT: fprintf(out, " %s", t->text); break;
    case LEX_INT: fprintf(out, " %lld", (long long)t->ival); break;
    case LEX_DURATION: fprintf(out, " %lldns", (long long)t->ival); break;
    case LEX_STRING: case LEX_STR_BEGIN: case LEX_STR_MID: case LEX_STR_END:
        fputc(' ', out);
        put_quoted(out, t->text, t->len);
        break;
    default: break;
    }
    fputc('\n', out);
}
