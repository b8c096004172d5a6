/*
 * Start-up code for the STM32H743ZI (NUCLEO-H743ZI, Cortex-M7 r1p1 with a double-precision FPU,
 * 16 kB I-cache, 16 kB D-cache). What happens at reset, in order:
 *
 *   1. the core loads the initial stack pointer (word 0 of the vector table, the top of DTCM)
 *      and jumps to Reset_Handler (word 1); the part boots from FLASH at 0x08000000;
 *   2. Reset_Handler points VTOR at the vector table, enables the FPU (CP10/CP11), enables the
 *      DWT cycle counter (DEMCR.TRCENA, the CoreSight lock-access key the M7 needs, CYCCNTENA),
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
 * What this part shares with the built-in Cortex-M boards is theirs, not copied: the vector table
 * and the fault report (../cortex-m/vectors.c, with RHO_PORT_IRQ_COUNT=150 from the Makefile: the
 * H743's external interrupts, positions 0..149 in RM0433), the .data/.bss set-up and the call of
 * main (../common/runtime.c), the system calls (../common/syscalls.c) and the semihosting calls
 * (../common/semihost.c). Any fault or unexpected interrupt lands in the fault report, which prints
 * one line and exits with status 134: a crash is an error, never a hang.
 */
#include "../common/port.h"

#include <stdint.h>

/* System control space (ARMv7-M Architecture Reference Manual, B3.2; Cortex-M7 TRM). */
#define REG(address) (*(volatile uint32_t *)(address))
#define SCB_CCR REG(0xE000ED14u)      /* configuration and control: IC, DC */
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

/* The code for the ITCM, from stm32h743zi.ld (.data and .bss: common/runtime.c). */
extern uint32_t __itcm_start__[];
extern uint32_t __itcm_end__[];
extern const uint32_t __itcm_load__[];

void Reset_Handler(void) __attribute__((noreturn));
void rho_port_vectors_install(void); /* ../cortex-m/vectors.c */

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
    rho_port_vectors_install();
#if defined(__ARM_FP)
    /* Built for the FPU (-mfpu=fpv5-d16): full access to CP10 and CP11 before any
     * floating-point instruction runs, or the first one is a UsageFault (NOCP). */
    SCB_CPACR |= 0xFu << 20;
#endif
    barriers();
    cycle_counter_enable();

    /* Code for the ITCM: copy its image out of FLASH; then .data and .bss. */
    const uint32_t *from = __itcm_load__;
    for (uint32_t *to = __itcm_start__; to < __itcm_end__;) {
        *to++ = *from++;
    }
    rho_port_init_memory();
    barriers();
    caches_enable();

    rho_port_run_main();
}
