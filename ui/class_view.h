/*
 * class_view — the dashboard's class view: a classbook (common/classbook.h)
 * and where the viewer is in it (the selected step, the scroll of its
 * student list). class_view_key() moves the position (keys are characters
 * or state.h's UK_* codes) and returns 1 when the key quits. The position
 * is kept inside the book's bounds; panel_class.c draws the view.
 */
#ifndef CUDALAB_UI_CLASS_VIEW_H
#define CUDALAB_UI_CLASS_VIEW_H

#include "classbook.h"

struct class_view {
	struct classbook book;
	int selected, scroll;
};

int class_view_key(struct class_view *v, int key);

#endif
