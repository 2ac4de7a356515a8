// The distributed plan as text: buffer names, views and the schedule one step a line
// (DistPlan::str, mepi-opt's --mepi-dist-schedule and mepi::dist::Matmul::schedule()).
#include "Distributed/DistPlan.h"

#include "llvm/Support/raw_ostream.h"

using namespace mepi;
using namespace mepi::dist;
using namespace mepi::dist::plan;

const char *plan::bufferName(Buffer buffer) {
  switch (buffer) {
  case Buffer::A: return "A";
  case Buffer::B: return "B";
  case Buffer::C: return "C";
  case Buffer::D: return "D";
  case Buffer::Gather: return "Gather";
  case Buffer::GatherB: return "GatherB";
  case Buffer::Partial: return "Partial";
  case Buffer::Recv: return "Recv";
  }
  return "?";
}

std::string View::str() const {
  std::string out;
  llvm::raw_string_ostream os(out);
  if (rank >= 0)
    os << "rank " << rank << " ";
  os << bufferName(buffer);
  if (base)
    os << "+" << base;
  os << "[" << row << ":" << row + rows << ", " << col << ":" << col + cols << "]";
  return out;
}

std::string plan::mirrorsStr(const Gemm &gemm) {
  std::string out;
  for (const View &v : gemm.mirrors)
    out += (out.empty() ? "" : ", ") + v.str();
  return out;
}

std::string DistPlan::str() const {
  std::string out;
  llvm::raw_string_ostream os(out);
  os << "algorithm " << algorithmName(algorithm) << ", M " << m << " N " << n << " K " << k
     << ", rank " << rank << " of " << ranks << ", pieces " << pieces;
  if (!tailRows.empty()) {
    os << " (last";
    for (int64_t rows : tailRows)
      os << " " << rows;
    os << " rows)";
  }
  os << "\n";
  for (size_t i = 0; i < steps.size(); ++i)
    os << stepStr(i) << "\n";
  return out;
}

std::string DistPlan::stepStr(size_t index) const {
  std::string out;
  llvm::raw_string_ostream os(out);
  auto view = [&](const View &v) { os << v.str(); };
  const Step &s = steps[index];
  switch (s.kind) {
  case Step::Kind::Ready: os << "copy: ready (peers may write our buffers)"; break;
  case Step::Kind::Fork: os << "copy: fork (after compute)"; break;
  case Step::Kind::WaitReady:
    os << "copy: wait ready of rank " << s.peer;
    break;
  case Step::Kind::Push:
    os << "copy: ";
    if (s.gemm >= 0)
      os << "after gemm " << s.gemm << ", ";
    os << "push ";
    view(s.from);
    os << " -> rank " << s.peer << " ";
    view(s.to);
    if (s.flag >= 0)
      os << ", flag " << s.flag;
    break;
  case Step::Kind::WaitArrived: os << "compute: wait flag " << s.flag; break;
  case Step::Kind::LocalCopy:
    os << "compute: copy ";
    view(s.from);
    os << " -> ";
    view(s.to);
    break;
  case Step::Kind::Gemm: {
    const Gemm &g = gemms[s.gemm];
    os << "compute: gemm " << s.gemm << ": ";
    view(g.d);
    os << " = ";
    view(g.a);
    os << " x ";
    view(g.b);
    if (g.c) {
      os << " + ";
      view(*g.c);
    }
    os << (g.final ? " (epilog)" : " (partial)");
    if (!g.mirrors.empty())
      os << ", also to " << mirrorsStr(g);
    break;
  }
  case Step::Kind::Join: os << "compute: join (after copy)"; break;
  case Step::Kind::ComputeWaitReady:
    os << "compute: wait ready of rank " << s.peer;
    break;
  case Step::Kind::Signal:
    os << "compute: raise flag " << s.flag << " of rank " << s.peer;
    break;
  case Step::Kind::NcclReduce:
  case Step::Kind::NcclAllReduce:
  case Step::Kind::NcclAllGather:
    os << (s.kind == Step::Kind::NcclReduce      ? "compute: nccl reduce (rows to their owners) "
           : s.kind == Step::Kind::NcclAllReduce ? "compute: nccl all-reduce "
                                                 : "compute: nccl all-gather (rows) ");
    view(s.from);
    os << " -> ";
    view(s.to);
    break;
  }
  return out;
}
