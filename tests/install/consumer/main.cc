// Writes a 2-shard dataset with ShardWriter, reads it back with ShardReader
// and through a Pipeline, using only the installed headers (the umbrella).
// Usage: consumer OUTPUT_DIR; exit 0 and "consumer ok ..." when all agree.
#include <cstdio>
#include <string>
#include <vector>

#include "mindrecord/mindrecord.h"

namespace {

int Fail(const char* what, const mindrecord::Status& st) {
  std::fprintf(stderr, "consumer: %s: %s\n", what, st.ToString().c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace mindrecord;
  if (argc != 2) return 2;
  const std::string path = std::string(argv[1]) + "/data";
  auto schema = Schema::FromUserJsonString(R"({"label":{"type":"int32"},"blob":{"type":"bytes"}})", "consumer");
  if (!schema.ok()) return Fail("schema", schema.status());
  WriterOptions wo;
  wo.shard_count = 2;
  auto writer = ShardWriter::Create(path, *schema, wo);
  if (!writer.ok()) return Fail("create", writer.status());
  std::vector<Row> rows;
  for (int i = 0; i < 20; ++i) rows.push_back(Row{{"label", Value::Int(i)}, {"blob", Value::Bytes(std::string(i, 'x'))}});
  if (Status st = (*writer)->WriteRows(rows); !st.ok()) return Fail("write", st);
  if (Status st = (*writer)->Commit(); !st.ok()) return Fail("commit", st);

  auto reader = ShardReader::Open(path + "1");
  if (!reader.ok()) return Fail("open", reader.status());
  if ((*reader)->num_rows() != 20) return Fail("rows", Status::Corruption("expected 20 rows"));
  int64_t read_sum = 0;
  for (uint64_t id = 0; id < 20; ++id) {  // global row ids: shard 0's rows first
    auto row = (*reader)->ReadRow(id);
    if (!row.ok()) return Fail("read", row.status());
    const int64_t label = row->Get("label").as_int();
    if (row->Get("blob").bytes() != std::string(static_cast<size_t>(label), 'x'))
      return Fail("read", Status::Corruption("row " + std::to_string(id) + " differs from what was written"));
    read_sum += label;
  }
  if (read_sum != 190) return Fail("read", Status::Corruption("the labels read back are not 0..19"));

  auto plan = Plan::Parse(R"({"source":[")" + path + R"(0"],"columns":["label"],"batch":{"batch_size":8},)" +
                          R"("sampler":{"type":"shuffle","mode":"global"},"seed":3})");
  if (!plan.ok()) return Fail("plan", plan.status());
  auto pipe = Pipeline::Open(*plan);
  if (!pipe.ok()) return Fail("pipeline", pipe.status());
  int64_t sum = 0, seen = 0;
  Batch b;
  for (;;) {
    auto more = (*pipe)->Next(&b);
    if (!more.ok()) return Fail("next", more.status());
    if (!*more) break;
    const Tensor& labels = b.column("label")->data;
    for (int64_t i = 0; i < labels.num_elements(); ++i) sum += labels.data_as<int32_t>()[i];
    seen += static_cast<int64_t>(b.size());
  }
  if (seen != 20 || sum != 190) return Fail("pipeline rows", Status::Corruption("rows or labels differ"));

  // An encrypted copy (MindSpore's set_enc_key), read back with the key.
  CryptoConfig crypto;
  crypto.key = "0123456789abcdef";
  WriterOptions eo;
  eo.protection = crypto;
  auto enc = ShardWriter::Create(path + "_enc", *schema, eo);
  if (!enc.ok()) return Fail("create encrypted", enc.status());
  if (Status st = (*enc)->WriteRows(rows); !st.ok()) return Fail("write encrypted", st);
  if (Status st = (*enc)->Commit(); !st.ok()) return Fail("commit encrypted", st);
  SetCryptoConfig(crypto);
  auto decrypted = ShardReader::Open(path + "_enc");
  if (!decrypted.ok()) return Fail("open encrypted", decrypted.status());
  if ((*decrypted)->num_rows() != 20) return Fail("encrypted rows", Status::Corruption("expected 20 rows"));
  std::printf("consumer ok: mindrecord %s, %lld rows\n", MINDRECORD_VERSION, static_cast<long long>(seen));
  return 0;
}
