"""The verdict's one human line (what `benchmark.check` prints)."""

import pytest

from benchmark.verdict import Status, Verdict, says_out_of_memory


def test_the_summary_keeps_the_errors_first_line_whole():
    first = (
        "output 0 differs on trial 1 of 3: max |out - ref| 5.000e-01 at index (17, 203), where ref is "
        "1.2871e+00; allowed atol + rtol |ref| (atol=0.0001, rtol=0.0001, 8 x eager's own max error 4.77e-07)"
    )
    verdict = Verdict("level1/scale_shift", Status.INCORRECT, sample=2, error=f"{first}\nsecond line")
    assert verdict.summary() == f"level1/scale_shift#2 incorrect {first}"
    assert len(first) > 160


@pytest.mark.parametrize(
    "error, ran_out",
    [
        ("OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.", True),
        ("RuntimeError: CUDA error: CUBLAS_STATUS_ALLOC_FAILED when calling `cublasCreate(handle)`", True),
        ("RuntimeError: cuDNN error: CUDNN_STATUS_ALLOC_FAILED", True),
        ("RuntimeError: cuFFT error: CUFFT_ALLOC_FAILED", True),
        ("RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasGemmEx`", False),
        ("output 0 differs on trial 1 of 3", False),
        (None, False),
    ],
)
def test_out_of_memory_is_read_from_torch_and_the_cuda_libraries(error, ran_out):
    assert says_out_of_memory(error) is ran_out
    verdict = Verdict("level1/bmm", Status.RUNTIME_ERROR, error=error)
    assert verdict.out_of_memory is ran_out
