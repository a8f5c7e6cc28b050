/* sim_sort.h: a typed, stable merge sort for the checkers' small arrays.
 *
 * qsort calls its comparison through a pointer for every pair; these sorts
 * compare inline, sort short runs by insertion, and skip a merge whose
 * halves are already in order, so input that is sorted (or nearly) costs
 * about one pass. Stable: equal elements keep their order.
 *
 *   SIM_SORT_DEFINE(sort_ints, int, int_less)   with   int_less(const int *a, const int *b)
 * defines static void sort_ints(int *a, size_t n). Without memory for its
 * scratch half it sorts by insertion alone: slower, never wrong. */
#ifndef SIM_SORT_H
#define SIM_SORT_H

#include <stdlib.h>
#include <string.h>

#define SIM_SORT_SHORT 12 /* runs up to this long are sorted by insertion */

#define SIM_SORT_DEFINE(name, type, less)                                                  \
    static void name##_insertion(type *a, size_t n) {                                      \
        for (size_t i = 1; i < n; i++) {                                                   \
            if (!less(&a[i], &a[i - 1])) continue;                                         \
            type x = a[i];                                                                 \
            size_t j = i;                                                                  \
            for (; j > 0 && less(&x, &a[j - 1]); j--) a[j] = a[j - 1];                     \
            a[j] = x;                                                                      \
        }                                                                                  \
    }                                                                                      \
    static void name##_merge(type *a, type *scratch, size_t n) {                           \
        if (n <= SIM_SORT_SHORT) {                                                         \
            name##_insertion(a, n);                                                        \
            return;                                                                        \
        }                                                                                  \
        size_t half = n / 2;                                                               \
        name##_merge(a, scratch, half);                                                    \
        name##_merge(a + half, scratch, n - half);                                         \
        if (!less(&a[half], &a[half - 1])) return; /* the halves are in order already */   \
        memcpy(scratch, a, half * sizeof *a);                                              \
        size_t i = 0, j = half, k = 0;                                                     \
        while (i < half && j < n) a[k++] = less(&a[j], &scratch[i]) ? a[j++] : scratch[i++]; \
        while (i < half) a[k++] = scratch[i++];                                            \
    }                                                                                      \
    static void name(type *a, size_t n) {                                                  \
        if (n <= SIM_SORT_SHORT) {                                                         \
            name##_insertion(a, n);                                                        \
            return;                                                                        \
        }                                                                                  \
        type *scratch = malloc((n / 2 + 1) * sizeof *a);                                   \
        if (!scratch) {                                                                    \
            name##_insertion(a, n);                                                        \
            return;                                                                        \
        }                                                                                  \
        name##_merge(a, scratch, n);                                                       \
        free(scratch);                                                                     \
    }

#endif
