/* rho's instruction counter for QEMU's TCG plugin interface (API version 1, QEMU 7.2).
 *
 * Debian's QEMU 7.2 is built with plugin support but ships neither plugins nor the header, so
 * rho compiles this file with the host's cc (-shared -fPIC) and loads it with `-plugin`. The few
 * declarations below are written from the ABI of QEMU 7.2's include/qemu/qemu-plugin.h (the
 * types, the function signatures and QEMU_PLUGIN_VERSION 1); nothing of that header's text is
 * copied.
 *
 * What it counts: the instructions executed inside benchmarks' bodies. The harness's counted build
 * for a board (bench.h, RHO_BENCH_MEASURE_INSTRUCTIONS) marks with no-op instructions that no
 * compiler emits where each iteration's body begins and ends, and where each benchmark's measured
 * loop begins and ends:
 *
 *                     Thumb (Cortex-M)          RISC-V
 *   body begins       mov r11, r11  (46db)      addi x0, x0, 0x521  (52100013)
 *   body ends         mov r10, r10  (46d2)      addi x0, x0, 0x522  (52200013)
 *   loop begins       mov r9, r9    (46c9)      addi x0, x0, 0x523  (52300013)
 *   loop ends         mov r12, r12  (46e4)      addi x0, x0, 0x524  (52400013)
 *
 * Every other instruction gets an inline add of its own (not one add per translated block: a
 * block cut short by an exception would overcount its tail); a body's markers take the count when
 * it begins and add what ran since when it ends, so the loop's own instructions, whatever the
 * compiler laid around the body, are not in the figure. At a loop's end the plugin writes one line
 * `K TOTAL` to `out=PATH`: K counting from 1 as the harness's `@count K` lines do, TOTAL the
 * bodies' instructions since the loop began. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- The ABI of QEMU 7.2's plugin interface, API version 1 ---- */
typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
struct qemu_info_t; /* only its pointer is passed here */
enum qemu_plugin_cb_flags { RHO_CB_NO_REGS = 0 };
enum qemu_plugin_op { RHO_INLINE_ADD_U64 = 0 };
typedef void (*rho_tb_trans_cb)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*rho_udata_cb)(unsigned int vcpu_index, void *userdata);
typedef void (*rho_exit_cb)(qemu_plugin_id_t id, void *userdata);
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, rho_tb_trans_cb cb);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
void qemu_plugin_register_vcpu_insn_exec_inline(struct qemu_plugin_insn *insn,
                                                enum qemu_plugin_op op, void *ptr, uint64_t imm);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn, rho_udata_cb cb,
                                            enum qemu_plugin_cb_flags flags, void *userdata);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, rho_exit_cb cb, void *userdata);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

/* ---- The counter (one vCPU: the boards have one) ---- */
enum { NOT_A_MARKER, BODY_BEGINS, BODY_ENDS, LOOP_BEGINS, LOOP_ENDS };

static uint64_t executed;   /* instructions executed so far, markers not included */
static uint64_t body_start; /* `executed` when the body in progress began */
static int in_body;         /* a body began and has not ended */
static uint64_t summed;     /* the bodies' instructions since the measured loop began */
static uint64_t loops;      /* lines written */
static FILE *out;

static void at_marker(unsigned int vcpu_index, void *userdata)
{
    int which = (int)(intptr_t)userdata;
    (void)vcpu_index;
    switch (which) {
    case BODY_BEGINS:
        body_start = executed;
        in_body = 1;
        break;
    case BODY_ENDS:
        if (in_body) {
            summed += executed - body_start;
            in_body = 0;
        }
        break;
    case LOOP_BEGINS:
        summed = 0;
        in_body = 0;
        break;
    default:
        fprintf(out, "%" PRIu64 " %" PRIu64 "\n", ++loops, summed);
        fflush(out);
        break;
    }
}

/* Which marker `insn` is, by its encoding. */
static int marker(const struct qemu_plugin_insn *insn)
{
    const unsigned char *bytes = qemu_plugin_insn_data(insn);
    size_t size = qemu_plugin_insn_size(insn);
    if (size == 2 && bytes[1] == 0x46) {
        switch (bytes[0]) {
        case 0xDB: return BODY_BEGINS;
        case 0xD2: return BODY_ENDS;
        case 0xC9: return LOOP_BEGINS;
        case 0xE4: return LOOP_ENDS;
        default: return NOT_A_MARKER;
        }
    }
    if (size == 4 && bytes[0] == 0x13 && bytes[1] == 0x00 && bytes[3] == 0x52) {
        switch (bytes[2]) {
        case 0x10: return BODY_BEGINS;
        case 0x20: return BODY_ENDS;
        case 0x30: return LOOP_BEGINS;
        case 0x40: return LOOP_ENDS;
        default: return NOT_A_MARKER;
        }
    }
    return NOT_A_MARKER;
}

static void translated(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    size_t i, n = qemu_plugin_tb_n_insns(tb);
    (void)id;
    for (i = 0; i < n; i++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
        int which = marker(insn);
        if (which != NOT_A_MARKER) {
            /* A marker is not counted: what lies between a body's two is the body. */
            qemu_plugin_register_vcpu_insn_exec_cb(insn, at_marker, RHO_CB_NO_REGS,
                                                   (void *)(intptr_t)which);
        } else {
            qemu_plugin_register_vcpu_insn_exec_inline(insn, RHO_INLINE_ADD_U64, &executed, 1);
        }
    }
}

static void at_exit(qemu_plugin_id_t id, void *userdata)
{
    (void)id;
    (void)userdata;
    if (out != 0) {
        fclose(out);
        out = 0;
    }
}

/* One argument: `out=PATH`, the file the totals are written to. */
__attribute__((visibility("default"))) int qemu_plugin_install(qemu_plugin_id_t id,
                                                               const struct qemu_info_t *info,
                                                               int argc, char **argv)
{
    (void)info;
    if (argc != 1 || strncmp(argv[0], "out=", 4) != 0) {
        fprintf(stderr, "rho count plugin: expected one argument, out=PATH\n");
        return -1;
    }
    out = fopen(argv[0] + 4, "w");
    if (out == 0) {
        fprintf(stderr, "rho count plugin: cannot write %s\n", argv[0] + 4);
        return -1;
    }
    qemu_plugin_register_vcpu_tb_trans_cb(id, translated);
    qemu_plugin_register_atexit_cb(id, at_exit, 0);
    return 0;
}
