// dist::Matmul's constructor arguments: what one rank checks alone, and what every rank must
// give alike (said in the constructor's agreement, Agreement.h).
#ifndef MEPI_DISTRIBUTED_DISTARGUMENTS_H
#define MEPI_DISTRIBUTED_DISTARGUMENTS_H

#include "Distributed/Agreement.h"

#include "mepi/Distributed.h"

namespace mepi::dist::detail {

/// Throws what this rank's own arguments break (matrix rank and strides, c without beta, three
/// distributions, one dtype of A and B that distributed matmuls support, no FP8 scales).
void checkLocal(const Tensor &a, const Tensor &b, const std::optional<Tensor> &c,
                const std::vector<Distribution> &distributions, std::optional<float> beta,
                const dist::Options &options);

/// The constructor's word: the facts every rank must give alike, this rank's shapes as data.
Agreement constructorWord(const Tensor &a, const Tensor &b, const std::optional<Tensor> &c,
                          const std::vector<Distribution> &distributions, float alpha,
                          std::optional<float> beta, Qualifiers qualifiers,
                          const dist::Options &options);

} // namespace mepi::dist::detail

#endif // MEPI_DISTRIBUTED_DISTARGUMENTS_H
