/* ast.c: node allocation, kind names and the dump used by golden tests. */
#include "parse/ast.h"

#include <string.h>

ast_node *ast_new(base_arena *a, ast_kind kind, base_span span) {
    ast_node *n = base_alloc(a, sizeof *n); /* zeroed: every slot starts empty */
    n->kind = (uint8_t)kind;
    n->span = span;
    return n;
}

static const char *const kind_names[AST_KIND_COUNT] = {
    [AST_INVALID] = "INVALID", [AST_FILE] = "FILE", [AST_USE] = "USE", [AST_FN] = "FN",
    [AST_PARAM] = "PARAM", [AST_TYPE_DECL] = "TYPE_DECL", [AST_FIELD] = "FIELD", [AST_CONST] = "CONST",
    [AST_MOD] = "MOD", [AST_SERVICE] = "SERVICE", [AST_STATE] = "STATE", [AST_ON_START] = "ON_START",
    [AST_CLUSTER] = "CLUSTER", [AST_ROLE] = "ROLE", [AST_TEST] = "TEST", [AST_BLOCK] = "BLOCK",
    [AST_LET] = "LET", [AST_VAR] = "VAR", [AST_ASSIGN] = "ASSIGN", [AST_EXPR_STMT] = "EXPR_STMT",
    [AST_IF] = "IF", [AST_WHILE] = "WHILE", [AST_FOR] = "FOR", [AST_BREAK] = "BREAK",
    [AST_CONTINUE] = "CONTINUE", [AST_RETURN] = "RETURN", [AST_ASSERT] = "ASSERT", [AST_MATCH] = "MATCH",
    [AST_ARM] = "ARM", [AST_SELECT] = "SELECT", [AST_SELECT_ARM] = "SELECT_ARM", [AST_INT] = "INT",
    [AST_DURATION] = "DURATION", [AST_STRING] = "STRING", [AST_INTERP] = "INTERP", [AST_BOOL] = "BOOL",
    [AST_NONE] = "NONE", [AST_IDENT] = "IDENT", [AST_FIELD_ACCESS] = "FIELD_ACCESS", [AST_CALL] = "CALL",
    [AST_ARG] = "ARG", [AST_INDEX] = "INDEX", [AST_UNARY] = "UNARY", [AST_BINARY] = "BINARY",
    [AST_IS] = "IS", [AST_RANGE] = "RANGE", [AST_LIST_LIT] = "LIST_LIT", [AST_MAP_LIT] = "MAP_LIT",
    [AST_MAP_ENTRY] = "MAP_ENTRY", [AST_STRUCT_LIT] = "STRUCT_LIT", [AST_SPAWN] = "SPAWN", [AST_FN_LIT] = "FN_LIT",
    [AST_PAREN] = "PAREN", [AST_TYPE_NAME] = "TYPE_NAME", [AST_TYPE_LIST] = "TYPE_LIST",
    [AST_TYPE_OPTIONAL] = "TYPE_OPTIONAL", [AST_TYPE_UNION] = "TYPE_UNION", [AST_TYPE_FN] = "TYPE_FN",
};

const char *ast_kind_name(ast_kind kind) {
    return kind < AST_KIND_COUNT && kind_names[kind] ? kind_names[kind] : "?";
}

static const char *op_text(unsigned op) {
    static const char *const ops[] = {
        [AST_OP_NONE] = "", [AST_OP_ADD] = "+", [AST_OP_SUB] = "-", [AST_OP_MUL] = "*", [AST_OP_DIV] = "/",
        [AST_OP_MOD] = "%", [AST_OP_EQ] = "==", [AST_OP_NE] = "!=", [AST_OP_LT] = "<", [AST_OP_LE] = "<=",
        [AST_OP_GT] = ">", [AST_OP_GE] = ">=", [AST_OP_AND] = "&&", [AST_OP_OR] = "||", [AST_OP_NOT] = "!",
        [AST_OP_NEG] = "-", [AST_OP_SET] = "=", [AST_OP_COALESCE] = "??",
    };
    return op < sizeof ops / sizeof ops[0] && ops[op] ? ops[op] : "?";
}

/* Strings are shown quoted with the language's escapes, so a dump line
 * never breaks and never holds control bytes. */
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
        default:
            if (c < 0x20 || c == 0x7f) fprintf(out, "\\u{%X}", c);
            else fputc(c, out);
        }
    }
    fputc('"', out);
}

static void dump_node(const diag_sink *d, const ast_node *n, FILE *out, int depth, const char *slot) {
    for (int i = 0; i < depth; i++) fputs("  ", out);
    if (slot) fprintf(out, "%s: ", slot);
    if (!n) {
        fputs("(null)\n", out);
        return;
    }
    fputs(ast_kind_name(n->kind), out);
    switch (n->kind) {
    case AST_STRING:
        fputc(' ', out);
        put_quoted(out, n->name ? n->name : "", (size_t)n->ival);
        break;
    case AST_TEST:
        fputc(' ', out);
        put_quoted(out, n->name ? n->name : "", n->name ? (size_t)n->ival : 0);
        break;
    case AST_ASSERT:
        fputc(' ', out);
        put_quoted(out, n->name ? n->name : "", n->name ? strlen(n->name) : 0);
        break;
    default:
        if (n->name) fprintf(out, " %s", n->name);
        if (n->name2) fprintf(out, " %s", n->name2);
        break;
    }
    switch (n->kind) {
    case AST_INT: fprintf(out, " %lld", (long long)n->ival); break;
    case AST_DURATION: fprintf(out, " %lldns", (long long)n->ival); break;
    case AST_BOOL: fputs(n->ival ? " true" : " false", out); break;
    case AST_BINARY: case AST_UNARY: case AST_ASSIGN: fprintf(out, " %s", op_text(n->op)); break;
    case AST_RANGE: fputs(n->flags & AST_F_INCLUSIVE ? " ..=" : " ..", out); break;
    case AST_TEST: fputs(n->op == AST_TEST_SIM ? " sim" : " unit", out); break;
    case AST_SELECT_ARM:
        fputs(n->op == AST_SEL_RECV ? " recv" : n->op == AST_SEL_SEND ? " send" : " after", out);
        break;
    default: break;
    }
    if (n->flags & AST_F_PUB) fputs(" pub", out);
    if (n->flags & AST_F_EXTERN) fputs(" extern", out);
    if (n->flags & AST_F_RPC) fputs(" rpc", out);
    if (n->flags & AST_F_CLUSTER) fputs(" cluster", out);
    base_pos p = diag_position(d, n->span);
    fprintf(out, " @%u:%u\n", p.line, p.col);
    if (n->a) dump_node(d, n->a, out, depth + 1, "a");
    if (n->b) dump_node(d, n->b, out, depth + 1, "b");
    if (n->c) dump_node(d, n->c, out, depth + 1, "c");
    for (uint32_t i = 0; i < n->list.len; i++) dump_node(d, n->list.items[i], out, depth + 1, NULL);
}

void ast_dump(const diag_sink *d, const ast_node *n, FILE *out) { dump_node(d, n, out, 0, NULL); }
