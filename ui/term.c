#include "term.h"
#include "state.h"

#include <curses.h>
#include <fcntl.h>
#include <langinfo.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static SCREEN *screen;
static FILE *tty_in, *tty_out;
static int color_on;

void term_stop(void)
{
	if (!screen)
		return;
	endwin();
	delscreen(screen);
	screen = NULL;
	if (tty_in)
		fclose(tty_in);
	if (tty_out && tty_out != stdout)
		fclose(tty_out);
	tty_in = tty_out = NULL;
}

int term_start(int want_color, int *unicode, char *err, size_t errlen)
{
	setlocale(LC_ALL, "");
	*unicode = !strcmp(nl_langinfo(CODESET), "UTF-8");
	tty_in = fopen("/dev/tty", "r");
	tty_out = isatty(1) ? stdout : fopen("/dev/tty", "w");
	if (!tty_in || !tty_out) {
		snprintf(err, errlen, "the dashboard needs a terminal (without "
				      "one, run.py prints the text report, and "
				      "cudalab-ui --dump ROWSxCOLS prints a screen)");
		return -1;
	}
	screen = newterm(NULL, tty_out, tty_in);
	if (!screen) {
		snprintf(err, errlen, "cannot start the terminal (TERM=%s)",
			 getenv("TERM") ? getenv("TERM") : "unset");
		return -1;
	}
	atexit(term_stop);
	set_term(screen);
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	curs_set(0);
	set_escdelay(25);
	color_on = want_color && has_colors();
	if (color_on) {
		start_color();
		use_default_colors();
		init_pair(ST_PASS, COLOR_GREEN, -1);
		init_pair(ST_FAIL, COLOR_RED, -1);
		init_pair(ST_WARN, COLOR_YELLOW, -1);
		init_pair(ST_ACCENT, COLOR_CYAN, -1);
	}
	return 0;
}

void term_size(int *rows, int *cols)
{
	getmaxyx(stdscr, *rows, *cols);
}

static attr_t attr_of(int style)
{
	switch (style) {
	case ST_BOLD:
		return A_BOLD;
	case ST_DIM:
		return A_DIM;
	case ST_SELECTED:
		return A_REVERSE;
	case ST_PASS:
	case ST_FAIL:
	case ST_WARN:
	case ST_ACCENT:
		if (color_on)
			return COLOR_PAIR(style) |
			       (style == ST_FAIL ? A_BOLD : A_NORMAL);
		/* monochrome: failures bold, the rest plain */
		return style == ST_FAIL ? A_BOLD | A_UNDERLINE
		       : style == ST_ACCENT ? A_BOLD
					    : A_NORMAL;
	default:
		return A_NORMAL;
	}
}

void term_draw(const struct canvas *c)
{
	int rows, cols;
	getmaxyx(stdscr, rows, cols);
	erase();
	for (int r = 0; r < c->rows && r < rows; r++) {
		for (int x = 0; x < c->cols && x < cols; x++) {
			const struct cell *cell = &c->cells[r * c->cols + x];
			/* the last cell of the screen cannot take a glyph
			 * without scrolling on some terminals */
			if (r == rows - 1 && x == cols - 1)
				break;
			attrset(attr_of(cell->style));
			mvaddstr(r, x, cell->glyph);
		}
	}
	attrset(A_NORMAL);
	refresh();
}

int term_key(void)
{
	int k = getch();
	switch (k) {
	case ERR:
		return -1;
	case KEY_RESIZE:
		return TERM_RESIZE;
	case KEY_UP:
		return UK_UP;
	case KEY_DOWN:
		return UK_DOWN;
	case KEY_LEFT:
		return UK_LEFT;
	case KEY_RIGHT:
		return UK_RIGHT;
	case KEY_ENTER:
	case '\n':
	case '\r':
		return UK_ENTER;
	case KEY_BACKSPACE:
	case 127:
	case 8:
		return UK_BACK;
	case KEY_PPAGE:
		return UK_PGUP;
	case KEY_NPAGE:
		return UK_PGDN;
	case KEY_HOME:
		return UK_HOME;
	case KEY_END:
		return UK_END;
	default:
		return k;
	}
}

int term_fd(void)
{
	return tty_in ? fileno(tty_in) : 0;
}
