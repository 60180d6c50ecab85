/* The help view: every key. */
#include "panels.h"

void panel_help(struct canvas *c, int top, int bottom)
{
	static const char *const lines[] = {
		"Keys",
		"  ↑ ↓  j k      move between steps (scroll in details)",
		"  Enter         details of the selected step: checks, wrong",
		"                results, compiler messages, resources, hint",
		"  Esc Backspace back to the steps",
		"  PgUp PgDn     scroll the details",
		"  r             rerun the selected step",
		"  R             rerun the whole lab",
		"  ← →           the previous / next lab",
		"  e             explain the selected step: its build, its",
		"                counters (Nsight Compute), the lab's hints",
		"  ?             this help",
		"  q             quit (the terminal is restored)",
		"",
		"The bar is the step's bandwidth as a share of this GPU's copy",
		"bandwidth (the ceiling); the marker is the step's threshold.",
		"Times are medians of event-timed calls with the L2 flushed.",
	};
	int row = top;
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]) && row < bottom;
	     i++)
		canvas_text(c, row++, 2, lines[i], i == 0 ? ST_BOLD : ST_NORMAL,
			    -1);
}
