/* fence_names.c: the wrappers of the host name lookups, in an object of
 * their own: a test binary is linked statically (compiler/driver/build.c),
 * and glibc's getaddrinfo and gethostbyname in a static program need its
 * NSS libraries at run time, which the linker warns of. From the archive
 * this object joins a program only when the program calls one of them
 * (its reference to getaddrinfo is one to __wrap_getaddrinfo), so a
 * program that looks no name up links without that warning. */
#include "fence/fence.h"

#include <netdb.h>
#include <sys/socket.h>

FENCE_DECL(int, getaddrinfo, (const char *node, const char *service, const struct addrinfo *hints,
                              struct addrinfo **res));
int __wrap_getaddrinfo(const char *node, const char *service, const struct addrinfo *hints, struct addrinfo **res) {
    if (FENCE_LIVE()) {
        char q[FENCE_QUOTE_MAX];
        fence_trip(FENCE_NET, CALLER, "getaddrinfo(%s)", fence_quote(q, node));
    }
    return __real_getaddrinfo(node, service, hints, res);
}

FENCE_DECL(struct hostent *, gethostbyname, (const char *name));
struct hostent *__wrap_gethostbyname(const char *name) {
    if (FENCE_LIVE()) {
        char q[FENCE_QUOTE_MAX];
        fence_trip(FENCE_NET, CALLER, "gethostbyname(%s)", fence_quote(q, name));
    }
    return __real_gethostbyname(name);
}
