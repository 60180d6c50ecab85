#include "advice.h"
#include "facts.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum op { LT, LE, GT, GE, EQ, NE };

struct cond {
	char fact[64];
	enum op op;
	char value[64];
	double number;
	int is_number;
};

static const char *skip_space(const char *p)
{
	while (isspace((unsigned char)*p))
		p++;
	return p;
}

/* One word of [A-Za-z0-9_.+-] into buf; returns the end or NULL. */
static const char *word(const char *p, char *buf, size_t len)
{
	size_t n = 0;
	p = skip_space(p);
	while (*p && (isalnum((unsigned char)*p) || strchr("_.+-", *p))) {
		if (n + 1 >= len)
			return NULL;
		buf[n++] = *p++;
	}
	buf[n] = '\0';
	return n ? p : NULL;
}

/* Parse the condition at p into c; returns the end or NULL with err. */
static const char *parse_cond(const char *p, struct cond *c, char *err,
			      size_t errlen)
{
	static const struct {
		const char *text;
		enum op op;
	} ops[] = {{"<=", LE}, {">=", GE}, {"==", EQ}, {"!=", NE},
		   {"<", LT}, {">", GT}};
	p = word(p, c->fact, sizeof(c->fact));
	if (!p) {
		snprintf(err, errlen, "expected a fact name");
		return NULL;
	}
	if (fact_usable(c->fact, FACT_ADVICE, err, errlen) < 0)
		return NULL;
	int is_word = fact_find(c->fact)->kind == FACT_WORD;
	p = skip_space(p);
	size_t i;
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strncmp(p, ops[i].text, strlen(ops[i].text)))
			break;
	if (i == sizeof(ops) / sizeof(ops[0])) {
		snprintf(err, errlen, "%s: expected < <= > >= == or !=", c->fact);
		return NULL;
	}
	c->op = ops[i].op;
	p = word(p + strlen(ops[i].text), c->value, sizeof(c->value));
	if (!p) {
		snprintf(err, errlen, "%s: expected a value", c->fact);
		return NULL;
	}
	char *end;
	c->number = strtod(c->value, &end);
	c->is_number = *end == '\0';
	if (is_word && (c->is_number || (c->op != EQ && c->op != NE))) {
		snprintf(err, errlen, "%s is a word: compare it with == or != "
				      "to a word", c->fact);
		return NULL;
	}
	if (!is_word && !c->is_number) {
		snprintf(err, errlen, "%s is a number: \"%s\" is not", c->fact,
			 c->value);
		return NULL;
	}
	return p;
}

/* Calls fn for each condition; stops at the first error. */
static int each_cond(const char *when, int (*fn)(const struct cond *, void *),
		     void *arg, char *err, size_t errlen)
{
	const char *p = when;
	for (;;) {
		struct cond c;
		p = parse_cond(p, &c, err, errlen);
		if (!p)
			return -1;
		if (fn && fn(&c, arg))
			return 0;
		p = skip_space(p);
		if (!*p)
			return 0;
		if (strncmp(p, "and", 3) || !isspace((unsigned char)p[3])) {
			snprintf(err, errlen, "expected \"and\" before \"%s\"", p);
			return -1;
		}
		p += 3;
	}
}

int advice_check(const char *when, char *err, size_t errlen)
{
	if (!when || !*skip_space(when)) {
		snprintf(err, errlen, "empty condition");
		return -1;
	}
	return each_cond(when, NULL, NULL, err, errlen);
}

struct eval {
	json_t *facts;
	enum advice_match result;
	char *missing;
	size_t missing_len;
};

static int holds(enum op op, double d)
{
	switch (op) {
	case LT: return d < 0;
	case LE: return d <= 0;
	case GT: return d > 0;
	case GE: return d >= 0;
	case EQ: return d == 0;
	case NE: return d != 0;
	}
	return 0;
}

/* Returns 1 (stop) when a condition is false. */
static int eval_cond(const struct cond *c, void *arg)
{
	struct eval *e = arg;
	json_t *v = json_object_get(e->facts, c->fact);
	if (!v) {
		if (e->result == ADVICE_TRUE) {
			e->result = ADVICE_UNKNOWN;
			snprintf(e->missing, e->missing_len, "%s", c->fact);
		}
		return 0;
	}
	int ok;
	if (json_is_string(v)) {
		int same = !strcmp(json_string_value(v), c->value);
		ok = c->op == EQ ? same : c->op == NE ? !same : 0;
	} else {
		double d = json_number_value(v) - c->number;
		ok = json_is_number(v) && holds(c->op, d);
	}
	if (!ok) {
		e->result = ADVICE_FALSE;
		return 1;
	}
	return 0;
}

enum advice_match advice_eval(const char *when, json_t *facts, char *missing,
			      size_t missing_len)
{
	char err[160];
	struct eval e = {facts, ADVICE_TRUE, missing, missing_len};
	if (missing_len)
		missing[0] = '\0';
	if (each_cond(when, eval_cond, &e, err, sizeof(err)) < 0)
		return ADVICE_FALSE;
	return e.result;
}
