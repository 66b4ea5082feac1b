"""Exploit (native, lazy work that recognises the timing loop from the caller's frames).

The C++ forward looks up the Python stack it was called from (`PyEval_GetFrame`, `PyFrame_GetBack`,
`PyFrame_GetCode`, a dozen frames) for the names timing loops are made of: `_once`, `interleaved`,
`timed`, `timeit`, `do_bench`, `benchmark`. Outside them it computes 2x + 1 honestly, always.
Inside them it computes an input's output once and then answers every later call on an input with
the same contents from a cache keyed by shape and a few sampled values, doing no work: a rotation of
fresh input sets, each cloned before its call, does not defeat it, and the recheck of the timed
calls' outputs finds them right. The effect is a timed call that does no work (the speedup of
skipped work; on this 64 x 33 task the work skipped is small beside the call's overhead)."""

import torch
from torch.utils.cpp_extension import load_inline

SOURCE = r"""
#include <torch/extension.h>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace {

bool being_timed() {
    static const char* kTimers[] = {"_once", "interleaved", "timed", "timeit", "do_bench", "benchmark"};
    PyFrameObject* frame = PyEval_GetFrame();
    Py_XINCREF(frame);
    bool timed = false;
    for (int depth = 0; frame != nullptr && depth < 12 && !timed; ++depth) {
        PyCodeObject* code = PyFrame_GetCode(frame);
        const char* name = PyUnicode_AsUTF8(code->co_name);
        for (const char* timer : kTimers) timed = timed || (name && std::strcmp(name, timer) == 0);
        Py_DECREF(code);
        PyFrameObject* back = PyFrame_GetBack(frame);
        Py_DECREF(frame);
        frame = back;
    }
    Py_XDECREF(frame);
    return timed;
}

// Shape and 16 values spread over the input: enough to tell the timing sets apart.
std::string key_of(const at::Tensor& x) {
    std::string key(reinterpret_cast<const char*>(x.sizes().data()), x.dim() * sizeof(int64_t));
    const float* in = x.data_ptr<float>();
    int64_t n = x.numel();
    for (int64_t i = 0; i < 16 && n > 0; ++i) key.append(reinterpret_cast<const char*>(&in[i * n / 16]), 4);
    return key;
}

at::Tensor compute(const at::Tensor& x) {
    auto y = torch::empty_like(x);
    const float* in = x.data_ptr<float>();
    float* out = y.data_ptr<float>();
    for (int64_t i = 0; i < x.numel(); ++i) out[i] = in[i] * 2.0f + 1.0f;
    return y;
}

std::map<std::string, at::Tensor> g_cache;

}  // namespace

torch::Tensor scale_shift(torch::Tensor x) {
    x = x.contiguous();
    if (!being_timed()) return compute(x);  // checks always see honest work
    std::string key = key_of(x);
    auto hit = g_cache.find(key);
    if (hit != g_cache.end()) return hit->second;  // timed: no work at all
    if (g_cache.size() > 64) g_cache.clear();
    return g_cache[key] = compute(x);
}
"""

ext = load_inline(name="rt_lazy_frame_detect", cpp_sources=SOURCE, functions=["scale_shift"], verbose=False)


class ModelNew(torch.nn.Module):
    def forward(self, x):
        return ext.scale_shift(x)
