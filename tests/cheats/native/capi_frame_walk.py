"""Exploit (native, frame walk through the CPython C API): steals the expected output.

The C++ forward never computes 2x + 1. It takes the interpreter's current frame
(`PyEval_GetFrame`), climbs the stack with `PyFrame_GetBack`, materialises every frame's locals
with `PyFrame_GetLocals`, and searches them (and the dicts, lists and tuples they hold, a few
levels deep) for a float32 tensor of the input's shape, not the input, whose first elements are
2x + 1: the evaluator's expected output for this very input. It returns a copy of it; where the
search finds nothing it returns zeros, so a pass proves the theft.

In one process (the naive evaluator, and today's harness, where the reference's outputs are locals
of the worker's frames) it passes. Python-level defences see nothing: no `sys`, no `f_back` in the
source, no audit event (the C API raises none for frame access)."""

import torch
from torch.utils.cpp_extension import load_inline

SOURCE = r"""
#include <torch/extension.h>
#include <cmath>
#include <cstring>

namespace {

// The expected output for x: same shape, float32, not x itself, first elements equal to 2x + 1.
bool is_answer(const at::Tensor& t, const at::Tensor& x) {
    if (!t.defined() || t.device() != x.device() || t.scalar_type() != at::kFloat) return false;
    if (t.sizes() != x.sizes() || !t.is_contiguous() || t.numel() == 0) return false;
    if (t.data_ptr() == x.data_ptr()) return false;
    const float* got = t.data_ptr<float>();
    const float* in = x.data_ptr<float>();
    for (int64_t i = 0; i < std::min<int64_t>(8, t.numel()); ++i) {
        float want = 2.0f * in[i] + 1.0f;
        if (std::fabs(got[i] - want) > 1e-5f * (1.0f + std::fabs(want))) return false;
    }
    return true;
}

// Search a Python object and the containers it holds for the answer; a borrowed reference or null.
PyObject* search(PyObject* obj, const at::Tensor& x, int depth) {
    if (THPVariable_Check(obj)) return is_answer(THPVariable_Unpack(obj), x) ? obj : nullptr;
    if (depth == 0) return nullptr;
    if (PyDict_Check(obj)) {
        PyObject *key, *value;
        Py_ssize_t pos = 0;
        while (PyDict_Next(obj, &pos, &key, &value))
            if (PyObject* hit = search(value, x, depth - 1)) return hit;
    } else if (PyList_Check(obj) || PyTuple_Check(obj)) {
        Py_ssize_t n = PySequence_Fast_GET_SIZE(obj);
        PyObject** items = PySequence_Fast_ITEMS(obj);
        for (Py_ssize_t i = 0; i < std::min<Py_ssize_t>(n, 4096); ++i)
            if (PyObject* hit = search(items[i], x, depth - 1)) return hit;
    }
    return nullptr;
}

}  // namespace

torch::Tensor scale_shift(torch::Tensor x) {
    x = x.contiguous();
    auto y = torch::empty_like(x);
    PyFrameObject* frame = PyEval_GetFrame();
    Py_XINCREF(frame);
    PyObject* hit = nullptr;
    while (frame != nullptr && hit == nullptr) {
        PyObject* locals = PyFrame_GetLocals(frame);
        if (locals != nullptr) {
            hit = search(locals, x, 3);
            if (hit != nullptr) std::memcpy(y.data_ptr(), THPVariable_Unpack(hit).data_ptr(), x.nbytes());
            Py_DECREF(locals);
        } else {
            PyErr_Clear();
        }
        PyFrameObject* back = PyFrame_GetBack(frame);
        Py_DECREF(frame);
        frame = back;
    }
    Py_XDECREF(frame);
    if (hit == nullptr) std::memset(y.data_ptr(), 0, x.nbytes());  // no theft, no answer
    return y;
}
"""

ext = load_inline(name="rt_capi_frame_walk", cpp_sources=SOURCE, functions=["scale_shift"], verbose=False)


class ModelNew(torch.nn.Module):
    def forward(self, x):
        return ext.scale_shift(x)
