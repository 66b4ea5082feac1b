"""Exploit (native, module-state patching through `PyObject_SetAttrString`): a wrong answer passes.

The C++ forward returns zeros. On its first call it rebinds, from C, the names the evaluator's
verdict goes through, in whichever modules hold them:
- `torch.allclose` (what a naive checker calls) becomes a function that returns True;
- every module-level `compare_outputs` imported into another module (the SOLBench worker calls
  its own binding, `benchmark.evaluate.worker.compare_outputs`) becomes a wrapper that compares
  the expected output with itself; the function's home module (`correctness`), which an identity
  snapshot would guard, is left alone;
- `paired_ratio` (the speedup of an interleaved timing, `benchmark.evaluate.timing`) is multiplied
  by 1000.
Module attributes set from C raise no audit event, and none of these three names is among the
identities the harness fingerprints (`HarnessSnapshot`), so nothing reads as tampered. A pass of
the zeros proves the patch."""

import torch
from torch.utils.cpp_extension import load_inline

SOURCE = r"""
#include <torch/extension.h>
#include <cstring>

namespace {

PyObject* always_true(PyObject*, PyObject*, PyObject*) { Py_RETURN_TRUE; }

// self: the original compare_outputs. Compares the expected output with itself.
PyObject* compare_with_itself(PyObject* original, PyObject* args, PyObject* kwargs) {
    if (PyTuple_GET_SIZE(args) < 2) return PyObject_Call(original, args, kwargs);
    PyObject* forged = PyTuple_GetSlice(args, 0, PyTuple_GET_SIZE(args));
    PyObject* expected = PyTuple_GET_ITEM(forged, 0);
    Py_INCREF(expected);
    Py_DECREF(PyTuple_GET_ITEM(forged, 1));
    PyTuple_SET_ITEM(forged, 1, expected);
    PyObject* result = PyObject_Call(original, forged, kwargs);
    Py_DECREF(forged);
    return result;
}

// self: the original paired_ratio.
PyObject* thousandfold(PyObject* original, PyObject* args, PyObject* kwargs) {
    PyObject* ratio = PyObject_Call(original, args, kwargs);
    if (ratio == nullptr || !PyFloat_Check(ratio)) return ratio;
    double value = PyFloat_AS_DOUBLE(ratio);
    Py_DECREF(ratio);
    return PyFloat_FromDouble(value * 1000.0);
}

PyMethodDef kAlwaysTrue = {"allclose", (PyCFunction)(void (*)(void))always_true, METH_VARARGS | METH_KEYWORDS, nullptr};
PyMethodDef kCompare = {"compare_outputs", (PyCFunction)(void (*)(void))compare_with_itself,
                        METH_VARARGS | METH_KEYWORDS, nullptr};
PyMethodDef kRatio = {"paired_ratio", (PyCFunction)(void (*)(void))thousandfold, METH_VARARGS | METH_KEYWORDS, nullptr};

void patch_everywhere() {
    PyObject* modules = PyImport_GetModuleDict();  // borrowed
    PyObject* torch_module = PyDict_GetItemString(modules, "torch");
    if (torch_module != nullptr) {
        PyObject* fn = PyCFunction_New(&kAlwaysTrue, nullptr);
        PyObject_SetAttrString(torch_module, "allclose", fn);
        Py_DECREF(fn);
    }
    PyObject* snapshot = PyDict_Values(modules);  // the loop below may import nothing, but be safe
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(snapshot); ++i) {
        PyObject* module = PyList_GET_ITEM(snapshot, i);
        if (!PyModule_Check(module)) continue;
        PyObject* dict = PyModule_GetDict(module);
        const char* name = PyModule_GetName(module);
        if (name == nullptr) {
            PyErr_Clear();
            continue;
        }
        PyObject* compare = PyDict_GetItemString(dict, "compare_outputs");
        if (compare != nullptr && PyFunction_Check(compare)) {
            PyObject* home = PyObject_GetAttrString(compare, "__module__");
            bool imported = home && PyUnicode_Check(home) && std::strcmp(PyUnicode_AsUTF8(home), name) != 0;
            Py_XDECREF(home);
            if (imported) {
                PyObject* fn = PyCFunction_New(&kCompare, compare);
                PyObject_SetAttrString(module, "compare_outputs", fn);
                Py_DECREF(fn);
            }
        }
        PyObject* ratio = PyDict_GetItemString(dict, "paired_ratio");
        if (ratio != nullptr && PyFunction_Check(ratio)) {
            PyObject* fn = PyCFunction_New(&kRatio, ratio);
            PyObject_SetAttrString(module, "paired_ratio", fn);
            Py_DECREF(fn);
        }
    }
    Py_DECREF(snapshot);
    PyErr_Clear();
}

}  // namespace

torch::Tensor scale_shift(torch::Tensor x) {
    static bool patched = (patch_everywhere(), true);
    (void)patched;
    auto y = torch::empty_like(x);
    std::memset(y.data_ptr(), 0, y.nbytes());  // a wrong answer: only the patch can pass it
    return y;
}
"""

ext = load_inline(name="rt_module_global_patch", cpp_sources=SOURCE, functions=["scale_shift"], verbose=False)


class ModelNew(torch.nn.Module):
    def forward(self, x):
        return ext.scale_shift(x)
