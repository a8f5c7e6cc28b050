/* debug.c: DWARF for generated code, through LLVM's DIBuilder: one compile
 * unit per module, a file per OxL source, a subprogram per function, a
 * source location on every instruction (the statement's or expression's
 * line and column), and the locals' names, types and values for the
 * debugger. Every OxL type has a DWARF type describing the memory it
 * points to (oxl_rt.h's layouts), so `p *acct`, `p xs->items[1]` and
 * `p *m->entries@m->used` show contents:
 *   String, Bytes   pointer to struct { len; data[] }
 *   [T]             pointer to struct { len; cap; items: T-word * }
 *   Map[K, V]       pointer to struct { len @24; used @32; entries @48: *{ key; value; live @24 } }
 *                   (core/map.c's oxl_map_obj and core_entry)
 *   a struct        pointer to struct { one word per field }
 *   a union, T?     pointer to struct { tag; value: union of the members' words } (none: NULL)
 *   Chan, Task, fn  an opaque pointer named by its type
 *
 * Objects must not depend on where or when they were built beyond the
 * sources themselves: the compile unit names the first source's directory
 * (not the working directory, not the temporary object's path), the
 * producer carries no date, and nothing is keyed by an address. */
#define _XOPEN_SOURCE 700 /* realpath */
#include "codegen/cg_internal.h"

#include <llvm-c/DebugInfo.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DBG_DWARF_VERSION 4

typedef struct dbg_file {
    uint32_t file; /* diag source id */
    LLVMMetadataRef md;
} dbg_file;

typedef struct dbg_type {
    const sema_type *t;
    LLVMMetadataRef md; /* the type of a word holding a t */
} dbg_type;

struct cg_debug {
    LLVMDIBuilderRef dib;
    bool finalized;
    LLVMMetadataRef cu;
    LLVMMetadataRef file0;   /* the compile unit's file: where types are declared */
    LLVMMetadataRef fn_type; /* every subprogram's (untyped) signature */
    LLVMMetadataRef ty_int, ty_dur, ty_instant, ty_bool, ty_bool_word, ty_char;
    dbg_file *files;
    uint32_t nfiles, cap_files;
    dbg_type *types;         /* by identity (sema types are interned), never iterated */
    uint32_t ntypes, cap_types;
};

static void *dbg_realloc(void *p, size_t n) {
    void *q = realloc(p, n);
    if (!q) {
        fputs("oxl: out of memory\n", stderr);
        abort();
    }
    return q;
}

/* The DIFile of a source: its base name in its directory. The directory is
 * made absolute (realpath) so a debugger finds the source from anywhere;
 * it is the source's own directory, so two builds of the same package give
 * the same object. */
static LLVMMetadataRef file_md(cg_module *m, uint32_t file) {
    struct cg_debug *g = m->dbg;
    for (uint32_t i = 0; i < g->nfiles; i++)
        if (g->files[i].file == file) return g->files[i].md;
    const base_source *src = diag_source(m->d, file);
    const char *path = src && src->path ? src->path : "?";
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    char dir[PATH_MAX], abs_dir[PATH_MAX];
    if (slash == path) snprintf(dir, sizeof dir, "/");
    else if (slash) snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    else snprintf(dir, sizeof dir, ".");
    const char *d = realpath(dir, abs_dir) ? abs_dir : dir;
    LLVMMetadataRef md = LLVMDIBuilderCreateFile(g->dib, base, strlen(base), d, strlen(d));
    if (g->nfiles == g->cap_files) {
        g->cap_files = g->cap_files ? g->cap_files * 2 : 4;
        g->files = dbg_realloc(g->files, g->cap_files * sizeof *g->files);
    }
    g->files[g->nfiles].file = file;
    g->files[g->nfiles].md = md;
    g->nfiles++;
    return md;
}

static LLVMMetadataRef basic_type(struct cg_debug *g, const char *name, uint64_t bits, unsigned encoding) {
    return LLVMDIBuilderCreateBasicType(g->dib, name, strlen(name), bits, encoding, LLVMDIFlagZero);
}

/* Created with the first function. The compile unit is named after the
 * root package's first source (imported packages' functions may come
 * first). */
static void dbg_init(cg_module *m, uint32_t first_file) {
    const sema_pkg *root = m->prog ? m->prog->root : NULL;
    if (root && root->files.len) {
        const ast_node *f0 = root->files.items[0];
        if (f0 && f0->span.file != BASE_NO_FILE) first_file = f0->span.file;
    }
    struct cg_debug *g = calloc(1, sizeof *g);
    if (!g) {
        fputs("oxl: out of memory\n", stderr);
        abort();
    }
    m->dbg = g;
    g->dib = LLVMCreateDIBuilder(m->mod);
    LLVMMetadataRef f = file_md(m, first_file);
    static const char producer[] = "oxl";
    /* OxL has no DWARF language code; C makes debuggers print Int, Bool
     * and pointers sensibly. */
    g->cu = LLVMDIBuilderCreateCompileUnit(g->dib, LLVMDWARFSourceLanguageC, f, producer, sizeof producer - 1, 0, "",
                                           0, 0, "", 0, LLVMDWARFEmissionFull, 0, 0, 0, "", 0, "", 0);
    g->file0 = f;
    g->fn_type = LLVMDIBuilderCreateSubroutineType(g->dib, f, NULL, 0, LLVMDIFlagZero);
    g->ty_int = basic_type(g, "Int", 64, 0x05 /* DW_ATE_signed */);
    g->ty_dur = basic_type(g, "Duration", 64, 0x05);
    g->ty_instant = basic_type(g, "Instant", 64, 0x05);
    g->ty_bool = basic_type(g, "Bool", 8, 0x02 /* DW_ATE_boolean */);
    g->ty_bool_word = basic_type(g, "Bool", 64, 0x02); /* a Bool in a field, an element or a box */
    g->ty_char = basic_type(g, "char", 8, 0x08 /* DW_ATE_unsigned_char */);

    LLVMTypeRef i32 = LLVMInt32TypeInContext(m->ctx);
    LLVMAddModuleFlag(m->mod, LLVMModuleFlagBehaviorWarning, "Dwarf Version", 13,
                      LLVMValueAsMetadata(LLVMConstInt(i32, DBG_DWARF_VERSION, 0)));
    LLVMAddModuleFlag(m->mod, LLVMModuleFlagBehaviorWarning, "Debug Info Version", 18,
                      LLVMValueAsMetadata(LLVMConstInt(i32, LLVMDebugMetadataVersion(), 0)));
}

void cg_debug_function(cg_module *m, const ast_node *fn) {
    base_span at = fn->name_span;
    if (at.file == BASE_NO_FILE) at = fn->span;
    if (at.file == BASE_NO_FILE) return;
    if (!m->dbg) dbg_init(m, at.file);
    struct cg_debug *g = m->dbg;
    LLVMMetadataRef f = file_md(m, at.file);
    unsigned line = diag_position(m->d, fn->span).line;
    size_t len;
    const char *link = LLVMGetValueName2(m->fn, &len);
    const char *name = fn->name ? fn->name : link;
    LLVMMetadataRef sp = LLVMDIBuilderCreateFunction(g->dib, f, name, strlen(name), link, len, f, line, g->fn_type, 1,
                                                     1, line, LLVMDIFlagPrototyped, 0);
    LLVMSetSubprogram(m->fn, sp);
    /* cg_stmt and cg_expr restore the location of m->at after each
     * construct: until the first one, that is the function's */
    m->at = fn->span;
    cg_debug_loc(m, fn->span);
}

/* The subprogram of the function being generated. A body made outside
 * cg_function (a spawn block, a test) gets an artificial one at its first
 * construct, so its lines and locals are kept too. */
static LLVMMetadataRef cur_sp(cg_module *m, base_span at) {
    if (!m->fn || at.file == BASE_NO_FILE) return NULL;
    LLVMMetadataRef sp = LLVMGetSubprogram(m->fn);
    if (sp) return sp;
    if (!m->dbg) dbg_init(m, at.file);
    struct cg_debug *g = m->dbg;
    LLVMMetadataRef f = file_md(m, at.file);
    unsigned line = diag_position(m->d, at).line;
    size_t len;
    const char *name = LLVMGetValueName2(m->fn, &len);
    sp = LLVMDIBuilderCreateFunction(g->dib, f, name, len, name, len, f, line, g->fn_type, 1, 1, line,
                                     LLVMDIFlagPrototyped | LLVMDIFlagArtificial, 0);
    LLVMSetSubprogram(m->fn, sp);
    return sp;
}

void cg_debug_loc(cg_module *m, base_span at) {
    LLVMMetadataRef sp = cur_sp(m, at);
    if (!sp) return;
    base_pos p = diag_position(m->d, at);
    LLVMSetCurrentDebugLocation2(m->b, LLVMDIBuilderCreateDebugLocation(m->ctx, p.line, p.col, sp, NULL));
}

/* ---- types ---- */

static LLVMMetadataRef word_type(cg_module *m, const sema_type *t);

static LLVMMetadataRef member(struct cg_debug *g, LLVMMetadataRef scope, const char *name, uint64_t bits,
                              uint64_t offset_bits, LLVMMetadataRef ty) {
    return LLVMDIBuilderCreateMemberType(g->dib, scope, name, strlen(name), g->file0, 0, bits, 64, offset_bits,
                                         LLVMDIFlagZero, ty);
}

static LLVMMetadataRef pointer_to(struct cg_debug *g, LLVMMetadataRef pointee, const char *name) {
    return LLVMDIBuilderCreatePointerType(g->dib, pointee, 64, 64, 0, name, name ? strlen(name) : 0);
}

static LLVMMetadataRef struct_type(struct cg_debug *g, const char *name, unsigned line, uint64_t bits,
                                   LLVMMetadataRef *members, unsigned n) {
    return LLVMDIBuilderCreateStructType(g->dib, g->file0, name, strlen(name), g->file0, line, bits, 64,
                                         LLVMDIFlagZero, NULL, members, n, 0, NULL, "", 0);
}

static void cache_type(struct cg_debug *g, const sema_type *t, LLVMMetadataRef md) {
    if (g->ntypes == g->cap_types) {
        g->cap_types = g->cap_types ? g->cap_types * 2 : 32;
        g->types = dbg_realloc(g->types, g->cap_types * sizeof *g->types);
    }
    g->types[g->ntypes++] = (dbg_type){t, md};
}

/* A composite that may hold itself (through a struct): a placeholder is
 * cached first, members may point to it, and the finished type replaces
 * it everywhere. */
static LLVMMetadataRef placeholder(struct cg_debug *g, const sema_type *t, const char *name, LLVMMetadataRef *fwd) {
    *fwd = LLVMDIBuilderCreateReplaceableCompositeType(g->dib, 0x13 /* DW_TAG_structure_type */, name, strlen(name),
                                                       g->file0, g->file0, 0, 0, 0, 64, LLVMDIFlagFwdDecl, "", 0);
    LLVMMetadataRef p = pointer_to(g, *fwd, NULL);
    cache_type(g, t, p);
    return p;
}

static LLVMMetadataRef composite(cg_module *m, const sema_type *t) {
    struct cg_debug *g = m->dbg;
    char name[200], part[232];
    cg_type_name(t, name, sizeof name);
    LLVMMetadataRef fwd, p = placeholder(g, t, name, &fwd), real = NULL;
    switch (t->kind) {
    case TY_STRING:
    case TY_BYTES: { /* struct oxl_str_obj { int64_t len; char data[]; } */
        LLVMMetadataRef sub = LLVMDIBuilderGetOrCreateSubrange(g->dib, 0, -1);
        LLVMMetadataRef bytes = LLVMDIBuilderCreateArrayType(g->dib, 0, 8, g->ty_char, &sub, 1);
        LLVMMetadataRef ms[2] = {member(g, g->file0, "len", 64, 0, g->ty_int), member(g, g->file0, "data", 0, 64, bytes)};
        real = struct_type(g, name, 0, 64, ms, 2);
        break;
    }
    case TY_LIST: { /* struct oxl_list_obj { int64_t len, cap; oxl_word *items; } */
        LLVMMetadataRef ms[3] = {member(g, g->file0, "len", 64, 0, g->ty_int), member(g, g->file0, "cap", 64, 64, g->ty_int),
                                 member(g, g->file0, "items", 64, 128, pointer_to(g, word_type(m, t->elem), NULL))};
        real = struct_type(g, name, 0, 192, ms, 3);
        break;
    }
    case TY_MAP: { /* core/map.c: oxl_map_obj's len @24, used @32, entries @48; core_entry { key, val, hash, live } */
        LLVMMetadataRef es[3] = {member(g, g->file0, "key", 64, 0, word_type(m, t->key)),
                                 member(g, g->file0, "value", 64, 64, word_type(m, t->elem)),
                                 member(g, g->file0, "live", 64, 192, g->ty_int)};
        snprintf(part, sizeof part, "%s entry", name);
        LLVMMetadataRef entry = struct_type(g, part, 0, 256, es, 3);
        LLVMMetadataRef ms[3] = {member(g, g->file0, "len", 64, 192, g->ty_int),
                                 member(g, g->file0, "used", 64, 256, g->ty_int),
                                 member(g, g->file0, "entries", 64, 384, pointer_to(g, entry, NULL))};
        real = struct_type(g, name, 0, 576, ms, 3);
        break;
    }
    case TY_STRUCT: { /* one word per field, in declaration order */
        uint32_t n = t->nfields;
        LLVMMetadataRef *ms = dbg_realloc(NULL, (n ? n : 1) * sizeof *ms);
        for (uint32_t i = 0; i < n; i++)
            ms[i] = member(g, g->file0, t->fields[i].name ? t->fields[i].name : "?", 64, 64 * (uint64_t)i,
                           word_type(m, t->fields[i].type));
        unsigned line = t->sym && t->sym->decl ? diag_position(m->d, t->sym->decl->span).line : 0;
        real = struct_type(g, name, line, 64 * (uint64_t)(n ? n : 1), ms, n);
        free(ms);
        break;
    }
    case TY_UNION: { /* struct oxl_box { int64_t tag; oxl_word word; }: none is NULL */
        LLVMMetadataRef *vs = dbg_realloc(NULL, (t->nitems ? t->nitems : 1) * sizeof *vs);
        unsigned nv = 0;
        for (uint32_t i = 0; i < t->nitems; i++) {
            const sema_type *mt = t->shown ? t->shown[i] : t->items[i];
            if (mt->kind == TY_NONE) continue;
            cg_type_name(mt, part, sizeof part);
            vs[nv++] = member(g, g->file0, part, 64, 0, word_type(m, mt));
        }
        snprintf(part, sizeof part, "%s value", name);
        LLVMMetadataRef u = LLVMDIBuilderCreateUnionType(g->dib, g->file0, part, strlen(part), g->file0, 0, 64, 64,
                                                         LLVMDIFlagZero, vs, nv, 0, "", 0);
        free(vs);
        LLVMMetadataRef ms[2] = {member(g, g->file0, "tag", 64, 0, g->ty_int), member(g, g->file0, "value", 64, 64, u)};
        real = struct_type(g, name, 0, 128, ms, 2);
        break;
    }
    default: break;
    }
    if (real) LLVMMetadataReplaceAllUsesWith(fwd, real);
    return p;
}

/* The DWARF type of a word holding a value of t (a field, an element, a
 * box's word, a local of any type but Bool). */
static LLVMMetadataRef word_type(cg_module *m, const sema_type *t) {
    struct cg_debug *g = m->dbg;
    if (!t) return g->ty_int;
    switch (t->kind) {
    case TY_INT: return g->ty_int;
    case TY_DURATION: return g->ty_dur;
    case TY_INSTANT: return g->ty_instant;
    case TY_BOOL: return g->ty_bool_word;
    default: break;
    }
    for (uint32_t i = 0; i < g->ntypes; i++)
        if (g->types[i].t == t) return g->types[i].md;
    switch (t->kind) {
    case TY_STRING: case TY_BYTES: case TY_LIST: case TY_MAP: case TY_STRUCT: case TY_UNION:
        return composite(m, t);
    default: { /* None, Chan, Task, fn, Never: an opaque pointer named by its type */
        char name[200];
        cg_type_name(t, name, sizeof name);
        LLVMMetadataRef p = pointer_to(g, NULL, name);
        cache_type(g, t, p);
        return p;
    }
    }
}

/* The second variable of `for k, v in m` or `for i, x in xs`: its type. */
static const sema_type *second_type(const ast_node *decl) {
    const sema_type *it = decl->a ? decl->a->type : NULL;
    return it && (it->kind == TY_LIST || it->kind == TY_MAP) ? it->elem : NULL;
}

void cg_debug_local(cg_module *m, const ast_node *decl, LLVMValueRef slot, bool second) {
    const char *name = second ? decl->name2 : decl->name;
    if (!name || decl->span.file == BASE_NO_FILE || !LLVMIsAInstruction(slot)) return;
    LLVMMetadataRef sp = cur_sp(m, decl->span);
    struct cg_debug *g = m->dbg;
    if (!sp || !g) return;
    const sema_type *t = second ? second_type(decl) : decl->type;
    if (!t || t->kind == TY_ERROR) return;
    LLVMMetadataRef ty = t->kind == TY_BOOL ? g->ty_bool : word_type(m, t); /* a Bool local is an i1 */
    const sema_type *om = cg_scalar_opt(t);
    if (om) { /* an unboxed optional: { value, present } (optional.c) */
        char tname[200];
        cg_type_name(t, tname, sizeof tname);
        LLVMMetadataRef ms[2] = {member(g, g->file0, "value", 64, 0, word_type(m, om)),
                                 member(g, g->file0, "present", 8, 64, g->ty_bool)};
        ty = struct_type(g, tname, 0, 128, ms, 2);
    }
    base_span at = decl->name_span.file != BASE_NO_FILE && decl->name_span.len ? decl->name_span : decl->span;
    base_pos p = diag_position(m->d, at);
    LLVMMetadataRef f = file_md(m, at.file);
    unsigned argno = 0; /* parameters are numbered from 1, so gdb shows them in the frame */
    if (decl->kind == AST_PARAM && m->fn_decl)
        for (uint32_t i = 0; i < m->fn_decl->list.len; i++)
            if (m->fn_decl->list.items[i] == decl) argno = i + 1;
    LLVMMetadataRef var =
        argno ? LLVMDIBuilderCreateParameterVariable(g->dib, sp, name, strlen(name), argno, f, p.line, ty, 1,
                                                     LLVMDIFlagZero)
              : LLVMDIBuilderCreateAutoVariable(g->dib, sp, name, strlen(name), f, p.line, ty, 1,
                                                LLVMDIFlagZero, 0);
    LLVMMetadataRef loc = LLVMDIBuilderCreateDebugLocation(m->ctx, p.line, p.col, sp, NULL);
    LLVMMetadataRef expr = LLVMDIBuilderCreateExpression(g->dib, NULL, 0);
    /* right after the slot (allocas sit at the top of the entry block) */
    LLVMValueRef next = LLVMGetNextInstruction(slot);
    if (next) LLVMDIBuilderInsertDeclareBefore(g->dib, slot, var, expr, loc, next);
    else LLVMDIBuilderInsertDeclareAtEnd(g->dib, slot, var, expr, loc, LLVMGetInstructionParent(slot));
}

/* Moves every location in f into f's subprogram sp (same line and column;
 * instructions without one get `line`): a location in a function must
 * belong to its subprogram, and instructions made while another function
 * was being generated, or before a body's subprogram existed, carry
 * another one's. */
static void rescope(cg_module *m, LLVMValueRef f, LLVMMetadataRef sp, unsigned line) {
    LLVMMetadataRef dflt = NULL;
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb))
        for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
            LLVMMetadataRef old = LLVMInstructionGetDebugLoc(i);
            if (old && LLVMDILocationGetScope(old) == sp) continue;
            if (old) {
                LLVMInstructionSetDebugLoc(i, LLVMDIBuilderCreateDebugLocation(m->ctx, LLVMDILocationGetLine(old),
                                                                               LLVMDILocationGetColumn(old), sp, NULL));
            } else {
                if (!dflt) dflt = LLVMDIBuilderCreateDebugLocation(m->ctx, line, 0, sp, NULL);
                LLVMInstructionSetDebugLoc(i, dflt);
            }
        }
}

/* An artificial subprogram for f, a function made outside cg_function
 * with no OxL body of its own (the C main, formatting helpers). */
static LLVMMetadataRef adopt(cg_module *m, LLVMValueRef f, LLVMMetadataRef file, unsigned line, const char *name,
                             bool local) {
    struct cg_debug *g = m->dbg;
    size_t len;
    const char *link = LLVMGetValueName2(f, &len);
    if (!name) name = link;
    LLVMMetadataRef sp =
        LLVMDIBuilderCreateFunction(g->dib, file, name, strlen(name), link, len, file, line, g->fn_type, local, 1, line,
                                    LLVMDIFlagPrototyped | LLVMDIFlagArtificial, 0);
    LLVMSetSubprogram(f, sp);
    return sp;
}

/* The first location in f, or NULL. */
static LLVMMetadataRef first_loc(LLVMValueRef f) {
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb))
        for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
            LLVMMetadataRef l = LLVMInstructionGetDebugLoc(i);
            if (l) return l;
        }
    return NULL;
}

/* The C main is at OxL main's line (at -O2 the OxL main is inlined into
 * it, and instructions in a function without a subprogram would be left
 * out of the line table); another function without a subprogram but with
 * locations is adopted where its first location is; then every function's
 * locations are moved into its own subprogram, and the DIBuilder is
 * finalized. */
void cg_debug_finish(cg_module *m, const ast_node *main_fn) {
    struct cg_debug *g = m->dbg;
    LLVMSetCurrentDebugLocation2(m->b, NULL);
    if (!g) return;
    for (LLVMValueRef f = LLVMGetFirstFunction(m->mod); f; f = LLVMGetNextFunction(f)) {
        if (!LLVMCountBasicBlocks(f)) continue;
        LLVMMetadataRef sp = LLVMGetSubprogram(f);
        size_t len;
        const char *name = LLVMGetValueName2(f, &len);
        if (!sp && strcmp(name, "main") == 0 && main_fn && main_fn->span.file != BASE_NO_FILE) {
            sp = adopt(m, f, file_md(m, main_fn->span.file), diag_position(m->d, main_fn->span).line, "main", false);
        } else if (!sp) {
            LLVMMetadataRef l = first_loc(f);
            if (!l) continue; /* no OxL source behind it: no debug info */
            sp = adopt(m, f, LLVMDIScopeGetFile(LLVMDILocationGetScope(l)), LLVMDILocationGetLine(l), NULL, true);
        }
        rescope(m, f, sp, LLVMDISubprogramGetLine(sp));
    }
    LLVMDIBuilderFinalize(g->dib);
    g->finalized = true;
}

void cg_debug_free(cg_module *m) {
    struct cg_debug *g = m->dbg;
    if (!g) return;
    /* a module abandoned after an error was never finalized: finalizing
     * frees the DIBuilder's temporary metadata, which disposing leaks */
    if (!g->finalized) LLVMDIBuilderFinalize(g->dib);
    LLVMDisposeDIBuilder(g->dib);
    free(g->files);
    free(g->types);
    free(g);
    m->dbg = NULL;
}
