/*
 * Dependencies loaded on first call (libcurl for kube, libgit2 for the ledger).
 *
 * Why: the distribution builds those libraries with BIND_NOW, so merely linking them made
 * the dynamic loader map ~40 libraries (GnuTLS, OpenSSL, Kerberos, LDAP, mbedTLS...) and
 * resolve all their symbols at every start of every program, ~16M instructions, whether the
 * program used them or not (`slinkyctl version` spent 90% of its instructions in ld.so).
 *
 * How: a module lists the functions it calls, `#define LIST(X, a) X(a, f1) X(a, f2)...`,
 * and writes SLINKY__DYNLIB(lib, soname, LIST) once. For each
 * one this defines a hidden symbol of the function's own name, a two-instruction trampoline
 * `jmp *slot` (the way a PLT entry works, so every argument, variadic ones included, passes
 * untouched). A slot is NULL until the library is loaded: the trampoline then calls
 * slinky__dynlib_load_or_die (registers saved), which dlopen()s the soname found at build
 * time and fills every slot with dlsym, and continues into the real function. The module's
 * start-up (curl_start, git_start) calls slinky__dynlib_load() first, so a missing library is
 * a clean SLINKY_EUNAVAILABLE error there; the trampoline path only covers calls made before
 * it, and aborts like the dynamic loader would if the library cannot be loaded.
 * The library stays loaded (never dlclose()d). Thread safe (one mutex per library).
 *
 * x86_64 only; elsewhere (or with -DSLINKY_LAZY_DEPS=OFF) SLINKY__DYNLIB expands to nothing,
 * the libraries are linked normally and slinky__dynlib_load returns 0.
 */
#ifndef SLINKY_CORE_DYNLOAD_H
#define SLINKY_CORE_DYNLOAD_H

#include <stddef.h>

#include "core/internal.h"

typedef struct slinky__dynlib {
    const char *soname;
    const char *const *names; /* n function names */
    void **const *slots;      /* n slots, filled by the load */
    size_t n;
    void *handle;
} slinky__dynlib;

/* Load `lib` if not loaded yet: 0, or SLINKY_EUNAVAILABLE naming the library or symbol. */
SLINKY_HIDDEN int slinky__dynlib_load(slinky__dynlib *lib);
/* The trampolines' slow path: load, or print the reason and abort (as ld.so would). */
SLINKY_HIDDEN void slinky__dynlib_load_or_die(slinky__dynlib *lib);

#if defined(SLINKY_LAZY_DEPS) && defined(__x86_64__) && defined(__ELF__)
#define SLINKY__DYN_SLOT(lib, name) void *slinky__dynslot_##name SLINKY_HIDDEN;
#define SLINKY__DYN_NAME(lib, name) #name,
#define SLINKY__DYN_SLOTP(lib, name) &slinky__dynslot_##name,
/* name: mov slot,%r11; test; jz slow; jmp *%r11.  slow: r10 = lib, r11 = &slot, stub. */
#define SLINKY__DYN_TRAMP(lib, name)                                                           \
    __asm__(".text\n.globl " #name "\n.hidden " #name "\n.type " #name ",@function\n"           \
            ".p2align 4\n" #name ":\n"                                                          \
            "\tmovq slinky__dynslot_" #name "(%rip), %r11\n"                                    \
            "\ttestq %r11, %r11\n\tjz 1f\n\tjmpq *%r11\n"                                      \
            "1:\tleaq slinky__dynslot_" #name "(%rip), %r11\n"                                  \
            "\tleaq slinky__dynlib_" #lib "(%rip), %r10\n"                                      \
            "\tjmp slinky__dynlib_stub\n"                                                       \
            ".size " #name ", .-" #name "\n");
#define SLINKY__DYNLIB(lib, soname, LIST)                                                      \
    LIST(SLINKY__DYN_SLOT, lib)                                                                   \
    static const char *const slinky__dynnames_##lib[] = {LIST(SLINKY__DYN_NAME, lib)};           \
    static void **const slinky__dynslots_##lib[] = {LIST(SLINKY__DYN_SLOTP, lib)};               \
    SLINKY_HIDDEN slinky__dynlib slinky__dynlib_##lib = {                                      \
        (soname), slinky__dynnames_##lib, slinky__dynslots_##lib,                              \
        sizeof(slinky__dynnames_##lib) / sizeof(slinky__dynnames_##lib[0]), NULL};             \
    LIST(SLINKY__DYN_TRAMP, lib)
#define SLINKY__DYNLIB_LOAD(lib) slinky__dynlib_load(&slinky__dynlib_##lib)
#define SLINKY__DYNLIB_DECLARE(lib) SLINKY_HIDDEN extern slinky__dynlib slinky__dynlib_##lib
#else
#define SLINKY__DYNLIB(lib, soname, LIST)
#define SLINKY__DYNLIB_LOAD(lib) 0
#define SLINKY__DYNLIB_DECLARE(lib) struct slinky__dynlib_unused_##lib
#endif

#endif
