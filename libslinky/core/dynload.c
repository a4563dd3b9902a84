/* Dependencies loaded on first call: see core/dynload.h. */
#include "core/dynload.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t g_dyn_lock = PTHREAD_MUTEX_INITIALIZER;

static int load_locked(slinky__dynlib *lib, char *why, size_t whylen)
{
    if (lib->handle)
        return 0;
    void *h = dlopen(lib->soname, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(why, whylen, "cannot load %s: %s", lib->soname, e ? e : "dlopen failed");
        return SLINKY_EUNAVAILABLE;
    }
    for (size_t i = 0; i < lib->n; i++) {
        void *f = dlsym(h, lib->names[i]);
        if (!f) {
            snprintf(why, whylen, "%s has no symbol %s", lib->soname, lib->names[i]);
            return SLINKY_EUNAVAILABLE; /* h stays open: slots already set are valid */
        }
        __atomic_store_n(lib->slots[i], f, __ATOMIC_RELEASE);
    }
    lib->handle = h;
    return 0;
}

int slinky__dynlib_load(slinky__dynlib *lib)
{
    char why[512];
    pthread_mutex_lock(&g_dyn_lock);
    int rc = load_locked(lib, why, sizeof(why));
    pthread_mutex_unlock(&g_dyn_lock);
    return rc ? slinky__error_set(rc, "%s", why) : 0;
}

void slinky__dynlib_load_or_die(slinky__dynlib *lib)
{
    char why[512];
    pthread_mutex_lock(&g_dyn_lock);
    int rc = load_locked(lib, why, sizeof(why));
    pthread_mutex_unlock(&g_dyn_lock);
    if (rc) { /* what ld.so would have said at start-up, had the library been linked */
        fprintf(stderr, "libslinky: %s\n", why);
        abort();
    }
}

#if defined(SLINKY_LAZY_DEPS) && defined(__x86_64__) && defined(__ELF__)
/* The slow path of every trampoline: r10 = the library, r11 = the slot. Saves the argument
 * registers (rdi rsi rdx rcx r8 r9, rax = vector count of a variadic call, xmm0-7), loads,
 * restores them and jumps to the now filled slot. Entered with rsp = 8 (mod 16). */
__asm__(".text\n.globl slinky__dynlib_stub\n.hidden slinky__dynlib_stub\n"
        ".type slinky__dynlib_stub,@function\n.p2align 4\nslinky__dynlib_stub:\n"
        "\tpushq %rdi\n\tpushq %rsi\n\tpushq %rdx\n\tpushq %rcx\n"
        "\tpushq %r8\n\tpushq %r9\n\tpushq %rax\n\tpushq %r11\n"
        "\tsubq $136, %rsp\n"
        "\tmovdqu %xmm0, 0(%rsp)\n\tmovdqu %xmm1, 16(%rsp)\n"
        "\tmovdqu %xmm2, 32(%rsp)\n\tmovdqu %xmm3, 48(%rsp)\n"
        "\tmovdqu %xmm4, 64(%rsp)\n\tmovdqu %xmm5, 80(%rsp)\n"
        "\tmovdqu %xmm6, 96(%rsp)\n\tmovdqu %xmm7, 112(%rsp)\n"
        "\tmovq %r10, %rdi\n"
        "\tcall slinky__dynlib_load_or_die\n"
        "\tmovdqu 0(%rsp), %xmm0\n\tmovdqu 16(%rsp), %xmm1\n"
        "\tmovdqu 32(%rsp), %xmm2\n\tmovdqu 48(%rsp), %xmm3\n"
        "\tmovdqu 64(%rsp), %xmm4\n\tmovdqu 80(%rsp), %xmm5\n"
        "\tmovdqu 96(%rsp), %xmm6\n\tmovdqu 112(%rsp), %xmm7\n"
        "\taddq $136, %rsp\n"
        "\tpopq %r11\n\tpopq %rax\n\tpopq %r9\n\tpopq %r8\n"
        "\tpopq %rcx\n\tpopq %rdx\n\tpopq %rsi\n\tpopq %rdi\n"
        "\tjmpq *(%r11)\n"
        ".size slinky__dynlib_stub, .-slinky__dynlib_stub\n");
#endif
