// Autotune: the tuner's decisions on simulated pipelines (deterministic), and
// the runtime with autotune on: the same batches and resume states as off.
#include <gtest/gtest.h>

#include "pipeline/autotune.h"
#include "tests/pipeline/pipeline_test_util.h"

namespace mindrecord {
namespace {

// A pipeline whose workers make `per_worker` rows/s each, `cap` rows/s at
// most together (what they share), up to what the consumer takes
// (`consumer` rows/s), run through the tuner for `windows` windows of 0.1 s.
// A working worker keeps `cpu_per_worker` of a core busy (less when it waits
// on I/O), on `cores` cores at most. Returns the worker counts it ran with,
// per window.
std::vector<uint32_t> Simulate(Autotuner* t, double per_worker, double consumer, int windows, double cap = 1e12,
                               double cores = 1e6, double cpu_per_worker = 1.0) {
  AutotuneSample s;
  std::vector<uint32_t> seen;
  for (int i = 0; i < windows; ++i) {
    const uint32_t w = t->setting().workers;
    seen.push_back(w);
    const double made = std::min(per_worker * w, cap), rate = std::min(made, consumer);
    const double blocked = std::max(0.0, 1 - consumer / made);
    s.t_s += 0.1;
    s.rows += static_cast<uint64_t>(rate * 0.1);
    s.batches += 10;
    // The consumer waits for the share of the time the workers fall short;
    // workers idle for the share of their capacity not taken.
    s.consumer_wait_s += 0.1 * std::max(0.0, 1 - made / consumer);
    s.workers_blocked_s += 0.1 * w * blocked;
    s.cpu_s += 0.1 * std::min(w * (1 - blocked) * cpu_per_worker, cores);
    t->Observe(s);
  }
  return seen;
}

TEST(Autotuner, AddsWorkersWhileTheyPay) {
  AutotuneOptions o;
  o.enabled = true;
  Autotuner t(o, 8, 16, 1, 8);
  Simulate(&t, 100, 350, 30);
  // 4 workers make 400 >= 350 rows/s: the consumer no longer waits.
  EXPECT_EQ(t.setting().workers, 4u);
  EXPECT_EQ(t.setting().queue_depth, 8u);
  ASSERT_EQ(t.decisions().size(), 3u);
  EXPECT_NE(t.decisions()[0].find("workers 1->2 queue_depth 2->4: try: consumer waited 71%"), std::string::npos)
      << t.decisions()[0];
}

TEST(Autotuner, TakesBackTheWorkerThatDoesNotPayAndBacksOff) {
  AutotuneOptions o;
  o.enabled = true;
  Autotuner t(o, 8, 16, 1, 8);
  // The cores are saturated at 250 rows/s: a 4th worker gains nothing.
  const std::vector<uint32_t> seen = Simulate(&t, 100, 1000, 80, 250);
  bool back = false;
  for (const auto& d : t.decisions()) back = back || d.find("workers 4->3 queue_depth 8->6: back") != std::string::npos;
  EXPECT_TRUE(back);
  size_t three = 0;
  for (size_t i = 40; i < seen.size(); ++i) three += seen[i] == 3;
  EXPECT_GE(three, 36u) << "the back-off keeps it at 3 most of the time";
  EXPECT_LT(t.num_decisions(), 16u);
}

TEST(Autotuner, StaysWithinTheCpuBudget) {
  AutotuneOptions o;
  o.enabled = true;
  Autotuner t(o, 3, 6, 8, 3);  // starts at the budget, not past it
  EXPECT_EQ(t.setting().workers, 3u);
  for (uint32_t w : Simulate(&t, 10, 1000, 40)) EXPECT_LE(w, 3u);
  EXPECT_EQ(t.setting().workers, 3u);
  EXPECT_EQ(t.setting().queue_depth, 6u);
}

TEST(Autotuner, ShedsWorkersTheConsumerDoesNotNeed) {
  AutotuneOptions o;
  o.enabled = true;
  Autotuner t(o, 8, 16, 6, 8);
  Simulate(&t, 1000, 1200, 60);  // two workers are plenty
  EXPECT_EQ(t.setting().workers, 2u);
}

TEST(Autotuner, TriesFewerWorkersThanThePlanOnSaturatedCores) {
  AutotuneOptions o;
  o.enabled = true;
  Autotuner t(o, 2, 4, 2, 1);  // num_workers 2 on a budget of one core
  // One core's worth (150 rows/s) whatever the thread count: one worker does,
  // and a second is not tried again while that core is saturated.
  const std::vector<uint32_t> seen = Simulate(&t, 200, 1000, 60, 150, 1);
  ASSERT_EQ(t.num_decisions(), 1u);
  EXPECT_NE(t.decisions()[0].find("workers 2->1 queue_depth 4->2: try fewer, more workers than cores"),
            std::string::npos)
      << t.decisions()[0];
  for (size_t i = 3; i < seen.size(); ++i) EXPECT_EQ(seen[i], 1u) << "window " << i;
}

// At the budget with its cores saturated there is nothing to gain: no
// worker is added or probed away (each failed probe costs throughput).
TEST(Autotuner, LeavesSaturatedCoresAlone) {
  AutotuneOptions o;
  o.enabled = true;
  Autotuner t(o, 2, 4, 2, 2);
  for (uint32_t w : Simulate(&t, 200, 1000, 60, 300, 2)) EXPECT_EQ(w, 2u);
  EXPECT_EQ(t.num_decisions(), 0u) << t.decisions()[0];
}

// Workers waiting on I/O leave the cores idle: more of them than cores pay.
TEST(Autotuner, AddsWorkersPastTheCoresWhileTheyWaitOnIo) {
  AutotuneOptions o;
  o.enabled = true;
  Autotuner t(o, 4, 8, 2, 2);
  Simulate(&t, 100, 1000, 40, 1e12, 2, 0.2);
  EXPECT_EQ(t.setting().workers, 4u);
}

TEST(Autotuner, IntervalCountsBatches) {
  AutotuneOptions o;
  o.enabled = true;
  o.interval = 25;
  Autotuner t(o, 4, 8, 1, 4);
  AutotuneSample s;
  for (int i = 0; i < 11; ++i) {  // 10 batches a step: a window is 3 steps (the first two are skipped)
    s.t_s += 1;
    s.batches += 10;
    s.rows += 100;
    s.consumer_wait_s += 0.9;
    t.Observe(s);
  }
  EXPECT_EQ(t.num_decisions(), 1u);
  EXPECT_EQ(t.setting().workers, 2u);
}

TEST(AutotuneOptions, JsonRoundTripAndRefusals) {
  auto o = AutotuneOptions::FromJson({{"enabled", true}, {"cpu_budget", 2}, {"interval", 5}});
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->ToJson(), nlohmann::json({{"enabled", true}, {"cpu_budget", 2}, {"interval", 5}}));
  EXPECT_TRUE(AutotuneOptions::FromJson(true)->enabled);
  EXPECT_FALSE(AutotuneOptions::FromJson({{"workers", 2}}).ok());
  EXPECT_FALSE(AutotuneOptions::FromJson({{"cpu_budget", -1}}).ok());
  EXPECT_FALSE(AutotuneOptions::FromJson("yes").ok());
  auto plan = Plan::Parse(R"({"source": ["x"], "autotune": {"enabled": true, "cpu_budget": 3}})");
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_TRUE(plan->autotune.enabled);
  EXPECT_EQ(plan->autotune.cpu_budget, 3u);
  Plan off = *plan;
  off.autotune = AutotuneOptions();
  EXPECT_EQ(plan->SequenceFingerprint(), off.SequenceFingerprint()) << "autotune never changes the sequence";
  EXPECT_FALSE(Plan::Parse(R"({"source": ["x"], "autotune": {"enable": true}})").ok());
  EXPECT_GE(AffinityCores(), 1u);
}

// With autotune the runtime gives the batches and resume states it gives
// without, whatever worker counts it runs (a slow op makes the workers the
// bottleneck, so it has reason to add workers).
TEST(AutotuneRuntime, SameBatchesAndStatesAsWithout) {
  testing::RegisterTestOps();
  const std::string path = testing::WriteDataset("autotune.mindrecord", 400, 2);
  Plan p;
  p.source = {path};
  p.batch.batch_size = 8;
  p.num_workers = 1;
  p.queue_depth = 2;
  p.seed = 9;
  p.epochs = 2;
  p.sampler = {{"type", "shuffle"}, {"mode", "global"}};
  p.ops["vec"] = {{{"op", "TestJitter"}}};
  auto off = Pipeline::Open(p);
  ASSERT_TRUE(off.ok());
  std::vector<uint64_t> want;
  std::vector<std::string> want_states;
  Batch b;
  for (;;) {
    auto more = (*off)->Next(&b);
    ASSERT_TRUE(more.ok());
    if (!*more) break;
    want.push_back(testing::BatchDigest(b));
    want_states.push_back((*off)->state().ToJson().dump());
  }
  for (uint32_t budget : {1u, 2u, 4u}) {
    Plan q = p;
    q.autotune.enabled = true;
    q.autotune.cpu_budget = budget;
    q.autotune.interval = 2;
    auto on = Pipeline::Open(q);
    ASSERT_TRUE(on.ok());
    size_t k = 0;
    for (;; ++k) {
      auto more = (*on)->Next(&b);
      ASSERT_TRUE(more.ok());
      if (!*more) break;
      ASSERT_LT(k, want.size());
      EXPECT_EQ(testing::BatchDigest(b), want[k]) << "budget " << budget << " batch " << k;
      EXPECT_EQ((*on)->state().ToJson().dump(), want_states[k]);
    }
    EXPECT_EQ(k, want.size());
    const PipelineStats s = (*on)->stats();
    EXPECT_TRUE(s.autotune);
    EXPECT_EQ(s.autotune_max_workers, budget);  // num_workers 1 is within every budget
    EXPECT_GE(s.num_workers, 1u);
    EXPECT_LE(s.num_workers, budget);
    EXPECT_EQ(s.autotune_decisions.size(), std::min<uint64_t>(s.autotune_changes, 32));
    EXPECT_TRUE(s.ToJson().contains("autotune"));
  }
}

}  // namespace
}  // namespace mindrecord
