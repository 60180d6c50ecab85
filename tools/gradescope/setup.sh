#!/bin/bash
# Gradescope's image set-up: Python 3 and the build tools for the grader's
# `list` and `report` commands (no CUDA device needed; nvcc is not run here).
apt-get update -qq
apt-get install -y -qq python3 make gcc libjansson-dev libncurses-dev
cd /autograder/source/cudalab && CUDALAB_CLIENT_BUILD=1 make -s build/cudalab-grader build/cudalab-ui
