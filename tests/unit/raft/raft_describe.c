/* raft_describe.c: describe(cluster), the state of every server in a few
 * lines, for failure reports: role, term, vote, commit and applied index,
 * the log as runs of terms, the configuration, and a leader's next/match
 * per follower. A down server is described from its disk. */
#include "raft_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DESCRIBE_MAX_RUNS 12 /* term runs shown per log; the middle ones are elided */

void raft_format_members(oxl_world *w, uint32_t members, char *buf, size_t cap) {
    size_t len = 0;
    buf[0] = 0;
    for (oxl_node_id n = 0; n < RAFT_MAX_SERVERS && len < cap; n++)
        if (members & (1u << n))
            len += (size_t)snprintf(buf + len, cap - len, "%s%s", len ? "," : "", oxl_world_node_name(w, n));
    if (!members) snprintf(buf, cap, "(none)");
}

static const char *role_name(raft_role r) {
    switch (r) {
    case RAFT_LEADER: return "leader";
    case RAFT_CANDIDATE: return "candidate";
    default: return "follower";
    }
}

static const char *vote_name(oxl_world *w, oxl_node_id v) { return v == OXL_NO_NODE ? "-" : oxl_world_node_name(w, v); }

/* "1..43 [t1:1-3 t2:4-10 t7:11-43]", or "empty". */
static void describe_log(FILE *out, const raft_entry *log, uint32_t last) {
    if (last == 0) {
        fputs("log empty", out);
        return;
    }
    uint32_t runs = 0, total = 0;
    for (uint32_t i = 1; i <= last; i++)
        if (i == 1 || log[i].term != log[i - 1].term) total++;
    fprintf(out, "log 1..%u [", last);
    uint32_t shown = 0;
    for (uint32_t i = 1; i <= last; i++) {
        if (i != 1 && log[i].term == log[i - 1].term) continue;
        uint32_t end = i;
        while (end < last && log[end + 1].term == log[i].term) end++;
        runs++;
        /* The first and last runs matter most: the middle is elided. */
        bool show = total <= DESCRIBE_MAX_RUNS || runs <= DESCRIBE_MAX_RUNS / 2 ||
                    runs > total - DESCRIBE_MAX_RUNS / 2;
        if (show) {
            fprintf(out, "%st%u:%u-%u", shown ? " " : "", log[i].term, i, end);
            shown++;
        } else if (runs == DESCRIBE_MAX_RUNS / 2 + 1) {
            fprintf(out, " ... (%u runs)", total - DESCRIBE_MAX_RUNS);
        }
    }
    fputc(']', out);
}

char *raft_describe(oxl_world *w, const raft_cluster *cl) {
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    if (!out) return NULL;
    char members[RAFT_MAX_SERVERS * (OXL_SIM_NAME_MAX + 1) + 8];
    for (oxl_node_id n = 0; n < cl->params.servers; n++) {
        const raft_server *s = raft_server_of(w, cl, n);
        fprintf(out, "  %s: ", oxl_world_node_name(w, n));
        if (!s) {
            raft_durable d;
            char why[96];
            if (!raft_durable_read(oxl_world_disk(w, n), &d, why, sizeof why)) {
                fprintf(out, "down, disk unreadable: %s\n", why);
            } else {
                fprintf(out, "down; on disk: term %u vote %s ", d.term, vote_name(w, d.vote));
                describe_log(out, d.log, d.last);
                fputc('\n', out);
            }
            raft_durable_free(&d);
            continue;
        }
        raft_format_members(w, s->members, members, sizeof members);
        fprintf(out, "%s term %u vote %s commit %u applied %u ", role_name(s->role), s->term, vote_name(w, s->vote),
                s->commit, s->applied);
        describe_log(out, s->log, s->last);
        fprintf(out, " members %s", members);
        if (s->config_index) fprintf(out, " (config @%u)", s->config_index);
        if (s->role != RAFT_LEADER && s->leader != OXL_NO_NODE) fprintf(out, " leader %s", vote_name(w, s->leader));
        fputc('\n', out);
        if (s->role == RAFT_LEADER) {
            fputs("      next/match:", out);
            for (oxl_node_id p = 0; p < cl->params.servers; p++) {
                if (p == n) continue;
                fprintf(out, " %s %u/%u", oxl_world_node_name(w, p), s->peer[p].next, s->peer[p].match);
            }
            fprintf(out, " (own durable %u)\n", s->synced);
        }
    }
    fclose(out);
    return text;
}
