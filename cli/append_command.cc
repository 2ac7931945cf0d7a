// `mindrecord append DATASET SRC...`: add the rows of other MindRecord
// datasets with the same schema to an existing dataset. Row ids continue; the
// dataset keeps its format version, checksums, compression and index fields.
// Until the append commits the dataset reads as before, and an interrupted
// append is rolled back by the next open (see mindrecord/append_journal.h).
#include <cstdio>

#include "cli/command.h"
#include "cli/crypto_options.h"
#include "mindrecord/compression.h"
#include "readers/shard_reader.h"
#include "writers/shard_writer.h"

namespace mindrecord::cli {

namespace {

struct AppendArgs {
  std::string dataset;
  std::vector<std::string> sources;
};

Status Append(const AppendArgs& a, uint64_t* added, uint64_t* total) {
  // Sources open first: the dataset may be one of them (its rows as committed).
  std::vector<std::unique_ptr<ShardReader>> readers;
  for (const auto& src : a.sources) {
    MR_ASSIGN_OR_RETURN(auto r, ShardReader::Open(src));
    readers.push_back(std::move(r));
  }
  MR_ASSIGN_OR_RETURN(auto writer, ShardWriter::OpenForAppend(a.dataset));
  for (size_t i = 0; i < readers.size(); ++i) {
    if (!(readers[i]->schema() == writer->schema())) {
      return Status::InvalidArgument(a.sources[i] + ": schema " + readers[i]->schema().ToUserJson().dump() +
                                     " differs from " + a.dataset + "'s " + writer->schema().ToUserJson().dump());
    }
    // The description holds what the values mean (a converter's class map):
    // rows labelled under another map would not agree (as convert --append).
    if (readers[i]->schema().desc() != writer->schema().desc()) {
      return Status::InvalidArgument(a.sources[i] + ": its description (\"" + readers[i]->schema().desc() +
                                     "\") differs from " + a.dataset + "'s (\"" + writer->schema().desc() +
                                     "\"), e.g. another class map; labels would not agree");
    }
  }
  const uint64_t before = writer->rows_written();
  for (size_t i = 0; i < readers.size(); ++i) {
    // 2.0 and 3.0 lay rows out differently: decode and re-encode then.
    Status st = MoveRows(*readers[i], writer.get(), BaseVersion(readers[i]->version()) != writer->format_version());
    if (!st.ok()) return st.WithContext("appending " + a.sources[i]);
  }
  MR_RETURN_IF_ERROR(writer->Commit());
  *total = writer->rows_written();
  *added = *total - before;
  return Status::OK();
}

}  // namespace

void AddAppendCommand(CLI::App& app, int* exit_code) {
  auto* sub = app.add_subcommand("append", "Add the rows of other datasets (same schema) to a dataset");
  AddReadCryptoOptions(sub);  // the sources'
  auto a = std::make_shared<AppendArgs>();
  sub->add_option("dataset", a->dataset, "Any shard file of the dataset to append to")->required();
  sub->add_option("sources", a->sources, "Datasets whose rows are added, in order (any shard file of each)")
      ->required();
  sub->callback([=] {
    uint64_t added = 0, total = 0;
    Status st = Append(*a, &added, &total);
    *exit_code = ReportStatus("append", st);
    if (st.ok()) {
      std::fprintf(stderr, "appended %llu rows to %s (%llu rows now)\n", static_cast<unsigned long long>(added),
                   a->dataset.c_str(), static_cast<unsigned long long>(total));
    }
  });
}

}  // namespace mindrecord::cli
