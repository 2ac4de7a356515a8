// Attributes of the mepi dialect: broadcast kinds of epilog inputs and kernel configurations.
#ifndef MEPI_ATTRS_TD
#define MEPI_ATTRS_TD

include "mepi/IR/MepiDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Mepi_BroadcastKind : I32EnumAttr<"BroadcastKind",
    "how an epilog input is indexed by the output element (row, col)", [
      I32EnumAttrCase<"Row", 0, "row">,        // one value per output row: [batch..., M]
      I32EnumAttrCase<"Col", 1, "col">,        // one value per output column: [batch..., N]
      I32EnumAttrCase<"Scalar", 2, "scalar">,  // one value for the whole output
      I32EnumAttrCase<"Matrix", 3, "matrix">,  // one value per element: [batch..., >= M, N]
      // one bit per element, cuBLASLt's ReLU mask: i8 [batch..., >= ceil(M / 8), N], bit
      // row % 8 of byte (row / 8, col)
      I32EnumAttrCase<"Bitmask", 4, "bitmask">,
      // one value per row, repeating: [P] with P dividing M, row r reads r mod P (a batch of
      // P-row elements folded into D's rows, one vector for every element; epilog inputs only)
      I32EnumAttrCase<"CyclicRow", 5, "cyclic_row">
    ]> {
  let cppNamespace = "::mlir::mepi";
  let genSpecializedAttr = 0;
}

def Mepi_BroadcastKindAttr : EnumAttr<Mepi_Dialect, Mepi_BroadcastKind, "broadcast"> {
  let assemblyFormat = "`<` $value `>`";
}
def Mepi_BroadcastKindArrayAttr : TypedArrayAttrBase<Mepi_BroadcastKindAttr,
    "array of epilog input broadcast kinds">;

def Mepi_Combiner : I32EnumAttr<"Combiner", "how a declared reduction combines its values", [
      I32EnumAttrCase<"Add", 0, "add">, // the sum (f32, in a fixed order: deterministic)
      I32EnumAttrCase<"Max", 1, "max">  // the maximum
    ]> {
  let cppNamespace = "::mlir::mepi";
  let genSpecializedAttr = 0;
}
def Mepi_CombinerAttr : EnumAttr<Mepi_Dialect, Mepi_Combiner, "combiner"> {
  let assemblyFormat = "`<` $value `>`";
}
def Mepi_CombinerArrayAttr : TypedArrayAttrBase<Mepi_CombinerAttr, "array of reduction combiners">;

def Mepi_GroupForm : I32EnumAttr<"GroupForm",
    "how a grouped matmul's device operand gives the rows of its groups", [
      // [S]: group g is rows [ends[g - 1], ends[g]) (0 before the first): torch._grouped_mm's offs
      I32EnumAttrCase<"Ends", 0, "ends">,
      // [S + 1]: group g is rows [indptr[g], indptr[g + 1]) (FlashInfer's seg_indptr)
      I32EnumAttrCase<"Indptr", 1, "indptr">,
      // [S]: consecutive groups from row 0, group g of lengths[g] rows (FlashInfer's seg_lens)
      I32EnumAttrCase<"Lengths", 2, "lengths">,
      // [S]: group g is rows [g R, g R + min(masked[g], R)) for R = T / S rows per group
      // (DeepGEMM's masked layout: A [S, R, K] seen as [S R, K], masked_m on the device)
      I32EnumAttrCase<"Masked", 3, "masked">
    ]> {
  let cppNamespace = "::mlir::mepi";
  let genSpecializedAttr = 0;
}
def Mepi_GroupFormAttr : EnumAttr<Mepi_Dialect, Mepi_GroupForm, "group_form"> {
  let assemblyFormat = "`<` $value `>`";
}

def Mepi_ComputeType : I32EnumAttr<"ComputeType", "precision of the products of A and B", [
      I32EnumAttrCase<"F32", 0, "float32">,    // full f32 products and f32 accumulation
      I32EnumAttrCase<"TF32", 1, "fast_tf32"> // f32 operands rounded to tf32 (10-bit mantissa), f32 sums
    ]> {
  let cppNamespace = "::mlir::mepi";
  let genSpecializedAttr = 0;
}
def Mepi_ComputeTypeAttr : EnumAttr<Mepi_Dialect, Mepi_ComputeType, "compute"> {
  let assemblyFormat = "`<` $value `>`";
}

def Mepi_KernelStrategy : I32EnumAttr<"KernelStrategy", "kernel family used for a matmul", [
      I32EnumAttrCase<"Simt", 0, "simt">,  // one thread per output element, CUDA cores
      I32EnumAttrCase<"Wgmma", 1, "wgmma"> // Hopper: TMA loads, mbarrier pipeline, wgmma
    ]> {
  let cppNamespace = "::mlir::mepi";
  let genSpecializedAttr = 0;
}
def Mepi_KernelStrategyAttr : EnumAttr<Mepi_Dialect, Mepi_KernelStrategy, "strategy">;

def Mepi_DStore : I32EnumAttr<"DStore", "how a wgmma kernel's epilog writes D", [
      I32EnumAttrCase<"Staged", 0, "staged">,       // through shared memory, vector stores
      I32EnumAttrCase<"Registers", 1, "registers">, // from the registers, 2-element stores
      I32EnumAttrCase<"Tma", 2, "tma">              // through shared memory, TMA stores
    ]> {
  let cppNamespace = "::mlir::mepi";
  let genSpecializedAttr = 0;
}

def Mepi_Multicast : I32EnumAttr<"Multicast",
    "which operand's tile the blocks of a wgmma cluster share and multicast", [
      // tile rows 2i and 2i + 1 of one tile column: the same tile of B
      I32EnumAttrCase<"B", 0, "b">,
      // tile columns 2j and 2j + 1 of one tile row: the same tile of A
      I32EnumAttrCase<"A", 1, "a">,
      // 2 tile rows x cluster / 2 tile columns: a row's blocks share A's tile, a column's B's
      I32EnumAttrCase<"AB", 2, "ab">
    ]> {
  let cppNamespace = "::mlir::mepi";
  let genSpecializedAttr = 0;
}

def Mepi_TileSchedule : I32EnumAttr<"TileSchedule",
    "how a persistent wgmma kernel hands work units to its blocks", [
      // every unit one whole output tile (per batch element or group)
      I32EnumAttrCase<"DataParallel", 0, "data_parallel">,
      // every tile cut into `splits` consecutive slices of K, summed by the last to finish
      I32EnumAttrCase<"SplitK", 1, "split_k">,
      // the last wave's k-steps shared evenly by every walker
      I32EnumAttrCase<"StreamK", 2, "stream_k">
    ]> {
  let cppNamespace = "::mlir::mepi";
  let genSpecializedAttr = 0;
}

def Mepi_MainloopConfigAttr : AttrDef<Mepi_Dialect, "MainloopConfig"> {
  let mnemonic = "mainloop";
  let summary = "the main loop of a kernel configuration: stages, loads, consumers, accumulator";
  let description = [{
    How a block feeds and runs its tensor cores (CUTLASS's collective mainloop and its
    dispatch policy): `stages` shared-memory buffers of operand tiles in flight; `tma = false`
    has the producer warpgroup's threads load the operands with ordinary loads (rows TMA cannot
    address); `pingpong = true` gives two consumers that take alternate whole tiles;
    `cluster = 2` pairs blocks that multicast the tile they share, B's (`multicast = b`, the
    default: vertically adjacent tiles) or A's (`multicast = a`: horizontally adjacent tiles,
    for short M and wide N); `cluster = 4` or `8` with `multicast = ab` is 2 tile rows by 2 or
    4 tile columns sharing both (for few-wave problems bound by L2's bandwidth); `promote = P`
    > 0 is the
    promoted accumulator policy (every P k-steps the tensor cores' sums are added into a second
    f32 set). The kernel configuration checks the combination with the tile.

    Examples: `#mepi.mainloop<stages = 4, cluster = 2>`,
    `#mepi.mainloop<stages = 6, cluster = 2, multicast = a>`,
    `#mepi.mainloop<stages = 8, cluster = 8, multicast = ab>`.
  }];
  let parameters = (ins DefaultValuedParameter<"int64_t", "1">:$stages,
                        DefaultValuedParameter<"bool", "true">:$tma,
                        DefaultValuedParameter<"bool", "false">:$pingpong,
                        DefaultValuedParameter<"int64_t", "1">:$cluster,
                        DefaultValuedParameter<"int64_t", "0">:$promote,
                        DefaultValuedParameter<"::mlir::mepi::Multicast",
                                               "::mlir::mepi::Multicast::B">:$multicast);
  let assemblyFormat =
      "`<` struct($stages, $tma, $pingpong, $cluster, $promote, $multicast) `>`";
  let builders = [
    AttrBuilder<(ins), [{ return $_get($_ctxt, 1, true, false, 1, 0, Multicast::B); }]>
  ];
  let genVerifyDecl = 1;
}

def Mepi_SchedulerConfigAttr : AttrDef<Mepi_Dialect, "SchedulerConfig"> {
  let mnemonic = "scheduler";
  let summary = "the tile scheduler of a kernel configuration";
  let description = [{
    How work units reach the persistent blocks (CUTLASS's tile schedulers): `data_parallel`
    (the default) gives each unit one whole tile; `split_k` with `splits = S` (2 to 32) cuts each
    tile into S slices of K, whose f32 partials the last block to finish adds in split order
    (deterministic) before the epilog; `stream_k` shares the last wave's k-steps evenly among
    the walkers, its shared units summed like split-K units.

    Examples: `#mepi.scheduler<split_k, splits = 4>`, `#mepi.scheduler<stream_k>`.
  }];
  let parameters = (ins EnumParameter<Mepi_TileSchedule>:$kind,
                        DefaultValuedParameter<"int64_t", "1">:$splits);
  let assemblyFormat = "`<` $kind (`,` `splits` `=` $splits^)? `>`";
  let builders = [
    AttrBuilder<(ins), [{ return $_get($_ctxt, TileSchedule::DataParallel, 1); }]>
  ];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    bool isDataParallel() const { return getKind() == TileSchedule::DataParallel; }
    bool isStreamK() const { return getKind() == TileSchedule::StreamK; }
  }];
}

def Mepi_EpilogueConfigAttr : AttrDef<Mepi_Dialect, "EpilogueConfig"> {
  let mnemonic = "epilogue";
  let summary = "the epilogue of a kernel configuration: how D is stored";
  let description = [{
    `store` is how the epilog writes D. `staged` (the default) takes the accumulators through
    shared memory 32 columns at a time, so that a warp's input loads and D stores are whole
    consecutive vectors; it serves every epilog. When the epilog writes D only (no aux output,
    no reduction), `registers` stores each thread's pairs of elements straight from the
    registers, and `tma` writes each 64 x 128-byte piece of the tile into a swizzled shared
    buffer that one thread hands to a TMA store. `buffers` (tma only) is how many such buffers
    each consumer warpgroup takes in turn: two (the default), so that a piece is written while
    the one before is stored, or one, which leaves 16 KiB more for the main loop's stages.

    Example: `#mepi.epilogue<store = tma>`, `#mepi.epilogue<store = tma, buffers = 1>`.
  }];
  let parameters = (ins DefaultValuedParameter<"::mlir::mepi::DStore",
                                               "::mlir::mepi::DStore::Staged">:$store,
                        DefaultValuedParameter<"int64_t", "2">:$buffers);
  let assemblyFormat = "`<` struct($store, $buffers) `>`";
  let builders = [
    AttrBuilder<(ins), [{ return $_get($_ctxt, DStore::Staged, 2); }]>
  ];
  let genVerifyDecl = 1;
}

def Mepi_KernelConfigAttr : AttrDef<Mepi_Dialect, "KernelConfig"> {
  let mnemonic = "kernel_config";
  let summary = "kernel configuration chosen for one matmul";
  let description = [{
    The kernel family and its tile, then the three parts a Hopper kernel is built from (the
    structure of CUTLASS's sm90 collectives), each an attribute that checks its own settings:
    the `mainloop` (#mepi.mainloop), the tile `scheduler` (#mepi.scheduler) and the `epilogue`
    (#mepi.epilogue); parts left at their defaults are not printed. This attribute checks how
    they combine with the tile and the family.

    - `simt`: a block has tile_m * tile_n threads, one per output element; stages = 1, the
      default parts.
    - `wgmma` (sm_90a): a persistent block of one producer warpgroup (TMA loads) and tile_m / 64
      consumer warpgroups (wgmma m64 x tile_n x k each); tile_k is one 128-byte line of K (32
      f32, 64 16-bit or 128 8-bit elements); 2 to 8 stages.
      A `split_k` scheduler gives small M x N problems with a long K enough blocks to fill the
      GPU. A ping-pong main loop has two consumer warpgroups whatever tile_m is, each computing
      whole tiles (tile_m * tile_n <= 16384 for the accumulators to fit in 128 registers a
      thread): they take alternate tiles, so that one's epilog runs while the other's wgmmas
      keep the tensor cores busy; it takes no split-K and no operand sums. A cluster of 2
      computes vertically adjacent tiles (tile rows 2i and 2i + 1 of one tile column), which
      read the same tile of B: each block loads half of it and multicasts it into both blocks'
      shared memory, halving B's traffic from L2; with `multicast = a` it computes
      horizontally adjacent tiles (tile columns 2j and 2j + 1 of one tile row) and shares A's
      tile the same way. A cluster of 4 or 8 with `multicast = ab` computes 2 tile rows by 2 or
      4 tile columns: the blocks of a row share A's tile, those of a column B's, each loading
      its share of both (whole units only). It needs TMA loads.
      The `tma` store needs TMA loads and a D whose rows TMA can address. The `stream_k`
      scheduler takes the cooperative kernel (not ping-pong, not swapped, no split-K, one
      64-row slice per consumer) without operand sums: of U units on G walkers (blocks, or
      clusters), each walker first takes U / G whole units, then the k-steps of the last U % G
      units are cut into equal consecutive ranges (of 16 k-steps or more), one per walker. The
      promoted accumulator doubles the accumulator registers: one 64-row slice of at most 192
      columns per consumer (tile_m 64 or 128, not ping-pong or swapped), without operand sums.
    - `swapped = true` (wgmma) computes Dᵀ = B Aᵀ: tile_m rows of D (a multiple of 8 from 16
      to 256) are each wgmma's n side and each consumer owns 64 columns (tile_n 64 or 128); 2
      to 16 stages, data-parallel or split-K units, D stored element by element or through TMA
      (`store = tma`), no ping-pong, stream-K or cluster.

    Examples: `#mepi.kernel_config<simt, tile = [16, 16, 1]>`,
    `#mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 4>>`,
    `#mepi.kernel_config<wgmma, tile = [128, 128, 64], mainloop = <stages = 6>,
      scheduler = <split_k, splits = 4>>`,
    `#mepi.kernel_config<wgmma, tile = [128, 128, 64], mainloop = <stages = 6, pingpong = true>>`,
    `#mepi.kernel_config<wgmma, tile = [128, 256, 64], mainloop = <stages = 4, cluster = 2>,
      scheduler = <stream_k>, epilogue = <store = tma>>`,
    `#mepi.kernel_config<wgmma, tile = [16, 64, 64], mainloop = <stages = 16>, swapped = true>`,
    `#mepi.kernel_config<wgmma, tile = [128, 128, 32], mainloop = <stages = 6, promote = 4>>`
  }];
  let parameters = (ins EnumParameter<Mepi_KernelStrategy>:$strategy, "int64_t":$tileM,
                        "int64_t":$tileN, "int64_t":$tileK,
                        DefaultValuedParameter<"MainloopConfigAttr",
                                               "MainloopConfigAttr::get($_ctxt)">:$mainloop,
                        DefaultValuedParameter<"SchedulerConfigAttr",
                                               "SchedulerConfigAttr::get($_ctxt)">:$scheduler,
                        DefaultValuedParameter<"EpilogueConfigAttr",
                                               "EpilogueConfigAttr::get($_ctxt)">:$epilogue,
                        DefaultValuedParameter<"bool", "false">:$swapped);
  let assemblyFormat = "`<` $strategy `,` `tile` `=` `[` $tileM `,` $tileN `,` $tileK `]` (`,` struct($mainloop, $scheduler, $epilogue, $swapped)^)? `>`";
  let builders = [
    // The tile with the default parts, and with a main loop of `stages` stages.
    AttrBuilder<(ins "KernelStrategy":$strategy, "int64_t":$tileM, "int64_t":$tileN,
                     "int64_t":$tileK, CArg<"int64_t", "1">:$stages), [{
      return $_get($_ctxt, strategy, tileM, tileN, tileK,
                   MainloopConfigAttr::get($_ctxt, stages, true, false, 1, 0, Multicast::B),
                   SchedulerConfigAttr::get($_ctxt), EpilogueConfigAttr::get($_ctxt), false);
    }]>
  ];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Copies with one setting changed, verified like a parsed attribute: an invalid
    /// combination gives a null attribute, and so does a copy of a null one, so that copies
    /// chain and one test at the end catches any invalid step.
    KernelConfigAttr withMainloop(MainloopConfigAttr mainloop) const;
    KernelConfigAttr withScheduler(SchedulerConfigAttr scheduler) const;
    KernelConfigAttr withEpilogue(EpilogueConfigAttr epilogue) const;
    KernelConfigAttr withStages(int64_t stages) const;
    KernelConfigAttr withTma(bool tma) const;
    KernelConfigAttr withPingpong(bool pingpong) const;
    /// A cluster of `cluster` blocks sharing `multicast`'s tile (B's without one).
    KernelConfigAttr withCluster(
        int64_t cluster, ::mlir::mepi::Multicast multicast = ::mlir::mepi::Multicast::B) const;
    KernelConfigAttr withPromote(int64_t promote) const;
    /// split_k with `splits` > 1, data_parallel with 1.
    KernelConfigAttr withSplits(int64_t splits) const;
    KernelConfigAttr withStreamk(bool streamk) const;
    /// D stored as `store` (any but tma with the default buffers).
    KernelConfigAttr withStore(::mlir::mepi::DStore store) const;
    /// TMA store buffers per consumer (store = tma).
    KernelConfigAttr withTmaBuffers(int64_t buffers) const;
    KernelConfigAttr withSwapped(bool swapped) const;
    /// The whole-tile cooperative form: the data-parallel scheduler, no ping-pong.
    KernelConfigAttr withDataParallel() const;
  }];
}

#endif // MEPI_ATTRS_TD
