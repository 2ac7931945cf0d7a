// The list files of the catalog layouts (catalog_source.h): the first input
// byte picks the layout (modulo 18: lfw, flickr, kitti, widerface, manifest,
// sbu, multi30k, qmnist, stl10, usps, semeion, squad, iwslt: bit 0 of the
// variant the XML test files, else the train.tags files; flowers102: the
// two .mat files; caltech101: an annotation .mat file; svhn: test_32x32.mat;
// sb: a cls/ID.mat file, bit 0 of the variant Segmentation; photo_tour:
// info.txt and the matches file, bit 0 of the variant test), the second a variant (bit 0:
// LFW pairs, QMNIST labels whole; bit 1: LFW 10fold; bit 2: decode); the
// rest holds up to two files, separated as fuzz_util.h says, written where
// the layout reads its lists (QMNIST: the image and label idx files; STL10:
// test_X.bin and test_y.bin). One small
// image (not a whole JPEG) lies where each layout looks first. The lists
// are read, the source opened and its first rows read.
#include <cstring>

#include "pipeline/nodes/catalog_source.h"
#include "tests/fuzz/fuzz_target.h"
#include "tests/fuzz/fuzz_util.h"

using namespace mindrecord;

namespace {

constexpr std::string_view kImage = "\xff\xd8\xff\xe0 not a whole jpeg";

void ReadCatalogRows(const Source& src) {
  std::vector<uint64_t> ids;
  for (uint64_t i = 0; i < src.num_rows() && i < 64; ++i) ids.push_back(i);
  (void)src.Read(ids, [](size_t, const Status&, std::vector<Tensor>&&, uint64_t) { return Status::OK(); });
  for (uint64_t id : ids) (void)src.Where(id);
}

}  // namespace

MINDRECORD_FUZZ_TARGET(catalog) {
  if (size < 2) return 0;
  const uint8_t layout = data[0] % 18, pick = data[1];
  auto parts = fuzz::SplitFiles(std::string_view(reinterpret_cast<const char*>(data) + 2, size - 2), 2);
  const auto dir = fuzz::FreshScratch();
  nlohmann::json args = {{"dataset_dir", dir.string()}, {"decode", (pick & 4) != 0}};
  switch (layout) {
    case 0: {
      const std::string task = (pick & 1) ? "pairs" : "people";
      const std::string usage = (pick & 2) ? "10fold" : "train";
      args.update({{"layout", "lfw"}, {"task", task}, {"usage", usage}});
      fuzz::WriteFile(dir / "lfw-names.txt", parts[0]);
      fuzz::WriteFile(dir / (usage == "10fold" ? task + ".txt" : task + "DevTrain.txt"), parts[1]);
      fuzz::WriteFile(dir / "lfw_funneled" / "A" / "A_0001.jpg", kImage);
      break;
    }
    case 1:
      args.update({{"layout", "flickr"}, {"annotation_file", (dir / "token.txt").string()}});
      fuzz::WriteFile(dir / "token.txt", parts[0]);
      fuzz::WriteFile(dir / "a.jpg", kImage);
      break;
    case 2:
      args.update({{"layout", "kitti"}, {"usage", "train"}});
      fuzz::WriteFile(dir / "data_object_image_2" / "training" / "image_2" / "000000.png", kImage);
      fuzz::WriteFile(dir / "data_object_label_2" / "training" / "label_2" / "000000.txt", parts[0]);
      break;
    case 3:
      args.update({{"layout", "widerface"}, {"usage", "train"}});
      fuzz::WriteFile(dir / "WIDER_train" / "images" / "0--P" / "a.jpg", kImage);
      fuzz::WriteFile(dir / "wider_face_split" / "wider_face_train_bbx_gt.txt", parts[0]);
      break;
    case 4:
      args.update({{"layout", "manifest"}, {"dataset_file", (dir / "m.manifest").string()}, {"usage", "train"}});
      fuzz::WriteFile(dir / "m.manifest", parts[0]);
      fuzz::WriteFile(dir / "a.jpg", kImage);
      break;
    case 5:
      args.update({{"layout", "sbu"}});
      fuzz::WriteFile(dir / "SBU_captioned_photo_dataset_urls.txt", parts[0]);
      fuzz::WriteFile(dir / "SBU_captioned_photo_dataset_captions.txt", parts[1]);
      fuzz::WriteFile(dir / "sbu_images" / "m_1_a.jpg", kImage);
      break;
    case 6:
      args.update({{"layout", "multi30k"}, {"usage", "train"}});
      fuzz::WriteFile(dir / "training" / "train.en", parts[0]);
      fuzz::WriteFile(dir / "training" / "train.de", parts[1]);
      break;
    case 7:
      args.update({{"layout", "qmnist"}, {"usage", "nist"}, {"compat", (pick & 1) == 0}});
      fuzz::WriteFile(dir / "xnist-images-idx3-ubyte", parts[0]);
      fuzz::WriteFile(dir / "xnist-labels-idx2-int", parts[1]);
      break;
    case 8:
      args.update({{"layout", "stl10"}, {"usage", "test"}});
      fuzz::WriteFile(dir / "test_X.bin", parts[0]);
      fuzz::WriteFile(dir / "test_y.bin", parts[1]);
      break;
    case 9:
      args.update({{"layout", "usps"}, {"usage", "test"}});
      fuzz::WriteFile(dir / "usps.t", parts[0]);
      break;
    case 10:
      args.update({{"layout", "semeion"}});
      fuzz::WriteFile(dir / "semeion.data", parts[0]);
      break;
    case 11:
      args.update({{"layout", "squad"}, {"usage", "all"}});
      fuzz::WriteFile(dir / "train-v2.0.json", parts[0]);
      fuzz::WriteFile(dir / "dev-v1.1.json", parts[1]);
      break;
    case 13:
      args.update({{"layout", "flowers102"}, {"usage", "all"}});
      fuzz::WriteFile(dir / "imagelabels.mat", parts[0]);
      fuzz::WriteFile(dir / "setid.mat", parts[1]);
      fuzz::WriteFile(dir / "jpg" / "image_00001.jpg", kImage);
      break;
    case 14:
      args.update({{"layout", "caltech101"}, {"target_type", "all"}});
      fuzz::WriteFile(dir / "101_ObjectCategories" / "Faces" / "image_0001.jpg", kImage);
      fuzz::WriteFile(dir / "Annotations" / "Faces_2" / "annotation_0001.mat", parts[0]);
      break;
    case 15:
      args.update({{"layout", "svhn"}, {"usage", "test"}});
      fuzz::WriteFile(dir / "test_32x32.mat", parts[0]);
      break;
    case 16:
      args.update({{"layout", "sb"}, {"usage", "train"}, {"task", (pick & 1) ? "Segmentation" : "Boundaries"}});
      fuzz::WriteFile(dir / "train.txt", "a\n");
      fuzz::WriteFile(dir / "img" / "a.jpg", kImage);
      fuzz::WriteFile(dir / "cls" / "a.mat", parts[0]);
      break;
    case 17: {
      args.update({{"layout", "photo_tour"}, {"name", "liberty"}, {"usage", (pick & 1) ? "test" : "train"}});
      static const std::string bitmap = [] {  // a 1024 x 1024 8-bit grey BMP
        std::string b(14 + 40 + 1024 + 1024 * 1024, '\0');
        auto put32 = [&](size_t at, uint32_t v) { std::memcpy(&b[at], &v, 4); };
        b[0] = 'B';
        b[1] = 'M';
        put32(2, static_cast<uint32_t>(b.size()));
        put32(10, 14 + 40 + 1024);
        put32(14, 40);
        put32(18, 1024);
        put32(22, 1024);
        b[26] = 1;
        b[28] = 8;
        for (int i = 0; i < 256; ++i) b[54 + 4 * i] = b[55 + 4 * i] = b[56 + 4 * i] = static_cast<char>(i);
        for (size_t i = 0; i < 1024 * 1024; ++i) b[14 + 40 + 1024 + i] = static_cast<char>(i * 7);
        return b;
      }();
      fuzz::WriteFile(dir / "liberty" / "patches0000.bmp", bitmap);
      fuzz::WriteFile(dir / "liberty" / "info.txt", parts[0]);
      fuzz::WriteFile(dir / "liberty" / "m50_100000_100000_0.txt", parts[1]);
      break;
    }
    default: {
      const bool xml = (pick & 1) != 0;
      args.update({{"layout", "iwslt"}, {"year", 2016}, {"usage", xml ? "test" : "train"}});
      const auto folder = dir / "texts" / "de" / "en" / "de-en";
      fuzz::WriteFile(folder / (xml ? "IWSLT16.TED.tst2014.de-en.de.xml" : "train.tags.de-en.de"), parts[0]);
      fuzz::WriteFile(folder / (xml ? "IWSLT16.TED.tst2014.de-en.en.xml" : "train.tags.de-en.en"), parts[1]);
      break;
    }
  }
  auto info = DescribeCatalog(args);
  if (!info.ok()) return 0;
  nlohmann::json node = {{"node", "source"}, {"kind", "catalog"}, {"columns", (*info)["columns"]},
                         {"rows", (*info)["rows"]}, {"args", args}};
  auto src = OpenCatalogSource(node);
  if (src.ok()) ReadCatalogRows(**src);
  return 0;
}
