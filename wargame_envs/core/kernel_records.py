"""Handing state and tables to compiled rules at the cost of a pointer.

A battle packs its scenario tables into one array laid out by a structured dtype and keeps its game state in
one int32 buffer. Inside numba, :func:`as_record` reads such an array as one numpy record (``T.neighbors[h, d]``,
``g.sc[k]``): a record is a pointer to the data, so passing it from rule function to rule function costs one
pointer, where a tuple of arrays costs an atomic reference count per array and call. :func:`borrowed` and
:func:`borrowed_view` drop the reference count of arrays (or 1-D slices of them) that outlive the call, for
the same reason. Under ``NUMBA_DISABLE_JIT`` (or without numba) they are plain numpy records, arrays and
slices, so the rules run as ordinary Python.
"""

from __future__ import annotations

import numpy as np

from .jit import COMPILED


def record(arr: np.ndarray, dt: np.dtype) -> np.record:
    """``arr``'s memory as one numpy record of dtype ``dt`` (array fields are views: writes go to ``arr``);
    what Python hands a rule where compiled code uses :func:`as_record`."""
    return arr.view(dtype=dt, type=np.recarray)[0]


def _jit_enabled() -> bool:
    if not COMPILED:
        return False
    from numba import config

    return not config.DISABLE_JIT


if not _jit_enabled():
    as_record = record

    def borrowed(arr):
        return arr

    def borrowed_view(buf, start, stop):
        return buf[start:stop]
else:
    from numba.core import cgutils, types
    from numba.extending import intrinsic
    from numba.np.arrayobj import make_array, populate_array

    @intrinsic
    def as_record(typingctx, arr, dt):
        """``arr``'s memory as one record of dtype ``dt``. ``arr`` must be contiguous, hold ``dt.itemsize``
        bytes (the callers pass the buffers the dtypes were made for) and outlive the record."""
        rec_type = dt.dtype

        def codegen(context, builder, signature, args):
            ary = context.make_array(signature.args[0])(context, builder, value=args[0])
            return builder.bitcast(ary.data, context.get_value_type(rec_type))

        return rec_type(arr, dt), codegen

    @intrinsic
    def borrowed(typingctx, arr):
        """``arr`` without its reference count. Only for arrays that outlive the call (an entry kernel's
        arguments)."""

        def codegen(context, builder, signature, args):
            ary = context.make_array(arr)(context, builder, value=args[0])
            ary.meminfo = cgutils.get_null_value(ary.meminfo.type)
            ary.parent = cgutils.get_null_value(ary.parent.type)
            return ary._getvalue()

        return arr(arr), codegen

    @intrinsic
    def borrowed_view(typingctx, buf, start, stop):
        """``buf[start:stop]`` (1-D, contiguous) holding no reference to ``buf``'s memory: valid while
        ``buf`` is (the state buffers a kernel is called with)."""
        out_t = types.Array(buf.dtype, 1, "C")

        def codegen(context, builder, signature, args):
            ary = make_array(signature.args[0])(context, builder, value=args[0])
            out = make_array(out_t)(context, builder)
            itemsize = context.get_abi_sizeof(context.get_data_type(buf.dtype))
            first, last = args[1], args[2]
            populate_array(out, data=builder.gep(ary.data, [first]), shape=[builder.sub(last, first)],
                           strides=[context.get_constant(types.intp, itemsize)], itemsize=itemsize, meminfo=None)
            return out._getvalue()

        return out_t(buf, types.intp, types.intp), codegen
