/* gpustate: NVML readings (recorded in tests/fixtures/nvml) → the condition,
 * the gpu_state event, and whether a failed timing audit is the step's fault. */
#include "check.h"
#include "device.h"
#include "gpustate.h"

#include <string.h>

static json_t *readings;

static enum gpu_condition judge(const char *name, struct gpu_reading *r,
				char *why, size_t len)
{
	json_t *o = json_object_get(readings, name);
	if (!o)
		printf("# no reading %s in the fixture\n", name);
	gpustate_from_json(o, r);
	return gpustate_judge(r, why, len);
}

int main(void)
{
	json_error_t jerr;
	readings = json_loads(check_fixture("nvml", "readings.json"), 0, &jerr);
	CHECK(readings != NULL, "the recorded readings load");
	struct gpu_reading r;
	char why[512];

	CHECK(judge("ours", &r, why, sizeof(why)) == GPU_OURS && !why[0],
	      "one active process (us) at full clocks: the GPU was ours");
	CHECK(judge("queued_students", &r, why, sizeof(why)) == GPU_OURS,
	      "8 contexts but 1 active: other students waiting for the lock "
	      "do not make the GPU busy");
	CHECK(gpustate_audit_trusted(&r),
	      "and a failed audit there is the step's own doing (fail stands)");

	CHECK(judge("busy", &r, why, sizeof(why)) == GPU_BUSY &&
		      strstr(why, "GPU busy") && strstr(why, "2 processes"),
	      "two active processes: busy, with the count (%s)", why);
	CHECK(!gpustate_audit_trusted(&r),
	      "and a failed audit then is not the step's fault");
	json_t *ev = gpustate_event(&r, GPU_BUSY, why, 3, 1);
	CHECK(!strcmp(json_string_value(json_object_get(ev, "event")),
		      "gpu_state") &&
		      !strcmp(json_string_value(json_object_get(ev, "condition")),
			      "busy") &&
		      json_integer_value(json_object_get(ev, "active_processes")) ==
			      2 &&
		      json_integer_value(json_object_get(ev, "processes")) == 3 &&
		      json_is_true(json_object_get(ev, "final")) &&
		      json_integer_value(json_object_get(ev, "attempt")) == 3,
	      "the gpu_state event carries the condition, the counts and the "
	      "attempt");
	struct gpu_reading back;
	gpustate_from_json(ev, &back);
	CHECK(back.active_processes == 2 && back.processes == 3 && back.nvml,
	      "an event reads back as the same reading");
	json_decref(ev);

	/* a step of two processes (the judge and the student's process,
	 * harness.h): both are ours, a third is someone else */
	r.own_processes = 2;
	CHECK(gpustate_judge(&r, why, sizeof(why)) == GPU_OURS &&
		      gpustate_audit_trusted(&r),
	      "two active processes of a two-process step: ours (%s)", why);
	r.active_processes = 3;
	CHECK(gpustate_judge(&r, why, sizeof(why)) == GPU_BUSY &&
		      strstr(why, "3 processes") && strstr(why, "2 of them") &&
		      !gpustate_audit_trusted(&r),
	      "a third active process: busy, naming both counts (%s)", why);
	ev = gpustate_event(&r, GPU_BUSY, why, 1, 0);
	gpustate_from_json(ev, &back);
	CHECK(back.own_processes == 2,
	      "the event carries own_processes and reads back");
	json_decref(ev);
	r.own_processes = 0;
	r.active_processes = 2;
	CHECK(gpustate_judge(&r, why, sizeof(why)) == GPU_BUSY,
	      "own_processes 0 (an old reading) counts as one");

	CHECK(judge("thermal", &r, why, sizeof(why)) == GPU_THROTTLED &&
		      strstr(why, "1215 of 1980 MHz") &&
		      strstr(why, "hw_thermal_slowdown"),
	      "thermal slowdown: throttled, with the clocks and the reason (%s)",
	      why);
	ev = gpustate_event(&r, GPU_THROTTLED, why, 1, 0);
	CHECK(strstr(json_string_value(json_object_get(ev, "clock_reason_names")),
		     "hw_slowdown") != NULL,
	      "the event names the reason bits");
	json_decref(ev);
	CHECK(judge("power_cap_slow", &r, why, sizeof(why)) == GPU_THROTTLED &&
		      strstr(why, "sw_power_cap"),
	      "power cap with the SM clock at 71%% of max: throttled");
	CHECK(judge("power_cap_fast", &r, why, sizeof(why)) == GPU_OURS,
	      "power cap with the clock at 95%% of max: not throttled");
	CHECK(judge("app_clocks", &r, why, sizeof(why)) == GPU_OURS,
	      "idle and applications-clocks reasons are settings, not "
	      "throttling, whatever the clock");

	CHECK(judge("contexts_no_samples", &r, why, sizeof(why)) == GPU_OURS,
	      "no activity samples: contexts alone do not make it busy");
	CHECK(!gpustate_audit_trusted(&r),
	      "but then a failed audit with other contexts present is not "
	      "trusted");
	judge("alone_no_samples", &r, why, sizeof(why));
	CHECK(gpustate_audit_trusted(&r),
	      "our context alone on the GPU: a failed audit is trusted");

	CHECK(judge("no_nvml", &r, why, sizeof(why)) == GPU_OURS &&
		      gpustate_audit_trusted(&r),
	      "without NVML nothing is seen and nothing is blamed on the GPU");
	ev = gpustate_event(&r, GPU_OURS, "", 1, 0);
	CHECK(!json_is_true(json_object_get(ev, "nvml")) &&
		      strstr(json_string_value(json_object_get(ev, "nvml_error")),
			     "libnvidia-ml"),
	      "the event says why NVML gave nothing");
	json_decref(ev);

	char names[256];
	gpustate_reason_names(0x1 | 0x4 | 0x40, names, sizeof(names));
	CHECK(!strcmp(names, "idle, sw_power_cap, hw_thermal_slowdown"),
	      "reason bits by name (%s)", names);

	/* the copy ceiling's cache: used only when measured on a GPU of our
	 * own, less than a day ago */
	time_t now = 1800000000;
	json_t *c = json_pack("{s:f, s:s, s:f}", "copy_gbps", 2945.0,
			      "copy_condition", "ours", "copy_measured_at",
			      (double)(now - 3600));
	CHECK(device_ceiling_fresh(c, now), "a clean ceiling an hour old is used");
	CHECK(!device_ceiling_fresh(c, now + 2 * 86400),
	      "two days old: measured again");
	json_object_set_new(c, "copy_condition", json_string("busy"));
	CHECK(!device_ceiling_fresh(c, now),
	      "measured while the GPU was busy: measured again");
	json_object_del(c, "copy_condition");
	CHECK(!device_ceiling_fresh(c, now),
	      "a cache from before these rules: measured again");
	json_decref(c);

	/* the real thing, where there is one: no GPU here means no NVML or
	 * no such GPU, and the error says which */
	char err[256] = "";
	unsigned char uuid[16] = {0};
	struct gpustate *g = gpustate_open(uuid, err, sizeof(err));
	CHECK(g || strstr(err, "NVML"),
	      "opening NVML without it fails with a reason (%s)", err);
	gpustate_read(g, gpustate_now_us(), &r);
	CHECK(g ? r.nvml : !r.nvml, "a reading says whether NVML answered");
	gpustate_close(g);
	json_decref(readings);
	return check_done();
}
