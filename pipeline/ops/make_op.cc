// MakeOp: the registry from JSON spec names to op constructors.
#include <string>

#include "pipeline/ops/audio_cmn.h"
#include "pipeline/ops/audio_dither.h"
#include "pipeline/ops/audio_effects.h"
#include "pipeline/ops/audio_filter.h"
#include "pipeline/ops/audio_inverse.h"
#include "pipeline/ops/audio_inverse_mel.h"
#include "pipeline/ops/audio_level.h"
#include "pipeline/ops/audio_mask.h"
#include "pipeline/ops/audio_pitch.h"
#include "pipeline/ops/audio_resample.h"
#include "pipeline/ops/audio_scale.h"
#include "pipeline/ops/audio_spectral.h"
#include "pipeline/ops/audio_stretch.h"
#include "pipeline/ops/audio_vad.h"
#include "pipeline/ops/auto_augment.h"
#include "pipeline/ops/batch_mix.h"
#include "pipeline/ops/bbox.h"
#include "pipeline/ops/bbox_crop.h"
#include "pipeline/ops/bbox_random.h"
#include "pipeline/ops/blur.h"
#include "pipeline/ops/color_adjust.h"
#include "pipeline/ops/compose.h"
#include "pipeline/ops/convert_color.h"
#include "pipeline/ops/crop.h"
#include "pipeline/ops/decode.h"
#include "pipeline/ops/erase.h"
#include "pipeline/ops/flip.h"
#include "pipeline/ops/fused.h"
#include "pipeline/ops/layout.h"
#include "pipeline/ops/multi_crop.h"
#include "pipeline/ops/normalize.h"
#include "pipeline/ops/normalize_pad.h"
#include "pipeline/ops/one_hot.h"
#include "pipeline/ops/pad.h"
#include "pipeline/ops/perspective.h"
#include "pipeline/ops/random_color.h"
#include "pipeline/ops/op.h"
#include "pipeline/ops/point_ops.h"
#include "pipeline/ops/random_point_ops.h"
#include "pipeline/ops/random_resized_crop.h"
#include "pipeline/ops/resize.h"
#include "pipeline/ops/simple_vision.h"
#include "pipeline/ops/slice_patches.h"
#include "pipeline/ops/tensor_ops.h"
#include "pipeline/ops/tensor_shape_ops.h"
#include "pipeline/ops/text_lookup.h"
#include "pipeline/ops/text_normalize.h"
#include "pipeline/ops/text_regex.h"
#include "pipeline/ops/text_sequence.h"
#include "pipeline/ops/text_tokenizers.h"
#include "pipeline/ops/text_vectors.h"
#include "pipeline/ops/text_wordpiece.h"
#include "pipeline/ops/warp.h"

namespace mindrecord {

namespace {

using Factory = Result<std::unique_ptr<TensorOp>> (*)(const nlohmann::json&);

struct Entry {
  const char* name;
  Factory make;
};

constexpr Entry kOps[] = {
    {"Decode", &ops::DecodeOp::Make},
    {"Spectrogram", &ops::SpectrogramOp::Make},
    {"MelScale", &ops::MelScaleOp::Make},
    {"MelSpectrogram", &ops::MelSpectrogramOp::Make},
    {"MFCC", &ops::MfccOp::Make},
    {"LFCC", &ops::LfccOp::Make},
    {"SpectralCentroid", &ops::SpectralCentroidOp::Make},
    {"Resample", &ops::ResampleOp::Make},
    {"SlidingWindowCmn", &ops::SlidingWindowCmnOp::Make},
    {"TimeStretch", &ops::TimeStretchOp::Make},
    {"PhaseVocoder", &ops::PhaseVocoderOp::Make},
    {"DetectPitchFrequency", &ops::DetectPitchFrequencyOp::Make},
    {"Contrast", &ops::ContrastOp::Make},
    {"Overdrive", &ops::OverdriveOp::Make},
    {"Phaser", &ops::PhaserOp::Make},
    {"Flanger", &ops::FlangerOp::Make},
    {"Dither", &ops::DitherOp::Make},
    {"Vad", &ops::VadOp::Make},
    {"InverseMelScale", &ops::InverseMelScaleOp::Make},
    {"InverseSpectrogram", &ops::InverseSpectrogramOp::Make},
    {"PitchShift", &ops::PitchShiftOp::Make},
    {"GriffinLim", &ops::GriffinLimOp::Make},
    {"AmplitudeToDB", &ops::AmplitudeToDBOp::Make},
    {"DBToAmplitude", &ops::DBToAmplitudeOp::Make},
    {"ComplexNorm", &ops::ComplexOp::Make},
    {"Angle", &ops::ComplexOp::Make},
    {"Magphase", &ops::ComplexOp::Make},
    {"TimeMasking", &ops::AxisMaskOp::Make},
    {"FrequencyMasking", &ops::AxisMaskOp::Make},
    {"MaskAlongAxis", &ops::AxisMaskOp::Make},
    {"MaskAlongAxisIID", &ops::AxisMaskOp::Make},
    {"Gain", &ops::SampleGainOp::Make},
    {"Vol", &ops::SampleGainOp::Make},
    {"DCShift", &ops::SampleGainOp::Make},
    {"Fade", &ops::FadeOp::Make},
    {"MuLawEncoding", &ops::MuLawOp::Make},
    {"MuLawDecoding", &ops::MuLawOp::Make},
    {"ComputeDeltas", &ops::ComputeDeltasOp::Make},
    {"LFilter", &ops::FilterOp::Make},
    {"Filtfilt", &ops::FilterOp::Make},
    {"Biquad", &ops::FilterOp::Make},
    {"AllpassBiquad", &ops::FilterOp::Make},
    {"BandBiquad", &ops::FilterOp::Make},
    {"BandpassBiquad", &ops::FilterOp::Make},
    {"BandrejectBiquad", &ops::FilterOp::Make},
    {"BassBiquad", &ops::FilterOp::Make},
    {"EqualizerBiquad", &ops::FilterOp::Make},
    {"HighpassBiquad", &ops::FilterOp::Make},
    {"LowpassBiquad", &ops::FilterOp::Make},
    {"TrebleBiquad", &ops::FilterOp::Make},
    {"DeemphBiquad", &ops::FilterOp::Make},
    {"RiaaBiquad", &ops::FilterOp::Make},
    {"WhitespaceTokenizer", &ops::WhitespaceTokenizerOp::Make},
    {"UnicodeCharTokenizer", &ops::UnicodeCharTokenizerOp::Make},
    {"UnicodeScriptTokenizer", &ops::UnicodeScriptTokenizerOp::Make},
    {"RegexTokenizer", &ops::RegexTokenizerOp::Make},
    {"BasicTokenizer", &ops::BasicTokenizerOp::Make},
    {"WordpieceTokenizer", &ops::WordpieceTokenizerOp::Make},
    {"BertTokenizer", &ops::BertTokenizerOp::Make},
    {"CaseFold", &ops::CaseFoldOp::Make},
    {"NormalizeUTF8", &ops::NormalizeUTF8Op::Make},
    {"RegexReplace", &ops::RegexReplaceOp::Make},
    {"Lookup", &ops::LookupOp::Make},
    {"ToVectors", &ops::ToVectorsOp::Make},
    {"Truncate", &ops::TruncateOp::Make},
    {"TruncateSequencePair", &ops::TruncateSequencePairOp::Make},
    {"SlidingWindow", &ops::SlidingWindowOp::Make},
    {"Ngram", &ops::NgramOp::Make},
    {"AddToken", &ops::AddTokenOp::Make},
    {"ToNumber", &ops::ToNumberOp::Make},
    {"Resize", &ops::ResizeOp::Make},
    {"CenterCrop", &ops::CenterCropOp::Make},
    {"RandomCrop", &ops::RandomCropOp::Make},
    {"RandomResizedCrop", &ops::RandomResizedCropOp::Make},
    {"RandomHorizontalFlip", &ops::RandomFlipOp::MakeHorizontal},
    {"RandomVerticalFlip", &ops::RandomFlipOp::MakeVertical},
    {"Normalize", &ops::NormalizeOp::Make},
    {"HWC2CHW", &ops::HWC2CHWOp::Make},
    {"TypeCast", &ops::TypeCastOp::Make},
    {"DecodeResize", &ops::DecodeResizeOp::Make},
    {"DecodeRandomResizedCrop", &ops::DecodeRandomResizedCropOp::Make},
    {"NormalizeHWC2CHW", &ops::NormalizeOp::MakeHWC2CHW},
    // MindSpore's name for the fused decode + random resized crop.
    {"RandomCropDecodeResize", &ops::DecodeRandomResizedCropOp::Make},
    {"Pad", &ops::PadOp::Make},
    {"RandomRotation", &ops::RandomRotationOp::Make},
    {"Rescale", &ops::RescaleOp::Make},
    {"ToTensor", &ops::ToTensorOp::Make},
    {"RandomColorAdjust", &ops::RandomColorAdjustOp::Make},
    {"ConvertColor", &ops::ConvertColorOp::Make},
    {"Grayscale", &ops::GrayscaleOp::Make},
    {"CutOut", &ops::CutOutOp::Make},
    {"RandomErasing", &ops::RandomErasingOp::Make},
    {"RandomSelectSubpolicy", &ops::RandomSelectSubpolicyOp::Make},
    {"AutoAugment", &ops::AutoAugmentOp::Make},
    {"RandAugment", &ops::RandAugmentOp::Make},
    {"MixUpBatch", &ops::MixUpBatchOp::Make},
    {"CutMixBatch", &ops::CutMixBatchOp::Make},
    {"RandomHorizontalFlipWithBBox", &ops::RandomFlipWithBBoxOp::MakeHorizontal},
    {"RandomVerticalFlipWithBBox", &ops::RandomFlipWithBBoxOp::MakeVertical},
    {"RandomCropWithBBox", &ops::RandomCropWithBBoxOp::Make},
    {"ResizeWithBBox", &ops::ResizeWithBBoxOp::Make},
    {"BoundingBoxAugment", &ops::BoundingBoxAugmentOp::Make},
    {"Compose", &ops::ComposeOp::Make},
    {"RandomApply", &ops::RandomApplyOp::Make},
    {"RandomChoice", &ops::RandomChoiceOp::Make},
    {"RandomOrder", &ops::RandomOrderOp::Make},
    {"OneHot", &ops::OneHotOp::Make},
    {"Rotate", &ops::RotateOp::Make},
    {"Affine", &ops::AffineOp::Make},
    {"RandomAffine", &ops::RandomAffineOp::Make},
    {"GaussianBlur", &ops::GaussianBlurOp::Make},
    {"UniformAugment", &ops::UniformAugmentOp::Make},
    {"AutoContrast", &ops::PointOp::Make},
    {"Equalize", &ops::PointOp::Make},
    {"Invert", &ops::PointOp::Make},
    {"Posterize", &ops::PointOp::Make},
    {"Solarize", &ops::PointOp::Make},
    {"AdjustSharpness", &ops::PointOp::Make},
    {"AdjustBrightness", &ops::PointOp::Make},
    {"AdjustContrast", &ops::PointOp::Make},
    {"AdjustSaturation", &ops::PointOp::Make},
    {"AdjustHue", &ops::PointOp::Make},
    {"AdjustGamma", &ops::PointOp::Make},
    {"RandomAutoContrast", &ops::RandomPointOp::Make},
    {"RandomEqualize", &ops::RandomPointOp::Make},
    {"RandomInvert", &ops::RandomPointOp::Make},
    {"RandomAdjustSharpness", &ops::RandomPointOp::Make},
    {"RandomPosterize", &ops::RandomPointOp::Make},
    {"RandomSolarize", &ops::RandomPointOp::Make},
    {"RandomSharpness", &ops::RandomPointOp::Make},
    {"Fill", &ops::FillOp::Make},
    {"Mask", &ops::MaskOp::Make},
    {"Duplicate", &ops::DuplicateOp::Make},
    {"Unique", &ops::UniqueOp::Make},
    {"Slice", &ops::SliceOp::Make},
    {"PadEnd", &ops::PadEndOp::Make},
    {"Concatenate", &ops::ConcatenateOp::Make},
    {"HorizontalFlip", &ops::FlipOp::MakeHorizontal},
    {"VerticalFlip", &ops::FlipOp::MakeVertical},
    {"Crop", &ops::CropOp::Make},
    {"ResizedCrop", &ops::ResizedCropOp::Make},
    {"RandomGrayscale", &ops::RandomGrayscaleOp::Make},
    {"ToPIL", &ops::ToPILOp::Make},
    {"Erase", &ops::EraseOp::Make},
    {"PadToSize", &ops::PadToSizeOp::Make},
    {"RandomResize", &ops::RandomResizeOp::Make},
    {"RandomColor", &ops::RandomColorOp::Make},
    {"RandomLighting", &ops::RandomLightingOp::Make},
    {"NormalizePad", &ops::NormalizePadOp::Make},
    {"RandomResizedCropWithBBox", &ops::RandomResizedCropWithBBoxOp::Make},
    {"RandomResizeWithBBox", &ops::RandomResizeWithBBoxOp::Make},
    {"TrivialAugmentWide", &ops::TrivialAugmentWideOp::Make},
    {"MixUp", &ops::MixUpOp::Make},
    {"Perspective", &ops::PerspectiveOp::Make},
    {"RandomPerspective", &ops::RandomPerspectiveOp::Make},
    {"FiveCrop", &ops::FiveCropOp::Make},
    {"TenCrop", &ops::TenCropOp::Make},
    {"SlicePatches", &ops::SlicePatchesOp::Make},
};

}  // namespace

Result<std::unique_ptr<TensorOp>> MakeOp(const nlohmann::json& spec) {
  if (!spec.is_object() || !spec.contains("op") || !spec["op"].is_string())
    return Status::InvalidArgument("op spec must be an object with a string \"op\", got " + spec.dump());
  const std::string name = spec["op"].get<std::string>();
  for (const auto& e : kOps)
    if (name == e.name) return e.make(spec);
  std::string known;
  for (const auto& e : kOps) known += (known.empty() ? "" : ", ") + std::string(e.name);
  return Status::InvalidArgument("unknown op '" + name + "' (known: " + known + ")");
}

}  // namespace mindrecord
