"""Exploit (native, writing into a type's `__dict__`): an inflated speedup, past the audit hook.

The sandbox's audit hook refuses `setattr` on `nn.Module` and on the harness's classes
(`object.__setattr__` events), and the harness fingerprints a few methods by identity. A write into
the type's dict from C (`PyDict_SetItem` on `tp_dict`, then `PyType_Modified` to drop the method
caches) raises no event. On its first call the C++ forward replaces, in whichever timing machinery
it recognises:
- SOLBench's `benchmark.evaluate.timing.Timer.interleaved` (not fingerprinted): the wrapper calls
  the original and returns its `Interleaved` with the paired ratio (the speedup) times 1000;
- elsewhere (a naive evaluator timing `model(*inputs)`), `torch.nn.Module.__call__`: the wrapper
  runs any module that is not `ModelNew` and then spins for nine times as long, so the reference
  looks ten times slower.
The candidate's own kernel is honest; the effect is the speedup."""

import torch
from torch.utils.cpp_extension import load_inline

SOURCE = r"""
#include <torch/extension.h>
#include <cstring>
#include <ctime>

namespace {

PyObject* g_interleaved = nullptr;  // the original functions, kept alive
PyObject* g_call = nullptr;

double now_s() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

// Bound as a method: args = (self, arms, ...).
PyObject* forged_interleaved(PyObject*, PyObject* args, PyObject* kwargs) {
    PyObject* timed = PyObject_Call(g_interleaved, args, kwargs);
    if (timed == nullptr) return nullptr;
    PyObject* ratio = PyObject_GetAttrString(timed, "ratio");
    if (ratio == nullptr || !PyFloat_Check(ratio)) {
        Py_XDECREF(ratio);
        PyErr_Clear();
        return timed;
    }
    PyObject* dataclasses = PyImport_ImportModule("dataclasses");
    PyObject* replace = dataclasses ? PyObject_GetAttrString(dataclasses, "replace") : nullptr;
    PyObject* kw = Py_BuildValue("{s:d}", "ratio", PyFloat_AS_DOUBLE(ratio) * 1000.0);
    PyObject* pos = PyTuple_Pack(1, timed);
    PyObject* forged = replace ? PyObject_Call(replace, pos, kw) : nullptr;
    Py_XDECREF(pos);
    Py_XDECREF(kw);
    Py_XDECREF(replace);
    Py_XDECREF(dataclasses);
    Py_DECREF(ratio);
    if (forged == nullptr) {
        PyErr_Clear();
        return timed;
    }
    Py_DECREF(timed);
    return forged;
}

// Bound as a method: args = (self, *inputs).
PyObject* slowed_call(PyObject*, PyObject* args, PyObject* kwargs) {
    PyObject* self = PyTuple_GET_ITEM(args, 0);
    bool mine = std::strcmp(Py_TYPE(self)->tp_name, "ModelNew") == 0;
    double t0 = now_s();
    PyObject* out = PyObject_Call(g_call, args, kwargs);
    if (!mine && out != nullptr) {
        double until = now_s() + 9.0 * (now_s() - t0);
        while (now_s() < until) {
        }
    }
    return out;
}

PyMethodDef kInterleaved = {"interleaved", (PyCFunction)(void (*)(void))forged_interleaved,
                            METH_VARARGS | METH_KEYWORDS, nullptr};
PyMethodDef kCall = {"__call__", (PyCFunction)(void (*)(void))slowed_call, METH_VARARGS | METH_KEYWORDS, nullptr};

// type.__dict__[name] = a method wrapping fn, with no audit event; returns the original.
PyObject* replace_in_type(PyObject* type, const char* name, PyMethodDef* def) {
    PyObject* dict = reinterpret_cast<PyTypeObject*>(type)->tp_dict;
    PyObject* original = PyDict_GetItemString(dict, name);
    if (original == nullptr) return nullptr;
    Py_INCREF(original);
    PyObject* fn = PyCFunction_New(def, nullptr);
    PyObject* method = PyInstanceMethod_New(fn);  // binds self, as a function in a class would
    Py_DECREF(fn);
    PyDict_SetItemString(dict, name, method);
    Py_DECREF(method);
    PyType_Modified(reinterpret_cast<PyTypeObject*>(type));
    return original;
}

void patch() {
    PyObject* modules = PyImport_GetModuleDict();
    PyObject* timing = PyDict_GetItemString(modules, "benchmark.evaluate.timing");
    PyObject* timer = timing ? PyObject_GetAttrString(timing, "Timer") : nullptr;
    if (timer != nullptr && PyType_Check(timer)) {
        g_interleaved = replace_in_type(timer, "interleaved", &kInterleaved);
    } else {
        PyObject* nn = PyImport_ImportModule("torch.nn");
        PyObject* module_type = nn ? PyObject_GetAttrString(nn, "Module") : nullptr;
        if (module_type != nullptr) g_call = replace_in_type(module_type, "__call__", &kCall);
        Py_XDECREF(module_type);
        Py_XDECREF(nn);
    }
    Py_XDECREF(timer);
    PyErr_Clear();
}

}  // namespace

torch::Tensor scale_shift(torch::Tensor x) {
    static bool patched = (patch(), true);
    (void)patched;
    auto xc = x.contiguous();
    auto y = torch::empty_like(xc);
    const float* in = xc.data_ptr<float>();
    float* out = y.data_ptr<float>();
    for (int64_t i = 0; i < xc.numel(); ++i) out[i] = in[i] * 2.0f + 1.0f;
    return y;
}
"""

ext = load_inline(name="rt_type_dict_patch", cpp_sources=SOURCE, functions=["scale_shift"], verbose=False)


class ModelNew(torch.nn.Module):
    def forward(self, x):
        return ext.scale_shift(x)
