#define _GNU_SOURCE
#include "coffer_system.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/types.h>

extern char **environ;
#if defined(__GLIBC__)
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#endif
#if defined(__linux__)
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

int coffer_keep_freed_memory(int keep_bytes, int arenas) {
#if defined(__GLIBC__)
    if (!mallopt(M_MMAP_THRESHOLD, keep_bytes)) return -1;
    if (!mallopt(M_TRIM_THRESHOLD, keep_bytes)) return -1;
    if (!mallopt(M_ARENA_MAX, arenas)) return -1;
#else
    (void)keep_bytes;
    (void)arenas;
#endif
    return 0;
}

void coffer_return_freed_memory(void) {
#if defined(__GLIBC__)
    mallopt(M_MMAP_THRESHOLD, 128 * 1024);
    mallopt(M_TRIM_THRESHOLD, 128 * 1024);
    malloc_trim(0);
#endif
}

int coffer_allocation_is_mapped(unsigned long size) {
#if defined(__GLIBC__)
    char *block = malloc(size);
    if (block == NULL) return 0;
    memset(block, 1, size);
    /* The size word before a glibc block has IS_MMAPPED (0x2) set for a block mapped on its
       own: a check of this block alone (mallinfo2's counts move with every other thread's). */
    size_t header;
    memcpy(&header, block - sizeof(size_t), sizeof header);
    free(block);
    return (header & 0x2) != 0;
#else
    (void)size;
    return 0;
#endif
}

int coffer_set_dumpable(int value) {
#if defined(__linux__)
    return prctl(PR_SET_DUMPABLE, (unsigned long)value, 0UL, 0UL, 0UL);
#else
    (void)value;
    errno = ENOSYS;
    return -1;
#endif
}

int coffer_get_dumpable(void) {
#if defined(__linux__)
    return prctl(PR_GET_DUMPABLE, 0UL, 0UL, 0UL, 0UL);
#else
    errno = ENOSYS;
    return -1;
#endif
}

static int redirect(posix_spawn_file_actions_t *actions, int fd, int target, int flags) {
    if (fd >= 0) return posix_spawn_file_actions_adddup2(actions, fd, target);
    return posix_spawn_file_actions_addopen(actions, target, "/dev/null", flags, 0);
}

int coffer_spawn(const char *path, char *const argv[], int in_fd, int out_fd, int err_fd,
                 int new_session, int *pid_out) {
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    int status = posix_spawn_file_actions_init(&actions);
    if (status != 0) return status;
    status = posix_spawnattr_init(&attributes);
    if (status != 0) { posix_spawn_file_actions_destroy(&actions); return status; }
    if (status == 0) status = redirect(&actions, in_fd, 0, O_RDONLY);
    if (status == 0) status = redirect(&actions, out_fd, 1, O_WRONLY);
    if (status == 0) status = redirect(&actions, err_fd, 2, O_WRONLY);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
    /* A daemonising child (xclip, xsel, wl-copy) must not inherit any descriptor of ours. */
    if (status == 0) status = posix_spawn_file_actions_addclosefrom_np(&actions, 3);
#endif
    sigset_t all, none;
    sigfillset(&all);
    sigemptyset(&none);
    short flags = POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK;
#ifdef POSIX_SPAWN_SETSID
    if (new_session) flags |= POSIX_SPAWN_SETSID;
#else
    (void)new_session;
#endif
    if (status == 0) status = posix_spawnattr_setsigdefault(&attributes, &all);
    if (status == 0) status = posix_spawnattr_setsigmask(&attributes, &none);
    if (status == 0) status = posix_spawnattr_setflags(&attributes, flags);
    pid_t pid = 0;
    if (status == 0) status = posix_spawn(&pid, path, &actions, &attributes, argv, environ);
    posix_spawnattr_destroy(&attributes);
    posix_spawn_file_actions_destroy(&actions);
    if (status == 0) *pid_out = (int)pid;
    return status;
}

long coffer_add_key(const char *type, const char *description, const void *payload, unsigned long length, int keyring) {
#if defined(__linux__) && defined(SYS_add_key)
    return syscall(SYS_add_key, type, description, payload, (size_t)length, keyring);
#else
    (void)type; (void)description; (void)payload; (void)length; (void)keyring;
    errno = ENOSYS;
    return -1;
#endif
}

long coffer_keyctl(int operation, unsigned long a2, unsigned long a3, unsigned long a4, unsigned long a5) {
#if defined(__linux__) && defined(SYS_keyctl)
    return syscall(SYS_keyctl, operation, a2, a3, a4, a5);
#else
    (void)operation; (void)a2; (void)a3; (void)a4; (void)a5;
    errno = ENOSYS;
    return -1;
#endif
}

#include <sys/socket.h>
#include <unistd.h>

int coffer_peer_uid(int fd, unsigned int *uid_out) {
#if defined(__linux__)
    struct ucred credentials;
    socklen_t length = sizeof credentials;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) return -1;
    *uid_out = (unsigned int)credentials.uid;
    return 0;
#else
    uid_t uid;
    gid_t gid;
    if (getpeereid(fd, &uid, &gid) != 0) return -1;
    *uid_out = (unsigned int)uid;
    return 0;
#endif
}
