// The SIMT kernel's block combination: the bitmask bytes and reductions that a block's threads
// complete together once each holds its element's values (SimtKernel.cpp).
#ifndef MEPI_CONVERSION_MEPITOGPU_SIMTBLOCKCOMBINATION_H
#define MEPI_CONVERSION_MEPITOGPU_SIMTBLOCKCOMBINATION_H

#include "EpilogEmitter.h"
#include "Reductions.h"

namespace mlir::mepi {

/// After every thread of the block has its element's bitmask bits and reduction values
/// (`shared`, in that order): packs each bitmask column's 8 rows into a byte, combines each
/// reduction over the block and completes it across blocks (Reductions.h). `grid` is the
/// kernel's tiling (a block is one tile). `workspaceArg` is the kernel's workspace argument:
/// taken before workgroup attributions are added, which reallocate the block's argument list.
void emitSimtBlockCombination(OpBuilder &b, Location loc, MatmulOp op, const IRMapping &operands,
                              Value workspaceArg, const ElementIndex &element, ValueRange shared,
                              const TileGrid &grid);

} // namespace mlir::mepi

#endif // MEPI_CONVERSION_MEPITOGPU_SIMTBLOCKCOMBINATION_H
