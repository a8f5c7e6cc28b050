/* grammar.y: the OxL grammar for lemon. lemon turns it into grammar.c in
 * the build tree, which parse.c includes: the actions call parse.c's
 * static helpers (node building, spans) and see its
 * parse_ctx through %extra_context. docs/language.md has the same grammar
 * in EBNF; keep the two in step.
 *
 * Tokens come from parse.c's token pusher, which has already
 *  - turned newlines and ';' into TERM (the lexer's newline rule),
 *  - turned the '{' that opens the body of an if/while/for/match/test head
 *    or follows else, spawn or '=>' into BODY (so a struct literal cannot
 *    swallow a body, and a block is never taken for a map literal),
 *  - turned a keyword used as a label or parameter name (`for: 2s`) into
 *    IDENT,
 *  - turned the `fn` that opens an element of an index's brackets into
 *    FNTYPE (Chan[fn(Int) -> Int](1): a function type, not a literal).
 * Contextual keywords fall back to IDENT wherever they are not expected.
 *
 * No %destructor is needed: every node and string lives in the
 * compilation's arena, so a value dropped during error recovery costs
 * nothing and is freed with the arena. */

%name parse_lemon
%token_prefix TK_
%token_type {lex_token}
%default_type {ast_node *}
%extra_context {parse_ctx *ctx}
%start_symbol file
%stack_size 4096

%syntax_error { parse_syntax_error(ctx, yypParser, yymajor, &TOKEN); }
%stack_overflow { parse_stack_overflow(ctx); }
%parse_failure { ctx->failed = true; }

/* Token order is the lex_kind order (parse.c maps one to the other). */
%token TERM IDENT UNDERSCORE INT DURATION STRING STR_BEGIN STR_MID STR_END
       LPAREN RPAREN LBRACKET RBRACKET LBRACE RBRACE BODY
       COMMA COLON DOT DOTDOT DOTDOTEQ ASSIGN PLUSEQ MINUSEQ STAREQ
       EQ NE LT LE GT GE PLUS MINUS STAR SLASH PERCENT
       NOT ANDAND OROR PIPE QUESTION QQ FATARROW ARROW
       FN LET VAR IF ELSE WHILE FOR IN BREAK CONTINUE RETURN MATCH IS
       ASSERT SPAWN SELECT AFTER TYPE CONST MOD USE PACKAGE EXTERN SERVICE TEST
       TRUE FALSE NONE PUB
       STATE ON START RPC CLUSTER ROLE SIM SEEDS WITH
       FNTYPE.

%fallback IDENT STATE ON START RPC CLUSTER ROLE SIM SEEDS WITH.

/* Lowest first. In an arm, `=> assert e, m` takes the ',' as the start of
 * its message (ASSERT below COMMA), not as the end of the arm: arms after
 * it go on the next line. ARROW below PIPE and QUESTION: the result of a function
 * type extends over a union or '?' (fn(Int) -> A | B returns A | B). */
%nonassoc ASSERT.
%nonassoc COMMA.
%nonassoc ARROW.
%left PIPE.
%left QUESTION.
%left OROR.
%left ANDAND.
%nonassoc EQ NE LT LE GT GE.
%right QQ.
%nonassoc IS.
%nonassoc DOTDOT DOTDOTEQ.
%left PLUS MINUS.
%left STAR SLASH PERCENT.

%type dotted {pdotted}
%type arg_list {base_vec}
%type args {base_vec}
%type index_list {base_vec}
%type elems {base_vec}
%type elem_seq {base_vec}
%type finits {base_vec}
%type finit_seq {base_vec}
%type entries {base_vec}
%type entry_seq {base_vec}
%type params {base_vec}
%type param_list {base_vec}
%type tfields {base_vec}
%type tfield_seq {base_vec}
%type type_list {base_vec}
%type type_args {base_vec}
%type names {base_vec}
%type name_seq {base_vec}
%type stmts {base_vec}
%type stmt_list {base_vec}
%type mitems {base_vec}
%type mitem_list {base_vec}
%type members {base_vec}
%type member_list {base_vec}
%type roles {base_vec}
%type role_list {base_vec}
%type arms {base_vec}
%type arm_items {base_vec}
%type sel_arms {base_vec}
%type sel_items {base_vec}
%type bind_name {lex_token}
%type sep {lex_token}

/* ================= files and items ================= */

file ::= items.

/* Top-level items go straight into the file node, so a file that stops
 * early (too deeply nested) keeps every item finished before. */
items ::= .
items ::= items TERM.
items ::= items item(I) TERM. { p_add_item(ctx, I); }
items ::= items error TERM.
items ::= items PACKAGE(P) IDENT(N) TERM. { p_package(ctx, &P, &N); }

item(R) ::= use_decl(D). { R = D; }
item(R) ::= decl(D). { R = D; }
item(R) ::= PUB(P) pub_decl(D). { R = D; R->flags |= AST_F_PUB; R->span = join(P.span, D->span); }

decl(R) ::= pub_decl(D). { R = D; }
decl(R) ::= cluster_decl(D). { R = D; }
decl(R) ::= test_decl(D). { R = D; }
decl(R) ::= binding(D). { R = D; }

pub_decl(R) ::= fn_decl(D). { R = D; }
pub_decl(R) ::= extern_decl(D). { R = D; }
pub_decl(R) ::= type_decl(D). { R = D; }
pub_decl(R) ::= const_decl(D). { R = D; }
pub_decl(R) ::= mod_decl(D). { R = D; }
pub_decl(R) ::= service_decl(D). { R = D; }

/* use std.test { net, node }   use std.time */
use_decl(R) ::= USE(U) dotted(D). {
    R = p_node(ctx, AST_USE, join(U.span, D.span));
    R->name = p_dotted_name(ctx, &D);
    R->name_span = D.span;
}
use_decl(R) ::= USE(U) dotted(D) LBRACE names(L) RBRACE(E). {
    R = p_node(ctx, AST_USE, join(U.span, E.span));
    R->name = p_dotted_name(ctx, &D);
    R->name_span = D.span;
    R->list = L;
}

dotted(R) ::= IDENT(N). { R.parts = (base_vec){0}; p_push(ctx, &R.parts, (void *)N.text); R.span = N.span; }
dotted(R) ::= dotted(D) DOT IDENT(N). { R = D; p_push(ctx, &R.parts, (void *)N.text); R.span = join(D.span, N.span); }

names(R) ::= . { R = (base_vec){0}; }
names(R) ::= name_seq(S). { R = S; }
names(R) ::= name_seq(S) sep. { R = S; }
name_seq(R) ::= IDENT(N). { R = (base_vec){0}; p_push(ctx, &R, p_ident(ctx, &N)); }
name_seq(R) ::= name_seq(S) sep IDENT(N). { R = S; p_push(ctx, &R, p_ident(ctx, &N)); }

/* A list separator inside braces: a comma or the end of a line. */
sep(R) ::= COMMA(C). { R = C; }
sep(R) ::= TERM(T). { R = T; }

/* fn name(params) -> T { ... } */
fn_decl(R) ::= FN(F) IDENT(N) LPAREN params(P) RPAREN ret(T) block(B). {
    R = p_node(ctx, AST_FN, join(F.span, B->span));
    p_name(R, &N);
    R->list = P;
    R->a = T;
    R->b = B;
}
/* fn Account.deposit(self, n: Int) { ... }: a method of a struct type */
fn_decl(R) ::= FN(F) IDENT(T) DOT IDENT(N) LPAREN params(P) RPAREN ret(Y) block(B). {
    R = p_node(ctx, AST_FN, join(F.span, B->span));
    p_name(R, &N);
    R->list = P;
    R->a = Y;
    R->b = B;
    R->c = p_ident_type(ctx, &T);
    R->name2 = T.text;
    R->flags |= AST_F_METHOD;
}
extern_decl(R) ::= EXTERN(X) FN IDENT(N) LPAREN params(P) RPAREN(E) ret(T). {
    R = p_node(ctx, AST_FN, join(X.span, T ? T->span : E.span));
    p_name(R, &N);
    R->list = P;
    R->a = T;
    R->flags |= AST_F_EXTERN;
}

ret(R) ::= . { R = NULL; }
ret(R) ::= ARROW type(T). { R = T; }

params(R) ::= . { R = (base_vec){0}; }
params(R) ::= param_list(L). { R = L; }
params(R) ::= param_list(L) COMMA. { R = L; }
params(R) ::= param_list(L) TERM. { R = L; }
param_list(R) ::= param(P). { R = (base_vec){0}; p_push(ctx, &R, P); }
param_list(R) ::= param_list(L) COMMA param(P). { R = L; p_push(ctx, &R, P); }

/* `self`, the receiver of a method (any other bare name is refused by sema) */
param(R) ::= IDENT(N). {
    R = p_node(ctx, AST_PARAM, N.span);
    p_name(R, &N);
}
param(R) ::= IDENT(N) COLON type(T). {
    R = p_node(ctx, AST_PARAM, join(N.span, T->span));
    p_name(R, &N);
    R->a = T;
}
param(R) ::= IDENT(N) COLON type(T) ASSIGN expr(D). {
    R = p_node(ctx, AST_PARAM, join(N.span, D->span));
    p_name(R, &N);
    R->a = T;
    R->b = D;
}

/* type Order { id: Int, total: Int }   type R = Order | PayError */
type_decl(R) ::= TYPE(K) IDENT(N) LBRACE tfields(F) RBRACE(E). {
    R = p_node(ctx, AST_TYPE_DECL, join(K.span, E.span));
    p_name(R, &N);
    R->list = F;
}
type_decl(R) ::= TYPE(K) IDENT(N) ASSIGN type(T). {
    R = p_node(ctx, AST_TYPE_DECL, join(K.span, T->span));
    p_name(R, &N);
    R->a = T;
}

tfields(R) ::= . { R = (base_vec){0}; }
tfields(R) ::= tfield_seq(S). { R = S; }
tfields(R) ::= tfield_seq(S) sep. { R = S; }
tfield_seq(R) ::= tfield(F). { R = (base_vec){0}; p_push(ctx, &R, F); }
tfield_seq(R) ::= tfield_seq(S) sep tfield(F). { R = S; p_push(ctx, &R, F); }

tfield(R) ::= IDENT(N) COLON type(T). {
    R = p_node(ctx, AST_FIELD, join(N.span, T->span));
    p_name(R, &N);
    R->a = T;
}
tfield(R) ::= IDENT(N) COLON type(T) ASSIGN expr(D). {
    R = p_node(ctx, AST_FIELD, join(N.span, D->span));
    p_name(R, &N);
    R->a = T;
    R->b = D;
}

const_decl(R) ::= CONST(K) IDENT(N) ASSIGN expr(V). {
    R = p_node(ctx, AST_CONST, join(K.span, V->span));
    p_name(R, &N);
    R->b = V;
}
const_decl(R) ::= CONST(K) IDENT(N) COLON type(T) ASSIGN expr(V). {
    R = p_node(ctx, AST_CONST, join(K.span, V->span));
    p_name(R, &N);
    R->a = T;
    R->b = V;
}

/* mod name { items } */
mod_decl(R) ::= MOD(K) IDENT(N) LBRACE mitem_list(L) RBRACE(E). {
    R = p_node(ctx, AST_MOD, join(K.span, E.span));
    p_name(R, &N);
    R->list = L;
}
mod_decl(R) ::= MOD(K) IDENT(N) LBRACE mitems(L) error RBRACE(E). {
    R = p_node(ctx, AST_MOD, join(K.span, E.span));
    p_name(R, &N);
    R->list = L;
}
mitem_list(R) ::= mitems(S). { R = S; }
mitem_list(R) ::= mitems(S) item(I). { R = S; p_push(ctx, &R, I); }
mitems(R) ::= . { R = (base_vec){0}; }
mitems(R) ::= mitems(S) TERM. { R = S; }
mitems(R) ::= mitems(S) item(I) TERM. { R = S; p_push(ctx, &R, I); }
mitems(R) ::= mitems(S) error TERM. { R = S; }

/* service Name { state ..., on start { }, rpc f() { }, fn helper() { } } */
service_decl(R) ::= SERVICE(K) IDENT(N) LBRACE member_list(L) RBRACE(E). {
    R = p_node(ctx, AST_SERVICE, join(K.span, E.span));
    p_name(R, &N);
    R->list = L;
}
service_decl(R) ::= SERVICE(K) IDENT(N) LBRACE members(L) error RBRACE(E). {
    R = p_node(ctx, AST_SERVICE, join(K.span, E.span));
    p_name(R, &N);
    R->list = L;
}
member_list(R) ::= members(S). { R = S; }
member_list(R) ::= members(S) member(M). { R = S; p_push(ctx, &R, M); }
members(R) ::= . { R = (base_vec){0}; }
members(R) ::= members(S) TERM. { R = S; }
members(R) ::= members(S) member(M) TERM. { R = S; p_push(ctx, &R, M); }
members(R) ::= members(S) error TERM. { R = S; }

member(R) ::= STATE(K) IDENT(N) COLON type(T) ASSIGN expr(V). {
    R = p_node(ctx, AST_STATE, join(K.span, V->span));
    p_name(R, &N);
    R->a = T;
    R->b = V;
}
member(R) ::= ON(K) START block(B). {
    R = p_node(ctx, AST_ON_START, join(K.span, B->span));
    R->a = B;
}
member(R) ::= RPC(K) IDENT(N) LPAREN params(P) RPAREN ret(T) block(B). {
    R = p_node(ctx, AST_FN, join(K.span, B->span));
    p_name(R, &N);
    R->list = P;
    R->a = T;
    R->b = B;
    R->flags |= AST_F_RPC;
}
member(R) ::= fn_decl(F). { R = F; }
member(R) ::= PUB(P) fn_decl(F). { R = F; R->flags |= AST_F_PUB; R->span = join(P.span, F->span); }

/* cluster shop { role api: Api } */
cluster_decl(R) ::= CLUSTER(K) IDENT(N) LBRACE role_list(L) RBRACE(E). {
    R = p_node(ctx, AST_CLUSTER, join(K.span, E.span));
    p_name(R, &N);
    R->list = L;
}
cluster_decl(R) ::= CLUSTER(K) IDENT(N) LBRACE roles(L) error RBRACE(E). {
    R = p_node(ctx, AST_CLUSTER, join(K.span, E.span));
    p_name(R, &N);
    R->list = L;
}
role_list(R) ::= roles(S). { R = S; }
role_list(R) ::= roles(S) role(M). { R = S; p_push(ctx, &R, M); }
roles(R) ::= . { R = (base_vec){0}; }
roles(R) ::= roles(S) TERM. { R = S; }
roles(R) ::= roles(S) role(M) TERM. { R = S; p_push(ctx, &R, M); }
roles(R) ::= roles(S) error TERM. { R = S; }

role(R) ::= ROLE(K) IDENT(N) COLON dotted(D). {
    R = p_node(ctx, AST_ROLE, join(K.span, D.span));
    p_name(R, &N);
    R->a = p_type_name(ctx, &D);
}

/* test "name" { }   test sim "name" seeds 1..=500 with cluster(nodes: 3) { } */
test_decl(R) ::= TEST(K) STRING(S) body(B). {
    R = p_test(ctx, &K, &S, NULL, B);
    R->op = AST_TEST_UNIT;
}
test_decl(R) ::= TEST(K) SIM STRING(S) seeds(D) body(B). {
    R = p_test(ctx, &K, &S, D, B);
    R->op = AST_TEST_SIM;
}
test_decl(R) ::= TEST(K) SIM STRING(S) seeds(D) WITH CLUSTER LPAREN args(A) RPAREN body(B). {
    R = p_test(ctx, &K, &S, D, B);
    R->op = AST_TEST_SIM;
    R->list = A;
    R->flags |= AST_F_CLUSTER;
}
seeds(R) ::= . { R = NULL; }
seeds(R) ::= SEEDS(K) expr(E). { R = p_seeds(ctx, &K, E); }

/* ================= statements ================= */

block(R) ::= LBRACE(L) stmt_list(S) RBRACE(E). { R = p_block(ctx, join(L.span, E.span), S); }
block(R) ::= LBRACE(L) stmts(S) error RBRACE(E). { R = p_block(ctx, join(L.span, E.span), S); }
body(R) ::= BODY(L) stmt_list(S) RBRACE(E). { R = p_block(ctx, join(L.span, E.span), S); }
body(R) ::= BODY(L) stmts(S) error RBRACE(E). { R = p_block(ctx, join(L.span, E.span), S); }

/* Statements end with TERM; the last one before '}' need not. After a
 * syntax error the parser skips to the next TERM or to the '}' of the
 * block (error rules end in a token, never in a default reduction). */
stmt_list(R) ::= stmts(S). { R = S; }
stmt_list(R) ::= stmts(S) stmt(T). { R = S; p_push(ctx, &R, T); }
stmts(R) ::= . { R = (base_vec){0}; }
stmts(R) ::= stmts(S) TERM. { R = S; }
stmts(R) ::= stmts(S) stmt(T) TERM. { R = S; p_push(ctx, &R, T); }
stmts(R) ::= stmts(S) error TERM. { R = S; }

bind_name(R) ::= IDENT(N). { R = N; }
bind_name(R) ::= UNDERSCORE(N). { R = N; R.text = p_underscore(ctx); }

stmt(R) ::= binding(B). { R = B; }
/* let and var parse at the top level too, so that sema can say why a
 * package has no mutable globals instead of a bare syntax error. */
binding(R) ::= LET(K) bind_name(N) ASSIGN expr(V). { R = p_binding(ctx, AST_LET, &K, &N, NULL, V); }
binding(R) ::= LET(K) bind_name(N) COLON type(T) ASSIGN expr(V). { R = p_binding(ctx, AST_LET, &K, &N, T, V); }
binding(R) ::= VAR(K) bind_name(N) ASSIGN expr(V). { R = p_binding(ctx, AST_VAR, &K, &N, NULL, V); }
binding(R) ::= VAR(K) bind_name(N) COLON type(T) ASSIGN expr(V). { R = p_binding(ctx, AST_VAR, &K, &N, T, V); }
binding(R) ::= VAR(K) bind_name(N) COLON type(T). { R = p_binding(ctx, AST_VAR, &K, &N, T, NULL); }
stmt(R) ::= simple(S). { R = S; }
stmt(R) ::= arm_stmt(S). { R = S; }
/* The statements besides simple ones that may also stand alone after '=>'. */
arm_stmt(R) ::= ASSERT(K) expr(C). [ASSERT] { R = p_assert(ctx, &K, C, NULL); }
arm_stmt(R) ::= ASSERT(K) expr(C) COMMA expr(M). { R = p_assert(ctx, &K, C, M); }
arm_stmt(R) ::= if_stmt(S). { R = S; }
arm_stmt(R) ::= WHILE(K) expr(C) body(B). {
    R = p_node(ctx, AST_WHILE, join(K.span, B->span));
    R->a = C;
    R->b = B;
}
arm_stmt(R) ::= FOR(K) bind_name(N) IN expr(E) body(B). {
    R = p_node(ctx, AST_FOR, join(K.span, B->span));
    p_name(R, &N);
    R->a = E;
    R->b = B;
}
arm_stmt(R) ::= FOR(K) bind_name(N) COMMA bind_name(M) IN expr(E) body(B). {
    R = p_node(ctx, AST_FOR, join(K.span, B->span));
    p_name(R, &N);
    R->name2 = M.text;
    R->a = E;
    R->b = B;
}
arm_stmt(R) ::= MATCH(K) expr(E) BODY arms(A) RBRACE(Z). {
    R = p_node(ctx, AST_MATCH, join(K.span, Z.span));
    R->a = E;
    R->list = A;
}
arm_stmt(R) ::= MATCH(K) expr(E) BODY arm_items(A) error RBRACE(Z). {
    R = p_node(ctx, AST_MATCH, join(K.span, Z.span));
    R->a = E;
    R->list = A;
}
arm_stmt(R) ::= SELECT(K) LBRACE sel_arms(A) RBRACE(Z). {
    R = p_node(ctx, AST_SELECT, join(K.span, Z.span));
    R->list = A;
}
arm_stmt(R) ::= SELECT(K) LBRACE sel_items(A) error RBRACE(Z). {
    R = p_node(ctx, AST_SELECT, join(K.span, Z.span));
    R->list = A;
}

/* The statements that may also stand alone after '=>' in an arm. */
simple(R) ::= expr(E). { R = p_node(ctx, AST_EXPR_STMT, E->span); R->a = E;  }
simple(R) ::= expr(T) ASSIGN expr(V). { R = p_assign(ctx, AST_OP_SET, T, V); }
simple(R) ::= expr(T) PLUSEQ expr(V). { R = p_assign(ctx, AST_OP_ADD, T, V); }
simple(R) ::= expr(T) MINUSEQ expr(V). { R = p_assign(ctx, AST_OP_SUB, T, V); }
simple(R) ::= expr(T) STAREQ expr(V). { R = p_assign(ctx, AST_OP_MUL, T, V); }
simple(R) ::= BREAK(K). { R = p_node(ctx, AST_BREAK, K.span); }
simple(R) ::= CONTINUE(K). { R = p_node(ctx, AST_CONTINUE, K.span); }
simple(R) ::= RETURN(K). { R = p_node(ctx, AST_RETURN, K.span); }
simple(R) ::= RETURN(K) expr(E). { R = p_node(ctx, AST_RETURN, join(K.span, E->span)); R->a = E;  }

if_stmt(R) ::= IF(K) expr(C) body(B). {
    R = p_node(ctx, AST_IF, join(K.span, B->span));
    R->a = C;
    R->b = B;
}
if_stmt(R) ::= IF(K) expr(C) body(B) ELSE body(E). {
    R = p_node(ctx, AST_IF, join(K.span, E->span));
    R->a = C;
    R->b = B;
    R->c = E;
}
if_stmt(R) ::= IF(K) expr(C) body(B) ELSE if_stmt(E). {
    R = p_node(ctx, AST_IF, join(K.span, E->span));
    R->a = C;
    R->b = B;
    R->c = E;
}

/* match e { Order o => ..., PayError => ..., _ => ... } */
/* Arms are separated by ',' or the end of a line; like statements, an
 * arm with an error is skipped up to the next separator. */
arms(R) ::= arm_items(S). { R = S; }
arms(R) ::= arm_items(S) arm(A). { R = S; p_push(ctx, &R, A); }
arm_items(R) ::= . { R = (base_vec){0}; }
arm_items(R) ::= arm_items(S) sep. { R = S; }
arm_items(R) ::= arm_items(S) arm(A) sep. { R = S; p_push(ctx, &R, A); }
arm_items(R) ::= arm_items(S) error sep. { R = S; }

arm(R) ::= type(T) IDENT(N) FATARROW arm_body(B). {
    R = p_node(ctx, AST_ARM, join(T->span, B->span));
    R->a = T;
    p_name(R, &N);
    R->b = B;
}
arm(R) ::= type(T) FATARROW arm_body(B). {
    R = p_node(ctx, AST_ARM, join(T->span, B->span));
    R->a = T;
    R->b = B;
}
arm(R) ::= UNDERSCORE(U) FATARROW arm_body(B). {
    R = p_node(ctx, AST_ARM, join(U.span, B->span));
    R->b = B;
}

/* An arm's body: a block, an expression, or any one statement but a
 * declaration (kept as a block of one). */
arm_body(R) ::= body(B). { R = B; }
arm_body(R) ::= simple(S). { R = p_arm_body(ctx, S); }
arm_body(R) ::= arm_stmt(S). { R = p_arm_body(ctx, S); }
arm_body(R) ::= binding(S). { R = p_arm_decl(ctx, S); }

/* select { v = c.recv() => ..., c.send(x) => ..., after 1s => ... } */
sel_arms(R) ::= sel_items(S). { R = S; }
sel_arms(R) ::= sel_items(S) sel_arm(A). { R = S; p_push(ctx, &R, A); }
sel_items(R) ::= . { R = (base_vec){0}; }
sel_items(R) ::= sel_items(S) sep. { R = S; }
sel_items(R) ::= sel_items(S) sel_arm(A) sep. { R = S; p_push(ctx, &R, A); }
sel_items(R) ::= sel_items(S) error sep. { R = S; }

sel_arm(R) ::= IDENT(N) ASSIGN expr(C) FATARROW arm_body(B). { R = p_sel_arm(ctx, &N, C, B); }
sel_arm(R) ::= expr(C) FATARROW arm_body(B). { R = p_sel_arm(ctx, NULL, C, B); }
sel_arm(R) ::= AFTER(K) expr(D) FATARROW arm_body(B). {
    R = p_node(ctx, AST_SELECT_ARM, join(K.span, B->span));
    R->op = AST_SEL_AFTER;
    R->a = D;
    R->b = B;
}

/* ================= expressions ================= */

expr(R) ::= unary(U). { R = U; }
expr(R) ::= expr(A) OROR expr(B). { R = p_binary(ctx, AST_OP_OR, A, B); }
expr(R) ::= expr(A) ANDAND expr(B). { R = p_binary(ctx, AST_OP_AND, A, B); }
expr(R) ::= expr(A) EQ expr(B). { R = p_binary(ctx, AST_OP_EQ, A, B); }
expr(R) ::= expr(A) NE expr(B). { R = p_binary(ctx, AST_OP_NE, A, B); }
expr(R) ::= expr(A) LT expr(B). { R = p_binary(ctx, AST_OP_LT, A, B); }
expr(R) ::= expr(A) LE expr(B). { R = p_binary(ctx, AST_OP_LE, A, B); }
expr(R) ::= expr(A) GT expr(B). { R = p_binary(ctx, AST_OP_GT, A, B); }
expr(R) ::= expr(A) GE expr(B). { R = p_binary(ctx, AST_OP_GE, A, B); }
expr(R) ::= expr(A) QQ expr(B). { R = p_binary(ctx, AST_OP_COALESCE, A, B); }
expr(R) ::= expr(A) PLUS expr(B). { R = p_binary(ctx, AST_OP_ADD, A, B); }
expr(R) ::= expr(A) MINUS expr(B). { R = p_binary(ctx, AST_OP_SUB, A, B); }
expr(R) ::= expr(A) STAR expr(B). { R = p_binary(ctx, AST_OP_MUL, A, B); }
expr(R) ::= expr(A) SLASH expr(B). { R = p_binary(ctx, AST_OP_DIV, A, B); }
expr(R) ::= expr(A) PERCENT expr(B). { R = p_binary(ctx, AST_OP_MOD, A, B); }
expr(R) ::= expr(A) IS type(T). {
    ast_node *n = p_node(ctx, AST_IS, join(A->span, T->span));
    n->a = A;
    n->b = T;
    R = n;
}
expr(R) ::= expr(A) DOTDOT expr(B). { R = p_range(ctx, A, B, 0); }
expr(R) ::= expr(A) DOTDOTEQ expr(B). { R = p_range(ctx, A, B, AST_F_INCLUSIVE); }

unary(R) ::= postfix(P). { R = P; }
unary(R) ::= MINUS(K) unary(U). { R = p_unary(ctx, &K, AST_OP_NEG, U); }
unary(R) ::= NOT(K) unary(U). { R = p_unary(ctx, &K, AST_OP_NOT, U); }
unary(R) ::= SPAWN(K) postfix(P). { R = p_spawn_call(ctx, &K, P); }
unary(R) ::= SPAWN(K) body(B). {
    ast_node *n = p_node(ctx, AST_SPAWN, join(K.span, B->span));
    n->b = B;
    R = n;
}
/* spawn(name: "client 3") f(x): the task's name in reports and traces */
unary(R) ::= SPAWN(K) LPAREN IDENT(N) COLON expr(E) RPAREN postfix(P). {
    R = p_spawn_named(ctx, p_spawn_call(ctx, &K, P), &N, E);
}
unary(R) ::= SPAWN(K) LPAREN IDENT(N) COLON expr(E) RPAREN body(B). {
    ast_node *n = p_node(ctx, AST_SPAWN, join(K.span, B->span));
    n->b = B;
    R = p_spawn_named(ctx, n, &N, E);
}

postfix(R) ::= primary(P). { R = P; }
postfix(R) ::= postfix(P) DOT IDENT(N). {
    ast_node *n = p_node(ctx, AST_FIELD_ACCESS, join(P->span, N.span));
    n->a = P;
    p_name(n, &N);
    R = n;
}
postfix(R) ::= postfix(P) LPAREN args(A) RPAREN(E). {
    ast_node *n = p_node(ctx, AST_CALL, join(P->span, E.span));
    n->a = P;
    n->list = A;
    R = n;
}
postfix(R) ::= postfix(P) LBRACKET index_list(L) RBRACKET(E). {
    ast_node *n = p_node(ctx, AST_INDEX, join(P->span, E.span));
    n->a = P;
    n->list = L;
    R = n;
}
/* Order { id: 1, total: 3 } */
postfix(R) ::= postfix(P) LBRACE finits(F) RBRACE(E). { R = p_struct_lit(ctx, P, F, E.span); }

primary(R) ::= INT(T). { ast_node *n = p_node(ctx, AST_INT, T.span); n->ival = T.ival; R = n; }
primary(R) ::= DURATION(T). { ast_node *n = p_node(ctx, AST_DURATION, T.span); n->ival = T.ival; R = n; }
primary(R) ::= STRING(T). { R = p_string(ctx, &T); }
primary(R) ::= TRUE(T). { ast_node *n = p_node(ctx, AST_BOOL, T.span); n->ival = 1; R = n; }
primary(R) ::= FALSE(T). { ast_node *n = p_node(ctx, AST_BOOL, T.span); R = n; }
primary(R) ::= NONE(T). { R = p_node(ctx, AST_NONE, T.span); }
primary(R) ::= IDENT(T). { R = p_ident(ctx, &T); }
primary(R) ::= LPAREN(L) expr(E) RPAREN(Z). {
    ast_node *n = p_node(ctx, AST_PAREN, join(L.span, Z.span));
    n->a = E;
    R = n;
}
primary(R) ::= LBRACKET(L) elems(E) RBRACKET(Z). {
    ast_node *n = p_node(ctx, AST_LIST_LIT, join(L.span, Z.span));
    n->list = E;
    R = n;
}
primary(R) ::= LBRACE(L) entries(E) RBRACE(Z). {
    ast_node *n = p_node(ctx, AST_MAP_LIT, join(L.span, Z.span));
    n->list = E;
    R = n;
}
primary(R) ::= interp_head(H) STR_END(T). { R = p_interp_part(ctx, H, &T, NULL); }
/* fn(x: Int) -> Int { return x + k }: a function literal */
primary(R) ::= FN(F) LPAREN params(P) RPAREN ret(T) block(B). {
    ast_node *n = p_node(ctx, AST_FN_LIT, join(F.span, B->span));
    n->list = P;
    n->a = T;
    n->b = B;
    R = n;
}

/* "a{x}b{y}c": parts "a" x "b" y "c" (empty texts kept: strings and
 * expressions alternate). Left-recursive so many parts need no stack. */
interp_head(R) ::= STR_BEGIN(T) expr(E). {
    ast_node *n = p_node(ctx, AST_INTERP, T.span);
    p_push(ctx, &n->list, p_string(ctx, &T));
    p_push(ctx, &n->list, E);
    R = n;
}
interp_head(R) ::= interp_head(H) STR_MID(T) expr(E). { R = p_interp_part(ctx, H, &T, E); }

args(R) ::= . { R = (base_vec){0}; }
args(R) ::= arg_list(L). { R = L; }
args(R) ::= arg_list(L) COMMA. { R = L; }
args(R) ::= arg_list(L) TERM. { R = L; }
arg_list(R) ::= arg(A). { R = (base_vec){0}; p_push(ctx, &R, A); }
arg_list(R) ::= arg_list(L) COMMA arg(A). { R = L; p_push(ctx, &R, A); }

arg(R) ::= expr(E). { R = p_node(ctx, AST_ARG, E->span); R->a = E; }
arg(R) ::= IDENT(N) COLON expr(E). {
    R = p_node(ctx, AST_ARG, join(N.span, E->span));
    p_name(R, &N);
    R->a = E;
}

/* The indices of x[i], or the type arguments of Chan[T](n) and
 * Map[K, V](): an expression, or a function type (the pusher makes the
 * `fn` that opens an element of an index's brackets FNTYPE). */
index_list(R) ::= index_elem(E). { R = (base_vec){0}; p_push(ctx, &R, E); }
index_list(R) ::= index_list(L) COMMA index_elem(E). { R = L; p_push(ctx, &R, E); }
index_elem(R) ::= expr(E). { R = E; }
index_elem(R) ::= fn_type(T). { R = T; }

elems(R) ::= . { R = (base_vec){0}; }
elems(R) ::= elem_seq(S). { R = S; }
elems(R) ::= elem_seq(S) COMMA. { R = S; }
elems(R) ::= elem_seq(S) TERM. { R = S; }
elem_seq(R) ::= elem(E). { R = (base_vec){0}; p_push(ctx, &R, E); }
elem_seq(R) ::= elem_seq(S) COMMA elem(E). { R = S; p_push(ctx, &R, E); }
/* A function type only inside an index's brackets: Chan[[fn(Int)]](1) */
elem(R) ::= expr(E). { R = E; }
elem(R) ::= fn_type(T). { R = T; }

finits(R) ::= . { R = (base_vec){0}; }
finits(R) ::= finit_seq(S). { R = S; }
finits(R) ::= finit_seq(S) sep. { R = S; }
finit_seq(R) ::= finit(F). { R = (base_vec){0}; p_push(ctx, &R, F); }
finit_seq(R) ::= finit_seq(S) sep finit(F). { R = S; p_push(ctx, &R, F); }
finit(R) ::= IDENT(N) COLON expr(E). {
    R = p_node(ctx, AST_ARG, join(N.span, E->span));
    p_name(R, &N);
    R->a = E;
}

entries(R) ::= . { R = (base_vec){0}; }
entries(R) ::= entry_seq(S). { R = S; }
entries(R) ::= entry_seq(S) sep. { R = S; }
entry_seq(R) ::= entry(F). { R = (base_vec){0}; p_push(ctx, &R, F); }
entry_seq(R) ::= entry_seq(S) sep entry(F). { R = S; p_push(ctx, &R, F); }
entry(R) ::= expr(K) COLON expr(V). {
    R = p_node(ctx, AST_MAP_ENTRY, join(K->span, V->span));
    R->a = K;
    R->b = V;
}

/* ================= types ================= */

/* [ARROW]: after `fn(...) -> T` a following | or ? extends T (shift). */
type(R) ::= type_u(T). [ARROW] { R = T; }

type_u(R) ::= type_o(T). [ARROW] { R = T; }
type_u(R) ::= type_u(A) PIPE type_o(B). { R = p_union(ctx, A, B); }

/* T? is T | None; T?? is the same type, so it is kept as one T?. */
type_o(R) ::= type_p(T). { R = T; }
type_o(R) ::= type_o(T) QUESTION(Q). { R = p_optional(ctx, T, &Q); }
type_o(R) ::= type_o(T) QQ(Q). { R = p_optional(ctx, T, &Q); }

type_p(R) ::= dotted(D). { R = p_type_name(ctx, &D); }
type_p(R) ::= dotted(D) LBRACKET type_args(A) RBRACKET(E). {
    R = p_type_name(ctx, &D);
    R->list = A;
    R->span = join(D.span, E.span);
}
type_p(R) ::= LBRACKET(L) type(T) RBRACKET(E). {
    R = p_node(ctx, AST_TYPE_LIST, join(L.span, E.span));
    R->a = T;
}
type_p(R) ::= FN(F) LPAREN type_list(L) RPAREN(E). {
    R = p_node(ctx, AST_TYPE_FN, join(F.span, E.span));
    R->list = L;
}
type_p(R) ::= FN(F) LPAREN type_list(L) RPAREN ARROW type(T). {
    R = p_node(ctx, AST_TYPE_FN, join(F.span, T->span));
    R->list = L;
    R->a = T;
}
type_p(R) ::= fn_type(T). { R = T; }
fn_type(R) ::= FNTYPE(F) LPAREN type_list(L) RPAREN(E). {
    R = p_node(ctx, AST_TYPE_FN, join(F.span, E.span));
    R->list = L;
}
fn_type(R) ::= FNTYPE(F) LPAREN type_list(L) RPAREN ARROW type(T). {
    R = p_node(ctx, AST_TYPE_FN, join(F.span, T->span));
    R->list = L;
    R->a = T;
}
type_p(R) ::= LPAREN type(T) RPAREN. { R = T; }

type_args(R) ::= type(T). { R = (base_vec){0}; p_push(ctx, &R, T); }
type_args(R) ::= type_args(L) COMMA type(T). { R = L; p_push(ctx, &R, T); }

type_list(R) ::= . { R = (base_vec){0}; }
type_list(R) ::= type_args(L). { R = L; }
type_list(R) ::= type_args(L) COMMA. { R = L; }
