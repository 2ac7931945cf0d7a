#include "benchmarks/baselines/tf_example.h"

namespace mindrecord::bench {

std::string MakeExample(const std::string& bytes_key, std::string_view bytes, const std::string& int_key,
                        int64_t value) {
  tf::Example ex;
  auto& f = *ex.mutable_features()->mutable_feature();
  f[bytes_key].mutable_bytes_list()->add_value(bytes.data(), bytes.size());
  f[int_key].mutable_int64_list()->add_value(value);
  return ex.SerializeAsString();
}

Status ParseExample(std::string_view data, tf::Example* ex) {
  if (!ex->ParseFromArray(data.data(), static_cast<int>(data.size())))
    return Status::Corruption("record is not a tf.train.Example");
  return Status::OK();
}

Result<std::string_view> BytesFeature(const tf::Example& ex, const std::string& key) {
  const auto& f = ex.features().feature();
  auto it = f.find(key);
  if (it == f.end() || !it->second.has_bytes_list() || it->second.bytes_list().value_size() != 1)
    return Status::Corruption("feature '" + key + "' is not one byte string");
  return std::string_view(it->second.bytes_list().value(0));
}

Result<int64_t> Int64Feature(const tf::Example& ex, const std::string& key) {
  const auto& f = ex.features().feature();
  auto it = f.find(key);
  if (it == f.end() || !it->second.has_int64_list() || it->second.int64_list().value_size() != 1)
    return Status::Corruption("feature '" + key + "' is not one int64");
  return it->second.int64_list().value(0);
}

}  // namespace mindrecord::bench
