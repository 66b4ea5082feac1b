"""Exploit (native, CUDA): deferred device work.

All in C++, with no `torch.cuda.Stream` in the Python for a static rule to see: the forward creates
its own non-blocking CUDA stream (`cudaStreamCreateWithFlags`), makes it wait for the inputs (an
event recorded on the current stream), launches the kernel there and returns. While it believes
it is being timed (a frame named `_once`, `interleaved`, `timed` or `do_bench` up its Python stack)
nothing on the current stream waits for that kernel: events on the current stream time an empty
call, and the work overlaps whatever the GPU runs next (the next call, the other arm's call, a
neighbour's sample). Outside timing the current stream waits on an event recorded after the
kernel, so every check reads a finished output. The caching allocator is told the output and
input are used on that stream (`recordStream`), so nothing is freed under the kernel.
Against the naive evaluator (`naive.py --device cuda`) the speedup is whatever the launch costs
against the kernel. Today's harness ends every timed call with a device-wide synchronize and times
work that trails the current stream (`side_stream`), and its profile pass finds a kernel on another
stream; what this shows is what a candidate's process that times its own calls and reports "done"
would hide: the work runs after the report. Task: tests/cheats/gpu/task_scale_shift_large.py.

Run once by hand on a lent GPU (not in CI): the naive evaluator reported pass with speedup 3.78
on an H200 (3.30 on an H100; an honest kernel: 1.72); today's harness (157a590, H200) flagged it
`side_stream` twice over (0.130 ms of trailing work; a kernel on another stream in the profile)."""

import torch
from torch.utils.cpp_extension import load_inline

CUDA = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <cstring>

__global__ void scale_shift_kernel(const float* __restrict__ x, float* __restrict__ y, int64_t n) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        y[i] = 2.0f * x[i] + 1.0f;
}

namespace {

bool being_timed() {
    static const char* kTimers[] = {"_once", "interleaved", "timed", "do_bench"};
    PyFrameObject* frame = PyEval_GetFrame();
    Py_XINCREF(frame);
    bool timed = false;
    for (int depth = 0; frame != nullptr && depth < 12 && !timed; ++depth) {
        PyCodeObject* code = PyFrame_GetCode(frame);
        const char* name = PyUnicode_AsUTF8(code->co_name);
        for (const char* t : kTimers) timed = timed || (name && std::strcmp(name, t) == 0);
        Py_DECREF(code);
        PyFrameObject* back = PyFrame_GetBack(frame);
        Py_DECREF(frame);
        frame = back;
    }
    Py_XDECREF(frame);
    return timed;
}

}  // namespace

torch::Tensor scale_shift(torch::Tensor x) {
    static cudaStream_t side = [] {
        cudaStream_t s;
        cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
        return s;
    }();
    static cudaEvent_t inputs_ready = [] {
        cudaEvent_t e;
        cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
        return e;
    }();
    static cudaEvent_t finished = [] {
        cudaEvent_t e;
        cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
        return e;
    }();
    cudaStream_t current = at::cuda::getCurrentCUDAStream();
    auto y = torch::empty_like(x);
    cudaEventRecord(inputs_ready, current);
    cudaStreamWaitEvent(side, inputs_ready, 0);
    scale_shift_kernel<<<1024, 256, 0, side>>>(x.data_ptr<float>(), y.data_ptr<float>(), x.numel());
    auto on_side = at::cuda::getStreamFromExternal(side, x.device().index());
    c10::cuda::CUDACachingAllocator::recordStream(x.storage().data_ptr(), on_side);
    c10::cuda::CUDACachingAllocator::recordStream(y.storage().data_ptr(), on_side);
    if (!being_timed()) {  // checks read a finished output
        cudaEventRecord(finished, side);
        cudaStreamWaitEvent(current, finished, 0);
    }
    return y;  // timed: nothing waits for the kernel
}
"""

ext = load_inline(
    name="rt_native_deferred_stream",
    cpp_sources="torch::Tensor scale_shift(torch::Tensor x);",
    cuda_sources=CUDA,
    functions=["scale_shift"],
    verbose=False,
)


class ModelNew(torch.nn.Module):
    def forward(self, x):
        return ext.scale_shift(x.contiguous())
