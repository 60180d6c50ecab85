/*
 * term — the only code that talks to the terminal (ncurses).
 *
 * term_start() enters the dashboard (alternate screen, no echo, keypad,
 * colours when the terminal has them and NO_COLOR is unset); keys are read
 * from /dev/tty, so the events may arrive on standard input. term_stop()
 * restores the terminal; it is idempotent and registered with atexit, so
 * the terminal is restored on every way out, the signal handlers included.
 * term_draw() copies a canvas to the screen; term_key() returns a key
 * (characters, or state.h's UK_* names), TERM_RESIZE, or -1 for none.
 */
#ifndef CUDALAB_UI_TERM_H
#define CUDALAB_UI_TERM_H

#include "canvas.h"

#define TERM_RESIZE 2000

/* Returns 0, or -1 with err (no terminal). *unicode says whether the
 * locale is UTF-8 (block glyphs can be drawn). */
int term_start(int want_color, int *unicode, char *err, size_t errlen);
void term_stop(void);
void term_size(int *rows, int *cols);
void term_draw(const struct canvas *c);
int term_key(void);
/* The terminal's input descriptor, for poll(). */
int term_fd(void);

#endif
