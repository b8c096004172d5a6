/* int real_code_add(int a, int b): a + b, in the assembly of each architecture rho builds for
 * (tests/c/real_code_suite.c: a .S file, so the C preprocessor picks the architecture). */
#if defined(__x86_64__)
    .text
    .globl real_code_add
    .type real_code_add, @function
real_code_add:
    leal (%rdi,%rsi), %eax
    ret
#elif defined(__aarch64__)
    .text
    .globl real_code_add
    .type real_code_add, %function
real_code_add:
    add w0, w0, w1
    ret
#elif defined(__arm__)
    .syntax unified
    .thumb
    .text
    .globl real_code_add
    .type real_code_add, %function
    .thumb_func
real_code_add:
    adds r0, r0, r1
    bx lr
#elif defined(__riscv)
    .text
    .globl real_code_add
    .type real_code_add, @function
real_code_add:
    add a0, a0, a1
    ret
#else
#error "add.S: no assembly for this architecture"
#endif
#if defined(__linux__) && defined(__ELF__)
    .section .note.GNU-stack,"",%progbits
#endif
