// The new ops in a C++ plan (JSON text, as a C++ user writes it): combinators
// and label ops in the pipeline, the same output for any worker count, exact
// resume mid-epoch.
#include <gtest/gtest.h>

#include <cmath>

#include "pipeline/pipeline.h"
#include "pipeline/plan.h"
#include "tests/pipeline/pipeline_test_util.h"

namespace mindrecord {
namespace {

using testing::BatchDigest;
using testing::Drain;

// vec (float32[4], row k holds k, k + .25, ...) goes through a random choice
// of two rescales and a RandomApply; label (int32, k % 7) becomes one-hot.
constexpr const char* kPlan = R"({
  "columns": ["id", "label", "vec"],
  "sampler": {"type": "shuffle", "mode": "global"},
  "ops": {
    "vec": [{"op": "Compose", "transforms": [
              {"op": "RandomChoice", "transforms": [{"op": "Rescale", "rescale": 2.0, "shift": 0.0},
                                                    {"op": "Rescale", "rescale": -1.0, "shift": 0.0}]},
              {"op": "RandomApply", "prob": 0.5,
               "transforms": [{"op": "Rescale", "rescale": 1.0, "shift": 1000.0}]}]}],
    "label": [{"op": "RandomOrder", "transforms": [{"op": "TypeCast", "type": "int64"}]},
              {"op": "OneHot", "num_classes": 7}]
  },
  "batch": {"batch_size": 20},
  "num_workers": 3,
  "seed": 77,
  "epochs": 2
})";

Plan MakePlan(const std::string& path, uint32_t workers) {
  auto p = Plan::Parse(kPlan);
  EXPECT_TRUE(p.ok()) << p.status().ToString();
  p->source = {path};
  p->num_workers = workers;
  return *p;
}

uint64_t PlanDigest(const std::vector<Batch>& bs) {
  uint64_t h = 0;
  for (const auto& b : bs) h = h * 31 + BatchDigest(b);
  return h;
}

TEST(OpsPlanTest, AugmentationOpsRunInAPlanDeterministicallyAndResume) {
  const std::string path = testing::WriteDataset("ops_plan.mindrecord", 300, 2);
  auto pipe = Pipeline::Open(MakePlan(path, 1));
  ASSERT_TRUE(pipe.ok()) << pipe.status().ToString();
  const auto full = Drain(pipe->get());
  ASSERT_EQ(full.size(), 30u);  // 2 epochs of 300 rows in batches of 20
  int doubled = 0, negated = 0, shifted = 0;
  for (const auto& b : full) {
    const BatchColumn* id = b.column("id");
    const BatchColumn* label = b.column("label");
    const BatchColumn* vec = b.column("vec");
    ASSERT_TRUE(id && label && vec);
    ASSERT_EQ(label->data.type(), TensorType::kInt64);
    ASSERT_EQ(label->data.shape(), (std::vector<int64_t>{20, 7}));
    ASSERT_EQ(vec->data.type(), TensorType::kFloat32);
    for (size_t i = 0; i < b.size(); ++i) {
      const int64_t k = id->data.data_as<int64_t>()[i];
      for (int c = 0; c < 7; ++c) ASSERT_EQ(label->data.data_as<int64_t>()[i * 7 + c], c == k % 7 ? 1 : 0);
      float v = vec->data.data_as<float>()[i * 4 + 1];  // k + 0.25, transformed
      if (v > 650) v -= 1000, ++shifted;  // unshifted values lie in [-299.25, 598.5]
      const float x = static_cast<float>(k) + 0.25f;
      ASSERT_TRUE(v == 2 * x || v == -x) << k << ": " << v;
      (v == 2 * x ? doubled : negated)++;
    }
  }
  EXPECT_NEAR(doubled / 600.0, 0.5, 5 * std::sqrt(0.25 / 600));
  EXPECT_NEAR(shifted / 600.0, 0.5, 5 * std::sqrt(0.25 / 600));
  EXPECT_GT(negated, 0);
  // Any worker count gives the same batches.
  for (uint32_t workers : {2u, 4u}) {
    auto other = Pipeline::Open(MakePlan(path, workers));
    ASSERT_TRUE(other.ok());
    EXPECT_EQ(PlanDigest(Drain(other->get())), PlanDigest(full)) << workers << " workers";
  }
  // Resume after 7 batches (mid first epoch) and 19 (mid second) gives exactly the rest.
  for (size_t cut : {7u, 19u}) {
    auto first = Pipeline::Open(MakePlan(path, 3));
    ASSERT_TRUE(first.ok());
    auto head = Drain(first->get(), cut);
    const PipelineState state = (*first)->state();
    auto second = Pipeline::Open(MakePlan(path, 2), &state);
    ASSERT_TRUE(second.ok()) << second.status().ToString();
    auto tail = Drain(second->get());
    ASSERT_EQ(cut + tail.size(), full.size());
    for (size_t k = 0; k < tail.size(); ++k) EXPECT_EQ(BatchDigest(tail[k]), BatchDigest(full[cut + k])) << cut;
  }
}

TEST(OpsPlanTest, BadNestedSpecIsRefusedWhenThePlanOpens) {
  const std::string path = testing::WriteDataset("ops_plan_bad.mindrecord", 10, 1);
  Plan p = MakePlan(path, 1);
  p.ops["vec"] = {{{"op", "RandomApply"}, {"transforms", {{{"op", "Rescale"}, {"rescale", 2.0}}}}}};
  auto r = Pipeline::Open(p);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("RandomApply: Rescale: parameters 'rescale' and 'shift' are required"),
            std::string::npos)
      << r.status().message();
}

}  // namespace
}  // namespace mindrecord
