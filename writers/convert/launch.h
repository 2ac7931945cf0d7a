// How this process was started: its rank among the processes of a
// distributed conversion, read from the launcher's variables.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "mindrecord/status.h"

namespace mindrecord::convert {

// How this process was started: its rank among `size` processes.
struct Launch {
  uint32_t rank = 0;
  uint32_t size = 1;
  // The variables (or flags) that said so, for messages: "OpenMPI
  // (OMPI_COMM_WORLD_RANK/SIZE)", "torchrun (RANK/WORLD_SIZE)", ...
  std::string by;
  // Started by an MPI launcher (mpirun, mpiexec, srun --mpi=pmix): MPI_Init
  // joins the ranks.
  bool mpi = false;
};

// Reads the launcher's variables, the first set of these that is present:
// OpenMPI (OMPI_COMM_WORLD_RANK/SIZE), MPICH and other PMI launchers
// (PMI_RANK/PMI_SIZE), srun (SLURM_PROCID/SLURM_STEP_NUM_TASKS: srun's
// count for its step; a batch script has SLURM_PROCID and the allocation's
// SLURM_NTASKS but is one process), torchrun (RANK/WORLD_SIZE). nullopt when none is set; InvalidArgument naming the
// variable when one is not a number or the rank is not below the size.
// `getenv` is the lookup (tests pass their own). Thread safety: as getenv.
Result<std::optional<Launch>> DetectLaunch(const char* (*getenv)(const char*) = nullptr);

}  // namespace mindrecord::convert
