"""A game's :class:`~.kstate.Bound` record handed from Python to the entry kernels as an int: its address.

A call from Python into compiled code checks the type of each argument: for a record (a numba StructRef,
``records.py``) that costs most of a microsecond, for an int a tenth of that, and the AEC env makes two
such calls per decision. So the engine takes the address of a game's record once (:func:`bound_address`
from Python, :func:`address_of` in a kernel), keeps the record alive as long as it hands the address over
(on the state, next to the address), and each entry kernel takes the record back with :func:`load_bound`.
With numba's JIT disabled the "address" is the record itself.
"""

from __future__ import annotations

from .records import JIT

if not JIT:
    def bound_address(rec):
        return rec

    def address_of(rec):
        return rec

    def load_bound(address):
        return address
else:
    from numba.core import cgutils, types
    from numba.extending import intrinsic

    from ...core.jit import kernel

    # The numba type of a Bound record: the same for every engine (its fields' types follow from the code), so
    # known from the first record made, before any entry kernel that loads one is compiled.
    _BOUND_TYPE: list = []

    @intrinsic
    def address_of(typingctx, rec):
        """In a kernel: the address of ``rec`` (a ``Bound`` of the registered type, :func:`bound_address`)."""
        def codegen(context, builder, signature, args):
            ref = cgutils.create_struct_proxy(rec)(context, builder, value=args[0])
            return builder.ptrtoint(ref.meminfo, cgutils.intp_t)

        return types.intp(rec), codegen

    @kernel
    def _address_of(rec):
        return address_of(rec)

    def bound_address(rec) -> int:
        """The address of ``rec`` (a ``Bound``) for :func:`load_bound`: valid while ``rec`` lives."""
        ty = rec._numba_type_  # (what numba.typeof reads, without its dispatch: a state's first use pays it)
        if not _BOUND_TYPE:
            _BOUND_TYPE.append(ty)
        elif ty != _BOUND_TYPE[0]:
            raise TypeError(f"a Bound record of another type than the first one: {ty} != {_BOUND_TYPE[0]}")
        return _address_of(rec)

    @intrinsic
    def load_bound(typingctx, address):
        """The record at ``address`` (:func:`bound_address`), holding a reference for the kernel's use."""
        rec = _BOUND_TYPE[0]

        def codegen(context, builder, signature, args):
            ref = cgutils.create_struct_proxy(rec)(context, builder)
            ref.meminfo = builder.inttoptr(args[0], cgutils.voidptr_t)
            value = ref._getvalue()
            context.nrt.incref(builder, rec, value)
            return value

        return rec(address), codegen
