// mepi-opt's distributed pass: mepi-dist-schedule{rank=R} lowers mepi.dist.matmul to rank R's
// mepi.dist.schedule (DistSchedule.cpp).
#ifndef MEPI_DISTRIBUTED_DISTSCHEDULE_H
#define MEPI_DISTRIBUTED_DISTSCHEDULE_H

namespace mepi::dist {
void registerDistPasses();
} // namespace mepi::dist

#endif // MEPI_DISTRIBUTED_DISTSCHEDULE_H
