// The queue gate's kernel (PTX, compiled by the driver once) and its flag (see QueueGate.h).
#include "QueueGate.h"
#include "BenchSupport.h"

using namespace bench;

bool QueueGate::enabled = true;

namespace {
/// Spins until *flag != 0 or `limit` nanoseconds of %globaltimer have passed.
constexpr const char *kGatePtx = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry mepi_bench_gate(.param .u64 flag, .param .u64 limit) {
  .reg .pred %p<3>;
  .reg .b32 %r<2>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [flag];
  ld.param.u64 %rd2, [limit];
  mov.u64 %rd3, %globaltimer;
SPIN:
  ld.volatile.global.u32 %r1, [%rd1];
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra DONE;
  mov.u64 %rd4, %globaltimer;
  sub.u64 %rd5, %rd4, %rd3;
  setp.lt.u64 %p2, %rd5, %rd2;
  @%p2 bra SPIN;
DONE:
  ret;
}
)";

struct Gate {
  CUmodule module = nullptr;
  CUfunction kernel = nullptr;
  CUdeviceptr flag = 0;
  CUstream releaser = nullptr; // non-blocking: it must not wait for the gated stream
};

const Gate &gate() {
  static const Gate g = [] {
    Gate g;
    cu(driver->cuModuleLoadData(&g.module, kGatePtx), "cuModuleLoadData(gate)");
    cu(driver->cuModuleGetFunction(&g.kernel, g.module, "mepi_bench_gate"), "gate kernel");
    cu(driver->cuMemAlloc(&g.flag, sizeof(unsigned)), "cuMemAlloc(gate flag)");
    cu(driver->cuStreamCreate(&g.releaser, CU_STREAM_NON_BLOCKING), "cuStreamCreate(gate)");
    return g;
  }();
  return g;
}
} // namespace

QueueGate::QueueGate(CUstream stream) {
  if (!enabled)
    return;
  const Gate &g = gate();
  cu(driver->cuMemsetD32Async(g.flag, 0, 1, g.releaser), "cuMemsetD32Async(gate flag)");
  cu(driver->cuStreamSynchronize(g.releaser), "cuStreamSynchronize(gate)");
  CUdeviceptr flag = g.flag;
  unsigned long long limit = 1000000000ull; // 1 s
  void *params[] = {&flag, &limit};
  cu(driver->cuLaunchKernel(g.kernel, 1, 1, 1, 1, 1, 1, 0, stream, params, nullptr),
     "cuLaunchKernel(gate)");
  held = true;
}

QueueGate::~QueueGate() {
  if (held)
    driver->cuMemsetD32Async(gate().flag, 1, 1, gate().releaser);
}

void QueueGate::release() {
  if (!held)
    return;
  held = false;
  const Gate &g = gate();
  cu(driver->cuMemsetD32Async(g.flag, 1, 1, g.releaser), "cuMemsetD32Async(gate release)");
}
