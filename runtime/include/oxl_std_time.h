/* oxl_std_time.h: the C side of std.time (std/time/time.oxl). Instants are
 * Unix nanoseconds. Under a simulation now() is the virtual clock
 * (OXL_STD_EPOCH_NS at virtual time 0) and sleep parks the task in virtual
 * time; in a real-time run now() is the system clock and sleep takes real
 * time (docs/oxl-build.md). */
#ifndef OXL_STD_TIME_H
#define OXL_STD_TIME_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

int64_t oxl_std_time_now(void);
void oxl_std_time_sleep(int64_t d);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif
#ifdef __cplusplus
}
#endif
#endif
