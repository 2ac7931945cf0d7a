#include "writers/convert/coco_segmentation.h"

#include <cmath>
#include <limits>
#include <string>

namespace mindrecord::convert {
using nlohmann::json;
namespace {

// Runs may not exceed an image of this many pixels (keeps sums in range).
constexpr int64_t kMaxPixels = int64_t{1} << 40;

Status AppendPolygons(const json& seg, CocoSegmentation& out) {
  for (size_t p = 0; p < seg.size(); ++p) {
    const json& poly = seg[p];
    const std::string where = "segmentation polygon " + std::to_string(p);
    if (!poly.is_array()) return Status::Corruption(where + " is not a list of numbers");
    if (poly.size() > static_cast<size_t>(std::numeric_limits<int32_t>::max()))
      return Status::Corruption(where + " is too long");
    for (const json& v : poly) {
      if (!v.is_number()) return Status::Corruption(where + " holds a non-number: " + v.dump());
      const double d = v.get<double>();
      if (!std::isfinite(static_cast<float>(d))) return Status::Corruption(where + " holds " + v.dump() + ", outside float32");
      out.polygons.push_back(static_cast<float>(d));
    }
    out.polygon_lengths.push_back(static_cast<int32_t>(poly.size()));
  }
  out.polygon_counts.push_back(static_cast<int32_t>(seg.size()));
  out.rle_lengths.push_back(0);
  out.rle_size.insert(out.rle_size.end(), {0, 0});
  return Status::OK();
}

Status AppendRle(const json& seg, CocoSegmentation& out) {
  auto size = seg.find("size");
  if (size == seg.end() || !size->is_array() || size->size() != 2 || !(*size)[0].is_number_unsigned() ||
      !(*size)[1].is_number_unsigned())
    return Status::Corruption("segmentation RLE needs 'size': [height, width] of non-negative integers");
  const uint64_t h = (*size)[0].get<uint64_t>(), w = (*size)[1].get<uint64_t>();
  if (h > std::numeric_limits<int32_t>::max() || w > std::numeric_limits<int32_t>::max() ||
      static_cast<int64_t>(h * w) > kMaxPixels)
    return Status::Corruption("segmentation RLE size " + size->dump() + " is implausibly large");
  auto counts = seg.find("counts");
  std::vector<int64_t> runs;
  if (counts != seg.end() && counts->is_string()) {
    auto decoded = DecodeCocoRleString(counts->get_ref<const std::string&>());
    if (!decoded.ok()) return decoded.status().WithContext("segmentation RLE counts");
    runs = std::move(decoded).value();
  } else if (counts != seg.end() && counts->is_array()) {
    for (const json& c : *counts) {
      // Integral numbers; some files write them as floats (10.0).
      const double d = c.is_number() ? c.get<double>() : -1;
      if (!(d >= 0 && d <= static_cast<double>(kMaxPixels) && d == std::floor(d)))
        return Status::Corruption("segmentation RLE counts hold " + c.dump() + ", not a run length");
      runs.push_back(static_cast<int64_t>(d));
    }
  } else {
    return Status::Corruption("segmentation RLE needs 'counts': a list of run lengths or a compressed string");
  }
  // Runs are stored as given, also when they do not add up to height x width
  // (MindSpore's own test file train.json has such an RLE and its readers accept it).
  if (runs.size() > static_cast<size_t>(std::numeric_limits<int32_t>::max()))
    return Status::Corruption("segmentation RLE has too many runs");
  out.polygon_counts.push_back(0);
  out.rle_counts.insert(out.rle_counts.end(), runs.begin(), runs.end());
  out.rle_lengths.push_back(static_cast<int32_t>(runs.size()));
  out.rle_size.insert(out.rle_size.end(), {static_cast<int32_t>(h), static_cast<int32_t>(w)});
  return Status::OK();
}

}  // namespace

Result<std::vector<int64_t>> DecodeCocoRleString(std::string_view text) {
  // pycocotools rleFrString: each value in 5-bit groups, least significant
  // first, characters '0' + group (0x20 = more groups follow, 0x10 in the last
  // group = negative); from the fourth value on, a delta to the value two back.
  std::vector<int64_t> runs;
  size_t p = 0;
  while (p < text.size()) {
    uint64_t x = 0;
    int k = 0;
    bool more = true;
    while (more) {
      if (p >= text.size()) return Status::Corruption("compressed RLE string ends inside a value");
      const int c = static_cast<unsigned char>(text[p]) - 48;
      if (c < 0 || c > 63) return Status::Corruption("compressed RLE string holds byte " + std::to_string(c + 48));
      if (k >= 12) return Status::Corruption("compressed RLE value longer than 64 bits");
      x |= static_cast<uint64_t>(c & 0x1f) << (5 * k);
      more = (c & 0x20) != 0;
      ++p;
      ++k;
      if (!more && (c & 0x10) && 5 * k < 64) x |= ~uint64_t{0} << (5 * k);
    }
    int64_t v = static_cast<int64_t>(x);
    if (runs.size() > 2) {
      const int64_t prev = runs[runs.size() - 2];
      if ((v > 0 && prev > kMaxPixels - v) || (v < 0 && prev + v < 0))
        return Status::Corruption("compressed RLE run " + std::to_string(runs.size()) + " is out of range");
      v += prev;
    }
    if (v < 0 || v > kMaxPixels)
      return Status::Corruption("compressed RLE run " + std::to_string(runs.size()) + " is out of range");
    runs.push_back(v);
  }
  return runs;
}

Status AppendSegmentation(const json* seg, CocoSegmentation& out) {
  if (seg == nullptr || seg->is_null()) return AppendPolygons(json::array(), out);
  if (seg->is_array()) return AppendPolygons(*seg, out);
  if (seg->is_object()) return AppendRle(*seg, out);
  return Status::Corruption("'segmentation' must be a list of polygons or an RLE object, got " +
                            std::string(seg->type_name()));
}

void AddSegmentationFields(std::vector<Field>& fields) {
  fields.push_back({"seg_polygons", DataType::kFloat32, true, {-1}});
  fields.push_back({"seg_polygon_lengths", DataType::kInt32, true, {-1}});
  fields.push_back({"seg_polygon_counts", DataType::kInt32, true, {-1}});
  fields.push_back({"seg_rle_counts", DataType::kInt64, true, {-1}});
  fields.push_back({"seg_rle_lengths", DataType::kInt32, true, {-1}});
  fields.push_back({"seg_rle_size", DataType::kInt32, true, {-1, 2}});
}

void SetSegmentationFields(const CocoSegmentation& seg, Row& row) {
  row.Set("seg_polygons", Value::ArrayOf<float>(DataType::kFloat32, seg.polygons));
  row.Set("seg_polygon_lengths", Value::ArrayOf<int32_t>(DataType::kInt32, seg.polygon_lengths));
  row.Set("seg_polygon_counts", Value::ArrayOf<int32_t>(DataType::kInt32, seg.polygon_counts));
  row.Set("seg_rle_counts", Value::ArrayOf<int64_t>(DataType::kInt64, seg.rle_counts));
  row.Set("seg_rle_lengths", Value::ArrayOf<int32_t>(DataType::kInt32, seg.rle_lengths));
  const int64_t n = static_cast<int64_t>(seg.rle_size.size() / 2);
  row.Set("seg_rle_size", Value::ArrayOf<int32_t>(DataType::kInt32, seg.rle_size, {n, 2}));
}

}  // namespace mindrecord::convert
