/* Capability names (as in capabilities(7)), without libcap. */
#include <stdio.h>
#include <string.h>

#include "jail_internal.h"

static const char *const cap_names[] = {
    "CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_DAC_READ_SEARCH", "CAP_FOWNER", "CAP_FSETID",
    "CAP_KILL", "CAP_SETGID", "CAP_SETUID", "CAP_SETPCAP", "CAP_LINUX_IMMUTABLE",
    "CAP_NET_BIND_SERVICE", "CAP_NET_BROADCAST", "CAP_NET_ADMIN", "CAP_NET_RAW",
    "CAP_IPC_LOCK", "CAP_IPC_OWNER", "CAP_SYS_MODULE", "CAP_SYS_RAWIO", "CAP_SYS_CHROOT",
    "CAP_SYS_PTRACE", "CAP_SYS_PACCT", "CAP_SYS_ADMIN", "CAP_SYS_BOOT", "CAP_SYS_NICE",
    "CAP_SYS_RESOURCE", "CAP_SYS_TIME", "CAP_SYS_TTY_CONFIG", "CAP_MKNOD", "CAP_LEASE",
    "CAP_AUDIT_WRITE", "CAP_AUDIT_CONTROL", "CAP_SETFCAP", "CAP_MAC_OVERRIDE",
    "CAP_MAC_ADMIN", "CAP_SYSLOG", "CAP_WAKE_ALARM", "CAP_BLOCK_SUSPEND", "CAP_AUDIT_READ",
    "CAP_PERFMON", "CAP_BPF", "CAP_CHECKPOINT_RESTORE",
};

int slinky_jail__cap_from_name(const char *name)
{
    if (!name)
        return -1;
    const char *n = name;
    if (!strncmp(n, "CAP_", 4) || !strncmp(n, "cap_", 4))
        n += 4;
    for (size_t i = 0; i < SLINKY__ARRAY_SIZE(cap_names); i++)
        if (!slinky__strcasecmp(cap_names[i] + 4, n))
            return (int)i;
    return -1;
}

const char *slinky_jail__cap_name(int cap)
{
    if (cap < 0 || (size_t)cap >= SLINKY__ARRAY_SIZE(cap_names))
        return NULL;
    return cap_names[cap];
}

/* The highest capability this kernel knows (/proc/sys/kernel/cap_last_cap). */
int slinky_jail__cap_last(void)
{
    int last = (int)SLINKY__ARRAY_SIZE(cap_names) - 1;
    FILE *f = fopen("/proc/sys/kernel/cap_last_cap", "re");
    if (f) {
        int v;
        if (fscanf(f, "%d", &v) == 1 && v > 0 && v < 64)
            last = v;
        fclose(f);
    }
    return last;
}
