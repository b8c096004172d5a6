# CMake toolchain file: rho suites for the Arm MPS2 AN386 board (Cortex-M4F), run under QEMU.
#
#     cmake -S . -B build/mps2-an386 -DCMAKE_TOOLCHAIN_FILE=<this file> -DCMAKE_MODULE_PATH=<its directory>
#
# arm-none-eabi-gcc/g++ (Debian: gcc-arm-none-eabi, libnewlib-arm-none-eabi, and
# libstdc++-arm-none-eabi-newlib for C++), the flags of c/ports/boards/mps2-an386.mk, and
# RHO_BENCH_PORT=mps2-an386 so that rho_add_benchmark links every suite with the port.
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_CXX_COMPILER arm-none-eabi-g++)
set(CMAKE_ASM_COMPILER arm-none-eabi-gcc)
# A test program cannot link without the port's start-up code: the checks build a library instead.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

set(_rho_arch "-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16")
set(CMAKE_C_FLAGS_INIT "${_rho_arch} -ffunction-sections -fdata-sections")
# What embedded toolchains default to for C++: no exceptions, no RTTI, no guards around local statics.
set(CMAKE_CXX_FLAGS_INIT
  "${_rho_arch} -ffunction-sections -fdata-sections -fno-exceptions -fno-rtti -fno-threadsafe-statics")
set(CMAKE_EXE_LINKER_FLAGS_INIT "${_rho_arch}")

set(RHO_BENCH_PORT mps2-an386 CACHE STRING "A board port to link every suite with")
