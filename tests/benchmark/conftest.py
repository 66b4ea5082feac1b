"""Fixtures shared by the benchmark tests."""

from __future__ import annotations

import pytest

Y_2X_PLUS_1 = "out[i] = in[i] * 2.0f + 1.0f;"  # the scale_shift task's right answer


def make_cpp_candidate(
    name: str,
    body: str = Y_2X_PLUS_1,
    *,
    headers: str = "",
    no_implicit: bool = False,
    comment: str = "",
    lazy: bool = False,
) -> str:
    """A C++ load_inline candidate for y = 2x + 1 (the scale_shift task) whose extension is called
    `name`, its loop body computing out[i] from in[i]. `headers` open main.cpp, and with
    `no_implicit` they are all it has (load_inline adds no torch/extension.h); a `comment` line
    makes other code around the same extension; `lazy` builds it in ModelNew.__init__ instead of
    at import."""
    source = (
        f"{headers}torch::Tensor apply(torch::Tensor x) {{\n"
        "    auto xc = x.contiguous();\n"
        "    auto y = torch::empty_like(xc);\n"
        "    const float* in = xc.data_ptr<float>();\n"
        "    float* out = y.data_ptr<float>();\n"
        f"    for (int64_t i = 0; i < xc.numel(); ++i) {{ {body} }}\n"
        "    return y;\n"
        "}\n"
    )
    extra = ", no_implicit_headers=True" if no_implicit else ""
    build = f"load_inline(name={name!r}, cpp_sources={source!r}, functions=['apply'], extra_cflags=['-O0']{extra})"
    lines = [f"# {comment}"] if comment else []
    lines += ["import torch", "from torch.utils.cpp_extension import load_inline", ""]
    if not lazy:
        lines += [f"ext = {build}", "", ""]
    lines += ["class ModelNew(torch.nn.Module):"]
    if lazy:
        lines += ["    def __init__(self):", "        super().__init__()", f"        self.ext = {build}", ""]
    lines += ["    def forward(self, x):", f"        return {'self.ext' if lazy else 'ext'}.apply(x)", ""]
    return "\n".join(lines)


@pytest.fixture
def cpp_candidate():
    """make_cpp_candidate: `cpp_candidate("my_ext")` is the right answer built as extension my_ext."""
    return make_cpp_candidate
