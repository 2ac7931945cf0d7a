#include "cli/mpi_rank_group.h"

#ifdef MINDRECORD_HAVE_MPI
// The C API only: the deprecated C++ bindings would need libmpi_cxx.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <climits>
#include <cstring>
#include <vector>
#endif

namespace mindrecord::cli {

#ifndef MINDRECORD_HAVE_MPI

bool MpiBuiltIn() { return false; }

Result<std::unique_ptr<convert::RankGroup>> JoinMpiRanks(const convert::Launch& launch) {
  return Status::NotSupported("this mindrecord was built without MPI, so its " + std::to_string(launch.size) +
                              " ranks (" + launch.by + ") cannot work together: rebuild with MPI installed "
                              "(libopenmpi-dev)");
}

#else

namespace {

// Failure notices travel on their own tag of a private communicator.
constexpr int kFailureTag = 1;
constexpr int kNoticeBytes = 4096;

class MpiRankGroup : public convert::RankGroup {
 public:
  MpiRankGroup(bool finalize, uint32_t rank, uint32_t size, MPI_Comm comm)
      : finalize_(finalize), rank_(rank), size_(size), comm_(comm) {
    PostReceive();
  }
  ~MpiRankGroup() override {
    if (receive_ != MPI_REQUEST_NULL) {
      MPI_Cancel(&receive_);
      MPI_Wait(&receive_, MPI_STATUS_IGNORE);
    }
    if (!sends_.empty()) MPI_Waitall(static_cast<int>(sends_.size()), sends_.data(), MPI_STATUSES_IGNORE);
    MPI_Comm_free(&comm_);
    if (finalize_) MPI_Finalize();
  }

  uint32_t rank() const override { return rank_; }
  uint32_t size() const override { return size_; }

  Result<std::vector<std::string>> AllGather(const std::string& mine) override {
    unsigned long long len = mine.size();
    std::vector<unsigned long long> lens(size_);
    if (MPI_Allgather(&len, 1, MPI_UNSIGNED_LONG_LONG, lens.data(), 1, MPI_UNSIGNED_LONG_LONG, comm_) != MPI_SUCCESS) {
      return Status::IOError("MPI_Allgather failed");
    }
    std::vector<int> counts(size_), displs(size_);
    unsigned long long total = 0;
    for (uint32_t r = 0; r < size_; ++r) {
      if (total + lens[r] > INT_MAX) return Status::InvalidArgument("a rank exchange over 2 GiB");
      counts[r] = static_cast<int>(lens[r]);
      displs[r] = static_cast<int>(total);
      total += lens[r];
    }
    std::string all(total, '\0');
    if (MPI_Allgatherv(mine.data(), static_cast<int>(len), MPI_CHAR, all.data(), counts.data(), displs.data(), MPI_CHAR,
                       comm_) != MPI_SUCCESS) {
      return Status::IOError("MPI_Allgatherv failed");
    }
    std::vector<std::string> out;
    for (uint32_t r = 0; r < size_; ++r) out.push_back(all.substr(displs[r], counts[r]));
    return out;
  }

  void AnnounceFailure(const std::string& why) override {
    notice_ = why.substr(0, kNoticeBytes - 1);
    for (uint32_t r = 0; r < size_; ++r) {
      if (r == rank_) continue;
      sends_.push_back(MPI_REQUEST_NULL);
      MPI_Isend(notice_.data(), static_cast<int>(notice_.size()), MPI_CHAR, static_cast<int>(r), kFailureTag, comm_,
                &sends_.back());
    }
  }

  std::optional<std::string> PollFailure() override {
    if (!heard_.empty()) return heard_;
    if (receive_ == MPI_REQUEST_NULL) return std::nullopt;
    int done = 0;
    MPI_Status st;
    MPI_Test(&receive_, &done, &st);
    if (!done) return std::nullopt;
    Received(st);
    return heard_;
  }

  Status SettleFailures(const std::vector<uint32_t>& announced) override {
    size_t expected = 0;
    for (uint32_t r : announced) expected += r != rank_;
    if (expected > received_ && receive_ != MPI_REQUEST_NULL) {
      MPI_Status st;
      MPI_Wait(&receive_, &st);
      Received(st);
    }
    while (received_ < expected) {
      MPI_Status st;
      MPI_Recv(buffer_.data(), kNoticeBytes, MPI_CHAR, MPI_ANY_SOURCE, kFailureTag, comm_, &st);
      ++received_;
    }
    if (!sends_.empty()) MPI_Waitall(static_cast<int>(sends_.size()), sends_.data(), MPI_STATUSES_IGNORE);
    sends_.clear();
    // Ready for another conversion.
    if (receive_ != MPI_REQUEST_NULL) {
      MPI_Cancel(&receive_);
      MPI_Wait(&receive_, MPI_STATUS_IGNORE);
    }
    received_ = 0;
    heard_.clear();
    PostReceive();
    return Status::OK();
  }

 private:
  void PostReceive() {
    buffer_.assign(kNoticeBytes, '\0');
    MPI_Irecv(buffer_.data(), kNoticeBytes, MPI_CHAR, MPI_ANY_SOURCE, kFailureTag, comm_, &receive_);
  }
  void Received(const MPI_Status& st) {
    int n = 0;
    MPI_Get_count(&st, MPI_CHAR, &n);
    heard_.assign(buffer_.data(), n > 0 ? static_cast<size_t>(n) : 0);
    if (heard_.empty()) heard_ = "rank " + std::to_string(st.MPI_SOURCE) + " failed";
    receive_ = MPI_REQUEST_NULL;
    ++received_;
  }

  const bool finalize_;
  const uint32_t rank_, size_;
  MPI_Comm comm_;
  std::vector<char> buffer_;
  MPI_Request receive_ = MPI_REQUEST_NULL;
  size_t received_ = 0;   // notices taken in since the last settle
  std::string heard_;     // the first of them
  std::string notice_;    // this rank's own, kept alive for its sends
  std::vector<MPI_Request> sends_;
};

}  // namespace

bool MpiBuiltIn() { return true; }

Result<std::unique_ptr<convert::RankGroup>> JoinMpiRanks(const convert::Launch& launch) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    int provided = 0;
    if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
      return Status::IOError("MPI_Init failed (" + launch.by + ")");
    }
  }
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (static_cast<uint32_t>(size) != launch.size || static_cast<uint32_t>(rank) != launch.rank) {
    if (!initialized) MPI_Finalize();
    return Status::InvalidArgument(launch.by + " says rank " + std::to_string(launch.rank) + " of " +
                                   std::to_string(launch.size) + ", but MPI's world is rank " + std::to_string(rank) +
                                   " of " + std::to_string(size) + ": the ranks were not started together by one "
                                   "MPI launcher");
  }
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  return std::unique_ptr<convert::RankGroup>(
      new MpiRankGroup(!initialized, static_cast<uint32_t>(rank), static_cast<uint32_t>(size), comm));
}

#endif

}  // namespace mindrecord::cli
