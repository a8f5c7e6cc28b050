/* cmd.h: shell commands for the toolchain tests (debug info, install):
 * run one, get its exit status and its output; make temporary trees. */
#ifndef OXL_TEST_CMD_H
#define OXL_TEST_CMD_H

#include <stdbool.h>

#if defined(__GNUC__)
#define CMD_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define CMD_PRINTF(f, a)
#endif

/* Runs the command (sh -c) with stderr joined to stdout; *out (may be
 * NULL) gets the malloc'd output. Returns the exit status, 128 + signal
 * when killed, -1 when it could not be run. */
int cmd_run(char **out, const char *fmt, ...) CMD_PRINTF(2, 3);
/* Writes a file (creating it); bails out on failure. */
void cmd_write(const char *path, const char *text);
bool cmd_exists(const char *path);
/* A fresh directory /tmp/oxl-<tag>-XXXXXX (TMPDIR respected), malloc'd. */
char *cmd_tempdir(const char *tag);
/* rm -rf */
void cmd_remove_tree(const char *path);

#endif
