/* fiber_x86_64.S: a new fiber's first instructions, for the x86-64 switch
 * (inline assembly in fiber.h, sched_fiber_swap_regs).
 *
 * sched_fiber_asm_trampoline
 *   Where a new fiber resumes (its saved pc). The switch leaves the
 *   previous fiber in rax and the new one in rsi; rsp is 16-byte aligned
 *   here (fiber.c prepares it). Calls sched_fiber_asm_entry(prev, self),
 *   which never returns. */
#if defined(__x86_64__) && !defined(SCHED_FIBER_FORCE_UCONTEXT)

    .text

    .globl  sched_fiber_asm_trampoline
    .hidden sched_fiber_asm_trampoline
    .type   sched_fiber_asm_trampoline, @function
    .p2align 4
sched_fiber_asm_trampoline:
    .cfi_startproc
    .cfi_undefined %rip             /* outermost frame: unwinders stop here */
#if defined(__CET__) && (__CET__ & 1)
    endbr64                         /* reached by an indirect jump */
#endif
    movq    %rax, %rdi              /* prev; self is already in rsi */
    call    sched_fiber_asm_entry
    ud2                             /* the entry never returns */
    .cfi_endproc
    .size   sched_fiber_asm_trampoline, .-sched_fiber_asm_trampoline

#endif

#if defined(__ELF__)
    .section .note.GNU-stack,"",%progbits
#endif
