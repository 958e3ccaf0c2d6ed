/* Text from outside klab (an INI file, a plugin's descriptor or error, a CSV read back) on the
 * terminal. Such text may hold control characters, and an escape sequence in a plugin's summary would
 * be obeyed by the terminal, not shown. Everything printed that did not come from klab itself goes
 * through text_escape: control characters (C0, DEL and the C1 range) and bytes that are not valid
 * UTF-8 are written as \xNN; every other character, UTF-8 included, is kept. */
#ifndef KLAB_TEXT_H
#define KLAB_TEXT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

/* Copies src into dst (len bytes, always NUL-terminated when len > 0) with each control character,
   DEL, C1 control and invalid UTF-8 byte written as \xNN. An output that does not fit is cut before
   the character or escape that would not fit whole. Returns the length the whole result needs, as
   snprintf does. */
size_t text_escape(char *dst, size_t len, const char *src);

/* The bytes at the start of s that text_escape keeps as they are: the offset of the first byte it
   would escape, or strlen(s). */
size_t text_plain_length(const char *s);

/* fprintf for lines that carry outside text: each %s (and %c) argument goes through text_escape
   before it is formatted (so a width applies to what is shown), and the format itself, klab's own,
   is written as it is. Returns the bytes written, or -1. */
int text_printf(FILE *fp, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
int text_vfprintf(FILE *fp, const char *fmt, va_list ap);

#endif
