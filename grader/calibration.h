/*
 * calibration — what the lab's reference solutions measure on this GPU.
 *
 * Why: a share of the copy bandwidth does not carry from one GPU to another
 * (the transpose reference is 55.7 % of copy on an H100 and 42.6 % on an
 * H200: a step limited by latency or instructions gets a smaller share of a
 * faster memory). So a timing bar is relative to the same step's reference
 * solution timed on the same kind of GPU by the same harness at the timed
 * size:
 *
 *   pct_of_reference = 100 x (the step's GB/s) / (the reference's GB/s)
 *
 * and one lab.json holds for every GPU. The reference never runs in the
 * student's process (a hostile submission could read it there); it is timed
 * in a run of its own, under the same GPU lock, and its figure is kept here.
 *
 * Where a figure comes from, first found wins:
 *   1. STATE/calibration-KEY-DRIVER.json   made on this machine: by `run.py
 *      calibrate`, or the first time a step needs a figure nobody has
 *      (calibration_measure_step in grade.c times the reference then, once);
 *   2. ROOT/calibration/KEY.json           the GPUs the project measured,
 *      kept in the tree (made with `run.py calibrate --into calibration`).
 * KEY names the kind of GPU: its name, SM count and memory, e.g.
 * "NVIDIA-H100-80GB-HBM3-132sm-79g" (calibration_key). A file is
 *   {"gpu": {name cc sm_count mem_bytes driver}, "commit", "measured",
 *    "labs": {LAB: {STEP: {gbps median_us ci_rel n worst_gbps?}}}}
 * ci_rel is the relative half-width of the median's confidence interval
 * (or, from a harness that reports none, the coefficient of variation).
 *
 * Noise: the figure's uncertainty (pct_of_reference_noise, same unit) is
 * the two intervals combined plus CALIBRATION_SPREAD, the run-to-run spread
 * of one kernel between processes and days on one GPU; a check whose margin
 * is inside it is measured again, then "too close to call" (verdict.h).
 */
#ifndef CUDALAB_CALIBRATION_H
#define CUDALAB_CALIBRATION_H

#include <jansson.h>
#include <stddef.h>

/* Relative spread between separate runs of one kernel on one GPU. */
#define CALIBRATION_SPREAD 0.015

/* The kind of GPU a device event describes, as a file-name-safe key. */
void calibration_key(const json_t *device, char *out, size_t len);

/*
 * The reference figure for LAB/STEP on this device (a new reference), or
 * NULL. *where gets "this machine" or "the tree" (static strings).
 */
json_t *calibration_find(const char *root, const char *state_dir,
			 const json_t *device, const char *lab,
			 const char *step, const char **where);

/*
 * An entry from a reference run's metrics (median_us gbps, and
 * median_ci_rel / gbps_worst when present), or NULL when they hold no
 * timing.
 */
json_t *calibration_entry_from(const json_t *metrics, double n);

/*
 * Add or replace LAB/STEP in DIR's file for this device (DIR is the state
 * folder, or ROOT/calibration with in_tree set: then the file is KEY.json).
 * commit may be NULL. Returns 0, or -1 with err.
 */
int calibration_store(const char *dir, int in_tree, const json_t *device,
		      const char *lab, const char *step, const json_t *entry,
		      const char *commit, char *err, size_t errlen);

/*
 * Set pct_of_reference (and _worst, and their _noise) in metrics from the
 * step's own timing metrics and the reference entry. Nothing when either
 * has no timing.
 */
void calibration_apply(const json_t *entry, json_t *metrics);

#endif
