# Fresh-machine entry points: `make demo` runs the benchmark on its built-in default, `make test` runs the tests.
# CI (.ci/run) runs `make lint test floors`.
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# The CPU build of torch that lies on disk (a bare `torch` pulls a CUDA build of several GB).
TORCH_CPU ?= torch==2.13.0
LINTED := benchmark datasets_builder trainers leaderboard experiments tests scripts
# `make floors`: a second venv with the lowest version of every direct dependency of .[dev] that
# pyproject.toml allows (torch excepted: its floor is checked on the GPU image), and the tests that
# exercise transformers, trl, peft, accelerate, datasets, huggingface_hub, openai, ray and jinja2 there.
FLOORS_VENV ?= .venv-floors
FLOORS_BIN := $(FLOORS_VENV)/bin
FLOORS_TESTS ?= tests/benchmark/test_tasks.py tests/benchmark/test_models_openai.py \
	tests/benchmark/test_models_hf.py tests/benchmark/suite/test_suite_dataset.py tests/benchmark/test_rundir.py \
	tests/benchmark/test_runner.py tests/benchmark/test_prompts.py tests/benchmark/verify/test_ray_executor.py \
	tests/datasets_builder/test_publish.py tests/trainers/test_sft_config.py tests/trainers/test_rl_config.py \
	tests/trainers/test_sft_data.py tests/trainers/test_sft.py tests/trainers/test_rl.py \
	tests/leaderboard/test_build.py
DEVICE ?= cpu
# The suite is sized for an H200; on a CPU the demo runs two tasks (set DEMO_TASKS='*' for all of level 1).
DEMO_TASKS ?= gelu_tanh_fp32 softmax_rows_bf16
# One H200-sized sample takes minutes on two CPU cores: there the run limit is 900 s instead of 300 s.
DEMO_TIMEOUT ?= $(if $(filter cpu,$(DEVICE)),900,300)
export HF_HUB_OFFLINE := 1

.PHONY: venv demo test lint floors gpu clean

$(BIN)/python: pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q "$(TORCH_CPU)" || $(BIN)/pip install -q "torch>=2.11,<3"
	$(BIN)/pip install -q -e ".[dev]"
	touch $(BIN)/python

venv: $(BIN)/python

demo: venv
	$(BIN)/python -m benchmark.run --model reference --level 1 $(foreach t,$(DEMO_TASKS),--tasks '$(t)') \
		--device $(DEVICE) --timeout $(DEMO_TIMEOUT) --out runs/demo-reference-$(DEVICE)

test: venv
	$(BIN)/python -m pytest -q -m "not gpu"

lint: venv
	$(BIN)/ruff check $(LINTED)
	$(BIN)/ruff format --check $(LINTED)

# uv's lowest-direct resolution keeps the torch installed first and takes the highest version of every
# indirect dependency, as a user's fresh install at the floors would.
$(FLOORS_BIN)/python: pyproject.toml
	rm -rf $(FLOORS_VENV)
	$(PY) -m venv $(FLOORS_VENV)
	$(FLOORS_BIN)/pip install -q --no-deps "$(TORCH_CPU)" uv
	$(FLOORS_BIN)/uv pip install -q --python $(FLOORS_BIN)/python --resolution lowest-direct -e ".[dev]"
	touch $(FLOORS_BIN)/python

# The slow tests (a two-process accelerate run, a two-node Ray cluster) run in `make test` only: at the
# floors, pytest once ended without a word among the Ray tests (Ray 2.30; a rerun passed), and the
# floors check what the code calls, which the fast tests of those files cover.
floors: $(FLOORS_BIN)/python
	$(FLOORS_BIN)/python -m pytest -q -m "not gpu and not slow" $(FLOORS_TESTS)

gpu:
	bash scripts/gpu_checks.sh

clean:
	rm -rf runs site .pytest_cache
