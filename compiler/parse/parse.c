/* parse.c: runs the lemon parser (grammar.y, generated into the build
 * tree and included below, so the grammar and its helpers form one
 * translation unit) over the lexer's tokens.
 *
 * Between the lexer and lemon sits the token pusher. It decides the four
 * things an LALR(1) grammar cannot see from one token:
 *  - a '{' that opens a body: after the head of if/while/for/match/test
 *    (at the head's bracket depth) or right after else, spawn or '=>'. It
 *    becomes BODY, so `if x == Order { ... }` never reads `Order {` as a
 *    struct literal (write `if x == (Order { ... })`), and a block after
 *    '=>' is never a map literal;
 *  - a keyword followed by ':' right after '(' or ',' inside parentheses
 *    is a label or parameter name (`for: 2s`): it becomes IDENT;
 *  - a `fn` right after the '[' or a ',' of brackets that follow an
 *    operand (an index, Chan[...]) or of a list nested in those is a
 *    function type: it becomes FNTYPE, so Chan[fn(Int) -> Int](1) parses
 *    (a function literal there needs parentheses);
 *  - after a syntax error, tokens inside brackets opened after the error
 *    are skipped, so recovery resynchronises on a TERM or '}' of the
 *    statement that failed, not on one nested inside it. */
#include "parse/parse.h"

#include "lex/lex.h"

#include <stdlib.h>
#include <string.h>

/* A dotted name being read (a.b.c): its parts and where it is written. */
typedef struct pdotted {
    base_vec parts; /* interned const char* */
    base_span span;
} pdotted;

enum { OPEN_PAREN = 1, OPEN_BRACKET, OPEN_BRACE, OPEN_INTERP };

typedef struct parse_ctx {
    base_arena *arena;
    base_names *names;
    diag_sink *diags;
    const base_source *src;
    lex_state *lex;
    ast_node *file;
    void *parser;
    const char *underscore;

    /* the token pusher */
    lex_token la;             /* one token of lookahead, when has_la */
    bool has_la;
    int prev_code;            /* the last token given to lemon */
    int prev2_code;           /* and the two before it */
    int prev3_code;
    uint8_t open[BASE_MAX_NESTING + 1];
    bool type_args[BASE_MAX_NESTING + 1]; /* an open '[' holds type arguments (or indices) */
    uint32_t nopen;
    uint32_t fntype_depth;    /* 1 + nopen inside the last FNTYPE's brackets; 0: none */
    uint32_t heads[BASE_MAX_NESTING + 1]; /* bracket depths of heads waiting for their body */
    uint32_t nheads;
    uint32_t depth_before;    /* nopen before the current token */
    uint32_t spawn_opts_depth; /* 1 + nopen outside `spawn(` while its options are open; 0: none */
    bool spawn_opts_closed;   /* the last token closed them */
    base_span cur_span;       /* the current token's place */

    /* The top of lemon's stack before the current token: the expected set
     * of a syntax error is read here, before lemon's default reductions
     * narrowed it (so "foo(a b)" expects ',' or ')', not only ')'). */
    uint16_t snap[64];
    int snap_base, snap_top;

    /* errors */
    bool recovering;
    uint32_t skip_base;
    bool stopped;             /* stack overflow: the rest of the file is not parsed */
    bool failed;
    bool nesting_reported;
} parse_ctx;

static base_span join(base_span a, base_span b) {
    base_span s = a;
    uint32_t end = b.off + b.len;
    if (end > a.off) s.len = end - a.off;
    return s;
}

static ast_node *p_node(parse_ctx *ctx, ast_kind kind, base_span span) { return ast_new(ctx->arena, kind, span); }

static void p_push(parse_ctx *ctx, base_vec *v, void *item) { base_vec_push(ctx->arena, v, item); }

static void p_error(parse_ctx *ctx, base_span at, const char *fmt, ...) BASE_PRINTF(3, 4);
static void p_error(parse_ctx *ctx, base_span at, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    diag_vreport(ctx->diags, DIAG_ERROR, at, fmt, ap);
    va_end(ap);
}

static void p_name(ast_node *n, const lex_token *t) {
    n->name = t->text;
    n->name_span = t->span;
}

static void p_add_item(parse_ctx *ctx, ast_node *item) { p_push(ctx, &ctx->file->list, item); }

static void p_package(parse_ctx *ctx, const lex_token *kw, const lex_token *name) {
    if (ctx->file->name) {
        p_error(ctx, kw->span, "a second package clause (the file already said 'package %s')", ctx->file->name);
        return;
    }
    if (ctx->file->list.len) {
        p_error(ctx, kw->span, "the package clause must come first in the file");
        return;
    }
    ctx->file->name = name->text;
    ctx->file->name_span = name->span;
}

static const char *p_dotted_name(parse_ctx *ctx, const pdotted *d) {
    if (d->parts.len == 1) return d->parts.items[0];
    size_t n = 0;
    for (uint32_t i = 0; i < d->parts.len; i++) n += strlen(d->parts.items[i]) + 1;
    char *buf = malloc(n);
    if (!buf) {
        fputs("oxl: out of memory\n", stderr);
        abort();
    }
    size_t k = 0;
    for (uint32_t i = 0; i < d->parts.len; i++) {
        size_t m = strlen(d->parts.items[i]);
        if (i) buf[k++] = '.';
        memcpy(buf + k, d->parts.items[i], m);
        k += m;
    }
    const char *r = base_intern(ctx->names, buf, k);
    free(buf);
    return r;
}

static ast_node *p_ident(parse_ctx *ctx, const lex_token *t) {
    ast_node *n = p_node(ctx, AST_IDENT, t->span);
    p_name(n, t);
    return n;
}

static ast_node *p_ident_type(parse_ctx *ctx, const lex_token *t) {
    ast_node *n = p_node(ctx, AST_TYPE_NAME, t->span);
    p_name(n, t);
    return n;
}

static ast_node *p_type_name(parse_ctx *ctx, const pdotted *d) {
    ast_node *n = p_node(ctx, AST_TYPE_NAME, d->span);
    n->name = p_dotted_name(ctx, d);
    n->name_span = d->span;
    return n;
}

static const char *p_underscore(parse_ctx *ctx) { return ctx->underscore; }

static ast_node *p_test(parse_ctx *ctx, const lex_token *kw, const lex_token *name, ast_node *seeds, ast_node *body) {
    ast_node *n = p_node(ctx, AST_TEST, join(kw->span, body->span));
    n->name = name->text;
    n->ival = (int64_t)name->len; /* the name may hold a NUL: sema refuses it */
    n->name_span = name->span;
    n->a = seeds;
    n->b = body;
    return n;
}

static ast_node *p_seeds(parse_ctx *ctx, const lex_token *kw, ast_node *e) {
    if (e->kind != AST_RANGE) {
        p_error(ctx, e->span, "'seeds' takes a range, such as 1..=100 or 1..101");
        return NULL;
    }
    return e;
}

static ast_node *p_block(parse_ctx *ctx, base_span span, base_vec stmts) {
    ast_node *n = p_node(ctx, AST_BLOCK, span);
    n->list = stmts;
    return n;
}

static ast_node *p_binding(parse_ctx *ctx, ast_kind kind, const lex_token *kw, const lex_token *name, ast_node *type,
                           ast_node *value) {
    base_span end = value ? value->span : type->span;
    ast_node *n = p_node(ctx, kind, join(kw->span, end));
    p_name(n, name);
    n->a = type;
    n->b = value;
    return n;
}

static ast_node *p_assert(parse_ctx *ctx, const lex_token *kw, ast_node *cond, ast_node *msg) {
    ast_node *n = p_node(ctx, AST_ASSERT, join(kw->span, msg ? msg->span : cond->span));
    n->a = cond;
    n->b = msg;
    /* the condition exactly as written, for the failure message */
    n->name = base_strndup(ctx->arena, ctx->src->text + cond->span.off, cond->span.len);
    n->name_span = cond->span;
    return n;
}

static bool assignable(const ast_node *t) {
    while (t->kind == AST_PAREN) t = t->a;
    return t->kind == AST_IDENT || t->kind == AST_FIELD_ACCESS || t->kind == AST_INDEX;
}

static ast_node *p_assign(parse_ctx *ctx, ast_op op, ast_node *target, ast_node *value) {
    ast_node *n = p_node(ctx, AST_ASSIGN, join(target->span, value->span));
    n->op = (uint8_t)op;
    n->a = target;
    n->b = value;
    if (!assignable(target))
        p_error(ctx, target->span, "cannot assign to this expression (a name, a field or an index can be assigned)");
    return n;
}

/* An arm body that is one simple statement: an expression stays an
 * expression, anything else becomes a block of one statement. */
static ast_node *p_arm_body(parse_ctx *ctx, ast_node *s) {
    if (s->kind == AST_EXPR_STMT) return s->a;
    ast_node *b = p_node(ctx, AST_BLOCK, s->span);
    p_push(ctx, &b->list, s);
    return b;
}

/* `=> let x = 1`: a declaration would bind nothing past the arm. */
static ast_node *p_arm_decl(parse_ctx *ctx, ast_node *s) {
    p_error(ctx, s->span, "a `%s` in an arm needs a block around it: => { %s %s = ... }",
            s->kind == AST_LET ? "let" : "var", s->kind == AST_LET ? "let" : "var", s->name ? s->name : "x");
    return p_arm_body(ctx, s);
}

static const char *call_method(const ast_node *c) {
    if (c->kind != AST_CALL || !c->a || c->a->kind != AST_FIELD_ACCESS) return NULL;
    return c->a->name;
}

static ast_node *p_sel_arm(parse_ctx *ctx, const lex_token *bind, ast_node *call, ast_node *body) {
    ast_node *n = p_node(ctx, AST_SELECT_ARM, join(bind ? bind->span : call->span, body->span));
    n->a = call;
    n->b = body;
    const char *m = call_method(call);
    if (m && strcmp(m, "recv") == 0) {
        n->op = AST_SEL_RECV;
        if (bind) p_name(n, bind);
    } else if (m && strcmp(m, "send") == 0 && !bind) {
        n->op = AST_SEL_SEND;
    } else if (m && strcmp(m, "send") == 0) {
        n->op = AST_SEL_SEND;
        p_error(ctx, bind->span, "only a receive binds a value: write 'v = c.recv() =>'");
    } else {
        n->op = AST_SEL_RECV;
        p_error(ctx, call->span, "a select arm waits on 'c.recv()', 'c.send(x)' or 'after d'");
    }
    return n;
}

static ast_node *p_binary(parse_ctx *ctx, ast_op op, ast_node *a, ast_node *b) {
    ast_node *n = p_node(ctx, AST_BINARY, join(a->span, b->span));
    n->op = (uint8_t)op;
    n->a = a;
    n->b = b;
    return n;
}

static ast_node *p_range(parse_ctx *ctx, ast_node *a, ast_node *b, uint16_t flags) {
    ast_node *n = p_node(ctx, AST_RANGE, join(a->span, b->span));
    n->a = a;
    n->b = b;
    n->flags = flags;
    return n;
}

static ast_node *p_unary(parse_ctx *ctx, const lex_token *op_tok, ast_op op, ast_node *e) {
    ast_node *n = p_node(ctx, AST_UNARY, join(op_tok->span, e->span));
    n->op = (uint8_t)op;
    n->a = e;
    return n;
}

/* spawn(name: e): the only option of spawn is its task's name (c). */
static ast_node *p_spawn_named(parse_ctx *ctx, ast_node *n, const lex_token *label, ast_node *name) {
    if (strcmp(label->text, "name") != 0)
        p_error(ctx, label->span, "spawn takes one option, its task's name: spawn(name: \"client 3\") f(x)");
    n->c = name;
    return n;
}

static ast_node *p_spawn_call(parse_ctx *ctx, const lex_token *kw, ast_node *e) {
    ast_node *n = p_node(ctx, AST_SPAWN, join(kw->span, e->span));
    n->a = e;
    if (e->kind != AST_CALL) p_error(ctx, e->span, "'spawn' takes a call (spawn f(x)) or a block (spawn { ... })");
    return n;
}

/* The type in front of a struct literal: a name or a dotted name. */
static ast_node *p_struct_lit(parse_ctx *ctx, ast_node *type, base_vec fields, base_span end) {
    ast_node *n = p_node(ctx, AST_STRUCT_LIT, join(type->span, end));
    n->list = fields;
    pdotted d = {{0}, type->span};
    const ast_node *t = type;
    /* a.b.C is FIELD_ACCESS(FIELD_ACCESS(a, b), C): collect the names backwards */
    uint32_t count = 0;
    for (; t->kind == AST_FIELD_ACCESS; t = t->a) count++;
    if (t->kind != AST_IDENT) {
        p_error(ctx, type->span, "a struct literal needs a type name before '{'");
        n->a = p_node(ctx, AST_TYPE_NAME, type->span);
        n->a->name = ctx->underscore;
        return n;
    }
    d.parts.items = base_alloc(ctx->arena, (count + 1) * sizeof(void *));
    d.parts.len = d.parts.cap = count + 1;
    uint32_t i = count;
    for (t = type; t->kind == AST_FIELD_ACCESS; t = t->a) d.parts.items[i--] = (void *)t->name;
    d.parts.items[0] = (void *)t->name;
    n->a = p_type_name(ctx, &d);
    return n;
}

static ast_node *p_string(parse_ctx *ctx, const lex_token *t) {
    ast_node *n = p_node(ctx, AST_STRING, t->span);
    n->name = t->text;
    n->ival = t->len;
    return n;
}

static ast_node *p_interp_part(parse_ctx *ctx, ast_node *head, const lex_token *t, ast_node *e) {
    p_push(ctx, &head->list, p_string(ctx, t));
    if (e) {
        p_push(ctx, &head->list, e);
        head->span = join(head->span, e->span);
    }
    head->span = join(head->span, t->span);
    return head;
}

static ast_node *p_union(parse_ctx *ctx, ast_node *a, ast_node *b) {
    if (a->kind == AST_TYPE_UNION) {
        p_push(ctx, &a->list, b);
        a->span = join(a->span, b->span);
        return a;
    }
    ast_node *n = p_node(ctx, AST_TYPE_UNION, join(a->span, b->span));
    p_push(ctx, &n->list, a);
    p_push(ctx, &n->list, b);
    return n;
}

static ast_node *p_optional(parse_ctx *ctx, ast_node *t, const lex_token *q) {
    if (t->kind == AST_TYPE_OPTIONAL) {
        t->span = join(t->span, q->span);
        return t;
    }
    ast_node *n = p_node(ctx, AST_TYPE_OPTIONAL, join(t->span, q->span));
    n->a = t;
    return n;
}

static void report_nesting(parse_ctx *ctx, base_span at, const char *what) {
    if (ctx->nesting_reported) return;
    ctx->nesting_reported = true;
    p_error(ctx, at, "too deeply nested (%s)", what);
}

static void parse_stack_overflow(parse_ctx *ctx) {
    report_nesting(ctx, ctx->cur_span, "the parser's stack is full");
    ctx->stopped = true;
}

static void parse_syntax_error(parse_ctx *ctx, void *parser, int major, const lex_token *tok);
static uint8_t innermost(const parse_ctx *ctx);

/* lemon's entry points, made by grammar.c (prototypes for -Wmissing-prototypes). */
void *parse_lemonAlloc(void *(*mallocProc)(size_t), parse_ctx *ctx);
void parse_lemonFree(void *p, void (*freeProc)(void *));
void parse_lemon(void *p, int major, lex_token minor);
void parse_lemonInit(void *p, parse_ctx *ctx);
void parse_lemonFinalize(void *p);
int parse_lemonFallback(int token);
void parse_lemonTrace(FILE *out, char *prompt);
int parse_lemonStackPeak(void *p);
int parse_lemonCoverage(FILE *out);

#define YYMALLOCARGTYPE size_t
/* lemon's template fetches %extra_context in yy_destructor even when no
 * %destructor uses it (none is needed: values live in the arena). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-variable"
#include "grammar.c"
#pragma GCC diagnostic pop

/* ---- lex kinds to lemon codes ---- */

static const unsigned char lemon_code[LEX_KIND_COUNT] = {
    [LEX_EOF] = 0, [LEX_NEWLINE] = TK_TERM, [LEX_SEMI] = TK_TERM, [LEX_IDENT] = TK_IDENT,
    [LEX_UNDERSCORE] = TK_UNDERSCORE, [LEX_INT] = TK_INT, [LEX_DURATION] = TK_DURATION,
    [LEX_STRING] = TK_STRING, [LEX_STR_BEGIN] = TK_STR_BEGIN, [LEX_STR_MID] = TK_STR_MID,
    [LEX_STR_END] = TK_STR_END, [LEX_LPAREN] = TK_LPAREN, [LEX_RPAREN] = TK_RPAREN,
    [LEX_LBRACKET] = TK_LBRACKET, [LEX_RBRACKET] = TK_RBRACKET, [LEX_LBRACE] = TK_LBRACE,
    [LEX_RBRACE] = TK_RBRACE, [LEX_COMMA] = TK_COMMA, [LEX_COLON] = TK_COLON, [LEX_DOT] = TK_DOT,
    [LEX_DOTDOT] = TK_DOTDOT, [LEX_DOTDOTEQ] = TK_DOTDOTEQ, [LEX_ASSIGN] = TK_ASSIGN,
    [LEX_PLUSEQ] = TK_PLUSEQ, [LEX_MINUSEQ] = TK_MINUSEQ, [LEX_STAREQ] = TK_STAREQ, [LEX_EQ] = TK_EQ,
    [LEX_NE] = TK_NE, [LEX_LT] = TK_LT, [LEX_LE] = TK_LE, [LEX_GT] = TK_GT, [LEX_GE] = TK_GE,
    [LEX_PLUS] = TK_PLUS, [LEX_MINUS] = TK_MINUS, [LEX_STAR] = TK_STAR, [LEX_SLASH] = TK_SLASH,
    [LEX_PERCENT] = TK_PERCENT, [LEX_NOT] = TK_NOT, [LEX_ANDAND] = TK_ANDAND, [LEX_OROR] = TK_OROR,
    [LEX_PIPE] = TK_PIPE, [LEX_QUESTION] = TK_QUESTION, [LEX_QQ] = TK_QQ, [LEX_FATARROW] = TK_FATARROW,
    [LEX_ARROW] = TK_ARROW, [LEX_KW_FN] = TK_FN, [LEX_KW_LET] = TK_LET, [LEX_KW_VAR] = TK_VAR,
    [LEX_KW_IF] = TK_IF, [LEX_KW_ELSE] = TK_ELSE, [LEX_KW_WHILE] = TK_WHILE, [LEX_KW_FOR] = TK_FOR,
    [LEX_KW_IN] = TK_IN, [LEX_KW_BREAK] = TK_BREAK, [LEX_KW_CONTINUE] = TK_CONTINUE,
    [LEX_KW_RETURN] = TK_RETURN, [LEX_KW_MATCH] = TK_MATCH, [LEX_KW_IS] = TK_IS,
    [LEX_KW_ASSERT] = TK_ASSERT, [LEX_KW_SPAWN] = TK_SPAWN, [LEX_KW_SELECT] = TK_SELECT,
    [LEX_KW_AFTER] = TK_AFTER, [LEX_KW_TYPE] = TK_TYPE, [LEX_KW_CONST] = TK_CONST, [LEX_KW_MOD] = TK_MOD,
    [LEX_KW_USE] = TK_USE, [LEX_KW_PACKAGE] = TK_PACKAGE, [LEX_KW_EXTERN] = TK_EXTERN,
    [LEX_KW_SERVICE] = TK_SERVICE, [LEX_KW_TEST] = TK_TEST, [LEX_KW_TRUE] = TK_TRUE,
    [LEX_KW_FALSE] = TK_FALSE, [LEX_KW_NONE] = TK_NONE, [LEX_KW_PUB] = TK_PUB, [LEX_KW_STATE] = TK_STATE,
    [LEX_KW_ON] = TK_ON, [LEX_KW_START] = TK_START, [LEX_KW_RPC] = TK_RPC, [LEX_KW_CLUSTER] = TK_CLUSTER,
    [LEX_KW_ROLE] = TK_ROLE, [LEX_KW_SIM] = TK_SIM, [LEX_KW_SEEDS] = TK_SEEDS, [LEX_KW_WITH] = TK_WITH,
};

/* How a lemon terminal is named in "expected ..." (by way of its lex kind). */
static const char *code_desc(int code) {
    if (code == TK_TERM) return "end of line";
    if (code == TK_BODY) return "'{'";
    if (code == TK_FNTYPE) return lex_kind_desc(LEX_KW_FN);
    if (code == TK_STR_MID || code == TK_STR_END) return "'}'";
    for (int k = 1; k < LEX_KIND_COUNT; k++)
        if (lemon_code[k] == code) return lex_kind_desc((lex_kind)k);
    return "?";
}

/* ---- syntax errors: what the parser would have accepted ---- */

/* Would the parser, in its current state, accept `code` (after any
 * reductions)? Simulated on a copy of the top of the stack. */
static bool accepts(const parse_ctx *ctx, const yyParser *p, int code) {
    enum { OVER = 64 };
    YYACTIONTYPE over[OVER];
    int nover = 0;
    const yyStackEntry *real = p->yystack;
    int real_top = (int)(p->yytos - p->yystack);
    bool snap = ctx->snap_top >= 0 && real_top >= ctx->snap_base - 1;
    if (snap) real_top = ctx->snap_top;
#define STATE_AT(i) (snap && (i) >= ctx->snap_base ? (YYACTIONTYPE)ctx->snap[(i) - ctx->snap_base] : real[(i)].stateno)
    for (int steps = 0; steps < 1000; steps++) {
        YYACTIONTYPE s = nover ? over[nover - 1] : STATE_AT(real_top);
        YYACTIONTYPE act = yy_find_shift_action((YYCODETYPE)code, s);
        if (act <= YY_MAX_SHIFTREDUCE || act == YY_ACCEPT_ACTION) return true;
        if (act < YY_MIN_REDUCE || act > YY_MAX_REDUCE) return false;
        int rule = act - YY_MIN_REDUCE;
        int n = -yyRuleInfoNRhs[rule];
        if (n <= nover) {
            nover -= n;
        } else {
            real_top -= n - nover;
            nover = 0;
            if (real_top < 0) return false;
        }
        YYACTIONTYPE top = nover ? over[nover - 1] : STATE_AT(real_top);
        if (nover == OVER) return false;
        over[nover++] = yy_find_reduce_action(top, (YYCODETYPE)yyRuleInfoLhs[rule]);
    }
#undef STATE_AT
    return false;
}

static bool is_expr_start(int c) {
    switch (c) {
    case TK_IDENT: case TK_INT: case TK_DURATION: case TK_STRING: case TK_STR_BEGIN: case TK_TRUE:
    case TK_FALSE: case TK_NONE: case TK_LPAREN: case TK_LBRACKET: case TK_LBRACE: case TK_MINUS:
    case TK_NOT: case TK_SPAWN: case TK_FN:
        return true;
    default:
        return false;
    }
}

static bool is_stmt_start(int c) {
    switch (c) {
    case TK_LET: case TK_VAR: case TK_IF: case TK_WHILE: case TK_FOR: case TK_BREAK: case TK_CONTINUE:
    case TK_RETURN: case TK_ASSERT: case TK_MATCH: case TK_SELECT:
        return true;
    default:
        return is_expr_start(c);
    }
}

static bool is_operator(int c) {
    switch (c) {
    case TK_OROR: case TK_ANDAND: case TK_EQ: case TK_NE: case TK_LT: case TK_LE: case TK_GT: case TK_GE:
    case TK_IS: case TK_DOTDOT: case TK_DOTDOTEQ: case TK_PLUS: case TK_MINUS: case TK_STAR: case TK_SLASH:
    case TK_PERCENT: case TK_QQ:
        return true;
    default:
        return false;
    }
}

static void parse_syntax_error(parse_ctx *ctx, void *parser, int major, const lex_token *tok) {
    const yyParser *p = parser;
    if (diag_errors(ctx->diags) >= BASE_MAX_ERRORS) {
        /* past the limit errors are only counted: skip the expected set */
        p_error(ctx, tok->span, "syntax error");
        goto recover;
    }
    bool ok[YYNTOKEN] = {false};
    for (int c = 1; c < YYNTOKEN; c++) ok[c] = accepts(ctx, p, c);
    /* contextual keywords are accepted wherever a name is (fallback) */
    if (ok[TK_IDENT])
        for (int c = TK_STATE; c <= TK_WITH; c++) ok[c] = false;

    bool all_expr = true, all_stmt = true, all_ops = true;
    for (int c = 1; c < YYNTOKEN; c++) {
        if (is_expr_start(c) && !ok[c]) all_expr = false;
        if (is_stmt_start(c) && !ok[c]) all_stmt = false;
        if (is_operator(c) && !ok[c]) all_ops = false;
    }
    const char *items[YYNTOKEN + 3];
    int n = 0;
    if (all_stmt) items[n++] = "statement";
    else if (all_expr) items[n++] = "expression";
    if (all_ops) items[n++] = "operator";
    for (int c = 1; c < YYNTOKEN; c++) {
        if (!ok[c]) continue;
        if ((all_stmt && is_stmt_start(c)) || (all_expr && is_expr_start(c)) || (all_ops && is_operator(c))) continue;
        if (c == TK_STR_MID || c == TK_STR_END) {
            /* one entry for the '}' that ends an interpolation */
            if (c == TK_STR_END && ok[TK_STR_MID]) continue;
        }
        /* BODY and LBRACE both read '{': name it once */
        bool dup = false;
        for (int i = 0; i < n && !dup; i++) dup = strcmp(items[i], code_desc(c)) == 0;
        if (!dup) items[n++] = code_desc(c);
    }

    char text[1024];
    base_text m;
    base_text_init(&m, text, sizeof text);
    char near[160];
    if (major == TK_IDENT && tok->text) snprintf(near, sizeof near, "identifier '%.100s'", tok->text);
    else if (major == 0) snprintf(near, sizeof near, "end of file");
    else if (tok->kind == LEX_SEMI) snprintf(near, sizeof near, "';'");
    else snprintf(near, sizeof near, "%s", tok->kind < LEX_KIND_COUNT ? lex_kind_desc(tok->kind) : code_desc(major));
    base_text_add(&m, "unexpected ");
    base_text_add(&m, near);
    if (n == 1) {
        base_text_add(&m, "; expected ");
        base_text_add(&m, items[0]);
    } else if (n > 1) {
        base_text_add(&m, "; expected one of: ");
        int shown = n > 12 ? 12 : n;
        for (int i = 0; i < shown; i++) {
            if (i) base_text_add(&m, ", ");
            base_text_add(&m, items[i]);
        }
        if (shown < n) base_text_add(&m, ", ...");
    }
    if (ok[TK_IDENT] && !ok[TK_INT] && tok->kind >= LEX_FIRST_KEYWORD && tok->kind < LEX_FIRST_CONTEXTUAL)
        base_text_add(&m, " (a keyword cannot be a name)");
    if (ctx->prev2_code == TK_TERM && ok[TK_RPAREN] && innermost(ctx) == OPEN_PAREN)
        base_text_add(&m, " (a ')' missing at the end of the previous line?)");
    if (major == TK_TERM && tok->kind == LEX_NEWLINE && (innermost(ctx) == OPEN_PAREN || innermost(ctx) == OPEN_BRACKET))
        base_text_add(&m, " (a list that goes on to the next line ends its line with ',')");
    if (ctx->fntype_depth && ctx->nopen + 1 >= ctx->fntype_depth)
        base_text_add(&m, " (inside an index's '[ ]', `fn(` starts a function type, as in Chan[fn(Int) -> Int](1): "
                          "put a function literal there in parentheses)");
    if (major == TK_BODY && (all_expr || all_stmt))
        base_text_add(&m, " (a map or struct literal in an if/while/for/match head needs parentheses)");
    if (major == TK_COLON && ctx->prev2_code == TK_IDENT && ctx->prev3_code == TK_BODY)
        base_text_add(&m, " (a struct literal in an if/while/for/match head needs parentheses: (T { ... }))");
    p_error(ctx, tok->span, "%s", m.buf);

recover:;
    /* lemon now pops to the nearest state that takes `error`; the
     * brackets still open below it tell how deep that state is. Tokens
     * inside brackets deeper than that are skipped by the pusher. */
    int k = (int)(p->yytos - p->yystack);
    while (k > 0 && yy_find_reduce_action(p->yystack[k].stateno, YYERRORSYMBOL) > YY_MAX_SHIFTREDUCE) k--;
    int depth = 0;
    for (int i = 1; i <= k; i++) {
        switch (p->yystack[i].major) {
        case TK_LPAREN: case TK_LBRACKET: case TK_LBRACE: case TK_BODY: case TK_STR_BEGIN: depth++; break;
        case TK_RPAREN: case TK_RBRACKET: case TK_RBRACE: case TK_STR_END: depth--; break;
        default: break;
        }
    }
    ctx->recovering = true;
    ctx->skip_base = depth < 0 ? 0 : (uint32_t)depth;
}

/* ---- the token pusher ---- */

static lex_token next_token(parse_ctx *ctx) {
    if (ctx->has_la) {
        ctx->has_la = false;
        return ctx->la;
    }
    return lex_next(ctx->lex);
}

static const lex_token *peek_token(parse_ctx *ctx) {
    if (!ctx->has_la) {
        ctx->la = lex_next(ctx->lex);
        ctx->has_la = true;
    }
    return &ctx->la;
}

static void open_push(parse_ctx *ctx, uint8_t kind) {
    if (ctx->nopen < sizeof ctx->open) ctx->open[ctx->nopen] = kind;
    ctx->nopen++;
}

/* Pops to the opener of `kind` (as the lexer does: not across an
 * interpolation); `keep` leaves that opener open (STR_MID). */
static void open_close(parse_ctx *ctx, uint8_t kind, bool keep) {
    uint32_t top = ctx->nopen < sizeof ctx->open ? ctx->nopen : (uint32_t)sizeof ctx->open;
    for (uint32_t i = top; i-- > 0;) {
        uint8_t k = ctx->open[i];
        if (k == kind) {
            ctx->nopen = keep ? i + 1 : i;
            return;
        }
        if (k == OPEN_INTERP) return;
    }
}

static uint8_t innermost(const parse_ctx *ctx) {
    if (ctx->nopen == 0 || ctx->nopen > sizeof ctx->open) return 0;
    return ctx->open[ctx->nopen - 1];
}

static void forget_unclosed(parse_ctx *ctx) {
    while (ctx->nopen > ctx->skip_base && (innermost(ctx) == OPEN_PAREN || innermost(ctx) == OPEN_BRACKET))
        ctx->nopen--;
}

/* A token that can end an operand: a '[' after it indexes (x[i],
 * Chan[T]), where a '[' after anything else opens a list. */
static bool ends_operand(int code) {
    switch (code) {
    case TK_IDENT: case TK_RPAREN: case TK_RBRACKET: case TK_STRING: case TK_STR_END: case TK_INT:
    case TK_DURATION: case TK_TRUE: case TK_FALSE: case TK_NONE:
        return true;
    default:
        return code >= TK_STATE && code <= TK_WITH; /* a contextual keyword used as a name */
    }
}

/* Whether the innermost open bracket holds type arguments: it indexes, or
 * it is a list type written as an element of such a bracket (Chan[[T]]). */
static bool in_type_args(const parse_ctx *ctx) {
    return innermost(ctx) == OPEN_BRACKET && ctx->nopen <= sizeof ctx->type_args && ctx->type_args[ctx->nopen - 1];
}

static bool is_head(int code) {
    return code == TK_IF || code == TK_WHILE || code == TK_FOR || code == TK_MATCH || code == TK_TEST;
}

static void snapshot(parse_ctx *ctx) {
    const yyParser *p = ctx->parser;
    int top = (int)(p->yytos - p->yystack);
    int base = top - 63 < 0 ? 0 : top - 63;
    for (int i = base; i <= top; i++) ctx->snap[i - base] = p->yystack[i].stateno;
    ctx->snap_base = base;
    ctx->snap_top = top;
}

static void feed(parse_ctx *ctx) {
    for (;;) {
        lex_token t = next_token(ctx);
        if (t.kind == LEX_EOF) {
            if (lex_stopped(ctx->lex)) return; /* reported by the lexer; nothing more to say */
            ctx->depth_before = ctx->nopen;
            ctx->cur_span = t.span;
            snapshot(ctx);
            parse_lemon(ctx->parser, 0, t);
            return;
        }
        int code = lemon_code[t.kind];

        /* `for: 2s`, `fn f(for: Duration)`: a keyword as a label or parameter name */
        if (t.kind >= LEX_FIRST_KEYWORD && (ctx->prev_code == TK_LPAREN || ctx->prev_code == TK_COMMA) &&
            innermost(ctx) == OPEN_PAREN && peek_token(ctx)->kind == LEX_COLON) {
            t.kind = LEX_IDENT;
            code = TK_IDENT;
        }

        /* Chan[fn(Int) -> Int](1): a `fn` that opens an element of an
         * index's brackets is a function type, not a function literal
         * (LALR(1) cannot tell them apart before the end of the literal's
         * parameters) */
        bool elem_start = ctx->prev_code == TK_LBRACKET || ctx->prev_code == TK_COMMA;
        if (t.kind == LEX_KW_FN && elem_start && in_type_args(ctx)) code = TK_FNTYPE;

        uint32_t before = ctx->nopen;
        bool synced = false;
        switch (t.kind) {
        case LEX_LPAREN: open_push(ctx, OPEN_PAREN); break;
        case LEX_LBRACKET:
            if (before < sizeof ctx->type_args)
                ctx->type_args[before] = ends_operand(ctx->prev_code) || (elem_start && in_type_args(ctx));
            open_push(ctx, OPEN_BRACKET);
            break;
        case LEX_LBRACE: open_push(ctx, OPEN_BRACE); break;
        case LEX_STR_BEGIN: open_push(ctx, OPEN_INTERP); break;
        case LEX_RPAREN: open_close(ctx, OPEN_PAREN, false); break;
        case LEX_RBRACKET: open_close(ctx, OPEN_BRACKET, false); break;
        case LEX_RBRACE: open_close(ctx, OPEN_BRACE, false); break;
        case LEX_STR_MID: open_close(ctx, OPEN_INTERP, true); break;
        case LEX_STR_END: open_close(ctx, OPEN_INTERP, false); break;
        default: break;
        }

        if (ctx->recovering) {
            /* Skip what lies inside brackets deeper than the state the
             * parser recovers in, but never the closer of the construct
             * that holds that state. A '(' or '[' still open at the end of
             * a line was never closed: forget it there. */
            if (code == TK_TERM) {
                forget_unclosed(ctx);
                if (ctx->nopen > ctx->skip_base) continue;
            } else if (ctx->nopen >= ctx->skip_base && (before > ctx->skip_base || ctx->nopen > ctx->skip_base)) {
                continue;
            }
            if (code == TK_TERM || t.kind == LEX_RPAREN || t.kind == LEX_RBRACKET || t.kind == LEX_RBRACE) {
                ctx->recovering = false;
                synced = code == TK_TERM;
            }
        }

        /* spawn(name: ...) { ... }: the '{' right after spawn's options opens its body */
        bool after_spawn_opts = ctx->spawn_opts_closed;
        ctx->spawn_opts_closed = false;
        if (t.kind == LEX_LPAREN && ctx->prev_code == TK_SPAWN) ctx->spawn_opts_depth = before + 1;
        else if (t.kind == LEX_RPAREN && ctx->spawn_opts_depth && ctx->nopen + 1 == ctx->spawn_opts_depth) {
            ctx->spawn_opts_depth = 0;
            ctx->spawn_opts_closed = true;
        }
        if (t.kind == LEX_LBRACE) {
            if (ctx->prev_code == TK_ELSE || ctx->prev_code == TK_SPAWN || ctx->prev_code == TK_FATARROW ||
                after_spawn_opts) {
                code = TK_BODY;
            } else if (ctx->nheads && ctx->heads[ctx->nheads - 1] == before) {
                code = TK_BODY;
                ctx->nheads--;
            }
        } else if (is_head(code)) {
            if (ctx->nheads < sizeof ctx->heads / sizeof ctx->heads[0]) ctx->heads[ctx->nheads++] = before;
        }
        /* a head that never reached its body (an error) is dropped at the
         * end of its statement or when its brackets close */
        while (ctx->nheads && (ctx->heads[ctx->nheads - 1] > ctx->nopen ||
                               (code == TK_TERM && ctx->heads[ctx->nheads - 1] >= ctx->nopen)))
            ctx->nheads--;

        if (code == TK_FNTYPE) ctx->fntype_depth = ctx->nopen + 1;
        else if (ctx->fntype_depth && ctx->nopen + 1 < ctx->fntype_depth) ctx->fntype_depth = 0;
        ctx->depth_before = before;
        ctx->prev3_code = ctx->prev2_code;
        ctx->prev2_code = ctx->prev_code;
        ctx->prev_code = code;
        bool was_recovering = ctx->recovering;
        ctx->cur_span = t.span;
        snapshot(ctx);
        parse_lemon(ctx->parser, code, t);
        if (ctx->stopped) return;
        if (!was_recovering && ctx->recovering && code == TK_TERM) {
            /* the error was at the end of the line: lemon resynchronised on
             * this very TERM */
            forget_unclosed(ctx);
            /* ...unless the next line opens with '{': then that block
             * belongs to the construct that failed (`fn f()` NEWLINE `{`)
             * and is skipped with it */
            if (ctx->nopen <= ctx->skip_base && peek_token(ctx)->kind != LEX_LBRACE) {
                ctx->recovering = false;
                synced = true;
            }
        }
        /* The statement that failed is behind us: the next error is a new
         * one, so lemon need not wait for three good tokens to report it. */
        if (synced) ((yyParser *)ctx->parser)->yyerrcnt = -1;
    }
}

/* ---- the depth limit, checked once over the finished tree ---- */

typedef struct depth_item {
    ast_node **slot;
    uint32_t depth;
} depth_item;

static void limit_depth(parse_ctx *ctx) {
    /* the stack starts with every top-level item on it */
    size_t cap = 256, n = 0;
    while (cap < (size_t)ctx->file->list.len + 3) cap *= 2;
    depth_item *stack = malloc(cap * sizeof *stack);
    if (!stack) {
        fputs("oxl: out of memory\n", stderr);
        abort();
    }
    for (uint32_t i = 0; i < ctx->file->list.len; i++)
        stack[n++] = (depth_item){(ast_node **)&ctx->file->list.items[i], 1};
    while (n) {
        depth_item it = stack[--n];
        ast_node *node = *it.slot;
        if (!node) continue;
        if (it.depth > PARSE_MAX_TREE_DEPTH) {
            char what[96];
            snprintf(what, sizeof what, "more than %d levels of statements and expressions", PARSE_MAX_TREE_DEPTH);
            report_nesting(ctx, node->span, what);
            *it.slot = p_node(ctx, AST_INVALID, node->span);
            continue;
        }
        size_t need = n + 3 + node->list.len;
        if (need > cap) {
            while (cap < need) cap *= 2;
            depth_item *s = realloc(stack, cap * sizeof *stack);
            if (!s) {
                free(stack);
                fputs("oxl: out of memory\n", stderr);
                abort();
            }
            stack = s;
        }
        for (uint32_t i = node->list.len; i-- > 0;)
            stack[n++] = (depth_item){(ast_node **)&node->list.items[i], it.depth + 1};
        if (node->c) stack[n++] = (depth_item){&node->c, it.depth + 1};
        if (node->b) stack[n++] = (depth_item){&node->b, it.depth + 1};
        if (node->a) stack[n++] = (depth_item){&node->a, it.depth + 1};
    }
    free(stack);
}

ast_node *parse_source(base_arena *arena, base_names *names, diag_sink *diags, const base_source *src) {
    parse_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.arena = arena;
    ctx.names = names;
    ctx.diags = diags;
    ctx.src = src;
    ctx.underscore = base_intern(names, "_", 1);
    base_span whole = {src->id, 0, src->len};
    ctx.file = ast_new(arena, AST_FILE, whole);
    ctx.lex = lex_new(arena, names, diags, src);
    ctx.prev_code = TK_TERM;
    ctx.snap_top = -1;
    ctx.parser = parse_lemonAlloc(malloc, &ctx);
#ifndef NDEBUG
    if (getenv("OXL_PARSE_TRACE")) parse_lemonTrace(stderr, "parse: ");
#endif
    if (!ctx.parser) {
        fputs("oxl: out of memory\n", stderr);
        abort();
    }
    feed(&ctx);
    parse_lemonFree(ctx.parser, free);
    limit_depth(&ctx);
    return ctx.file;
}
