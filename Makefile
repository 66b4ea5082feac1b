# Fresh-machine entry points: `make demo` runs the benchmark on its built-in default, `make test` runs the tests.
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
DEVICE ?= cpu
# The suite is sized for an H200; on a CPU the demo runs two tasks (set DEMO_TASKS='*' for all of level 1).
DEMO_TASKS ?= gelu_tanh_fp32 softmax_rows_bf16
# One H200-sized sample takes minutes on two CPU cores: there the run limit is 900 s instead of 300 s.
DEMO_TIMEOUT ?= $(if $(filter cpu,$(DEVICE)),900,300)
export HF_HUB_OFFLINE := 1

.PHONY: venv demo test lint gpu clean

$(BIN)/python: pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q "torch==2.13.0" || $(BIN)/pip install -q "torch>=2.4,<3"
	$(BIN)/pip install -q -e ".[dev]"
	touch $(BIN)/python

venv: $(BIN)/python

demo: venv
	$(BIN)/python -m benchmark.run --model reference --level 1 $(foreach t,$(DEMO_TASKS),--tasks '$(t)') \
		--device $(DEVICE) --timeout $(DEMO_TIMEOUT) --out runs/demo-reference-$(DEVICE)

test: venv
	$(BIN)/python -m pytest -q -m "not gpu"

lint: venv
	$(BIN)/ruff check benchmark datasets_builder trainers leaderboard tests scripts

gpu:
	bash scripts/gpu_checks.sh

clean:
	rm -rf runs site .pytest_cache
