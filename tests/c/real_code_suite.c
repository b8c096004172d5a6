/* Real code as it is (issue 38): an unused variable (a warning, never an error: only rho's own
 * files are built with -Werror), assert() (abort() needs the C library's kill/getpid stubs on a
 * board) and a function written in assembly (real_code_add.S), built for the host and the boards
 * with no flag added. With -DREAL_CODE_ASSERT_FAILS, main prints with printf and then fails an
 * assert: the program ends as a host's does on SIGABRT (status 134), after the message. */
#include <assert.h>
#include <stdio.h>

#include <rho/bench.h>

/* real_code_add.S: a + b. */
int real_code_add(int a, int b);

static void bench_add_in_assembly(rho_bench_t *state)
{
    int left_over_from_debugging;
    int total = 0;
    int count = 0;
    RHO_BENCH_LOOP(state) {
        total = real_code_add(total, 1);
        ++count;
        RHO_BENCH_KEEP(total);
    }
    assert(total == count);
}

int main(int argc, char **argv)
{
#if defined(REAL_CODE_ASSERT_FAILS)
    printf("%s reaches the console\n", "printf");
    fflush(stdout);
    assert(argc == 0);
#endif
    rho_bench_suite_t suite = {0};
    RHO_BENCH_ADD(&suite, bench_add_in_assembly);
    return rho_bench_main(&suite, argc, argv);
}
