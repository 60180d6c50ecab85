/*
 * harness_private — what the lab driver (labdriver.cu) needs from the
 * runtime's toolkit (harness.cu) and nothing a lab needs: option parsing
 * apart from device start-up, the student-process side of errors, the
 * launch recorder's kernel list, the L2 flush and NVML reading of the
 * timing loop. Not included by labs.
 */
#ifndef CUDALAB_HARNESS_PRIVATE_H
#define CUDALAB_HARNESS_PRIVATE_H

#include <cuda_runtime.h>
#include <stddef.h>

#include "gpustate.h"
#include "stats.h"

/* (not harness.h: the runtime includes this header, and the include
 * graph of common/ has no circle) */
struct hx_launch;

/* hx_init in three parts: the command line (no CUDA, no descriptors
 * opened but the result channel's FILE), then the device (lock, context,
 * properties, NVML). hx_lab_main forks between the two. */
void hx__parse_options(int argc, char **argv);
int hx__in_process(void);  /* --in-process was given */
int hx__result_fd(void);   /* the hidden result fd, -1 for stdout */
/* locked (may be NULL): called once the GPU lock is held, before this
 * process's context is made (the student's process makes its own then). */
void hx__device_start(void (*locked)(void));

/*
 * In the student's process: hx_emit writes nothing, and hx_die and
 * cudalab_todo hand their message to these functions (which reply to the
 * judge and end the process). Set once, right after fork.
 */
struct hx__student_side {
	void (*die)(const char *kind, const char *message);
	void (*todo)(const char *file, int line);
};
void hx__become_student(const struct hx__student_side *s);
int hx__is_student(void);

/* The message hx_check_call would give for err after `what` (advice and a
 * refused launch's explanation included). */
void hx__call_error_text(cudaError_t err, int launching, const char *what,
			 char *buf, size_t len);

/* The recorder's distinct kernels of the last window (symbols), and
 * whether there were more than it keeps. */
int hx__launch_symbols(const char **out, int max);
/* How many kernels student code has launched on a stream other than the
 * legacy default one since the process began (any launch, recorded or
 * not): the judge's every timed call is checked by the difference. */
unsigned long long hx__off_stream_launches(void);
int hx__launch_kernels_complete(void);
/* hx_launch_report with the kernel list given (the judge reports launches
 * recorded in the student's process). */
int hx__launch_report(const struct hx_launch *l, int count, double elements,
		      const char *const *symbols, int nsymbols,
		      int kernels_complete);

/* Called by hx_buffer_free's pool before it gives an allocation back to the
 * driver (cudaFree), so the student's process can drop its mapping. */
void hx__on_buffer_release(void (*fn)(void *alloc));
/* The bytes hx_buffer_new allocates for a buffer (guards and rounding). */
size_t hx__alloc_total(size_t bytes, size_t offset);

/* The timing loop's pieces (harness.cu). */
void hx__flush_l2(int round);
double hx__now_us(void);
void hx__stop_rule(struct stop_rule *rule, size_t *fixed);
void hx__read_gpu(unsigned long long since, struct gpu_reading *seen);
void hx__add_timing_s(double s);
/* Processes of this step on the GPU: 2 when the student's process runs
 * beside the judge (gpustate's "ours" counts both). */
void hx__set_own_processes(int n);
int hx__own_processes(void);

#endif
