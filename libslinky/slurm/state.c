/* slurm: node state words -> bits, and the operator's predicates. */
#include <string.h>
#include <strings.h>

#include "slurm_internal.h"

static const struct {
    const char *name;
    uint32_t bit;
} names[] = {
    {"IDLE", SLINKY_SLURM_NODE_IDLE},
    {"ALLOCATED", SLINKY_SLURM_NODE_ALLOCATED},
    {"ALLOC", SLINKY_SLURM_NODE_ALLOCATED},
    {"MIXED", SLINKY_SLURM_NODE_MIXED},
    {"DOWN", SLINKY_SLURM_NODE_DOWN},
    {"ERROR", SLINKY_SLURM_NODE_ERROR},
    {"FUTURE", SLINKY_SLURM_NODE_FUTURE},
    {"UNKNOWN", SLINKY_SLURM_NODE_UNKNOWN},
    {"COMPLETING", SLINKY_SLURM_NODE_COMPLETING},
    {"DRAIN", SLINKY_SLURM_NODE_DRAIN},
    {"DRAINING", SLINKY_SLURM_NODE_DRAINING},
    {"DRAINED", SLINKY_SLURM_NODE_DRAINED},
    {"NOT_RESPONDING", SLINKY_SLURM_NODE_NOT_RESPONDING},
    {"FAIL", SLINKY_SLURM_NODE_FAIL},
    {"MAINTENANCE", SLINKY_SLURM_NODE_MAINTENANCE},
    {"MAINT", SLINKY_SLURM_NODE_MAINTENANCE},
    {"RESERVED", SLINKY_SLURM_NODE_RESERVED},
    {"REBOOT_REQUESTED", SLINKY_SLURM_NODE_REBOOT_REQUESTED},
    {"REBOOT_ISSUED", SLINKY_SLURM_NODE_REBOOT_ISSUED},
    {"POWERED_DOWN", SLINKY_SLURM_NODE_POWERED_DOWN},
    {"POWERING_DOWN", SLINKY_SLURM_NODE_POWERING_DOWN},
    {"POWERING_UP", SLINKY_SLURM_NODE_POWERING_UP},
    {"POWER_DOWN", SLINKY_SLURM_NODE_POWER_DOWN},
    {"CLOUD", SLINKY_SLURM_NODE_CLOUD},
    {"DYNAMIC_FUTURE", SLINKY_SLURM_NODE_DYNAMIC_FUTURE},
    {"DYNAMIC_NORM", SLINKY_SLURM_NODE_DYNAMIC_NORM},
    {"PLANNED", SLINKY_SLURM_NODE_PLANNED},
    {"INVALID_REG", SLINKY_SLURM_NODE_INVALID_REG},
    {"BLOCKED", SLINKY_SLURM_NODE_BLOCKED},
    {"UNDRAIN", SLINKY_SLURM_NODE_UNDRAIN},
};

#define BUSY (SLINKY_SLURM_NODE_ALLOCATED | SLINKY_SLURM_NODE_MIXED | SLINKY_SLURM_NODE_COMPLETING)

uint32_t slinky_slurm__state_word(const char *w, size_t n)
{
    for (size_t i = 0; i < SLINKY__ARRAY_SIZE(names); i++)
        if (strlen(names[i].name) == n && strncasecmp(names[i].name, w, n) == 0)
            return names[i].bit;
    return SLINKY_SLURM_NODE_OTHER;
}

uint32_t slinky_slurm__state_derive(uint32_t s)
{
    s &= ~(uint32_t)(SLINKY_SLURM_NODE_DRAINED | SLINKY_SLURM_NODE_DRAINING);
    if ((s & SLINKY_SLURM_NODE_DRAIN) && !(s & SLINKY_SLURM_NODE_UNDRAIN))
        s |= (s & BUSY) ? SLINKY_SLURM_NODE_DRAINING : SLINKY_SLURM_NODE_DRAINED;
    return s;
}

uint32_t slinky_slurm_node_state_parse(const char *text)
{
    uint32_t s = 0;
    if (text == NULL)
        return 0;
    const char *p = text;
    while (*p) {
        size_t n = strcspn(p, "+, ");
        if (n)
            s |= slinky_slurm__state_word(p, n);
        p += n;
        if (*p)
            p++;
    }
    /* "DRAINED"/"DRAINING" as words (sinfo's) imply DRAIN */
    if (s & (SLINKY_SLURM_NODE_DRAINED | SLINKY_SLURM_NODE_DRAINING))
        s |= SLINKY_SLURM_NODE_DRAIN;
    if ((s & SLINKY_SLURM_NODE_DRAINING) && !(s & BUSY))
        return s & ~(uint32_t)SLINKY_SLURM_NODE_DRAINED; /* keep the word's meaning */
    return slinky_slurm__state_derive(s);
}

const char *slinky_slurm_node_state_name(uint32_t bit)
{
    for (size_t i = 0; i < SLINKY__ARRAY_SIZE(names); i++)
        if (names[i].bit == bit)
            return names[i].name;
    return bit == SLINKY_SLURM_NODE_OTHER ? "OTHER" : NULL;
}

bool slinky_slurm_node_is_drained(const slinky_slurm_node *n)
{
    return n && (n->state & SLINKY_SLURM_NODE_DRAIN) && !(n->state & (BUSY | SLINKY_SLURM_NODE_UNDRAIN));
}

bool slinky_slurm_node_is_draining(const slinky_slurm_node *n)
{
    return n && (n->state & SLINKY_SLURM_NODE_DRAIN);
}

bool slinky_slurm_node_is_busy(const slinky_slurm_node *n)
{
    return n == NULL || (n->state & BUSY) != 0;
}
