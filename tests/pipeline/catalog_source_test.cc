// Catalog sources from C++ (catalog_source.h): a "catalog" leaf read through
// Pipeline by several workers, records (STL-10's byte ranges) read and
// decoded per row, values shared by rows (Flickr's caption arrays), and the
// leaf's args checked.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>

#include <gtest/gtest.h>

#include "pipeline/nodes/catalog_source.h"
#include "pipeline/pipeline.h"
#include "pipeline/plan.h"
#include "pipeline/strings.h"

namespace mindrecord {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

class CatalogSourceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) / ("mr_catalog_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Every row of `leaf_args`' catalog, read by `workers` workers in
  // batches of 3, shuffled: {first pixel or caption count -> label}.
  std::vector<std::vector<Tensor>> ReadAll(const json& args, uint32_t workers) {
    auto info = DescribeCatalog(args);
    EXPECT_TRUE(info.ok()) << info.status().ToString();
    json leaf = {{"node", "source"}, {"kind", "catalog"}, {"columns", (*info)["columns"]},
                 {"rows", (*info)["rows"]}, {"args", args}, {"sampler", {{"type", "shuffle"}}}};
    json tree = {{"node", "batch"}, {"batch_size", 3}, {"drop_remainder", false}, {"input", leaf}};
    auto plan = Plan::FromJson({{"tree", tree}, {"num_workers", workers}, {"seed", 3}});
    EXPECT_TRUE(plan.ok()) << plan.status().ToString();
    auto pipe = Pipeline::Open(*plan);
    EXPECT_TRUE(pipe.ok()) << pipe.status().ToString();
    std::vector<std::vector<Tensor>> rows;
    for (;;) {
      Batch b;
      auto more = (*pipe)->Next(&b);
      EXPECT_TRUE(more.ok()) << more.status().ToString();
      if (!more.ok() || !*more) break;
      for (size_t i = 0; i < b.size(); ++i) {
        std::vector<Tensor> row;
        for (const auto& name : (*info)["columns"]) {
          const BatchColumn* c = b.column(name.get<std::string>());
          row.push_back(c->is_list() ? c->list[i] : c->data.Subtensor(static_cast<int64_t>(i)));
        }
        rows.push_back(std::move(row));
      }
    }
    return rows;
  }

  fs::path dir_;
};

TEST_F(CatalogSourceTest, Stl10RecordsAreReadAndTransposedPerRow) {
  constexpr int kImages = 7;
  std::string x, y;
  for (int i = 0; i < kImages; ++i) {
    for (int ch = 0; ch < 3; ++ch)
      for (int col = 0; col < 96; ++col)
        for (int row = 0; row < 96; ++row) x.push_back(static_cast<char>((i * 31 + ch * 7 + col * 3 + row) & 0xff));
    y.push_back(static_cast<char>(1 + i % 10));
  }
  std::ofstream(dir_ / "train_X.bin", std::ios::binary) << x;
  std::ofstream(dir_ / "train_y.bin", std::ios::binary) << y;
  for (uint32_t workers : {1u, 3u}) {
    auto rows = ReadAll({{"layout", "stl10"}, {"dataset_dir", dir_.string()}, {"usage", "train"}}, workers);
    ASSERT_EQ(rows.size(), static_cast<size_t>(kImages));
    std::map<int, int> seen;  // image -> label
    for (const auto& r : rows) {
      ASSERT_EQ(r[0].shape(), (Shape{96, 96, 3}));
      const uint8_t* px = r[0].data();
      const int i = [&] {
        for (int k = 0; k < kImages; ++k)
          if (px[0] == ((k * 31) & 0xff)) return k;
        return -1;
      }();
      ASSERT_GE(i, 0);
      // HWC [row][col][ch] = plane ch, column col, row row.
      for (int row : {0, 5, 95})
        for (int col : {0, 17, 95})
          for (int ch = 0; ch < 3; ++ch)
            ASSERT_EQ(px[(row * 96 + col) * 3 + ch], (i * 31 + ch * 7 + col * 3 + row) & 0xff);
      seen[i] = *r[1].data_as<int32_t>();
    }
    for (int i = 0; i < kImages; ++i) EXPECT_EQ(seen.at(i), i % 10);
  }
}

TEST_F(CatalogSourceTest, FlickrCaptionsAreSharedValues) {
  for (const char* name : {"a.jpg", "b.jpg", "c.jpg"}) std::ofstream(dir_ / name) << name;  // bytes, not decoded
  std::ofstream(dir_ / "token.txt") << "c.jpg#0\tone\nb.jpg#0\ttwo\nb.jpg#1\tthree\na.jpg#0\tfour\n";
  auto rows = ReadAll({{"layout", "flickr"}, {"dataset_dir", dir_.string()},
                       {"annotation_file", (dir_ / "token.txt").string()}}, 2);
  ASSERT_EQ(rows.size(), 3u);
  std::map<std::string, std::vector<std::string>> got;
  for (const auto& r : rows) {
    auto strings = ReadStrings(r[1]);
    ASSERT_TRUE(strings.ok()) << strings.status().ToString();
    got[std::string(r[0].data_as<char>(), r[0].size_bytes())] = {strings->begin(), strings->end()};
  }
  EXPECT_EQ(got["a.jpg"], (std::vector<std::string>{"four"}));
  EXPECT_EQ(got["b.jpg"], (std::vector<std::string>{"two", "three"}));
  EXPECT_EQ(got["c.jpg"], (std::vector<std::string>{"one"}));
}

TEST_F(CatalogSourceTest, ArgsAndColumnsAreChecked) {
  auto bad = [&](json args, const std::string& want) {
    args["dataset_dir"] = dir_.string();
    auto info = DescribeCatalog(args);
    ASSERT_FALSE(info.ok());
    EXPECT_NE(info.status().ToString().find(want), std::string::npos) << info.status().ToString();
  };
  bad({{"layout", "mnist"}}, "layout must be one of");
  bad({{"layout", "kitti"}, {"usage", "val"}}, "usage must be 'train' or 'test'");
  bad({{"layout", "lsun"}, {"clases", json::array()}}, "does not take the arg 'clases'");
  bad({{"layout", "stl10"}, {"decode", 1}}, "decode is a bool");
  {
    std::ofstream line(dir_ / "semeion.data");
    for (int i = 0; i < 256; ++i) line << (i % 3 ? "0.0000 " : "1.0000 ");
    line << "0 1 0 0 0 0 0 0 0 0\n";
  }
  json node = {{"node", "source"}, {"kind", "catalog"}, {"columns", {"image", "label"}}, {"rows", 3},
               {"args", {{"layout", "semeion"}, {"dataset_dir", dir_.string()}}}};
  auto src = OpenCatalogSource(node);
  ASSERT_FALSE(src.ok());
  EXPECT_NE(src.status().ToString().find("give 1 rows now, 3 when the dataset was made"), std::string::npos)
      << src.status().ToString();
  std::ofstream(dir_ / "semeion.data") << "\n";
  node["rows"] = 0;
  src = OpenCatalogSource(node);
  ASSERT_FALSE(src.ok());
  EXPECT_NE(src.status().ToString().find("has no rows for the arguments given"), std::string::npos)
      << src.status().ToString();
}

}  // namespace
}  // namespace mindrecord
