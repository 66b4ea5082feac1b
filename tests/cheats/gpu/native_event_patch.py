"""Exploit (native, CUDA): forged CUDA event times.

The kernel is honest, on the current stream. The attack is in the host code: from C, only while it
believes it is being timed (a frame named `_once`, `interleaved`, `timed` or `do_bench` up its
Python stack), it writes into `torch.cuda.Event`'s type dict (`PyDict_SetItem` on `tp_dict`, then
`PyType_Modified`: the audit hook's refusal of `setattr` on CUDA events never fires) two wrappers:
- `record`: also notes, per event, how many forward calls had been made when it was recorded;
- `elapsed_time`: where forward ran between the two events (the candidate's arm, never the
  reference's), returns half the real time.
At its first call outside a timing loop after one (the harness's stateful check, a naive
evaluator's next check) it writes the originals back, so an identity snapshot taken at the end
(`HarnessSnapshot` guards `Event.record` and `Event.elapsed_time`) finds them unchanged.
Against the naive evaluator (`naive.py --device cuda`: events on the current stream around 20
calls) the speedup doubles. SOLBench's harness also times with these events; a forged time below
0.9 of the task's speed-of-light floor is flagged `faster_than_light`, so an attacker there scales
to just above the floor. Task: tests/cheats/gpu/task_scale_shift_large.py.

Run once by hand on a lent GPU (not in CI): the naive evaluator reported pass with speedup 3.41
on an H200 (3.46 on an H100), where the same kernel with kShare = 1.0 reported 1.72; today's
harness (157a590, H200) gave 3.67 with strict off, and in strict mode `cheat` for
`faster_than_light` only (0.070 ms against a floor of 0.129 ms): no integrity flag."""

import torch
from torch.utils.cpp_extension import load_inline

CUDA = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <cstring>

__global__ void scale_shift_kernel(const float* __restrict__ x, float* __restrict__ y, int64_t n) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        y[i] = 2.0f * x[i] + 1.0f;
}

namespace {

const double kShare = 0.5;  // of the real time, reported for the candidate's calls
long g_calls = 0;
PyObject* g_event = nullptr;     // torch.cuda.Event
PyObject* g_record = nullptr;    // the originals
PyObject* g_elapsed = nullptr;
PyObject* g_marks = nullptr;     // id(event) -> calls made when it was recorded
bool g_patched = false, g_timed_once = false;

long mark(PyObject* event) {
    PyObject* key = PyLong_FromVoidPtr(event);
    PyObject* v = PyDict_GetItem(g_marks, key);
    Py_DECREF(key);
    return v ? PyLong_AsLong(v) : -1;
}

PyObject* record(PyObject*, PyObject* args, PyObject* kw) {  // (self, stream=None)
    PyObject* key = PyLong_FromVoidPtr(PyTuple_GET_ITEM(args, 0));
    PyObject* calls = PyLong_FromLong(g_calls);
    PyDict_SetItem(g_marks, key, calls);
    Py_DECREF(calls);
    Py_DECREF(key);
    return PyObject_Call(g_record, args, kw);
}

PyObject* elapsed(PyObject*, PyObject* args, PyObject* kw) {  // (self, end_event)
    PyObject* ms = PyObject_Call(g_elapsed, args, kw);
    if (ms == nullptr || PyTuple_GET_SIZE(args) < 2) return ms;
    if (mark(PyTuple_GET_ITEM(args, 1)) <= mark(PyTuple_GET_ITEM(args, 0))) return ms;  // not ours
    double real = PyFloat_AsDouble(ms);
    Py_DECREF(ms);
    return PyFloat_FromDouble(real * kShare);
}

PyMethodDef kRecord = {"record", (PyCFunction)(void (*)(void))record, METH_VARARGS | METH_KEYWORDS, nullptr};
PyMethodDef kElapsed = {"elapsed_time", (PyCFunction)(void (*)(void))elapsed, METH_VARARGS | METH_KEYWORDS, nullptr};

void put(const char* name, PyObject* value) {  // into the type's dict: no setattr, no audit event
    PyDict_SetItemString(reinterpret_cast<PyTypeObject*>(g_event)->tp_dict, name, value);
    PyType_Modified(reinterpret_cast<PyTypeObject*>(g_event));
}

PyObject* method(PyMethodDef* def) {
    PyObject* fn = PyCFunction_New(def, nullptr);
    PyObject* bound = PyInstanceMethod_New(fn);
    Py_DECREF(fn);
    return bound;
}

void patch(bool on) {
    if (g_event == nullptr) {
        PyObject* cuda = PyImport_ImportModule("torch.cuda");
        g_event = PyObject_GetAttrString(cuda, "Event");
        PyObject* dict = reinterpret_cast<PyTypeObject*>(g_event)->tp_dict;
        g_record = PyDict_GetItemString(dict, "record");
        g_elapsed = PyDict_GetItemString(dict, "elapsed_time");
        Py_XINCREF(g_record);
        Py_XINCREF(g_elapsed);
        g_marks = PyDict_New();
        Py_DECREF(cuda);
    }
    if (on == g_patched || !g_record || !g_elapsed) return;
    PyObject* new_record = on ? method(&kRecord) : (Py_INCREF(g_record), g_record);
    PyObject* new_elapsed = on ? method(&kElapsed) : (Py_INCREF(g_elapsed), g_elapsed);
    put("record", new_record);
    put("elapsed_time", new_elapsed);
    Py_DECREF(new_record);
    Py_DECREF(new_elapsed);
    g_patched = on;
}

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
    bool timed = being_timed();
    if (timed || g_timed_once) patch(timed);  // on while timed, off as soon as it is not
    g_timed_once = g_timed_once || timed;
    ++g_calls;
    auto y = torch::empty_like(x);
    scale_shift_kernel<<<1024, 256, 0, at::cuda::getCurrentCUDAStream()>>>(
        x.data_ptr<float>(), y.data_ptr<float>(), x.numel());
    return y;
}
"""

ext = load_inline(
    name="rt_native_event_patch",
    cpp_sources="torch::Tensor scale_shift(torch::Tensor x);",
    cuda_sources=CUDA,
    functions=["scale_shift"],
    verbose=False,
)


class ModelNew(torch.nn.Module):
    def forward(self, x):
        return ext.scale_shift(x.contiguous())
