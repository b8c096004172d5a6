# Arm MPS2 with the AN500 FPGA image: a Cortex-M7 with a double-precision FPU (ARMv7E-M).
FAMILY := cortex-m
CROSS ?= arm-none-eabi-
ARCH_FLAGS := -mcpu=cortex-m7 -mthumb -mfloat-abi=hard -mfpu=fpv5-d16
LIBC_SPECS := --specs=nano.specs
# The vector table's external interrupts (QEMU: num-irq 32); the MPS2 boards' 25 MHz clock
# (QEMU's SYSCLK_FRQ), which SysTick counts.
BOARD_CFLAGS := -DRHO_PORT_IRQ_COUNT=32
CPU_HZ ?= 25000000
STACK_SIZE ?= 65536
QEMU ?= qemu-system-arm
QEMU_MACHINE := mps2-an500
# 32 ns an instruction: SysTick (40 ns a tick) counts 0.8 ticks per instruction.
ICOUNT_SHIFT ?= 5
