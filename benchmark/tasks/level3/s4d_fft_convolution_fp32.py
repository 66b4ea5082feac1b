"""S4D layer: build each channel's long convolution kernel from a diagonal complex state space, apply it with an FFT, add a skip and GELU."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

SOLBENCH = {"level": 3, "tags": ["ssm", "fft", "long_convolution", "complex"], "dtype": "float32", "difficulty": 3, "atol": 2e-4, "rtol": 2e-4}

BATCH, CHANNELS, SEQ, STATE = 16, 512, 4096, 32


class Model(nn.Module):
    def __init__(self, channels: int, state: int):
        super().__init__()
        half = state // 2  # conjugate pairs: keep one of each
        self.log_dt = nn.Parameter(torch.rand(channels) * (math.log(0.1) - math.log(0.001)) + math.log(0.001))
        self.log_a_real = nn.Parameter(torch.log(0.5 * torch.ones(channels, half)))
        self.a_imag = nn.Parameter(math.pi * torch.arange(half, dtype=torch.float32).repeat(channels, 1))
        self.c = nn.Parameter(torch.randn(channels, half, 2) * 0.5)
        self.d = nn.Parameter(torch.randn(channels))

    def kernel(self, length: int) -> torch.Tensor:
        dt = torch.exp(self.log_dt)[:, None]
        a = torch.complex(-torch.exp(self.log_a_real), self.a_imag)  # (c, n)
        dta = a * dt
        c = torch.view_as_complex(self.c) * (torch.exp(dta) - 1.0) / a  # zero-order-hold discretisation
        steps = torch.arange(length, device=dta.device, dtype=torch.float32)
        vandermonde = torch.exp(dta[..., None] * steps)  # (c, n, length)
        return 2.0 * torch.einsum("cn,cnl->cl", c, vandermonde).real

    def forward(self, u: torch.Tensor) -> torch.Tensor:
        length = u.shape[-1]  # u: (batch, channels, length)
        k = self.kernel(length)
        y = torch.fft.irfft(torch.fft.rfft(u, n=2 * length) * torch.fft.rfft(k, n=2 * length), n=2 * length)
        return F.gelu(y[..., :length] + u * self.d[:, None])


def get_inputs():
    return [torch.randn(BATCH, CHANNELS, SEQ)]


def get_init_inputs():
    return [CHANNELS, STATE]


def get_alt_inputs():
    return [[torch.randn(1, CHANNELS, 3)], [torch.randn(2, CHANNELS, 301)]]
