// Shared by the image benchmarks: the compat sample photos and JPEG
// encoding of generated inputs.
#pragma once

#include <turbojpeg.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "pipeline/tensor.h"
#include "tests/util/compat_dir.h"

namespace mindrecord::bench {

inline std::string ReadFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

// HWC uint8 RGB -> JPEG (4:2:0) at `quality`.
inline std::string EncodeJpeg(const Tensor& rgb, int quality) {
  tjhandle h = tjInitCompress();
  unsigned char* buf = nullptr;
  unsigned long size = 0;
  const int hgt = static_cast<int>(rgb.shape()[0]), w = static_cast<int>(rgb.shape()[1]);
  tjCompress2(h, rgb.data(), w, w * 3, hgt, TJPF_RGB, &buf, &size, TJSAMP_420, quality, 0);
  std::string out(reinterpret_cast<char*>(buf), size);
  tjFree(buf);
  tjDestroy(h);
  return out;
}

// The JPEG photos of the compat folder under `sub` (default: the COCO sample),
// sorted; empty when compat is absent.
inline std::vector<std::string> CompatPhotoPaths(const std::string& sub = "sources/coco/train") {
  const std::string compat = testing::CompatDir();
  if (compat.empty()) return {};
  const std::filesystem::path dir = std::filesystem::path(compat) / sub;
  std::vector<std::string> paths;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    if (e.path().extension() == ".jpg") paths.push_back(e.path().string());
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

}  // namespace mindrecord::bench
