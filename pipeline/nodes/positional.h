// The positional row nodes (see row_node.h): a leaf (source + sampler), a
// step over its input (map, ops, project, filter) or a renaming, take, skip,
// repeat, concat, zip, and a permutation of the input's positions (shuffle,
// shard). Mix has its own file.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pipeline/nodes/row_node.h"
#include "pipeline/nodes/source.h"
#include "pipeline/sampler.h"

namespace mindrecord {

// A few epochs' orders, computed once each (tasks of the current and the
// next epoch, and repeats' passes, are in flight together).
// Thread safety: Get may be called from many threads at once.
class EpochCache {
 public:
  using Ids = std::shared_ptr<const std::vector<uint64_t>>;
  Result<Ids> Get(uint64_t epoch, const std::function<Result<std::vector<uint64_t>>(uint64_t epoch)>& make);

 private:
  static constexpr size_t kKeep = 4;
  std::mutex mu_;
  std::map<uint64_t, std::pair<uint64_t, Ids>> by_epoch_;  // epoch -> (last use, ids)
  uint64_t clock_ = 0;
};

// A source read in its sampler's order: position p is row ids[p] of the
// epoch's sampler order.
class LeafNode : public RowNode {
 public:
  // `seed`: what the sampler shuffles with.
  LeafNode(uint32_t source_index, const Source* source, std::unique_ptr<Sampler> sampler, uint64_t seed);
  Result<uint64_t> Size(uint64_t epoch) const override { return sampler_->EpochSize(seed_, epoch); }
  Status Resolve(uint64_t epoch, uint64_t begin, uint64_t end, RowProgram* out) const override;

 private:
  uint32_t index_;
  const Source* source_;
  std::unique_ptr<Sampler> sampler_;
  uint64_t seed_;
  mutable EpochCache cache_;
};

// Its input's positions, each with step `step` applied (step < 0: none, a
// renaming), giving `columns`. `drops`: the step may drop rows (filter).
class StepNode : public RowNode {
 public:
  StepNode(std::unique_ptr<RowNode> input, int step, std::vector<std::string> columns, bool drops);
  Result<uint64_t> Size(uint64_t epoch) const override { return input_->Size(epoch); }
  Status Resolve(uint64_t epoch, uint64_t begin, uint64_t end, RowProgram* out) const override;
  int step() const { return step_; }

 private:
  std::unique_ptr<RowNode> input_;
  int step_;
};

// The input's first `count` positions (take) or all but them (skip).
class SliceNode : public RowNode {
 public:
  SliceNode(std::unique_ptr<RowNode> input, bool take, uint64_t count);
  Result<uint64_t> Size(uint64_t epoch) const override;
  Status Resolve(uint64_t epoch, uint64_t begin, uint64_t end, RowProgram* out) const override;

 private:
  std::unique_ptr<RowNode> input_;
  bool take_;
  uint64_t count_;
};

// `count` passes of the input back to back: epoch e is the input's epochs
// e*count .. e*count + count - 1.
class RepeatNode : public RowNode {
 public:
  RepeatNode(std::unique_ptr<RowNode> input, uint64_t count);
  Result<uint64_t> Size(uint64_t epoch) const override;
  Status Resolve(uint64_t epoch, uint64_t begin, uint64_t end, RowProgram* out) const override;

 private:
  std::unique_ptr<RowNode> input_;
  uint64_t count_;
};

// The inputs' positions one input after the other (same columns).
class ConcatNode : public RowNode {
 public:
  explicit ConcatNode(std::vector<std::unique_ptr<RowNode>> inputs);
  Result<uint64_t> Size(uint64_t epoch) const override;
  Status Resolve(uint64_t epoch, uint64_t begin, uint64_t end, RowProgram* out) const override;

 private:
  std::vector<std::unique_ptr<RowNode>> inputs_;
};

// Position p of every input side by side; as long as the shortest input.
class ZipNode : public RowNode {
 public:
  explicit ZipNode(std::vector<std::unique_ptr<RowNode>> inputs);
  Result<uint64_t> Size(uint64_t epoch) const override;
  Status Resolve(uint64_t epoch, uint64_t begin, uint64_t end, RowProgram* out) const override;

 private:
  std::vector<std::unique_ptr<RowNode>> inputs_;
};

// The input's positions in the order of a sampler drawn over them (one shard
// of the input's size): "buffer_shuffle" (shuffle) or "distributed" (shard).
class PermuteNode : public RowNode {
 public:
  // `sampler`: the spec, less the layout; `seed`: what it draws with.
  PermuteNode(std::unique_ptr<RowNode> input, nlohmann::json sampler, uint64_t seed);
  Result<uint64_t> Size(uint64_t epoch) const override;
  Status Resolve(uint64_t epoch, uint64_t begin, uint64_t end, RowProgram* out) const override;

 private:
  Result<std::unique_ptr<Sampler>> SamplerFor(uint64_t epoch) const;
  std::unique_ptr<RowNode> input_;
  nlohmann::json spec_;
  uint64_t seed_;
  mutable EpochCache cache_;
};

}  // namespace mindrecord
