/* fuzz_wire: the rpc wire reader (runtime/src/rpc/wire.c) as a libFuzzer
 * target. The first byte picks one of a few types (scalars, optionals,
 * nested lists, maps with String and union keys, a struct, a union); the
 * rest is read as a value of it. The reader may refuse the bytes; it must
 * never crash, and a value it accepts must write back as exactly the bytes
 * it read (the format has one encoding per value).
 *
 * Built as fuzz_wire_replay (always, ctest fuzz_wire_smoke over
 * tests/fuzz/wire_corpus/) and, with -DOXL_FUZZ=ON and clang, as the
 * libFuzzer target fuzz_wire. */
#include "oxl_rpc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const oxl_type_desc d_none = {.kind = OXL_TD_NONE, .name = "None"};
static const oxl_type_desc d_int = {.kind = OXL_TD_INT, .name = "Int"};
static const oxl_type_desc d_bool = {.kind = OXL_TD_BOOL, .name = "Bool"};
static const oxl_type_desc d_str = {.kind = OXL_TD_STRING, .name = "String"};
static const oxl_type_desc d_bytes = {.kind = OXL_TD_BYTES, .name = "Bytes"};
static const oxl_type_desc d_dur = {.kind = OXL_TD_DURATION, .name = "Duration"};

/* Int? (None's tag 2, Int's 3, as sema numbers them) */
static const oxl_type_desc *const opt_int_items[] = {&d_none, &d_int};
static const int64_t opt_int_tags[] = {2, 3};
static const oxl_type_desc d_opt_int = {.kind = OXL_TD_UNION, .n = 2, .items = opt_int_items, .tags = opt_int_tags,
                                        .name = "Int?"};
/* [Int?] */
static const oxl_type_desc *const l_opt_items[] = {&d_opt_int};
static const oxl_type_desc d_list_opt = {.kind = OXL_TD_LIST, .n = 1, .items = l_opt_items, .name = "[Int?]"};
/* Map[String, [Bytes]] */
static const oxl_type_desc *const l_bytes_items[] = {&d_bytes};
static const oxl_type_desc d_list_bytes = {.kind = OXL_TD_LIST, .n = 1, .items = l_bytes_items, .name = "[Bytes]"};
static const oxl_type_desc *const m_items[] = {&d_str, &d_list_bytes};
static const oxl_type_desc d_map = {.kind = OXL_TD_MAP, .n = 2, .items = m_items, .name = "Map[String, [Bytes]]"};
/* Order { id: Int, items: [String], note: String?, late: Duration } */
static const oxl_type_desc *const l_str_items[] = {&d_str};
static const oxl_type_desc d_list_str = {.kind = OXL_TD_LIST, .n = 1, .items = l_str_items, .name = "[String]"};
static const oxl_type_desc *const opt_str_items[] = {&d_none, &d_str};
static const int64_t opt_str_tags[] = {2, 5};
static const oxl_type_desc d_opt_str = {.kind = OXL_TD_UNION, .n = 2, .items = opt_str_items, .tags = opt_str_tags,
                                        .name = "String?"};
static const oxl_type_desc *const order_items[] = {&d_int, &d_list_str, &d_opt_str, &d_dur};
static const oxl_type_desc d_order = {.kind = OXL_TD_STRUCT, .n = 4, .items = order_items, .name = "Order"};
/* Int | String | Bool | None */
static const oxl_type_desc *const u_items[] = {&d_none, &d_int, &d_bool, &d_str};
static const int64_t u_tags[] = {2, 3, 4, 5};
static const oxl_type_desc d_union = {.kind = OXL_TD_UNION, .n = 4, .items = u_items, .tags = u_tags,
                                      .name = "Int | Bool | String | None"};
/* Map[String?, Order]: union keys, the String member compared by content */
static const int64_t str_key_tags[] = {5};
static const oxl_type_desc *const mu_items[] = {&d_opt_str, &d_order};
static const oxl_type_desc d_map_union = {.kind = OXL_TD_MAP, .n = 2, .items = mu_items, .name = "Map[String?, Order]",
                                          .str_tags = str_key_tags, .nstr_tags = 1};
/* [[[Int]]] */
static const oxl_type_desc *const l1_items[] = {&d_int};
static const oxl_type_desc d_l1 = {.kind = OXL_TD_LIST, .n = 1, .items = l1_items, .name = "[Int]"};
static const oxl_type_desc *const l2_items[] = {&d_l1};
static const oxl_type_desc d_l2 = {.kind = OXL_TD_LIST, .n = 1, .items = l2_items, .name = "[[Int]]"};
static const oxl_type_desc *const l3_items[] = {&d_l2};
static const oxl_type_desc d_l3 = {.kind = OXL_TD_LIST, .n = 1, .items = l3_items, .name = "[[[Int]]]"};

static const oxl_type_desc *const types[] = {&d_int, &d_str, &d_list_opt, &d_map, &d_order, &d_union, &d_map_union, &d_l3};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static bool ready;
    if (!ready) {
        oxl_rt_init();
        ready = true;
    }
    if (size == 0 || size > OXL_RPC_MAX_FRAME) return 0;
    const oxl_type_desc *t = types[data[0] % (sizeof types / sizeof types[0])];
    const unsigned char *p = data + 1, *end = data + size;
    oxl_word v;
    char err[256];
    if (!oxl_wire_decode(&p, end, t, &v, err, sizeof err)) return 0;
    /* accepted: it writes back as the bytes it read */
    size_t used = (size_t)(p - (data + 1));
    oxl_wire_buf b = {0};
    if (!oxl_wire_encode(&b, t, v, err, sizeof err) || b.len != used || memcmp(b.data, data + 1, used) != 0) {
        fprintf(stderr, "fuzz_wire: a %s read from %zu bytes writes back as %zu other bytes (%s)\n", t->name, used,
                b.len, err);
        abort();
    }
    oxl_wire_buf_free(&b);
    return 0;
}
