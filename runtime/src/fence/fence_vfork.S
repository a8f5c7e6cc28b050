/* fence_vfork.S: the fence's wrapper of vfork. The child of vfork runs on
 * its parent's stack until it execs, so a wrapper must not return through
 * a frame of its own: this one jumps to libc's vfork with the caller's
 * frame untouched, or, inside a deterministic run (fence_live nonzero),
 * jumps to fence_vfork_trip(caller's return address), which does not
 * return. Other architectures get a C wrapper in fence.c that forks. */
#if defined(__x86_64__)

    .text
    .globl  __wrap_vfork
    .hidden __wrap_vfork
    .type   __wrap_vfork, @function
    .p2align 4
__wrap_vfork:
    .cfi_startproc
    movl    fence_live(%rip), %eax
    testl   %eax, %eax
    jnz     1f
    jmp     __real_vfork@PLT
1:
    movq    (%rsp), %rdi
    jmp     fence_vfork_trip
    .cfi_endproc
    .size   __wrap_vfork, .-__wrap_vfork

#elif defined(__aarch64__)

    .text
    .globl  __wrap_vfork
    .hidden __wrap_vfork
    .type   __wrap_vfork, %function
    .p2align 2
__wrap_vfork:
    .cfi_startproc
    adrp    x16, fence_live
    ldr     w16, [x16, :lo12:fence_live]
    cbnz    w16, 1f
    b       __real_vfork
1:
    mov     x0, x30
    b       fence_vfork_trip
    .cfi_endproc
    .size   __wrap_vfork, .-__wrap_vfork

#endif

#if defined(__ELF__)
    .section .note.GNU-stack,"",%progbits
#endif
