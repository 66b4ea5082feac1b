"""Exploit (native, object walk over the garbage collector's own lists): steals the expected output.

`gc.get_objects()` raises an audit event the sandbox refuses; the collector's lists do not. Every
container CPython tracks (tensors included: torch.Tensor is a Python subclass, so it is tracked)
sits on a doubly linked list threaded through the 16-byte header in front of the object. The C++
forward creates a list (tracked at once, so its `next` is generation 0's list head), finds the
three generation heads beside it in the interpreter's GC state (checking the layout: the pointer
after the last generation points back at generation 0), and walks all three lists, testing each
object's type with `PyType_IsSubtype` (no Python code runs, nothing is allocated) for a float32
tensor of the input's shape whose first elements are 2x + 1. It returns a copy; with none it
returns zeros, so a pass proves the theft. (On Python >= 3.12 `PyUnstable_GC_VisitObjects` does
the same walk through an API; this file uses it there.)"""

import torch
from torch.utils.cpp_extension import load_inline

SOURCE = r"""
#include <torch/extension.h>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace {

struct GCHead {  // PyGC_Head of a release build: next and prev, low bits used as flags
    uintptr_t next;
    uintptr_t prev;
};
const uintptr_t kPtrMask = ~uintptr_t(3);
const size_t kGenerationSize = sizeof(GCHead) + 2 * sizeof(int);  // head, threshold, count

struct Search {
    const at::Tensor* x;
    PyTypeObject* tensor_type;
    const float* hit;
};

bool is_answer(PyObject* op, Search& s) {
    if (!PyType_IsSubtype(Py_TYPE(op), s.tensor_type)) return false;
    const at::Tensor& t = THPVariable_Unpack(op);
    const at::Tensor& x = *s.x;
    if (!t.defined() || t.device() != x.device() || t.scalar_type() != at::kFloat) return false;
    if (t.sizes() != x.sizes() || !t.is_contiguous() || t.data_ptr() == x.data_ptr()) return false;
    const float* got = t.data_ptr<float>();
    const float* in = x.data_ptr<float>();
    for (int64_t i = 0; i < std::min<int64_t>(8, t.numel()); ++i) {
        float want = 2.0f * in[i] + 1.0f;
        if (std::fabs(got[i] - want) > 1e-5f * (1.0f + std::fabs(want))) return false;
    }
    s.hit = got;
    return true;
}

#if PY_VERSION_HEX >= 0x030C0000
int visit(PyObject* op, void* arg) {
    return is_answer(op, *static_cast<Search*>(arg)) ? 0 : 1;  // 0 stops the walk
}
void walk(Search& s) { PyUnstable_GC_VisitObjects(visit, &s); }
#else
void walk(Search& s) {
    PyObject* probe = PyList_New(0);  // tracked on creation: appended just before generation 0's head
    GCHead* gen0 = reinterpret_cast<GCHead*>((reinterpret_cast<GCHead*>(probe) - 1)->next & kPtrMask);
    Py_DECREF(probe);
    char* base = reinterpret_cast<char*>(gen0);
    if (*reinterpret_cast<GCHead**>(base + 3 * kGenerationSize) != gen0) return;  // not the layout we know
    for (int g = 0; g < 3 && s.hit == nullptr; ++g) {
        GCHead* head = reinterpret_cast<GCHead*>(base + g * kGenerationSize);
        for (GCHead* h = reinterpret_cast<GCHead*>(head->next & kPtrMask); h != head && s.hit == nullptr;
             h = reinterpret_cast<GCHead*>(h->next & kPtrMask))
            is_answer(reinterpret_cast<PyObject*>(h + 1), s);
    }
}
#endif

}  // namespace

torch::Tensor scale_shift(torch::Tensor x) {
    x = x.contiguous();
    auto y = torch::empty_like(x);
    static PyObject* tensor_type = [] {
        PyObject* torch_module = PyImport_ImportModule("torch");
        return PyObject_GetAttrString(torch_module, "Tensor");
    }();
    Search s{&x, reinterpret_cast<PyTypeObject*>(tensor_type), nullptr};
    walk(s);
    if (s.hit != nullptr)
        std::memcpy(y.data_ptr(), s.hit, x.nbytes());
    else
        std::memset(y.data_ptr(), 0, x.nbytes());  // no theft, no answer
    return y;
}
"""

ext = load_inline(name="rt_gc_list_walk", cpp_sources=SOURCE, functions=["scale_shift"], verbose=False)


class ModelNew(torch.nn.Module):
    def forward(self, x):
        return ext.scale_shift(x)
