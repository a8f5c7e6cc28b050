/* debug.c: DWARF for generated code, through LLVM's DIBuilder: one compile
 * unit per module, a file per OxL source, a subprogram per function, a
 * source location on every instruction (the statement's or expression's
 * line and column), and the locals' names and values for the debugger.
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

struct cg_debug {
    LLVMDIBuilderRef dib;
    bool finalized;
    LLVMMetadataRef cu;
    LLVMMetadataRef fn_type; /* every subprogram's (untyped) signature */
    LLVMMetadataRef ty_int, ty_dur, ty_bool, ty_str;
    dbg_file *files;
    uint32_t nfiles, cap_files;
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
    g->fn_type = LLVMDIBuilderCreateSubroutineType(g->dib, f, NULL, 0, LLVMDIFlagZero);
    g->ty_int = basic_type(g, "Int", 64, 0x05 /* DW_ATE_signed */);
    g->ty_dur = basic_type(g, "Duration", 64, 0x05);
    g->ty_bool = basic_type(g, "Bool", 8, 0x02 /* DW_ATE_boolean */);
    /* struct oxl_str_obj { int64_t len; char data[]; }: shown as a char *
     * to its bytes would lie about the layout; a pointer to the length
     * word at least lets `p *s` and `x/s s+8` work. */
    g->ty_str = LLVMDIBuilderCreatePointerType(g->dib, g->ty_int, 64, 0, 0, "String", 6);

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

void cg_debug_local(cg_module *m, const ast_node *decl, LLVMValueRef slot) {
    if (!decl->name || decl->span.file == BASE_NO_FILE || !LLVMIsAInstruction(slot)) return;
    LLVMMetadataRef sp = cur_sp(m, decl->span);
    struct cg_debug *g = m->dbg;
    if (!sp || !g) return;
    const sema_type *t = decl->type;
    LLVMMetadataRef ty = NULL;
    if (t) switch (t->kind) {
        case TY_INT: ty = g->ty_int; break;
        case TY_DURATION: ty = g->ty_dur; break;
        case TY_BOOL: ty = g->ty_bool; break;
        case TY_STRING: ty = g->ty_str; break;
        default: break;
        }
    if (!ty) return; /* lists and the rest: no debugger type yet */
    base_span at = decl->name_span.file != BASE_NO_FILE && decl->name_span.len ? decl->name_span : decl->span;
    base_pos p = diag_position(m->d, at);
    LLVMMetadataRef f = file_md(m, at.file);
    unsigned argno = 0; /* parameters are numbered from 1, so gdb shows them in the frame */
    if (decl->kind == AST_PARAM && m->fn_decl)
        for (uint32_t i = 0; i < m->fn_decl->list.len; i++)
            if (m->fn_decl->list.items[i] == decl) argno = i + 1;
    LLVMMetadataRef var =
        argno ? LLVMDIBuilderCreateParameterVariable(g->dib, sp, decl->name, strlen(decl->name), argno, f, p.line, ty,
                                                     1, LLVMDIFlagZero)
              : LLVMDIBuilderCreateAutoVariable(g->dib, sp, decl->name, strlen(decl->name), f, p.line, ty, 1,
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
    free(g);
    m->dbg = NULL;
}
