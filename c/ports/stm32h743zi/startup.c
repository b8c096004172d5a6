/*
 * Start-up code for the STM32H743ZI (NUCLEO-H743ZI, Cortex-M7 r1p1 with a double-precision FPU,
 * 16 kB I-cache, 16 kB D-cache). What happens at reset, in order:
 *
 *   1. the core loads the initial stack pointer (word 0 of the vector table, the top of DTCM)
 *      and jumps to Reset_Handler (word 1); the part boots from FLASH at 0x08000000;
 *   2. Reset_Handler points VTOR at this table, enables the FPU (CP10/CP11), enables the DWT
 *      cycle counter (DEMCR.TRCENA, the CoreSight lock-access key the M7 needs, CYCCNTENA),
 *      copies .itcm and .data from FLASH, zeroes .bss, enables the I-cache and the D-cache,
 *      runs constructors and calls main;
 *   3. main's return value goes to exit(), whose _exit waits for the probe to read the console
 *      and ends the program through semihosting (console.c), so `probe-rs run` exits with it.
 *
 * Clock: none is set up. After reset the H743 runs from its HSI oscillator at 64 MHz (HSIDIV /1,
 * D1CPRE /1), with the flash at its reset latency (7 wait states, right for any clock) and the
 * regulator at its reset voltage scale; CPU_HZ in the Makefile says 64000000. A board that wants
 * 400 or 480 MHz adds its PLL set-up (supply, voltage scale, flash latency, PLL1, switch) before
 * main and builds with CPU_HZ to match.
 *
 * Any fault or unexpected interrupt lands in fault_report(), which prints one line and exits with
 * status RHO_PORT_FAULT_STATUS: a crash is an error, never a hang.
 */
#include "console.h"

#include <stdint.h>
#include <stdlib.h>

#define RHO_PORT_FAULT_STATUS 134

/* The H743's external interrupts: positions 0..149 (RM0433, the NVIC's vector table). */
#define IRQ_COUNT 150

/* System control space (ARMv7-M Architecture Reference Manual, B3.2; Cortex-M7 TRM). */
#define REG(address) (*(volatile uint32_t *)(address))
#define SCB_VTOR REG(0xE000ED08u)
#define SCB_CCR REG(0xE000ED14u)      /* configuration and control: IC, DC */
#define SCB_CFSR REG(0xE000ED28u)
#define SCB_HFSR REG(0xE000ED2Cu)
#define SCB_MMFAR REG(0xE000ED34u)
#define SCB_BFAR REG(0xE000ED38u)
#define SCB_CPACR REG(0xE000ED88u)
#define SCB_CCSIDR REG(0xE000ED80u)   /* cache size of the level CSSELR selects */
#define SCB_CSSELR REG(0xE000ED84u)
#define SCB_ICIALLU REG(0xE000EF50u)  /* I-cache invalidate all */
#define SCB_DCISW REG(0xE000EF60u)    /* D-cache invalidate by set/way */
#define DEMCR REG(0xE000EDFCu)        /* debug exception and monitor control: TRCENA (24) */
#define DWT_CTRL REG(0xE0001000u)     /* CYCCNTENA (0) */
#define DWT_CYCCNT REG(0xE0001004u)
#define DWT_LAR REG(0xE0001FB0u)      /* CoreSight lock access: 0xC5ACCE55 unlocks */

#define CCR_DC (1u << 16)
#define CCR_IC (1u << 17)

/* Symbols from stm32h743zi.ld. */
extern uint32_t __itcm_start__[];
extern uint32_t __itcm_end__[];
extern const uint32_t __itcm_load__[];
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

/* Every exception but reset defaults to the fault report; a board's code overrides one by
 * defining a function of the same name (they are weak aliases). */
#define WEAK_FAULT __attribute__((weak, alias("Fault_Handler")))
void NMI_Handler(void) WEAK_FAULT;
void BusFault_Handler(void) WEAK_FAULT;
void UsageFault_Handler(void) WEAK_FAULT;
void SVC_Handler(void) WEAK_FAULT;
void DebugMon_Handler(void) WEAK_FAULT;
void PendSV_Handler(void) WEAK_FAULT;
/* SysTick, HardFault and MemManage go to the harness as in the mps2-an386 port: SysTick's
 * handler counts the counter's wraps when the harness falls back to SysTick (on this part DWT
 * works, so it does not), and rho_bench_fault_handler turns a fault on the MPU guard below a
 * benchmark's painted stack into "overran" and hands any other to rho_bench_port_fault_handler,
 * the report below. rho/bench.h checks both entries before relying on them. */
void rho_bench_systick_handler(void) WEAK_FAULT;
void rho_bench_fault_handler(void) WEAK_FAULT;
void rho_bench_port_fault_handler(void) __attribute__((alias("Fault_Handler")));
void Irq_Handler(void) WEAK_FAULT;

typedef void (*handler_t)(void);
struct vector_table {
    void *initial_sp;
    handler_t system[15];     /* exceptions 1..15 */
    handler_t irq[IRQ_COUNT]; /* exceptions 16.. */
};

#define IRQ_X2 Irq_Handler, Irq_Handler
#define IRQ_X8 IRQ_X2, IRQ_X2, IRQ_X2, IRQ_X2
#define IRQ_X32 IRQ_X8, IRQ_X8, IRQ_X8, IRQ_X8
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
    /* The part's peripherals, none enabled by this port: 4 x 32 + 2 x 8 + 3 x 2 = 150. */
    {IRQ_X32, IRQ_X32, IRQ_X32, IRQ_X32, IRQ_X8, IRQ_X8, IRQ_X2, IRQ_X2, IRQ_X2},
};

static void barriers(void)
{
    __asm__ volatile("dsb\n\tisb" ::: "memory");
}

/* The caches, as the Cortex-M7 TRM (and CMSIS's SCB_EnableICache/SCB_EnableDCache) do it:
 * invalidate, then enable. Neither is on after reset. */
static void caches_enable(void)
{
#if !defined(RHO_PORT_NO_CACHES)
    barriers();
    SCB_ICIALLU = 0;
    barriers();
    SCB_CCR |= CCR_IC;
    barriers();

    SCB_CSSELR = 0; /* level 1 data cache */
    __asm__ volatile("dsb" ::: "memory");
    const uint32_t ccsidr = SCB_CCSIDR;
    const uint32_t sets = (ccsidr >> 13) & 0x7FFFu;
    const uint32_t ways = (ccsidr >> 3) & 0x3FFu;
    for (uint32_t set = sets + 1u; set-- > 0;) {
        for (uint32_t way = ways + 1u; way-- > 0;) {
            /* Cortex-M7: 32-byte lines (set at bit 5), 4 ways (way at bit 30). */
            SCB_DCISW = (set << 5) | (way << 30);
        }
    }
    barriers();
    SCB_CCR |= CCR_DC;
    barriers();
#endif
}

/* DWT->CYCCNT counting core cycles. The harness does the same before it measures (rho/bench.h,
 * its clock set-up); doing it here makes the counter usable by any code, and the lock-access key
 * is what a Cortex-M7 needs and an M3/M4 ignores: without it the M7's DWT ignores writes. */
static void cycle_counter_enable(void)
{
    DEMCR |= 1u << 24; /* TRCENA: the DWT and ITM on */
    DWT_LAR = 0xC5ACCE55u;
    DWT_CYCCNT = 0;
    DWT_CTRL |= 1u; /* CYCCNTENA */
}

void Reset_Handler(void)
{
    SCB_VTOR = (uint32_t)&vectors;
#if defined(__ARM_FP)
    /* Built for the FPU (-mfpu=fpv5-d16): full access to CP10 and CP11 before any
     * floating-point instruction runs, or the first one is a UsageFault (NOCP). */
    SCB_CPACR |= 0xFu << 20;
#endif
    barriers();
    cycle_counter_enable();

    /* Code for the ITCM and initialised data: copy their images out of FLASH. */
    const uint32_t *from = __itcm_load__;
    for (uint32_t *to = __itcm_start__; to < __itcm_end__;) {
        *to++ = *from++;
    }
    from = __data_load__;
    for (uint32_t *to = __data_start__; to < __data_end__;) {
        *to++ = *from++;
    }
    for (uint32_t *to = __bss_start__; to < __bss_end__;) {
        *to++ = 0;
    }
    barriers();
    caches_enable();

    for (void (*const *init)(void) = __preinit_array_start; init < __preinit_array_end; ++init) {
        (*init)();
    }
    for (void (*const *init)(void) = __init_array_start; init < __init_array_end; ++init) {
        (*init)();
    }

    static char program_name[] = "bench";
    static char *argv[] = {program_name, 0};
    exit(main(1, argv));
}

/* Entered on any fault or unexpected exception: pass the stacked frame (on whichever stack
 * EXC_RETURN's bit 2 names) to fault_report. Naked: no prologue touches the stack first. */
void Fault_Handler(void)
{
    __asm__ volatile("tst lr, #4\n\t"
                     "ite eq\n\t"
                     "mrseq r0, msp\n\t"
                     "mrsne r0, psp\n\t"
                     "mov r1, lr\n\t"
                     "b fault_report\n\t");
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

    /* One line that a wire-stream reader treats as noise; the exit status says it crashed. */
    char line[160];
    char *out = append_text(line, "rho-port: fault");
    out = append_hex(out, " exception=0x", ipsr & 0x1FFu);
    out = append_hex(out, " pc=0x", frame[6]);
    out = append_hex(out, " lr=0x", frame[5]);
    out = append_hex(out, " cfsr=0x", SCB_CFSR);
    out = append_hex(out, " hfsr=0x", SCB_HFSR);
    out = append_hex(out, " mmfar=0x", SCB_MMFAR);
    out = append_hex(out, " bfar=0x", SCB_BFAR);
    out = append_hex(out, " exc_return=0x", exc_return);
    *out++ = '\n';
    (void)rho_port_console_write(line, (size_t)(out - line));
    rho_port_exit(RHO_PORT_FAULT_STATUS);
}
