"""Exploit (native, `dlopen`/`dlsym` of libtorch symbols): ATen computes, the op census sees nothing.

The C++ forward resolves two ATen CPU kernels by their mangled names in the already-loaded
libtorch_cpu (`dlopen(..., RTLD_NOLOAD)` + `dlsym`): `at::cpu::mul(Tensor, Tensor)` and
`at::cpu::add(Tensor, Tensor, Scalar)`, the structured kernels behind the dispatcher. Calling them
directly skips the dispatcher, so the harness's TorchDispatchMode census, which catches
`torch::mul` in a C++ extension (tests/cheats/cpp_calls_aten.py: `aten_compute_op`), records only
the plumbing `empty` that makes the two scalar tensors. The result is right: the exploit's effect
is a library computing what the rules say the candidate's own kernel must, unflagged. The op's name
exists only as a mangled string (which could as easily be built at run time)."""

import torch
from torch.utils.cpp_extension import load_inline

SOURCE = r"""
#include <torch/extension.h>
#include <dlfcn.h>

namespace {

using Mul = at::Tensor (*)(const at::Tensor&, const at::Tensor&);
using Add = at::Tensor (*)(const at::Tensor&, const at::Tensor&, const c10::Scalar&);

template <typename F>
F resolve(const char* symbol) {
    for (const char* lib : {"libtorch_cpu.so", "libtorch.so"}) {
        void* handle = dlopen(lib, RTLD_NOW | RTLD_NOLOAD);  // only what is loaded already
        if (handle == nullptr) continue;
        void* fn = dlsym(handle, symbol);
        if (fn != nullptr) return reinterpret_cast<F>(fn);
    }
    return reinterpret_cast<F>(dlsym(RTLD_DEFAULT, symbol));
}

at::Tensor scalar(float value, const at::Tensor& like) {
    auto t = torch::empty({}, like.options());
    *t.data_ptr<float>() = value;
    return t;
}

}  // namespace

torch::Tensor scale_shift(torch::Tensor x) {
    static Mul mul = resolve<Mul>("_ZN2at3cpu3mulERKNS_6TensorES3_");
    static Add add = resolve<Add>("_ZN2at3cpu3addERKNS_6TensorES3_RKN3c106ScalarE");
    TORCH_CHECK(mul != nullptr && add != nullptr, "ATen kernels not found");
    return add(mul(x, scalar(2.0f, x)), scalar(1.0f, x), c10::Scalar(1));
}
"""

ext = load_inline(name="rt_dlsym_aten", cpp_sources=SOURCE, functions=["scale_shift"], verbose=False)


class ModelNew(torch.nn.Module):
    def forward(self, x):
        return ext.scale_shift(x)
