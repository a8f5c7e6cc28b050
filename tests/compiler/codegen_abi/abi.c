/* abi.c: the C side of main.oxl's extern fns, as the runtime would define
 * them: the arguments must arrive exactly as C sees them. */
#include "oxl_rt.h"

#include <stdio.h>
#include <string.h>

bool oxl_main_check(bool on, int64_t n, oxl_string s, oxl_list xs);
bool oxl_main_negate(bool b);
oxl_list oxl_main_words(oxl_string s);
void oxl_main_clock_put(int64_t d);
int64_t oxl_main_clock_twice(int64_t d);

bool oxl_main_check(bool on, int64_t n, oxl_string s, oxl_list xs) {
    char buf[128];
    snprintf(buf, sizeof buf, "check(%d, %lld, %s, len %lld, sum %lld)", (int)on, (long long)n, oxl_str_cstr(s),
             (long long)oxl_list_len(xs),
             (long long)(oxl_list_at(xs, 0, "abi.c", 1) + oxl_list_at(xs, 1, "abi.c", 1) + oxl_list_at(xs, 2, "abi.c", 1)));
    oxl_print(oxl_str_from_cstr(buf));
    return on && n == 41 && strcmp(oxl_str_cstr(s), "four") == 0;
}

bool oxl_main_negate(bool b) { return !b; }

oxl_list oxl_main_words(oxl_string s) { return oxl_str_split(s, oxl_str_from_cstr(" ")); }

void oxl_main_clock_put(int64_t d) {
    char buf[64];
    snprintf(buf, sizeof buf, "put %lld ns", (long long)d);
    oxl_print(oxl_str_from_cstr(buf));
}

int64_t oxl_main_clock_twice(int64_t d) { return 2 * d; }
