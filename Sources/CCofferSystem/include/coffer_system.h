#ifndef COFFER_SYSTEM_H
#define COFFER_SYSTEM_H

/* System calls Swift cannot call directly (prctl is variadic). */

/* prctl(PR_SET_DUMPABLE, value): 0 on success, -1 with errno set; -1 with ENOSYS off Linux. */
int coffer_set_dumpable(int value);

/* prctl(PR_GET_DUMPABLE): 0 or 1, or -1 with errno set; -1 with ENOSYS off Linux. */
int coffer_get_dumpable(void);

/* posix_spawn of `path` with `argv` (NULL-terminated) and the current environment.
   stdin/stdout/stderr of the child are `in_fd`/`out_fd`/`err_fd`, or /dev/null for -1; every
   other descriptor is closed in the child, every signal has its default action and none is
   blocked; with `new_session`, the child starts a session of its own (no controlling
   terminal, no SIGHUP when ours closes). Returns 0 and the pid, or an errno value. */
int coffer_spawn(const char *path, char *const argv[], int in_fd, int out_fd, int err_fd,
                 int new_session, int *pid_out);

#endif
