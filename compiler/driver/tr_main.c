/* tr_main.c: `oxl test` (docs/testing.md): the flags and the environment
 * (tr_opts.c), the test binary and its tests (tr_binary.c), the selection
 * (--kind, --exact, -f) or --list, the failures file (tr_failures.c) and
 * the run itself (tr_plan.c), reported in one of the formats
 * (tr_report_*.c). */
#include "tr_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool selected(const tr_runner *r, const tr_test *t) {
    if (r->o.kind == TR_KIND_UNIT && t->sim) return false;
    if (r->o.kind == TR_KIND_SIM && !t->sim) return false;
    if (r->o.exact && strcmp(t->name, r->o.exact) != 0) return false;
    if (r->o.filter && !strstr(t->name, r->o.filter)) return false;
    return true;
}

/* A layout as --list gives it ("api-0=api,n1") calls each for a node, with
 * its name and its roles ("api" or "a+b", "" for none). */
static void each_layout_node(const char *layout, void (*fn)(tr_buf *, const char *, size_t, const char *, size_t),
                             tr_buf *b) {
    if (!layout || strcmp(layout, "-") == 0) return;
    for (const char *s = layout; *s;) {
        size_t len = strcspn(s, ",");
        const char *eq = memchr(s, '=', len);
        size_t name_len = eq ? (size_t)(eq - s) : len;
        fn(b, s, name_len, eq ? eq + 1 : "", eq ? len - name_len - 1 : 0);
        s += len;
        if (*s == ',') s++;
    }
}

/* Appends roles ("a+b") to b, each between before and after, sep between. */
static void put_roles(tr_buf *b, const char *roles, size_t rl, const char *sep, const char *quote) {
    for (size_t i = 0, start = 0; rl && i <= rl; i++) {
        if (i < rl && roles[i] != '+') continue;
        tr_buf_printf(b, "%s%s%.*s%s", start ? sep : "", quote, (int)(i - start), roles + start, quote);
        start = i + 1;
    }
}

static void human_node(tr_buf *b, const char *name, size_t nl, const char *roles, size_t rl) {
    tr_buf_printf(b, " %.*s", (int)nl, name);
    if (rl) {
        tr_buf_puts(b, " (");
        put_roles(b, roles, rl, ", ", "");
        tr_buf_puts(b, ")");
    }
    tr_buf_puts(b, ",");
}

/* "      nodes: api-0 (api), storage-0 (storage), n0" under a sim test;
 * the body runs on the first. */
static void put_layout_human(tr_buf *b, const char *layout) {
    if (!layout || strcmp(layout, "-") == 0) return;
    tr_buf_puts(b, "      nodes:");
    size_t before = b->len;
    each_layout_node(layout, human_node, b);
    if (b->len > before) b->len--; /* the last comma */
    tr_buf_puts(b, "\n");
}

static void json_node(tr_buf *b, const char *name, size_t nl, const char *roles, size_t rl) {
    if (b->s[b->len - 1] != '[') tr_buf_puts(b, ",");
    tr_buf_printf(b, "{\"node\":\"%.*s\",\"roles\":[", (int)nl, name);
    put_roles(b, roles, rl, ",", "\"");
    tr_buf_puts(b, "]}");
}

/* [{"node":"api-0","roles":["api"]},...]: names are checked identifiers
 * (tr_binary.c), so they need no JSON escapes. */
static void put_layout_json(tr_buf *b, const char *layout) {
    tr_buf_puts(b, "[");
    each_layout_node(layout, json_node, b);
    tr_buf_puts(b, "]");
}

static int list_tests(tr_runner *r) {
    tr_buf b = {0};
    for (size_t i = 0; i < r->nsel; i++) {
        const tr_test *t = r->sel[i];
        if (r->o.format == TR_FMT_JSON) {
            tr_buf_printf(&b, "{\"event\":\"list\",\"kind\":\"%s\",\"index\":%d,\"name\":", tr_kind_name(t), t->index);
            tr_json_str(&b, t->name);
            tr_buf_puts(&b, ",\"location\":");
            tr_json_str(&b, t->loc);
            if (t->sim) {
                tr_buf_printf(&b, ",\"first_seed\":%" PRIu64 ",\"last_seed\":%" PRIu64, t->first, t->last);
                tr_buf_puts(&b, ",\"layout\":");
                put_layout_json(&b, t->layout);
            }
            tr_buf_puts(&b, ",\"package\":");
            tr_json_str(&b, t->pkg);
            tr_buf_puts(&b, "}\n");
        } else {
            char seeds[64] = "";
            if (t->sim) snprintf(seeds, sizeof seeds, "%" PRIu64 "..%" PRIu64, t->first, t->last);
            /* the index first: OXL_TEST_RUN=<index> runs it in a kept binary */
            tr_buf_printf(&b, "%3d  %-4s  %-13s  %s  %s\n", t->index, tr_kind_name(t), seeds, t->loc, t->shown);
            if (t->sim) put_layout_human(&b, t->layout);
        }
    }
    tr_emit(&b);
    return TR_EXIT_PASS;
}

void tr_free_runner(tr_runner *r) {
    tr_free_tests(r);
    for (size_t i = 0; r->outs && i < r->nsel; i++) {
        tr_free_item(&r->outs[i].fail);
        tr_free_item(&r->outs[i].rerun);
        free(r->outs[i].reproduce);
        tr_explain_free(&r->outs[i]);
    }
    free(r->outs);
    free(r->sel);
    for (size_t i = 0; i < r->nfails; i++) free(r->fails[i].name);
    free(r->fails);
    free(r->trash);
    free(r->plan_counts);
}

int tr_prepare_package(tr_runner *r) {
    struct stat st;
    if (stat(r->o.pkg, &st) != 0) {
        fprintf(stderr, "oxl test: cannot open '%s': %s\n", r->o.pkg, strerror(errno));
        return TR_EXIT_USAGE;
    }
    if (!S_ISDIR(st.st_mode)) {
        fprintf(stderr, "oxl test: '%s' is not a package directory\n", r->o.pkg);
        return TR_EXIT_USAGE;
    }
    int s = tr_timeline_check(r);
    if (s != TR_GO_ON) return s;
    if ((s = tr_setup_env(r)) != TR_GO_ON) return s;
    if ((s = tr_get_binary(r)) != TR_GO_ON) return s;
    if ((s = tr_keep_binary(r)) != TR_GO_ON) return s;
    tr_signals_block();
    s = tr_read_list(r);
    if (s != TR_GO_ON) return s;
    for (size_t i = 0; i < r->ntests; i++) {
        r->tests[i].pkg = r->o.pkg;
        if (r->multi) {
            tr_buf shown = {0};
            tr_test_label(r, &r->tests[i], &shown);
            free(r->tests[i].shown);
            r->tests[i].shown = shown.s;
        }
    }
    r->sel = tr_xmalloc((r->ntests + 1) * sizeof *r->sel);
    for (size_t i = 0; i < r->ntests; i++)
        if (selected(r, &r->tests[i])) r->sel[r->nsel++] = &r->tests[i];
    if (r->nsel == 0) {
        if (r->ntests == 0) fprintf(stderr, "oxl test: the package '%s' has no tests\n", r->o.pkg);
        else {
            tr_buf b = {0};
            if (r->o.kind) tr_buf_printf(&b, " --kind %s", r->o.kind == TR_KIND_UNIT ? "unit" : "sim");
            if (r->o.exact) tr_buf_puts(&b, " --exact "), tr_shell_quote(&b, r->o.exact);
            if (r->o.filter) tr_buf_puts(&b, " --filter "), tr_shell_quote(&b, r->o.filter);
            fprintf(stderr, "oxl test: no test matched%s (the package%s%s has %zu)\n", b.s ? b.s : "",
                    r->multi ? " " : "", r->multi ? r->o.pkg : "", r->ntests);
            tr_buf_free(&b);
        }
        return TR_EXIT_NO_TESTS;
    }
    return TR_GO_ON;
}

int tr_list_tests(tr_runner *r) { return list_tests(r); }

static int run(tr_runner *r) {
    if (r->o.merge) return tr_run_merge(r);
    if (r->o.npkgs > 1 || tr_is_tree_arg(r->o.pkg)) return tr_run_packages(r);
    int s = tr_prepare_package(r);
    if (s != TR_GO_ON) return s;
    if (r->o.list) return list_tests(r);
    if (r->o.shrink || r->o.replay) return tr_shrink_main(r);
    if (r->o.gdb) return tr_run_gdb(r);
    tr_load_failures(r);
    s = tr_run_plan(r);
    if (!r->sharded) tr_save_failures(r);
    s = tr_timeline_write(r, s);
    return s;
}

int tr_main(int argc, char **argv, const tr_hooks *hooks) {
    tr_runner r;
    memset(&r, 0, sizeof r);
    r.hooks = hooks;
    r.t0 = tr_now();
    int s = tr_parse_opts(argc, argv, &r.o);
    if (s != TR_GO_ON) {
        free(r.o.pkgs);
        return s;
    }
    r.tty = isatty(1);
    const char *term = getenv("TERM");
    if (strcmp(r.o.color, "always") == 0) r.color = true;
    else if (strcmp(r.o.color, "auto") == 0)
        r.color = r.tty && !(getenv("NO_COLOR") && *getenv("NO_COLOR")) && !(term && strcmp(term, "dumb") == 0);
    if (r.o.format != TR_FMT_HUMAN) r.color = false;
    r.rep = r.o.format == TR_FMT_TAP ? &tr_tap : r.o.format == TR_FMT_JSON ? &tr_json : &tr_human;
    /* on GitHub's runners the human report gets the annotations too */
    const char *gha = getenv("GITHUB_ACTIONS");
    if (r.o.format == TR_FMT_GITHUB || (r.o.format == TR_FMT_HUMAN && gha && strcmp(gha, "true") == 0))
        r.rep = &tr_github;
    s = run(&r);
    tr_server_stop(r.srv);
    tr_signals_restore();
    if (r.tmp[0]) tr_remove_tree(r.tmp);
    tr_free_runner(&r);
    free(r.o.pkgs);
    fflush(stdout);
    return s;
}
