// The ranks of a distributed `convert` joined through MPI (mpirun, mpiexec,
// srun --mpi=pmix): convert::RankGroup over MPI_COMM_WORLD. Built when CMake
// finds MPI (MINDRECORD_HAVE_MPI); MPI is initialized only for a convert
// that an MPI launcher started with several ranks, so the other verbs never
// pay for it.
#pragma once

#include <memory>

#include "mindrecord/status.h"
#include "writers/convert/launch.h"
#include "writers/convert/rank_group.h"

namespace mindrecord::cli {

// Whether this build can join ranks through MPI.
bool MpiBuiltIn();

// Initializes MPI and checks that its world is the one `launch` describes
// (same rank and size); InvalidArgument naming both otherwise (e.g. ranks
// that were not started together). The group finalizes MPI when destroyed.
// Thread safety: as convert::RankGroup; created and used by one thread.
Result<std::unique_ptr<convert::RankGroup>> JoinMpiRanks(const convert::Launch& launch);

}  // namespace mindrecord::cli
