// The fuzz targets in the normal build: every committed regression input,
// then each seed (cut from the compat files by make_seeds.py) and a fixed
// number of random mutations of it, through the same entry points. Catches
// regressions of found crashes without a clang fuzz build; the sanitizer
// presets (asan) make it strict. Mutations are deterministic per target; set
// MINDRECORD_FUZZ_SAVE_DIR to keep each mutated input (the last one written
// is the one that crashed) and MINDRECORD_FUZZ_MUTATIONS to change the count.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "tests/fuzz/fuzz_target.h"
#include "tests/util/test_util.h"

namespace fs = std::filesystem;
using mindrecord::fuzz::Targets;
using mindrecord::testing::ReadFile;

namespace {

std::vector<std::string> FilesIn(const fs::path& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.is_regular_file()) out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

void RunInput(mindrecord::fuzz::TargetFn fn, const std::string& input) {
  fn(reinterpret_cast<const uint8_t*>(input.data()), input.size());
}

// One libFuzzer-like mutation: flip, overwrite, insert, erase, truncate, or
// an interesting integer at a random offset.
std::string Mutate(std::string s, std::mt19937_64& rng) {
  auto pick = [&](size_t n) { return n ? static_cast<size_t>(rng() % n) : 0; };
  const int kinds = 1 + static_cast<int>(rng() % 3);
  for (int k = 0; k < kinds; ++k) {
    switch (rng() % 6) {
      case 0:
        if (!s.empty()) s[pick(s.size())] ^= static_cast<char>(1u << (rng() % 8));
        break;
      case 1:
        if (!s.empty()) s[pick(s.size())] = static_cast<char>(rng());
        break;
      case 2:
        s.insert(pick(s.size() + 1), 1 + pick(8), static_cast<char>(rng()));
        break;
      case 3:
        if (!s.empty()) {
          size_t at = pick(s.size());
          s.erase(at, 1 + pick(std::min<size_t>(16, s.size() - at)));
        }
        break;
      case 4:
        s.resize(pick(s.size() + 1));
        break;
      case 5: {
        static const uint64_t kInteresting[] = {0, 1, 0x7f, 0x80, 0xff, 0x7fff, 0xffff, 0x7fffffff, 0xffffffff,
                                                0x8000000000000000ull, ~0ull};
        uint64_t v = kInteresting[rng() % std::size(kInteresting)];
        size_t width = size_t{1} << (rng() % 4);
        if (s.size() >= width) {
          size_t at = pick(s.size() - width + 1);
          for (size_t b = 0; b < width; ++b) s[at + b] = static_cast<char>(v >> (8 * b));
        }
        break;
      }
    }
  }
  return s;
}

TEST(FuzzReplay, TargetsRegistered) { EXPECT_GE(Targets().size(), 13u); }

TEST(FuzzReplay, RegressionInputs) {
  const fs::path root = fs::path(MINDRECORD_SOURCE_DIR) / "tests" / "fuzz" / "regressions";
  size_t n = 0;
  for (const auto& [name, fn] : Targets()) {
    for (const auto& file : FilesIn(root / name)) {
      SCOPED_TRACE(file);
      RunInput(fn, ReadFile(file));
      ++n;
    }
  }
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(root, ec))
    EXPECT_TRUE(Targets().count(e.path().filename().string())) << "no fuzz target for " << e.path();
  RecordProperty("regression_inputs", static_cast<int>(n));
}

TEST(FuzzReplay, SeedMutations) {
  const std::string compat = mindrecord::testing::CompatDir();
  MR_SKIP_WITHOUT_COMPAT(compat);
  mindrecord::testing::TempDir tmp;
  const std::string script = std::string(MINDRECORD_SOURCE_DIR) + "/tests/fuzz/make_seeds.py";
  std::string out;
  ASSERT_EQ(mindrecord::testing::RunCommand("python3 '" + script + "' '" + compat + "' '" + tmp.path() + "'", &out,
                                            true), 0) << out;
  const char* env = std::getenv("MINDRECORD_FUZZ_MUTATIONS");
  const size_t per_target = env ? std::strtoull(env, nullptr, 10) : 1500;
  const char* save_dir = std::getenv("MINDRECORD_FUZZ_SAVE_DIR");
  for (const auto& [name, fn] : Targets()) {
    const auto seeds = FilesIn(fs::path(tmp.path()) / name);
    ASSERT_FALSE(seeds.empty()) << "no seeds for " << name;
    std::mt19937_64 rng(std::hash<std::string>()(name));
    std::vector<std::string> inputs;
    for (const auto& f : seeds) inputs.push_back(ReadFile(f));
    for (const auto& in : inputs) RunInput(fn, in);
    for (size_t i = 0; i < per_target; ++i) {
      std::string m = Mutate(inputs[rng() % inputs.size()], rng);
      if (save_dir) mindrecord::testing::WriteFile(std::string(save_dir) + "/" + name + "_last", m);
      RunInput(fn, m);
    }
  }
}

}  // namespace
