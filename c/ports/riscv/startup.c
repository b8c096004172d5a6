/*
 * Start-up code for the RISC-V boards (RV32, machine mode), as QEMU models them. Written in C
 * (with the few instructions C cannot say in inline assembly) so that it reads as a checklist,
 * like the Cortex-M family's. What differs between boards is data: the memory map
 * (boards/<board>.ld) and the clock (boards/<board>.mk).
 *
 * What happens at reset:
 *   1. _start (placed first in the image) sets the global pointer, the thread pointer (picolibc's
 *      errno is thread-local: sections.ld) and the stack pointer, points the trap vector (mtvec)
 *      at trap_entry, and jumps to reset;
 *   2. reset copies .data from its load image, zeroes .bss, runs constructors, and calls main
 *      (common/runtime.c, as every port does);
 *   3. main's return value goes to exit(), whose _exit ends the program through semihosting
 *      so that QEMU exits with that status.
 * Any trap (an exception; no interrupt is enabled) lands in trap_report(), which prints one line
 * and exits with status RHO_PORT_FAULT_STATUS: a crash is an error, never a hang.
 *
 * Machine mode has no stack guard here: PMP entries do not apply to machine mode unless locked,
 * and a locked entry cannot be undone until reset, so the harness paints its band only.
 */
#include "../common/port.h"

#include <stdint.h>

void _start(void) __attribute__((naked, noreturn, section(".text.start")));
void reset(void) __attribute__((noreturn, used));
void trap_entry(void) __attribute__((naked, aligned(4)));
void trap_report(uint32_t cause, uint32_t pc, uint32_t value) __attribute__((noreturn, used));

/* The CSR instructions are Zicsr's; GCC 12's -march=rv32imac does not name it, so each use
 * enables it for itself. */
#define ZICSR(text) ".option push\n\t.option arch, +zicsr\n\t" text "\n\t.option pop\n\t"

void _start(void)
{
    __asm__ volatile(".option push\n\t"
                     ".option norelax\n\t"
                     "la gp, __global_pointer$\n\t"
                     ".option pop\n\t"
                     "la tp, __tls_base\n\t"
                     "la sp, __stack_top__\n\t"
                     "la t0, trap_entry\n\t" ZICSR("csrw mtvec, t0") "j reset\n\t");
}

void reset(void)
{
    rho_port_init_memory();
    rho_port_run_main();
}

/* Entered on any trap: the cause, the faulting pc and the trap value (an address) to C. */
void trap_entry(void)
{
    __asm__ volatile(ZICSR("csrr a0, mcause") ZICSR("csrr a1, mepc") ZICSR("csrr a2, mtval")
                     "j trap_report\n\t");
}

void trap_report(uint32_t cause, uint32_t pc, uint32_t value)
{
    char line[96];
    char *out = rho_port_append_text(line, "rho-port: trap");
    out = rho_port_append_hex(out, " mcause=0x", cause);
    out = rho_port_append_hex(out, " mepc=0x", pc);
    out = rho_port_append_hex(out, " mtval=0x", value);
    rho_port_crash(line, out);
}
