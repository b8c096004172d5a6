/*
 * The Cortex-M vector table and fault report, for every Cortex-M port (the built-in boards, whose
 * Reset_Handler is cortex-m/startup.c, and a port of its own such as stm32h743zi, whose start-up
 * code defines Reset_Handler). What differs between parts is data: the number of external
 * interrupts, RHO_PORT_IRQ_COUNT (from boards/<board>.mk, or the port's Makefile).
 *
 * Any fault or unexpected interrupt lands in fault_report(), which prints one line and exits with
 * status RHO_PORT_FAULT_STATUS: a crash is an error, never a hang.
 */
#include "../common/port.h"

#include <stdint.h>

/* External interrupts: the part's, from its reference manual (at most 255 here). */
#ifndef RHO_PORT_IRQ_COUNT
#error "RHO_PORT_IRQ_COUNT: the part's number of external interrupts (boards/<board>.mk)"
#endif
#define IRQ_COUNT RHO_PORT_IRQ_COUNT
#if IRQ_COUNT < 1 || IRQ_COUNT > 255
#error "RHO_PORT_IRQ_COUNT must be between 1 and 255"
#endif

/* System Control Block registers (ARMv7-M Architecture Reference Manual, B3.2; ARMv6-M has
 * none of the fault status registers, nor VTOR on a Cortex-M0). */
#define SCB_VTOR (*(volatile uint32_t *)0xE000ED08u)  /* vector table offset */
#define SCB_CFSR (*(volatile uint32_t *)0xE000ED28u)  /* configurable fault status */
#define SCB_HFSR (*(volatile uint32_t *)0xE000ED2Cu)  /* HardFault status */
#define SCB_MMFAR (*(volatile uint32_t *)0xE000ED34u) /* MemManage fault address */
#define SCB_BFAR (*(volatile uint32_t *)0xE000ED38u)  /* BusFault address */

/* From the linker script. */
extern uint32_t __stack_top__[];

void Reset_Handler(void) __attribute__((noreturn));
void Fault_Handler(void) __attribute__((naked));
void fault_report(const uint32_t *frame, uint32_t exc_return) __attribute__((noreturn, used));
void rho_port_vectors_install(void);

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
 * placed by the linker script where the core looks for it at reset. */
typedef void (*handler_t)(void);
struct vector_table {
    void *initial_sp;
    handler_t system[15];     /* exceptions 1..15 */
    handler_t irq[IRQ_COUNT]; /* exceptions 16.. (external interrupts) */
};

/* IRQ_COUNT entries of Irq_Handler, from the count's binary digits (each group ends in a comma,
 * which an initializer list allows). */
#define IRQ_X1 Irq_Handler,
#define IRQ_X2 IRQ_X1 IRQ_X1
#define IRQ_X4 IRQ_X2 IRQ_X2
#define IRQ_X8 IRQ_X4 IRQ_X4
#define IRQ_X16 IRQ_X8 IRQ_X8
#define IRQ_X32 IRQ_X16 IRQ_X16
#define IRQ_X64 IRQ_X32 IRQ_X32
#define IRQ_X128 IRQ_X64 IRQ_X64
__attribute__((section(".vectors"), used)) static const struct vector_table vectors = {
    __stack_top__,
    {
        Reset_Handler,
        NMI_Handler,
        rho_bench_fault_handler, /* HardFault */
        rho_bench_fault_handler, /* MemManage */
        BusFault_Handler,
        UsageFault_Handler,
        0, 0, 0, 0, /* reserved */
        SVC_Handler,
        DebugMon_Handler,
        0, /* reserved */
        PendSV_Handler,
        rho_bench_systick_handler,
    },
    /* UARTs, timers, ethernet...: none is enabled by the ports. */
    {
#if IRQ_COUNT & 128
        IRQ_X128
#endif
#if IRQ_COUNT & 64
        IRQ_X64
#endif
#if IRQ_COUNT & 32
        IRQ_X32
#endif
#if IRQ_COUNT & 16
        IRQ_X16
#endif
#if IRQ_COUNT & 8
        IRQ_X8
#endif
#if IRQ_COUNT & 4
        IRQ_X4
#endif
#if IRQ_COUNT & 2
        IRQ_X2
#endif
#if IRQ_COUNT & 1
        IRQ_X1
#endif
    },
};

/* Point VTOR at this table, for a part that boots from an address other than the table's
 * (ARMv7-M and ARMv8-M; a Cortex-M0 has no VTOR). */
void rho_port_vectors_install(void)
{
    SCB_VTOR = (uint32_t)&vectors;
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

void fault_report(const uint32_t *frame, uint32_t exc_return)
{
    uint32_t ipsr;
    __asm__ volatile("mrs %0, ipsr" : "=r"(ipsr));

    char line[160];
    char *out = rho_port_append_text(line, "rho-port: fault");
    out = rho_port_append_hex(out, " exception=0x", ipsr & 0x1FFu);
    out = rho_port_append_hex(out, " pc=0x", frame[6]);
    out = rho_port_append_hex(out, " lr=0x", frame[5]);
#if !defined(__ARM_ARCH_6M__) && !defined(__ARM_ARCH_8M_BASE__)
    out = rho_port_append_hex(out, " cfsr=0x", SCB_CFSR);
    out = rho_port_append_hex(out, " hfsr=0x", SCB_HFSR);
    out = rho_port_append_hex(out, " mmfar=0x", SCB_MMFAR);
    out = rho_port_append_hex(out, " bfar=0x", SCB_BFAR);
#endif
    out = rho_port_append_hex(out, " exc_return=0x", exc_return);
    rho_port_crash(line, out);
}
