#include "pipeline/nodes/mix.h"

#include <algorithm>

namespace mindrecord {

MixNode::MixNode(std::vector<std::unique_ptr<RowNode>> inputs, std::vector<double> weights, MixPolicy policy,
                 uint64_t num_samples, uint64_t seed, uint32_t tag_base)
    : inputs_(std::move(inputs)), weights_(std::move(weights)), policy_(policy), num_samples_(num_samples),
      seed_(seed), tag_base_(tag_base) {
  columns_ = inputs_[0]->columns();
  for (const auto& in : inputs_) drops_rows_ = drops_rows_ || in->drops_rows();
}

Result<MixNode::Draws> MixNode::Draw(uint64_t epoch) const {
  const size_t n = inputs_.size();
  std::vector<uint64_t> sizes(n), counts(n, 0);
  std::vector<uint32_t> passes(n, 0);
  std::vector<bool> active(n);
  uint64_t total_rows = 0;
  for (size_t k = 0; k < n; ++k) {
    MR_ASSIGN_OR_RETURN(sizes[k], inputs_[k]->Size(epoch));
    // Under "stop" an empty input with weight ends the epoch when drawn.
    active[k] = weights_[k] > 0 && (sizes[k] > 0 || policy_ == MixPolicy::kStop);
    if (weights_[k] > 0) total_rows += sizes[k];
  }
  uint64_t limit = num_samples_;
  if (limit == 0) limit = policy_ == MixPolicy::kStop ? UINT64_MAX : total_rows;
  std::mt19937_64 rng(MixSeed({seed_, 0x6d6978, epoch}));
  Draws d;
  for (uint64_t i = 0; i < limit;) {
    double total = 0;
    size_t last = n;
    for (size_t k = 0; k < n; ++k) {
      if (!active[k]) continue;
      total += weights_[k];
      last = k;
    }
    if (last == n) break;  // every input has run out
    const double u = Uniform01(rng) * total;
    double acc = 0;
    size_t k = last;
    for (size_t j = 0; j < n; ++j) {
      if (!active[j]) continue;
      acc += weights_[j];
      if (u < acc) {
        k = j;
        break;
      }
    }
    if (counts[k] == sizes[k]) {
      if (policy_ == MixPolicy::kStop) break;
      if (policy_ == MixPolicy::kDrop) {
        active[k] = false;
        continue;
      }
      // Restart: a new pass of the input, in its own epoch.
      passes[k]++;
      counts[k] = 0;
      MR_ASSIGN_OR_RETURN(sizes[k], inputs_[k]->Size(InputEpoch(epoch, passes[k])));
      if (sizes[k] == 0) {
        active[k] = false;
        continue;
      }
    }
    if (i % kCheckpoint == 0) {
      std::vector<std::pair<uint32_t, uint64_t>> c(n);
      for (size_t j = 0; j < n; ++j) c[j] = {passes[j], counts[j]};
      d.checkpoints.push_back(std::move(c));
    }
    d.input.push_back(static_cast<uint32_t>(k));
    d.pass.push_back(passes[k]);
    counts[k]++;
    ++i;
  }
  return d;
}

Result<std::shared_ptr<const MixNode::Draws>> MixNode::DrawsOf(uint64_t epoch) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = cache_.find(epoch);
  if (it != cache_.end()) {
    it->second.first = ++clock_;
    return it->second.second;
  }
  MR_ASSIGN_OR_RETURN(Draws d, Draw(epoch));
  auto p = std::make_shared<const Draws>(std::move(d));
  if (cache_.size() >= 3) {
    cache_.erase(std::min_element(cache_.begin(), cache_.end(), [](const auto& a, const auto& b) {
      return a.second.first < b.second.first;
    }));
  }
  cache_[epoch] = {++clock_, p};
  return p;
}

Result<uint64_t> MixNode::Size(uint64_t epoch) const {
  MR_ASSIGN_OR_RETURN(auto d, DrawsOf(epoch));
  return d->input.size();
}

Status MixNode::Resolve(uint64_t epoch, uint64_t begin, uint64_t end, RowProgram* out) const {
  MR_ASSIGN_OR_RETURN(auto d, DrawsOf(epoch));
  if (end > d->input.size()) return Status::Internal("mix: position past the epoch");
  if (begin == end) return Status::OK();
  // Each input's (pass, draws in it) at `begin`, replayed from the checkpoint.
  const uint64_t start = begin / kCheckpoint * kCheckpoint;
  std::vector<std::pair<uint32_t, uint64_t>> at = d->checkpoints[begin / kCheckpoint];
  auto next_local = [&](uint64_t i) {
    auto& s = at[d->input[i]];
    if (s.first != d->pass[i]) s = {d->pass[i], 0};
    return s.second++;
  };
  for (uint64_t i = start; i < begin; ++i) next_local(i);
  // Runs of consecutive positions of one input's pass resolve together.
  uint64_t i = begin;
  while (i < end) {
    const uint32_t k = d->input[i], pass = d->pass[i];
    const uint64_t first = next_local(i);
    uint64_t j = i + 1;
    while (j < end && d->input[j] == k && d->pass[j] == pass) {
      next_local(j);
      ++j;
    }
    MR_RETURN_IF_ERROR(inputs_[k]->Resolve(InputEpoch(epoch, pass), first, first + (j - i), out + (i - begin)));
    for (uint64_t p = i; p < j; ++p) out[p - begin].push_back(Instr{Instr::Kind::kTag, tag_base_ + k, 0, 0});
    i = j;
  }
  return Status::OK();
}

}  // namespace mindrecord
