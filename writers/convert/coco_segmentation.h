// COCO instance segmentation ("segmentation" of an annotation) as MindRecord
// columns. Polygons and RLE both fit in flat arrays, one set per image:
//   seg_polygons        float32 [-1]    every polygon's coordinates (x0,y0,x1,y1,...), concatenated
//   seg_polygon_lengths int32 [-1]      coordinates per polygon, one entry per polygon
//   seg_polygon_counts  int32 [-1]      polygons per annotation (0 for RLE or no segmentation)
//   seg_rle_counts      int64 [-1]      every RLE's run lengths, concatenated (uncompressed)
//   seg_rle_lengths     int32 [-1]      runs per annotation (0 for polygons)
//   seg_rle_size        int32 [-1,2]    [height, width] per annotation ([0,0] for polygons)
// The per-annotation arrays line up with bbox / category_id. Compressed RLE
// strings (pycocotools' LEB128-like text) are stored decoded to run lengths.
// Internal to writers/convert.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "mindrecord/schema.h"
#include "mindrecord/status.h"
#include "mindrecord/value.h"

namespace mindrecord::convert {

struct CocoSegmentation {
  std::vector<float> polygons;
  std::vector<int32_t> polygon_lengths;
  std::vector<int32_t> polygon_counts;
  std::vector<int64_t> rle_counts;
  std::vector<int32_t> rle_lengths;
  std::vector<int32_t> rle_size;
};

// Appends one annotation's "segmentation" (nullptr: the annotation has none).
// Accepts a list of number lists (polygons) or {"counts": [run lengths] |
// "compressed text", "size": [h, w]} (RLE; runs are not required to add up to
// h*w, as MindSpore's readers do not). Corruption naming the problem
// otherwise; `out` is then partly appended and must be dropped.
Status AppendSegmentation(const nlohmann::json* seg, CocoSegmentation& out);

// pycocotools' compressed RLE string -> run lengths.
Result<std::vector<int64_t>> DecodeCocoRleString(std::string_view text);

void AddSegmentationFields(std::vector<Field>& fields);
void SetSegmentationFields(const CocoSegmentation& seg, Row& row);

}  // namespace mindrecord::convert
