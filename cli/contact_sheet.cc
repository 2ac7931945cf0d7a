#include "cli/contact_sheet.h"

#include <algorithm>
#include <map>

#include <opencv2/imgproc.hpp>

#include "cli/images.h"
#include "cli/label_histogram.h"
#include "readers/shard_reader.h"

namespace mindrecord::cli {

namespace {

constexpr int kCaption = 18;  // caption strip under each thumbnail, pixels

Result<std::string> PickImageColumn(const ShardReader& r, const std::string& asked) {
  if (!asked.empty()) {
    const Field* f = r.schema().Find(asked);
    if (f == nullptr || f->type != DataType::kBytes) {
      return Status::InvalidArgument("--image-column '" + asked + "' is not a bytes column of the dataset");
    }
    return asked;
  }
  if (r.num_rows() == 0) return Status::InvalidArgument("the dataset has no rows to show");
  MR_ASSIGN_OR_RETURN(Row first, r.ReadRow(0));
  for (const Field& f : r.schema().fields()) {
    if (f.type != DataType::kBytes) continue;
    const Value* v = first.Find(f.name);
    if (v != nullptr && (SniffImage(v->bytes()) != nullptr || HasRawPixels(first, f.name))) return f.name;
  }
  return Status::InvalidArgument("no bytes column holds an image in row 0 (give --image-column)");
}

// A thumbnail of `img` letterboxed into cell x cell, captioned below.
void DrawCell(cv::Mat& sheet, int x, int y, int cell, const cv::Mat& img, const std::string& caption) {
  const double scale = std::min(static_cast<double>(cell) / img.cols, static_cast<double>(cell) / img.rows);
  const int w = std::max(1, static_cast<int>(img.cols * scale)), h = std::max(1, static_cast<int>(img.rows * scale));
  cv::Mat thumb;
  cv::resize(img, thumb, cv::Size(w, h), 0, 0, scale < 1 ? cv::INTER_AREA : cv::INTER_NEAREST);
  thumb.copyTo(sheet(cv::Rect(x + (cell - w) / 2, y + (cell - h) / 2, w, h)));
  cv::putText(sheet, caption, cv::Point(x + 3, y + cell + kCaption - 5), cv::FONT_HERSHEY_SIMPLEX, 0.38,
              cv::Scalar(255, 255, 255), 1, cv::LINE_AA);
}

}  // namespace

Result<SheetResult> MakeContactSheet(const ShardReader& r, const SheetOptions& o) {
  if (o.per_class < 1 || o.per_class > 64) return Status::InvalidArgument("--contact-sheet takes 1 to 64 samples");
  SheetResult out;
  MR_ASSIGN_OR_RETURN(out.image_column, PickImageColumn(r, o.image_column));
  out.label_column = o.label_column.empty() ? (r.schema().Find("label") ? "label" : "-") : o.label_column;
  const bool classes = out.label_column != "-";
  if (classes) {
    const Field* f = r.schema().Find(out.label_column);
    if (f == nullptr || !f->is_scalar() || f->type == DataType::kBytes) {
      return Status::InvalidArgument("--label-column '" + out.label_column +
                                     "' is not a scalar number or string column of the dataset");
    }
  }

  // Grid rows: the first `per_class` row ids of each label (or of the dataset).
  std::vector<std::pair<Value, std::vector<uint64_t>>> rows;
  if (classes) {
    MR_ASSIGN_OR_RETURN(Histogram h, CountLabels(r, out.label_column));
    out.classes_total = h.counts.size();
    const size_t max_classes = std::max(1, std::min(o.max_classes, o.max_cells / o.per_class));
    std::vector<LabelCount> shown(h.counts.begin(), h.counts.begin() + std::min(h.counts.size(), max_classes));
    for (const auto& c : shown) rows.push_back({c.value, {}});
    size_t open = rows.size();
    MR_ASSIGN_OR_RETURN(Projection proj, r.MakeProjection({out.label_column}));
    Status st = r.Scan(0, r.num_rows(), &proj, [&](uint64_t id, Row&& row) {
      const Value& v = row.Get(out.label_column);
      for (auto& [label, ids] : rows) {
        if (label == v && ids.size() < static_cast<size_t>(o.per_class)) {
          ids.push_back(id);
          if (ids.size() == static_cast<size_t>(o.per_class)) --open;
          break;
        }
      }
      return open == 0 ? Status::Cancelled("all classes full") : Status::OK();
    });
    if (!st.ok() && st.code() != StatusCode::kCancelled) return st;
  } else {
    const uint64_t n = std::min<uint64_t>(r.num_rows(), o.per_class);
    for (uint64_t id = 0; id < n; id += 8) {
      rows.push_back({Value(), {}});
      for (uint64_t k = id; k < std::min<uint64_t>(n, id + 8); ++k) rows.back().second.push_back(k);
    }
  }
  out.classes = classes ? rows.size() : 0;

  const auto names = ClassNames(r.schema());
  size_t cols = 1;
  for (const auto& g : rows) cols = std::max(cols, g.second.size());
  const int cw = o.cell, ch = o.cell + kCaption;
  cv::Mat sheet(static_cast<int>(std::max<size_t>(rows.size(), 1)) * ch, static_cast<int>(cols) * cw, CV_8UC3,
                cv::Scalar(40, 40, 40));
  std::vector<std::string> read = {out.image_column};
  if (r.schema().Find(out.image_column + "_shape")) read.push_back(out.image_column + "_shape");
  if (classes) read.push_back(out.label_column);
  MR_ASSIGN_OR_RETURN(Projection proj, r.MakeProjection(read));
  for (size_t gy = 0; gy < rows.size(); ++gy) {
    for (size_t gx = 0; gx < rows[gy].second.size(); ++gx) {
      const uint64_t id = rows[gy].second[gx];
      MR_ASSIGN_OR_RETURN(Row row, r.ReadRow(id, &proj));
      auto img = RowImage(row, out.image_column);
      if (!img.ok()) {
        MR_ASSIGN_OR_RETURN(auto loc, r.Locate(id));
        return img.status().WithContext("row " + std::to_string(id) + " (" + r.shard_paths()[loc.shard] + ", column " +
                                        out.image_column + ")");
      }
      std::string caption = "#" + std::to_string(id);
      if (classes) caption += " " + LabelText(row.Get(out.label_column), names);
      DrawCell(sheet, static_cast<int>(gx) * cw, static_cast<int>(gy) * ch, o.cell, *img, caption);
      ++out.samples;
    }
  }
  MR_ASSIGN_OR_RETURN(out.png, EncodePng(sheet));
  return out;
}

}  // namespace mindrecord::cli
