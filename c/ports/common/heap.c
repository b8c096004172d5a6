/*
 * The heap's reset between benchmarks (a counted build, RHO_BENCH_PORT_HEAP_RESET): every benchmark
 * starts from the allocator's state when the first one began, whatever ran before it, so a count is
 * the same alone (--filter), in a share (--shard) and in the whole suite. A benchmark that allocates
 * after another churned the allocator otherwise walks that one's free list: 276 instructions an
 * iteration against 252 alone, on the Cortex-M4.
 *
 * Both C libraries of the built-in boards (newlib-nano on Arm, picolibc on RISC-V) allocate with
 * nano-malloc, whose state is its free list (`__malloc_free_list`, and picolibc's
 * `__malloc_sbrk_top`, the end of what it took from sbrk) and the break. At the first benchmark's
 * start the reset marks them and what is in use (mallinfo); before each later benchmark, when what
 * is in use is what was at the mark (every block allocated since has been freed), it puts them back:
 * an empty free list and the break where it was, so the next allocation is carved as the first one
 * was. It resets nothing when the free list was not empty at the mark (blocks freed before the
 * benchmarks began would be carved differently) or when a benchmark kept blocks.
 */
#include <malloc.h>
#include <stddef.h>

void *sbrk(ptrdiff_t increment);
void rho_bench_port_heap_reset(void);

/* nano-malloc's own (newlib-nano's nano-mallocr.c, picolibc's nano-malloc.c). */
extern void *__malloc_free_list;
#if defined(__PICOLIBC__)
extern char *__malloc_sbrk_top;
#endif

static int marked;     /* the first benchmark began */
static int resettable; /* the free list was empty then */
static char *break_mark;
static size_t in_use_mark;
#if defined(__PICOLIBC__)
static char *top_mark;
#endif

void rho_bench_port_heap_reset(void)
{
    size_t in_use = (size_t)mallinfo().uordblks;
    char *now;
    if (!marked) {
        marked = 1;
        resettable = __malloc_free_list == 0;
        break_mark = sbrk(0);
        in_use_mark = in_use;
#if defined(__PICOLIBC__)
        top_mark = __malloc_sbrk_top;
#endif
        return;
    }
    if (!resettable || in_use != in_use_mark) {
        return;
    }
    __malloc_free_list = 0;
#if defined(__PICOLIBC__)
    __malloc_sbrk_top = top_mark;
#endif
    now = sbrk(0);
    if (now != break_mark) {
        (void)sbrk(break_mark - now);
    }
}
