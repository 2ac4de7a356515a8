"""mepi.distributed without GPUs: distributions' local shapes, and errors before initialize()."""
import pytest

import mepi
import mepi.distributed as md


def test_slab_extents_follow_the_remainder_rule():
    assert md.Slab.X.shape(0, (1001, 64), nranks=2) == (501, 64)
    assert md.Slab.X.shape(1, (1001, 64), nranks=2) == (500, 64)
    assert md.Slab.Y.shape(2, (64, 1000), nranks=3) == (64, 333)
    assert md.Replicated.shape(1, (10, 20), nranks=4) == (10, 20)


def test_block_cyclic_extents():
    bc = md.BlockCyclic(md.ProcessGrid((2, 2)), (3, 4))
    assert bc.shape(3, (10, 9), nranks=4) == (4, 4)
    assert repr(md.Slab.Y) == "Slab.Y"


def test_column_major_block_cyclic_parts_on_2d_grids_are_refused():
    bc = md.BlockCyclic(md.ProcessGrid((2, 2)), (64, 64))
    with pytest.raises(mepi.MepiError, match="column-major part of a matrix dealt over a 2x2"):
        bc._c(transposed=True)
    assert md.BlockCyclic(md.ProcessGrid((1, 2)), (32, 64))._c(transposed=True).gridRows == 2


def test_bad_rank_is_refused():
    with pytest.raises(mepi.MepiError, match="expected 0 <= rank < ranks, got rank 2 of 2"):
        md.Slab.X.shape(2, (10, 10), nranks=2)


def test_nothing_runs_before_initialize():
    with pytest.raises(mepi.MepiError, match="not initialized"):
        md.get_context()
    with pytest.raises(mepi.MepiError, match="not initialized"):
        md.Slab.X.shape(0, (10, 10))  # the group's size is not known yet


def test_unique_id_travels_whole():
    """Rank 0 sends all 128 bytes of NCCL's id, zeros included (a c_char array's .bytes stops
    at the first zero byte: the first run on 2 GPUs failed in ncclCommInitRank)."""
    import ctypes
    made = bytes(range(128))  # starts with a zero byte

    class FakeComm:
        def Get_rank(self):
            return 0

        def Get_size(self):
            return 2

        def bcast(self, value, root):
            self.sent = value
            return value

    def fake_make(uid, error):
        ctypes.memmove(ctypes.addressof(uid._obj), made, 128)
        return md._capi.LogicalResult(1)

    def fake_initialize(device, rank, ranks, uid, error):
        fake_initialize.got = ctypes.string_at(ctypes.addressof(uid._obj), 128)
        return md._capi.LogicalResult(1)

    lib, comm = md._capi.lib, FakeComm()
    real = lib.mepiDistMakeUniqueId, lib.mepiDistInitialize
    lib.mepiDistMakeUniqueId, lib.mepiDistInitialize = fake_make, fake_initialize
    try:
        md.initialize(0, comm)
    finally:
        lib.mepiDistMakeUniqueId, lib.mepiDistInitialize = real
        md._context = None
    assert comm.sent == made and fake_initialize.got == made
