/* lex.h: the OxL lexer (generated from lex.re by re2c). It turns one
 * source into tokens, applies the newline rule (a newline ends a statement
 * when the line's last token can end one), splits interpolated strings
 * into STR_BEGIN / expression tokens / STR_MID / STR_END, and reports
 * lexical errors to the sink. Prefix: lex_. */
#ifndef OXL_LEX_H
#define OXL_LEX_H

#include "base/base.h"

/* Limits of the lexer (besides BASE_MAX_NESTING for brackets). */
#define LEX_MAX_INTERP_NESTING 8   /* strings inside interpolations inside strings ... */
#define LEX_MAX_IDENT_BYTES 1024   /* longer identifiers are an error */

typedef enum lex_kind {
    LEX_EOF = 0,
    LEX_NEWLINE,     /* a newline that ends a statement (or the end of the file after one) */
    LEX_SEMI,        /* ';' */
    LEX_IDENT,
    LEX_UNDERSCORE,  /* '_' on its own */
    LEX_INT,         /* ival */
    LEX_DURATION,    /* ival: nanoseconds */
    LEX_STRING,      /* a string without interpolation: text, len */
    LEX_STR_BEGIN,   /* "text{    */
    LEX_STR_MID,     /* }text{    */
    LEX_STR_END,     /* }text"    */

    LEX_LPAREN, LEX_RPAREN, LEX_LBRACKET, LEX_RBRACKET, LEX_LBRACE, LEX_RBRACE,
    LEX_COMMA, LEX_COLON, LEX_DOT, LEX_DOTDOT, LEX_DOTDOTEQ,
    LEX_ASSIGN, LEX_PLUSEQ, LEX_MINUSEQ, LEX_STAREQ,
    LEX_EQ, LEX_NE, LEX_LT, LEX_LE, LEX_GT, LEX_GE,
    LEX_PLUS, LEX_MINUS, LEX_STAR, LEX_SLASH, LEX_PERCENT,
    LEX_NOT, LEX_ANDAND, LEX_OROR, LEX_PIPE, LEX_QUESTION,
    LEX_QQ,          /* ?? */
    LEX_FATARROW,    /* => */
    LEX_ARROW,       /* -> */

    /* reserved keywords */
    LEX_KW_FN, LEX_KW_LET, LEX_KW_VAR, LEX_KW_IF, LEX_KW_ELSE, LEX_KW_WHILE, LEX_KW_FOR,
    LEX_KW_IN, LEX_KW_BREAK, LEX_KW_CONTINUE, LEX_KW_RETURN, LEX_KW_MATCH, LEX_KW_IS,
    LEX_KW_ASSERT, LEX_KW_SPAWN, LEX_KW_SELECT, LEX_KW_AFTER, LEX_KW_TYPE, LEX_KW_CONST,
    LEX_KW_MOD, LEX_KW_USE, LEX_KW_PACKAGE, LEX_KW_EXTERN, LEX_KW_SERVICE, LEX_KW_TEST,
    LEX_KW_TRUE, LEX_KW_FALSE, LEX_KW_NONE, LEX_KW_PUB,
    /* contextual keywords: keywords only where the grammar expects them
     * (service members, cluster roles, test headers); elsewhere names */
    LEX_KW_STATE, LEX_KW_ON, LEX_KW_START, LEX_KW_RPC, LEX_KW_CLUSTER, LEX_KW_ROLE,
    LEX_KW_SIM, LEX_KW_SEEDS, LEX_KW_WITH,

    LEX_KIND_COUNT
} lex_kind;

#define LEX_FIRST_KEYWORD LEX_KW_FN
#define LEX_FIRST_CONTEXTUAL LEX_KW_STATE

typedef struct lex_token {
    uint16_t kind;     /* lex_kind */
    base_span span;
    /* IDENT and keywords: the interned spelling. STRING and STR_*: the
     * decoded text (NUL-terminated, may hold NULs: see len). */
    const char *text;
    uint32_t len;
    int64_t ival;      /* INT: value; DURATION: nanoseconds */
} lex_token;

typedef struct lex_state lex_state;

/* A lexer over `src` (registered in `diags`); allocated in `arena`,
 * identifiers interned in `names`. */
lex_state *lex_new(base_arena *arena, base_names *names, diag_sink *diags, const base_source *src);
/* The next token; LEX_EOF forever once the end is reached. */
lex_token lex_next(lex_state *L);
/* True after an error that stops the file (too deeply nested): the lexer
 * then returns only LEX_EOF. */
bool lex_stopped(const lex_state *L);

/* "IDENT", "LPAREN", "KW_FN": the dump form. */
const char *lex_kind_name(lex_kind k);
/* "identifier", "'('", "'fn'": the form used in messages. */
const char *lex_kind_desc(lex_kind k);

/* One line of `oxl check --dump-tokens`: "line:col KIND [value]". */
void lex_dump_token(const diag_sink *d, const lex_token *t, FILE *out);

#endif
