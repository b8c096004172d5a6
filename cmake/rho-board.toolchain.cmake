# CMake toolchain file: rho suites for a built-in emulated board, run under QEMU.
#
#     cmake -S . -B build/BOARD -DRHO_BENCH_PORT=BOARD -DCMAKE_TOOLCHAIN_FILE=<this file> \
#           -DCMAKE_MODULE_PATH=<its directory>
#
# BOARD is one of c/ports/boards/*.mk (mps2-an385, mps2-an386, mps2-an500, mps2-an505, microbit,
# riscv32-virt): the compilers (CROSS), the core's flags (ARCH_FLAGS) and the C library (LIBC_SPECS)
# are read from that file, the one c/ports/Makefile includes, and rho_add_benchmark (RhoBench.cmake)
# reads the rest (family, clock, stack, the board's sources and defines) from it too. Toolchains:
# Debian's gcc-arm-none-eabi and libnewlib-arm-none-eabi (libstdc++-arm-none-eabi-newlib for C++)
# for the Cortex-M boards, gcc-riscv64-unknown-elf and picolibc-riscv64-unknown-elf for riscv32-virt.
set(CMAKE_SYSTEM_NAME Generic)
# A test program cannot link without the port's start-up code: the checks build a library instead.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
# The checks' own projects read this file again: hand them the board.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES RHO_BENCH_PORT RHO_BENCH_PORTS_DIR)

if(NOT RHO_BENCH_PORT)
  message(FATAL_ERROR "rho-board.toolchain.cmake: set RHO_BENCH_PORT to a board (c/ports/boards/*.mk)")
endif()
if(NOT RHO_BENCH_PORTS_DIR)
  # Beside this file when `rho bench --cmake-module` wrote them together, else the repository's c/ports.
  if(EXISTS "${CMAKE_CURRENT_LIST_DIR}/ports/common/port.h")
    set(RHO_BENCH_PORTS_DIR "${CMAKE_CURRENT_LIST_DIR}/ports")
  else()
    get_filename_component(RHO_BENCH_PORTS_DIR "${CMAKE_CURRENT_LIST_DIR}/../c/ports" ABSOLUTE)
  endif()
  set(RHO_BENCH_PORTS_DIR "${RHO_BENCH_PORTS_DIR}" CACHE PATH "The directory holding rho's board ports")
endif()
include("${CMAKE_CURRENT_LIST_DIR}/RhoBoard.cmake")
rho_board_read(_rho "${RHO_BENCH_PORT}")

if(_rho_FAMILY STREQUAL "riscv")
  set(CMAKE_SYSTEM_PROCESSOR riscv32)
else()
  set(CMAKE_SYSTEM_PROCESSOR arm)
endif()
set(CMAKE_C_COMPILER "${_rho_CROSS}gcc")
set(CMAKE_CXX_COMPILER "${_rho_CROSS}g++")
set(CMAKE_ASM_COMPILER "${_rho_CROSS}gcc")

# The C library's specs compile too: they name its headers (newlib-nano's, picolibc's).
set(_rho_flags "${_rho_ARCH_FLAGS} ${_rho_LIBC_SPECS} -ffunction-sections -fdata-sections")
set(CMAKE_C_FLAGS_INIT "${_rho_flags}")
# What embedded toolchains default to for C++: no exceptions, no RTTI, no guards around local statics.
set(CMAKE_CXX_FLAGS_INIT "${_rho_flags} -fno-exceptions -fno-rtti -fno-threadsafe-statics")
# (The C flags, with the specs, are on the link line too.)
set(CMAKE_EXE_LINKER_FLAGS_INIT "${_rho_ARCH_FLAGS}")
