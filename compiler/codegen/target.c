/* target.c: the host target (triple, data layout, a generic CPU so objects
 * do not depend on the build machine), optimization, object emission, and
 * linking with the system C compiler. */
#include "codegen/cg_internal.h"

#include <llvm-c/Target.h>
#include <llvm-c/Error.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

bool cg_target_init(cg_module *m) {
    if (LLVMInitializeNativeTarget() || LLVMInitializeNativeAsmPrinter()) {
        DIAG_INTERNAL(m->d, "%s", "LLVM has no native target");
        return false;
    }
    char *triple = LLVMGetDefaultTargetTriple();
    char *err = NULL;
    LLVMTargetRef t;
    if (LLVMGetTargetFromTriple(triple, &t, &err)) {
        DIAG_INTERNAL(m->d, "no LLVM target for '%s': %s", triple, err ? err : "?");
        LLVMDisposeMessage(err);
        LLVMDisposeMessage(triple);
        return false;
    }
    m->tm = LLVMCreateTargetMachine(t, triple, "generic", "", LLVMCodeGenLevelDefault, LLVMRelocPIC,
                                    LLVMCodeModelDefault);
    LLVMSetTarget(m->mod, triple);
    LLVMTargetDataRef dl = LLVMCreateTargetDataLayout(m->tm);
    char *dls = LLVMCopyStringRepOfTargetData(dl);
    LLVMSetDataLayout(m->mod, dls);
    LLVMDisposeMessage(dls);
    LLVMDisposeTargetData(dl);
    LLVMDisposeMessage(triple);
    return true;
}

/* The object of an -O0 build comes from the fast instruction selector and
 * register allocator (what `clang -O0` uses): several times faster to emit
 * than the default level, which only pays off with optimized IR. */
static void use_fast_codegen(cg_module *m) {
    LLVMTargetRef t = LLVMGetTargetMachineTarget(m->tm);
    char *triple = LLVMGetTargetMachineTriple(m->tm);
    LLVMTargetMachineRef fast =
        LLVMCreateTargetMachine(t, triple, "generic", "", LLVMCodeGenLevelNone, LLVMRelocPIC, LLVMCodeModelDefault);
    LLVMDisposeMessage(triple);
    if (!fast) return; /* keep the default one */
    LLVMDisposeTargetMachine(m->tm);
    m->tm = fast;
}

/* LLVM's -O2 is not linear in one function's size: the inliner splits a
 * block at each call it inlines, moving the rest of the block, and the
 * greedy register allocator's live intervals check every call a long live
 * range spans. One function of 10,000 statements took 9.6 s, one of 40,000
 * 115 s and 2.7 GB. A function past CG_O2_MAX_INSTRUCTIONS is left
 * unoptimized (optnone) and the module's machine code is then made as at
 * -O0 (other functions' IR is still optimized), with a note saying so.
 * Returns whether there was one. */
static bool leave_huge_unoptimized(cg_module *m) {
    bool any = false;
    unsigned optnone = LLVMGetEnumAttributeKindForName("optnone", 7);
    unsigned noinline = LLVMGetEnumAttributeKindForName("noinline", 8);
    for (LLVMValueRef f = LLVMGetFirstFunction(m->mod); f; f = LLVMGetNextFunction(f)) {
        unsigned n = 0;
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb && n <= CG_O2_MAX_INSTRUCTIONS;
             bb = LLVMGetNextBasicBlock(bb))
            for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i && n <= CG_O2_MAX_INSTRUCTIONS;
                 i = LLVMGetNextInstruction(i))
                n++;
        if (n <= CG_O2_MAX_INSTRUCTIONS) continue;
        any = true;
        LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(m->ctx, optnone, 0));
        LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(m->ctx, noinline, 0));
        size_t len;
        const char *name = LLVMGetValueName2(f, &len);
        diag_report(m->d, DIAG_NOTE, (base_span){BASE_NO_FILE, 0, 0},
                    "-O2 leaves %.*s unoptimized and makes machine code as at -O0: the function has more "
                    "than %d LLVM instructions, and LLVM's optimizations are not linear in a function's size",
                    (int)len, name, CG_O2_MAX_INSTRUCTIONS);
    }
    return any;
}

bool cg_optimize(cg_module *m, int opt_level) {
    if (opt_level <= 0) {
        use_fast_codegen(m);
        return true;
    }
    bool huge = leave_huge_unoptimized(m);
    /* LLVM's new pass manager with its standard pipeline, as clang -O2 runs
     * it; the pipeline is LLVM's, so an error here is the compiler's bug */
    char pipeline[32];
    snprintf(pipeline, sizeof pipeline, "default<O%d>", opt_level > 3 ? 3 : opt_level);
    LLVMPassBuilderOptionsRef opts = LLVMCreatePassBuilderOptions();
    LLVMPassBuilderOptionsSetLoopVectorization(opts, 1);
    LLVMPassBuilderOptionsSetSLPVectorization(opts, 1);
    LLVMPassBuilderOptionsSetLoopUnrolling(opts, 1);
    LLVMErrorRef err = LLVMRunPasses(m->mod, pipeline, m->tm, opts);
    LLVMDisposePassBuilderOptions(opts);
    if (err) {
        char *msg = LLVMGetErrorMessage(err);
        DIAG_INTERNAL(m->d, "the LLVM %s pipeline failed: %s", pipeline, msg);
        LLVMDisposeErrorMessage(msg);
        return false;
    }
    if (huge) use_fast_codegen(m);
    return true;
}

bool cg_write_object(cg_module *m, const char *path) {
    char *err = NULL;
    if (LLVMTargetMachineEmitToFile(m->tm, m->mod, (char *)path, LLVMObjectFile, &err)) {
        fprintf(stderr, "oxl: cannot write '%s': %s\n", path, err ? err : "?");
        LLVMDisposeMessage(err);
        return false;
    }
    return true;
}

int cg_spawn_wait(char *const argv[], bool show_command) {
    if (show_command) {
        for (int i = 0; argv[i]; i++) fprintf(stderr, "%s\"%s\"", i ? " " : "", argv[i]);
        fputc('\n', stderr);
    }
    fflush(stdout);
    fflush(stderr);
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], NULL, NULL, argv, environ);
    if (rc != 0) {
        fprintf(stderr, "oxl: cannot run '%s': %s\n", argv[0], strerror(rc));
        return -1;
    }
    int st;
    while (waitpid(pid, &st, 0) < 0) {
        if (errno != EINTR) {
            fprintf(stderr, "oxl: waiting for '%s': %s\n", argv[0], strerror(errno));
            return -1;
        }
    }
    if (WIFEXITED(st)) return WEXITSTATUS(st);
    if (WIFSIGNALED(st)) return 128 + WTERMSIG(st);
    return -1;
}

/* Ends a link command with the libraries every program links. */
static void add_libraries(const char **argv, int k) {
    argv[k++] = "-lgc";
    argv[k++] = "-lpthread";
    argv[k++] = "-lm";
    argv[k] = NULL;
}

/* Runs one cc command; false (said) when it fails. */
static bool link_step(const char **argv, const char *out, bool show_commands) {
    int st = cg_spawn_wait((char *const *)argv, show_commands);
    if (st != 0) {
        if (st > 0) fprintf(stderr, "oxl: linking '%s' failed (cc exited with status %d)\n", out, st);
        return false;
    }
    return true;
}

bool cg_link(const char *object, const char *const *c_sources, int n_c, const char *include_dir, const char *rt_lib,
             const char *const *extra_flags, bool static_link, const char *out, bool show_commands) {
#ifdef OXL_RUNTIME_SANITIZE
    static_link = false; /* the sanitizers' runtimes link dynamically only */
#endif
    enum { FIXED = 20 }; /* every fixed argument below, the NULL included, with room */
    size_t n_extra = 0;
    while (extra_flags && extra_flags[n_extra]) n_extra++;
    const char **argv = malloc(((size_t)n_c + n_extra + FIXED) * sizeof *argv);
    size_t part_cap = strlen(out) + sizeof ".part.o";
    char *part = static_link ? malloc(part_cap) : NULL;
    if (!argv || (static_link && !part)) {
        fputs("oxl: out of memory\n", stderr);
        free(argv);
        free(part);
        return false;
    }
    int k = 0;
    argv[k++] = "cc";
#ifdef OXL_RUNTIME_SANITIZE
    /* The runtime was built with sanitizers: the program links their runtime. */
    argv[k++] = "-fsanitize=address,undefined";
#endif
    if (static_link) {
        /* Two steps. The program's objects and the runtime first, into one
         * relocatable object, with extra_flags (the fence's --wrap): as in
         * a dynamic link, only their calls are wrapped, not the
         * collector's or libc's own (a collection reads its GC_ variables
         * inside a simulation). Then that object with the libraries. */
        snprintf(part, part_cap, "%s.part.o", out);
        argv[k++] = "-r";
        argv[k++] = "-nostdlib";
        argv[k++] = "-o";
        argv[k++] = part;
    } else {
        argv[k++] = "-o";
        argv[k++] = out;
    }
    argv[k++] = object;
    if (n_c > 0) {
        /* the package's own C files: built with the runtime's headers, and
         * with line tables, so a report can name a line of them */
        argv[k++] = "-O2";
        argv[k++] = "-g";
        argv[k++] = "-I";
        argv[k++] = include_dir;
        for (int i = 0; i < n_c; i++) argv[k++] = c_sources[i];
    }
    for (size_t i = 0; i < n_extra; i++) argv[k++] = extra_flags[i];
    argv[k++] = rt_lib;
    if (static_link) {
        argv[k] = NULL;
        bool ok = link_step(argv, out, show_commands);
        k = 0;
        argv[k++] = "cc";
        argv[k++] = "-static";
        argv[k++] = "-o";
        argv[k++] = out;
        argv[k++] = part;
        add_libraries(argv, k);
        ok = ok && link_step(argv, out, show_commands);
        unlink(part);
        free(part);
        free(argv);
        return ok;
    }
    add_libraries(argv, k);
    bool ok = link_step(argv, out, show_commands);
    free(argv);
    return ok;
}
