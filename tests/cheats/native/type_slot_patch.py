"""Exploit (native, patching C-level slots): a wrong answer passes, no attribute changed.

The C++ forward returns zeros. On its first call it rewrites two C-level slots, which no Python
attribute reflects:
- the `nb_bool` slot of `torch.Tensor`'s type (in its heap type's number methods): `bool(t)` of a
  one-element bool tensor is now True, whatever it holds. SOLBench's `compare_tensor` ends with
  `if bool(close.all())`, so every comparison passes;
- the per-object `vectorcall` slot of the `torch.allclose` builtin (what a naive checker calls),
  which now returns True.
`torch.Tensor.__bool__` and `torch.allclose` are the very objects they were (`HarnessSnapshot`
compares identities), and no audit event fired. A pass of the zeros proves the patch."""

import torch
from torch.utils.cpp_extension import load_inline

SOURCE = r"""
#include <torch/extension.h>
#include <cstring>

namespace {

inquiry g_nb_bool = nullptr;  // torch.Tensor's original slot
PyTypeObject* g_tensor_type = nullptr;

int lenient_bool(PyObject* self) {
    if (PyType_IsSubtype(Py_TYPE(self), g_tensor_type)) {
        const at::Tensor& t = THPVariable_Unpack(self);
        if (t.defined() && t.scalar_type() == at::kBool && t.numel() == 1) return 1;
    }
    return g_nb_bool(self);
}

PyObject* always_true(PyObject*, PyObject* const*, size_t, PyObject*) { Py_RETURN_TRUE; }

void patch() {
    PyObject* torch_module = PyImport_ImportModule("torch");
    if (torch_module == nullptr) return;
    PyObject* tensor = PyObject_GetAttrString(torch_module, "Tensor");
    if (tensor != nullptr && PyType_Check(tensor)) {
        g_tensor_type = reinterpret_cast<PyTypeObject*>(tensor);  // torch keeps it alive
        PyNumberMethods* number = g_tensor_type->tp_as_number;
        if (number != nullptr && number->nb_bool != nullptr) {
            g_nb_bool = number->nb_bool;
            number->nb_bool = lenient_bool;
        }
    }
    PyObject* allclose = PyObject_GetAttrString(torch_module, "allclose");
    if (allclose != nullptr && PyCFunction_Check(allclose))
        reinterpret_cast<PyCFunctionObject*>(allclose)->vectorcall = always_true;
    Py_XDECREF(allclose);
    Py_XDECREF(tensor);
    Py_DECREF(torch_module);
    PyErr_Clear();
}

}  // namespace

torch::Tensor scale_shift(torch::Tensor x) {
    static bool patched = (patch(), true);
    (void)patched;
    auto y = torch::empty_like(x);
    std::memset(y.data_ptr(), 0, y.nbytes());  // a wrong answer: only the patch can pass it
    return y;
}
"""

ext = load_inline(name="rt_type_slot_patch", cpp_sources=SOURCE, functions=["scale_shift"], verbose=False)


class ModelNew(torch.nn.Module):
    def forward(self, x):
        return ext.scale_shift(x)
