// The GPU suite's cases every kernel family shares: each dtype, epilog and odd shape on the
// heuristic's kernel, transposes, alpha, beta and C.
#include "GpuCases.h"

#include <array>
#include <tuple>

void gputest::addBasicCases(std::vector<Case> &cases, bool quick) {
  const ElementType types[] = {ElementType::F16, ElementType::BF16, ElementType::F32};
  const char *epilogs[] = {"DEFAULT", "BIAS", "RELU", "RELU_BIAS", "GELU", "GELU_BIAS"};
  std::vector<std::array<int64_t, 3>> shapes = {{1, 1, 1}, {17, 33, 65}, {127, 129, 255},
                                                {1000, 1000, 1000}};
  if (!quick)
    shapes.push_back({4096, 4096, 4096});
  for (ElementType t : types)
    for (auto [m, n, k] : shapes)
      for (const char *e : epilogs)
        cases.push_back({t, {m, k}, {k, n}, {m, n}, false, false, e});
  for (ElementType t : types) // activations beyond nvmath-python's list
    for (const char *e : {"SIGMOID", "TANH", "SILU"}) {
      cases.push_back({t, {17, 65}, {65, 33}, {17, 33}, false, false, e});
      cases.push_back({t, {255, 127}, {129, 255}, {127, 129}, true, true, e});
    }
  for (ElementType t : types) {
    // Transposes (op(A) = A^T stored K x M; op(B) = B^T stored N x K).
    cases.push_back({t, {255, 127}, {255, 129}, {127, 129}, true, false, "RELU_BIAS"});
    cases.push_back({t, {127, 255}, {129, 255}, {127, 129}, false, true, "GELU_BIAS"});
    cases.push_back({t, {255, 127}, {129, 255}, {127, 129}, true, true, "BIAS"});
    // alpha, beta and C.
    Case withC{t, {17, 65}, {65, 33}, {17, 33}, false, false, "RELU_BIAS", true, 0.5f, -1.25f};
    cases.push_back(withC);
    Case bigC{t, {1000, 1000}, {1000, 1000}, {1000, 1000}, true, false, "GELU", true, 2.0f, 0.5f};
    cases.push_back(bigC);
    // Batch of 3 with numpy broadcasting (B shared), and a column-major A.
    cases.push_back({t, {3, 17, 65}, {65, 33}, {3, 17, 33}, false, false, "BIAS"});
    cases.push_back({t, {1, 33, 20}, {3, 20, 31}, {3, 33, 31}, false, false, "GELU_BIAS"});
    Case colMajor{t, {127, 255}, {255, 129}, {127, 129}, false, false, "RELU"};
    colMajor.columnMajorA = true;
    cases.push_back(colMajor);
    if (t == ElementType::F32) { // the TF32 opt-in
      Case tf32{t, {127, 255}, {255, 129}, {127, 129}, false, false, "RELU_BIAS"};
      tf32.tf32 = true;
      cases.push_back(tf32);
      Case tf32Big{t, {1000, 1000}, {1000, 1000}, {1000, 1000}, true, false, "GELU"};
      tf32Big.tf32 = true;
      cases.push_back(tf32Big);
    }
    if (t != ElementType::F32) { // 16-bit inputs, f32 D (and C)
      Case wide{t, {127, 255}, {255, 129}, {127, 129}, false, false, "GELU_BIAS", true, 1.0f, 0.5f};
      wide.outType = ElementType::F32;
      cases.push_back(wide);
      // A bias of another type than D's: f32, and the other 16-bit type; simt and wgmma.
      for (ElementType biasType : {ElementType::F32, t == ElementType::BF16 ? ElementType::F16
                                                                            : ElementType::BF16})
        for (bool kMajorB : {false, true}) {
          Case mixed{t, {257, 99}, kMajorB ? std::vector<int64_t>{131, 99}
                                           : std::vector<int64_t>{99, 131},
                     {257, 131}, false, kMajorB, "GELU_BIAS"};
          mixed.biasType = biasType;
          if (!kMajorB)
            mixed.config = "#mepi.kernel_config<simt, tile = [16, 32, 1]>";
          cases.push_back(mixed);
        }
    }
  }
}
