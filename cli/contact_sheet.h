// The contact sheet of `mindrecord export --contact-sheet N`: a PNG grid of
// thumbnails, one row per class with its first N samples (in row order),
// each captioned with its row id and label (and class name, from the class
// map a converter stored); without a label column, N samples in rows of 8.
#pragma once

#include <string>

#include "mindrecord/status.h"

namespace mindrecord {
class ShardReader;
}  // namespace mindrecord

namespace mindrecord::cli {

struct SheetOptions {
  int per_class = 8;             // samples per class (1-64)
  std::string image_column;      // empty: the first bytes column whose first row is an image
  std::string label_column;      // empty: "label" when the dataset has it; "-": no classes
  int max_classes = 100;         // grid rows at most; the first classes by value are shown
  int max_cells = 1024;          // thumbnails at most (fewer classes with a large per_class):
                                 // the sheet stays under ~60 MB of pixels
  int cell = 128;                // thumbnail side in pixels
};

struct SheetResult {
  std::string png;          // the sheet
  std::string image_column, label_column;
  size_t classes = 0;       // grid rows drawn
  size_t classes_total = 0; // distinct labels found
  size_t samples = 0;       // thumbnails drawn
};

// Reads the label column of every row (only that column's part), keeps the
// first `per_class` row ids of each label, then reads and decodes only those
// images. Memory: the sheet plus per_class ids per label.
Result<SheetResult> MakeContactSheet(const ShardReader& r, const SheetOptions& o);

}  // namespace mindrecord::cli
