// CelebA lists (celeba_source.h): the first input byte picks the usage and
// the extension filter, the rest is list_attr_celeba.txt, the file
// separator, then list_eval_partition.txt. The folder is listed, opened and
// every row read (one small image, 000001.jpg, is present; other names are
// row errors). The second file is then read as a Places365 list and the
// first as a Food101 one (image_list_source.h), and their rows read.
#include "pipeline/nodes/celeba_source.h"
#include "pipeline/nodes/image_list_source.h"
#include "tests/fuzz/fuzz_target.h"
#include "tests/fuzz/fuzz_util.h"

using namespace mindrecord;

namespace {

void ReadFirstRows(const Source& src) {
  std::vector<uint64_t> ids;
  for (uint64_t i = 0; i < src.num_rows() && i < 64; ++i) ids.push_back(i);
  (void)src.Read(ids, [](size_t, const Status&, std::vector<Tensor>&&, uint64_t) { return Status::OK(); });
  for (uint64_t id : ids) (void)src.Where(id);
}

void ReadImageList(const nlohmann::json& args) {
  auto rows = CountImageList(args);
  if (!rows.ok()) return;
  nlohmann::json node = {{"node", "source"}, {"kind", "image_list"}, {"columns", {"image", "label"}},
                         {"rows", *rows}, {"args", args}};
  auto src = OpenImageListSource(node);
  if (src.ok()) ReadFirstRows(**src);
}

void ReadPlaces(const std::filesystem::path& dir, std::string_view list, bool decode) {
  fuzz::WriteFile(dir / "categories_places365.txt", "/a/b 0\n");
  fuzz::WriteFile(dir / "places365_val.txt", list);
  fuzz::WriteFile(dir / "val_256" / "000001.jpg", "\xff\xd8\xff\xe0 not a whole jpeg");
  ReadImageList({{"layout", "places365"}, {"dataset_dir", dir.string()}, {"usage", "val"}, {"decode", decode}});
}

void ReadFood101(const std::filesystem::path& dir, std::string_view list, bool decode) {
  fuzz::WriteFile(dir / "meta" / "test.txt", list);
  fuzz::WriteFile(dir / "images" / "a" / "000001.jpg", "\xff\xd8\xff\xe0 not a whole jpeg");
  ReadImageList({{"layout", "food101"}, {"dataset_dir", dir.string()}, {"usage", "test"}, {"decode", decode}});
}

}  // namespace

MINDRECORD_FUZZ_TARGET(celeba) {
  if (size == 0) return 0;
  const uint8_t pick = data[0];
  auto parts = fuzz::SplitFiles(std::string_view(reinterpret_cast<const char*>(data) + 1, size - 1), 2);
  static const char* kUsages[] = {"all", "train", "valid", "test"};
  const std::string usage = kUsages[pick & 3];
  const std::vector<std::string> extensions = (pick & 4) ? std::vector<std::string>{".jpg"}
                                                         : std::vector<std::string>{};
  const auto dir = fuzz::FreshScratch();
  fuzz::WriteFile(dir / "list_attr_celeba.txt", parts[0]);
  fuzz::WriteFile(dir / "list_eval_partition.txt", parts[1]);
  fuzz::WriteFile(dir / "000001.jpg", "\xff\xd8\xff\xe0 not a whole jpeg");
  ReadPlaces(dir, parts[1], (pick & 8) != 0);
  ReadFood101(dir, parts[0], (pick & 8) != 0);
  auto rows = CountCelebARows(dir.string(), usage, extensions);
  if (!rows.ok()) return 0;
  nlohmann::json node = {{"node", "source"}, {"kind", "celeba"}, {"columns", {"image", "attr"}}, {"rows", *rows},
                         {"args", {{"dataset_dir", dir.string()}, {"usage", usage}, {"decode", (pick & 8) != 0},
                                   {"extensions", extensions}}}};
  auto src = OpenCelebASource(node);
  if (src.ok()) ReadFirstRows(**src);
  return 0;
}
