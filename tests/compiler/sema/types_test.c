/* types_test.c: unit tests of sema's type algebra (compiler/sema/types.c):
 * interning, union flattening and order-insensitive equality, optionals,
 * assignability, comparability and printing. */
#include "sema/sema_internal.h"
#include "tap.h"

#include <string.h>

static sema_ctx *new_ctx(base_arena *a) {
    sema_ctx *c = base_alloc(a, sizeof *c);
    c->arena = a;
    c->names = base_names_new(a);
    c->d = NULL;
    sema_types_init(c);
    return c;
}

int main(void) {
    base_arena *a = base_arena_new();
    sema_ctx *c = new_ctx(a);
    sema_type *order = ty_struct(c, "Order", NULL);
    sema_type *pay = ty_struct(c, "PayError", NULL);
    sema_type *other = ty_struct(c, "Order", NULL);

    /* interning: equal composite types are one pointer */
    tap_ok(ty_list(c, c->t_int) == ty_list(c, c->t_int), "[Int] is interned");
    tap_ok(ty_map(c, c->t_string, c->t_int) == ty_map(c, c->t_string, c->t_int), "Map[String, Int] is interned");
    tap_ok(ty_map(c, c->t_string, c->t_int) != ty_map(c, c->t_int, c->t_string), "Map key and value are distinct");
    tap_ok(ty_chan(c, c->t_int) != ty_task(c, c->t_int), "Chan[Int] is not Task[Int]");
    sema_type *p1[2] = {c->t_int, c->t_string};
    sema_type *p2[2] = {c->t_string, c->t_int};
    tap_ok(ty_fn(c, p1, 2, c->t_bool) == ty_fn(c, p1, 2, c->t_bool), "fn types are interned");
    tap_ok(ty_fn(c, p1, 2, c->t_bool) != ty_fn(c, p2, 2, c->t_bool), "parameter order matters in fn types");

    /* structs are nominal */
    tap_ok(order != other, "two structs named Order are different types");
    tap_ok(!ty_assignable(order, other), "nominal structs do not convert");

    /* unions: flattened, deduplicated, order-insensitive */
    sema_type *ab = ty_union2(c, order, pay);
    sema_type *ba = ty_union2(c, pay, order);
    tap_ok(ab == ba, "Order | PayError == PayError | Order");
    tap_ok(ab->kind == TY_UNION && ab->nitems == 2, "two members");
    tap_ok(ty_union2(c, ab, order) == ab, "A | B | A == A | B");
    tap_ok(ty_union2(c, order, order) == order, "A | A == A");
    sema_type *abn = ty_union2(c, ab, c->t_none);
    tap_ok(ty_union2(c, ty_optional(c, order), pay) == abn, "(A?) | B == A | B | None");
    tap_ok(ty_optional(c, ty_optional(c, c->t_int)) == ty_optional(c, c->t_int), "Int?? == Int?");
    tap_ok(ty_union2(c, c->t_never, c->t_int) == c->t_int, "Never | Int == Int");
    tap_ok(ty_union2(c, c->t_error, c->t_int) == c->t_error, "an error member gives the error type");

    /* assignability */
    tap_ok(ty_assignable(order, ab), "Order goes into Order | PayError");
    tap_ok(ty_assignable(ba, abn), "A | B goes into A | B | None");
    tap_ok(!ty_assignable(ab, order), "A | B does not go into A");
    tap_ok(ty_assignable(c->t_none, ty_optional(c, c->t_int)), "none goes into Int?");
    tap_ok(!ty_assignable(ty_list(c, c->t_int), ty_list(c, ty_optional(c, c->t_int))), "lists are invariant");
    tap_ok(ty_assignable(c->t_never, c->t_int), "Never goes anywhere");
    tap_ok(ty_assignable(c->t_error, order) && ty_assignable(order, c->t_error), "the error type fits everywhere");

    /* set operations used by match and is */
    tap_ok(ty_without(c, abn, c->t_none) == ab, "A | B | None without None == A | B");
    tap_ok(ty_without(c, ab, ab) == c->t_never, "A | B without A | B is empty");
    tap_ok(ty_subset(order, abn) && !ty_subset(abn, ab), "subset");

    /* comparable, sendable, extern */
    tap_ok(ty_comparable(ty_optional(c, c->t_string)), "String? is comparable");
    tap_ok(!ty_comparable(ty_list(c, c->t_int)), "[Int] is not comparable");
    tap_ok(!ty_comparable(ab), "a union of structs is not comparable");
    tap_ok(ty_sendable(ty_map(c, c->t_string, ty_list(c, c->t_int)), 0), "Map[String, [Int]] is sendable");
    tap_ok(!ty_sendable(ty_list(c, ty_chan(c, c->t_int)), 0), "[Chan[Int]] is not sendable");
    tap_ok(ty_extern_ok(ty_list(c, c->t_string)) && !ty_extern_ok(ty_optional(c, c->t_int)), "extern ABI types");

    /* printing keeps the order first written */
    tap_is_str(ty_str(c, ty_optional(c, c->t_int)), "Int?", "Int? prints as written");
    tap_is_str(ty_str(c, ab), "Order | PayError", "union prints in written order");
    tap_is_str(ty_str(c, ty_map(c, c->t_string, ty_list(c, ty_optional(c, c->t_bool)))), "Map[String, [Bool?]]",
               "nested generics print");
    tap_is_str(ty_str(c, ty_fn(c, p1, 2, c->t_none)), "fn(Int, String)", "fn without result prints without ->");
    tap_is_str(ty_str(c, ty_task(c, ty_fn(c, p1, 1, c->t_bool))), "Task[fn(Int) -> Bool]", "fn with result");

    base_arena_free(a);
    return tap_done();
}
