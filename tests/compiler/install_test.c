/* install_test: `cmake --install <build> --prefix P` gives P/bin/oxl,
 * P/lib/oxl/liboxlrt.a, P/include/oxl/ (the headers) and P/share/oxl/std/, and the
 * installed oxl finds the runtime and std relative to itself
 * (compiler/driver/paths.c): a program that imports std.time and a std
 * package that exists only in the install runs from another directory,
 * and still does after the prefix is moved. OXL_RUNTIME and OXL_STD
 * override it; bad values are named errors with exit status 2. The man
 * page (share/man/man1/oxl.1, which man renders), the bash and zsh
 * completions and the guides (share/doc/oxl) are installed too.
 *
 *   install_test CMAKE BUILD_DIR */
#define _XOPEN_SOURCE 700 /* realpath */
#include "cmd.h"
#include "tap.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char main_oxl[] =
    "use std.time\n"
    "use std.probe { ANSWER }\n"
    "\n"
    "fn main() {\n"
    "  let d = 2s + 500ms\n"
    "  print(\"answer {ANSWER} after {d}\")\n"
    "}\n";

static const char c_main[] =
    "#include <oxl_rt.h>\n"
    "int main(void) {\n"
    "    oxl_rt_init();\n"
    "    oxl_print(oxl_str_concat(oxl_str_from_cstr(\"from \"), oxl_str_from_cstr(\"C\")));\n"
    "    return 0;\n"
    "}\n";

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: install_test CMAKE BUILD_DIR\n");
        return 2;
    }
    const char *cmake = argv[1], *build = argv[2];
    char *prefix = cmd_tempdir("inst"), *work = cmd_tempdir("instrun");
    char *out, path[PATH_MAX];

    int st = cmd_run(&out, "'%s' --install '%s' --prefix '%s/p'", cmake, build, prefix);
    if (!tap_is_int(st, 0, "cmake --install exits 0")) tap_diag("%s", out);
    free(out);
    static const char *const files[] = {"bin/oxl", "lib/oxl/liboxlrt.a", "include/oxl/oxl_rt.h",
                                        "include/oxl/oxl_sched.h", "share/oxl/std/time/time.oxl",
                                        "share/oxl/std/test/test.oxl", "share/oxl/std/store/store.oxl",
                                        "include/oxl/oxl_std_store.h", "share/man/man1/oxl.1",
                                        "share/bash-completion/completions/oxl", "share/zsh/site-functions/_oxl",
                                        "share/doc/oxl/README.md", "share/doc/oxl/testing.md",
                                        "share/doc/oxl/test-binary.md", "share/doc/oxl/timeline.png"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        snprintf(path, sizeof path, "%s/p/%s", prefix, files[i]);
        tap_ok(cmd_exists(path), "installed %s", files[i]);
    }
    /* every picture an installed guide shows is installed beside it */
    st = cmd_run(&out,
                 "cd '%s/p/share/doc/oxl' && n=0 && for f in *.md; do "
                 "for img in $(grep -o '!\\[[^]]*\\]([^)]*)' \"$f\" | sed 's/.*](\\(.*\\))/\\1/'); do "
                 "n=$((n + 1)); [ -f \"$img\" ] || echo \"$f shows $img, which is not installed\"; done; done; "
                 "echo \"$n pictures\"",
                 prefix);
    if (!tap_ok(st == 0 && !strstr(out, "not installed") && strcmp(out, "0 pictures\n") != 0,
                "every picture the installed guides show is installed"))
        tap_diag("%s", out);
    free(out);
    /* the installed man page renders, with every command's section */
    st = cmd_run(&out, "MANWIDTH=80 man -l '%s/p/share/man/man1/oxl.1' 2>&1 | cat", prefix);
    tap_is_int(st, 0, "man -l renders the installed oxl.1");
    if (!tap_contains(out, "oxl test [package-dir] [options]", "with oxl test's section")) tap_diag("%s", out);
    tap_contains(out, "--partition hash:M/N", "and its options");
    tap_ok(!strstr(out, "warning"), "without a warning");
    free(out);
    st = cmd_run(&out, "bash -c \". '%s/p/share/bash-completion/completions/oxl' && complete -p oxl\"", prefix);
    tap_is_int(st, 0, "the installed bash completion loads");
    tap_contains(out, "complete -o filenames -F _oxl oxl", "and completes oxl");
    free(out);

    /* a std package only the installed tree has: finding it proves std is
     * looked up beside the installed oxl, not in the source tree */
    st = cmd_run(NULL, "mkdir -p '%s/p/share/oxl/std/probe'", prefix);
    snprintf(path, sizeof path, "%s/p/share/oxl/std/probe/probe.oxl", prefix);
    cmd_write(path, "// a package for install_test\nconst ANSWER: Int = 42\n");
    snprintf(path, sizeof path, "%s/main.oxl", work);
    cmd_write(path, main_oxl);

    static const char clean_env[] = "env -u OXL_RUNTIME -u OXL_STD";
    st = cmd_run(&out, "cd '%s' && %s '%s/p/bin/oxl' run main.oxl -###", work, clean_env, prefix);
    tap_is_int(st, 0, "the installed oxl runs a program importing std from another directory");
    tap_contains(out, "answer 42 after 2.5s\n", "it prints what the program says");
    char want[PATH_MAX + 64];
    snprintf(want, sizeof want, "\"%s/p/bin/../lib/oxl/liboxlrt.a\"", prefix);
    if (!tap_contains(out, want, "it links the installed runtime library")) tap_diag("%s", out);
    free(out);

    /* relocatable: nothing points back at the first prefix */
    st = cmd_run(&out, "mv '%s/p' '%s/moved' && cd '%s' && %s '%s/moved/bin/oxl' run main.oxl -O2", prefix, prefix,
                 work, clean_env, prefix);
    tap_is_int(st, 0, "a moved prefix still works");
    tap_contains(out, "answer 42 after 2.5s\n", "and prints the same");
    free(out);

    /* the public headers and library serve C programs too */
    snprintf(path, sizeof path, "%s/c_main.c", work);
    cmd_write(path, c_main);
#ifdef OXL_TEST_SANITIZE
    static const char san[] = "-fsanitize=address,undefined"; /* the runtime was built with them */
#else
    static const char san[] = "";
#endif
    st = cmd_run(&out,
                 "cd '%s' && cc -std=c17 %s -I'%s/moved/include/oxl' c_main.c '%s/moved/lib/oxl/liboxlrt.a' -lgc "
                 "-lpthread -lm -o c_prog && ./c_prog",
                 work, san, prefix, prefix);
    tap_is_int(st, 0, "a C program builds against include/oxl and lib/oxl");
    tap_contains(out, "from C\n", "and runs");
    free(out);

    /* a package directory's own C file (its extern fn) is built with the
     * installed headers: it uses oxl_rt.h's strings */
    st = cmd_run(NULL, "mkdir -p '%s/cpkg'", work);
    snprintf(path, sizeof path, "%s/cpkg/main.oxl", work);
    cmd_write(path, "package cpkg\nextern fn greet(who: String) -> String\nfn main() {\n  print(greet(\"C\"))\n}\n");
    snprintf(path, sizeof path, "%s/cpkg/greet.c", work);
    cmd_write(path, "#include <oxl_rt.h>\n"
                    "oxl_string oxl_cpkg_greet(oxl_string who) {\n"
                    "    return oxl_str_concat(oxl_str_from_cstr(\"hello from \"), who);\n"
                    "}\n");
    st = cmd_run(&out, "cd '%s' && %s '%s/moved/bin/oxl' run cpkg -###", work, clean_env, prefix);
    tap_is_int(st, 0, "a package with a C file runs with the installed oxl");
    tap_contains(out, "hello from C\n", "its extern fn is the package's C function");
    snprintf(want, sizeof want, "\"-I\" \"%s/moved/bin/../include/oxl\"", prefix);
    if (!tap_contains(out, want, "the C file is compiled against the installed headers")) tap_diag("%s", out);
    free(out);

    /* oxl test's binary cache keys on the installed std and runtime: a
     * second run builds nothing, a changed installed std builds again */
    st = cmd_run(NULL, "mkdir -p '%s/tpkg'", work);
    snprintf(path, sizeof path, "%s/tpkg/t.oxl", work);
    cmd_write(path, "use std.time { now }\ntest sim \"starts in 2026\" seeds 1..=3 {\n"
                    "  assert \"{now()}\" == \"2026-01-01T00:00:00Z\"\n}\n");
    static const char test_cmd[] = "cd '%s' && OXL_CACHE_DIR='%s/cache' %s '%s/moved/bin/oxl' test tpkg -###";
    st = cmd_run(&out, test_cmd, work, work, clean_env, prefix);
    tap_is_int(st, 0, "the installed oxl test runs a sim test");
    tap_contains(out, "\"cc\"", "building its test binary");
    free(out);
    st = cmd_run(&out, test_cmd, work, work, clean_env, prefix);
    tap_ok(st == 0 && !strstr(out, "\"cc\""), "a second run takes the cached binary");
    free(out);
    snprintf(path, sizeof path, "%s/moved/share/oxl/std/time/time.oxl", prefix);
    st = cmd_run(NULL, "echo '// changed' >> '%s'", path);
    st = cmd_run(&out, test_cmd, work, work, clean_env, prefix);
    tap_ok(st == 0 && strstr(out, "\"cc\"") != NULL, "a changed installed std builds it again");
    free(out);

    /* the environment overrides, and bad values are named */
    st = cmd_run(&out, "cd '%s' && OXL_RUNTIME=/nonexistent/liboxlrt.a '%s/moved/bin/oxl' run main.oxl", work, prefix);
    tap_is_int(st, 2, "OXL_RUNTIME naming no file: exit 2");
    tap_contains(out, "oxl: OXL_RUNTIME='/nonexistent/liboxlrt.a' is not a readable file", "with a named message");
    free(out);
    st = cmd_run(&out, "cd '%s' && OXL_STD=/nonexistent/std '%s/moved/bin/oxl' run main.oxl", work, prefix);
    tap_is_int(st, 2, "OXL_STD naming no directory: exit 2");
    tap_contains(out, "oxl run: OXL_STD='/nonexistent/std' is not a directory", "with a named message");
    free(out);
    /* OXL_STD wins over the installed std: this one has std.time only */
    st = cmd_run(&out,
                 "cd '%s' && mkdir -p altstd && cp -r '%s/moved/share/oxl/std/time' altstd/ && "
                 "OXL_STD=altstd '%s/moved/bin/oxl' run main.oxl",
                 work, prefix, prefix);
    tap_is_int(st, 1, "OXL_STD naming another root is used (no std.probe there): exit 1");
    tap_contains(out, "main.oxl:2:5: error: cannot find package 'std.probe'", "at the import's place");
    free(out);
    st = cmd_run(&out, "cd '%s' && %s '%s/moved/bin/oxl' build main.oxl -o prog && OXL_RUNTIME='%s/moved/lib/oxl/liboxlrt.a' "
                       "'%s/moved/bin/oxl' build main.oxl -o prog2 && ./prog2",
                 work, clean_env, prefix, prefix, prefix);
    tap_is_int(st, 0, "OXL_RUNTIME naming the library works");
    free(out);

    if (tap_failures() == 0) {
        cmd_remove_tree(prefix);
        cmd_remove_tree(work);
    } else {
        tap_diag("kept %s and %s", prefix, work);
    }
    free(prefix);
    free(work);
    return tap_done();
}
