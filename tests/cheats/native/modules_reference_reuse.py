"""Exploit (native, object walk over `sys.modules`): runs the evaluator's own reference, unseen.

The C++ forward walks the interpreter's module table (`PyImport_GetModuleDict`) and every
module's dict for the task module: one defining a class `Model` derived from `torch.nn.Module`
beside `get_init_inputs`. It builds that reference model once and calls it on the input, inside
an `ExcludeDispatchKeyGuard` for the Python dispatch keys, so the ATen ops the reference runs
never reach the harness's TorchDispatchMode census (`aten_compute_op`). No candidate-written
kernel computes anything: where no task module is found it returns zeros, so a pass proves the
reuse. (A task with random parameters would reseed as the harness does, or copy the weights.)"""

import torch
from torch.utils.cpp_extension import load_inline

SOURCE = r"""
#include <torch/extension.h>
#include <cstring>

namespace {

PyObject* find_reference_class(PyObject* nn_module) {
    PyObject* modules = PyImport_GetModuleDict();  // borrowed
    PyObject *name, *module;
    Py_ssize_t pos = 0;
    while (PyDict_Next(modules, &pos, &name, &module)) {
        if (!PyModule_Check(module)) continue;
        PyObject* dict = PyModule_GetDict(module);  // borrowed
        PyObject* cls = PyDict_GetItemString(dict, "Model");
        if (cls && PyType_Check(cls) && PyDict_GetItemString(dict, "get_init_inputs") &&
            PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(cls), reinterpret_cast<PyTypeObject*>(nn_module)))
            return module;
    }
    return nullptr;
}

PyObject* reference_model() {
    static PyObject* model = nullptr;
    if (model != nullptr) return model;
    PyObject* nn = PyImport_ImportModule("torch.nn");
    PyObject* nn_module = nn ? PyObject_GetAttrString(nn, "Module") : nullptr;
    PyObject* task = nn_module ? find_reference_class(nn_module) : nullptr;
    if (task != nullptr) {
        PyObject* init = PyObject_CallMethod(task, "get_init_inputs", nullptr);
        PyObject* args = init ? PySequence_Tuple(init) : nullptr;
        PyObject* cls = PyObject_GetAttrString(task, "Model");
        model = (cls && args) ? PyObject_Call(cls, args, nullptr) : nullptr;
        Py_XDECREF(cls);
        Py_XDECREF(args);
        Py_XDECREF(init);
    }
    Py_XDECREF(nn_module);
    Py_XDECREF(nn);
    PyErr_Clear();
    return model;
}

}  // namespace

torch::Tensor scale_shift(torch::Tensor x) {
    PyObject* model = reference_model();
    if (model != nullptr) {
        // The reference's ops go straight to the CPU kernels: no Python dispatch mode sees them.
        c10::impl::ExcludeDispatchKeyGuard unseen(
            c10::DispatchKeySet({c10::DispatchKey::Python, c10::DispatchKey::PythonTLSSnapshot}));
        PyObject* arg = THPVariable_Wrap(x);
        PyObject* out = PyObject_CallOneArg(model, arg);
        Py_DECREF(arg);
        if (out != nullptr && THPVariable_Check(out)) {
            at::Tensor result = THPVariable_Unpack(out);
            Py_DECREF(out);
            return result;
        }
        Py_XDECREF(out);
        PyErr_Clear();
    }
    auto y = torch::empty_like(x);
    std::memset(y.data_ptr(), 0, y.nbytes());  // no reference found, no answer
    return y;
}
"""

ext = load_inline(
    name="rt_modules_reference_reuse", cpp_sources=SOURCE, functions=["scale_shift"], verbose=False
)


class ModelNew(torch.nn.Module):
    def forward(self, x):
        return ext.scale_shift(x)
