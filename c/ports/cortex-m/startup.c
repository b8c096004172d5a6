/*
 * Start-up code for the Cortex-M boards (ARMv6-M, ARMv7-M, ARMv8-M Main), as QEMU models them.
 * Written in C so that it reads as a checklist. What differs between boards is data: the
 * number of external interrupts (RHO_PORT_IRQ_COUNT, from boards/<board>.mk, used by the vector
 * table in vectors.c) and the memory map (boards/<board>.ld). To adapt it to another Cortex-M
 * part, keep the structure and change:
 *   - RHO_PORT_IRQ_COUNT (from the part's reference manual);
 *   - the clock set-up, if the part boots on a slow oscillator (add it before main);
 *   - the exit path: semihosting (rho_port_exit) needs a debugger or an emulator.
 * A part with more to do at reset (caches, tightly coupled memories, VTOR) writes its own
 * Reset_Handler and keeps vectors.c and common/: see ../stm32h743zi/startup.c.
 *
 * What happens at reset:
 *   1. the core loads the initial stack pointer (word 0 of the vector table) and jumps to
 *      Reset_Handler (word 1);
 *   2. Reset_Handler enables the FPU when the code was built to use it, copies .data from
 *      its load image, zeroes .bss, runs constructors, and calls main (common/runtime.c);
 *   3. main's return value goes to exit(), whose _exit ends the program through
 *      semihosting so that QEMU exits with that status.
 * Any fault or unexpected interrupt lands in the fault report (vectors.c).
 */
#include "../common/port.h"

#include <stdint.h>

#define SCB_CPACR (*(volatile uint32_t *)0xE000ED88u) /* coprocessor access control */

void Reset_Handler(void) __attribute__((noreturn));

void Reset_Handler(void)
{
#if defined(__ARM_FP)
    /* Built with an FPU (-mfpu=fpv4-sp-d16): grant full access to CP10 and CP11 before
     * any floating-point instruction runs, or the first one is a UsageFault (NOCP). */
    SCB_CPACR |= 0xFu << 20;
    __asm__ volatile("dsb\n\tisb" ::: "memory");
#endif
    rho_port_init_memory();
    rho_port_run_main();
}
