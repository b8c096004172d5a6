# Arm MPS2+ with the AN505 FPGA image (the IoT Kit): a Cortex-M33 (ARMv8-M Main) with a
# single-precision FPU and the Security Extension; the program runs in the Secure state, where
# the core starts.
FAMILY := cortex-m
CROSS ?= arm-none-eabi-
ARCH_FLAGS := -mcpu=cortex-m33 -mthumb -mfloat-abi=hard -mfpu=fpv5-sp-d16
LIBC_SPECS := --specs=nano.specs
# The vector table's external interrupts (QEMU: num-irq 92, rounded up to whole rows of 8);
# the AN505's 20 MHz clock (QEMU's sysclk_frq), which SysTick counts.
BOARD_CFLAGS := -DRHO_PORT_IRQ_COUNT=128
CPU_HZ ?= 20000000
STACK_SIZE ?= 65536
QEMU ?= qemu-system-arm
QEMU_MACHINE := mps2-an505
# 32 ns an instruction: SysTick (50 ns a tick) counts 0.64 ticks per instruction.
ICOUNT_SHIFT ?= 5
