# CMake toolchain file: rho suites for the Arm MPS2 AN386 board (Cortex-M4F), run under QEMU.
#
#     cmake -S . -B build/mps2-an386 -DCMAKE_TOOLCHAIN_FILE=<this file> -DCMAKE_MODULE_PATH=<its directory>
#
# rho-board.toolchain.cmake with RHO_BENCH_PORT=mps2-an386: arm-none-eabi-gcc/g++ and the flags of
# c/ports/boards/mps2-an386.mk. For another board, use rho-board.toolchain.cmake with -DRHO_BENCH_PORT=BOARD.
set(RHO_BENCH_PORT mps2-an386 CACHE STRING "A board port to link every suite with")
include("${CMAKE_CURRENT_LIST_DIR}/rho-board.toolchain.cmake")
