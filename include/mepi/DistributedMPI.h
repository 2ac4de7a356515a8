// mepi::dist::initialize over an MPI communicator (nvmath.distributed's initialize(device,
// communicator)): rank 0 makes NCCL's unique id and MPI broadcasts it. Header-only, so that
// libmepi itself does not depend on MPI: include it where the program already uses MPI.
#ifndef MEPI_DISTRIBUTEDMPI_H
#define MEPI_DISTRIBUTEDMPI_H

#include "mepi/Distributed.h"

#include <mpi.h>

namespace mepi::dist {

/// Collective over `comm`: every rank calls it, each with the CUDA device it drives.
inline void initialize(int device, MPI_Comm comm) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  UniqueId id{};
  if (rank == 0)
    id = makeUniqueId();
  MPI_Bcast(id.data(), static_cast<int>(id.size()), MPI_BYTE, 0, comm);
  initialize(device, rank, ranks, id);
}

} // namespace mepi::dist

#endif // MEPI_DISTRIBUTEDMPI_H
