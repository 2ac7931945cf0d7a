// A distributed `mindrecord convert`: ranks started by mpirun (1-4 of them,
// oversubscribed), by torchrun-style variables, or by --rank/--world-size;
// shards balanced by input bytes; byte-identical output for any number of
// ranks; a failing or killed rank; --resume.
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>
#include <tuple>

#include <nlohmann/json.hpp>

#include "fixtures/convert_fixtures.h"
#include "mindrecord/checksum.h"
#include "mindrecord/file.h"
#include "readers/header_io.h"
#include "tests/convert/convert_test_util.h"
#include "writers/convert/convert_engine.h"
#include "writers/convert/launch.h"
#include "writers/convert/rank_group.h"

namespace mindrecord::convert {
namespace {

using namespace ::mindrecord::convert::testing;

// 64 KiB headers, 128 KiB pages: several pages per shard.
const std::string kLayout = " --header-size 65536 --page-size 131072 --workers 2 --quiet";

// mpirun as CI runs it: as root, more ranks than cores, stopped after 5
// minutes should ranks ever wait for each other forever. Missing mpirun is
// a failure, not a skip: .ci/packages installs openmpi-bin. In an ASan
// build, LeakSanitizer would fail every rank on OpenMPI's own allocations
// (its components are unloaded by MPI_Finalize, so no suppression can name
// them): leaks are checked by the tests that run the CLI without mpirun,
// which take the same code paths with one rank.
std::string Mpirun(int ranks) {
  return "OMPI_MCA_btl_vader_single_copy_mechanism=none ASAN_OPTIONS=\"${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0\" "
         "timeout 300 mpirun --allow-run-as-root --oversubscribe -n " +
         std::to_string(ranks) + " ";
}

int RunShell(const std::string& cmd, std::string* output = nullptr) {
  const std::string log = (fs::temp_directory_path() / ("mr_dist_" + std::to_string(::getpid()) + ".log")).string();
  const int rc = std::system((cmd + " >'" + log + "' 2>&1").c_str());
  if (output) *output = Slurp(log);
  fs::remove(log);
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

int RunMpi(int ranks, const std::string& args, std::string* output = nullptr) {
  return RunShell(Mpirun(ranks) + "'" + MINDRECORD_CLI_PATH + "' " + args, output);
}

#define MR_REQUIRE_MPIRUN()                                                                            \
  ASSERT_TRUE(CliBuilt()) << "build mindrecord_cli first";                                           \
  ASSERT_EQ(std::system("command -v mpirun >/dev/null 2>&1"), 0)                                     \
      << "mpirun not found: install openmpi-bin and libopenmpi-dev (listed in .ci/packages)"

// Three classes of small images and one of large ones: a split by count
// would give the shard holding the large class far more bytes.
void WriteSkewedFolder(const std::string& dir) {
  fixtures::WriteImageFolder(dir, 3, 14, 8, 8, 7);
  const std::string big = dir + ".big";
  fixtures::WriteImageFolder(big, 1, 6, 160, 120, 99);
  fs::rename(big + "/class_00", dir + "/class_zz");
  fs::remove_all(big);
}

// Every file of a dataset (shards and indexes) by name, as bytes; hidden
// files (parts, a killed writer's temporaries) aside.
std::map<std::string, std::string> DatasetFiles(const std::string& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name[0] != '.') out[name] = Slurp(e.path().string());
  }
  return out;
}

// Hidden parts left in `dir`.
size_t PartsIn(const std::string& dir) {
  size_t n = 0;
  for (const auto& name : FilesStartingWith(dir, ".")) n += name.find(".mr-part") != std::string::npos;
  return n;
}

// The `--json` summary in a log (after anything mpirun printed first).
nlohmann::json JsonIn(const std::string& log) {
  const size_t at = log.find("{\n");
  return nlohmann::json::parse(at == std::string::npos ? std::string() : log.substr(at), nullptr, false);
}

std::string Convert1(const std::string& in, const std::string& out, uint32_t shards, const std::string& extra = "") {
  fs::create_directories(fs::path(out).parent_path());
  std::string log;
  EXPECT_EQ(RunCli("convert imagefolder '" + in + "' '" + out + "' --shards " + std::to_string(shards) + kLayout +
                       extra,
                   &log),
            0)
      << log;
  return log;
}

TEST(ShardBoundariesTest, BalancesBytesAndGivesEveryShardAnItem) {
  // Ten small items then two large ones: by count shard 1 of 2 would hold
  // items 6..11 (most of the bytes); by bytes it holds the two large ones.
  std::vector<uint64_t> w(10, 10);
  w.push_back(50);
  w.push_back(50);
  EXPECT_EQ(ShardBoundaries(w, 2), (std::vector<size_t>{0, 10, 12}));
  EXPECT_EQ(ShardBoundaries(std::vector<uint64_t>(10, 1), 4), (std::vector<size_t>{0, 2, 5, 7, 10}));
  // One huge item first: the others still get one item each.
  EXPECT_EQ(ShardBoundaries({1000, 1, 1, 1}, 4), (std::vector<size_t>{0, 1, 2, 3, 4}));
  // Fewer items than shards: the last shards are empty.
  EXPECT_EQ(ShardBoundaries({5, 5}, 3), (std::vector<size_t>{0, 1, 2, 2}));
  EXPECT_EQ(ShardBoundaries({}, 2), (std::vector<size_t>{0, 0, 0}));
  EXPECT_EQ(ShardBoundaries({0, 0, 0, 0}, 2), (std::vector<size_t>{0, 2, 4}));
}

std::map<std::string, std::string>& FakeEnvVars() {
  static std::map<std::string, std::string>& vars = *new std::map<std::string, std::string>();
  return vars;
}
const char* LookUp(const char* name) {
  auto it = FakeEnvVars().find(name);
  return it == FakeEnvVars().end() ? nullptr : it->second.c_str();
}

TEST(DetectLaunchTest, ReadsEachLauncher) {
  auto& env = FakeEnvVars();
  env.clear();
  auto none = DetectLaunch(&LookUp);
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
  const std::vector<std::tuple<std::string, std::string, bool>> launchers = {
      {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", true},
      {"PMI_RANK", "PMI_SIZE", true},
      {"SLURM_PROCID", "SLURM_STEP_NUM_TASKS", false},
      {"RANK", "WORLD_SIZE", false}};
  for (const auto& [rank, size, mpi] : launchers) {
    env = {{rank, "2"}, {size, "3"}};
    auto l = DetectLaunch(&LookUp);
    ASSERT_TRUE(l.ok() && l->has_value()) << rank;
    EXPECT_EQ((*l)->rank, 2u);
    EXPECT_EQ((*l)->size, 3u);
    EXPECT_EQ((*l)->mpi, mpi) << rank;
    EXPECT_NE((*l)->by.find(rank), std::string::npos) << (*l)->by;
  }
  // srun --mpi=pmix: SLURM's numbers, joined through MPI.
  env = {{"SLURM_PROCID", "1"}, {"SLURM_NTASKS", "4"}, {"SLURM_STEP_NUM_TASKS", "4"}, {"PMIX_RANK", "1"}};
  EXPECT_TRUE((*DetectLaunch(&LookUp))->mpi);
  // An sbatch script (SLURM_PROCID=0 and the allocation's task count, no
  // step) is one process.
  env = {{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "8"}};
  EXPECT_FALSE(DetectLaunch(&LookUp)->has_value());
  // mpirun's variables win over torchrun's inherited ones.
  env = {{"RANK", "0"}, {"WORLD_SIZE", "8"}, {"OMPI_COMM_WORLD_RANK", "1"}, {"OMPI_COMM_WORLD_SIZE", "2"}};
  EXPECT_EQ((*DetectLaunch(&LookUp))->size, 2u);
  for (const auto& bad : std::vector<std::map<std::string, std::string>>{
           {{"RANK", "2"}, {"WORLD_SIZE", "2"}}, {{"RANK", "x"}, {"WORLD_SIZE", "2"}},
           {{"RANK", "0"}}, {{"PMI_RANK", "-1"}, {"PMI_SIZE", "2"}}}) {
    env = bad;
    auto l = DetectLaunch(&LookUp);
    ASSERT_FALSE(l.ok());
    EXPECT_EQ(l.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(l.status().message().find(bad.begin()->first), std::string::npos) << l.status().ToString();
  }
  env.clear();
}

TEST(DistributedConvertTest, AnyNumberOfRanksWritesTheBytesOfOneProcess) {
  MR_REQUIRE_MPIRUN();
  TempDir dir;
  WriteSkewedFolder(dir / "in");
  for (uint32_t shards : {4u, 5u}) {
    const std::string ref = dir / ("ref" + std::to_string(shards));
    Convert1(dir / "in", ref + "/data", shards);
    const auto want = DatasetFiles(ref);
    ASSERT_EQ(want.size(), 2u * shards);
    // The shards are cut by input bytes: the large class's 6 images are a
    // shard (or two) of their own, and the dataset reads in input order.
    std::vector<std::string> names;
    std::vector<uint64_t> per_shard;
    for (uint32_t s = 0; s < shards; ++s) {
      std::string name = "data" + std::to_string(s);
      auto f = FileSystem::Default()->OpenRead(ref + "/" + name);
      ASSERT_TRUE(f.ok());
      auto h = ReadShardHeader(**f, true);
      ASSERT_TRUE(h.ok()) << h.status().ToString();
      per_shard.push_back(h->num_rows());
      EXPECT_EQ(h->shard_id, s);
      EXPECT_EQ(h->shard_addresses.size(), shards);
    }
    EXPECT_LE(per_shard.back(), 6u) << "the large images' shard holds small ones too";
    EXPECT_GT(per_shard.front(), 6u);
    for (const auto& row : ReadAll(ref + "/data0")) names.push_back(row.Get("file_name").bytes());
    EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
    EXPECT_EQ(names.size(), 48u);

    for (int ranks = 1; ranks <= 4 && ranks <= static_cast<int>(shards); ++ranks) {
      if (shards == 5 && ranks != 2 && ranks != 3) continue;
      const std::string out = dir / ("w" + std::to_string(ranks) + "n" + std::to_string(shards));
      fs::create_directories(out);
      std::string log;
      ASSERT_EQ(RunMpi(ranks, "convert imagefolder '" + (dir / "in") + "' '" + out + "/data' --shards " +
                                  std::to_string(shards) + kLayout,
                       &log),
                0)
          << log;
      const auto got = DatasetFiles(out);
      ASSERT_EQ(got.size(), want.size()) << ranks << " ranks: " << got.size() << " files";
      for (const auto& [name, bytes] : want) {
        ASSERT_TRUE(got.count(name)) << name;
        EXPECT_TRUE(got.at(name) == bytes) << name << " differs with " << ranks << " ranks, " << shards << " shards";
      }
    }
  }
}

TEST(DistributedConvertTest, BadRanksOrShardsAreRefusedBeforeAnythingIsWritten) {
  MR_REQUIRE_MPIRUN();
  TempDir dir;
  fixtures::WriteImageFolder(dir / "in", 2, 3, 8, 8, 1);
  fs::create_directories(dir / "out");
  std::string log;
  EXPECT_EQ(RunMpi(3, "convert imagefolder '" + (dir / "in") + "' '" + (dir / "out/d") + "' --shards 2" + kLayout,
                   &log),
            1)
      << log;
  EXPECT_NE(log.find("--shards 2 is fewer than the 3 ranks"), std::string::npos) << log;
  EXPECT_TRUE(fs::is_empty(dir / "out")) << "files written before the refusal";
  // torchrun's variables without an MPI launcher: the ranks could not agree.
  EXPECT_EQ(RunCli("convert imagefolder '" + (dir / "in") + "' '" + (dir / "out/d") + "' --shards 2" + kLayout, &log),
            0);
  fs::remove_all(dir / "out");
  fs::create_directories(dir / "out");
  EXPECT_EQ(RunShell("RANK=1 WORLD_SIZE=2 LOCAL_RANK=1 '" + std::string(MINDRECORD_CLI_PATH) + "' convert imagefolder '" +
                         (dir / "in") + "' '" + (dir / "out/d") + "' --shards 2" + kLayout,
                     &log),
            1)
      << log;
  EXPECT_NE(log.find("torchrun (RANK/WORLD_SIZE) says this is rank 1 of 2"), std::string::npos) << log;
  EXPECT_TRUE(fs::is_empty(dir / "out"));
  // --rank 0 --world-size 1: this process alone, whatever the variables say.
  EXPECT_EQ(RunShell("RANK=1 WORLD_SIZE=2 '" + std::string(MINDRECORD_CLI_PATH) + "' convert imagefolder '" +
                         (dir / "in") + "' '" + (dir / "out/d") + "' --shards 2 --rank 0 --world-size 1" + kLayout,
                     &log),
            0)
      << log;
  EXPECT_EQ(FilesStartingWith(dir / "out", "d").size(), 4u);
  fs::remove_all(dir / "out");
  fs::create_directories(dir / "out");
  // --rank without --world-size, a rank past the size.
  EXPECT_EQ(RunCli("convert imagefolder '" + (dir / "in") + "' '" + (dir / "out/d") + "' --rank 1" + kLayout, &log), 1);
  EXPECT_NE(log.find("--rank and --world-size go together"), std::string::npos) << log;
  EXPECT_EQ(RunCli("convert imagefolder '" + (dir / "in") + "' '" + (dir / "out/d") +
                       "' --rank 2 --world-size 2 --shards 2" + kLayout,
                   &log),
            1);
  EXPECT_TRUE(fs::is_empty(dir / "out"));
  // Ranks that see other inputs (mpirun's MPMD form gives each its own
  // command): a rank whose input is missing stops them all at the first
  // exchange (none waits for it), and so do inputs that differ.
  fixtures::WriteImageFolder(dir / "other", 2, 4, 8, 8, 2);
  const std::string cli = std::string(MINDRECORD_CLI_PATH) + "' convert imagefolder '";
  const std::string tail = "' '" + (dir / "out/d") + "' --shards 2" + kLayout;
  EXPECT_EQ(RunShell(Mpirun(1) + "'" + cli + (dir / "in") + tail + " : -n 1 '" + cli +
                         (dir / "missing") + tail,
                     &log),
            2)
      << log;
  EXPECT_NE(log.find("rank 1 of 2: " + (dir / "missing") + ": no such file or folder"), std::string::npos) << log;
  EXPECT_EQ(RunShell(Mpirun(1) + "'" + cli + (dir / "in") + tail + " : -n 1 '" + cli +
                         (dir / "other") + tail,
                     &log),
            1)
      << log;
  EXPECT_NE(log.find("rank 1 sees other inputs or options than rank 0"), std::string::npos) << log;
  EXPECT_TRUE(fs::is_empty(dir / "out"));
  // One dictionary trained from the dataset's first rows is not what ranks do.
  EXPECT_EQ(RunCli("convert imagefolder '" + (dir / "in") + "' '" + (dir / "out/d") +
                       "' --resume --shards 2 --compress zstd:3+dict" + kLayout,
                   &log),
            1);
  EXPECT_NE(log.find("distributed or resumed conversion does not do"), std::string::npos) << log;
  EXPECT_TRUE(fs::is_empty(dir / "out"));
}

TEST(DistributedConvertTest, TorchrunVariablesOfOneRankAndIndependentRanksThenResume) {
  ASSERT_TRUE(CliBuilt());
  TempDir dir;
  WriteSkewedFolder(dir / "in");
  Convert1(dir / "in", dir / "ref/data", 4);
  const auto want = DatasetFiles(dir / "ref");
  // RANK=0 WORLD_SIZE=1 (torchrun with one process): the same files.
  fs::create_directories(dir / "one");
  std::string log;
  ASSERT_EQ(RunShell("RANK=0 WORLD_SIZE=1 '" + std::string(MINDRECORD_CLI_PATH) + "' convert imagefolder '" +
                         (dir / "in") + "' '" + (dir / "one/data") + "' --shards 4" + kLayout,
                     &log),
            0)
      << log;
  EXPECT_TRUE(DatasetFiles(dir / "one") == want);
  // Two processes that cannot talk write their shards as hidden parts...
  fs::create_directories(dir / "ind");
  for (int r = 0; r < 2; ++r) {
    ASSERT_EQ(RunCli("convert imagefolder '" + (dir / "in") + "' '" + (dir / "ind/data") + "' --shards 4 --rank " +
                         std::to_string(r) + " --world-size 2" + kLayout,
                     &log),
              0)
        << log;
    EXPECT_NE(log.find("--resume to finish the dataset"), std::string::npos) << log;
  }
  EXPECT_TRUE(FilesStartingWith(dir / "ind", "data").empty()) << "parts must not look like a dataset";
  EXPECT_EQ(FilesStartingWith(dir / "ind", ".data").size(), 8u);
  // ... which one --resume run verifies, keeps and finishes.
  ASSERT_EQ(RunCli("convert imagefolder '" + (dir / "in") + "' '" + (dir / "ind/data") + "' --shards 4 --resume --json" +
                       kLayout,
                   &log),
            0)
      << log;
  EXPECT_EQ(JsonIn(log)["kept"], nlohmann::json::parse("[[0, 1, 2, 3]]")) << log;
  EXPECT_TRUE(DatasetFiles(dir / "ind") == want);
  // A finished dataset is not resumed again.
  EXPECT_EQ(RunCli("convert imagefolder '" + (dir / "in") + "' '" + (dir / "ind/data") + "' --shards 4 --resume" + kLayout,
                   &log),
            2)
      << log;
  EXPECT_NE(log.find("the dataset is complete"), std::string::npos) << log;
}

TEST(DistributedConvertTest, ResumeWritesAgainThePartsWhoseInputsChanged) {
  ASSERT_TRUE(CliBuilt());
  TempDir dir;
  // Four images, four shards: one image each whatever their sizes, so only
  // the sizes in a part's fingerprint can tell that shard 0's input changed.
  auto files = fixtures::WriteImageFolder(dir / "in", 1, 4, 8, 8, 4);
  fs::create_directories(dir / "out");
  std::string log;
  ASSERT_EQ(RunCli("convert imagefolder '" + (dir / "in") + "' '" + (dir / "out/data") +
                       "' --shards 4 --rank 0 --world-size 2" + kLayout,
                   &log),
            0)
      << log;
  const auto bigger = fixtures::WriteImageFolder(dir / "big", 1, 1, 32, 32, 8);
  std::ofstream(dir / ("in/" + files[0].rel_path), std::ios::trunc | std::ios::binary) << bigger[0].bytes;
  ASSERT_EQ(RunCli("convert imagefolder '" + (dir / "in") + "' '" + (dir / "out/data") + "' --shards 4 --resume --json" +
                       kLayout,
                   &log),
            0)
      << log;
  const nlohmann::json report = JsonIn(log);
  ASSERT_TRUE(report.is_object()) << log;
  EXPECT_EQ(report["kept"], nlohmann::json::parse("[[1]]")) << log;
  EXPECT_NE(log.find("shard 0: its part was written from other inputs or options"), std::string::npos) << log;
  Convert1(dir / "in", dir / "ref/data", 4);
  EXPECT_TRUE(DatasetFiles(dir / "out") == DatasetFiles(dir / "ref"));
}

// A part whose header (sealed again by someone else) holds a fingerprint, a
// list of skipped inputs or a compressed byte count of another shape is
// written again, as a part from other inputs is (each threw out of the resume
// before).
TEST(DistributedConvertTest, ResumeWritesAgainAPartWhoseHeaderFieldsHaveOtherTypes) {
  ASSERT_TRUE(CliBuilt());
  struct Case {
    std::string options, field, replacement, note;
  } cases[] = {
      {"", "\"fingerprint\":", "\"fingerprint\":12", "shard 0: its part was written from other inputs or options"},
      {"", "\"skipped\":", "\"skipped\":[1]", "shard 0: its part was written from other inputs or options"},
      {" --compress zstd:3", "\"raw_bytes\":", "\"raw_bytes\":\"many\"",
       "raw_bytes is \\\"many\\\", not a byte count); writing it again"},  // as --json escapes it
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.field);
    TempDir dir;
    fixtures::WriteImageFolder(dir / "in", 1, 4, 8, 8, 4);
    fs::create_directories(dir / "out");
    std::string log;
    ASSERT_EQ(RunCli("convert imagefolder '" + (dir / "in") + "' '" + (dir / "out/data") +
                         "' --shards 4 --rank 0 --world-size 2" + c.options + kLayout,
                     &log),
              0)
        << log;
    const std::string part = dir / "out/.data0.mr-part";
    ASSERT_TRUE(fs::exists(part));
    {
      std::fstream f(part, std::ios::in | std::ios::out | std::ios::binary);
      uint64_t len = 0;
      f.read(reinterpret_cast<char*>(&len), 8);
      std::string text(len, '\0');
      f.read(text.data(), static_cast<std::streamsize>(len));
      const size_t at = text.find(c.field);
      ASSERT_NE(at, std::string::npos) << text;
      const size_t end = text.find_first_of(",}", at + c.field.size());
      text.replace(at, end - at, c.replacement);
      SealHeaderChecksum(&text);
      len = text.size();
      f.seekp(0);
      f.write(reinterpret_cast<const char*>(&len), 8);
      f.write(text.data(), static_cast<std::streamsize>(len));
    }
    ASSERT_EQ(RunCli("convert imagefolder '" + (dir / "in") + "' '" + (dir / "out/data") + "' --shards 4 --resume --json" +
                         c.options + kLayout,
                     &log),
              0)
        << log;
    EXPECT_EQ(JsonIn(log)["kept"], nlohmann::json::parse("[[1]]")) << log;
    EXPECT_NE(log.find(c.note), std::string::npos) << log;
    Convert1(dir / "in", dir / "ref/data", 4, c.options);
    EXPECT_TRUE(DatasetFiles(dir / "out") == DatasetFiles(dir / "ref"));
  }
}

TEST(DistributedConvertTest, SkippedInputsOfEveryRankAreListedInInputOrder) {
  MR_REQUIRE_MPIRUN();
  TempDir dir;
  auto files = fixtures::WriteImageFolder(dir / "in", 4, 6, 8, 8, 6);
  for (size_t i : {size_t{2}, files.size() - 1}) {  // in rank 0's and rank 1's shards
    std::ofstream(dir / ("in/" + files[i].rel_path), std::ios::trunc) << std::string(files[i].bytes.size(), 'x');
  }
  Convert1(dir / "in", dir / "ref/data", 4, " --on-error skip");
  fs::create_directories(dir / "out");
  std::string log;
  ASSERT_EQ(RunMpi(2, "convert imagefolder '" + (dir / "in") + "' '" + (dir / "out/data") +
                          "' --shards 4 --on-error skip" + kLayout,
                   &log),
            0)
      << log;
  const auto want = DatasetFiles(dir / "ref");
  ASSERT_TRUE(want.count("data.skipped.txt"));
  EXPECT_EQ(std::count(want.at("data.skipped.txt").begin(), want.at("data.skipped.txt").end(), '\n'), 2);
  EXPECT_TRUE(DatasetFiles(dir / "out") == want);
}

// Inputs the plan leaves out (a COCO image entry and an annotation that are
// bad) are listed too, before those a rank skips while writing (an image
// that does not decode, in rank 1's shard): a distributed convert listed none
// of the planned ones and wrote no list when no rank skipped any.
TEST(DistributedConvertTest, InputsThePlanLeavesOutAreListedAsOneProcessListsThem) {
  MR_REQUIRE_MPIRUN();
  TempDir dir;
  const auto coco = fixtures::WriteCoco(dir / "coco", 8, 5);
  auto doc = nlohmann::json::parse(Slurp(dir / "coco/annotations.json"));
  doc["images"].insert(doc["images"].begin() + 2, "not an image");
  doc["annotations"].push_back({{"image_id", 12345}, {"bbox", {1, 2, 3, 4}}, {"category_id", 1}});
  fixtures::WriteFile(dir / "coco/annotations.json", doc.dump());
  for (const bool bad_image : {false, true}) {
    if (bad_image) fixtures::WriteFile(dir / ("coco/images/" + coco.images.back().second), "not a JPEG");
    const std::string args = "convert coco '" + (dir / "coco/images") + "' '%s/data' --annotations '" +
                             (dir / "coco/annotations.json") + "' --shards 2 --on-error skip" + kLayout;
    auto at = [&](const std::string& out) {
      std::string a = args;
      a.replace(a.find("%s"), 2, out);
      fs::remove_all(out);
      fs::create_directories(out);
      return a;
    };
    std::string log;
    ASSERT_EQ(RunCli(at(dir / "ref"), &log), 0) << log;
    ASSERT_EQ(RunMpi(2, at(dir / "out"), &log), 0) << log;
    const auto want = DatasetFiles(dir / "ref");
    ASSERT_TRUE(want.count("data.skipped.txt"));
    EXPECT_EQ(std::count(want.at("data.skipped.txt").begin(), want.at("data.skipped.txt").end(), '\n'),
              bad_image ? 3 : 2);
    EXPECT_NE(want.at("data.skipped.txt").find("images[2]: an image needs"), std::string::npos);
    EXPECT_TRUE(DatasetFiles(dir / "out") == want) << bad_image << "\n" << Slurp(dir / "out/data.skipped.txt");
  }
}

// A shard lists at most 10,000 skipped inputs (its list travels between the
// ranks and in its part's header: with --header-size 65536, 10,000 entries
// needed 2.2 MB and failed the convert); the list says how many more, and
// the count has them all. One process lists them all.
TEST(DistributedConvertTest, AShardListsAtMostTenThousandSkippedInputsAndCountsTheRest) {
  MR_REQUIRE_MPIRUN();
  TempDir dir;
  fixtures::WriteImageFolder(dir / "in", 1, 2, 8, 8, 4);
  constexpr int kBad = 20010;
  for (int i = 0; i < kBad; ++i) fixtures::WriteFile(dir / ("in/class_00/bad" + std::to_string(i) + ".jpg"), "x");
  // The default 16 MiB headers: a part's header carries its list.
  const std::string args = " --shards 2 --on-error skip --json --page-size 131072 --workers 2 --quiet";
  std::string log;
  fs::create_directories(dir / "one");
  ASSERT_EQ(RunCli("convert imagefolder '" + (dir / "in") + "' '" + (dir / "one/data") + "'" + args, &log), 0) << log;
  EXPECT_EQ(JsonIn(log)["skipped_count"], kBad);
  EXPECT_EQ(JsonIn(log)["skipped"].size(), 10000u);
  std::set<std::string> one;
  {
    std::istringstream text(Slurp(dir / "one/data.skipped.txt"));
    for (std::string line; std::getline(text, line);) one.insert(line);
  }
  EXPECT_EQ(one.size(), static_cast<size_t>(kBad));
  fs::create_directories(dir / "out");
  ASSERT_EQ(RunMpi(2, "convert imagefolder '" + (dir / "in") + "' '" + (dir / "out/data") + "'" + args, &log), 0) << log;
  EXPECT_EQ(JsonIn(log)["skipped_count"], kBad) << log.substr(0, 1000);
  std::istringstream list(Slurp(dir / "out/data.skipped.txt"));
  std::string line;
  long listed = 0, more = 0;
  const std::string tail = " more skipped inputs, not listed (a shard lists at most 10000, in 4 MiB)";
  while (std::getline(list, line)) {
    if (line.size() > tail.size() && line.compare(line.size() - tail.size(), tail.size(), tail) == 0) {
      const size_t colon = line.rfind(": ", line.size() - tail.size());
      more += std::stol(line.substr(colon + 2));
    } else {
      ++listed;
      EXPECT_TRUE(one.count(line)) << line;
    }
  }
  EXPECT_GT(more, 0);
  EXPECT_EQ(listed + more, kBad);
}

// A file name need not be UTF-8, and what the ranks exchange is JSON: a
// skipped input so named aborted its rank, and a failure so named left the
// other rank waiting. Both are told with U+FFFD in the name's place.
TEST(DistributedConvertTest, FileNamesThatAreNotUtf8) {
  MR_REQUIRE_MPIRUN();
  TempDir dir;
  fixtures::WriteImageFolder(dir / "in", 2, 3, 8, 8, 2);
  fixtures::WriteFile(dir / "in/class_01/bad\xff.jpg", "not an image");
  std::string log;
  fs::create_directories(dir / "skip");
  ASSERT_EQ(RunMpi(2, "convert imagefolder '" + (dir / "in") + "' '" + (dir / "skip/data") + "' --shards 2 --on-error skip" +
                          kLayout,
                   &log),
            0)
      << log;
  EXPECT_NE(Slurp(dir / "skip/data.skipped.txt").find("class_01/bad\xef\xbf\xbd.jpg: undecodable image"), std::string::npos)
      << Slurp(dir / "skip/data.skipped.txt");
  fs::create_directories(dir / "fail");
  ASSERT_EQ(RunMpi(2, "convert imagefolder '" + (dir / "in") + "' '" + (dir / "fail/data") + "' --shards 2" + kLayout, &log), 2)
      << log;
  EXPECT_NE(log.find("class_01/bad\xef\xbf\xbd.jpg: undecodable image"), std::string::npos) << log;
}

TEST(DistributedConvertTest, AFailingRankStopsEveryRankAndResumeKeepsTheFinishedShards) {
  MR_REQUIRE_MPIRUN();
  TempDir dir;
  auto files = fixtures::WriteImageFolder(dir / "in", 4, 12, 8, 8, 3);
  Convert1(dir / "in", dir / "ref/data", 4);
  const auto want = DatasetFiles(dir / "ref");
  // The last class is rank 1's (2 ranks, 4 shards); one of its images is
  // broken (its size kept, so the shards' input ranges stay the same).
  const std::string broken = dir / ("in/" + files.back().rel_path);
  std::ofstream(broken, std::ios::trunc) << std::string(files.back().bytes.size(), 'x');
  fs::create_directories(dir / "out");
  std::string log;
  EXPECT_EQ(RunMpi(2, "convert imagefolder '" + (dir / "in") + "' '" + (dir / "out/data") + "' --shards 4" + kLayout,
                   &log),
            2)
      << log;
  EXPECT_NE(log.find("rank 1 of 2 failed: " + broken), std::string::npos) << log;
  EXPECT_TRUE(FilesStartingWith(dir / "out", "data").empty()) << "a failed conversion left files under its names";
  const size_t parts = FilesStartingWith(dir / "out", ".data").size() / 2;
  // Repaired, the conversion resumes with any number of ranks.
  std::ofstream(broken, std::ios::trunc | std::ios::binary) << files.back().bytes;
  ASSERT_EQ(RunMpi(3, "convert imagefolder '" + (dir / "in") + "' '" + (dir / "out/data") +
                          "' --shards 4 --resume --json" + kLayout,
                   &log),
            0)
      << log;
  EXPECT_TRUE(DatasetFiles(dir / "out") == want);
  EXPECT_EQ(FilesStartingWith(dir / "out", ".").size(), 0u) << "parts or temporaries left";
  // Every part the failed run completed was kept, not written again.
  const nlohmann::json report = JsonIn(log);
  ASSERT_TRUE(report.is_object()) << log;
  EXPECT_EQ(report["kept"][0].size(), parts) << log;
}

// The ids of the processes whose parent is `parent`.
std::vector<pid_t> Children(pid_t parent) {
  std::vector<pid_t> out;
  for (const auto& e : fs::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(e.path() / "stat");
    std::string line;
    std::getline(stat, line);
    const size_t close = line.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(line.substr(close + 2));
    char state;
    pid_t ppid = 0;
    rest >> state >> ppid;
    if (ppid == parent) out.push_back(static_cast<pid_t>(std::stoi(name)));
  }
  return out;
}

TEST(DistributedConvertTest, AKilledRankLeavesNoDatasetAndResumeFinishesIt) {
  MR_REQUIRE_MPIRUN();
  TempDir dir;
  fixtures::WriteImageFolder(dir / "in", 8, 150, 24, 24, 5);
  const std::string slow = " --shards 8 --batch-rows 1 --header-size 65536 --page-size 131072 --workers 1 --quiet";
  ASSERT_EQ(RunCli("convert imagefolder '" + (dir / "in") + "' '" + (dir / "ref/data") + "'" + slow), 0);
  const auto want = DatasetFiles(dir / "ref");
  fs::create_directories(dir / "out");
  const pid_t mpirun = fork();
  ASSERT_GE(mpirun, 0);
  if (mpirun == 0) {
    ::setenv("OMPI_MCA_btl_vader_single_copy_mechanism", "none", 1);
    ::setenv("ASAN_OPTIONS", "detect_leaks=0", 1);  // as in Mpirun()
    const std::string in = dir / "in", out = dir / "out/data";
    execlp("mpirun", "mpirun", "--allow-run-as-root", "--oversubscribe", "-n", "2", MINDRECORD_CLI_PATH, "convert",
           "imagefolder", in.c_str(), out.c_str(), "--shards", "8", "--batch-rows", "1", "--header-size", "65536",
           "--page-size", "131072", "--workers", "1", "--quiet", static_cast<char*>(nullptr));
    _exit(127);
  }
  // Once the first shard is committed as a part, kill a rank.
  bool killed = false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (!killed && std::chrono::steady_clock::now() < deadline) {
    if (!FilesStartingWith(dir / "out", ".data").empty()) {
      for (pid_t child : Children(mpirun)) {
        std::ifstream comm("/proc/" + std::to_string(child) + "/comm");
        std::string name;
        comm >> name;
        if (name == "mindrecord") {
          ::kill(child, SIGKILL);
          killed = true;
          break;
        }
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  int status = 0;
  ASSERT_EQ(waitpid(mpirun, &status, 0), mpirun);
  ASSERT_TRUE(killed) << "no rank to kill";
  EXPECT_FALSE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "mpirun succeeded although a rank was killed";
  EXPECT_TRUE(FilesStartingWith(dir / "out", "data").empty()) << "a killed conversion left files under its names";
  std::string log;
  ASSERT_EQ(RunMpi(2, "convert imagefolder '" + (dir / "in") + "' '" + (dir / "out/data") + "' --resume --json" + slow,
                   &log),
            0)
      << log;
  EXPECT_TRUE(DatasetFiles(dir / "out") == want);
  EXPECT_EQ(PartsIn(dir / "out"), 0u);
  // At least the part that triggered the kill was kept.
  const nlohmann::json report = JsonIn(log);
  ASSERT_TRUE(report.is_object()) << log;
  EXPECT_GE(report["kept"][0].size(), 1u) << log;
}

}  // namespace
}  // namespace mindrecord::convert
