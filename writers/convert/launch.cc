#include "writers/convert/launch.h"

#include <cerrno>
#include <cstdlib>
#include <string_view>

namespace mindrecord::convert {
namespace {

struct LauncherVars {
  const char* name;
  const char* rank;
  const char* size;
};

// In the order they are believed: an MPI launcher's own variables first
// (srun and torchrun variables may be inherited from an outer job).
constexpr LauncherVars kLaunchers[] = {
    {"OpenMPI", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
    {"PMI", "PMI_RANK", "PMI_SIZE"},
    // srun's per-step count: a batch script (sbatch) also carries
    // SLURM_PROCID=0 and the allocation's SLURM_NTASKS, but is one process.
    {"SLURM", "SLURM_PROCID", "SLURM_STEP_NUM_TASKS"},
    {"torchrun", "RANK", "WORLD_SIZE"},
};

Result<uint32_t> ParseCount(const char* var, const char* text) {
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(text, &end, 10);
  if (*text == '\0' || *end != '\0' || errno != 0 || v > 1000000 || *text == '-') {
    return Status::InvalidArgument(std::string(var) + "='" + text + "' is not a process number");
  }
  return static_cast<uint32_t>(v);
}

}  // namespace

Result<std::optional<Launch>> DetectLaunch(const char* (*getenv)(const char*)) {
  auto get = [&](const char* name) -> const char* { return getenv ? getenv(name) : std::getenv(name); };
  for (const LauncherVars& l : kLaunchers) {
    const char* rank = get(l.rank);
    const char* size = get(l.size);
    if (rank == nullptr && size == nullptr) continue;
    if (std::string_view(l.name) == "SLURM" && size == nullptr) continue;  // sbatch's script, not an srun task
    const std::string by = std::string(l.name) + " (" + l.rank + "/" + l.size + ")";
    if (rank == nullptr || size == nullptr) {
      return Status::InvalidArgument(by + ": " + (rank ? l.size : l.rank) + " is not set but " +
                                     (rank ? l.rank : l.size) + " is");
    }
    Launch out;
    MR_ASSIGN_OR_RETURN(out.rank, ParseCount(l.rank, rank));
    MR_ASSIGN_OR_RETURN(out.size, ParseCount(l.size, size));
    if (out.size == 0 || out.rank >= out.size) {
      return Status::InvalidArgument(by + ": rank " + std::to_string(out.rank) + " is not below the size " +
                                     std::to_string(out.size));
    }
    out.by = by;
    // mpirun and mpiexec set these; srun --mpi=pmix sets PMIX_RANK.
    out.mpi = get("OMPI_COMM_WORLD_SIZE") != nullptr || get("PMI_SIZE") != nullptr || get("PMIX_RANK") != nullptr;
    return std::optional<Launch>(out);
  }
  return std::optional<Launch>();
}

}  // namespace mindrecord::convert
