// Plan optimization for one column's op list: fuses a decode with the
// resize-like op after it so the JPEG is decoded with DCT-domain downscaling.
//
//   {"op":"Decode"} + {"op":"RandomResizedCrop", P...} -> {"op":"DecodeRandomResizedCrop", P...}
//   {"op":"Decode"} + {"op":"Resize", P...}            -> {"op":"DecodeResize", P...}
//   {"op":"Normalize", P...} + {"op":"HWC2CHW"}        -> {"op":"NormalizeHWC2CHW", P...}
//
// "all_factors" on the Decode carries over; a Decode "target_size" is dropped
// (the fused op knows its exact target). Everything else is copied unchanged,
// including specs that do not parse (MakeOp reports those). The fused ops
// draw the same random numbers as the pair they replace (the same crop
// window for the same seed); pixels differ within resampling tolerance
// because part of the downscale happens in the IDCT. A runtime that needs
// bit-exact output of the unfused plan simply does not call FuseOps.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

namespace mindrecord {

// Thread safety: a pure function.
std::vector<nlohmann::json> FuseOps(const std::vector<nlohmann::json>& specs);

}  // namespace mindrecord
