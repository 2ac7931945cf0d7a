// Status: an OK status holds nothing; an error's code, message and detail
// survive copies, moves and added context.
#include "mindrecord/status.h"

#include <gtest/gtest.h>

#include <memory>
#include <utility>

namespace mindrecord {
namespace {

struct Tag : StatusDetail {
  explicit Tag(int v) : value(v) {}
  int value;
};

TEST(StatusTest, OkHoldsNothing) {
  Status ok;
  EXPECT_TRUE(ok.ok());
  EXPECT_EQ(ok.code(), StatusCode::kOk);
  EXPECT_EQ(ok.message(), "");
  EXPECT_EQ(ok.detail(), nullptr);
  EXPECT_EQ(ok.ToString(), "OK");
  EXPECT_EQ(sizeof(Status), sizeof(void*));
  // A code of kOk makes an OK status whatever the message.
  EXPECT_TRUE(Status(StatusCode::kOk, "ignored").ok());
  EXPECT_EQ(Status(StatusCode::kOk, "ignored").message(), "");
  EXPECT_TRUE(ok.WithContext("file").ok());
  EXPECT_EQ(Status::OK().WithDetail(std::make_shared<Tag>(1)).detail(), nullptr);
}

TEST(StatusTest, ErrorsSurviveCopiesMovesAndContext) {
  Status e = Status::Corruption("page 3 bad").WithDetail(std::make_shared<Tag>(7));
  ASSERT_FALSE(e.ok());
  Status copy = e;
  EXPECT_EQ(copy.code(), StatusCode::kCorruption);
  EXPECT_EQ(copy.message(), "page 3 bad");
  ASSERT_NE(copy.detail(), nullptr);
  EXPECT_EQ(static_cast<const Tag*>(copy.detail())->value, 7);
  // Copies are independent.
  copy = Status::IOError("other");
  EXPECT_EQ(e.message(), "page 3 bad");
  EXPECT_EQ(copy.ToString(), "I/O error: other");
  Status ctx = e.WithContext("a.mindrecord");
  EXPECT_EQ(ctx.ToString(), "Corruption: a.mindrecord: page 3 bad");
  EXPECT_EQ(ctx.detail(), e.detail());
  Status moved = std::move(ctx);
  EXPECT_EQ(moved.message(), "a.mindrecord: page 3 bad");
  EXPECT_TRUE(ctx.ok());  // NOLINT(bugprone-use-after-move): a moved-from status is OK
  Status& alias = moved;
  moved = std::move(alias);  // a self-move keeps it
  EXPECT_EQ(moved.code(), StatusCode::kCorruption);
  Status& self = e;
  e = self;  // self-copy keeps it
  EXPECT_EQ(e.message(), "page 3 bad");
  Result<int> r = Status::NotFound("x");
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound);
  Result<int> v = 3;
  EXPECT_TRUE(v.status().ok());
}

}  // namespace
}  // namespace mindrecord
