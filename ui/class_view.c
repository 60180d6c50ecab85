#include "class_view.h"
#include "state.h"

int class_view_key(struct class_view *v, int key)
{
	const struct classbook *b = &v->book;
	switch (key) {
	case 'q':
	case 'Q':
		return 1;
	case UK_UP:
	case 'k':
		if (v->selected > 0)
			v->selected--, v->scroll = 0;
		break;
	case UK_DOWN:
	case 'j':
		if (v->selected + 1 < b->nsteps)
			v->selected++, v->scroll = 0;
		break;
	case UK_HOME:
		v->selected = 0, v->scroll = 0;
		break;
	case UK_END:
		v->selected = b->nsteps ? b->nsteps - 1 : 0, v->scroll = 0;
		break;
	case UK_PGDN:
	case ' ':
		v->scroll += 5;
		break;
	case UK_PGUP:
		v->scroll = v->scroll > 5 ? v->scroll - 5 : 0;
		break;
	default:
		break;
	}
	/* the renderer clamps scroll to what the list and the screen allow */
	if (b->nsteps && v->scroll >= b->steps[v->selected].nstudents)
		v->scroll = b->steps[v->selected].nstudents - 1;
	if (v->scroll < 0)
		v->scroll = 0;
	return 0;
}
