"""The arena: the one buffer the judge and the candidate's process share, through which inputs go
to the candidate and its outputs come back. The judge allocates it and owns its layout; the
candidate's process maps it (a memfd on the CPU, a CUDA IPC handle on the GPU) and never sees any
other memory of the judge. What the judge must keep from the candidate (the reference, its expected
outputs) never enters it.

Tensors travel packed: their bytes contiguous at a 256-byte aligned offset, their own shape, stride
and dtype in a `ValueSpec`; other values travel as JSON. Whoever reads a tensor copies it out at once:
the other side can write the arena at any time."""

from __future__ import annotations

import base64
import mmap
import os
import pickle
from collections.abc import Iterator
from dataclasses import dataclass

import torch

from benchmark.evaluate.boundary import ArenaHandle, BoundaryError, ValueSpec

ALIGN = 256
JSON_SCALARS = (int, float, bool, str, type(None))


def aligned(n: int) -> int:
    return (n + ALIGN - 1) // ALIGN * ALIGN


def tensor_nbytes(t: torch.Tensor) -> int:
    return t.numel() * t.element_size()


def values_nbytes(values: object) -> int:
    """Room the tensors among `values` take in the arena, alignment included."""
    if isinstance(values, torch.Tensor):
        return aligned(tensor_nbytes(values))
    if isinstance(values, list | tuple):
        return sum(values_nbytes(v) for v in values)
    return 0


def dtype_named(name: str) -> torch.dtype:
    dtype = getattr(torch, name, None) if name.isidentifier() else None
    if not isinstance(dtype, torch.dtype):
        raise BoundaryError(f"no dtype {name!r}")
    return dtype


def dtype_name(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")


class Arena:
    """A shared byte buffer: `create` on the judge's side, `attach` on the candidate's."""

    def __init__(self, buffer: torch.Tensor, handle: ArenaHandle, keep: object = None):
        self.buffer = buffer  # uint8, one dimension
        self.handle = handle
        self._keep = keep  # what must outlive the buffer (the mapping, the pool)

    @property
    def nbytes(self) -> int:
        return self.buffer.numel()

    @classmethod
    def create(cls, nbytes: int, device: torch.device) -> tuple[Arena, list[int]]:
        """A new arena of at least `nbytes` on `device`, and the descriptors its handle needs sent."""
        nbytes = max(aligned(nbytes), ALIGN)
        if device.type == "cuda":
            return cls._create_cuda(nbytes, device), []
        fd = os.memfd_create("solbench-arena", os.MFD_CLOEXEC)
        os.ftruncate(fd, nbytes)
        mapping = mmap.mmap(fd, nbytes)
        buffer = torch.frombuffer(mapping, dtype=torch.uint8)
        return cls(buffer, ArenaHandle("memfd", nbytes), (mapping, fd)), [fd]

    @classmethod
    def _create_cuda(cls, nbytes: int, device: torch.device) -> Arena:
        """A CUDA buffer in a memory pool of its own, so the segment an IPC handle opens holds this
        buffer and nothing else of the judge's."""
        from torch.multiprocessing.reductions import reduce_tensor

        device = torch.device("cuda", torch.cuda.current_device() if device.index is None else device.index)
        pool = torch.cuda.MemPool()
        with torch.cuda.use_mem_pool(pool, device=device):
            buffer = torch.empty(nbytes, dtype=torch.uint8, device=device)
        torch.cuda.synchronize(device)
        payload = base64.b64encode(pickle.dumps(reduce_tensor(buffer))).decode()
        return cls(buffer, ArenaHandle("cuda_ipc", nbytes, payload), pool)

    @classmethod
    def attach(cls, handle: ArenaHandle, fds: list[int]) -> Arena:
        """The judge's arena, mapped into this process (the candidate's)."""
        if handle.kind == "memfd":
            if len(fds) != 1:
                raise BoundaryError("a memfd arena comes with one descriptor")
            mapping = mmap.mmap(fds[0], handle.nbytes)
            os.close(fds[0])
            return cls(torch.frombuffer(mapping, dtype=torch.uint8), handle, mapping)
        if handle.kind == "cuda_ipc":
            rebuild, args = pickle.loads(base64.b64decode(handle.payload))  # the judge's own data
            return cls(rebuild(*args), handle)
        raise BoundaryError(f"no arena of kind {handle.kind!r}")

    def close(self) -> None:
        """Drop this side's mapping (the memfd's pages go with the last one)."""
        self.buffer = torch.empty(0, dtype=torch.uint8)
        keep, self._keep = self._keep, None
        if isinstance(keep, tuple):
            mapping, fd = keep
            mapping.close()
            os.close(fd)
        elif isinstance(keep, mmap.mmap):
            keep.close()

    # writing

    def pack(
        self, values: list | tuple, offset: int, limit: int, layout: bool = False
    ) -> tuple[list[ValueSpec], int]:
        """Write `values` from `offset` on (at most up to byte `limit`); their specs and the next free
        offset. `layout`: each tensor's storage span goes, so the reader rebuilds its exact strides
        (an expanded or transposed input stays one); otherwise its values go, packed contiguously.
        A tensor that does not fit is described but not copied (`copied` False)."""
        specs, offset = self.place(values, offset, limit, layout, write=True)
        if self.buffer.is_cuda:  # the other process reads as soon as it is told: the copies are done first
            torch.cuda.synchronize(self.buffer.device)
        return specs, offset

    def place(
        self, values: list | tuple, offset: int, limit: int, layout: bool = False, write: bool = False
    ) -> tuple[list[ValueSpec], int]:
        """The specs `pack` gives `values` from `offset` on, and the next free offset; with `write`,
        the values are copied there too (without waiting for the copies)."""
        specs = []
        for v in values:
            spec, offset = self._place_one(v, offset, limit, layout, write)
            specs.append(spec)
        return specs, offset

    def _place_one(
        self, v: object, offset: int, limit: int, layout: bool, write: bool
    ) -> tuple[ValueSpec, int]:
        if isinstance(v, torch.Tensor):
            n = _nbytes_of(v, layout)
            fits = n is not None and offset + n <= limit
            n = n or 0
            spec = ValueSpec(
                "tensor",
                offset=offset,
                nbytes=n,
                shape=tuple(v.shape),
                stride=tuple(v.stride()) if v.layout == torch.strided else (),
                dtype=dtype_name(v.dtype),
                device=str(v.device),
                plain=type(v) is torch.Tensor,
                storage=_has_storage(v),
                copied=fits,
                span=layout,
            )
            if write and fits and n:
                self.region(offset, n).copy_(_bytes_of(v, layout))
            return spec, offset + aligned(n) if fits else offset
        if isinstance(v, list | tuple):
            items, offset = self.place(v, offset, limit, layout, write)
            return ValueSpec("list" if isinstance(v, list) else "tuple", items=tuple(items)), offset
        if isinstance(v, torch.dtype):
            return ValueSpec("value", value={"dtype": dtype_name(v)}), offset
        if isinstance(v, JSON_SCALARS) and not (isinstance(v, float) and v != v):
            return ValueSpec("value", value=v), offset
        return ValueSpec("opaque", value=type(v).__qualname__), offset

    def write(self, values: list | tuple, specs: tuple[ValueSpec, ...]) -> None:
        """Write `values` where `specs` (from `pack` of values of the same layout) placed them, on
        this process's stream and without waiting: for the timing slot, which this process reads next."""
        for v, spec in zip(values, specs, strict=True):
            if isinstance(v, torch.Tensor) and spec.kind == "tensor" and spec.copied and spec.nbytes:
                data = _bytes_of(v, spec.span)
                if data is None or data.numel() != spec.nbytes:
                    raise BoundaryError(f"a value of {spec.shape} does not fit its place in the arena")
                self.region(spec.offset, spec.nbytes).copy_(data)
            elif isinstance(v, list | tuple) and spec.kind in ("list", "tuple"):
                self.write(v, spec.items)

    def copy(self, source: tuple[ValueSpec, ...], target: tuple[ValueSpec, ...]) -> None:
        """Copy the tensors `source` describes onto those `target` describes (the same values placed
        elsewhere in the arena), on this process's stream."""
        for a, b in zip(tensor_specs(source), tensor_specs(target), strict=True):
            if a.nbytes != b.nbytes:
                raise BoundaryError(f"{a.nbytes} bytes do not fit a place of {b.nbytes}")
            if a.copied and b.copied and a.nbytes:
                self.region(b.offset, b.nbytes).copy_(self.region(a.offset, a.nbytes))

    def region(self, offset: int, nbytes: int) -> torch.Tensor:
        if offset < 0 or nbytes < 0 or offset + nbytes > self.nbytes:
            raise BoundaryError(f"bytes {offset}..{offset + nbytes} are outside the arena ({self.nbytes})")
        return self.buffer[offset : offset + nbytes]

    # reading

    def unpack(self, specs: tuple[ValueSpec, ...] | list[ValueSpec], device: torch.device) -> list:
        """The values the specs describe, each tensor copied out of the arena onto `device`: with its
        exact layout where its span was sent, else contiguous (its own stride stays in the spec). An
        opaque value comes back as `Opaque`; an uncopied tensor as `Uncopied`."""
        return [self._unpack_one(s, device) for s in specs]

    def views(self, specs: tuple[ValueSpec, ...] | list[ValueSpec]) -> list:
        """The values the specs describe, each tensor a view of the arena itself (no copy), on the
        arena's device: the timing slot, which both processes read in place."""
        return [self._unpack_one(s, self.buffer.device, view=True) for s in specs]

    def _unpack_one(self, spec: ValueSpec, device: torch.device, view: bool = False) -> object:
        if spec.kind == "tensor":
            if not spec.copied:
                return Uncopied(spec)
            dtype = dtype_named(spec.dtype)
            size = torch.empty(0, dtype=dtype).element_size()
            if spec.nbytes % size:
                raise BoundaryError(f"{spec.nbytes} bytes do not hold {spec.dtype} elements")
            elements = spec.nbytes // size
            raw = self.region(spec.offset, spec.nbytes)
            if spec.span:
                if _span_elements(spec.shape, spec.stride) > elements:
                    raise BoundaryError(
                        f"a span of {elements} elements does not hold {spec.shape}, {spec.stride}"
                    )
                if view:
                    return raw.view(dtype).as_strided(spec.shape, spec.stride)
                storage = torch.empty(elements, dtype=dtype, device=device)
                if elements:
                    storage.view(torch.uint8).copy_(raw)
                return storage.as_strided(spec.shape, spec.stride)
            if _numel(spec.shape) != elements:
                raise BoundaryError(f"{spec.nbytes} bytes do not hold a {spec.dtype} tensor of {spec.shape}")
            if view:
                return raw.view(dtype).view(spec.shape)
            out = torch.empty(spec.shape, dtype=dtype, device=device)
            if elements:
                out.view(-1).view(torch.uint8).copy_(raw)
            return out
        if spec.kind in ("list", "tuple"):
            items = self.views(spec.items) if view else self.unpack(spec.items, device)
            return items if spec.kind == "list" else tuple(items)
        if spec.kind == "value":
            if isinstance(spec.value, dict) and set(spec.value) == {"dtype"}:
                return dtype_named(spec.value["dtype"])
            return spec.value
        if spec.kind == "opaque":
            return Opaque(str(spec.value))
        raise BoundaryError(f"no value of kind {spec.kind!r}")


@dataclass(frozen=True)
class Opaque:
    """An output that is neither a tensor nor a JSON value: only its type's name came back."""

    type_name: str

    def __repr__(self) -> str:
        return f"<{self.type_name}>"


@dataclass(frozen=True)
class Uncopied:
    """A tensor output larger than the room the judge gave (so of the wrong shape or dtype): only its
    description came back."""

    spec: ValueSpec


def tensor_specs(specs: list[ValueSpec] | tuple[ValueSpec, ...]) -> Iterator[ValueSpec]:
    """Every tensor spec among `specs`, nested ones included, in order."""
    for s in specs:
        if s.kind == "tensor":
            yield s
        elif s.kind in ("list", "tuple"):
            yield from tensor_specs(s.items)


def _numel(shape: tuple[int, ...]) -> int:
    n = 1
    for d in shape:
        if d < 0:
            raise BoundaryError(f"negative size in {shape}")
        n *= d
    return n


def _span_elements(shape: tuple[int, ...], stride: tuple[int, ...]) -> int:
    """Elements of storage a tensor of this shape and stride reaches from its first one."""
    if len(stride) != len(shape) or any(s < 0 for s in stride):
        raise BoundaryError(f"stride {stride} does not fit shape {shape}")
    if _numel(shape) == 0:
        return 0
    return 1 + sum((d - 1) * s for d, s in zip(shape, stride, strict=True))


def _has_storage(t: torch.Tensor) -> bool:
    if t.device.type == "meta":
        return False
    try:
        t.untyped_storage().data_ptr()
    except (RuntimeError, NotImplementedError):
        return False
    return True


def _values_of(t: torch.Tensor) -> torch.Tensor | None:
    """A tensor's values as contiguous bytes, through torch.Tensor's own methods (a subclass's are
    not called); None for a tensor with no readable storage."""
    if not _has_storage(t) or t.layout != torch.strided:
        return None
    return torch.Tensor.contiguous(torch.Tensor.detach(t)).reshape(-1).view(torch.uint8)


def _nbytes_of(t: torch.Tensor, layout: bool) -> int | None:
    """How many bytes `_bytes_of` gives, without making them."""
    if not _has_storage(t) or t.layout != torch.strided:
        return None
    elements = _span_elements(tuple(t.shape), tuple(t.stride())) if layout else t.numel()
    return elements * t.element_size()


def _bytes_of(t: torch.Tensor, layout: bool) -> torch.Tensor | None:
    """What of `t` goes into the arena: its storage span with `layout`, else its values."""
    return _span_of(t) if layout else _values_of(t)


def _span_of(t: torch.Tensor) -> torch.Tensor | None:
    """The bytes of storage a tensor reaches, from its first element: its exact layout travels."""
    if not _has_storage(t) or t.layout != torch.strided:
        return None
    n = _span_elements(tuple(t.shape), tuple(t.stride()))
    return torch.Tensor.detach(t).as_strided((n,), (1,)).contiguous().view(torch.uint8)
