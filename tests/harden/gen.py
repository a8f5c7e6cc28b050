# gen.py: the program generator of the hardening test (run.py): odd OxL
# programs, each a pure function of (seed, index). Kinds:
#   typed     well-typed programs from a small grammar (structs, unions,
#             optionals, lists, maps, calls, loops, match, tasks, tests), so
#             they reach code generation
#   mutated   a program of the source tree (conformance cases, checker and
#             parser tests, examples) or a typed one, with token and byte
#             edits: deletions, swaps, duplicated lines, odd literals
#   nested    brackets, blocks, types, interpolations and `else if` chains
#             just inside and just past their limits (docs/language.md §5)
#   huge      long strings, big lists and maps, integer literals at the edges
#   items     many functions, constants, types and tests
#   unicode   odd text in strings, comments and where names go; invalid UTF-8
#   names     identifiers at and past 1024 bytes, keywords in odd places
#   params    functions and calls with up to 260 parameters and arguments
#   package   several files and subpackages: imports (missing, cyclic),
#             services, clusters, sim tests with the std.test controls
# The random source is splitmix64, not Python's, so a seed means the same
# programs on every Python.

MASK = (1 << 64) - 1


class Rng:
    def __init__(self, seed):
        self.s = seed & MASK

    def next(self):
        self.s = (self.s + 0x9E3779B97F4A7C15) & MASK
        z = self.s
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    def below(self, n):
        return self.next() % n if n > 0 else 0

    def range(self, lo, hi):  # inclusive
        return lo + self.below(hi - lo + 1)

    def chance(self, per_cent):
        return self.below(100) < per_cent

    def pick(self, xs):
        return xs[self.below(len(xs))]


def case_seed(seed, index):
    return Rng(seed ^ (index * 0xD1B54A32D192ED03 & MASK)).next()


# ---- typed programs ----

PRIMS = ["Int", "Bool", "String", "Duration"]


class Scope:
    def __init__(self, parent=None):
        self.parent = parent
        self.vars = []  # (name, type, mutable)

    def all(self):
        s, out = self, []
        while s:
            out.extend(s.vars)
            s = s.parent
        return out


class Typed:
    """Programs that mostly type-check, so that code generation sees them."""

    def __init__(self, rng):
        self.r = rng
        self.n = 0
        self.structs = {}  # name -> [(field, type)]
        self.unions = {}  # name -> [member types]
        self.fns = []  # (name, [(param, type)], result or None)
        self.consts = []  # (name, type, text)
        self.depth = 0

    def fresh(self, base="v"):
        self.n += 1
        return "%s%d" % (base, self.n)

    # types: "Int", "[T]", "Map[K, V]", "T?", struct and union names
    def rand_type(self, depth=0):
        r = self.r
        k = r.below(10)
        if depth > 2 or k < 4:
            return r.pick(PRIMS)
        if k < 6:
            return "[%s]" % self.rand_type(depth + 1)
        if k == 6:
            return "Map[%s, %s]" % (r.pick(["Int", "String"]), self.rand_type(depth + 1))
        if k == 7 and self.structs:
            return r.pick(sorted(self.structs))
        if k == 8 and self.unions:
            return r.pick(sorted(self.unions))
        if k == 9:
            inner = r.pick(PRIMS + sorted(self.structs))
            return inner + "?"
        return r.pick(PRIMS)

    def int_lit(self):
        r = self.r
        k = r.below(12)
        if k == 0:
            return "9223372036854775807"
        if k == 1:
            return "(-9223372036854775807 - 1)"
        if k == 2:
            return "0x%x" % r.below(1 << 63)
        if k == 3:
            return "1_000_000"
        return str(r.range(0, 1000))

    def str_lit(self):
        r = self.r
        pieces = ["", "a", "hello", "\\n", "\\t", "\\\\", "\\\"", "\\{", "}", "\\0", "\\u{1F600}", "é", "日本",
                  " ", "x" * r.range(0, 40)]
        return '"' + "".join(r.pick(pieces) for _ in range(r.range(0, 4))) + '"'

    def var_of(self, scope, t, mutable=None):
        c = [v for v in scope.all() if v[1] == t and (mutable is None or v[2] == mutable)]
        return self.r.pick(c)[0] if c else None

    def expr(self, scope, t, depth=0):
        r = self.r
        deep = depth >= 4
        v = self.var_of(scope, t)
        if v and r.chance(40):
            return v
        if t == "Int":
            k = r.below(12 if not deep else 2)
            if k == 0:
                # the edges only where no constant arithmetic overflows
                return self.int_lit() if depth == 0 else str(r.range(0, 9))
            if k == 1:
                return v or str(r.range(0, 99))
            if k <= 4:
                op = r.pick(["+", "-", "*", "/", "%"])
                rhs = str(r.range(1, 9)) if op in "/%" else self.expr(scope, "Int", depth + 1)
                return "(%s %s %s)" % (self.expr(scope, "Int", depth + 1), op, rhs)
            if k == 5:
                return "%s.len()" % self.expr(scope, "String", depth + 1)
            if k == 6:
                return "%s.len()" % self.expr(scope, "[Int]", depth + 1)
            if k == 7:
                return "-(%s)" % self.expr(scope, "Int", depth + 1)
            if k == 8:
                call = self.call_of(scope, "Int", depth)
                if call:
                    return call
            if k == 9:
                cs = [c for c in self.consts if c[1] == "Int"]
                if cs:
                    return r.pick(cs)[0]
            if k == 10:
                return "(%s / 1ms)" % self.expr(scope, "Duration", depth + 1)
            return str(r.range(0, 50))
        if t == "Bool":
            k = r.below(9 if not deep else 1)
            if k == 0:
                return r.pick(["true", "false"])
            if k <= 2:
                op = r.pick(["<", "<=", ">", ">=", "==", "!="])
                return "%s %s %s" % (self.expr(scope, "Int", depth + 1), op, self.expr(scope, "Int", depth + 1))
            if k == 3:
                return "(%s %s %s)" % (self.expr(scope, "Bool", depth + 1), r.pick(["&&", "||"]),
                                       self.expr(scope, "Bool", depth + 1))
            if k == 4:
                return "!(%s)" % self.expr(scope, "Bool", depth + 1)
            if k == 5:
                return "%s.contains(%s)" % (self.expr(scope, "String", depth + 1), self.str_lit())
            if k == 6:
                return "%s == %s" % (self.expr(scope, "String", depth + 1), self.expr(scope, "String", depth + 1))
            if k == 7:
                us = [x for x in scope.all() if x[1] in self.unions]
                if us:
                    name, ut, _ = r.pick(us)
                    return "(%s is %s)" % (name, r.pick(self.unions[ut]))
            call = self.call_of(scope, "Bool", depth)
            return call or "true"
        if t == "String":
            k = r.below(7 if not deep else 1)
            if k == 0:
                return self.str_lit()
            if k == 1:
                parts = []
                for _ in range(r.range(1, 4)):
                    parts.append(r.pick(["", "a", " ", "-", "é"]))
                    parts.append("{%s}" % self.expr(scope, self.rand_type(1), depth + 1))
                return '"' + "".join(parts) + '"'
            if k == 2:
                return "(%s + %s)" % (self.expr(scope, "String", depth + 1), self.expr(scope, "String", depth + 1))
            if k == 3:
                return "%s.%s()" % (self.expr(scope, "String", depth + 1), r.pick(["toUpper", "toLower", "trim"]))
            if k == 4:
                call = self.call_of(scope, "String", depth)
                if call:
                    return call
            if k == 5:
                cs = [c for c in self.consts if c[1] == "String"]
                if cs:
                    return r.pick(cs)[0]
            return self.str_lit()
        if t == "Duration":
            k = r.below(4 if not deep else 1)
            if k == 0:
                return "%d%s" % (r.range(0, 5000), r.pick(["ns", "us", "ms", "s", "m", "h"]))
            if k == 1:
                return "(%s + %s)" % (self.expr(scope, "Duration", depth + 1), self.expr(scope, "Duration", depth + 1))
            if k == 2:
                return "(%s * 1ms)" % self.expr(scope, "Int", depth + 1)
            return "10ms"
        if t.startswith("[") and t.endswith("]"):
            # elements of one concrete type: a literal's elements unify
            # only under an annotation, which inner literals lack
            el = self.concrete(t[1:-1])
            n = 1 if deep else r.range(1, 4)
            return "[" + ", ".join(self.expr(scope, el, depth + 1) for _ in range(n)) + "]"
        if t.startswith("Map["):
            key, val = t[4:-1].split(", ", 1)
            if (deep or r.chance(30)) and "?" not in t and "|" not in t and not any(u in t for u in self.unions):
                return v or "%s()" % t
            val = self.concrete(val)
            ents = []
            for i in range(r.range(1, 3)):
                kk = str(i) if key == "Int" else '"k%d"' % i
                ents.append("%s: %s" % (kk, self.expr(scope, val, depth + 1)))
            return "{" + ", ".join(ents) + "}"
        if t.endswith("?"):
            if r.chance(30):
                return "none"
            return self.expr(scope, t[:-1], depth + 1)
        if t in self.structs:
            fields = self.structs[t]
            return "%s { %s }" % (t, ", ".join("%s: %s" % (f, self.expr(scope, ft, depth + 1)) for f, ft in fields))
        if t in self.unions:
            return self.expr(scope, r.pick(self.unions[t]), depth + 1)
        return "0"

    def concrete(self, t):
        """A member type of t to build all elements of a literal from."""
        if t.endswith("?"):
            return t[:-1]
        if t in self.unions:
            return self.r.pick(self.unions[t])
        return t

    def const_expr(self, t):
        r = self.r
        if t == "Int":
            return "%d %s %d" % (r.range(0, 999), r.pick(["+", "-", "*", "/", "%"]), r.range(1, 999))
        if t == "String":
            return "%s + %s" % (self.str_lit(), self.str_lit())
        return r.pick(["true", "false", "1 < 2", "!true"])

    def call_of(self, scope, t, depth):
        fs = [f for f in self.fns if f[2] == t]
        if not fs or depth > 3:
            return None
        name, params, _ = self.r.pick(fs)
        return "%s(%s)" % (name, ", ".join(self.expr(scope, pt, depth + 1) for _, pt in params))

    def block(self, scope, result, indent, n):
        out = []
        inner = Scope(scope)
        for _ in range(n):
            out.extend(self.stmt(inner, result, indent))
        return out

    def stmt(self, scope, result, indent):
        r = self.r
        pad = "  " * indent
        k = r.below(24)
        deep = indent > 4
        if k >= 16:
            more = self.more_stmt(scope, result, pad, k - 16, deep)
            if more:
                return more
            k = 4
        if k <= 2 or (deep and k < 8):
            t = self.rand_type()
            name = self.fresh()
            mutable = r.chance(50)
            ann = ": %s" % t if r.chance(60) or t.endswith("?") or t in self.unions or t.startswith("[") else ""
            line = "%s%s %s%s = %s" % (pad, "var" if mutable else "let", name, ann, self.expr(scope, t))
            scope.vars.append((name, t, mutable))
            return [line]
        if k == 3:
            vs = [v for v in scope.all() if v[2]]
            if vs:
                name, t, _ = r.pick(vs)
                if t == "Int" and r.chance(50):
                    return ["%s%s %s %s" % (pad, name, r.pick(["+=", "-=", "*="]), self.expr(scope, "Int"))]
                return ["%s%s = %s" % (pad, name, self.expr(scope, t))]
        if k == 4:
            return ["%sprint(%s)" % (pad, self.expr(scope, self.rand_type()))]
        if k == 5:
            return ["%sassert %s, %s" % (pad, self.expr(scope, "Bool"), self.str_lit())]
        if k == 6 and not deep:
            out = ["%sif %s {" % (pad, self.expr(scope, "Bool"))]
            out += self.block(scope, result, indent + 1, r.range(0, 3))
            if r.chance(50):
                out.append("%s} else {" % pad)
                out += self.block(scope, result, indent + 1, r.range(0, 3))
            out.append(pad + "}")
            return out
        if k == 7 and not deep:
            i = self.fresh("i")
            out = ["%sfor %s in 0..%s {" % (pad, i, r.range(0, 5))]
            inner = Scope(scope)
            inner.vars.append((i, "Int", False))
            out += self.block(inner, result, indent + 1, r.range(0, 3))
            if r.chance(20):
                out.append("%s  %s" % (pad, r.pick(["break", "continue"])))
            return out + [pad + "}"]
        if k == 8 and not deep:
            lists = [v for v in scope.all() if v[1].startswith("[")]
            if lists:
                name, t, _ = r.pick(lists)
                x = self.fresh("x")
                inner = Scope(scope)
                inner.vars.append((x, t[1:-1], False))
                return (["%sfor %s in %s {" % (pad, x, name)] + self.block(inner, result, indent + 1, r.range(0, 2)) +
                        [pad + "}"])
        if k == 9:
            lists = [v for v in scope.all() if v[1].startswith("[")]
            if lists:
                name, t, _ = r.pick(lists)
                m = r.pick(["push(%s)" % self.expr(scope, t[1:-1]), "pop()", "get(0)", "len()"])
                return ["%s%s.%s" % (pad, name, m)]
        if k == 10 and not deep:
            us = [v for v in scope.all() if v[1] in self.unions]
            if us:
                name, ut, _ = r.pick(us)
                out = ["%smatch %s {" % (pad, name)]
                members = self.unions[ut]
                wild = r.chance(40)
                for mt in members if r.chance(70) or not wild else members[:-1]:
                    b = self.fresh("m")
                    inner = Scope(scope)
                    inner.vars.append((b, mt, False))
                    out.append("%s  %s %s => {" % (pad, mt, b))
                    out += self.block(inner, result, indent + 2, r.range(0, 2))
                    out.append(pad + "  }")
                if wild:
                    out.append(pad + "  _ => {}")
                return out + [pad + "}"]
        if k == 11 and not deep:
            c = self.fresh("c")
            out = ["%svar %s = 0" % (pad, c), "%swhile %s < %d {" % (pad, c, r.range(0, 4)),
                   "%s  %s += 1" % (pad, c)]
            inner = Scope(scope)
            out += self.block(inner, result, indent + 1, r.range(0, 2))
            return out + [pad + "}"]
        if k == 12 and result and r.chance(30):
            return ["%sreturn %s" % (pad, self.expr(scope, result))]
        if k == 13:
            fs = [f for f in self.fns if f[2]]
            if fs and r.chance(50):
                name, params, res = r.pick(fs)
                t = self.fresh("t")
                args = ", ".join(self.expr(scope, pt) for _, pt in params)
                return ["%slet %s = spawn %s(%s)" % (pad, t, name, args), "%sprint(%s.join())" % (pad, t)]
        if k == 14:
            maps = [v for v in scope.all() if v[1].startswith("Map[")]
            if maps:
                name, t, _ = r.pick(maps)
                key, val = t[4:-1].split(", ", 1)
                kk = str(r.range(0, 3)) if key == "Int" else '"k%d"' % r.range(0, 3)
                return ["%s%s[%s] = %s" % (pad, name, kk, self.expr(scope, val))]
        if k == 15 and not deep:
            ch = self.fresh("ch")
            return ["%slet %s = Chan[Int](%d)" % (pad, ch, r.range(0, 2)),
                    "%sspawn {" % pad, "%s  %s.send(%s)" % (pad, ch, self.expr(scope, "Int")), pad + "}",
                    "%sselect {" % pad, "%s  x = %s.recv() => { print(x) }" % (pad, ch),
                    "%s  after 1s => { print(\"late\") }" % pad, pad + "}"]
        return ["%sprint(%s)" % (pad, self.expr(scope, "String"))]

    def more_stmt(self, scope, result, pad, k, deep):
        """Statements over fields, optionals, maps, methods, fn values,
        spawn blocks and labelled arguments."""
        r = self.r
        allv = scope.all()
        if k == 0:
            ss = [v for v in allv if v[1] in self.structs]
            if ss:
                name, t, _ = r.pick(ss)
                f, ft = r.pick(self.structs[t])
                if ft == "Int" and r.chance(50):
                    return ["%s%s.%s += %s" % (pad, name, f, self.expr(scope, "Int"))]
                return ["%s%s.%s = %s" % (pad, name, f, self.expr(scope, ft)),
                        "%sprint(%s.%s)" % (pad, name, f)]
        if k == 1 and not deep:
            os_ = [v for v in allv if v[1].endswith("?")]
            if os_:
                name, t, _ = r.pick(os_)
                inner = Scope(scope)
                inner.vars.append((name, t[:-1], False))  # narrowed
                test = r.pick(["%s != none" % name, "%s is %s" % (name, t[:-1])])
                return (["%sif %s {" % (pad, test)] + self.block(inner, result, len(pad) // 2 + 1, r.range(1, 2)) +
                        [pad + "}"])
        if k == 2:
            maps = [v for v in allv if v[1].startswith("Map[")]
            if maps:
                name, t, _ = r.pick(maps)
                key, val = t[4:-1].split(", ", 1)
                kk = str(r.range(0, 3)) if key == "Int" else '"k%d"' % r.range(0, 3)
                m = r.pick(["get(%s)" % kk, "has(%s)" % kk, "remove(%s)" % kk, "keys()", "values()", "len()",
                            "set(%s, %s)" % (kk, self.expr(scope, val))])
                if not deep and r.chance(40):
                    a, b = self.fresh("k"), self.fresh("w")
                    inner = Scope(scope)
                    inner.vars += [(a, key, False), (b, val, False)]
                    return (["%sfor %s, %s in %s {" % (pad, a, b, name)] +
                            self.block(inner, result, len(pad) // 2 + 1, r.range(0, 2)) + [pad + "}"])
                return ["%sprint(%s.%s)" % (pad, name, m)]
        if k == 3:
            lists = [v for v in allv if v[1].startswith("[")]
            if lists:
                name, t, _ = r.pick(lists)
                el = t[1:-1]
                m = r.pick(["insert(0, %s)" % self.expr(scope, el), "slice(0, %s.len())" % name,
                            "get(%d)" % r.range(-1, 3)])
                if el in ("Int", "String", "Bool", "Duration"):
                    m = r.pick([m, "contains(%s)" % self.expr(scope, el)])
                return ["%sprint(%s.%s)" % (pad, name, m)]
        if k == 4:
            s = self.expr(scope, "String")
            m = r.pick(["split(%s)" % self.str_lit(), "startsWith(%s)" % self.str_lit(),
                        "endsWith(suffix: %s)" % self.str_lit(), "bytes().len()", "bytes()"])
            return ["%sprint(%s.%s)" % (pad, s, m)]
        if k == 5:
            fs = [f for f in self.fns if f[2] and all(pt in PRIMS for _, pt in f[1])]
            if fs:
                name, params, res = r.pick(fs)
                g = self.fresh("g")
                ft = "fn(%s) -> %s" % (", ".join(pt for _, pt in params), res)
                args = ", ".join(self.expr(scope, pt) for _, pt in params)
                return ["%slet %s: %s = %s" % (pad, g, ft, name), "%sprint(%s(%s))" % (pad, g, args),
                        "%sprint(%s)" % (pad, g)]
        if k == 6 and not deep:
            t = self.fresh("b")
            rt = r.pick(["Int", "String"])
            inner = Scope(scope)
            body = self.block(inner, None, len(pad) // 2 + 1, r.range(0, 2))
            return (["%slet %s = spawn {" % (pad, t)] + body +
                    ["%s  return %s" % (pad, self.expr(scope, rt)), pad + "}",
                     "%sprint(%s.join())" % (pad, t)])
        if k == 7:
            fs = [f for f in self.fns if f[1]]
            if fs:
                name, params, _ = r.pick(fs)
                order = list(params)
                # labelled arguments, in any order
                for i in range(len(order) - 1, 0, -1):
                    j = r.below(i + 1)
                    order[i], order[j] = order[j], order[i]
                args = ", ".join("%s: %s" % (p, self.expr(scope, pt)) for p, pt in order)
                return ["%s%s(%s)" % (pad, name, args)]
        return None

    def program(self):
        r = self.r
        out = []
        for _ in range(r.range(0, 3)):
            name = self.fresh("S").capitalize()
            fields = [(self.fresh("f"), self.rand_type(2)) for _ in range(r.range(1, 4))]
            self.structs[name] = fields
            out.append("type %s {" % name)
            for f, t in fields:
                out.append("  %s: %s" % (f, t))
            out.append("}")
        for _ in range(r.range(0, 2)):
            name = self.fresh("U").capitalize()
            members = sorted(set(r.pick(PRIMS + sorted(self.structs)) for _ in range(r.range(2, 4))))
            if len(members) < 2:
                members = ["Int", "String"]
            self.unions[name] = members
            out.append("type %s = %s" % (name, " | ".join(members)))
        for _ in range(r.range(0, 3)):
            t = r.pick(["Int", "String", "Bool"])
            name = self.fresh("K").upper()
            out.append("const %s = %s" % (name, self.const_expr(t)))
            self.consts.append((name, t, None))
        # signatures first (calls may go to any of them), bodies after
        sigs = []
        for _ in range(r.range(0, 4)):
            params = [(self.fresh("p"), self.rand_type(1)) for _ in range(r.range(0, 3))]
            res = r.pick([None, "Int", "String", "Bool"] + sorted(self.structs))
            name = self.fresh("fn")
            sigs.append((name, params, res))
        self.fns = sigs
        for name, params, res in sigs:
            scope = Scope()
            for p, t in params:
                scope.vars.append((p, t, False))
            head = "fn %s(%s)%s {" % (name, ", ".join("%s: %s" % (p, t) for p, t in params),
                                      " -> %s" % res if res else "")
            body = self.block(scope, res, 1, r.range(0, 5))
            if res:
                body.append("  return %s" % self.expr(scope, res))
            out += [head] + body + ["}"]
        out += ["fn main() {"] + self.block(Scope(), None, 1, r.range(1, 12)) + ["}"]
        for _ in range(r.range(0, 2)):
            sim = r.chance(40)
            head = ('test sim "%s" seeds 1..=%d {' % (self.fresh("t"), r.range(1, 3)) if sim
                    else 'test "%s" {' % self.fresh("t"))
            out += [head] + self.block(Scope(), None, 1, r.range(0, 4)) + ["}"]
        return "\n".join(out) + "\n"


def gen_typed(r, corpus):
    return Typed(r).program().encode()


# ---- mutated conformance programs ----

ODD_TOKENS = ["{", "}", "(", ")", "[", "]", ",", ";", "\n", "=>", "..", "..=", "?", "|", ":", ".", "=", "+=",
              "fn", "let", "var", "match", "select", "spawn", "return", "if", "else", "while", "for", "in", "is",
              "none", "true", "type", "const", "test", "sim", "seeds", "with", "cluster", "service", "rpc",
              "state", "on", "start", "mod", "use", "pub", "extern", "_", "after", "break", "continue",
              "9223372036854775807", "9223372036854775808", "-9223372036854775807", "0x", "007", "1_",
              "2562047h", "2562048h", "10xs", "\"", "\"{", "}\"", "\"\\q\"", "\"\\u{110000}\"", "'", "@", "#",
              "Int", "String", "Map[String, Int]", "Chan[Int](1)", "[Int]", "Int | String", "Int??",
              "x", "main", "print", "panic", "assert", "//", "/*", "*/", "\\", "\t", "\r"]


def tokens(src):
    """A rough tokenizer: words, numbers, strings, punctuation and spaces
    (mutations stay near the grammar without needing the real lexer)."""
    out, i, n = [], 0, len(src)
    while i < n:
        c = src[i]
        j = i + 1
        if c.isalnum() or c == "_":
            while j < n and (src[j].isalnum() or src[j] == "_"):
                j += 1
        elif c == '"':
            while j < n and src[j] not in '"\n':
                j += 2 if src[j] == "\\" else 1
            j = min(j + 1, n)
        elif c in " \t":
            while j < n and src[j] in " \t":
                j += 1
        out.append(src[i:j])
        i = j
    return out


def gen_mutated(r, corpus):
    # a conformance or checker test program, or a fresh typed one: an
    # edit deep inside well-typed code reaches the checker's error paths
    src = r.pick(corpus) if corpus and r.chance(70) else gen_typed(r, corpus).decode()
    if corpus and r.chance(15):  # two programs in one file
        src = src + "\n" + r.pick(corpus)
    toks = tokens(src)
    for _ in range(r.pick([1, 1, 1, 2, 2, 3, 6])):  # few edits: most programs stay near valid
        if not toks:
            break
        i = r.below(len(toks))
        k = r.below(11)
        if k == 0:
            del toks[i]
        elif k == 1:
            toks.insert(i, r.pick(ODD_TOKENS))
        elif k == 2:
            j = r.below(len(toks))
            toks[i], toks[j] = toks[j], toks[i]
        elif k == 3:
            toks[i] = r.pick(ODD_TOKENS)
        elif k == 4:  # duplicate a run of tokens
            j = min(len(toks), i + r.range(1, 30))
            toks[i:i] = toks[i:j]
        elif k == 5:  # a line repeated
            text = "".join(toks)
            lines = text.split("\n")
            li = r.below(len(lines))
            lines[li:li] = [lines[li]] * r.range(1, 50)
            toks = tokens("\n".join(lines))
        elif k == 6 and toks[i][:1].isdigit():
            toks[i] = r.pick(["9223372036854775807", "9223372036854775808", "0", "0x7fffffffffffffff",
                              "99999999999999999999999", "1" * r.range(1, 400)])
        elif k == 7 and toks[i][:1] == '"':
            toks[i] = '"' + r.pick(["x" * r.range(0, 5000), "{" * r.range(1, 10), "\\u{10FFFF}", "\\0",
                                    "{\"{\"{\"{\"{\"{\"{\"{\"{x}\"}\"}\"}\"}\"}\"}\"}\"}"]) + '"'
        elif k == 8:  # truncate
            toks = toks[:i]
        elif k == 9 and (toks[i][:1].isalpha()):
            toks[i] = toks[i] * r.range(2, 300)
        else:
            toks.insert(i, "(" * r.range(1, 20))
            toks.insert(min(len(toks), i + 2), ")" * r.range(1, 20))
    data = "".join(toks).encode()
    if r.chance(8):  # a byte-level edit
        pos = r.below(len(data) + 1)
        data = data[:pos] + r.pick([b"\x00", b"\xff", b"\xc0\x80", b"\xed\xa0\x80", b"\xf4\x90\x80\x80",
                                    b"\r\n", b"\xef\xbb\xbf", b"\xe2\x80\xae"]) + data[pos:]
    return data


# ---- nesting near the limits ----

def gen_nested(r, corpus):
    k = r.below(8)
    n = r.pick([r.range(1, 50), r.range(250, 260), r.range(1000, 1100), r.range(2040, 2060), r.range(4090, 4100)])
    if k == 0:
        body = "  let x = " + "(" * n + "1" + ")" * n
    elif k == 1:
        body = "  let x = " + "[" * n + "1" + "]" * n
    elif k == 2:
        body = "  if true {\n" * n + "  }\n" * n
    elif k == 3:
        body = "  let x: " + "[" * n + "Int" + "]" * n + " = []"
    elif k == 4:
        body = "  let x = 1" + " + 1" * n
    elif k == 5:
        body = "  var x = 0\n  if x == 0 {\n  }" + " else if x == 1 {\n  }" * n
    elif k == 6:
        m = r.range(1, 10)
        s = "x"
        for _ in range(m):
            s = '"{' + s + '}"'
        body = "  let x = 1\n  let s = " + s
    else:
        body = "  let f = " + "fn(" * min(n, 300) + ")" * min(n, 300)
    return ("fn main() {\n" + body + "\n}\n").encode()


# ---- huge literals ----

def gen_huge(r, corpus):
    k = r.below(6)
    if k == 0:
        n = r.range(1000, 200000)
        return ('fn main() {\n  let s = "%s"\n  print(s.len())\n}\n' % ("ab" * n)).encode()
    if k == 1:
        n = r.range(1000, 20000)
        return ("fn main() {\n  let xs = [%s]\n  print(xs.len())\n}\n" % ", ".join(str(i) for i in range(n))).encode()
    if k == 2:
        n = r.range(100, 5000)
        ents = ", ".join('"k%d": %d' % (i, i) for i in range(n))
        return ("fn main() {\n  let m = {%s}\n  print(m.len())\n}\n" % ents).encode()
    if k == 3:
        lits = ["9223372036854775807", "9223372036854775808", "-9223372036854775807 - 1", "0x7fffffffffffffff",
                "0x8000000000000000", "2562047h", "2562048h", "9223372036854775807ns", "9223372036854775808ns",
                "1" * 30, "0x" + "f" * 30]
        lines = ["  let a%d = %s" % (i, r.pick(lits)) for i in range(r.range(1, 8))]
        lines += ["  print(a%d)" % i for i in range(len(lines))]
        return ("fn main() {\n%s\n}\n" % "\n".join(lines)).encode()
    if k == 4:
        n = r.range(100, 5000)
        return ('fn main() {\n  let x = 3\n  print("%s")\n}\n' % ("{x}-" * n)).encode()
    n = r.range(10, 30)
    lines = ['const C0 = "ab"'] + ["const C%d = C%d + C%d" % (i + 1, i, i) for i in range(n)]
    return ("\n".join(lines) + '\nfn main() {\n  print(C%d.len())\n}\n' % n).encode()


# ---- many items ----

def gen_items(r, corpus):
    n = r.pick([r.range(200, 300), r.range(1000, 5000)])
    out = []
    for i in range(n):
        k = r.below(5)
        if k == 0:
            out.append("fn f%d() -> Int {\n  return %d\n}" % (i, i))
        elif k == 1:
            out.append("const C%d = %d" % (i, i))
        elif k == 2:
            out.append("type T%d {\n  a: Int\n}" % i)
        elif k == 3:
            out.append('test "t%d" {\n  assert %d == %d\n}' % (i, i, i if r.chance(95) else i + 1))
        else:
            out.append("type A%d = Int | String" % i)
    if r.chance(10):
        out.append(out[r.below(len(out))])  # a duplicate
    out.append("fn main() {\n  print(1)\n}")
    return ("\n".join(out) + "\n").encode()


# ---- odd unicode ----

def gen_unicode(r, corpus):
    odd = ["\u00e9", "\u65e5\u672c", "\U0001F600", "\u200b", "\u200d", "\u202e", "\ufeff", "\u0301", "\U0010FFFF",
           "\u2028", "\u00a0", "\u0000"]
    bad = [b"\xff", b"\xc0\xaf", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xe2\x82", b"\x80", b"\xf8\x88\x80\x80\x80"]
    k = r.below(5)
    s = "".join(r.pick(odd) for _ in range(r.range(1, 20)))
    if k == 0:
        src = 'fn main() {\n  let s = "%s"\n  print(s)\n  print(s.len())\n}\n' % s.replace("\u0000", "\\0")
        return src.encode("utf-8", "surrogatepass")
    if k == 1:
        return ("// %s\nfn main() {\n  print(1) // %s\n}\n" % (s, s)).encode()
    if k == 2:
        return ("fn ma%sin() {\n  let %s = 1\n}\n" % (s, s)).encode()
    if k == 3:
        src = b'fn main() {\n  let s = "a' + r.pick(bad) + b'b"\n  print(s)\n}\n'
        return src
    return ('fn main() {\n  print("\\u{%x}")\n}\n' % r.pick([0, 0x7f, 0xd800, 0xdfff, 0x10ffff, 0x110000,
                                                            0xffffff, 0x1f600])).encode()


# ---- long identifiers ----

def gen_names(r, corpus):
    n = r.pick([r.range(1, 10), r.range(1020, 1030), r.range(5000, 20000)])
    name = "a" + "b" * (n - 1)
    k = r.below(4)
    if k == 0:
        return ("fn %s() {}\nfn main() {\n  %s()\n}\n" % (name, name)).encode()
    if k == 1:
        return ("type %s {\n  %s: Int\n}\nfn main() {\n  let v = %s { %s: 1 }\n  print(v.%s)\n}\n" %
                (name.capitalize(), name, name.capitalize(), name, name)).encode()
    if k == 2:
        kw = r.pick(["fn", "let", "type", "match", "select", "spawn", "test", "sim", "state", "on", "rpc", "_"])
        return ("fn main() {\n  let %s = 1\n  print(%s)\n}\n" % (kw, kw)).encode()
    return ("fn main() {\n  let %s = 1\n  print(%s + %s)\n}\n" % (name, name, name[:-1] + "c")).encode()


# ---- many parameters ----

def gen_params(r, corpus):
    n = r.pick([r.range(0, 5), r.range(250, 260)])
    params = ", ".join("p%d: Int%s" % (i, " = %d" % i if r.chance(30) else "") for i in range(n))
    body = " + ".join("p%d" % i for i in range(n)) or "0"
    m = n + r.range(-2, 2)
    args = ", ".join(str(i) for i in range(max(m, 0)))
    if r.chance(30):
        args = ", ".join("p%d: %d" % (i, i) for i in range(max(m, 0)))
    t = "fn(" + ", ".join(["Int"] * n) + ") -> Int"
    return ("fn f(%s) -> Int {\n  return %s\n}\nfn main() {\n  print(f(%s))\n  let g: %s = f\n}\n" %
            (params, body, args, t)).encode()


# ---- packages: several files, imports, services, clusters ----

def gen_package(r, corpus):
    """A package of several files and subpackages: returns [(path, bytes)].
    Imports may name missing packages or form cycles; services, clusters
    and sim tests use what they import."""
    files = []
    sub = r.pick(["lib", "store", "a"])
    deeper = r.chance(30)
    def one(good, bad):  # mostly valid, so that programs get past the checker
        return r.pick(bad) if bad and r.chance(8) else r.pick(good)

    main = ["use %s { f, T, K, Kv }" % sub, "use std.time { now, sleep }", "use std.test { net, node, sim, clock }"]
    main += [one(["use %s" % sub], ["use missing.pkg", "use %s.inner" % sub, "use std.nothing",
                                    "use %s { nothere }" % sub, "use std.test", "use %s { f }" % sub])
             for _ in range(r.range(0, 1))]
    main += ["cluster c {", "  role kv: %s" % one(["Kv"], ["Missing", "T", "%s.Kv" % sub]), "}"]
    if r.chance(50):
        main += ["cluster d {", "  role kv: Kv", "  role kv2: Kv", "}"]
    body = [r.pick(["  let x = f(%d)" % r.range(0, 9), "  let x = %s.f(1)" % sub, "  let t = T { a: K }",
                    "  let r = Kv.put(\"k\", 1)", "  assert Kv.get(\"k\") is Int | RpcError",
                    "  sleep(%dms)" % r.range(0, 5), "  net.drop(%d)" % r.range(-1, 1001),
                    "  node.kill(\"kv-0\")", "  node.restart(%s)" % r.pick(["\"kv\"", "\"nope\"", "\"n0\""]),
                    "  print(sim.seed())", "  print(now())", "  clock.advance(1s)"])
            for _ in range(r.range(1, 6))]
    seeds = one(["", " seeds 1..=3", " seeds 0..1"], [" seeds 5..5", " seeds 3..=1"])
    clause = one(["", " with cluster(nodes: %d)" % r.range(1, 3), " with cluster(nodes: 2, roles: [\"kv\"])"],
                 [" with cluster(roles: [\"kv\", \"kv\"], nodes: 1)", " with cluster(nodes: 1025)",
                  " with cluster(nodes: 0)"])
    main += ['test sim "s"%s%s {' % (seeds, clause)] + body + ["}"]
    main += ['test "u" {'] + body[:1] + ["}"]
    if r.chance(60):
        main += ["fn main() {"] + body[:2] + ["}"]
    files.append(("main.oxl", "\n".join(main) + "\n"))
    if r.chance(40):
        files.append(("more.oxl", "%s\nfn helper() -> Int {\n  return %s\n}\n" %
                      (one(["", "package main"], ["package other"]), one(["1", "f(2)", "K"], ["\"s\""]))))
    lib = [one(["", "package %s" % sub], ["package wrong"])]
    if r.chance(8):
        lib.append("use %s" % r.pick(["main", sub, "%s.inner" % sub]))  # cycles
    lib += ["pub fn f(x: Int) -> Int {", "  return x + K", "}", "pub type T {", "  a: Int", "}",
            "pub const K = %d" % r.range(0, 9),
            "service Kv {", "  state data: Map[String, Int] = {}",
            "  rpc put(k: String, v: Int) {", "    data[k] = v", "  }",
            "  rpc get(k: String) -> Int {", "    return %s" % one(["data[k]", "0"], ["\"no\""]), "  }",
            "  on start {", "    data[\"boot\"] = 1", "  }", "}"]
    files.append(("%s/%s.oxl" % (sub, sub), "\n".join(lib) + "\n"))
    if deeper:
        files.append(("%s/inner/inner.oxl" % sub, "use %s\npub fn g() -> Int {\n  return %s\n}\n" %
                      (one(["std.time"], ["main", sub]), one(["1"], ["f(1)", "%s.f(1)" % sub]))))
    return [(path, text.encode()) for path, text in files]


KINDS = [("typed", gen_typed, 30), ("mutated", gen_mutated, 30), ("nested", gen_nested, 8), ("huge", gen_huge, 8),
         ("items", gen_items, 6), ("unicode", gen_unicode, 6), ("names", gen_names, 6), ("params", gen_params, 6),
         ("package", gen_package, 8)]


def generate(seed, index, corpus):
    """The program of (seed, index): (kind, [(path, bytes)]), one file
    main.oxl or a package of several."""
    r = Rng(case_seed(seed, index))
    total = sum(w for _, _, w in KINDS)
    x = r.below(total)
    for name, fn, w in KINDS:
        if x < w:
            out = fn(r, corpus)
            return name, out if isinstance(out, list) else [("main.oxl", out)]
        x -= w
    raise AssertionError("unreachable")
