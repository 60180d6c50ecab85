# cudalab — `make` builds everything into build/, `make test` runs the
# project's own tests (the GPU suite too when a CUDA device is present),
# `make clean` removes build/. Set-up (system packages) is checked first by
# `python3 run.py setup`, which installs them as root or prints the command.

CC      ?= cc
NVCC    ?= nvcc
PYTHON  ?= python3
# -Wno-format-truncation: messages are bounded with snprintf on purpose.
CFLAGS  ?= -O2 -g
CFLAGS  += -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Wno-format-truncation \
           -Icommon -Igrader -MMD -MP
LDLIBS  := -ljansson -lm -lpthread -lstdc++
# The GPU of this machine (sm_90 where there is none, e.g. in CI).
CUDA_ARCH ?= $(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null \
               | head -n1 | tr -d '. ' | sed -n 's/^\([0-9][0-9]*\)$$/sm_\1/p')
ifeq ($(CUDA_ARCH),)
CUDA_ARCH := sm_90
endif
NVCCFLAGS := -arch=$(CUDA_ARCH) -std=c++17 -O3 -Icommon \
             -Xcompiler=-Wall,-Wextra,-Werror,-Wno-format-truncation
WRAP      := -Xlinker=--wrap=__cudaLaunchKernel -Xlinker=--wrap=cudaLaunchKernel

COMMON_SRC := common/demangle.c common/advice.c common/classbook.c common/stats.c common/event.c common/metric.c common/manifest.c \
              common/strbuf.c
GRADER_SRC := grader/runner.c grader/hash.c grader/compiler_report.c \
              grader/ptx.c grader/build.c grader/device.c grader/grade.c \
              grader/report.c grader/results.c grader/verdict.c grader/profiler.c \
              grader/lint.c grader/sandbox.c grader/batch.c grader/gradebook.c grader/fsutil.c \
              grader/explain.c grader/roofline.c grader/sass.c
UI_SRC     := ui/canvas.c ui/state.c ui/render.c ui/panel_header.c \
              ui/panel_steps.c ui/panel_details.c ui/panel_help.c \
              ui/panel_class.c ui/class_view.c \
              ui/source.c ui/term.c
COMMON_OBJ := $(COMMON_SRC:%.c=build/%.o)
UI_OBJ     := $(UI_SRC:%.c=build/%.o)
GRADER_OBJ := $(GRADER_SRC:%.c=build/%.o)
UNIT_SRC   := $(wildcard tests/unit/test_*.c)
UNIT_BIN   := $(UNIT_SRC:tests/unit/%.c=build/tests/%)
FIXTURE_SRC := $(wildcard tests/programs/*.c)
FIXTURE_BIN := $(FIXTURE_SRC:tests/programs/%.c=build/tests/programs/%)

all: build/cudalab-grader build/cudalab-ui build/devprobe

build/%.o: %.c | setup
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c $< -o $@

build/cudalab-grader: build/grader/main.o $(GRADER_OBJ) $(COMMON_OBJ)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

build/cudalab-ui: build/ui/main.o $(UI_OBJ) $(COMMON_OBJ)
	$(CC) $(CFLAGS) -o $@ $^ -lncursesw $(LDLIBS)

build/devprobe: common/devprobe.cu common/harness.cu common/harness.h \
                common/cudalab.h common/event.h common/stats.h \
                build/common/stats.o build/common/event.o
	$(NVCC) $(NVCCFLAGS) -o $@ common/devprobe.cu common/harness.cu \
	        build/common/stats.o build/common/event.o $(WRAP) -ljansson

build/tests/%: tests/unit/%.c $(GRADER_OBJ) $(UI_OBJ) $(COMMON_OBJ)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Itests/unit -Iui -o $@ $^ -lncursesw $(LDLIBS)

build/tests/programs/%: tests/programs/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $<

# Checks system packages; installs them as root, else says the command.
setup:
	@$(PYTHON) run.py setup --quiet

test: all $(UNIT_BIN) $(FIXTURE_BIN)
	@$(PYTHON) run.py setup --quiet --for-tests
	@$(PYTHON) tests/run_tests.py

clean:
	rm -rf build

.PHONY: all setup test clean
.SECONDARY:

-include $(shell find build -name '*.d' 2>/dev/null)
