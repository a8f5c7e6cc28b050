/* fiber_aarch64.S: the AArch64 (AAPCS64) context switch for fiber.c.
 *
 * sched_fiber *sched_fiber_asm_swap(sched_fiber *from, sched_fiber *to)
 *   Saves what the ABI says a callee must preserve (x19-x28, the frame
 *   pointer x29, the link register x30, d8-d15) plus FPCR (rounding mode and
 *   other floating-point controls, kept per fiber), stores sp in from->sp
 *   (offset 0), loads to->sp and restores the same frame from there, then
 *   returns through the restored x30. Returns from in x0 (left untouched),
 *   so the resumed side learns which fiber switched to it. Frame, from the
 *   saved sp up, 176 bytes so sp stays 16-byte aligned (fiber.c builds the
 *   first one for a new fiber):
 *     0: x19 x20  16: x21 x22  32: x23 x24  48: x25 x26  64: x27 x28
 *     80: x29 x30  96: d8 d9  112: d10 d11  128: d12 d13  144: d14 d15
 *     160: fpcr  168: unused
 *
 * sched_fiber_asm_trampoline
 *   A new fiber's first "return address". x0 holds the previous fiber and
 *   x19 the new one; sp is 16-byte aligned as always on AArch64. Calls
 *   sched_fiber_asm_entry(prev, self), which never returns. */
#if defined(__aarch64__) && !defined(SCHED_FIBER_FORCE_UCONTEXT)

    .text

    .globl  sched_fiber_asm_swap
    .hidden sched_fiber_asm_swap
    .type   sched_fiber_asm_swap, %function
    .p2align 4
sched_fiber_asm_swap:
    .cfi_startproc
    sub     sp, sp, #176
    .cfi_adjust_cfa_offset 176
    stp     x19, x20, [sp, #0]
    stp     x21, x22, [sp, #16]
    stp     x23, x24, [sp, #32]
    stp     x25, x26, [sp, #48]
    stp     x27, x28, [sp, #64]
    stp     x29, x30, [sp, #80]
    .cfi_rel_offset x29, 80
    .cfi_rel_offset x30, 88
    stp     d8, d9, [sp, #96]
    stp     d10, d11, [sp, #112]
    stp     d12, d13, [sp, #128]
    stp     d14, d15, [sp, #144]
    mrs     x9, fpcr
    str     x9, [sp, #160]

    mov     x10, sp
    str     x10, [x0]               /* from->sp */
    ldr     x10, [x1]               /* to->sp */
    mov     sp, x10

    ldp     x19, x20, [sp, #0]
    ldp     x21, x22, [sp, #16]
    ldp     x23, x24, [sp, #32]
    ldp     x25, x26, [sp, #48]
    ldp     x27, x28, [sp, #64]
    ldp     x29, x30, [sp, #80]
    ldp     d8, d9, [sp, #96]
    ldp     d10, d11, [sp, #112]
    ldp     d12, d13, [sp, #128]
    ldp     d14, d15, [sp, #144]
    /* Writing FPCR can be slow on some cores; skip it when nothing changes. */
    ldr     x10, [sp, #160]
    cmp     x9, x10
    b.eq    1f
    msr     fpcr, x10
1:
    add     sp, sp, #176
    .cfi_adjust_cfa_offset -176
    .cfi_restore x29
    .cfi_restore x30
    ret
    .cfi_endproc
    .size   sched_fiber_asm_swap, .-sched_fiber_asm_swap

    .globl  sched_fiber_asm_trampoline
    .hidden sched_fiber_asm_trampoline
    .type   sched_fiber_asm_trampoline, %function
    .p2align 4
sched_fiber_asm_trampoline:
    .cfi_startproc
    .cfi_undefined x30              /* outermost frame: unwinders stop here */
    mov     x1, x19                 /* self; x0 is already prev */
    bl      sched_fiber_asm_entry
    brk     #0x1                    /* the entry never returns */
    .cfi_endproc
    .size   sched_fiber_asm_trampoline, .-sched_fiber_asm_trampoline

#endif

#if defined(__ELF__)
    .section .note.GNU-stack,"",%progbits
#endif
