#include "pipeline/nodes/positional.h"

#include <algorithm>

namespace mindrecord {

Status ResolvePositions(const RowNode& node, uint64_t epoch, const uint64_t* positions, size_t n, RowProgram* out) {
  size_t i = 0;
  while (i < n) {
    size_t j = i + 1;
    while (j < n && positions[j] == positions[j - 1] + 1) ++j;
    MR_RETURN_IF_ERROR(node.Resolve(epoch, positions[i], positions[j - 1] + 1, out + i));
    i = j;
  }
  return Status::OK();
}

Result<EpochCache::Ids> EpochCache::Get(uint64_t epoch,
                                        const std::function<Result<std::vector<uint64_t>>(uint64_t)>& make) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = by_epoch_.find(epoch);
  if (it != by_epoch_.end()) {
    it->second.first = ++clock_;
    return it->second.second;
  }
  // Computed under the lock: every thread needs it, and the first to ask
  // computes it once (tasks in flight hold their own reference).
  MR_ASSIGN_OR_RETURN(std::vector<uint64_t> ids, make(epoch));
  auto p = std::make_shared<const std::vector<uint64_t>>(std::move(ids));
  if (by_epoch_.size() >= kKeep) {
    auto oldest = std::min_element(by_epoch_.begin(), by_epoch_.end(),
                                   [](const auto& a, const auto& b) { return a.second.first < b.second.first; });
    by_epoch_.erase(oldest);
  }
  by_epoch_[epoch] = {++clock_, p};
  return p;
}

LeafNode::LeafNode(uint32_t source_index, const Source* source, std::unique_ptr<Sampler> sampler, uint64_t seed)
    : index_(source_index), source_(source), sampler_(std::move(sampler)), seed_(seed) {
  columns_ = source->columns();
}

Status LeafNode::Resolve(uint64_t epoch, uint64_t begin, uint64_t end, RowProgram* out) const {
  MR_ASSIGN_OR_RETURN(auto ids, cache_.Get(epoch, [this](uint64_t e) -> Result<std::vector<uint64_t>> {
    MR_ASSIGN_OR_RETURN(std::vector<uint64_t> ids, sampler_->Epoch(seed_, e));
    MR_ASSIGN_OR_RETURN(uint64_t size, sampler_->EpochSize(seed_, e));
    if (ids.size() != size) return Status::Internal("sampler returned a different count than its size()");
    const uint64_t rows = source_->num_rows();
    for (uint64_t id : ids) {
      if (id >= rows) return Status::Internal("sampler returned row id " + std::to_string(id) + " past the dataset");
    }
    return ids;
  }));
  if (end > ids->size()) return Status::Internal("leaf: position past the epoch");
  for (uint64_t p = begin; p < end; ++p) out[p - begin].push_back(Instr{Instr::Kind::kRead, index_, (*ids)[p], 0});
  return Status::OK();
}

StepNode::StepNode(std::unique_ptr<RowNode> input, int step, std::vector<std::string> columns, bool drops)
    : input_(std::move(input)), step_(step) {
  columns_ = std::move(columns);
  drops_rows_ = drops || input_->drops_rows();
}

Status StepNode::Resolve(uint64_t epoch, uint64_t begin, uint64_t end, RowProgram* out) const {
  MR_RETURN_IF_ERROR(input_->Resolve(epoch, begin, end, out));
  if (step_ < 0) return Status::OK();
  for (uint64_t p = begin; p < end; ++p) {
    out[p - begin].push_back(Instr{Instr::Kind::kStep, static_cast<uint32_t>(step_), epoch, p});
  }
  return Status::OK();
}

SliceNode::SliceNode(std::unique_ptr<RowNode> input, bool take, uint64_t count)
    : input_(std::move(input)), take_(take), count_(count) {
  columns_ = input_->columns();
  drops_rows_ = input_->drops_rows();
}

Result<uint64_t> SliceNode::Size(uint64_t epoch) const {
  MR_ASSIGN_OR_RETURN(uint64_t n, input_->Size(epoch));
  return take_ ? std::min(n, count_) : n - std::min(n, count_);
}

Status SliceNode::Resolve(uint64_t epoch, uint64_t begin, uint64_t end, RowProgram* out) const {
  const uint64_t shift = take_ ? 0 : count_;
  return input_->Resolve(epoch, begin + shift, end + shift, out);
}

RepeatNode::RepeatNode(std::unique_ptr<RowNode> input, uint64_t count) : input_(std::move(input)), count_(count) {
  columns_ = input_->columns();
  drops_rows_ = input_->drops_rows();
}

Result<uint64_t> RepeatNode::Size(uint64_t epoch) const {
  uint64_t n = 0;
  for (uint64_t k = 0; k < count_; ++k) {
    MR_ASSIGN_OR_RETURN(uint64_t s, input_->Size(epoch * count_ + k));
    n += s;
  }
  return n;
}

Status RepeatNode::Resolve(uint64_t epoch, uint64_t begin, uint64_t end, RowProgram* out) const {
  uint64_t offset = 0;  // first position of pass k
  for (uint64_t k = 0; k < count_ && begin < end; ++k) {
    MR_ASSIGN_OR_RETURN(uint64_t s, input_->Size(epoch * count_ + k));
    if (begin < offset + s) {
      const uint64_t stop = std::min(end, offset + s);
      MR_RETURN_IF_ERROR(input_->Resolve(epoch * count_ + k, begin - offset, stop - offset, out));
      out += stop - begin;
      begin = stop;
    }
    offset += s;
  }
  return begin == end ? Status::OK() : Status::Internal("repeat: position past the epoch");
}

ConcatNode::ConcatNode(std::vector<std::unique_ptr<RowNode>> inputs) : inputs_(std::move(inputs)) {
  columns_ = inputs_[0]->columns();
  for (const auto& in : inputs_) drops_rows_ = drops_rows_ || in->drops_rows();
}

Result<uint64_t> ConcatNode::Size(uint64_t epoch) const {
  uint64_t n = 0;
  for (const auto& in : inputs_) {
    MR_ASSIGN_OR_RETURN(uint64_t s, in->Size(epoch));
    n += s;
  }
  return n;
}

Status ConcatNode::Resolve(uint64_t epoch, uint64_t begin, uint64_t end, RowProgram* out) const {
  uint64_t offset = 0;
  for (size_t k = 0; k < inputs_.size() && begin < end; ++k) {
    MR_ASSIGN_OR_RETURN(uint64_t s, inputs_[k]->Size(epoch));
    if (begin < offset + s) {
      const uint64_t stop = std::min(end, offset + s);
      MR_RETURN_IF_ERROR(inputs_[k]->Resolve(epoch, begin - offset, stop - offset, out));
      out += stop - begin;
      begin = stop;
    }
    offset += s;
  }
  return begin == end ? Status::OK() : Status::Internal("concat: position past the epoch");
}

ZipNode::ZipNode(std::vector<std::unique_ptr<RowNode>> inputs) : inputs_(std::move(inputs)) {
  for (const auto& in : inputs_) {
    columns_.insert(columns_.end(), in->columns().begin(), in->columns().end());
    drops_rows_ = drops_rows_ || in->drops_rows();
  }
}

Result<uint64_t> ZipNode::Size(uint64_t epoch) const {
  uint64_t n = UINT64_MAX;
  for (const auto& in : inputs_) {
    MR_ASSIGN_OR_RETURN(uint64_t s, in->Size(epoch));
    n = std::min(n, s);
  }
  return n;
}

Status ZipNode::Resolve(uint64_t epoch, uint64_t begin, uint64_t end, RowProgram* out) const {
  for (const auto& in : inputs_) MR_RETURN_IF_ERROR(in->Resolve(epoch, begin, end, out));
  for (uint64_t p = begin; p < end; ++p) {
    out[p - begin].push_back(Instr{Instr::Kind::kZip, static_cast<uint32_t>(inputs_.size()), 0, 0});
  }
  return Status::OK();
}

PermuteNode::PermuteNode(std::unique_ptr<RowNode> input, nlohmann::json sampler, uint64_t seed)
    : input_(std::move(input)), spec_(std::move(sampler)), seed_(seed) {
  columns_ = input_->columns();
  drops_rows_ = input_->drops_rows();
}

Result<std::unique_ptr<Sampler>> PermuteNode::SamplerFor(uint64_t epoch) const {
  MR_ASSIGN_OR_RETURN(uint64_t n, input_->Size(epoch));
  return MakeSampler(spec_, DatasetLayout::Uniform(n, 1));
}

Result<uint64_t> PermuteNode::Size(uint64_t epoch) const {
  MR_ASSIGN_OR_RETURN(auto sampler, SamplerFor(epoch));
  return sampler->EpochSize(seed_, epoch);
}

Status PermuteNode::Resolve(uint64_t epoch, uint64_t begin, uint64_t end, RowProgram* out) const {
  MR_ASSIGN_OR_RETURN(auto order, cache_.Get(epoch, [this](uint64_t e) -> Result<std::vector<uint64_t>> {
    MR_ASSIGN_OR_RETURN(auto sampler, SamplerFor(e));
    return sampler->Epoch(seed_, e);
  }));
  if (end > order->size()) return Status::Internal("shuffle/shard: position past the epoch");
  return ResolvePositions(*input_, epoch, order->data() + begin, end - begin, out);
}

}  // namespace mindrecord
