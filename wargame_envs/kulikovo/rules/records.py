"""Named records the compiled rules pass around (the state context ``c``, the tables ``T``).

Compiled, a record is a numba StructRef: a kernel receives it as one pointer, however many arrays it
holds (a namedtuple of arrays would be passed member by member, and a rule function with several
``return`` statements would then pay a reference count on every member on every call). Its fields can be
set, in compiled code only (``c.dv = dv``). With numba's JIT disabled it is a plain Python object with
the same fields: the same code runs as Python.
"""

from __future__ import annotations

try:
    from numba.core import config
    JIT = not config.DISABLE_JIT
except ImportError:  # pragma: no cover - numba is a dependency
    JIT = False


def record(name: str, fields: tuple[str, ...]):
    """A record class with ``fields``, built positionally (``Rec(a, b, ...)``) in Python or compiled code."""
    if not JIT:
        return _plain(name, fields)
    from numba import types
    from numba.experimental import structref

    class RecordType(types.StructRef):
        def preprocess_fields(self, fs):
            return tuple((n, types.unliteral(t)) for n, t in fs)

    RecordType.__name__ = RecordType.__qualname__ = f"{name}Type"
    structref.register(RecordType)
    proxy = type(name, (structref.StructRefProxy,), {"__module__": __name__})
    structref.define_proxy(proxy, RecordType, list(fields))
    globals()[RecordType.__name__] = RecordType  # picklable by name (the kernels' on-disk cache)
    globals()[f"{name}Proxy"] = proxy
    proxy.__qualname__ = proxy.__name__ = f"{name}Proxy"
    return proxy


def _plain(name: str, fields: tuple[str, ...]) -> type:
    """The record class of uncompiled code: the fields as attributes (settable, like a StructRef's)."""
    fields = tuple(fields)

    def __init__(self, *values):
        if len(values) != len(fields):
            raise TypeError(f"{name}: expected {len(fields)} values, got {len(values)}")
        for field, value in zip(fields, values):
            setattr(self, field, value)

    return type(name, (), {"__slots__": fields, "__init__": __init__, "__module__": __name__})
