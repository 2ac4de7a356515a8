// The step timeline of one execute (Timeline.h).
#include "Distributed/Timeline.h"

#include "Runtime/ApiSupport.h"

#include "llvm/Support/FormatVariadic.h"

#include <cstdlib>
#include <utility>

using namespace mepi;
using namespace mepi::dist::detail;

uint32_t mepi::dist::detail::tracedExecute() {
  const char *value = std::getenv("MEPI_DIST_TRACE");
  return value && *value ? static_cast<uint32_t>(std::strtoul(value, nullptr, 10)) : 0;
}

static void checked(const runtime::CudaDriver &, CUresult r, const char *what) {
  api::check(runtime::checkCuda(r, what), "mepi::dist::Matmul trace (MEPI_DIST_TRACE)");
}

Timeline::Timeline(const runtime::CudaDriver &driver, size_t steps)
    : driver(driver), ends(steps, nullptr), marked(steps, false) {
  try {
    checked(driver, driver.cuEventCreate(&begin, CU_EVENT_DEFAULT), "cuEventCreate");
    for (CUevent &e : ends)
      checked(driver, driver.cuEventCreate(&e, CU_EVENT_DEFAULT), "cuEventCreate");
  } catch (...) {
    destroy(); // no destructor runs for a constructor that throws
    throw;
  }
}

Timeline::~Timeline() { destroy(); }

void Timeline::destroy() {
  for (CUevent &e : ends)
    if (e)
      driver.cuEventDestroy(std::exchange(e, nullptr));
  if (begin)
    driver.cuEventDestroy(std::exchange(begin, nullptr));
}

void Timeline::start(CUstream stream) {
  checked(driver, driver.cuEventRecord(begin, stream), "cuEventRecord");
}

void Timeline::mark(size_t step, CUstream stream) {
  checked(driver, driver.cuEventRecord(ends[step], stream), "cuEventRecord");
  marked[step] = true;
}

std::string Timeline::report(int rank,
                             const std::function<std::string(size_t)> &describe) const {
  std::string out;
  for (size_t i = 0; i < ends.size(); ++i) {
    if (!marked[i])
      continue;
    checked(driver, driver.cuEventSynchronize(ends[i]), "cuEventSynchronize");
    float ms = 0;
    checked(driver, driver.cuEventElapsedTime(&ms, begin, ends[i]), "cuEventElapsedTime");
    out += llvm::formatv("rank {0}  +{1,8:F3} ms  {2}\n", rank, ms, describe(i)).str();
  }
  return out;
}
