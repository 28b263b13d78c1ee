#ifndef COFFER_SYSTEM_H
#define COFFER_SYSTEM_H

/* System calls Swift cannot call directly (prctl is variadic). */

/* prctl(PR_SET_DUMPABLE, value): 0 on success, -1 with errno set; -1 with ENOSYS off Linux. */
int coffer_set_dumpable(int value);

/* prctl(PR_GET_DUMPABLE): 0 or 1, or -1 with errno set; -1 with ENOSYS off Linux. */
int coffer_get_dumpable(void);

#endif
