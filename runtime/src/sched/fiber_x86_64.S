/* fiber_x86_64.S: the x86-64 System V context switch for fiber.c.
 *
 * sched_fiber *sched_fiber_asm_swap(sched_fiber *from, sched_fiber *to)
 *   Pushes what the ABI says a callee must preserve (rbx, rbp, r12-r15, the
 *   MXCSR control bits and the x87 control word), stores rsp in from->sp
 *   (offset 0), loads to->sp and pops the same frame from there. Returns
 *   from, so the resumed side learns which fiber switched to it. Frame, from
 *   the saved sp up (fiber.c builds the first one for a new fiber):
 *     0: MXCSR (4 bytes), x87 control word (2 bytes), 2 bytes unused
 *     8: r15  16: r14  24: r13  32: r12  40: rbx  48: rbp  56: return address
 *   Only the MXCSR control bits (6-15) are switched; the exception flags
 *   (0-5) stay with the thread, as the ABI treats them (caller-saved) and
 *   like the x87 status word, which is not switched either. ldmxcsr and
 *   fldcw are slow, so each is skipped when the value would not change.
 *
 * sched_fiber_asm_trampoline
 *   A new fiber's first "return address". rsp is 16-byte aligned here, rax
 *   holds the previous fiber (swap's return value) and rbx the new one.
 *   Calls sched_fiber_asm_entry(prev, self), which never returns. */
#if defined(__x86_64__) && !defined(SCHED_FIBER_FORCE_UCONTEXT)

    .text

    .globl  sched_fiber_asm_swap
    .hidden sched_fiber_asm_swap
    .type   sched_fiber_asm_swap, @function
    .p2align 4
sched_fiber_asm_swap:
    .cfi_startproc
    /* Both stacks hold the same frame shape, so this CFI stays true after
     * rsp changes hands. */
    pushq   %rbp
    .cfi_adjust_cfa_offset 8
    .cfi_rel_offset %rbp, 0
    pushq   %rbx
    .cfi_adjust_cfa_offset 8
    .cfi_rel_offset %rbx, 0
    pushq   %r12
    .cfi_adjust_cfa_offset 8
    .cfi_rel_offset %r12, 0
    pushq   %r13
    .cfi_adjust_cfa_offset 8
    .cfi_rel_offset %r13, 0
    pushq   %r14
    .cfi_adjust_cfa_offset 8
    .cfi_rel_offset %r14, 0
    pushq   %r15
    .cfi_adjust_cfa_offset 8
    .cfi_rel_offset %r15, 0
    subq    $8, %rsp
    .cfi_adjust_cfa_offset 8
    stmxcsr (%rsp)
    fnstcw  4(%rsp)
    movl    (%rsp), %eax            /* the current MXCSR */
    movzwl  4(%rsp), %ecx           /* the current x87 control word */

    movq    %rsp, (%rdi)            /* from->sp */
    movq    (%rsi), %rsp            /* to->sp */

    movl    (%rsp), %edx
    xorl    %eax, %edx
    andl    $0xffc0, %edx           /* control bits that differ */
    jz      1f
    xorl    %eax, %edx              /* the current flags with the resumed control bits */
    movl    %edx, (%rsp)
    ldmxcsr (%rsp)
1:
    cmpw    4(%rsp), %cx
    je      2f
    fldcw   4(%rsp)
2:
    addq    $8, %rsp
    .cfi_adjust_cfa_offset -8
    popq    %r15
    .cfi_adjust_cfa_offset -8
    .cfi_restore %r15
    popq    %r14
    .cfi_adjust_cfa_offset -8
    .cfi_restore %r14
    popq    %r13
    .cfi_adjust_cfa_offset -8
    .cfi_restore %r13
    popq    %r12
    .cfi_adjust_cfa_offset -8
    .cfi_restore %r12
    popq    %rbx
    .cfi_adjust_cfa_offset -8
    .cfi_restore %rbx
    popq    %rbp
    .cfi_adjust_cfa_offset -8
    .cfi_restore %rbp
    movq    %rdi, %rax              /* the resumed side's return value: who switched to it */
    ret
    .cfi_endproc
    .size   sched_fiber_asm_swap, .-sched_fiber_asm_swap

    .globl  sched_fiber_asm_trampoline
    .hidden sched_fiber_asm_trampoline
    .type   sched_fiber_asm_trampoline, @function
    .p2align 4
sched_fiber_asm_trampoline:
    .cfi_startproc
    .cfi_undefined %rip             /* outermost frame: unwinders stop here */
    movq    %rax, %rdi              /* prev */
    movq    %rbx, %rsi              /* self */
    call    sched_fiber_asm_entry
    ud2                             /* the entry never returns */
    .cfi_endproc
    .size   sched_fiber_asm_trampoline, .-sched_fiber_asm_trampoline

#endif

#if defined(__ELF__)
    .section .note.GNU-stack,"",%progbits
#endif
