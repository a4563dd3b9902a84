/* Capability names (as in capabilities(7)), without libcap. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* The highest capability this kernel knows (/proc/sys/kernel/cap_last_cap), read once. */
int slinky_jail__cap_last(void)
{
    static _Atomic int cached = -1;
    int last = cached;
    if (last >= 0)
        return last;
    last = (int)SLINKY__ARRAY_SIZE(cap_names) - 1;
    int fd = open("/proc/sys/kernel/cap_last_cap", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        char buf[16];
        ssize_t n = read(fd, buf, sizeof(buf) - 1);
        close(fd);
        if (n > 0) {
            buf[n] = '\0';
            char *end = NULL;
            long v = strtol(buf, &end, 10);
            if (end != buf && v > 0 && v < 64)
                cached = last = (int)v; /* the compiled-in fallback is not remembered */
        }
    }
    return last;
}
