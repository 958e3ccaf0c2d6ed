/* Golden-file tests in inih's style: a program renders each input file of a fixtures folder as text
 * (what was parsed, or the bytes written) and the test compares that with the committed NAME.expected
 * beside the input, byte for byte. A change to the output is a change to the .expected files, reviewed
 * in the diff:
 *
 *   PROGRAM DIR            compare every DIR/<name><suffix> with DIR/<name><suffix>.expected (TAP)
 *   PROGRAM DIR --write    rewrite the .expected files from this build
 *
 * The program runs in DIR, so the messages it renders name the input by its file name alone and the
 * .expected files hold no path of the machine that wrote them. */
#ifndef KLAB_TEST_GOLDEN_H
#define KLAB_TEST_GOLDEN_H

#include <stdio.h>

/* Renders the input file `name` (in the current directory) to out. Returns 0, or -1 when the input
   itself is unusable (said on stderr): that file's test fails. */
typedef int (*golden_render)(const char *name, FILE *out);

/* The whole program: every file of argv[1] whose name ends in `suffix`, in name order. Returns the
   exit status: 0 when every rendering matched (or was written), 1 otherwise, 2 on bad arguments. */
int golden_main(int argc, char **argv, const char *suffix, golden_render render);

#endif
