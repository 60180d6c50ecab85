/* event: the JSON-lines schema's parser rejects what is not an event. */
#include "check.h"
#include "event.h"

#include <stdlib.h>
#include <string.h>

int main(void)
{
	char err[256];
	json_t *ev = event_parse("{\"event\":\"case\",\"name\":\"n=1\",\"ok\":true}",
				 err, sizeof(err));
	CHECK(ev != NULL, "a case event parses");
	CHECK(!strcmp(event_kind(ev), "case"), "its kind is read back");
	json_decref(ev);

	CHECK(!event_parse("PASS", err, sizeof(err)) && strstr(err, "not JSON"),
	      "plain text is not an event (%s)", err);
	CHECK(!event_parse("[1,2]", err, sizeof(err)) &&
		      strstr(err, "not a JSON object"),
	      "an array is not an event");
	CHECK(!event_parse("{\"event\":\"verdict_pass\"}", err, sizeof(err)) &&
		      strstr(err, "unknown event kind"),
	      "an unknown kind is rejected by name");
	CHECK(!event_parse("{\"ok\":true}", err, sizeof(err)),
	      "an object without a kind is rejected");
	CHECK(!event_parse("{\"event\":\"case\",\"event\":\"case\"}", err,
			   sizeof(err)),
	      "duplicate keys are rejected (no smuggled second value)");

	char *buf;
	size_t len;
	FILE *f = open_memstream(&buf, &len);
	json_t *w = json_pack("{s:s, s:s}", "event", "todo", "file", "a\nb.cu");
	CHECK(event_write(f, w) == 0, "an event writes");
	fclose(f);
	CHECK(len > 0 && buf[len - 1] == '\n' && !memchr(buf, '\n', len - 1),
	      "one event is exactly one line, even with a newline in a value");
	json_decref(w);
	free(buf);
	return check_done();
}
