// The promoted consumers' turns at issuing their wgmmas: two cooperative consumers issue each
// k-step's wgmmas one after the other, each passing the turn as soon as its own are issued.
//
// Rule and reason: a promoted consumer waits for its k-step's wgmmas and then adds their sums
// (a second accumulator set, The promoted accumulator policy in bench/NOTES.md) while no wgmma
// of its own runs. Issued freely, both consumers' wgmmas share the tensor cores and end
// together, so both add at once while the tensor cores idle. Issued in turns, the tensor cores
// run them in issue order: consumer 0's k-step, then consumer 1's, so each adds while the
// other's wgmmas run, and the next k-step of the first is queued before the second's ends.
//
// Consumer c waits on barrier kIssueTurnBarrier + c and passes to kIssueTurnBarrier + 1 - c.
// Both consumers run a unit's k-steps, so waits and passes pair up within the unit: consumer 0
// does not wait at the unit's first k-step, consumer 1 does not pass after its last (no
// barrier is left half-arrived between units or at the kernel's end).
#ifndef MEPI_CONVERSION_MEPITOGPU_ISSUETURNS_H
#define MEPI_CONVERSION_MEPITOGPU_ISSUETURNS_H

#include "Emitter.h"

namespace mlir::mepi::wgmma {

class IssueTurns {
public:
  /// Turns of `consumer` (0 or 1) over the unit's k-steps [kBegin, kEnd).
  IssueTurns(Value consumer, Value kBegin, Value kEnd)
      : consumer(consumer), kBegin(kBegin), kEnd(kEnd) {}

  /// Before k-step `k`'s wgmmas: waits for the turn.
  void emitWait(Emitter &e, Value k) const;
  /// After k-step `k`'s wgmmas are issued (committed): passes the turn.
  void emitPass(Emitter &e, Value k) const;

private:
  Value consumer, kBegin, kEnd;
};

} // namespace mlir::mepi::wgmma

#endif // MEPI_CONVERSION_MEPITOGPU_ISSUETURNS_H
