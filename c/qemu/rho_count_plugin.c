/* rho's instruction counter for QEMU's TCG plugin interface (API version 1, QEMU 7.2).
 *
 * Debian's QEMU 7.2 is built with plugin support but ships neither plugins nor the header, so
 * rho compiles this file with the host's cc (-shared -fPIC) and loads it with `-plugin`. The few
 * declarations below are written from the ABI of QEMU 7.2's include/qemu/qemu-plugin.h (the
 * types, the function signatures and QEMU_PLUGIN_VERSION 1); nothing of that header's text is
 * copied.
 *
 * What it counts: the instructions executed inside benchmarks' bodies. The harness's counted build
 * for a board (bench.h, RHO_BENCH_MEASURE_INSTRUCTIONS) puts a no-op marker instruction where each
 * iteration's body begins and ends, and where each benchmark's measured loop begins and ends, and
 * records each marker's address and kind in the image's section `.rho_marks` (two little-endian
 * 32-bit words an entry: the address, the kind 1 body begins, 2 body ends, 3 loop begins, 4 loop
 * ends). The plugin reads that table from the image (`elf=PATH`) and knows a marker by the address
 * it executes at, never by its encoding: a body made of the same instructions (RV32C's `c.li a3, 18`
 * is Thumb's `mov r9, r9`, 0x46c9) is counted as any other. A table entry whose instruction is not
 * the marker's (the table is another image's) stops the run with an error.
 *
 * Every other instruction gets an inline add of its own (not one add per translated block: a
 * block cut short by an exception would overcount its tail); a body's markers take the count when
 * it begins and add what ran since when it ends, so the loop's own instructions, whatever the
 * compiler laid around the body, are not in the figure. At a loop's end the plugin writes one line
 * `K TOTAL BODIES FILLED` to `out=PATH`: K counting from 1 as the harness's `@count K` lines do,
 * TOTAL the bodies' instructions since the loop began, BODIES how many bodies ended in it, FILLED
 * how many of those began at a marker not right before a body's end marker (code between them,
 * whose first instruction runs: such bodies run at least FILLED instructions). rho checks BODIES
 * against the loop's iterations and TOTAL against FILLED. */
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
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
void qemu_plugin_register_vcpu_insn_exec_inline(struct qemu_plugin_insn *insn,
                                                enum qemu_plugin_op op, void *ptr, uint64_t imm);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn, rho_udata_cb cb,
                                            enum qemu_plugin_cb_flags flags, void *userdata);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, rho_exit_cb cb, void *userdata);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

/* ---- The counter (one vCPU: the boards have one) ---- */
/* The table's kinds 1 to 4, and (the plugin's own) a body that begins right before its end. */
enum { NOT_A_MARKER, BODY_BEGINS, BODY_ENDS, LOOP_BEGINS, LOOP_ENDS, EMPTY_BODY_BEGINS };

static uint64_t executed;   /* instructions executed so far, markers not included */
static uint64_t body_start; /* `executed` when the body in progress began */
static int in_body;         /* a body began and has not ended */
static uint64_t summed;     /* the bodies' instructions since the measured loop began */
static uint64_t bodies;     /* the bodies ended since the measured loop began */
static uint64_t filled;     /* of them, those with an instruction between their markers */
static int body_filled;     /* the body in progress is one of those */
static uint64_t loops;      /* lines written */
static FILE *out;

static void at_marker(unsigned int vcpu_index, void *userdata)
{
    int which = (int)(intptr_t)userdata;
    (void)vcpu_index;
    switch (which) {
    case BODY_BEGINS:
    case EMPTY_BODY_BEGINS:
        body_start = executed;
        body_filled = which == BODY_BEGINS;
        in_body = 1;
        break;
    case BODY_ENDS:
        if (in_body) {
            summed += executed - body_start;
            bodies++;
            filled += (uint64_t)body_filled;
            in_body = 0;
        }
        break;
    case LOOP_BEGINS:
        summed = 0;
        bodies = 0;
        filled = 0;
        in_body = 0;
        break;
    default:
        fprintf(out, "%" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", ++loops, summed, bodies,
                filled);
        fflush(out);
        break;
    }
}

/* ---- The markers' table, read from the image's `.rho_marks` section ---- */
struct mark {
    uint64_t address;
    int kind;
};
static struct mark *marks; /* sorted by address */
static size_t mark_count;

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint32_t le16(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

static int by_address(const void *a, const void *b)
{
    uint64_t x = ((const struct mark *)a)->address, y = ((const struct mark *)b)->address;
    return x < y ? -1 : x > y;
}

/* The whole of `path`, or 0 (with `*size` its length). */
static unsigned char *read_whole(const char *path, size_t *size)
{
    unsigned char *bytes = 0;
    long length;
    FILE *file = fopen(path, "rb");
    if (file == 0) {
        return 0;
    }
    if (fseek(file, 0, SEEK_END) == 0 && (length = ftell(file)) > 0 && fseek(file, 0, SEEK_SET) == 0) {
        bytes = malloc((size_t)length);
        if (bytes != 0 && fread(bytes, 1, (size_t)length, file) != (size_t)length) {
            free(bytes);
            bytes = 0;
        }
        *size = (size_t)length;
    }
    fclose(file);
    return bytes;
}

/* The table of `.rho_marks` in the ELF32 little-endian image `path`: 0 when read, else the
 * complaint (printed with the path). */
static const char *read_marks(const char *path)
{
    size_t size = 0, i, shoff, shentsize, shnum, shstrndx, names, names_size;
    const char *problem = 0;
    unsigned char *elf = read_whole(path, &size);
    if (elf == 0) {
        return "cannot read the image";
    }
    if (size < 52 || memcmp(elf, "\177ELF", 4) != 0 || elf[4] != 1 || elf[5] != 1) {
        problem = "not a 32-bit little-endian ELF image";
        goto done;
    }
    shoff = le32(elf + 32);
    shentsize = le16(elf + 46);
    shnum = le16(elf + 48);
    shstrndx = le16(elf + 50);
    if (shentsize < 40 || shstrndx >= shnum || shoff > size || shnum > (size - shoff) / shentsize) {
        problem = "its section headers lie outside the file";
        goto done;
    }
    names = le32(elf + shoff + shstrndx * shentsize + 16);
    names_size = le32(elf + shoff + shstrndx * shentsize + 20);
    if (names > size || names_size > size - names) {
        problem = "its section names lie outside the file";
        goto done;
    }
    problem = "no section .rho_marks (not built with rho/bench.h's counting loop, "
              "RHO_BENCH_MEASURE_INSTRUCTIONS)";
    for (i = 0; i < shnum; i++) {
        const unsigned char *header = elf + shoff + i * shentsize;
        size_t name = le32(header), offset = le32(header + 16), length = le32(header + 20), k;
        if (name >= names_size || strncmp((const char *)elf + names + name, ".rho_marks",
                                          names_size - name) != 0) {
            continue;
        }
        if (offset > size || length > size - offset || length % 8 != 0 || length == 0) {
            problem = "its .rho_marks section is not whole entries of two 32-bit words";
            goto done;
        }
        mark_count = length / 8;
        marks = malloc(mark_count * sizeof *marks);
        if (marks == 0) {
            problem = "out of memory";
            goto done;
        }
        for (k = 0; k < mark_count; k++) {
            uint32_t kind = le32(elf + offset + 8 * k + 4);
            if (kind < BODY_BEGINS || kind > LOOP_ENDS) {
                problem = "its .rho_marks section holds a kind that is not 1 to 4";
                goto done;
            }
            /* The low bit of an address in Thumb code says Thumb, not where it is. */
            marks[k].address = le32(elf + offset + 8 * k) & ~(uint64_t)1;
            marks[k].kind = (int)kind;
        }
        qsort(marks, mark_count, sizeof *marks, by_address);
        problem = 0;
        break;
    }
done:
    free(elf);
    return problem;
}

/* Which marker is at `address` (NOT_A_MARKER for none). */
static int marker_at(uint64_t address)
{
    size_t low = 0, high = mark_count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (marks[middle].address < address) {
            low = middle + 1;
        } else {
            high = middle;
        }
    }
    return low < mark_count && marks[low].address == address ? marks[low].kind : NOT_A_MARKER;
}

/* Which marker `insn` is, by its address; a body's begin marker right before a body's end marker
 * (nothing between them) is EMPTY_BODY_BEGINS. */
static int marker(const struct qemu_plugin_insn *insn)
{
    uint64_t address = qemu_plugin_insn_vaddr(insn);
    int which = marker_at(address);
    if (which == BODY_BEGINS && marker_at(address + qemu_plugin_insn_size(insn)) == BODY_ENDS) {
        return EMPTY_BODY_BEGINS;
    }
    return which;
}

/* Whether `insn` is the no-op the harness puts for a marker: on Thumb a move of a high register to
 * itself (0x46xx), on RISC-V `addi x0, x0, 0x52N` (a table of another image names other code). */
static int is_marker_instruction(const struct qemu_plugin_insn *insn)
{
    const unsigned char *bytes = qemu_plugin_insn_data(insn);
    size_t size = qemu_plugin_insn_size(insn);
    return (size == 2 && bytes[1] == 0x46) ||
           (size == 4 && bytes[0] == 0x13 && bytes[1] == 0x00 && (bytes[2] & 0x0F) == 0 &&
            bytes[3] == 0x52);
}

static void translated(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    size_t i, n = qemu_plugin_tb_n_insns(tb);
    (void)id;
    for (i = 0; i < n; i++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
        int which = marker(insn);
        if (which != NOT_A_MARKER && !is_marker_instruction(insn)) {
            fprintf(stderr,
                    "rho count plugin: the marker table names 0x%" PRIx64 ", which is not a marker "
                    "instruction: the image run is not the one given as elf=\n",
                    qemu_plugin_insn_vaddr(insn));
            exit(2);
        }
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

/* Two arguments: `out=PATH`, the file the totals are written to, and `elf=PATH`, the image run,
 * whose `.rho_marks` section says where the markers are. */
__attribute__((visibility("default"))) int qemu_plugin_install(qemu_plugin_id_t id,
                                                               const struct qemu_info_t *info,
                                                               int argc, char **argv)
{
    const char *out_path = 0, *elf_path = 0, *problem;
    int i;
    (void)info;
    for (i = 0; i < argc; i++) {
        if (strncmp(argv[i], "out=", 4) == 0) {
            out_path = argv[i] + 4;
        } else if (strncmp(argv[i], "elf=", 4) == 0) {
            elf_path = argv[i] + 4;
        } else {
            out_path = 0;
            break;
        }
    }
    if (out_path == 0 || elf_path == 0) {
        fprintf(stderr, "rho count plugin: expected two arguments, out=PATH and elf=PATH\n");
        return -1;
    }
    problem = read_marks(elf_path);
    if (problem != 0) {
        fprintf(stderr, "rho count plugin: %s: %s\n", elf_path, problem);
        return -1;
    }
    out = fopen(out_path, "w");
    if (out == 0) {
        fprintf(stderr, "rho count plugin: cannot write %s\n", out_path);
        return -1;
    }
    qemu_plugin_register_vcpu_tb_trans_cb(id, translated);
    qemu_plugin_register_atexit_cb(id, at_exit, 0);
    return 0;
}
