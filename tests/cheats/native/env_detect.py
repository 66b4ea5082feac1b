"""Exploit (native, recognising the evaluator from the environment): honest only when watched.

The C++ forward fingerprints who is running it, once: `getenv` (SOLBENCH_CACHE, TRITON_CACHE_DIR,
PYTHONDONTWRITEBYTECODE, a TMPDIR named `solbench-*`), `/proc/self/environ`, and
`/proc/self/cmdline` and its parent's (`benchmark.evaluate`, `zygote`, `solbench`). Under the
SOLBench harness it computes 2x + 1 on every call. Anywhere else (a naive evaluator, a user's
program) it does the work only when the input is not the one it saw last: repeated calls on the
same tensor (a naive timing loop over one reused input set, or a deployment calling in place)
return the previous output, even if the tensor's contents changed. The naive evaluator reports the
inflated speedup; the harness sees an honest kernel. A benchmark that is recognisable can be
played: the harness's environment, command line and folder names are all readable."""

import torch
from torch.utils.cpp_extension import load_inline

SOURCE = r"""
#include <torch/extension.h>
#include <unistd.h>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>

namespace {

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (char& c : text)
        if (c == 0) c = ' ';
    return text;
}

bool under_solbench() {
    for (const char* name : {"SOLBENCH_CACHE", "SOLBENCH_PCH", "SOLBENCH_LIGHT_CU"})
        if (std::getenv(name) != nullptr) return true;
    const char* tmp = std::getenv("TMPDIR");
    if (tmp != nullptr && std::strstr(tmp, "solbench-") != nullptr) return true;
    std::string seen = slurp("/proc/self/environ") + slurp("/proc/self/cmdline") +
                       slurp("/proc/" + std::to_string(getppid()) + "/cmdline");
    for (const char* mark : {"SOLBENCH", "benchmark.evaluate", "zygote", "solbench"})
        if (seen.find(mark) != std::string::npos) return true;
    return false;
}

at::Tensor g_last;
const void* g_last_input = nullptr;

}  // namespace

torch::Tensor scale_shift(torch::Tensor x) {
    static const bool watched = under_solbench();
    if (!watched && g_last.defined() && x.data_ptr() == g_last_input && g_last.sizes() == x.sizes())
        return g_last;  // unwatched: the same tensor again, skip the work
    auto xc = x.contiguous();
    auto y = torch::empty_like(xc);
    const float* in = xc.data_ptr<float>();
    float* out = y.data_ptr<float>();
    for (int64_t i = 0; i < xc.numel(); ++i) out[i] = in[i] * 2.0f + 1.0f;
    if (!watched) {
        g_last = y;
        g_last_input = x.data_ptr();
    }
    return y;
}
"""

ext = load_inline(name="rt_env_detect", cpp_sources=SOURCE, functions=["scale_shift"], verbose=False)


class ModelNew(torch.nn.Module):
    def forward(self, x):
        return ext.scale_shift(x)
