// The heuristic's cost model: a wgmma kernel's time predicted from its problem and
// configuration, fitted to measured times (bench/NOTES.md, "The cost model").
#ifndef MEPI_SM90_SM90COSTMODEL_H
#define MEPI_SM90_SM90COSTMODEL_H

#include "mepi/Sm90/Sm90Spec.h"

namespace mlir::mepi {

/// The predicted time in microseconds of `config` on `p`, whose epilog costs the special
/// function units per element (`costlyEpilog`: GELU, a division, a call) or not. A ranking,
/// not a stopwatch: it orders the configurations of one problem. The kernel is modelled as
/// waves of work units over the walkers (multiprocessors), each unit a pipelined main loop of
/// k-steps (the slower of its MMAs, its operand loads and the load latency the stages cover)
/// plus a prologue and an epilog, under the floor of the operands' bytes at DRAM speed.
double predictMicroseconds(const Sm90Problem &p, KernelConfigAttr config,
                           const TargetInfo &target, bool costlyEpilog);

} // namespace mlir::mepi

#endif // MEPI_SM90_SM90COSTMODEL_H
