#include "pipeline/ops/compose.h"

#include <numeric>
#include <utility>

#include "pipeline/op_registry.h"

namespace mindrecord::ops {

namespace {

std::string Count(int n) {
  if (n < 0) return "any number of columns";
  return std::to_string(n) + (n == 1 ? " column" : " columns");
}

}  // namespace

Result<OpList> OpList::Build(const nlohmann::json& spec, const std::string& op) {
  if (!spec.contains("transforms")) return Status::InvalidArgument(op + ": parameter 'transforms' is required");
  const auto& t = spec["transforms"];
  if (!t.is_array() || t.empty())
    return Status::InvalidArgument(op + ": parameter 'transforms' must be a non-empty list of op specs, got " +
                                   t.dump());
  std::vector<nlohmann::json> specs(t.begin(), t.end());
  auto built = BuildColumnOps(specs);
  if (!built.ok()) return built.status().WithContext(op);
  OpList list;
  for (auto& o : *built) list.ops_.push_back(std::shared_ptr<const TensorOp>(std::move(o)));
  return list;
}

Status OpList::Add(const nlohmann::json& spec, const std::string& op) {
  auto built = BuildColumnOps({spec});
  if (!built.ok()) return built.status().WithContext(op);
  if (built->size() != 1) return Status::Internal(op + ": one spec built " + std::to_string(built->size()) + " ops");
  ops_.push_back(std::shared_ptr<const TensorOp>(std::move((*built)[0])));
  return Status::OK();
}

nlohmann::json OpList::ToJson() const {
  nlohmann::json j = nlohmann::json::array();
  for (const auto& o : ops_) j.push_back(o->ToJson());
  return j;
}

bool OpList::any_random() const {
  for (const auto& o : ops_)
    if (o->is_random()) return true;
  return false;
}

Result<std::vector<Tensor>> OpList::Run(std::vector<Tensor> cols, const std::vector<size_t>& order,
                                        std::mt19937_64& rng, const std::string& op) const {
  for (size_t i : order) {
    const TensorOp& o = *ops_[i];
    if (o.num_inputs() >= 0 && static_cast<int>(cols.size()) != o.num_inputs())
      return Status::InvalidArgument(op + ": " + o.name() + " takes " + Count(o.num_inputs()) + ", got " +
                                     Count(static_cast<int>(cols.size())));
    if (Status st = CheckStringInputs(o, cols.data(), cols.size()); !st.ok()) return st.WithContext(op);
    if (o.num_inputs() == 1 && o.num_outputs() == 1) {
      auto r = o.Apply(std::move(cols[0]), rng);
      if (!r.ok()) return r.status().WithContext(op);
      cols[0] = std::move(r).value();
      continue;
    }
    auto r = o.ApplyColumns(std::move(cols), rng);
    if (!r.ok()) return r.status().WithContext(op);
    cols = std::move(r).value();
    if (o.num_outputs() >= 0 && static_cast<int>(cols.size()) != o.num_outputs())
      return Status::Internal(op + ": " + o.name() + " gave " + Count(static_cast<int>(cols.size())) +
                              ", declared " + Count(o.num_outputs()));
  }
  return cols;
}

Status CombinatorOp::CheckUniform(const OpList& ops, const std::string& op, bool same_in_out, int* in, int* out) {
  *in = ops.at(0).num_inputs();
  *out = ops.at(0).num_outputs();
  for (size_t i = 0; i < ops.size(); ++i) {
    const TensorOp& o = ops.at(i);
    if (o.num_inputs() != *in || o.num_outputs() != *out)
      return Status::InvalidArgument(op + ": all transforms must take and give the same numbers of columns; " +
                                     ops.at(0).name() + " takes " + Count(*in) + " and gives " + Count(*out) +
                                     ", " + o.name() + " takes " + Count(o.num_inputs()) + " and gives " +
                                     Count(o.num_outputs()));
    if (same_in_out && o.num_inputs() != o.num_outputs())
      return Status::InvalidArgument(op + ": every transform must give as many columns as it takes; " + o.name() +
                                     " takes " + Count(o.num_inputs()) + " and gives " + Count(o.num_outputs()));
  }
  return Status::OK();
}

Result<std::vector<Tensor>> CombinatorOp::CheckInputs(std::vector<Tensor> inputs) const {
  if (in_ >= 0 && static_cast<int>(inputs.size()) != in_)
    return Status::InvalidArgument(name_ + ": takes " + Count(in_) + ", got " + Count(static_cast<int>(inputs.size())));
  return inputs;
}

Result<Tensor> CombinatorOp::Apply(Tensor input, std::mt19937_64& rng) const {
  // -1: any number of columns (in) or as many as it gives (out).
  if ((in_ >= 0 && in_ != 1) || (out_ >= 0 && out_ != 1))
    return Status::InvalidArgument(name_ + ": takes " + Count(in_) + " and gives " + Count(out_) +
                                   "; it cannot run on one column");
  std::vector<Tensor> cols;
  cols.push_back(std::move(input));
  auto r = ApplyColumns(std::move(cols), rng);
  if (!r.ok()) return r.status();
  if (r->size() != 1) return Status::InvalidArgument(name_ + ": gave " + Count(static_cast<int>(r->size())) + ", not one");
  return std::move((*r)[0]);
}

Result<std::unique_ptr<TensorOp>> ComposeOp::Make(const nlohmann::json& spec) {
  const std::string op = "Compose";
  MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"transforms"}));
  MR_ASSIGN_OR_RETURN(OpList ops, OpList::Build(spec, op));
  for (size_t i = 1; i < ops.size(); ++i)
    if (ops.at(i).num_inputs() >= 0 && ops.at(i - 1).num_outputs() >= 0 &&
        ops.at(i).num_inputs() != ops.at(i - 1).num_outputs())
      return Status::InvalidArgument(op + ": " + ops.at(i - 1).name() + " gives " +
                                     Count(ops.at(i - 1).num_outputs()) + " but the next transform, " +
                                     ops.at(i).name() + ", takes " + Count(ops.at(i).num_inputs()));
  const int in = ops.at(0).num_inputs(), out = ops.at(ops.size() - 1).num_outputs();
  return std::unique_ptr<TensorOp>(new ComposeOp(op, std::move(ops), in, out));
}

Result<std::vector<Tensor>> ComposeOp::ApplyColumns(std::vector<Tensor> inputs, std::mt19937_64& rng) const {
  MR_ASSIGN_OR_RETURN(inputs, CheckInputs(std::move(inputs)));
  std::vector<size_t> order(ops_.size());
  std::iota(order.begin(), order.end(), size_t{0});
  return ops_.Run(std::move(inputs), order, rng, name_);
}

Result<Tensor> ComposeOp::ApplyInto(Tensor input, std::mt19937_64& rng, const OutputSlot& slot) const {
  if (in_ != 1 || out_ != 1) return Apply(std::move(input), rng);
  const size_t n = ops_.size();
  for (size_t i = 0; i < n; ++i)
    if (ops_.at(i).num_inputs() != 1 || ops_.at(i).num_outputs() != 1) return Apply(std::move(input), rng);
  for (size_t i = 0; i + 1 < n; ++i) {
    auto r = ops_.at(i).Apply(std::move(input), rng);
    if (!r.ok()) return r.status().WithContext(name_);
    input = std::move(r).value();
  }
  auto r = ops_.at(n - 1).ApplyInto(std::move(input), rng, slot);
  if (!r.ok()) return r.status().WithContext(name_);
  return r;
}

Result<std::unique_ptr<TensorOp>> RandomApplyOp::Make(const nlohmann::json& spec) {
  const std::string op = "RandomApply";
  MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"transforms", "prob"}));
  MR_ASSIGN_OR_RETURN(OpList ops, OpList::Build(spec, op));
  MR_ASSIGN_OR_RETURN(double prob, GetProbability(spec, op, "prob", 0.5));
  int in = 1, out = 1;
  MR_RETURN_IF_ERROR(CheckUniform(ops, op, true, &in, &out));
  return std::unique_ptr<TensorOp>(new RandomApplyOp(std::move(ops), in, out, prob));
}

Result<std::vector<Tensor>> RandomApplyOp::ApplyColumns(std::vector<Tensor> inputs, std::mt19937_64& rng) const {
  MR_ASSIGN_OR_RETURN(inputs, CheckInputs(std::move(inputs)));
  if (RandUniform(rng, 0.0, 1.0) >= prob_) return inputs;
  std::vector<size_t> order(ops_.size());
  std::iota(order.begin(), order.end(), size_t{0});
  return ops_.Run(std::move(inputs), order, rng, name_);
}

Result<std::unique_ptr<TensorOp>> RandomChoiceOp::Make(const nlohmann::json& spec) {
  const std::string op = "RandomChoice";
  MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"transforms"}));
  MR_ASSIGN_OR_RETURN(OpList ops, OpList::Build(spec, op));
  int in = 1, out = 1;
  MR_RETURN_IF_ERROR(CheckUniform(ops, op, false, &in, &out));
  return std::unique_ptr<TensorOp>(new RandomChoiceOp(op, std::move(ops), in, out));
}

Result<std::vector<Tensor>> RandomChoiceOp::ApplyColumns(std::vector<Tensor> inputs, std::mt19937_64& rng) const {
  MR_ASSIGN_OR_RETURN(inputs, CheckInputs(std::move(inputs)));
  const auto pick = static_cast<size_t>(RandInt(rng, 0, static_cast<int64_t>(ops_.size()) - 1));
  return ops_.Run(std::move(inputs), {pick}, rng, name_);
}

Result<std::unique_ptr<TensorOp>> RandomOrderOp::Make(const nlohmann::json& spec) {
  const std::string op = "RandomOrder";
  MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"transforms"}));
  MR_ASSIGN_OR_RETURN(OpList ops, OpList::Build(spec, op));
  int in = 1, out = 1;
  MR_RETURN_IF_ERROR(CheckUniform(ops, op, true, &in, &out));
  return std::unique_ptr<TensorOp>(new RandomOrderOp(op, std::move(ops), in, out));
}

Result<std::vector<Tensor>> RandomOrderOp::ApplyColumns(std::vector<Tensor> inputs, std::mt19937_64& rng) const {
  MR_ASSIGN_OR_RETURN(inputs, CheckInputs(std::move(inputs)));
  std::vector<size_t> order(ops_.size());
  std::iota(order.begin(), order.end(), size_t{0});
  for (size_t i = order.size(); i > 1; --i)  // Fisher-Yates, i - 1 draws
    std::swap(order[i - 1], order[static_cast<size_t>(RandInt(rng, 0, static_cast<int64_t>(i) - 1))]);
  return ops_.Run(std::move(inputs), order, rng, name_);
}

Result<std::unique_ptr<TensorOp>> UniformAugmentOp::Make(const nlohmann::json& spec) {
  const std::string op = "UniformAugment";
  MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"transforms", "num_ops"}));
  MR_ASSIGN_OR_RETURN(OpList ops, OpList::Build(spec, op));
  MR_ASSIGN_OR_RETURN(double n, GetNumber(spec, op, "num_ops", 2));
  if (!(n >= 1 && n <= static_cast<double>(ops.size())) || n != static_cast<int>(n))
    return Status::InvalidArgument(op + ": parameter 'num_ops' must be an integer in [1, " +
                                   std::to_string(ops.size()) + "] (the number of transforms), got " +
                                   nlohmann::json(n).dump());
  int in = 1, out = 1;
  MR_RETURN_IF_ERROR(CheckUniform(ops, op, true, &in, &out));
  return std::unique_ptr<TensorOp>(new UniformAugmentOp(std::move(ops), in, out, static_cast<int>(n)));
}

Result<std::vector<Tensor>> UniformAugmentOp::ApplyColumns(std::vector<Tensor> inputs, std::mt19937_64& rng) const {
  MR_ASSIGN_OR_RETURN(inputs, CheckInputs(std::move(inputs)));
  // Selection sampling: op i is picked with probability (still needed) / (ops left).
  std::vector<size_t> picked;
  const size_t n = ops_.size();
  const auto k = static_cast<size_t>(num_ops_);
  for (size_t i = 0; i < n && picked.size() < k; ++i)
    if (static_cast<size_t>(RandInt(rng, 0, static_cast<int64_t>(n - i) - 1)) < k - picked.size()) picked.push_back(i);
  for (size_t i : picked) {
    if (RandInt(rng, 0, 1) == 1) continue;  // MindSpore skips a picked op on a coin flip
    MR_ASSIGN_OR_RETURN(inputs, ops_.Run(std::move(inputs), {i}, rng, name_));
  }
  return inputs;
}

Result<std::unique_ptr<TensorOp>> RandomSelectSubpolicyOp::Make(const nlohmann::json& spec) {
  const std::string op = "RandomSelectSubpolicy";
  MR_RETURN_IF_ERROR(CheckKeys(spec, op, {"policy"}));
  const std::string form = op + ": parameter 'policy' must be a non-empty list of sub-policies, each a non-empty " +
                           "list of {\"transform\": op spec, \"prob\": p in [0, 1]}";
  if (!spec.contains("policy") || !spec["policy"].is_array() || spec["policy"].empty())
    return Status::InvalidArgument(form);
  // Each step's transform is built on its own (never fused with the next).
  OpList ops;
  std::vector<std::vector<Step>> policy;
  for (const auto& sub : spec["policy"]) {
    if (!sub.is_array() || sub.empty()) return Status::InvalidArgument(form);
    policy.emplace_back();
    for (const auto& step : sub) {
      if (!step.is_object() || !step.contains("transform") || !step.contains("prob") || step.size() != 2)
        return Status::InvalidArgument(form + ", got " + step.dump());
      MR_ASSIGN_OR_RETURN(double prob, GetNumber(step, op, "prob", 0));
      if (prob < 0 || prob > 1) return Status::InvalidArgument(op + ": a step's 'prob' must be in [0, 1]");
      policy.back().push_back({ops.size(), prob});
      MR_RETURN_IF_ERROR(ops.Add(step["transform"], op));
    }
  }
  int in = 1, out = 1;
  MR_RETURN_IF_ERROR(CheckUniform(ops, op, true, &in, &out));
  return std::unique_ptr<TensorOp>(new RandomSelectSubpolicyOp(std::move(ops), in, out, std::move(policy)));
}

nlohmann::json RandomSelectSubpolicyOp::ToJson() const {
  nlohmann::json policy = nlohmann::json::array();
  for (const auto& sub : policy_) {
    nlohmann::json steps = nlohmann::json::array();
    for (const Step& s : sub) steps.push_back({{"transform", ops_.at(s.op).ToJson()}, {"prob", s.prob}});
    policy.push_back(std::move(steps));
  }
  return {{"op", "RandomSelectSubpolicy"}, {"policy", std::move(policy)}};
}

Result<std::vector<Tensor>> RandomSelectSubpolicyOp::ApplyColumns(std::vector<Tensor> inputs,
                                                                  std::mt19937_64& rng) const {
  MR_ASSIGN_OR_RETURN(inputs, CheckInputs(std::move(inputs)));
  const auto& sub = policy_[static_cast<size_t>(RandInt(rng, 0, static_cast<int64_t>(policy_.size()) - 1))];
  for (const Step& s : sub) {
    if (RandUniform(rng, 0.0, 1.0) >= s.prob) continue;
    MR_ASSIGN_OR_RETURN(inputs, ops_.Run(std::move(inputs), {s.op}, rng, name_));
  }
  return inputs;
}

}  // namespace mindrecord::ops
