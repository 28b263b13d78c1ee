#include "coffer_system.h"
#include <errno.h>
#if defined(__linux__)
#include <sys/prctl.h>
#endif

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
