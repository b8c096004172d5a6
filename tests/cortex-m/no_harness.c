/* Size fixture: the port alone (start-up, semihosting, exit), no harness. The baseline that
 * empty_suite.c is compared against. */
int main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return 0;
}
