/* stmt.c: statements: locals, assignment, if/while/for over ranges,
 * break/continue/return, assert, expression statements. */
#include "codegen/cg_internal.h"

#include <string.h>

bool cg_block(cg_module *m, const ast_node *block) {
    for (uint32_t i = 0; i < block->list.len; i++)
        if (!cg_stmt(m, block->list.items[i])) return false;
    return true;
}

static bool is_expr_kind(int k) { return k >= AST_INT && k <= AST_PAREN; }

/* The body of a match or select arm: a block, a bare expression (its
 * value unused) or one statement (the parser keeps those in a block). */
bool cg_arm_body(cg_module *m, const ast_node *b) {
    if (!b) return true;
    if (b->kind == AST_BLOCK) return cg_block(m, b);
    if (is_expr_kind(b->kind)) {
        if (!cg_expr(m, b)) return false;
        if (cg_terminated(m)) cg_start_dead_block(m);
        return true;
    }
    return cg_stmt(m, b);
}

static LLVMBasicBlockRef new_bb(cg_module *m, const char *name) {
    return LLVMAppendBasicBlockInContext(m->ctx, m->fn, name);
}

static void br_to(cg_module *m, LLVMBasicBlockRef bb) {
    if (!cg_terminated(m)) LLVMBuildBr(m->b, bb);
}

/* The zero value of docs/language.md 3.3 for `var x: T`. */
LLVMValueRef cg_zero(cg_module *m, const sema_type *t, base_span at) {
    switch (t->kind) {
    case TY_STRING:
    case TY_BYTES: {
        LLVMTypeRef ps[2] = {m->t_ptr, m->t_i64};
        LLVMValueRef f = cg_runtime_fn(m, "oxl_str_from_lit", m->t_ptr, ps, 2, false);
        LLVMValueRef args[2] = {cg_cstring(m, "", 0), LLVMConstInt(m->t_i64, 0, 0)};
        return cg_call(m, f, args, 2);
    }
    case TY_LIST: {
        LLVMTypeRef ps[1] = {m->t_i64};
        LLVMValueRef n = LLVMConstInt(m->t_i64, 0, 0);
        return cg_call(m, cg_runtime_fn(m, "oxl_list_new", m->t_ptr, ps, 1, false), &n, 1);
    }
    case TY_MAP: return cg_map_new(m, t);
    default: {
        LLVMTypeRef lt = cg_type(m, t, at, false);
        return lt ? LLVMConstNull(lt) : NULL; /* 0, false, 0s, the epoch, none */
    }
    }
}

static bool let_stmt(cg_module *m, const ast_node *s) {
    LLVMValueRef v = NULL;
    if (s->b && s->type && s->type->kind != TY_ERROR && s->type->kind != TY_NEVER) {
        if (!(v = cg_value(m, s->b, s->type))) return false;
        if (LLVMIsUndef(v) && cg_terminated(m)) return true;
    } else if (s->b) {
        v = cg_expr(m, s->b);
        if (!v) return false;
    }
    if (!s->type || s->type->kind == TY_ERROR || s->type->kind == TY_NEVER) {
        /* `let x = panic(...)`: the value never arrives */
        if (!cg_terminated(m)) {
            cg_unsupported(m, s->span, "this declaration");
            return false;
        }
        cg_start_dead_block(m);
        return true;
    }
    LLVMTypeRef t = cg_type(m, s->type, s->name_span, false);
    if (!t) return false;
    LLVMValueRef slot = cg_local_storage(m, s, t, s->name ? s->name : "");
    if (!v && !(v = cg_zero(m, s->type, s->name_span))) return false;
    LLVMBuildStore(m->b, v, slot);
    cg_add_local(m, s, slot);
    return true;
}

static const ast_node *strip(const ast_node *e) {
    while (e->kind == AST_PAREN) e = e->a;
    return e;
}

/* An assignable place: a local's slot, a struct field, a list element or a
 * map entry, with its parts evaluated once (for `a op= b`). */
typedef struct place {
    int kind; /* 'l' local, 'f' field, 'i' list element, 'm' map entry */
    LLVMValueRef slot, obj, key;
    const sema_type *t; /* the place's type */
    base_span at;
} place;

static bool eval_place(cg_module *m, const ast_node *t, place *p) {
    p->at = t->span;
    p->t = t->type;
    if (t->kind == AST_IDENT && t->sym && ((const sema_sym *)t->sym)->kind == SYM_STATE) {
        const sema_sym *sym = t->sym; /* a word of the node's state, as a struct field is */
        p->kind = 'f';
        p->t = sym->type;
        return (p->slot = cg_state_slot(m, sym, t->span)) != NULL;
    }
    if (t->kind == AST_IDENT) {
        const sema_sym *sym = t->sym;
        p->kind = 'l';
        p->slot = sym && (sym->kind == SYM_LOCAL || sym->kind == SYM_PARAM) ? cg_sym_slot(m, sym) : NULL;
        if (sym) p->t = sym->type;
        if (!p->slot) {
            cg_unsupported(m, t->span, "assigning to this target");
            return false;
        }
        return true;
    }
    if (t->kind == AST_FIELD_ACCESS && !t->sym && t->a && t->a->type && t->a->type->kind == TY_STRUCT) {
        p->kind = 'f';
        if (!(p->obj = cg_operand(m, t->a, m->t_ptr))) return false;
        return (p->slot = cg_field_ptr(m, p->obj, t->a->type, t->name)) != NULL;
    }
    if (t->kind == AST_INDEX && t->list.len == 1 && t->a->type &&
        (t->a->type->kind == TY_LIST || t->a->type->kind == TY_MAP)) {
        const sema_type *ct = t->a->type;
        p->kind = ct->kind == TY_LIST ? 'i' : 'm';
        p->t = ct->elem;
        if (!(p->obj = cg_operand(m, t->a, m->t_ptr))) return false;
        if (ct->kind == TY_LIST) {
            if (!(p->key = cg_operand(m, t->list.items[0], m->t_i64))) return false;
        } else {
            LLVMValueRef k = cg_value(m, t->list.items[0], ct->key);
            if (!k) return false;
            p->key = cg_to_word(m, k, ct->key);
        }
        return true;
    }
    cg_unsupported(m, t->span, "assigning to this target");
    return false;
}

static LLVMValueRef place_load(cg_module *m, place *p) {
    switch (p->kind) {
    case 'l': /* an alloca, or the collected cell of a var a spawn block captures */
        return LLVMBuildLoad2(m->b, cg_type(m, p->t, p->at, false), p->slot, "");
    case 'f': return cg_from_word(m, LLVMBuildLoad2(m->b, m->t_i64, p->slot, ""), p->t);
    case 'i': return cg_from_word(m, cg_list_at(m, p->obj, p->key, p->at), p->t);
    default: return cg_from_word(m, cg_map_at(m, p->obj, p->key, p->at), p->t);
    }
}

static void place_store(cg_module *m, place *p, LLVMValueRef v) {
    switch (p->kind) {
    case 'l': LLVMBuildStore(m->b, v, p->slot); return;
    case 'f': LLVMBuildStore(m->b, cg_to_word(m, v, p->t), p->slot); return;
    case 'i': {
        LLVMTypeRef ps[5] = {m->t_ptr, m->t_i64, m->t_i64, m->t_ptr, m->t_i32};
        LLVMValueRef f = cg_runtime_fn(m, "oxl_list_set", m->t_void, ps, 5, false);
        LLVMValueRef args[5] = {p->obj, p->key, cg_to_word(m, v, p->t), cg_file_ptr(m, p->at), cg_line(m, p->at)};
        cg_call(m, f, args, 5);
        return;
    }
    default: cg_map_set(m, p->obj, p->key, cg_to_word(m, v, p->t), p->at); return;
    }
}

/* target = e and target op= e (checked as target = target op e; the
 * target's parts are evaluated once, before e). */
static bool assign_stmt(cg_module *m, const ast_node *s) {
    place p = {0};
    if (!eval_place(m, strip(s->a), &p)) return false;
    int op = s->op;
    if (op == '=' || op == AST_OP_SET || op == AST_OP_NONE) {
        LLVMValueRef v = cg_value(m, s->b, p.t);
        if (!v) return false;
        if (!cg_terminated(m)) place_store(m, &p, v);
        return true;
    }
    int bop = op == '+' ? AST_OP_ADD : op == '-' ? AST_OP_SUB : op == '*' ? AST_OP_MUL : op;
    const sema_type *rt = s->b->type;
    LLVMTypeRef rlt = rt ? cg_type(m, rt, s->b->span, false) : NULL;
    if (!rlt) return false;
    LLVMValueRef r = cg_operand(m, s->b, rlt);
    if (!r) return false;
    LLVMValueRef old = place_load(m, &p), v;
    if (p.t->kind == TY_STRING && bop == AST_OP_ADD) {
        LLVMTypeRef ps[2] = {m->t_ptr, m->t_ptr};
        LLVMValueRef args[2] = {old, r};
        v = cg_call(m, cg_runtime_fn(m, "oxl_str_concat", m->t_ptr, ps, 2, false), args, 2);
    } else if (LLVMTypeOf(old) == m->t_i64 && rlt == m->t_i64) {
        v = cg_arith(m, bop, old, r, s->span);
    } else {
        cg_unsupported(m, s->span, "this compound assignment");
        return false;
    }
    if (!v) return false;
    place_store(m, &p, v);
    return true;
}

static bool if_stmt(cg_module *m, const ast_node *s) {
    LLVMValueRef c = cg_operand(m, s->a, m->t_i1);
    if (!c) return false;
    LLVMBasicBlockRef then_bb = new_bb(m, "then"), else_bb = s->c ? new_bb(m, "else") : NULL, end = new_bb(m, "endif");
    LLVMBuildCondBr(m->b, c, then_bb, else_bb ? else_bb : end);
    LLVMPositionBuilderAtEnd(m->b, then_bb);
    if (!cg_block(m, s->b)) return false;
    br_to(m, end);
    if (else_bb) {
        LLVMPositionBuilderAtEnd(m->b, else_bb);
        if (!(s->c->kind == AST_IF ? if_stmt(m, s->c) : cg_block(m, s->c))) return false;
        br_to(m, end);
    }
    LLVMPositionBuilderAtEnd(m->b, end);
    return true;
}

bool cg_loop_body(cg_module *m, const ast_node *body, LLVMBasicBlockRef brk, LLVMBasicBlockRef cont) {
    cg_loop l = {m->loop, brk, cont};
    m->loop = &l;
    bool ok = cg_block(m, body);
    m->loop = l.outer;
    if (ok) br_to(m, cont);
    return ok;
}

static bool while_stmt(cg_module *m, const ast_node *s) {
    LLVMBasicBlockRef cond = new_bb(m, "while.cond"), body = new_bb(m, "while.body"), end = new_bb(m, "while.end");
    LLVMBuildBr(m->b, cond);
    LLVMPositionBuilderAtEnd(m->b, cond);
    LLVMValueRef c = cg_operand(m, s->a, m->t_i1);
    if (!c) return false;
    LLVMBuildCondBr(m->b, c, body, end);
    LLVMPositionBuilderAtEnd(m->b, body);
    if (!cg_loop_body(m, s->b, end, cond)) return false;
    LLVMPositionBuilderAtEnd(m->b, end);
    return true;
}

/* for i in a..b / a..=b: both ends evaluated once; the inclusive form
 * stops at b before incrementing, so b == Int max does not overflow. */
/* for x in xs: the length is taken once (pushes in the body are not
 * visited); every element is read with the bounds check. */
static bool for_list(cg_module *m, const ast_node *s) {
    const sema_type *lt = s->a->type;
    if (!cg_type(m, lt, s->a->span, false)) return false;
    LLVMTypeRef elt = cg_type(m, lt->elem, s->name_span, false);
    if (!elt) return false;
    LLVMValueRef list = cg_operand(m, s->a, m->t_ptr);
    if (!list) return false;
    LLVMValueRef n = cg_list_len(m, list);
    LLVMValueRef idx = cg_entry_alloca(m, m->t_i64, "idx");
    /* for x in xs, or for i, x in xs (the index first) */
    LLVMValueRef islot = s->name2 ? cg_entry_alloca(m, m->t_i64, s->name ? s->name : "i") : NULL;
    LLVMValueRef slot = cg_entry_alloca(m, elt, s->name2 ? s->name2 : s->name ? s->name : "x");
    LLVMBuildStore(m->b, LLVMConstInt(m->t_i64, 0, 0), idx);
    if (islot) {
        cg_add_local(m, s, islot);
        cg_add_local2(m, s, slot);
    } else {
        cg_add_local(m, s, slot);
    }
    LLVMBasicBlockRef cond = new_bb(m, "for.cond"), body = new_bb(m, "for.body"), step = new_bb(m, "for.step"),
                      end = new_bb(m, "for.end");
    LLVMBuildBr(m->b, cond);
    LLVMPositionBuilderAtEnd(m->b, cond);
    LLVMValueRef i = LLVMBuildLoad2(m->b, m->t_i64, idx, "");
    LLVMBuildCondBr(m->b, LLVMBuildICmp(m->b, LLVMIntSLT, i, n, ""), body, end);
    LLVMPositionBuilderAtEnd(m->b, body);
    LLVMBuildStore(m->b, cg_from_word(m, cg_list_at(m, list, i, s->a->span), lt->elem), slot);
    if (islot) LLVMBuildStore(m->b, i, islot);
    if (!cg_loop_body(m, s->b, end, step)) return false;
    LLVMPositionBuilderAtEnd(m->b, step);
    i = LLVMBuildLoad2(m->b, m->t_i64, idx, "");
    LLVMBuildStore(m->b, LLVMBuildAdd(m->b, i, LLVMConstInt(m->t_i64, 1, 0), ""), idx);
    LLVMBuildBr(m->b, cond);
    LLVMPositionBuilderAtEnd(m->b, end);
    return true;
}

static bool for_stmt(cg_module *m, const ast_node *s) {
    const ast_node *r = strip(s->a);
    if (r->kind != AST_RANGE && s->a->type && s->a->type->kind == TY_CHAN) return cg_for_chan(m, s);
    if (r->kind != AST_RANGE && s->a->type && s->a->type->kind == TY_LIST) return for_list(m, s);
    if (r->kind != AST_RANGE && s->a->type && s->a->type->kind == TY_MAP) return cg_for_map(m, s);
    if (r->kind != AST_RANGE || s->name2) {
        cg_unsupported(m, s->a->span, "for loops over anything but a range");
        return false;
    }
    bool incl = (r->flags & AST_F_INCLUSIVE) != 0;
    LLVMValueRef lo = cg_operand(m, r->a, m->t_i64);
    if (!lo) return false;
    LLVMValueRef hi = cg_operand(m, r->b, m->t_i64);
    if (!hi) return false;
    LLVMValueRef slot = cg_entry_alloca(m, m->t_i64, s->name ? s->name : "i");
    LLVMBuildStore(m->b, lo, slot);
    cg_add_local(m, s, slot);
    LLVMBasicBlockRef cond = new_bb(m, "for.cond"), body = new_bb(m, "for.body"), step = new_bb(m, "for.step"),
                      end = new_bb(m, "for.end");
    LLVMBuildBr(m->b, cond);
    LLVMPositionBuilderAtEnd(m->b, cond);
    LLVMValueRef i = LLVMBuildLoad2(m->b, m->t_i64, slot, "");
    LLVMBuildCondBr(m->b, LLVMBuildICmp(m->b, incl ? LLVMIntSLE : LLVMIntSLT, i, hi, ""), body, end);
    LLVMPositionBuilderAtEnd(m->b, body);
    if (!cg_loop_body(m, s->b, end, step)) return false;
    LLVMPositionBuilderAtEnd(m->b, step);
    i = LLVMBuildLoad2(m->b, m->t_i64, slot, "");
    if (incl) {
        LLVMBasicBlockRef inc = new_bb(m, "for.inc");
        LLVMBuildCondBr(m->b, LLVMBuildICmp(m->b, LLVMIntEQ, i, hi, ""), end, inc);
        LLVMPositionBuilderAtEnd(m->b, inc);
    }
    LLVMBuildStore(m->b, LLVMBuildAdd(m->b, i, LLVMConstInt(m->t_i64, 1, 0), ""), slot);
    LLVMBuildBr(m->b, cond);
    LLVMPositionBuilderAtEnd(m->b, end);
    return true;
}

static bool return_stmt(cg_module *m, const ast_node *s) {
    const sema_sym *fs = m->fn_decl ? m->fn_decl->sym : NULL;
    const sema_type *rt = fs && fs->sig ? fs->sig->result : NULL;
    if (s->a) {
        bool void_fn = !rt || rt->kind == TY_NONE;
        LLVMValueRef v = void_fn ? cg_expr(m, s->a) : cg_value(m, s->a, rt);
        if (!v) return false;
        if (cg_terminated(m)) { /* return panic(...) */
            cg_start_dead_block(m);
            return true;
        }
        if (void_fn) LLVMBuildRetVoid(m->b);
        else LLVMBuildRet(m->b, v);
    } else {
        LLVMBuildRetVoid(m->b);
    }
    cg_start_dead_block(m);
    return true;
}

static bool assert_stmt(cg_module *m, const ast_node *s) {
    LLVMValueRef c = cg_operand(m, s->a, m->t_i1);
    if (!c) return false;
    LLVMBasicBlockRef fail = new_bb(m, "assert.fail"), ok = new_bb(m, "assert.ok");
    LLVMBuildCondBr(m->b, c, ok, fail);
    LLVMPositionBuilderAtEnd(m->b, fail);
    LLVMValueRef msg = LLVMConstNull(m->t_ptr);
    if (s->b) {
        msg = cg_to_string(m, s->b);
        if (!msg) return false;
    }
    const char *text = s->name ? s->name : "?";
    LLVMTypeRef ps[4] = {m->t_ptr, m->t_i32, m->t_ptr, m->t_ptr};
    LLVMValueRef f = cg_runtime_fn(m, "oxl_assert_fail", m->t_void, ps, 4, true);
    LLVMValueRef args[4] = {cg_file_ptr(m, s->span), cg_line(m, s->span), cg_cstring(m, text, strlen(text)), msg};
    cg_call(m, f, args, 4);
    LLVMBuildUnreachable(m->b);
    LLVMPositionBuilderAtEnd(m->b, ok);
    return true;
}

static bool stmt(cg_module *m, const ast_node *s);

bool cg_stmt(cg_module *m, const ast_node *s) {
    cg_cut_long_block(m);
    base_span save = m->at;
    m->at = s->span;
    cg_debug_loc(m, s->span);
    bool ok = stmt(m, s);
    m->at = save;
    cg_debug_loc(m, save);
    return ok;
}

static bool stmt(cg_module *m, const ast_node *s) {
    switch (s->kind) {
    case AST_BLOCK: return cg_block(m, s);
    case AST_LET:
    case AST_VAR: return let_stmt(m, s);
    case AST_ASSIGN: return assign_stmt(m, s);
    case AST_EXPR_STMT: {
        if (!cg_expr(m, s->a)) return false;
        if (cg_terminated(m)) cg_start_dead_block(m);
        return true;
    }
    case AST_IF: return if_stmt(m, s);
    case AST_WHILE: return while_stmt(m, s);
    case AST_FOR: return for_stmt(m, s);
    case AST_BREAK:
    case AST_CONTINUE:
        if (!m->loop) {
            DIAG_INTERNAL(m->d, "break or continue outside a loop");
            return false;
        }
        LLVMBuildBr(m->b, s->kind == AST_BREAK ? m->loop->brk : m->loop->cont);
        cg_start_dead_block(m);
        return true;
    case AST_RETURN: return return_stmt(m, s);
    case AST_ASSERT: return assert_stmt(m, s);
    case AST_MATCH: return cg_match(m, s, false) != NULL;
    case AST_SELECT: return cg_select(m, s);
    default: cg_unsupported(m, s->span, "this statement"); return false;
    }
}
