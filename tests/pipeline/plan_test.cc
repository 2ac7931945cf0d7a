// Plan JSON round trips, validation and the resume-state format.
#include <gtest/gtest.h>

#include "pipeline/plan.h"
#include "pipeline/stats.h"

namespace mindrecord {
namespace {

TEST(PlanTest, RoundTripsThroughJson) {
  Plan p;
  p.source = {"/data/a0", "/data/a1"};
  p.read.io_mode = IoMode::kDirect;
  p.read.direct_fallback = true;
  p.read.auto_direct_above = 5ull << 40;
  p.columns = {"image", "label"};
  p.sampler = {{"type", "distributed"}, {"num_shards", 4}, {"shard_id", 1}, {"shuffle", "global"}};
  p.ops["image"] = {{{"op", "Decode"}}, {{"op", "RandomResizedCrop"}, {"size", {224, 224}}}};
  p.batch.batch_size = 32;
  p.batch.drop_remainder = true;
  p.batch.ragged["label"] = RaggedSpec{RaggedMode::kPad, -1};
  p.sink.kind = SinkSpec::Kind::kCuda;
  p.sink.buffers = 2;
  p.num_workers = 8;
  p.queue_depth = 3;
  p.seed = 1234567890123ULL;
  p.epochs = 0;
  p.on_error = ErrorPolicy::kSkip;
  p.copy_views = true;
  const std::string text = p.ToString();
  auto q = Plan::Parse(text);
  ASSERT_TRUE(q.ok()) << q.status().ToString();
  EXPECT_EQ(q->ToJson(), p.ToJson());
  EXPECT_EQ(q->ToString(), text);
  EXPECT_EQ(q->SequenceFingerprint(), p.SequenceFingerprint());
  EXPECT_EQ(q->read.direct_fallback, true);
  EXPECT_EQ(q->read.auto_direct_above, 5ull << 40);
  // Defaults: auto, no fallback asked for, the available memory as threshold.
  auto d = *Plan::Parse(R"({"source": "x"})");
  EXPECT_EQ(d.read.io_mode, IoMode::kAuto);
  EXPECT_FALSE(d.read.direct_fallback);
  EXPECT_EQ(d.read.auto_direct_above, 0u);
  // How shards are read never changes the sequence.
  Plan other = p;
  other.read.io_mode = IoMode::kPread;
  other.read.direct_fallback = false;
  other.read.auto_direct_above = 1;
  EXPECT_EQ(other.SequenceFingerprint(), p.SequenceFingerprint());
  // Nor who copies the rows.
  other.copy_views = false;
  EXPECT_EQ(other.SequenceFingerprint(), p.SequenceFingerprint());
  EXPECT_FALSE(d.copy_views);
  auto bad = Plan::Parse(R"({"source": "x", "copy_views": 1})");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("copy_views"), std::string::npos) << bad.status().ToString();
}

TEST(PlanTest, DefaultsFromMinimalJson) {
  auto p = Plan::Parse(R"({"source": "/d/x.mindrecord"})");
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->source, std::vector<std::string>{"/d/x.mindrecord"});
  EXPECT_EQ(p->sampler["type"], "sequential");
  EXPECT_EQ(p->batch.batch_size, 1u);
  EXPECT_EQ(p->on_error, ErrorPolicy::kFail);
  EXPECT_EQ(p->sink.kind, SinkSpec::Kind::kHost);
  EXPECT_EQ(p->epochs, 1u);
}

TEST(PlanTest, FingerprintIgnoresParallelismAndSink) {
  Plan a;
  a.source = {"x"};
  Plan b = a;
  b.num_workers = 16;
  b.queue_depth = 9;
  b.sink.kind = SinkSpec::Kind::kCuda;
  b.epochs = 5;
  EXPECT_EQ(a.SequenceFingerprint(), b.SequenceFingerprint());
  b.seed = 1;
  EXPECT_NE(a.SequenceFingerprint(), b.SequenceFingerprint());
  Plan c = a;
  c.batch.batch_size = 2;
  EXPECT_NE(a.SequenceFingerprint(), c.SequenceFingerprint());
}

TEST(PlanTest, FingerprintIgnoresHandleKeysButNotPadding) {
  Plan a;
  a.source = {"x"};
  a.ops["img"] = {{{"op", "PyFunc"}, {"name", "f"}, {"_ref", 1}}};
  Plan b = a;
  b.ops["img"][0]["_ref"] = 7;
  EXPECT_EQ(a.SequenceFingerprint(), b.SequenceFingerprint());
  b.ops["img"][0]["name"] = "g";
  EXPECT_NE(a.SequenceFingerprint(), b.SequenceFingerprint());
  auto c = Plan::Parse(R"({"source": ["x"], "padded": {"count": 2, "row": {"id": 1}}})");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->ToJson()["padded"]["count"], 2);
  EXPECT_NE(c->SequenceFingerprint(), a.SequenceFingerprint());
  for (const char* bad : {R"({"source": ["x"], "padded": {"count": -1, "row": {}}})",
                          R"({"source": ["x"], "padded": {"count": 1}})",
                          R"({"source": ["x"], "padded": {"count": 1, "row": {}, "extra": 0}})"}) {
    EXPECT_EQ(Plan::Parse(bad).status().code(), StatusCode::kInvalidArgument) << bad;
  }
}

TEST(PlanTest, RejectsBadPlans) {
  for (const char* bad : {
           R"([1,2])", R"({"sorce": "x"})", R"({"num_workers": 0})", R"({"queue_depth": -1})",
           R"({"on_error": "ignore"})", R"({"sink": {"type": "tpu"}})", R"({"sink": {"type": 1}})", R"({"sink": {"type": "cuda", "buffers": 1}})",
           R"({"batch": {"batch_size": 0}})", R"({"batch": {"ragged": {"x": "squash"}}})",
           R"({"ops": {"image": [{"name": "Decode"}]}})", R"({"sampler": {"kind": "random"}})",
           R"({"io_mode": "aio"})", R"({"direct_fallback": 1})", R"({"direct_fallback": "yes"})",
           R"({"auto_direct_above": -1})", R"({"auto_direct_above": 1.5})", R"({"seed": -3})", "not json"}) {
    auto p = Plan::Parse(bad);
    EXPECT_FALSE(p.ok()) << bad;
    if (!p.ok()) {
      EXPECT_EQ(p.status().code(), StatusCode::kInvalidArgument) << bad;
    }
  }
}

TEST(PlanTest, StateRoundTrip) {
  PipelineState s;
  s.seed = 99;
  s.epoch = 3;
  s.position = 1234;
  s.rows = 5000;
  s.fingerprint = 0xfedcba9876543210ULL;
  auto t = PipelineState::FromJson(nlohmann::json::parse(s.ToJson().dump()));
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(*t, s);
  EXPECT_EQ(t->rows, 5000u);
  EXPECT_FALSE(PipelineState::FromJson({{"seed", 1}}).ok());
  EXPECT_FALSE(PipelineState::FromJson({{"seed", 1}, {"epoch", 0}, {"position", 0}, {"fingerprint", "x1"}}).ok());
}

}  // namespace
}  // namespace mindrecord
