// `mindrecord copy SRC DST [--shards N] [--header-size B] [--page-size B]
// [--overwrite] [--no-checksums] [--compress none|lz4[+raw]|zstd:N[+dict][+raw]]
// [--write-mode auto|buffered] [--key-file F --dec-mode M --hash-mode H]
// [--encrypt-key-file F --enc-mode M --write-hash-mode H]`:
// rewrite a dataset, re-sharded, re-paged or (de)compressed. Rows move in
// their encoded form (blob parts decompressed, then compressed per the
// output's codec), so a single-shard copy with the source's sizes,
// --no-checksums and --compress none reproduces a MindSpore file byte for byte.
// An encrypted or hashed source is read with the reading options; the copy
// is plain unless the writing options ask (cli/crypto_options.h).
#include <cstdio>

#include "cli/command.h"
#include "cli/crypto_options.h"
#include "readers/shard_reader.h"
#include "writers/shard_writer.h"

namespace mindrecord::cli {

namespace {

struct CopyArgs {
  std::string src, dst;
  uint32_t shards = 0;        // 0: as the source
  uint64_t header_size = 0;   // 0: as the source
  uint64_t page_size = 0;     // 0: as the source
  bool overwrite = false;
  bool no_checksums = false;
  bool direct_writes = false;  // --write-mode auto: buffered (WriterOptions::direct_writes)
  std::string compress;       // empty: as the source
  ReaderOptions read;         // the source's (remote options)
  WriteCryptoArgs write;      // the output's encryption and digest
};

Status Copy(const CopyArgs& a, uint64_t* rows_out) {
  MR_ASSIGN_OR_RETURN(const CryptoConfig protection, WriteProtection(a.write));
  MR_ASSIGN_OR_RETURN(auto reader, ShardReader::Open(a.src, a.read));
  ReportWarnings("copy", *reader);
  WriterOptions o;
  o.shard_count = a.shards ? a.shards : reader->num_shards();
  o.header_size = a.header_size ? a.header_size : reader->header_size();
  o.page_size = a.page_size ? a.page_size : reader->page_size();
  o.overwrite = a.overwrite;
  o.checksums = !a.no_checksums;
  o.direct_writes = a.direct_writes;
  o.format_version = BaseVersion(reader->version());
  o.compression = CompressionFromHeader(reader->header(0));
  if (!a.compress.empty()) {
    MR_ASSIGN_OR_RETURN(o.compression, ParseCompression(a.compress));
  }
  // Compression needs the 3.0 layout: a 2.0 source is decoded and re-encoded.
  const bool reencode = o.compression.enabled() && o.format_version != kVersion3;
  if (reencode) o.format_version = kVersion3;
  o.index_fields = reader->index_fields();
  o.protection = protection;
  MR_ASSIGN_OR_RETURN(auto writer, ShardWriter::Create(a.dst, reader->schema(), o));
  MR_RETURN_IF_ERROR(MoveRows(*reader, writer.get(), reencode));
  MR_RETURN_IF_ERROR(writer->Commit());
  *rows_out = reader->num_rows();
  return Status::OK();
}

}  // namespace

void AddCopyCommand(CLI::App& app, int* exit_code) {
  auto* sub = app.add_subcommand("copy", "Rewrite a dataset: re-shard or re-page it");
  AddReadCryptoOptions(sub);
  auto a = std::make_shared<CopyArgs>();
  sub->add_option("src", a->src, "Any shard file of the source dataset")->required();
  sub->add_option("dst", a->dst, "Output path (a name, or the stem of NAME0..NAME{N-1})")->required();
  AddRemoteOptions(sub, &a->read.remote);
  sub->add_option("--shards", a->shards, "Shard count 1..1000 (default: as the source)");
  sub->add_option("--header-size", a->header_size, "Header bytes per shard (default: as the source)");
  sub->add_option("--page-size", a->page_size, "Page bytes (default: as the source)");
  sub->add_flag("--overwrite", a->overwrite, "Replace existing output files");
  sub->add_option("--compress", a->compress,
                  "Per-row compression: none (plain MindSpore output), lz4, zstd:LEVEL, zstd:LEVEL+dict; "
                  "+raw compresses the non-blob part too (e.g. zstd:3+dict+raw) "
                  "(default: as the source)");
  sub->add_flag("--no-checksums", a->no_checksums, "Write no page/header checksums: output identical to MindSpore's");
  AddWriteModeOption(sub, &a->direct_writes);
  AddWriteCryptoOptions(sub, &a->write);
  sub->callback([=] {
    uint64_t rows = 0;
    Status st = Copy(*a, &rows);
    *exit_code = ReportStatus("copy", st);
    if (st.ok()) std::fprintf(stderr, "copied %llu rows to %s\n", static_cast<unsigned long long>(rows), a->dst.c_str());
  });
}

}  // namespace mindrecord::cli
