// mepi-bench's command line.
#include "BenchOptions.h"

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <map>

namespace bench {
namespace {

/// --shape: MxNxK, or BxMxNxK (strided batched), with a trailing "b" for one B for all
/// elements. Prints why and returns false when `text` is not one.
bool parseShape(const char *text, Options &o) {
  Shape shape{0, 0, 0, nullptr};
  int64_t v[4] = {0, 0, 0, 0};
  char shared = 0;
  int got = std::sscanf(text, "%" SCNd64 "x%" SCNd64 "x%" SCNd64 "x%" SCNd64 "%c", &v[0], &v[1],
                        &v[2], &v[3], &shared);
  if (got >= 4) {
    shape.batch = v[0], shape.m = v[1], shape.n = v[2], shape.k = v[3];
    shape.sharedB = shared == 'b';
  } else {
    shape.m = v[0], shape.n = v[1], shape.k = v[2];
  }
  bool trailingB = std::string(text).back() == 'b';
  if (got < 3 || shape.m <= 0 || shape.n <= 0 || shape.k <= 0 || shape.batch <= 0 ||
      (got == 5 && shared != 'b') || (trailingB && got != 5)) {
    std::printf("--shape expects MxNxK or BxMxNxK[b] with positive sizes, got '%s'\n", text);
    return false;
  }
  shape.name = o.shapeLabels.emplace_back(text).c_str();
  o.givenShapes.push_back(shape);
  return true;
}

/// An option with a value: stores it and returns true, or false for an unknown option.
bool takeValue(const std::string &arg, const std::string &value, Options &o) {
  if (arg == "--sweep")
    o.sweepSeed = std::strtoull(value.c_str(), nullptr, 10);
  else if (arg == "--skip")
    o.skip = std::atoi(value.c_str());
  else if (arg == "--ltoir")
    o.ltoirPath = value;
  else if (arg == "--json")
    o.jsonPath = value;
  else if (arg == "--filter")
    o.filters.push_back(value);
  else if (arg == "--layout")
    o.rowMajorB = value == "nn";
  else if (arg == "--config")
    o.forcedConfig = value;
  else if (arg == "--against")
    o.against.push_back(value);
  else
    return false;
  return true;
}

} // namespace

std::optional<Options> parseOptions(int argc, char **argv) {
  Options o;
  o.command = argv[0];
  std::map<std::string, bool *> flags = {
      {"--quick", &o.quick},       {"--catalog", &o.catalog},   {"--user", &o.user},
      {"--grouped", &o.grouped},   {"--grouped-k", &o.groupedK}, {"--fp8", &o.fp8},
      {"--batched", &o.batched},   {"--tf32", &o.tf32},         {"--f32", &o.f32},
      {"--autotune", &o.autotune}, {"--confirm", &o.confirm},   {"--stream", &streamTiming},
      {"--ungated", &o.ungated},   {"--list", &o.list}};
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    o.command += " " + arg;
    if (auto flag = flags.find(arg); flag != flags.end()) {
      *flag->second = true;
      continue;
    }
    if (i + 1 >= argc)
      continue;
    std::string value = argv[i + 1];
    if (arg == "--shape") {
      if (!parseShape(argv[i + 1], o))
        return std::nullopt;
    } else if (!takeValue(arg, value, o)) {
      continue;
    }
    bool quoted = arg == "--config" || arg == "--against";
    o.command += quoted ? " '" + value + "'" : " " + value, ++i;
  }
  return o;
}

} // namespace bench
