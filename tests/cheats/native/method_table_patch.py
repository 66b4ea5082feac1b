"""Exploit (native, patching a builtin's C method table): a wrong answer passes, identities intact.

The C++ forward returns zeros. On its first call it rewrites the `ml_meth` pointer in the
`PyMethodDef` behind two torch builtins (making the page writable with `mprotect` first):
- `torch.allclose` (what a naive checker calls) now returns True;
- `torch.isclose` (what SOLBench's `compare_tensor` calls) now compares its first argument with
  itself, so every element is "close".
The function objects are the same objects as before (`torch.isclose is` what the harness
fingerprinted, `HarnessSnapshot` compares `id()`s), no attribute was set, no audit event fired:
only the C code behind them changed. A pass of the zeros proves the patch."""

import torch
from torch.utils.cpp_extension import load_inline

SOURCE = r"""
#include <torch/extension.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cstdint>
#include <cstring>

namespace {

PyCFunction g_isclose = nullptr;  // the original C function behind torch.isclose
int g_isclose_flags = 0;

PyObject* always_true(PyObject*, PyObject*, PyObject*) { Py_RETURN_TRUE; }
PyObject* always_true_fast(PyObject*, PyObject* const*, Py_ssize_t, PyObject*) { Py_RETURN_TRUE; }

PyObject* isclose_self(PyObject* self, PyObject* args, PyObject* kwargs) {
    PyObject* forged = PyTuple_GetSlice(args, 0, PyTuple_GET_SIZE(args));
    if (PyTuple_GET_SIZE(forged) >= 2) {
        PyObject* first = PyTuple_GET_ITEM(forged, 0);
        Py_INCREF(first);
        Py_DECREF(PyTuple_GET_ITEM(forged, 1));
        PyTuple_SET_ITEM(forged, 1, first);
    }
    PyObject* out = reinterpret_cast<PyCFunctionWithKeywords>(reinterpret_cast<void (*)(void)>(g_isclose))(
        self, forged, kwargs);
    Py_DECREF(forged);
    return out;
}

PyObject* isclose_self_fast(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
    Py_ssize_t n = PyVectorcall_NARGS(nargs) + (kwnames ? PyTuple_GET_SIZE(kwnames) : 0);
    std::vector<PyObject*> forged(args, args + n);
    if (PyVectorcall_NARGS(nargs) >= 2) forged[1] = forged[0];
    return reinterpret_cast<_PyCFunctionFastWithKeywords>(reinterpret_cast<void (*)(void)>(g_isclose))(
        self, forged.data(), nargs, kwnames);
}

void writable(void* where) {
    long page = sysconf(_SC_PAGESIZE);
    auto start = reinterpret_cast<uintptr_t>(where) & ~static_cast<uintptr_t>(page - 1);
    mprotect(reinterpret_cast<void*>(start), 2 * page, PROT_READ | PROT_WRITE);
}

PyMethodDef* table_of(PyObject* torch_module, const char* name) {
    PyObject* fn = PyObject_GetAttrString(torch_module, name);
    if (fn == nullptr || !PyCFunction_Check(fn)) {
        Py_XDECREF(fn);
        PyErr_Clear();
        return nullptr;
    }
    PyMethodDef* def = reinterpret_cast<PyCFunctionObject*>(fn)->m_ml;
    Py_DECREF(fn);  // torch keeps it alive
    writable(def);
    return def;
}

void patch() {
    PyObject* torch_module = PyImport_ImportModule("torch");
    if (torch_module == nullptr) return;
    const int keywords = METH_VARARGS | METH_KEYWORDS, fast = METH_FASTCALL | METH_KEYWORDS;
    if (PyMethodDef* def = table_of(torch_module, "allclose")) {
        if ((def->ml_flags & keywords) == keywords)
            def->ml_meth = (PyCFunction)(void (*)(void))always_true;
        else if ((def->ml_flags & fast) == fast)
            def->ml_meth = (PyCFunction)(void (*)(void))always_true_fast;
    }
    if (PyMethodDef* def = table_of(torch_module, "isclose")) {
        g_isclose = def->ml_meth;
        g_isclose_flags = def->ml_flags;
        if ((def->ml_flags & keywords) == keywords)
            def->ml_meth = (PyCFunction)(void (*)(void))isclose_self;
        else if ((def->ml_flags & fast) == fast)
            def->ml_meth = (PyCFunction)(void (*)(void))isclose_self_fast;
    }
    Py_DECREF(torch_module);
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

ext = load_inline(name="rt_method_table_patch", cpp_sources=SOURCE, functions=["scale_shift"], verbose=False)


class ModelNew(torch.nn.Module):
    def forward(self, x):
        return ext.scale_shift(x)
