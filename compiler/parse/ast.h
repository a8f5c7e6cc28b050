/* ast.h: the syntax tree the parser builds and sema annotates. One node
 * shape for everything (kind + span + a few slots), allocated in the
 * compilation's arena; the table below says what each kind keeps in which
 * slot. Prefix: ast_. */
#ifndef OXL_AST_H
#define OXL_AST_H

#include "base/base.h"

typedef enum ast_kind {
    AST_INVALID = 0,

    /* ---- files and items ---- */
    AST_FILE,        /* list: items; name: package name or NULL */
    AST_USE,         /* name: dotted path ("std.test"); list: AST_IDENT names imported (empty: the module itself) */
    AST_FN,          /* name; list: AST_PARAM; a: return type or NULL; b: body AST_BLOCK (NULL when extern); flags: AST_F_EXTERN;
                        a method (flags AST_F_METHOD, fn T.m(self, ...)): name2 the type's name, c its AST_TYPE_NAME */
    AST_PARAM,       /* name; a: type (NULL for a method's `self`); b: default value or NULL */
    AST_TYPE_DECL,   /* name; list: AST_FIELD (a struct), or a: type (an alias, e.g. a union) */
    AST_FIELD,       /* name; a: type; b: default or NULL */
    AST_CONST,       /* name; a: type or NULL; b: value */
    AST_MOD,         /* name; list: items */
    AST_SERVICE,     /* name; list: AST_STATE, AST_ON_START, AST_FN (rpc: flags AST_F_RPC) */
    AST_STATE,       /* name; a: type; b: initial value */
    AST_ON_START,    /* a: body AST_BLOCK */
    AST_CLUSTER,     /* name; list: AST_ROLE */
    AST_ROLE,        /* name: role; a: AST_TYPE_NAME of the service */
    AST_TEST,        /* name: test name (the decoded string, length in ival); op: AST_TEST_UNIT or AST_TEST_SIM;
                        a: seeds AST_RANGE or NULL; list: cluster arguments (AST_ARG) when
                        `with cluster(...)` is given, flags AST_F_CLUSTER; b: body AST_BLOCK */

    /* ---- statements ---- */
    AST_BLOCK,       /* list: statements */
    AST_LET,         /* name; a: type or NULL; b: value */
    AST_VAR,         /* name; a: type or NULL; b: value or NULL */
    AST_ASSIGN,      /* op: '=' or AST_OP_ADD/SUB/MUL (+= -= *=); a: target; b: value */
    AST_EXPR_STMT,   /* a: expression */
    AST_IF,          /* a: condition; b: then AST_BLOCK; c: else (AST_BLOCK or AST_IF) or NULL */
    AST_WHILE,       /* a: condition; b: body */
    AST_FOR,         /* name: loop variable; name2: second variable (for k, v in map) or NULL;
                        a: iterable (an AST_RANGE or any expression); b: body */
    AST_BREAK,
    AST_CONTINUE,
    AST_RETURN,      /* a: value or NULL */
    AST_ASSERT,      /* a: condition; b: message or NULL; name: the condition's source text */
    AST_MATCH,       /* a: subject; list: AST_ARM */
    AST_ARM,         /* a: type pattern (NULL for `_`); name: binding or NULL; b: body (AST_BLOCK or expression) */
    AST_SELECT,      /* list: AST_SELECT_ARM */
    AST_SELECT_ARM,  /* op: AST_SEL_RECV (`v = c.recv() =>`, name: v or NULL), AST_SEL_SEND (`c.send(x) =>`),
                        AST_SEL_AFTER (`after d =>`); a: the channel call or the duration; b: body */

    /* ---- expressions ---- */
    AST_INT,         /* ival */
    AST_DURATION,    /* ival: nanoseconds */
    AST_STRING,      /* name: decoded text (may contain NUL: len in ival) */
    AST_INTERP,      /* list: parts, alternating AST_STRING and expressions */
    AST_BOOL,        /* ival: 0 or 1 */
    AST_NONE,
    AST_IDENT,       /* name */
    AST_FIELD_ACCESS,/* a: object; name: field or method; ival: set by sema for a built-in method
                        call's callee, its sema_method id (SM_*) */
    AST_CALL,        /* a: callee; list: AST_ARG */
    AST_ARG,         /* name: label or NULL; a: value */
    AST_INDEX,       /* a: object; list: indices (several for Map[K, V]) */
    AST_UNARY,       /* op: '-' or '!' ; a: operand */
    AST_BINARY,      /* op: AST_OP_*; a, b */
    AST_IS,          /* a: value; b: type */
    AST_RANGE,       /* a: start; b: end; flags: AST_F_INCLUSIVE for ..= */
    AST_LIST_LIT,    /* list: elements */
    AST_MAP_LIT,     /* list: AST_MAP_ENTRY */
    AST_MAP_ENTRY,   /* a: key; b: value */
    AST_STRUCT_LIT,  /* a: type (AST_TYPE_NAME); list: AST_ARG (name = field) */
    AST_SPAWN,       /* a: the call, or b: a block */
    AST_FN_LIT,      /* fn(x: Int) -> Int { ... }: list: AST_PARAM; a: result type or NULL; b: body AST_BLOCK */
    AST_PAREN,       /* a: inner expression (kept for exact source text of asserts) */

    /* ---- types ---- */
    AST_TYPE_NAME,   /* name: dotted name ("Int", "std.time.Instant"); list: generic arguments */
    AST_TYPE_LIST,   /* a: element type: [T] */
    AST_TYPE_OPTIONAL, /* a: T in T? */
    AST_TYPE_UNION,  /* list: member types (flattened) */
    AST_TYPE_FN,     /* list: parameter types; a: result type or NULL (fn(Int) -> Bool) */

    AST_KIND_COUNT
} ast_kind;

/* AST_BINARY / AST_ASSIGN operators. */
typedef enum ast_op {
    AST_OP_NONE = 0,
    AST_OP_ADD, AST_OP_SUB, AST_OP_MUL, AST_OP_DIV, AST_OP_MOD,
    AST_OP_EQ, AST_OP_NE, AST_OP_LT, AST_OP_LE, AST_OP_GT, AST_OP_GE,
    AST_OP_AND, AST_OP_OR, AST_OP_NOT, AST_OP_NEG,
    AST_OP_SET, /* plain '=' in AST_ASSIGN */
    AST_OP_COALESCE, /* a ?? b */
} ast_op;

enum {
    AST_TEST_UNIT = 1,
    AST_TEST_SIM = 2,
    AST_SEL_RECV = 1,
    AST_SEL_SEND = 2,
    AST_SEL_AFTER = 3,
};

enum {
    AST_F_EXTERN = 1 << 0,
    AST_F_RPC = 1 << 1,
    AST_F_INCLUSIVE = 1 << 2,
    AST_F_CLUSTER = 1 << 3,
    AST_F_PUB = 1 << 4,
    AST_F_REMOTE = 1 << 5, /* set by sema: a call of Service.rpc from outside the service */
    AST_F_DEAD = 1 << 6,   /* set by sema: a match arm a narrowing ruled out (never runs) */
    AST_F_METHOD = 1 << 7, /* fn T.m(self, ...) */
};

struct sema_type;

typedef struct ast_node ast_node;
struct ast_node {
    uint8_t kind;         /* ast_kind */
    uint8_t op;           /* ast_op, test kind or select arm kind */
    uint16_t flags;       /* AST_F_* */
    base_span span;       /* the whole construct */
    base_span name_span;  /* where `name` is written, for diagnostics */
    const char *name;     /* interned where it is an identifier */
    const char *name2;
    int64_t ival;
    ast_node *a, *b, *c;
    base_vec list;        /* of ast_node* */
    /* filled in by sema */
    struct sema_type *type;
    void *sym;
};

ast_node *ast_new(base_arena *a, ast_kind kind, base_span span);
const char *ast_kind_name(ast_kind kind);
/* The golden-test form: one node per line, indented two spaces per level,
 * `kind name value @line:col`, children in slot order a, b, c, list. */
void ast_dump(const diag_sink *d, const ast_node *n, FILE *out);

#endif
