# cudalab — `make` builds everything into build/, `make test` runs the
# project's own tests (the GPU suite too when a CUDA device is present),
# `make clean` removes build/. Set-up (system packages) is checked first by
# `python3 run.py setup`, which installs them as root or prints the command.
# `make BUILD=DIR` builds into DIR instead of build/ (run.py does this when
# the checkout is not writable for the user: a shared or read-only install).

BUILD   ?= build
CC      ?= cc
NVCC    ?= nvcc
PYTHON  ?= python3
# -Wno-format-truncation: messages are bounded with snprintf on purpose.
CFLAGS  ?= -O2 -g
CFLAGS  += -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Wno-format-truncation \
           -Icommon -Igrader -MMD -MP
LDLIBS  := -ljansson -lm -lpthread -ldl -lstdc++
# devprobe's arch: the GPU of this machine when this nvcc builds for it, else
# sm_90 (no GPU, e.g. in CI; or a GPU this nvcc cannot build for, which
# devprobe still describes: its facts need no kernel, and the grader then
# says NOT GRADED with the toolkit's limit). PTX for compute_75 rides along,
# so a build/ carried to another GPU still runs its copy kernel. Step
# programs get their arch from the grader (the device's, or CUDALAB_ARCH).
NVCC_ARCHS := $(shell $(NVCC) --list-gpu-code 2>/dev/null)
GPU_ARCH   := $(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null \
               | head -n1 | tr -d '. ' | sed -n 's/^\([0-9][0-9]*\)$$/sm_\1/p')
CUDA_ARCH  ?= $(or $(filter $(GPU_ARCH),$(NVCC_ARCHS)),sm_90)
NVCCFLAGS := -gencode arch=compute_$(CUDA_ARCH:sm_%=%),code=$(CUDA_ARCH) \
             -gencode arch=compute_75,code=compute_75 -std=c++17 -O3 -Icommon \
             -Xcompiler=-Wall,-Wextra,-Werror,-Wno-format-truncation
WRAP      := -Xlinker=--wrap=__cudaLaunchKernel -Xlinker=--wrap=cudaLaunchKernel \
             -Xlinker=--wrap=cudaLaunchKernelExC \
             -Xlinker=--wrap=cudaLaunchCooperativeKernel

COMMON_SRC := common/demangle.c common/gpulock.c common/gpustate.c common/advice.c common/capability.c common/classbook.c common/stats.c common/event.c common/facts.c common/manifest.c common/jsonl.c common/runner.c common/strvec.c \
              common/strbuf.c
GRADER_SRC := grader/paths.c grader/hash.c grader/compiler_report.c \
              grader/ptx.c grader/build.c grader/device.c grader/grade.c \
              grader/report.c grader/results.c grader/verdict.c grader/profiler.c \
              grader/lint.c grader/sandbox.c grader/batch.c grader/gradebook.c grader/fsutil.c \
              grader/explain.c grader/roofline.c grader/sass.c grader/calibration.c grader/objcheck.c grader/objcheck_host.c grader/objcheck_text.c grader/ppview.c
UI_SRC     := ui/canvas.c ui/state.c ui/draw.c ui/render.c ui/panel_header.c \
              ui/panel_steps.c ui/panel_details.c ui/panel_explain.c ui/panel_help.c \
              ui/panel_class.c ui/class_view.c \
              ui/source.c ui/term.c
COMMON_OBJ := $(COMMON_SRC:%.c=$(BUILD)/%.o)
UI_OBJ     := $(UI_SRC:%.c=$(BUILD)/%.o)
GRADER_OBJ := $(GRADER_SRC:%.c=$(BUILD)/%.o)
UNIT_SRC   := $(wildcard tests/unit/test_*.c)
UNIT_BIN   := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
FIXTURE_SRC := $(wildcard tests/programs/*.c)
FIXTURE_BIN := $(FIXTURE_SRC:tests/programs/%.c=$(BUILD)/tests/programs/%)

all: $(BUILD)/cudalab-grader $(BUILD)/cudalab-box-exec $(BUILD)/cudalab-ui $(BUILD)/devprobe

$(BUILD)/%.o: %.c | setup
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/cudalab-grader: $(BUILD)/grader/main.o $(GRADER_OBJ) $(COMMON_OBJ)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

# the last step inside a sandbox before untrusted code (grader/sandbox.h)
$(BUILD)/cudalab-box-exec: $(BUILD)/grader/boxexec.o
	$(CC) $(CFLAGS) -o $@ $^

$(BUILD)/cudalab-ui: $(BUILD)/ui/main.o $(UI_OBJ) $(COMMON_OBJ)
	$(CC) $(CFLAGS) -o $@ $^ -lncursesw $(LDLIBS)

RUNTIME_OBJ := $(BUILD)/common/stats.o $(BUILD)/common/event.o \
               $(BUILD)/common/gpulock.o $(BUILD)/common/gpustate.o
$(BUILD)/devprobe: common/devprobe.cu common/harness.cu common/harness.h common/timed_size.h \
                common/cudalab.h common/event.h common/stats.h \
                common/gpulock.h common/gpustate.h $(RUNTIME_OBJ)
	$(NVCC) $(NVCCFLAGS) -o $@ common/devprobe.cu common/harness.cu \
	        $(RUNTIME_OBJ) $(WRAP) -ljansson -ldl

# only sources and objects go to the compiler: the header prerequisites
# the .d files add (-MMD) may name headers since moved or removed
$(BUILD)/tests/%: tests/unit/%.c $(GRADER_OBJ) $(UI_OBJ) $(COMMON_OBJ)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Itests/unit -Iui -o $@ $(filter %.c %.o,$^) -lncursesw $(LDLIBS)

$(BUILD)/tests/programs/%: tests/programs/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $<

# Checks system packages; installs them as root, else says the command.
setup:
	@$(PYTHON) run.py setup --quiet

test: all $(UNIT_BIN) $(FIXTURE_BIN)
	@$(PYTHON) run.py setup --quiet --for-tests
	@$(PYTHON) tests/run_tests.py

clean:
	rm -rf $(BUILD)

.PHONY: all setup test clean
.SECONDARY:

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
