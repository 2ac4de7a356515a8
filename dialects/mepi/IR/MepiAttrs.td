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
      I32EnumAttrCase<"Bitmask", 4, "bitmask">
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

def Mepi_KernelConfigAttr : AttrDef<Mepi_Dialect, "KernelConfig"> {
  let mnemonic = "kernel_config";
  let summary = "kernel configuration chosen for one matmul";
  let description = [{
    The kernel family and its tile: `tile_m` x `tile_n` output elements per thread block and
    `tile_k` reduction elements per main-loop step, with `stages` shared-memory buffers of
    operand tiles in flight.

    - `simt`: a block has tile_m * tile_n threads, one per output element; stages = 1.
    - `wgmma` (sm_90a): a persistent block of one producer warpgroup (TMA loads) and tile_m / 64
      consumer warpgroups (wgmma m64 x tile_n x 16 each); tile_k = 64 (one 128-byte swizzle
      atom of 16-bit elements); 2 to 8 stages. With `tma = false` the producer warpgroup's 128
      threads load the operands with ordinary loads instead, for rows that TMA cannot address
      (a row pitch or an address that is not a multiple of 16 bytes). With `splits = S` > 1
      (split-K) each output tile is computed by S blocks over consecutive slices of K: each
      stores its f32 partial sums in the plan's workspace and the last to finish adds them up
      in split order (the result does not depend on which block finishes last) and applies the
      epilog. It gives small M x N problems with a long K enough blocks to fill the GPU.
      With `pingpong = true` there are two consumer warpgroups whatever tile_m is, and each
      computes whole tiles (tile_m / 64 wgmmas per k16 step, so tile_m * tile_n <= 16384 for
      the accumulators to fit in 128 registers a thread): they take alternate tiles, and their
      main loops run one after the other, so that one's epilog runs while the other's wgmmas
      keep the tensor cores busy. It takes no split-K and no operand sums.
      With `cluster = 2` two blocks of a cluster compute vertically adjacent tiles (tile rows
      2i and 2i + 1 of one tile column), which read the same tile of B: each loads half of it
      and multicasts it into both blocks' shared memory (TMA multicast), halving B's traffic
      from L2. It needs TMA loads and takes no split-K.
      `store` is how the epilog writes D. `staged` (the default) takes the accumulators through
      shared memory 32 columns at a time, so that a warp's input loads and D stores are whole
      consecutive vectors; it serves every epilog. When the epilog writes D only (no aux output,
      no reduction), `registers` stores each thread's pairs of elements straight from the
      registers (no shared memory, no barrier), and `tma` writes each 64 x 128-byte piece of
      the tile into a swizzled shared buffer (two per consumer warpgroup, alternating) that one
      thread then hands to a TMA store, which runs while the consumer goes on; `tma` needs TMA
      loads and a D whose rows TMA can address.
      With `streamk = true` the last wave of work units does not leave blocks idle (stream-K):
      of U units on G walkers (blocks, or clusters), each walker first takes U / G whole units
      as usual, then the k-steps of the last U % G units are cut into equal consecutive ranges
      (of 16 k-steps or more, so fewer than G where they are few), one per walker. A unit that
      several walkers share is summed like a split-K unit (each stores its f32 partials in the
      workspace, the last to finish adds them in k order and applies the epilog), so the last
      wave ends together. For the cooperative kernel (not ping-pong, not swapped, no split-K,
      one 64-row slice per consumer) without operand sums.
      With `promote = P` > 0 (an accumulator policy) each consumer, every P k-steps, waits for
      its wgmmas, adds their f32 accumulators into a second set of registers with rounded
      additions, and starts the next P k-steps from zero: the tensor cores' own accumulation
      truncates (and sums 8-bit products at reduced precision), so that long sums would drift.
      The second set doubles the accumulator registers: one 64-row slice of at most 128
      columns per consumer (tile_m 64 or 128, tile_n <= 192, not ping-pong), without operand
      sums.

    Examples: `#mepi.kernel_config<simt, tile = [16, 16, 1]>`,
    `#mepi.kernel_config<wgmma, tile = [128, 256, 64], stages = 4>`,
    `#mepi.kernel_config<wgmma, tile = [128, 128, 64], stages = 6, splits = 4>`,
    `#mepi.kernel_config<wgmma, tile = [128, 128, 64], stages = 6, pingpong = true>`,
    `#mepi.kernel_config<wgmma, tile = [128, 256, 64], stages = 4, cluster = 2>`,
    `#mepi.kernel_config<wgmma, tile = [128, 256, 64], stages = 4, store = tma>`,
    `#mepi.kernel_config<wgmma, tile = [16, 64, 64], stages = 16, swapped = true>`,
    `#mepi.kernel_config<wgmma, tile = [128, 256, 64], stages = 4, cluster = 2, streamk = true>`,
    `#mepi.kernel_config<wgmma, tile = [128, 128, 32], stages = 6, promote = 4>`
  }];
  let parameters = (ins EnumParameter<Mepi_KernelStrategy>:$strategy, "int64_t":$tileM, "int64_t":$tileN,
                        "int64_t":$tileK, DefaultValuedParameter<"int64_t", "1">:$stages,
                        DefaultValuedParameter<"int64_t", "1">:$splits,
                        DefaultValuedParameter<"bool", "true">:$tma,
                        DefaultValuedParameter<"bool", "false">:$pingpong,
                        DefaultValuedParameter<"int64_t", "1">:$cluster,
                        DefaultValuedParameter<"::mlir::mepi::DStore",
                                               "::mlir::mepi::DStore::Staged">:$store,
                        DefaultValuedParameter<"bool", "false">:$swapped,
                        DefaultValuedParameter<"bool", "false">:$streamk,
                        DefaultValuedParameter<"int64_t", "0">:$promote);
  let assemblyFormat = "`<` $strategy `,` `tile` `=` `[` $tileM `,` $tileN `,` $tileK `]` (`,` struct($stages, $splits, $tma, $pingpong, $cluster, $store, $swapped, $streamk, $promote)^)? `>`";
  let builders = [
    AttrBuilder<(ins "KernelStrategy":$strategy, "int64_t":$tileM, "int64_t":$tileN, "int64_t":$tileK), [{
      return $_get($_ctxt, strategy, tileM, tileN, tileK, 1, 1, true, false, 1, DStore::Staged,
                  false, false, 0);
    }]>,
    AttrBuilder<(ins "KernelStrategy":$strategy, "int64_t":$tileM, "int64_t":$tileN, "int64_t":$tileK,
                     "int64_t":$stages), [{
      return $_get($_ctxt, strategy, tileM, tileN, tileK, stages, 1, true, false, 1,
                  DStore::Staged, false, false, 0);
    }]>
  ];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Copies with one setting changed, verified like a parsed attribute: an invalid
    /// combination gives a null attribute, and so does a copy of a null one, so that copies
    /// chain and one test at the end catches any invalid step.
    KernelConfigAttr withStages(int64_t stages) const;
    KernelConfigAttr withSplits(int64_t splits) const;
    KernelConfigAttr withTma(bool tma) const;
    KernelConfigAttr withPingpong(bool pingpong) const;
    KernelConfigAttr withCluster(int64_t cluster) const;
    KernelConfigAttr withStore(::mlir::mepi::DStore store) const;
    KernelConfigAttr withSwapped(bool swapped) const;
    KernelConfigAttr withStreamk(bool streamk) const;
    KernelConfigAttr withPromote(int64_t promote) const;
    /// The whole-tile cooperative form: no splits, no stream-K, no ping-pong.
    KernelConfigAttr withDataParallel() const;
  }];
}

#endif // MEPI_ATTRS_TD
