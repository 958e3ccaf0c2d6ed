/* A number as printf's "%.<d>f" writes it, for d from 0 to 3, and "%.<p>g", without printf: a report over a million
 * rows writes hundreds of millions of them (chart coordinates, table cells), and printf's exact
 * conversion was most of its time. */
#ifndef KLAB_FIXED_H
#define KLAB_FIXED_H

#define FIXED_MAX 320 /* bytes fixed_text may write, its NUL included: DBL_MAX has 309 digits */

/* Writes v into buf as snprintf(buf, FIXED_MAX, "%.*f", d, v) would, byte for byte; returns the
   length. */
int fixed_text(char *buf, double v, int d);

/* Writes v into buf as snprintf(buf, FIXED_MAX, "%.<p>g", v) would, byte for byte, for p from 1 to 15;
   returns the length. Through fixed_text where the figure has at most three decimals, else printf. */
int fixed_general(char *buf, double v, int p);

#endif
