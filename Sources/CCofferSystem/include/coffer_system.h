#ifndef COFFER_SYSTEM_H
#define COFFER_SYSTEM_H

/* System calls Swift cannot call directly (prctl is variadic). */

/* Asks the cache for the line at `address` ahead of its use (a hint: no fault, no effect on
   what is read). Swift has no prefetch of its own. */
static inline void coffer_prefetch(const void *address) { __builtin_prefetch(address, 0, 3); }

/* prctl(PR_SET_DUMPABLE, value): 0 on success, -1 with errno set; -1 with ENOSYS off Linux. */
int coffer_set_dumpable(int value);

/* prctl(PR_GET_DUMPABLE): 0 or 1, or -1 with errno set; -1 with ENOSYS off Linux. */
int coffer_get_dumpable(void);

/* glibc's allocator, for a short-lived process: blocks up to `keep_bytes` come from the heap
   and freed memory stays in it (mallopt M_MMAP_THRESHOLD, M_TRIM_THRESHOLD), with at most
   `arenas` arenas (M_ARENA_MAX). 0 on success or off glibc, -1 when glibc refuses. */
int coffer_keep_freed_memory(int keep_bytes, int arenas);

/* glibc: freed memory goes back to the system from now on (the default 128 KiB thresholds)
   and now (malloc_trim(0)). */
void coffer_return_freed_memory(void);

/* Whether a block of `size` bytes is mapped on its own rather than taken from the heap
   (glibc): malloc, touch, check its chunk's IS_MMAPPED bit, free. 0 off glibc. */
int coffer_allocation_is_mapped(unsigned long size);

/* posix_spawn of `path` with `argv` (NULL-terminated) and the current environment.
   stdin/stdout/stderr of the child are `in_fd`/`out_fd`/`err_fd`, or /dev/null for -1; every
   other descriptor is closed in the child, every signal has its default action and none is
   blocked; with `new_session`, the child starts a session of its own (no controlling
   terminal, no SIGHUP when ours closes). Returns 0 and the pid, or an errno value. */
int coffer_spawn(const char *path, char *const argv[], int in_fd, int out_fd, int err_fd,
                 int new_session, int *pid_out);

/* The kernel keyring (keyrings(7)), as raw system calls: no libkeyutils needed.
   add_key(type, description, payload, length, keyring): the key's serial, or -1 with errno.
   keyctl(operation, a2, a3, a4, a5): the call's result, or -1 with errno.
   Both are -1 with ENOSYS off Linux. */
long coffer_add_key(const char *type, const char *description, const void *payload, unsigned long length, int keyring);
long coffer_keyctl(int operation, unsigned long a2, unsigned long a3, unsigned long a4, unsigned long a5);

/* The user id of a Unix socket's peer: getsockopt(SO_PEERCRED) on Linux, getpeereid
   elsewhere (struct ucred needs _GNU_SOURCE, which Swift's Glibc module does not set).
   0 and the uid, or -1 with errno set. */
int coffer_peer_uid(int fd, unsigned int *uid_out);

#endif
