// The public converter API: turn a dataset in one of the common source layouts
// (ImageFolder, ImageNet map file, CIFAR-10/100, MNIST, VOC, COCO, TFRecord,
// CSV) into MindRecord datasets. The CLI verb `mindrecord convert` and the
// Python package both map their arguments onto ConvertOptions.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "mindrecord/compression.h"
#include "mindrecord/constants.h"
#include "mindrecord/encryption.h"
#include "mindrecord/status.h"

namespace mindrecord::convert {

class RankGroup;  // writers/convert/rank_group.h

// What to do with an input that cannot be converted (unreadable or
// undecodable image, truncated record, invalid annotation, ...).
enum class OnError : uint8_t {
  kFail = 0,  // stop, report the input and the reason, leave no output dataset
  kSkip = 1,  // leave the input out, list it with the reason, go on
};

// How image / pixel payloads are stored.
enum class EncodeMode : uint8_t {
  kDefault = 0,  // image files: original bytes; pixel sources (MNIST, CIFAR): JPEG, as MindSpore
  kKeep = 1,     // image files: original bytes (pixel sources: same as kDefault)
  kJpeg = 2,     // re-encode to JPEG (quality 95)
  kPng = 3,      // re-encode to PNG (lossless)
  kRaw = 4,      // the decoded pixels, HWC uint8, as bytes; image files decode to RGB and
                 // add `<field>_shape: int32 [3]` (pixel sources have a fixed shape)
};

Result<OnError> ParseOnError(const std::string& text);
Result<EncodeMode> ParseEncodeMode(const std::string& text);

struct ConvertOptions {
  // Shard files per output dataset, 1..1000. Shard s holds a contiguous range
  // of the inputs, the ranges cut so that each shard gets about the same
  // bytes of input (file sizes; an equal count for sources of fixed-size
  // records), so the dataset reads back in input order.
  uint32_t shards = 1;
  // A distributed conversion: this process is one of `ranks->size()`, which
  // split the shards between them (rank r writes shards [r*N/W, (r+1)*N/W))
  // and finish the dataset together; `shards` must be at least the number
  // of ranks. The files are the same bytes whatever the number of ranks.
  // Each shard is first committed on its own as a hidden part (see
  // writers/shard_part.h), so a rerun with `resume` keeps it. Null: one
  // process writes every shard and commits them at once. Not owned.
  RankGroup* ranks = nullptr;
  // Finish an interrupted distributed conversion: verify the shards it
  // completed (checksums of every page, the index, the same inputs and
  // options), keep them and write only the others.
  bool resume = false;
  // Threads that read, parse and encode inputs; 0 means all cores. Output is
  // identical for every value (rows are written in input order).
  uint32_t workers = 0;
  // Writer header and page sizes (bytes); see WriterOptions for limits.
  uint64_t header_size = kDefaultHeaderSize;
  uint64_t page_size = kDefaultPageSize;
  // Replace existing output files instead of refusing to start.
  bool overwrite = false;
  // Add the converted rows to the existing output dataset(s) instead
  // (ShardWriter::OpenForAppend): the schema and description (e.g. the
  // class map) must equal the dataset's; its own shard count, sizes,
  // compression and index fields apply.
  bool append = false;
  // Per-row blob compression (see WriterOptions::compression).
  CompressionOptions compression;
  // Hash and encrypt the new files (see WriterOptions::protection); not with
  // `append` or `ranks` (an error).
  CryptoConfig protection;
  // Write pages with O_DIRECT where the file system takes it (see
  // WriterOptions::direct_writes); false: buffered. Appends are buffered.
  bool direct_writes = true;
  OnError on_error = OnError::kFail;
  EncodeMode encode = EncodeMode::kDefault;
  // Print progress (rows, MB/s, ETA) to stderr. The CLI turns this on only
  // when stderr is a terminal and --quiet is not given.
  bool progress = false;
  // Rows handed to the writer per WriteRows call (also capped at 64 MiB of
  // payload). Batch boundaries depend only on the input, so output is
  // deterministic.
  uint32_t batch_rows = 1000;

  // Source options.
  // voc: "detection" (default) or "segmentation"; coco: "detection"
  // (default), "keypoint", "panoptic" or "captioning".
  std::string task;
  // voc: the ImageSets list to convert (default "train"); mnist, cifar10,
  // cifar100: only this split's files, "train" or "test" (default: both).
  std::string split;
  // coco: the annotation JSON (required). imagenet: the map file (default
  // INPUT/annotation.txt, or INPUT itself when it is a file).
  std::string annotations;
  // coco --task panoptic: the folder of panoptic PNGs (default: beside the
  // annotation JSON, named after it without ".json", as COCO lays them out).
  std::string panoptic_dir;
  // coco, as MindSpore's CocoDataset reads it (the raw-format source): only
  // the images that have annotations, and (panoptic) no PNG masks read.
  bool coco_annotated_only = false;
  bool coco_panoptic_masks = true;
  // imagenet: the image folder (default INPUT/images, or the map file's folder).
  std::string image_dir;
  // voc: class names, label = position (default: the 20 PASCAL VOC classes).
  std::vector<std::string> classes;
  // voc: refuse a box that runs past the image edge (default: keep it and
  // note a warning, as MindSpore does). Empty or inverted boxes and negative
  // corners are always refused.
  bool strict_boxes = false;
  // Output path per split, overriding SplitOutputPath (MindSpore's
  // Cifar10ToMR writes DEST for train and DEST_test for test).
  std::map<std::string, std::string> split_outputs;
  // tfrecord / csv: the field spec "name:type[:shape],..." with type one of
  // int32, int64, float32, float64, string, bytes and shape like [-1] or
  // [-1,4] (e.g. "image/encoded:bytes,label:int64"). Empty: inferred from the
  // first records (tfrecord) or all rows (csv). Names are the source's names;
  // characters outside [0-9A-Za-z_] become '_' in the schema.
  std::string fields;
  // csv: the field delimiter.
  char csv_delimiter = ',';
  // csv without `fields`: the columns to convert, in this order (default:
  // all), their types inferred (MindSpore's CsvToMR columns_list).
  std::vector<std::string> csv_columns;
  // tfrecord: records inspected to infer the feature spec.
  uint32_t infer_records = 100;
};

// One written dataset.
struct OutputReport {
  std::string split;                  // "" for sources without splits, else "train" / "test"
  std::vector<std::string> files;     // shard files, in shard order
  uint64_t rows = 0;
  uint64_t bytes = 0;                 // payload bytes handed to the writer
  std::string description;            // the schema's description (imagefolder: the class map JSON)
  std::vector<uint32_t> kept;         // resume: the shards kept as a previous run wrote them
};

struct ConvertReport {
  std::vector<OutputReport> outputs;
  uint64_t rows = 0;
  uint64_t bytes = 0;
  double seconds = 0;
  // "INPUT: reason" per skipped input (only with OnError::kSkip), in input
  // order: the first ConvertContext::kKeptSkipped (10,000) of them.
  std::vector<std::string> skipped;
  // The INPUT part of each `skipped` line (the reason follows it after ": ").
  std::vector<std::string> skipped_inputs;
  // Every skipped input; skipped_file lists them all (a distributed
  // convert lists at most 10,000 of each shard, and says how many more).
  uint64_t skipped_count = 0;
  // Where the skipped inputs were written (OUTPUT.skipped.txt); empty when none skipped.
  std::string skipped_file;
  // Facts worth telling the user: the class -> label map, the inferred schema.
  std::vector<std::string> notes;
  // Distributed conversion: this process's rank and the number of ranks,
  // and what this rank converted (rows and payload bytes; `rows` and
  // `bytes` above are the whole conversion's, kept shards aside for bytes).
  uint32_t rank = 0;
  uint32_t world_size = 1;
  uint64_t rank_rows = 0;
  uint64_t rank_bytes = 0;
  // Every rank's share, in rank order (one entry without ranks): rows and
  // payload bytes it converted and the seconds its own shards took.
  struct RankStats {
    uint64_t rows = 0;
    uint64_t bytes = 0;
    double seconds = 0;
  };
  std::vector<RankStats> ranks;
  // True when this rank wrote its shards as parts and stopped, the ranks
  // being unable to talk (RankGroup::connected() false): a `resume` run
  // finishes the dataset.
  bool parts_only = false;
};

// The sources Convert() accepts, in the order the CLI lists them.
const std::vector<std::string>& ConvertSources();

// The dataset path written for `split` of OUTPUT: OUTPUT itself without a
// split, else OUTPUT minus a ".mindrecord" suffix + "_" + split + ".mindrecord".
std::string SplitOutputPath(const std::string& output, const std::string& split);

// Converts INPUT (a folder, or the file itself for tfrecord / csv) from
// `source` into OUTPUT. Either every output dataset is committed, or (on
// error) none is left behind. Errors name the input file and the reason.
// Thread safety: reentrant; concurrent calls must write different outputs.
Result<ConvertReport> Convert(const std::string& source, const std::string& input, const std::string& output,
                              const ConvertOptions& options);

}  // namespace mindrecord::convert
