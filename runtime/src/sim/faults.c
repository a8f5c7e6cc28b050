/* faults.c: the World's fault log and its replay (oxl_sim.h, "the fault
 * log and its replay").
 *
 * Every fault goes through sim_fault_gate at its chance. Recording appends
 * what fired; replaying looks the chance up in a sorted list and fires it
 * only when listed, so a shrinker can drop a fault or shorten a partition
 * and run the same seed again. A chance is named by its kind and ordinal,
 * not by its time or its message: those drift once the schedule changes,
 * the count of chances much less. */
#include "sim_internal.h"

#include <stdlib.h>
#include <string.h>

static int fault_cmp(const void *a, const void *b) {
    const oxl_fault *x = a, *y = b;
    if (x->kind != y->kind) return x->kind < y->kind ? -1 : 1;
    return x->ordinal < y->ordinal ? -1 : x->ordinal > y->ordinal;
}

static void reset(oxl_world *w, uint8_t mode) {
    memset(w->fault_next, 0, sizeof w->fault_next);
    free(w->fault_fired);
    w->fault_fired = NULL;
    w->nfault_fired = w->fault_fired_cap = 0;
    free(w->fault_log);
    w->fault_log = NULL;
    w->nfault_log = w->fault_log_cap = 0;
    memset(w->fault_chances, 0, sizeof w->fault_chances);
    w->fault_mode = mode;
}

void oxl_world_record_faults(oxl_world *w) { reset(w, SIM_FAULTS_RECORD); }

size_t oxl_world_fault_log(const oxl_world *w, const oxl_fault **faults) {
    if (w->fault_mode == SIM_FAULTS_REPLAY) {
        *faults = w->fault_fired;
        return w->nfault_fired;
    }
    *faults = w->fault_mode == SIM_FAULTS_RECORD ? w->fault_log : NULL;
    return w->fault_mode == SIM_FAULTS_RECORD ? w->nfault_log : 0;
}

/* Appends a fault that fired to a log. */
static void log_fault(oxl_fault **log, size_t *n, size_t *cap, oxl_world *w, oxl_fault_kind k, uint64_t ordinal,
                      oxl_time_ns at, oxl_dur_ns dur, sim_fault_label_fn label_fn, const void *arg) {
    if (*n == *cap) {
        *cap = *cap ? *cap * 2 : 16;
        *log = sim_xrealloc(*log, *cap * sizeof **log);
    }
    oxl_fault *f = &(*log)[(*n)++];
    memset(f, 0, sizeof *f);
    f->kind = k;
    f->ordinal = ordinal;
    f->at = at;
    f->dur = dur;
    if (label_fn) label_fn(w, arg, f->label, sizeof f->label);
}

void oxl_world_replay_faults(oxl_world *w, const oxl_fault *faults, size_t n) {
    reset(w, SIM_FAULTS_REPLAY);
    w->fault_log = sim_xmalloc((n ? n : 1) * sizeof *faults);
    if (n) memcpy(w->fault_log, faults, n * sizeof *faults);
    w->nfault_log = w->fault_log_cap = n;
    qsort(w->fault_log, n, sizeof *w->fault_log, fault_cmp);
    /* each kind's cursor at its first entry: chances come in rising
     * ordinal order, so a lookup only ever moves its cursor forward */
    for (int k = OXL_FAULT_NKINDS - 1; k >= 0; k--) {
        size_t i = 0;
        while (i < n && w->fault_log[i].kind < (oxl_fault_kind)k) i++;
        w->fault_next[k] = i;
    }
}

void sim_faults_free(oxl_world *w) { reset(w, SIM_FAULTS_OFF); }

bool sim_fault_chance(oxl_world *w, oxl_fault_kind k, bool would, oxl_time_ns at, oxl_dur_ns *dur,
                      sim_fault_label_fn label_fn, const void *arg) {
    uint64_t ordinal = w->fault_chances[k]++;
    if (w->fault_mode == SIM_FAULTS_REPLAY) {
        size_t *i = &w->fault_next[k];
        while (*i < w->nfault_log && w->fault_log[*i].kind == k && w->fault_log[*i].ordinal < ordinal) ++*i;
        if (*i >= w->nfault_log || w->fault_log[*i].kind != k || w->fault_log[*i].ordinal != ordinal) return false;
        const oxl_fault *f = &w->fault_log[(*i)++];
        if (dur && f->dur > 0) *dur = f->dur;
        log_fault(&w->fault_fired, &w->nfault_fired, &w->fault_fired_cap, w, k, ordinal, at, dur ? *dur : 0,
                  label_fn, arg);
        return true;
    }
    if (!would) return false;
    log_fault(&w->fault_log, &w->nfault_log, &w->fault_log_cap, w, k, ordinal, at, dur ? *dur : 0, label_fn, arg);
    return true;
}
