/*
 * Start-up code for the Cortex-M boards (ARMv6-M, ARMv7-M, ARMv8-M Main), as QEMU models them.
 * Written in C so that it reads as a checklist. What differs between boards is data: the
 * number of external interrupts (RHO_PORT_IRQ_COUNT, from boards/<board>.mk) and the memory
 * map (boards/<board>.ld). To adapt it to another Cortex-M part, keep the structure and change:
 *   - RHO_PORT_IRQ_COUNT (from the part's reference manual);
 *   - the clock set-up, if the part boots on a slow oscillator (add it before main);
 *   - the exit path: semihosting (rho_port_exit) needs a debugger or an emulator.
 *
 * What happens at reset:
 *   1. the core loads the initial stack pointer (word 0 of the vector table) and jumps to
 *      Reset_Handler (word 1);
 *   2. Reset_Handler enables the FPU when the code was built to use it, copies .data from
 *      its load image, zeroes .bss, runs constructors, and calls main;
 *   3. main's return value goes to exit(), whose _exit ends the program through
 *      semihosting so that QEMU exits with that status.
 * Any fault or unexpected interrupt lands in fault_report(), which prints one line and
 * exits with status RHO_PORT_FAULT_STATUS: a crash is an error, never a hang.
 */
#include "../common/semihost.h"

#include <stdint.h>
#include <stdlib.h>

/* The exit status QEMU returns after a fault or an unexpected exception (128 + SIGABRT,
 * what a shell shows for a crashed host process). */
#define RHO_PORT_FAULT_STATUS 134

/* External interrupts: the board's (boards/<board>.mk), a multiple of 8. */
#ifndef RHO_PORT_IRQ_COUNT
#error "RHO_PORT_IRQ_COUNT: the board's number of external interrupts (boards/<board>.mk)"
#endif
#define IRQ_COUNT RHO_PORT_IRQ_COUNT
#if IRQ_COUNT % 8 != 0
#error "RHO_PORT_IRQ_COUNT must be a multiple of 8"
#endif

/* System Control Block registers (ARMv7-M Architecture Reference Manual, B3.2; ARMv6-M has
 * none of the fault status registers). */
#define SCB_CPACR (*(volatile uint32_t *)0xE000ED88u) /* coprocessor access control */
#define SCB_CFSR (*(volatile uint32_t *)0xE000ED28u)  /* configurable fault status */
#define SCB_HFSR (*(volatile uint32_t *)0xE000ED2Cu)  /* HardFault status */
#define SCB_MMFAR (*(volatile uint32_t *)0xE000ED34u) /* MemManage fault address */
#define SCB_BFAR (*(volatile uint32_t *)0xE000ED38u)  /* BusFault address */

/* Symbols from sections.ld. */
extern uint32_t __data_start__[];
extern uint32_t __data_end__[];
extern const uint32_t __data_load__[];
extern uint32_t __bss_start__[];
extern uint32_t __bss_end__[];
extern uint32_t __stack_top__[];
extern void (*const __preinit_array_start[])(void);
extern void (*const __preinit_array_end[])(void);
extern void (*const __init_array_start[])(void);
extern void (*const __init_array_end[])(void);

int main(int argc, char **argv);

void Reset_Handler(void) __attribute__((noreturn));
void Fault_Handler(void) __attribute__((naked));
void fault_report(const uint32_t *frame, uint32_t exc_return) __attribute__((noreturn, used));

/* Every exception but reset defaults to the fault handler; a board's code overrides one by
 * defining a function of the same name (they are weak aliases). */
#define WEAK_FAULT __attribute__((weak, alias("Fault_Handler")))
void NMI_Handler(void) WEAK_FAULT;
void BusFault_Handler(void) WEAK_FAULT;
void UsageFault_Handler(void) WEAK_FAULT;
void SVC_Handler(void) WEAK_FAULT;
void DebugMon_Handler(void) WEAK_FAULT;
void PendSV_Handler(void) WEAK_FAULT;
/* SysTick: when the core has no working DWT cycle counter (QEMU's reads 0), the harness
 * counts cycles with SysTick and its exception counts the counter's wraps, so a body longer
 * than SysTick's 2^24-cycle period is measured right. Its handler is the harness's
 * rho_bench_systick_handler (rho/bench.h checks that this entry points at it before enabling
 * the exception). Without the harness linked, the weak alias reports it like a fault. A
 * firmware that runs SysTick itself keeps its own handler here and builds the harness with
 * -DRHO_BENCH_SYSTICK_EXTERNAL. */
void rho_bench_systick_handler(void) WEAK_FAULT;
/* HardFault and MemManage: the harness's rho_bench_fault_handler, which turns a fault on the
 * MPU guard below a benchmark's painted stack region into "overran" for that benchmark and goes
 * on with the next (rho/bench.h checks that the HardFault entry points at it before arming the
 * guard). Any other fault it hands to rho_bench_port_fault_handler, the port's report below,
 * with the core's frame untouched. Without the harness linked, the weak alias is the report. */
void rho_bench_fault_handler(void) WEAK_FAULT;
void rho_bench_port_fault_handler(void) __attribute__((alias("Fault_Handler")));
void Irq_Handler(void) WEAK_FAULT;

/* The vector table (ARMv7-M ARM, B1.5.3): the initial stack pointer, then the handlers'
 * addresses (bit 0 set by the toolchain: they are Thumb code). Section ".vectors" is
 * placed at address 0 by the linker script, where the core looks for it at reset. */
typedef void (*handler_t)(void);
struct vector_table {
    void *initial_sp;
    handler_t system[15]; /* exceptions 1..15 */
    handler_t irq[IRQ_COUNT]; /* exceptions 16.. (external interrupts) */
};

#define IRQ_X8 Irq_Handler, Irq_Handler, Irq_Handler, Irq_Handler, \
               Irq_Handler, Irq_Handler, Irq_Handler, Irq_Handler
__attribute__((section(".vectors"), used)) static const struct vector_table vectors = {
    __stack_top__,
    {
        Reset_Handler,
        NMI_Handler,
        rho_bench_fault_handler,  /* HardFault */
        rho_bench_fault_handler,  /* MemManage */
        BusFault_Handler,
        UsageFault_Handler,
        0, 0, 0, 0, /* reserved */
        SVC_Handler,
        DebugMon_Handler,
        0, /* reserved */
        PendSV_Handler,
        rho_bench_systick_handler,
    },
    /* UARTs, timers, ethernet...: none is enabled by this port. */
    {IRQ_X8, IRQ_X8, IRQ_X8, IRQ_X8
#if IRQ_COUNT > 32
     , IRQ_X8, IRQ_X8, IRQ_X8, IRQ_X8
#endif
#if IRQ_COUNT > 64
     , IRQ_X8, IRQ_X8, IRQ_X8, IRQ_X8, IRQ_X8, IRQ_X8, IRQ_X8, IRQ_X8
#endif
    },
};
#if IRQ_COUNT != 32 && IRQ_COUNT != 64 && IRQ_COUNT != 128
#error "RHO_PORT_IRQ_COUNT: 32, 64 or 128 (add rows of IRQ_X8 for another count)"
#endif

void Reset_Handler(void)
{
#if defined(__ARM_FP)
    /* Built with an FPU (-mfpu=fpv4-sp-d16): grant full access to CP10 and CP11 before
     * any floating-point instruction runs, or the first one is a UsageFault (NOCP). */
    SCB_CPACR |= 0xFu << 20;
    __asm__ volatile("dsb\n\tisb" ::: "memory");
#endif

    /* Initialised data: copy its image from CODE to RAM. */
    const uint32_t *from = __data_load__;
    for (uint32_t *to = __data_start__; to < __data_end__;) {
        *to++ = *from++;
    }
    /* Zero-initialised data. */
    for (uint32_t *to = __bss_start__; to < __bss_end__;) {
        *to++ = 0;
    }
    /* Constructors (none in a C suite; kept so C++ or __attribute__((constructor)) work). */
    for (void (*const *init)(void) = __preinit_array_start; init < __preinit_array_end; ++init) {
        (*init)();
    }
    for (void (*const *init)(void) = __init_array_start; init < __init_array_end; ++init) {
        (*init)();
    }

    /* Bare metal has no command line; argv[0] names the program for code that prints it. */
    static char program_name[] = "bench";
    static char *argv[] = {program_name, 0};
    exit(main(1, argv));
}

/* Entered on any fault or unexpected exception. The core pushed r0-r3, r12, lr, pc, xPSR
 * onto whichever stack was active (bit 2 of EXC_RETURN in lr says which); pass that frame
 * to fault_report. Naked: no prologue may touch the stack before we look at it. */
void Fault_Handler(void)
{
#if defined(__ARM_ARCH_6M__) || defined(__ARM_ARCH_8M_BASE__)
    /* Thumb-1: no IT blocks, no `tst` with an immediate, and a `b` reaches only 2 kB. */
    __asm__ volatile("movs r0, #4\n\t"
                     "mov r1, lr\n\t"
                     "tst r0, r1\n\t"
                     "bne 1f\n\t"
                     "mrs r0, msp\n\t"
                     "b 2f\n"
                     "1:\n\t"
                     "mrs r0, psp\n"
                     "2:\n\t"
                     "ldr r2, =fault_report\n\t"
                     "bx r2\n\t"
                     ".ltorg\n\t");
#else
    __asm__ volatile("tst lr, #4\n\t"
                     "ite eq\n\t"
                     "mrseq r0, msp\n\t"
                     "mrsne r0, psp\n\t"
                     "mov r1, lr\n\t"
                     "b fault_report\n\t");
#endif
}

static char *append_text(char *out, const char *text)
{
    while (*text != '\0') {
        *out++ = *text++;
    }
    return out;
}

static char *append_hex(char *out, const char *label, uint32_t value)
{
    static const char digits[] = "0123456789abcdef";
    out = append_text(out, label);
    for (int shift = 28; shift >= 0; shift -= 4) {
        *out++ = digits[(value >> shift) & 0xFu];
    }
    return out;
}

void fault_report(const uint32_t *frame, uint32_t exc_return)
{
    uint32_t ipsr;
    __asm__ volatile("mrs %0, ipsr" : "=r"(ipsr));

    /* One line, not starting with '@' or ':', so a wire-stream reader treats it as noise
     * and then reports the stream as truncated; the exit status says it crashed. */
    char line[160];
    char *out = append_text(line, "rho-port: fault");
    out = append_hex(out, " exception=0x", ipsr & 0x1FFu);
    out = append_hex(out, " pc=0x", frame[6]);
    out = append_hex(out, " lr=0x", frame[5]);
#if !defined(__ARM_ARCH_6M__) && !defined(__ARM_ARCH_8M_BASE__)
    out = append_hex(out, " cfsr=0x", SCB_CFSR);
    out = append_hex(out, " hfsr=0x", SCB_HFSR);
    out = append_hex(out, " mmfar=0x", SCB_MMFAR);
    out = append_hex(out, " bfar=0x", SCB_BFAR);
#endif
    out = append_hex(out, " exc_return=0x", exc_return);
    *out++ = '\n';
    (void)rho_port_console_write(line, (size_t)(out - line));
    rho_port_exit(RHO_PORT_FAULT_STATUS);
}
